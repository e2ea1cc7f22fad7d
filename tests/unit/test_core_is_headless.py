"""The headless core (and the CLI, settings, paths) must never need Qt, and never import
the measurement package ``desktop_rag.evaluation``.

Dynamic check: a fresh interpreter whose import system refuses every Qt binding imports
every module under ``desktop_rag.core`` plus ``desktop_rag.cli``, ``settings``, ``paths``.
Static check: no file under ``desktop_rag/core`` imports a Qt binding or ``desktop_rag.evaluation``.
The CLI works without the Unix-only ``resource`` module (only ``bench`` measures memory).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "desktop_rag" / "core"
QT_NAMES = ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6", "shiboken2")

PROBE = textwrap.dedent(
    """
    import importlib, importlib.abc, json, pkgutil, sys

    BLOCKED = {blocked!r}

    class BlockQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"Qt is not available here: {{name}}")
            return None

    sys.meta_path.insert(0, BlockQt())
    for name in BLOCKED:
        sys.modules.pop(name, None)

    import desktop_rag.core as core

    names = sorted(m.name for m in pkgutil.walk_packages(core.__path__, "desktop_rag.core."))
    names += ["desktop_rag.cli", "desktop_rag.settings", "desktop_rag.paths"]
    failed = {{}}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed[name] = f"{{type(exc).__name__}}: {{exc}}"
    # The CLI builds its parser (which imports the eval/bench commands) without Qt too.
    try:
        import desktop_rag.cli as cli
        cli.build_parser()
    except Exception as exc:
        failed["desktop_rag.cli.build_parser()"] = f"{{type(exc).__name__}}: {{exc}}"
    qt_loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    evaluation_loaded = sorted(m for m in sys.modules if m.startswith("desktop_rag.evaluation"))
    print(json.dumps({{"imported": names, "failed": failed, "qt_loaded": qt_loaded,
                      "evaluation_loaded": evaluation_loaded}}))
    """
).format(blocked=set(QT_NAMES))


def test_core_imports_without_qt(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
             "DESKTOP_RAG_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["failed"] == {}, result["failed"]
    assert result["qt_loaded"] == []
    # neither the core nor the CLI parser loads the measurement package
    assert result["evaluation_loaded"] == []
    core_modules = {n for n in result["imported"] if n.startswith("desktop_rag.core.")}
    expected = {f"desktop_rag.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__"}
    assert expected <= core_modules, "pkgutil walk missed a module"
    assert {"desktop_rag.core.ingest.pdf", "desktop_rag.core.answer.engine", "desktop_rag.core.workspace"} <= core_modules


def _imported_names(path: Path, package: tuple[str, ...] | None = None) -> list[tuple[int, str]]:
    """(line, module) for every import in a file, relative imports resolved against its
    package (by default the one the file sits in under the repo)."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    if package is None:
        package = path.resolve().relative_to(REPO).with_suffix("").parts[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found += [(node.lineno, module)] + [(node.lineno, f"{module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if fname in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def _evaluation_imports(path: Path, package: tuple[str, ...] | None = None) -> list[str]:
    return [f"{path.name}:{line}: {name}" for line, name in _imported_names(path, package)
            if name == "desktop_rag.evaluation" or name.startswith("desktop_rag.evaluation.")]


def test_core_never_imports_evaluation() -> None:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 10
    assert [hit for f in files for hit in _evaluation_imports(f)] == []


def test_evaluation_import_check_detects_absolute_and_relative_imports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from desktop_rag.evaluation import metrics\nfrom .. import evaluation\n"
                   "from ..evaluation.report import table\nimport desktop_rag.evaluation.devsets\n"
                   "from desktop_rag import evaluation\nfrom .store import Store\nimport desktop_rag.paths\n")
    hits = _evaluation_imports(bad, ("desktop_rag", "core"))
    assert sorted({int(h.split(":")[1]) for h in hits}) == [1, 2, 3, 4, 5]


NO_RESOURCE_PROBE = textwrap.dedent(
    """
    import contextlib, io, sys
    sys.modules["resource"] = None  # as on Windows: `import resource` raises ImportError
    import desktop_rag.cli as cli

    cli.build_parser()
    for argv in (["--help"], ["eval", "--help"], ["bench", "--help"], ["ask", "--help"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                cli.main(argv)
            except SystemExit as exc:
                assert exc.code == 0, (argv, exc.code)
        assert "usage:" in out.getvalue(), argv
    import desktop_rag.evaluation.eval_run, desktop_rag.evaluation.bench_run  # importable; bench needs it only to measure
    print("ok")
    """
)


def test_cli_works_without_the_resource_module(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", NO_RESOURCE_PROBE], cwd=REPO, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
             "DESKTOP_RAG_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")


def _qt_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if fname in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [f"{path.name}:{node.lineno}: {n}" for n in names if n.split(".")[0] in QT_NAMES]
    return found


def test_no_qt_imports_in_core_source() -> None:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 10
    offenders = [hit for f in files for hit in _qt_imports(f)]
    assert offenders == []
    # Belt and braces: not even a mention in an import line hidden from the AST (exec strings).
    for f in files:
        for n, line in enumerate(f.read_text("utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")) or "import_module(" in stripped:
                assert not any(q in stripped for q in ("PySide", "PyQt", "shiboken")), f"{f.name}:{n}: {line}"


def test_static_check_detects_a_qt_import(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import os\nfrom PySide6.QtCore import QObject\nimportlib.import_module('PyQt6.QtGui')\n")
    assert len(_qt_imports(sample)) == 2
