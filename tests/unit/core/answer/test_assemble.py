"""core/answer/assemble.py: drivers, lists, descriptions and outlooks from the page's structure,
every item an exact quote of its page."""

from __future__ import annotations

import pytest

from desktop_rag.core.answer.assemble import NextPage, assemble, list_items
from desktop_rag.core.answer.verify import Passage
from desktop_rag.core.domain.question import read_question
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

PAGE = """NET INCOME AND DILUTED EARNINGS PER COMMON SHARE
In 2022, net income decreased 18% (13% in constant currencies) to $6.2 billion and diluted earnings per common share decreased 17% (12% in constant
currencies) to $8.33. Foreign currency translation had a negative impact of $0.52 on diluted earnings per share.
2022 results included:
\u2022 Net pre-tax charges of $1,281 million, or $1.44 per share, related to the sale of the Company's business in Russia
\u2022 Net pre-tax gain of $271 million, or $0.40 per share, related to the Company's sale of its Dynamic Yield business
\u2022 $537 million, or $0.73 per share, of nonoperating expense related to the settlement of a tax audit in France
2021 results included:
\u2022 Net pre-tax gains of $339 million, or $0.33 per share, primarily related to the sale of McDonald's Japan stock
\u2022 $364 million, or $0.48 per share, of income tax benefit related to the remeasurement of deferred taxes as a result of a change in the U.K. statutory
income tax rate
Outlook
In 2023, the Company expects capital expenditures of approximately $2.2 billion to $2.4 billion.
The Company expects an operating margin percent in the mid-to-high 40% range.
Gross margin increased 120 basis points, primarily due to higher full-price sales and favorable currency rates, partially offset by
higher freight and logistics costs.
"""


def _passages(text: str = PAGE) -> list[Passage]:
    meta = DocumentMeta(company="Example Corp", form_type="10-K", fiscal_year=2022)
    doc = Document("d" * 64, "EXAMPLE_2022_10K.pdf", "x", 1, meta)
    chunk = Chunk(1, doc.doc_id, 0, 12, 0, len(text), text)
    return [Passage(Hit(chunk, doc, 1.0), 0, len(text), text, text)]


def _terms(question: str) -> set[str]:
    return {t for t in tokenize(question) if t not in {"why", "did", "fall", "2022", "what", "list", "main", "items"}}


def _exact(out, text: str = PAGE) -> None:
    for c in out.citations:
        assert text[c.char_start:c.char_start + len(c.quote)] == c.quote  # the page's own text, where it says


def test_a_list_under_a_lead_in_is_kept_whole_item_by_item() -> None:
    start = PAGE.index("2022 results included:")
    items, cut = list_items(PAGE, start + len("2022 results included:"))
    assert [PAGE[a:b][:22] for a, b in items] == ["\u2022 Net pre-tax charges ", "\u2022 Net pre-tax gain of ",
                                                  "\u2022 $537 million, or $0."]
    assert not cut
    wrapped, _ = list_items(PAGE, PAGE.index("2021 results included:") + len("2021 results included:"))
    assert PAGE[slice(*wrapped[-1])].endswith("income tax rate")  # a wrapped item keeps its next line


def test_drivers_are_the_movement_sentence_and_the_items_it_leads() -> None:
    question = "Why did net income fall 18% in 2022? List the main items management called out."
    out = assemble(read_question(question), _passages(), _terms(question) | set(tokenize("net income")))
    assert out is not None and out.shape == "drivers"
    quotes = [c.quote for c in out.citations]
    assert quotes[0].startswith("In 2022, net income decreased 18%")
    assert any("Russia" in q for q in quotes) and any("France" in q for q in quotes)
    assert not any("Japan" in q for q in quotes)  # the other year's list is not this year's causes
    assert "\u2022 Net pre-tax charges of $1,281 million" in out.text
    _exact(out)


def test_causes_after_a_connective_answer_a_what_drove_question() -> None:
    question = "What drove the gross margin expansion in 2022?"
    out = assemble(read_question(question), _passages(), set(tokenize("gross margin")))
    assert out is not None and out.shape == "drivers"
    assert out.citations[0].quote.startswith("Gross margin increased 120 basis points, primarily due to")
    _exact(out)


def test_the_asked_measure_under_the_filings_longer_name_anchors_its_drivers() -> None:
    """"Net cash provided by operating activities decreased ... primarily due to" is the
    operating cash flow the question asks about, not another measure."""
    from desktop_rag.core.answer.assemble import _DriverFit

    fit = _DriverFit(read_question("Operating cash flow fell from $15.9bn to $9.5bn in FY22. What drove the decrease?"))
    assert fit.weight("Net cash provided by operating activities decreased during fiscal 2022 primarily due to "
                      "lower net income.") > 0.5
    assert fit.weight("Net cash used for investing activities decreased during fiscal 2022 primarily due to "
                      "lower purchases.") == 0.0


def test_an_outlook_is_the_expectations_the_filing_states() -> None:
    question = "What does the company expect for capital expenditures and operating margin in 2023?"
    out = assemble(read_question(question), _passages(), set(tokenize("capital expenditures operating margin")))
    assert out is not None and out.shape == "outlook"
    assert all("expects" in c.quote for c in out.citations)
    _exact(out)


def test_an_outlook_sentence_comes_with_the_next_that_says_what_it_is_made_of() -> None:
    page = ("Capital Expenditures\nFor the thirty-nine weeks, capital expenditures increased by $81 million to $218 "
            "million. Our full-year capital spending is expected to be\n$265 million. The forecast includes $182 million "
            "related to the remodeling of approximately 140 existing stores, as well as $83 million for information "
            "systems.\nWe have invested $5 million in minority investments during the current year.\n")
    question = "What full-year capital spending did the company expect for fiscal 2022, and what was it earmarked for?"
    out = assemble(read_question(question), _passages(page), set(tokenize("full-year capital spending earmarked")))
    assert out is not None and out.shape == "outlook"
    quotes = [c.quote for c in out.citations]
    assert any("$265 million" in q for q in quotes) and any(q.startswith("The forecast includes $182") for q in quotes)
    assert not any("minority investments" in q for q in quotes)
    _exact(out, page)


def test_no_drivers_answer_without_a_cause_on_the_page() -> None:
    page = "Revenue\nRevenue was $10.0 billion in 2022 and $9.0 billion in 2021.\n"
    assert assemble(read_question("Why did revenue grow in 2022?"), _passages(page), set(tokenize("revenue"))) is None


def test_figure_questions_get_no_prose_assembly() -> None:
    assert assemble(read_question("What was net income in 2022?"), _passages(), set(tokenize("net income"))) is None


# -- drivers: the causal sentence about the asked measure, of the asked period ------------------
DRIVERS_PAGE = """Operating Income
FedCo Air segment operating income decreased 64% in 2023 primarily due to global volume declines, partially offset by
yield improvement.
Operating income declined in 2023 primarily due to lower volumes at each of our transportation segments, partially offset
by yield improvement.
However, we expect operating income improvement in 2024 as a result of our cost programs.
Gross margin increased 120 basis points in fiscal 2022 due to the following:
The increase in gross margin for fiscal 2022 was primarily due to higher full-price sales.
This activity was partially offset by higher product costs, largely due to elevated freight and logistics costs.
Our effective tax rate was 14.0% for fiscal 2021, compared to 12.1% for fiscal 2020, primarily due to discrete items.
Our effective tax rate was 9.1% for fiscal 2022, compared to 14.0% for fiscal 2021, primarily due to a shift in our earnings mix.
"""


def _page_passage(text: str, page: int = 1) -> Passage:
    meta = DocumentMeta(company="Example Corp", form_type="10-K", fiscal_year=2023)
    doc = Document("e" * 64, "EXAMPLE_2023_10K.pdf", "x", 9, meta)
    chunk = Chunk(page, doc.doc_id, 0, page, 0, len(text), text)
    return Passage(Hit(chunk, doc, 1.0), 0, len(text), text, text)


def _drivers(question: str, concept: str, text: str = DRIVERS_PAGE, more: list[Passage] | None = None):  # type: ignore[no-untyped-def]
    """The drivers answer on ``text``, ``concept`` the question's evidence terms as the engine reads
    them (not its company, period or words of movement)."""
    return assemble(read_question(question), [_page_passage(text)], set(tokenize(concept)), more=more)


def test_the_cause_of_the_asked_measure_not_of_a_part_or_an_expectation() -> None:
    out = _drivers("What drove the decline in Example's consolidated operating margin in FY23?",
                   "consolidated operating margin")
    assert out is not None and out.citations[0].quote.startswith("Operating income declined in 2023 primarily due to")
    assert not any("FedCo Air" in c.quote or "we expect" in c.quote for c in out.citations)


def test_the_cause_of_the_asked_year_and_the_offsetting_sentence_after_it() -> None:
    out = _drivers("Why did Example's effective tax rate drop in fiscal 2022 compared to fiscal 2021?", "effective tax rate")
    assert out is not None and out.citations[0].quote.startswith("Our effective tax rate was 9.1% for fiscal 2022")
    assert not any("fiscal 2020" in c.quote for c in out.citations)  # the year before's comparison
    margin = _drivers("What drove the gross margin expansion in fiscal 2022?", "gross margin")
    assert margin is not None
    assert any(c.quote.startswith("This activity was partially offset by higher product costs") for c in margin.citations)


def test_causes_missing_from_the_pages_read_are_looked_for_on_the_further_pages_retrieved() -> None:
    bare = "Revenue\nRevenue was $10.0 billion in 2022 and $9.0 billion in 2021.\n"
    further = "Revenue\nRevenue increased 11% in 2022 primarily due to higher volumes of hardware.\n"
    assert _drivers("Why did revenue grow in 2022?", "revenue", bare) is None
    out = _drivers("Why did revenue grow in 2022?", "revenue", bare, more=[_page_passage(further, page=7)])
    assert out is not None and out.citations[0].page == 7
    assert out.citations[0].quote == "Revenue increased 11% in 2022 primarily due to higher volumes of hardware."


def test_prose_answers_answer_the_facts_asked() -> None:
    page = """Outlook
The Company expects 2023 capital expenditures to be between $2.2 and $2.4 billion.
The Company expects to open about 1,900 restaurants.
The Company expects 2023 operating margin percent to be about 45%.
The Company expects the effective income tax rate for 2023 to be in the 20% to 22% range.
Consolidated operating income decreased 10% to $9.4 billion.
"""
    out = assemble(read_question("What did Example guide for 2023? I'm interested in capex, restaurant openings, operating "
                                 "margin and tax rate."), [_page_passage(page)], set(tokenize("guide capex restaurant")))
    assert out is not None and out.shape == "outlook"
    quotes = " ".join(c.quote for c in out.citations)
    for fact in ("$2.2 and $2.4 billion", "1,900 restaurants", "about 45%", "20% to 22%"):
        assert fact in quotes
    assert "decreased 10%" not in quotes  # the year's result, no expectation
    deal = """Agreement to Sell TicketCo
The closing of the proposed sale of TicketCo is subject to various risks and uncertainties.
On November 24, 2019, we entered into a definitive agreement to sell TicketCo to Buyer AG for a purchase price of $4.05 billion in cash.
The sale is expected to close by the end of the first quarter of 2020.
"""
    out = assemble(read_question("What deal did Example announce for TicketCo in late 2019? Give the buyer, the price and "
                                 "the expected closing timing."), [_page_passage(deal)], set(tokenize("deal ticketco")))
    assert out is not None
    quotes = " ".join(c.quote for c in out.citations)
    assert "$4.05 billion" in quotes and "first quarter of 2020" in quotes
    _exact(out, deal)


def test_a_real_10q_answers_why_its_effective_tax_rate_fell_from_its_own_page() -> None:
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf
    from tests.conftest import REPO_ROOT

    path = REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf"
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        pages = {n: extract_page(pdf[n - 1]).text for n in (20, 21)}
    finally:
        pdf.close()
    intent = read_question("Why was Apple's effective tax rate lower in the third quarter of 2023?")
    terms = {"etr"}
    # the page read has no cause of the tax rate: the further page retrieved does
    out = assemble(intent, [_page_passage(pages[20], 20)], terms, more=[_page_passage(pages[21], 21)])
    assert out is not None and out.shape == "drivers"
    assert all(c.page == 21 for c in out.citations)
    assert any(c.quote.startswith("The Company’s effective tax rate for the third quarter of 2023 was lower compared to the "
                                  "third quarter of 2022 due primarily to") for c in out.citations)
    for c in out.citations:
        assert pages[21][c.char_start:c.char_start + len(c.quote)] == c.quote


# -- lists of instruments and terms: the rows or sentences under one heading, whole --------------
GUIDANCE_PAGE = """Capital returns - The company repurchased $250 million of its common stock in the second quarter.
Business Outlook
Example is providing the following guidance for continuing operations for Q3 2023.
In billions, except per share data and percentages Q3 2023 Guidance
Revenue $2.46 - $2.52
Organic FX-Neutral Y/Y Growth 2% - 4%
Diluted GAAP EPS $0.67 - $0.72
Diluted Non-GAAP EPS $0.96 - $1.01
Dividend Declaration
The Board has declared a cash dividend of $0.25 per share.
"""

TERMS_PAGE = """NOTE 3. ACQUISITIONS
Widget
On September 15, 2022, we entered into a definitive agreement under which we intend to acquire Widget, Inc.
for approximately $20 billion, comprised of approximately half cash and half stock. Approximately 6 million additional
restricted stock units will be granted to Widget's employees. The transaction is subject to regulatory approvals and
should close in 2023. We will be required to pay Widget a reverse termination fee of $1 billion if the transaction fails
to receive regulatory clearance.
Widget is a privately held company that provides a collaborative design platform.
NOTE 4. CASH
Cash equivalents consist of highly liquid securities.
"""


def test_a_table_a_lead_in_introduces_is_quoted_row_by_row_under_its_heading() -> None:
    from desktop_rag.core.answer.assemble import table_rows

    header, rows, cut = table_rows(GUIDANCE_PAGE, GUIDANCE_PAGE.index("for Q3 2023.") + len("for Q3 2023."))
    assert header is not None and GUIDANCE_PAGE[slice(*header)].startswith("In billions")
    assert [GUIDANCE_PAGE[a:b] for a, b in rows] == ["Revenue $2.46 - $2.52", "Organic FX-Neutral Y/Y Growth 2% - 4%",
                                                      "Diluted GAAP EPS $0.67 - $0.72", "Diluted Non-GAAP EPS $0.96 - $1.01"]
    assert not cut
    out = assemble(read_question("What guidance did Example give for Q3 2023?"), [_page_passage(GUIDANCE_PAGE)],
                   set(tokenize("guidance")))
    assert out is not None and out.shape == "outlook"
    quotes = [c.quote for c in out.citations]
    assert "Example is providing the following guidance for continuing operations for Q3 2023." in quotes
    assert "Diluted Non-GAAP EPS $0.96 - $1.01" in quotes and "\u2022 Revenue $2.46 - $2.52" in out.text
    _exact(out, GUIDANCE_PAGE)


def test_the_terms_of_a_deal_are_the_sentences_under_its_heading_from_the_first() -> None:
    intent = read_question("What are the key terms of Example's pending Widget acquisition?")
    assert intent.ask == "description"
    out = assemble(intent, [_page_passage(TERMS_PAGE)], set(tokenize("key terms pending widget acquisition")))
    assert out is not None
    quotes = [c.quote for c in out.citations]
    assert quotes[0].startswith("On September 15, 2022, we entered into a definitive agreement")
    assert any("reverse termination fee of $1 billion" in q for q in quotes)
    assert not any("Cash equivalents" in q for q in quotes)  # the next heading's
    _exact(out, TERMS_PAGE)


def test_a_real_10q_lists_the_payments_of_its_obligations_year_by_year() -> None:
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf
    from tests.conftest import REPO_ROOT

    path = REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf"
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        page = extract_page(pdf[14]).text
    finally:
        pdf.close()
    out = assemble(read_question("List the future payments under Apple's unconditional purchase obligations by year."),
                   [_page_passage(page, 15)], set(tokenize("future payments unconditional purchase obligations")))
    assert out is not None and out.shape == "list"
    quotes = [c.quote for c in out.citations]
    assert quotes[0].endswith("as follows (in millions):")
    assert "2023 (remaining three months) $ 1,260" in quotes and "2027 1,013" in quotes
    assert out.cut and "the list continues" in out.text  # "Thereafter" and the total are past the items shown
    _exact(out, page)


def test_the_cause_told_right_after_the_movement_by_this_decrease() -> None:
    """"This decrease was primarily driven by ..." names the measure by "this": the cause of
    the movement sentence before it, quoted with it."""
    page = ("Gross Profit Margin\nGross profit margin is a ratio calculated by dividing gross profit by net operating "
            "revenues.\nOur gross profit margin decreased to 59.3 percent in 2020 from 60.8 percent in 2019. This "
            "decrease was primarily driven by unfavorable channel and package mix, partially offset by the impact of "
            "acquisitions.\n")
    question = "Why did the gross margin contract in 2020?"
    out = assemble(read_question(question), _passages(page), set(tokenize("gross margin")))
    assert out is not None and out.shape == "drivers"
    assert [c.quote[:20] for c in out.citations] == ["Our gross profit mar", "This decrease was pr"]
    _exact(out, page)


def test_the_part_asked_and_this_periods_causes_before_a_definition() -> None:
    """"What drove the U.S. comparable sales growth?": the U.S. bullet's causes, not the
    definition of what drives comparable sales in general."""
    page = ("Comparable sales are driven by changes in guest counts and average check.\n"
            "\u2022 International: Comparable sales results benefited from strong performance in the U.K.\n"
            "\u2022 U.S.: Comparable sales results benefited from strategic menu price increases and positive guest counts.\n")
    question = "What drove Acme's U.S. comparable sales growth in Q1 2023?"
    out = assemble(read_question(question), _passages(page), set(tokenize("comparable sales")))
    assert out is not None
    assert out.citations[0].quote.startswith("\u2022 U.S.: Comparable sales results benefited")
    _exact(out, page)


def test_the_movement_asked_decides_the_anchor_over_the_pages_read_first() -> None:
    """"Which segment saw revenue decline, and what caused it?": a further page's decrease and
    its cause lead, not the passages' "revenue increased 64%"."""
    read = _passages("Data Center segment revenue increased 64% in 2022, primarily driven by higher server sales.\n")
    further = _passages("Client segment revenue decreased 10% in 2022, primarily due to a weak PC market.\n")
    question = "Which segment saw revenue decline in 2022, and what caused it?"
    out = assemble(read_question(question), read, set(tokenize("segment revenue")), more=further)
    assert out is not None
    assert out.citations[0].quote.startswith("Client segment revenue decreased 10%")


# -- what a filing says of any period: cautions, definitions, why a measure is reported -------
CAUTION_PAGE = """Business Outlook
Such guidance is based on information available on the date of this press release, and the company assumes no obligation to update it.
The guidance figures provided below are forward-looking statements and are approximate in nature because future performance is difficult to predict.
For the third quarter, the company expects revenue of $2.47 billion to $2.54 billion, representing organic growth of 1% to 4%.
Key metrics
Take rate is defined as net revenues divided by GMV and is driven by our pricing.
We believe that take rate provides a useful measure of our ability to monetize volume.
Net revenues increased 5% in the quarter primarily due to a higher take rate driven by promoted listings and payments.
"""


def test_an_outlook_leads_with_the_guidance_not_the_caution_about_it() -> None:
    question = "What guidance did the company give for the third quarter?"
    out = assemble(read_question(question), _passages(CAUTION_PAGE), set(tokenize("guidance third quarter")))
    assert out is not None and out.shape == "outlook"
    assert out.citations[0].quote.startswith("For the third quarter, the company expects revenue of $2.47 billion")
    _exact(out, CAUTION_PAGE)


def test_a_definition_of_the_measure_is_no_driver_of_its_movement() -> None:
    question = "What drove the 5% net revenue growth in the quarter even though GMV declined?"
    out = assemble(read_question(question), _passages(CAUTION_PAGE), set(tokenize("net revenues take rate gmv")))
    assert out is not None and out.shape == "drivers"
    quotes = [c.quote for c in out.citations]
    assert quotes[0].startswith("Net revenues increased 5% in the quarter primarily due to")
    assert not any("defined as" in q or "useful measure" in q for q in quotes)
    _exact(out, CAUTION_PAGE)


GUIDANCE_TABLE_PAGE = """Business Outlook
For a reconciliation of these non-GAAP measures to the nearest GAAP measures, see "Business Outlook" in this release.
Further, the new accounting guidance introduces disclosure requirements for equity securities.
The company is providing the following guidance for continuing operations for Q2 2023.
In billions, except per share data Q2 2023 Guidance
Revenue $2.47 - $2.54
Diluted GAAP EPS $0.65 - $0.70
"""


def test_a_guidance_table_leads_an_outlook_before_a_pointer_to_it() -> None:
    question = "What guidance did the company give for Q2 2023?"
    out = assemble(read_question(question), _passages(GUIDANCE_TABLE_PAGE), set(tokenize("guidance q2 2023")))
    assert out is not None and out.shape == "outlook"
    quotes = [c.quote for c in out.citations]
    assert quotes[0] == "The company is providing the following guidance for continuing operations for Q2 2023."
    assert "Revenue $2.47 - $2.54" in quotes and "Diluted GAAP EPS $0.65 - $0.70" in quotes  # the table, row by row
    assert not any(q.startswith("For a reconciliation") for q in quotes)
    _exact(out, GUIDANCE_TABLE_PAGE)


MOVEMENT_CAUSE_PAGE = """Non-GAAP Core Earnings
Core earnings are driven by rate base growth and authorized returns.
Core earnings were $494 million in the second quarter of 2023, compared with $536 million during the same period in 2022.
The decrease in quarter-over-quarter core earnings is primarily driven by timing items and higher property taxes, partially
offset by savings in operating and maintenance costs.
"""


def test_the_cause_of_a_movement_said_in_the_present_is_a_driver() -> None:
    # "The decrease ... is primarily driven by": this quarter's causes, not what drives the
    # measure in general ("Core earnings are driven by ...")
    question = "Why did core earnings decline in Q2 2023 versus Q2 2022?"
    out = assemble(read_question(question), _passages(MOVEMENT_CAUSE_PAGE), set(tokenize("core earnings")))
    assert out is not None and out.shape == "drivers"
    quotes = [c.quote for c in out.citations]
    assert any(q.startswith("The decrease in quarter-over-quarter core earnings is primarily driven by") for q in quotes)
    assert not any(q.startswith("Core earnings are driven by") for q in quotes)
    _exact(out, MOVEMENT_CAUSE_PAGE)


@pytest.mark.parametrize(("sentence", "generic"), [
    ("Comparable sales are driven by changes in guest counts and average check.", True),
    ("The decrease in quarter-over-quarter core earnings is primarily driven by timing items.", False),
    ("The increase is mainly affected by higher volumes.", False),
    ("Quarterly revenues and operating income have historically been affected by seasonal factors.", True),
    ("Revenue is driven by transaction volume, which rose 5% in 2022.", False),  # a figure: this period's
])
def test_a_generic_cause_is_of_the_measure_not_of_its_movement(sentence: str, generic: bool) -> None:
    from desktop_rag.core.answer.assemble import _generic_cause

    assert _generic_cause(sentence) is generic


def test_a_fact_asked_in_the_present_of_an_outlook_is_answered_by_any_sentence() -> None:
    # "how big is the headcount cut" (the filing: "a reduction of the workforce by 10 percent",
    # no forecast) beside "what charges does it expect" (a forecast)
    page = """Restructuring
The Plan includes a reduction of the current workforce by approximately 10 percent and select office exits.
The Company expects to incur approximately $1.4 billion to $2.1 billion in charges in connection with the Plan.
"""
    out = assemble(read_question("How big is Example's headcount cut, and what total charges does Example expect?"),
                   _passages(page), set(tokenize("headcount cut charges")))
    assert out is not None and out.shape == "outlook"
    quotes = [c.quote for c in out.citations]
    assert any("by approximately 10 percent" in q for q in quotes)
    assert any("$1.4 billion to $2.1 billion" in q for q in quotes)
    _exact(out, page)


# -- drivers through the lines a derived measure moves with --------------------------------------
TAX_PAGE = """Provision for Income Taxes: Our effective income tax rates for each of the periods presented were the result of the mix of
income earned in various tax jurisdictions.
Provision for income taxes $ 1,185 -87% $ 8,837
Effective tax rate 9.7% 71.1%
Provision for income taxes decreased in fiscal 2019 relative to fiscal 2018 primarily due to the absence of the initial
accounting charges related to the Tax Act that were recorded in fiscal 2018.
Revenue increased in fiscal 2019 primarily due to cloud growth.
"""


def test_a_rate_asked_is_explained_by_the_line_it_moves_with() -> None:
    # no sentence says why the effective tax rate fell; the provision's does
    out = _drivers("Why did the effective tax rate fall so sharply in FY2019 compared with FY2018?",
                   "effective tax rate", TAX_PAGE)
    assert out is not None and out.citations[0].quote.startswith("Provision for income taxes decreased in fiscal 2019")
    assert not any("cloud" in c.quote for c in out.citations)  # revenue is not a line the rate moves with
    _exact(out, TAX_PAGE)


def test_the_asked_measure_own_cause_comes_before_a_related_line() -> None:
    page = TAX_PAGE + "Our effective tax rate decreased in fiscal 2019 primarily due to a shift in our earnings mix.\n"
    out = _drivers("Why did the effective tax rate fall in FY2019 compared with FY2018?", "effective tax rate", page)
    assert out is not None and out.citations[0].quote.startswith("Our effective tax rate decreased in fiscal 2019")



def test_an_earlier_years_comparison_gives_way_to_the_asked_years() -> None:
    page = """Operating and Maintenance
The Utility's operating and maintenance expenses increased $1.2 billion or 27% in 2015 compared to 2014, primarily due to $907 million in
charges associated with the Penalty Decision.
The Utility's operating and maintenance expenses decreased $127 million or 3% in 2014 compared to 2013, primarily due to lower third-party
claims. These decreases were offset by higher benefit-related expenses and other operating expenses of $120 million in 2014 as compared to 2013.
"""
    out = _drivers("Acme's operating income dropped from $2.45bn in 2014 to about $1.5bn in 2015. What drove it?",
                   "operating income", page)
    assert out is not None and "Penalty Decision" in out.citations[0].quote
    assert not any("2014 as compared to 2013" in c.quote for c in out.citations)


# -- a matter's status: its latest event, not its start -----------------------------------------
LITIGATION_PAGE = """Itanium Litigation
On June 15, 2011, a customer filed a complaint in the Superior Court against Example Corp over Itanium support, starting this litigation.
The complaint alleged that Example breached a settlement agreement signed on September 20, 2010.
Example filed a cross-complaint on December 2, 2011.
A jury trial in the Itanium litigation began on May 23, 2016. On June 30, 2016, the jury returned a verdict awarding $3.0 billion in damages.
Example appealed the judgment in January 2017. On June 14, 2021, the Court of Appeal affirmed the judgment.
Example has posted a surety bond with the trial court for the amounts owing.
Other Litigation
We are party to various other legal proceedings.
"""


def test_the_status_of_a_matter_is_its_latest_event_and_what_follows() -> None:
    question = "What is the status of the Itanium litigation against Example, and what is the exposure?"
    out = assemble(read_question(question), _passages(LITIGATION_PAGE), set(tokenize("Itanium litigation")))
    assert out is not None and out.shape == "description"
    assert out.citations[0].quote.startswith("On June 14, 2021, the Court of Appeal affirmed")
    assert any("surety bond" in c.quote for c in out.citations)
    assert not any("June 15, 2011" in c.quote for c in out.citations)
    _exact(out, LITIGATION_PAGE)
    # asked what it is, not where it stands: told from its start
    told = assemble(read_question("Describe the Itanium litigation against Example."), _passages(LITIGATION_PAGE),
                    set(tokenize("Itanium litigation")))
    assert told is not None and not told.citations[0].quote.startswith("On June 14, 2021")


def test_a_status_told_on_the_next_page_is_found_there() -> None:
    first = """Federal Criminal Trial
On June 14, 2016, a federal criminal trial against the Utility began on 12 felony counts over the pipeline explosion.
On July 26, 2016, the court granted the government's motion to dismiss one count of the criminal trial.
"""
    second = """On January 26, 2017, the court issued a judgment of conviction sentencing the Utility to a five-year probation.
The Utility has decided not to appeal the convictions.
Other Matters
In 2018 the Utility filed a rate case.
"""
    question = "What was the outcome of the 2016 federal criminal trial against the Utility, and what sentence was imposed?"
    out = assemble(read_question(question), [_page_passage(first, 40), _page_passage(second, 41)],
                   set(tokenize("federal criminal trial")))
    assert out is not None and out.citations[0].page == 41
    assert out.citations[0].quote.startswith("On January 26, 2017, the court issued a judgment")
    assert not any("rate case" in c.quote for c in out.citations)  # the next heading ends the section


def test_a_line_s_name_is_no_cause_and_a_cause_told_next_is_found() -> None:
    """"Income (loss) Attributable to Common" names a line ("attributable to" is no cause there);
    "Debt obligations ... totaled $35.9 billion, compared with $35.6 billion" is a movement told
    without its verb, its cause in the next sentence; "no provisions ... as a result of a change in
    credit ratings" tells no movement."""
    from desktop_rag.core.answer.assemble import CAUSAL

    assert not CAUSAL.search("Income (loss) Attributable to Common")
    assert not CAUSAL.search("Net income attributable to noncontrolling interests")
    assert CAUSAL.search("The decrease was primarily attributable to lower volumes")
    page = ("Financing and market risk\nThe Company generally borrows on a long-term basis. Debt obligations\nat "
            "December 31, 2022 totaled $35.9 billion, compared with $35.6 billion at December 31, 2021. The net "
            "increase in 2022 was due to net issuances of $1.2\nbillion, partly offset by the impact of changes in "
            "exchange rates of $814 million.\nThere are no provisions in the Company's debt obligations that would "
            "accelerate repayment of debt as a result of a change in credit ratings.\n")
    out = assemble(read_question("Has its debt gone up in 2022, and what drove the change?"), _passages(page),
                   set(tokenize("debt")))
    assert out is not None
    quotes = [c.quote for c in out.citations]
    assert quotes[0].startswith("Debt obligations") and quotes[1].startswith("The net increase in 2022 was due to")
    _exact(out, page)


def test_the_cause_of_another_basis_of_the_figure_is_set_below_the_reported_one() -> None:
    page = ("Results\nPG&E Corporation's non-GAAP core earnings were $615\nmillion in the first quarter of 2023, "
            "compared with $639 million in 2022. The change in non-GAAP core earnings was primarily\ndriven by lower "
            "operating costs.\nThe increase in GAAP results was primarily driven by lower costs related to "
            "investigation remedies.\n")
    out = assemble(read_question("What drove the increase in its GAAP earnings in Q1 2023 vs Q1 2022?"),
                   _passages(page), set(tokenize("gaap earnings")))
    assert out is not None and out.citations[0].quote.startswith("The increase in GAAP results")


def test_a_wrong_premise_is_answered_by_the_whole_companys_movement() -> None:
    """"What drove the gross margin decline": the company's gross margin rose; its sentence and
    causes answer (and correct the premise), not a segment's decline under its heading."""
    page = ("GROSS MARGIN\nGross margin increased 120 basis points to 46.0% for fiscal 2022 compared to 44.8% for "
            "fiscal 2021, primarily due to higher margin in our Direct business.\n")
    out = assemble(read_question("What drove the gross margin decline in fiscal 2022?"), _passages(page),
                   set(tokenize("gross margin")))
    assert out is not None and out.citations[0].quote.startswith("Gross margin increased 120 basis points")


def test_what_a_line_consists_of_is_no_cause_of_its_movement() -> None:
    page = ("Interest and other, net\nInterest and other, net primarily consists of interest earned on cash, as well "
            "as gains and losses due to changes in fair value of the warrant.\nThe decrease in interest and other, net "
            "in 2019 compared to 2018 was primarily attributable to the gain recognized on the sale of our investment in "
            "Flipkart of $313 million that did not occur in 2019.\n")
    out = assemble(read_question("Interest and other, net went from a $496 million gain in 2018 to a $114 million loss "
                                 "in 2019. What drove the swing?"), _passages(page), set(tokenize("interest other net")))
    assert out is not None and [c.quote[:26] for c in out.citations] == ["The decrease in interest a"]


def test_the_cause_after_the_figure_told_and_not_what_might_move_it() -> None:
    """"we recognized a tax provision of $452 million on a pretax income of $660 million. The
    majority of the tax provision was related to taxes from profitable jurisdictions": the
    figure and its cause; "Our effective tax rate could be impacted by ..." is a risk."""
    page = ("Income Taxes\nOur effective tax rate could be impacted by changes in our earnings in countries with differing "
            "statutory tax rates.\nProvision for Income Taxes\nIn fiscal 2023, we recognized a tax provision of $452 "
            "million on a pretax income of $660 million. The majority of the tax provision was related to taxes from "
            "profitable jurisdictions outside of the United States.\n")
    out = assemble(read_question("Why was the effective tax rate so high in fiscal 2023?"), _passages(page),
                   set(tokenize("tax provision pretax")))
    assert out is not None
    assert [c.quote[:22] for c in out.citations] == ["In fiscal 2023, we rec", "The majority of the ta"]


def test_went_up_is_a_direction_and_a_name_opening_a_sentence_a_part() -> None:
    """"GMV fell, yet revenues went up": both directions asked, so neither sentence is set below;
    "StubHub net transaction revenues ..." is a part's (its name opens the sentence)."""
    page = ("Net transaction revenues\nStubHub net transaction revenues in 2019 compared to 2018 decreased slightly "
            "primarily driven by lower GMV from concerts and theater.\nMarketplace net transaction revenues increased in "
            "2019 compared to 2018 primarily due to growth in promoted listing fees and a higher take rate.\n")
    out = assemble(read_question("Marketplace GMV fell in 2019, yet Marketplace net transaction revenues went up. What "
                                 "explains the divergence?"), _passages(page),
                   set(tokenize("marketplace gmv net transaction revenues")))
    assert out is not None and out.citations[0].quote.startswith("Marketplace net transaction revenues increased")


def _then(page: int, following: Passage) -> NextPage:
    """The filing's next page: ``following`` after page ``page``, none after any other."""
    return lambda p: following if p.hit.chunk.page == page else None


def test_a_cause_in_a_bullets_next_sentence_names_the_company_with_a_curly_apostrophe() -> None:
    """"Acme’s" on the page is the "Acme's" of the question: a sentence naming it is no part the
    question left out."""
    page = ("Segment results\n\u2022 \nU.S.: Comparable sales results benefited from strategic menu price increases and "
            "positive comparable guest count growth.  \nSuccessful operational execution in Acme\u2019s restaurants and "
            "continued digital growth contributed to strong comparable sales results. \n")
    question = "What drove Acme's U.S. comparable sales in the first quarter of 2023?"
    out = assemble(read_question(question), [_page_passage(page, 2)], set(tokenize("comparable sales")))
    assert out is not None and out.shape == "drivers"
    assert [c.quote[:22] for c in out.citations] == ["\u2022 \nU.S.: Comparable sa", "Successful operational"]
    _exact(out, page)


FIRST = ("Table of Contents\nThird Quarter 2022 Form 10-Q Page 24\nGross Margin\n"
         "The gross margin rate decreased to 32.0% for the thirteen weeks ended October 29, 2022, as compared with the "
         "prior-year period, reflecting a 280-basis point decrease in the merchandise margin rate.\n"
         "Third Quarter 2022 Form 10-Q Page 24\n")
SECOND = ("Table of Contents\nThird Quarter 2022 Form 10-Q Page 25\n"
          "The declines in merchandise margin rate reflected higher markdowns versus historically-low levels last year and\n"
          "higher supply chain costs.\nSELLING, GENERAL AND ADMINISTRATIVE EXPENSES\n"
          "SG&A increased due to higher wages, reflecting a higher gross margin rate of spending.\n")


def test_a_section_cut_by_the_pages_end_goes_on_at_the_top_of_the_next_page() -> None:
    question = "Why did Acme's gross margin rate fall in the third quarter of 2022?"
    out = assemble(read_question(question), [_page_passage(FIRST, 24)], set(tokenize("gross margin rate")),
                   next_page=_then(24, _page_passage(SECOND, 25)))
    assert out is not None
    assert [(c.page, c.quote[:28]) for c in out.citations] == [
        (24, "The gross margin rate decrea"), (25, "The declines in merchandise ")]  # not the next section's
    assert SECOND[out.citations[1].char_start:].startswith(out.citations[1].quote)
    # without the next page the answer stops at the page's end
    alone = assemble(read_question(question), [_page_passage(FIRST, 24)], set(tokenize("gross margin rate")))
    assert alone is not None and [c.page for c in alone.citations] == [24]


NOTE = ("ACME CORPORATION\nNOTES TO CONSOLIDATED FINANCIAL STATEMENTS \u2014(Continued)\n"
        "See Note 13 for information regarding the exercise prices of our outstanding stock options.\n"
        "17. LEGAL PROCEEDINGS\nWidget Company Litigation\n"
        "On June 15, 2011, Widget Company filed a complaint in the California Superior Court against Acme alleging breach "
        "of contract.\nThe jury awarded Widget $3.0 billion in damages.\n"
        "Derivative Litigation Concerning Acme\u2019s Gadget Acquisition\n"
        "On May 3, 2017, a stockholder derivative lawsuit was filed in the Court of Chancery of the State of Delaware.\n"
        "115\n")
NOTE_NEXT = ("ACME CORPORATION\nNOTES TO CONSOLIDATED FINANCIAL STATEMENTS \u2014(Continued)\n"
             "Other Litigation\n"
             "We are party to various other legal proceedings and claims which arise in the ordinary course of business.\n"
             "18. INCOME TAXES\nTotal Provision\nThe provision for income taxes consisted of the following items for the year.\n")


def test_a_list_of_matters_is_the_titles_under_the_heading_that_names_them() -> None:
    question = "Acme 10-K FY2019: list the legal proceedings disclosed in the legal proceedings note."
    out = assemble(read_question(question), [_page_passage(NOTE, 117)], set(tokenize("legal proceedings")),
                   next_page=_then(117, _page_passage(NOTE_NEXT, 118)))
    assert out is not None and out.shape == "list"
    assert [c.quote for c in out.citations if c.quote.endswith(("Litigation", "Acquisition"))] == [
        "Widget Company Litigation", "Derivative Litigation Concerning Acme\u2019s Gadget Acquisition", "Other Litigation"]
    assert "\u2022 Widget Company Litigation\nOn June 15, 2011" in out.text  # each title with its first sentence
    assert "Total Provision" not in out.text  # the next note is not a matter
    for c in out.citations:
        assert (NOTE if c.page == 117 else NOTE_NEXT)[c.char_start:].startswith(c.quote)


def test_the_whole_measures_cause_outweighs_a_parts_and_a_share_of_it() -> None:
    """"Why did net transaction revenues decline": the sentence about them (with "GMV", a
    measure in capitals) above a part's ("Marketplace net transaction revenues") and a share's
    ("... earned internationally as a percentage of total net transaction revenue")."""
    from desktop_rag.core.answer.assemble import _DriverFit

    fit = _DriverFit(read_question("Why did eBay's net transaction revenues decline in 2015 vs 2014?"))
    whole = fit.weight("The decrease in net transaction revenues and GMV was driven primarily by a negative impact "
                       "from foreign currency movements in 2015.")
    part = fit.weight("The decrease in Marketplace net transaction revenues was driven primarily by a negative "
                      "impact from foreign currency movements in 2015.")
    opening_part = fit.weight("Marketplace net transaction revenues decreased in 2015 due to foreign currency.")
    share = fit.weight("Net transaction revenues earned internationally as a percentage of total net transaction "
                       "revenue decreased in 2015 compared to 2014, primarily due to foreign currency movements.")
    assert whole > part and whole > opening_part and whole > share


@pytest.mark.parametrize("sentence", [
    "The gross margin rate decreased to 32.0% for the thirteen weeks ended October 29, 2022.",
    "Organic Net Sales decreased 1.7% in 2019 due to unfavorable volume/mix.",
    "2020 Results\nNet sales in the year ended December 31, 2020 were $11.3 billion, a net decrease of $200 million.",
])
def test_an_article_a_basis_or_a_heading_opening_the_sentence_names_no_part(sentence: str) -> None:
    from desktop_rag.core.answer.assemble import _DriverFit

    fit = _DriverFit(read_question("Why did the gross margin rate and net sales decline?"))
    assert not fit._names_a_part(fit._subject(sentence))
