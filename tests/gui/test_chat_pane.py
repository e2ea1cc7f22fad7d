"""Issue #11, problems 1, 2 and 4: the chat reflows at any width, text is escaped exactly
once, and the scope follows the library. Fast: fake embedder, generated filings, no model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_rag.core.domain.types import Answer, Citation
from desktop_rag.gui.chat_pane import ChatPane
from desktop_rag.gui.text import displayed_text

from .conftest import wait_idle

pytestmark = pytest.mark.gui

LONG_TOKEN = "$81,797,000,000,000,000,000,000,000,000,000,000,000,000,000,000,000,000"
LONG_ANSWER = ("Apple's total net sales were $81,797 million in the third quarter of fiscal 2023, "
               "compared with $82,959 million a year earlier; Compute & Networking is another segment. "
               + LONG_TOKEN + " " + "https://www.sec.gov/Archives/edgar/data/320193/000032019323000077/aapl-20230701.htm")
LONG_REWRITE = ("And what about the services revenue and the products revenue and the gross margin of "
                "each of them in the same quarter (Apple Inc., Q3 2023, third quarter of fiscal 2023, "
                "as reported in the condensed consolidated statements of operations)?")


def overflowing(pane: ChatPane) -> list[str]:
    """Visible widgets of the conversation that reach past the visible width of the pane."""
    viewport = pane.scroll_area.viewport()
    limit = viewport.width() + 1
    out = []
    if pane.body.width() > limit:
        out.append(f"body {pane.body.width()} > {limit}")
    for w in pane.body.findChildren(QWidget):
        if not w.isVisibleTo(pane.body) or w.width() <= 0:
            continue
        right = w.mapTo(viewport, QPoint(w.width(), 0)).x()
        if right > limit:
            out.append(f"{type(w).__name__}#{w.objectName()} right={right} > {limit}")
    return out


def long_answer(question: str) -> Answer:
    return Answer(query=question, answer=LONG_ANSWER, standalone_query=LONG_REWRITE, model="gemma-3-270m",
                  citations=[Citation("x" * 64, "A_VERY_LONG_FILE_NAME_OF_A_10K_FILING_WITH_NO_SPACES_2023.pdf",
                                      2, "Total net sales 81,797 82,959 " + LONG_TOKEN)],
                  timings_ms={"retrieve": 20.0, "total": 1200.0})


def test_chat_reflows_at_900px_and_after_reopening(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(size=(900, 700))
    qtbot.wait(50)  # the window has applied its pane layout
    assert win.width() == 900
    questions = ["What were Apple's total net sales in Q3 2023?", "And the services, products and margins?",
                 "Which segment is Compute & Networking?"]
    for q in questions:
        if win.conv_id is None:
            win.conv_id = win.ws.history.new_conversation()
        ex = win.chat.add_exchange(q)
        win._answered(ex, long_answer(q), win.conv_id)
    qtbot.wait(50)
    assert win.chat.width() < 500
    assert overflowing(win.chat) == []
    # The footer's buttons and the later questions are on screen, not pushed off to the right.
    last = win.chat.exchanges[-1]
    assert last.copy_btn.isVisible() and last.up.isVisible()
    assert displayed_text(last.question_label) == questions[-1]
    # the long rewritten question wraps under the question, with its edit button on screen
    assert last.searched_row.isVisible() and last.edit_btn.isVisible()
    assert displayed_text(last.searched) == f"searched: {LONG_REWRITE}"

    # Narrower still (a dragged splitter), then the conversation reopened from history.
    win.splitter.setSizes([0, 200, 700])
    qtbot.wait(50)
    assert overflowing(win.chat) == []
    win.open_conversation(win.conv_id)
    qtbot.wait(50)
    assert len(win.chat.exchanges) == 3
    assert overflowing(win.chat) == []
    assert win.chat.scroll_area.horizontalScrollBar().maximum() == 0


def test_plain_text_is_escaped_once(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(files={})
    win.conv_id = win.ws.history.new_conversation()
    q = "How much did Apple spend on R&D <in Q3>?"
    ex = win.chat.add_exchange(q)
    ans = Answer(query=q, answer="Compute & Networking revenue was $10,402 <million>.", model="m",
                 citations=[Citation("d", "AT&T 10-K.pdf", 3, "Compute & Networking 10,402")])
    win._answered(ex, ans, win.conv_id)
    assert displayed_text(ex.question_label) == q
    assert displayed_text(ex.text) == ans.answer
    chip = ex.chips[0]
    assert displayed_text(chip.quote_label) == "“Compute & Networking 10,402”"
    assert "AT&T 10-K.pdf" in displayed_text(chip.source_label)
    for label in (ex.question_label, ex.text, chip.quote_label, chip.source_label):
        assert "&amp;" not in displayed_text(label) and "&lt;" not in displayed_text(label)
    win.chat.set_scope(["AT&T · 10-K"])
    assert displayed_text(win.chat.scope_label) == "Asking only: AT&T · 10-K"


def test_removing_the_scoped_document_clears_the_scope(qtbot, fake_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    win = fake_window()
    apple = next(d for d in win.docs if "AAPL" in d.file_name)
    win.library.select_docs([apple.doc_id])
    assert win.scope_ids == [apple.doc_id]
    assert win.chat.scope_bar.isVisibleTo(win.chat)
    qtbot.waitUntil(lambda: win.chat.suggestions.count() and "Apple" in win.chat.suggestions.itemAt(0).widget().text(),
                    timeout=10_000)

    win.remove_documents([apple.doc_id])
    wait_idle(qtbot, win)
    assert [d.file_name for d in win.docs] == ["2023 Q2 NVDA.pdf"]
    assert win.scope_ids == []
    assert not win.chat.scope_bar.isVisibleTo(win.chat)
    assert "removed" in win.statusBar().currentMessage()


def test_scope_clear_button_works_and_suggestions_follow_the_scope(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    nvda = next(d for d in win.docs if "NVDA" in d.file_name)
    win.library.select_docs([nvda.doc_id])
    assert win.scope_ids == [nvda.doc_id]
    # suggestions are drawn from the scoped filing: its company, period and revenue line
    qtbot.waitUntil(lambda: win.chat.suggestions.count() == 3
                    and "NVIDIA" in displayed_text(win.chat.suggestions.itemAt(0).widget()), timeout=10_000)
    shown = [displayed_text(win.chat.suggestions.itemAt(i).widget()) for i in range(3)]
    assert shown == ["What was NVIDIA's revenue in Q2 2023?", "What drove NVIDIA's revenue in Q2 2023?",
                     "What was NVIDIA's operating margin in Q2 2023?"]
    qtbot.mouseClick(win.chat.scope_clear, Qt.MouseButton.LeftButton)
    assert win.scope_ids == [] and win.library.selected_doc_ids() == []
    assert not win.chat.scope_bar.isVisibleTo(win.chat)
    # the whole library: questions about each company, not one filing's
    def both() -> bool:
        shown = " ".join(displayed_text(win.chat.suggestions.itemAt(i).widget())
                         for i in range(win.chat.suggestions.count()))
        return "Apple's total net sales in " in shown and "NVIDIA's revenue in Q2 2023" in shown

    qtbot.waitUntil(both, timeout=10_000)


def test_a_new_conversation_leaves_no_exchange_painted(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    # Out of the layout but not yet deleted, an old exchange used to stay painted where it was,
    # under the next conversation's first question (seen in a screenshot).
    win = fake_window(files={})
    win.show()
    win.conv_id = win.ws.history.new_conversation()
    old = win.chat.add_exchange("What was Apple's capex as a share of net sales?")
    win._answered(old, Answer(query="q", answer="3.0%", citations=[], model="m"), win.conv_id)
    qtbot.wait(20)
    assert old.isVisible()
    win.new_conversation()
    assert not old.isVisible()
    new = win.chat.add_exchange("What did Nvidia say about export restrictions?")
    qtbot.wait(20)
    assert new.isVisible() and win.chat.exchanges == [new]


def test_an_extractive_answer_shows_each_quote_once(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.gui.chat_pane import extractive_lead

    row = "Total amount paid for share repurchases $ 5,717 $ 7,410 $ 8,296"
    cite = Citation("d", "WALMART_2020_10K.pdf", 41, row)
    figure = Answer("q", f"Total amount paid for share repurchases: $5,717 million (2020) — “{row}”", [cite],
                    extractive=True)
    assert extractive_lead(figure) == "Total amount paid for share repurchases: $5,717 million (2020)"
    sentence = "export restrictions may not only impact our ability to serve overseas markets"
    only_quotes = Answer("q", f"{sentence} … Revenue rose 5%", [Citation("d", "a.pdf", 3, sentence),
                                                                Citation("d", "a.pdf", 4, "Revenue rose 5%")],
                         extractive=True)
    assert extractive_lead(only_quotes) == ""
    columns = Answer("q", f"{row} (columns: 2020 2019 2018)", [cite, Citation("d", "W.pdf", 41, "2020 2019 2018")],
                     extractive=True)
    assert extractive_lead(columns) == f"{row} (columns: 2020 2019 2018)"

    win = fake_window(files={})
    win.show()
    win.conv_id = win.ws.history.new_conversation()
    ex = win.chat.add_exchange("What did Nvidia say about export restrictions?")
    win._answered(ex, only_quotes, win.conv_id)
    qtbot.wait(20)
    assert not ex.text.isVisible() and len(ex.chips) == 2 and ex.chips[0].isVisible()
    ex2 = win.chat.add_exchange("How much did Walmart spend on buybacks in fiscal 2020?")
    win._answered(ex2, figure, win.conv_id)
    qtbot.wait(20)
    assert ex2.text.isVisible() and displayed_text(ex2.text).endswith("(2020)")


def test_dragging_files_over_the_window_lights_it_up(qtbot, fake_window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue #31: something lights up while a file is dragged over the window (over the chat
    box too, which takes drops itself), and goes out when it leaves or is dropped."""
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from tests.conftest import NVIDIA_PAGES, write_pdf

    win = fake_window(files={})
    pdf = write_pdf(tmp_path / "drop" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(pdf))])
    overlay = win.drop_overlay

    def enter(target) -> None:  # type: ignore[no-untyped-def]
        ev = QDragEnterEvent(target.rect().center(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, ev)
        assert ev.isAccepted()

    enter(win)
    assert overlay.isVisible() and overlay.geometry() == win.centralWidget().rect()
    assert "Drop 1 file" in overlay.text
    shot = overlay.grab().toImage()
    assert shot.pixelColor(shot.width() // 2, shot.height() // 2) != shot.pixelColor(2, 2)  # something is drawn
    QApplication.sendEvent(win, QDragLeaveEvent())
    assert not overlay.isVisible()

    enter(win.chat.input)  # the chat box handles its own drags: the window still lights up
    assert overlay.isVisible()
    QApplication.sendEvent(win.chat.input, QDragLeaveEvent())
    assert not overlay.isVisible()

    enter(win)
    drop = QDropEvent(QPointF(win.rect().center()), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, drop)
    assert not overlay.isVisible()
    wait_idle(qtbot, win)
    assert [d.file_name for d in win.docs] == ["2023 Q2 NVDA.pdf"]
