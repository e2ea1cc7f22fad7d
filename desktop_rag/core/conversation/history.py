"""Conversations, answers and feedback in SQLite (follow-ups are made to stand alone by
``core.conversation.rewrite``).

Every answer is stored with its citations and the ids of the retrieved chunks, so a
thumbs up/down is a training example for the embedder (see finetune.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from desktop_rag.core.conversation.database import ConversationDatabase, open_database
from desktop_rag.core.conversation.rewrite import rewrite_followup as _rewrite
from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.domain.types import Answer, Calculation, CalculationInput, Citation

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    conv_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    msg_id INTEGER PRIMARY KEY AUTOINCREMENT,
    conv_id INTEGER NOT NULL REFERENCES conversations(conv_id) ON DELETE CASCADE,
    question TEXT NOT NULL, standalone TEXT NOT NULL, answer TEXT NOT NULL,
    not_in_corpus INTEGER NOT NULL, extractive INTEGER NOT NULL, model TEXT NOT NULL,
    citations TEXT NOT NULL, retrieved TEXT NOT NULL, timings TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feedback (
    msg_id INTEGER PRIMARY KEY REFERENCES messages(msg_id) ON DELETE CASCADE,
    rating INTEGER NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL);
"""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Conversation:
    conv_id: int
    title: str
    created_at: str
    updated_at: str


@dataclass
class StoredMessage:
    msg_id: int
    conv_id: int
    question: str
    standalone: str
    answer: Answer
    retrieved: list[int] = field(default_factory=list)
    rating: int = 0
    comment: str = ""
    created_at: str = ""
    scope: list[str] = field(default_factory=list)  # documents the question was limited to


# Columns added after the first release: (name, declaration). Old databases gain them on open.
_ADDED_COLUMNS = [("cancelled", "INTEGER NOT NULL DEFAULT 0"), ("scope", "TEXT NOT NULL DEFAULT '[]'"),
                  # the answer's details (route and its reason, how the question was read, attempts)
                  ("notes", "TEXT NOT NULL DEFAULT '[]'"),
                  # a computed answer's calculation (formula, each input's cell and box): a
                  # reopened conversation shows its card again, not a plain "Verified" line
                  ("calculation", "TEXT NOT NULL DEFAULT ''")]


def _calculation_record(calc: Calculation | None) -> str:
    return json.dumps(asdict(calc)) if calc is not None else ""


def _calculation_from(record: str | None) -> Calculation | None:
    if not record:
        return None
    d = json.loads(record)
    inputs = [CalculationInput(**(i | {"bbox": tuple(i["bbox"]) if i.get("bbox") else None})) for i in d.pop("inputs")]
    return Calculation(**d, inputs=inputs)


def _status(answer: Answer) -> str:
    if answer.not_in_corpus:
        return "Not in corpus"
    if getattr(answer, "computed", False) or getattr(answer, "calculation", None):
        return "Computed"
    if answer.extractive:
        return "Extractive (quoted from the filing)"
    return "Verified" if answer.citations else ""


def _when(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return iso


class HistoryStore:
    def __init__(self, where: Path | ConversationDatabase) -> None:
        """``where``: the file (opened, and closed by ``close``) or a database shared with
        the memory store (closed by its owner)."""
        self._database, self._owned = open_database(where)
        self._lock, self._db = self._database.lock, self._database.db
        with self._lock:
            self._db.executescript(_SCHEMA)
            have = {r[1] for r in self._db.execute("PRAGMA table_info(messages)")}
            with self._db:
                for name, decl in _ADDED_COLUMNS:
                    if name not in have:
                        self._db.execute(f"ALTER TABLE messages ADD COLUMN {name} {decl}")

    def close(self) -> None:
        if self._owned:
            self._database.close()

    def new_conversation(self, title: str = "New conversation") -> int:
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO conversations (title, created_at, updated_at) VALUES (?, ?, ?)",
                (title, _now(), _now()))
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def conversations(self) -> list[Conversation]:
        with self._lock:
            rows = self._db.execute(
                "SELECT conv_id, title, created_at, updated_at FROM conversations ORDER BY updated_at DESC, conv_id DESC"
            ).fetchall()
        return [Conversation(*r) for r in rows]

    def rename(self, conv_id: int, title: str) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE conversations SET title=? WHERE conv_id=?", (title, conv_id))

    def delete_conversation(self, conv_id: int) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM conversations WHERE conv_id=?", (conv_id,))

    def add_message(self, conv_id: int, answer: Answer, scope: list[str] | None = None) -> int:
        """Store an answer; ``scope`` names the documents the question was limited to."""
        cites = [c.record() for c in answer.citations]
        retrieved = [h.chunk.chunk_id for h in answer.hits]
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO messages (conv_id, question, standalone, answer, not_in_corpus, extractive, model,"
                " citations, retrieved, timings, created_at, cancelled, scope, notes, calculation)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (conv_id, answer.query, answer.standalone_query or answer.query, answer.answer,
                 int(answer.not_in_corpus), int(answer.extractive), answer.model, json.dumps(cites),
                 json.dumps(retrieved), json.dumps(answer.timings_ms), _now(), int(answer.cancelled),
                 json.dumps(list(scope or [])), json.dumps(list(answer.notes)),
                 _calculation_record(answer.calculation)))
            n = self._db.execute("SELECT COUNT(*) FROM messages WHERE conv_id=?", (conv_id,)).fetchone()[0]
            if n == 1:  # the first question names the conversation
                title = answer.query.strip().replace("\n", " ")
                self._db.execute("UPDATE conversations SET title=? WHERE conv_id=?",
                                 (title[:80] + ("…" if len(title) > 80 else ""), conv_id))
            self._db.execute("UPDATE conversations SET updated_at=? WHERE conv_id=?", (_now(), conv_id))
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def messages(self, conv_id: int) -> list[StoredMessage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT m.msg_id, m.conv_id, m.question, m.standalone, m.answer, m.not_in_corpus, m.extractive,"
                " m.model, m.citations, m.retrieved, m.timings, f.rating, f.comment, m.created_at, m.cancelled,"
                " m.scope, m.notes, m.calculation FROM messages m"
                " LEFT JOIN feedback f ON f.msg_id = m.msg_id WHERE m.conv_id=? ORDER BY m.msg_id", (conv_id,)
            ).fetchall()
        out = []
        for r in rows:
            cites = [Citation.from_record(c) for c in json.loads(r[8])]
            ans = Answer(query=r[2], answer=r[4], citations=cites, not_in_corpus=bool(r[5]),
                         extractive=bool(r[6]), model=r[7], standalone_query=r[3], timings_ms=json.loads(r[10]),
                         cancelled=bool(r[14]), notes=json.loads(r[16] or "[]"))
            ans.calculation = _calculation_from(r[17])
            ans.computed = ans.calculation is not None
            out.append(StoredMessage(r[0], r[1], r[2], r[3], ans, json.loads(r[9]), r[11] or 0, r[12] or "",
                                     r[13], json.loads(r[15] or "[]")))
        return out

    def set_feedback(self, msg_id: int, rating: int, comment: str = "") -> None:
        """rating: +1 thumbs up, -1 thumbs down, 0 clears."""
        with self._lock, self._db:
            if rating == 0:
                self._db.execute("DELETE FROM feedback WHERE msg_id=?", (msg_id,))
            else:
                self._db.execute("INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?)",
                                 (msg_id, 1 if rating > 0 else -1, comment, _now()))

    def feedback_rows(self) -> list[dict[str, Any]]:
        """Rated answers with what was retrieved and cited (training signal)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT m.standalone, f.rating, m.citations, m.retrieved, m.extractive FROM feedback f"
                " JOIN messages m ON m.msg_id = f.msg_id ORDER BY f.msg_id").fetchall()
        return [{"question": r[0], "rating": r[1], "cited": [c["chunk_id"] for c in json.loads(r[2])],
                 "retrieved": json.loads(r[3]), "extractive": bool(r[4])} for r in rows]

    def search(self, text: str) -> list[int]:
        """Conversations whose title, questions or answers contain ``text`` (case-insensitive),
        most recent first."""
        needle = f"%{text.strip().lower()}%"
        with self._lock:
            rows = self._db.execute(
                "SELECT c.conv_id FROM conversations c WHERE lower(c.title) LIKE ? OR EXISTS ("
                " SELECT 1 FROM messages m WHERE m.conv_id = c.conv_id AND (lower(m.question) LIKE ?"
                " OR lower(m.standalone) LIKE ? OR lower(m.answer) LIKE ?))"
                " ORDER BY c.updated_at DESC, c.conv_id DESC", (needle, needle, needle, needle)).fetchall()
        return [int(r[0]) for r in rows]

    def export_markdown(self, conv_id: int, page_label: Callable[[Citation], str] | None = None,
                        exported_at: str | None = None) -> str:
        """The conversation as Markdown: when it was exported, and for each question when it
        was asked, the model, the documents it was limited to, how it was read, the answer's
        status and each citation with its page (``page_label`` gives "p. 7 (PDF 10)")."""
        label = page_label or cited_page
        conv = next((c for c in self.conversations() if c.conv_id == conv_id), None)
        lines = [f"# {conv.title if conv else 'Conversation'}", "",
                 f"_Exported {_when(exported_at or _now())}"
                 + (f"; started {_when(conv.created_at)}" if conv else "") + "_", ""]
        for i, m in enumerate(self.messages(conv_id), 1):
            a = m.answer
            lines += [f"## {i}. {m.question}", ""]
            lines.append(f"- Asked: {_when(m.created_at)}")
            lines.append(f"- Model: {a.model or 'none (quoted from the filing)'}")
            lines.append(f"- Documents: {', '.join(m.scope) if m.scope else 'the whole library'}")
            if m.standalone and m.standalone != m.question:
                lines.append(f"- Read as: {m.standalone}")
            status = _status(a) + (" · stopped by the user" if a.cancelled else "")
            if status:
                lines.append(f"- Status: {status}")
            lines.append("")
            lines += [a.answer, ""]
            for k, c in enumerate(a.citations, 1):
                lines.append(f"{k}. {c.doc}, {label(c)}: “{' '.join(c.quote.split())}”")
            if a.citations:
                lines.append("")
        return "\n".join(lines)


# -- follow-up rewriting ---------------------------------------------------------------------
def rewrite_followup(question: str, previous: list[str], entity_words: set[str], scope_company: str = "",
                     scope_period: str = "") -> str:
    """The follow-up made to stand alone (its home is ``core.conversation.rewrite``; kept here
    for callers that only need the text)."""
    return _rewrite(question, previous, entity_words, scope_company, scope_period).standalone
