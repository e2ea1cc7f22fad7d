"""`main.py bench`'s memory section: the synthetic on-disk library and the child process that
measures the app on it (tiny sizes; no memory or timing threshold, only that it runs and
reports numbers)."""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.core.index.embedder import Embedder
from desktop_rag.evaluation import bench_memory as bmem
from desktop_rag.evaluation import bench_run as bm
from desktop_rag.evaluation import bench_team, synthetic
from desktop_rag.settings import Settings

WORDS = ("revenue", "net", "income", "cash", "operating", "segment", "margin", "debt", "lease", "capex")


class _SeedStore:
    def __init__(self, pages: dict[str, list[str]]) -> None:
        self.pages = pages

    def page_texts(self, doc_id: str) -> list[str]:
        return self.pages[doc_id]

    def load_statements(self, doc_id: str) -> None:
        return None


class _SeedLibrary:
    """What the writer reads of the bench's library: its embedder's identity, pages, statements."""

    def __init__(self, pages: dict[str, list[str]]) -> None:
        self.embedder = Embedder("all-MiniLM-L6-v2")  # identity only: nothing loads torch here
        self.store = _SeedStore(pages)


def _seed(n_docs: int = 2, per_doc: int = 40, dim: int = 384) -> tuple[synthetic.Seed, _SeedLibrary]:
    rng = np.random.default_rng(0)
    docs: dict[str, Any] = {}
    chunks, tokens, pages = [], [], {}
    for d in range(n_docs):
        doc_id = f"doc{d}"
        texts = []
        for p in range(per_doc // 4):
            words = [WORDS[int(i)] for i in rng.integers(0, len(WORDS), size=60)]
            texts.append(" ".join(words) + f" Acme {2023 - d} page {p + 1}")
        pages[doc_id] = texts
        docs[doc_id] = Document(doc_id, f"2023 Q{d + 1} ACME.pdf", "", len(texts),
                                DocumentMeta("Acme Corp", "ACME", "10-Q", 2023, d + 1), per_doc)
        for i in range(per_doc):
            page, part = i // 4 + 1, i % 4
            text = texts[page - 1]
            a, b = part * len(text) // 4, (part + 1) * len(text) // 4
            chunks.append(Chunk(d * per_doc + i + 1, doc_id, i, page, a, b, text[a:b]))
            tokens.append(tokenize(text[a:b]))
    vecs = rng.normal(size=(len(chunks), dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return synthetic.Seed(chunks, docs, tokens, vecs), _SeedLibrary(pages)


def test_synthetic_documents_are_replicas_of_the_seed() -> None:
    seed, _ = _seed()
    out = list(bench_team.synthetic_documents(seed, 200, 0.015))
    assert sum(len(chunks) for _, _, _, chunks, _, _ in out) == 200
    for replica, doc, src, chunks, tokens, vectors in out:
        assert len(chunks) == len(tokens) == len(vectors)
        assert all(c.doc_id == doc.doc_id for c in chunks)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert replica == int(doc.doc_id.partition("~")[2] or 0)
        assert doc.meta.fiscal_year == seed.docs[src].meta.fiscal_year - replica
    # 80 seed chunks: two whole replicas, then the first 40 chunks (doc0) of the third
    assert [doc.doc_id for _, doc, *_ in out] == ["doc0", "doc1", "doc0~1", "doc1~1", "doc0~2"]


def test_library_written_through_the_store_opens_as_the_app_opens_it(tmp_path: Path) -> None:
    from desktop_rag.core.index.library import Library

    seed, seed_lib = _seed()
    settings = Settings()
    first = bmem.cached_library(tmp_path / "mem", seed, seed_lib, 200, settings, 0.015, lambda _m: None)
    assert first["cached"] is False and first["build"]["write_s"] >= 0
    lib = Library(tmp_path / "mem", Settings.load(tmp_path / "mem"), seed_lib.embedder)
    try:
        assert lib.mismatch() == []
        lib.refresh()
        assert len(lib.chunk_ids) == 200 and lib.embedded.all()
        assert len(lib.dense) == 200  # the graph saved by the writer, loaded
        some = next(iter(lib.chunks.values()))
        assert some.text == seed_lib.store.pages[some.doc_id.partition("~")[0]][some.page - 1][
            some.char_start:some.char_end]
    finally:
        lib.close()
    again = bmem.cached_library(tmp_path / "mem", seed, seed_lib, 200, settings, 0.015, lambda _m: None)
    assert again["cached"] is True  # reused, not written again
    other = bmem.cached_library(tmp_path / "mem", seed, seed_lib, 150, settings, 0.015, lambda _m: None)
    assert other["cached"] is False  # another size: written again


def test_child_process_reports_memory_after_each_step(tmp_path: Path) -> None:
    seed, seed_lib = _seed()
    questions = ["What was Acme's revenue?", "How much cash from operating activities?"]
    res = bmem.bench_memory(tmp_path / "mem", seed, seed_lib, Settings(), 200, questions, None,
                            lambda _m: None, max_tokens=16)
    if "error" in res and ("model" in res["error"].lower() and "not found" in res["error"]):
        pytest.skip(res["error"])
    assert "error" not in res, res.get("error")
    assert list(res["steps"]) == list(bmem.STEPS)
    for step in res["steps"].values():
        assert step["rss_mb"] > 0 and step["peak_mb"] >= step["rss_mb"] * 0.99
    assert res["peak_mb"] == max(s["peak_mb"] for s in res["steps"].values())
    assert res["library"]["chunks"] == 200 and res["library"]["vectors_mb"] > 0
    assert res["searches"] == 2 and res["answer"]["question"] in questions
    assert res["peak_step"] in bmem.STEPS
    line = bmem.breakdown(res)
    assert "peak" in line and "library +" in line
    # the bench's rows: the app's peak, PASS/MISS only at 100k
    row = next(t for t in bm.targets(bm.headline({"memory": res}) | {"memory": res})
               if t["name"].startswith("resident memory"))
    assert row["actual"] == res["peak_mb"] and row["pass"] is None and row["name"].endswith("@ 200")


def test_a_missed_memory_row_is_explained_step_by_step() -> None:
    steps = {"start": {"rss_mb": 70.0, "peak_mb": 80.0}, "library": {"rss_mb": 700.0, "peak_mb": 1400.0},
             "embedder": {"rss_mb": 1200.0, "peak_mb": 1400.0}, "model": {"rss_mb": 1600.0, "peak_mb": 1600.0}}
    mem = {"size": 100_000, "steps": steps, "peak_mb": 1600.0, "peak_step": "library",
           "library": {"chunks": 100_000, "vectors_mb": 146.5, "bm25_mb": 150.0, "bm25_terms": 9000,
                       "graph_file_mb": 200.0, "chunk_text_mb": 120.0}}
    res: dict[str, Any] = {"memory": mem}
    res.update(bm.headline(res))
    res["targets"] = bm.targets(res)
    row = next(t for t in res["targets"] if t["name"].startswith("resident memory"))
    assert row["name"] == "resident memory MB (app, peak) @ 100k" and row["pass"] is False
    why = next(w for w in bm.explain(res) if w.startswith("memory"))
    assert "library +630" in why and "model +400" in why and "vectors 146" in why
