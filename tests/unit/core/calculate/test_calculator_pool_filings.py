"""The calculator on pool filings of other filers (``../shared/data/filings-pool``): a label
the filer prints with a qualifier ("Operating revenues"), a yes/no asked against the prior
year, a comparison asked as "how does it compare". Skipped when the shared data is absent."""

from __future__ import annotations

import pytest

from desktop_rag.core.calculate.calculator import calculate
from desktop_rag.core.domain.types import Document, DocumentMeta
from desktop_rag.core.index.statement_store import extract_from_pdf
from desktop_rag.core.ingest.pdf import extract_document, open_pdf
from desktop_rag.core.ingest.statements.model import Statement
from tests.conftest import REPO_ROOT

POOL = REPO_ROOT.parent / "shared" / "data" / "filings-pool" / "pdfs"


def _filing(name: str, meta: DocumentMeta) -> tuple[Document, list[Statement], list[str]]:
    path = POOL / name
    if not path.is_file():
        pytest.skip(f"pool filing not found: {path}")
    pdf = open_pdf(path)
    try:
        pages = extract_document(pdf)
        statements = extract_from_pdf(pdf, pages)
    finally:
        pdf.close()
    return Document("b" * 64, name, str(path), len(pages), meta), statements, [p.text for p in pages]


@pytest.fixture(scope="module")
def american_water() -> tuple[Document, list[Statement], list[str]]:
    return _filing("AMERICANWATERWORKS_2023Q2_10Q.pdf",
                   DocumentMeta(company="American Water Works Company, Inc.", ticker="AWK", form_type="10-Q",
                                fiscal_year=2023, fiscal_quarter=2, period_end="2023-06-30"))


@pytest.fixture(scope="module")
def ebay() -> tuple[Document, list[Statement], list[str]]:
    return _filing("EBAY_2016_10K.pdf", DocumentMeta(company="eBay Inc.", ticker="EBAY", form_type="10-K",
                                                     fiscal_year=2016, period_end="2016-12-31"))


def _ask(filing: tuple[Document, list[Statement], list[str]], question: str):  # type: ignore[no-untyped-def]
    doc, statements, texts = filing
    return calculate(question, [doc], lambda _id: statements, lambda _id, page: texts[page - 1])


def test_a_qualifier_that_is_part_of_the_printed_line_names_the_line(american_water) -> None:
    # "operating revenues" is the line American Water prints for its revenue, no part of it
    out = _ask(american_water, "By what percentage did AWK's operating revenues grow YoY in the quarter ended "
                               "June 30, 2023? Round to one decimal place.")
    assert out is not None and out.calculation is not None, out
    assert out.calculation.result == 17.1
    assert {i.value for i in out.calculation.inputs} == {1097, 937}


def test_a_sign_asked_with_a_comparison_to_the_prior_year_gives_both_years(ebay) -> None:
    out = _ask(ebay, "Does eBay have positive working capital as of FY2016 year-end, and how does it compare "
                     "with the prior year?")
    assert out is not None and out.calculation is not None, out
    assert out.text.startswith("Yes: net working capital was positive, $5,028 million")
    assert "fell from $5,641 million" in out.text and "$613 million" in out.text
    assert {i.period for i in out.calculation.inputs} == {"2016-12-31", "2015-12-31"}


def test_a_sign_asked_alone_gives_one_year(ebay) -> None:
    out = _ask(ebay, "Does eBay have positive working capital as of FY2016 year-end?")
    assert out is not None and out.calculation is not None, out
    assert "fell from" not in out.text
    assert {i.period for i in out.calculation.inputs} == {"2016-12-31"}


@pytest.mark.parametrize("question", [
    "Sum eBay's purchases of property and equipment over 2014-2016 from the cash flow statement.",
    "What were eBay's combined capital expenditures for 2014 through 2016?",
])
def test_a_flow_added_up_over_the_years_asked(ebay, question: str) -> None:
    out = _ask(ebay, question)
    assert out is not None and out.calculation is not None, out
    inputs = out.calculation.inputs
    assert [i.period for i in inputs] == ["FY2014", "FY2015", "FY2016"]  # 2014-2016 is three years
    assert out.calculation.result == sum(abs(i.value) for i in inputs)  # each year's outflow, as spent
    assert out.text.startswith("Capital expenditures, FY2014-FY2016 added up:")


def test_a_line_item_asked_up_or_down_is_said_which_way_with_both_years(ebay) -> None:
    out = _ask(ebay, "Did eBay's net revenues go up or down in 2016 versus 2015?")
    assert out is not None and out.calculation is not None, out
    assert out.text.startswith("Revenue rose by $") and "(FY2015) to $" in out.text and "(FY2016)" in out.text
    assert {i.period for i in out.calculation.inputs} == {"FY2015", "FY2016"}


@pytest.fixture(scope="module")
def ebay_release() -> tuple[Document, list[Statement], list[str]]:
    return _filing("EBAY_2023Q2_EARNINGS.pdf", DocumentMeta(company="eBay Inc.", ticker="EBAY", form_type="8-K",
                                                            fiscal_year=2023, fiscal_quarter=2,
                                                            period_end="2023-06-30"))


def test_a_sign_of_a_balance_asked_at_a_date_of_an_earnings_release(ebay_release) -> None:
    # the release prints the quarter's flows and the balance sheet at June 30, 2023: no year's column
    out = _ask(ebay_release, "Does eBay have positive working capital as of June 30, 2023?")
    assert out is not None and out.calculation is not None, out
    assert out.text.startswith("Yes: net working capital was positive, $5,162 million (2023-06-30)")


@pytest.fixture(scope="module")
def pge_2019() -> tuple[Document, list[Statement], list[str]]:
    return _filing("PG_E_2019_10K.pdf", DocumentMeta(company="PG&E Corporation", ticker="PCG", form_type="10-K",
                                                     fiscal_year=2019, period_end="2019-12-31"))


def test_whether_a_line_was_paid_is_its_cell_a_dash_is_no(pge_2019) -> None:
    no = _ask(pge_2019, "Did PG&E pay a common stock dividend in 2019?")
    assert no is not None and no.calculation is not None and no.calculation.result == 0.0
    assert no.text.startswith("No: Common stock dividends paid printed as —")
    yes = _ask(pge_2019, "Did PG&E pay a common stock dividend in 2017?")
    assert yes is not None and yes.calculation is not None and yes.calculation.result == 1.0
    assert "$1,021 million" in yes.text


def test_a_quarters_cash_flow_ratio_is_the_year_to_dates_when_only_that_is_printed(american_water) -> None:
    """A 10-Q's cash flow statement prints the six months only: "capital-intensive ... for the
    quarter ended June 30, 2023" reads capex and revenue of the six months, and says so."""
    out = _ask(american_water, "Is American Water Works a capital-intensive business based on its 10-Q for the quarter "
                               "ended June 30, 2023? Answer yes or no with supporting figures.")
    assert out is not None and out.calculation is not None, out
    assert out.text.startswith("Yes: American Water Works Company, Inc. is capital-intensive by the usual measures "
                               "(6 months ended 2023-06-30)")
    assert "capital expenditure as % of revenue 56.7%" in out.text
    assert {i.period for i in out.calculation.inputs if "expenditures" in i.label.lower()} == {"6 months ended 2023-06-30"}


def test_a_year_end_written_with_its_day_is_that_fiscal_year(ebay) -> None:
    out = _ask(ebay, "What was eBay's operating margin for fiscal 2016 (FYE Dec 31, 2016), defined as income from "
                     "operations / net revenues; give the answer in percent rounded to two decimals?")
    assert out is not None and out.calculation is not None, out
    assert out.calculation.result == 25.89 and "not read clearly" not in out.text


def test_a_balance_sheet_whose_liabilities_follow_on_the_next_page_without_its_header() -> None:
    """eBay's Q1 2023 earnings release prints its balance sheet's assets on page 7 and
    "LIABILITIES AND STOCKHOLDERS' EQUITY" on page 8 without the column header: the current
    ratio reads total current liabilities there, each input cited to its page."""
    release = _filing("EBAY_2023Q1_EARNINGS.pdf", DocumentMeta(company="eBay Inc.", ticker="EBAY", form_type="8-K",
                                                               fiscal_year=2023, fiscal_quarter=1,
                                                               period_end="2023-03-31"))
    balance = [s for s in release[1] if s.kind == "balance"]
    assert balance and balance[0].pages[:2] == [7, 8]
    out = _ask(release, "What was eBay's current ratio at March 31, 2023? Round to two decimals.")
    assert out is not None and out.calculation is not None, out
    assert out.calculation.result == 2.68
    assert [(i.value, i.page) for i in out.calculation.inputs] == [(8598, 7), (3206, 8)]
