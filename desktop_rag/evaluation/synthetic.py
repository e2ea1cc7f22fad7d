"""Synthetic libraries for the benchmarks: larger libraries made from a real one's chunks
(BM25 tokens with word-level variation, embeddings mixed with small noise), a stand-in
library object the real retriever searches, and the timing helpers the search, team and
memory benchmarks share."""

from __future__ import annotations

import dataclasses
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.evaluation.metrics import percentile


def size_label(n: int) -> str:
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def vary_tokens(tokens: list[str], rng: np.random.Generator, drop: float = 0.05, swap: float = 0.05) -> list[str]:
    """A word-level variant of a chunk's BM25 tokens: numbers replaced by numbers of the
    same length, ~5 % of words dropped, ~5 % of adjacent pairs swapped."""
    if not tokens:
        return []
    r = rng.random(len(tokens))
    out = []
    for t, x in zip(tokens, r, strict=True):
        if x < drop:
            continue
        if t.isdigit() and 0 < len(t) < 10:
            t = str(int(rng.integers(10 ** (len(t) - 1), 10 ** len(t))))
        out.append(t)
    if not out:
        out = [tokens[0]]
    n_swaps = int(len(out) * swap)
    if n_swaps and len(out) > 1:
        for i in rng.integers(0, len(out) - 1, size=n_swaps):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def perturb_vectors(vectors: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors plus gaussian noise, re-normalised (sigma 0.015 in 384-d ~ cosine 0.96)."""
    noisy = vectors + rng.normal(0.0, sigma, size=vectors.shape).astype(np.float32)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True) + 1e-12
    return np.ascontiguousarray(noisy, dtype=np.float32)


def mix_vectors(vectors: np.ndarray, primary: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Synthetic embeddings that look like a real library's: row i is a normalised mix of the
    real vector ``primary[i]`` (weight 0.5-0.8, its chunk's text goes with it) and one or two
    other random real vectors, plus gaussian noise. Replicas of one chunk then differ in
    direction (cosine ~0.5-0.9 to each other) instead of forming clusters of near-duplicates,
    whose exact top-10 a coin toss decides (that measured the generator, not the index)."""
    n, n_seed = len(primary), len(vectors)
    w_primary = rng.uniform(0.5, 0.8, size=n).astype(np.float32)
    partners = rng.integers(0, n_seed, size=(n, 2))
    split = rng.uniform(0.0, 1.0, size=n).astype(np.float32) * (rng.random(n) < 0.5)  # half mix three
    rest = 1.0 - w_primary
    mixed = (w_primary[:, None] * vectors[primary] + (rest * (1.0 - split))[:, None] * vectors[partners[:, 0]]
             + (rest * split)[:, None] * vectors[partners[:, 1]])
    mixed /= np.linalg.norm(mixed, axis=1, keepdims=True) + 1e-12
    return perturb_vectors(mixed.astype(np.float32), sigma, rng)


SYNTHETIC_NOTE = ("larger sizes re-use the {n} real chunks: BM25 tokens with word-level variation, vectors "
                  "normalised mixes of 2-3 real embeddings (the chunk's own at weight 0.5-0.8) plus noise "
                  "sigma={sigma}")


@dataclasses.dataclass
class Seed:
    chunks: list[Any]  # Chunk
    docs: dict[str, Any]  # doc_id -> Document
    tokens: list[list[str]]
    vectors: np.ndarray


def seed_from_library(lib: Any) -> Seed:
    lib.refresh()
    chunks, tokens, vecs = [], [], []
    for cid, _doc, *_rest, toks, emb in lib.store.chunk_rows():
        ch = lib.chunks.get(cid)
        if ch is None:
            continue
        chunks.append(ch)
        tokens.append(toks.split())
        vecs.append(np.frombuffer(emb, dtype=np.float32))
    vectors = np.stack(vecs) if vecs else np.zeros((0, lib.embedder.dim), dtype=np.float32)
    return Seed(chunks, dict(lib.docs), tokens, vectors)


class SyntheticLibrary:
    """Stands in for ``Library`` in ``HybridRetriever``: the same attributes, in memory.
    Replica 0 is the real seed library; the others carry varied tokens and mixed vectors
    (``vary_tokens``, ``mix_vectors``). Replica r of a seed document is a document of the same company r years earlier, so
    metadata filters narrow a question to one filing as they would in a real library."""

    def __init__(self, seed: Seed, size: int, embedder: Any, rng: np.random.Generator, sigma: float = 0.015,
                 ef_construction: int = 200, ef_search: int = 128, workdir: Path | None = None,
                 m: int = 32) -> None:
        from desktop_rag.core.domain.types import Chunk, Document
        from desktop_rag.core.index.lexical import LexicalIndex

        self.embedder = embedder
        n_seed = len(seed.chunks)
        if n_seed == 0:
            raise ValueError("no seed chunks")
        t0 = time.perf_counter()
        self.docs: dict[str, Any] = {}
        self.chunks: dict[int, Any] = {}
        self.doc_chunks: dict[str, list[int]] = {}
        token_lists: list[list[str]] = []
        replicas = math.ceil(size / n_seed)
        vec_parts = []
        for r in range(replicas):
            take = min(n_seed, size - r * n_seed)
            vec_parts.append(seed.vectors[:take] if r == 0 else mix_vectors(seed.vectors, np.arange(take), rng, sigma))
            for j in range(take):
                src = seed.chunks[j]
                doc_id = src.doc_id if r == 0 else f"{src.doc_id}~{r}"
                if doc_id not in self.docs:
                    d = seed.docs[src.doc_id]
                    meta = d.meta if r == 0 else dataclasses.replace(
                        d.meta, fiscal_year=(d.meta.fiscal_year - r) if d.meta.fiscal_year else None, period_end="")
                    self.docs[doc_id] = Document(doc_id, d.file_name if r == 0 else f"{d.file_name}~{r}", d.path,
                                                 d.pages, meta, d.chunk_count)
                cid = r * n_seed + j + 1
                self.chunks[cid] = Chunk(cid, doc_id, src.ordinal, src.page, src.char_start, src.char_end,
                                         src.text, src.kind, src.section)
                self.doc_chunks.setdefault(doc_id, []).append(cid)
                token_lists.append(seed.tokens[j] if r == 0 else vary_tokens(seed.tokens[j], rng))
        self.chunk_ids = np.arange(1, size + 1, dtype=np.int64)
        self.vectors = np.ascontiguousarray(np.concatenate(vec_parts)[:size], dtype=np.float32)
        self.row_of = {int(c): i for i, c in enumerate(self.chunk_ids)}
        self.embedded = np.ones(size, dtype=bool)
        t1 = time.perf_counter()
        self.lexical = LexicalIndex(self.chunk_ids.tolist(), token_lists)
        t2 = time.perf_counter()
        from desktop_rag.core.index.dense import DenseIndex

        self._dense = DenseIndex(self.vectors.shape[1], (workdir or Path(tempfile.gettempdir())) / "bench.hnsw",
                                 ef_search, m, ef_construction)
        self._dense.build(self.chunk_ids, self.vectors)
        t3 = time.perf_counter()
        self.build_s = {"synthesise": t1 - t0, "bm25": t2 - t1, "hnsw": t3 - t2}

    on_server = False  # in memory, as this computer's library
    _views_generation = 0  # Library's "views loaded" mark, read by the search methods borrowed below

    def refresh(self) -> None:
        pass

    @property
    def dense(self) -> Any:
        return self._dense

    def allowed_rows(self, doc_ids: list[str] | None) -> np.ndarray | None:
        from desktop_rag.core.index.library import Library

        return Library.allowed_rows(self, doc_ids)  # type: ignore[arg-type]

    def dense_search(self, vector: np.ndarray, k: int, doc_ids: list[str] | None = None) -> list[tuple[int, float]]:
        from desktop_rag.core.index.library import Library

        return Library.dense_search(self, vector, k, doc_ids)  # type: ignore[arg-type]

    def lexical_search(self, terms: list[str], k: int, doc_ids: list[str] | None = None) -> list[tuple[int, float]]:
        from desktop_rag.core.index.library import Library

        return Library.lexical_search(self, terms, k, doc_ids)  # type: ignore[arg-type]

    def vectors_of(self, ids: list[int]) -> dict[int, np.ndarray]:
        from desktop_rag.core.index.library import Library

        return Library.vectors_of(self, ids)  # type: ignore[arg-type]

    def prefetch(self, ids: Any) -> None:
        pass  # every chunk is in memory

    def page_text(self, doc_id: str, page: int) -> str:
        return ""  # synthetic chunks have no page: every page is an ordinary text page

    def page_texts_at(self, pages: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
        return {}

    def statements(self, doc_id: str) -> list[Any]:
        return []

    def neighbours(self, chunk_id: int, n: int = 1) -> list[int]:
        return []


def latency_stats(ms: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(ms, 50), 2), "p95": round(percentile(ms, 95), 2),
            "mean": round(sum(ms) / len(ms), 2) if ms else float("nan"), "n": len(ms)}


class CachedQueryEmbedder:
    """Wraps the embedder: each query text is embedded once (timed), later calls are
    served from the cache and counted. Search latency is then index work measured
    directly plus the measured embedding time for every embedding call the search made,
    so repeated runs over 3 sizes and 4 modes do not re-run MiniLM hundreds of times."""

    def __init__(self, embedder: Any) -> None:
        self._emb = embedder
        self.cache: dict[str, tuple[np.ndarray, float]] = {}
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._emb, name)

    def encode_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        if text not in self.cache:
            forget_recent_queries(self._emb)  # a real embedding, not the embedder's own cache
            t0 = time.perf_counter()
            v = self._emb.encode_query(text)
            self.cache[text] = (v, (time.perf_counter() - t0) * 1000)
        return self.cache[text][0]

    def warm(self, texts: list[str]) -> list[float]:
        self._emb.encode_query("warm up")
        for t in texts:
            self.encode_query(t)
        return [self.cache[t][1] for t in texts]


def forget_recent_queries(embedder: Any) -> None:
    """Empty the embedder's cache of recent questions (``Embedder.encode_query``), so a timed
    question is embedded, not served from an earlier section's or warm-up's call."""
    forget = getattr(embedder, "forget_recent_queries", None)
    if forget is not None:
        forget()


def time_searches(retriever: Any, questions: list[str], mode: str, k: int = 10,
                  warmup: int = 2) -> tuple[list[float], list[float], float]:
    """(total ms incl. query embedding, index-only ms, mean embedding calls) per query."""
    emb = retriever.library.embedder
    cached = isinstance(emb, CachedQueryEmbedder)
    for q in questions[:warmup]:
        retriever.search(q, k, mode=mode)
    total, index, calls = [], [], 0
    for q in questions:
        if cached:
            emb.calls.clear()
        t0 = time.perf_counter()
        retriever.search(q, k, mode=mode)
        dt = (time.perf_counter() - t0) * 1000
        enc = sum(emb.cache[t][1] for t in emb.calls) if cached else 0.0
        calls += len(emb.calls) if cached else 0
        index.append(dt)
        total.append(dt + enc)
    return total, index, calls / max(1, len(questions))


def search_stats(times: tuple[list[float], list[float], float]) -> dict[str, float]:
    total, index, calls = times
    st = latency_stats(total)
    ix = latency_stats(index)
    return st | {"index_p50": ix["p50"], "index_p95": ix["p95"], "embed_calls": round(calls, 2)}


def rss_mb() -> float:
    """Resident memory of this process now (not the peak)."""
    try:
        import psutil

        return round(psutil.Process().memory_info().rss / 2**20, 1)
    except Exception:  # pragma: no cover
        return float("nan")
