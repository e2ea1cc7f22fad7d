"""`main.py bench --library URL` on a real PostgreSQL: the synthetic corpus is written once
(and reused while its size and seed are unchanged), a real team library is never filled,
and the rows come out with sane values."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_rag.core.index.backends.postgres import PostgresStore
from desktop_rag.core.index.library import Library
from desktop_rag.evaluation.bench_team import EF_SWEEP, VECTORS, bench_team, render_team, replica_vectors
from desktop_rag.evaluation.synthetic import seed_from_library
from desktop_rag.settings import Settings
from tests.conftest import FakeEmbedder, init_team

QUESTIONS = ["total net sales", "data center revenue", "research and development expense"]


def test_team_bench_rows_and_cache(build_library, pg_database: str, fake_embedder: FakeEmbedder) -> None:
    seed_lib = build_library()
    seed = seed_from_library(seed_lib)
    first = bench_team(pg_database, seed_lib, seed, fake_embedder, Settings(), 40, QUESTIONS, lambda _m: None,
                       two_desktops=False)
    assert first["chunks"] == 40 and not first["cached"]
    assert 0.0 <= first["recall@10"] <= 1.0 and first["recall@10_filtered"] is not None
    for mode in ("dense", "bm25", "hybrid", "hybrid_filtered"):
        assert first[mode]["n"] == len(QUESTIONS) and first[mode]["p95"] >= first[mode]["p50"] > 0
    # the quick re-measure: no live updates, the recall sweep at the setting's ef_search and one other
    again = bench_team(pg_database, seed_lib, seed, fake_embedder, Settings(), 40, QUESTIONS, lambda _m: None,
                       two_desktops=False, live=False, ef_sweep=(40,))
    assert first["live"]["searchable_ms"]["missed"] == 0 and "two_desktops" not in first["live"]
    assert again["cached"] and again["chunks"] == 40 and "build" not in again  # corpus and index reused
    assert "live" not in again and again["recall@10"] == first["recall@10"]
    assert {row["ef_search"] for row in again["ef_sweep"]["rows"]} == {40, Settings().library.server_hnsw_ef_search}
    assert "recall@10 vs exact" in "\n".join(render_team(again))
    # the ef_search sweep: the settings' value among pgvector's default and the others, each
    # with its recall against exact search and the server's query time
    sweep = {row["ef_search"]: row for row in first["ef_sweep"]["rows"]}
    assert set(sweep) == set(EF_SWEEP) | {Settings().library.server_hnsw_ef_search}
    assert first["recall@10"] == sweep[Settings().library.server_hnsw_ef_search]["recall@10"]
    for row in sweep.values():
        assert 0.0 <= row["recall@10_min"] <= row["recall@10"] <= 1.0
        assert 0 < row["ms_k10"]["p50"] <= row["ms_k10"]["p95"]
    assert first["hnsw"]["built"]["m"] == Settings().library.server_hnsw_m


def test_team_bench_gives_an_older_corpus_new_vectors_and_rebuilds_the_index(
        build_library, pg_database: str, fake_embedder: FakeEmbedder) -> None:
    """A corpus cached by an earlier bench (noisy copies, no "vectors" in its key) gets
    this bench's mixed vectors in place; new server index settings rebuild only the index."""
    seed_lib = build_library()
    seed = seed_from_library(seed_lib)
    bench_team(pg_database, seed_lib, seed, fake_embedder, Settings(), 60, QUESTIONS, lambda _m: None,
               two_desktops=False)
    store = PostgresStore(pg_database, Settings())
    old_key = {k: v for k, v in store.manifest()["bench_corpus"].items() if k != "vectors"}
    with store._cursor(write=True) as cur:  # as an earlier bench left it: other vectors
        cur.execute("UPDATE chunks SET embedding = %b WHERE chunk_id = (SELECT min(chunk_id) FROM chunks"
                    " WHERE doc_id LIKE '%%~1')", (np.ones(fake_embedder.dim, dtype=np.float32) / 16,))
    store.set_manifest_values(bench_corpus=old_key)
    settings = Settings()
    settings.library.server_hnsw_m = 8
    again = bench_team(pg_database, seed_lib, seed, fake_embedder, settings, 60, QUESTIONS, lambda _m: None,
                       two_desktops=False)
    assert again["cached"] and again["build"]["revector_s"] >= 0 and again["build"]["hnsw_build_s"] >= 0
    assert store.manifest()["bench_corpus"]["vectors"] == VECTORS and again["hnsw"]["built"]["m"] == 8
    by_seed = {(ch.doc_id, ch.ordinal): j for j, ch in enumerate(seed.chunks)}
    for row in store.chunk_rows():  # every chunk carries its replica's vector of its seed chunk
        doc_id, ordinal, blob = row[1], row[2], row[9]
        base, _, r = doc_id.partition("~")
        want = replica_vectors(seed, int(r or 0), 0.015)[by_seed[(base, ordinal)]]
        np.testing.assert_allclose(np.frombuffer(blob, dtype=np.float32), want, rtol=1e-6)
    with store._cursor() as cur:
        ddl = cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'").fetchone()
    assert ddl and "m='8'" in ddl[0]
    store.close()


def test_team_bench_never_fills_a_real_library(build_library, pg_database: str, tmp_path,
                                               fake_embedder: FakeEmbedder) -> None:
    seed_lib = build_library()
    url = init_team(pg_database, fake_embedder)
    real = Library(tmp_path / "desk", Settings(), fake_embedder, location=url)
    from desktop_rag.core.index.backends.copy import copy_library

    copy_library(seed_lib.store, real.store)
    with pytest.raises(ValueError, match="holds a team library"):
        bench_team(url, seed_lib, seed_from_library(seed_lib), fake_embedder, Settings(), 40, QUESTIONS,
                   lambda _m: None)
    assert len(real.documents()) == 2
    real.close()


def test_bulk_written_corpus_equals_the_one_written_document_by_document(
        build_library, pg_server, pg_database: str, fake_embedder: FakeEmbedder) -> None:
    """Above ``bulk_above`` the corpus is written with COPY (no postings table): the same
    documents, pages, chunks, tokens, vectors and corpus statistics as ``add_document`` writes."""
    import psycopg

    seed_lib = build_library()
    seed = seed_from_library(seed_lib)
    other = pg_database.rsplit("/", 1)[0] + "/bulk" + pg_database.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {other.rsplit('/', 1)[1]}")
    other += "?sslmode=disable"
    per_doc = bench_team(pg_database, seed_lib, seed, fake_embedder, Settings(), 50, QUESTIONS[:1], lambda _m: None,
                         two_desktops=False)
    bulk = bench_team(other, seed_lib, seed, fake_embedder, Settings(), 50, QUESTIONS[:1], lambda _m: None,
                      two_desktops=False, bulk_above=0)
    assert per_doc["chunks"] == bulk["chunks"] == 50 and bulk["hybrid"]["n"] == 1
    a, b = PostgresStore(pg_database, Settings()), PostgresStore(other, Settings())
    assert b.manifest()["bench_corpus"]["postings"] is False and "postings" not in a.manifest()["bench_corpus"]
    assert sorted(d.doc_id for d in a.documents()) == sorted(d.doc_id for d in b.documents())
    assert [r[1:] for r in a.chunk_rows()] == [r[1:] for r in b.chunk_rows()]
    assert a.bm25_statistics()[:2] == b.bm25_statistics()[:2]
    for d in a.documents():
        assert a.page_texts(d.doc_id) == b.page_texts(d.doc_id) and a.load_statements(d.doc_id) == b.load_statements(
            d.doc_id)
    a.close()
    b.close()
