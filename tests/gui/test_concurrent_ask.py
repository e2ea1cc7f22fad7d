"""Issue #11, problem 3: a question is answered while a filing is being added, from what is
already indexed, and the answer says which filings are still being added."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import FakeEmbedder, write_pdf

from .conftest import wait_idle

pytestmark = pytest.mark.gui

MSFT_PAGES = [
    "FORM 10-Q\nFor the quarterly period ended March 31, 2023\nMicrosoft Corporation\n"
    "(Exact name of registrant as specified in its charter)\nCommon Stock MSFT NASDAQ",
    "INCOME STATEMENTS\nThree Months Ended\nMarch 31,\n2023 2022\nRevenue:\nProduct 15,035 16,517\n"
    "Service and other 37,822 32,843\nTotal revenue 52,857 49,360\nResearch and development 6,984 6,306",
    "Cloud revenue increased driven by Azure and other cloud services consumption growth across\n"
    "all customer segments and regions, partly offset by lower transactional licensing revenue.",
]


class BlockingEmbedder(FakeEmbedder):
    """Ingest batches (more than one text) wait for ``release``; questions (one text) pass."""

    def __init__(self) -> None:
        super().__init__()
        self.block = False
        self.blocked = threading.Event()
        self.release = threading.Event()

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        if self.block and len(texts) > 1:
            self.blocked.set()
            self.release.wait(30)
        return super().encode(texts, batch_size)


def test_question_is_answered_while_a_filing_is_added(qtbot, fake_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    emb = BlockingEmbedder()
    win = fake_window(embedder=emb)
    wait_idle(qtbot, win)
    emb.block = True
    new = write_pdf(tmp_path / "incoming" / "2023 Q3 MSFT.pdf", MSFT_PAGES)
    try:
        job = win.add_paths([new])
        assert job is not None
        qtbot.waitUntil(emb.blocked.is_set, timeout=10_000)  # the ingest is mid-embedding

        ex = win.ask("What were Apple's total net sales in Q3 2023?")
        assert ex is not None
        qtbot.waitUntil(lambda: ex.answer is not None, timeout=15_000)
        assert win.ingest_jobs, "the answer should not have waited for the ingest"
        assert "Waiting for the model" not in ex.status.text()
        assert not ex.answer.not_in_corpus
        assert {c.doc for c in ex.answer.citations} == {"2023 Q3 AAPL.pdf"}
        assert ex.note.isVisibleTo(ex) and "still being added: 2023 Q3 MSFT.pdf" in ex.note.text().replace("\u200b", "")

        # asked about the filing being added (searchable already, its statements stored, its
        # embeddings still being computed): the answer quotes it, so it does not say it is
        # still being added
        on_it = win.ask("What was Microsoft's total revenue in Q3 2023?")
        assert on_it is not None
        qtbot.waitUntil(lambda: on_it.answer is not None, timeout=15_000)
        assert win.ingest_jobs, "the answer should not have waited for the ingest"
        assert "2023 Q3 MSFT.pdf" in {c.doc for c in on_it.answer.citations}, (on_it.answer.answer, on_it.answer.notes)
        assert on_it.note.isHidden() and "still being added" not in on_it.note.text()
    finally:
        emb.release.set()
    wait_idle(qtbot, win)
    assert len(win.docs) == 3 and not win.ingest_jobs
    # The library view swapped to include the new filing once it was committed.
    assert "2023 Q3 MSFT.pdf" in [d.file_name for d in win.library.documents()]
