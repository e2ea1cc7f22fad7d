"""Plain-text tables of `main.py eval` / `bench`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation.report import short, table


def test_table_aligns():
    t = table(["name", "v"], [["a", 1.0], ["bbb", None]])
    lines = t.splitlines()
    assert lines[0].startswith("name") and lines[2] == "a     1.000" and lines[3].endswith("-")


def test_short_collapses_white_space_and_truncates():
    assert short("a  b\nc") == "a b c"
    assert short("x" * 100, 10) == "x" * 9 + "…"
