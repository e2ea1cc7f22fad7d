"""core/answer/ranking.py: the company's parts ranked from a table of the filing, on small
page texts and on real filings (the bundled NVIDIA and Apple 10-Qs; Amazon's and Microsoft's
segment tables from ../shared when present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.answer.ranking import part_causes, ranking_answer, read_tables
from desktop_rag.core.answer.verify import Passage
from desktop_rag.core.domain.question import read_question
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit
from tests.conftest import REPO_ROOT

SEC10Q = next((p / "shared" / "data" / "sec10q" / "pdfs" for p in REPO_ROOT.parents
               if (p / "shared" / "data" / "sec10q" / "pdfs").is_dir()), REPO_ROOT.parent / "shared")
QUARTER = DocumentMeta(company="Acme Corp", ticker="ACME", form_type="10-Q", fiscal_year=2023, fiscal_quarter=2,
                       period_end="2023-06-30")
ANNUAL = DocumentMeta(company="Acme Corp", ticker="ACME", form_type="10-K", fiscal_year=2022, period_end="2022-12-31")


def _passages(pages: dict[int, str], meta: DocumentMeta, name: str = "acme.pdf") -> list[Passage]:
    doc = Document(doc_id=name, file_name=name, path=name, pages=0, meta=meta)
    out = []
    for i, (n, text) in enumerate(pages.items()):
        chunk = Chunk(i, doc.doc_id, i, n, 0, len(text), text)
        out.append(Passage(Hit(chunk, doc, 1.0), 0, len(text), text, text))
    return out


def _rank(question: str, pages: dict[int, str], meta: DocumentMeta = QUARTER):
    return ranking_answer(read_question(question), _passages(pages, meta))


def _quotes_are_page_text(out, pages: dict[int, str]) -> None:
    for c in out.citations:
        assert pages[c.page][c.char_start:c.char_start + len(c.quote)] == c.quote, c.quote
    for i in out.calculation.inputs:
        text = pages[i.page]
        assert text[i.char_start:i.char_start + len(i.quote)] == i.quote
        assert i.char_start <= i.cell_start < i.cell_end <= i.char_start + len(i.quote)


# -- small page texts ---------------------------------------------------------------------------------
SEGMENTS = (
    "Segment Results\n"
    "The following table presents net sales by reportable segment (in millions):\n"
    "Three Months Ended Six Months Ended\n"
    "June 30, June 30,\n"
    "2023 2022 % Change 2023 2022 % Change\n"
    "Widgets $ 1,200 $ 1,000 20 % $ 2,300 $ 2,100 10 %\n"
    "Gadgets 450 300 50 % 800 700 14 %\n"
    "Services 700 750 (7) % 1,500 1,400 7 %\n"
    "Corporate and other 10 20 (50) % 30 40 (25) %\n"
    "Total net sales $ 2,360 $ 2,070 14 % $ 4,630 $ 4,240 9 %\n"
    "Net sales increased primarily due to higher demand.\n"
)


def test_growth_is_computed_from_the_two_quarters_and_the_printed_change_quoted() -> None:
    out = _rank("Which segment had the highest net sales growth in Q2 2023?", {12: SEGMENTS})
    assert out is not None
    # 450 / 300 - 1: the quarter's columns, not the six months' (Widgets grew most there)
    assert out.ranked[0] == ("Gadgets", pytest.approx(50.0))
    assert [name for name, _ in out.ranked] == ["Gadgets", "Widgets", "Services"]  # no total, no corporate
    assert out.text.startswith("Gadgets grew fastest: +50.0% ($450 million in the three months ended June 30, 2023 vs "
                               "$300 million in the three months ended June 30, 2022; the filing prints +50%)")
    assert "ahead of Widgets (+20.0%) and Services (\u22126.7%)" in out.text
    calc = out.calculation
    assert calc.unit == "percent" and calc.result == 50.0 and "current period" in calc.formula
    # every cell used: each part's two amounts and its printed change
    assert [(i.label, i.value) for i in calc.inputs[:3]] == [("Gadgets", 450.0), ("Gadgets", 300.0), ("Gadgets", 50.0)]
    assert {c.quote for c in out.citations} >= {"Gadgets 450 300 50 % 800 700 14 %",
                                                 "Three Months Ended Six Months Ended\nJune 30, June 30,\n"
                                                 "2023 2022 % Change 2023 2022 % Change"}
    _quotes_are_page_text(out, {12: SEGMENTS})


def test_the_asked_length_picks_the_columns_and_the_lowest_is_asked_as_such() -> None:
    half = _rank("Which segment grew net sales fastest in the first half of 2023?", {12: SEGMENTS})
    assert half is not None and half.ranked[0][0] == "Gadgets" and half.ranked[1] == ("Widgets", pytest.approx(9.52, 0.01))
    worst = _rank("Which segment declined the most in Q2 2023?", {12: SEGMENTS})
    assert worst is not None and worst.ranked[0] == ("Services", pytest.approx(-6.67, 0.01))
    assert worst.text.startswith("Services declined the most: \u22126.7%")


def test_a_level_is_the_asked_periods_cell() -> None:
    out = _rank("Which segment had the largest net sales in Q2 2023?", {12: SEGMENTS})
    assert out is not None and out.ranked[0] == ("Widgets", 1200.0)
    assert out.text.startswith("Widgets had the highest net sales: $1,200 million in the three months ended June 30, 2023")


COMPARABLE = (
    "COMPARABLE SALES\n"
    "Increase/(Decrease)\n"
    "Quarters Ended June 30,\n"
    "2023 2022\n"
    "North Region 10.3 % 3.7 %\n"
    "South Region 11.9 13.0\n"
    "West Region 14.0 16.0\n"
    "Total 11.7 % 9.7 %\n"
)


def test_a_table_of_changes_ranks_the_printed_change() -> None:
    out = _rank("Which segment posted the strongest comparable sales growth in Q2 2023?", {2: COMPARABLE})
    assert out is not None
    assert out.ranked == [("West Region", 14.0), ("South Region", 11.9), ("North Region", 10.3)]
    assert out.text.startswith("West Region had the strongest comparable sales: +14.0% in the three months ended "
                               "June 30, 2023")
    assert out.calculation.formula.startswith("each part's comparable sales as the table prints it")
    # last year's column is no answer to this year's question
    assert _rank("Which segment posted the strongest comparable sales growth in Q2 2022?", {2: COMPARABLE},
                 ).ranked[0] == ("West Region", 16.0)  # type: ignore[union-attr]


MARGINS = (
    "The following table compares summary operating results for the years ended December 31:\n"
    "2022 2021 Percent Change\n"
    "Consolidated revenue $ 9,000 $ 8,500 6\n"
    "Operating income (loss):\n"
    "Air segment 1,064 2,922 (64 )\n"
    "Ground segment 3,140 2,642 19\n"
    "Consolidated operating income 4,204 5,564 (24 )\n"
    "Operating margin:\n"
    "Air segment 2.5 % 6.4 % (390 ) bp\n"
    "Ground segment 9.4 % 8.0 % 140 bp\n"
    "Consolidated operating margin 5.4 % 6.7 % (130 ) bp\n"
)


def test_a_margin_is_ranked_from_the_margin_rows_not_the_income_rows() -> None:
    out = _rank("Which segment had the highest operating margin in 2022?", {51: MARGINS}, ANNUAL)
    assert out is not None
    assert out.ranked == [("Ground segment", 9.4), ("Air segment", 2.5)]
    assert out.text.startswith("Ground segment had the highest operating margin: 9.4% in the year ended December 31, "
                               "2022 (8.0% in the year ended December 31, 2021)")
    assert out.citations[0].quote == "Operating margin:"
    growth = _rank("Which segment had the highest operating income growth in 2022?", {51: MARGINS}, ANNUAL)
    assert growth is not None and growth.ranked[0] == ("Ground segment", pytest.approx(18.85, 0.01))


def test_named_parts_keep_to_those() -> None:
    out = _rank("Which segment grew net sales faster in Q2 2023, Widgets or Services?", {12: SEGMENTS})
    assert out is not None and [n for n, _ in out.ranked] == ["Widgets", "Services"]
    assert out.text.startswith("Widgets grew faster: +20.0%")


def test_which_parts_grew_lists_those_that_did_and_the_others() -> None:
    out = _rank("Which of the reportable segments grew net sales in Q2 2023 versus Q2 2022?", {12: SEGMENTS})
    assert out is not None
    assert out.text.startswith("Gadgets (+50.0%: $450 million vs $300 million) and Widgets (+20.0%: $1,200 million vs "
                               "$1,000 million) grew net sales in the three months ended June 30, 2023")
    assert out.text.endswith("Services (\u22126.7%) did not.")


@pytest.mark.parametrize("page", [
    # no column heading naming the periods: which column is this year's?
    "Net sales by segment (in millions):\nWidgets $ 1,200 $ 1,000\nGadgets 450 300\n",
    # one part only beside the total
    "Three Months Ended June 30,\n2023 2022\nWidgets $ 1,200 $ 1,000\nTotal $ 1,200 $ 1,000\n",
    # the cells do not fit the heading's columns
    "Three Months Ended June 30,\n2023 2022\nWidgets $ 1,200 $ 1,000 $ 900 $ 800 20 %\nGadgets 450 300 7 5 50 %\n",
])
def test_no_answer_from_an_ambiguous_table(page: str) -> None:
    assert _rank("Which segment had the highest net sales growth in Q2 2023?", {3: page}) is None


def test_two_tables_as_good_leading_with_different_parts_give_no_answer() -> None:
    other = SEGMENTS.replace("Gadgets 450 300", "Gadgets 250 300").replace("Widgets $ 1,200", "Widgets $ 1,900")
    assert _rank("Which segment had the highest net sales growth in Q2 2023?", {12: SEGMENTS}) is not None
    assert _rank("Which segment had the highest net sales growth in Q2 2023?", {12: SEGMENTS, 40: other}) is None


def test_an_unasked_qualifier_of_the_measure_is_another_table() -> None:
    organic = SEGMENTS.replace("presents net sales", "presents organic net sales")
    assert _rank("Which segment had the highest net sales growth in Q2 2023?", {12: organic}) is None


def test_the_table_of_the_asked_kind_of_part_wins() -> None:
    offerings = ("Revenue by major offerings in our Widgets reportable segment were as follows:\n"
                 "(dollars in millions) Three Months Six Months\n2023 2022 % Change 2023 2022 % Change\n"
                 "Blue Widgets $ 900 $ 600 50 % $ 1,700 $ 1,500 13 %\nRed Widgets 300 400 (25) % 600 600 0 %\n"
                 "Total Widgets revenue $ 1,200 $ 1,000 20 % $ 2,300 $ 2,100 10 %\n")
    regions = ("Geographical Information\n(dollars in millions) Three Months Six Months\n"
               "2023 2022 % Change 2023 2022 % Change\nAmericas $ 1,500 $ 1,000 50 % $ 2,600 $ 2,000 30 %\n"
               "EMEA 860 1,070 (20) % 2,030 2,240 (9) %\nTotal revenue $ 2,360 $ 2,070 14 % $ 4,630 $ 4,240 9 %\n")
    pages = {12: SEGMENTS.replace("Gadgets 450 300 50 %", "Gadgets 330 300 10 %"), 13: offerings, 14: regions}
    out = _rank("Which segment grew fastest in Q2 2023?", pages)
    assert out is not None and out.ranked[0][0] == "Widgets"  # not Blue Widgets, an offering of one segment
    geo = _rank("Which region grew revenue fastest in Q2 2023?", pages)
    assert geo is not None and geo.ranked[0][0] == "Americas"


def test_the_causes_under_the_leaders_own_heading() -> None:
    page = SEGMENTS + ("Gadgets\nThe increase in segment net sales was primarily driven by higher demand for "
                       "sensors. Margins were stable.\nServices\nThe decrease was due to lower volumes.\n")
    cause = part_causes("Gadgets", _passages({12: page}, QUARTER))
    assert cause is not None
    assert cause.quote == "The increase in segment net sales was primarily driven by higher demand for sensors."
    assert page[cause.char_start:cause.char_start + len(cause.quote)] == cause.quote
    assert part_causes("Widgets", _passages({12: page}, QUARTER)) is None


def test_rows_read_with_their_cells_and_footnote_marks() -> None:
    page = ("The breakdown of Revenues is as follows:\n% CHANGE\n"
            "(Dollars in millions) FISCAL 2022 FISCAL 2021 % CHANGE FISCAL 2020 % CHANGE\n"
            "North America $ 18,353 $ 17,179 7 % $ 14,484 19 %\n"
            "Asia Pacific & Latin America (2) 5,955 5,343 11 % 5,028 6 %\n"
            "Global Brand Divisions (3) 102 25 308 % 30 -17 %\n"
            "TOTAL BRAND 24,410 22,547 8 % 19,542 15 %\n")
    tables = read_tables(page, Document("a", "a.pdf", "a.pdf", 0, ANNUAL))
    assert len(tables) == 1 and [p.end for p in tables[0].periods] == ["2022-12-31", "2021-12-31", "2020-12-31"]
    meta = DocumentMeta(company="Acme", form_type="10-K", fiscal_year=2022, period_end="2022-05-31")
    out = _rank("Among the geographic segments, which grew revenue fastest in fiscal 2022?", {38: page}, meta)
    # "(2)" is a footnote mark, not a cell; a division that is no place is no geographic segment
    assert out is not None and out.ranked == [("Asia Pacific & Latin America", pytest.approx(11.45, 0.01)),
                                              ("North America", pytest.approx(6.83, 0.01))]


# -- real filings -----------------------------------------------------------------------------------
def _pdf_pages(path: Path, numbers: list[int]) -> dict[int, str]:
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        return {n: extract_page(pdf[n - 1]).text for n in numbers}
    finally:
        pdf.close()


def _ask_filing(question: str, path: Path, meta: DocumentMeta, pages: dict[int, str]):
    return ranking_answer(read_question(question), _passages(pages, meta, path.name))


NVIDIA = REPO_ROOT / "corpus" / "2023 Q2 NVDA.pdf"
NVIDIA_META = DocumentMeta(company="NVIDIA Corporation", ticker="NVDA", form_type="10-Q", fiscal_year=2024,
                           fiscal_quarter=2, period_end="2023-07-30")


def test_nvidia_markets_and_regions_from_its_revenue_note() -> None:
    pages = _pdf_pages(NVIDIA, [24])
    out = _ask_filing("Which market platform grew revenue fastest in the second quarter of fiscal 2024?", NVIDIA,
                      NVIDIA_META, pages)
    assert out is not None
    assert out.ranked[0] == ("Data Center", pytest.approx((10323 / 3806 - 1) * 100))
    assert "($10,323 million in the three months ended July 30, 2023 vs $3,806 million in the three months ended " \
           "July 31, 2022)" in out.text
    _quotes_are_page_text(out, pages)
    geo = _ask_filing("Which geographic region had the highest revenue growth in Q2 fiscal 2024?", NVIDIA, NVIDIA_META,
                      pages)
    # the places of the table by invoicing address; "Other countries" is no one region
    assert geo is not None and [n for n, _ in geo.ranked] == ["United States", "Taiwan", "China (including Hong Kong)"]


APPLE = REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf"
APPLE_META = DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3,
                          period_end="2023-07-01")


def test_apple_categories_and_segments_with_their_printed_change_column() -> None:
    pages = _pdf_pages(APPLE, [18, 19])
    out = _ask_filing("Which product category had the highest net sales growth in Q3 2023?", APPLE, APPLE_META, pages)
    assert out is not None and out.ranked[0] == ("Services", pytest.approx((21213 / 19604 - 1) * 100))
    # the printed "8 %" of the quarter's Change column agrees and is quoted; the nine months' 7 % is not
    assert "the filing prints +8%" in out.text
    printed = [i for i in out.calculation.inputs if i.label == "Services" and i.unit == "percent"]
    assert len(printed) == 1 and printed[0].value == 8.0
    worst = _ask_filing("Which product category declined the most in Q3 2023?", APPLE, APPLE_META, pages)
    assert worst is not None and worst.ranked[0][0] == "iPad"
    region = _ask_filing("Which region grew net sales fastest in the third quarter of fiscal 2023?", APPLE, APPLE_META,
                         pages)
    assert region is not None and region.ranked[0][0] == "Greater China"
    _quotes_are_page_text(region, pages)


AMAZON = SEC10Q / "2023 Q2 AMZN.pdf"
AMAZON_META = DocumentMeta(company="Amazon.com, Inc.", ticker="AMZN", form_type="10-Q", fiscal_year=2023,
                           fiscal_quarter=2, period_end="2023-06-30")


def test_amazon_segments_over_two_quarters_printed_prior_year_first() -> None:
    pages = _pdf_pages(AMAZON, [24])
    out = _ask_filing("Which segment had the highest net sales growth in Q2 2023?", AMAZON, AMAZON_META, pages)
    assert out is not None
    # "2022 2023" over the columns: this year's is the second, AWS 22,140 vs 19,739
    assert out.ranked[0] == ("AWS", pytest.approx((22140 / 19739 - 1) * 100))
    assert [n for n, _ in out.ranked] == ["AWS", "North America", "International"]  # no "Consolidated"
    slow = _ask_filing("Which segment grew the slowest in Q2 2023?", AMAZON, AMAZON_META, pages)
    assert slow is not None and slow.ranked[0][0] == "International"
    _quotes_are_page_text(out, pages)


MICROSOFT = SEC10Q / "2023 Q2 MSFT.pdf"
MICROSOFT_META = DocumentMeta(company="Microsoft Corporation", ticker="MSFT", form_type="10-Q", fiscal_year=2023,
                              fiscal_quarter=3, period_end="2023-03-31")


def test_microsoft_segment_results_by_measure_heading() -> None:
    pages = _pdf_pages(MICROSOFT, [38])
    income = _ask_filing("Which segment had the highest operating income growth in the third quarter of fiscal 2023?",
                         MICROSOFT, MICROSOFT_META, pages)
    revenue = _ask_filing("Which segment had the highest revenue growth in Q3 FY2023?", MICROSOFT, MICROSOFT_META,
                          pages)
    assert income is not None and income.ranked[0] == ("Productivity and Business Processes",
                                                       pytest.approx((8639 / 7185 - 1) * 100))
    assert revenue is not None and revenue.ranked[0] == ("Intelligent Cloud", pytest.approx((22081 / 18987 - 1) * 100))
    assert "the filing prints +16%" in revenue.text
    _quotes_are_page_text(income, pages)


def test_a_label_wrapped_over_two_lines_is_one_part() -> None:
    page = SEGMENTS.replace("Gadgets 450 300 50 % 800 700 14 %", "Gadgets and related\nservices 450 300 50 % 800 700 14 %")
    out = _rank("Which segment had the highest net sales growth in Q2 2023?", {12: page})
    assert out is not None and out.ranked[0][0] == "Gadgets and related services"
    assert [n for n, _ in out.ranked][1:] == ["Widgets", "Services"]  # one group: the wrapped label is no heading
    _quotes_are_page_text(out, {12: page})


PROSE = (
    "2022 FINANCIAL PERFORMANCE\n"
    "In 2022, global comparable sales increased 10.9%, primarily due to strong sales performance across all segments.\n"
    "\u2022 Comparable sales in the U.S. increased 5.9%, benefiting primarily from strong average check growth.\n"
    "\u2022 Comparable sales in the International Operated segment increased 13.3%, reflecting positive comparable\n"
    "sales across the segment.\n"
    "\u2022 Comparable sales in the International Licensed segment increased 16.0%, led by Japan.\n"
    "In addition to the comparable sales results above, consolidated revenues were flat.\n"
)


def test_a_prose_list_of_the_parts_changes_ranks_when_no_table_does() -> None:
    out = _rank("Rank the segments by 2022 comparable sales growth.", {8: PROSE}, ANNUAL)
    assert out is not None
    assert out.ranked == [("International Licensed", 16.0), ("International Operated", 13.3), ("U.S.", 5.9)]
    assert out.text == ("International Licensed had the strongest comparable sales growth: +16.0% \u2014 ahead of "
                        "International Operated (+13.3%) and U.S. (+5.9%), as the filing states them for 2022.")
    # the period's line is quoted with each item; each input is the printed change
    assert out.citations[0].quote.startswith("In 2022, global comparable sales increased 10.9%")
    assert [i.value for i in out.calculation.inputs] == [16.0, 13.3, 5.9]
    _quotes_are_page_text(out, {8: PROSE})
    for i in out.calculation.inputs:
        assert PROSE[i.cell_start:i.cell_end] == f"{i.value}%"


def test_a_prose_list_needs_the_asked_period_printed_above_it() -> None:
    assert _rank("Which segment had the strongest comparable sales growth in 2021?", {8: PROSE}, ANNUAL) is None
    undated = PROSE.replace("2022 FINANCIAL PERFORMANCE\n", "").replace("In 2022, global", "Global")
    assert _rank("Rank the segments by 2022 comparable sales growth.", {8: undated}, ANNUAL) is None
    # another measure's list is no answer to this one
    assert _rank("Which segment had the highest revenue growth in 2022?", {8: PROSE}, ANNUAL) is None


def test_a_ratios_change_is_ranked_in_points() -> None:
    out = _rank("Which segment's operating margin improved the most in 2022?", {51: MARGINS}, ANNUAL)
    assert out is not None and out.ranked == [("Ground segment", pytest.approx(1.4)), ("Air segment", pytest.approx(-3.9))]
    assert out.text.startswith("Ground segment had the largest increase in operating margin: +1.4 percentage points "
                               "(9.4% in the year ended December 31, 2022 vs 8.0% in the year ended December 31, 2021)")
    assert out.calculation.unit == "percentage_points" and out.calculation.result == 1.4
    worst = _rank("Which segment had the largest operating margin decline in 2022?", {51: MARGINS}, ANNUAL)
    assert worst is not None and worst.ranked[0][0] == "Air segment"
    assert worst.text.startswith("Air segment had the largest decline in operating margin: \u22123.9 percentage points")


def test_the_leaders_share_of_the_total_when_asked() -> None:
    out = _rank("Which segment was biggest in Q2 2023 and what share of total net sales?", {12: SEGMENTS})
    assert out is not None and out.ranked[0] == ("Widgets", 1200.0)
    assert "Widgets was 50.8% of Total net sales ($2,360 million), computed from the two cells." in out.text
    assert out.calculation.inputs[0].label == "Total net sales" and out.calculation.inputs[0].value == 2360.0


def test_growth_on_another_basis_is_not_the_reported_amounts() -> None:
    # "in constant currency": the table prints no such figure; the reported growth is no answer
    assert _rank("Which segment grew fastest in constant currency in Q2 2023?", {12: SEGMENTS}) is None


def test_the_heading_over_the_rows_says_which_measure_they_are() -> None:
    page = ("Segment revenue and operating income were as follows during the periods presented:\n"
            "Three Months Ended Six Months Ended\n(In millions) December 31, December 31,\n2022 2021 2022 2021\n"
            "Revenue\nCloud $ 17,002 $ 15,936 $ 33,467 $ 30,975\nDevices 14,237 17,530 27,569 30,896\n"
            "Total $ 31,239 $ 33,466 $ 61,036 $ 61,871\n"
            "Operating Income\nCloud $ 8,175 $ 7,688 $ 16,498 $ 15,269\nDevices 3,320 6,236 7,537 11,212\n"
            "Total $ 11,495 $ 13,924 $ 24,035 $ 26,481\n")
    meta = DocumentMeta(company="Acme", form_type="10-Q", fiscal_year=2023, fiscal_quarter=2, period_end="2022-12-31")
    out = _rank("Which segment had the lowest operating income growth in Q2 FY2023?", {28: page}, meta)
    # the operating income rows (3,320 vs 6,236), not the revenue rows the title also names
    assert out is not None and out.ranked[0] == ("Devices", pytest.approx((3320 / 6236 - 1) * 100))
    assert out.citations[0].quote == "Operating Income"


def test_a_footnote_mark_after_a_trademark_sign_is_no_cell() -> None:
    page = ("Net sales disaggregated by significant products and services were as follows (in millions):\n"
            "Three Months Ended\nDecember 31, December 25,\n2022 2021\n"
            "Phones \u00ae (1) $ 65,775 $ 71,628\nComputers 7,735 10,852\nTablets \u00ae (1) 9,396 7,248\n"
            "Services (3) 20,766 19,516\nTotal net sales (4) $ 117,154 $ 123,945\n")
    meta = DocumentMeta(company="Acme", form_type="10-Q", fiscal_year=2023, fiscal_quarter=1, period_end="2022-12-31")
    out = _rank("Which product declined the most in Q1 2023?", {10: page}, meta)
    assert out is not None and [n for n, _ in out.ranked] == ["Computers", "Phones", "Services", "Tablets"]
    assert out.ranked[1] == ("Phones", pytest.approx((65775 / 71628 - 1) * 100))


def test_a_heading_closed_by_its_unlabelled_total_is_one_part() -> None:
    page = ("Net revenue and operating income (loss) for each period were as follows:\n"
            "Three Months Ended Six Months Ended\n(In Millions) Jul 1, 2023 Jul 2, 2022 Jul 1, 2023 Jul 2, 2022\n"
            "Net revenue:\nClient Computing\nDesktop $ 2,370 $ 2,289 $ 4,249 $ 4,930\nNotebook 3,896 4,751 7,303 10,710\n"
            "Other 514 638 995 1,360\n6,780 7,678 12,547 17,000\nData Center 4,004 4,695 7,722 10,769\n"
            "Foundry 232 57 350 213\nAll other 115 220 280 488\nTotal net revenue $ 11,131 $ 12,650 $ 20,899 $ 28,462\n")
    meta = DocumentMeta(company="Acme", form_type="10-Q", fiscal_year=2023, fiscal_quarter=2, period_end="2023-07-01")
    out = _rank("Which segment had the highest revenue growth in Q2 2023?", {12: page}, meta)
    # Desktop and Notebook are Client Computing's breakdown, not segments beside it
    assert out is not None and [n for n, _ in out.ranked] == ["Foundry", "Client Computing", "Data Center"]
    assert out.ranked[1][1] == pytest.approx((6780 / 7678 - 1) * 100)
    _quotes_are_page_text(out, {12: page})


REGIONS_OF_ONE_BUSINESS = (
    "Cloud and license revenues by ecosystem (in millions):\n"
    "Three Months Ended\n"
    "June 30,\n"
    "2023 2022 % Change\n"
    "Americas $ 1,702 $ 1,558 9 %\n"
    "EMEA 900 915 (2) %\n"
    "Asia Pacific 400 423 (5) %\n"
    "Total revenues $ 3,002 $ 2,896 4 %\n"
)


def test_a_breakdown_by_region_ranks_no_businesses_or_products() -> None:
    assert _rank("Which of Acme's businesses grew revenue fastest in Q2 2023?", {7: REGIONS_OF_ONE_BUSINESS}) is None
    assert _rank("Which product line grew revenue fastest in Q2 2023?", {7: REGIONS_OF_ONE_BUSINESS}) is None
    out = _rank("Which region grew revenue fastest in Q2 2023?", {7: REGIONS_OF_ONE_BUSINESS})
    assert out is not None and out.text.startswith("Americas")


def test_the_basis_of_a_figure_is_no_part_ranked() -> None:
    page = ("2022 FINANCIAL PERFORMANCE\n"
            "In 2022, global comparable sales increased 10.9%, primarily due to strong sales performance.\n"
            "\u2022 FX-Neutral comparable sales increased 14.0%, on a constant currency basis.\n"
            "\u2022 Comparable sales in the U.S. increased 5.9%, benefiting primarily from strong average check growth.\n"
            "\u2022 Comparable sales in the International Operated segment increased 13.3%.\n")
    out = _rank("Rank the segments by 2022 comparable sales growth.", {8: page}, ANNUAL)
    assert out is not None and [n for n, _ in out.ranked] == ["International Operated", "U.S."]


def test_each_parts_figure_asked_is_listed_without_a_verdict() -> None:
    """"What segments did it report, and what were net sales for each?": every part's figure of
    the asked period, read from its cell, and no "highest" the question did not ask."""
    out = _rank("What reportable segments did Acme use in Q2 2023, and what were net sales for each?", {12: SEGMENTS})
    assert out is not None
    assert out.text.startswith("Net sales by segment in the three months ended June 30, 2023: Widgets ($1,200 million;")
    assert "Gadgets ($450 million" in out.text and "Services ($700 million" in out.text
    assert "highest" not in out.text and "Corporate" not in out.text
    _quotes_are_page_text(out, {12: SEGMENTS})


def test_the_parts_listed_before_by_do_not_hide_a_rank_asked() -> None:
    out = _rank("Rank Acme's three segments (Widgets, Gadgets, Services) by net sales for Q2 2023.", {12: SEGMENTS})
    assert out is not None and out.ranked[0] == ("Widgets", 1200.0)
