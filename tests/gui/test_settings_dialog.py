"""The settings dialog is generated from the typed Settings, persists, and resets."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.settings import Settings

pytestmark = pytest.mark.gui


def test_generated_editors_cover_the_knobs_with_ranges(qtbot) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    dlg = SettingsDialog(s)
    qtbot.addWidget(dlg)
    for key in [("retrieval", "top_k"), ("retrieval", "alpha"), ("retrieval", "mmr_lambda"),
                ("retrieval", "gate_min_terms"), ("retrieval", "gate_min_cosine"), ("retrieval", "gate_min_bm25"),
                ("generation", "max_tokens"), ("generation", "threads")]:
        assert key in dlg.editors, key
    top_k = dlg.editors[("retrieval", "top_k")]
    assert isinstance(top_k, QSpinBox) and (top_k.minimum(), top_k.maximum()) == (1, 50)
    alpha = dlg.editors[("retrieval", "alpha")]
    assert isinstance(alpha, QDoubleSpinBox) and alpha.maximum() == 1.0
    assert ("generation", "model_file") not in dlg.editors  # chosen with the model picker


def test_apply_persist_and_reset(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    retrieval = s.retrieval  # the core keeps references to sections: they must be edited in place
    dlg = SettingsDialog(s)
    qtbot.addWidget(dlg)
    dlg.editors[("retrieval", "top_k")].setValue(7)  # type: ignore[attr-defined]
    dlg.editors[("retrieval", "alpha")].setValue(0.8)  # type: ignore[attr-defined]
    dlg.editors[("generation", "max_tokens")].setValue(96)  # type: ignore[attr-defined]
    changed = dlg.apply()
    assert changed == {"retrieval", "generation"}
    assert s.retrieval is retrieval and retrieval.top_k == 7 and retrieval.alpha == pytest.approx(0.8)
    s.save(tmp_path)
    again = Settings.load(tmp_path)
    assert again.retrieval.top_k == 7 and again.generation.max_tokens == 96

    dlg.reset_to_defaults()
    assert dlg.editors[("retrieval", "top_k")].value() == Settings().retrieval.top_k  # type: ignore[attr-defined]
    dlg.apply()
    assert s.retrieval.top_k == Settings().retrieval.top_k


# -- issue #11, problem 7: settings for people, help, badges in words ----------------------------
def test_general_page_for_people_and_advanced_knobs(qtbot, fake_window, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from desktop_rag import paths
    from desktop_rag.gui import app as gui_app
    from desktop_rag.gui import style

    win = fake_window(files={})
    dlg = win.settings_dialog()
    qtbot.addWidget(dlg)
    assert [dlg.tabs.tabText(i) for i in range(dlg.tabs.count())] == ["General", "Advanced"]
    assert dlg.tabs.currentIndex() == 0
    assert [dlg.advanced.tabText(i) for i in range(dlg.advanced.count())] == ["Retrieval", "Generation", "Indexing", "Embedding",
                                                                                 "Library location"]
    general = dlg.tabs.widget(0)
    assert ("retrieval", "alpha") in dlg.editors and not general.isAncestorOf(dlg.editors[("retrieval", "alpha")])
    assert dlg.data_path.text() == str(win.ws.data_dir)

    dlg.theme.setCurrentIndex(dlg.theme.findData("dark"))
    dlg.font_size.setValue(13)
    # one answer-style control: Settings shows the chat's Style and sets it
    assert [dlg.answer_style.itemData(i) for i in range(dlg.answer_style.count())] == \
        [win.chat.style_box.itemData(i) for i in range(win.chat.style_box.count())]
    assert dlg.answer_style.currentData() == win.chat.current_style() == "standard"
    dlg.answer_style.setCurrentIndex(dlg.answer_style.findData("bullets"))
    dlg.editors[("generation", "max_answer_words")].setValue(80)  # type: ignore[attr-defined]
    new_home = tmp_path / "elsewhere"
    new_home.mkdir()
    dlg.set_data_dir(new_home)
    app = QApplication.instance()
    try:
        win.apply_settings(dlg)
        assert style.current_theme == "dark"
        assert app.palette().color(QPalette.ColorRole.Window).lightness() < 60  # type: ignore[union-attr]
        assert app.font().pointSizeF() == 13  # type: ignore[union-attr]
        assert win.ws.settings.generation.max_answer_words == 80
        assert win.chat.current_style() == "bullets" and win.pending_style == "bullets"
        win.chat.style_box.setCurrentIndex(win.chat.style_box.findData("table"))
        win.chat.style_box.activated.emit(win.chat.style_box.currentIndex())  # and the other way round
        again = win.settings_dialog()
        qtbot.addWidget(again)
        assert again.answer_style.currentData() == "table"
        monkeypatch.delenv("DESKTOP_RAG_HOME", raising=False)
        assert paths.choose_data_dir(None) == str(new_home)
        assert paths.choose_data_dir("/explicit") == "/explicit"
        win.shutdown()
        assert gui_app.load_prefs(win.ws.data_dir) == {"theme": "dark", "font_pt": 13, "answer_style": "table"}
    finally:
        style.apply_style(app)  # type: ignore[arg-type]


def test_spin_box_arrows_are_drawn(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QStyle, QStyleOptionSpinBox

    spin = QSpinBox()
    qtbot.addWidget(spin)
    spin.setRange(0, 100)
    spin.setValue(50)
    spin.resize(120, 30)
    spin.show()
    opt = QStyleOptionSpinBox()
    spin.initStyleOption(opt)  # type: ignore[attr-defined]
    image = spin.grab().toImage()
    for sub in (QStyle.SubControl.SC_SpinBoxUp, QStyle.SubControl.SC_SpinBoxDown):
        r = spin.style().subControlRect(QStyle.ComplexControl.CC_SpinBox, opt, sub, spin)
        assert r.width() >= 10, r
        dark = sum(1 for x in range(r.left(), r.right()) for y in range(r.top(), r.bottom())
                   if QColor(image.pixel(x, y)).lightness() < 180)
        assert dark >= 4, f"no arrow drawn in {sub}"


def test_help_page_and_badges_speak_plain_words(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QLabel

    from desktop_rag.core.answer.engine import EXTRACTIVE_NOTE, NO_MODEL_REASON
    from desktop_rag.core.domain.types import Answer, Citation
    from desktop_rag.gui.text import displayed_text

    win = fake_window(files={})
    dlg = win.show_help()
    text = dlg.browser.toPlainText()
    for word in ("Verified", "Extractive", "Computed", "Not in corpus", "Ctrl+L", "Page Down", str(win.ws.data_dir)):
        assert word in text, word

    win.conv_id = win.ws.history.new_conversation()
    ex = win.chat.add_exchange("What was the figure?")
    ans = Answer("What was the figure?", "Net sales were 81,797.", [Citation("d", "a.pdf", 2, "Total net sales 81,797")],
                 extractive=True, notes=["extractive fallback: figure(s) 1.0323e+07, 14 not found in any quote"])
    win._answered(ex, ans, win.conv_id)
    assert ex.badge_texts() == ["Extractive"]
    assert ex.badge_help.isVisibleTo(ex) and "quotes the filing" in displayed_text(ex.badge_help)
    shown = " ".join(displayed_text(w) + " " + w.toolTip() for w in ex.findChildren(QLabel))
    assert "1.0323e+07" not in shown and "fallback" not in shown
    assert "could not be checked" in displayed_text(ex.badge_help)

    # With no model loaded nothing's wording was checked: the note says so instead.
    ex2 = win.chat.add_exchange("What was the figure?")
    win._answered(ex2, Answer("What was the figure?", "Total net sales 81,797",
                              [Citation("d", "a.pdf", 2, "Total net sales 81,797")], extractive=True,
                              notes=[f"{EXTRACTIVE_NOTE} {NO_MODEL_REASON}"]), win.conv_id)
    assert ex2.badge_texts() == ["Extractive"]
    assert "No language model is loaded" in displayed_text(ex2.badge_help)
    assert "could not be checked" not in displayed_text(ex2.badge_help)

    # A cause, list, description or outlook is the filing's sentences by design: no check failed.
    from desktop_rag.core.answer.engine import PROSE_QUOTED_REASON

    ex3 = win.chat.add_exchange("What drove the increase?")
    win._answered(ex3, Answer("What drove the increase?", "Revenue increased primarily due to higher volumes.",
                              [Citation("d", "a.pdf", 2, "Revenue increased primarily due to higher volumes.")],
                              extractive=True, notes=[f"{EXTRACTIVE_NOTE} {PROSE_QUOTED_REASON}"]), win.conv_id)
    assert "the model does not reword them" in displayed_text(ex3.badge_help)
    assert "could not be checked" not in displayed_text(ex3.badge_help)


def test_a_library_location_with_a_password_is_not_saved(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Save stays in the dialog and says where passwords go; the password leaves the field
    (not on screen any more); the location without one saves."""
    from PySide6.QtWidgets import QDialog

    s = Settings()
    dlg = SettingsDialog(s)
    qtbot.addWidget(dlg)
    editor = dlg.editors[("library", "location")]
    editor.setText("postgresql://bob@db.firm.local/research?sslmode=verify-full&PassWord=s3cr3t")  # type: ignore[attr-defined]
    dlg.accept()
    assert dlg.result() != QDialog.DialogCode.Accepted
    assert not dlg.location_error.isHidden()
    assert "pgpass" in dlg.location_error.text() and "PGPASSWORD" in dlg.location_error.text()
    assert "s3cr3t" not in dlg.location_error.text()
    assert editor.text() == "postgresql://bob@db.firm.local/research?sslmode=verify-full"  # type: ignore[attr-defined]
    dlg.accept()
    assert dlg.result() == QDialog.DialogCode.Accepted
    assert dlg.apply() == {"library"}
    assert s.library.location == "postgresql://bob@db.firm.local/research?sslmode=verify-full"
