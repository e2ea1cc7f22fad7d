"""This computer's library: SQLite is the source of truth, the hnswlib file (``core/index/dense.py``) a rebuildable cache.

Layout under ``<data dir>/index/``:
- ``library.sqlite`` — documents, canonical page texts, chunks (with BM25 tokens and
  the float32 embedding as a BLOB, empty while a new document's embeddings are still being
  computed), and a ``manifest`` table (schema version, embedder
  id + dimension, chunking parameters, generation counter). Every ingest/removal is
  one transaction, so a crash leaves the previous state intact.
- ``dense.<writer>.hnsw`` + ``dense.json`` — the hnswlib graph and the manifest it was built
  from (embedder, dimension, generation), which names the graph file. Written to temp files and renamed; if it is
  missing, stale or unreadable it is rebuilt from the embeddings in SQLite.
No pickle anywhere.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.core.index.backends.base import ids_by_document
from desktop_rag.core.ingest.statements.model import page_kinds

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, file_name TEXT NOT NULL, path TEXT NOT NULL, pages INTEGER NOT NULL,
    meta TEXT NOT NULL, meta_edited INTEGER NOT NULL DEFAULT 0, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    page INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (doc_id, page));
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL, page INTEGER NOT NULL, char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL, kind TEXT NOT NULL, section TEXT NOT NULL,
    tokens TEXT NOT NULL, embedding BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ordinal);
CREATE TABLE IF NOT EXISTS statements (
    doc_id TEXT PRIMARY KEY REFERENCES documents(doc_id) ON DELETE CASCADE,
    extractor INTEGER NOT NULL, data TEXT NOT NULL);
"""


def _enable_wal(db: sqlite3.Connection, deadline: float) -> None:
    """Switch a (possibly brand-new) database to WAL. Two processes creating one new library at
    once race here: the switch needs an exclusive lock and SQLite answers "database is locked"
    at once instead of calling the busy handler, so retry until the other process is done (WAL
    is persistent: the second one then finds it already set)."""
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class IndexStore:
    """Documents, pages and chunks in SQLite. Thread-safe (one connection, one lock).
    The embedded backend of ``core.index.backends.LibraryStore``: search runs on the Library's
    in-memory views (BM25 postings, hnswlib graph), not in the store."""

    searches_in_store = False
    location = ""
    identity_notice = ""

    def __init__(self, index_dir: Path) -> None:
        self.dir = index_dir
        index_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = index_dir / "library.sqlite"
        self._lock = threading.RLock()
        # Several processes may write one library (two `ingest` runs, the app and the CLI):
        # SQLite lets one write transaction at a time; the others wait for it (up to a minute,
        # a large filing's commit on a slow disk) instead of failing after the default 5 s.
        self._db = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None, timeout=60)
        _enable_wal(self._db, deadline=time.monotonic() + 60)
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that must see one committed state: another process (a second
        ``ingest`` on the same library) may commit between two SELECTs, so they run in one
        read transaction (WAL: a consistent snapshot that never blocks the writer)."""
        with self._lock:
            if self._db.in_transaction:
                yield
                return
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                self._db.execute("COMMIT")

    # -- manifest -------------------------------------------------------------
    def manifest(self) -> dict[str, Any]:
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM manifest").fetchall()
        return {k: json.loads(v) for k, v in rows}

    def set_manifest_values(self, **values: Any) -> None:
        with self.transaction() as db:
            self.set_manifest(db, **values)

    def delete_manifest_key(self, key: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM manifest WHERE key=?", (key,))

    def can_write(self) -> bool:
        return os.access(self.db_path, os.W_OK)

    def set_manifest(self, db: sqlite3.Connection, **values: Any) -> None:
        for k, v in values.items():
            db.execute("INSERT OR REPLACE INTO manifest VALUES (?, ?)", (k, json.dumps(v)))

    def bump_generation(self, db: sqlite3.Connection) -> int:
        row = db.execute("SELECT value FROM manifest WHERE key='generation'").fetchone()
        gen = (json.loads(row[0]) if row else 0) + 1
        self.set_manifest(db, generation=gen)
        return gen

    @property
    def generation(self) -> int:
        return int(self.manifest().get("generation", 0))

    # -- documents ------------------------------------------------------------
    def add_document(
        self,
        doc: Document,
        page_texts: list[str],
        chunks: list[Chunk],
        tokens: list[list[str]],
        vectors: np.ndarray | None,
        statements: tuple[int, list[dict[str, Any]]] | None = None,
    ) -> list[int] | None:
        """Insert a document with everything derived from it, atomically. Returns chunk ids,
        or None when the same file (same SHA-256) was committed meanwhile by another process.
        ``vectors`` None: the chunks are stored without embeddings (an empty BLOB), to be
        filled in by ``set_embeddings``; until then they are found lexically only."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO documents VALUES (?, ?, ?, ?, ?, ?, ?)",
                (doc.doc_id, doc.file_name, doc.path, doc.pages, json.dumps(asdict(doc.meta)),
                 int(doc.meta_edited), doc.added_at or _now()),
            )
            if cur.rowcount == 0:
                return None
            db.executemany(
                "INSERT INTO pages VALUES (?, ?, ?)",
                [(doc.doc_id, i + 1, t) for i, t in enumerate(page_texts)],
            )
            ids = self._insert_chunks(db, chunks, tokens, vectors)
            if statements is not None:
                db.execute("INSERT OR REPLACE INTO statements VALUES (?, ?, ?)",
                           (doc.doc_id, statements[0], json.dumps(statements[1])))
                self.set_manifest(db, extractor_version=statements[0])
            self.bump_generation(db)
        return ids

    def _insert_chunks(
        self, db: sqlite3.Connection, chunks: list[Chunk], tokens: list[list[str]], vectors: np.ndarray | None
    ) -> list[int]:
        ids = []
        blobs = [b""] * len(chunks) if vectors is None else [np.asarray(v, dtype=np.float32).tobytes() for v in vectors]
        for c, toks, blob in zip(chunks, tokens, blobs, strict=True):
            cur = db.execute(
                "INSERT INTO chunks (doc_id, ordinal, page, char_start, char_end, kind, section, tokens, embedding)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (c.doc_id, c.ordinal, c.page, c.char_start, c.char_end, c.kind, c.section, " ".join(toks), blob),
            )
            ids.append(int(cur.lastrowid))  # type: ignore[arg-type]
        return ids

    def set_embeddings(self, ids: list[int], vectors: np.ndarray) -> int:
        """Fill in the embeddings of chunks stored without them, in one transaction.
        Chunks removed meanwhile are skipped. Returns the new generation."""
        with self.transaction() as db:
            db.executemany("UPDATE chunks SET embedding=? WHERE chunk_id=?",
                           [(np.asarray(v, dtype=np.float32).tobytes(), int(c))
                            for c, v in zip(ids, vectors, strict=True)])
            return self.bump_generation(db)

    def pending_embeddings(self) -> dict[str, list[int]]:
        """doc_id -> ids of its chunks still without an embedding (by ordinal)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id, chunk_id FROM chunks WHERE length(embedding)=0 ORDER BY doc_id, ordinal").fetchall()
        return ids_by_document(rows)

    def replace_chunks(
        self, doc_id: str, chunks: list[Chunk], tokens: list[list[str]], vectors: np.ndarray,
        page_texts: list[str] | None = None,
    ) -> list[int]:
        """Re-index one document (new chunking or embedder; with ``page_texts``, a new
        page reader too) in one transaction."""
        with self.transaction() as db:
            if page_texts is not None:
                db.executemany("UPDATE pages SET text=? WHERE doc_id=? AND page=?",
                               [(t, doc_id, i + 1) for i, t in enumerate(page_texts)])
            db.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
            ids = self._insert_chunks(db, chunks, tokens, vectors)
            self.bump_generation(db)
        return ids

    def set_tokens(self, ids: list[int], token_lists: list[list[str]], tokenizer: int) -> None:
        """New BM25 tokens for chunks (the tokenizer changed), recorded in the manifest."""
        with self.transaction() as db:
            db.executemany("UPDATE chunks SET tokens=? WHERE chunk_id=?",
                           [(" ".join(t), c) for c, t in zip(ids, token_lists, strict=True)])
            self.set_manifest(db, tokenizer=tokenizer)

    def dense_search(self, vector: np.ndarray, k: int, doc_ids: list[str] | None) -> list[tuple[int, float]]:
        raise NotImplementedError("the embedded library searches its in-memory graph (Library.dense_search)")

    # the embedded library keeps every chunk and vector in memory (Library): these are a team server's
    def chunk_index(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]:
        raise NotImplementedError("the embedded library reads whole rows (chunk_rows)")

    def chunks_by_id(self, ids: list[int]) -> list[Chunk]:
        raise NotImplementedError("the embedded library keeps its chunks in memory (Library.chunks)")

    def vectors_by_id(self, ids: list[int]) -> dict[int, np.ndarray]:
        raise NotImplementedError("the embedded library keeps its vectors in memory (Library.vectors)")

    def search_candidates(
        self, vector: np.ndarray, k: int, doc_ids: list[str] | None, extra_ids: list[int], exact: bool = False,
    ) -> tuple[list[tuple[int, float]], list[Chunk], dict[int, float], dict[tuple[str, int], str]]:
        raise NotImplementedError("the embedded library searches its in-memory graph (Library.dense_search)")

    # one process writes this computer's library: no other desktop's changes to follow
    def listen(self, timeout: float = 5.0) -> None:
        return None

    def changed_documents(self, since: int, current: int) -> set[str] | None:
        return None

    def wait_for_change(self, seen: int, timeout: float) -> int:
        time.sleep(timeout)
        return seen

    def remove_document(self, doc_id: str) -> list[int]:
        with self.transaction() as db:
            ids = [r[0] for r in db.execute("SELECT chunk_id FROM chunks WHERE doc_id=?", (doc_id,))]
            db.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
            self.bump_generation(db)
        return ids

    def update_meta(self, doc_id: str, meta: DocumentMeta, edited: bool = True) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE documents SET meta=?, meta_edited=? WHERE doc_id=?",
                (json.dumps(asdict(meta)), int(edited), doc_id),
            )
            self.bump_generation(db)

    def documents(self) -> list[Document]:
        with self._lock:
            rows = self._db.execute(
                "SELECT d.doc_id, d.file_name, d.path, d.pages, d.meta, d.meta_edited, d.added_at,"
                " (SELECT COUNT(*) FROM chunks c WHERE c.doc_id=d.doc_id)"
                " FROM documents d ORDER BY d.added_at, d.file_name"
            ).fetchall()
        return [
            Document(r[0], r[1], r[2], r[3], DocumentMeta(**json.loads(r[4])), r[7], r[6], bool(r[5]))
            for r in rows
        ]

    def has_document(self, doc_id: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone() is not None

    def page_text(self, doc_id: str, page: int) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text FROM pages WHERE doc_id=? AND page=?", (doc_id, page)
            ).fetchone()
        return row[0] if row else None

    def page_texts(self, doc_id: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT text FROM pages WHERE doc_id=? ORDER BY page", (doc_id,))]

    def page_texts_at(self, pages: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """The texts of many (doc_id, page) pairs (missing pairs absent)."""
        out: dict[tuple[str, int], str] = {}
        with self._lock:
            for doc_id, page in pages:
                row = self._db.execute("SELECT text FROM pages WHERE doc_id=? AND page=?", (doc_id, page)).fetchone()
                if row:
                    out[(doc_id, page)] = row[0]
        return out

    # -- financial statements (core/ingest/statements) ---------------------------------
    def save_statements(self, doc_id: str, extractor: int, statements: list[dict[str, Any]]) -> None:
        """A document's extracted statements (JSON), tagged with the extractor version that
        made them: a newer extractor re-extracts without touching chunks or embeddings."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO statements VALUES (?, ?, ?)", (doc_id, extractor, json.dumps(statements)))
            self.set_manifest(db, extractor_version=extractor)

    def load_statements(self, doc_id: str) -> tuple[int, list[dict[str, Any]]] | None:
        """(extractor version, statements) or None when never extracted."""
        with self._lock:
            row = self._db.execute("SELECT extractor, data FROM statements WHERE doc_id=?", (doc_id,)).fetchone()
        return (int(row[0]), json.loads(row[1])) if row else None

    def statement_pages(self, doc_ids: list[str]) -> dict[str, tuple[int, dict[int, list[str]]]]:
        """doc_id -> (extractor version, page -> statement kinds) of the documents that have
        stored statements (``statements.model.page_kinds``, no Statement objects built)."""
        out: dict[str, tuple[int, dict[int, list[str]]]] = {}
        for doc_id in dict.fromkeys(doc_ids):
            stored = self.load_statements(doc_id)
            if stored is not None:
                out[doc_id] = (stored[0], page_kinds(stored[1]))
        return out

    def chunk_rows(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]:
        """(chunk_id, doc_id, ordinal, page, char_start, char_end, kind, section, tokens, embedding).
        Streamed a few thousand rows at a time, not fetched all at once (100k chunks' tokens and
        vectors are ~0.3 GB of Python objects); the store's lock is held until the last row (read
        them to the end, as a library load does inside its snapshot)."""
        sql = ("SELECT chunk_id, doc_id, ordinal, page, char_start, char_end, kind, section, tokens,"
               " embedding FROM chunks")
        with self._lock:
            if doc_ids is None:
                cur = self._db.execute(sql + " ORDER BY chunk_id")
            else:
                ids = list(doc_ids)
                cur = self._db.execute(sql + f" WHERE doc_id IN ({','.join('?' * len(ids))}) ORDER BY chunk_id", ids)
            try:
                while rows := cur.fetchmany(2_000):
                    yield from rows
            finally:
                cur.close()
