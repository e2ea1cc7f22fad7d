"""conversation/database.py: the history and memory stores share one connection."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.conversation.database import ConversationDatabase
from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore


def test_both_stores_use_the_one_connection_and_lock(tmp_path: Path) -> None:
    database = ConversationDatabase(tmp_path / "sub" / "history.sqlite")
    hist, mem = HistoryStore(database), MemoryStore(database)
    assert hist._db is mem._db is database.db and hist._lock is mem._lock is database.lock
    conv = hist.new_conversation("t")
    mem.set_style(conv, "brief")
    hist.close()
    mem.close()  # shared: neither store closes what it did not open
    assert mem.style(conv) == "brief"
    database.close()
    again = MemoryStore(tmp_path / "sub" / "history.sqlite")
    assert again.style(conv) == "brief"
    again.close()
