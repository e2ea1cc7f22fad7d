"""core/answer/asks.py: the facts a question asks, found in the filing's sentences (a figure of
the asked kind beside the asked words), and quotes that together answer each."""

from __future__ import annotations

import pytest

from desktop_rag.core.answer.asks import answered, ask_match, cover, figure_kinds, read_asks
from desktop_rag.core.answer.extractive import extractive_answer
from desktop_rag.core.answer.verify import Passage
from desktop_rag.core.domain.question import parse_question, read_question
from desktop_rag.core.domain.terms import content_terms
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit, QueryPlan
from desktop_rag.core.ingest.pdf import extract_page, open_pdf
from tests.conftest import REPO_ROOT

APPLE = REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf"


def test_the_kinds_of_figure_a_sentence_holds() -> None:
    assert figure_kinds("During fiscal 2023 we repurchased approximately 28 million shares for approximately "
                        "$4.0 billion.") == {"amount", "count", "date"}
    assert figure_kinds("holders received the right to receive $109.00 per share in cash") == {"per_unit"}
    assert figure_kinds("On May 15, 2023, the Company issued €300 million 3.875% Notes due 2026") == {
        "amount", "rate", "date"}
    assert figure_kinds("The sale is expected to close by the end of the first quarter of 2020.") == {"date"}
    assert figure_kinds("See Note 4 for more information.") == set()  # a reference is no figure
    # a table row's bare cells are amounts (counts under a counting label); its percents their change
    assert figure_kinds("International 6,463 1 % 6,373 11% 5,740") == {"amount", "change"}
    assert figure_kinds("Total employees 288,000 290,000") == {"count"}
    assert figure_kinds("Percentage of net revenues 60% 59% 58%") == {"rate"}
    # an exhibit index's numbers name exhibits: no count of employees
    assert figure_kinds("(d) Exhibits\n99.1 Employee Communication Introducing the Plan.\n104 Cover Page "
                        "Interactive Data File") == set()


def _asks(question: str):  # type: ignore[no-untyped-def]
    return read_asks(read_question(question), {"acme"})


def test_a_sentence_answers_an_ask_with_its_words_and_a_figure_of_its_kind() -> None:
    asks = _asks("How much did Acme pay for Widgetco and when did the deal close?")
    assert answered("The total purchase price for Widgetco was approximately $9.1 billion.", asks) == {0: 1.0}
    # a price per share is no total, a sentence without a figure of the kind answers nothing
    assert answered("Widgetco holders received $109.00 per share in cash.", asks) == {}
    assert answered("We acquired Widgetco to expand our cloud offerings.", asks) == {}
    assert 1 in answered("The Widgetco deal closed on November 7, 2016.", asks)


def test_the_quotes_together_answer_each_fact_asked_one_quote_per_fact() -> None:
    asks = _asks("How much stock did Acme buy back during fiscal 2023, and how much authorization was left at "
                 "year-end?")
    ranked = [
        # about buybacks and the authorization, and answering neither as asked: ranked first by words
        "In August 2022, our Board authorized a program to repurchase up to $10.0 billion of our common stock.",
        "As of January 31, 2023, we were authorized to purchase a remaining $6.0 billion of our common stock under "
        "the Share Repurchase Program.",
        "During fiscal 2023, we repurchased approximately 28 million shares of our common stock for approximately "
        "$4.0 billion.",
    ]
    assert sorted(cover(asks, ranked, [], 3)) == [1, 2]
    # one sentence answering all three facts asked is one quote
    fires = _asks("What liabilities had Acme recorded by year-end 2021 for the Kincade, Zogg and Dixie fires?")
    ranked = ["Liabilities for the Kincade fire, the Zogg fire, or the Dixie fire are significant.",
              "The Utility had recorded $430 million of insurance receivables for the Kincade fire.",
              "As of December 31, 2021, the Utility had recorded an aggregate liability of $800 million, $375 million, "
              "and $1.15 billion for claims in connection with the Kincade fire, the Zogg fire, and the Dixie fire."]
    assert cover(fires, ranked, [], 3) == [2]
    assert cover([], ranked, [], 3) == []


def _plan(question: str) -> QueryPlan:
    parsed = parse_question(question)
    return QueryPlan(original=question, cleaned=parsed.question, bm25_terms=[], content_terms=content_terms(question),
                     asked=parsed.question, instructions=parsed.instructions, intent=read_question(question))


@pytest.fixture(scope="module")
def apple_pages() -> dict[int, str]:
    if not APPLE.is_file():
        pytest.skip(f"filing not found at {APPLE}")
    pdf = open_pdf(APPLE)
    try:
        return {n: extract_page(pdf[n - 1]).text for n in (14, 18, 22)}
    finally:
        pdf.close()


def _passages(pages: dict[int, str]) -> list[Passage]:
    meta = DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3)
    doc = Document("a" * 64, APPLE.name, str(APPLE), 0, meta)
    out = []
    for i, (n, text) in enumerate(pages.items()):
        chunk = Chunk(i, doc.doc_id, i, n, 0, len(text), text)
        out.append(Passage(Hit(chunk, doc, 1.0), 0, len(text), text, text))
    return out


def test_a_real_10q_answers_a_buyback_of_nine_months_and_a_dividend_per_share(apple_pages: dict[int, str]) -> None:
    question = ("How much stock did Apple buy back in the nine months ended July 1, 2023, and what was its quarterly "
                "dividend per share?")
    _, cites = extractive_answer(question, _plan(question), _passages(apple_pages), max_quotes=2,
                                    ignore={"apple", "aapl"})
    quotes = [c.quote for c in cites]
    # the nine months' buyback (not the third quarter's "$18.0 billion") and the per-share dividend
    assert any("365 million shares" in q and "$56.1 billion" in q for q in quotes), quotes
    assert any("$0.24 per share" in q for q in quotes), quotes
    assert not any("$18.0 billion" in q for q in quotes)
    for c in cites:
        assert apple_pages[c.page][c.char_start:c.char_start + len(c.quote)] == c.quote  # the page's own text


def test_the_date_a_question_names_is_its_period_not_a_date_it_asks() -> None:
    asks = _asks("List Acme's senior notes outstanding as of June 2, 2023 with their maturities and principal amounts.")
    assert [a.kind for a in asks] == ["date", "amount"]
    carrying = "As of June 2, 2023, the carrying value of our senior notes outstanding was $3.63 billion."
    assert 0 not in answered(carrying, asks) and 1 in answered(carrying, asks)
    assert 0 in answered("Our senior notes outstanding mature in February 2025 and February 2030.", asks)


def test_a_quote_may_give_a_figure_however_the_filing_prints_it() -> None:
    from desktop_rag.core.answer.asks import may_answer

    [per_share] = _asks("How did Acme's book value per share change from 2020 to 2021?")
    assert may_answer("Book value per share $ 82.31 $ 75.88 8", per_share)  # per share in the label
    [size] = _asks("How large were Acme's goodwill impairment losses in 2019?")
    assert may_answer("Goodwill impairment losses 1,197 7,008 -", size)  # a bare cell is a size too
    [invested] = _asks("How much did Acme invest in Widgetco in January 2023, in dollars?")
    assert not may_answer("We have a long-term partnership with Widgetco, a leading research company.", invested)
    [units] = _asks("How many pairs of shoes did Acme sell in fiscal 2019?")
    assert not may_answer("Unit sales of footwear increased 4%, while higher ASP per pair contributed approximately "
                          "4 percentage points of footwear revenue growth.", units)  # rates, no count of pairs


def test_a_sentence_printed_on_two_pages_is_quoted_once() -> None:
    from desktop_rag.core.answer.asks import answering_units
    from desktop_rag.core.domain.terms import tokenize

    said = "As of December 31, 2018, a total of approximately $3.2 billion remained available for future repurchases."
    first = {33: f"Stock repurchases\n{said}\n"}
    # the further page says it again, and not what else was asked
    again = said.replace(" approximately ", "\napproximately ").replace("repurchases.", "repurchases under our programs.")
    said = said.replace("repurchases.", "repurchases under our program.")
    first = {33: f"Stock repurchases\n{said}\n"}
    further = {48: f"Liquidity\n{again}\nIn January 2019, our Board authorized an additional $4.0 billion stock "
                   "repurchase program.\n"}
    question = "How much remained under the repurchase program at year-end 2018, and how much was authorized after?"
    asks = read_asks(read_question(question), set(), None)
    units = answering_units(asks, [_passages(first), _passages(further)], set(tokenize(question)), None, 3)
    quotes = [p.text[a:b] for _, p, a, b in units]
    assert len([q for q in quotes if "remained available" in q]) == 1
    assert any("additional $4.0 billion" in q for q in quotes)


def test_a_part_asked_after_the_whole_is_answered_by_the_sentence_naming_the_part() -> None:
    # "..., and how many were in the U.S.?": the clause's own words (its initials) must be
    # carried; the global count carries only the topic's, and a portion ("6,200 of our
    # employees") is what the part asks
    asks = _asks("How many people did Acme employ at the end of 2015, and how many were in the U.S.?")
    ranked = ["As of December 31, 2015, we employed approximately 11,600 people globally.",
              "Approximately 6,200 of our employees were located in the U.S."]
    assert answered(ranked[0], asks) == {0: 1.0}
    assert set(answered(ranked[1], asks)) == {1}
    assert cover(asks, ranked, [], 3) == [0, 1]


def test_a_length_of_time_is_no_count_and_a_name_s_number_no_figure() -> None:
    assert figure_kinds("Our Military Leave benefit provides up to 12 weeks of paid time off every 12 months") == {
        "duration"}
    assert figure_kinds("facilitating access to COVID-19 testing for employees") == set()
    assert figure_kinds("As of May 31, 2022, we had approximately 79,100 employees worldwide") >= {"count"}


def test_of_two_counts_the_count_of_the_asked_noun_of_the_whole_is_quoted() -> None:
    """"approximately 11,200 employees" of a campus and "79,100 employees worldwide": both count
    employees; the whole is asked. "over 40 buildings" counts no employee."""
    intent = read_question("How many employees did Nike have at the end of fiscal 2022?")
    asks = read_asks(intent, {"nike", "fy2022"})
    campus = ("The campus is an approximately 400-acre site consisting of over 40 buildings and is occupied by "
              "approximately 11,200 employees engaged in management.")
    whole = "As of May 31, 2022, we had approximately 79,100 employees worldwide, including part-time employees."
    assert cover(asks, [campus, whole], [], 1) == [1]
    # two counts joined by "and" before one noun both count it; a noun phrase ends at its verb
    pair = read_asks(read_question("How many employees does the company have?"), set())
    offices = "We lease 12 offices, which house about 900 employees."
    joined = ("We employ approximately 328,000 permanent full-time and approximately 201,000 "
              "permanent part-time employees.")
    assert cover(pair, [offices, joined], [], 1) == [1]
    # the count of a part (the company's name and more before the verb) yields to the whole's
    fedex = read_asks(read_question("How many permanent full-time and part-time employees did FedEx have?"), {"fedex"})
    part = ("As of May 31, 2023, FedEx Express employed approximately 188,000 permanent full-time and "
            "approximately 56,000 permanent part-time employees.")
    whole_company = ("As of May 31, 2023, FedEx employed approximately 328,000 permanent full-time and "
                     "approximately 201,000 permanent part-time employees.")
    assert cover(fedex, [part, whole_company], [], 1) == [1]
    # "19 million and 28 million shares": the scale and the joining words lie between figure and noun
    bought = read_asks(read_question("How many shares did it buy back in Q2 and for how much?"), set())
    stated = "we repurchased 19 million and 28 million shares for $3.35 billion and $5.34 billion, respectively."
    returned = "we returned $3.28 billion in share repurchases and $99 million and $199 million in cash dividends."
    assert cover(bought, [returned, stated], [], 2)[0] == 1


def test_money_raised_in_a_bond_deal_is_the_notes_issued() -> None:
    asks = read_asks(read_question("Oracle did a large bond deal in April 2020. How much did it raise?"), {"oracle"})
    issued = "In April 2020, we issued $20.0 billion of senior notes for general corporate purposes."
    assert answered(issued, asks)


def test_a_whole_count_and_its_portion_each_answer_their_own_ask() -> None:
    asks = read_asks(read_question("How many regular employees did PG&E have at the end of 2021, and how many of the "
                                   "Utility's workers are covered by union contracts?"), {"pg&e"})
    whole = "As of December 31, 2021, PG&E Corporation and the Utility had approximately 26,000 regular employees."
    part = ("Of the Utility's regular employees, approximately 16,000 are covered by collective bargaining agreements "
            "with three labor unions.")
    assert sorted(cover(asks, [part, whole], [], 2)) == [0, 1]
    assert 0 in answered(whole, asks) and 0 not in answered(part, asks)


def test_an_amount_the_question_states_is_what_it_names_not_an_answer() -> None:
    """"its $15 billion repurchase program": the sentence authorizing "up to $15 billion" gives
    the program, not how much was spent or remains."""
    asks = read_asks(read_question("How much did McDonald's spend buying back stock in 2022, and how much capacity "
                                   "remained under its $15 billion repurchase program at year-end?"), {"mcdonald"})
    program = ("On December 31, 2019, the Board approved a share repurchase program that authorized the purchase of up "
               "to $15 billion of the Company's outstanding common stock.")
    spent = "In 2022, approximately 15.8 million shares were repurchased for $3.9 billion under the program."
    assert not answered(program, asks)
    assert 0 in answered(spent, asks)


def test_the_future_of_another_sentence_is_no_expectation_of_the_figure() -> None:
    """"... located in the U.S. eBay ... attracts our future employees": the figure's sentence
    states a past count; the next sentence's "future" does not make it a forecast."""
    asks = read_asks(read_question("How many employees were located in the U.S. at year-end 2021?"), set())
    text = ("Approximately 6,300 of our employees were located in the\nU.S. eBay has robust programs to "
            "attract our future employees.")
    assert ask_match(text, asks[0]) > 0.9
    assert ask_match("Approximately 6,300 of our future employees are expected to be located in the U.S.",
                     asks[0]) < 0.5


def test_a_comparison_asking_facts_of_several_kinds_is_answered_fact_by_fact() -> None:
    """"How many shares did it issue, and what were they worth on the transfer date versus the
    liability accrued?": a count and an amount (the date says when), each answered by its
    sentence; one measure compared across parts stays with the table of parts."""
    intent = read_question("How many shares did the Utility issue to the Trust on July 1, 2020, and what were they "
                           "worth on the transfer date versus the liability accrued in 2019?")
    assert [a.kind for a in read_asks(intent, set())] == ["count", "amount"]
    assert read_asks(read_question("How did Data Center revenue compare with Gaming revenue in Q2?"), set()) == []



def test_each_fact_of_a_buyback_question_gets_its_sentence() -> None:
    """Shares and dollars bought back in the quarter, and what remains: the remaining amount's
    sentence names the repurchases too, which misleads no longer once those are quoted; "three
    and six months" names both spans; "available for future repurchases" is what is left now."""
    from desktop_rag.core.answer.asks import answering_units, span_months
    from desktop_rag.core.domain.terms import tokenize

    assert span_months("During the three and six months ended June 30, 2023") == {3, 6}
    page = ("Stock Repurchases\nIn March 2021, our Board of Directors authorized the repurchase of up to $5 billion "
            "of our common stock, with no expiration date. During the three and six months ended June 30, 2023, the "
            "Company repurchased 1,849,324 and 3,071,380 shares, respectively, for an aggregate amount of $645 "
            "million and $1,045 million, respectively. As of June 30, 2023, $3.4 billion remain available for future "
            "repurchases.\n")
    question = ("How many shares did Apple repurchase in Q2 2023 and for how much? How much buyback capacity "
                "remained at June 30, 2023?")
    asks = read_asks(read_question(question), {"apple"}, None)
    units = answering_units(asks, [_passages({18: page})], set(tokenize(question)), None, 3)
    quotes = " … ".join(p.text[a:b] for _, p, a, b in units)
    assert "1,849,324" in quotes and "$645" in quotes and "$3.4 billion remain" in quotes


def test_a_sentence_about_another_year_is_not_a_comparison_for_its_proceeds_from() -> None:
    from desktop_rag.core.answer.verify import about_other_years

    assert about_other_years("The net cash used in financing activities of $744 million in 2016 was primarily due "
                             "to $2.9 billion of cash paid to repurchase common stock, partially offset by $2.2 "
                             "billion of proceeds from debt issuances.", {2017})
    assert not about_other_years("Net revenues grew from $9.6 billion to $10.4 billion in 2016 on higher "
                                 "transaction volumes across the marketplaces.", {2017})


def test_a_count_of_a_kind_of_the_noun_asked_is_a_part_of_it() -> None:
    [ask] = read_asks(read_question("How many stores did the company operate at October 29, 2022?"), set(), None)
    franchised = ("A total of 155 franchised stores were operating at October 29, 2022, as compared with 142 and 136 "
                  "stores at January 29, 2022.")
    operated = "At October 29, 2022, we operated 2,794 stores as compared with 2,858 stores at January 29, 2022."
    assert ask_match(operated, ask) > ask_match(franchised, ask)
    # how filings count the whole ("regular employees") is no kind of it
    [people] = read_asks(read_question("How many employees did the company have at year-end 2019?"), set(), None)
    assert ask_match("At December 31, 2019, the company had approximately 23,000 regular employees.", people) == 1.0


def test_one_figure_answers_one_fact_and_the_sure_answer_of_each_goes_first() -> None:
    """"authorized a program to repurchase up to $10.0 billion" prints one amount: it is the
    authorization or the stock bought back, not both; the sentence giving only the stock bought
    back answers that, and the remaining authorization is the one about the program."""
    asks = _asks("Acme buyback: per the 10-Q for the quarter ended October 31, 2022, how big is the authorization, "
                 "how much stock was repurchased in the quarter, and how much remains?")
    ranked = ["Current remaining performance obligation as of October 31, 2022 was approximately $20.9 billion.",
              "As of October 31, 2022, we were authorized to purchase a remaining $8.3 billion of our common stock under "
              "the Share Repurchase Program.",
              "In August 2022, our Board of Directors authorized a program to repurchase up to $10.0 billion of our common "
              "stock.",
              "During the three months ended October 31, 2022, we repurchased approximately 11 million shares of our common "
              "stock for approximately $1.7 billion."]
    assert sorted(cover(asks, ranked, [], 3)) == [1, 2, 3]  # not the performance obligation


def test_what_was_paid_is_the_purchase_price_printed() -> None:
    asks = _asks("What did Acme pay for Widgetco according to its FY2017 10-K?")
    price = "The total preliminary purchase price for Widgetco was approximately $9.1 billion."
    notes = "In connection with our acquisition of Widgetco, we assumed $310 million par value of convertible notes."
    assert cover(asks, [notes, price], [], 1) == [1]


def test_a_count_of_a_part_is_told_from_the_whole_companys() -> None:
    from desktop_rag.core.answer.asks import counts_a_part

    ask = _asks("How many employees did FedEx have as of May 31, 2023?")[0]
    assert counts_a_part("As of May 31, 2023, FedEx Ground employed approximately 56,000 permanent full-time and "
                         "approximately 136,000 permanent part-time employees.", ask)
    assert not counts_a_part("As of May 31, 2023, FedEx employed approximately 328,000 permanent full-time and "
                             "approximately 201,000 permanent part-time employees.", ask)


def test_the_count_on_the_asked_date_before_one_told_without_it() -> None:
    asks = _asks("How many stores was Acme operating at October 29, 2022, and how did that compare with a year earlier?")
    assert [a.kind for a in asks] == ["count"]  # a comparison with an earlier period still asks the count
    ranked = ["Additionally, the wind down of the Widget business negatively affected sales, last year we operated 161 "
              "stores as compared with 11 this quarter.",
              "At October 29, 2022, we operated 2,794 stores as compared with 2,858 and 2,956 stores at January 29, 2022 "
              "and October 30, 2021, respectively."]
    assert cover(asks, ranked, [], 1) == [1]


def test_a_table_row_is_read_with_the_heading_of_its_group() -> None:
    """"StubHub 937 29% 725" under "Net transaction revenues:" is StubHub's net transaction
    revenue; the total row below it names the measure but not the part asked."""
    from desktop_rag.core.answer.asks import unit_context

    page = ("Net Revenues by Type:\nNet transaction revenues:\nMarketplace $ 6,107 —% $ 6,103\nStubHub 937 29% 725\n"
            "Total net transaction revenues 7,044 3% 6,828\n")
    row = page.index("StubHub 937")
    assert unit_context(page, row, row + len("StubHub 937 29% 725")) == "Net transaction revenues StubHub 937 29% 725"
    asks = _asks("How much net transaction revenue did StubHub generate in 2016?")
    ranked = [unit_context(page, page.index(r), page.index(r) + len(r))
              for r in ("Total net transaction revenues 7,044 3% 6,828", "StubHub 937 29% 725")]
    assert cover(asks, ranked, [], 1) == [1]


def test_up_from_a_year_ago_is_a_year_over_year_growth() -> None:
    asks = _asks("Acme Q3 2023: Gaming revenue and YoY growth?")
    sentence = "Gaming revenue for the third quarter was $2.86 billion, up 81% from a year ago and up 15% from the previous quarter."
    row = "Revenue Gaming 2,856 1,574 7,582 7,236"
    assert cover(asks, [row, sentence], [], 2) == [1]  # one quote answers both


def test_a_place_named_by_its_initials_weighs_as_a_rare_word() -> None:
    """"..., and how many of them were in the U.S.?": the sentence counting the U.S. employees
    answers the second count, not the global count again."""
    asks = _asks("How many people did Acme employ globally at year-end 2015, and how many of them were in the U.S.?")
    ranked = ["As of December 31, 2015, we employed approximately 11,600 people globally.",
              "Approximately 6,200 of our employees were located in the U.S."]
    assert sorted(cover(asks, ranked, [], 3)) == [0, 1]


def test_the_further_pages_are_read_when_the_passages_carry_no_word_asked() -> None:
    question = "How many people did Acme employ globally at year-end 2015?"
    meta = DocumentMeta(company="Acme Inc.", form_type="10-K", fiscal_year=2015)
    doc = Document("a" * 64, "ACME_2015_10K.pdf", "x", 0, meta)

    def passage(page: int, text: str) -> Passage:
        return Passage(Hit(Chunk(page, doc.doc_id, page, page, 0, len(text), text), doc, 1.0), 0, len(text), text, text)

    read = [passage(36, "Net revenues decreased 2% in 2015 due to foreign currency movements.")]
    further = [passage(8, "Employees\nAs of December 31, 2015, we employed approximately 11,600 people globally.\n")]
    text, cites = extractive_answer(question, _plan(question), read, more=further)
    assert "11,600" in text and [c.page for c in cites] == [8]


def test_a_sentence_of_another_span_is_no_evidence_of_the_span_asked() -> None:
    """"the three months ended July 1": "During the nine months ended July 1, 2023, the
    Company repurchased 365 million shares" names only another span; a row is read by its columns."""
    from desktop_rag.core.answer.extractive import _of_other_spans
    nine = "During the nine months ended July 1, 2023, the Company repurchased 365 million shares."
    assert _of_other_spans(nine, {3})
    assert not _of_other_spans(nine, {9})
    assert not _of_other_spans("The Company repurchased 102 million shares in the quarter.", {3})
    assert not _of_other_spans("The Company repurchased shares under its program.", {3})


def test_a_part_asked_by_its_own_words_is_answered_by_the_portion_naming_them() -> None:
    asks = _asks("How many regular employees did Acme Corporation and the Utility have at December 31, 2015, and how "
                 "many Utility employees were covered by collective bargaining agreements?")
    assert [a.kind for a in asks] == ["count", "count"]  # one subject of two names, not a third clause
    ranked = ["At December 31, 2015, Acme Corporation and the Utility had approximately 23,000 regular employees.",
              "The collective bargaining agreement will expire on July 31, 2016.",
              "Of the Utility\u2019s regular employees, approximately 13,500 are covered by collective bargaining "
              "agreements with three labor unions."]
    assert sorted(cover(asks, ranked, [], 3)) == [0, 2]


def test_a_claim_asked_beside_a_fact_is_answered_by_the_sentence_stating_it() -> None:
    asks = _asks("How much insurance coverage did the Utility have for the wildfires, and had it accrued any liability "
                 "for them at year-end 2017?")
    ranked = ["The Utility has liability insurance for the wildfires in an aggregate amount of approximately $800 "
              "million.",
              "The Utility recorded $100 million of costs for the wildfires.",
              "As of December 31, 2017, neither PG&E Corporation nor the Utility has accrued a liability with respect "
              "to the wildfires."]
    assert sorted(cover(asks, ranked, [], 3)) == [0, 2]


def test_the_whole_count_is_not_taken_by_a_portion_that_names_another_part() -> None:
    """"How many regular employees ...": "Of the Utility's regular employees, approximately
    15,000 are covered by collective bargaining agreements" is a portion of them, the whole is
    the sentence counting all."""
    asks = _asks("How many regular employees did Acme Corporation and the Utility have at December 31, 2020?")
    whole = "At December 31, 2020, Acme Corporation and the Utility had approximately 24,000 regular employees."
    portion = ("Of the Utility\u2019s regular employees, approximately 15,000 are covered by collective bargaining "
               "agreements.")
    assert ask_match(whole, asks[0]) > ask_match(portion, asks[0])
