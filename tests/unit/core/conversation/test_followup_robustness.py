"""Every labelled question of the repository, asked as a follow-up in a few different threads,
is read (rewritten and routed) without raising: a rule tuned on one phrasing must not break
on another ("1H23 vs 1H22" once raised IndexError in the rewrite)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore
from desktop_rag.core.conversation.session import ConversationSession
from desktop_rag.core.domain.types import Answer, Citation, Document, DocumentMeta

EVAL = Path(__file__).resolve().parents[4] / "eval"


def _doc(name: str, company: str, ticker: str, form: str, year: int, quarter: int | None, end: str) -> Document:
    return Document(name.replace(" ", "_").ljust(64, "x")[:64], name, "/x/" + name, 40,
                    DocumentMeta(company=company, ticker=ticker, form_type=form, fiscal_year=year,
                                 fiscal_quarter=quarter, period_end=end))


APPLE = _doc("2023 Q3 AAPL.pdf", "Apple Inc.", "AAPL", "10-Q", 2023, 3, "2023-07-01")  # fiscal year ends September
INTEL = _doc("2023 Q2 INTC.pdf", "Intel Corporation", "INTC", "10-Q", 2023, 2, "2023-07-01")  # calendar year
NVIDIA = _doc("2023 Q2 NVDA.pdf", "NVIDIA Corporation", "NVDA", "10-Q", 2024, 2, "2023-07-30")  # ends in January
MSFT = _doc("2023 Q1 MSFT.pdf", "Microsoft Corporation", "MSFT", "10-Q", 2023, 2, "2022-12-31")  # ends in June
WALMART = _doc("WALMART_2020_10K.pdf", "Walmart Inc.", "WMT", "10-K", 2020, None, "2020-01-31")
DOCS = [APPLE, INTEL, NVIDIA, MSFT, WALMART]

# (earlier questions of the thread, the filing the chat is limited to or None)
THREADS: list[tuple[list[str], Document | None]] = [
    (["What was Apple's R&D expense in Q3 FY2023?"], None),
    (["Intel's D&A for 1H23?", "net cash at quarter end?"], None),
    (["$NVDA rev Q2 FY24?", "sequentially?", "Same for AMD"], None),
    (["Microsoft Corporation - op margin for the quarter ended Dec 31, 2022", "vs the prior-year period"], None),
    (["op margin fiscal 2020", "what about LTM"], WALMART),
    ([], APPLE),
]


class _Engine:
    """Cites the filing of the company asked (or the first one): the thread has answers to route on."""

    def ask(self, question: str, standalone: str | None = None, doc_scope: Any = None) -> Answer:
        q = standalone or question
        doc = next((d for d in DOCS if d.meta.ticker in q or d.meta.company.split()[0] in q), APPLE)
        cite = Citation(doc.doc_id, doc.file_name, 4, "Total net sales 81,797 82,959")
        return Answer(question, "Net sales were $81,797 million.", [cite], standalone_query=q)


def _questions() -> list[str]:
    out: list[str] = []
    for name in ("threads.jsonl", "devset.jsonl", "financebench_dev_labels.jsonl"):
        path = EVAL / name
        if not path.is_file():
            continue
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            out += [t["q"] for t in item["turns"]] if "turns" in item else [item["question"]]
    return list(dict.fromkeys(out))


QUESTIONS = _questions()


@pytest.mark.parametrize("thread", range(len(THREADS)))
def test_every_labelled_question_reads_as_a_followup(tmp_path: Path, thread: int) -> None:
    assert len(QUESTIONS) > 300  # the labelled sets are there
    earlier, scope = THREADS[thread]
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    try:
        session = ConversationSession(hist, mem, DOCS)
        doc_scope = [scope.doc_id] if scope else None
        for q in earlier:
            session.ask(_Engine(), q, doc_scope)
        failed: list[str] = []
        for q in QUESTIONS:
            try:
                turn = session.prepare(q, doc_scope)
            except Exception as exc:  # every failure is listed, not only the first
                failed.append(f"{q!r}: {type(exc).__name__}: {exc}")
                continue
            assert turn.standalone.strip()
        assert not failed, "\n".join(failed)
    finally:
        hist.close()
        mem.close()
