"""core/metadata.py: company, form and period from file names and cover pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.metadata import (
    company_aliases,
    detect_metadata,
    parse_file_name,
    parse_first_pages,
    period_labels,
)
from desktop_rag.core.pdf import extract_page, open_pdf
from desktop_rag.core.types import DocumentMeta


@pytest.mark.parametrize(
    ("name", "ticker", "form", "year", "quarter"),
    [
        ("2023 Q3 AAPL.pdf", "AAPL", "10-Q", 2023, 3),
        ("AAPL_10-Q_Q3FY23.pdf", "AAPL", "10-Q", 2023, 3),
        ("msft-10k-fy2024.pdf", "MSFT", "10-K", 2024, None),
        ("3Q23 nvda earnings.pdf", "NVDA", "earnings", 2023, 3),
        ("amazon-q1-2023.PDF", "AMZN", "10-Q", 2023, 1),
        ("Intel 2022 annual report.pdf", "INTC", "", 2022, None),
        ("notes.pdf", "", "", None, None),
    ],
)
def test_parse_file_name(name: str, ticker: str, form: str, year: int | None, quarter: int | None) -> None:
    meta = parse_file_name(name)
    assert (meta.ticker, meta.form_type, meta.fiscal_year, meta.fiscal_quarter) == (ticker, form, year, quarter)
    if ticker:
        assert meta.company  # known tickers resolve to a company name


def test_file_name_does_not_invent_a_ticker_from_ordinary_caps() -> None:
    meta = parse_file_name("FINAL REPORT 2023.pdf")
    assert meta.ticker == "" and meta.company == ""
    assert meta.fiscal_year == 2023


COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-Q
(Mark One)
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended July 1, 2023
or
TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the transition period from to .
Commission File Number: 001-36743
Apple Inc.
(Exact name of registrant as specified in its charter)
California 94-2404110
Securities registered pursuant to Section 12(b) of the Act:
Title of each class Trading symbol(s) Name of each exchange on which registered
Common Stock, $0.00001 par value per share AAPL The Nasdaq Stock Market LLC
1.375% Notes due 2024 — The Nasdaq Stock Market LLC"""


def test_parse_cover_page() -> None:
    meta = parse_first_pages(COVER)
    assert meta.form_type == "10-Q"
    assert meta.period_end == "2023-07-01"
    assert meta.company == "Apple Inc."
    assert meta.ticker == "AAPL"
    assert meta.fiscal_year == 2023
    assert meta.fiscal_quarter == 3  # calendar fallback from the period end (July 1)


def test_cover_with_apple_footer_gives_fiscal_quarter() -> None:
    meta = parse_first_pages(COVER.replace("July 1, 2023", "April 1, 2023") + "\nApple Inc. | Q2 2023 Form 10-Q | 1")
    assert (meta.fiscal_year, meta.fiscal_quarter) == (2023, 2)
    assert meta.period_end == "2023-04-01"


def test_cover_annual_report_has_no_quarter() -> None:
    text = ("FORM 10-K\nFor the fiscal year ended June 30, 2024\nMICROSOFT CORPORATION\n"
            "(Exact name of registrant as specified in its charter)\n"
            "Common stock, $0.00000625 par value per share MSFT NASDAQ")
    meta = parse_first_pages(text)
    assert meta.form_type == "10-K"
    assert meta.fiscal_quarter is None
    assert meta.period_end == "2024-06-30"
    assert meta.company == "MICROSOFT CORPORATION"
    assert meta.ticker == "MSFT"
    assert meta.fiscal_year == 2024


def test_cover_text_earnings_and_transcripts() -> None:
    assert parse_first_pages("NVIDIA Announces Financial Results for Third Quarter Fiscal 2024").form_type == "earnings"
    assert parse_first_pages("Q3 2023 Earnings Call\nOperator: Good afternoon").form_type == "transcript"
    assert parse_first_pages("Some unrelated memo").form_type == ""


def test_ordinal_quarter_in_text() -> None:
    meta = parse_first_pages("Results for the third quarter of fiscal year 2024 were strong.")
    assert (meta.fiscal_year, meta.fiscal_quarter) == (2024, 3)


def test_detect_metadata_prefers_file_name_period_and_text_company(sample_pdf: Path) -> None:
    doc = open_pdf(sample_pdf)
    try:
        first = "\n".join(extract_page(doc[i]).text for i in range(3))
    finally:
        doc.close()
    meta = detect_metadata("2023 Q3 AAPL.pdf", first)
    assert meta == DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023,
                                fiscal_quarter=3, period_end="2023-07-01")
    # A file name without hints: everything comes from the cover.
    plain = detect_metadata("filing.pdf", first)
    assert (plain.company, plain.ticker, plain.form_type, plain.period_end) == (
        "Apple Inc.", "AAPL", "10-Q", "2023-07-01")


def test_detect_metadata_10k_drops_quarter() -> None:
    meta = detect_metadata("msft Q4 2024.pdf", "FORM 10-K\nFor the fiscal year ended June 30, 2024")
    assert meta.form_type == "10-K"
    assert meta.fiscal_quarter is None
    assert meta.ticker == "MSFT" and meta.company == "Microsoft Corporation"


def test_company_aliases() -> None:
    names = company_aliases(DocumentMeta(company="Amazon.com, Inc.", ticker="AMZN"))
    assert {"amzn", "amazon", "amazon.com, inc.", "aws"} <= names
    names = company_aliases(DocumentMeta(company="Some Widgets Corporation"))
    assert "some widgets" in names and "some" in names
    assert company_aliases(DocumentMeta()) == set()


def test_period_labels_fiscal_and_calendar() -> None:
    meta = DocumentMeta(fiscal_year=2023, fiscal_quarter=1, period_end="2022-12-31")
    assert period_labels(meta) == {(2023, 1), (2022, 4)}
    annual = DocumentMeta(fiscal_year=2024, period_end="2024-06-30")
    assert period_labels(annual) == {(2024, None)}
    assert period_labels(DocumentMeta(period_end="not a date")) == set()
