"""`main.py bench --library URL` on a real PostgreSQL: the synthetic corpus is written once
(and reused while its size and seed are unchanged), a real team library is never filled,
and the rows come out with sane values."""

from __future__ import annotations

import pytest

from desktop_rag.core.library import Library
from desktop_rag.evaluation.bench_run import seed_from_library
from desktop_rag.evaluation.bench_team import bench_team, render_team
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
    again = bench_team(pg_database, seed_lib, seed, fake_embedder, Settings(), 40, QUESTIONS, lambda _m: None,
                       two_desktops=False)
    assert first["live"]["searchable_ms"]["missed"] == 0 and "two_desktops" not in first["live"]
    assert again["cached"] and again["chunks"] == 40
    assert "recall@10 vs exact" in "\n".join(render_team(again))


def test_team_bench_never_fills_a_real_library(build_library, pg_database: str, tmp_path,
                                               fake_embedder: FakeEmbedder) -> None:
    seed_lib = build_library()
    url = init_team(pg_database, fake_embedder)
    real = Library(tmp_path / "desk", Settings(), fake_embedder, location=url)
    from desktop_rag.core.backends.copy import copy_library

    copy_library(seed_lib.store, real.store)
    with pytest.raises(ValueError, match="holds a team library"):
        bench_team(url, seed_lib, seed_from_library(seed_lib), fake_embedder, Settings(), 40, QUESTIONS,
                   lambda _m: None)
    assert len(real.documents()) == 2
    real.close()
