"""core/ingest/identity.py: company, form and period from file names and cover pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.domain.companies import names_in
from desktop_rag.core.domain.types import Document, DocumentMeta
from desktop_rag.core.ingest.identity import (
    company_aliases,
    detect_metadata,
    document_covers,
    fiscal_calendar,
    parse_file_name,
    parse_first_pages,
    period_labels,
)
from desktop_rag.core.ingest.pdf import extract_page, open_pdf


@pytest.mark.parametrize(
    ("name", "hint", "form", "year", "quarter"),
    [
        ("2023 Q3 AAPL.pdf", "AAPL", "10-Q", 2023, 3),
        ("AAPL_10-Q_Q3FY23.pdf", "AAPL", "10-Q", 2023, 3),
        ("msft-10k-fy2024.pdf", "msft", "10-K", 2024, None),
        ("3Q23 nvda earnings.pdf", "nvda", "earnings", 2023, 3),
        ("amazon-q1-2023.PDF", "amazon", "10-Q", 2023, 1),
        ("Intel 2022 annual report.pdf", "Intel", "", 2022, None),
        ("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", "FOOTLOCKER", "8-K", 2022, None),
        ("JPMORGAN_2021Q1_10Q.pdf", "JPMORGAN", "10-Q", 2021, 1),
        ("notes.pdf", "notes", "", None, None),
    ],
)
def test_parse_file_name(name: str, hint: str, form: str, year: int | None, quarter: int | None) -> None:
    meta = parse_file_name(name)
    assert (meta.company, meta.form_type, meta.fiscal_year, meta.fiscal_quarter) == (hint, form, year, quarter)


def test_file_name_hint_is_not_a_company_table() -> None:
    # no hand-written list: only a one-word name in capitals may be a ticker
    assert parse_file_name("2023 Q1 NVDA.pdf").ticker == "NVDA"
    assert parse_file_name("ADOBE_2015_10K.pdf").ticker == "ADOBE"  # a hint, until the cover says otherwise
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
    assert meta.fiscal_quarter == 2  # calendar fallback: a quarter ending July 1 covers April to June


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
    assert meta.company == "Microsoft Corporation"
    assert meta.ticker == "MSFT"
    assert meta.fiscal_year == 2024


def test_cover_text_earnings_and_transcripts() -> None:
    assert parse_first_pages("NVIDIA Announces Financial Results for Third Quarter Fiscal 2024").form_type == "earnings"
    assert parse_first_pages("Q3 2023 Earnings Call\nOperator: Good afternoon").form_type == "transcript"
    assert parse_first_pages("Some unrelated memo").form_type == ""


def test_ordinal_quarter_in_text() -> None:
    meta = parse_first_pages("Results for the third quarter of fiscal year 2024 were strong.")
    assert (meta.fiscal_year, meta.fiscal_quarter) == (2024, 3)


def test_detect_metadata_cover_is_the_truth(sample_pdf: Path) -> None:
    doc = open_pdf(sample_pdf)
    try:
        first = "\n".join(extract_page(doc[i]).text for i in range(3))
        body = "\n".join(extract_page(doc[i]).text for i in range(3, min(len(doc), 12)))
    finally:
        doc.close()
    meta = detect_metadata("2023 Q3 AAPL.pdf", first, body)
    # "aapl": the symbol as typed in lower case, which the filing never prints as a word
    assert meta == DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023,
                                fiscal_quarter=3, period_end="2023-07-01", aliases=["aapl"])
    # A file name without hints: everything comes from the cover.
    plain = detect_metadata("filing.pdf", first, body)
    assert (plain.company, plain.ticker, plain.form_type, plain.period_end, plain.period_label()) == (
        "Apple Inc.", "AAPL", "10-Q", "2023-07-01", "Q3 FY2023")


def test_detect_metadata_10k_drops_quarter() -> None:
    meta = detect_metadata("msft Q4 2024.pdf", "FORM 10-K\nFor the fiscal year ended June 30, 2024")
    assert meta.form_type == "10-K"
    assert meta.fiscal_quarter is None and meta.fiscal_year == 2024


def test_company_aliases_are_derived() -> None:
    names = company_aliases(DocumentMeta(company="Amazon.com, Inc.", ticker="AMZN"))
    assert {"AMZN", "amazon", "amazon.com"} <= names
    names = company_aliases(DocumentMeta(company="Some Widgets Corporation", aliases=["Widgets Co"]))
    assert {"some widgets", "Widgets Co"} <= names
    assert company_aliases(DocumentMeta()) == set()


def test_period_labels_fiscal_calendar_and_file_name() -> None:
    meta = DocumentMeta(form_type="10-Q", fiscal_year=2024, fiscal_quarter=2, period_end="2023-07-30")
    # Nvidia: Q2 FY2024 is calendar Q2 2023 (May-July), which is also what the file is called
    assert period_labels(meta, "2023 Q2 NVDA.pdf") == {(2024, 2), (2023, 2)}
    annual = DocumentMeta(form_type="10-K", fiscal_year=2023, period_end="2023-01-29")
    assert period_labels(annual) == {(2023, None)}
    assert period_labels(DocumentMeta(period_end="not a date")) == set()


def test_a_10k_covers_its_comparative_years() -> None:
    doc = Document("x", "NETFLIX_2017_10K.pdf", "", 1, DocumentMeta(company="Netflix, Inc.", form_type="10-K",
                                                                     fiscal_year=2017, period_end="2017-12-31"))
    assert document_covers(doc, set(), {2017})
    assert not document_covers(doc, set(), {2016})
    assert document_covers(doc, set(), {2016}, comparative=True)
    assert not document_covers(doc, set(), {2021}, comparative=True)


@pytest.mark.parametrize(
    ("name", "company", "ticker", "label"),
    [
        ("COCACOLA_2017_10K.pdf", "The Coca-Cola Company", "", "FY2017"),  # the cover prints its name as a logo
        ("JPMORGAN_2021Q1_10Q.pdf", "JPMorgan Chase & Co.", "JPM", "Q1 FY2021"),  # two-column cover
        ("MICROSOFT_2016_10K.pdf", "Microsoft Corporation", "", "FY2016"),  # no "(Exact name of registrant)"
        ("NIKE_2018_10K.pdf", "NIKE, Inc.", "", "FY2018"),
        ("WALMART_2020_10K.pdf", "Walmart Inc.", "WMT", "FY2020"),  # fiscal year ended January 31, 2020
        ("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", "Foot Locker, Inc.", "FL", "FY2022"),
    ],
)
def test_cover_identity_on_real_filings(name: str, company: str, ticker: str, label: str) -> None:
    path = None
    for parent in Path(__file__).resolve().parents:
        cand = parent / "shared" / "data" / "financebench-dev" / "pdfs" / name
        if cand.exists():
            path = cand
            break
    if path is None:
        pytest.skip("financebench-dev filings not available beside the checkout")
    doc = open_pdf(path)
    try:
        pages = [extract_page(doc[i]).text for i in range(min(len(doc), 12))]
    finally:
        doc.close()
    meta = detect_metadata(name, "\n".join(pages[:3]), "\n".join(pages[3:]))
    assert (meta.company, meta.ticker, meta.period_label()) == (company, ticker, label)


def test_fiscal_calendar_of_a_report() -> None:
    apple = DocumentMeta(company="Apple Inc.", form_type="10-Q", fiscal_year=2023, fiscal_quarter=2,
                         period_end="2023-04-01")
    cal = fiscal_calendar(apple)
    assert cal is not None and cal.quarter_ending(2023, 3) == (2023, 2) and not cal.calendar_year
    annual = fiscal_calendar(DocumentMeta(form_type="10-K", fiscal_year=2021, period_end="2021-05-31"))
    assert annual is not None and annual.quarter == 4 and annual.quarter_ending(2021, 2) == (2021, 3)
    assert fiscal_calendar(DocumentMeta(form_type="8-K", fiscal_year=2022, period_end="2022-05-20")) is None
    assert fiscal_calendar(DocumentMeta(form_type="10-Q", fiscal_year=2023, fiscal_quarter=2)) is None


def test_an_earnings_release_8k_covers_its_quarter() -> None:
    cover = ("FORM 8-K\nDate of report (Date of earliest event reported): May 20, 2022\nAcme, Inc.\n"
             "(Exact name of registrant as specified in its charter)\n"
             "Item 2.02 Results of Operations and Financial Condition.\n"
             "On May 20, 2022, Acme, Inc. issued a press release announcing its results for the first quarter ended "
             "April 30, 2022.")
    meta = detect_metadata("ACME_2022_8K_dated-2022-05-20.pdf", cover, "ACME, INC. REPORTS FIRST QUARTER 2022 RESULTS")
    assert (meta.form_type, meta.period_label(), meta.period_end) == ("8-K", "Q1 FY2022", "2022-04-30")
    doc = Document("e" * 64, "ACME_2022_8K_dated-2022-05-20.pdf", "", 4, meta)
    assert document_covers(doc, {(2022, 1)}, set())
    assert fiscal_calendar(meta) is not None


def test_a_refusal_names_a_dated_8k_by_its_date_not_a_fiscal_year() -> None:
    from desktop_rag.core.ingest.identity import held_period_label

    vote = DocumentMeta(company="Acme, Inc.", form_type="8-K", fiscal_year=2022, period_end="2022-05-20")
    assert held_period_label(vote) == "8-K dated 2022-05-20"
    release = DocumentMeta(company="Acme, Inc.", form_type="8-K", fiscal_year=2022, fiscal_quarter=1,
                           period_end="2022-04-30")
    assert held_period_label(release) == "Q1 FY2022"
    assert held_period_label(DocumentMeta(form_type="10-K", fiscal_year=2020, period_end="2020-01-31")) == "FY2020"


def test_an_annual_report_wrapping_a_10k_is_read_from_the_10k_cover() -> None:
    letter = "2022 ANNUAL REPORT ON FORM 10-K\nDEAR SHAREHOLDERS,\n2022 was a transformative year for Acme.\n"
    cover = ("UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\nFORM 10-K\n"
             "For the fiscal year ended December 31, 2022\nCommission File Number 001-07882\nACME DEVICES, INC.\n"
             "(Exact name of registrant as specified in its charter)\nDelaware 94-1692300\n"
             "Title of each class Trading Symbol Name of each exchange on which registered\n"
             "Common Stock ACME The Nasdaq Global Select Market\n")
    meta = detect_metadata("ACME_2022_annualreport.pdf", letter, cover + "Acme Devices, Inc. and its subsidiaries")
    assert (meta.company, meta.ticker, meta.form_type, meta.period_label(), meta.period_end) == (
        "Acme Devices, Inc.", "ACME", "10-K", "FY2022", "2022-12-31")


def test_a_release_that_announces_its_call_is_no_transcript() -> None:
    release = ("Acme Corporation Reports Second-Quarter Results\nOAKLAND — Acme Corporation (NYSE: ACME) recorded "
               "second quarter 2023 income. Results are discussed in Exhibit 99.2 to the Company's Form 8-K.\n"
               "Earnings Conference Call\nAcme will hold its earnings conference call at 11:00 a.m.\n"
               "Three Months Ended June 30, 2023")
    meta = detect_metadata("ACME_2023_EARNINGS-dated-2023-07-27.pdf", release)
    assert (meta.form_type, meta.ticker, meta.period_label(), meta.period_end) == ("earnings", "ACME", "Q2 FY2023",
                                                                                    "2023-06-30")
    call = "Acme Corp Q2 2023 Earnings Call\nCorporate Participants\nOperator: Good morning"
    assert parse_first_pages(call).form_type == "transcript"


def test_the_other_registrants_of_a_combined_filing_are_its_names() -> None:
    cover = ("SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nFor the fiscal year ended December 31, 2019\n"
             "Commission Exact Name of Registrant State or Other Jurisdiction of IRS Employer\n"
             "1-12609 ACME CORPORATION California 94-3234914\n"
             "1-2348 ACME GAS AND ELECTRIC COMPANY California 94-0742640\n")
    meta = detect_metadata("ACME_2019_10K.pdf", cover)
    assert meta.company == "Acme Corporation"
    assert "Acme Gas and Electric Company" in meta.aliases
    assert names_in("What was Acme Gas and Electric Company's rate base?", company_aliases(meta))


def test_a_file_its_text_cannot_name_is_the_library_filer_its_file_name_names() -> None:
    annual = DocumentMeta(company="Acme's Corporation", ticker="ACM", form_type="10-K", fiscal_year=2022,
                          period_end="2022-12-31")
    event = DocumentMeta(company="Acme's Corporation", ticker="ACM", form_type="8-K", fiscal_year=2023,
                         period_end="2023-08-14")
    other = DocumentMeta(company="Widgets Inc.", ticker="WDG", form_type="10-K", fiscal_year=2022,
                         period_end="2022-12-31")
    garbled = "!\"# $&'()'*+,(-' !\"#.#+,!'\" /0 .123.2\"1"
    meta = detect_metadata("ACMES_2022Q4_EARNINGS.pdf", garbled, library=[event, annual, other])
    assert (meta.company, meta.form_type, meta.period_label(), meta.period_end) == (
        "Acme's Corporation", "earnings", "Q4 FY2022", "2022-12-31")
    assert detect_metadata("ACMES_2022Q4_EARNINGS.pdf", garbled).company == "ACMES"  # no library: the file's name
    # a 52/53-week calendar's quarter end cannot be told from another year's
    weekly = DocumentMeta(company="Acme's Corporation", form_type="10-K", fiscal_year=2022, period_end="2022-12-31")
    weekly.period_end = "2022-12-25"
    assert detect_metadata("ACMES_2022Q4_EARNINGS.pdf", garbled, library=[weekly]).period_end == ""


def test_a_file_name_that_is_a_name_of_the_company_adds_no_alias() -> None:
    cover = ("SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nFor the fiscal year ended December 31, 2019\n"
             "AT&T INC.\n(Exact name of registrant as specified in its charter)\n")
    assert detect_metadata("AT_T_2019_10K.pdf", cover).aliases == []


def test_a_renamed_filer_is_one_filer() -> None:
    from desktop_rag.core.ingest.identity import named_documents

    metas = {"old": DocumentMeta(company="Acme Systems Incorporated", ticker="ACME", form_type="10-K", fiscal_year=2015),
             "new": DocumentMeta(company="Acme Inc.", ticker="ACME", form_type="10-K", fiscal_year=2022),
             "other": DocumentMeta(company="Widgets Inc.", ticker="WDG", form_type="10-K", fiscal_year=2022)}
    names_of = {k: frozenset(company_aliases(m)) for k, m in metas.items()}
    # "acme" in lower case is a name of Acme Inc. only ("Acme Systems" is the other's); its symbol joins them
    assert named_documents("acme revenue in 2015", names_of, metas) == {"old", "new"}
    assert named_documents("What was WDG's margin?", names_of, metas) == {"other"}
    assert named_documents("What was the cost of sales?", names_of, metas) == set()


def test_the_names_of_a_combined_filings_other_registrant() -> None:
    meta = DocumentMeta(company="Acme Corporation", ticker="ACM", aliases=["Acme Gas and Electric Company"])
    names = company_aliases(meta)
    assert {"Acme Gas and Electric Company", "acme gas and electric", "AGE"} <= names
