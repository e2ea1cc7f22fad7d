"""Issue #11, problem 6: the window holds at 1024x700 and at 1.5x/2x scaling (1600x1000 at
150 % is 1066x666 logical pixels, 2048x1280 at 200 % is 1024x640), restored pane widths
and window geometry fit the screen they open on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from desktop_rag.core.domain.types import Citation
from desktop_rag.gui.main_window import NARROW_WINDOW

from .test_pdf_view import toolbar_overlaps

pytestmark = pytest.mark.gui


def sticking_out(pane: QWidget) -> list[str]:
    """Visible widgets of ``pane`` reaching outside it (scroll areas count as one box)."""
    out = []

    def visit(w: QWidget) -> None:
        for c in w.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not c.isVisibleTo(pane) or c.isWindow():
                continue
            box = QRect(c.mapTo(pane, QPoint(0, 0)), c.size())
            if not pane.rect().adjusted(-1, -1, 1, 1).contains(box):
                out.append(f"{type(c).__name__}#{c.objectName()} {box} outside {pane.rect()}")
            if not isinstance(c, QAbstractScrollArea):
                visit(c)

    visit(pane)
    return out


@pytest.mark.parametrize("size", [(1024, 700), (1066, 666), (1024, 640), (880, 600), (1600, 1000)])
def test_small_and_scaled_windows_keep_every_pane_usable(qtbot, fake_window, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(size=size)
    qtbot.wait(50)
    assert (win.width(), win.height()) == size
    assert win.minimumSizeHint().width() <= 1024
    apple = next(d for d in win.docs if "AAPL" in d.file_name)
    win.show_citation(Citation(apple.doc_id, apple.file_name, 2, "Total net sales 81,797 82,959"))
    qtbot.wait(100)
    assert win.viewer.highlight_rects
    # The message area keeps most of the height; nothing overlaps or is cut off.
    assert win.chat.scroll_area.height() >= 0.5 * size[1] - 20, win.chat.scroll_area.height()
    assert toolbar_overlaps(win.viewer) == []
    for pane in (win.chat, win.viewer, win.library):
        if pane.isVisible():
            assert pane.width() >= pane.minimumWidth()
            assert sticking_out(pane) == [], type(pane).__name__
    if size[0] < NARROW_WINDOW:
        assert not win.library.isVisible() and not win.library_action.isChecked()
        win.library_action.trigger()  # the View menu brings it back
        qtbot.wait(50)
        assert win.library.isVisible() and win.library.width() >= win.library.minimumWidth()
        assert sticking_out(win.library) == []
        assert sum(win.splitter.sizes()) <= win.splitter.width()
    else:
        assert win.library.isVisible()


def test_restored_geometry_is_clamped_to_the_screen(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    first = fake_window(files={}, home=tmp_path / "h")
    first.resize(5000, 4000)
    first.move(3000, 2500)
    first.shutdown()
    state = json.loads((tmp_path / "h" / "gui_state.json").read_text())
    assert state["geometry"]
    win = fake_window(files={}, home=tmp_path / "h", size=None)
    avail = win.screen().availableGeometry()
    assert win.width() <= avail.width() and win.height() <= avail.height()
    assert avail.contains(win.frameGeometry().topLeft())


def test_restored_pane_widths_never_cut_the_library_off(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "h2"
    home.mkdir()
    # Saved on a 3840 px monitor: pixels that do not fit 1600 px (the old format).
    (home / "gui_state.json").write_text(json.dumps({"splitter": [400, 2400, 1000], "first_run_done": True}))
    win = fake_window(home=home, size=(1600, 1000))
    qtbot.wait(50)
    lib = win.library
    assert lib.isVisible() and lib.width() >= lib.minimumWidth()
    assert sticking_out(lib) == []
    add = lib.add_btn
    assert add.isVisible() and add.mapTo(lib, QPoint(add.width(), 0)).x() <= lib.width()
    assert sum(win.splitter.sizes()) <= win.splitter.width()
    win.shutdown()
    saved = json.loads((home / "gui_state.json").read_text())
    assert "splitter" not in saved and abs(sum(saved["pane_fractions"]) - 1) < 0.01
