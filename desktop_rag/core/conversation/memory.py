"""A conversation's memory: facts already established by its older turns, each with the
citations it was verified against, kept short so a long thread stays within the context
budget. Stored beside the thread (same SQLite file as the history), shown and clearable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from desktop_rag.core.conversation.database import ConversationDatabase, open_database
from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.domain.types import Citation

KEEP_RECENT = 3  # the latest turns stay whole; older ones are summarised into facts
BUDGET_WORDS = 400  # the memory's size; the oldest facts go first beyond it
_STATEMENT_CHARS = 280

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversation_memory (
    conv_id INTEGER PRIMARY KEY, facts TEXT NOT NULL, cleared_upto INTEGER NOT NULL DEFAULT 0,
    style TEXT NOT NULL DEFAULT 'standard');
"""


@dataclass
class Fact:
    """One thing the thread established: the question as it stood alone, what the verified
    answer said, and the stored citations that support it."""

    msg_id: int
    question: str
    statement: str
    citations: list[Citation] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"msg_id": self.msg_id, "question": self.question, "statement": self.statement,
                "citations": [c.record() for c in self.citations]}

    @staticmethod
    def from_dict(d: dict) -> Fact:
        return Fact(d["msg_id"], d["question"], d["statement"],
                    [Citation.from_record(c) for c in d.get("citations", [])])

    def words(self) -> int:
        return len(self.question.split()) + len(self.statement.split()) + sum(len(c.quote.split()) for c in self.citations)


def statement_of(answer_text: str) -> str:
    """The first sentence(s) of an answer, cut at a sentence end within the budget."""
    text = " ".join(answer_text.split())
    if len(text) <= _STATEMENT_CHARS:
        return text
    cut = text.rfind(". ", 0, _STATEMENT_CHARS)
    return text[:cut + 1] if cut > 40 else text[:_STATEMENT_CHARS].rstrip() + "…"


def facts_from(messages: list, cleared_upto: int = 0) -> list[Fact]:
    """Facts of stored messages (``history.StoredMessage``): answered, not refused, not
    stopped, with citations, and asked after the memory was last cleared."""
    out = []
    for m in messages:
        a = m.answer
        if m.msg_id <= cleared_upto or a.not_in_corpus or a.cancelled or not a.citations:
            continue
        out.append(Fact(m.msg_id, m.standalone or m.question, statement_of(a.answer), list(a.citations)))
    return out


def summarise(facts: list[Fact], budget_words: int = BUDGET_WORDS) -> list[Fact]:
    """The newest facts that fit in ``budget_words`` (oldest dropped first), in thread order."""
    kept: list[Fact] = []
    used = 0
    for f in reversed(facts):
        n = f.words()
        if kept and used + n > budget_words:
            break
        kept.append(f)
        used += n
    return list(reversed(kept))


def memory_text(facts: list[Fact]) -> str:
    """The memory as shown to the analyst: one line per fact with its sources."""
    lines = []
    for f in facts:
        src = "; ".join(f"{c.doc} {cited_page(c)}" for c in f.citations)
        lines.append(f"- {f.question} — {f.statement}" + (f" [{src}]" if src else ""))
    return "\n".join(lines)


class MemoryStore:
    """Per-conversation memory and answer style, in the history's SQLite file."""

    def __init__(self, where: Path | ConversationDatabase) -> None:
        """``where``: the file (opened, and closed by ``close``) or the database the history
        store shares (closed by its owner)."""
        self._database, self._owned = open_database(where)
        self._lock, self._db = self._database.lock, self._database.db
        with self._lock:
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        if self._owned:
            self._database.close()

    def _row(self, conv_id: int) -> tuple[list[Fact], int, str]:
        with self._lock:
            r = self._db.execute("SELECT facts, cleared_upto, style FROM conversation_memory WHERE conv_id=?",
                                 (conv_id,)).fetchone()
        if not r:
            return [], 0, "standard"
        return [Fact.from_dict(d) for d in json.loads(r[0])], int(r[1]), r[2]

    def _write(self, conv_id: int, facts: list[Fact], cleared_upto: int, style: str) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO conversation_memory VALUES (?, ?, ?, ?)",
                             (conv_id, json.dumps([f.to_dict() for f in facts]), cleared_upto, style))

    def memory(self, conv_id: int) -> list[Fact]:
        """The stored facts of a conversation (what the GUI shows)."""
        return self._row(conv_id)[0]

    def update(self, conv_id: int, messages: list, keep_recent: int = KEEP_RECENT,
               budget_words: int = BUDGET_WORDS) -> list[Fact]:
        """Summarise the turns older than the latest ``keep_recent`` into the stored memory."""
        _, cleared, style = self._row(conv_id)
        older = messages[:-keep_recent] if keep_recent else messages
        facts = summarise(facts_from(older, cleared), budget_words)
        self._write(conv_id, facts, cleared, style)
        return facts

    def clear(self, conv_id: int, upto_msg_id: int) -> None:
        """Forget every fact established up to ``upto_msg_id`` (the latest message)."""
        _, _, style = self._row(conv_id)
        self._write(conv_id, [], upto_msg_id, style)

    def cleared_upto(self, conv_id: int) -> int:
        return self._row(conv_id)[1]

    def style(self, conv_id: int) -> str:
        return self._row(conv_id)[2]

    def set_style(self, conv_id: int, style: str) -> None:
        facts, cleared, _ = self._row(conv_id)
        self._write(conv_id, facts, cleared, style)
