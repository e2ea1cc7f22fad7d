"""Command plumbing of `main.py eval` (no model, no index)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation import eval_run


def test_apply_overrides():
    from desktop_rag.settings import Settings

    s = Settings()
    done = eval_run.apply_overrides(s, ["retrieval.alpha=0.7", "retrieval.use_filters=false", "retrieval.top_k=5"])
    assert s.retrieval.alpha == 0.7 and s.retrieval.use_filters is False and s.retrieval.top_k == 5
    assert done["retrieval.alpha"] == 0.7
    with pytest.raises(ValueError):
        eval_run.apply_overrides(s, ["retrieval.nope=1"])
    with pytest.raises(ValueError):
        eval_run.apply_overrides(s, ["alpha=1"])


def test_an_embedding_override_swaps_the_embedder_for_the_run_only(tmp_path: Path) -> None:
    from desktop_rag.core.workspace import Workspace
    from tests.unit.core.index.test_embedder import static_folder

    static_folder(tmp_path / "models" / "tiny-static")
    ws = Workspace(tmp_path / "data", tmp_path / "models")
    try:
        assert ws.library.mismatch() == []  # empty: nothing to re-index yet
        ws.library.store.set_manifest_values(**ws.library.expected_manifest())  # built with MiniLM
        done = eval_run.override_workspace(ws, ["embedding.model=tiny-static", "retrieval.alpha=0.5"])
        assert done == {"embedding.model": "tiny-static", "retrieval.alpha": 0.5}
        assert ws.embedder.model_id == "tiny-static@8" and ws.library.embedder is ws.embedder
        assert any(p.startswith("embedder:") for p in ws.library.mismatch())  # the run re-indexes
        assert not (tmp_path / "data" / "settings.json").exists()  # nothing remembered
    finally:
        ws.close()


# -- the command's pieces on a small real library (fake embedder, no language model) ------------

def _workspace(lib, settings, data_dir):
    from types import SimpleNamespace

    from desktop_rag.core.answer.engine import AnswerEngine

    def no_model():
        raise FileNotFoundError("no model in unit tests")

    return SimpleNamespace(library=lib, settings=settings, engine=AnswerEngine(lib, settings), data_dir=data_dir,
                           load_model=no_model)


def _items():
    from desktop_rag.evaluation.devsets import with_category

    rows = [
        {"id": "q1", "question": "What were Apple's total net sales in the quarter ended July 1, 2023?",
         "answerable": True, "doc": "2023 Q3 AAPL.pdf", "pages": [2], "answer": "$81,797 million",
         "answer_type": "number", "tags": ["income-statement"]},
        {"id": "q2", "question": "What drove NVIDIA data center revenue?", "answerable": True,
         "doc": "2023 Q2 NVDA.pdf", "pages": [2], "answer": "generative artificial intelligence workloads",
         "answer_type": "text", "tags": ["mdna"]},
        {"id": "oc1", "question": "How many employees does Tesla have?", "answerable": False, "doc": None,
         "pages": [], "answer": "", "answer_type": None, "tags": ["other-company"]},
    ]
    return [with_category(r) for r in rows]


def test_evaluate_set_reports_per_category_without_a_model(build_library, tmp_path):
    import argparse

    from desktop_rag.evaluation.devsets import EvalSet
    from desktop_rag.settings import Settings

    settings = Settings()
    lib = build_library(settings=settings)
    items = _items()
    es = EvalSet("mini", tmp_path, [i for i in items if i["answerable"]], [i for i in items if not i["answerable"]], [])
    ns = argparse.Namespace(limit=0, variants=None, no_answers=True, answers=None, no_cells=True, models_dir=None)
    res = eval_run.evaluate_set(_workspace(lib, settings, tmp_path), es, ns, lambda m: None)
    assert res["n_answerable"] == 2 and res["n_ooc"] == 1
    assert set(res["retrieval"]) == {"hybrid", "dense-plain", "bm25-plain"}
    assert res["retrieval"]["hybrid"]["page"]["hit@10"] == 1.0
    assert set(res["by_category"]) == {"line-item", "mdna", "refuse-company"}
    assert res["by_category"]["line-item"]["retrieval"]["hit@10"] == 1.0
    assert res["answers"] is None
    text = eval_run.render({"date": "", "sets": {"mini": res, "other": res}, "seconds": 1.0}, show_failures=True)
    assert "Retrieval (k=10" in text and "By category" in text and "mini n" in text and "other n" in text


def test_evaluate_answers_scores_trust_measures(build_library, tmp_path):
    from desktop_rag.settings import Settings

    settings = Settings()
    lib = build_library(settings=settings)
    items = _items()
    ws = _workspace(lib, settings, tmp_path)
    res = eval_run.evaluate_answers(ws, [i for i in items if i["answerable"]], [i for i in items if not i["answerable"]])
    assert res["n_answerable"] == 2 and res["n_ooc"] == 1
    rows = {r["id"]: r for r in res["rows"]}
    for r in res["rows"]:
        for c in r["citations"]:
            assert c["exact"] is True  # the extractive answer quotes the page
            assert c["verbatim"] is True  # plain ASCII pages: canonical = raw
    q1 = rows["q1"]
    assert not q1["not_in_corpus"] and q1["citations"], q1
    assert q1["cites_other_company"] is False  # cites Apple for an Apple question
    assert q1["cited_right_page"] is True
    # the same NVIDIA question labelled on Apple's filing: its answer cites another company
    mislabelled = [i | {"id": "q2x", "doc": "2023 Q3 AAPL.pdf"} for i in items if i["id"] == "q2"]
    res2 = eval_run.evaluate_answers(ws, mislabelled, [])
    r2 = res2["rows"][0]
    assert rows["q2"]["citations"] and rows["q2"]["cites_other_company"] is False
    assert r2["citations"] and r2["cites_other_company"] is True and res2["cites_other_company_rate"] == 1.0
    assert res["refusal_rate_ooc"] is not None and "by_category" in res


def test_prepare_library_reindexes_when_the_embedder_changed(build_library, tmp_path, fake_embedder):
    from desktop_rag.core.index.library import Library
    from desktop_rag.evaluation.devsets import EvalSet
    from desktop_rag.settings import Settings

    data = tmp_path / "cache"
    settings = Settings()
    lib = build_library(settings=settings, data_dir=data)
    n_chunks = len(lib.chunk_ids)
    lib.close()
    embedder_cls = type(fake_embedder)
    lib2 = Library(data, settings, embedder_cls(dim=fake_embedder.dim, name="other"))  # a new model, same dim
    assert lib2.mismatch()
    logs: list[str] = []
    es = EvalSet("mini", tmp_path / "no-such-folder", [], [], [])
    notes = eval_run.prepare_library(_workspace(lib2, settings, data), es, logs.append)
    assert lib2.mismatch() == []
    assert any("re-index" in m for m in logs) and any(n.startswith("re-indexed") for n in notes)
    assert any("corpus folder not found" in n for n in notes)
    lib2.refresh()
    assert len(lib2.chunk_ids) == n_chunks and lib2.store.manifest()["embedder"].startswith("other@")
    lib2.close()


def test_library_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv(eval_run.ENV_EVAL_CACHE, raising=False)
    assert eval_run.library_dir(tmp_path / "d", "sec10q") == (tmp_path / "d").resolve() / "eval" / "sec10q"
    monkeypatch.setenv(eval_run.ENV_EVAL_CACHE, str(tmp_path / "cache"))
    assert eval_run.library_dir(tmp_path / "d", "sec10q") == (tmp_path / "cache").resolve() / "sec10q"
    assert eval_run.library_dir(tmp_path / "d", "sec10q", str(tmp_path / "x")) == (tmp_path / "x").resolve()


def test_ingest_order_puts_most_questions_per_page_first(tmp_path):
    import pymupdf

    def pdf(name, n):
        doc = pymupdf.open()
        for _ in range(n):
            doc.new_page()
        doc.save(tmp_path / name)
        return tmp_path / name

    big, small, none = pdf("big.pdf", 10), pdf("small.pdf", 2), pdf("none.pdf", 1)
    order = eval_run.ingest_order([none, big, small], {"big.pdf": 4, "small.pdf": 1})
    assert [p.name for p in order] == ["small.pdf", "big.pdf", "none.pdf"]  # 0.5, 0.4, 0 per page


def test_top_pages_are_distinct_with_first_rank():
    pages = [("a.pdf", 3), ("a.pdf", 3), ("b.pdf", 1), ("a.pdf", 4), ("b.pdf", 1), ("a.pdf", 9)]
    assert eval_run.top_pages(pages, 3) == ["a.pdf p.3 (#1)", "b.pdf p.1 (#3)", "a.pdf p.4 (#4)"]


def test_statement_cells_are_read_from_a_team_library(monkeypatch, tmp_path):
    """On a team library (``--library URL`` before ``eval``) the cells are scored from the
    server's filings: the workspace that reads the statements gets the same location, not
    only the data dir (which holds no filing then, so every cell was a miss)."""
    import types

    from desktop_rag.core import workspace

    seen: list[str | None] = []

    class FakeWorkspace:
        def __init__(self, data_dir, models_dir=None, settings=None, library=None):
            seen.append(library)
            self.library = types.SimpleNamespace(statements=lambda doc_id: [])

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def documents_matching(self, key):
            return [types.SimpleNamespace(doc_id="d1", file_name=key)]

    monkeypatch.setattr(workspace, "Workspace", FakeWorkspace)
    url = "postgresql://reader@db.example/research"
    assert eval_run.extract_statements(tmp_path, None, "F.pdf", url) == {"doc": "F.pdf", "statements": []}
    assert eval_run.extract_statements(tmp_path, None, "F.pdf") == {"doc": "F.pdf", "statements": []}
    assert seen == [url, None]
