"""GUI test setup: offscreen Qt (set before any Qt import), the app's style, and helpers
that build real filings / broken files and drive drag-and-drop like a user would.

User paths: the root conftest points DESKTOP_RAG_HOME at a per-test temp dir; these tests
also pass ``data_dir`` explicitly, and models come read-only from the repo's ``models/``.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before PySide6 is imported anywhere

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

REPO = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO / "models"
FILING_NAME = "2023 Q3 AAPL.pdf"  # 29 pages: the smallest real 10-Q we ship
SHARED_FILING = REPO.parent / "shared" / "data" / "sec10q" / "pdfs" / FILING_NAME
CORPUS_FILING = REPO / "corpus" / FILING_NAME

# Faster, still real generation for tests: the bundled 270M model with a short budget.
TEST_SETTINGS = '{"generation": {"max_tokens": 40}}'


@pytest.fixture(scope="session", autouse=True)
def _styled_app(qapp: QApplication) -> QApplication:
    from desktop_rag.gui import style

    style.apply_style(qapp)
    return qapp


@pytest.fixture(scope="session")
def filing_source() -> Path:
    for p in (SHARED_FILING, CORPUS_FILING):
        if p.is_file():
            return p
    raise AssertionError(f"test filing not found: {SHARED_FILING} or {CORPUS_FILING}")


def copy_filing(src: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    dst = folder / src.name
    if not dst.exists():
        shutil.copy2(src, dst)
    return dst


def broken_pdf(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "broken quarterly report.pdf"
    p.write_bytes(b"this is not a PDF at all\n" * 20)
    return p


def drop_files(target: QWidget, paths: list[Path]) -> None:
    """Simulate a user dropping files: drag-enter then drop, with file URLs in QMimeData."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    center = target.rect().center()
    enter = QDragEnterEvent(QPoint(center), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted(), "the window refused the drag"
    drop = QDropEvent(QPointF(center), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)


@pytest.fixture
def make_window(qtbot) -> Iterator:  # type: ignore[no-untyped-def]
    """Factory for real main windows; every window is shut down cleanly at teardown."""
    from desktop_rag.gui.main_window import MainWindow

    made: list[MainWindow] = []

    def _make(home: Path, **kw) -> MainWindow:  # type: ignore[no-untyped-def]
        home.mkdir(parents=True, exist_ok=True)
        settings = home / "settings.json"
        if not settings.exists():
            settings.write_text(TEST_SETTINGS)
        kw.setdefault("ingest_bundled_corpus", False)
        win = MainWindow(home, MODELS_DIR, **kw)
        qtbot.addWidget(win)
        win.resize(1400, 860)
        win.show()
        made.append(win)
        return win

    yield _make
    for win in made:
        win.shutdown()


# -- fast windows: the fake embedder, small generated filings, no language model -------------
@pytest.fixture
def fake_window(qtbot, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    """Factory for a real main window over a Workspace whose embedder is the unit tests'
    ``FakeEmbedder`` and whose library is ingested from small generated PDFs; no model is
    loaded (answers are extractive). ``files`` maps file names to page texts."""
    from desktop_rag.core.index.library import IngestReport
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.gui.main_window import MainWindow
    from tests.conftest import APPLE_PAGES, NVIDIA_PAGES, FakeEmbedder, write_pdf

    made: list[MainWindow] = []

    def _make(files: dict[str, list[str]] | None = None, *, embedder: object | None = None,
              home: Path | None = None, size: tuple[int, int] | None = (1400, 860), **kw) -> MainWindow:  # type: ignore[no-untyped-def]
        files = {"2023 Q3 AAPL.pdf": APPLE_PAGES, "2023 Q2 NVDA.pdf": NVIDIA_PAGES} if files is None else files
        home = home or tmp_path / f"home{len(made)}"
        home.mkdir(parents=True, exist_ok=True)
        ws = Workspace(home, MODELS_DIR)
        fake = embedder or FakeEmbedder()
        ws.embedder = fake  # type: ignore[assignment]
        ws.library.embedder = fake  # type: ignore[assignment]
        paths = [write_pdf(tmp_path / "pdfs" / name, pages) for name, pages in files.items()]
        if paths:
            report = IngestReport()
            for _ in ws.library.ingest(paths, report=report):
                pass
            assert not report.failed, report.failed
        kw.setdefault("ingest_bundled_corpus", False)
        kw.setdefault("load_model", False)
        win = MainWindow(workspace=ws, **kw)
        qtbot.addWidget(win)
        if size is not None:  # None: keep the geometry the window restored
            win.resize(*size)
        win.show()
        made.append(win)
        qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
        return win

    yield _make
    for win in made:
        win.shutdown()


def wait_idle(qtbot, win, timeout: int = 20_000) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=timeout)
