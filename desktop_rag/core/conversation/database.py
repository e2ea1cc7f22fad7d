"""The one connection to a data folder's conversation file (``history.sqlite``).

Conversations, messages and feedback (``HistoryStore``) and each conversation's memory and
answer style (``MemoryStore``) live in one SQLite file. Both stores go through one
``ConversationDatabase``: one connection, one lock, one place that sets the pragmas, so two
writers of the same file in one process never wait on each other's locks.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class ConversationDatabase:
    """A shared SQLite connection and the lock every statement on it is run under."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA journal_mode=WAL")

    def close(self) -> None:
        with self.lock:
            self.db.close()


def open_database(where: Path | ConversationDatabase) -> tuple[ConversationDatabase, bool]:
    """``where`` as a database, and whether the caller owns it (opened it from a path, so
    closes it); a database handed in is shared and closed by whoever opened it."""
    if isinstance(where, ConversationDatabase):
        return where, False
    return ConversationDatabase(where), True
