"""The README's "Layout" section matches the tree: every path it names exists, and every
top-level entry, every package of ``desktop_rag`` and every module of ``desktop_rag`` and
``desktop_rag/core`` is named in it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NAME_COLUMN = 24  # the layout block: names in the first 24 columns, the description after


def layout_block() -> list[str]:
    text = (REPO / "README.md").read_text("utf-8")
    section = text.split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def named_paths() -> set[str]:
    """Every path the block names in its name column, relative to the repo (folders end in
    "/"). A name indented under a folder is inside it; ``a.py b.py`` names two; a line
    ``pdf, chunking, ...`` names modules of the enclosing package by stem."""
    out: set[str] = set()
    parents: list[tuple[int, str]] = []  # (indent, folder)
    for line in layout_block():
        head = line[:NAME_COLUMN]
        if not head.strip():
            continue  # a description's continuation
        indent = len(head) - len(head.lstrip())
        while parents and parents[-1][0] >= indent:
            parents.pop()
        base = parents[-1][1] if parents else ""
        if "," in head:
            out.update(f"{base}{stem.strip()}.py" for stem in line.split(","))
            continue
        names = head.split()
        out.update(base + name for name in names)
        if len(names) == 1 and names[0].endswith("/"):
            parents.append((indent, base + names[0]))
    return out


def tracked() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [f for f in out.split("\0") if f]


def test_every_path_the_layout_names_exists() -> None:
    names = named_paths()
    assert {"main.py", "desktop_rag/", "desktop_rag/core/workspace.py", "desktop_rag/gui/workers.py"} <= names
    missing = sorted(n for n in names if not (REPO / n).exists())
    assert missing == []


def test_the_layout_names_every_top_level_entry_package_and_core_module() -> None:
    files = tracked()
    names = named_paths()
    top = {f.split("/")[0] + ("/" if "/" in f else "") for f in files}
    top -= {".gitignore", "README.md", ".ci/"}  # .ci/run is named in the Makefile's line
    packages = {f.rsplit("/", 1)[0] + "/" for f in files if re.fullmatch(r"desktop_rag/[a-z_]+/__init__\.py", f)}
    modules = {f for f in files if re.fullmatch(r"desktop_rag/(core/)?[a-z_]+\.py", f) and not f.endswith("__init__.py")}
    named = names | {n.split("/")[0] + "/" for n in names if "/" in n.rstrip("/")}  # tests/unit names tests/
    assert sorted((top | packages | modules) - named) == []
