"""The document library: ingest (with progress), dedupe, removal, metadata, and the
in-memory views (chunks, vectors, BM25, hnswlib) that retrieval reads.

Ingest is a generator of ``IngestEvent`` so the CLI prints it and the GUI forwards it
to a progress bar. It has two phases per document: its pages, chunks and BM25 tokens are
committed in one SQLite transaction (the document is then searchable lexically), its
statements right after, then its embeddings in another one. Cancellation is checked between steps
and never leaves a half-added document: at worst one whose embeddings are missing, found
by BM25 only, and completed by the next ingest (``complete_embeddings``).
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import numpy as np

from desktop_rag.core.domain.terms import TOKENIZER_VERSION, tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.core.index import statement_store
from desktop_rag.core.index.backends import (
    LibraryPermissionDenied,
    LibraryStore,
    LibraryUnavailable,
    ReadOnlyLibrary,
    open_store,
)
from desktop_rag.core.index.backends.sqlite import SCHEMA_VERSION
from desktop_rag.core.index.dense import DenseIndex
from desktop_rag.core.index.embedder import Embedder
from desktop_rag.core.index.lexical import LexicalIndex
from desktop_rag.core.index.pdf_reader import PdfReader
from desktop_rag.core.ingest.chunking import chunk_pages, is_page_furniture
from desktop_rag.core.ingest.identity import detect_metadata
from desktop_rag.core.ingest.pdf import (
    EXTRACTOR_VERSION,
    PageText,
    PdfError,
    check_text_layer,
    extract_document,
    file_sha256,
    open_pdf,
)
from desktop_rag.core.ingest.statements.model import EXTRACTOR_VERSION as STATEMENTS_VERSION
from desktop_rag.core.ingest.statements.model import Statement, page_kinds
from desktop_rag.settings import Settings

log = logging.getLogger(__name__)

REINDEX_MARK = "reindex_incomplete"  # manifest key set while a re-index runs


IngestEventKind = Literal[
    "start", "file", "step", "searchable", "done_file", "failed", "skipped", "finished", "cancelled"]


@dataclass
class IngestEvent:
    """One step of an ingest run. ``kind``: start, file, step, searchable (the file is
    committed and found by BM25; its embeddings follow), done_file (embedded too), failed,
    skipped, finished, cancelled."""

    kind: IngestEventKind
    file: str = ""
    index: int = 0  # 1-based position of the file in this batch
    total: int = 0
    step: str = ""  # extract / chunk / embed / index
    done: int = 0  # units done within the step (pages or chunks)
    todo: int = 0
    message: str = ""
    doc_id: str = ""


class IngestOutcome(Enum):
    """What ingesting one readable PDF did (unreadable files raise ``PdfError``)."""

    ADDED = "added"
    DUPLICATE = "duplicate"  # the same bytes (SHA-256) are already in the library


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=lambda: {"extract": 0.0, "chunk": 0.0, "embed": 0.0, "index": 0.0})
    # Per added file: (pages, seconds from the start of its ingest until it was searchable).
    searchable_s: list[tuple[int, float]] = field(default_factory=list)
    # Per added file: (pages, seconds until fully searchable: dense, lexical and statements).
    complete_s: list[tuple[int, float]] = field(default_factory=list)


class Cancelled(Exception):
    pass


def collect_pdfs(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given, folders walked recursively for *.pdf; order kept, duplicates dropped."""
    out: dict[Path, None] = {}
    for p in map(Path, paths):
        p = p.expanduser()
        if p.is_dir() and p.suffix.lower() != ".pdf":  # a folder named x.pdf is reported, not walked
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix.lower() == ".pdf":
                    out.setdefault(f.resolve(), None)
        else:
            out.setdefault(p.resolve() if p.exists() else p, None)
    return list(out)


def embedding_text(chunk: Chunk, doc: Document) -> str:
    """What the embedder and BM25 see: the passage under a short document/section header,
    so "Apple Q3 2023 cash flows" can match a table that never names Apple."""
    m = doc.meta
    head = " ".join(x for x in (m.company or doc.file_name, m.form_type, _period_words(m)) if x)
    section = f" | {chunk.section}" if chunk.section else ""
    return f"{head}{section}\n{chunk.text}"


def lexical_text(chunk: Chunk, doc: Document) -> str:
    """What BM25 indexes: the embedding text without running headers/footers. A footer
    ("Apple Inc. | Q3 2023 Form 10-Q | 7") repeats the company on every page, and in a
    short chunk BM25's length normalisation would make it the best match for any question
    naming the company."""
    kept = "\n".join(ln for ln in chunk.text.split("\n") if not is_page_furniture(ln))
    return embedding_text(replace(chunk, text=kept), doc)


def _period_words(m: DocumentMeta) -> str:
    if m.fiscal_year and m.fiscal_quarter:
        return f"Q{m.fiscal_quarter} {m.fiscal_year}"
    return f"fiscal {m.fiscal_year}" if m.fiscal_year else ""


def token_budget(settings: Settings, embedder: Embedder) -> int:
    return settings.chunking.max_tokens or getattr(embedder, "chunk_token_budget", 0) or 0


def library_manifest(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    """What an index built with these settings and this embedder records about itself: a
    library whose manifest differs needs a re-index (or, on a team server, another desktop)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "embedder": embedder.model_id,
        "dim": embedder.dim,
        "chunking": {**settings.chunking.signature(), "token_budget": token_budget(settings, embedder)},
        "tokenizer": TOKENIZER_VERSION,
        "extractor": EXTRACTOR_VERSION,
    }


@dataclass
class _Rows:
    """Chunk rows of the store as the in-memory views hold them (``Library._read_rows``)."""

    ids: list[int] = field(default_factory=list)
    chunks: Mapping[int, Chunk] = field(default_factory=dict)  # StoredChunks; empty for a team library
    tokens: list[list[str]] = field(default_factory=list)
    doc_chunks: dict[str, list[int]] = field(default_factory=dict)  # doc_id -> chunk ids by ordinal
    doc_of: list[str] = field(default_factory=list)  # per row: its document
    pages: list[int] = field(default_factory=list)  # per row: its page
    # per row; a team library keeps no vectors on the desktop (width 0, pgvector searches them)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    embedded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    lexical: LexicalIndex | None = None  # built while reading (then ``tokens`` stays empty)


class StoredChunks(Mapping[int, Chunk]):
    """The chunks of a library on this computer as ``Library.chunks``: each row's place (its
    document, page, character span, ordinal, kind and section) in arrays, its text cut from
    the stored page text when a search reads it, the pages and chunks read last kept in
    bounded caches. Every chunk's text as a Python string was ~130 MB of resident memory at
    100k chunks; a search reads a few hundred chunks. The page texts are the store's (a page's
    text changes only in a re-index, which reloads the views)."""

    DOCUMENTS = 8  # documents whose page texts are kept (one read each: a search reads many chunks of a filing)
    CHUNKS = 16_384  # chunks kept: a search's candidates, their neighbours, a statement page's chunks

    def __init__(self, store: LibraryStore, ids: np.ndarray, docs: np.ndarray, pages: np.ndarray,
                 ordinals: np.ndarray, starts: np.ndarray, ends: np.ndarray, kinds: np.ndarray,
                 sections: np.ndarray) -> None:
        self._store = store
        self._ids = ids  # ascending (the Library's rows)
        self._docs, self._pages, self._ordinals = docs, pages, ordinals
        self._starts, self._ends, self._kinds, self._sections = starts, ends, kinds, sections
        self._page_cache: OrderedDict[str, list[str]] = OrderedDict()  # doc_id -> its page texts
        self._cache: OrderedDict[int, Chunk] = OrderedDict()
        self._lock = threading.Lock()

    def _row(self, chunk_id: object) -> int:
        if not isinstance(chunk_id, (int, np.integer)):
            return -1
        i = int(self._ids.searchsorted(chunk_id))
        return i if i < len(self._ids) and int(self._ids[i]) == chunk_id else -1

    def __getitem__(self, chunk_id: int) -> Chunk:
        with self._lock:
            chunk = self._cache.get(chunk_id)
            if chunk is not None:
                self._cache.move_to_end(chunk_id)
                return chunk
        row = self._row(chunk_id)
        if row < 0:
            raise KeyError(chunk_id)
        doc_id, page = self._docs[row], int(self._pages[row])
        text = self._page_text(doc_id, page)[int(self._starts[row]):int(self._ends[row])]
        chunk = Chunk(int(self._ids[row]), doc_id, int(self._ordinals[row]), page, int(self._starts[row]),
                      int(self._ends[row]), text, self._kinds[row], self._sections[row])
        with self._lock:
            self._cache[chunk.chunk_id] = chunk
            if len(self._cache) > self.CHUNKS:
                self._cache.popitem(last=False)
        return chunk

    def _page_text(self, doc_id: str, page: int) -> str:
        with self._lock:
            texts = self._page_cache.get(doc_id)
            if texts is not None:
                self._page_cache.move_to_end(doc_id)
        if texts is None:  # one query for the document's pages, not one per page
            texts = self._store.page_texts(doc_id)
            with self._lock:
                self._page_cache[doc_id] = texts
                if len(self._page_cache) > self.DOCUMENTS:
                    self._page_cache.popitem(last=False)
        return texts[page - 1] if 0 < page <= len(texts) else ""

    def __contains__(self, chunk_id: object) -> bool:
        return self._row(chunk_id) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return len(self._ids)


class ServerChunks(Mapping[int, Chunk]):
    """The chunks of a team library as ``Library.chunks``: read from the server when a search
    needs them (a search's candidates arrive with its dense query, ``search_candidates``) and
    kept in a bounded cache, never the whole library (at 300k chunks the desktop's full copy
    of texts and vectors took +4.5 GB). Ids are those of the Library's rows."""

    CACHE = 20_000  # chunks kept (~1-2 KB of text each): a few hundred searches' candidates

    def __init__(self, store: LibraryStore, ids: np.ndarray) -> None:
        self._store = store
        self._ids = ids  # ascending (the Library's rows)
        self._cache: OrderedDict[int, Chunk] = OrderedDict()
        self._lock = threading.Lock()

    def __getitem__(self, chunk_id: int) -> Chunk:
        chunk = self._cache.get(chunk_id)
        if chunk is None:
            self.prefetch([chunk_id])
            chunk = self._cache.get(chunk_id)
            if chunk is None:
                raise KeyError(chunk_id)
        return chunk

    def __contains__(self, chunk_id: object) -> bool:
        if not isinstance(chunk_id, (int, np.integer)):
            return False
        i = int(np.searchsorted(self._ids, chunk_id))
        return i < len(self._ids) and int(self._ids[i]) == chunk_id

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return len(self._ids)

    def put(self, chunks: Iterable[Chunk]) -> None:
        with self._lock:
            for c in chunks:
                self._cache[c.chunk_id] = c
                self._cache.move_to_end(c.chunk_id)
            while len(self._cache) > self.CACHE:
                self._cache.popitem(last=False)

    def prefetch(self, ids: Iterable[int]) -> None:
        """Read the chunks of ``ids`` not cached yet, in one round trip."""
        missing = [int(c) for c in dict.fromkeys(ids) if c not in self._cache and c in self]
        if missing:
            self.put(self._store.chunks_by_id(missing))

    def over(self, ids: np.ndarray) -> ServerChunks:
        """The same cache over new rows (a document added or removed)."""
        out = ServerChunks(self._store, ids)
        out._cache = self._cache
        return out

    def forget(self, doc_ids: set[str]) -> None:
        """Drop the cached chunks of documents that changed."""
        with self._lock:
            for cid in [c for c, ch in self._cache.items() if ch.doc_id in doc_ids]:
                del self._cache[cid]


def release_freed_memory() -> None:
    """Hand the memory freed by a full load of the views (its batches' token lists, the BM25
    arrays rebuilt at each batch, the vector parts) back to the system. glibc keeps freed
    blocks inside its heaps until the top of a heap is free, so the process stayed at the
    load's high-water mark: +222 MB after opening the 22,793-chunk financebench-dev library,
    of which ~75 MB were still in use; malloc_trim returns the rest. A no-op where the C
    library has no malloc_trim (macOS, Windows, musl)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return
    trim(0)


def _array(values: list[Any], dtype: Any) -> np.ndarray:
    out = np.empty(len(values), dtype=dtype)
    out[:] = values
    return out


class Library:
    """One library, on this computer or on a team server (``location``: "" or a
    ``postgresql://`` URL, see core/backends); retrieval reads it only through this class."""

    def __init__(self, data_dir: Path, settings: Settings, embedder: Embedder, location: str = "") -> None:
        self.settings = settings
        self.embedder = embedder
        self.index_dir = data_dir / "index"  # a library on this computer: its store and dense graph
        self.store = open_store(location, self.index_dir, settings)
        self._lock = threading.RLock()
        self._views_generation = -1
        self.docs: dict[str, Document] = {}
        # this computer: every chunk in memory; a team library: read per search (ServerChunks)
        self.chunks: Mapping[int, Chunk] = {}
        self.chunk_ids = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.embedded = np.zeros(0, dtype=bool)  # per row: has its embedding (else lexical only)
        self.row_of: dict[int, int] = {}
        self.row_doc = np.zeros(0, dtype=object)  # per row: its document's id
        self.row_page = np.zeros(0, dtype=np.int32)  # per row: its page
        self.doc_chunks: dict[str, list[int]] = {}  # doc_id -> chunk ids by ordinal
        self.lexical = LexicalIndex([], [])
        self._dense: DenseIndex | None = None
        self._follower: threading.Thread | None = None
        self.load_seconds: dict[str, float] = {}  # the last full load of the views, by part
        self._closed = threading.Event()
        self._dense_worker: ThreadPoolExecutor | None = None  # a team library's dense query beside BM25
        # how PDFs are read at ingest and for printed page numbers: in this process, or in
        # helper processes for a window that must keep running meanwhile (core/index/pdf_reader)
        self.pdf_reader: PdfReader = PdfReader()
        self._page_labels: OrderedDict[tuple[str, int], str] = OrderedDict()

    # -- manifest ----------------------------------------------------------------
    def expected_manifest(self) -> dict[str, Any]:
        return library_manifest(self.settings, self.embedder)

    def _token_budget(self) -> int:
        return token_budget(self.settings, self.embedder)

    @property
    def on_server(self) -> bool:
        """A team library (search runs in the server, see core/backends/postgres)."""
        return self.store.searches_in_store

    def _chunk(self, doc: Document, pages: list[PageText]) -> tuple[list[Chunk], list[str], list[list[str]]]:
        """Chunks of a document, the text each is embedded as, and its BM25 tokens."""
        cost = getattr(self.embedder, "word_cost", None)
        spans = chunk_pages(pages, self.settings.chunking, cost, self._token_budget() or None)
        chunks = [
            Chunk(-1, doc.doc_id, n, s.page, s.char_start, s.char_end,
                  pages[s.page - 1].text[s.char_start:s.char_end], s.kind, s.section)  # type: ignore[arg-type]
            for n, s in enumerate(spans)
        ]
        texts = [embedding_text(c, doc) for c in chunks]
        return chunks, texts, [tokenize(lexical_text(c, doc)) for c in chunks]

    def mismatch(self) -> list[str]:
        """Why the stored index does not fit the current embedder/chunking ([] = fine)."""
        stored = self.store.manifest()
        if not stored.get("schema_version"):
            return []  # empty, never written: adopts the current manifest on first ingest
        # A tokenizer change needs no re-index: refresh() re-tokenises the stored text.
        want = {k: v for k, v in self.expected_manifest().items() if k != "tokenizer"}
        problems = [f"{k}: index has {stored.get(k)!r}, settings want {v!r}" for k, v in want.items() if stored.get(k) != v]
        if stored.get(REINDEX_MARK):
            problems.append("a re-index was interrupted: some documents still have the old chunks or embeddings")
        return problems

    def close(self) -> None:
        self._closed.set()
        if self._follower is not None:
            self._follower.join(timeout=5)
        if self._dense_worker is not None:
            self._dense_worker.shutdown(wait=True)
            self._dense_worker = None
        self.pdf_reader.close()
        self.store.close()

    # -- views -------------------------------------------------------------------
    @property
    def views_lock(self) -> threading.RLock:
        """Held while a commit swaps the in-memory views. A reader that needs them
        consistent across several calls (a question's retrieval while a filing is being
        added) holds it too, and sees the library before or after a document, never half."""
        return self._lock

    def warm(self) -> None:
        """Build the lazy lookups answering reads (the BM25 index's word roots and idf) ahead of
        the first question: the window calls it behind itself after the library opens and after
        each committed filing, so the first question's evidence does not pay for them."""
        with self._lock:
            if self._views_generation < 0:
                self.refresh()
            self.lexical.warm()

    def refresh(self) -> bool:
        """(Re)load in-memory views when the store changed since the last load. On a team
        library only the documents another desktop (or this one) changed are applied, as
        the store's changes log names them (``LibraryStore.changed_documents``); a full load
        happens at connect and when the changes are not known. Returns whether the views changed."""
        with self._lock:
            if self.on_server and self._views_generation >= 0 and self.store.generation == self._views_generation:
                return False  # nothing committed since the views were loaded: one round trip, not a snapshot's four
            if self.on_server:
                self.store.listen()  # before the snapshot: no change between the two is missed
            # One read snapshot: another process may commit a document between these reads,
            # and chunks must never be seen without their document (or the other way round).
            with self.store.snapshot():
                gen = self.store.generation
                if gen == self._views_generation:
                    return False
                if self._views_generation >= 0:
                    changed = self.store.changed_documents(self._views_generation, gen)
                    if changed is not None and self._apply_changes(changed):
                        self._views_generation = gen
                        return True
                t0 = time.perf_counter()
                docs = {d.doc_id: d for d in self.store.documents()}
                current_tokens = self.store.manifest().get("tokenizer") == TOKENIZER_VERSION
                rows = (self._read_index(None, index=True) if self.on_server
                        else self._read_rows(self.store.chunk_rows(), index=current_tokens))
                stale_tokens = bool(rows.ids) and not current_tokens
                if stale_tokens and self.on_server:  # every chunk's text, once, to tokenise it again
                    rows.chunks = self._read_rows(self.store.chunk_rows()).chunks
                    rows.lexical = None
            t1 = time.perf_counter()
            self.docs = docs
            self.chunk_ids = np.asarray(rows.ids, dtype=np.int64)
            self.chunks = ServerChunks(self.store, self.chunk_ids) if self.on_server else rows.chunks
            self.row_doc, self.row_page = _array(rows.doc_of, object), _array(rows.pages, np.int32)
            self.embedded = rows.embedded
            self.vectors = rows.vectors if self.on_server else self._file_backed(rows.vectors)
            rows.vectors = self.vectors
            self.row_of = {cid: i for i, cid in enumerate(rows.ids)}
            self.doc_chunks = rows.doc_chunks
            token_lists = self._retokenize(rows.ids, rows.chunks) if stale_tokens else rows.tokens
            self.lexical = rows.lexical if rows.lexical is not None else LexicalIndex(rows.ids, token_lists)
            t2 = time.perf_counter()
            if not self.on_server:
                self._ensure_dense(gen)
            self._views_generation = gen
            release_freed_memory()
            self.load_seconds = {"read": t1 - t0, "bm25_index": t2 - t1, "dense": time.perf_counter() - t2}
            return True

    READ_BATCH = 5_000  # rows whose BM25 tokens and vector bytes are held at once while loading

    def _read_rows(self, chunk_rows: Iterable[tuple[Any, ...]], index: bool = False) -> _Rows:
        """The chunks (``StoredChunks``: their places, the text read when needed), vectors and
        BM25 tokens of store rows. ``index``: build their BM25 index batch by batch as the rows
        arrive (``tokens`` stays empty), so the token lists of the whole library never sit in
        memory at once: at 100k chunks they are ~15M Python strings (~1 GB), and the allocator
        keeps most of that high-water mark as resident memory after they are freed. The same
        index as one built over all rows at once (``LexicalIndex.append``)."""
        out = _Rows()
        if index:
            out.lexical = LexicalIndex([], [])
        dim = self.embedder.dim
        same: dict[str, str] = {}  # one string object per distinct document id, kind and section
        ordinals: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        kinds: list[str] = []
        sections: list[str] = []
        blobs: list[bytes] = []
        vector_parts: list[np.ndarray] = []
        embedded_parts: list[np.ndarray] = []
        batch_ids: list[int] = []

        def flush() -> None:
            # Chunks of a document still being embedded have an empty BLOB: a zero row here,
            # False in ``embedded``, absent from the graph; lexical search finds them already.
            embedded = np.fromiter((len(v) == 4 * dim for v in blobs), dtype=bool, count=len(blobs))
            vectors = np.zeros((len(blobs), dim), dtype=np.float32)
            if embedded.all():
                vectors[:] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
            else:
                for row in np.flatnonzero(embedded):
                    vectors[row] = np.frombuffer(blobs[row], dtype=np.float32)
            vector_parts.append(vectors)
            embedded_parts.append(embedded)
            blobs.clear()
            if out.lexical is not None:
                out.lexical.append(batch_ids, out.tokens)
                out.tokens = []
            batch_ids.clear()

        for (cid, doc_id, ordinal, page, a, b, kind, section, tokens, emb) in chunk_rows:
            doc_id = same.setdefault(doc_id, doc_id)
            out.ids.append(cid)
            out.doc_of.append(doc_id)
            out.pages.append(page)
            ordinals.append(ordinal)
            starts.append(a)
            ends.append(b)
            kinds.append(same.setdefault(kind, kind))
            sections.append(same.setdefault(section, section))
            blobs.append(emb)
            out.tokens.append(tokens.split())
            batch_ids.append(cid)
            out.doc_chunks.setdefault(doc_id, []).append(cid)
            if len(blobs) == self.READ_BATCH:
                flush()
        flush()
        out.vectors = vector_parts[0] if len(vector_parts) == 1 else np.concatenate(vector_parts)
        vector_parts.clear()
        out.embedded = np.concatenate(embedded_parts)
        ids = np.asarray(out.ids, dtype=np.int64)
        ordinal_of = dict(zip(out.ids, ordinals, strict=True))
        for lst in out.doc_chunks.values():
            lst.sort(key=ordinal_of.__getitem__)
        out.chunks = StoredChunks(self.store, ids, _array(out.doc_of, object), _array(out.pages, np.int32),
                                  _array(ordinals, np.int32), _array(starts, np.int32), _array(ends, np.int32),
                                  _array(kinds, object), _array(sections, object))
        return out

    FILE_BACKED_ROWS = 20_000  # from this many chunks the embeddings are a mapped file (_file_backed)

    def _file_backed(self, vectors: np.ndarray) -> np.ndarray:
        """The embeddings as a copy-on-write mapping of a file written beside the index and
        unlinked at once (POSIX keeps the mapping; nothing is left behind, even after a crash).
        Searches read only some rows (a search's candidates, a filter's rows for the exact
        search): only those pages are resident, and they are file-backed, so the system drops
        and re-reads them instead of the library holding every embedding in anonymous memory
        (146 MB at 100k chunks, besides the hnswlib graph's own copy). Writes (embeddings
        committed into the live views) go to private pages. In memory as they are for a small
        library, on Windows (a mapped file cannot be unlinked there) or where the index folder
        cannot be written."""
        if len(vectors) < self.FILE_BACKED_ROWS or os.name == "nt" or not vectors.size:
            return vectors
        path = self.index_dir / f".vectors.{os.getpid()}-{time.time_ns()}.npy"
        try:
            with open(path, "wb") as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(vectors, dtype=np.float32))
            mapped = np.load(path, mmap_mode="c")
        except (OSError, ValueError):
            return vectors
        finally:
            try:
                path.unlink()
            except OSError:
                pass
        return mapped

    def _read_index(self, doc_ids: Iterable[str] | None, index: bool = False) -> _Rows:
        """A team library's rows as the desktop keeps them: ids, documents, pages, BM25 tokens
        (``index``: their BM25 index built batch by batch as they arrive, so the token lists of
        the whole library never sit in memory at once), no text and no vectors
        (``ServerChunks``, pgvector)."""
        out = _Rows()
        ordinal: dict[int, int] = {}
        embedded: list[bool] = []
        if index:
            out.lexical = LexicalIndex([], [])
        batch: list[int] = []
        for cid, doc_id, n, page, tokens, has_vector in self.store.chunk_index(doc_ids):
            out.ids.append(cid)
            out.doc_of.append(doc_id)
            out.pages.append(page)
            out.tokens.append(tokens.split())
            out.doc_chunks.setdefault(doc_id, []).append(cid)
            ordinal[cid] = n
            embedded.append(has_vector)
            if out.lexical is not None:
                batch.append(cid)
                if len(batch) == 20_000:
                    out.lexical.append(batch, out.tokens)
                    batch, out.tokens = [], []
        if out.lexical is not None:
            out.lexical.append(batch, out.tokens)
            out.tokens = []
        for lst in out.doc_chunks.values():
            lst.sort(key=ordinal.__getitem__)
        out.embedded = np.asarray(embedded, dtype=bool)
        out.vectors = np.zeros((len(out.ids), 0), dtype=np.float32)
        return out

    def _apply_changes(self, changed: set[str]) -> bool:
        """Bring the views up to date for the documents ``changed`` (added, removed, new
        metadata, chunks or vectors) without reading the rest of the library: their rows
        leave the arrays and the BM25 postings, their current rows are appended
        (``LexicalIndex.append``/``remove_rows`` keep rank-bm25's statistics exact). Called
        inside refresh's snapshot. False: not possible here (full load instead)."""
        if not self.on_server:
            return False  # this computer's library is read again from its file (StoredChunks)
        if not changed:
            return True
        if self.store.manifest().get("tokenizer") != TOKENIZER_VERSION:
            return False  # every chunk's tokens are to be recomputed: the full load does that
        docs = {d.doc_id: d for d in self.store.documents()}
        wanted = [d for d in changed if d in docs]
        fresh = self._read_index(wanted)
        in_place = {d for d in changed if d in self.doc_chunks and sorted(self.doc_chunks[d])
                    == sorted(fresh.doc_chunks.get(d, []))}  # same chunks: metadata or vectors changed
        leaving = [self.row_of[c] for d in changed - in_place for c in self.doc_chunks.get(d, ())]
        arriving = [i for i, d in enumerate(fresh.doc_of) if d not in in_place]
        keep = np.ones(len(self.chunk_ids), dtype=bool)
        keep[leaving] = False
        if arriving and keep.any() and fresh.ids[arriving[0]] <= int(self.chunk_ids[keep].max()):
            return False  # rows are kept in chunk-id order (BM25 ties); ids are allocated in commit order
        for i, cid in enumerate(fresh.ids):
            if fresh.doc_of[i] in in_place:
                row = self.row_of[cid]
                self.vectors[row], self.embedded[row] = fresh.vectors[i], fresh.embedded[i]
        if leaving:
            self.lexical.remove_rows(np.asarray(leaving, dtype=np.int64))
            for d in changed - in_place:
                self.doc_chunks.pop(d, None)
        new_ids = [fresh.ids[i] for i in arriving]
        self.chunk_ids = np.concatenate((self.chunk_ids[keep], np.asarray(new_ids, dtype=np.int64)))
        self.vectors = np.concatenate((self.vectors[keep], fresh.vectors[arriving]))
        self.embedded = np.concatenate((self.embedded[keep], fresh.embedded[arriving]))
        self.row_doc = np.concatenate((self.row_doc[keep], _array([fresh.doc_of[i] for i in arriving], object)))
        self.row_page = np.concatenate((self.row_page[keep], _array([fresh.pages[i] for i in arriving], np.int32)))
        self.lexical.append(new_ids, [fresh.tokens[i] for i in arriving])
        # the rows changed: a new mapping over them, the cache without the changed documents
        cache = self.chunks
        assert isinstance(cache, ServerChunks)
        cache.forget(changed)
        self.chunks = cache.over(self.chunk_ids)
        for d, ids in fresh.doc_chunks.items():
            if d not in in_place:
                self.doc_chunks[d] = ids
        self.row_of = {int(cid): i for i, cid in enumerate(self.chunk_ids.tolist())}
        self.docs = docs
        return True

    def follow_changes(self, on_change: Callable[[], None] | None = None) -> None:
        """A team library: apply other desktops' changes as they are committed (a daemon
        thread waits for the notifications and refreshes the views under ``views_lock``),
        so a new filing is searchable before the next question. Then ``on_change`` (a
        thread of its own: a GUI passes a signal's emit) when something changed: a
        notification only says "look" (anyone may send one), the generation says whether
        there is anything to see. Stops at ``close()``."""
        if not self.on_server or self._follower is not None:
            return
        self.refresh()

        def follow() -> None:
            seen = self.store.wait_for_change(-1, 0)
            while not self._closed.is_set():
                now = self.store.wait_for_change(seen, 1.0)
                if now == seen or self._closed.is_set():
                    continue
                seen = now
                try:
                    changed = self.refresh()
                except Exception:  # a lost server: the next question says so
                    continue
                if changed and on_change is not None:
                    on_change()

        self._follower = threading.Thread(target=follow, name="desktop_rag-follow", daemon=True)
        self._follower.start()

    def _retokenize(self, ids: list[int], chunks: Mapping[int, Chunk]) -> list[list[str]]:
        """The alias table or tokenizer changed: recompute BM25 tokens from the stored text
        (cheap, no re-embedding) so chunks and queries are tokenised alike again."""
        token_lists = [tokenize(lexical_text(chunks[c], self.docs[chunks[c].doc_id])) for c in ids]
        if self.store.can_write():  # a team reader re-tokenises in memory only
            self.store.set_tokens(ids, token_lists, TOKENIZER_VERSION)
        return token_lists

    def _dense_manifest(self, gen: int) -> dict[str, Any]:
        return {"embedder": self.embedder.model_id, "dim": self.embedder.dim, "generation": gen}

    def _ensure_dense(self, gen: int) -> None:
        r = self.settings.retrieval
        dense = self._dense
        if dense is None or dense.params != {"M": r.hnsw_m, "ef_construction": r.hnsw_ef_construction}:
            # New, or the graph settings changed: load a graph built with them, else rebuild.
            dense = DenseIndex(self.embedder.dim, self.index_dir / "dense.hnsw", r.hnsw_ef_search,
                               r.hnsw_m, r.hnsw_ef_construction)
        dense.ef_search = r.hnsw_ef_search
        self._dense = dense
        n_embedded = int(self.embedded.sum())
        if len(dense) == n_embedded and dense.generation == gen:
            return
        if not dense.load(self._dense_manifest(gen)) or len(dense) != n_embedded:
            dense.build(self.chunk_ids[self.embedded], self.vectors[self.embedded])
            if n_embedded:
                dense.save(self._dense_manifest(gen))
        dense.generation = gen

    @property
    def pending_embeddings(self) -> int:
        """Chunks committed but not embedded yet (found by BM25 only until they are)."""
        return int(len(self.embedded) - self.embedded.sum())

    @property
    def dense(self) -> DenseIndex:
        """The in-memory hnswlib graph (this computer's library only: a team library's
        vectors are searched by pgvector in the server, ``dense_search``)."""
        if self.on_server:
            raise RuntimeError("a team library has no in-memory graph: use Library.dense_search")
        self.refresh()
        with self._lock:
            self._ensure_dense(self._views_generation)  # settings may have changed since
            assert self._dense is not None
            return self._dense

    def allowed_rows(self, doc_ids: list[str] | None) -> np.ndarray | None:
        """Boolean mask over the in-memory rows of the chunks of ``doc_ids`` (None = all)."""
        if doc_ids is None:
            return None
        mask = np.zeros(len(self.chunk_ids), dtype=bool)
        row_of, doc_chunks = self.row_of, self.doc_chunks
        # one fancy assignment, not a numpy scalar write per chunk (a company's 50k chunks at 1M)
        mask[np.fromiter((row_of[c] for d in doc_ids for c in doc_chunks.get(d, ())), dtype=np.int64)] = True
        return mask

    def dense_search(self, vector: np.ndarray, k: int, doc_ids: list[str] | None = None) -> list[tuple[int, float]]:
        """Approximate top-k (chunk_id, cosine) among the chunks of ``doc_ids`` (None = all):
        hnswlib here, pgvector's HNSW index on a team server (the filter in SQL there)."""
        if self.on_server:
            return self.store.dense_search(vector, k, doc_ids)
        mask = self.allowed_rows(doc_ids)
        allowed = None if mask is None else {int(c) for c in self.chunk_ids[mask]}
        return self.dense.search(vector, k, allowed)

    def search_candidates(
        self, vector: np.ndarray, k: int, doc_ids: list[str] | None, lexical_ids: list[int], exact: bool = False,
    ) -> tuple[dict[int, float], dict[int, float], dict[tuple[str, int], str]]:
        """A team library's dense top-k (chunk_id -> cosine; see ``dense_search``), the cosine
        of every candidate, the lexical ones too, and the stored types of their pages
        ((doc_id, page) -> domain.page_types type), with all their chunks read into
        ``chunks``: one round trip for a hybrid search's server side."""
        dense, chunks, cosines, types = self.store.search_candidates(vector, k, doc_ids, lexical_ids, exact)
        view = self.chunks
        if isinstance(view, ServerChunks):
            view.put(chunks)
        return dict(dense), cosines, types

    def hybrid_candidates(
        self, vector: np.ndarray, k: int, doc_ids: list[str] | None, lexical: Callable[[], dict[int, float]],
        exact: bool = False,
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float], dict[tuple[str, int], str]]:
        """``search_candidates`` with the lexical candidates computed here meanwhile: the dense
        query is sent first (a thread of this library waits for it) and ``lexical()`` (BM25 on
        this desktop) runs while the server searches; then the lexical candidates the dense
        ones did not bring are read. Two round trips, the first overlapping BM25 (at 1M chunks
        each is tens of ms). Returns (dense, lexical, cosines, page types)."""
        in_snapshot = getattr(self.store, "in_snapshot", None)
        if in_snapshot is not None and in_snapshot():  # this thread holds the connection: one after the other
            scores = lexical()
            dense, cosines, types = self.search_candidates(vector, k, doc_ids, list(scores), exact)
            return dense, scores, cosines, types
        if self._dense_worker is None:
            self._dense_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktop_rag-dense")
        pending = self._dense_worker.submit(self.store.search_candidates, vector, k, doc_ids, [], exact)
        try:
            scores = lexical()
        except BaseException:
            wait([pending])  # the connection is busy until the query returns
            raise
        dense_rows, chunks, cosines, types = pending.result()
        have = {c.chunk_id for c in chunks}
        rest = [c for c in scores if c not in have]
        if rest:
            _, more, more_cosines, more_types = self.store.search_candidates(vector, 0, None, rest)
            chunks, cosines, types = chunks + more, {**cosines, **more_cosines}, {**types, **more_types}
        view = self.chunks
        if isinstance(view, ServerChunks):
            view.put(chunks)
        return dict(dense_rows), scores, cosines, types

    def vectors_of(self, ids: list[int]) -> dict[int, np.ndarray]:
        """chunk_id -> embedding (zeros for a chunk not embedded yet); a team library: one round trip."""
        if not self.on_server:
            return {c: self.vectors[self.row_of[c]] for c in ids}
        got = self.store.vectors_by_id(ids)
        return {c: got.get(c, np.zeros(self.embedder.dim, dtype=np.float32)) for c in ids}

    def prefetch(self, ids: Iterable[int]) -> None:
        """Chunks about to be read (a team library: in one round trip, not one each)."""
        if isinstance(self.chunks, ServerChunks):
            self.chunks.prefetch(ids)

    def pages_of_rows(self, rows: np.ndarray) -> set[tuple[str, int]]:
        """(doc_id, page) of in-memory rows (no chunk read)."""
        return set(zip(self.row_doc[rows].tolist(), self.row_page[rows].tolist(), strict=True))

    def all_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, embeddings) of every embedded chunk, for exact-search baselines of the
        evaluation and the bench (a team library reads them all from the server: no search
        path keeps them on the desktop)."""
        self.refresh()
        if not self.on_server:
            return self.chunk_ids[self.embedded], self.vectors[self.embedded]
        ids = self.chunk_ids[self.embedded]
        matrix = np.empty((len(ids), self.embedder.dim), dtype=np.float32)
        for start in range(0, len(ids), 50_000):  # batches: no 1M-row result in memory at once
            part = ids[start:start + 50_000].tolist()
            got = self.store.vectors_by_id(part)
            matrix[start:start + len(part)] = [got[c] for c in part]
        return ids, matrix

    def lexical_search(self, terms: list[str], k: int, doc_ids: list[str] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk_id, Okapi BM25: rank-bm25's scores) among the chunks of ``doc_ids``
        (None = all), from the in-memory postings on both backends (on a team library a copy
        of the server's, kept current from its changes log)."""
        if self._views_generation < 0:
            self.refresh()  # never loaded yet
        return self.lexical.search(terms, k, self.allowed_rows(doc_ids))

    def page_text(self, doc_id: str, page: int) -> str:
        return self.store.page_text(doc_id, page) or ""

    def page_texts_at(self, pages: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """Texts of many (doc_id, page) pairs at once: one round trip on a team server."""
        return self.store.page_texts_at(pages)

    def documents(self) -> list[Document]:
        self.refresh()
        return list(self.docs.values())

    LABELS_KEPT = 4096  # (document, page) -> printed label

    def page_label(self, doc_id: str, page: int) -> str:
        """The page number ``page`` of the document prints ("72", "F-3"; "" when it prints
        none or its PDF is not where it was added from), read from its PDF once and kept. A
        citation shows it beside the PDF's page number (``domain.page_labels.describe_page``)."""
        key = (doc_id, page)
        label = self._page_labels.get(key)
        if label is not None:
            return label
        doc = self.docs.get(doc_id)
        label = ""
        if doc is not None and Path(doc.path).is_file():
            try:
                label = self.pdf_reader.page_label(Path(doc.path), page)
            except Exception:  # a label is a courtesy: the PDF's page number still stands
                log.exception("no page label for page %s of %s", page, doc.file_name)
        self._page_labels[key] = label
        while len(self._page_labels) > self.LABELS_KEPT:
            self._page_labels.popitem(last=False)
        return label

    def statements(self, doc_id: str) -> list[Statement]:
        """The financial statements extracted from a document (see core/ingest/statements)."""
        doc = self.docs.get(doc_id) or next(d for d in self.store.documents() if d.doc_id == doc_id)
        return statement_store.statements_for(self.store, doc, self.pdf_reader.statements)

    def statement_pages(self, doc_ids: list[str]) -> dict[str, dict[int, list[str]]]:
        """doc_id -> (page -> kinds of statement printed on it) of each document: the stored
        page maps (on a team library one round trip for all, nothing parsed); a document whose
        statements are missing or from an older extractor has them (re-)extracted first."""
        stored = self.store.statement_pages(doc_ids)
        out: dict[str, dict[int, list[str]]] = {}
        for doc_id in doc_ids:
            got = stored.get(doc_id)
            if got is not None and got[0] == STATEMENTS_VERSION:
                out[doc_id] = got[1]
            else:
                out[doc_id] = page_kinds(statement_store.to_rows(self.statements(doc_id)))
        return out

    def neighbours(self, chunk_id: int, n: int = 1) -> list[int]:
        c = self.chunks[chunk_id]
        order = self.doc_chunks.get(c.doc_id, [])
        i = order.index(chunk_id)
        return [order[j] for j in range(max(0, i - n), min(len(order), i + n + 1)) if j != i]

    # -- ingest ------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | Path],
        cancel: threading.Event | None = None,
        report: IngestReport | None = None,
    ) -> Iterator[IngestEvent]:
        """Add PDFs (files or folders). Yields progress; fills ``report``."""
        report = report if report is not None else IngestReport()
        t_start = time.perf_counter()
        if not self.store.can_write():
            raise ReadOnlyLibrary()
        problems = self.mismatch()
        if problems:
            raise RuntimeError("index does not match the current settings; re-index first: " + "; ".join(problems))
        files = collect_pdfs(paths)
        yield IngestEvent("start", total=len(files))
        try:
            yield from self.complete_embeddings(cancel)  # left by an interrupted ingest
        except Cancelled:
            report.cancelled = True
            yield IngestEvent("cancelled", total=len(files), message="cancelled")
            return
        for i, path in enumerate(files, 1):
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                yield IngestEvent("cancelled", index=i, total=len(files), message="cancelled")
                break
            yield IngestEvent("file", file=path.name, index=i, total=len(files))
            try:
                gen = self._ingest_one(path, i, len(files), cancel, report)
                outcome, doc = yield from gen
            except PdfError as exc:
                report.failed.append((str(path), str(exc)))
                yield IngestEvent("failed", file=path.name, index=i, total=len(files), message=str(exc))
                continue
            except Cancelled:
                report.cancelled = True
                yield IngestEvent("cancelled", file=path.name, index=i, total=len(files), message="cancelled")
                break
            except (LibraryPermissionDenied, LibraryUnavailable):
                raise  # about the library, not the file: the rest of the batch would fail alike
            except Exception as exc:  # never let one file stop a batch
                report.failed.append((str(path), f"unexpected error: {exc!r}"))
                yield IngestEvent("failed", file=path.name, index=i, total=len(files), message=f"unexpected error: {exc!r}")
                continue
            if outcome is IngestOutcome.DUPLICATE:
                msg = f"already in the library as {doc.file_name}"
                report.skipped.append((str(path), msg))
                yield IngestEvent("skipped", file=path.name, index=i, total=len(files), message=msg)
            else:
                report.added.append(str(path))
                added = self.docs.get(doc.doc_id, doc)  # as refreshed after the commit (chunk count filled in)
                yield IngestEvent("done_file", file=path.name, index=i, total=len(files), doc_id=doc.doc_id,
                                  message=f"{added.pages} pages, {added.chunk_count} chunks")
        self._save_dense()
        report.seconds = time.perf_counter() - t_start
        yield IngestEvent("finished", total=len(files),
                          message=f"{len(report.added)} added, {len(report.skipped)} skipped, {len(report.failed)} failed")

    def _save_dense(self) -> None:
        if self.on_server:
            return
        with self._lock:
            if self._dense is not None and self._views_generation == self.store.generation:
                self._dense.save(self._dense_manifest(self._views_generation))

    def _check(self, cancel: threading.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled

    def _ingest_one(
        self, path: Path, index: int, total: int, cancel: threading.Event | None, report: IngestReport
    ) -> Generator[IngestEvent, None, tuple[IngestOutcome, Document]]:
        t0 = time.perf_counter()
        if not path.exists():
            raise PdfError("unreadable", "no such file")
        if path.suffix.lower() != ".pdf" and not path.is_file():
            raise PdfError("not_pdf")
        try:
            doc_id = file_sha256(path)
        except OSError as exc:
            raise PdfError("unreadable", exc.strerror or str(exc)) from exc
        if self.on_server and self._views_generation < 0:
            # A desktop that only adds to a team library (``main.py ingest``) needs no views of
            # it: the content hash in the server says whether the filing is there.
            if self.store.has_document(doc_id):
                return IngestOutcome.DUPLICATE, next(d for d in self.store.documents() if d.doc_id == doc_id)
        else:
            self.refresh()
            if doc_id in self.docs:
                return IngestOutcome.DUPLICATE, self.docs[doc_id]
            if self.on_server and self.store.has_document(doc_id):  # committed since the last notification
                return IngestOutcome.DUPLICATE, next(d for d in self.store.documents() if d.doc_id == doc_id)
        pdf = open_pdf(path)
        try:
            yield IngestEvent("step", file=path.name, index=index, total=total, step="extract", todo=pdf.page_count)
            read_statements: list[Statement] | None = None
            if self.pdf_reader.in_process:
                pages: list[PageText] = extract_document(pdf)
                check_text_layer(pages, pdf)
            else:  # pages and statements read in a helper process (core/index/pdf_reader)
                pdf.close()
                read = self.pdf_reader.read(path)
                pages, read_statements = read.pages, read.statements
            if self.store.searches_in_store:  # a team library commits everything at once
                statements = (read_statements if read_statements is not None
                              else statement_store.extract_from_pdf(pdf, pages))
                if not pdf.is_closed:
                    pdf.close()
            t1 = time.perf_counter()
            self._check(cancel)
            meta = detect_metadata(path.name, "\n".join(p.text for p in pages[:3]),
                                   "\n".join(p.text for p in pages[3:]),  # fiscal calendar, Item 5 symbol
                                   library=[d.meta for d in self.docs.values()])  # a file its text cannot name
            doc = Document(doc_id, path.name, str(path), len(pages), meta,
                           added_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
            chunks, texts, tokens = self._chunk(doc, pages)
            t2 = time.perf_counter()
            yield IngestEvent("step", file=path.name, index=index, total=total, step="index", todo=len(chunks))
            self._check(cancel)
            if not self.store.manifest().get("schema_version"):
                self.store.set_manifest_values(**self.expected_manifest())
            if self.store.searches_in_store:
                stored_statements = (STATEMENTS_VERSION, statement_store.to_rows(statements))
                # Another desktop may have committed the same file while this one read it: ask the
                # server before spending the embedder's time on a copy it would refuse.
                if self.store.has_document(doc_id):
                    return IngestOutcome.DUPLICATE, next(
                        (d for d in self.store.documents() if d.doc_id == doc_id), doc)
                # A team library: the document, pages, chunks, vectors and statements in one
                # transaction (no lexical-only phase: other desktops see it whole or not at all).
                vectors = yield from self._embed(texts, path.name, index, total, cancel)
                t3 = time.perf_counter()
                self._check(cancel)
                with self._lock:
                    committed = self.store.add_document(doc, [p.text for p in pages], chunks, tokens, vectors,
                                                        stored_statements)
                    if self._views_generation >= 0:
                        self.refresh()  # applies just this document (its row in the changes log)
                if committed is None:  # the same file, committed meanwhile by another desktop
                    return IngestOutcome.DUPLICATE, self.docs.get(doc_id, doc)
                doc = replace(doc, chunk_count=len(chunks))
                t5 = time.perf_counter()
                report.searchable_s.append((len(pages), t5 - t0))
                report.complete_s.append((len(pages), t5 - t0))
                report.pages += len(pages)
                report.chunks += len(chunks)
                for k, v in (("extract", t1 - t0), ("chunk", t2 - t1), ("embed", t3 - t2), ("index", t5 - t3)):
                    report.timings[k] += v
                return IngestOutcome.ADDED, doc
            # Phase 1: text, chunks and BM25 tokens committed without embeddings, so the filing is
            # searchable (lexically) now rather than after the embedder's minutes. Its statements
            # follow at once (1b; ~0.5 s per 100 pages, a fifth of phase 1, read with character
            # boxes): a question in between finds none stored and extracts the same ones itself
            # (``statement_store.statements_for``).
            with self._lock:  # commit and swap the views as one step for concurrent readers
                added = self.store.add_document(doc, [p.text for p in pages], chunks, tokens, None, None)
                if added is None:  # the same file, committed meanwhile by another process
                    self._views_generation = -1
                    self.refresh()
                    return IngestOutcome.DUPLICATE, self.docs.get(doc_id, doc)
                ids = added
                self._views_generation = -1
                if self._dense is not None:
                    self._dense.generation = self.store.generation  # the graph is unchanged, and current
                self.refresh()
            t3 = time.perf_counter()
            report.searchable_s.append((len(pages), t3 - t0))
            yield IngestEvent("searchable", file=path.name, index=index, total=total, doc_id=doc_id,
                              message=f"{len(pages)} pages, {len(chunks)} chunks; embedding them")
            # Phase 1b: the statements (no generation change: the views stay as they are).
            statement_store.save(self.store, doc_id, read_statements if read_statements is not None
                                 else statement_store.extract_from_pdf(pdf, pages))
            if not pdf.is_closed:
                pdf.close()
            t4 = time.perf_counter()
            # Phase 2: embeddings, committed in one transaction; a cancel leaves the document
            # searchable by BM25 and its embeddings are completed by the next ingest.
            vectors = yield from self._embed(texts, path.name, index, total, cancel)
            t5 = time.perf_counter()
            self._commit_embeddings(ids, vectors)
            t6 = time.perf_counter()
            report.complete_s.append((len(pages), t6 - t0))
            report.pages += len(pages)
            report.chunks += len(chunks)
            for k, v in (("extract", (t1 - t0) + (t4 - t3)), ("chunk", t2 - t1), ("embed", t5 - t4),
                         ("index", (t3 - t2) + (t6 - t5))):
                report.timings[k] += v
            return IngestOutcome.ADDED, doc
        finally:
            if not pdf.is_closed:  # an error, a cancel, or the consumer stopped iterating
                pdf.close()

    def _stale(self) -> None:
        """This desktop changed the store: reload the views at the next refresh (a team
        library instead applies the changed document from the changes log)."""
        if not self.on_server:
            self._views_generation = -1

    def _commit_embeddings(self, ids: list[int], vectors: np.ndarray) -> None:
        """Store the embeddings of committed chunks and put them in the live views and graph
        (in place: only vectors changed, so no view is rebuilt)."""
        with self._lock:
            current = self._views_generation == self.store.generation
            gen = self.store.set_embeddings(ids, vectors)
            live = [(self.row_of[c], i) for i, c in enumerate(ids) if c in self.row_of]
            if current and len(live) == len(ids):
                rows = [r for r, _ in live]
                self.vectors[rows] = vectors
                self.embedded[rows] = True
                if self._dense is not None:
                    self._dense.add(list(ids), vectors)
                    self._dense.generation = gen
                self._views_generation = gen
            else:
                self._views_generation = -1
            self.refresh()

    def complete_embeddings(self, cancel: threading.Event | None = None) -> Iterator[IngestEvent]:
        """Embed the chunks an interrupted ingest left without embeddings (found by BM25
        only until then), one document per transaction."""
        pending = self.store.pending_embeddings()
        if not pending:
            return
        self.refresh()
        for i, (doc_id, ids) in enumerate(pending.items(), 1):
            doc = self.docs.get(doc_id)
            if doc is None:
                continue
            texts = [embedding_text(self.chunks[c], doc) for c in ids]
            vectors = yield from self._embed(texts, doc.file_name, i, len(pending), cancel)
            self._commit_embeddings(ids, vectors)

    def _embed(
        self, texts: list[str], name: str, index: int, total: int, cancel: threading.Event | None
    ) -> Generator[IngestEvent, None, np.ndarray]:
        batch = max(1, self.settings.embedding.batch_size)
        # Batches of similar length: a batch is padded to its longest text, so the short
        # chunks (table tails, headings) are embedded together instead of padded to 256.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), batch):
            self._check(cancel)
            yield IngestEvent("step", file=name, index=index, total=total, step="embed", done=start, todo=len(texts))
            parts.append(self.embedder.encode([texts[i] for i in order[start:start + batch]], batch_size=batch))
        yield IngestEvent("step", file=name, index=index, total=total, step="embed", done=len(texts), todo=len(texts))
        if not parts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        vectors = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
        vectors[order] = np.concatenate(parts)
        return vectors

    # -- maintenance ---------------------------------------------------------------
    def remove(self, doc_id: str) -> bool:
        if not self.store.can_write():
            raise ReadOnlyLibrary()
        self.refresh()
        if doc_id not in self.docs:
            return False
        with self._lock:
            ids = self.store.remove_document(doc_id)
            if self._dense is not None:
                self._dense.remove(ids)
                self._dense.generation = self.store.generation
            self._stale()
            self.refresh()
        self._save_dense()
        return True

    def update_meta(self, doc_id: str, meta: DocumentMeta) -> None:
        """An analyst's correction. Chunk headers embed the metadata, so the document's
        chunks are re-embedded to keep retrieval consistent with what the library shows."""
        if not self.store.can_write():
            raise ReadOnlyLibrary()
        self.store.update_meta(doc_id, meta, edited=True)
        self._stale()
        self.refresh()
        for _ in self._reindex_doc(doc_id, None):
            pass

    def redetect_meta(self, doc_id: str) -> DocumentMeta:
        doc = self.docs[doc_id]
        texts = self.store.page_texts(doc_id)
        meta = detect_metadata(doc.file_name, "\n".join(texts[:3]), "\n".join(texts[3:]),
                               library=[d.meta for i, d in self.docs.items() if i != doc_id])
        self.store.update_meta(doc_id, meta, edited=False)
        self._stale()
        self.refresh()
        for _ in self._reindex_doc(doc_id, None):
            pass
        return meta

    def reindex(self, cancel: threading.Event | None = None) -> Iterator[IngestEvent]:
        """Re-chunk and re-embed every document from its stored page text (after an
        embedder or chunking change). Each document is swapped in its own transaction.
        When the index was extracted by another version of the page reader, each page text
        is first re-extracted from the PDF (if it is still where it was ingested from and
        unchanged); otherwise the stored text is kept."""
        if not self.store.can_write():
            raise ReadOnlyLibrary()
        reextract = self.store.manifest().get("extractor") != EXTRACTOR_VERSION
        # The mark stays until every document is re-indexed: a crash half-way leaves a
        # manifest that claims the new settings, and the mark makes mismatch() say so.
        self.store.set_manifest_values(**self.expected_manifest(), **{REINDEX_MARK: True})
        self._views_generation = -1
        self._dense = None
        self.refresh()
        ids = list(self.docs)
        yield IngestEvent("start", total=len(ids))
        for i, doc_id in enumerate(ids, 1):
            if cancel is not None and cancel.is_set():
                yield IngestEvent("cancelled", index=i, total=len(ids))
                return
            yield IngestEvent("file", file=self.docs[doc_id].file_name, index=i, total=len(ids))
            yield from self._reindex_doc(doc_id, cancel, i, len(ids), reextract)
        self.store.delete_manifest_key(REINDEX_MARK)
        self._save_dense()
        yield IngestEvent("finished", total=len(ids), message=f"{len(ids)} documents re-indexed")

    def _reindex_doc(
        self, doc_id: str, cancel: threading.Event | None, index: int = 1, total: int = 1,
        reextract: bool = False,
    ) -> Iterator[IngestEvent]:
        doc = self.docs[doc_id]
        fresh = self._reextract(doc) if reextract else None
        texts = fresh if fresh is not None else self.store.page_texts(doc_id)
        pages = [PageText(i + 1, t) for i, t in enumerate(texts)]
        chunks, etexts, tokens = self._chunk(doc, pages)
        vectors = yield from self._embed(etexts, doc.file_name, index, total, cancel)
        old = list(self.doc_chunks.get(doc_id, []))
        ids = self.store.replace_chunks(doc_id, chunks, tokens, vectors, page_texts=fresh)
        with self._lock:
            if self._dense is not None:
                self._dense.remove(old)
                self._dense.add(ids, vectors)
                self._dense.generation = self.store.generation
            self._stale()
        self.refresh()
        self._save_dense()

    @staticmethod
    def _reextract(doc: Document) -> list[str] | None:
        """Page texts of a document read again from its PDF, or None when the file is gone,
        changed (another SHA-256) or unreadable: the stored text then stays as it is."""
        path = Path(doc.path)
        try:
            if not path.is_file() or file_sha256(path) != doc.doc_id:
                return None
            pdf = open_pdf(path)
            try:
                pages = extract_document(pdf)
            finally:
                pdf.close()
        except (OSError, PdfError):
            return None
        return [p.text for p in pages] if len(pages) == doc.pages else None
