"""The gate's reasons on pages of real filings (financebench-dev, read from disk beside the
checkout; skipped when absent; never copied into the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.retrieve.hybrid import HybridRetriever


def _filing(name: str) -> Path:
    for parent in Path(__file__).resolve().parents:
        path = parent / "shared" / "data" / "financebench-dev" / "pdfs" / name
        if path.exists():
            return path
    pytest.skip("financebench-dev filings not available beside the checkout")


def _pages(name: str, title: str) -> list[str]:
    """The cover pages and the first page whose text carries ``title`` (a statement)."""
    import pymupdf

    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    path = _filing(name)
    raw = pymupdf.open(path)
    at = next(i for i in range(3, len(raw)) if title in raw[i].get_text().upper())
    doc = open_pdf(path)
    return [extract_page(doc[i]).text for i in (0, 1, at)]


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> HybridRetriever:
    import tests.conftest as shared

    files = {
        "NETFLIX_2017_10K.pdf": _pages("NETFLIX_2017_10K.pdf", "CONSOLIDATED STATEMENTS OF OPERATIONS"),
        "COSTCO_2021_10K.pdf": _pages("COSTCO_2021_10K.pdf", "CONSOLIDATED STATEMENTS OF INCOME"),
    }
    from desktop_rag.core.index.library import IngestReport, Library
    from desktop_rag.settings import Settings

    folder = tmp_path_factory.mktemp("src")
    paths = [shared.write_pdf(folder / name, pages) for name, pages in files.items()]
    lib = Library(tmp_path_factory.mktemp("data"), Settings(), shared.FakeEmbedder())
    report = IngestReport()
    for _ in lib.ingest(paths, report=report):
        pass
    assert not report.failed, report.failed
    return HybridRetriever(lib, lib.settings.retrieval)


def _gate(retriever: HybridRetriever, question: str) -> str:
    plan = retriever.plan(question)
    gate = retriever.gate(plan, retriever.search(plan))
    return "" if gate.passed else gate.reason


def test_company_the_library_lacks(retriever: HybridRetriever) -> None:
    assert _gate(retriever, "What was The Boeing Company's total revenue in FY2021?") == (
        "The library has no filing of Boeing.")


def test_period_the_library_lacks(retriever: HybridRetriever) -> None:
    reason = _gate(retriever, "What were Netflix's revenues in FY2021?")
    assert reason.startswith("No filing of Netflix")
    assert "covers fiscal 2021 (the library has FY2017)" in reason


def test_comparative_year_is_covered(retriever: HybridRetriever) -> None:
    plan = retriever.plan("What were Netflix's revenues in FY2016?")
    assert plan.filters.period_comparative == ["NETFLIX_2017_10K.pdf"]


def test_concept_the_filings_do_not_mention(retriever: HybridRetriever) -> None:
    reason = _gate(retriever, "How many app downloads did Costco report in FY2021?")
    assert reason.startswith("The filings of Costco") and "downloads" in reason


def test_instruction_words_never_change_the_decision(retriever: HybridRetriever) -> None:
    plain = "What was Costco's net income in FY2021?"
    q = ("You are an investment banker and your only resource(s) to answer the following question is (are): "
         "the income statement. Here's the question: what was Costco's net income in FY2021? "
         "Answer in USD millions and round your answer to two decimal places.")
    with_instructions, without = retriever.plan(q), retriever.plan(plain)
    assert with_instructions.bm25_terms == without.bm25_terms
    assert with_instructions.content_terms == without.content_terms
    assert with_instructions.cleaned == without.cleaned
    assert with_instructions.doc_ids == without.doc_ids
    assert _gate(retriever, q) == _gate(retriever, plain)
