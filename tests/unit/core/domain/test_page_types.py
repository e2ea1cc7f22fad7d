"""domain/page_types.py: pages that match many questions and answer none."""

from __future__ import annotations

from collections import Counter

from desktop_rag.core.domain.page_types import DOWNWEIGHTED, page_type
from tests.unit.core.domain.conftest import shared_pdf

TOC = "\n".join([
    "TABLE OF CONTENTS", "Page", "PART I",
    "Item 1. Business 3", "Item 1A. Risk Factors 12", "Item 1B. Unresolved Staff Comments 25",
    "Item 2. Properties 25", "Item 3. Legal Proceedings 26", "PART II",
    "Item 5. Market for Registrant's Common Equity 27", "Item 7. Management's Discussion and Analysis 29",
    "Item 7A. Quantitative and Qualitative Disclosures About Market Risk 45",
    "Item 8. Financial Statements and Supplementary Data 47", "Item 9A. Controls and Procedures 95",
])
STATEMENT = "\n".join([
    "CONSOLIDATED BALANCE SHEETS", "(In millions)", "2021 2020",
    "Cash and cash equivalents 11,258 12,277", "Short-term investments 917 1,028",
    "Receivables, net 1,803 1,550", "Merchandise inventories 14,215 12,242",
    "Other current assets 1,312 1,023", "Total current assets 29,505 28,120",
    "Property and equipment, net 23,492 21,807", "Total assets 59,268 55,556",
])
EXHIBITS = "\n".join([
    "Item 15. Exhibits", "Exhibit Number Exhibit Description",
    "3.1 Restated Certificate of Incorporation", "3.2 Amended and Restated Bylaws",
    "10.1* 2019 Equity Incentive Plan", "10.2 Credit Agreement dated as of May 1, 2020",
    "21.1 Subsidiaries of the Registrant", "23.1 Consent of Independent Registered Public Accounting Firm",
    "31.1 Certification of the Chief Executive Officer", "32.1 Certification pursuant to Section 906",
    "101.INS Inline XBRL Instance Document",
])
SIGNATURES = "\n".join([
    "SIGNATURES", "Pursuant to the requirements of the Securities Exchange Act of 1934, this report has been signed.",
    "/s/ Jane Doe Chief Executive Officer", "/s/ John Roe Chief Financial Officer", "/s/ Ann Poe Director",
])
COVER = "\n".join([
    "UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-K",
    "For the fiscal year ended August 29, 2021", "Commission file number 0-20355", "Costco Wholesale Corporation",
])
PROSE = ("Net sales increased 18% during 2021, driven by an increase in comparable sales and sales at new "
         "warehouses opened in 2020 and 2021. Membership fee revenue increased 9% to 3,877.")


def test_page_types_of_typical_pages() -> None:
    assert page_type(TOC) == "toc"
    assert page_type(EXHIBITS) == "exhibits"
    assert page_type(SIGNATURES) == "signatures"
    assert page_type(COVER) == "cover"
    assert page_type(PROSE) == "text"
    assert page_type("") == "text"


def test_a_statement_with_small_figures_is_not_a_table_of_contents() -> None:
    small = STATEMENT.replace("11,258 12,277", "58 77").replace("917 1,028", "917 28")
    assert page_type(STATEMENT) == "text"
    assert page_type(small) == "text"
    assert {"toc", "exhibits", "signatures", "cover"} == DOWNWEIGHTED


def test_real_10k_has_few_downweighted_pages() -> None:
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    doc = open_pdf(shared_pdf("financebench-dev", "COSTCO_2021_10K.pdf"))
    try:
        types = {i + 1: page_type(extract_page(doc[i]).text) for i in range(doc.page_count)}
    finally:
        doc.close()
    assert types[1] == "cover" and types[2] == "toc"
    assert Counter(types.values())["text"] >= 0.85 * len(types)  # statements, notes, MD&A stay "text"
    assert types[36] == "text"  # the income statement page
