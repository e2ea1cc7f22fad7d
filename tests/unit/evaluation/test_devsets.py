"""Dev-set locations and loading for `main.py eval`."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation import devsets


def test_spread():
    assert devsets.spread(list(range(10)), 3) == [0, 3, 6]
    assert devsets.spread([1, 2], 5) == [1, 2]


def test_shared_dir_env_overrides_the_sibling_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(devsets.ENV_SHARED, raising=False)
    from desktop_rag.paths import app_root

    assert devsets.shared_dir() == app_root().parent / "shared"
    monkeypatch.setenv(devsets.ENV_SHARED, str(tmp_path))
    assert devsets.shared_dir() == tmp_path.resolve()
    assert devsets.sec10q_pdfs() == tmp_path.resolve() / "data" / "sec10q" / "pdfs"


def test_load_devset_skips_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text('{"id": "a"}\n\n{"id": "b"}\n', "utf-8")
    assert [r["id"] for r in devsets.load_devset(f)] == ["a", "b"]
