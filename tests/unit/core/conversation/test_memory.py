"""core/conversation/memory.py: older turns become cited facts within a budget; clearable."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore, memory_text, summarise
from desktop_rag.core.domain.types import Answer, Citation


def _answer(i: int, refused: bool = False) -> Answer:
    cites = [] if refused else [Citation("d", "A.pdf", i, f"Quote number {i} of the filing text")]
    return Answer(f"question {i}", f"Answer {i}. More words here.", cites, not_in_corpus=refused,
                  standalone_query=f"Standalone question {i}?")


def test_update_clear_and_style(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    conv = hist.new_conversation()
    for i in range(1, 7):
        hist.add_message(conv, _answer(i, refused=(i == 2)))
    facts = mem.update(conv, hist.messages(conv), keep_recent=3)
    # turns 1-3 are older than the latest three; turn 2 was refused, so it established nothing
    assert [f.question for f in facts] == ["Standalone question 1?", "Standalone question 3?"]
    assert facts[0].citations[0].quote == "Quote number 1 of the filing text"
    assert "A.pdf p. 3" in memory_text(facts)
    mem.set_style(conv, "table")
    again = MemoryStore(path)
    assert again.style(conv) == "table" and len(again.memory(conv)) == 2
    last = hist.messages(conv)[-1].msg_id
    mem.clear(conv, last)
    assert mem.memory(conv) == [] and mem.style(conv) == "table"
    hist.add_message(conv, _answer(7))
    assert mem.update(conv, hist.messages(conv), keep_recent=0)[0].question == "Standalone question 7?"
    for s in (hist, mem, again):
        s.close()


def test_summarise_keeps_the_newest_within_budget(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    conv = hist.new_conversation()
    for i in range(1, 30):
        hist.add_message(conv, _answer(i))
    facts = mem.update(conv, hist.messages(conv), keep_recent=0, budget_words=60)
    assert sum(f.words() for f in facts) <= 60 and facts[-1].question == "Standalone question 29?"
    assert summarise([], 10) == []
    hist.close()
    mem.close()
