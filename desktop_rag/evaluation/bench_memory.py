"""The app's resident memory with a large library (issue #10's memory row of ``main.py bench``).

The bench process itself is no measure of it: besides the library it measures it holds the
seed library, the synthetic search corpora and whatever its other sections loaded. So:

1. The bench writes a real on-disk library of ``size`` synthetic chunks once, through the
   library's own storage code: ``IndexStore.add_document`` (SQLite documents, page texts,
   chunks with their BM25 tokens and precomputed vectors, statements) under the manifest
   ``library_manifest`` records, then a ``Library`` opens it once, which builds and saves its
   hnswlib graph as ingest would. The corpus is the search section's generator: the real seed
   chunks, then replicas of every seed document as the same company r years earlier, with
   word-level token variation (``vary_tokens``) and vectors that are normalised mixes of 2-3
   real embeddings plus noise (``replica_vectors``, the team bench's per-replica draw of
   ``mix_vectors``). No text is embedded (the vectors are precomputed), so 100k chunks take
   minutes, not hours. The library is cached under the bench's data dir
   (``bench/memory-<size>``) with the bench's settings, and reused while its key (size,
   seed, generator) and the index formats still match.
2. A child process does what the app does with that library and reports its resident memory
   (RSS) and peak after each step: the app's modules imported, the library opened as the
   window opens it (views loaded, graph read, BM25 lookups warmed), the embedder loaded, the
   GGUF loaded (its prompt prefix evaluated), a few hybrid searches, one answer. The Qt
   window's own footprint is not part of it (the child starts no GUI).

Run the child alone: ``python -m desktop_rag.evaluation.bench_memory DATA_DIR [--models DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

CORPUS_VERSION = 1  # bump when what write_library writes changes
STEPS = ("start", "library", "embedder", "model", "search", "answer")


# -- the library --------------------------------------------------------------------------


def corpus_key(seed: Any, size: int, sigma: float) -> dict[str, Any]:
    """What a cached library was written from: a later bench reuses it only if equal."""
    ids = hashlib.sha256("".join(sorted(seed.docs)).encode()).hexdigest()[:16]
    return {"version": CORPUS_VERSION, "size": size, "seed_chunks": len(seed.chunks), "seed_docs": ids,
            "sigma": sigma, "vectors": "mix-2-3"}


def write_library(data_dir: Path, seed: Any, seed_lib: Any, size: int, settings: Any, sigma: float,
                  log: Callable[[str], None]) -> dict[str, float]:
    """Write the synthetic corpus into a new library at ``data_dir`` (see the module's
    docstring) and open it once, so its hnswlib graph is built and saved. Seconds by part."""
    from desktop_rag.core.index.backends.sqlite import IndexStore
    from desktop_rag.core.index.library import Library, library_manifest
    from desktop_rag.evaluation.bench_team import synthetic_documents

    data_dir.mkdir(parents=True, exist_ok=True)
    settings.save(data_dir)  # the child opens it with the bench library's settings
    t0 = time.perf_counter()
    store = IndexStore(data_dir / "index")
    try:
        store.set_manifest_values(**library_manifest(settings, seed_lib.embedder))
        pages: dict[str, list[str]] = {}
        statements: dict[str, Any] = {}
        written = 0
        for _replica, doc, src, chunks, tokens, vectors in synthetic_documents(seed, size, sigma):
            if src not in pages:  # a replica's pages and statements are its seed document's
                pages[src] = seed_lib.store.page_texts(src)
                statements[src] = seed_lib.store.load_statements(src)
            store.add_document(doc, pages[src], chunks, tokens, vectors, statements[src])
            written += len(chunks)
            if written % 20_000 < len(chunks):
                log(f"  memory: {written} / {size} chunks written ({time.perf_counter() - t0:.0f} s)")
    finally:
        store.close()
    t1 = time.perf_counter()
    lib = Library(data_dir, settings, seed_lib.embedder)
    try:
        lib.refresh()  # reads the views and builds + saves the graph, as the first open after an ingest
    finally:
        lib.close()
    t2 = time.perf_counter()
    log(f"  memory: {size} chunks written in {t1 - t0:.0f} s, hnsw graph built in {t2 - t1:.0f} s")
    return {"write_s": round(t1 - t0, 1), "open_and_graph_s": round(t2 - t1, 1)}


def _graph_current(index_dir: Path, generation: int, settings: Any) -> bool:
    """The saved graph is the one the app would load (no rebuild when it opens)."""
    try:
        saved = json.loads((index_dir / "dense.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    r = settings.retrieval
    return (saved.get("generation") == generation
            and saved.get("hnsw") == {"M": r.hnsw_m, "ef_construction": r.hnsw_ef_construction})


def cached_library(cache_dir: Path, seed: Any, seed_lib: Any, size: int, settings: Any, sigma: float,
                   log: Callable[[str], None]) -> dict[str, Any]:
    """The synthetic library at ``cache_dir``: reused when written from the same key with
    today's index formats, brought up to date when only its tokens or graph are stale (the app
    would do that on the first open, not on every one), else written again."""
    from desktop_rag.core.domain.terms import TOKENIZER_VERSION
    from desktop_rag.core.index.library import Library

    key = corpus_key(seed, size, sigma)
    if (cache_dir / "index" / "library.sqlite").is_file():
        lib = Library(cache_dir, settings, seed_lib.embedder)
        try:
            manifest = lib.store.manifest()
            if manifest.get("bench_corpus") == key and not lib.mismatch():
                fresh = (manifest.get("tokenizer") == TOKENIZER_VERSION
                         and _graph_current(cache_dir / "index", lib.store.generation, settings))
                if not fresh:
                    t0 = time.perf_counter()
                    lib.refresh()  # re-tokenises and stores the tokens, rebuilds and saves the graph
                    log(f"  memory: cached library brought up to date in {time.perf_counter() - t0:.0f} s")
                settings.save(cache_dir)
                return {"cached": True, "key": key}
        finally:
            lib.close()
    shutil.rmtree(cache_dir, ignore_errors=True)
    log(f"  memory: writing a {size}-chunk library into {cache_dir} (once; cached)")
    build = write_library(cache_dir, seed, seed_lib, size, settings, sigma, log)
    from desktop_rag.core.index.backends.sqlite import IndexStore

    store = IndexStore(cache_dir / "index")
    try:
        store.set_manifest_values(bench_corpus=key)  # last: a write cut short is never reused
    finally:
        store.close()
    return {"cached": False, "key": key, "build": build}


# -- the child: what the app does, step by step ----------------------------------------------


_STATUS = {"VmRSS": "rss_mb", "VmHWM": "peak_mb", "RssAnon": "anon_mb", "RssFile": "file_mb"}


def _memory_now() -> dict[str, float]:
    """RSS now and the peak so far (MB); on Linux also its anonymous and file-backed parts
    (a mapped GGUF is file-backed: the kernel can drop and re-read those pages). The peak is
    /proc's VmHWM where there is one: getrusage's ru_maxrss survives exec on Linux, so a child
    started by a 450 MB bench process reported 450 MB before it had done anything."""
    from desktop_rag.evaluation.timing import peak_rss_mb

    out: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in _STATUS:
                out[_STATUS[name]] = round(int(value.split()[0]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    if "rss_mb" not in out:
        try:
            import psutil

            out["rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        except Exception:  # pragma: no cover
            out["rss_mb"] = float("nan")
    if "peak_mb" not in out:
        out["peak_mb"] = round(peak_rss_mb(), 1)
    return out


def _library_parts(lib: Any) -> dict[str, Any]:
    """What the opened library holds in memory, by part (MB; the sizes of the arrays and of
    the chunk texts' Python strings, not of every object around them)."""
    chunks = lib.chunks  # a dict holds every chunk's text; StoredChunks reads them from the pages when asked
    text_mb = round(sum(sys.getsizeof(c.text) for c in chunks.values()) / 2**20, 1) if isinstance(chunks, dict) else None
    graph = lib.dense.graph_path
    return {
        "chunks": len(lib.chunk_ids), "documents": len(lib.docs),
        "vectors_mb": round(lib.vectors.nbytes / 2**20, 1),
        "vectors_mapped": type(lib.vectors).__name__ == "memmap",  # file-backed: resident only where read
        "bm25_mb": round(lib.lexical.memory_bytes / 2**20, 1),
        "bm25_terms": len(lib.lexical.idf),
        "graph_file_mb": round(graph.stat().st_size / 2**20, 1) if graph is not None and graph.is_file() else None,
        "chunk_text_mb": text_mb,
    }


def _answerable(ws: Any, questions: list[str]) -> str:
    """The first question the model answers (not a statement figure, not refused by the gate)."""
    r, engine = ws.engine.retriever, ws.engine
    for q in questions:
        plan = r.plan(q)
        if engine.statement_answer(q) is None and r.gate(plan, r.search(plan)).passed:
            return q
    return questions[0]


def child_measure(data_dir: str, models_dir: str | None, questions: list[str], searches: int,
                  max_tokens: int | None, steps: tuple[str, ...] = STEPS) -> dict[str, Any]:
    """In a fresh process: the steps of ``STEPS`` wanted, each followed by the memory reading."""
    out: dict[str, Any] = {"steps": {}}
    t0 = time.perf_counter()

    def mark(step: str) -> None:
        nonlocal t0
        out["steps"][step] = {**_memory_now(), "s": round(time.perf_counter() - t0, 2)}
        t0 = time.perf_counter()

    from desktop_rag.core.workspace import Workspace
    from desktop_rag.evaluation.timing import TimedGenerator

    mark("start")
    timed: TimedGenerator | None = None
    ws = Workspace(data_dir, models_dir)
    try:
        if "library" in steps:  # as the window opens a library: views, graph, the BM25 lookups
            ws.library.refresh()
            ws.library.dense  # noqa: B018 (loads the graph)
            ws.library.warm()
            mark("library")
            out["library"] = _library_parts(ws.library)
        if "embedder" in steps:
            ws.embedder.load()
            ws.embedder.encode_query("warm up")
            mark("embedder")
        if "model" in steps:
            if max_tokens:
                ws.settings.generation.max_tokens = max_tokens
            gen = ws.load_model()
            timed = TimedGenerator(gen)
            ws.engine.generator = cast(Any, timed)  # duck-typed: records when tokens arrive
            out["model"] = gen.path.name
            mark("model")
        if "search" in steps and questions:
            for q in questions[:searches]:
                ws.engine.retriever.search(q)
            out["searches"] = min(searches, len(questions))
            mark("search")
        if "answer" in steps and questions:
            q = _answerable(ws, questions)
            answer = ws.engine.ask(q)
            out["answer"] = {"question": q, "model_calls": len(timed.calls) if timed else 0,
                             "extractive": answer.extractive, "not_in_corpus": answer.not_in_corpus}
            mark("answer")
    finally:
        ws.close()
    out["peak_mb"] = max(s["peak_mb"] for s in out["steps"].values())
    return out


def measure_in_child(data_dir: Path, models_dir: Any, questions: list[str], searches: int = 5,
                     max_tokens: int | None = None, steps: tuple[str, ...] = STEPS,
                     timeout: float = 1800) -> dict[str, Any]:
    """Run ``child_measure`` in a fresh interpreter; its JSON, or {"error": ...}."""
    from desktop_rag.paths import app_root

    cmd = [sys.executable, "-m", "desktop_rag.evaluation.bench_memory", str(data_dir),
           "--questions", json.dumps(questions), "--searches", str(searches), "--steps", ",".join(steps)]
    if models_dir:
        cmd += ["--models", str(models_dir)]
    if max_tokens:
        cmd += ["--max-tokens", str(max_tokens)]
    p = subprocess.run(cmd, cwd=str(app_root()), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        return {"error": (p.stderr or p.stdout or "")[-800:]}
    try:
        return dict(json.loads(p.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {"error": f"no result from the child: {p.stdout[-300:]} {p.stderr[-300:]}"}


def bench_memory(cache_dir: Path, seed: Any, seed_lib: Any, settings: Any, size: int, questions: list[str],
                 models_dir: Any, log: Callable[[str], None], max_tokens: int | None = None,
                 sigma: float = 0.015, searches: int = 5) -> dict[str, Any]:
    """The memory row: the cached ``size``-chunk library, then the child's readings."""
    t0 = time.perf_counter()
    corpus = cached_library(cache_dir, seed, seed_lib, size, settings, sigma, log)
    log(f"  memory: the app's steps in a child process on {size} chunks")
    child = measure_in_child(cache_dir, models_dir, questions, searches, max_tokens)
    out: dict[str, Any] = {"size": size, "data_dir": str(cache_dir), **corpus, **child,
                           "seconds": round(time.perf_counter() - t0, 1)}
    if "error" not in child:
        steps = child["steps"]
        top = next(s for s in steps if steps[s]["peak_mb"] >= child["peak_mb"])  # the step during which it was reached
        out["peak_step"] = top
        log(f"  memory: child peak {child['peak_mb']:.0f} MB (reached during '{top}'); after each step: "
            + ", ".join(f"{s} {v['rss_mb']:.0f}" for s, v in steps.items()) + " MB")
    return out


def breakdown(mem: dict[str, Any]) -> str:
    """One line: the peak, where it was reached, the RSS added by each step, the library's parts."""
    steps = mem.get("steps") or {}
    names = list(steps)
    parts = []
    for i, s in enumerate(names):
        added = steps[s]["rss_mb"] - (steps[names[i - 1]]["rss_mb"] if i else 0.0)
        parts.append(f"{s} {'+' if i else ''}{added:.0f}")
    lib = mem.get("library") or {}
    line = (f"peak {mem.get('peak_mb', float('nan')):.0f} MB reached during '{mem.get('peak_step', '?')}'; "
            "RSS added by step (MB): " + ", ".join(parts))
    if lib:
        line += (f"; the library's {lib['chunks']} chunks: vectors {lib['vectors_mb']:.0f}"
                 f"{' (a mapped file: resident only where searches read)' if lib.get('vectors_mapped') else ''}, BM25 arrays "
                 f"{lib['bm25_mb']:.0f} ({lib['bm25_terms']} terms), hnsw graph file {lib['graph_file_mb'] or 0:.0f} MB, "
                 + ("chunk texts not held (read from the stored pages when a search needs them)"
                    if lib.get("chunk_text_mb") is None else f"chunk texts {lib['chunk_text_mb']:.0f} MB"))
    last = steps[names[-1]] if names else {}
    if "anon_mb" in last:
        line += f"; at the end {last['anon_mb']:.0f} MB anonymous, {last['file_mb']:.0f} MB file-backed (mapped GGUF, libraries)"
    return line


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="the app's resident memory, step by step, on a library (JSON on stdout)")
    p.add_argument("data_dir")
    p.add_argument("--models", default=None)
    p.add_argument("--questions", default="[]", help="JSON list of questions")
    p.add_argument("--searches", type=int, default=5)
    p.add_argument("--max-tokens", type=int, default=None)
    p.add_argument("--steps", default=",".join(STEPS))
    ns = p.parse_args(argv)
    steps = tuple(s for s in ns.steps.split(",") if s)
    res = child_measure(ns.data_dir, ns.models, json.loads(ns.questions), ns.searches, ns.max_tokens, steps)
    print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
