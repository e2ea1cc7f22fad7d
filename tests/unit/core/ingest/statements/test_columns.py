"""core/ingest/statements/columns.py: the column of a printed table a row's figure sits in, read from
the header lines above the row in the page text."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from desktop_rag.core.ingest.pdf import PageText, extract_page, open_pdf
from desktop_rag.core.ingest.statements.columns import CHANGE, PART, PERIOD, TOTAL, header_columns, place_row
from tests.conftest import REPO_ROOT


def _place(page: str, row: str) -> list[tuple[str, str, str]] | None:
    placed = place_row(page, page.index(row))
    return None if placed is None else [(p.text, p.column.kind, p.column.label) for p in placed]


def test_change_columns_take_their_percentage() -> None:
    page = ("As of/ Year Ended December 31, Change\n"
            "2024 2023 2022 2024 vs. 2023 2023 vs. 2022\n"
            "(in thousands, except percentages)\n"
            "Memberships:\n"
            "Memberships at end of period 4,904 5,767 6,930 (863) (15)% (1,163) (17)%\n"
            "Contribution margin 50% 48% 48%\n")
    placed = _place(page, "Memberships at end")
    assert placed == [("4,904", PERIOD, "2024"), ("5,767", PERIOD, "2023"), ("6,930", PERIOD, "2022"),
                      ("(863)", CHANGE, "2024 vs. 2023"), ("(15)%", CHANGE, "2024 vs. 2023"),
                      ("(1,163)", CHANGE, "2023 vs. 2022"), ("(17)%", CHANGE, "2023 vs. 2022")]
    # a margin row leaves its change columns blank
    assert [k for _, k, _ in _place(page, "Contribution margin") or []] == [PERIOD] * 3


def test_parts_and_total() -> None:
    page = ("The following table provides further details of our retail units and distribution facilities, as\n"
            "of January 31, 2024:\n"
            "Owned Leased(1) Total\n"
            "U.S. properties\n"
            "Total U.S. retail units 4,582 773 5,355\n")
    assert _place(page, "Total U.S.") == [("4,582", PART, "Owned"), ("773", PART, "Leased"), ("5,355", TOTAL, "Total")]
    # the total of a maturity table whose other headings cannot be split
    maturities = "Contractual obligations (in thousands):\nTotal Less than 1 year 1-3 years\nContent $ 12,345 $ 4,000 $ 8,345\n"
    assert [k for _, k, _ in _place(maturities, "Content") or []] == [TOTAL, PART, PART]


def test_quarters_dates_and_lengths() -> None:
    page = ("Three months ended June 30, Six months ended June 30,\n"
            "(unaudited)\n"
            "(in millions, except ratios) 2024 2023 Change 2024 2023 Change\n"
            "Net revenue $ 15,587 $ 17,738 (12) % $ 32,432 $ 37,115 (13) %\n"
            "CET1 capital 12.2 % 13.0 % 12.2 % 13.0 %\n")
    placed = place_row(page, page.index("Net revenue"))
    assert placed is not None
    assert [(p.column.kind, p.column.year, p.column.months) for p in placed] == [
        (PERIOD, 2024, 3), (PERIOD, 2023, 3), (CHANGE, None, None), (PERIOD, 2024, 6), (PERIOD, 2023, 6),
        (CHANGE, None, None)]
    ratio = place_row(page, page.index("CET1"))
    assert ratio is not None and [p.column.months for p in ratio] == [3, 3, 6, 6]
    quarters = header_columns("share data) 2Q24 1Q24 4Q23 2024 2023")
    assert quarters is not None and [(c.year, c.quarter) for c in quarters] == [
        (2024, 2), (2024, 1), (2023, 4), (2024, None), (2023, None)]
    dated = header_columns("(in millions, except ratios) June 30, 2024 December 31, 2023 requirements(b)")
    assert dated is not None and [(c.kind, c.date) for c in dated] == [
        (PERIOD, date(2024, 6, 30)), (PERIOD, date(2023, 12, 31)), (PART, None)]


def test_percent_change_named_above_the_years() -> None:
    page = ("Three Months Ended Percentage Six Months Ended Percentage\n"
            "(In millions) December 31, Change December 31, Change\n"
            "2024 2023 2024 2023\n"
            "Gross margin $ 35,259 $ 34,768 1% $ 69,929 $ 66,439 5%\n")
    assert [k for _, k, _ in _place(page, "Gross margin") or []] == [PERIOD, PERIOD, CHANGE, PERIOD, PERIOD, CHANGE]


def test_unreadable_headers_give_none() -> None:
    # no header at all, and a header whose words cannot be split into the row's columns
    assert place_row("Total U.S. retail units 4,582 773 5,355\n", 0) is None
    page = "Acme U.S. Acme International Acme Club Total\nNet sales 100 200 300 600\n"
    assert place_row(page, page.index("Net sales")) is None
    # the sentence introducing the table ends the search for its header
    page = "2024 2023\nThe following table shows our units at the end of each year for the segments we report.\nUnits 4 5\n"
    assert place_row(page, page.index("Units")) is None


def test_change_columns_named_by_two_digit_years() -> None:
    # "22 vs. 21" under "$ change % change": a header line, though it reads as a row of figures
    page = ("The following table presents segment net sales by reportable segment (in millions):\n"
            "Year ended December 31, $ change % change\n"
            "2024 2023 24 vs. 23 24 vs. 23\n"
            "Optical Communications $ 5,023 $ 4,349 $ 674 15%\n")
    placed = place_row(page, page.index("Optical"))
    assert placed is not None
    assert [(p.text, p.column.kind, p.column.year) for p in placed] == [
        ("5,023", PERIOD, 2024), ("4,349", PERIOD, 2023), ("674", CHANGE, None), ("15%", CHANGE, None)]


def test_a_segment_tables_title() -> None:
    from desktop_rag.core.ingest.statements.columns import segment_title

    page = ("Table of Contents\nDomestic DVD Segment\nAs of/ Year Ended December 31, Change\n"
            "2024 2023 2022 2024 vs. 2023 2023 vs. 2022\n(in thousands, except percentages)\nMemberships:\n"
            "Paid memberships at end of period 4,787 5,668 6,765 (881) (16)% (1,097) (16)%\n")
    assert segment_title(page, page.index("Paid")) == "Domestic DVD Segment"
    statement = "CONSOLIDATED STATEMENTS OF INCOME\n(In millions)\n2024 2023\nNet sales 100 90\n"
    assert segment_title(statement, statement.index("Net sales")) == ""


def test_change_headings_of_two_years_are_no_periods() -> None:
    # "2015-2014" (Adobe) and "Versus 2014" (Microsoft 2016: "Change 2015" printed above) head
    # change columns: read as a year they made "-2014" a part, or 2014 a second time a period
    assert [(c.kind, c.year) for c in header_columns("2015 2014 2013 2015-2014") or []] == [
        (PERIOD, 2015), (PERIOD, 2014), (PERIOD, 2013), (CHANGE, None)]
    # (2014's own column is lost there, "2014 Versus 2015" read as one change heading: a column
    # not read rather than read wrong)
    assert [(c.kind, c.year) for c in header_columns("(In millions) 2016 2015 2014 Versus 2015 Versus 2014") or []] == [
        (PERIOD, 2016), (PERIOD, 2015), (CHANGE, None), (CHANGE, None)]


def _boxed_page(path: Path, number: int) -> PageText:
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        return extract_page(pdf[number - 1], with_boxes=True)
    finally:
        pdf.close()


def test_rows_placed_by_position_where_the_page_has_boxes() -> None:
    page = _boxed_page(REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf", 19)
    row = page.text.index("\nServices 21") + 1
    boxed = place_row(page.text, row, boxed=page)
    assert boxed is not None
    # the column's length and end as the heading prints them ("Three Months Ended" / "July 1,"),
    # the change columns between the periods no period's
    assert [(p.text, p.column.kind, p.column.months, p.column.date) for p in boxed] == [
        ("21,213", PERIOD, 3, date(2023, 7, 1)), ("19,604", PERIOD, 3, date(2022, 6, 25)), ("8 %", CHANGE, None, None),
        ("62,886", PERIOD, 9, date(2023, 7, 1)), ("58,941", PERIOD, 9, date(2022, 6, 25)), ("7 %", CHANGE, None, None)]
    # without boxes (a moved file) the text reading: the same kinds, no lengths
    text = place_row(page.text, row)
    assert text is not None and [p.column.kind for p in text] == [p.column.kind for p in boxed]
    assert {p.column.months for p in text} == {None}


def test_a_year_line_beside_change_columns_reads_only_its_years() -> None:
    # Netflix: "2015 2014 2013 2015 vs. 2014 2014 vs. 2013": the years of the "vs." headings had
    # been read as four more periods, and "(70)" (a change) as 2015's net additions
    from desktop_rag.core.ingest.statements.columns import period_tables

    shared = next((p / "shared" / "data" / "financebench-dev" / "pdfs" for p in Path(__file__).resolve().parents
                   if (p / "shared" / "data" / "financebench-dev" / "pdfs").is_dir()), Path("/nonexistent"))
    page = _boxed_page(shared / "NETFLIX_2015_10K.pdf", 21)
    st = period_tables(page, annual=True)[0].statement
    assert [(p.year, p.months) for p in st.periods] == [(2015, 12), (2014, 12), (2013, 12)]
    row = next(r for r in st.rows if r.label == "Net additions")
    assert [c.text for c in row.cells] == ["5,624", "5,694", "6,274"]
