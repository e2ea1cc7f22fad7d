"""docs/architecture.md matches the tree and the import contracts: every path its layout names
exists, every package and module of ``desktop_rag`` (all of ``core`` included) is named, and
its stage diagram is the layer order that ``lint-imports`` enforces (pyproject.toml)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NAME_COLUMN = 24  # the layout block: names in the first 24 columns, the description after
PAGE = REPO / "docs" / "architecture.md"


def block(heading: str) -> list[str]:
    section = PAGE.read_text("utf-8").split(f"\n## {heading}\n", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def named_paths() -> set[str]:
    """Every path the layout block names in its name column, relative to the repo (folders end
    in "/"). A name indented under a folder is inside it; ``a.py b.py`` names two; a line
    ``pdf, chunking, ...`` names modules of the enclosing package by stem."""
    out: set[str] = set()
    parents: list[tuple[int, str]] = []  # (indent, folder)
    for line in block("Layout"):
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
    return [f for f in out.split("\0") if f and (REPO / f).exists()]


def test_every_path_the_layout_names_exists() -> None:
    names = named_paths()
    assert {"main.py", "desktop_rag/", "desktop_rag/core/workspace.py", "desktop_rag/gui/workers.py",
            "desktop_rag/core/index/backends/sqlite.py"} <= names
    assert sorted(n for n in names if not (REPO / n).exists()) == []


def test_the_layout_names_every_top_level_entry_package_and_core_module() -> None:
    files = tracked()
    names = named_paths()
    top = {f.split("/")[0] + ("/" if "/" in f else "") for f in files}
    top -= {".gitignore", "README.md", ".ci/"}  # .ci/run is named in the Makefile's line
    packages = {f.rsplit("/", 1)[0] + "/" for f in files if re.fullmatch(r"desktop_rag/([a-z_]+/)+__init__\.py", f)
                and not f.startswith(("desktop_rag/gui/", "desktop_rag/evaluation/"))} | {
        "desktop_rag/gui/", "desktop_rag/evaluation/"}
    modules = {f for f in files if re.fullmatch(r"desktop_rag/(core/([a-z_]+/)*)?[a-z_]+\.py", f)
               and not f.endswith("__init__.py")}
    named = names | {n.split("/")[0] + "/" for n in names if "/" in n.rstrip("/")}  # tests/unit names tests/
    assert sorted((top | packages | modules) - named) == []


def _diagram() -> dict[str, list[str]]:
    """The stage diagram as layers per container: {"desktop_rag": [...], "desktop_rag.core": [...]}."""
    layers: dict[str, list[str]] = {"desktop_rag": [], "desktop_rag.core": []}
    for line in block("Stages")[1:]:  # the first line names the package
        head = line.split("  ", 2)[:2]
        indent = len(line) - len(line.lstrip())
        name = line.strip().split("  ")[0].strip()
        container = "desktop_rag" if indent == 2 else "desktop_rag.core"
        assert indent in (2, 4), (line, head)
        layers[container].append(name.rstrip("/"))
    return layers


def test_the_stage_diagram_is_the_layer_order_lint_imports_enforces() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]
    enforced = {c["containers"][0]: c["layers"] for c in contracts if c["type"] == "layers"}
    assert enforced.get("desktop_rag.core") and enforced.get("desktop_rag")
    assert all(c.get("exhaustive") for c in contracts if c["type"] == "layers")  # a new stage must be placed
    assert _diagram() == {k: enforced[k] for k in ("desktop_rag", "desktop_rag.core")}
