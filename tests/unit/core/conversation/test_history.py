"""core/conversation/history.py: conversation store round trip, feedback, markdown export, and
deterministic follow-up rewriting."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.conversation.history import HistoryStore, rewrite_followup
from desktop_rag.core.domain.types import Answer, Chunk, Citation, Document, DocumentMeta, Hit


def _answer(q: str, text: str = "Net sales were $81,797 million.", **kw) -> Answer:
    doc = Document("d" * 64, "2023 Q3 AAPL.pdf", "/x", 29, DocumentMeta())
    hits = [Hit(Chunk(cid, doc.doc_id, cid, 4, 0, 10, "x"), doc, 1.0) for cid in (11, 12)]
    cites = [Citation(doc.doc_id, "2023 Q3 AAPL.pdf", 4, "Total net sales 81,797 82,959", 120, 11)]
    return Answer(query=q, answer=text, citations=kw.pop("citations", cites), model="gemma", hits=hits,
                  timings_ms={"retrieve": 12.5, "total": 900.0}, **kw)


@pytest.fixture
def store(tmp_path: Path):
    s = HistoryStore(tmp_path / "sub" / "history.sqlite")
    yield s
    s.close()


def test_round_trip(store: HistoryStore, tmp_path: Path) -> None:
    conv = store.new_conversation()
    m1 = store.add_message(conv, _answer("What were Apple's net sales in Q3 2023?",
                                         standalone_query="What were Apple's net sales in Q3 2023?"))
    m2 = store.add_message(conv, _answer("And in Q2?", text="Not in corpus", not_in_corpus=True, citations=[],
                                         standalone_query="And in Q2 (Apple)?"))
    msgs = store.messages(conv)
    assert [m.msg_id for m in msgs] == [m1, m2]
    first, second = msgs
    assert first.question == "What were Apple's net sales in Q3 2023?"
    assert first.answer.answer == "Net sales were $81,797 million."
    assert first.answer.model == "gemma"
    assert first.answer.timings_ms == {"retrieve": 12.5, "total": 900.0}
    assert first.retrieved == [11, 12]
    [c] = first.answer.citations
    assert (c.doc, c.page, c.quote, c.char_start, c.chunk_id) == ("2023 Q3 AAPL.pdf", 4, "Total net sales 81,797 82,959", 120, 11)
    assert second.standalone == "And in Q2 (Apple)?"
    assert second.answer.not_in_corpus and not second.answer.extractive
    # The first question names the conversation.
    [conversation] = store.conversations()
    assert conversation.title == "What were Apple's net sales in Q3 2023?"
    # Persisted on disk: a new store on the same file sees everything.
    store.close()
    again = HistoryStore(tmp_path / "sub" / "history.sqlite")
    try:
        assert [m.question for m in again.messages(conv)] == [first.question, second.question]
    finally:
        again.close()


def test_long_title_is_truncated(store: HistoryStore) -> None:
    conv = store.new_conversation()
    store.add_message(conv, _answer("word " * 40))
    title = store.conversations()[0].title
    assert len(title) <= 81 and title.endswith("…")


def test_feedback_set_replace_clear(store: HistoryStore) -> None:
    conv = store.new_conversation()
    mid = store.add_message(conv, _answer("Q1?"))
    store.set_feedback(mid, 5, "great")  # any positive rating is a thumbs up
    assert store.messages(conv)[0].rating == 1
    assert store.messages(conv)[0].comment == "great"
    store.set_feedback(mid, -3, "wrong page")
    rows = store.feedback_rows()
    assert rows == [{"question": "Q1?", "rating": -1, "cited": [11], "retrieved": [11, 12], "extractive": False}]
    store.set_feedback(mid, 0)
    assert store.feedback_rows() == []
    assert store.messages(conv)[0].rating == 0


def test_rename_delete_and_order(store: HistoryStore) -> None:
    a = store.new_conversation("A")
    b = store.new_conversation("B")
    assert store.conversations()[0].conv_id == b  # newest first
    store.rename(a, "Renamed")
    assert {c.title for c in store.conversations()} == {"Renamed", "B"}
    mid = store.add_message(a, _answer("Q?"))
    store.set_feedback(mid, 1)
    store.delete_conversation(a)
    assert [c.conv_id for c in store.conversations()] == [b]
    assert store.messages(a) == []
    assert store.feedback_rows() == []  # cascades through messages to feedback


def test_markdown_export(store: HistoryStore) -> None:
    conv = store.new_conversation()
    store.add_message(conv, _answer("What were Apple's net sales in Q3 2023?"), scope=["Apple Inc. · 10-Q · Q3 FY2023"])
    store.add_message(conv, _answer("Capex?", text="Purchases were 2,093.", extractive=True))
    store.add_message(conv, _answer("Tesla deliveries?", text="The library has no filing of Tesla.", not_in_corpus=True,
                                    citations=[]))
    md = store.export_markdown(conv, page_label=lambda c: f"p. {c.page - 3} (PDF {c.page})",
                               exported_at="2026-11-23T07:30:00+00:00")
    assert md.startswith("# What were Apple's net sales in Q3 2023?\n")
    assert "_Exported 2026-11-23 07:30 UTC; started " in md
    assert "## 1. What were Apple's net sales in Q3 2023?" in md
    assert "- Documents: Apple Inc. · 10-Q · Q3 FY2023" in md and "- Documents: the whole library" in md
    assert "- Status: Verified" in md and "- Status: Extractive (quoted from the filing)" in md
    assert "Net sales were $81,797 million." in md
    assert "1. 2023 Q3 AAPL.pdf, p. 1 (PDF 4): “Total net sales 81,797 82,959”" in md
    assert "- Status: Not in corpus" in md and "_(Not in corpus)_" not in md
    assert md.count("Not in corpus") == 1
    assert "The library has no filing of Tesla." in md  # the refusal's reason, as the window shows it
    assert md.index("Capex?") < md.index("Tesla deliveries?")


def test_a_citation_keeps_the_page_number_its_filing_prints(store: HistoryStore) -> None:
    """The label read when the answer was made is stored with the citation: a reopened
    conversation and its export name the page as the chips did ("p. 72 (PDF 74)")."""
    conv = store.new_conversation()
    answer = _answer("What were Apple's net sales in Q3 2023?")
    answer.citations[0].page_label = "72"
    answer.citations[0].page = 74
    store.add_message(conv, answer)
    [m] = store.messages(conv)
    assert m.answer.citations[0].page_label == "72"
    assert "2023 Q3 AAPL.pdf, p. 72 (PDF 74): “" in store.export_markdown(conv)


def test_cancelled_scope_and_search_survive_a_reopen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = HistoryStore(tmp_path / "h.sqlite")
    conv = store.new_conversation()
    ans = _answer("What were Apple's net sales in Q3 2023?")
    ans.cancelled = True
    store.add_message(conv, ans, scope=["Apple 10-Q"])
    other = store.new_conversation()
    store.add_message(other, _answer("Capex?", text="Purchases of property were 2,093."))
    store.close()
    again = HistoryStore(tmp_path / "h.sqlite")
    m = again.messages(conv)[0]
    assert m.answer.cancelled and m.scope == ["Apple 10-Q"] and m.created_at
    assert again.search("purchases of PROPERTY") == [other]
    assert again.search("net sales") == [conv]
    assert set(again.search("")) == {conv, other}
    again.close()


def test_old_databases_gain_the_new_columns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V1)
    db.execute("INSERT INTO conversations VALUES (1, 't', '2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00+00:00')")
    db.execute("INSERT INTO messages (conv_id, question, standalone, answer, not_in_corpus, extractive, model,"
               " citations, retrieved, timings, created_at) VALUES (1, 'q', 'q', 'a', 0, 0, 'm', '[]', '[]', '{}',"
               " '2024-01-01T00:00:00+00:00')")
    db.commit()
    db.close()
    store = HistoryStore(path)
    m = store.messages(1)[0]
    assert not m.answer.cancelled and m.scope == []
    store.close()


_SCHEMA_V1 = """
CREATE TABLE conversations (conv_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE TABLE messages (msg_id INTEGER PRIMARY KEY AUTOINCREMENT, conv_id INTEGER NOT NULL, question TEXT NOT NULL,
    standalone TEXT NOT NULL, answer TEXT NOT NULL, not_in_corpus INTEGER NOT NULL, extractive INTEGER NOT NULL,
    model TEXT NOT NULL, citations TEXT NOT NULL, retrieved TEXT NOT NULL, timings TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE feedback (msg_id INTEGER PRIMARY KEY, rating INTEGER NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL);
"""


# -- follow-up rewriting -----------------------------------------------------------------------------
NAMES = {"apple", "apple inc.", "aapl", "nvidia", "nvda", "microsoft", "msft"}


def test_rewrite_followup_delegates_to_the_conversation_module() -> None:
    # the rule's home is core/conversation/rewrite.py (tests there); history keeps the text API
    prev = ["What were Apple's total net sales in Q3 2023?"]
    assert rewrite_followup("And in Q2 2023?", prev, NAMES) == "What were Apple's total net sales in Q2 2023?"
    assert rewrite_followup("   ", prev, NAMES) == ""


def test_the_answers_details_survive_a_reopen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = HistoryStore(tmp_path / "h.sqlite")
    conv = store.new_conversation()
    ans = _answer("Summarise what we found")
    ans.notes = ["route: conversation (summary) — asks about what was already said", "attempt 1: q — gate: far"]
    store.add_message(conv, ans)
    store.close()
    again = HistoryStore(tmp_path / "h.sqlite")
    assert again.messages(conv)[0].answer.notes == ans.notes
    again.close()


def test_a_computed_answer_reopens_with_its_calculation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.domain.types import Calculation, CalculationInput

    store = HistoryStore(tmp_path / "h.sqlite")
    conv = store.new_conversation()
    cell = CalculationInput("Total net sales", "3 months ended 2023-07-01", 81797.0, "millions", "2023 Q3 AAPL.pdf", 4,
                            "Total net sales 81,797 82,959", doc_id="d" * 64, char_start=120, cell_start=136,
                            cell_end=142, bbox=(410.5, 300.0, 440.0, 309.5))
    ans = _answer("What was Apple's total net sales in Q3 2023?", "Total net sales: $81,797 million",
                  calculation=Calculation("Total net sales", "", [cell], 81797.0, "usd_millions"), computed=True)
    store.add_message(conv, ans)
    store.add_message(conv, _answer("And why?"))
    store.close()
    again = HistoryStore(tmp_path / "h.sqlite")
    computed, plain = (m.answer for m in again.messages(conv))
    assert computed.computed and computed.calculation == ans.calculation  # the cell's box is a tuple again
    assert not plain.computed and plain.calculation is None
    again.close()
