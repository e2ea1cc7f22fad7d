"""Dev-set locations and loading for `main.py eval`."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation import devsets


def test_spread():
    assert devsets.spread(list(range(10)), 3) == [0, 3, 6]
    assert devsets.spread([1, 2], 5) == [1, 2]


def test_shared_dir_env_overrides_the_sibling_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(devsets.ENV_SHARED, raising=False)
    from desktop_rag.paths import app_root

    assert devsets.shared_dir() == app_root().parent / "shared"
    monkeypatch.setenv(devsets.ENV_SHARED, str(tmp_path))
    assert devsets.shared_dir() == tmp_path.resolve()
    assert devsets.sec10q_pdfs() == tmp_path.resolve() / "data" / "sec10q" / "pdfs"


def test_load_devset_skips_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text('{"id": "a"}\n\n{"id": "b"}\n', "utf-8")
    assert [r["id"] for r in devsets.load_devset(f)] == ["a", "b"]


def test_load_devset_reports_bad_lines_when_asked(tmp_path: Path) -> None:
    f = tmp_path / "cells.jsonl"
    f.write_text('{"doc": "a.pdf"}\nnot json\n{"doc": "b.pdf"}\n', "utf-8")
    with pytest.raises(ValueError):
        devsets.load_devset(f)
    errors: list[str] = []
    assert [r["doc"] for r in devsets.load_devset(f, errors)] == ["a.pdf", "b.pdf"]
    assert len(errors) == 1 and errors[0].startswith("cells.jsonl line 2: invalid JSON")


def test_statement_cells_are_read_from_the_repos_eval_folder() -> None:
    from desktop_rag.paths import app_root

    path = devsets.statement_cells_path()
    assert path == app_root() / "eval" / "statement_cells.jsonl"
    cells = devsets.load_statement_cells()
    assert cells == devsets.load_statement_cells(path)
    assert cells and {"doc", "page", "statement", "label", "period_end", "months", "text", "value"} <= set(cells[0])


def test_label_pdf_dirs_need_both_sets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(devsets.ENV_SHARED, str(tmp_path))
    assert devsets.label_pdf_dirs() == []
    for name in ("financebench-dev", "sec10q"):
        (tmp_path / "data" / name / "pdfs").mkdir(parents=True)
    assert devsets.label_pdf_dirs() == [tmp_path.resolve() / "data" / "financebench-dev" / "pdfs",
                                        tmp_path.resolve() / "data" / "sec10q" / "pdfs"]


def test_category_from_tags():
    cat = devsets.category_from_tags
    assert cat({"answerable": False, "tags": ["other-company", "unanswerable"]}) == "refuse-company"
    assert cat({"answerable": False, "tags": ["fiscal-calendar", "period-not-covered"]}) == "refuse-period"
    assert cat({"answerable": False, "tags": ["kpi", "never-disclosed"]}) == "refuse-undisclosed"
    assert cat({"answerable": True, "tags": ["legal-proceedings", "notes"], "answer_type": "text"}) == "legal-risk"
    assert cat({"answerable": True, "tags": ["segment-revenue", "yoy"], "answer_type": "number"}) == "segment"
    assert cat({"answerable": True, "tags": ["income-statement", "yoy"], "answer_type": "number"}) == "multi-year"
    assert cat({"answerable": True, "tags": ["tax", "mdna"], "answer_type": "number"}) == "mdna"
    assert cat({"answerable": True, "tags": ["cash-flow"], "answer_type": "number"}) == "line-item"
    assert devsets.with_category({"category": "persona", "tags": ["cash-flow"], "answerable": True})["category"] == "persona"


def test_financebench_category():
    cat = devsets.financebench_category
    assert cat("What is the FY2017 operating cash flow ratio?", "metrics-generated") == "metric"
    assert cat("Which of JPM's business segments had the lowest net revenue in 2021 Q1?", "novel-generated") == "segment"
    assert cat("How much has the effective tax rate of Corning changed between FY2021 and FY2022?",
               "domain-relevant") == "multi-year"
    assert cat("Does Corning have positive working capital based on FY2022 data?", "domain-relevant") == "line-item"
    assert cat("Does Foot Locker's new CEO have previous CEO experience?", "novel-generated") == "mdna"
    assert cat("What legal proceedings is the company involved in?", "novel-generated") == "legal-risk"


UPSTREAM = {
    "financebench_id": "financebench_id_04735", "company": "Adobe", "doc_name": "ADOBE_2015_10K",
    "question_type": "metrics-generated",
    "question": "What is the FY2015 operating cash flow ratio for Adobe? Round your answer to two decimal places.",
    "answer": "0.66", "evidence": [{"evidence_text": "x", "evidence_page_num": 58},
                                   {"evidence_text": "y", "evidence_page_num": 62},
                                   {"evidence_text": "z", "evidence_page_num": 58}],
}


def test_convert_financebench_pages_are_one_based_and_doc_is_a_file_name():
    row = devsets.convert_financebench(UPSTREAM)
    assert row["id"] == "fbsrc-04735" and row["doc"] == "ADOBE_2015_10K.pdf"
    assert row["pages"] == [59, 63]  # 0-based 58, 62; repeats dropped
    assert row["answerable"] is True and row["category"] == "metric" and row["answer_type"] == "number"
    assert (row["value"], row["unit"], row["decimals"]) == (0.66, "", 2)
    pct = devsets.convert_financebench(UPSTREAM | {"answer": "65.4%"})
    assert (pct["value"], pct["unit"], pct["decimals"]) == (65.4, "percent", 1)
    usd = devsets.convert_financebench(UPSTREAM | {"answer": "$0.40", "question": "How much (in USD billions) did X pay?"})
    assert (usd["value"], usd["unit"]) == (0.4, "usd_billions")
    text = devsets.convert_financebench(UPSTREAM | {"question_type": "novel-generated", "answer": "Yes.",
                                                    "question": "Does the new CEO have CEO experience?"})
    assert text["answer_type"] == "text" and "value" not in text and text["category"] == "mdna"


def test_convert_metric_label():
    lab = {"id": "fbm-001", "question": "Q?", "doc": "NIKE_2019_10K.pdf", "answer": "0.66", "value": 0.6612,
           "unit": "ratio", "decimals": 2, "formula": "a / b",
           "inputs": [{"label": "A", "period": "FY2019", "value": 1.0, "page": 50},
                      {"label": "B", "period": "FY2019", "value": 2.0, "page": 52},
                      {"label": "C", "period": "FY2018", "value": 3.0, "page": 50}],
           "answerable": True, "category": "metric", "source": "handmade"}
    row = devsets.convert_metric_label(lab)
    assert row["pages"] == [50, 52] and row["category"] == "metric" and row["value"] == 0.6612
    assert row["decimals"] == 2 and row["unit"] == "ratio" and row["answer_type"] == "number"
    no = devsets.convert_metric_label(lab | {"answerable": False})
    assert no["answerable"] is False and no["category"] == "refuse-undisclosed" and no["pages"] == []


def test_load_set_financebench_with_and_without_project_labels(monkeypatch, tmp_path):
    import json

    shared = tmp_path / "shared"
    up = shared / "data" / "financebench-dev" / "data"
    up.mkdir(parents=True)
    (up / "financebench_dev.jsonl").write_text(json.dumps(UPSTREAM) + "\n", "utf-8")
    monkeypatch.setenv(devsets.ENV_SHARED, str(shared))
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    s = devsets.load_set("financebench-dev", eval_dir)
    assert len(s.answerable) == 1 and s.unanswerable == [] and s.cells_path is None
    assert any("financebench_dev_labels.jsonl" in n for n in s.notes)
    assert s.corpus == (shared / "data" / "financebench-dev" / "pdfs").resolve()
    labels = [{"id": "fb-001", "question": "q", "answerable": True, "doc": "NIKE_2019_10K.pdf", "pages": [3],
               "evidence": "e", "answer": "a", "answer_type": "text", "category": "mdna", "source": "handmade",
               "tags": []},
              {"id": "fb-oc-001", "question": "q2", "answerable": False, "doc": None, "pages": [], "evidence": "",
               "answer": "", "answer_type": None, "category": "refuse-company", "source": "handmade", "tags": []}]
    (eval_dir / "financebench_dev_labels.jsonl").write_text("\n".join(json.dumps(r) for r in labels), "utf-8")
    (eval_dir / "statement_cells.jsonl").write_text("", "utf-8")
    s = devsets.load_set("financebench-dev", eval_dir)
    assert [r["id"] for r in s.answerable] == ["fbsrc-04735", "fb-001"]
    assert [r["id"] for r in s.unanswerable] == ["fb-oc-001"]
    assert s.cells_path == eval_dir / "statement_cells.jsonl"
    with pytest.raises(ValueError):
        devsets.load_set("nope", eval_dir)


def test_load_set_sec10q_has_categories():
    from desktop_rag.paths import app_root

    s = devsets.load_set("sec10q", app_root() / "eval")
    assert len(s.answerable) >= 100 and len(s.unanswerable) >= 20
    assert {r["category"] for r in s.items} <= set(devsets.CATEGORIES)


def test_a_blind_batch_kept_in_eval_is_a_set_of_its_own_filings(tmp_path: Path) -> None:
    import json as _json

    from desktop_rag.evaluation.devsets import load_set, pool_set_names

    (tmp_path / "pool_sets.json").write_text(_json.dumps({"sets": {"pool_p9": ["A_2020_10K.pdf"]}}))
    (tmp_path / "pool_p9.jsonl").write_text(
        _json.dumps({"id": "p9-001", "question": "What was A's revenue in 2020?", "answerable": True,
                     "doc": "A_2020_10K.pdf", "pages": [3], "answer": "$1"}) + "\n"
        + _json.dumps({"id": "p9-002", "question": "What was B's revenue in 2020?", "answerable": False}) + "\n")
    assert pool_set_names(tmp_path) == ("pool_p9",)
    es = load_set("pool_p9", tmp_path)
    assert es.files == ["A_2020_10K.pdf"] and es.corpus.name == "pdfs" and es.corpus.parent.name == "filings-pool"
    assert [r["id"] for r in es.answerable] == ["p9-001"] and [r["id"] for r in es.unanswerable] == ["p9-002"]
