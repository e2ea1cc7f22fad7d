"""core/index/backends/sqlite.py (+ the Library on top of it): atomic writes, manifest checks, rebuildable
hnswlib cache. Uses the fake embedder from conftest: no torch."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.core.index.backends.sqlite import IndexStore
from desktop_rag.core.index.dense import DenseIndex
from desktop_rag.core.index.library import IngestReport, Library
from desktop_rag.settings import Settings
from tests.conftest import APPLE_PAGES, FakeEmbedder, write_pdf


def _doc(doc_id: str = "d" * 64, name: str = "a.pdf", pages: int = 2) -> Document:
    return Document(doc_id, name, f"/x/{name}", pages, DocumentMeta(company="Apple Inc.", ticker="AAPL"))


def _chunks(doc_id: str, n: int) -> list[Chunk]:
    return [Chunk(-1, doc_id, i, 1 + i % 2, 0, 5, "hello", "text", "") for i in range(n)]


def _unit(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path: Path):
    s = IndexStore(tmp_path / "index")
    yield s
    s.close()


def _count(store: IndexStore, table: str) -> int:
    return store._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


# -- IndexStore -------------------------------------------------------------------------------
def test_add_document_round_trip(store: IndexStore) -> None:
    doc = _doc()
    ids = store.add_document(doc, ["hello world", "page two"], _chunks(doc.doc_id, 3),
                             [["hello"], ["world"], []], _unit(3))
    assert len(ids) == 3 and len(set(ids)) == 3
    assert store.has_document(doc.doc_id)
    [got] = store.documents()
    assert (got.file_name, got.pages, got.chunk_count, got.meta) == ("a.pdf", 2, 3, doc.meta)
    assert got.added_at
    assert store.page_text(doc.doc_id, 2) == "page two"
    assert store.page_text(doc.doc_id, 3) is None
    assert store.page_texts(doc.doc_id) == ["hello world", "page two"]
    rows = list(store.chunk_rows())
    assert [r[0] for r in rows] == ids
    assert rows[0][8] == "hello"
    assert np.allclose(np.frombuffer(rows[1][9], dtype=np.float32), _unit(3)[1])
    assert store.generation == 1


def test_failing_insert_leaves_no_partial_document(store: IndexStore) -> None:
    doc = _doc()
    # Three chunks but two token lists: the chunk insert fails after the document, its
    # pages and two chunks were written inside the transaction.
    with pytest.raises(ValueError):
        store.add_document(doc, ["p1", "p2"], _chunks(doc.doc_id, 3), [["a"], ["b"]], _unit(3))
    assert not store.has_document(doc.doc_id)
    assert store.documents() == []
    assert _count(store, "pages") == 0
    assert _count(store, "chunks") == 0
    assert store.generation == 0
    # The store is still usable afterwards.
    store.add_document(doc, ["p1"], _chunks(doc.doc_id, 1), [["a"]], _unit(1))
    assert store.has_document(doc.doc_id)


def test_duplicate_document_rejected_and_original_intact(store: IndexStore) -> None:
    doc = _doc()
    store.add_document(doc, ["p1"], _chunks(doc.doc_id, 2), [["a"], ["b"]], _unit(2))
    # the same file committed again (another process won the race): nothing written, None
    assert store.add_document(doc, ["other"], _chunks(doc.doc_id, 1), [["c"]], _unit(1)) is None
    assert store.page_texts(doc.doc_id) == ["p1"]
    assert _count(store, "chunks") == 2
    assert store.generation == 1


def test_remove_cascades_and_update_meta(store: IndexStore) -> None:
    a, b = _doc("a" * 64, "a.pdf"), _doc("b" * 64, "b.pdf")
    store.add_document(a, ["pa"], _chunks(a.doc_id, 2), [[], []], _unit(2))
    ids_b = store.add_document(b, ["pb"], _chunks(b.doc_id, 2), [[], []], _unit(2, seed=1))
    removed = store.remove_document(b.doc_id)
    assert sorted(removed) == sorted(ids_b)
    assert [d.doc_id for d in store.documents()] == [a.doc_id]
    assert store.page_texts(b.doc_id) == []
    assert all(r[1] == a.doc_id for r in store.chunk_rows())
    store.update_meta(a.doc_id, DocumentMeta(company="Renamed", fiscal_year=2020))
    [got] = store.documents()
    assert got.meta.company == "Renamed" and got.meta_edited
    assert store.generation == 4


def test_replace_chunks_is_atomic(store: IndexStore) -> None:
    doc = _doc()
    old = store.add_document(doc, ["p1"], _chunks(doc.doc_id, 2), [[], []], _unit(2))
    with pytest.raises(ValueError):
        store.replace_chunks(doc.doc_id, _chunks(doc.doc_id, 3), [[]], _unit(3))
    assert [r[0] for r in store.chunk_rows()] == old  # old chunks survive a failed re-index
    new = store.replace_chunks(doc.doc_id, _chunks(doc.doc_id, 1), [["x"]], _unit(1))
    assert [r[0] for r in store.chunk_rows()] == new and not set(new) & set(old)


def test_manifest_persists(tmp_path: Path) -> None:
    s = IndexStore(tmp_path / "index")
    with s.transaction() as db:
        s.set_manifest(db, embedder="m@8", chunking={"words_per_chunk": 180})
    s.close()
    s2 = IndexStore(tmp_path / "index")
    try:
        assert s2.manifest() == {"embedder": "m@8", "chunking": {"words_per_chunk": 180}}
    finally:
        s2.close()


# -- DenseIndex ---------------------------------------------------------------------------------
def test_dense_build_search_save_load(tmp_path: Path) -> None:
    vecs = _unit(50)
    ids = np.arange(100, 150)
    dense = DenseIndex(8, tmp_path / "dense.hnsw")
    dense.build(ids, vecs)
    top = dense.search(vecs[7], 3)
    assert top[0][0] == 107 and top[0][1] == pytest.approx(1.0, abs=1e-5)
    manifest = {"embedder": "m@8", "dim": 8, "generation": 3}
    dense.save(manifest)
    assert json.loads((tmp_path / "dense.json").read_text())["count"] == 50

    again = DenseIndex(8, tmp_path / "dense.hnsw")
    assert again.load(manifest)
    assert len(again) == 50
    assert again.search(vecs[7], 1)[0][0] == 107
    # A manifest that differs in any key -> not loaded (caller rebuilds).
    assert not DenseIndex(8, tmp_path / "dense.hnsw").load({**manifest, "generation": 4})
    assert not DenseIndex(8, tmp_path / "dense.hnsw").load({**manifest, "embedder": "other@8"})


def test_dense_load_rejects_missing_or_corrupt_files(tmp_path: Path) -> None:
    manifest = {"embedder": "m@8", "dim": 8, "generation": 1}
    assert not DenseIndex(8, tmp_path / "dense.hnsw").load(manifest)  # nothing saved
    dense = DenseIndex(8, tmp_path / "dense.hnsw")
    dense.build(np.arange(10), _unit(10))
    dense.save(manifest)
    (tmp_path / "dense.json").write_text("{not json")
    assert not DenseIndex(8, tmp_path / "dense.hnsw").load(manifest)
    dense.save(manifest)
    graph = DenseIndex(8, tmp_path / "dense.hnsw").graph_path
    assert graph is not None and graph.is_file()
    graph.write_bytes(b"garbage")
    assert not DenseIndex(8, tmp_path / "dense.hnsw").load(manifest)


def test_dense_manifest_always_names_a_whole_graph_of_its_own(tmp_path: Path) -> None:
    """Two writers saving one library's graph (two ingest processes): each manifest names its
    own graph file, so the last manifest never pairs with the other writer's graph."""
    manifest = {"embedder": "m@8", "dim": 8, "generation": 1}
    first, second = DenseIndex(8, tmp_path / "dense.hnsw"), DenseIndex(8, tmp_path / "dense.hnsw")
    first.build(np.arange(10), _unit(10))
    second.build(np.arange(20), _unit(20))
    first.save(manifest)
    first_graph = first.graph_path
    second.save({**manifest, "generation": 2})
    assert second.graph_path != first_graph
    assert first_graph is not None and first_graph.is_file()  # young: may still be in use elsewhere
    loaded = DenseIndex(8, tmp_path / "dense.hnsw")
    assert not loaded.load(manifest)  # generation 1's manifest was replaced
    assert loaded.load({**manifest, "generation": 2}) and len(loaded) == 20
    # Graphs nobody names are removed once old enough.
    os.utime(first_graph, (0, 0))
    second.save({**manifest, "generation": 2})
    assert not first_graph.exists()
    assert second.graph_path is not None and second.graph_path.is_file()


def test_dense_add_remove_and_filter(tmp_path: Path) -> None:
    dense = DenseIndex(8, tmp_path / "dense.hnsw")
    assert dense.search(_unit(1)[0], 5) == []
    vecs = _unit(1500)
    dense.add(list(range(1500)), vecs)  # beyond the initial capacity: resized
    assert len(dense) == 1500
    dense.remove([3, 3, 99999])  # repeated and unknown ids are ignored
    assert len(dense) == 1499
    assert 3 not in [cid for cid, _ in dense.search(vecs[3], 5)]
    only = dense.search(vecs[3], 5, allowed={10, 11})
    assert {cid for cid, _ in only} <= {10, 11} and only
    assert dense.search(vecs[3], 5, allowed=set()) == []


# -- the Library over the store ----------------------------------------------------------------
def _ingest(lib: Library, paths: list[Path]) -> IngestReport:
    report = IngestReport()
    for _ in lib.ingest(paths, report=report):
        pass
    return report


def test_library_chunks_are_page_slices_and_persist(build_library, tmp_path: Path) -> None:
    lib = build_library()
    assert len(lib.documents()) == 2
    for c in lib.chunks.values():
        assert c.text == lib.page_text(c.doc_id, c.page)[c.char_start:c.char_end]
        assert c.text
    data_dir = lib.store.dir.parent
    n = len(lib.chunks)
    lib.close()
    reopened = Library(data_dir, Settings(), FakeEmbedder())
    try:
        reopened.refresh()
        assert len(reopened.chunks) == n
        assert len(reopened.dense) == n
        assert reopened.mismatch() == []
    finally:
        reopened.close()


def test_dense_manifest_mismatch_rebuilds(build_library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = build_library()
    data_dir = lib.store.dir.parent
    gen = lib.store.generation
    lib.close()
    meta_path = data_dir / "index" / "dense.json"
    saved = json.loads(meta_path.read_text())
    assert saved["generation"] == gen
    meta_path.write_text(json.dumps({**saved, "generation": gen - 1}))  # stale cache

    loads: list[bool] = []
    builds: list[int] = []
    real_load, real_build = DenseIndex.load, DenseIndex.build
    monkeypatch.setattr(DenseIndex, "load", lambda self, m: loads.append(real_load(self, m)) or loads[-1])
    monkeypatch.setattr(DenseIndex, "build", lambda self, i, v: builds.append(len(i)) or real_build(self, i, v))
    lib2 = Library(data_dir, Settings(), FakeEmbedder())
    try:
        lib2.refresh()
        assert loads == [False]
        assert builds == [len(lib2.chunk_ids)]
        assert json.loads(meta_path.read_text())["generation"] == gen  # rewritten
        cid = int(lib2.chunk_ids[0])
        assert lib2.dense.search(lib2.vectors[0], 1)[0][0] == cid
    finally:
        lib2.close()
    # Next open: the cache is current and is loaded, not rebuilt.
    loads.clear()
    builds.clear()
    lib3 = Library(data_dir, Settings(), FakeEmbedder())
    try:
        lib3.refresh()
        assert loads == [True] and builds == []
    finally:
        lib3.close()


def test_missing_dense_file_is_rebuilt(build_library) -> None:
    lib = build_library()
    data_dir = lib.store.dir.parent
    lib.close()
    graph = DenseIndex(1, data_dir / "index" / "dense.hnsw").graph_path
    assert graph is not None
    graph.unlink()
    lib2 = Library(data_dir, Settings(), FakeEmbedder())
    try:
        lib2.refresh()
        assert len(lib2.dense) == len(lib2.chunk_ids) > 0
        rebuilt = DenseIndex(1, data_dir / "index" / "dense.hnsw").graph_path
        assert rebuilt is not None and rebuilt.is_file()
    finally:
        lib2.close()


def test_different_embedder_reports_mismatch(build_library, tmp_path: Path) -> None:
    lib = build_library()
    data_dir = lib.store.dir.parent
    lib.close()
    other = Library(data_dir, Settings(), FakeEmbedder(dim=256, name="another-model"))
    try:
        problems = other.mismatch()
        assert problems and any("embedder" in p for p in problems)
        pdf = write_pdf(tmp_path / "new" / "2023 Q2 AAPL.pdf", APPLE_PAGES[:2])
        with pytest.raises(RuntimeError, match="re-index"):
            _ingest(other, [pdf])
    finally:
        other.close()
    changed = Settings()
    changed.chunking.words_per_chunk = 90
    lib3 = Library(data_dir, changed, FakeEmbedder())
    try:
        assert any("chunking" in p for p in lib3.mismatch())
    finally:
        lib3.close()


def test_empty_library_has_no_mismatch(tmp_path: Path) -> None:
    lib = Library(tmp_path / "data", Settings(), FakeEmbedder(name="anything"))
    try:
        assert lib.mismatch() == []
        assert lib.documents() == []
    finally:
        lib.close()


def test_reingest_and_renamed_copy_are_skipped(build_library, tmp_path: Path) -> None:
    lib = build_library({"2023 Q3 AAPL.pdf": APPLE_PAGES})
    [doc] = lib.documents()
    src = Path(doc.path)
    copy = tmp_path / "copy" / "apple renamed.pdf"
    copy.parent.mkdir()
    shutil.copy(src, copy)
    gen = lib.store.generation
    report = _ingest(lib, [src, copy])
    assert report.added == [] and report.failed == []
    assert len(report.skipped) == 2
    assert all("2023 Q3 AAPL.pdf" in why for _, why in report.skipped)
    assert lib.store.generation == gen
    assert len(lib.documents()) == 1


def test_failed_file_does_not_stop_the_batch(build_library, tmp_path: Path) -> None:
    lib = build_library({"2023 Q3 AAPL.pdf": APPLE_PAGES})
    bad = tmp_path / "bad.pdf"
    bad.write_text("not a pdf")
    good = write_pdf(tmp_path / "more" / "2023 Q2 NVDA.pdf", ["NVIDIA revenue grew strongly this quarter."])
    report = _ingest(lib, [bad, good, tmp_path / "missing.pdf"])
    assert report.added == [str(good.resolve())]
    reasons = dict(report.failed)
    assert "not a PDF" in reasons[str(bad.resolve())]
    assert "cannot read" in reasons[str(tmp_path / "missing.pdf")]
    assert len(lib.documents()) == 2


def test_directory_named_like_a_pdf_is_reported(build_library, tmp_path: Path) -> None:
    # `ingest x.pdf` where x.pdf is a folder: the user meant a file; it must be reported as
    # unreadable, not silently walked (and found empty).
    lib = build_library({"2023 Q3 AAPL.pdf": APPLE_PAGES})
    folder = tmp_path / "x.pdf"
    folder.mkdir()
    report = _ingest(lib, [folder])
    assert len(report.failed) == 1, report
    path, why = report.failed[0]
    assert Path(path).name == "x.pdf"
    assert "cannot read" in why


def test_remove_document_from_library(build_library) -> None:
    lib = build_library()
    apple = next(d for d in lib.documents() if d.meta.ticker == "AAPL")
    n_apple = apple.chunk_count
    before = len(lib.dense)
    assert lib.remove(apple.doc_id)
    assert not lib.remove(apple.doc_id)
    assert all(c.doc_id != apple.doc_id for c in lib.chunks.values())
    assert len(lib.dense) == before - n_apple
    assert apple.doc_id not in lib.doc_chunks


def test_dense_graph_parameters_are_part_of_its_manifest(tmp_path: Path) -> None:
    import hnswlib

    manifest = {"embedder": "m@8", "dim": 8, "generation": 1}
    dense = DenseIndex(8, tmp_path / "dense.hnsw", ef_search=64, m=12, ef_construction=40)
    dense.build(np.arange(20), _unit(20))
    dense.save(manifest)
    assert json.loads((tmp_path / "dense.json").read_text())["hnsw"] == {"M": 12, "ef_construction": 40}
    graph = hnswlib.Index(space="ip", dim=8)
    graph.load_index(str(dense.graph_path))
    assert graph.M == 12 and graph.ef_construction == 40  # the settings reached hnswlib
    assert DenseIndex(8, tmp_path / "dense.hnsw", m=12, ef_construction=40).load(manifest)
    # ef_search is a query-time knob: any value loads the same graph.
    assert DenseIndex(8, tmp_path / "dense.hnsw", ef_search=500, m=12, ef_construction=40).load(manifest)
    # Other graph parameters -> not loaded (the caller rebuilds with the new ones).
    assert not DenseIndex(8, tmp_path / "dense.hnsw", m=16, ef_construction=40).load(manifest)
    assert not DenseIndex(8, tmp_path / "dense.hnsw", m=12, ef_construction=80).load(manifest)
