"""Library behaviour that spans the store and the in-memory views."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_rag.core.domain.terms import TOKENIZER_VERSION
from desktop_rag.core.index.library import Library, embedding_text
from tests.conftest import APPLE_PAGES as APPLE


def test_tokenizer_change_retokenises_stored_chunks_without_reindex(
    build_library: Callable[..., Library], tmp_path: Path
) -> None:
    lib = build_library()
    data_dir = lib.store.dir.parent
    n_chunks = len(lib.chunks)
    # Simulate an index written by an older alias table: stale tokens, old version.
    with lib.store.transaction() as db:
        db.execute("UPDATE chunks SET tokens='stale'")
        lib.store.set_manifest(db, tokenizer=TOKENIZER_VERSION - 1)
    embedder = lib.embedder
    lib.close()

    reopened = Library(data_dir, lib.settings, embedder)
    assert reopened.mismatch() == []  # no re-embedding asked of the user
    reopened.refresh()
    assert len(reopened.chunks) == n_chunks
    assert reopened.store.manifest()["tokenizer"] == TOKENIZER_VERSION
    assert not reopened.lexical.has_term("stale")
    assert reopened.lexical.has_term("revenue")
    rows = list(reopened.store.chunk_rows())
    assert all(r[8] != "stale" for r in rows)
    reopened.close()


def test_new_page_reader_version_reextracts_on_reindex(
    build_library: Callable[..., Library], tmp_path: Path
) -> None:
    from desktop_rag.core.ingest.pdf import EXTRACTOR_VERSION

    lib = build_library()
    doc_id = next(iter(lib.docs))
    fresh = lib.store.page_texts(doc_id)
    # Simulate an index written by an older page reader: other page text, old version.
    with lib.store.transaction() as db:
        db.execute("UPDATE pages SET text='stale text of an older reader' WHERE doc_id=?", (doc_id,))
        lib.store.set_manifest(db, extractor=EXTRACTOR_VERSION - 1)
    assert any(p.startswith("extractor:") for p in lib.mismatch())
    for _ in lib.reindex():
        pass
    assert lib.mismatch() == []
    assert lib.store.page_texts(doc_id) == fresh
    assert all("stale" not in c.text for c in lib.chunks.values())


def test_hnsw_settings_change_rebuilds_the_graph_not_the_embeddings(
    build_library: Callable[..., Library], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from desktop_rag.core.index.dense import DenseIndex

    lib = build_library()
    r = lib.settings.retrieval
    saved = lib.store.dir / "dense.json"
    assert json.loads(saved.read_text())["hnsw"] == {"M": r.hnsw_m, "ef_construction": r.hnsw_ef_construction}
    calls = lib.embedder.calls
    vector = lib.vectors[0]
    before = [c for c, _ in lib.dense.search(vector, 3)]

    r.hnsw_m, r.hnsw_ef_construction, r.hnsw_ef_search = 8, 50, 77  # as the settings dialog would
    dense = lib.dense
    assert dense.params == {"M": 8, "ef_construction": 50} and dense.ef_search == 77
    assert len(dense) == len(lib.chunk_ids)
    assert [c for c, _ in dense.search(vector, 3)] == before
    assert lib.embedder.calls == calls  # graph rebuilt from the stored vectors
    lib._save_dense()
    assert json.loads(saved.read_text())["hnsw"] == {"M": 8, "ef_construction": 50}

    # Reopened with the same settings: the saved graph is loaded, not rebuilt.
    data_dir, settings, embedder = lib.store.dir.parent, lib.settings, lib.embedder
    lib.close()
    reopened = Library(data_dir, settings, embedder)

    def no_rebuild(*args: object) -> None:
        raise AssertionError("the saved graph should have been loaded")

    monkeypatch.setattr(DenseIndex, "build", no_rebuild)
    reopened.refresh()
    assert reopened.dense.params == {"M": 8, "ef_construction": 50}
    assert [c for c, _ in reopened.dense.search(vector, 3)] == before
    reopened.close()


def test_a_new_filing_is_searchable_by_bm25_before_its_embeddings(
    build_library: Callable[..., Library], make_pdf: Callable[..., Path]
) -> None:
    import numpy as np

    from desktop_rag.core.index.library import IngestReport
    from desktop_rag.core.retrieve.hybrid import HybridRetriever
    from tests.conftest import NVIDIA_PAGES

    lib = build_library({"2023 Q3 AAPL.pdf": APPLE})
    retriever = HybridRetriever(lib, lib.settings.retrieval)
    graph_before = len(lib.dense)
    pdf = make_pdf("2023 Q2 NVDA.pdf", NVIDIA_PAGES)
    report = IngestReport()
    events = lib.ingest([pdf], report=report)
    for ev in events:
        if ev.kind == "searchable":
            break
    # Committed, not embedded yet: BM25 finds it, the dense side skips its chunks.
    doc_id = ev.doc_id
    n = len(lib.doc_chunks[doc_id])
    assert lib.pending_embeddings == n and len(lib.dense) == graph_before
    rows = [lib.row_of[c] for c in lib.doc_chunks[doc_id]]
    assert not lib.embedded[rows].any()
    hits = retriever.search("NVIDIA data center revenue hyperscale", mode="hybrid")
    assert hits and hits[0].doc.doc_id == doc_id
    dense = retriever.search("NVIDIA data center revenue hyperscale", mode="dense")
    assert all(h.doc.doc_id != doc_id for h in dense)

    kinds = [e.kind for e in events]  # the rest of the run: embeddings, then done_file
    assert "done_file" in kinds and report.added == [str(pdf)] and len(report.searchable_s) == 1
    assert lib.pending_embeddings == 0 and lib.embedded.all()
    assert len(lib.dense) == graph_before + n
    texts = [lib.chunks[c] for c in lib.doc_chunks[doc_id]]
    expected = lib.embedder.encode([embedding_text(c, lib.docs[doc_id]) for c in texts])
    np.testing.assert_allclose(lib.vectors[rows], expected, atol=1e-6)
    assert any(h.doc.doc_id == doc_id for h in retriever.search("NVIDIA data center revenue", mode="dense"))


def test_embeddings_left_by_a_cancelled_ingest_are_completed_by_the_next(
    build_library: Callable[..., Library], make_pdf: Callable[..., Path], tmp_path: Path
) -> None:
    import threading

    from desktop_rag.core.index.library import IngestReport
    from tests.conftest import NVIDIA_PAGES

    lib = build_library({"2023 Q3 AAPL.pdf": APPLE})
    cancel = threading.Event()
    report = IngestReport()
    for ev in lib.ingest([make_pdf("2023 Q2 NVDA.pdf", NVIDIA_PAGES)], cancel, report):
        if ev.kind == "searchable":
            cancel.set()  # the analyst stops it while it embeds
    assert report.cancelled and lib.pending_embeddings > 0
    assert len(lib.documents()) == 2  # kept, searchable lexically

    data_dir, settings, embedder = lib.store.dir.parent, lib.settings, lib.embedder
    lib.close()
    reopened = Library(data_dir, settings, embedder)
    reopened.refresh()
    assert reopened.pending_embeddings > 0
    kinds = [ev.kind for ev in reopened.ingest([])]
    assert kinds[-1] == "finished"
    assert reopened.pending_embeddings == 0 and reopened.store.pending_embeddings() == {}
    assert len(reopened.dense) == len(reopened.chunk_ids)
    reopened.close()


def test_an_interrupted_reindex_is_reported_until_one_completes(build_library: Callable[..., Library]) -> None:
    import threading

    from desktop_rag.core.index.library import Cancelled

    lib = build_library()
    lib.settings.chunking.words_per_chunk = 60  # what a re-index is for
    cancel = threading.Event()
    with pytest.raises(Cancelled):
        for ev in lib.reindex(cancel):
            if ev.kind == "file":
                cancel.set()  # stops while the first document is embedded
    # The manifest already names the new chunking; the mark says not every document has it.
    assert any("re-index was interrupted" in p for p in lib.mismatch())
    for _ in lib.reindex():
        pass
    assert lib.mismatch() == []


def test_refresh_reads_one_snapshot_of_the_store(build_library: Callable[..., Library]) -> None:
    lib = build_library()
    with lib.store.snapshot():
        assert lib.store._db.in_transaction
        with lib.store.snapshot():  # nested: the outer one holds
            lib.store.documents()
        assert lib.store._db.in_transaction
    assert not lib.store._db.in_transaction
    lib.refresh()
    assert not lib.store._db.in_transaction


def test_views_read_in_small_batches_equal_one_read_at_once(
    build_library: Callable[..., Library], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library is loaded a few thousand rows at a time (BM25 built batch by batch, bounded
    memory): the views are those of one read of every row, a chunk still being embedded too."""
    import numpy as np

    lib = build_library()
    data_dir, settings, embedder = lib.store.dir.parent, lib.settings, lib.embedder
    pending = next(iter(lib.docs))
    with lib.store.transaction() as db:  # one document's embeddings not computed yet
        db.execute("UPDATE chunks SET embedding=x'' WHERE doc_id=?", (pending,))
    lib.close()

    def load(batch: int) -> Library:
        monkeypatch.setattr(Library, "READ_BATCH", batch)
        out = Library(data_dir, settings, embedder)
        out.refresh()
        return out

    whole, batched = load(1_000_000), load(2)
    try:
        assert len(whole.chunk_ids) > 4 and not whole.embedded.all() and whole.embedded.any()
        assert whole.chunk_ids.tolist() == batched.chunk_ids.tolist()
        assert np.array_equal(whole.vectors, batched.vectors) and np.array_equal(whole.embedded, batched.embedded)
        assert whole.chunks == batched.chunks and whole.doc_chunks == batched.doc_chunks
        assert whole.row_doc.tolist() == batched.row_doc.tolist()
        assert whole.lexical.idf == batched.lexical.idf
        for terms in (["revenue"], ["iphone", "revenue", "nvidia"], ["datacenter", "cash"]):
            assert whole.lexical.scores(terms).tolist() == batched.lexical.scores(terms).tolist()
            assert whole.lexical.search(terms, 5) == batched.lexical.search(terms, 5)
    finally:
        whole.close()
        batched.close()


def test_stored_chunks_read_their_text_from_the_pages_when_asked(build_library: Callable[..., Library]) -> None:
    """This computer's library keeps each chunk's place, not its text: a chunk read is the
    stored page text at its span, the same Chunk as one cut at load time; unknown ids are
    absent, and the caches stay bounded."""
    from desktop_rag.core.domain.types import Chunk
    from desktop_rag.core.index.library import StoredChunks

    lib = build_library()
    chunks = lib.chunks
    assert isinstance(chunks, StoredChunks)
    rows = {r[0]: r for r in lib.store.chunk_rows()}
    assert list(chunks) == sorted(rows) and len(chunks) == len(rows)
    for cid, (_, doc_id, ordinal, page, a, b, kind, section, *_rest) in rows.items():
        text = lib.store.page_texts(doc_id)[page - 1][a:b]
        assert chunks[cid] == Chunk(cid, doc_id, ordinal, page, a, b, text, kind, section)
        assert cid in chunks and chunks.get(cid) == chunks[cid]
    missing = max(rows) + 1
    assert missing not in chunks and "x" not in chunks and chunks.get(missing) is None
    with pytest.raises(KeyError):
        chunks[missing]
    chunks.CHUNKS, chunks.DOCUMENTS = 2, 1  # type: ignore[misc]
    chunks._cache.clear()
    chunks._page_cache.clear()
    for cid in rows:
        chunks[cid]
    assert len(chunks._cache) <= 2 and len(chunks._page_cache) <= 1


def test_file_backed_embeddings_equal_the_ones_in_memory(
    build_library: Callable[..., Library], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A large library maps its embeddings from a file written beside the index and unlinked
    at once: the same vectors and search results as in memory, writes (an ingest's embeddings
    committed into the live views) allowed, no file left behind."""
    import os

    import numpy as np

    from desktop_rag.core.retrieve.hybrid import HybridRetriever

    monkeypatch.setattr(Library, "FILE_BACKED_ROWS", 1)
    lib = build_library()  # every load during the ingest file-backed, then the embeddings written into it
    if os.name == "nt":
        pytest.skip("kept in memory on Windows")
    assert isinstance(lib.vectors, np.memmap) and lib.embedded.all()
    assert not list(lib.index_dir.glob(".vectors*"))
    monkeypatch.setattr(Library, "FILE_BACKED_ROWS", 10**9)
    memory = Library(lib.store.dir.parent, lib.settings, lib.embedder)
    try:
        memory.refresh()
        assert not isinstance(memory.vectors, np.memmap)
        assert np.array_equal(np.asarray(lib.vectors), memory.vectors)
        for q in ("iPhone revenue in the quarter", "data center revenue", "cash flows from operating activities"):
            a = [(h.chunk.chunk_id, h.score) for h in HybridRetriever(lib, lib.settings.retrieval).search(q)]
            b = [(h.chunk.chunk_id, h.score) for h in HybridRetriever(memory, memory.settings.retrieval).search(q)]
            assert a == b and a
        lib.vectors[0] = 0.0  # copy-on-write: private to this process, the other views unchanged
        assert memory.vectors[0].any()
    finally:
        memory.close()


def test_a_copy_of_a_filing_is_recognised_by_its_hash_before_it_is_read(
    build_library: Callable[..., Library], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from desktop_rag.core.index import library as library_module
    from desktop_rag.core.index.library import IngestReport

    lib = build_library({"2023 Q3 AAPL.pdf": APPLE})
    original = Path(next(iter(lib.docs.values())).path)
    copy = tmp_path / "copies" / "apple-renamed.pdf"
    copy.parent.mkdir()
    shutil.copyfile(original, copy)

    def never(path: Path) -> None:
        raise AssertionError(f"{path} was opened")

    monkeypatch.setattr(library_module, "open_pdf", never)
    report = IngestReport()
    events = list(lib.ingest([copy], report=report))
    assert report.skipped == [(str(copy), "already in the library as 2023 Q3 AAPL.pdf")]
    assert not report.failed and not any(ev.kind == "step" for ev in events)  # nothing extracted
