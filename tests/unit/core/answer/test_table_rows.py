"""The table-row retry on real MD&A pages: the bundled Apple Q3 2023 10-Q, and Microsoft's
segment table (change columns between the periods) from ../shared when present."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.answer.table_rows import table_row_answer
from desktop_rag.core.answer.verify import Passage
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit
from desktop_rag.core.ingest.pdf import PageText, extract_page, open_pdf
from tests.conftest import REPO_ROOT

REPO = REPO_ROOT
APPLE = REPO / "corpus" / "2023 Q3 AAPL.pdf"
SEC10Q = next((p / "shared" / "data" / "sec10q" / "pdfs" for p in REPO.parents
               if (p / "shared" / "data" / "sec10q" / "pdfs").is_dir()), REPO.parent / "shared")
APPLE_META = DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3,
                          period_end="2023-07-01")
MSFT_META = DocumentMeta(company="Microsoft Corporation", ticker="MSFT", form_type="10-Q", fiscal_year=2023,
                         fiscal_quarter=3, period_end="2023-03-31")


def _pages(path: Path, numbers: list[int]) -> dict[int, PageText]:
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        return {n: extract_page(pdf[n - 1], with_boxes=True) for n in numbers}
    finally:
        pdf.close()


def _passages(path: Path, meta: DocumentMeta, pages: dict[int, PageText]) -> list[Passage]:
    doc = Document(doc_id=path.name, file_name=path.name, path=str(path), pages=0, meta=meta)
    out = []
    for i, (n, page) in enumerate(pages.items()):
        chunk = Chunk(i, doc.doc_id, i, n, 0, len(page.text), page.text, kind="table")
        out.append(Passage(Hit(chunk, doc, 1.0), 0, len(page.text), page.text, page.text))
    return out


# the library's idf as the engine passes it: common filing words weigh little, names much
_COMMON = {"revenue": 1.25, "segment": 2.4, "service": 1.25, "grossmargin": 2.0, "opincome": 1.8, "sell": 3.6,
           "share": 2.1, "change": 2.0}


def _ask(question: str, concept: str, passages: list[Passage], pages: dict[int, PageText]):
    """The retry as the engine runs it (``concept``: the question's evidence terms, as words)."""
    terms = set(tokenize(concept))
    idf = {t: _COMMON.get(t, 4.0) for t in terms}
    return table_row_answer(question, terms, passages, idf,
                            page_of=lambda doc, n, text: pages[n] if pages[n].text == text else None)


@pytest.fixture(scope="module")
def apple() -> tuple[list[Passage], dict[int, PageText]]:
    pages = _pages(APPLE, [18, 19, 20])
    return _passages(APPLE, APPLE_META, pages), pages


def test_a_category_row_under_its_heading_in_the_asked_quarter(apple) -> None:
    passages, pages = apple
    out = _ask("Apple Q3 2023: Services net sales and YoY growth?", "services net sales", passages, pages)
    assert out is not None
    assert out.value == 21213  # the quarter's column, not the nine months' (62,886)
    assert out.text.startswith("Services (Net sales by category): $21,213 million in the three months ended July 1, 2023")
    assert "$19,604 million in the three months ended June 25, 2022" in out.text
    row, header = out.citations
    assert row.quote == "Services 21,213 19,604 8 % 62,886 58,941 7 %"
    assert pages[19].text[row.char_start:row.char_start + len(row.quote)] == row.quote
    assert header.quote.startswith("Three Months Ended Nine Months Ended") and header.quote.endswith("Change")


def test_the_asked_length_picks_the_column(apple) -> None:
    passages, pages = apple
    out = _ask("What were Apple's Greater China net sales for the first nine months of fiscal 2023?",
               "greater china net sales", passages, pages)
    assert out is not None and out.value == 57475
    assert "nine months ended July 1, 2023" in out.text


def test_a_row_of_the_asked_measure_not_another(apple) -> None:
    passages, pages = apple
    out = _ask("Apple Q3 2023 Services gross margin?", "services gross margin", passages, pages)
    assert out is not None and out.value == 14965  # not Services net sales (21,213)


def test_no_figure_for_what_no_row_names(apple) -> None:
    passages, pages = apple
    # a product the tables do not list is not answered with a total (or another product)
    assert _ask("How much did Apple's Vision Pro sell in Q3 2023?", "vision pro sell", passages, pages) is None
    # nor a segment whose table was not retrieved, by the total of another table on the pages
    only_categories = [p for p in passages if p.hit.chunk.page == 19]
    assert _ask("What were Apple's Greater China net sales in Q3 2023?", "greater china net sales",
                only_categories, pages) is None
    # why a figure moved is not a figure
    assert _ask("What drove Apple's Services net sales in Q3 2023?", "services net sales", passages, pages) is None
    # a trend over years the table does not print beside each other: no column answers it
    assert _ask("Apple Services net sales from 2019 to 2023?", "services net sales", passages, pages) is None


def test_a_measure_the_pages_print_only_without_its_modifier_is_not_answered(apple) -> None:
    # Adobe's "Digital Media annualized recurring revenue" was answered with its Digital Media
    # segment revenue row: the pages never print "annualized recurring", so no row is that measure
    passages, pages = apple
    assert _ask("What was Apple's Services annualized recurring revenue in Q3 2023?",
                "services annualized recurring revenue", passages, pages) is None
    assert _ask("What were Apple's Services organic net sales in Q3 2023?", "services organic net sales",
                passages, pages) is None
    # the words the pages do print keep the row's answer
    out = _ask("What were Apple's Services total net sales in Q3 2023?", "services total net sales", passages, pages)
    assert out is not None and out.value == 21213


def test_no_boxes_no_table(apple) -> None:
    passages, _ = apple
    got = table_row_answer("Apple Q3 2023: Services net sales?", set(tokenize("services net sales")), passages, None,
                           page_of=lambda doc, n, text: None)
    assert got is None


def test_change_columns_between_periods_are_skipped_and_ties_refused() -> None:
    path = SEC10Q / "2023 Q2 MSFT.pdf"
    pages = _pages(path, [38])
    passages = _passages(path, MSFT_META, pages)
    out = _ask("Microsoft Q2 2023: Intelligent Cloud segment revenue and YoY growth?",
               "intelligent cloud segment revenue", passages, pages)
    assert out is not None and out.value == 22081  # "16%" (the change column) is no period's figure
    assert out.text.startswith("Intelligent Cloud (Revenue): $22,081 million in the three months ended March 31, 2023")
    op = _ask("Microsoft Intelligent Cloud operating income, nine months to March 2023?",
              "intelligent cloud operating income", passages, pages)
    assert op is not None and op.value == 27358
    # the segment without a measure: its revenue and its operating income name it alike
    assert _ask("Microsoft Intelligent Cloud segment in Q2 2023?", "intelligent cloud segment", passages, pages) is None


FINANCEBENCH = next((p / "shared" / "data" / "financebench-dev" / "pdfs" for p in REPO.parents
                     if (p / "shared" / "data" / "financebench-dev" / "pdfs").is_dir()), REPO.parent / "shared")
JPM_META = DocumentMeta(company="JPMorgan Chase & Co.", ticker="JPM", form_type="10-Q", fiscal_year=2022,
                        fiscal_quarter=2, period_end="2022-06-30")


def test_a_segments_column_group_answers_only_for_that_segment() -> None:
    # JPMorgan prints its segments as column groups: "Three months ended June 30, Consumer &
    # Community Banking Corporate & Investment Bank Commercial Banking" over "2022 2021 Change"
    # three times; the row "Total net revenue" names no segment. Read as six periods, the first
    # group's $12,614 million was every group's "2022"
    path = FINANCEBENCH / "JPMORGAN_2022Q2_10Q.pdf"
    pages = _pages(path, [21])
    passages = _passages(path, JPM_META, pages)
    ccb = _ask("How much net revenue did JPM's Consumer & Community Banking segment generate in the second quarter "
               "of 2022?", "net revenue consumer community banking segment", passages, pages)
    assert ccb is not None and ccb.value == 12614
    assert ccb.text.startswith("Total net revenue (Consumer & Community Banking): $12,614 million in the three months")
    cib = _ask("What was the total net revenue of JPMorgan's Corporate & Investment Bank in the second quarter of 2022?",
               "total net revenue corporate investment bank", passages, pages)
    assert cib is not None and cib.value == 11947
    # the firm's own total is the "Total" group's, never a segment's
    firm = _ask("What was JPMorgan's total net revenue in the second quarter of 2022?", "total net revenue",
                passages, pages)
    assert firm is None or firm.value == 31630


NETFLIX_META = DocumentMeta(company="Netflix, Inc.", ticker="NFLX", form_type="10-K", fiscal_year=2017,
                            period_end="2017-12-31")


def test_a_segments_table_answers_only_for_that_segment() -> None:
    # "How fast did Netflix's revenues grow in 2016 and 2017?" was answered from the "Revenues"
    # row of the "Domestic Streaming Segment" table ($6,153,025 thousand; the company's was
    # $11,692,713 thousand), found by the full answer run
    path = FINANCEBENCH / "NETFLIX_2017_10K.pdf"
    pages = _pages(path, [22])
    passages = _passages(path, NETFLIX_META, pages)
    assert _ask("How fast did Netflix's revenues grow in 2016 and 2017?", "revenue grow", passages, pages) is None
    assert _ask("What were Netflix's revenues in 2017?", "revenue", passages, pages) is None


def test_a_scale_note_over_the_rows_is_no_per_share_heading() -> None:
    # Netflix's selected financial data: "(in thousands, except per share data)" right above
    # "Revenues $ 11,692,713": read as the row's heading it made the revenue a per-share figure,
    # shown as "$11,692,713.00" (a thousandth of the revenue)
    path = FINANCEBENCH / "NETFLIX_2017_10K.pdf"
    pages = _pages(path, [19])
    out = _ask("What were Netflix's revenues in 2017?", "revenue", _passages(path, NETFLIX_META, pages), pages)
    assert out is not None and out.value == 11692713
    assert out.text.startswith("Revenues: $11,692,713 thousand in the year ended December 31, 2017"), out.text


def test_an_amount_spent_is_no_balance_at_a_date() -> None:
    # "How much cash did Netflix spend on content assets in 2017?" was answered from the balance
    # sheet's "Cash and cash equivalents $ 2,822,795" (as of December 31, 2017): a balance at a
    # date answers no question about what flowed during the year
    path = FINANCEBENCH / "NETFLIX_2017_10K.pdf"
    pages = _pages(path, [45])
    passages = _passages(path, NETFLIX_META, pages)
    # the library's idf: "content" is a common word of Netflix's filings, "cash" a rarer one
    terms = set(tokenize("cash content asset"))
    idf = {"cash": 4.0, "asset": 2.0, "content": 1.0}
    page_of = lambda doc, n, text: pages[n] if pages[n].text == text else None
    assert table_row_answer("How much cash did Netflix spend on content assets in 2017?", terms, passages, idf,
                            page_of=page_of) is None
    # the balance itself is still read off the balance sheet
    held = _ask("How much cash and cash equivalents did Netflix have at the end of 2017?", "cash equivalent",
                passages, pages)
    assert held is not None and held.value == 2822795


MSFT16_META = DocumentMeta(company="Microsoft Corporation", ticker="MSFT", form_type="10-K", fiscal_year=2016,
                           period_end="2016-06-30")


def test_the_paragraph_above_a_tables_heading_is_no_part_of_its_title() -> None:
    # "... decreased diluted EPS by $1.15." ends the paragraph printed right above "SEGMENT RESULTS
    # OF OPERATIONS": read into the table's title, its "EPS" made the heading name a measure no
    # row names, and the segment table was skipped (the full answer run then showed the segment's
    # unearned revenue, $11,472 million, for its revenue, $25,042 million)
    path = FINANCEBENCH / "MICROSOFT_2016_10K.pdf"
    pages = _pages(path, [33])
    passages = _passages(path, MSFT16_META, pages)
    out = _ask("What revenue did Microsoft's Intelligent Cloud segment report in FY2016?",
               "intelligent cloud segment revenue", passages, pages)
    assert out is not None and out.value == 25042
    assert out.text.startswith("Intelligent Cloud (Revenue): $25,042 million in fiscal 2016")
    op = _ask("What was operating income of MSFT's More Personal Computing segment in fiscal 2016?",
              "more personal computing segment operating income", passages, pages)
    assert op is not None and op.value == 6142


def test_a_row_of_the_asked_measure_with_a_qualifier_the_question_lacks_is_no_answer() -> None:
    from desktop_rag.core.answer.table_rows import _another_measure
    from desktop_rag.core.ingest.statements.model import Row

    asked, question = {"revenue"}, set(tokenize("What revenue did the Intelligent Cloud segment report?"))
    segment = Row("Intelligent Cloud", "", 1, (0, 10), (0, 10))
    assert _another_measure(segment, "Unearned revenue by segment was as follows: June 30, 2016 2015", asked, question)
    assert not _another_measure(segment, "Revenue by segment was as follows: 2016 2015", asked, question)
    # the heading above the row names its measure before the table's title does
    under_revenue = Row("Intelligent Cloud", "Revenue", 1, (0, 10), (0, 10))
    assert not _another_measure(under_revenue, "Unearned and deferred revenue by segment 2016 2015", asked, question)
    # the question's own qualifier is no other measure
    unearned = set(tokenize("What unearned revenue did the Intelligent Cloud segment report?"))
    assert not _another_measure(segment, "Unearned revenue by segment was as follows:", asked, unearned)


LMT_META = DocumentMeta(company="Lockheed Martin Corporation", ticker="LMT", form_type="10-K", fiscal_year=2021,
                        period_end="2021-12-31")


def test_which_segment_ranks_highest_or_lowest_is_read_over_every_segments_row() -> None:
    # "Sales and operating profit for each of our business segments": "Net sales" and "Operating
    # profit" headings over the four segments' rows; the ranking quotes each segment's row
    path = FINANCEBENCH / "LOCKHEEDMARTIN_2021_10K.pdf"
    pages = _pages(path, [82])
    passages = _passages(path, LMT_META, pages)
    top = _ask("Which of Lockheed Martin's business segments had the highest operating profit in 2021?",
               "business segment highest operating profit", passages, pages)
    assert top is not None and top.value == 2799
    assert top.text.startswith("Aeronautics: $2,799 million of Operating profit in fiscal 2021, the highest of the 4")
    assert len(top.citations) == 5  # the four segments' rows and the column heading
    assert all(pages[82].text[c.char_start:c.char_start + len(c.quote)] == c.quote for c in top.citations)
    low = _ask("Which of Lockheed Martin's business segments had the lowest net sales in 2021?",
               "business segment lowest net sales", passages, pages)
    assert low is not None and low.value == 11693 and low.text.startswith("Missiles and Fire Control")


JPM21_META = DocumentMeta(company="JPMorgan Chase & Co.", ticker="JPM", form_type="10-Q", fiscal_year=2021,
                          fiscal_quarter=1, period_end="2021-03-31")


def test_a_segments_own_table_of_regions_ranks_no_segments() -> None:
    # "International metrics" of the asset-management segment ("Latin America/Caribbean 214") are
    # regions of one segment: asked which business segment had the lowest net revenue, the
    # ranking had answered $214 million
    path = FINANCEBENCH / "JPMORGAN_2021Q1_10Q.pdf"
    pages = _pages(path, [32])
    passages = _passages(path, JPM21_META, pages)
    assert _ask("Which of JPM's business segments had the lowest net revenue in 2021 Q1?",
                "business segment lowest net revenue", passages, pages) is None


def test_a_segments_change_and_share_of_the_whole_are_computed_from_its_tables_cells() -> None:
    path = FINANCEBENCH / "LOCKHEEDMARTIN_2021_10K.pdf"
    pages = _pages(path, [82])
    passages = _passages(path, LMT_META, pages)
    # "and what share of the company was that?" had kept every amount row out (a percentage asked)
    out = _ask("How much did Lockheed Martin's Missiles and Fire Control segment sell in FY2021, and what share of "
               "the company was that?", "missiles fire control segment sell share", passages, pages)
    assert out is not None and out.value == 11693
    assert out.text.endswith("; 17.4% of Total net sales ($67,044 million, computed).")
    assert "Total net sales $ 67,044 $ 65,398 $ 59,812" in [c.quote for c in out.citations]
    change = _ask("How did Lockheed Martin's Space segment net sales change in 2021?", "space segment net sales change",
                  passages, pages)
    assert change is not None and change.value == 11814
    assert change.text.endswith("($11,880 million in fiscal 2020), down 0.6% (computed from the two cells).")
    # a growth rate asked is computed too, not looked for among percentage rows
    rate = _ask("What were Lockheed Martin's Aeronautics segment net sales in 2021 and their growth rate?",
                "aeronautics segment net sales", passages, pages)
    assert rate is not None and rate.text.endswith("up 1.8% (computed from the two cells).")


def test_a_row_naming_another_part_with_a_shared_word_is_no_answer() -> None:
    # "What was Microsoft Cloud revenue ...?" (the company's name leaves "Cloud") was answered with
    # the "Intelligent Cloud" segment's revenue row
    path = SEC10Q / "2023 Q2 MSFT.pdf"
    pages = _pages(path, [38])
    passages = _passages(path, MSFT_META, pages)
    assert _ask("What was Microsoft Cloud revenue in Q2 2023?", "cloud revenue", passages, pages) is None
    out = _ask("What was Microsoft's Intelligent Cloud revenue in Q2 2023?", "intelligent cloud revenue", passages, pages)
    assert out is not None and out.value == 22081


def test_a_banks_segments_printed_as_column_groups_are_ranked_together() -> None:
    # two tables of groups on one page ("Consumer & Community Banking Corporate & Investment Bank
    # Commercial Banking", then "Asset & Wealth Management Corporate Total"); the rows carry "NM"
    # and "(a)" between cells. With one table's groups only, Commercial Banking ($2,393 million)
    # had been the lowest; Corporate's -$473 million is
    path = FINANCEBENCH / "JPMORGAN_2021Q1_10Q.pdf"
    pages = _pages(path, [19])
    low = _ask("Which of JPM's business segments had the lowest net revenue in 2021 Q1?",
               "business segment lowest net revenue", _passages(path, JPM21_META, pages), pages)
    assert low is not None and low.value == -473 and low.text.startswith("Corporate: -$473 million")
    assert "the lowest of the 5 segments" in low.text
    # both tables' column headings are quoted: each group's figure with the heading naming its group
    headings = [c.quote for c in low.citations if c.quote.startswith("Three months ended March 31,")]
    assert len(headings) == 2 and any("Asset & Wealth Management Corporate Total" in h for h in headings)
    path = FINANCEBENCH / "JPMORGAN_2022Q2_10Q.pdf"
    pages = _pages(path, [21])
    top = _ask("In 2022 Q2, which of JPM's business segments had the highest net income?",
               "business segment highest net income", _passages(path, JPM_META, pages), pages)
    assert top is not None and top.value == 3725 and top.text.startswith("Corporate & Investment Bank: $3,725 million")
