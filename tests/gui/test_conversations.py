"""Issue #11, problem 8: conversations with dates and search; an export that says when, with
which model, over which documents, how the question was read and on which printed page; the
"Stopped" badge after a restart; no "Drop PDFs here" flash while the library opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.domain.types import Answer, Citation
from desktop_rag.gui.chat_pane import friendly_date

pytestmark = pytest.mark.gui

# A cover page, then pages that print 1, 2 at the bottom: PDF page 3 is printed page 2.
NUMBERED = [
    "FORM 10-Q\nFor the quarterly period ended July 1, 2023\nApple Inc.\nCommon Stock AAPL",
    "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\nTotal net sales 81,797 82,959\n"
    "Research and development 7,442 6,797\n\n\n1",
    "Liquidity and Capital Resources\nPayments for acquisition of property, plant and equipment were 8,796.\n\n\n2",
]


def test_conversation_list_has_dates_and_finds_answers(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(files={})
    h = win.ws.history
    first = h.new_conversation()
    h.add_message(first, Answer("What were Apple's total net sales?", "Total net sales were $81,797 million.", []))
    second = h.new_conversation()
    h.add_message(second, Answer("Capex?", "Payments for property, plant and equipment were 8,796.", []))
    win.refresh_conversations()
    texts = [win.chat.conversations.itemText(i) for i in range(win.chat.conversations.count())]
    when = friendly_date(h.conversations()[0].updated_at)
    assert when and f"Capex? — {when}" in texts

    dlg = win.find_conversation()
    dlg.query.setText("plant and equipment")  # only in an answer, not in any title
    dlg.refresh()
    assert dlg.results.count() == 1
    assert "Capex?" in dlg.results.item(0).text() and "plant and equipment" in dlg.results.item(0).text()
    dlg.results.setCurrentRow(0)
    dlg._open_current()
    assert win.conv_id == second and win.chat.exchanges[0].question == "Capex?"


def test_export_has_date_model_scope_rewrite_and_printed_pages(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(files={"2023 Q3 AAPL.pdf": NUMBERED})
    doc = win.docs[0]
    win.library.select_docs([doc.doc_id])
    win.conv_id = win.ws.history.new_conversation()
    q = "And R&D?"
    ex = win.chat.add_exchange(q)
    ans = Answer(q, "Research and development was $7,442 million.", model="gemma-3-270m-it",
                 standalone_query="And R&D (Apple, Q3 2023)?",
                 citations=[Citation(doc.doc_id, doc.file_name, 2, "Research and development 7,442 6,797")])
    win._answered(ex, ans, win.conv_id, [win._doc_title(doc)])
    # an answer made without the engine: its printed page number is read in the background
    qtbot.waitUntil(lambda: ex.chips[0].page_label == "p. 1 (PDF 2)", timeout=10_000)
    assert "p. 1 (PDF 2)" in ex.chips[0].toolTip()
    out = tmp_path / "conv.md"
    job = win.export_conversation(win.conv_id, out)
    qtbot.waitUntil(lambda: job.done, timeout=10_000)
    md = out.read_text("utf-8")
    assert "_Exported 20" in md and "- Asked: 20" in md
    assert "- Model: gemma-3-270m-it" in md
    assert f"- Documents: {win._doc_title(doc)}" in md
    assert "- Read as: And R&D (Apple, Q3 2023)?" in md
    assert "1. 2023 Q3 AAPL.pdf, p. 1 (PDF 2): “Research and development 7,442 6,797”" in md
    assert "- Status: Verified" in md


def test_stopped_badge_and_scope_survive_a_restart(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home_restart"
    win = fake_window(home=home)
    win.conv_id = win.ws.history.new_conversation()
    conv = win.conv_id
    ex = win.chat.add_exchange("What were Apple's total net sales?")
    ans = Answer("What were Apple's total net sales?", "Total net sales 81,797", extractive=True, cancelled=True,
                 citations=[Citation(win.docs[0].doc_id, win.docs[0].file_name, 2, "Total net sales 81,797 82,959")])
    win._answered(ex, ans, conv, ["Apple Inc. · 10-Q"])
    assert ex.badge_texts() == ["Stopped", "Extractive"]
    win.shutdown()

    again = fake_window(files={}, home=home)
    assert again.conv_id == conv
    ex2 = again.chat.exchanges[0]
    assert ex2.badge_texts() == ["Stopped", "Extractive"]
    assert "only: Apple Inc. · 10-Q" in ex2.meta.text().replace("\u200b", "")


def test_no_drop_hint_flash_while_the_library_opens(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.gui.main_window import MainWindow
    from tests.conftest import FakeEmbedder

    from .conftest import MODELS_DIR

    ws = Workspace(tmp_path / "h", MODELS_DIR)
    ws.embedder = ws.library.embedder = FakeEmbedder()  # type: ignore[assignment]
    win = MainWindow(workspace=ws, ingest_bundled_corpus=False, load_model=False)
    qtbot.addWidget(win)
    try:
        win.show()
        assert not win._library_ready
        assert "Drop" not in win.library.empty_hint.text() and "Opening" in win.library.empty_hint.text()
        qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
        assert "Drop 10-K / 10-Q PDFs here" in win.library.empty_hint.text()
        assert win.library.empty_hint.isVisibleTo(win.library)
    finally:
        win.shutdown()


def test_search_opens_the_thread_at_the_match(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    """Issue #31: a conversation found by a word of its second answer opens there (scrolled
    to it and marked), not at its end."""
    win = fake_window(files={}, size=(1400, 700))
    h = win.ws.history
    conv = h.new_conversation()
    filler = " ".join(["The segment's revenue grew with its customers' demand across every region."] * 12)
    for i in range(8):
        text = "Gross margin was 44.5%, driven by a favourable mix." if i == 1 else filler
        h.add_message(conv, Answer(f"Question {i + 1}?", text, []))
    win.new_conversation()

    dlg = win.find_conversation()
    dlg.query.setText("favourable mix")
    dlg.refresh()
    assert dlg.results.count() == 1 and "favourable mix" in dlg.results.item(0).text()
    dlg.results.setCurrentRow(0)
    dlg._open_current()
    assert win.conv_id == conv and len(win.chat.exchanges) == 8
    target = win.chat.exchanges[1]
    qtbot.wait(50)
    area = win.chat.scroll_area
    top = target.mapTo(area.viewport(), target.rect().topLeft()).y()
    assert 0 <= top < area.viewport().height() // 3, "the matching answer is at the top of the view"
    assert area.verticalScrollBar().value() < area.verticalScrollBar().maximum(), "not at the thread's end"
    assert target.card.property("found") == "true"
    qtbot.waitUntil(lambda: target.card.property("found") == "false", timeout=5000)
