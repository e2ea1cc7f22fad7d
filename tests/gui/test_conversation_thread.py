"""Issue #12 in the window: every question goes through the core conversation session. The
searched (standalone) question shows under the analyst's words and is editable with one click;
the router's decision, its reason and the attempts are in the answer's details; a routed
summary quotes only stored citations without a new search; the style selector is kept with
the conversation; the memory is visible and clearable.

Fast windows: the unit tests' fake embedder over small generated filings, no language model
(answers quote the filing), because the model is not what these tests are about."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui

APPLE_RD = "What were Apple's total net sales in Q3 2023?"


def _ask(qtbot, win, question: str, standalone: str | None = None):  # type: ignore[no-untyped-def]
    ex = win.ask(question, standalone)
    assert ex is not None
    _answered(qtbot, win, ex)
    return ex


def _answered(qtbot, win, ex) -> None:  # type: ignore[no-untyped-def]
    # the answer's own job, not every background job (the model list is read meanwhile); a
    # generous timeout because the machine's CPU and disk are shared
    qtbot.waitUntil(lambda: ex.answer is not None and win.ask_job is None, timeout=120_000)


def _stored_citations(win) -> set[tuple[str, int, str]]:  # type: ignore[no-untyped-def]
    return {(c.doc, c.page, c.quote) for m in win.ws.history.messages(win.conv_id) for c in m.answer.citations}


def test_follow_up_shows_the_searched_question_and_an_edit_reruns_it(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    first = _ask(qtbot, win, APPLE_RD)
    assert not first.searched_row.isVisible()  # asked whole: nothing to show under it
    assert "2023 Q3 AAPL.pdf" in {c.doc for c in first.answer.citations}

    follow = _ask(qtbot, win, "And its net income?")
    shown = follow.searched.text().replace("\u200b", "")
    assert follow.searched_row.isVisible() and shown.startswith("searched: ")
    assert "Apple" in shown and "Q3 2023" in shown and "net income" in shown
    assert follow.answer.standalone_query == shown.removeprefix("searched: ")
    stored = win.ws.history.messages(win.conv_id)[-1]
    assert stored.question == "And its net income?" and stored.standalone == follow.answer.standalone_query

    # one click on the pencil opens the searched question for editing; Enter asks it as edited
    qtbot.mouseClick(follow.edit_btn, Qt.MouseButton.LeftButton)
    assert follow.searched_edit.isVisible() and follow.searched_edit.text() == follow.answer.standalone_query
    follow.searched_edit.setText("What was NVIDIA's operating income in Q2 2023?")
    qtbot.keyClick(follow.searched_edit, Qt.Key.Key_Return)
    assert len(win.chat.exchanges) == 3
    edited = win.chat.exchanges[-1]
    _answered(qtbot, win, edited)
    assert edited.question == "And its net income?"
    assert edited.answer.standalone_query == "What was NVIDIA's operating income in Q2 2023?"
    assert {c.doc for c in edited.answer.citations} == {"2023 Q2 NVDA.pdf"}
    assert win.ws.history.messages(win.conv_id)[-1].standalone == "What was NVIDIA's operating income in Q2 2023?"
    # the details say why: the analyst's edit, searched as written
    qtbot.mouseClick(edited.details_btn, Qt.MouseButton.LeftButton)
    details = edited.details.text().replace("\u200b", "")
    assert edited.details.isVisible()
    assert "Route: searched the filings — the analyst edited the searched question" in details
    assert "Timing: retrieval" in details


def test_a_summary_is_routed_to_the_conversation_and_quotes_only_stored_citations(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    _ask(qtbot, win, APPLE_RD)
    _ask(qtbot, win, "What was NVIDIA's operating income in Q2 2023?")
    stored = _stored_citations(win)
    assert stored

    ex = win.ask("Summarise what we found so far")
    assert ex is not None
    _answered(qtbot, win, ex)
    assert not ex.answer.hits  # no search, no model: answered from the thread
    assert "answered from the conversation (summary)" in ex.searched.text().replace("\u200b", "")
    cites = {(c.doc, c.page, c.quote) for c in ex.answer.citations}
    assert cites and cites <= stored
    assert {c[0] for c in cites} == {"2023 Q3 AAPL.pdf", "2023 Q2 NVDA.pdf"}
    details = ex.details.text().replace("\u200b", "")
    assert "Route: from the conversation (summary) — asks about what was already said" in details
    # the decision is kept with the message: a reopened conversation shows the same details
    win.open_conversation(win.conv_id)
    again = win.chat.exchanges[-1]
    assert "Route: from the conversation (summary)" in again.details.text().replace("\u200b", "")
    assert "answered from the conversation (summary)" in again.searched.text().replace("\u200b", "")

    # the memory is visible, and clearing it leaves nothing for the router to quote
    dlg = win.show_memory()
    text = dlg.text.toPlainText()
    assert "total net sales" in text and "2023 Q3 AAPL.pdf p." in text
    qtbot.mouseClick(dlg.clear_btn, Qt.MouseButton.LeftButton)
    assert "Nothing established" in dlg.text.toPlainText() and not dlg.clear_btn.isEnabled()
    assert win.session is not None and win.session.known_facts() == []
    dlg.close()


def test_style_selector_lays_out_answers_and_is_kept_with_the_conversation(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home_style"
    win = fake_window(home=home)
    first = _ask(qtbot, win, APPLE_RD)
    assert not first.answer.answer.startswith("- ")
    conv = win.conv_id

    box = win.chat.style_box
    box.setCurrentIndex(box.findData("bullets"))
    box.activated.emit(box.currentIndex())  # what a pick in the list emits
    assert win.ws.memory.style(conv) == "bullets"
    second = _ask(qtbot, win, "What was Apple's net income in Q3 2023?")
    lines = second.answer.answer.splitlines()
    assert lines and all(line.startswith("- ") for line in lines)
    quoted = {c.quote for c in second.answer.citations}
    assert any(" ".join(q.split()) in second.answer.answer for q in quoted)  # arranged, not rewritten

    # asked in words, the style changes too, and the selector follows
    _ask(qtbot, win, "Make that a table")
    assert box.currentData() == "table" and win.ws.memory.style(conv) == "table"

    # a new conversation has its own style; the old one keeps its own after a restart
    win.new_conversation()
    box.setCurrentIndex(box.findData("concise"))
    box.activated.emit(box.currentIndex())
    _ask(qtbot, win, APPLE_RD)
    assert win.conv_id != conv and win.ws.memory.style(win.conv_id) == "concise"
    win.open_conversation(conv)
    assert box.currentData() == "table"
    win.shutdown()
    again = fake_window(files={}, home=home)
    again.open_conversation(conv)
    assert again.chat.style_box.currentData() == "table"


def test_the_terms_naming_each_company_are_derived_off_the_ui_thread(qtbot, fake_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import threading

    from desktop_rag.core.conversation import session as session_module

    win = fake_window()
    qtbot.waitUntil(lambda: bool(win.docs) and not win._terms_warming, timeout=60_000)
    threads: list[str] = []
    real = session_module.library_terms

    def spy(pages, aliases=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real(pages, aliases)

    monkeypatch.setattr(session_module, "library_terms", spy)
    monkeypatch.setattr(session_module, "_terms_cache", {})
    win._set_docs(list(win.docs))  # the library's documents changed
    key = session_module.terms_key(list(win.docs))
    qtbot.waitUntil(lambda: key in session_module._terms_cache and not win._terms_warming, timeout=60_000)
    assert threads and threading.main_thread().name not in threads
    # the question asked next finds them ready: the rewrite reads no page on the UI thread
    _ask(qtbot, win, APPLE_RD)
    assert len(threads) == 1
