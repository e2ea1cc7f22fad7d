"""``main.py bench --library URL``: the team library's search on PostgreSQL + pgvector at a
synthetic size, beside the embedded figures of the same run.

The synthetic corpus is the embedded bench's (``SyntheticLibrary``): the real seed chunks,
then replicas with word variation and vectors that are normalised mixes of 2-3 real
embeddings plus noise (``mix_vectors``), as documents of the same company in earlier years.
It is written into the team library given by URL once (documents, pages, chunks with
vectors, postings; above ``BULK_ABOVE`` chunks with COPY and without postings) and cached
there: the manifest records what was built, and a later run with the same size and seed
reuses it (an earlier bench's corpus of noisy copies gets the mixed vectors in place); the
HNSW index is rebuilt when the settings' server index parameters change. The URL must point at an empty team
library (or one an earlier bench filled): the bench never writes into a real one.
Measured: the desktop's load of a team library (time; memory of its copy of the BM25
postings), hybrid / dense / BM25 latency through ``HybridRetriever`` on the team library
(p50/p95, query embedding included as in the embedded rows), pgvector's HNSW recall@10
against exact search over the same vectors, unfiltered and filtered, with the server's
query time, at the settings' ef_search and the others of ``EF_SWEEP``, and live updates:
the time until a filing committed by another desktop is searchable on this one (and gone
after its removal), and the ingest throughput of two desktops (``main.py ingest``
processes) adding real filings at once. The live-update documents are removed again, so
the cached corpus stays as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from desktop_rag.evaluation.synthetic import (
    CachedQueryEmbedder,
    Seed,
    mix_vectors,
    rss_mb,
    search_stats,
    size_label,
    time_searches,
    vary_tokens,
)

if TYPE_CHECKING:
    from desktop_rag.core.index.embedder import Embedder


# larger corpora are written with COPY, without the postings table (_bulk_write): 100k chunks
# written document by document (postings included, as ingest writes them) took 1,435 s, with
# COPY ~2 min; search reads no postings (each desktop scores BM25 from the chunks' tokens)
BULK_ABOVE = 50_000
EF_SWEEP = (40, 64, 100, 200, 400)  # the recall sweep's ef_search values (pgvector's default is 40)
VECTORS = "mix-2-3"  # the embedded bench's generator (mix_vectors); earlier team corpora had noisy copies


def _corpus_key(seed: Seed, size: int, sigma: float, bulk_above: int = BULK_ABOVE) -> dict[str, Any]:
    ids = hashlib.sha256("".join(sorted(seed.docs)).encode()).hexdigest()[:16]
    key = {"size": size, "seed_chunks": len(seed.chunks), "seed_docs": ids, "sigma": sigma, "vectors": VECTORS}
    return key | ({"postings": False} if size > bulk_above else {})


def replica_vectors(seed: Seed, replica: int, sigma: float) -> np.ndarray:
    """The synthetic vectors of replica ``replica`` of every seed chunk (replica 0: the real
    ones): the embedded bench's ``mix_vectors`` from a generator of the replica's own, so
    they do not depend on the corpus size or on the token variation drawn beside them."""
    if replica == 0:
        return seed.vectors
    rng = np.random.default_rng([1, replica])
    return mix_vectors(seed.vectors, np.arange(len(seed.vectors)), rng, sigma)


def _seed_rows(seed: Seed) -> dict[tuple[str, int], int]:
    return {(ch.doc_id, ch.ordinal): j for j, ch in enumerate(seed.chunks)}


def build_server_index(store: Any, log: Callable[[str], None]) -> dict[str, Any]:
    """(Re)build the chunks' HNSW index with the settings' server parameters: memory for
    the graph (pgvector builds much faster while the graph fits ``maintenance_work_mem``)
    and one parallel worker beside the leader (this machine's two cores)."""
    from desktop_rag.core.index.backends.postgres import hnsw_index_sql, server_index_params

    m, efc = server_index_params(store.settings)
    halfvec = store.settings.library.server_hnsw_halfvec
    with store._cursor() as cur:
        n = int(cur.execute("SELECT count(*) FROM chunks").fetchone()[0])
        dim = int(cur.execute("SELECT value FROM manifest WHERE key = 'dim'").fetchone()[0])
    index_sql = hnsw_index_sql(dim, m, efc, halfvec)
    # the graph: the vectors (4 bytes a dim, 2 as halfvec) and 2m neighbours at layer 0 (~10
    # bytes each), x 1.5 slack
    mem_mb = max(64, min(4096, int(n * ((2 if halfvec else 4) * dim + 20 * m) * 1.5 / 2**20)))
    log(f"  team: building the {'halfvec ' if halfvec else ''}HNSW index (m={m}, ef_construction={efc}) over {n} "
        f"vectors, maintenance_work_mem {mem_mb} MB")
    t0 = time.perf_counter()
    with store._cursor(write=True) as cur:
        cur.execute("DROP INDEX IF EXISTS chunks_embedding")
        cur.execute(f"SET LOCAL maintenance_work_mem = '{mem_mb}MB'")
        cur.execute("SET LOCAL max_parallel_maintenance_workers = 1")
        cur.execute("SET LOCAL statement_timeout = 0")  # the build takes as long as it takes
        cur.execute(index_sql)
    build_s = round(time.perf_counter() - t0, 1)
    key = {"m": m, "ef_construction": efc, "halfvec": halfvec, "chunks": n, "build_s": build_s,
           "maintenance_work_mem_mb": mem_mb, "load": [round(x, 2) for x in os.getloadavg()]}
    store.set_manifest_values(bench_index=key)
    log(f"  team: HNSW index built in {build_s} s")
    return key


def _vacuum(store: Any) -> None:
    with store._lock:
        conn = store._connection()
        conn.execute("SET statement_timeout = 0")
        conn.execute("VACUUM ANALYZE")  # the visibility map lets BM25 read postings index-only
        conn.execute(f"SET statement_timeout = {store.settings.library.statement_timeout_s * 1000}")


def revector_team_library(store: Any, seed: Seed, sigma: float, log: Callable[[str], None]) -> float:
    """Give a corpus cached by an earlier bench (same documents and tokens) this bench's
    synthetic vectors in place, without writing it again (1,435 s at 100k): replica r of
    seed chunk j gets ``replica_vectors(seed, r, sigma)[j]``. The index is dropped first
    (rebuilt after)."""
    rows = _seed_rows(seed)
    t0 = time.perf_counter()
    with store._cursor(write=True) as cur:
        cur.execute("DROP INDEX IF EXISTS chunks_embedding")
        chunks = cur.execute("SELECT chunk_id, doc_id, ordinal FROM chunks").fetchall()
        by_replica: dict[int, list[tuple[int, int]]] = {}
        for cid, doc_id, ordinal in chunks:
            base, _, r = doc_id.partition("~")
            by_replica.setdefault(int(r) if r else 0, []).append((int(cid), rows[(base, int(ordinal))]))
        cur.execute("CREATE TEMP TABLE new_vectors (chunk_id bigint, embedding public.vector) ON COMMIT DROP")
        vector_oid = int(cur.execute("SELECT 'public.vector'::regtype::oid").fetchone()[0])
        with cur.copy("COPY new_vectors (chunk_id, embedding) FROM STDIN (FORMAT BINARY)") as cp:
            cp.set_types(["int8", vector_oid])
            for r, pairs in sorted(by_replica.items()):
                vecs = replica_vectors(seed, r, sigma)
                for cid, j in pairs:
                    cp.write_row((cid, vecs[j]))
        cur.execute("UPDATE chunks c SET embedding = n.embedding FROM new_vectors n WHERE c.chunk_id = n.chunk_id")
        store._bump_generation(cur, None)
    took = round(time.perf_counter() - t0, 1)
    log(f"  team: vectors of {len(chunks)} cached chunks replaced by the {VECTORS} generator in {took} s")
    return took


def _bulk_write(store: Any, docs: list[tuple[Any, list[str], list[Any], list[list[str]], np.ndarray, Any]]) -> None:
    """Write synthetic documents with COPY in one transaction: documents, pages, chunks with
    their vectors and tokens, statements, and the corpus statistics; not the postings table
    (search never reads it: every desktop scores BM25 from its copy, loaded from the chunks'
    tokens). Writing 100k chunks document by document (postings included) took 1,435 s."""
    from desktop_rag.core.domain.page_types import PAGE_TYPES_VERSION, page_type
    from desktop_rag.core.index.backends.postgres import _page_map

    with store._cursor(write=True) as cur:
        vector_oid = int(cur.execute("SELECT 'public.vector'::regtype::oid").fetchone()[0])
        with cur.copy("COPY documents (doc_id, file_name, path, pages, meta, meta_edited, added_at) FROM STDIN") as cp:
            for doc, *_rest in docs:
                cp.write_row((doc.doc_id, doc.file_name, doc.path, doc.pages, json.dumps(dataclasses.asdict(doc.meta)),
                              False, "2026-01-01T00:00:00+00:00"))
        with cur.copy("COPY pages (doc_id, page, text, page_type, page_type_version) FROM STDIN") as cp:
            for doc, pages, *_rest in docs:
                types = [page_type(text) for text in pages]  # a replica's pages are the seed's
                for i, text in enumerate(pages):
                    cp.write_row((doc.doc_id, i + 1, text, types[i], PAGE_TYPES_VERSION))
        total = n = 0
        with cur.copy("COPY chunks (doc_id, ordinal, page, char_start, char_end, kind, section, embedding)"
                      " FROM STDIN (FORMAT BINARY)") as cp:
            cp.set_types(["text", "int4", "int4", "int4", "int4", "text", "text", vector_oid])
            for doc, _pages, chunks, _tokens, vecs, _st in docs:
                for c, v in zip(chunks, vecs, strict=True):
                    cp.write_row((doc.doc_id, c.ordinal, c.page, c.char_start, c.char_end, c.kind, c.section, v))
        # the tokens by (document, ordinal), joined to the chunk ids COPY assigned
        cur.execute("CREATE TEMP TABLE new_tokens (doc_id text, ordinal int, tokens text, length int) ON COMMIT DROP")
        with cur.copy("COPY new_tokens (doc_id, ordinal, tokens, length) FROM STDIN") as cp:
            for doc, _pages, chunks, tokens, _vecs, _st in docs:
                for c, toks in zip(chunks, tokens, strict=True):
                    length = len(toks) or 1
                    cp.write_row((doc.doc_id, c.ordinal, " ".join(toks), length))
                    total, n = total + length, n + 1
        cur.execute("INSERT INTO chunk_tokens (chunk_id, tokens, length) SELECT c.chunk_id, t.tokens, t.length"
                    " FROM new_tokens t JOIN chunks c ON c.doc_id = t.doc_id AND c.ordinal = t.ordinal")
        for doc, *_rest, statements in docs:
            if statements is not None:
                cur.execute("INSERT INTO statements (doc_id, extractor, data, page_map) VALUES (%s, %s, %s, %s)",
                            (doc.doc_id, statements[0], json.dumps(statements[1]), _page_map(statements[1])))
        cur.execute("UPDATE bm25_stats SET n = n + %s, total_len = total_len + %s WHERE id = 1", (n, total))
        store._bump_generation(cur, None)


def synthetic_documents(seed: Any, size: int, sigma: float) -> Iterator[tuple[int, Any, str, list[Any], list[list[str]], Any]]:
    """(replica, document, its seed document's id, chunks, BM25 tokens, vectors) of the
    synthetic corpus in write order, ``size`` chunks in all: replica 0 is the seed; replica r of
    a seed document is the same company r years earlier (so metadata filters narrow a question
    to one filing as in a real library), its tokens varied and its vectors mixed. The team
    library and the memory bench's local library are written from this one sequence."""
    from desktop_rag.core.domain.types import Document

    rng = np.random.default_rng(0)
    by_doc: dict[str, list[int]] = {}
    for j, ch in enumerate(seed.chunks):
        by_doc.setdefault(ch.doc_id, []).append(j)
    written = 0
    for r in range(math.ceil(size / max(1, len(seed.chunks)))):
        vecs = replica_vectors(seed, r, sigma)
        for doc_id, rows in by_doc.items():
            rows = rows[: max(0, size - written)]
            if not rows:
                return
            d = seed.docs[doc_id]
            meta = d.meta if r == 0 else dataclasses.replace(
                d.meta, fiscal_year=(d.meta.fiscal_year - r) if d.meta.fiscal_year else None, period_end="")
            new_id = doc_id if r == 0 else f"{doc_id}~{r}"
            doc = Document(new_id, d.file_name if r == 0 else f"{d.file_name}~{r}", d.path, d.pages, meta)
            chunks = [dataclasses.replace(seed.chunks[j], chunk_id=-1, doc_id=new_id) for j in rows]
            tokens = [seed.tokens[j] if r == 0 else vary_tokens(seed.tokens[j], rng) for j in rows]
            written += len(rows)
            yield r, doc, doc_id, chunks, tokens, vecs[rows]


def fill_team_library(store: Any, seed: Seed, seed_pages: dict[str, list[str]], size: int, sigma: float,
                      log: Callable[[str], None], seed_statements: dict[str, Any] | None = None,
                      bulk_above: int = BULK_ABOVE) -> dict[str, float]:
    """Write the synthetic corpus (as ``SyntheticLibrary`` builds it) into an empty team
    library: the HNSW index is dropped during the load and built once after it. Up to
    ``bulk_above`` chunks document by document as ``ingest`` writes them (postings and
    term statistics included); above it with COPY, one replica of the seed per transaction
    (``_bulk_write``: no postings table)."""
    from desktop_rag.core.domain.types import Chunk

    with store._cursor(write=True) as cur:
        cur.execute("TRUNCATE documents, pages, chunks, chunk_tokens, postings, terms, statements")
        cur.execute("UPDATE bm25_stats SET n = 0, total_len = 0, idf_sum = 0, vocab = 0")
        cur.execute("DROP INDEX IF EXISTS chunks_embedding")
    t0 = time.perf_counter()
    written = 0
    bulk = size > bulk_above
    replica: list[tuple[Any, list[str], list[Any], list[list[str]], np.ndarray, Any]] = []
    current = 0

    def flush() -> None:
        if replica:
            _bulk_write(store, replica)
            replica.clear()
        log(f"  team: {written} / {size} chunks written ({time.perf_counter() - t0:.0f} s)")

    for r, doc, doc_id, chunks, tokens, vectors in synthetic_documents(seed, size, sigma):
        if r != current:  # one replica of the seed per transaction
            flush()
            current = r
        assert all(isinstance(c, Chunk) for c in chunks)
        statements = (seed_statements or {}).get(doc_id)
        if bulk:
            replica.append((doc, seed_pages[doc_id], chunks, tokens, vectors, statements))
        else:
            store.add_document(doc, seed_pages[doc_id], chunks, tokens, vectors, statements)
        written += len(chunks)
    flush()
    t1 = time.perf_counter()
    index = build_server_index(store, log)
    t2 = time.perf_counter()
    _vacuum(store)
    return {"load_s": round(t1 - t0, 1), "hnsw_build_s": index["build_s"], "vacuum_s": round(time.perf_counter() - t2, 1)}


def bench_team(url: str, seed_lib: Any, seed: Seed, embedder: Any, settings: Any, size: int,
               questions: list[str], log: Callable[[str], None], sigma: float = 0.015,
               two_desktops: bool = True, bulk_above: int = BULK_ABOVE, live: bool = True,
               ef_sweep: Sequence[int] = EF_SWEEP) -> dict[str, Any]:
    """The team library's rows at ``size`` chunks. ``two_desktops=False`` leaves out the two
    ``main.py ingest`` processes (real models, minutes): the unit test's fake embedder cannot
    run them, and their correctness is an e2e test's. ``live=False`` leaves out the live
    updates altogether, and ``ef_sweep`` names the ef_search values of the recall sweep (the
    settings' is always measured): at 1M chunks the live updates and the full sweep take ~10
    minutes beside the latency rows' one."""
    from desktop_rag.core.domain.terms import expand_shorthand
    from desktop_rag.core.index.backends.postgres import PostgresStore, init_team_library, server_index_params
    from desktop_rag.core.index.library import Library
    from desktop_rag.core.retrieve.hybrid import HybridRetriever

    manifest = seed_lib.expected_manifest()
    init_team_library(url, settings, manifest)  # idempotent; refuses another embedder's library
    store = PostgresStore(url, settings)
    key = _corpus_key(seed, size, sigma, bulk_above)
    out: dict[str, Any] = {"size": size, "location": store.location, "cached": False}
    try:
        manifest_now = store.manifest()
        have = manifest_now.get("bench_corpus")
        older = {**have, "vectors": VECTORS} if isinstance(have, dict) and "vectors" not in have else None
        if have == key or older == key:
            out["cached"] = True
            log(f"  team: the synthetic {size_label(size)} corpus is already in {store.location}")
            revectored = older == key
            if revectored:  # an earlier bench's corpus: new vectors in place, same documents and tokens
                out["build"] = {"revector_s": revector_team_library(store, seed, sigma, log)}
                store.set_manifest_values(bench_corpus=key)
            m, efc = server_index_params(settings)
            index = manifest_now.get("bench_index")
            halfvec = settings.library.server_hnsw_halfvec
            if revectored or not (isinstance(index, dict) and (
                    index.get("m"), index.get("ef_construction"), bool(index.get("halfvec")), index.get("chunks"))
                    == (m, efc, halfvec, size)):
                out.setdefault("build", {})["hnsw_build_s"] = build_server_index(store, log)["build_s"]
                _vacuum(store)
        else:
            if store.documents() and not have:
                raise ValueError(f"{store.location} holds a team library: give bench an empty one (it fills it with "
                                 f"{size} synthetic chunks)")
            log(f"  team: writing the synthetic {size_label(size)} corpus into {store.location} (once; cached)")
            pages = {d: seed_lib.store.page_texts(d) for d in seed.docs}
            statements = {d: seed_lib.store.load_statements(d) for d in seed.docs}  # as the embedded bench: no
            out["build"] = fill_team_library(store, seed, pages, size, sigma, log, statements,  # re-extraction
                                             bulk_above)
            store.set_manifest_values(bench_corpus=key)
    finally:
        store.close()

    out["server"] = server_settings(url, settings)
    cached = embedder if isinstance(embedder, CachedQueryEmbedder) else CachedQueryEmbedder(embedder)
    cached.warm([expand_shorthand(q.strip()) for q in questions])
    # CachedQueryEmbedder is duck-typed: it delegates everything but query embedding to the embedder
    lib = Library(Path(tempfile.mkdtemp(prefix="desktop_rag_bench_team_")), settings, cast("Embedder", cached),
                  location=url)
    rss0 = rss_mb()
    t0 = time.perf_counter()
    lib.refresh()
    out["load_views_s"] = round(time.perf_counter() - t0, 1)
    out["load_rss_mb"] = round(rss_mb() - rss0, 1)
    out["bm25_copy_mb"] = round(lib.lexical.memory_bytes / 2**20, 1)
    out["load_parts_s"] = {k: round(v, 1) for k, v in lib.load_seconds.items()}
    out["chunks"] = len(lib.chunk_ids)
    unfiltered = HybridRetriever(lib, dataclasses.replace(settings.retrieval, use_filters=False))
    filtered = HybridRetriever(lib, settings.retrieval)
    for mode in ("dense", "bm25", "hybrid"):
        out[mode] = search_stats(time_searches(unfiltered, questions, mode))
    out["hybrid_filtered"] = search_stats(time_searches(filtered, questions, "hybrid"))
    out["search_rss_mb"] = round(rss_mb() - rss0, 1)  # the views and the chunk cache after the searches

    # pgvector's HNSW recall@10 against exact search over the same vectors, and the server's
    # query time, at the settings' ef_search and the others of EF_SWEEP
    qvecs = [cached.encode_query(expand_shorthand(q.strip())) for q in questions]
    ef_now = settings.library.server_hnsw_ef_search
    out["ef_sweep"] = sweep_ef_search(url, settings, lib, qvecs, sorted({*ef_sweep, ef_now}),
                                      max(settings.retrieval.candidates, 10))
    now = next(row for row in out["ef_sweep"]["rows"] if row["ef_search"] == ef_now)
    out["recall@10"], out["recall@10_filtered"] = now["recall@10"], now["recall@10_filtered"]
    out["filtered_rows"] = out["ef_sweep"]["filtered_rows"]
    m, efc = server_index_params(settings)
    out["hnsw"] = {"m": m, "ef_construction": efc, "ef_search": ef_now, "index_mb": out["ef_sweep"]["index_mb"],
                   "built": lib.store.manifest().get("bench_index")}
    try:
        if live:
            out["live"] = bench_live_updates(url, settings, lib, seed, seed_lib, log, two_desktops=two_desktops)
    finally:
        lib.close()
    log(f"  team {size_label(size)}: p95 dense {out['dense']['p95']:.1f} / bm25 {out['bm25']['p95']:.1f} / "
        f"hybrid {out['hybrid']['p95']:.1f} ms; pgvector recall@10 {out['recall@10']}")
    return out


# what the figures assume of the server (a team's DBA sets these; the README says which)
SERVER_SETTINGS = ("shared_buffers", "effective_cache_size", "work_mem", "jit", "max_parallel_workers_per_gather",
                   "random_page_cost")


def server_settings(url: str, settings: Any) -> dict[str, Any]:
    """The server's settings the latencies depend on, its version and pgvector's, the HNSW
    index's definition and size, and the filter size up to which search scans exactly."""
    from desktop_rag.core.index.backends.postgres import PostgresStore

    store = PostgresStore(url, settings)
    try:
        with store._cursor() as cur:
            def one(sql: str) -> Any:
                row = cur.execute(sql).fetchone()
                return row[0] if row else None

            out: dict[str, Any] = {name: one(f"SHOW {name}") for name in SERVER_SETTINGS}
            out["server_version"] = one("SHOW server_version")
            out["pgvector"] = one("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cur.execute("SELECT indexdef, pg_relation_size('chunks_embedding') FROM pg_indexes"
                              " WHERE indexname = 'chunks_embedding'").fetchone()
            out["index"] = {"def": row[0], "mb": round(int(row[1]) / 2**20, 1)} if row else None
        out["exact_scan_rows"] = store.exact_scan_rows
    finally:
        store.close()
    return out




def sweep_ef_search(url: str, settings: Any, lib: Any, qvecs: list[np.ndarray], ef_values: list[int],
                    k_candidates: int) -> dict[str, Any]:
    """At each ef_search: pgvector's recall@10 against exact search over the same vectors
    (the desktop's copy), unfiltered and filtered to a third of the documents (an iterative
    scan in the index), and the server query's time (p50/p95 ms, one round trip, for the 10
    results of recall and for the ``k_candidates`` a hybrid search asks for)."""
    from desktop_rag.core.index.backends.postgres import PostgresStore

    docs = sorted(lib.doc_chunks)
    allowed = docs[::3]
    ids, vectors = lib.all_vectors()  # read from the server for this baseline (the desktop keeps none)
    wanted = {c for d in allowed for c in lib.doc_chunks[d]}
    rows = np.flatnonzero(np.fromiter((int(c) in wanted for c in ids), dtype=bool, count=len(ids)))
    exact, exact_f = [], []
    for qv in qvecs:
        sims = vectors @ qv
        exact.append(set(ids[np.argsort(-sims)[:10]].tolist()))
        exact_f.append(set(ids[rows[np.argsort(-sims[rows])[:10]]].tolist()))
    del vectors
    out: dict[str, Any] = {"queries": len(qvecs), "filtered_rows": len(rows), "rows": []}
    for ef in ef_values:
        s_ef = dataclasses.replace(settings, library=dataclasses.replace(settings.library, server_hnsw_ef_search=ef))
        store = PostgresStore(url, s_ef)
        try:
            # warm: prepared statements, and the index pages these queries visit in the server's
            # cache (every query once before the first row: at 300k the first row measured cold)
            for qv in (qvecs if ef == ef_values[0] else qvecs[:3]):
                store.dense_search(qv, k_candidates, None)
                store.dense_search(qv, 10, allowed)
            rec, rec_f, t10, tk, tf = [], [], [], [], []
            for qv, ex, ex_f in zip(qvecs, exact, exact_f, strict=True):
                t0 = time.perf_counter()
                got = {c for c, _ in store.dense_search(qv, 10, None)}
                t1 = time.perf_counter()
                store.dense_search(qv, k_candidates, None)
                t2 = time.perf_counter()
                got_f = {c for c, _ in store.dense_search(qv, 10, allowed)}
                t3 = time.perf_counter()
                rec.append(len(got & ex) / 10)
                rec_f.append(len(got_f & ex_f) / 10)
                t10.append((t1 - t0) * 1000)
                tk.append((t2 - t1) * 1000)
                tf.append((t3 - t2) * 1000)
            if "index_mb" not in out:
                with store._cursor() as cur:
                    size = cur.execute("SELECT pg_relation_size('chunks_embedding')").fetchone()
                out["index_mb"] = round(int(size[0]) / 2**20, 1) if size else None
        finally:
            store.close()
        out["rows"].append({
            "ef_search": ef, "recall@10": round(float(np.mean(rec)), 3), "recall@10_min": round(min(rec), 2),
            "recall@10_filtered": round(float(np.mean(rec_f)), 3),
            "ms_k10": _p50_p95(t10), f"ms_k{k_candidates}": _p50_p95(tk), "ms_k10_filtered": _p50_p95(tf),
            "load": round(os.getloadavg()[0], 2)})
    out["k_candidates"] = k_candidates
    return out


def _p50_p95(ms: list[float]) -> dict[str, float]:
    return {"p50": round(float(np.percentile(ms, 50)), 2), "p95": round(float(np.percentile(ms, 95)), 2)}


class _Watch:
    """This desktop (the loaded library) following the others: when each change was applied."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.cond = threading.Condition()
        lib.follow_changes(self._changed)

    def _changed(self) -> None:
        with self.cond:
            self.cond.notify_all()

    def until(self, test: Callable[[], bool], timeout: float = 60.0) -> float | None:
        """perf_counter() when ``test`` first held after a change was applied (None: timeout)."""
        end = time.perf_counter() + timeout
        with self.cond:
            while True:
                with self.lib.views_lock:
                    if test():
                        return time.perf_counter()
                left = end - time.perf_counter()
                if left <= 0 or not self.cond.wait(left):
                    with self.lib.views_lock:
                        return time.perf_counter() if test() else None


def bench_live_updates(url: str, settings: Any, lib: Any, seed: Seed, seed_lib: Any, log: Callable[[str], None],
                       filings: int = 5, pages: int = 10, two_desktops: bool = True) -> dict[str, Any]:
    """Another desktop's changes on this one (``lib``, loaded, following the notifications):
    (1) a second desktop in this process commits ``filings`` real filings (a seed filing's
    chunks, tokens and vectors under a new id, as ``ingest`` writes them) and removes them:
    ms from its commit until the filing is searchable here (BM25 finds its chunks) and
    until it is gone; (2) two ``main.py ingest`` processes each add a real filing (the
    first ``pages`` pages of a seed PDF, so new content) at once: pages/s of the two
    together, and when each became searchable here. Everything added is removed again."""
    import statistics

    from desktop_rag.core.domain.types import Document
    from desktop_rag.core.index.backends.postgres import PostgresStore

    watch = _Watch(lib)
    other = PostgresStore(url, settings)
    out: dict[str, Any] = {}
    try:
        by_doc: dict[str, list[int]] = {}
        for j, ch in enumerate(seed.chunks):
            by_doc.setdefault(ch.doc_id, []).append(j)
        seed_pages = {d: seed_lib.store.page_texts(d) for d in list(by_doc)[:filings]}
        added, removed, writes = [], [], []
        for i, (doc_id, rows) in enumerate(list(by_doc.items())[:filings]):
            d = seed.docs[doc_id]
            new_id = f"{doc_id}~live{i}"
            if other.has_document(new_id):  # left by an interrupted run
                other.remove_document(new_id)
            doc = Document(new_id, f"{d.file_name}~live{i}", d.path, d.pages, d.meta)
            chunks = [dataclasses.replace(seed.chunks[j], chunk_id=-1, doc_id=new_id) for j in rows]
            probe = seed.tokens[rows[len(rows) // 2]]
            t0 = time.perf_counter()
            other.add_document(doc, seed_pages[doc_id], chunks, [seed.tokens[j] for j in rows], seed.vectors[rows])
            t1 = time.perf_counter()
            seen = watch.until(functools.partial(_found_by_bm25, lib, new_id, probe))
            writes.append((t1 - t0) * 1000)
            added.append(None if seen is None else (seen - t1) * 1000)
            t0 = time.perf_counter()
            other.remove_document(new_id)
            t1 = time.perf_counter()
            gone = watch.until(functools.partial(_gone, lib, new_id))
            removed.append(None if gone is None else (gone - t1) * 1000)
        ok = [a for a in added if a is not None]
        out["searchable_ms"] = {"median": round(statistics.median(ok), 1) if ok else None,
                                "max": round(max(ok), 1) if ok else None, "n": len(added),
                                "missed": len(added) - len(ok),
                                "chunks": [len(r) for r in list(by_doc.values())[:filings]]}
        gone_ok = [g for g in removed if g is not None]
        out["removed_ms"] = {"median": round(statistics.median(gone_ok), 1) if gone_ok else None,
                             "max": round(max(gone_ok), 1) if gone_ok else None}
        out["commit_ms"] = {"median": round(statistics.median(writes), 1), "max": round(max(writes), 1)}
        log(f"  team live: searchable on another desktop {out['searchable_ms']['median']} ms after the commit "
            f"(median of {len(added)}; commit {out['commit_ms']['median']} ms)")
        if two_desktops:
            out["two_desktops"] = _two_desktop_ingest(url, lib, seed, other, watch, pages, log)
    finally:
        other.close()
    return out


def _two_desktop_ingest(url: str, lib: Any, seed: Seed, store: Any, watch: _Watch, pages: int,
                        log: Callable[[str], None]) -> dict[str, Any]:
    import os
    import subprocess
    import sys

    import pymupdf

    from desktop_rag.core.ingest.pdf import file_sha256

    sources = [Path(d.path) for d in seed.docs.values() if Path(d.path).is_file()][:2]
    if len(sources) < 2:
        return {"error": "the seed library's PDFs are not where they were ingested from"}
    folder = Path(tempfile.mkdtemp(prefix="desktop_rag_bench_two_"))
    cuts = []
    for n, src in enumerate(sources):
        pdf = pymupdf.open(src)
        pdf.select(list(range(min(pages, pdf.page_count))))
        cut = folder / f"live {n} {src.name}"
        pdf.save(cut)
        pdf.close()
        cuts.append(cut)
    ids = [file_sha256(c) for c in cuts]
    for doc_id in ids:
        if store.has_document(doc_id):
            store.remove_document(doc_id)
    repo = Path(__file__).resolve().parents[2]
    procs = []
    t0 = time.perf_counter()
    for n, cut in enumerate(cuts):
        data = folder / f"desk{n}"
        procs.append(subprocess.Popen(
            [sys.executable, str(repo / "main.py"), "--data-dir", str(data), "--library", url, "ingest", str(cut)],
            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ}))
    seen = [watch.until(functools.partial(_listed, lib, doc_id), timeout=900) for doc_id in ids]
    outputs = [p.communicate(timeout=900) for p in procs]
    wall = time.perf_counter() - t0
    rates = []
    for p, (_, err) in zip(procs, outputs, strict=True):
        if p.returncode != 0:
            return {"error": f"main.py ingest exited {p.returncode}: {err.strip()[-500:]}"}
        rates.append(next((line.rsplit("(", 1)[-1].split()[0] for line in err.splitlines()
                           if "pages/s" in line), "?"))
    total_pages = sum(lib.docs[d].pages for d in ids if d in lib.docs)
    last_seen = max((t for t in seen if t is not None), default=None)
    out = {"pages": total_pages, "wall_s": round(wall, 1),
           "pages_per_s": round(total_pages / (last_seen - t0), 2) if last_seen else None,
           "per_desktop_pages_per_s": rates,
           "searchable_after_s": [None if t is None else round(t - t0, 1) for t in seen]}
    for doc_id in ids:
        if store.has_document(doc_id):
            store.remove_document(doc_id)
    log(f"  team live: two desktops ingesting at once: {total_pages} pages searchable here after "
        f"{out['searchable_after_s']} s (process start included), {out['per_desktop_pages_per_s']} pages/s each")
    return out


def render_team(t: dict[str, Any]) -> list[str]:
    from desktop_rag.evaluation.report import table

    if "error" in t:
        return ["", f"Team library: {t['error']}"]
    rows = [[f"{size_label(t['size'])} {mode}", t[mode]["p50"], t[mode]["p95"], t[mode].get("index_p50"),
             t[mode].get("index_p95")] for mode in ("dense", "bm25", "hybrid", "hybrid_filtered")]
    build = t.get("build") or {}
    made = ("corpus cached from an earlier run" if t["cached"] else
            f"corpus written in {build.get('load_s')} s, HNSW index built in {build.get('hnsw_build_s')} s")
    parts = t.get("load_parts_s") or {}
    lines = ["", f"Team library (PostgreSQL + pgvector at {t['location']}), search latency ms, {t['chunks']} chunks"
                 f" ({made}; views loaded in {t['load_views_s']} s: rows read {parts.get('read')} s, BM25 postings"
                 f" indexed {parts.get('bm25_index')} s; +{t.get('load_rss_mb')} MB resident, of which the BM25"
                 f" postings copy {t.get('bm25_copy_mb')} MB)",
             table(["size / mode", "p50", "p95", "index p50", "index p95"], rows, floatfmt="{:.1f}"),
             f"  pgvector HNSW (m={t['hnsw']['m']}, ef_construction={t['hnsw']['ef_construction']}, "
             f"ef_search={t['hnsw']['ef_search']}; index {t['hnsw'].get('index_mb')} MB) recall@10 vs exact: "
             f"{t['recall@10']} unfiltered, {t['recall@10_filtered']} filtered to a third of the documents "
             f"({t['filtered_rows']} rows)"]
    server = t.get("server") or {}
    if server:
        lines.append("  server: PostgreSQL {} with pgvector {}; {}; filters of at most {} chunks searched exactly".format(
            server.get("server_version"), server.get("pgvector"),
            ", ".join(f"{k}={server.get(k)}" for k in SERVER_SETTINGS), server.get("exact_scan_rows")))
    built = t["hnsw"].get("built") or {}
    if built:
        lines.append(f"  index built in {built.get('build_s')} s over {built.get('chunks')} vectors "
                     f"(maintenance_work_mem {built.get('maintenance_work_mem_mb')} MB, 1 parallel worker, "
                     f"load {built.get('load')})")
    sweep = t.get("ef_sweep") or {}
    if sweep.get("rows"):
        k = sweep["k_candidates"]
        lines.append(f"  ef_search sweep ({sweep['queries']} queries; server query ms, one round trip, p50/p95):")
        lines.append(table(
            ["ef_search", "recall@10", "min", "filtered", "k=10 ms", f"k={k} ms", "filtered k=10 ms", "load"],
            [[r["ef_search"], r["recall@10"], r["recall@10_min"], r["recall@10_filtered"],
              f"{r['ms_k10']['p50']:.1f} / {r['ms_k10']['p95']:.1f}",
              f"{r[f'ms_k{k}']['p50']:.1f} / {r[f'ms_k{k}']['p95']:.1f}",
              f"{r['ms_k10_filtered']['p50']:.1f} / {r['ms_k10_filtered']['p95']:.1f}", r["load"]]
             for r in sweep["rows"]], floatfmt="{:.3f}"))
    live = t.get("live") or {}
    if live.get("searchable_ms"):
        a, r, c = live["searchable_ms"], live["removed_ms"], live["commit_ms"]
        lines.append(f"  live updates (LISTEN/NOTIFY): a filing committed by another desktop searchable here after "
                     f"{a['median']} ms median, {a['max']} ms max ({a['n']} filings of {a['chunks']} chunks, "
                     f"{a['missed']} missed; their commit {c['median']} ms median); a removal applied after "
                     f"{r['median']} ms median, {r['max']} ms max")
    two = live.get("two_desktops") or {}
    if "error" in two:
        lines.append(f"  two desktops ingesting at once: not measured ({two['error']})")
    elif two:
        lines.append(f"  two desktops ingesting at once (`main.py ingest`, real filings, {two['pages']} pages): "
                     f"{two['per_desktop_pages_per_s']} pages/s each as the processes report it; both searchable "
                     f"here after {two['searchable_after_s']} s from the processes' start (model load included: "
                     f"{two['pages_per_s']} pages/s together)")
    return lines


# what the other desktop's view must show (checked under the views lock by ChangeWatch.until)
def _found_by_bm25(lib: Any, doc_id: str, probe: list[str]) -> bool:
    return any(lib.chunks[c].doc_id == doc_id for c, _ in lib.lexical_search(probe, 10, [doc_id]))


def _gone(lib: Any, doc_id: str) -> bool:
    return doc_id not in lib.docs and not lib.doc_chunks.get(doc_id)


def _listed(lib: Any, doc_id: str) -> bool:
    return doc_id in lib.docs
