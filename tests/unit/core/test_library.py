"""Library behaviour that spans the store and the in-memory views."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
