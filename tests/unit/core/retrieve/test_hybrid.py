"""core/retrieve/hybrid.py: min-max fusion, MMR, question filters and the context gate.

The Library is built from small generated PDFs with the deterministic fake embedder."""

from __future__ import annotations

import re

import numpy as np
import pytest

from desktop_rag.core.retrieve.hybrid import HybridRetriever, fuse, minmax, mmr
from desktop_rag.settings import RetrievalSettings, Settings


# -- min-max and fusion ---------------------------------------------------------------------------
def test_minmax_scales_to_unit_interval() -> None:
    assert minmax({1: 2.0, 2: 4.0, 3: 3.0}) == {1: 0.0, 2: 1.0, 3: 0.5}
    assert minmax({}) == {}


def test_minmax_constant_lists_map_to_one() -> None:
    assert minmax({7: 0.3}) == {7: 1.0}
    assert minmax({1: 5.0, 2: 5.0}) == {1: 1.0, 2: 1.0}
    assert minmax({1: -2.0, 2: -2.0}) == {1: 1.0, 2: 1.0}


def test_fuse_missing_from_one_list_scores_zero_there() -> None:
    dense = {1: 0.9, 2: 0.5, 3: 0.1}
    lexical = {2: 10.0, 4: 2.0}
    fused = fuse(dense, lexical, alpha=0.6)
    assert set(fused) == {1, 2, 3, 4}
    assert fused[1] == pytest.approx(0.6 * 1.0 + 0.4 * 0.0)  # not in BM25 list
    assert fused[2] == pytest.approx(0.6 * 0.5 + 0.4 * 1.0)
    assert fused[3] == pytest.approx(0.0)
    assert fused[4] == pytest.approx(0.6 * 0.0 + 0.4 * 0.0)  # bottom of BM25, absent from dense


def test_fuse_alpha_extremes_and_empty_lists() -> None:
    dense = {1: 0.2, 2: 0.8}
    lexical = {1: 9.0, 2: 1.0}
    assert fuse(dense, lexical, 1.0) == pytest.approx({1: 0.0, 2: 1.0})
    assert fuse(dense, lexical, 0.0) == pytest.approx({1: 1.0, 2: 0.0})
    assert fuse({}, lexical, 0.5) == pytest.approx({1: 0.5, 2: 0.0})
    assert fuse(dense, {}, 0.5) == pytest.approx({1: 0.0, 2: 0.5})
    assert fuse({}, {}, 0.5) == {}


def test_fuse_constant_list_counts_fully() -> None:
    fused = fuse({1: 0.4}, {1: 3.0, 2: 1.0}, alpha=0.5)
    assert fused == pytest.approx({1: 1.0, 2: 0.0})


# -- MMR ---------------------------------------------------------------------------------------------
def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


@pytest.fixture
def mmr_case() -> tuple[list[int], dict[int, float], dict[int, np.ndarray]]:
    vectors = {
        1: _unit([1.0, 0.0, 0.0]),
        2: _unit([1.0, 0.02, 0.0]),  # near-duplicate of 1
        3: _unit([0.0, 1.0, 0.0]),  # different content
        4: _unit([0.0, 0.0, 1.0]),
    }
    relevance = {1: 1.0, 2: 0.95, 3: 0.7, 4: 0.1}
    return [1, 2, 3, 4], relevance, vectors


def test_mmr_prefers_diverse_item_over_near_duplicate(mmr_case) -> None:
    ranked, rel, vecs = mmr_case
    picked = mmr(ranked, rel, vecs, lam=0.5, k=3)
    assert picked[0] == 1
    assert picked[1] == 3, "the near-duplicate must not come second"
    assert picked.index(3) < (picked.index(2) if 2 in picked else 99)


def test_mmr_lambda_one_is_pure_relevance(mmr_case) -> None:
    ranked, rel, vecs = mmr_case
    assert mmr(ranked, rel, vecs, lam=1.0, k=4) == [1, 2, 3, 4]
    assert mmr(ranked, rel, vecs, lam=1.0, k=2) == [1, 2]


def test_mmr_edge_cases(mmr_case) -> None:
    ranked, rel, vecs = mmr_case
    assert mmr([], rel, vecs, lam=0.5, k=3) == []
    assert len(mmr(ranked, rel, vecs, lam=0.5, k=10)) == 4  # k larger than the pool
    assert sorted(mmr(ranked, rel, vecs, lam=0.0, k=4)) == [1, 2, 3, 4]


# -- planning, search and the gate over a tiny library ----------------------------------------------------
@pytest.fixture
def library(build_library):
    return build_library()


@pytest.fixture
def retriever(library) -> HybridRetriever:
    return HybridRetriever(library, library.settings.retrieval)


def _doc_of(library, ticker: str) -> str:
    return next(d.doc_id for d in library.documents() if d.meta.ticker == ticker)


def test_plan_filters_company_and_period(library, retriever: HybridRetriever) -> None:
    plan = retriever.plan("What was Apple's total net sales in Q3 2023?")
    assert plan.doc_ids == [_doc_of(library, "AAPL")]
    assert plan.filters["company"] == ["Apple Inc."]
    assert "Q3 2023" in plan.filters["period"]
    assert "revenue" in plan.bm25_terms
    assert "apple" not in plan.bm25_terms  # used by the filter, no longer a BM25 term


def test_plan_without_names_searches_everything(retriever: HybridRetriever) -> None:
    plan = retriever.plan("Which company discussed generative artificial intelligence?")
    assert plan.doc_ids is None


def test_plan_unknown_period_is_relaxed(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What were Apple's net sales in Q1 2019?")
    assert "period_relaxed" in plan.filters
    assert plan.doc_ids is not None and len(plan.doc_ids) == 1  # still Apple only


def test_plan_respects_use_filters_off(library) -> None:
    cfg = RetrievalSettings(use_filters=False)
    plan = HybridRetriever(library, cfg).plan("What was Apple's total net sales in Q3 2023?")
    assert plan.doc_ids is None and not plan.filters and plan.filters.to_dict() == {}


def test_search_returns_relevant_hits_from_the_filtered_document(library, retriever: HybridRetriever) -> None:
    hits = retriever.search("What was Apple's total net sales in Q3 2023?", k=3)
    assert hits
    apple = _doc_of(library, "AAPL")
    assert all(h.doc.doc_id == apple for h in hits)
    assert "Total net sales 81,797" in hits[0].chunk.text
    assert hits[0].bm25 > 0 and hits[0].cosine > 0
    scores = [h.score for h in hits]
    assert max(scores) == scores[0]


@pytest.mark.parametrize("mode", ["dense", "bm25", "exact", "hybrid"])
def test_search_modes(library, retriever: HybridRetriever, mode: str) -> None:
    hits = retriever.search("NVIDIA data center revenue accelerated computing", k=2, mode=mode)
    assert hits
    assert all(h.doc.meta.ticker == "NVDA" for h in hits)
    if mode == "bm25":
        assert all(h.bm25 > 0 for h in hits)


def test_search_doc_scope(library, retriever: HybridRetriever) -> None:
    nvda = _doc_of(library, "NVDA")
    hits = retriever.search("net sales research and development", k=5, doc_scope=[nvda])
    assert hits and {h.doc.doc_id for h in hits} == {nvda}


def test_expand_adds_same_page_neighbours(build_library) -> None:
    long_page = "\n".join(
        f"Paragraph {i} discusses liquidity, cash requirements and the capital return program in detail."
        for i in range(40)
    )
    settings = Settings()
    settings.chunking.words_per_chunk = 60
    settings.chunking.overlap_words = 10
    lib = build_library({"2023 Q3 AAPL.pdf": [long_page, "Another page about something else entirely."]},
                        settings=settings)
    settings.retrieval.page_ranking = False  # several chunks of one page may rank (this tests expansion)
    ret = HybridRetriever(lib, settings.retrieval)
    page1 = [c for c in lib.chunks.values() if c.page == 1]
    assert len(page1) >= 3
    middle = sorted(page1, key=lambda c: c.ordinal)[1]
    hits = [h for h in ret.search("liquidity cash requirements", k=10) if h.chunk.chunk_id == middle.chunk_id]
    assert hits
    out = ret.expand(hits, limit=1)
    assert [h.chunk.ordinal for h in out] == [middle.ordinal - 1, middle.ordinal, middle.ordinal + 1]
    assert [h.expanded for h in out] == [True, False, True]
    assert all(h.chunk.page == 1 for h in out)


def test_gate_passes_for_answerable_question(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What was Apple's total net sales in Q3 2023?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert gate.passed, gate.reason


def test_gate_rejects_unknown_company(retriever: HybridRetriever) -> None:
    plan = retriever.plan("How many vehicles did Tesla deliver in Q3 2023?")
    hits = retriever.search(plan)
    assert hits, "the gate, not retrieval, must be what says no"
    gate = retriever.gate(plan, hits)
    assert not gate.passed
    assert "Tesla" in gate.reason


def test_gate_rejects_when_no_hits(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What was Apple's total net sales in Q3 2023?")
    assert not retriever.gate(plan, []).passed


def test_words_of_the_question_missing_from_the_passages_are_no_reason_to_refuse(retriever: HybridRetriever) -> None:
    # a count of the question's words in the passages used to refuse here; an ordinary word
    # ("late", "really") or an abbreviation no filing prints says nothing about the answer
    for question in ("What did Apple say about dividend policy and goodwill impairment?",
                     "What were Apple's total net sales in Q3 2023, really, in late July?"):
        plan = retriever.plan(question)
        assert retriever.gate(plan, retriever.search(plan)).passed, question
    # the old rule stays available as a setting, off by default
    strict = HybridRetriever(retriever.library, RetrievalSettings(gate_min_terms=2, gate_min_coverage=0.5))
    plan = strict.plan("What did Apple say about dividend policy and goodwill impairment?")
    gate = strict.gate(plan, strict.search(plan))
    assert not gate.passed and "goodwill" in gate.reason


def test_gate_rejects_period_not_in_library(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What were Apple's total net sales in Q1 2019?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert not gate.passed
    assert gate.reason.startswith("No filing of Apple Inc. covers Q1 2019 (the library has ")


def test_gate_similarity_thresholds(library) -> None:
    strict = RetrievalSettings(gate_min_cosine=0.99, gate_min_bm25=99.0)
    ret = HybridRetriever(library, strict)
    plan = ret.plan("What was Apple's total net sales in Q3 2023?")
    gate = ret.gate(plan, ret.search(plan))
    assert not gate.passed
    assert "too far from the question" in gate.reason
    lenient = HybridRetriever(library, RetrievalSettings(gate_min_cosine=0.0, gate_min_bm25=0.0))
    plan = lenient.plan("What was Apple's total net sales in Q3 2023?")
    assert lenient.gate(plan, lenient.search(plan)).passed


def test_unknown_entities_ignores_sentence_initial_capital(retriever: HybridRetriever) -> None:
    assert retriever.unknown_entities("Describe Apple's services revenue") == []
    assert retriever.unknown_entities("What did Apple say about Zorblax?") == ["Zorblax"]


@pytest.mark.parametrize("month", ["Jan", "Sept", "Dec.", "Oct"])
def test_a_shortened_month_is_no_unknown_name(retriever: HybridRetriever, month: str) -> None:
    # "restructuring (Jan 2023 8-K)": the filing prints "January"
    assert retriever.unknown_entities(f"What did Apple say in its {month} 2023 8-K about Zorblax?") == ["Zorblax"]


@pytest.mark.parametrize("code", ["USD", "EUR", "TTM", "YoY"])
def test_a_currency_or_span_code_is_no_unknown_name(retriever: HybridRetriever, code: str) -> None:
    # "Answer in USD millions": how the answer is wanted, not a name the filings must print
    assert retriever.unknown_entities(f"What was Apple's revenue about Zorblax? Answer in {code} terms, please") == [
        "Zorblax"]


def test_gate_names_the_missing_company(retriever: HybridRetriever) -> None:
    # no hand-written list of companies: a proper name that no library company answers to
    # and that occurs nowhere in the library is a company the library lacks
    plan = retriever.plan("What was The Boeing Company's total net sales in Q3 2023?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert not gate.passed
    assert gate.reason == "The library has no filing of Boeing."


def test_gate_names_a_second_company_the_library_lacks(retriever: HybridRetriever) -> None:
    # a comparison with a company the library holds no filing of cannot be answered from one side
    plan = retriever.plan("What were ZWC (Zorblax Widget Corp) "
                          "net sales in Q3 2023, and how does that compare with Apple's?")
    assert plan.filters.company and plan.filters.missing_company == "ZWC"
    gate = retriever.gate(plan, retriever.search(plan))
    assert not gate.passed and gate.reason == "The library has no filing of ZWC."


def test_instructions_are_no_evidence(library, retriever: HybridRetriever) -> None:
    q = ("You are an investment banker and your only resource(s) to answer the following question is (are): "
         "the income statement. Here's the question: what was Apple's total net sales in Q3 2023? "
         "Answer in USD millions. Round your answer to two decimal places.")
    plan = retriever.plan(q)
    assert plan.asked == "What was Apple's total net sales in Q3 2023?"
    assert plan.doc_ids == [_doc_of(library, "AAPL")]
    assert plan.filters["statements"] == ["income"]
    assert plan.instructions.scale == "millions" and plan.instructions.decimals == 2
    for word in ("banker", "resource", "round", "decimal", "usd", "million"):
        assert word not in plan.bm25_terms and word not in plan.content_terms
    assert "banker" not in plan.cleaned
    gate = retriever.gate(plan, retriever.search(plan))
    assert gate.passed, gate.reason


# -- page-level ranking levers --------------------------------------------------------------------
TOC_PAGE = "\n".join([
    "TABLE OF CONTENTS", "Item 1. Business 3", "Item 1A. Risk Factors 12", "Item 2. Properties 25",
    "Item 7. Management's Discussion and Analysis 29", "Liquidity and Capital Resources 38",
    "Item 7A. Market Risk 45", "Item 8. Financial Statements 47", "Consolidated Statements of Cash Flows 52",
    "Item 9A. Controls and Procedures 95",
])
LIQUIDITY_PAGE = "\n".join(
    f"Liquidity and capital resources paragraph {i}: cash, cash equivalents and marketable securities "
    f"fund the capital return program and debt repayments over the next twelve months." for i in range(14)
)
OTHER_PAGE = "\n".join(
    f"Risk paragraph {i}: competition, supply chain and foreign exchange affect results of operations "
    f"and the liquidity of some customers in several markets." for i in range(6)
)


@pytest.fixture
def long_filing(build_library):  # type: ignore[no-untyped-def]
    return build_library({"ACME_2021_10K.pdf": [COVER_PAGE_10K, TOC_PAGE, LIQUIDITY_PAGE, OTHER_PAGE]})


COVER_PAGE_10K = ("UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nFor the fiscal year ended "
                  "December 31, 2021\nCommission file number 1-1234\nAcme Corporation")


def test_page_ranking_gives_one_hit_per_page(long_filing) -> None:  # type: ignore[no-untyped-def]
    question = "liquidity capital resources cash marketable securities"
    chunks = HybridRetriever(long_filing, RetrievalSettings(page_ranking=False, mmr_lambda=1.0)).search(question, k=5)
    assert len({h.chunk.page for h in chunks}) < len(chunks)  # the liquidity page fills several slots
    pages = HybridRetriever(long_filing, RetrievalSettings(page_ranking=True)).search(question, k=5)
    assert len({h.chunk.page for h in pages}) == len(pages)
    assert pages[0].chunk.page == 3


def test_table_of_contents_and_cover_lose_the_page_type_penalty(long_filing) -> None:  # type: ignore[no-untyped-def]
    question = "Liquidity and Capital Resources Management's Discussion and Analysis"
    plain = HybridRetriever(long_filing, RetrievalSettings(page_type_penalty=0.0)).search(question, k=4)
    weighed = HybridRetriever(long_filing, RetrievalSettings(page_type_penalty=0.3)).search(question, k=4)
    by_page = {h.chunk.page: h.score for h in plain}
    assert 2 in by_page  # the table of contents matches the words
    toc = next(h for h in weighed if h.chunk.page == 2)
    assert toc.score == pytest.approx(by_page[2] - 0.3)
    assert weighed[0].chunk.page == 3
    assert HybridRetriever(long_filing, RetrievalSettings()).page_type(long_filing.documents()[0].doc_id, 1) == "cover"


def test_statement_boost_reaches_the_pages_of_an_extracted_statement(long_filing, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    retriever = HybridRetriever(long_filing, RetrievalSettings(page_type_penalty=0.0, page_ranking=False))
    plan = retriever.plan("What were the risk paragraph figures?")
    plan.filters.statements = ["cash_flow"]
    monkeypatch.setattr(retriever, "_statement_pages", lambda doc_id: {4: {"cash_flow"}})
    scores = {c: 0.0 for c in long_filing.chunks}
    retriever._boost_statements(plan, scores)
    boosted = {long_filing.chunks[c].page for c, s in scores.items() if s > 0}
    assert boosted == {4}
    off = HybridRetriever(long_filing, RetrievalSettings(statement_pages=False))
    monkeypatch.setattr(off, "_statement_pages", lambda doc_id: {4: {"cash_flow"}})
    scores = {c: 0.0 for c in long_filing.chunks}
    off._boost_statements(plan, scores)
    assert not any(scores.values())


def test_gate_refuses_a_concept_no_filing_in_scope_mentions(retriever: HybridRetriever) -> None:
    # "Vision" and "Pro" could be anywhere; "headsets" is in no form in Apple's filing
    plan = retriever.plan("How many Vision Pro headsets did Apple sell in Q3 2023?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert not gate.passed
    assert gate.reason == "The filings of Apple Inc. do not mention Vision Pro headsets."


def test_two_things_asked_are_refused_only_when_the_filings_lack_both(retriever: HybridRetriever) -> None:
    # "hours viewed": the participle qualifies the noun, "hours" is the thing asked
    both = retriever.plan("What was Apple's monthly churn rate and total hours viewed in Q3 2023?")
    gate = retriever.gate(both, retriever.search(both))
    assert not gate.passed and "churn" in gate.reason
    one = retriever.plan("What were Apple's monthly churn rate and total net sales in Q3 2023?")
    assert retriever.concept_refusal(one) == ""


def test_a_rate_per_a_unit_no_filing_prints_is_refused(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What were Apple's net sales per gross square foot in Q3 2023?")
    reason = retriever.concept_refusal(plan)
    assert "square" in reason


def test_the_asked_things_head_and_names_must_meet_not_its_ordinary_words(retriever: HybridRetriever) -> None:
    # each word is in the filing (R&D on the income statement, cash requirements in the MD&A);
    # the head ("requirement") is printed: modifiers printed on other pages are no reason to
    # refuse (a count of words meeting is not the relevance of what was retrieved)
    plan = retriever.plan("What was Apple's research and development cash requirement in Q3 2023?")
    assert retriever.gate(plan, retriever.search(plan)).passed
    # capitalised, the words of a finance phrase are no name the library lacks (the index holds
    # the phrase as its alias, "rnd")
    assert retriever.unknown_entities("What was Apple's Research and Development spend in Q3 2023?") == []


def test_gate_concept_check_reads_word_forms_and_can_be_switched_off(library) -> None:
    ret = HybridRetriever(library, RetrievalSettings())
    # the question's "requirements" is the filing's "requirements" (plural folding, word roots)
    assert ret.concept_refusal(ret.plan("What were Apple's cash requirements in Q3 2023?")) == ""
    off = HybridRetriever(library, RetrievalSettings(gate_concept=False))
    assert off.concept_refusal(off.plan("How many Vision Pro headsets did Apple sell in Q3 2023?")) == ""


def test_gate_refuses_a_count_no_filing_prints(retriever: HybridRetriever) -> None:
    # the words meet on a page, but no figure counts them there
    plan = retriever.plan("How many capital return programs did Apple have in Q3 2023?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert not gate.passed
    assert gate.reason == "The filings of Apple Inc. give no number of capital return programs."


def test_count_is_a_number_on_the_nouns_line(build_library) -> None:
    pages = ["FORM 10-K\nFor the fiscal year ended August 29, 2021\nCostco Wholesale Corporation\n"
             "(Exact name of registrant as specified in its charter)\nCommon Stock COST The Nasdaq Global Select Market",
             "We operated 815 warehouses worldwide at August 29, 2021.\nShares outstanding were 400\n"
             "first- and third-party console games are sold online."]
    ret = HybridRetriever(build_library({"COSTCO_2021_10K.pdf": pages}), RetrievalSettings())
    assert ret._count_printed(ret.plan("How many warehouses did Costco operate in 2021?"), "warehouses")
    # "400" ends the line above: it counts shares, not consoles
    assert not ret._count_printed(ret.plan("How many consoles did Costco sell in 2021?"), "consoles")


def test_gate_leaves_metrics_and_trend_words_to_the_figures(retriever: HybridRetriever) -> None:
    # "operating margin" is computed from printed figures; "grow" is how they moved
    for q in ("What was Apple's operating margin in Q3 2023? Percent, one decimal place.",
              "How fast did Apple's total net sales grow in Q3 2023?"):
        plan = retriever.plan(q)
        gate = retriever.gate(plan, retriever.search(plan))
        assert gate.passed, (q, gate.reason)


# -- statement-aware ranking ------------------------------------------------------------------------
def _rows(rows: list[tuple[str, str]]) -> list[str]:
    """Statement rows as a filing prints them: labels run out with dot leaders so that the figure
    columns line up (the statement reader finds columns by their right edges)."""
    import pymupdf

    def width(text: str) -> float:
        return float(pymupdf.get_text_length(text, fontname="helv", fontsize=9))

    out = []
    for label, figures in rows:
        label += " "
        while width(label) < 180:
            label += "."
        out.append(f"{label} {figures}")
    return out


ACME_INCOME = "\n".join([
    "ACME CORPORATION", "CONSOLIDATED STATEMENTS OF OPERATIONS", "(In millions)", "Year Ended December 31,",
    "2021 2020 2019",
    *_rows([("Net sales", "12,400 11,100 10,300"), ("Cost of sales", "7,900 7,200 6,800"),
            ("Gross profit", "4,500 3,900 3,500"), ("Operating income", "2,100 1,700 1,500"),
            ("Net income", "1,550 1,200 1,050")]),
])
ACME_BALANCE = "\n".join([
    "CONSOLIDATED BALANCE SHEETS", "(In millions)", "December 31,", "2021 2020",
    *_rows([("Cash and cash equivalents", "2,000 1,800"), ("Inventories", "1,300 1,200"),
            ("Total current assets", "5,200 4,700"), ("Total assets", "19,000 18,000"),
            ("Accounts payable", "1,100 1,000"), ("Total current liabilities", "3,100 2,900")]),
])
# MD&A prose that repeats the question's words: it wins on words, the statement rows hold the figures.
ACME_MDNA = "\n".join(
    f"Management discussion {i}: our net profit margin, return on assets and current ratio reflect pricing, "
    f"mix and the assets we hold; margin and return on assets improved in fiscal 2021." for i in range(10)
)


@pytest.fixture
def acme_10k(build_library):  # type: ignore[no-untyped-def]
    return build_library({"ACME_2021_10K.pdf": [COVER_PAGE_10K, ACME_MDNA, ACME_INCOME, ACME_BALANCE]})


@pytest.mark.parametrize("question,pages", [
    ("What was Acme's return on assets in fiscal 2021, using net income over average total assets?", [3, 4]),
    ("What was Acme's current ratio at December 31, 2021?", [4]),
    ("What was Acme's net profit margin in fiscal 2021?", [3]),
])
def test_statement_rows_a_figure_is_computed_from_lead_the_hits(acme_10k, question: str, pages: list[int]) -> None:  # type: ignore[no-untyped-def]
    off = HybridRetriever(acme_10k, RetrievalSettings(statement_evidence=False, statement_boost=0.0))
    assert off.search(question, k=4)[0].chunk.page == 2  # on words alone the MD&A prose wins
    on = HybridRetriever(acme_10k, RetrievalSettings(statement_boost=0.0))
    hits = on.search(question, k=4)
    assert [h.chunk.page for h in hits[:len(pages)]] == pages  # in the order the computation reads them
    assert len({h.chunk.page for h in hits}) == len(hits)  # still one hit per page
    assert hits[0].score >= max(h.score for h in hits)


def test_statement_evidence_is_the_chunk_holding_the_row(acme_10k) -> None:  # type: ignore[no-untyped-def]
    r = HybridRetriever(acme_10k, RetrievalSettings())
    [cid] = r.statement_evidence(r.plan("What was Acme's net income in fiscal 2021?"))
    chunk = acme_10k.chunks[cid]
    assert chunk.page == 3 and re.search(r"Net income \.+ 1,550 1,200 1,050", chunk.text)


@pytest.mark.parametrize("question", [
    "Why did Acme's net profit margin improve in fiscal 2021?",  # an explanation: MD&A, not a figure
    "What was the net profit margin in fiscal 2021?",  # no company named: not one filer's statements
    "What was Acme's free cash flow in fiscal 2021?",  # an input (cash flow statement) is missing
])
def test_no_statement_evidence_when_the_calculator_does_not_compute(acme_10k, question: str) -> None:  # type: ignore[no-untyped-def]
    r = HybridRetriever(acme_10k, RetrievalSettings())
    assert r.statement_evidence(r.plan(question)) == []



def test_a_line_item_asked_over_several_years_leads_with_its_row(acme_10k) -> None:  # type: ignore[no-untyped-def]
    r = HybridRetriever(acme_10k, RetrievalSettings())
    [cid] = r.statement_evidence(r.plan("How did Acme's net income evolve from fiscal 2019 to fiscal 2021?"))
    assert acme_10k.chunks[cid].page == 3 and "1,550 1,200 1,050" in acme_10k.chunks[cid].text
    assert r.search("How did Acme's net income evolve from fiscal 2019 to fiscal 2021?", k=3)[0].chunk.chunk_id == cid
    for question in ("Why did Acme's net income grow from fiscal 2019 to fiscal 2021?",  # MD&A explains
                     "How did Acme's net income evolve in fiscal 2021?",  # one year: the calculator's or none
                     "How did Acme's Industrial segment revenue evolve from 2019 to 2021?"):  # a part of the company
        assert r.statement_evidence(r.plan(question)) == [], question


def test_gate_never_says_a_filing_does_not_mention_a_word_it_prints_in_another_form(retriever: HybridRetriever) -> None:
    # the analyst writes "satisfying ... returning", the filing "satisfy ... return": the gate
    # may still refuse (the words as asked are not in the passages), but not as "do not
    # mention" (a Walmart question about "repurchasing" shares was refused that way over a
    # 10-K that says "repurchased")
    plan = retriever.plan("How was Apple satisfying its returning of capital in Q3 2023?")
    gate = retriever.gate(plan, retriever.search(plan))
    assert "do not mention" not in gate.reason
    # (the word-count gate is off by default; with it on, an absent word is named as such)
    strict = HybridRetriever(retriever.library, RetrievalSettings(gate_min_terms=2, gate_min_coverage=0.5))
    plan = strict.plan("What did Apple say about dividend policy and goodwill impairment?")
    assert "do not mention" in strict.gate(plan, strict.search(plan)).reason


def test_the_month_of_an_asked_date_is_no_evidence_term(retriever: HybridRetriever) -> None:
    # "june" of "at June 30, 2022" names the period (every page of that quarter's filing prints
    # it): a passage is evidence by what was asked, the ratio's name, not by the date
    plan = retriever.plan("What was Apple's gross margin percentage at July 1, 2023?")
    hits = retriever.search(plan)
    terms = retriever.evidence_terms(plan, hits)
    assert "july" not in terms and terms


def test_an_ordinary_word_or_a_slip_inside_the_asked_phrase_is_no_reason_to_refuse(library) -> None:
    # the fake embedder's cosines say nothing: the similarity thresholds are not what is tested
    retriever = HybridRetriever(library, RetrievalSettings(gate_min_cosine=0.0, gate_min_bm25=0.0))
    base = "What were Apple's total net sales in Q3 2023?"
    plan = retriever.plan(base)
    assert retriever.gate(plan, retriever.search(plan)).passed
    for variant in ("What were Apple's really total net sales in Q3 2023?",  # a modifier no filing prints
                    "What were Apple's total net slaes in Q3 2023?"):  # a slip of the keyboard
        plan = retriever.plan(variant)
        gate = retriever.gate(plan, retriever.search(plan))
        assert gate.passed, (variant, gate.reason)


def test_a_first_name_the_filings_never_print_is_no_unknown_subject_when_the_surname_is() -> None:
    import re as _re

    from desktop_rag.core.retrieve.hybrid import name_neighbours

    q = "What special modifier applies to Joe Erlinger, and what is McDonald's maximum award?"
    m = next(m for m in _re.finditer(r"[A-Z]\w+", q) if m.group(0) == "Joe")
    assert name_neighbours(q, m) == ["Erlinger"]
    m = next(m for m in _re.finditer(r"[A-Z]\w+", q) if m.group(0) == "McDonald")
    assert name_neighbours(q, m) == []


def test_a_count_of_people_in_any_of_their_words_over_a_line_break(build_library) -> None:
    pages = ["FORM 8-K\neBay Inc.\n(Exact name of registrant as specified in its charter)\nCommon Stock EBAY Nasdaq",
             "Over the next 24 hours, we will be letting approximately 500\nemployees globally know that their jobs "
             "will be eliminated."]
    ret = HybridRetriever(build_library({"EBAY_2023Q1_8K.pdf": pages}), RetrievalSettings())
    assert ret._count_printed(ret.plan("How many jobs did eBay eliminate in February 2023?"), "jobs")
    assert not ret._count_printed(ret.plan("How many stores did eBay close in February 2023?"), "stores")


def test_a_cause_asked_in_the_analysts_own_words_is_no_absent_concept(build_library) -> None:
    """"What rationale did the CEO give ...": a drivers question; "rationale" is the analyst's
    word for what is said, printed nowhere, and no reason to refuse."""
    pages = ["FORM 8-K\neBay Inc.\n(Exact name of registrant as specified in its charter)\nCommon Stock EBAY Nasdaq",
             "To create long-term, sustainable growth for eBay, we need to evolve our organization. As a result, "
             "we will reduce our workforce by approximately 500 employees."]
    ret = HybridRetriever(build_library({"EBAY_2023Q1_8K.pdf": pages}), RetrievalSettings())
    plan = ret.plan("What rationale did eBay's CEO give for the February 2023 workforce reduction?")
    assert plan.intent is not None and plan.intent.ask == "drivers"
    assert ret.concept_refusal(plan) == ""
    # a name the filings never print is still found out (by the unknown names' check)
    assert ret.unknown_entities("What rationale did eBay give for the Zorblax program?") == ["Zorblax"]


def test_a_symbol_written_from_the_name_names_the_company(build_library) -> None:
    pages = ["McDONALD'S REPORTS FIRST QUARTER 2023 RESULTS\nCHICAGO, IL - McDonald's Corporation today announced "
             "results for the first quarter ended March 31, 2023.\nOperating income increased 10%."]
    ret = HybridRetriever(build_library({"MCDONALDS_2023Q1_EARNINGS.pdf": pages}), RetrievalSettings())
    plan = ret.plan("What was MCD's operating income growth in Q1 2023?")
    assert plan.filters.company and not plan.filters.missing_company
    # an analyst's shorthand for a measure is no symbol
    assert not ret.plan("What was EPS in Q1 2023?").filters.company


def _filing_with_business(pages_naming: int) -> dict[str, list[str]]:
    cover = "FORM 10-K\neBay Inc.\n(Exact name of registrant as specified in its charter)\nCommon Stock EBAY Nasdaq"
    body = [f"Page {i}: StubHub net transaction revenues grew as ticket volume rose in 2016." for i in range(pages_naming)]
    return {"EBAY_2016_10K.pdf": [cover, *body, "Competitors include Ticketmaster in live events."]}


def test_a_business_named_alone_is_read_in_its_owners_filings(build_library) -> None:
    """"StubHub's revenue" over eBay's 10-K: a name no filer bears, printed at length by one
    company's filings, is that company's business, and the evidence must print it."""
    ret = HybridRetriever(build_library(_filing_with_business(6)), RetrievalSettings())
    plan = ret.plan("How much net transaction revenue did StubHub generate in 2016?")
    assert plan.filters.business == "StubHub" and not plan.filters.missing_company
    assert plan.filters.company and "eBay" in plan.filters.company[0]
    assert ret.gate(plan, ret.search(plan)).passed
    # a competitor printed in passing stays a company the library lacks
    plan = ret.plan("What was Ticketmaster's revenue in 2016?")
    assert plan.filters.missing_company == "Ticketmaster" and not plan.filters.business


def test_a_name_printed_on_a_few_pages_is_no_business(build_library) -> None:
    ret = HybridRetriever(build_library(_filing_with_business(2)), RetrievalSettings())
    plan = ret.plan("How much net transaction revenue did StubHub generate in 2016?")
    assert plan.filters.missing_company == "StubHub" and not plan.filters.business


def test_a_name_printed_only_by_another_filer_is_unknown_to_the_company_asked(build_library) -> None:
    """"How many Walmart U.S. stores were in Texas?": AMD's 10-K prints Austin, Texas; Walmart's
    filing never does, and the question is about Walmart's."""
    ret = HybridRetriever(build_library({
        "WALMART_2024Q1_10Q.pdf": ["FORM 10-Q\nWalmart Inc.\n(Exact name of registrant as specified in its charter)",
                                   "Walmart U.S. operated 4,616 stores at April 30, 2023."],
        "AMD_2022_10K.pdf": ["FORM 10-K\nAdvanced Micro Devices, Inc.\n(Exact name of registrant as specified in its charter)",
                             "We have offices in Austin, Texas."]}), RetrievalSettings())
    plan = ret.plan("How many Walmart U.S. stores were located in Texas in Q1 FY2024?")
    gate = ret.gate(plan, ret.search(plan))
    assert not gate.passed and gate.reason == "Texas does not occur in any filing of Walmart Inc."
    assert ret.unknown_entities("How many stores were located in Texas?") == []  # the library prints it
    plan = ret.plan("How many Walmart U.S. stores were there in Q1 FY2024?")
    assert ret.gate(plan, ret.search(plan)).passed
