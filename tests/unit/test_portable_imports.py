"""Windows/macOS hygiene: no module of ``desktop_rag`` needs a Unix-only module to import,
and no code path uses a POSIX-only call without a guard.

Dynamic check: a fresh interpreter in which ``resource``, ``fcntl``, ``termios``, ``pwd`` and
``grp`` cannot be imported (``sys.modules[name] = None``, as on Windows) imports every module
file under ``desktop_rag`` (the GUI too when PySide6 is installed) and builds the CLI parser.
Static check: no Unix-only import at module level, no unguarded POSIX-only ``os``/``signal`` call.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "desktop_rag"
UNIX_ONLY = ("resource", "fcntl", "termios", "pwd", "grp")
# os/signal attributes missing on Windows; fine only behind a hasattr()/platform guard.
POSIX_ONLY_ATTRS = {"fork", "getuid", "geteuid", "getgid", "killpg", "setsid", "getpgid", "setpgrp",
                    "SIGKILL", "SIGALRM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGCHLD", "alarm", "setitimer"}

PROBE = textwrap.dedent(
    """
    import importlib, json, os, sys

    for name in {blocked!r}:
        sys.modules[name] = None  # `import name` now raises ImportError, as on Windows

    import desktop_rag

    try:
        import PySide6.QtWidgets  # noqa: F401
        has_qt = True
    except ImportError:
        has_qt = False
    names = json.loads(sys.argv[1])  # from the files: desktop_rag.gui is a namespace package
    failed, skipped = {{}}, []
    for name in names:
        if name.startswith("desktop_rag.gui") and not has_qt:
            skipped.append(name)
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed[name] = f"{{type(exc).__name__}}: {{exc}}"
    import desktop_rag.cli as cli
    cli.build_parser()
    print(json.dumps({{"imported": names, "failed": failed, "skipped": skipped}}))
    """
).format(blocked=UNIX_ONLY)


def package_modules() -> list[str]:
    return sorted(".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
                  for p in PACKAGE.rglob("*.py") if p.stem != "__main__")


def test_every_module_imports_without_unix_only_modules(tmp_path: Path) -> None:
    expected = package_modules()
    assert {"desktop_rag.cli", "desktop_rag.gui.app", "desktop_rag.core.index.backends.sqlite", "desktop_rag.paths"} <= set(expected)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(expected)], cwd=REPO, capture_output=True, text=True, timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen",
             "DESKTOP_RAG_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["failed"] == {}, result["failed"]
    assert result["imported"] == expected


# ``main.py ARGS`` as a user runs it, in an interpreter where the Unix-only modules cannot be imported.
RUN_MAIN_BLOCKED = textwrap.dedent(
    """
    import runpy, sys

    for name in {blocked!r}:
        sys.modules[name] = None  # `import name` now raises ImportError, as on Windows
    sys.argv = ["main.py", *sys.argv[1:]]
    runpy.run_path("main.py", run_name="__main__")
    """
).format(blocked=UNIX_ONLY)


@pytest.mark.parametrize("args", [["--help"], ["eval", "--help"], ["bench", "--help"]])
def test_main_help_works_without_unix_only_modules(tmp_path: Path, args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", RUN_MAIN_BLOCKED, *args], cwd=REPO, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
             "DESKTOP_RAG_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("usage: ") and "Traceback" not in proc.stderr
    if args == ["--help"]:
        assert all(cmd in proc.stdout for cmd in ("ingest", "ask", "eval", "bench")), proc.stdout


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside an expression or ``if`` that asks hasattr(...) / sys.platform / os.name first."""
    while node in parents:
        node = parents[node]
        src = ast.unparse(node.test) if isinstance(node, (ast.If, ast.IfExp)) else ""
        if any(word in src for word in ("hasattr", "sys.platform", "os.name", "platform.system")):
            return True
    return False


def portability_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    problems = []
    for node in tree.body:  # module level (including under module-level if/try)
        for sub in ast.walk(node):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            names = ([a.name for a in sub.names] if isinstance(sub, ast.Import)
                     else [sub.module or ""] if isinstance(sub, ast.ImportFrom) else [])
            bad = [n for n in names if n.split(".")[0] in UNIX_ONLY]
            if bad and not _guarded(sub, parents) and not _inside_function(sub, parents):
                problems.append(f"{path.name}:{sub.lineno}: module-level import of {bad[0]}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in ("os", "signal") and node.attr in POSIX_ONLY_ATTRS
                and not _guarded(node, parents)):
            problems.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr} without a platform guard")
    return problems


def _inside_function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True
    return False


def test_no_unix_only_import_or_call_in_the_package() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) >= 30
    assert [p for f in files for p in portability_problems(f)] == []


def test_the_static_check_finds_what_it_should(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import os, signal
        import fcntl
        from resource import getrusage

        def fine():
            import resource
            return resource

        def uid():
            a = os.getuid() if hasattr(os, "getuid") else 0
            if sys.platform != "win32":
                os.kill(1, signal.SIGKILL)
            return a, os.getuid(), signal.SIGALRM
    """))
    problems = portability_problems(bad)
    assert [p.split(":")[1] for p in problems] == ["3", "4", "14", "14"], problems
