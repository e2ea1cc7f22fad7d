"""End-to-end through the real window with the real embedder and the bundled GGUF model:
drop a real filing (plus a broken file), ask, watch the answer stream, click its first
citation and check the highlight against ``page.search_for``; stop a running answer;
reopen the window and find the conversation with working citations.

The tests share one library (module-scoped data dir) because ingesting a 29-page filing
takes most of a minute on a small machine.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import Qt

from desktop_rag.core.ingest.pdf import open_pdf
from desktop_rag.core.workspace import Workspace
from desktop_rag.gui.workers import Job, JobEventKind

from .conftest import MODELS_DIR, REPO, broken_pdf, copy_filing, drop_files
from .test_pdf_view import covered

pytestmark = [pytest.mark.gui, pytest.mark.e2e, pytest.mark.slow]

# A segment figure: total net sales would be computed from the statements (no model, no
# streaming); a product line goes through retrieval and the model, which this test follows.
QUESTION = "What were Apple's iPhone net sales in Q3 2023?"
INGEST_TIMEOUT_MS = 300_000
ANSWER_TIMEOUT_MS = 420_000


def on_progress(job: Job, hook) -> None:  # type: ignore[no-untyped-def]
    """Watch a running job's progress items (on the main thread, after the window's own hook)."""
    job.signals.reported.connect(lambda ev: ev.kind is JobEventKind.PROGRESS and hook(ev.value))


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, filing_source: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("gui_e2e")
    return {"home": root / "home", "files": root / "files", "root": root,
            "filing": copy_filing(filing_source, root / "files")}


def ensure_library(home: Path, filing: Path) -> None:
    """For tests run on their own: ingest through the core when the GUI test has not."""
    from desktop_rag.core.index.library import IngestReport

    ws = Workspace(home, MODELS_DIR)
    try:
        if not ws.library.documents():
            for _ in ws.library.ingest([filing], report=IngestReport()):
                pass
    finally:
        ws.close()


def search_for_finds(page: pymupdf.Page, quote: str) -> list[pymupdf.Rect]:
    hits = page.search_for(quote)
    if hits:
        return hits
    out: list[pymupdf.Rect] = []
    for line in quote.split("\n"):  # a quote across visual lines: search each line
        out += page.search_for(line.strip()) if line.strip() else []
    return out


def test_drop_ingest_ask_stream_and_cite(qtbot, make_window, shared, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    t0 = time.monotonic()
    win = make_window(shared["home"])
    qtbot.waitUntil(lambda: win._library_ready, timeout=120_000)

    # Drop a real filing and a broken file in one go.
    bad = broken_pdf(shared["files"])
    drop_files(win, [shared["filing"], bad])
    assert win.ingest_jobs, "the drop did not start an ingest"
    qtbot.waitUntil(lambda: win.library.ingest_panel.isVisible(), timeout=60_000)
    qtbot.waitUntil(lambda: not win.ingest_jobs, timeout=INGEST_TIMEOUT_MS)
    t_ingest = time.monotonic() - t0

    docs = win.library.documents()
    assert [d.file_name for d in docs] == [shared["filing"].name]
    assert docs[0].pages == 29 and docs[0].chunk_count > 50
    failures = win.library.failures()
    assert [f for f, _ in failures] == [bad.name]
    assert "not a PDF" in failures[0][1]
    assert win.library.problems.isVisible() and bad.name in win.library.problems_label.text()
    assert "1 document" in win.count_status.text()

    # Ask: Enter sends, the input is disabled while running, tokens stream as a draft.
    qtbot.waitUntil(lambda: bool(win.model_name), timeout=120_000)
    win.chat.input.setPlainText(QUESTION)
    qtbot.keyClick(win.chat.input, Qt.Key.Key_Return)
    assert win.ask_job is not None
    assert not win.chat.input.isEnabled() and win.chat.stop_btn.isVisible()
    ex = win.chat.last()
    drafts: list[str] = []
    on_progress(win.ask_job, lambda ev: getattr(ev, "kind", "") == "token" and drafts.append(ex.draft))
    qtbot.waitUntil(lambda: ex.answer is not None, timeout=ANSWER_TIMEOUT_MS)
    qtbot.waitUntil(lambda: win.ask_job is None, timeout=10_000)
    t_answer = time.monotonic() - t0 - t_ingest
    ans = ex.answer
    assert len(drafts) >= 2, "the answer did not stream token by token"
    assert win.chat.input.isEnabled()
    assert not ans.not_in_corpus and ans.citations, ans
    assert not ans.computed and ans.calculation is None  # the model's answer, as streamed
    # One badge, whichever way the small model's answer went: its own words checked
    # against the quotes (Verified), or the filing's sentences instead (Extractive).
    assert ex.badge_texts() == ["Extractive" if ans.extractive else "Verified"], (ex.badge_texts(), ans)
    assert "Last answer" in win.timing_status.text()

    # Click the first citation: the viewer shows its page with the exact quote highlighted.
    chip = ex.chips[0]
    cit = chip.citation
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert win.viewer.path == shared["filing"]
    assert win.viewer.current_page == cit.page
    rects = win.viewer.highlight_rects
    assert rects and win.viewer.canvas.highlights == rects
    page = open_pdf(shared["filing"])[cit.page - 1]
    hits = search_for_finds(page, cit.quote)
    assert hits, f"search_for cannot find the first citation's quote: {cit.quote!r}"
    for hit in hits:
        assert covered(hit, rects) > 0.9, (hit, rects)
    # The highlight is scrolled into view.
    vbar = win.viewer.scroll_area.verticalScrollBar()
    top = win.viewer.pages.to_widget(cit.page, rects[0]).top()
    assert vbar.value() <= top <= vbar.value() + win.viewer.scroll_area.viewport().height()
    # ...and survives a zoom change.
    win.viewer.step_zoom(+1)
    assert win.viewer.canvas.highlights == rects

    # Screenshot of the answered question with its citation highlighted.
    win.viewer.set_fit_width(True)
    qtbot.wait(200)
    shot = tmp_path / "main_window.png"
    assert win.grab().save(str(shot)) and shot.stat().st_size > 20_000
    if os.environ.get("DESKTOP_RAG_UPDATE_SCREENSHOT"):
        shutil.copy2(shot, REPO / "resources" / "screenshot.png")
    print(f"\nscreenshot: {shot}\ningest {t_ingest:.0f} s, answer {t_answer:.0f} s")

    # Feedback and export are stored with the question and its citations.
    qtbot.mouseClick(ex.up, Qt.MouseButton.LeftButton)
    rows = win.ws.history.feedback_rows()
    assert rows and rows[-1]["rating"] == 1 and rows[-1]["retrieved"]
    md = tmp_path / "conv.md"
    job = win.export_conversation(win.conv_id, md)
    qtbot.waitUntil(lambda: job.done, timeout=10_000)
    text = md.read_text("utf-8")
    # citations carry the page the filing prints, with the PDF's page ("p. 16 (PDF 18)"), as the chip says
    assert chip.page_label == (f"p. {cit.page_label} (PDF {cit.page})" if cit.page_label not in ("", str(cit.page))
                               else f"p. {cit.page}")
    assert QUESTION in text and chip.page_label in text

    win.close()
    qtbot.waitUntil(lambda: win._closed, timeout=60_000)


def test_stop_cancels_generation(qtbot, make_window, shared) -> None:  # type: ignore[no-untyped-def]
    ensure_library(shared["home"], shared["filing"])
    win = make_window(shared["home"])
    qtbot.waitUntil(lambda: bool(win.model_name) and not win.runner.busy, timeout=180_000)
    win.new_conversation()
    t0 = time.monotonic()
    # A figure that is no statement line (those are computed without the model), asked of the
    # filing's sentences: answered by the model, token by token. (A cause, list or description
    # is the filing's own sentences, quoted without the model.)
    ex = win.ask("How much did Apple spend on share repurchases in Q3 2023?")
    assert ex is not None and win.ask_job is not None
    assert any(a.shortcut().toString() == "Esc" for a in win.actions() if a.text() == "Stop answer")
    tokens_before_stop: list[str] = []

    def stop_at_first_token(ev) -> None:  # type: ignore[no-untyped-def]
        # On the main thread as the first token arrives, so the model is still generating
        # (a wait-then-stop could find the answer already finished).
        if getattr(ev, "kind", None) == "token" and not tokens_before_stop:  # the prepared turn comes first
            tokens_before_stop.append(ev.text)
            win.stop_answer()  # what Esc and the Stop button do

    on_progress(win.ask_job, stop_at_first_token)
    qtbot.waitUntil(lambda: win.ask_job is None, timeout=ANSWER_TIMEOUT_MS)
    assert tokens_before_stop, "the answer did not stream through the model"
    assert ex.answer is not None and ex.answer.cancelled, ex.answer
    assert "Stopped" in ex.badge_texts()
    assert win.chat.input.isEnabled() and not win.chat.stop_btn.isVisible()
    print(f"\nstopped after {time.monotonic() - t0:.1f} s")


def test_history_survives_a_restart(qtbot, make_window, shared) -> None:  # type: ignore[no-untyped-def]
    home = shared["home"]
    ensure_library(home, shared["filing"])
    ws = Workspace(home, MODELS_DIR)
    try:
        if not ws.history.conversations():  # run on its own: an extractive answer, no model needed
            conv = ws.history.new_conversation()
            ws.history.add_message(conv, ws.engine.ask(QUESTION))
        conv_id = ws.history.conversations()[0].conv_id
        stored = ws.history.messages(conv_id)
    finally:
        ws.close()
    assert stored and stored[0].answer.citations

    first = make_window(home, load_model=False)
    first.open_conversation(conv_id)
    texts = [e.answer.answer for e in first.chat.exchanges]
    assert texts == [m.answer.answer for m in stored]
    qtbot.waitUntil(lambda: not first.runner.busy, timeout=120_000)
    first.close()
    qtbot.waitUntil(lambda: first._closed, timeout=60_000)

    second = make_window(home, load_model=False)  # reopens the last conversation
    assert second.conv_id == conv_id
    assert [e.answer.answer for e in second.chat.exchanges] == texts
    assert second.chat.conversations.count() >= 1
    ex = second.chat.exchanges[0]
    assert ex.rating == stored[0].rating
    qtbot.waitUntil(lambda: second._library_ready, timeout=120_000)
    chip = ex.chips[0]
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert second.viewer.current_page == chip.citation.page
    assert second.viewer.highlight_rects


def test_closing_during_ingest_leaves_a_consistent_index(qtbot, make_window, shared, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home_close"
    win = make_window(home, load_model=False)
    qtbot.waitUntil(lambda: win._library_ready, timeout=120_000)
    steps: list[str] = []
    job = win.add_paths([shared["filing"]])
    assert job is not None
    on_progress(job, lambda item: steps.append(item[0].step))
    qtbot.waitUntil(lambda: "embed" in steps, timeout=120_000)
    win.close()  # deferred: the running step finishes, the rest is cancelled
    central = win.centralWidget()
    assert win.isVisible() and not win._closed and central is not None and not central.isEnabled()
    assert "before closing" in win.busy_label.text()
    qtbot.waitUntil(lambda: win._closed, timeout=120_000)

    ws = Workspace(home, MODELS_DIR)
    try:
        assert ws.library.mismatch() == []
        docs = ws.library.documents()
        assert len(docs) <= 1
        for d in docs:  # committed whole or not at all
            assert d.chunk_count == len(ws.library.doc_chunks.get(d.doc_id, []))
    finally:
        ws.close()


def test_first_run_ingests_the_bundled_corpus_with_progress(qtbot, make_window, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    broken_pdf(corpus)
    monkeypatch.setenv("DESKTOP_RAG_CORPUS", str(corpus))
    win = make_window(tmp_path / "home_first", ingest_bundled_corpus=True, load_model=False)
    # Wait for the end state, not for the job to be seen running: a one-file ingest can start
    # and finish between two polls, which made "wait until running" flaky.
    qtbot.waitUntil(lambda: win.state.get("first_run_done") is True and not win.ingest_jobs
                    and bool(win.library.failures()), timeout=180_000)
    assert [f for f, _ in win.library.failures()] == ["broken quarterly report.pdf"]
    assert win.state.get("first_run_done") is True
