"""core/statements/columns.py: the column of a printed table a row's figure sits in, read from
the header lines above the row in the page text."""

from __future__ import annotations

from datetime import date

from desktop_rag.core.statements.columns import CHANGE, PART, PERIOD, TOTAL, header_columns, place_row


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
    from desktop_rag.core.statements.columns import segment_title

    page = ("Table of Contents\nDomestic DVD Segment\nAs of/ Year Ended December 31, Change\n"
            "2024 2023 2022 2024 vs. 2023 2023 vs. 2022\n(in thousands, except percentages)\nMemberships:\n"
            "Paid memberships at end of period 4,787 5,668 6,765 (881) (16)% (1,097) (16)%\n")
    assert segment_title(page, page.index("Paid")) == "Domestic DVD Segment"
    statement = "CONSOLIDATED STATEMENTS OF INCOME\n(In millions)\n2024 2023\nNet sales 100 90\n"
    assert segment_title(statement, statement.index("Net sales")) == ""
