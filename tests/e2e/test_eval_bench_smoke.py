"""Smoke test: `main.py eval` and `main.py bench --quick` run end to end on one small
real filing and write well-formed JSON. No timing assertions."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILING = "2022 Q3 AAPL.pdf"


def _filing() -> Path:
    from desktop_rag.evaluation.devsets import sec10q_pdfs

    for folder in (ROOT / "corpus", sec10q_pdfs()):
        if (folder / FILING).is_file():
            return folder / FILING
    pytest.skip(f"{FILING} not available")


def _run(args, tmp_path, timeout):
    env = dict(os.environ, DESKTOP_RAG_HOME=str(tmp_path / "home"))
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("evalbench")
    corpus = tmp / "corpus"
    corpus.mkdir()
    shutil.copy(_filing(), corpus / FILING)
    rows = [json.loads(line) for line in (ROOT / "eval" / "devset.jsonl").read_text("utf-8").splitlines() if line.strip()]
    subset = [r for r in rows if r.get("doc") == FILING][:4] + [r for r in rows if not r.get("answerable")][:2]
    (tmp / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in subset) + "\n", "utf-8")
    return tmp


def test_eval_smoke(workdir):
    out = workdir / "eval.json"
    p = _run(["--data-dir", str(workdir / "data"), "eval", "--corpus", str(workdir / "corpus"),
              "--devset", str(workdir / "dev.jsonl"), "--answers", "2", "--failures", "--json", str(out)],
             workdir, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    for heading in ("Retrieval (k=10", "Answers (full pipeline) and trust measures", "By category", "Targets"):
        assert heading in p.stdout, heading
    res = json.loads(out.read_text("utf-8"))
    assert list(res["sets"]) == ["dev"]
    r = res["sets"]["dev"]
    assert r["library"]["dir"] == str((workdir / "data" / "eval" / "dev").resolve())  # the set's cached library
    assert r["n_answerable"] == 4 and r["n_ooc"] == 2
    for variant in ("dense-plain", "bm25-plain", "hybrid"):
        page = r["retrieval"][variant]["page"]
        for key in ("P@1", "R@5", "F1@10", "MRR", "hit@10"):
            assert 0.0 <= page[key] <= 1.0
        assert 0.0 <= r["retrieval"][variant]["doc"]["hit@10"] <= 1.0
    assert 0.0 <= r["ann"]["recall@10"] <= 1.0
    a = r["answers"]
    assert a["n_answerable"] == 2 and a["n_ooc"] >= 1
    for key in ("quotes_exact_rate", "quotes_verbatim_rate", "refusal_rate_ooc", "false_refusal_rate",
                "extractive_rate", "correct_rate", "cited_right_page_rate", "cites_other_company_rate",
                "metric_match_rate", "wrong_computed_rate", "faithfulness_mean", "by_category"):
        assert key in a
    for row in a["rows"]:
        for c in row["citations"]:
            assert isinstance(c["exact"], bool) and c["verbatim"] in (True, False, None)
    assert r["by_category"] and all("n" in d for d in r["by_category"].values())
    assert isinstance(r["failures"]["retrieval"], list)

    # a second run reuses the cached library: nothing is ingested again
    p = _run(["--data-dir", str(workdir / "data"), "eval", "--corpus", str(workdir / "corpus"),
              "--devset", str(workdir / "dev.jsonl"), "--no-answers"], workdir, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "ingesting" not in p.stderr


def test_bench_smoke(workdir):
    out = workdir / "bench.json"
    p = _run(["--data-dir", str(workdir / "data"), "bench", "--quick", "--corpus", str(workdir / "corpus"),
              "--json", str(out)], workdir, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Targets" in p.stdout
    res = json.loads(out.read_text("utf-8"))
    assert isinstance(res["ingest_pages_per_s"], (int, float))
    assert set(res["search_p95_ms"]) == {"dense", "bm25", "hybrid"}
    for mode in ("dense", "bm25", "hybrid"):
        assert set(res["search_p95_ms"][mode]) == {"200", "1k"}
    for key in ("first_token_ms", "answer_total_ms", "gen_tok_s", "raw_gen_tok_s", "gen_tok_s_ratio",
                "cold_start_ms", "peak_rss_mb", "date"):
        assert key in res
    assert res["cold_start_ms"] > 0 and res["peak_rss_mb"] > 0
    # the memory row: a child process on a 200-chunk on-disk library, RSS after each of the app's steps
    mem = res["memory"]
    assert "error" not in mem, mem.get("error")
    assert mem["size"] == 200 and mem["library"]["chunks"] == 200
    assert set(mem["steps"]) == {"start", "library", "embedder", "model", "search", "answer"}
    assert all(step["rss_mb"] > 0 for step in mem["steps"].values())
    assert res["rss_mb_app"] == mem["peak_mb"] > 0
    assert "Resident memory of the app" in p.stdout
    assert res["machine"]["cores"] >= 1 and res["machine"]["cpu_model"]
