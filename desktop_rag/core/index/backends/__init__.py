"""Where a library lives: this computer (SQLite + hnswlib, the default) or a team server
(PostgreSQL + pgvector). ``open_store`` picks the backend from the library location."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.index.backends.base import (
    LibraryLoginFailed,
    LibraryPermissionDenied,
    LibraryStore,
    LibraryUnavailable,
    PasswordInUrl,
    ReadOnlyLibrary,
    is_server_location,
    redact,
)
from desktop_rag.settings import Settings

__all__ = ["LibraryLoginFailed", "LibraryPermissionDenied", "LibraryStore", "LibraryUnavailable", "PasswordInUrl",
           "ReadOnlyLibrary", "is_server_location", "open_store", "redact"]


def open_store(location: str, index_dir: Path, settings: Settings) -> LibraryStore:
    """The store of a library: ``location`` "" (this computer: ``index_dir``) or a
    ``postgresql://`` URL (a team library made by ``main.py team init``)."""
    if is_server_location(location):
        from desktop_rag.core.index.backends.postgres import PostgresStore  # psycopg only when used

        return PostgresStore(location, settings, local_dir=index_dir)
    from desktop_rag.core.index.backends.sqlite import IndexStore

    return IndexStore(index_dir)
