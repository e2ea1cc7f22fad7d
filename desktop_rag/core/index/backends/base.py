"""The one interface every library backend implements, and the errors a backend raises.

``LibraryStore`` is what the ``Library`` (and through it retrieval, answering, statements
and the GUI) reads and writes: documents with their page texts, chunks with BM25 tokens
and embeddings, statements, the manifest and a generation counter that changes on every
write. Two implementations: ``core.index.backends.sqlite.IndexStore`` (SQLite beside an hnswlib graph kept
in memory by the Library) and ``core.index.backends.postgres.PostgresStore`` (PostgreSQL with
pgvector; dense search runs in the server: ``searches_in_store``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

import numpy as np

from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.settings import url_secrets, without_secrets

READ_ONLY_MESSAGE = "You can read this library but not change it."
# where a team library's password goes (libpq reads all three by itself)
PASSWORD_PLACES = ("the password goes in ~/.pgpass (on Windows %APPDATA%\\postgresql\\pgpass.conf), the PGPASSWORD "
                   "environment variable or a service file, never in the URL (docs/team-library-setup.md)")
SETUP_DOC = "docs/team-library-setup.md"

# (extractor version, statements as JSON-able dicts) stored with a document
StatementRows = tuple[int, list[dict[str, Any]]]


class LibraryPermissionDenied(PermissionError):
    """The connected role may not do this to the library (read it, change it, set it up)."""


class ReadOnlyLibrary(LibraryPermissionDenied):
    """The connected role may read the library but not change it (a team reader)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(READ_ONLY_MESSAGE + (f" ({detail})" if detail else ""))


class LibraryUnavailable(ConnectionError):
    """The library's server cannot be reached (or stopped answering): nothing was changed;
    the operation can be retried once it is back."""


class LibraryLoginFailed(LibraryUnavailable):
    """The server refused the login: a wrong or missing password, a role that does not exist
    or may not log in, a client certificate it does not accept."""


class PasswordInUrl(ValueError):
    """A library URL that carries a password (refused before it is used, saved or shown)."""

    def __init__(self, what: list[str]) -> None:
        super().__init__(f"A library URL must not carry a password ({'; '.join(what)}): {PASSWORD_PLACES}.")


def is_server_location(location: str | None) -> bool:
    return bool(location) and str(location).startswith(("postgresql://", "postgres://"))


def check_url(url: str) -> None:
    """A team library URL must not carry a password (``settings.url_secrets``: in the user
    part or as a parameter, any case): settings files, shell histories and status bars are no
    place for one (libpq reads PGPASSWORD, ~/.pgpass or a service file)."""
    secrets = url_secrets(url)
    if secrets:
        raise PasswordInUrl(secrets)


def redact(url: str) -> str:
    """A connection string fit for messages and logs: user, hosts, port, database; no
    password and no parameters."""
    scheme, _, rest = without_secrets(url).partition("://")
    rest = rest.partition("?")[0]
    return f"{scheme}://{rest}" if scheme else rest


@runtime_checkable
class LibraryStore(Protocol):
    """Storage of one library. Every write is one transaction and bumps ``generation``."""

    # True: ``dense_search`` runs in the store (no in-memory graph), and a
    # document is written with its embeddings in one transaction (never lexical-only).
    searches_in_store: bool
    location: str  # "" for this computer, else the redacted server URL
    # "" or, for a server whose certificate this desktop does not check (no sslmode=verify-full),
    # a sentence saying so, for the person using the library (a warning: it still works)
    identity_notice: str

    def close(self) -> None: ...
    def snapshot(self) -> AbstractContextManager[None]: ...
    def can_write(self) -> bool: ...

    # manifest
    def manifest(self) -> dict[str, Any]: ...
    def set_manifest_values(self, **values: Any) -> None: ...
    def delete_manifest_key(self, key: str) -> None: ...
    @property
    def generation(self) -> int: ...

    # documents
    def add_document(
        self, doc: Document, page_texts: list[str], chunks: list[Chunk], tokens: list[list[str]],
        vectors: np.ndarray | None, statements: StatementRows | None = None,
    ) -> list[int] | None: ...
    def set_embeddings(self, ids: list[int], vectors: np.ndarray) -> int: ...
    def pending_embeddings(self) -> dict[str, list[int]]: ...
    def replace_chunks(
        self, doc_id: str, chunks: list[Chunk], tokens: list[list[str]], vectors: np.ndarray,
        page_texts: list[str] | None = None,
    ) -> list[int]: ...
    def set_tokens(self, ids: list[int], token_lists: list[list[str]], tokenizer: int) -> None: ...
    def remove_document(self, doc_id: str) -> list[int]: ...
    def update_meta(self, doc_id: str, meta: DocumentMeta, edited: bool = True) -> None: ...
    def documents(self) -> list[Document]: ...
    def has_document(self, doc_id: str) -> bool: ...
    def page_text(self, doc_id: str, page: int) -> str | None: ...
    def page_texts(self, doc_id: str) -> list[str]: ...
    def page_texts_at(self, pages: list[tuple[str, int]]) -> dict[tuple[str, int], str]: ...
    def chunk_rows(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]: ...

    # statements (core/ingest/statements)
    def save_statements(self, doc_id: str, extractor: int, statements: list[dict[str, Any]]) -> None: ...
    def load_statements(self, doc_id: str) -> tuple[int, list[dict[str, Any]]] | None: ...
    # doc_id -> (extractor version, page -> statement kinds) for those with stored statements
    def statement_pages(self, doc_ids: list[str]) -> dict[str, tuple[int, dict[int, list[str]]]]: ...

    # dense search in the store (only when ``searches_in_store``; BM25 is always scored from
    # the Library's in-memory postings, core.domain.terms.LexicalIndex)
    def dense_search(self, vector: np.ndarray, k: int, doc_ids: list[str] | None) -> list[tuple[int, float]]: ...
    # a store that searches itself keeps the chunks' text and vectors: the desktop reads its rows'
    # index (ids, documents, BM25 tokens) and, per search, the candidates (server only)
    def chunk_index(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]: ...
    def chunks_by_id(self, ids: list[int]) -> list[Chunk]: ...
    def vectors_by_id(self, ids: list[int]) -> dict[int, np.ndarray]: ...
    def search_candidates(
        self, vector: np.ndarray, k: int, doc_ids: list[str] | None, extra_ids: list[int], exact: bool = False,
    ) -> tuple[list[tuple[int, float]], list[Chunk], dict[int, float], dict[tuple[str, int], str]]: ...

    # changes made by other desktops (a team library: LISTEN/NOTIFY; this computer: none)
    def listen(self, timeout: float = 5.0) -> None: ...
    def changed_documents(self, since: int, current: int) -> set[str] | None: ...
    def wait_for_change(self, seen: int, timeout: float) -> int: ...


def ids_by_document(rows: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    """(doc_id, chunk_id) rows, in order -> doc_id -> its chunk ids in that order (both backends'
    ``pending_embeddings``)."""
    out: dict[str, list[int]] = {}
    for doc_id, cid in rows:
        out.setdefault(doc_id, []).append(int(cid))
    return out
