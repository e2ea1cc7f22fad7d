"""Line items and metrics answered from the statements of the bundled Apple 10-Q."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_rag.core.calculate.calculator import calculate, currency_scale_asked, decimals_asked, wants_calculation
from desktop_rag.core.domain.types import Document, DocumentMeta
from desktop_rag.core.index.statement_store import extract_from_pdf
from desktop_rag.core.ingest.pdf import extract_document, open_pdf
from desktop_rag.core.ingest.statements.model import Statement
from tests.conftest import REPO_ROOT

CORPUS = REPO_ROOT / "corpus"


@pytest.fixture(scope="module")
def apple() -> tuple[Document, list[Statement], list[str]]:
    pdf = open_pdf(CORPUS / "2023 Q3 AAPL.pdf")
    try:
        pages = extract_document(pdf)
        statements = extract_from_pdf(pdf, pages)
    finally:
        pdf.close()
    meta = DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3,
                        period_end="2023-07-01")
    doc = Document("a" * 64, "2023 Q3 AAPL.pdf", str(CORPUS / "2023 Q3 AAPL.pdf"), len(pages), meta)
    return doc, statements, [p.text for p in pages]


def _ask(apple, question: str):
    doc, statements, texts = apple
    return calculate(question, [doc], lambda _id: statements, lambda _id, page: texts[page - 1])


def test_line_item_is_the_row_with_its_quote_and_cell(apple) -> None:
    out = _ask(apple, "What was Apple's capital expenditure in the nine months ended July 1, 2023?")
    assert out is not None and out.calculation is not None
    calc = out.calculation
    assert calc.result == 8796 and calc.unit == "usd_millions"
    [inp] = calc.inputs
    assert inp.label == "Payments for acquisition of property, plant and equipment"
    assert inp.page == 8 and inp.value == -8796
    assert inp.quote == "Payments for acquisition of property, plant and equipment (8,796) (7,419)"
    text = apple[2][7]
    assert text[inp.cell_start:inp.cell_end] == "(8,796)"
    assert out.citations[0].quote == inp.quote and out.citations[0].page == 8
    assert "8,796" in out.text


def test_a_line_per_a_unit_the_statements_do_not_count_is_not_the_line(apple) -> None:
    # "sales per gross square foot" is another figure than the net sales row
    assert _ask(apple, "What were Apple's total net sales per gross square foot in Q3 2023?") is None
    per_share = _ask(apple, "What was Apple's net income per diluted share in Q3 2023?")
    assert per_share is not None


def test_growth_of_a_balance_is_between_the_dates_asked(apple) -> None:
    # a balance has no three-month column: the balance sheet's dates, the later against the earlier
    out = _ask(apple, "By what percent did Apple's inventories grow from September 24, 2022 to July 1, 2023?")
    assert out is not None and out.calculation is not None, out
    assert [i.period for i in out.calculation.inputs] == ["2023-07-01", "2022-09-24"]
    a, b = (i.value for i in out.calculation.inputs)
    assert out.calculation.result == pytest.approx(round((a / b - 1) * 100, 1))


def test_metric_states_formula_inputs_and_rounding(apple) -> None:
    out = _ask(apple, "What was Apple's gross margin for the three months ended July 1, 2023? Round to two decimal places.")
    calc = out.calculation
    assert calc.metric == "Gross margin" and calc.unit == "percent"
    assert calc.result == round(36413 / 81797 * 100, 2)
    assert [i.label for i in calc.inputs] == ["Gross margin", "Total net sales"]
    assert all(i.period == "3 months ended 2023-07-01" for i in calc.inputs)


def test_balance_sheet_ratio_at_a_date(apple) -> None:
    out = _ask(apple, "What is Apple's current ratio as of July 1, 2023?")
    assert out.calculation.result == round(122659 / 124963, 2)
    assert {i.period for i in out.calculation.inputs} == {"2023-07-01"}


def test_definition_in_question_year_end_instead_of_average(apple) -> None:
    out = _ask(apple, "What is Apple's nine-month inventory turnover using year-end rather than average inventories? "
                      "Round to two decimal places.")
    assert out.calculation.result == round(165066 / 7351, 2)


def test_missing_input_is_an_honest_refusal(apple) -> None:
    doc, statements, texts = apple
    no_inventory = [Statement(s.kind, s.title, s.page, s.scale, s.periods,
                              [r for r in s.rows if "inventor" not in r.label.lower()], s.pages) for s in statements]
    out = calculate("What was Apple's inventory turnover in the nine months ended July 1, 2023?", [doc],
                    lambda _id: no_inventory, lambda _id, page: texts[page - 1])
    assert out is not None and out.calculation is None
    assert out.text.startswith("Cannot compute: inventories not found in the balance sheet")


def test_questions_that_are_not_lookups_go_to_retrieval(apple) -> None:
    assert _ask(apple, "What drove the change in Apple's services revenue?") is None
    assert not wants_calculation("Describe Apple's risk factors about China.")


@pytest.mark.parametrize(("q", "decimals"), [
    ("Round your answer to two decimal places.", 2), ("Answer in percent to one decimal place.", 1),
    ("Round to the nearest whole number.", 0), ("What is it?", 2)])
def test_decimals_asked(q: str, decimals: int) -> None:
    assert decimals_asked(q, 2) == decimals


def test_currency_scale_asked() -> None:
    assert currency_scale_asked("Answer in USD millions.") == "millions"
    assert currency_scale_asked("How much (in USD billions) did it pay?") == "billions"
    assert currency_scale_asked("What was revenue?") is None


def test_engine_answers_metrics_before_retrieval(build_library: Callable[..., object]) -> None:
    from desktop_rag.core.answer.engine import AnswerEngine
    from desktop_rag.settings import Settings

    lib = build_library()
    engine = AnswerEngine(lib, Settings())
    ans = engine.ask("What was Apple's net profit margin in the three months ended July 1, 2023? Round to two decimals.")
    assert ans.computed and ans.calculation is not None
    assert ans.calculation.result == round(19881 / 81797 * 100, 2)
    assert [c.page for c in ans.citations] == [2, 2]
    page = lib.page_text(ans.citations[0].doc_id, 2)
    assert all(c.quote in page for c in ans.citations)
    data = ans.to_json()
    assert data["computed"] is True and data["calculation"]["metric"] == "Net profit margin"
    assert {"label", "period", "value", "unit", "doc", "page", "quote"} <= set(data["calculation"]["inputs"][0])


def test_a_part_of_a_line_item_is_no_lookup(apple) -> None:
    # a part the statement prints under its heading ("Services" under "Net sales:") is that
    # row, never the total
    services = _ask(apple, "What was Apple's services net sales in the three months ended July 1, 2023?")
    assert services.calculation.result == 21213 and services.text.startswith("Net sales \u203a Services:")
    assert _ask(apple, "What was the data center revenue of Apple in Q3 2023?") is None
    assert _ask(apple, "What was Apple's total net sales in the three months ended July 1, 2023?").calculation.result == 81797


def test_earnings_per_share_read_with_its_heading(apple) -> None:
    """'Diluted' under 'Earnings per share:' is diluted EPS, in dollars as printed (not millions)."""
    out = _ask(apple, "What was Apple's diluted EPS for the three months ended July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 1.26 and out.calculation.unit == "usd"
    assert "$1.26 per share" in out.text and "Earnings per share" in out.text
    assert out.calculation.inputs[0].quote.startswith("Diluted $ 1.26")
    basic = _ask(apple, "What basic earnings per share did Apple report for the nine months ended July 1, 2023?")
    assert basic.calculation.result == 4.69
    # the share counts printed under the same words are no EPS: a count of shares, not dollars
    shares = _ask(apple, "How many basic shares did Apple use in computing earnings per share?")
    assert shares.calculation.unit == "shares" and shares.calculation.result == 15_697_614_000


def test_a_named_segment_region_or_product_is_left_to_retrieval(apple) -> None:
    """A capitalised name that is neither the company nor statement wording names a part of
    the company (its figure is in a note or MD&A): never answered with the total."""
    assert _ask(apple, "What were Apple's net sales in Greater China in the three months ended July 1, 2023?") is None
    assert _ask(apple, "What was Apple's iPhone revenue growth in the nine months ended July 1, 2023?") is None
    assert _ask(apple, "What was Apple's operating income in each year from 2021 to 2023?") is None
    # statement wording capitalised is no part
    out = _ask(apple, "What was Apple's Total Net Sales in the three months ended July 1, 2023?")
    assert out is not None and out.calculation.result == 81797


def test_definition_in_the_question_overrides_the_standard_formula(apple) -> None:
    q = ("What is Apple's current ratio as of July 1, 2023? Current ratio is defined as: "
         "(total current assets - inventories) / total current liabilities. Round to two decimal places.")
    out = _ask(apple, q)
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round((122659 - 7351) / 124963, 2)
    assert "as defined in the question" in out.calculation.formula
    # the same formula as the standard one: the standard answer, unchanged
    same = _ask(apple, "What is Apple's current ratio as of July 1, 2023? Current ratio is defined as: "
                       "total current assets / total current liabilities.")
    assert same.calculation.result == round(122659 / 124963, 2) and "defined" not in same.calculation.formula


def test_a_named_quarter_is_answered_only_from_that_quarters_filing(apple) -> None:
    third = _ask(apple, "What net income did Apple report for the third quarter of 2023?")
    assert third is not None and third.calculation.result == 19881
    # the library's only 10-Q is not the first quarter (fiscal, file or calendar): no figure from it
    assert _ask(apple, "What net income did Apple report for the first quarter of 2023?") is None
    # a trailing-twelve-month figure is in no column of a 10-Q
    assert _ask(apple, "What was Apple's trailing twelve month net income in its Q3 2023 10-Q?") is None


def test_share_counts_in_the_scale_their_statement_gives_them(apple) -> None:
    """Apple prints dollars in millions and share counts in thousands (its note says so)."""
    out = _ask(apple, "How many diluted shares did Apple use in computing earnings per share for the nine months "
                      "ended July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 15_859_263_000 and out.calculation.unit == "shares"
    [inp] = out.calculation.inputs
    assert inp.unit == "thousands" and inp.value == 15_859_263 and inp.page == 4
    assert "15,859,263 thousand shares" in out.text
    # diluted EPS is still EPS, not a share count
    assert _ask(apple, "What was Apple's diluted EPS for the three months ended July 1, 2023?").calculation.result == 1.26


def test_shares_outstanding_from_the_cover_page(apple) -> None:
    out = _ask(apple, "How many shares of common stock did Apple have outstanding?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 15_634_232_000 and out.calculation.unit == "shares"
    [inp] = out.calculation.inputs
    assert inp.page == 2 and inp.period == "2023-07-21"
    text = apple[2][1]
    assert text[inp.cell_start:inp.cell_end] == "15,634,232,000"
    assert out.citations[0].quote.startswith("15,634,232,000 shares of common stock were issued and outstanding")
    # another date than the cover's: a balance-sheet or note figure, left to retrieval
    assert _ask(apple, "How many shares of common stock did Apple have outstanding as of July 1, 2023?") is None
    # shares bought back are no shares outstanding
    assert _ask(apple, "How many shares did Apple repurchase in the three months ended July 1, 2023?") is None


@pytest.fixture(scope="module")
def jpmorgan() -> tuple[Document, list[Statement], list[str]]:
    from tests.unit.core.ingest.statements.test_table_reader import FINANCEBENCH

    path = FINANCEBENCH / "JPMORGAN_2023Q2_10Q.pdf"
    if not path.is_file():
        pytest.skip(f"financebench-dev filing not found at {path}")
    pdf = open_pdf(path)
    try:
        pages = extract_document(pdf)
        statements = extract_from_pdf(pdf, pages)
    finally:
        pdf.close()
    meta = DocumentMeta(company="JPMorgan Chase & Co.", ticker="JPM", form_type="10-Q", fiscal_year=2023,
                        fiscal_quarter=2, period_end="2023-06-30")
    return Document("j" * 64, path.name, str(path), len(pages), meta), statements, [p.text for p in pages]


def test_bank_without_cost_of_sales(jpmorgan) -> None:
    """A bank's income statement (page 96) has net interest income, noninterest revenue and
    noninterest expense, no cost of sales: gross margin is refused with what is missing, the
    efficiency ratio (noninterest expense / total net revenue) is computed."""
    gross = _ask(jpmorgan, "What was JPMorgan Chase's gross margin for the six months ended June 30, 2023?")
    assert gross is not None and gross.calculation is None
    assert gross.text.startswith("Cannot compute:") and "cost of sales not found in the income statement" in gross.text
    q = ("For a bank, compute JPMorgan Chase's efficiency ratio for the six months ended June 30, 2023, defined as "
         "total noninterest expense / total net revenue. Answer in percent to one decimal place.")
    out = _ask(jpmorgan, q)
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round(40929 / 79656 * 100, 1)
    assert [(i.label, i.value, i.page) for i in out.calculation.inputs] == [
        ("Total noninterest expense", 40929, 96), ("Total net revenue", 79656, 96)]
    # the definition written without "is defined as", in other words
    other = _ask(jpmorgan, "What was JPMorgan's overhead ratio for the three months ended June 30, 2023, computed as "
                           "total noninterest expense over total net revenue?")
    assert other.calculation.result == round(20822 / 41307 * 100, 2)
    item = _ask(jpmorgan, "What was JPMorgan Chase's total noninterest expense in the three months ended June 30, 2023?")
    assert item.calculation.result == 20822


def test_a_ratio_of_the_questions_own_naming_and_an_analysts_quarter(jpmorgan) -> None:
    """"Efficiency (overhead) ratio" is the standard efficiency ratio named with its other name
    in parentheses, and the question's formula is the same; "2Q23" is a period, not a
    segment's name; a fraction asked to one decimal is given as its percent (0.5 would say
    nothing)."""
    q = ("What was JPMorgan Chase's efficiency (overhead) ratio in 2Q23, computed as total noninterest expense "
         "divided by total net revenue? Round to one decimal.")
    assert wants_calculation(q)
    out = _ask(jpmorgan, q)
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round(20822 / 41307 * 100, 1) and out.calculation.unit == "percent"
    assert out.text.startswith("Efficiency ratio: 50.4%")


def test_bank_share_counts_in_millions_and_cover_count_as_printed(jpmorgan) -> None:
    out = _ask(jpmorgan, "What were JPMorgan's weighted-average diluted shares for the six months ended June 30, 2023?")
    assert out is not None and out.calculation.result == pytest.approx(2_960_500_000)
    assert "2,960.5 million shares" in out.text
    cover = _ask(jpmorgan, "How many shares of common stock were outstanding as of June 30, 2023?")
    assert cover is not None and cover.calculation.result == 2_906_085_273


def _statement_pages(name: str, pages: list[int], meta: DocumentMeta):
    """A financebench filing read on its statement pages only (1-based): cheap, and the same
    page texts and boxes the app stores. Skips when ../shared is absent."""
    from desktop_rag.core.ingest.pdf import extract_page
    from tests.unit.core.ingest.statements.test_table_reader import FINANCEBENCH, _pages

    path = FINANCEBENCH / name
    statements = _pages(path, pages)  # skips when absent
    pdf = open_pdf(path)
    try:
        texts = {n: extract_page(pdf[n - 1]).text for n in pages}
        n_pages = pdf.page_count
    finally:
        pdf.close()
    return Document(name[:8].ljust(64, "0"), name, str(path), n_pages, meta), statements, texts


def _ask_filing(filing, question: str):
    doc, statements, texts = filing
    return calculate(question, [doc], lambda _id: statements, lambda _id, page: texts.get(page, ""))


def test_a_net_loss_row_is_the_loss_asked() -> None:
    """AMD's statement of operations (FY2015 10-K, page 56) prints "Net loss (660)": the net
    loss asked is $660 million; the net income asked is the same row, named as the loss."""
    amd = _statement_pages("AMD_2015_10K.pdf", [56], DocumentMeta(company="Advanced Micro Devices, Inc.", ticker="AMD",
                                                                 form_type="10-K", fiscal_year=2015))
    out = _ask_filing(amd, "What was AMD's net loss for FY2015?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 660 and out.calculation.unit == "usd_millions"
    assert out.text.startswith("Net loss: $660 million (FY2015, p. 56")
    [inp] = out.calculation.inputs
    assert inp.value == -660 and amd[2][56][inp.cell_start:inp.cell_end] == "(660)"
    prior = _ask_filing(amd, "What was AMD's net income in 2014?")
    assert prior.calculation.result == 403 and prior.text.startswith("Net loss: $403 million")
    # a loss per share is no bottom line
    assert _ask_filing(amd, "What was AMD's net loss per share in 2015?") is None or \
        _ask_filing(amd, "What was AMD's net loss per share in 2015?").calculation is None


def test_eps_heading_over_the_net_income_row() -> None:
    """American Water prints "Diluted earnings per share:" over "Net income attributable to
    common shareholders 6.95" (FY2021 10-K, page 86): that row is diluted EPS."""
    awk = _statement_pages("AMERICANWATERWORKS_2021_10K.pdf", [86], DocumentMeta(
        company="American Water Works Company, Inc.", ticker="AWK", form_type="10-K", fiscal_year=2021))
    out = _ask_filing(awk, "What was American Water's diluted EPS for 2021?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 6.95 and "$6.95 per share" in out.text
    assert out.calculation.inputs[0].label == "Net income attributable to common shareholders"
    assert _ask_filing(awk, "What basic earnings per share did American Water Works report for 2020?").calculation.result == 3.91
    # the dollar row of the same label stays net income, in millions
    assert _ask_filing(awk, "What was American Water's net income in 2021?").calculation.result == 1263


def test_a_part_the_statement_prints_under_its_heading() -> None:
    """Costco's income statement (FY2021 10-K, page 36) prints "Membership fees" under
    "REVENUE": membership fee revenue is that row; a part it does not print stays with
    retrieval, and total revenue is still the total."""
    cost = _statement_pages("COSTCO_2021_10K.pdf", [36], DocumentMeta(
        company="Costco Wholesale Corporation", ticker="COST", form_type="10-K", fiscal_year=2021))
    out = _ask_filing(cost, "How much membership fee revenue did Costco earn in fiscal 2021?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 3877 and out.text.startswith("REVENUE \u203a Membership fees: $3,877 million")
    [inp] = out.calculation.inputs
    assert inp.label == "Membership fees" and cost[2][36][inp.cell_start:inp.cell_end] == "3,877"
    assert _ask_filing(cost, "How much e-commerce revenue did Costco earn in fiscal 2021?") is None
    assert _ask_filing(cost, "What was Costco's membership fee revenue growth in fiscal 2021?") is None
    # a part's growth between two years asked as a rate: the row in both years, the change between them
    grew = _ask_filing(cost, "By what percentage did Costco's membership fee revenue grow from fiscal 2020 to fiscal "
                             "2021? Round to two decimals.")
    assert grew is not None and grew.calculation is not None and "(+9.49%)" in grew.text, grew and grew.text
    assert _ask_filing(cost, "What was Costco's total revenue in fiscal 2021?").calculation.result == 195929
    # the part named after the concept, and a row the question quotes ("net sales" is the
    # "Net sales" row above "Total revenue", not the total)
    assert _ask_filing(cost, "What was Costco's revenue from membership fees in 2021?").calculation.result == 3877
    assert _ask_filing(cost, "What were Costco's net sales in fiscal 2021?").calculation.result == 192052


def test_a_part_compared_with_an_earlier_year_is_both_cells_and_the_change() -> None:
    """"How did membership fee revenue in fiscal 2021 compare with fiscal 2020?": the part's row
    in both columns of the income statement (Costco FY2021 10-K, page 36), the change in amount
    and percent, each cell cited."""
    cost = _statement_pages("COSTCO_2021_10K.pdf", [36], DocumentMeta(
        company="Costco Wholesale Corporation", ticker="COST", form_type="10-K", fiscal_year=2021))
    out = _ask_filing(cost, "How did Costco's membership fee revenue in fiscal 2021 compare with fiscal 2020?")
    assert out is not None and out.calculation is not None
    assert [i.value for i in out.calculation.inputs] == [3541, 3877]
    assert out.text.startswith("REVENUE \u203a Membership fees rose from $3,541 million (FY2020) to $3,877 million (FY2021)")
    assert "up $336 million (+9.5%)" in out.text


def test_a_line_item_narrowed_by_words_its_row_lacks_is_not_computed() -> None:
    """"Net income attributable to noncontrolling interests" is no "NET INCOME ATTRIBUTABLE TO
    COSTCO" (Costco FY2021 10-K, page 36): nothing is shown as computed rather than the
    wrong row; the company's own name or its common shareholders do not narrow it."""
    cost = _statement_pages("COSTCO_2021_10K.pdf", [36], DocumentMeta(
        company="Costco Wholesale Corporation", ticker="COST", form_type="10-K", fiscal_year=2021))
    for q in ("What was Costco's net income attributable to noncontrolling interests in fiscal 2021?",
              "What was Costco's net income including noncontrolling interests in fiscal 2021?",
              "What was Costco's net income from continuing operations in fiscal 2021?",
              "What was Costco's revenue from e-commerce in fiscal 2021?",
              "What was Costco's net income attributable to noncontrolling interests in the income statement for 2021?"):
        assert _ask_filing(cost, q) is None, q
    for q in ("What was Costco's net income attributable to Costco in fiscal 2021?",
              "What was Costco's net income attributable to common shareholders in fiscal 2021?",
              "What was Costco's net income for fiscal 2021?",
              "What was Costco's net income from the income statement for fiscal 2021?",
              "What was Costco's net income from its 10-K for fiscal 2021?"):
        assert _ask_filing(cost, q).calculation.result == 5007, q
    # where the figure is read from is no part of it
    q = "What were Costco's net sales from the consolidated statements of income in 2021?"
    assert _ask_filing(cost, q).calculation.result == 192052


def test_a_part_under_the_revenue_heading_of_a_software_filer() -> None:
    """Adobe (FY2017 10-K, page 58) prints "Subscription" under "Revenue:" and again under
    "Cost of revenue:": subscription revenue is the first, in the asked scale."""
    adbe = _statement_pages("ADOBE_2017_10K.pdf", [58], DocumentMeta(
        company="Adobe Systems Incorporated", ticker="ADBE", form_type="10-K", fiscal_year=2017))
    out = _ask_filing(adbe, "What was Adobe's subscription revenue in FY2017? Answer in USD millions.")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == pytest.approx(6133.869) and out.calculation.inputs[0].value == 6_133_869
    assert out.calculation.inputs[0].page == 58


def test_the_statement_is_cited_before_its_five_year_summary() -> None:
    """Netflix's FY2015 10-K prints "Selected Financial Data" (page 17: five years of a few
    income and balance rows) before its statements (page 40). A year both print is cited
    from the statement; a year only the summary prints is still read from the summary."""
    nflx = _statement_pages("NETFLIX_2015_10K.pdf", [17, 40], DocumentMeta(
        company="Netflix, Inc.", ticker="NFLX", form_type="10-K", fiscal_year=2015))
    out = _ask_filing(nflx, "What were Netflix's revenues in fiscal 2013?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 4_374_562 and out.calculation.inputs[0].page == 40
    older = _ask_filing(nflx, "What were Netflix's revenues in fiscal 2011?")
    assert older.calculation.result == 3_204_577 and older.calculation.inputs[0].page == 17
    margin = _ask_filing(nflx, "What was Netflix's operating margin in 2015?")
    assert {i.page for i in margin.calculation.inputs} == {40}
    # a guarantor note's condensed consolidating balance sheet (more rows, one date) is no
    # summary: the balance sheet that comes first in the filing stays first
    khc = _statement_pages("KRAFTHEINZ_2019_10K.pdf", [52, 114], DocumentMeta(
        company="The Kraft Heinz Company", ticker="KHC", form_type="10-K", fiscal_year=2019))
    assets = _ask_filing(khc, "What were Kraft Heinz's total assets at December 28, 2019?")
    assert assets.calculation.result == 101_450 and assets.calculation.inputs[0].page == 52


def test_an_expense_printed_negative_and_added_is_an_expense() -> None:
    """Lockheed Martin (FY2022 10-K, page 63) prints "Income tax expense (948)" between
    "Earnings from continuing operations before income taxes 6,680" and "Net earnings from
    continuing operations 5,732": the rows add as printed, so the expense is 948 and the
    effective tax rate 14.2 %, not -14.2 %. A filer that prints a positive tax and subtracts
    it is unchanged."""
    lmt = _statement_pages("LOCKHEEDMARTIN_2022_10K.pdf", [63, 65], DocumentMeta(
        company="Lockheed Martin Corporation", ticker="LMT", form_type="10-K", fiscal_year=2022))
    out = _ask_filing(lmt, "What was Lockheed Martin's effective income tax rate in FY2022? Round to one decimal.")
    assert out is not None and out.calculation is not None and out.calculation.result == 14.2
    assert out.calculation.inputs[0].value == -948
    cost = _statement_pages("COSTCO_2021_10K.pdf", [36], DocumentMeta(
        company="Costco Wholesale Corporation", ticker="COST", form_type="10-K", fiscal_year=2021))
    etr = _ask_filing(cost, "What was Costco's effective tax rate in fiscal 2021? Round to one decimal.")
    assert etr.calculation.result == round(1601 / 6680 * 100, 1)
    # cost of sales printed "(56,744)" and added to net sales to give gross profit: a cost
    dio = _ask_filing(lmt, "What were Lockheed Martin's days inventory outstanding in FY2022? Round to one decimal.")
    assert dio.calculation.result == round(365 * (3088 + 2981) / 2 / 57697, 1)
    cogs = _ask_filing(lmt, "What was Lockheed Martin's total cost of sales in 2022?")
    assert cogs.calculation.result == 57_697 and cogs.text.startswith("Total cost of sales: $57,697 million")
    # interest expense printed "(623)" is an amount of 623
    assert _ask_filing(lmt, "What was Lockheed Martin's interest expense in 2022?").calculation.result == 623


def test_goodwill_is_a_balance_sheet_line_item_at_its_date() -> None:
    """Microsoft's balance sheet (FY2023 10-K, page 60) prints "Goodwill 67,886 67,524": goodwill
    carried at a balance-sheet date is that row's cell; a goodwill impairment is no balance line."""
    msft = _statement_pages("MICROSOFT_2023_10K.pdf", [60], DocumentMeta(
        company="Microsoft Corporation", ticker="MSFT", form_type="10-K", fiscal_year=2023, period_end="2023-06-30"))
    out = _ask_filing(msft, "How much goodwill did Microsoft carry at June 30, 2023?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == 67886 and out.calculation.unit == "usd_millions"
    assert out.citations[0].quote.startswith("Goodwill 67,886")
    prior = _ask_filing(msft, "What was Microsoft's goodwill at June 30, 2022?")
    assert prior is not None and prior.calculation is not None and prior.calculation.result == 67524
    assert not wants_calculation("How much goodwill impairment did Microsoft record in fiscal 2023?")
    assert not wants_calculation("How much goodwill was allocated to the Intelligent Cloud segment?")


def test_income_taxes_from_continuing_operations_are_the_tax_expense() -> None:
    """Coca-Cola's income statement (FY2017 10-K, page 74) prints "Income taxes from continuing
    operations 5,560": the effective tax rate is 5,560 / 6,742 (income before income taxes),
    not "Cannot compute: income tax expense not found"."""
    ko = _statement_pages("COCACOLA_2017_10K.pdf", [74], DocumentMeta(company="The Coca-Cola Company", ticker="KO",
                                                                     form_type="10-K", fiscal_year=2017))
    out = _ask_filing(ko, "What was Coca-Cola's effective tax rate in 2017?")
    assert out is not None and out.calculation is not None, out
    assert round(out.calculation.result, 2) == 82.47


def test_a_yes_no_trend_is_the_metric_computed_for_both_periods(apple) -> None:
    """'Did the margin improve': the metric for the asked quarter and the one a year earlier,
    every input cited, and the verdict the figures give (better = higher for a margin)."""
    out = _ask(apple, "Did Apple's gross margin percentage improve in the three months ended July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert out.text.startswith("Yes: gross margin rose from 43.3% (3 months ended 2022-06-25) to 44.5% "
                               "(3 months ended 2023-07-01), up 1.2 percentage points.")
    assert out.calculation.result == 1.2 and out.calculation.unit == "percentage_points"
    # the calculation's title is the verdict (the card shows it with the change)
    assert out.calculation.metric == ("Yes: gross margin rose from 43.3% (3 months ended 2022-06-25) to 44.5% "
                                      "(3 months ended 2023-07-01)")
    assert [i.value for i in out.calculation.inputs] == [35885, 82959, 36413, 81797]
    # a line item asked with a direction: the two cells, the answer says no when it fell
    sales = _ask(apple, "Did Apple's net sales increase in the three months ended July 1, 2023?")
    assert sales.text.startswith("No: revenue fell from $82,959 million (3 months ended 2022-06-25) to $81,797 million")
    assert sales.calculation.result == -1162


def test_how_much_a_ratio_changed_is_in_percentage_points(apple) -> None:
    out = _ask(apple, "How much has Apple's operating margin changed in the quarter ended July 1, 2023 versus a year "
                      "earlier? Round to two decimal places.")
    assert out is not None and out.calculation is not None
    late, early = 22998 / 81797 * 100, 23076 / 82959 * 100
    assert out.calculation.result == round(round(late, 2) - round(early, 2), 2)
    assert "percentage points" in out.text and out.text.startswith("Operating margin rose by 0.30 percentage points")


def test_is_it_positive_reads_the_asked_balance_sheet_date(apple) -> None:
    out = _ask(apple, "Does Apple have positive working capital as of July 1, 2023? If working capital is not a "
                      "useful metric for this company, then state that and explain why.")
    assert out is not None and out.calculation is not None
    assert out.text.startswith("No: net working capital was negative, -$2,304 million (2023-07-01).")
    assert {i.period for i in out.calculation.inputs} == {"2023-07-01"}


def test_two_balance_sheet_dates_are_compared_each_at_its_own_column(apple) -> None:
    out = _ask(apple, "Did Apple's current ratio improve between September 24, 2022 and July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert [i.period for i in out.calculation.inputs] == ["2022-09-24", "2022-09-24", "2023-07-01", "2023-07-01"]
    assert out.text.startswith("Yes: current ratio rose from 0.88 (2022-09-24) to 0.98 (2023-07-01)")


def test_debt_on_the_balance_sheet_is_the_sum_of_its_debt_lines(apple) -> None:
    out = _ask(apple, "Has Apple increased its debt on the balance sheet as of July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert [i.value for i in out.calculation.inputs] == [9982, 11128, 98959, 3993, 7216, 98071]
    assert out.calculation.result == (3993 + 7216 + 98071) - (9982 + 11128 + 98959)
    assert out.text.startswith("No: total debt fell from $120,069 million (2022-09-24) to $109,280 million (2023-07-01)")


def test_a_forecast_or_a_cause_is_no_trend_of_the_statements(apple) -> None:
    assert _ask(apple, "Is Apple expected to grow net sales next quarter?") is None
    assert _ask(apple, "Did the increase in Apple's net income come from lower taxes?") is None


def test_a_question_the_statements_read_two_ways_is_left_to_retrieval(apple) -> None:
    # Apple prints a "Gross margin" amount: "gross margin" asked without a unit is the amount or
    # the ratio. "What was AMD's gross margin in 2015?" was refused ("Cannot compute: ...") although
    # its MD&A says "Gross margin was 28%"; the filing's words are searched instead
    assert _ask(apple, "What was Apple's gross margin in the quarter ended July 1, 2023?") is None
    # asked with a unit, it is computed
    pct = _ask(apple, "What was Apple's gross margin percentage in the quarter ended July 1, 2023?")
    assert pct is not None and pct.calculation is not None


# -- definitions by printed labels, judgements, plausibility -------------------------------------
def test_a_ratio_whose_inputs_the_question_defines_by_printed_labels(apple) -> None:
    out = _ask(apple, "What is Apple's debt-to-equity ratio as of July 1, 2023? Define debt as term debt, non-current, "
                      "and equity as total shareholders' equity. Round to two decimals.")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round(98071 / 60274, 2)  # the non-current row, not the current one
    assert [i.value for i in out.calculation.inputs] == [98071, 60274]
    assert "as defined in the question" in out.calculation.formula
    # written the standard way, the definition gives the standard figure (and its title)
    same = _ask(apple, "What is Apple's debt-to-equity ratio as of July 1, 2023? Define debt as commercial paper plus "
                       "term debt, current plus term debt, non-current, and equity as total shareholders' equity.")
    assert same is not None and same.calculation is not None
    assert same.calculation.result == round((3993 + 7216 + 98071) / 60274, 2)


def test_the_standard_debt_to_equity_sums_the_balance_sheets_debt_lines(apple) -> None:
    out = _ask(apple, "What is Apple's debt-to-equity ratio as of July 1, 2023?")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round((3993 + 7216 + 98071) / 60274, 2)


def test_a_yes_no_judged_by_usual_measures_states_each_measure_and_threshold(apple) -> None:
    out = _ask(apple, "Is Apple liquid as of July 1, 2023?")
    assert out is not None and out.calculation is not None
    calc = out.calculation
    assert calc.unit == "verdict" and calc.result == 0.0 and calc.metric.startswith("No: Apple Inc. is not liquid")
    assert "current ratio 0.98 (below the usual ≥ 1)" in out.text and "quick ratio 0.66 (below" in out.text
    assert "(2023-07-01)" in calc.metric  # balances: as of their date
    assert {i.label for i in calc.inputs} >= {"Total current assets", "Total current liabilities"}


def test_a_value_no_company_can_have_is_never_computed() -> None:
    from desktop_rag.core.calculate.calculator import implausible
    from desktop_rag.core.calculate.metrics import METRIC_NAMED

    assert implausible(METRIC_NAMED["gross_margin"], 180.0)  # a cost line added instead of subtracted
    assert not implausible(METRIC_NAMED["gross_margin"], 46.0)
    assert implausible(METRIC_NAMED["dio"], -12.0)
    assert implausible(METRIC_NAMED["current_ratio"], -0.5)
    assert not implausible(METRIC_NAMED["effective_tax_rate"], 642.0)  # a real (tiny-base) tax rate


def test_a_label_concept_keeps_current_and_non_current_apart() -> None:
    import re

    from desktop_rag.core.calculate.concepts import label_concept

    current = label_concept("term debt, current")
    rx = [re.compile(p) for p in current.patterns]
    assert any(r.search("term debt current liabilities") for r in rx)
    assert not any(r.search("term debt non-current liabilities") for r in rx)


def test_the_ratio_of_two_line_items_asked_by_the_form_of_the_words(apple) -> None:
    out = _ask(apple, "What was Apple's research and development as a percentage of total net sales in the three months "
                      "ended July 1, 2023? Round to two decimal places.")
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round(7442 / 81797 * 100, 2) and out.calculation.unit == "percent"
    out = _ask(apple, "What is the ratio of total current assets to total current liabilities as of July 1, 2023?")
    assert out is not None and out.calculation is not None and out.calculation.result == round(122659 / 124963, 2)


def test_a_growth_of_a_label_no_concept_names() -> None:
    from desktop_rag.core.calculate.calculator import measure_label

    for q in ("What is the 2-year CAGR of Oracle's total cloud revenues from FY2015 to FY2017?",
              "What is Oracle's total cloud revenues CAGR from 2015 to 2017?",
              "What was the growth rate of total cloud revenues in fiscal 2017?"):
        label = measure_label(q)
        assert label is not None and label.name == "label:total cloud revenues", q
    assert measure_label("What was revenue in 2017?") is None


def test_another_entitys_statement_comes_after_the_consolidated_one() -> None:
    from desktop_rag.core.calculate.calculator import primary_first
    from desktop_rag.core.ingest.statements.model import Period, Statement

    year = [Period("2022", "2022-12-31", 12)]
    summarized = Statement("income", "Summarized Statement of Income", 38, "millions", year, [], [38])
    consolidated = Statement("income", "Consolidated Statements of Income", 52, "millions", year, [], [52])
    assert primary_first([summarized, consolidated]) == [consolidated, summarized]


def test_a_fiscal_quarter_is_the_column_of_the_filers_fiscal_year(apple) -> None:
    # The same statements as a filer whose fiscal year ends in March: the quarter ended
    # July 1, 2023 is its first quarter of fiscal 2024, not a quarter of calendar 2024.
    doc, statements, texts = apple
    meta = DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2024, fiscal_quarter=1,
                        period_end="2023-07-01")
    shifted = Document(doc.doc_id, doc.file_name, doc.path, doc.pages, meta)
    out = calculate("What were Apple's total net sales in the first quarter of fiscal 2024?", [shifted],
                    lambda _id: statements, lambda _id, page: texts[page - 1])
    assert out is not None and out.calculation is not None, out
    assert out.calculation.result == 81797
    assert {i.period for i in out.calculation.inputs} == {"3 months ended 2023-07-01"}
    # a year written without "fiscal" is first the year the column ends in
    out = calculate("What were Apple's total net sales in Q1 2024?", [shifted],
                    lambda _id: statements, lambda _id, page: texts[page - 1])
    assert out is not None and out.calculation is not None and out.calculation.result == 81797


def test_a_metric_defined_through_a_part_the_question_also_defines(apple) -> None:
    out = _ask(apple, "What was Apple's free cash flow margin for the nine months ended July 1, 2023? Define FCF as "
                      "net cash generated by operating activities less payments for acquisition of property, plant "
                      "and equipment, and FCF margin as FCF / total net sales. Round to two decimal places.")
    assert out is not None and out.calculation is not None, out
    calc = out.calculation
    values = {i.label: i.value for i in calc.inputs}
    cfo = next(v for k, v in values.items() if "operating activities" in k)
    capex = next(v for k, v in values.items() if "property" in k)
    sales = next(v for k, v in values.items() if "net sales" in k.lower())
    assert calc.unit == "percent" and calc.result == round((cfo - abs(capex)) / sales * 100, 2)
    assert 0 < calc.result < 100


def test_a_symbol_written_from_the_name_is_the_company_not_a_part(apple) -> None:
    """A filing that never prints its symbol (an earnings release): "APL's gross margin" is the
    company's, not a segment's named "APL"."""
    doc, statements, texts = apple
    bare = Document(doc.doc_id, doc.file_name, doc.path, doc.pages,
                    DocumentMeta(company="Apple Inc.", ticker="", form_type="10-Q", fiscal_year=2023,
                                 fiscal_quarter=3, period_end="2023-07-01"))
    out = calculate("What was APL's gross margin for the three months ended July 1, 2023? Round to two decimal "
                    "places.", [bare],
                    lambda _id: statements, lambda _id, page: texts[page - 1])
    assert out is not None and out.calculation is not None
    assert out.calculation.result == round(36413 / 81797 * 100, 2)


def test_a_judgement_shows_its_measures_in_the_decimals_asked(apple) -> None:
    out = _ask(apple, "Is Apple liquid as of July 1, 2023? Give the current ratio to three decimals.")
    assert out is not None and out.calculation is not None
    assert "current ratio 0.982 (below" in out.text and "quick ratio 0.656 (below" in out.text


def test_an_amount_is_no_answer_to_a_share_asked(apple) -> None:
    # free cash flow is computed; the share of it returned to shareholders is asked: no figure is
    # shown as computed, the question goes to the filing's words
    assert _ask(apple, "What was Apple's free cash flow for the nine months ended July 1, 2023?") is not None
    out = _ask(apple, "For the nine months ended July 1, 2023, what percentage of Apple's free cash flow (operating "
                      "cash flow minus capex) was returned to shareholders through dividends and buybacks?")
    assert out is None or out.calculation is None or out.calculation.unit != "currency"
    # the amount asked too, before the share: the amount is computed
    both = _ask(apple, "What was Apple's free cash flow for the nine months ended July 1, 2023, and what percentage of "
                       "net sales was it?")
    assert both is not None and both.calculation is not None


def test_a_fiscal_year_end_abbreviation_is_no_part_of_the_company() -> None:
    from desktop_rag.core.calculate.calculator import _names_a_part

    assert not _names_a_part("Calculate Acme's return on average assets for fiscal 2017 (FYE May 31, 2017).", {"acme"})
    assert _names_a_part("What was the Widgets segment's operating income in FY2017?", {"acme"})
    # the filing named as the source, and the currency the answer is wanted in
    assert not _names_a_part("Using Acme's 2021 Form 10-K cash flow statement, compute free cash flow for 2021. "
                             "Answer in USD millions.", {"acme"})
