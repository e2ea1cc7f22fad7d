"""Statement extraction on real statement pages (bundled Apple 10-Q; financebench filings
from ../shared when present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.index.statement_store import extract_from_pdf
from desktop_rag.core.ingest.pdf import extract_document, open_pdf
from desktop_rag.core.ingest.statements.model import Statement
from desktop_rag.core.ingest.statements.table_reader import extract_statements, title_kind
from tests.conftest import REPO_ROOT

REPO = REPO_ROOT
# ../shared beside the checkout (or beside a folder of worktrees).
FINANCEBENCH = next((p / "shared" / "data" / "financebench-dev" / "pdfs" for p in REPO.parents
                     if (p / "shared" / "data" / "financebench-dev" / "pdfs").is_dir()), REPO.parent / "shared")


def _statements(path: Path) -> list[Statement]:
    pdf = open_pdf(path)
    try:
        return extract_from_pdf(pdf, extract_document(pdf))
    finally:
        pdf.close()


def _row(st: Statement, label: str, parent: str | None = None):
    rows = [r for r in st.rows if r.label == label and (parent is None or r.parent == parent)]
    assert rows, f"no row {label!r} in {st.title}: {[r.label for r in st.rows]}"
    return rows[0]


def _values(row) -> list[float | None]:
    return [c.value for c in row.cells]


@pytest.fixture(scope="module")
def apple(request: pytest.FixtureRequest) -> dict[str, Statement]:
    path = REPO / "corpus" / "2023 Q3 AAPL.pdf"
    return {s.kind: s for s in _statements(path)}


def test_apple_10q_finds_the_five_primary_statements(apple: dict[str, Statement]) -> None:
    # plus the segment note's tables (net sales and operating income by geography)
    assert set(apple) == {"income", "comprehensive", "balance", "equity", "cash_flow", "segment"}
    assert apple["income"].page == 4 and apple["cash_flow"].page == 8
    assert all(s.scale == "millions" for s in apple.values())


def test_three_and_nine_month_columns(apple: dict[str, Statement]) -> None:
    inc = apple["income"]
    assert [(p.end, p.months) for p in inc.periods] == [
        ("2023-07-01", 3), ("2022-06-25", 3), ("2023-07-01", 9), ("2022-06-25", 9)]
    assert _values(_row(inc, "Total net sales")) == [81797, 82959, 293787, 304182]
    assert _values(_row(inc, "Products", "Net sales")) == [60584, 63355, 230901, 245241]
    assert _values(_row(inc, "Other income/(expense), net")) == [-265, -10, -594, -97]
    eps = _row(inc, "Diluted", "Earnings per share")
    assert eps.unit == "per_share" and _values(eps) == [1.26, 1.20, 4.67, 4.82]
    assert _row(inc, "Basic", "Shares used in computing earnings per share").unit == "shares"


def test_balance_sheet_two_dates_and_wrapped_label(apple: dict[str, Statement]) -> None:
    bs = apple["balance"]
    assert [(p.end, p.months) for p in bs.periods] == [("2023-07-01", 0), ("2022-09-24", 0)]
    inv = _row(bs, "Inventories")
    assert inv.parent == "Current assets" and _values(inv) == [7351, 4946]
    assert _values(_row(bs, "Total assets")) == [335038, 352755]
    # "Common stock … 15,647,868" / "and 15,943,425 shares issued … 70,667 64,849" is one row.
    common = [r for r in bs.rows if r.label.startswith("Common stock and additional paid-in capital")]
    assert len(common) == 1 and _values(common[0]) == [70667, 64849]
    assert "15,943,425 shares issued" in common[0].label


def test_cash_flow_parenthesised_outflows_and_dashes(apple: dict[str, Statement]) -> None:
    cf = apple["cash_flow"]
    assert [(p.end, p.months) for p in cf.periods] == [("2023-07-01", 9), ("2022-06-25", 9)]
    capex = _row(cf, "Payments for acquisition of property, plant and equipment")
    assert _values(capex) == [-8796, -7419]
    assert capex.cells[0].text == "(8,796)"
    assert _values(_row(cf, "Proceeds from issuance of term debt, net")) == [5228, None]


def test_cells_keep_their_place_on_the_page(apple: dict[str, Statement]) -> None:
    pdf = open_pdf(REPO / "corpus" / "2023 Q3 AAPL.pdf")
    try:
        text = extract_document(pdf)[7].text
    finally:
        pdf.close()
    row = _row(apple["cash_flow"], "Payments for acquisition of property, plant and equipment")
    cell = row.cells[0]
    assert text[cell.span[0]:cell.span[1]] == "(8,796)"
    assert text[row.span[0]:row.span[1]] == "Payments for acquisition of property, plant and equipment (8,796) (7,419)"
    assert text[row.label_span[0]:row.label_span[1]] == row.label
    assert cell.bbox is not None and cell.bbox[0] > 300  # right half of the page, where the columns are


def test_round_trip_through_json(apple: dict[str, Statement]) -> None:
    st = apple["income"]
    again = Statement.from_json(st.to_json() | {"pages": st.pages})
    assert again.to_json() == st.to_json() and again.pages == st.pages


@pytest.mark.parametrize(("line", "kind"), [
    ("CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)", "income"),
    ("Consolidated statements of income (unaudited)", "income"),
    ("INCOME STATEMENTS", "income"),
    ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME", "comprehensive"),
    ("Consolidated Balance Sheets", "balance"),
    ("CONSOLIDATED STATEMENTS OF FINANCIAL POSITION", "balance"),
    ("CASH FLOWS STATEMENTS", "cash_flow"),
    ("Consolidated statements of changes in stockholders' equity (unaudited)", "equity"),
    ("CONSOLIDATED STATEMENTS OF CASH FLOWS (continued)", "cash_flow"),
    ("Consolidated Balance Sheets as of December 31, 2021 and 2020 82", None),
    ("See accompanying Notes to Condensed Consolidated Financial Statements.", None),
    ("Impact of derivatives on the Consolidated balance sheets", None),
    ("The following table presents the consolidated statements of income", None),
])
def test_title_kind(line: str, kind: str | None) -> None:
    assert title_kind(line) == kind


def test_text_only_pages_still_parse_rows_with_every_column() -> None:
    from desktop_rag.core.ingest.pdf import PageText

    page = PageText(3, "Example Corp.\nCONSOLIDATED STATEMENTS OF INCOME\n(In thousands, except per share data)\n"
                       "Year Ended December 31,\n2022 2021 2020\nRevenue:\nProduct $ 1,000 $ 900 $ 800\n"
                       "Services 500 400 -\nTotal revenue 1,500 1,300 800\nCost of revenue (600) (500) (400)\n"
                       "Net income $ 900 $ 800 $ 400\nSee accompanying notes.")
    [st] = extract_statements([page])
    assert st.kind == "income" and st.scale == "thousands"
    assert [(p.end, p.months) for p in st.periods] == [("2022-12-31", 12), ("2021-12-31", 12), ("2020-12-31", 12)]
    assert [r.label for r in st.rows] == ["Product", "Services", "Total revenue", "Cost of revenue", "Net income"]
    assert st.rows[0].parent == "Revenue"
    assert _values(st.rows[1]) == [500, 400, None]
    assert st.rows[0].cells[0].bbox is None


@pytest.fixture(scope="module")
def jpmorgan() -> dict[str, Statement]:
    path = FINANCEBENCH / "JPMORGAN_2022Q2_10Q.pdf"
    if not path.is_file():
        pytest.skip(f"financebench-dev filing not found at {path}")
    out: dict[str, Statement] = {}
    for s in _statements(path):
        out.setdefault(s.kind, s)
    return out


def test_bank_income_statement_has_no_cost_of_sales(jpmorgan: dict[str, Statement]) -> None:
    inc = jpmorgan["income"]
    assert inc.page == 88
    assert [(p.end, p.months) for p in inc.periods] == [
        ("2022-06-30", 3), ("2021-06-30", 3), ("2022-06-30", 6), ("2021-06-30", 6)]
    assert not any("cost of" in r.label.lower() for r in inc.rows)
    assert _values(_row(inc, "Investment securities losses")) == [-153, -155, -547, -141]
    bs = jpmorgan["balance"]
    assert [(p.end, p.months) for p in bs.periods] == [("2022-06-30", 0), ("2021-12-31", 0)]


def test_statement_split_over_two_pages_is_one() -> None:
    path = FINANCEBENCH / "AMERICANWATERWORKS_2021_10K.pdf"
    if not path.is_file():
        pytest.skip(f"financebench-dev filing not found at {path}")
    bs = next(s for s in _statements(path) if s.kind == "balance")
    assert bs.pages == [84, 85]
    assert _values(_row(bs, "Total current liabilities")) == [2141, 2881]
    assert _values(_row(bs, "Total assets")) == [26075, 24766]


SEC10Q = next((p / "shared" / "data" / "sec10q" / "pdfs" for p in REPO.parents
               if (p / "shared" / "data" / "sec10q" / "pdfs").is_dir()), REPO.parent / "shared")


def _pages(path: Path, numbers: list[int]) -> list[Statement]:
    """Statements of a few pages only (1-based), read with character boxes as at ingest."""
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    from desktop_rag.core.ingest.pdf import extract_page

    pdf = open_pdf(path)
    try:
        return extract_statements([extract_page(pdf[n - 1], with_boxes=True) for n in numbers])
    finally:
        pdf.close()


def test_segment_table_introduced_by_a_sentence() -> None:
    segs = [s for s in _pages(SEC10Q / "2023 Q2 AMZN.pdf", [19]) if s.kind == "segment"]
    assert segs, "no segment table on the page"
    st = segs[0]
    assert st.scale == "millions"
    assert [(p.end, p.months) for p in st.periods] == [
        ("2022-06-30", 3), ("2023-06-30", 3), ("2022-06-30", 6), ("2023-06-30", 6)]
    assert _values(_row(st, "Net sales", "North America")) == [74430, 82546, 143674, 159427]
    assert _values(_row(st, "Operating loss", "International")) == [-1771, -895, -3052, -2142]
    # nothing reads a segment table as the company's statement
    assert not any(s.kind == "income" for s in _pages(SEC10Q / "2023 Q2 AMZN.pdf", [19]))


def test_segment_note_heading_carries_to_the_next_page() -> None:
    segs = [s for s in _pages(SEC10Q / "2023 Q3 INTC.pdf", [11, 12]) if s.kind == "segment"]
    assert segs and segs[0].page == 12
    st = segs[0]
    assert [(p.end, p.months) for p in st.periods] == [
        ("2023-09-30", 3), ("2022-10-01", 3), ("2023-09-30", 9), ("2022-10-01", 9)]
    assert _values(_row(st, "Desktop", "Client Computing")) == [2753, 3222, 7002, 8152]
    assert _values(_row(st, "All other", "Operating income (loss)")) == [-2253, -1732, -5099, -3893]


def test_equity_statement_by_component_columns() -> None:
    st = next(s for s in _pages(FINANCEBENCH / "ADOBE_2015_10K.pdf", [62]) if s.kind == "equity")
    closing = _row(st, "Balances at November 27, 2015")
    assert {(c.column, c.period_end, c.months, c.value) for c in closing.cells} >= {
        ("Common Stock Shares", "2015-11-27", 0, 600834), ("Retained Earnings", "2015-11-27", 0, 7253431),
        ("Treasury Stock Shares", "2015-11-27", 0, -103025), ("Treasury Stock Amount", "2015-11-27", 0, -4267715),
        ("Accumulated Other Comprehensive Income (Loss)", "2015-11-27", 0, -169080), ("Total", "2015-11-27", 0, 7001580)}
    # a change belongs to the year up to the next balance row; its parent is the opening balance
    buyback = next(r for r in st.rows if r.label == "Purchase of treasury stock" and r.cells[0].period_end == "2015-11-27")
    assert buyback.parent == "Balances at November 28, 2014"
    assert {(c.column, c.months, c.value) for c in buyback.cells if c.value} == {
        ("Treasury Stock Shares", 12, -8104), ("Treasury Stock Amount", 12, -625000), ("Total", 12, -625000)}
    # wrapped labels are joined
    assert any(r.label == "Re-issuance of treasury stock under stock compensation plans" for r in st.rows)
    assert all(c.bbox is not None for r in st.rows for c in r.cells)


def test_equity_statement_by_period_columns_dates_its_balances() -> None:
    st = next(s for s in _pages(FINANCEBENCH / "MICROSOFT_2016_10K.pdf", [56]) if s.kind == "equity")
    closing = _row(st, "Balance, end of period", "Retained earnings")
    assert [(c.period_end, c.months, c.value) for c in closing.cells] == [
        ("2016-06-30", 0, 2282), ("2015-06-30", 0, 9096), ("2014-06-30", 0, 17710)]
    opening = _row(st, "Balance, beginning of period", "Retained earnings")
    # the opening balance of fiscal 2016 is the balance at the end of fiscal 2015; 2014's
    # opening date is not a column, so that cell is left out rather than dated wrongly
    assert [(c.period_end, c.months, c.value) for c in opening.cells] == [("2015-06-30", 0, 9096), ("2014-06-30", 0, 17710)]
    assert [c.months for c in _row(st, "Net income").cells] == [12, 12, 12]


def test_long_wrapped_label_does_not_end_the_balance_sheet() -> None:
    bs = next(s for s in _pages(FINANCEBENCH / "NETFLIX_2015_10K.pdf", [43]) if s.kind == "balance")
    assert _values(_row(bs, "Total stockholders’ equity")) == [2223426, 1857708]


def test_per_share_rows_under_a_share_class_heading() -> None:
    """Lockheed Martin (FY2022 10-K, page 63) prints "Earnings (loss) per common share" /
    "Basic" / "Continuing operations $ 21.74": the share-class heading replaces the per-share
    one, and the dollars-and-cents rows under it are still per share, never millions."""
    st = next(s for s in _pages(FINANCEBENCH / "LOCKHEEDMARTIN_2022_10K.pdf", [63]) if s.kind == "income")
    for parent in ("Basic", "Diluted"):
        for label in ("Continuing operations", "Discontinued operations"):
            assert _row(st, label, parent).unit == "per_share"
    assert _values(_row(st, "Continuing operations", "Diluted")) == [21.66, 22.76, 24.50]
    assert _values(_row(st, "Discontinued operations", "Diluted")) == [None, None, -0.20]
    # the dollar rows above keep their scale
    assert _row(st, "Net loss from discontinued operations").unit == "currency"
    assert _row(st, "Net earnings").unit == "currency"


def _period_tables(path: Path, number: int):
    from desktop_rag.core.ingest.pdf import extract_page
    from desktop_rag.core.ingest.statements.columns import period_tables

    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        page = extract_page(pdf[number - 1], with_boxes=True)
    finally:
        pdf.close()
    return page, period_tables(page)


def test_period_tables_read_an_mdna_table_with_change_columns() -> None:
    # "2023 2022 Change 2023 2022 Change": each cell goes to the year printed above its right
    # edge, the change columns to none (read from the right, "8 %" would be a period's figure)
    page, tables = _period_tables(REPO / "corpus" / "2023 Q3 AAPL.pdf", 19)
    assert len(tables) == 1
    st = tables[0].statement
    assert st.kind == "table" and st.scale == "millions"
    assert st.title.startswith("Products and Services Performance The following table shows net sales by category")
    assert [(p.end, p.months) for p in st.periods] == [
        ("2023-07-01", 3), ("2022-06-25", 3), ("2023-07-01", 9), ("2022-06-25", 9)]
    assert _values(_row(st, "Services", "Net sales by category")) == [21213, 19604, 62886, 58941]
    header = page.text[tables[0].header[0]:tables[0].header[1]]
    assert header.startswith("Three Months Ended Nine Months Ended") and header.endswith("2023 2022 Change")


def test_period_tables_need_character_boxes() -> None:
    from desktop_rag.core.ingest.pdf import PageText
    from desktop_rag.core.ingest.statements.columns import period_tables

    page, _ = _period_tables(REPO / "corpus" / "2023 Q3 AAPL.pdf", 19)
    assert period_tables(PageText(page.number, page.text)) == []


def test_period_tables_with_percentage_change_columns_and_headings() -> None:
    _, tables = _period_tables(SEC10Q / "2023 Q2 MSFT.pdf", 38)
    st = tables[0].statement
    assert _values(_row(st, "Intelligent Cloud", "Revenue")) == [22081, 18987, 63914, 54161]
    assert _values(_row(st, "Intelligent Cloud", "Operating Income")) == [9476, 8391, 27358, 24395]
    assert [(p.end, p.months) for p in st.periods] == [
        ("2023-03-31", 3), ("2022-03-31", 3), ("2023-03-31", 9), ("2022-03-31", 9)]


def test_period_tables_two_digit_year_change_headings() -> None:
    # Corning: "2021 2020 2019 21 vs. 20 20 vs. 19" under "Year ended December 31, change change"
    _, tables = _period_tables(FINANCEBENCH / "CORNING_2021_10K.pdf", 27)
    st = tables[0].statement
    assert [(p.end, p.months) for p in st.periods] == [("2021-12-31", 12), ("2020-12-31", 12), ("2019-12-31", 12)]
    assert _values(_row(st, "Display Technologies")) == [3700, 3172, 3254]


def test_period_tables_bare_years_are_fiscal_years_only_in_an_annual_report() -> None:
    # Microsoft's 10-K MD&A: "(In millions, except percentages) 2023 2022 Change", no period words
    page, tables = _period_tables(FINANCEBENCH / "MICROSOFT_2023_10K.pdf", 47)
    assert tables == []  # read as a 10-Q's page, bare years name no period length
    from desktop_rag.core.ingest.statements.columns import period_tables

    annual = period_tables(page, annual=True)
    st = annual[0].statement
    assert [(p.year, p.months) for p in st.periods] == [(2023, 12), (2022, 12)]
    assert _values(_row(st, "Research and development")) == [27195, 24512]


def test_a_row_is_read_past_not_meaningful_cells_and_footnote_marks_between_cells() -> None:
    from desktop_rag.core.ingest.statements.table_reader import split_row

    # a bank's segment rows: "NM" in a change column, "(a)" beside a restated cell; read from the
    # right, the row stopped at the first of them and its label took the cells left of it
    label, cells = split_row("Net income/(loss) 6,728 197 NM 5,740 1,985 189 1,168 139 NM")
    assert label == "Net income/(loss)"
    assert [c[1] for c in cells] == [6728, 197, None, 5740, 1985, 189, 1168, 139, None]
    label, cells = split_row("Net income/(loss) 3,100 5,645 (a) (45) 3,725 5,020 (a) (26)")
    assert label == "Net income/(loss)" and [c[1] for c in cells] == [3100, 5645, -45, 3725, 5020, -26]
    # a marker or "NM" with no figure beside it stays the label's
    assert split_row("Return on equity NM")[1] == []
    assert split_row("Total net revenue (a) 4,077 3,389")[0] == "Total net revenue"


@pytest.mark.parametrize(("title", "kind"), [
    ("CONDENSED CONSOLIDATED STATEMENTS OF INCOME (LOSS)", "income"),
    ("Consolidated Statements of Earnings (Loss)", "income"),
    ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME (LOSS)", "comprehensive"),
    ("CONSOLIDATED STATEMENTS OF OPERATIONS", "income"),
    ("CONSOLIDATED BALANCE SHEETS AND CASH FLOWS ANALYSIS", None),
])
def test_a_sign_word_after_a_title_is_part_of_it(title: str, kind: str | None) -> None:
    from desktop_rag.core.ingest.statements.table_reader import title_kind

    assert title_kind(title) == kind


def test_unlabelled_totals_and_a_marked_year_column() -> None:
    """A balance sheet that prints its totals without labels (the figures alone under
    "Current assets:") and marks a column's year ("2022*"): the totals are read as the totals
    of their group or section when the rows above add up to them, and the quote is the cells
    as printed."""
    from desktop_rag.core.ingest.pdf import PageText

    text = ("CONDENSED CONSOLIDATED BALANCE SHEETS\n(Unaudited)\nOctober 29, October 30, January 29,\n"
            "($ in millions) 2022 2021 2022*\nASSETS\nCurrent assets:\nCash and cash equivalents $ 351 $ 1,339 $ 804\n"
            "Merchandise inventories 1,685 1,301 1,266\nOther current assets 302 253 293\n2,338 2,893 2,363\n"
            "Property and equipment, net 897 860 917\nOther assets 103 96 121\n$ 3,338 $ 3,849 $ 3,401\n"
            "LIABILITIES AND SHAREHOLDERS' EQUITY\nCurrent liabilities:\nAccounts payable $ 522 $ 578 $ 596\n"
            "Accrued and other liabilities 455 498 561\n977 1,076 1,157\nLong-term debt 448 456 451\n"
            "Total liabilities 1,425 1,532 1,608\nShareholders' equity:\nRetained earnings 1,913 2,317 1,793\n"
            "Total shareholders' equity 1,913 2,317 1,793\n$ 3,338 $ 3,849 $ 3,401\n")
    [st] = extract_statements([PageText(4, text)])
    assert st.kind == "balance"
    assert [p.end for p in st.periods] == ["2022-10-29", "2021-10-30", "2022-01-29"]
    rows = {r.label: r for r in st.rows}
    assert _values(rows["Total current assets"]) == [2338, 2893, 2363]
    assert text[slice(*rows["Total current assets"].span)] == "2,338 2,893 2,363"
    assert rows["Property and equipment, net"].parent == "ASSETS"
    assert _values(rows["Total assets"]) == [3338, 3849, 3401]
    assert _values(rows["Total current liabilities"]) == [977, 1076, 1157]
    assert _values(rows["Total liabilities and shareholders' equity"]) == [3338, 3849, 3401]


def test_a_figure_row_that_adds_up_nothing_stays_unread() -> None:
    from desktop_rag.core.ingest.pdf import PageText

    text = ("CONSOLIDATED BALANCE SHEETS\n(In millions)\nDecember 31,\n2022 2021\nCurrent assets:\n"
            "Cash $ 100 $ 90\nInventories 50 40\n999 999\nTotal current assets 150 130\n")
    [st] = extract_statements([PageText(2, text)])
    assert [r.label for r in st.rows] == ["Cash", "Inventories", "Total current assets"]


def test_change_columns_named_after_the_years_are_not_periods() -> None:
    """An earnings release's "Quarters Ended March 31, 2023 2022 Inc/ (Dec)": two periods, and
    each row's change cells after them are no period's."""
    from desktop_rag.core.ingest.pdf import PageText

    text = ("CONDENSED CONSOLIDATED STATEMENT OF INCOME (UNAUDITED)\nDollars in millions\n"
            "Quarters Ended March 31, 2023 2022 Inc/ (Dec)\nRevenues\nSales $ 2,224.3 $ 2,302.4 $ (78.1) (3) %\n"
            "Other revenues 86.0 100.4 (14.4) (14)\nTOTAL REVENUES 2,310.3 2,402.8 (92.5) (4)\n"
            "OPERATING INCOME 532.4 312.6 219.8 70\nNET INCOME $ 302.3 $ 104.4 $ 197.9 n/m\n")
    [st] = extract_statements([PageText(4, text)])
    assert [(p.end, p.months) for p in st.periods] == [("2023-03-31", 3), ("2022-03-31", 3)]
    rows = {r.label: r for r in st.rows}
    assert _values(rows["TOTAL REVENUES"]) == [2310.3, 2402.8]
    assert _values(rows["NET INCOME"]) == [302.3, 104.4]
