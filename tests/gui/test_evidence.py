"""Issue #10, first useful output: the verified evidence (exact quotes of the asked company's
filing) is on screen while the model is still writing, before any token, and its quotes
open the viewer at their page, highlighted. Fake embedder, generated filings, a model
stand-in that holds its first token until the test releases it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from desktop_rag.gui.text import displayed_text

from .conftest import wait_idle

pytestmark = pytest.mark.gui

ANSWER = "Apple's total net sales were $81,797 million."


class HeldGenerator:
    """Duck-types LlamaGenerator: streams a verified answer once ``release`` is set (the slow
    prompt evaluation of a CPU model, under the test's control)."""

    name = "held-model"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def build_prompt(self, question: str, passages: list[tuple[str, str, str]]) -> str:
        return question

    def stream(self, prompt: object, cancel: threading.Event | None = None, **_: object) -> Iterator[str]:
        self.started.set()
        self.release.wait(20)
        out = json.dumps({"answer": ANSWER, "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})
        for i in range(0, len(out), 6):
            yield out[i:i + 6]

    def close(self) -> None:
        pass


@pytest.fixture
def _no_statement_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The question would otherwise be computed from the income statement (no model, no evidence)."""
    from desktop_rag.core.calculate import calculator

    monkeypatch.setattr(calculator, "calculate", lambda *a, **k: None)


@pytest.mark.usefixtures("_no_statement_answers")
def test_evidence_is_shown_before_the_answer_and_opens_the_viewer(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window(size=(1600, 1000))
    gen = HeldGenerator()
    win.ws.engine.generator = gen
    try:
        ex = win.ask("What were Apple's total net sales in Q3 2023?")
        assert ex is not None
        qtbot.waitUntil(lambda: ex.evidence_block is not None and ex.evidence_block.isVisible(), timeout=15_000)
        qtbot.waitUntil(gen.started.is_set, timeout=5_000)
        # the model has not produced a token: no draft, no answer, the evidence is on screen
        assert ex.answer is None and ex.draft == ""
        block = ex.evidence_block
        assert "EVIDENCE" in displayed_text(block.title)
        assert "not the answer yet" in displayed_text(block.title)
        chip = block.chips[0]
        assert displayed_text(chip.findChild(QLabel, "EvidenceNumber")) == "E1"
        cit = chip.citation
        assert "81,797" in cit.quote and cit.doc == "2023 Q3 AAPL.pdf"

        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
        assert win.viewer.path == Path(next(d.path for d in win.docs if d.doc_id == cit.doc_id))
        assert win.viewer.current_page == cit.page
        assert win.viewer.highlight_rects, "the quote is highlighted"
        assert chip.property("active") == "true"
    finally:
        gen.release.set()
    qtbot.waitUntil(lambda: ex.answer is not None, timeout=15_000)
    wait_idle(qtbot, win)
    assert ex.answer.answer == ANSWER and ex.badge_texts() == ["Verified"]
    assert ex.answer.evidence is not None and ex.answer.evidence.citations
    # the verified answer cites the evidence's row itself: the block keeps only what it adds
    answer_quotes = {c.quote for c in ex.answer.citations}
    left = [c for c in ex.answer.evidence.citations if c.quote not in answer_quotes]
    assert len(left) < len(ex.answer.evidence.citations)
    if left:
        block = ex.evidence_block
        assert block is not None and "ALSO FOUND BEFORE THE ANSWER" in displayed_text(block.title)
        assert [c.citation.quote for c in block.chips if not c.isHidden()] == [c.quote for c in left]
    else:
        assert ex.evidence_block is None
    assert "evidence" in win.timing_status.text()
