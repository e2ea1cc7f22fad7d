"""core/answer/extractive.py: the extractive answer's figure statement (unit, scale, period)."""

from __future__ import annotations


def _plan_for(question: str):  # type: ignore[no-untyped-def]
    from desktop_rag.core.domain.question import parse_question
    from desktop_rag.core.domain.types import QueryPlan

    parsed = parse_question(question)
    return QueryPlan(original=question, cleaned=parsed.question, bm25_terms=[], content_terms=[],
                     asked=parsed.question, instructions=parsed.instructions)


def _answer_on_page(page: str, question: str, concept: list[str], doc_key: str, page_no: int,
                    ignore: set[str] | None = None):  # type: ignore[no-untyped-def]
    """The extractive answer to ``question`` over one table page of a 10-K, as the engine
    calls it (one quote, the page's own text for column headers and scale notes)."""
    from desktop_rag.core.answer.extractive import extractive_answer
    from desktop_rag.core.answer.verify import Passage
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

    doc = Document(doc_key * (64 // len(doc_key)), "ACME_2024_10K.pdf", "/x/ACME_2024_10K.pdf", 90,
                   DocumentMeta(company="Acme Corp", form_type="10-K", fiscal_year=2024))
    hit = Hit(Chunk(page_no, doc.doc_id, page_no, 30, 0, len(page), page, kind="table"), doc, 1.0)
    plan = _plan_for(question)
    plan.content_terms = concept
    return extractive_answer(question, plan, [Passage(hit, 0, len(page), page, page)], max_quotes=1,
                             page_text=lambda _d, _p: page, ignore=ignore)


def test_figure_statement_gives_unit_scale_and_period() -> None:
    from desktop_rag.core.answer.extractive import figure_statement

    above = "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\n(In millions, except per-share amounts)\n"
    row, header = "Total net sales 81,797 82,959", "July 1, 2023 June 25, 2022"
    assert figure_statement(row, header, above, _plan_for("How much were net sales?")) == (
        "Total net sales: $81,797 million (2023)")
    assert figure_statement(row, header, above, _plan_for("How much were net sales in 2022?")) == (
        "Total net sales: $82,959 million (2022)")
    asked = _plan_for("How much were net sales? Answer in USD billions, rounded to two decimal places.")
    assert figure_statement(row, header, above, asked) == "Total net sales: $81.80 billion (2023)"
    eps = figure_statement("Diluted $ 1.26 $ 1.20", "2023 2022", above, _plan_for("What was diluted EPS?"))
    assert eps == "Diluted: $1.26 (2023)"
    # columns that cannot be matched to the header's periods give no figure (the row is quoted instead)
    assert figure_statement("Total net sales 81,797 82,959 70,000", "2023 2022", above, _plan_for("How much?")) == ""


def test_a_count_or_a_row_of_a_table_not_in_money_gets_no_dollar_sign() -> None:
    from desktop_rag.core.answer.extractive import figure_statement

    header = "2024 2023 2022"
    above = "Human Capital\nAt the end of 2024 our wages averaged $25 per hour. Employees by region:\n" + header + "\n"
    plan = _plan_for("How many employees did the company have at the end of 2024?")
    assert figure_statement("Total employees 301,000 290,000 275,000", header, above, plan) == (
        "Total employees: 301,000 (2024)")
    # a count under a money scale note is still a count
    money_above = "(In millions, except per-share amounts)\n" + header + "\n"
    warehouses = _plan_for("How many warehouses did the company have at the end of 2024?")
    counted = figure_statement("Number of warehouses 890 871 838", header, money_above, warehouses)
    assert counted.startswith("Number of warehouses: 890") and "$" not in counted
    # a row without "$" in a table whose first row has one is money
    table = header + "\nNet sales $ 5,000 $ 4,000 $ 3,000\n"
    cost = _plan_for("What was the cost of sales in 2024?")
    assert figure_statement("Cost of sales 3,100 2,500 1,900", header, table, cost) == "Cost of sales: $3,100 (2024)"
    # a row without "$" in a table with neither "$" nor a scale note is no money
    assert figure_statement("Warehouse openings 25 23 20", header, above, warehouses) == "Warehouse openings: 25 (2024)"


def test_a_row_of_another_measure_gets_no_figure() -> None:
    # the full answer run led "What revenue did Microsoft's Intelligent Cloud segment report in
    # FY2016?" with "Intelligent Cloud: $11,472 million (2016)", the segment's unearned revenue
    # ($25,042 million was its revenue), and Lockheed's "How much did the Missiles and Fire
    # Control segment sell" with the segment's assets
    from desktop_rag.core.answer.extractive import figure_statement

    header = "June 30, 2016 2015"
    above = "NOTE 15 — UNEARNED REVENUE\nUnearned revenue by segment was as follows:\n(In millions)\n" + header + "\n"
    row = "Intelligent Cloud 11,472 10,346"
    revenue = _plan_for("What revenue did the Intelligent Cloud segment report in FY2016?")
    assert figure_statement(row, header, above, revenue) == ""
    unearned = _plan_for("What unearned revenue did the Intelligent Cloud segment report in FY2016?")
    assert figure_statement(row, header, above, unearned) == "Intelligent Cloud: $11,472 million (2016)"
    # a sub-heading over the segment rows names their measure
    assets = "(in millions)\n2021 2020\nAssets\nAeronautics $ 10,000 $ 9,000\n"
    sold = _plan_for("How much did the Missiles and Fire Control segment sell in FY2021?")
    assert figure_statement("Missiles and Fire Control 5,243 4,966", "2021 2020", assets, sold) == ""
    net_sales = "(in millions)\n2021 2020\nNet sales\nAeronautics $ 26,748 $ 26,266\n"
    assert figure_statement("Missiles and Fire Control 11,693 11,257", "2021 2020", net_sales, sold) == (
        "Missiles and Fire Control: $11,693 million (2021)")


def test_a_subsidiarys_table_ranks_below_the_registrants_own_rows() -> None:
    from desktop_rag.core.answer.extractive import extractive_answer
    from desktop_rag.core.answer.verify import Passage
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

    doc = Document("b" * 64, "ACME_2024Q2_10Q.pdf", "/x/ACME_2024Q2_10Q.pdf", 80,
                   DocumentMeta(company="Acme Holdings Inc.", ticker="ACME", form_type="10-Q", fiscal_year=2024))
    page = ("Acme Bank Europe SE\n"
            "The following table presents ABE’s capital metrics:\n"
            "June 30, 2024\n"
            "CET1 ratio 18.2 % 4.5 %\n"
            "Capital Risk Management\n"
            "The following tables present the Firm’s risk-based capital metrics:\n"
            "June 30, 2024\n"
            "CET1 ratio 12.2 % 13.1 %\n")
    cut = page.index("Capital Risk")

    def passage(a: int, b: int, cid: int, score: float) -> Passage:
        hit = Hit(Chunk(cid, doc.doc_id, cid, 48, a, b, page[a:b], kind="table"), doc, score)
        return Passage(hit, a, b, page[a:b], page)

    passages = [passage(0, cut, 1, 1.0), passage(cut, len(page), 2, 0.9)]  # the subsidiary's ranked first
    question = "What was Acme's CET1 ratio at June 30, 2024?"
    plan = _plan_for(question)
    plan.content_terms = ["cet1", "ratio"]
    period = {"june", "30", "2024"}  # the engine ignores the period's terms: every passage shares them
    _, cites = extractive_answer(question, plan, passages, max_quotes=1, ignore=period)
    assert cites[0].quote == "CET1 ratio 12.2 % 13.1 %"
    # a question naming the subsidiary gets the subsidiary's row
    sub_q = "What was ABE's CET1 ratio at June 30, 2024?"
    sub_plan = _plan_for(sub_q)
    sub_plan.content_terms = ["abe", "cet1", "ratio"]
    _, sub_cites = extractive_answer(sub_q, sub_plan, passages, max_quotes=1, ignore=period)
    assert sub_cites[0].quote == "CET1 ratio 18.2 % 4.5 %"


def test_a_quoted_row_of_a_scaled_table_is_read_with_its_scale() -> None:
    page = ("Contractual obligations (in thousands):\n"
            "Total Less than 1 year\n"
            "Content obligations $ 12,345,678 $ 4,000,000\n")
    question = "What were Acme's content obligations?"
    text, cites = _answer_on_page(page, question, ["content", "obligation"], "c", 7)
    assert cites[0].quote == "Content obligations $ 12,345,678 $ 4,000,000"  # the quote stays exact
    assert text.startswith("Content obligations $ 12,345,678 $ 4,000,000 (in thousands)")


def test_a_count_beside_percent_change_columns_is_no_percentage() -> None:
    from desktop_rag.core.answer.extractive import figure_statement

    header = "2024 2023 2022 2024 vs. 2023 2023 vs. 2022"
    above = "Domestic streaming segment (in thousands, except percentages)\n" + header + "\n"
    row = "Memberships at end of period 30,024 18,277 10,930 11,747 64 % 7,347 67 %"
    plan = _plan_for("How many memberships did the company have at the end of 2024?")
    assert figure_statement(row, header, above, plan) == "Memberships at end of period: 30,024 thousand (2024)"
    rate = figure_statement("Effective tax rate 82.5 % 19.5 % 23.3 %", "2024 2023 2022", above,
                            _plan_for("What was the effective tax rate in 2024?"))
    assert rate == "Effective tax rate: 82.50% (2024)"


def test_the_columns_quoted_for_a_row_are_the_header_its_cells_are_read_under() -> None:
    page = ("The following table provides further details of our retail units and distribution facilities, as\n"
            "of January 31, 2024:\n"
            "Owned Leased(1) Total\n"
            "U.S. properties\n"
            "Acme U.S. retail units 4,069 687 4,756\n")
    question = "How many retail units did Acme operate at the end of fiscal 2024?"
    text, cites = _answer_on_page(page, question, ["retail", "unit"], "d", 8)
    # "of January 31, 2024:" is the sentence's date, not the columns "Owned Leased(1) Total"
    assert [c.quote for c in cites] == ["Acme U.S. retail units 4,069 687 4,756", "Owned Leased(1) Total"]
    assert "(columns: Owned Leased(1) Total)" in text


def test_a_segment_tables_figure_is_led_with_the_segment() -> None:
    from desktop_rag.core.answer.extractive import figure_statement

    # the row is the International segment's: its lead says so, not "the company's paid memberships"
    header = "As of/ Year Ended December 31, Change\n2024 2023 2022 2024 vs. 2023 2023 vs. 2022"
    above = "Table of Contents\nInternational Streaming Segment\n" + header + "\n(in thousands, except percentages)\n"
    row = "Paid memberships at end of period 27,438 16,778 9,722 10,660 64 % 7,056 73 %"
    plan = _plan_for("How many paid memberships did the company have at the end of 2024?")
    assert figure_statement(row, header, above, plan) == (
        "International Streaming Segment — Paid memberships at end of period: 27,438 thousand (2024)")


def test_the_asked_things_own_words_choose_the_row() -> None:
    page = ("As of/ Year Ended December 31, Change\n"
            "2024 2023 2022 2024 vs. 2023 2023 vs. 2022\n"
            "Memberships at end of period 30,024 18,277 10,930 11,747 64 % 7,347 67 %\n"
            "Paid memberships at end of period 27,438 16,778 9,722 10,660 64 % 7,056 73 %\n")
    question = "How many paid memberships did Acme have at the end of 2024?"
    # "paid" is question noise as a verb ("how much was paid")
    _, cites = _answer_on_page(page, question, ["membership"], "e", 9)
    assert cites[0].quote.startswith("Paid memberships at end of period 27,438")


def test_the_row_naming_exactly_what_was_asked_wins_over_its_parts() -> None:
    page = ("Owned Leased(1) Total\n"
            "U.S. properties\n"
            "Acme U.S. retail units 4,069 687 4,756\n"
            "Total U.S. retail units 4,582 773 5,355\n"
            "International properties\n"
            "Total International retail units 1,953 4,193 6,146\n"
            "Total retail units 6,535 4,966 11,501\n")
    question = "How many retail units did Acme operate at the end of fiscal 2024?"
    _, cites = _answer_on_page(page, question, ["retail", "unit"], "f", 10, ignore={"acme"})
    assert cites[0].quote == "Total retail units 6,535 4,966 11,501"


def test_a_heading_without_a_figure_is_no_answer_to_how_much() -> None:
    page = ("Optical Communications Segment\n"
            "Year ended December 31, $ change % change\n"
            "2024 2023 24 vs. 23 24 vs. 23\n"
            "Optical Communications $ 5,023 $ 4,349 $ 674 15%\n")
    question = "What were Acme's Optical Communications segment net sales in 2024?"
    _, cites = _answer_on_page(page, question, ["optical", "communication", "segment", "revenue"], "a1", 11, ignore={"acme", "2024"})
    assert cites[0].quote == "Optical Communications $ 5,023 $ 4,349 $ 674 15%"


def test_a_sentence_about_another_year_is_not_the_evidence_for_the_asked_one() -> None:
    # "How many shares did Corning repurchase in 2021?" was answered with the page's 2019
    # sentence, the best-worded one, over the 2021 paragraph further down
    page = ("Share Repurchases\n"
            "During the year ended December 31, 2019, the Company repurchased 31.0 million shares of common stock "
            "on the open market for approximately $925 million as part of its Repurchase Program.\n"
            "In 2021 we bought back 7.3 million shares on the open market for approximately $274 million.\n")
    text, cites = _answer_on_page(page, "How many shares did Acme repurchase in 2021?", ["repurchase", "share"],
                                  "a", 41)
    assert "7.3 million" in cites[0].quote, text
    # asked of 2019, the 2019 sentence is the evidence
    text, cites = _answer_on_page(page, "How many shares did Acme repurchase in 2019?", ["repurchase", "share"],
                                  "a", 41)
    assert "31.0 million" in cites[0].quote, text


def test_which_years_an_asked_period_may_end_in() -> None:
    from desktop_rag.core.answer.extractive import asked_years

    assert asked_years("How many shares did Acme repurchase in 2021?") == {2021}
    # a fiscal year or quarter may have begun, or ended, in the calendar year before
    assert asked_years("What was revenue in fiscal 2018?") == {2017, 2018}
    assert asked_years("What was revenue in Q1 FY2023?") == {2022, 2023}
    assert asked_years("What was revenue?") == set()


def test_a_year_naming_the_report_is_no_period_asked() -> None:
    from desktop_rag.core.answer.extractive import asked_years

    # "described in the 2020 10-K": the incident it describes happened in 2015
    assert asked_years("What incident underlies the class action described in the 2020 10-K?") == set()
    assert asked_years("How much funding does the Act provide, according to Acme's 2022 annual report?") == set()
    assert asked_years("What was revenue in 2021, per the 2022 10-K?") == {2021}
    # "Q3 2022 10-Q" names the report, and no calendar year before it either
    assert asked_years("Microsoft Q3 2022 10-Q: how much revenue was allocated to obligations?") == set()


def test_a_sentence_counting_things_gets_no_scale_note() -> None:
    # "At August 29, 2021, Costco operated 815 warehouses (in millions)": the page's tables are
    # in millions, the sentence's only four-digit figure is a year
    page = ("(in millions, except per share data)\n"
            "Net sales 192,052 163,220\n"
            "At August 29, 2021, Acme operated 815 warehouses\n")
    text, cites = _answer_on_page(page, "How many warehouses did Acme operate at the end of fiscal 2021?",
                                  ["warehouse", "operate"], "d", 41)
    assert cites[0].quote == "At August 29, 2021, Acme operated 815 warehouses", text
    assert "(in millions)" not in text, text


def _intent_plan(question: str, terms: list[str]):  # type: ignore[no-untyped-def]
    from desktop_rag.core.domain.question import read_question
    from desktop_rag.core.domain.terms import tokenize

    plan = _plan_for(question)
    plan.intent = read_question(question)
    plan.content_terms = [t for t in tokenize(" ".join(terms))]
    return plan


def _passage(page: str):  # type: ignore[no-untyped-def]
    from desktop_rag.core.answer.verify import Passage
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

    doc = Document("e" * 64, "ACME_2019_10K.pdf", "/x/ACME_2019_10K.pdf", 90,
                   DocumentMeta(company="Acme Corp", form_type="10-K", fiscal_year=2019))
    return Passage(Hit(Chunk(8, doc.doc_id, 8, 30, 0, len(page), page), doc, 1.0), 0, len(page), page, page)


def test_the_sentence_giving_the_amount_follows_the_one_naming_it() -> None:
    from desktop_rag.core.answer.extractive import extractive_answer

    page = ("Fire Claims (at Emergence) represents compensation to be paid on the Effective Date to holders of "
            "wildfire-related claims. The total\ncompensation of $24.15 billion consists of (i) $12.15 billion "
            "to be paid to the Fire Victim Trust and (ii) $12.0 billion to be paid to other holders.\n")
    q = "How much will be paid to wildfire claimants at emergence?"
    text, cites = extractive_answer(q, _intent_plan(q, ["paid", "wildfire", "claimants", "emergence"]),
                                    [_passage(page)], max_quotes=1)
    assert [c.quote.split()[0] for c in cites] == ["Fire", "The"]
    assert "$24.15 billion" in text


def test_a_portion_of_the_count_ranks_below_the_count() -> None:
    from desktop_rag.core.answer.asks import ask_match, read_asks
    from desktop_rag.core.domain.question import read_question

    [ask] = read_asks(read_question("How many employees did Acme have at the end of 2017?"), set(), None)
    whole = ask_match("As of December 31, 2017, we employed approximately 14,100 people globally.", ask)
    part = ask_match("Approximately 7,300 of our employees were located in the U.S.", ask)
    assert whole > part > 0


def test_a_unit_from_a_passage_that_began_inside_its_sentence_is_quoted_from_the_sentences_start() -> None:
    """A chunk that begins mid-sentence ("value 0.0001 per share, ...") yields a unit cut at
    its start: the quote is the whole sentence of the page, exact."""
    from desktop_rag.core.answer.extractive import _whole_sentence
    from desktop_rag.core.answer.verify import Passage
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

    page = ("Item 2.01. Completion of Acquisition.\nPursuant to the Merger Agreement, each share of Class A common stock, par\n"
            "value 0.0001 per share, of Slack was converted into the right to receive 0.0776 shares and $26.79 in cash.\n")
    start = page.index("value 0.0001")
    doc = Document("d" * 64, "CRM_8K.pdf", "/x/CRM_8K.pdf", 3, DocumentMeta(company="Salesforce"))
    hit = Hit(Chunk(1, doc.doc_id, 1, 2, start, len(page), page[start:]), doc, 1.0)
    passage = Passage(hit, start, len(page), page[start:], page)
    end = len(page[start:].rstrip("\n"))
    _, whole, a, b = _whole_sentence((1.0, passage, 0, end))
    assert whole.text[a:b].startswith("Pursuant to the Merger Agreement") and whole.text[a:b].endswith("in cash.")
    # a passage that starts with its sentence keeps its unit
    first = Passage(hit, 0, len(page), page, page)
    unit = (1.0, first, page.index("Pursuant"), len(page) - 1)
    assert _whole_sentence(unit) == unit
