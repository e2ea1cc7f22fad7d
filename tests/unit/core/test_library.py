"""Library behaviour that spans the store and the in-memory views."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_rag.core.lexical import TOKENIZER_VERSION
from desktop_rag.core.library import Library


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
    from desktop_rag.core.pdf import EXTRACTOR_VERSION

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

    from desktop_rag.core.store import DenseIndex

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
