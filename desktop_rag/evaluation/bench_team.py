"""``main.py bench --library URL``: the team library's search on PostgreSQL + pgvector at a
synthetic size, beside the embedded figures of the same run.

The synthetic corpus is the embedded bench's (``SyntheticLibrary``): the real seed chunks,
then replicas with word variation and embedding noise as documents of the same company in
earlier years. It is written into the team library given by URL once (documents, pages,
chunks with vectors, postings) and cached there: the manifest records what was built, and
a later run with the same size and seed reuses it. The URL must point at an empty team
library (or one an earlier bench filled): the bench never writes into a real one.
Measured: the desktop's load of a team library (time; memory of its copy of the BM25
postings), hybrid / dense / BM25 latency through ``HybridRetriever`` on the team library
(p50/p95, query embedding included as in the embedded rows), pgvector's HNSW recall@10
against exact search over the same vectors, unfiltered and filtered, and live updates:
the time until a filing committed by another desktop is searchable on this one (and gone
after its removal), and the ingest throughput of two desktops (``main.py ingest``
processes) adding real filings at once. The live-update documents are removed again, so
the cached corpus stays as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from desktop_rag.evaluation.bench_run import (
    CachedQueryEmbedder,
    Seed,
    _search_stats,
    perturb_vectors,
    rss_mb,
    size_label,
    time_searches,
    vary_tokens,
)

if TYPE_CHECKING:
    from desktop_rag.core.embed import Embedder


def _corpus_key(seed: Seed, size: int, sigma: float) -> dict[str, Any]:
    ids = hashlib.sha256("".join(sorted(seed.docs)).encode()).hexdigest()[:16]
    return {"size": size, "seed_chunks": len(seed.chunks), "seed_docs": ids, "sigma": sigma}


def fill_team_library(store: Any, seed: Seed, seed_pages: dict[str, list[str]], size: int, sigma: float,
                      log: Callable[[str], None], seed_statements: dict[str, Any] | None = None) -> dict[str, float]:
    """Write the synthetic corpus (as ``SyntheticLibrary`` builds it) into an empty team
    library: the HNSW index is dropped during the load and built once after it."""
    from desktop_rag.core.backends.postgres import _schema_sql
    from desktop_rag.core.types import Chunk, Document

    rng = np.random.default_rng(0)
    r_settings = store.settings.retrieval
    index_sql = next(s for s in _schema_sql(seed.vectors.shape[1], min(r_settings.hnsw_m, 100),
                                            max(r_settings.hnsw_ef_construction, 2 * min(r_settings.hnsw_m, 100)))
                     if "USING hnsw" in s)
    with store._cursor(write=True) as cur:
        cur.execute("TRUNCATE documents, pages, chunks, postings, terms, statements")
        cur.execute("UPDATE bm25_stats SET n = 0, total_len = 0, idf_sum = 0, vocab = 0")
        cur.execute("DROP INDEX IF EXISTS chunks_embedding")
    t0 = time.perf_counter()
    n_seed = len(seed.chunks)
    by_doc: dict[str, list[int]] = {}
    for j, ch in enumerate(seed.chunks):
        by_doc.setdefault(ch.doc_id, []).append(j)
    written = 0
    for r in range(math.ceil(size / n_seed)):
        vecs = seed.vectors if r == 0 else perturb_vectors(seed.vectors, sigma, rng)
        for doc_id, rows in by_doc.items():
            rows = rows[: max(0, size - written)]
            if not rows:
                break
            d = seed.docs[doc_id]
            meta = d.meta if r == 0 else dataclasses.replace(
                d.meta, fiscal_year=(d.meta.fiscal_year - r) if d.meta.fiscal_year else None, period_end="")
            new_id = doc_id if r == 0 else f"{doc_id}~{r}"
            doc = Document(new_id, d.file_name if r == 0 else f"{d.file_name}~{r}", d.path, d.pages, meta)
            chunks = [dataclasses.replace(seed.chunks[j], chunk_id=-1, doc_id=new_id) for j in rows]
            tokens = [seed.tokens[j] if r == 0 else vary_tokens(seed.tokens[j], rng) for j in rows]
            assert all(isinstance(c, Chunk) for c in chunks)
            store.add_document(doc, seed_pages[doc_id], chunks, tokens, vecs[rows],
                               (seed_statements or {}).get(doc_id))
            written += len(rows)
        log(f"  team: {written} / {size} chunks written ({time.perf_counter() - t0:.0f} s)")
        if written >= size:
            break
    t1 = time.perf_counter()
    with store._cursor(write=True) as cur:
        cur.execute("SET LOCAL maintenance_work_mem = '1GB'")
        cur.execute("SET LOCAL statement_timeout = 0")  # the build takes as long as it takes
        cur.execute(index_sql)
    t2 = time.perf_counter()
    with store._lock:
        conn = store._connection()
        conn.execute("SET statement_timeout = 0")
        conn.execute("VACUUM ANALYZE")  # the visibility map lets BM25 read postings index-only
        conn.execute(f"SET statement_timeout = {store.settings.library.statement_timeout_s * 1000}")
    return {"load_s": round(t1 - t0, 1), "hnsw_build_s": round(t2 - t1, 1), "vacuum_s": round(time.perf_counter() - t2, 1)}


def bench_team(url: str, seed_lib: Any, seed: Seed, embedder: Any, settings: Any, size: int,
               questions: list[str], log: Callable[[str], None], sigma: float = 0.015,
               two_desktops: bool = True) -> dict[str, Any]:
    """The team library's rows at ``size`` chunks. ``two_desktops=False`` leaves out the two
    ``main.py ingest`` processes (real models, minutes): the unit test's fake embedder cannot
    run them, and their correctness is an e2e test's."""
    from desktop_rag.core.backends.postgres import PostgresStore, init_team_library
    from desktop_rag.core.lexical import expand_shorthand
    from desktop_rag.core.library import Library
    from desktop_rag.core.retrieve import HybridRetriever

    manifest = seed_lib.expected_manifest()
    init_team_library(url, settings, manifest)  # idempotent; refuses another embedder's library
    store = PostgresStore(url, settings)
    key = _corpus_key(seed, size, sigma)
    out: dict[str, Any] = {"size": size, "location": store.location, "cached": False}
    try:
        have = store.manifest().get("bench_corpus")
        if have == key:
            out["cached"] = True
            log(f"  team: the synthetic {size_label(size)} corpus is already in {store.location}")
        else:
            if store.documents() and not have:
                raise ValueError(f"{store.location} holds a team library: give bench an empty one (it fills it with "
                                 f"{size} synthetic chunks)")
            log(f"  team: writing the synthetic {size_label(size)} corpus into {store.location} (once; cached)")
            pages = {d: seed_lib.store.page_texts(d) for d in seed.docs}
            statements = {d: seed_lib.store.load_statements(d) for d in seed.docs}  # as the embedded bench: no
            out["build"] = fill_team_library(store, seed, pages, size, sigma, log, statements)  # re-extraction
            store.set_manifest_values(bench_corpus=key)
    finally:
        store.close()

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
        out[mode] = _search_stats(time_searches(unfiltered, questions, mode))
    out["hybrid_filtered"] = _search_stats(time_searches(filtered, questions, "hybrid"))

    # pgvector's HNSW recall@10 against exact search over the same vectors
    docs = sorted(lib.doc_chunks)
    allowed = docs[::3]
    mask = lib.allowed_rows(allowed)
    assert mask is not None
    rows = np.flatnonzero(mask)
    strict, filt = [], []
    for q in questions[:20]:
        qv = cached.encode_query(expand_shorthand(q.strip()))
        sims = lib.vectors @ qv
        exact = set(lib.chunk_ids[np.argsort(-sims)[:10]].tolist())
        strict.append(len({c for c, _ in lib.dense_search(qv, 10)} & exact) / 10)
        exact_f = set(lib.chunk_ids[rows[np.argsort(-sims[rows])[:10]]].tolist())
        got_f = {c for c, _ in lib.store.dense_search(qv, 10, allowed)}
        filt.append(len(got_f & exact_f) / 10)
    out["recall@10"] = round(sum(strict) / len(strict), 3) if strict else None
    out["recall@10_filtered"] = round(sum(filt) / len(filt), 3) if filt else None
    out["filtered_rows"] = len(rows)
    r = settings.retrieval
    out["hnsw"] = {"m": min(r.hnsw_m, 100), "ef_construction": r.hnsw_ef_construction,
                   "ef_search": min(r.hnsw_ef_search, 1000)}
    try:
        out["live"] = bench_live_updates(url, settings, lib, seed, seed_lib, log, two_desktops=two_desktops)
    finally:
        lib.close()
    log(f"  team {size_label(size)}: p95 dense {out['dense']['p95']:.1f} / bm25 {out['bm25']['p95']:.1f} / "
        f"hybrid {out['hybrid']['p95']:.1f} ms; pgvector recall@10 {out['recall@10']}")
    return out


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

    from desktop_rag.core.backends.postgres import PostgresStore
    from desktop_rag.core.types import Document

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

    from desktop_rag.core.pdf import file_sha256

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
    from desktop_rag.evaluation.bench_run import table

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
             f"ef_search={t['hnsw']['ef_search']}) recall@10 vs exact: {t['recall@10']} unfiltered, "
             f"{t['recall@10_filtered']} filtered to a third of the documents ({t['filtered_rows']} rows)"]
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
