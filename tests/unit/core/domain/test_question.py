"""The concept a question asks for (core/query.asked_concept): the words the filings in scope
must use for the question to be answerable."""

from __future__ import annotations

import re

import pytest

from desktop_rag.core.domain.question import (
    asked_concept,
    concept_gloss,
    counted_noun,
    parse_question,
    printed_count,
    read_question,
)


@pytest.mark.parametrize(
    ("question", "concept"),
    [
        ("What was Tesla's total automotive revenue in 2022?", "total automotive revenue"),
        ("How many paid memberships did Netflix report at the end of Q2 2023?", "paid memberships"),
        ("How much net revenue did PepsiCo report for fiscal 2017?", "net revenue"),
        ("What comparable sales growth did Target Corporation report for fiscal 2022?", "comparable sales growth"),
        ("What was Walmart's share of the U.S. grocery market in fiscal 2018?", "share of the U.S. grocery market"),
        ("What purchase price for iRobot did Amazon disclose in its Q2 2023 10-Q?", "purchase price"),
        ("What was NVIDIA's operating cash flow as revealed in the Q3 2022 10-Q?", "operating cash flow"),
        ("What was Intel's YTD effective tax rate (first nine months of 2023) in the Q3 2023 10-Q?",
         "YTD effective tax rate"),
        ("What were the total net sales, and how did they compare with last year?", "total net sales"),
        ("As a retail analyst covering COST, how many warehouses did Costco operate in 2021?", "warehouses"),
        ("Per Intel's Q2 2023 10-Q, what termination fee might Intel have to pay Tower?", "termination fee"),
        # no plain shape: nothing is checked
        ("How much did Exxon Mobil spend on capital expenditures in 2020?", ""),
        ("Why did Microsoft's general and administrative expenses jump in Q1 2023?", ""),
        ("Did Amazon repurchase any shares in Q1 2023?", ""),
    ],
)
def test_asked_concept(question: str, concept: str) -> None:
    assert asked_concept(question) == concept


def test_concept_gloss_is_a_parenthetical_definition_not_a_period() -> None:
    assert concept_gloss("What capex (purchases related to property and equipment) did NVIDIA report?") == (
        "purchases related to property and equipment")
    assert concept_gloss("What was revenue in Q1 2021 (quarter ended December 26, 2020)?") == ""


def test_counted_noun_is_the_head_of_a_how_many_question() -> None:
    assert counted_noun("How many Xbox consoles did Microsoft sell in fiscal 2023?") == "consoles"
    assert counted_noun("Give the exact figure: how many common shares were outstanding?") == "shares"
    assert counted_noun("How many cans of Coca-Cola Zero Sugar did Coca-Cola sell?") == "cans"
    assert counted_noun("How many dollars did Microsoft commit to OpenAI?") == ""  # money, printed "$"
    assert counted_noun("What was Apple's revenue?") == ""


def test_instructions_before_a_colon_are_not_what_is_asked() -> None:
    # the units and rounding written before the question, closed by a colon: the asked text was
    # the whole line (the rounding's rest-of-sentence ran over the colon), so "usd" was asked of rows
    parsed = parse_question("Answer in USD billions rounded to one decimal place: how much did Microsoft spend on "
                            "R&D in FY2023?")
    assert parsed.question == "How much did Microsoft spend on R&D in FY2023?"
    assert (parsed.instructions.scale, parsed.instructions.decimals, parsed.instructions.currency) == ("billions", 1, "USD")
    # a colon inside the question stays ("Here's the question: ..." is the persona rule's)
    assert parse_question("What was the ratio? Round your answer to two decimal places.").question == "What was the ratio?"


# -- the one reading: the shape of answer a question wants (QuestionIntent.ask) ------------------
@pytest.mark.parametrize(("question", "ask"), [
    ("What was Adobe's total revenue for fiscal 2015?", "figure"),
    # a name with "&" or an apostrophe between "does" and "expect"
    ("How much capex does PG&E's utility expect to spend in 2020?", "outlook"),
    ("What rationale did eBay's CEO give for the February 2023 workforce reduction?", "drivers"),
    ("How many full-time employees did the company have at the end of fiscal 2020?", "figure"),
    ("What is the FY2019 fixed asset turnover ratio for eBay?", "ratio"),
    ("What was the operating margin in Q2 2023?", "ratio"),
    ("What is the 2-year total revenue CAGR from FY2021 to FY2023?", "change"),
    ("By how much did net sales change between 2021 and 2022?", "change"),
    ("Is the company a capital-intensive business based on its fiscal 2020 numbers?", "yesno"),
    ("As of FY2022, does the company have positive working capital?", "yesno"),
    ("Has the debt increased from 2020 to 2021?", "yesno"),
    ("Rank the three segments by 2022 comparable sales growth.", "ranking"),
    ("Which service offering grew fastest in fiscal 2023 and by how much?", "ranking"),
    ("Which segment had the highest operating income in 2022?", "ranking"),
    ("Among the geographic segments, which grew revenue in fiscal 2022 and which one declined?", "comparison"),
    ("How did the Americas compare with Europe in Q3?", "comparison"),
    # a possessive among the words before the verb, and "shrank"
    ("Which of Acme's revenue lines grew in FY2018 and which shrank?", "comparison"),
    ("Why did net income fall 18% in 2022?", "drivers"),
    ("What drove the 120 basis point gross margin expansion in FY22?", "drivers"),
    # a verb that moves the figure: its causes asked
    ("What pushed eBay's effective tax rate so high in 2017?", "drivers"),
    ("What weighed on Nike's gross margin in fiscal 2023?", "drivers"),
    ("What made up Apple's total net sales in 2023?", "figure"),
    ("What were the main factors behind the decline in operating income?", "drivers"),
    ("What are the main risks the company lists for its cloud business?", "list"),
    ("Who are the company's main competitors?", "list"),
    ("List the acquisitions closed in fiscal 2021.", "list"),
    # the instruction after the question's context, and things (a plural) a filing tells of
    ("Acme 10-K FY2019: list the legal proceedings disclosed in the legal proceedings note.", "list"),
    ("What legal proceedings does Acme disclose in its FY2019 10-K?", "list"),
    ("What risks does the filing flag for the cloud business?", "list"),
    ("What dividends did Acme declare in 2019?", "figure"),
    # causes asked for by their noun, after a premise
    ("Acme 2020 10-K: net revenues fell 11% in 2020. Break down the factors behind the decline.", "drivers"),
    ("What were the causes of the revenue decline in 2020?", "drivers"),
    ("What are the risk factors for the company?", "list"),
    ("Describe the restructuring plan announced in January 2023: why was it done?", "description"),
    ("What deal did the company announce for its ticketing business in late 2019?", "description"),
    ("What agreement did the company enter into in June 2023 for its receivables?", "description"),
    ("What did the company guide for 2023 in its FY2022 10-K?", "outlook"),
    ("What does management expect for capital expenditures next year?", "outlook"),
    ("What is the company's outlook for fiscal 2024 revenue?", "outlook"),
    # a later period's figure as management sees it, and plans, but not a benefit plan
    ("What did management say in the FY2021 10-K about expected fiscal 2022 capital expenditures?", "outlook"),
    ("What did the utility say in its 2022 10-K about 2023 capital spending and plans for equity issuance?", "outlook"),
    ("How much did the company contribute to its pension plans for employees in 2022?", "figure"),
    ("What was the expected return on plan assets in 2022?", "ratio"),  # not an outlook
    # a thing the filing names, capitalised or quoted: described, not a figure
    ("What is Acme's 'Accelerating the Arches 2.0' per the January 2023 8-K, and what does it change?", "description"),
    ("What is the Inflation Reduction Act?", "description"),
    ("What was Acme's Data Center and AI (DCAI) revenue in Q1 2023?", "figure"),  # a measure of a named part
    ("What was Acme's share of the discrete GPU market in Q2 2023?", "figure"),  # the possessor is no name asked
    ("What was Acme Water Works' year-over-year change in operating revenues in FY2022?", "change"),
    # how a matter ended or what became of it
    ("How was the company's lawsuit against SAP (TomorrowNow) resolved, and what did it mean for fiscal 2015?",
     "description"),
    ("What was the outcome of the 2016 federal criminal trial, and what sentence was imposed?", "description"),
    ("What happened with the company's Flipkart transaction in 2017?", "description"),
    ("How did the 2023 WGA and SAG-AFTRA strikes affect the company, according to its Q2 2023 10-Q?", "description"),
    ("What did the company report in its 8-K dated August 14, 2023?", "description"),
    ("What was the impact of foreign exchange on revenue in 2022?", "figure"),  # an amount
    # things a filing enumerates, after the source the analyst names
    ("According to the 8-K dated February 13, 2023, which performance metrics and weightings determine the 2023 "
     "payouts?", "list"),
    ("Which of the segments grew net sales in Q2 2023?", "comparison"),  # how they moved: no list
])
def test_the_shape_asked(question: str, ask: str) -> None:
    from desktop_rag.core.domain.question import read_question

    assert read_question(question).ask == ask


def test_a_question_that_also_asks_why_keeps_its_shape_and_wants_reasons() -> None:
    from desktop_rag.core.domain.question import read_question

    intent = read_question("Did the effective tax rate go up or down in FY2019 versus FY2018, and what were the main reasons?")
    assert intent.ask == "yesno" and intent.wants_reasons
    assert not read_question("Why did the tax rate drop in fiscal 2022?").wants_reasons  # its shape is the reasons


@pytest.mark.parametrize("filler", ["please", "really", "exactly", "basically", "quickly", "kindly", "actually", "roughly"])
def test_an_ordinary_word_does_not_change_the_shape(filler: str) -> None:
    from desktop_rag.core.domain.question import read_question

    for question in ("What drove the gross margin expansion in FY22?", "What was the operating margin in Q2 2023?",
                     "Describe the restructuring plan announced in January 2023.", "Has the debt increased from 2020 to 2021?"):
        words = question.split()
        inserted = " ".join([*words[:-2], filler, *words[-2:]])
        assert read_question(inserted).ask == read_question(question).ask, inserted


def test_an_instruction_defining_two_terms_defines_each() -> None:
    parsed = parse_question("What was the debt-to-equity ratio at May 31, 2020? Define debt as notes payable, current plus "
                            "notes payable and other borrowings, non-current, and equity as total equity. Round to two decimals.")
    assert parsed.instructions.definitions == {
        "debt": "notes payable, current plus notes payable and other borrowings, non-current", "equity": "total equity"}
    assert parsed.instructions.decimals == 2


@pytest.mark.parametrize(("question", "term", "formula"), [
    # a formula after a dash, with an operator and no verb
    ("JPM 1Q23 efficiency (overhead) ratio \u2014 total noninterest expense divided by total net revenue, as a "
     "percentage rounded to two decimals?", "JPM 1Q23 efficiency (overhead) ratio",
     "total noninterest expense divided by total net revenue"),
    # the term after the question's label ("Company 2016: ...")
    ("PG&E Corporation 2016: capex intensity, defined as capital expenditures divided by total operating revenues.",
     "capex intensity", "capital expenditures divided by total operating revenues"),
])
def test_a_definition_written_without_defined_as_or_after_a_label(question: str, term: str, formula: str) -> None:
    assert parse_question(question).instructions.definitions == {term: formula}


def test_a_dash_before_words_without_an_operator_defines_nothing() -> None:
    assert parse_question("Walmart: what was revenue - the income statement line - in 2023?").instructions.definitions == {}


@pytest.mark.parametrize("framed", [
    "Hi, What was Adobe's total revenue for fiscal 2015?",
    "Quick question - What was Adobe's total revenue for fiscal 2015?",
    "Could you tell me: What was Adobe's total revenue for fiscal 2015?",
    "What was Adobe's total revenue for fiscal 2015? Thanks!",
    "I'd like to know this: What was Adobe's total revenue for fiscal 2015? Thank you.",
])
def test_a_conversational_frame_is_not_asked(framed: str) -> None:
    assert parse_question(framed).question == "What was Adobe's total revenue for fiscal 2015?"


# -- the facts a question asks (QuestionIntent.asks) ---------------------------------------------
def _asks(question: str) -> list[tuple[str, str]]:
    from desktop_rag.core.domain.question import read_question

    return [(a.kind, a.words) for a in read_question(question).asks]


def test_each_clause_asking_a_figure_is_an_ask_of_the_kind_its_words_name() -> None:
    assert _asks("How much did the company repurchase in the quarter and how much authorization remains?") == [
        ("amount", "How much did the company repurchase in the quarter"), ("amount", "how much authorization remains")]
    assert _asks("What did the acquisition cost and when did it close?") == [
        ("amount", "What did the acquisition cost"), ("date", "when did it close")]
    assert [k for k, _ in _asks("What was total payment volume and its growth?")] == ["figure", "rate"]
    assert [k for k, _ in _asks("How many employees did it have, and what share of revenue was international?")] == [
        "count", "rate"]
    assert [k for k, _ in _asks("What was the price per share paid?")] == ["per_unit"]


def test_the_parts_of_an_ask_are_asks_of_its_kind() -> None:
    # "buybacks and dividends" after a colon, "the U.S. and international" after "split between"
    assert _asks("How much cash was returned: buybacks and dividends?") == [
        ("amount", "How much cash was returned"), ("amount", "buybacks"), ("amount", "dividends")]
    split = _asks("How many full-time employees were there, and how were they split between the U.S. and international?")
    assert split == [("count", "How many full-time employees were there"),
                     ("count", "how were they split between the U.S. and international")]
    # a clause naming no measure of its own asks of the measure before it; in the same kind it is that ask
    assert _asks("How much net revenue came from outside the U.S., in dollars and as a share of the total?") == [
        ("amount", "How much net revenue came from outside the U.S."),
        ("rate", "How much net revenue came from outside the U.S. as a share of the total")]
    # a date's comma splits nothing
    assert [k for k, _ in _asks("List the notes outstanding as of June 2, 2023 with their maturities and principal amounts.")
            ] == ["date", "amount"]


def test_what_a_question_names_is_not_split_at_its_and() -> None:
    assert _asks("By how much did Azure and other cloud services revenue grow in the quarter?") == [
        ("rate", "By how much did Azure and other cloud services revenue grow in the quarter")]
    assert _asks("What capex (purchases related to property and equipment and intangible assets) did it report?") == [
        ("amount", "What capex (purchases related to property and equipment and intangible assets) did it report")]
    assert _asks("Which acquisitions did it close in 2022 and for how much?") == [
        ("date", "Which acquisitions did it close in 2022"), ("amount", "Which acquisitions did it close in 2022 for how much")]


def test_instructions_that_ask_for_content_ask_facts_and_premises_or_reasons_do_not() -> None:
    # the instruction parser sets "Give ..." apart from the question; what it asks is asked
    assert _asks("What deal did the company announce in late 2019? Give the buyer, the price and the expected "
                 "closing timing.") == [("amount", "the price"), ("date", "the expected closing timing")]
    assert _asks("Why did net income fall 18% in 2022?") == []
    assert _asks("What drove the increase in subscription and support revenues?") == []
    # a premise stated before the question asks nothing
    assert _asks("GMV fell in 2019, yet net transaction revenues went up. What explains the divergence?") == []
    # a premise stating figures is kept with the question (it names what "the decrease" is), not
    # read as an instruction because it names a statement's measure ("operating cash flow")
    from desktop_rag.core.domain.question import read_question
    premised = read_question("Oracle's operating cash flow fell from $15.9bn in FY21 to $9.5bn in FY22. What drove "
                             "the decrease according to the FY2022 10-K?")
    assert premised.ask == "drivers" and "operating cash flow" in premised.asked
    assert read_question("Use the cash flow statement. What was capex in FY2022?").asked == "What was capex in FY2022?"
    # "only" is a premise's adverb there, an instruction as a sentence's first word
    only = read_question("Netflix revenue only grew 3% YoY in Q2 2023 even though memberships grew faster. What "
                         "explains it?")
    assert only.ask == "drivers" and "memberships grew faster" in only.asked
    assert read_question("Only use figures in $ millions. What was net income in 2023?").asked == (
        "What was net income in 2023?")
    assert read_question("Assume a 21% tax rate. What was net income in 2023?").asked == "What was net income in 2023?"
    # a margin is printed in dollars or as a percentage: any figure
    assert _asks("What was the gross margin? Gross margin = gross profit / total revenues.") == [
        ("any", "What was the gross margin")]


def test_an_ask_is_of_a_balance_or_of_what_happened_over_a_period() -> None:
    from desktop_rag.core.domain.question import read_question, timing_of

    asks = read_question("How much stock did it buy back during fiscal 2023, and how much authorization was left at "
                         "year-end?").asks
    assert [a.timing for a in asks] == ["flow", "level"]
    # a sentence's opening phrase says it for the sentence
    assert timing_of("As of January 31, 2023, $6.0 billion remained, which was increased in February 2023.") == "level"
    assert timing_of("During the quarter we repurchased 11 million shares.") == "flow"
    assert timing_of("The Board authorized a program in August 2022.") == "flow"


def test_the_size_of_a_thing_is_asked_as_a_count() -> None:
    assert _asks("What caused the fire, and how large was the fire?") == [("count", "how large was the fire")]
# -- the ranking a question asks (QuestionIntent.ranking) ----------------------------------------
@pytest.mark.parametrize(("question", "lowest", "by", "measure", "kind"), [
    ("Which segment had the highest revenue growth in Q2 2023?", False, "growth", "revenue", "segment"),
    # the measure after "in", not the period after it
    ("Which operating segment saw the steepest decline in net operating revenues in 2020 versus 2019?", True,
     "growth", "net operating revenues", "segment"),
    ("Which segment grew fastest in fiscal 2022?", False, "growth", "", "segment"),
    ("Which service offering grew fastest year over year?", False, "growth", "", "service offering"),
    ("Which of the company's market segments had the strongest comparable sales?", False, "growth",
     "comparable sales", "segments"),
    ("Rank the three segments by 2022 comparable sales growth.", False, "growth", "comparable sales", "segments"),
    ("Across its three businesses, which had the weakest revenue performance in FY2020?", True, "growth", "revenue",
     "businesses"),
    ("Which transportation segment had the highest operating margin in fiscal 2023?", False, "level",
     "operating margin", "segment"),
    ("Which region declined the most in 2022?", True, "growth", "", "region"),
    ("Which product category had the largest net sales in Q3 2023?", False, "level", "net sales", "product category"),
    ("Which service offering had the highest subscription and support revenue growth in Q3 FY23?", False, "growth",
     "subscription and support revenue", "service offering"),
    ("Which business drove the growth?", False, "increase", "", "business"),
    # a ratio's change is in points: "improved the most" is the largest increase, a decline the lowest
    ("Which segment's operating margin improved the most in 2022?", False, "increase", "operating margin", "segment"),
    ("Which segment had the largest operating margin decline in 2022?", True, "increase", "operating margin",
     "segment"),
    ("Which segment was biggest in 2022 and what share of segment sales?", False, "level", "", "segment"),
])
def test_a_ranking_of_the_companys_parts_is_read(question: str, lowest: bool, by: str, measure: str, kind: str) -> None:
    from desktop_rag.core.domain.question import read_question

    intent = read_question(question)
    assert intent.ranking is not None, question
    assert (intent.ranking.lowest, intent.ranking.by, intent.ranking.measure, intent.ranking.kind) == (
        lowest, by, measure, kind)


def test_a_ranking_keeps_the_parts_it_names_and_its_qualifiers() -> None:
    from desktop_rag.core.domain.question import read_question

    named = read_question("Which segment grew net sales faster in FY22, North America or International?")
    assert named.ask == "ranking" and named.ranking is not None
    assert named.ranking.named == ("North America", "International") and named.ranking.by == "growth"
    # the lines named as the filing prints them, in lower case, after "grew faster"
    lines = read_question("In the first half of 2023, which revenue line grew faster year over year, electric or "
                          "natural gas?")
    assert lines.ask == "ranking" and lines.ranking is not None and not lines.ranking.select
    assert lines.ranking.named == ("electric", "natural gas") and lines.ranking.by == "growth"
    # the parts named before a last clause asking more; a platform is a part
    platforms = read_question("Within net transaction revenues for 2015, which platform grew fastest, Marketplace or "
                              "StubHub, and by how much?")
    assert platforms.ranking is not None and platforms.ranking.kind == "platform"
    assert platforms.ranking.named == ("Marketplace", "StubHub")
    geo = read_question("Among the geographic segments, which grew revenue fastest in fiscal 2022?")
    assert geo.ranking is not None and geo.ranking.kind == "geographic segments" and geo.ranking.measure == "revenue"
    # a company's name before the kind is no qualifier of it
    q = read_question("Which Acme transportation segment had the highest operating margin?")
    assert q.ranking is not None and q.ranking.qualifiers == ("transportation",)
    # "posted the strongest ... growth" is a ranking, whatever the possessive before it
    posted = read_question("Which Acme's segment posted the strongest comparable sales growth in Q2 2023?")
    assert posted.ask == "ranking" and posted.ranking is not None and posted.ranking.measure == "comparable sales"


def test_which_parts_moved_is_a_selection_not_a_superlative() -> None:
    from desktop_rag.core.domain.question import read_question

    intent = read_question("Which of the reportable segments grew net sales in Q2 2023 versus Q2 2022, and what "
                           "drove that growth?")
    assert intent.ranking is not None and intent.ranking.select == "grew" and intent.ranking.measure == "net sales"
    assert intent.wants_reasons


@pytest.mark.parametrize("question", [
    "What was the company's revenue growth in Q2 2023?",  # no part ranked
    "Which acquisitions did the company close in 2022 and for how much?",  # a list, no superlative
    "What were the highest-risk items the company lists?",  # no kind of part after "which"
    "Which segment reported revenue of $5 billion in 2022?",  # a part named by its figure, no ranking
    "Is the segment's margin the highest in the industry?",
])
def test_no_ranking_without_a_kind_of_part_and_a_superlative(question: str) -> None:
    from desktop_rag.core.domain.question import read_question

    assert read_question(question).ranking is None


def test_year_to_date_asks_no_date() -> None:
    from desktop_rag.core.domain.question import read_question

    [ask] = read_question("INTC Q3 2022: year-to-date capex (additions to property, plant and equipment)?").asks
    assert ask.kind == "amount"
    assert [a.kind for a in read_question("What was the closing date of the acquisition?").asks] == ["date"]


def test_a_counted_noun_after_another_asked_noun_asks_no_count() -> None:
    from desktop_rag.core.domain.question import read_question

    support = read_question("Under which Form 8-K item did eBay furnish the message, and what support did it "
                            "promise affected employees?")
    assert all(a.kind != "count" for a in support.asks)
    assert [a.kind for a in read_question("What was the number of customers at year end?").asks] == ["count"]
    assert [a.kind for a in read_question("How many employees did eBay have?").asks] == ["count"]


@pytest.mark.parametrize(("question", "head"), [
    ("Has the company's borrowing increased over FY2018? Compare notes payable at May 31, 2018 vs 2017 and say what "
     "new issuance drove it.", "Has the company's borrowing increased over FY2018? Compare notes payable at May 31, "
     "2018 vs 2017?"),
    ("Did the effective tax rate go up or down in FY2019 versus FY2018, and what were the main reasons?",
     "Did the effective tax rate go up or down in FY2019 versus FY2018?"),
    ("What was revenue growth in 2022? Why?", "What was revenue growth in 2022?"),
    ("Why did net income fall in 2022?", "Why did net income fall in 2022?"),  # the whole question asks why
    ("In 2022, why did margins fall?", "In 2022, why did margins fall?"),
])
def test_the_part_asking_why_is_set_apart_from_the_verdict_asked(question: str, head: str) -> None:
    from desktop_rag.core.domain.question import without_reasons

    assert without_reasons(question) == head


def test_revenue_lines_are_parts_compared_and_the_explanation_asked_is_a_reason() -> None:
    from desktop_rag.core.domain.question import read_question

    intent = read_question("Which of Acme's revenue lines grew in FY2018 and which shrank, and how does management "
                           "explain the hardware decline?")
    assert intent.ask == "comparison" and intent.wants_reasons
    assert intent.ranking is not None and intent.ranking.kind == "revenue lines" and intent.ranking.select == "grew"


@pytest.mark.parametrize(("question", "word", "computed"), [
    ("What caused the company's large net loss in 2019?", "large", True),  # how big the move was
    ("What caused the company's large net loss in 2019?", "caused", True),  # asking for a cause
    ("How many Big Macs did the company sell in Q2 2023?", "big", False),  # a name the question capitalises
])
def test_words_of_a_move_or_a_cause_are_no_evidence_unless_capitalised_as_a_name(
        question: str, word: str, computed: bool) -> None:
    from desktop_rag.core.domain.question import computed_words

    assert (word in computed_words(question)) is computed


@pytest.mark.parametrize("question", [
    "According to Acme's 8-K dated February 13, 2023, which performance metrics determine the payouts?",
    "What is the CEO's 2023 base salary in dollars, per the company's February 2023 8-K?",
    "What total purchase price did Acme pay for Slack, according to its 8-K dated July 21, 2021?",
])
def test_the_source_an_analyst_names_is_no_fact_asked(question: str) -> None:
    from desktop_rag.core.domain.question import read_question

    assert not any(re.search(r"according|per the|8-K", a.words, re.I) for a in read_question(question).asks)


@pytest.mark.parametrize(("question", "kind"), [
    ("What's the status of the Hewlett-Packard (Itanium) lawsuit against Oracle?", "description"),
    ("What is the status of the Hewlett-Packard (Itanium) lawsuit against Oracle?", "description"),
    ("What's Apple's revenue in 2023?", "figure"),
    ("What came of PayPal Australia's self-reported AML reporting issue with AUSTRAC?", "description"),
])
def test_a_verb_written_short_reads_as_written_out(question: str, kind: str) -> None:
    assert read_question(question).ask == kind


def test_a_label_before_a_colon_names_the_topic_and_asks_nothing() -> None:
    asks = read_question("Headcount check: how many employees did Nike have at the end of fiscal 2022?").asks
    assert [(a.kind, a.topic) for a in asks] == [("count", "Headcount check")]
    assert counted_noun("Headcount check: how many employees did Nike have?") == "employees"


def test_a_question_before_a_comma_is_no_lead_in_and_a_clause_no_concept() -> None:
    """"How much stock was bought back in 2019, what authorization was left ..." asks twice: its
    concept is not "authorization was left" (whose "left" no filing need print)."""
    q = "How much eBay stock was bought back in 2019, what authorization was left at year-end, and did the board add more?"
    assert "left" not in asked_concept(q)
    assert asked_concept("As a retail analyst covering COST, how many warehouses did Costco operate?") == "warehouses"


def test_why_asked_in_a_request_beside_the_question() -> None:
    intent = read_question("Has McDonald's debt load gone up in 2022? Give the year-end totals, what drove the "
                           "change, and the company's long-term credit ratings.")
    assert intent.ask == "yesno" and intent.wants_reasons


def test_a_printed_count_is_a_figure_before_the_noun_never_a_year() -> None:
    tight = printed_count("employees", labelled=False)
    assert tight.search("we had approximately 79,100 employees worldwide")
    assert tight.search("we employed approximately 14,100 people globally")  # any word for people
    assert not tight.search("Registrant's Amended and Restated 1998 Employee Stock Purchase Plan")
    assert not tight.search("EMPLOYEE BASE\nAs of May 31, 2022")
    assert not tight.search("up to 12 weeks of paid time off every 12 months for employees")
    assert not tight.search("Prior to 2009, certain employees earned benefits")
    assert printed_count("memberships").search("Paid memberships at end of period 27,438")
    # a people count labelled by the word itself, not by a label the word modifies
    assert printed_count("headcount").search("Full time equivalent headcount 72,970 79,390")
    assert not printed_count("headcount").search("Issuance of employee benefit plan stock 5,548 — — 1")
    # a line break inside the sentence is a space
    assert tight.search("approximately 201,000 permanent part-time \nemployees, and FedEx Ground utilized")


def test_a_formula_to_use_defines_what_the_question_before_asks() -> None:
    parsed = parse_question("What share of McDonald's 2022 total revenues came from franchised restaurants? Use revenues "
                            "from franchised restaurants divided by total revenues on the income statement, percent to "
                            "two decimals.")
    assert list(parsed.instructions.definitions.values()) == ["revenues from franchised restaurants divided by total revenues"]
    assert parsed.instructions.decimals == 2 and parsed.instructions.statements == ["income"]
    assert parsed.question.endswith("came from franchised restaurants?")
    # a sentence using no formula is no definition
    assert not parse_question("What was Nike's revenue in fiscal 2022? Use the income statement.").instructions.definitions


@pytest.mark.parametrize(("question", "kinds"), [
    # money's size, however asked; a per-share price with a hyphen
    ("How large is the reverse termination fee Acme would owe, and what is the approximate purchase price?",
     ["amount", "amount"]),
    ("What did Acme pay for Widgetco, and what was the per-share tender price?", ["amount", "per_unit"]),
    # a topic and the source before the question ask nothing
    ("Acme buyback: per the 10-Q for the quarter ended October 31, 2022, how big is the authorization, how much stock "
     "was repurchased in the quarter, and how much remains?", ["amount", "amount", "amount"]),
])
def test_the_kinds_of_fact_asked(question: str, kinds: list[str]) -> None:
    assert [a.kind for a in read_question(question).asks] == kinds


@pytest.mark.parametrize("question", [
    "Did Acme reduce its long-term debt during 2022? Answer yes or no and explain using the 10-K.",
    "Is Acme liquid? Explain.",
])
def test_explain_said_of_the_answer_asks_its_reasons(question: str) -> None:
    intent = read_question(question)
    assert intent.ask == "yesno" and intent.wants_reasons


def test_a_figure_asked_for_each_part_is_read_as_every_parts_figure() -> None:
    ranking = read_question("What are Acme's three businesses per the FY2017 10-K, and how much total revenue did each "
                            "generate in fiscal 2017?").ranking
    assert ranking is not None
    assert (ranking.select, ranking.measure, ranking.kind, ranking.qualifiers) == ("each", "total revenue", "businesses", ())
    assert read_question("What was net income for each quarter?").ranking is None  # a quarter is no part


@pytest.mark.parametrize(("question", "kinds"), [
    # the kinds listed in parentheses after what is asked: one fact each
    ("How much common stock did JPMorgan buy back in the three months ended March 31, 2023 (shares and dollars)?",
     ["count", "amount"]),
    # "when the deal closed" dates what was received; no date is asked
    ("What did each Slack share receive as merger consideration when the Slack deal closed?", ["amount"]),
    ("When did the Slack deal close?", ["date"]),
    # "how many ... close": a count, whatever the verb
    ("How many stores did Walmart close in fiscal 2023?", ["count"]),
    # a gain is an amount, not the kind of the item listed before it
    ("What does the firm disclose about the acquisition \u2014 date, expected bargain purchase gain?", ["date", "amount"]),
])
def test_the_kinds_of_facts_asked(question: str, kinds: list[str]) -> None:
    from desktop_rag.core.domain.question import read_question
    assert [a.kind for a in read_question(question).asks] == kinds


def test_an_authorization_in_place_is_a_level_not_what_was_done() -> None:
    from desktop_rag.core.domain.question import timing_of
    assert timing_of("The Firm is authorized to purchase up to $30 billion under its common share repurchase program.") == "level"


def test_a_lead_naming_the_filing_and_period_is_no_topic() -> None:
    """"WMT 10-Q for the quarter ended April 30, 2023: what long-term debt did Walmart issue —
    total principal, net proceeds, and the range of maturities?": the clauses naming only a kind
    ask it of the debt issued, not of the filing."""
    from desktop_rag.core.domain.question import read_question
    asks = read_question("WMT 10-Q for the quarter ended April 30, 2023: what long-term debt did Walmart issue during "
                         "the quarter, net proceeds, and the range of maturities?").asks
    assert [a.kind for a in asks] == ["amount", "amount", "date"]
    assert asks[1].topic == asks[2].topic == "what long-term debt did Walmart issue during the quarter"


def test_a_cause_asked_after_a_verb_of_finding_is_a_reason_asked() -> None:
    from desktop_rag.core.domain.question import read_question
    intent = read_question("How much did PG&E say it would probably lose on the Butte fire claims, and what did Cal Fire "
                           "conclude caused the fire?")
    assert intent.wants_reasons and intent.asks[0].kind == "amount"


def test_year_over_year_after_a_colon_is_no_formula() -> None:
    q = ("Salesforce Q1 FY24: rank the subscription & support service offerings by year-over-year revenue growth. "
         "Which grew fastest?")
    assert parse_question(q).instructions.definitions == {}
    assert "rank the subscription" in parse_question(q).question


def test_after_a_colon_is_the_question_not_a_formula() -> None:
    q = "PCG Q3 2022: operating margin, i.e. operating income divided by total operating revenues?"
    assert list(parse_question(q).instructions.definitions.values()) != [
        "operating margin, i.e. operating income divided by total operating revenues"]


def test_a_request_after_a_label_is_the_question_and_a_unit_in_parentheses_no_gloss() -> None:
    from desktop_rag.core.domain.question import concept_gloss
    q = ("EBAY 10-Q Q2 2023 \u2014 compute free cash flow for the six months ended June 30, 2023 as net cash provided "
         "by continuing operating activities minus purchases of property and equipment ($M).")
    parsed = parse_question(q)
    assert "compute free cash flow" in parsed.question and parsed.instructions.definitions == {}
    for unit in ("$M", "in USD millions", "%", "USD"):
        assert concept_gloss(f"What was capex ({unit}) in 2022?") == ""
    assert concept_gloss("What capex (purchases of property and equipment) did it report?") == (
        "purchases of property and equipment")


@pytest.mark.parametrize(("question", "codes"), [
    ("What margin did it earn on the F-35 program in Q1 2023 per its 10-Q?", ["F-35"]),
    ("PAC-3 and C-130J deliveries in 1Q23 and FY2023", ["PAC-3", "C-130J"]),
    ("How many A320 aircraft in H1?", ["A320"]),
])
def test_designators_are_codes_not_periods_or_forms(question: str, codes: list[str]) -> None:
    from desktop_rag.core.domain.question import designators
    assert designators(question) == codes


@pytest.mark.parametrize(("question", "kind", "asks"), [
    # the filing named by its date asks no date, nor does the lead naming only the filing
    ("eBay 8-K for the event dated March 14, 2023: who was appointed to the board and what did the board size "
     "increase to?", "description", []),
    ("What did McDonald's 8-K dated January 6, 2023 say about the new 4th 'D' being added under Accelerating the "
     "Arches 2.0, and what is the new organizational effort called?", "description", []),
    ("When was the 8-K dated March 1, 2023 filed?", "figure", ["date"]),
    ("Who is the CFO of Apple?", "description", []),
])
def test_a_filing_named_by_its_date_asks_no_date(question: str, kind: str, asks: list[str]) -> None:
    intent = read_question(question)
    assert intent.ask == kind and [a.kind for a in intent.asks] == asks


@pytest.mark.parametrize(("question", "concept"), [
    # a clause after the thing asked, its subject and verb, is the analyst's: the thing is printed
    ("What was the total principal amount of First Mortgage Bonds the Utility sold on June 5, 2023?",
     "total principal amount of First Mortgage Bonds"),
    ("What is the number of stores the company operated at year end?", "number of stores"),
    # a preposition's object is no clause
    ("What were the total assets of the segment?", "total assets of the segment"),
])
def test_a_relative_clause_after_the_thing_asked_is_left_out(question: str, concept: str) -> None:
    assert asked_concept(question) == concept


def test_the_business_bought_is_a_description() -> None:
    intent = read_question("What business did eBay acquire in 2018 from Giosis, what cash consideration did it pay?")
    assert intent.ask == "description" and [a.kind for a in intent.asks] == ["amount"]


@pytest.mark.parametrize(("question", "kinds"), [
    ("How much will the Utility pay under the stipulation, and is it recoverable through rates?", ["amount", "claim"]),
    ("How much insurance coverage did the Utility have, and had it accrued any liability at year-end 2017?",
     ["amount", "claim"]),
    # a yes/no question alone is the answer's shape (a verdict), no claim beside a fact
    ("Is the business capital-intensive?", []),
])
def test_a_yes_no_clause_after_a_fact_is_a_claim_asked(question: str, kinds: list[str]) -> None:
    assert [a.kind for a in read_question(question).asks] == kinds


def test_a_definition_after_a_source_and_a_request_verb_defines_what_the_verb_asks() -> None:
    parsed = parse_question("Using eBay's 2021 Form 10-K cash flow statement, compute free cash flow from continuing "
                            "operations for 2021, defined as net cash provided by continuing operating activities less "
                            "purchases of property and equipment. Answer in USD millions.")
    assert parsed.instructions.definitions == {
        "free cash flow": "net cash provided by continuing operating activities less purchases of property and equipment"}
