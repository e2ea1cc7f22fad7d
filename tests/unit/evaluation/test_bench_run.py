"""Pure parts of `main.py bench`: percentiles, corpus synthesis, JSON keys."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation import bench_run as bm
from desktop_rag.evaluation import synthetic
from desktop_rag.evaluation.metrics import percentile


def test_percentile_matches_numpy_linear():
    xs = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert percentile(xs, 50) == 3.0
    assert percentile(xs, 0) == 1.0 and percentile(xs, 100) == 5.0
    assert percentile(xs, 95) == pytest.approx(4.8)
    rng = np.random.default_rng(1)
    ys = rng.random(37).tolist()
    for p in (10, 50, 90, 95, 99):
        assert percentile(ys, p) == pytest.approx(float(np.percentile(ys, p)))
    assert percentile([7.0], 95) == 7.0
    assert np.isnan(percentile([], 50))


def test_sizes():
    assert bm.parse_sizes("1k,10k,100k") == [1000, 10000, 100000]
    assert bm.parse_sizes("200, 1.5k") == [200, 1500]
    assert bm.parse_sizes("100k,1m") == [100_000, 1_000_000]  # "--sizes 1m" had crashed the bench
    assert [synthetic.size_label(n) for n in (200, 1000, 100000, 1500)] == ["200", "1k", "100k", "1500"]


def test_vary_tokens_keeps_shape_and_changes_numbers():
    rng = np.random.default_rng(0)
    toks = ["revenue", "81797", "iphone", "sale", "2023"] * 40
    out = synthetic.vary_tokens(toks, rng)
    assert 0.85 * len(toks) <= len(out) <= len(toks)
    assert set(t for t in out if not t.isdigit()) <= {"revenue", "iphone", "sale"}
    nums = [t for t in out if t.isdigit()]
    assert all(len(t) in (4, 5) for t in nums)
    assert any(t not in ("81797", "2023") for t in nums)
    assert synthetic.vary_tokens([], rng) == []


def test_perturb_vectors_unit_length_and_close():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    p = synthetic.perturb_vectors(v, 0.015, rng)
    assert p.dtype == np.float32 and p.shape == v.shape
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    cos = (p * v).sum(axis=1)
    assert cos.min() > 0.9 and cos.max() < 0.999


def test_mix_vectors_are_not_near_duplicate_clusters():
    rng = np.random.default_rng(0)
    real = rng.normal(size=(300, 384)).astype(np.float32)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    primary = np.zeros(200, dtype=np.int64)  # 200 synthetic vectors carrying real chunk 0's text
    mixed = synthetic.mix_vectors(real, primary, rng, 0.015)
    assert mixed.dtype == np.float32 and mixed.shape == (200, 384)
    assert np.allclose(np.linalg.norm(mixed, axis=1), 1.0, atol=1e-5)
    to_primary = mixed @ real[0]
    assert to_primary.min() > 0.5 and to_primary.max() < 0.99  # its own chunk dominates, but not a copy
    pair = mixed @ mixed.T
    off_diagonal = pair[~np.eye(200, dtype=bool)]
    # noisy copies (perturb_vectors) of one chunk sit at cosine ~0.9 to each other: a 200-way tie
    copies = synthetic.perturb_vectors(np.repeat(real[:1], 200, axis=0), 0.015, rng)
    assert (copies @ copies.T)[~np.eye(200, dtype=bool)].min() > 0.85
    assert np.median(off_diagonal) < 0.8


def _seed(n_docs=2, per_doc=30, dim=16):
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta

    rng = np.random.default_rng(0)
    docs, chunks, tokens = {}, [], []
    for d in range(n_docs):
        doc_id = f"doc{d}"
        docs[doc_id] = Document(doc_id, f"2023 Q{d + 1} ACME.pdf", "", 10,
                                DocumentMeta("Acme Corp", "ACME", "10-Q", 2023, d + 1), per_doc)
        for i in range(per_doc):
            chunks.append(Chunk(d * per_doc + i + 1, doc_id, i, 1 + i // 5, 0, 10, f"text {i}"))
            tokens.append(["acme", "revenue", str(1000 + i), f"w{i % 7}", "cash"])
    vecs = rng.normal(size=(len(chunks), dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return synthetic.Seed(chunks, docs, tokens, vecs)


class _FakeEmbedder:
    dim = 16

    def encode_query(self, text):
        v = np.ones(16, dtype=np.float32)
        return v / np.linalg.norm(v)


@pytest.mark.parametrize("size", [25, 60, 250])
def test_synthetic_library_sizes(tmp_path, size):
    seed = _seed()
    lib = synthetic.SyntheticLibrary(seed, size, _FakeEmbedder(), np.random.default_rng(0), workdir=tmp_path)
    assert len(lib.chunk_ids) == size == len(lib.chunks) == len(lib.lexical) == lib.vectors.shape[0]
    assert len(lib.dense) == size
    assert np.allclose(np.linalg.norm(lib.vectors, axis=1), 1.0, atol=1e-5)
    assert sum(len(v) for v in lib.doc_chunks.values()) == size
    # replica r of a document is the same company r years earlier
    if size > 60:
        years = sorted({d.meta.fiscal_year for d in lib.docs.values()})
        assert years[-1] == 2023 and years[0] < 2023
    from desktop_rag.core.retrieve.hybrid import HybridRetriever
    from desktop_rag.settings import RetrievalSettings

    r = HybridRetriever(lib, RetrievalSettings(use_filters=False))
    for mode in ("dense", "bm25", "hybrid"):
        hits = r.search("acme revenue cash", 5, mode=mode)
        assert 0 < len(hits) <= 5


def test_headline_and_targets_keys():
    res = {
        "ingest": {"pages_per_s": 12.5, "peak_rss_mb": 900.0, "searchable_s_per_100_pages": 1.5},
        "search": {"sizes": {lab: {m: {"p50": 1.0, "p95": 2.0} for m in ("dense", "bm25", "hybrid")}
                             for lab in ("1k", "10k", "100k")}},
        "generation": {"first_token_ms": 900.0, "answer_total_ms": 5000.0, "gen_tok_s": 40.0,
                       "raw_gen_tok_s": 50.0, "gen_tok_s_ratio": 0.8, "raw_unconstrained_tok_s": 60.0},
        "cold_start": {"cold_start_ms": 7000.0},
    }
    res["search"]["sizes"]["100k"] |= {"hnsw_recall@10": 0.97, "rss_mb": 1700.0}  # the bench process: no row
    res["memory"] = {"size": 100_000, "peak_mb": 1200.0}  # the app's peak, measured in a child (bench_memory)
    h = bm.headline(res)
    for key in ("ingest_pages_per_s", "search_p95_ms", "first_token_ms", "answer_total_ms", "gen_tok_s",
                "raw_gen_tok_s", "gen_tok_s_ratio", "cold_start_ms", "peak_rss_mb"):
        assert key in h
    assert h["search_p95_ms"]["hybrid"]["100k"] == 2.0 and set(h["search_p95_ms"]) == {"dense", "bm25", "hybrid"}
    res.update(h)
    t = {x["name"]: x["pass"] for x in bm.targets(res)}
    assert t["ingest pages/s end-to-end"] is False
    assert t["hybrid search p95 ms @ 100k"] is True
    assert t["first token ms"] is True and t["short answer total ms"] is False
    assert t["pipeline / raw llama.cpp tok/s"] is False
    assert t["dropped filing searchable, s per 100 pages"] is True
    assert t["hnswlib recall@10 vs exact @ 100k"] is False  # 0.97 < 0.98
    assert t["cold start to ready ms"] is False and t["resident memory MB (app, peak) @ 100k"] is True
    assert h["rss_mb_100k"] == 1200.0 and h["rss_mb_100k_bench_process"] == 1700.0
    assert "first useful output ms (p95)" in t and t["first useful output ms (p95)"] is None  # not measured
    info = bm.machine_info()
    assert info["cores"] >= 1 and info["cpu_model"]


def test_first_useful_output_as_shipped():
    runs = [{"kind": "computed", "first_useful_ms": 120.0}] * 19 + [{"kind": "evidence", "first_useful_ms": 900.0}]
    assert bm.first_useful_as_shipped({"runs": runs, "model": "gemma"}) == pytest.approx(
        bm.percentile([120.0] * 19 + [900.0], 95), abs=0.1)
    assert bm.first_useful_as_shipped({"runs": runs, "model": ""}) is None  # no model: not as shipped
    assert bm.first_useful_as_shipped({"runs": runs[:19], "model": ""}) == 120.0  # all computed: no model needed
    res = {"first_useful_ms": 120.0, "real_recall": {"chunks": 22793, "recall@10": 0.995}, "hnsw_recall_real": 0.995}
    t = {x["name"]: x["pass"] for x in bm.targets(res)}
    assert t["first useful output ms (p95)"] is True
    assert t["hnswlib recall@10 vs exact, real library @ 22793"] is True


class _Event:
    def __init__(self, kind: str, answer: object = None) -> None:
        self.kind, self.answer = kind, answer


def _stream(events: list[_Event], closed: list[bool]):  # type: ignore[no-untyped-def]
    try:
        yield from events
    finally:
        closed.append(True)


def test_first_useful_stops_at_the_evidence_and_closes_the_stream():
    from desktop_rag.core.domain.types import Answer

    clock = iter([0.010, 0.250, 9.0]).__next__  # retrieved at 10 ms, evidence at 250 ms, tokens after
    closed: list[bool] = []
    out = bm.first_useful(_stream([_Event("retrieved"), _Event("evidence"), _Event("token"), _Event("answer")], closed),
                          0.0, clock)
    assert out == {"retrieved_ms": 10.0, "first_useful_ms": 250.0, "kind": "evidence"}
    assert closed == [True]  # the model never started
    computed = Answer("q", "$81,797 million", [], computed=True)
    clock = iter([0.100, 0.101]).__next__
    out = bm.first_useful(_stream([_Event("retrieved"), _Event("answer", computed)], []), 0.0, clock)
    assert out["kind"] == "computed" and out["first_useful_ms"] == 101.0
    refused = Answer("q", "The library has no filing of Tesla.", [], not_in_corpus=True)
    clock = iter([0.2, 0.3]).__next__
    assert bm.first_useful(_stream([_Event("retrieved"), _Event("answer", refused)], []), 0.0, clock)["kind"] == "refused"


def test_first_token_profile_names_the_tokens_evaluated_after_the_cached_prefix():
    gen = {"first_token_ms": 2500.0, "retrieve_ms": 60.0, "prompt_tokens": 792.0, "new_prompt_tokens": 284.0,
           "raw_first_token_ms": 2400.0, "answer_total_ms": 6000.0, "gen_tok_s": 30.0, "tokens_generated": 59.0,
           "raw_gen_tok_s": 29.0, "gen_tok_s_ratio": 1.03}
    res = {"generation": gen}
    res.update(bm.headline(res))
    res["targets"] = bm.targets(res)
    lines = [x for x in bm.explain(res) if x.startswith("first token")]
    assert lines and "~284 new tokens (~792 with the cached fixed prefix)" in lines[0]


def test_team_ef_sweep_from_the_command_line() -> None:
    from desktop_rag.cli import build_parser
    from desktop_rag.evaluation.bench_team import EF_SWEEP

    assert bm._team_ef_sweep(build_parser().parse_args(["bench", "--ef-sweep", "400, 1000"])) == (400, 1000)
    assert bm._team_ef_sweep(build_parser().parse_args(["bench"])) == EF_SWEEP


def test_the_fully_searchable_and_answer_time_rows():
    # the slowest per page of the files of 20 pages or more, scaled to a 300-page 10-K
    assert bm.complete_at([(4, 3.0), (50, 2.0), (100, 5.0)], 300) == 15.0
    assert bm.complete_at([(4, 1.0)], 300) == 75.0  # only short files: scaled all the same
    assert bm.complete_at([], 300) is None
    res = {"ingest": {"complete_s_300_pages": 12.0, "embedder": "all-MiniLM-L6-v2-static256@256"},
           "answers": {"p50_ms": 3500.0, "p95_ms": 14000.0}}
    res.update(bm.headline(res))
    t = {x["name"]: x["pass"] for x in bm.targets(res)}
    assert t["300-page 10-K fully searchable, s (all-MiniLM-L6-v2-static256@256)"] is True
    assert t["answer total ms, p95 over labelled questions"] is True
    assert t["answer total ms, median"] is False


def test_answer_times_are_measured_over_the_questions_as_shipped(build_library) -> None:
    import types

    from desktop_rag.core.answer.engine import AnswerEngine
    from tests.unit.core.answer.test_engine import ScriptedGenerator

    lib = build_library()
    gen = ScriptedGenerator('{"answer": "Apple\'s total net sales were $95,000 million.", "citations": []}')
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    ws = types.SimpleNamespace(engine=engine, embedder=lib.embedder, settings=lib.settings,
                               load_model=lambda: gen)
    out = bm.bench_answers(ws, ["What was Apple's total net sales in Q3 2023?"] * 2, lambda m: None)
    assert out["questions"] == 2 and out["budget_s"] == 15.0 and out["p95_ms"] >= out["p50_ms"] > 0
    assert all(r["attempt"] >= 1 and not r["budget_cut"] for r in out["runs"])
