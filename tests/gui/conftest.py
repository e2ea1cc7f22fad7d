"""GUI test setup: offscreen Qt (set before any Qt import), the app's style, and helpers
that build real filings / broken files and drive drag-and-drop like a user would.

User paths: the root conftest points DESKTOP_RAG_HOME at a per-test temp dir; these tests
also pass ``data_dir`` explicitly, and models come read-only from the repo's ``models/``.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before PySide6 is imported anywhere
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

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
