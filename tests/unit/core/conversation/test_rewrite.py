"""core/conversation/rewrite.py: follow-ups carry company, period, form and concept."""

from __future__ import annotations

from datetime import date

import pytest

from desktop_rag.core.conversation.rewrite import rewrite_followup, thread_facts
from desktop_rag.core.domain.periods import FiscalCalendar

NAMES = {"apple", "apple inc.", "aapl", "AAPL", "nvidia", "nvda", "NVDA", "microsoft", "msft", "MSFT",
         "intel", "INTC"}
RD = ["What was Apple's research and development expense in Q3 2023?"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the case: the concept must survive a relative period
        ("And the quarter before?", "What was Apple's research and development expense in Q2 2023?"),
        ("And a year earlier?", "What was Apple's research and development expense in Q3 2022?"),
        ("And in 2021?", "What was Apple's research and development expense in 2021?"),
        ("Same for Intel", "What was Intel's research and development expense in Q3 2023?"),
        ("And NVIDIA?", "What was NVIDIA's research and development expense in Q3 2023?"),
        # a company the library lacks is still carried (the gate then refuses, naming it)
        ("Same for AMD", "What was AMD's research and development expense in Q3 2023?"),
        ("What about operating income?", "What was operating income for Apple in Q3 2023?"),
        ("And its capex?", "What was Apple's capex in Q3 2023?"),
        ("What was operating income the quarter before?", "What was operating income in Q2 2023 (Apple)?"),
        ("What were Microsoft's net sales in Q1 2023?", "What were Microsoft's net sales in Q1 2023?"),
    ],
)
def test_followups(question: str, expected: str) -> None:
    assert rewrite_followup(question, RD, NAMES).standalone == expected


def test_fiscal_quarter_wraps_to_the_previous_fiscal_year() -> None:
    out = rewrite_followup("And the previous quarter?", ["What was NVIDIA's revenue in Q1 FY2024?"], NAMES)
    assert out.standalone == "What was NVIDIA's revenue in Q4 FY2023?"
    assert out.kind == "swap" and out.period == "Q4 FY2023"


def test_dated_period_keeps_its_wording() -> None:
    out = rewrite_followup("And the quarter before?", ["What was Intel's net revenue for the quarter ended July 1, 2023?"], NAMES)
    assert out.standalone == "What was Intel's net revenue for the quarter ended April 1, 2023?"


def test_scope_company_wins_over_an_earlier_company() -> None:
    # the second case: a chat scoped to the Nvidia filing is not about Microsoft
    prev = ["What were Microsoft's revenues in Q1 2023?"]
    out = rewrite_followup("What was total revenue for the quarter?", prev, NAMES, "NVIDIA Corporation", "Q2 FY2024")
    assert out.standalone == "What was total revenue for the quarter (NVIDIA Corporation, Q2 FY2024)?"
    again = rewrite_followup("And the quarter before?", [out.standalone], NAMES, "NVIDIA Corporation", "Q2 FY2024")
    assert again.standalone == "What was total revenue for the quarter (NVIDIA Corporation, Q1 FY2024)?"


def test_standalone_and_empty_questions_pass_through() -> None:
    q = "Describe the principal risk factors discussed by the registrant regarding supply chain concentration in Asia"
    assert rewrite_followup(q, RD, NAMES).standalone == q
    assert rewrite_followup("And in Q2?", [], NAMES).standalone == "And in Q2?"
    assert rewrite_followup("   ", RD, NAMES).standalone == ""
    assert rewrite_followup("And why?", ["Tell me something interesting."], NAMES).standalone == "And why?"


def test_form_is_carried() -> None:
    out = rewrite_followup("What about long-term debt?", ["What was Apple's total revenue in the 2023 10-K?"], NAMES)
    assert "Apple" in out.standalone and "2023" in out.standalone


@pytest.mark.parametrize("period", ["fiscal 2024", "fiscal year 2024", "FY24", "3Q23", "third quarter of fiscal 2023"])
def test_whole_period_phrase_is_carried(period: str) -> None:
    out = rewrite_followup("And its capex?", [f"How much did NVIDIA spend on R&D in {period}?"], NAMES)
    assert out.standalone == f"What was NVIDIA's capex in {period}?"


def test_thread_facts_take_the_latest_naming_question() -> None:
    facts = thread_facts(["What was Apple's revenue in Q3 2023?", "And its gross margin?"], NAMES)
    assert facts.company == "Apple" and facts.period_text == "Q3 2023"


def test_a_company_the_library_lacks_is_swapped_out_again() -> None:
    prev = ["What were NVIDIA's total revenues in Q1 FY2024?", "What were AMD's total revenues in Q1 FY2024?"]
    out = rewrite_followup("What about Intel in Q1 2023?", prev, NAMES)
    assert out.standalone == "What were Intel's total revenues in Q1 2023?"


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # the thread's quarter in the year named
        ("What was Apple's operating income in the third quarter of 2023?", "How about the same quarter in 2022?",
         "What was Apple's operating income in Q3 2022?"),
        # a short year
        ("What was Intel's revenue for the quarter ended September 30, 2023?", "and the same quarter in '22",
         "What was Intel's revenue for the quarter ended September 30, 2022?"),
        # a shift from the thread's quarter, named with it ("a year before that quarter")
        ("What was Intel's revenue for the quarter ended June 30, 2023?",
         "and the provision for credit losses a year before that quarter?",
         "What was the provision for credit losses in the quarter ended June 30, 2022 for Intel?"),
        # "instead" marks the swap, no concept of its own: the thread's measure is kept, and a
        # span written with a day but no year is the thread's year to date
        ("What was Intel's data center segment operating income in Q3 2023?", "client instead, for the 9 mo to Sept 30?",
         "client segment operating income instead, for the first nine months of 2023 (Intel)?"),
        # a shift from the period the message writes, not the thread's
        ("What was Intel's revenue in Q3 2023?", "and gross margin for the quarter a year before Q1 '23?",
         "What was gross margin for Q1 2022 for Intel?"),
        # months counted as quarters
        ("What was Microsoft's cash as of March 31, 2023?", "and three months earlier?",
         "What was Microsoft's cash as of December 31, 2022?"),
        # the words around a period are no concept
        ("How much inventory did Apple carry at the end of fiscal 2019?", "and at the end of fiscal 2018?",
         "How much inventory did Apple carry at the end of fiscal 2018?"),
        # the same question for another company, and its period
        ("What were Apple's net sales for the quarter ended April 1, 2023?",
         "same question for Intel's quarter ended April 1, 2023", "What were Intel's net sales for the quarter ended April 1, 2023?"),
        ("What was Apple's gross margin in Q3 2023?", "Now do Intel", "What was Intel's gross margin in Q3 2023?"),
        # a comparison keeps the thread's period beside the one compared with
        ("What was Apple's services revenue in Q2 2023?", "how did that compare to the prior-year quarter?",
         "What was Apple's services revenue in Q2 2023 vs Q2 2022?"),
        ("What were Apple's total revenues for fiscal 2022?", "and back in FY2015?",
         "What were Apple's total revenues for FY2015?"),
        ("What were Apple's total revenues for fiscal 2022?", "What about its net income that year?",
         "What was Apple's net income in fiscal 2022?"),
    ],
)
def test_held_out_followups(previous: str, question: str, expected: str) -> None:
    assert rewrite_followup(question, [previous], NAMES).standalone == expected


def test_a_bare_unknown_name_in_a_one_company_chat_is_a_product_not_a_company() -> None:
    prev = ["What were iPhone net sales in Q1 FY2023?"]
    mac = rewrite_followup("And Mac?", prev, NAMES, "Apple Inc.", "Q1 FY2023")
    assert "Apple" in mac.standalone and "Mac" in mac.standalone
    amd = rewrite_followup("Same for AMD", prev, NAMES, "Apple Inc.", "Q1 FY2023")
    assert "AMD" in amd.standalone and "Apple" not in amd.standalone


# -- issue #12, held-out-3 causes (own phrasings, not the batch's sentences) ---------------------------
SEG = ["What was Intel's client computing segment operating income in Q2 2023?"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a new subject keeps the thread's measure, whatever the lead words
        ("and the data center group for that quarter?", "What was the data center group segment operating income in Q2 2023 for Intel?"),
        ("what about foundry", "What was foundry segment operating income for Intel in Q2 2023?"),
        ("how big was mobileye", "how big was mobileye segment operating income (Intel, Q2 2023)?"),
        # a quarter without its year is a quarter of the thread's year; the measure stays
        ("and for Q4?", "What was Intel's client computing segment operating income in Q4 2023?"),
        ("the third quarter then?", "What was Intel's client computing segment operating income in Q3 2023?"),
        ("network revenue in q1", "network revenue in Q1 2023 (Intel)?"),
        # quarter-first shorthand is a period, never a company
        ("and 4Q22?", "What was Intel's client computing segment operating income in 4Q22?"),
        # filler around a company switch is no concept; a lower-case ticker is the company
    ],
)
def test_followups_keep_the_measure(question: str, expected: str) -> None:
    assert rewrite_followup(question, SEG, NAMES).standalone == expected


def test_filler_around_a_company_switch_is_no_concept() -> None:
    # "intc" typed in lower case is the ticker INTC (the library knows it in capitals only)
    prev = ["What was Apple's services net sales in Q2 2023?"]
    out = rewrite_followup("alright, back to intc, how about Q1 2023", prev, NAMES)
    assert out.standalone == "What was INTC's services net sales in Q1 2023?"


def test_a_qualitative_topic_is_no_subject_of_the_measure() -> None:
    out = rewrite_followup("what about risk factors?", SEG, NAMES)
    assert "operating income" not in out.standalone


def test_a_dated_period_is_replaced_whole_by_a_quarter() -> None:
    prev = ["How much did Apple spend on R&D in the quarter ended April 1, 2023?"]
    out = rewrite_followup("and Q4 FY2023?", prev, NAMES)
    assert out.standalone == "How much did Apple spend on R&D in Q4 FY2023?"


def test_carried_parts_join_one_parenthesis_but_not_a_labels_own() -> None:
    from desktop_rag.core.conversation.rewrite import _append

    assert _append("What was X revenue (Intel)?", ["Q3 2023"]) == "What was X revenue (Intel, Q3 2023)?"
    assert _append("What was operating income (loss)?", ["Q3 2023"]) == "What was operating income (loss) (Q3 2023)?"
    assert _append("What was net income (GAAP)?", ["Intel"]) == "What was net income (GAAP) (Intel)?"


def test_chat_shorthand_for_companies_and_periods() -> None:
    names = {"apple", "AAPL", "intel", "INTC", "Lockheed", "lockheed martin"}
    typed = {"aapl", "intc", "lockheed"}  # never printed in lower case by the library's filings
    # a trading symbol typed in lower case is written as printed, so the search reads the company
    assert rewrite_followup("aapl iphone net sales Q1 FY23", [], names, name_terms=typed).standalone == \
        "AAPL iphone net sales Q1 FY23"
    assert rewrite_followup("aapl iphone net sales Q1 FY23", [], names).standalone == "aapl iphone net sales Q1 FY23"
    prev = ["What was Lockheed Martin's capex in 2021?"]
    assert rewrite_followup("and the yr before?", prev, names).standalone == "What was Lockheed Martin's capex in 2020?"
    prev = ["INTC gross margin 1Q23"]
    # a possessive names whose figure it is: a company the library lacks is not Intel's segment
    out = rewrite_followup("ok what about AMD's 1Q23 gm", prev, names).standalone
    assert "AMD" in out and "INTC" not in out and "Intel" not in out


# -- companies the library lacks, typed in lower case ---------------------------------------------------
# the words the library's filings print in lower case (``LibraryTerms.printed_lower``)
PRINTED = frozenset({"services", "gaming", "revenue", "operating", "income", "first", "republic", "the", "margins",
                     "data", "center"})
OPINC = ["What was Apple's operating income in Q1 2023?"]


@pytest.mark.parametrize(("question", "expected", "absent"), [
    ("and google?", "What was Google's operating income in Q1 2023?", "Google"),
    ("pepsi 2022?", "What was Pepsi's operating income in 2022?", "Pepsi"),
    ("how does that stack up vs adidas", "What was Adidas's operating income in Q1 2023?", "Adidas"),
    ("And Google?", "What was Google's operating income in Q1 2023?", "Google"),  # capitalised, as before
])
def test_a_lower_case_name_no_filing_prints_is_a_company_the_library_lacks(question: str, expected: str,
                                                                            absent: str) -> None:
    out = rewrite_followup(question, OPINC, NAMES, printed_lower=PRINTED)
    assert (out.standalone, out.absent_company) == (expected, absent)


@pytest.mark.parametrize("question", ["and services?", "gaming?", "and revnue?", "and nii?", "and the year before?",
                                      "data center?", "and azure?", "and layoffs?", "and iphone?"])
def test_ordinary_lower_case_follow_ups_stay_with_the_thread_s_company(question: str) -> None:
    out = rewrite_followup(question, OPINC, NAMES, terms={"iphone": "Apple Inc."},
                           labels={"apple": frozenset({"azure"})}, printed_lower=PRINTED)
    assert out.absent_company == "" and "Apple" in out.standalone, out.standalone


def test_a_name_the_library_lacks_replaces_every_mention_of_the_previous_company() -> None:
    names = {"coca-cola", "Coca-Cola", "the coca-cola company", "KO"}
    prev = ["coke net operating revenues 2016 (Coca-Cola)?"]
    out = rewrite_followup("pepsi 2017?", prev, names, terms={"coke": "The Coca-Cola Company"}, name_terms={"coke"},
                           printed_lower=PRINTED)
    assert out.standalone == "Pepsi's net operating revenues 2017?"
    # the previous company in the subject of a verb stays as it was written ("did Alphabet spend")
    out = rewrite_followup("and google?", ["How much did Intel spend on R&D in Q1 2023?"], NAMES, printed_lower=PRINTED)
    assert out.standalone == "How much did Google spend on R&D in Q1 2023?"


def test_a_month_named_quarter_is_the_company_s_own_quarter() -> None:
    apple = FiscalCalendar(2023, 2, date(2023, 4, 1))  # fiscal year ends in September
    names = {"amazon", "AMZN", "apple", "AAPL"}
    cals = {"apple": apple, "aapl": apple}
    out = rewrite_followup("how does that compare w/ apple's for the march qtr", ["amazon op income q1 2023"], names,
                           calendars=cals)
    assert out.standalone == "apple op income Q2 FY2023"
    # a company whose calendar is unknown gets the same months as the thread writes them (calendar quarters)
    out = rewrite_followup("and google?", ["amazon op income q1 2023", out.standalone], names, calendars=cals,
                           printed_lower=PRINTED)
    assert out.standalone == "Google's op income Q1 2023"
    assert rewrite_followup("And the June quarter?", ["amazon op income q1 2023"], names,
                            calendars=cals).standalone == "amazon op income Q2 2023"


def test_an_aside_answered_from_the_conversation_can_bring_the_thread_back_to_a_company() -> None:
    prev = ["INTC gross margin 4Q22", "ok what about AMD's 1Q23 gm"]
    names = {"intel", "INTC", "nvidia"}
    back = rewrite_followup("and 3Q23?", prev, names, asides=["back to intel, what did u say 1Q was"])
    assert back.standalone == "ok what about intel's 3Q23 gm"
    assert rewrite_followup("and 3Q23?", prev, names).standalone == "ok what about AMD's 3Q23 gm"
    # an aside naming two companies brings the thread back to neither
    both = rewrite_followup("and 3Q23?", prev, names, asides=["which was bigger, intel or nvidia?"])
    assert both.standalone == "ok what about AMD's 3Q23 gm"


def test_a_question_about_the_previous_answer_keeps_the_thread_s_measure() -> None:
    prev = ["NVDA net income Q3 FY2024", "wow. what drove that (NVDA, Q3 FY2024)?"]
    assert rewrite_followup("q4 fy24?", prev, NAMES).standalone == "NVDA net income q4 fy24"
    # a qualitative question with its own subject is the one repeated
    risk = ["What did Apple say about currency risk in Q3 2023?"]
    assert rewrite_followup("And in 2022?", risk, NAMES).standalone == "What did Apple say about currency risk in 2022?"


@pytest.mark.parametrize("why", ["Why so high (Oracle, fiscal 2018)?", "And why (Oracle, fiscal 2018)?",
                                 "What caused such a high figure (Oracle, fiscal 2018)?"])
def test_a_bare_follow_up_after_a_why_question_asks_the_figure_again(why: str) -> None:
    # "Why so high?" asks the cause of the answer before it: "And fiscal 2017?" asks that figure
    # for fiscal 2017, not why it was high
    prev = ["What was Oracle's effective tax rate in fiscal 2018?", why]
    out = rewrite_followup("And fiscal 2017?", prev, {"oracle", "ORCL"})
    assert out.standalone == "What was Oracle's effective tax rate in fiscal 2017?"


def test_how_much_a_change_added_asks_the_thread_s_measure() -> None:
    prev = ["nii for the qtr (JPMorgan Chase & Co., Q2 2023)?", "provision for credit losses (JPMorgan Chase & Co, Q2 2023)?"]
    out = rewrite_followup("anything on first republic? how much did it add", prev, {"jpmorgan", "JPM"},
                           printed_lower=PRINTED)
    assert "provision for credit losses" in out.standalone and out.absent_company == ""
    assert "concept" in out.carried


# -- year-to-date spans, questions about a change, the latest quarter -------------------------------------
def test_a_year_to_date_span_of_the_thread_s_year() -> None:
    prev = ["Amazon net sales 3Q 2023?"]
    names = {"amazon", "AMZN"}
    nine = rewrite_followup("and the nine months?", prev, names)
    assert nine.standalone == "Amazon net sales the first nine months of 2023?"
    half = rewrite_followup("how did that compare with the first half", [*prev, nine.standalone], names)
    assert half.standalone == "Amazon net sales the first half of 2023?" and half.named_period == "the first half of 2023"
    full = rewrite_followup("and for the full year?", ["AAPL total net sales, first nine months of fiscal '23?"],
                            {"apple", "AAPL"})
    assert full.standalone == "AAPL total net sales, fiscal 2023?"


def test_a_question_about_a_change_asks_the_measure_in_the_later_period() -> None:
    prev = ["What was Apple's gross margin in Q3 2023?", "What was Apple's gross margin in Q3 2022?"]
    why = rewrite_followup("what drove the change?", prev, NAMES)
    assert why.standalone == "what drove the change (gross margin, Apple, Q3 2023)?"
    # a period after it repeats the figure question, not the why-question
    assert rewrite_followup("And in Q1 2023?", [*prev, why.standalone], NAMES).standalone == \
        "What was Apple's gross margin in Q1 2023?"
    # "that quarter" is the one the thread named last
    assert rewrite_followup("what did mgmt say drove that in that quarter?", prev, NAMES).standalone == \
        "what did mgmt say drove that in Q3 2022 (gross margin, Apple)?"


def test_the_latest_quarter_is_the_latest_report_of_the_company() -> None:
    nvidia = FiscalCalendar(2024, 3, date(2023, 10, 29))
    out = rewrite_followup("gross margin %?", ["nvda revenue last quarter?"], {"nvidia", "NVDA"},
                           calendars={"nvda": nvidia, "nvidia": nvidia})
    assert out.standalone == "gross margin % (NVDA, Q3 FY2024)?"


def test_a_question_naming_a_period_but_no_company_is_about_the_thread_s() -> None:
    prev = ["nike revenues fiscal '23?"]
    names = {"nike", "NKE"}
    assert rewrite_followup("what happened to gross margin % in FY23 and why", prev, names).standalone == \
        "what happened to gross margin % in FY23 and why (nike)?"
    # not one that may span several companies, nor a long new question naming no period
    which = "which company had the highest gross margin in FY23 of all?"
    assert rewrite_followup(which, prev, names).standalone == which


def test_a_name_before_the_measure_and_one_carried_in_parentheses_are_written_as_owners() -> None:
    names = {"coca-cola", "Coca-Cola", "KO"}
    prev = ["The Coca-Cola Company: net operating revenues for 2017?"]
    out = rewrite_followup("pepsico top line 2017?", prev, names, printed_lower=PRINTED)
    assert (out.standalone, out.absent_company) == ("Pepsico's top line 2017?", "Pepsico")
    out = rewrite_followup("Northrop's?", ["FCF for calendar 2022 (Lockheed)?"], {"lockheed", "Lockheed", "LMT"},
                           printed_lower=PRINTED)
    assert out.standalone == "Northrop's FCF for calendar 2022?"


def test_a_period_pointed_back_at_is_the_one_asked_of_the_company_named() -> None:
    names = {"apple", "AAPL", "amazon", "AMZN"}
    company_of = {"apple": "Apple Inc.", "aapl": "Apple Inc.", "amazon": "Amazon.com, Inc.", "amzn": "Amazon.com, Inc."}
    prev = ["AAPL total net sales, first nine months of fiscal '23?",
            "amazon's service sales over its first nine months of 2023?"]
    q = "on Apple: what drove Services growth over those nine months?"
    out = rewrite_followup(q, prev, names, company_of=company_of)
    assert "the first nine months of fiscal 2023" in out.standalone
    # without knowing that "AAPL" is Apple, the period asked last (Amazon's) is carried
    assert "the first nine months of 2023" in rewrite_followup(q, prev, names).standalone


def test_a_word_glued_to_a_figure_is_no_subject_word() -> None:
    # "1H23 vs 1H22" once raised IndexError: "H23" was taken for a word of the follow-up and
    # then not found as a whole word where the thread's measure was to be written after it.
    out = rewrite_followup("1H23 vs 1H22", ["What was JPMorgan's net income in 2Q23?"], ["JPMorgan Chase & Co."])
    # now read as two half-years: the thread's question about both
    assert out.standalone == "What was JPMorgan's net income in 1H23 vs 1H22?"


# -- held-out-6 shorthand (general rules, not the threads' words) -------------------------------------
APPLE_NAMES = ["Apple Inc.", "Apple", "AAPL", "Intel", "Intel Corporation"]
APPLE_PREV = ["What was Apple's revenue in Q3 FY2023?"]


@pytest.mark.parametrize(("question", "standalone"), [
    ("and the comparable quarter", "What was Apple's revenue in Q3 FY2023 vs Q3 FY2022?"),
    ("sequentially?", "What was Apple's revenue in Q3 FY2023 vs Q2 FY2023?"),
    ("vs the prior-year period", "What was Apple's revenue in Q3 FY2023 vs Q3 FY2022?"),
    ("two years back", "What was Apple's revenue in Q3 FY2021?"),
    ("and H1?", "What was Apple's revenue in the first half of fiscal 2023?"),
    ("its peer Intel?", "What was Intel's revenue in Q3 FY2023?"),
    # companies the library lacks, named as investors write them
    ("its peer northrop?", "What was Northrop's revenue in Q3 FY2023?"),
    ("$AMD same quarter?", "What was AMD's revenue in Q3 FY2023?"),
    ("BJ's Wholesale same metric?", "What was BJ's Wholesale's revenue in Q3 FY2023?"),
    ("target corp fy2019 fcf", "Target Corporation's fy2019 fcf"),
    ("how about peers like AMD?", "What was AMD's revenue in Q3 FY2023?"),
    # "sequential" as a word of the question: the two quarters are added
    ("sequential growth in revenue?", "sequential growth in revenue (Q3 FY2023 vs Q2 FY2023, Apple)?"),
    # a full question about another company gets no thread company added
    ("how did its peer Alphabet do on op margin in Q4 2022?", "how did its peer Alphabet do on op margin in Q4 2022?"),
])
def test_sell_side_followups(question: str, standalone: str) -> None:
    assert rewrite_followup(question, APPLE_PREV, APPLE_NAMES).standalone == standalone


def test_no_company_is_read_into_ordinary_words() -> None:
    # a word the filings print in lower case after "peers" is no company; "$M" is a unit
    out = rewrite_followup("how do its peers compare?", APPLE_PREV, APPLE_NAMES, printed_lower={"compare"})
    assert not out.absent_company
    out = rewrite_followup("revenue in $M for Q2?", APPLE_PREV, APPLE_NAMES)
    assert not out.absent_company and "Apple" in out.standalone


def test_a_thread_of_halves_instants_and_trailing_years() -> None:
    from datetime import date

    from desktop_rag.core.domain.periods import FiscalCalendar

    names = ["Intel", "Intel Corporation", "Amazon", "AMZN"]
    intel = {"intel": FiscalCalendar(2023, 2, date(2023, 7, 1)), "intel corporation": FiscalCalendar(2023, 2, date(2023, 7, 1))}
    prev = ["Intel's D&A for 1H23?"]
    at_qe = rewrite_followup("net cash at quarter end?", prev, names, calendars=intel).standalone
    assert at_qe == "net cash as of June 30, 2023 (Intel)?"
    at_ye = rewrite_followup("how about year-end?", [*prev, at_qe], names, calendars=intel).standalone
    assert "as of December 31, 2022" in at_ye
    amzn = {"amazon": FiscalCalendar(2023, 2, date(2023, 6, 30))}
    ltm = rewrite_followup("what about LTM", ["amazon capex 2Q23"], names, calendars=amzn).standalone
    assert ltm == "amazon capex the twelve months ended June 30, 2023"
    # a fiscal quarter's end is the filer's: not guessed without its calendar
    assert "twelve months" not in rewrite_followup("what about LTM", APPLE_PREV, APPLE_NAMES).standalone
    # a long message's question is its own sentence: the thread's company is carried into it
    long = ("Thanks. Separately, were there any one-offs in the second quarter of 2023, e.g. restructuring "
            "charges? Please answer in full sentences.")
    assert "Intel" in rewrite_followup(long, prev, names, calendars=intel).standalone


def test_a_new_period_replaces_a_compared_pair() -> None:
    prev = ["What was Apple's revenue in Q3 FY2023?"]
    first = rewrite_followup("vs the prior-year period", prev, APPLE_NAMES).standalone
    assert first == "What was Apple's revenue in Q3 FY2023 vs Q3 FY2022?"
    # the next period asked is asked alone, not beside the old comparison's
    assert rewrite_followup("and Q1 FY2023?", [*prev, first], APPLE_NAMES).standalone == \
        "What was Apple's revenue in Q1 FY2023?"
    assert rewrite_followup("sequentially?", [*prev, first], APPLE_NAMES).standalone == \
        "What was Apple's revenue in Q3 FY2023 vs Q2 FY2023?"


def test_false_readings_found_by_the_probe_stay_fixed() -> None:
    # a persona sentence beside a full question: no thread company added to another filer's question
    q = "You are an equity analyst focused on capital returns at Nike. What share buyback program was Nike running in fiscal 2023?"
    assert "Apple" not in rewrite_followup(q, APPLE_PREV, APPLE_NAMES).standalone
    # a capitalised word before a legal form is no company ("covering Adobe Inc.", "did Target Corporation")
    q = "You are an equity analyst covering Adobe Inc. How much revenue came from the Americas in fiscal 2022?"
    assert rewrite_followup(q, APPLE_PREV, APPLE_NAMES).standalone.startswith("You are an equity analyst covering Adobe Inc.")
    assert "Did" not in rewrite_followup("What comparable sales growth did Target Corporation report for fiscal 2022?",
                                         APPLE_PREV, APPLE_NAMES).standalone
    # a cashtag is not carried onto the next company's name
    out = rewrite_followup("Same for Intel", ["$NVDA rev Q2 FY24?"], ["NVDA", "Nvidia", "Intel"])
    assert out.standalone.startswith("Intel")
    # "LTM" of a fiscal year is that year: the words and the measure stay
    walmart = {"walmart": FiscalCalendar(2020, 4, date(2020, 1, 31))}
    out = rewrite_followup("what about LTM", ["Walmart op margin fiscal 2020"], ["Walmart"], calendars=walmart)
    assert "op margin" in out.standalone and "fiscal 2020" in out.standalone and "twelve months" not in out.standalone
    # an instant replaced by a quarter loses its "as of"
    out = rewrite_followup("And in Q1 2023?", ["net cash as of June 30, 2023 (Intel)?"], ["Intel"])
    assert out.standalone == "net cash in Q1 2023 (Intel)?"


def test_a_shorthand_measure_replaces_the_threads_measure() -> None:
    out = rewrite_followup("and SBC?", ["What was Apple's R&D in Q3 2023?"], ["Apple Inc.", "apple"])
    assert out.standalone == "What was SBC for Apple in Q3 2023?"


# -- held-out-7 classes, with examples of our own (issue #12) ------------------------------------------------
COMPANY_OF = {"apple": "Apple Inc.", "aapl": "Apple Inc.", "microsoft": "Microsoft Corporation",
              "msft": "Microsoft Corporation", "nvidia": "NVIDIA Corporation", "nvda": "NVIDIA Corporation",
              "intel": "Intel Corporation", "intc": "Intel Corporation"}


@pytest.mark.parametrize(("question", "previous", "expected"), [
    # a possessive typed without its apostrophe, as the first question and as a follow-up
    ("nvidias gaming revenue in Q1 FY2024?", [], "NVIDIA's gaming revenue in Q1 FY2024?"),
    ("and intels?", RD, "What was Intel's research and development expense in Q3 2023?"),
    # a slip of the keyboard in a library company's name
    ("same for mircosoft", RD, "What was Microsoft's research and development expense in Q3 2023?"),
])
def test_a_library_name_typed_loosely_is_the_company(question: str, previous: list[str], expected: str) -> None:
    out = rewrite_followup(question, previous, NAMES, printed_lower=PRINTED, company_of=COMPANY_OF)
    assert out.standalone == expected and out.absent_company == ""


def test_the_latest_quarter_asked_in_a_follow_up_is_the_company_s_latest_report() -> None:
    msft = FiscalCalendar(2024, 1, date(2023, 9, 30))
    cals = {"microsoft": msft, "msft": msft}
    prev = ["What was Microsoft's revenue in Q2 FY2023?"]
    assert rewrite_followup("and in the newest quarter you have?", prev, NAMES, calendars=cals).standalone == \
        "What was Microsoft's revenue in Q1 FY2024?"
    assert rewrite_followup("ok, opex for the latest quarter in the library", prev, NAMES, calendars=cals).standalone \
        == "What was opex for Q1 FY2024 for Microsoft?"


def test_a_span_to_a_month_is_written_as_the_filings_head_it() -> None:
    out = rewrite_followup("and over the six months to june 2023", ["Amazon net sales 3Q 2023?"], {"amazon", "AMZN"})
    assert out.standalone == "Amazon net sales the six months ended June 30, 2023?"
    # the thread's own closing day when the month's end is days from it (a 52/53-week year)
    prev = ["What was Apple's revenue for the quarter ended July 1, 2023?"]
    assert "the nine months ended July 1, 2023" in rewrite_followup("and the nine months to Jun-23?", prev, NAMES).standalone


MOBILE = {"intel": frozenset({"mobileye"}), "intc": frozenset({"mobileye"})}
INTEL_REV = ["What was Intel's revenue in Q2 2023?"]


@pytest.mark.parametrize(("question", "absent"), [
    ("what did Mobileye itself report for revenue in Q2 2023?", "Mobileye"),
    ("what was Mobileye's own operating income that quarter?", "Mobileye"),
    # the thread's company acting on a name its filings print: still the thread's
    ("how much did they gain selling Mobileye shares that quarter", ""),
])
def test_a_name_the_thread_s_filings_print_is_another_company_only_when_it_owns_the_figure(question: str,
                                                                                          absent: str) -> None:
    out = rewrite_followup(question, INTEL_REV, NAMES, labels=MOBILE, printed_lower=PRINTED)
    assert out.absent_company == absent
    assert ("Intel" in out.standalone) == (not absent), out.standalone


def test_a_shifted_fiscal_quarter_moves_to_the_other_filer_s_label() -> None:
    # Apple's quarter before F3Q23 is its Q2 FY2023 (ended April 1, 2023): Intel's Q1 2023
    apple, intel = FiscalCalendar(2023, 3, date(2023, 7, 1)), FiscalCalendar(2023, 3, date(2023, 9, 30))
    out = rewrite_followup("and Intel's for the prior quarter?", ["What was Apple's R&D in Q3 FY2023?"], NAMES,
                           calendars={"apple": apple, "intel": intel})
    assert out.standalone == "What was Intel's R&D in Q1 2023?"


def test_an_own_figure_s_month_named_quarter_is_a_calendar_quarter() -> None:
    # the thread's company has its own fiscal calendar; the other company's is not known
    msft = FiscalCalendar(2024, 1, date(2023, 9, 30))
    out = rewrite_followup("what were Mobileye's own sales in the June 2023 quarter?",
                           ["What was Microsoft's revenue in Q4 FY2023?"], NAMES, labels=MOBILE,
                           calendars={"microsoft": msft, "msft": msft})
    assert out.standalone == "what were Mobileye's own sales in Q2 2023?"


def test_a_company_described_by_a_product_only_its_filings_print() -> None:
    labels = {"apple": frozenset({"iphone"}), "microsoft": frozenset({"xbox", "windows"}),
              "msft": frozenset({"xbox"}), "intel": frozenset({"windows"})}
    for question in ("what about the maker of Xbox?", "and the Xbox company?"):
        assert rewrite_followup(question, RD, NAMES, labels=labels, company_of=COMPANY_OF).standalone == \
            "What was Microsoft's research and development expense in Q3 2023?"
    # at the message's start the article may be left out ("F-35 maker's total net sales")
    out = rewrite_followup("Xbox maker's revenue in Q3 2023", [], NAMES, labels=labels, company_of=COMPANY_OF)
    assert out.spelled == "Microsoft's revenue in Q3 2023"
    # a product two companies print names neither
    out = rewrite_followup("and the Windows maker?", RD, NAMES, labels=labels, company_of=COMPANY_OF)
    assert "Microsoft" not in out.standalone and "Intel" not in out.standalone


def test_the_other_side_of_a_comparison_is_a_company_the_library_lacks() -> None:
    out = rewrite_followup("how does apple's op income stack up against lenovo's in Q1 2023",
                           ["What was Apple's operating income in Q1 2023?"], NAMES, printed_lower=PRINTED)
    assert out.absent_company == "Lenovo"
    # a library company or a period on the other side is none
    assert rewrite_followup("how does that stack up against intel's", RD, NAMES,
                            printed_lower=PRINTED).absent_company == ""
    assert rewrite_followup("and against q2?", RD, NAMES, printed_lower=PRINTED).absent_company == ""


def test_a_follow_up_that_reads_as_a_question_is_not_poured_into_the_template() -> None:
    assert rewrite_followup("now, for Q2 2023, what was the gross margin?", RD, NAMES).standalone == \
        "now, for Q2 2023, what was the gross margin (Apple)?"
    assert rewrite_followup("now put that against Intel's for the same quarter", RD, NAMES).standalone == \
        "What was Intel's research and development expense in Q3 2023?"
    # a company named before a colon is the owner of the phrase after it
    assert rewrite_followup("ok back to Intel: capex", RD, NAMES).standalone == "What was Intel's capex in Q3 2023?"


def test_a_relative_period_written_as_an_adjective_stays_one() -> None:
    prev = ["How much did Intel lose on its Mobileye stake in Q2 2023?"]
    assert rewrite_followup("and the year-ago Mobileye loss?", prev, NAMES).standalone == \
        "What was the Q2 2022 Mobileye loss for Intel?"


def test_an_abbreviation_defined_for_another_entity_owns_the_measure_after_it() -> None:
    defined = {"LCP": "Lumen Cloud Platform"}
    prev = ["What was Streamco's streaming revenue in 2022?"]
    names = {"streamco", "Streamco"}
    out = rewrite_followup("we host on LCP, right? how big was LCP revenue in 2022", prev, names, defined=defined)
    assert out.standalone == "we host on LCP, right? how big was Lumen Cloud Platform's revenue in 2022"
    assert out.absent_company == "Lumen Cloud Platform"
    # elsewhere the abbreviation stays as typed, and the thread's company is asked
    out = rewrite_followup("how much did it pay LCP in 2022?", prev, names, defined=defined)
    assert "Lumen" not in out.standalone and out.absent_company == ""


# -- held-out-8 classes, with examples of our own (issue #12) ------------------------------------------------
NVDA_CAL = FiscalCalendar(2024, 3, date(2023, 10, 29))  # fiscal year ends in late January
AAPL_CAL = FiscalCalendar(2023, 3, date(2023, 7, 1))  # fiscal year ends in September
CALS = {"nvidia": NVDA_CAL, "nvda": NVDA_CAL, "apple": AAPL_CAL, "aapl": AAPL_CAL}


@pytest.mark.parametrize(("question", "previous", "expected"), [
    # a quarter named by its closing month and a short year, through the filer's fiscal calendar
    ("and the jan '23 quarter?", ["nvidia gaming revenue Q2 FY24"], "nvidia gaming revenue Q4 FY2023"),
    ("now apple services for the dec '22 qtr", ["nvidia gaming revenue Q2 FY24"], "now apple services for Q1 FY2023"),
])
def test_a_month_named_quarter_of_a_non_calendar_filer(question: str, previous: list[str], expected: str) -> None:
    assert rewrite_followup(question, previous, NAMES, calendars=CALS).standalone == expected


def test_a_month_named_quarter_pointed_back_at_is_the_one_asked_of_the_company_named() -> None:
    # Apple's March quarters asked (2023, then 2022), then Intel; "that march quarter" of Apple is
    # the later one, not the March quarter nearest Intel's period
    prev = ["Apple iPad net sales Q2 FY2023", "Apple iPad net sales Q2 FY2022", "Intel revenue Q4 2021"]
    out = rewrite_followup("back to apple, any comment on supply in that march quarter?", prev, NAMES, calendars=CALS)
    assert "Q2 FY2023" in out.standalone


def test_a_year_named_by_its_closing_month() -> None:
    # Apple's fiscal year ends in September: "the yr ended sept 2021" is fiscal 2021
    out = rewrite_followup("capex in the yr ended sept 2021", ["What was Apple's revenue in Q3 FY2023?"], NAMES,
                           calendars=CALS)
    assert out.standalone == "capex in fiscal 2021 (Apple)?"
    # without the filer's calendar, the twelve months ended that month's last day
    out = rewrite_followup("capex for the fiscal year ending june 2021", ["Intel revenue 2022"], NAMES)
    assert "the year ended June 30, 2021" in out.standalone


@pytest.mark.parametrize(("question", "expected"), [
    ("and the yoy change?", "Intel gross margin yoy change Q2 2023"),
    ("q/q change?", "Intel gross margin change Q2 2023 vs Q1 2023"),
    ("and the trend?", "Intel gross margin trend Q2 2023"),
])
def test_a_change_of_the_thread_s_measure_asks_that_measure(question: str, expected: str) -> None:
    assert rewrite_followup(question, ["Intel gross margin Q2 2023"], NAMES).standalone == expected


def test_the_latest_report_of_a_company_named_is_written_beside_the_words() -> None:
    intel = FiscalCalendar(2023, 3, date(2023, 9, 30))
    cals = {"intel": intel, "intc": intel}
    first = rewrite_followup("intel capex in its most recent 10-Q?", [], NAMES, calendars=cals).standalone
    assert first == "intel capex in its most recent 10-Q (Q3 2023)?"
    before = rewrite_followup("and the quarter before", [first], NAMES, calendars=cals).standalone
    assert before == "intel capex in its 10-Q (Q2 2023)?"  # no longer the latest report


def test_the_latter_and_the_former_are_the_two_companies_asked_last() -> None:
    prev = ["What was Intel's capex in Q2 2023?", "What was Apple's capex in Q2 2023?"]
    assert rewrite_followup("the latter as a share of revenue?", prev, NAMES).standalone.startswith(
        "Apple's capex as a share of revenue")
    assert "Intel's gross margin" in rewrite_followup("and the former's gross margin?", prev, NAMES).standalone


def test_a_run_of_periods_ending_with_the_thread_s() -> None:
    prev = ["Apple services revenue Q3 2023", "Apple services revenue Q2 2023"]
    out = rewrite_followup("how did that develop over the last four quarters?", prev, NAMES)
    assert out.standalone == "Apple services revenue Q4 2022, Q1 2023, Q2 2023 and Q3 2023"


@pytest.mark.parametrize(("question", "absent"), [
    ("broadcom networking revenue for Q2 2023?", "Broadcom"),
    ("morgan stanley's CET1 ratio at the same date?", "Morgan Stanley"),
    ("amd's R&D for Q1 2023?", "AMD"),
])
def test_a_company_the_library_lacks_typed_in_lower_case_in_a_full_question(question: str, absent: str) -> None:
    out = rewrite_followup(question, OPINC, NAMES, printed_lower=PRINTED | {"networking", "ratio", "at"})
    assert out.absent_company == absent and "Apple" not in out.standalone, out.standalone


@pytest.mark.parametrize("question", ["the company's R&D for Q1 2023?", "this year's R&D?", "how'd R&D trend in 2022?",
                                      "services revenue for Q2 2023?"])
def test_ordinary_lower_case_words_before_a_measure_stay_words(question: str) -> None:
    out = rewrite_followup(question, OPINC, NAMES, printed_lower=PRINTED | {"company", "year", "trend"})
    assert out.absent_company == "", out.standalone


def test_a_month_of_its_own_takes_no_period_of_the_thread() -> None:
    out = rewrite_followup("who did apple name as CFO in aug 2023?", ["Intel revenue 2022"], NAMES)
    assert "2022" not in out.standalone


def test_lead_words_are_whole_words_and_shorthand_is_spelled_out() -> None:
    prev = ["What was Apple's revenue in 2022?"]
    assert rewrite_followup("domestic sales in 2021", prev, NAMES).standalone.startswith("domestic sales in 2021")
    assert rewrite_followup("format of the segment table in 2021?", prev, NAMES).standalone.startswith("format of")
    assert rewrite_followup("and cloud rev?", prev, NAMES).standalone == "What was cloud revenue for Apple in 2022?"


def test_a_year_written_short_and_the_last_fiscal_year() -> None:
    prev = ["Apple net sales fiscal 2022"]
    assert rewrite_followup("and back in '19", prev, NAMES).standalone == "Apple net sales 2019"
    assert rewrite_followup("vs last fiscal?", prev, NAMES).standalone == "Apple net sales fiscal 2022 vs fiscal 2021"


def test_a_count_or_a_mistyped_measure_is_no_subject_of_the_thread_s_measure() -> None:
    prev = ["What was Apple's revenue in Q3 2023?"]
    for q in ["and paid subscribers?", "and services revnue?"]:
        assert "revenue" not in rewrite_followup(q, prev, NAMES).standalone.replace("revnue", ""), q
    assert "services revenue" in rewrite_followup("and services?", prev, NAMES).standalone


def test_a_company_the_filings_print_with_its_legal_form_typed_in_lower_case() -> None:
    named = {"orbital dynamics": "Orbital Dynamics", "acme rocket works": "Acme Rocket Works"}
    prev = ["What was Apple's backlog in 2022?"]
    out = rewrite_followup("orbital dynamics backlog same year", prev, NAMES, printed_lower={"orbital", "dynamics", "same"},
                           companies_named=named)
    assert out.absent_company == "Orbital Dynamics" and out.standalone.startswith("Orbital Dynamics' backlog")
    out = rewrite_followup("acme rocket works's revenue in 2022?", prev, NAMES, printed_lower={"acme", "rocket", "works"},
                           companies_named=named)
    assert out.absent_company == "Acme Rocket Works"
    # the same words not typed as a company's stay the thread's
    out = rewrite_followup("and market dynamics?", prev, NAMES, printed_lower={"market", "dynamics"}, companies_named=named)
    assert out.absent_company == ""


def test_a_year_end_moved_a_year_stays_a_year_end() -> None:
    out = rewrite_followup("and the year before?", ["What was Apple's debt at year-end 2022?"], NAMES)
    assert "at year-end 2021" in out.standalone, out.standalone
    out = rewrite_followup("and the year before?", ["Apple debt at YE22?"], NAMES)
    assert "YE2021" in out.standalone, out.standalone


def test_a_year_to_date_a_year_earlier_keeps_its_length() -> None:
    out = rewrite_followup("prior-yr equivalent?", ["Apple capex for the six months to June 30, 2023?"], NAMES)
    assert "the six months ended June 30, 2022" in out.standalone, out.standalone


def test_a_heading_symbol_the_library_lacks_is_not_the_thread_s_company() -> None:
    prev = ["What was Apple's R&D in Q3 2023?"]
    out = rewrite_followup("PEP 2022: what did the bottler refranchising cost?", prev, NAMES)
    assert out.absent_company == "PEP" and "Apple" not in out.standalone, out.standalone
    assert out.standalone.startswith("PEP 2022:")
    # a known symbol, a measure or a period as the heading is no company
    assert "Apple" in rewrite_followup("EPS 2023: and the quarter before?", prev, NAMES).standalone


def test_a_shortened_phrase_of_the_thread_keeps_its_measure_and_a_possessive_period_stays_one() -> None:
    prev = ["What Intel Foundry growth rate did Intel report for Q2 2023?"]
    out = rewrite_followup("next quarter's Intel Foundry growth?", prev, NAMES)
    assert "Q3 2023's Intel Foundry growth rate" in out.standalone, out.standalone


def test_the_owner_of_a_capitalised_segment_is_no_thread_company() -> None:
    out = rewrite_followup("can you pull Sony's Game Network revenue for Q3 2023", ["What was Apple's R&D in Q3 2023?"], NAMES)
    assert out.absent_company == "Sony" and "Apple" not in out.standalone, out.standalone


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a message of only a month and its year is the quarter ending that month, as the filer names it
        ("Mar-23?", "What were Microsoft's total revenues in Q3 FY2023?"),
        ("and March '23?", "What were Microsoft's total revenues in Q3 FY2023?"),
        # a whole fiscal year named relative to a quarter
        ("last fiscal year?", "What were Microsoft's total revenues in fiscal 2023?"),
        # the sell side's shorthand: a slash, "9M", "fiscal Q3 '23"
        ("and Q3/FY23?", "What were Microsoft's total revenues in Q3/FY23?"),
        ("9M?", "What were Microsoft's total revenues in the first nine months of fiscal 2024?"),
        ("and fiscal Q3 '23?", "What were Microsoft's total revenues in fiscal Q3 '23?"),
    ],
)
def test_period_shorthand_followups(question: str, expected: str) -> None:
    msft = FiscalCalendar(2024, 1, date(2023, 9, 30))  # fiscal year ends in June
    cals = {"microsoft": msft, "msft": msft}
    prev = ["What were Microsoft's total revenues in Q1 FY2024?"]
    assert rewrite_followup(question, prev, NAMES, calendars=cals).standalone == expected


def test_a_day_written_the_us_way_is_moved_like_one_in_words() -> None:
    out = rewrite_followup("And the quarter before?", ["What was Intel's net revenue for the quarter ended 7/1/23?"], NAMES)
    assert out.standalone == "What was Intel's net revenue for the quarter ended April 1, 2023?"


def test_a_company_the_library_lacks_and_a_period_in_one_followup() -> None:
    # the words the period leaves ("for the") are no part of the name
    out = rewrite_followup("And AMD for the prior-year quarter?", RD, NAMES)
    assert out.standalone == "What was AMD's research and development expense in Q3 2022?"
    assert out.absent_company == "AMD"


def test_a_product_maker_renamed_over_the_years_is_one_company() -> None:
    labels = {"adobe systems incorporated": frozenset({"photoshop"}), "adobe inc": frozenset({"photoshop"}),
              "netflix": frozenset({"streaming"})}
    company_of = {"adobe systems incorporated": "Adobe Systems Incorporated", "adobe": "Adobe Systems Incorporated",
                  "adobe inc": "Adobe Inc.", "netflix": "Netflix, Inc."}
    names = {"netflix", "adobe", "adobe inc", "adobe systems incorporated", "Adobe"}
    out = rewrite_followup("and the Photoshop maker in fiscal 2017?", ["What were Netflix's revenues in 2017?"], names,
                           labels=labels, company_of=company_of)
    assert out.standalone == "What were Adobe's revenues in fiscal 2017?"


def test_a_term_naming_the_company_is_no_concept_of_the_message() -> None:
    # "coke" names the Coca-Cola Company (a term of its filings): "and coke's 2016?" asks the
    # thread's measure of that company in 2016
    names = {"coca-cola", "coca cola", "the coca-cola company", "netflix", "NFLX"}
    out = rewrite_followup("and coke's 2016?", ["What was Netflix's operating income in 2015?"], names,
                           terms={"coke": "The Coca-Cola Company"}, name_terms={"coke"})
    assert out.standalone == "What was Coca-Cola's operating income in 2016?"


def test_a_quarter_of_last_year() -> None:
    prev = ["What was Intel's net revenue in Q3 2023?"]
    assert rewrite_followup("and Q2 last year?", prev, NAMES).standalone == "What was Intel's net revenue in Q2 2022?"
    assert rewrite_followup("and last year's Q1?", prev, NAMES).standalone == "What was Intel's net revenue in Q1 2022?"


def test_a_name_ending_in_s_swapped_keeps_a_whole_possessive() -> None:
    names = {"american water works", "AWK", "corning", "GLW"}
    prev = ["What were American Water Works' operating revenues in 2021?"]
    assert rewrite_followup("and Corning?", prev, names).standalone == "What were Corning's operating revenues in 2021?"


def test_a_company_with_its_legal_form_typed_is_no_concept() -> None:
    names = {"lockheed martin", "Lockheed", "LMT", "corning", "GLW"}
    prev = ["What were Corning's net sales in 2022?"]
    out = rewrite_followup("and lockheed martin corp in 2021?", prev, names)
    assert out.standalone.lower() == "what were lockheed martin's net sales in 2021?"


def test_a_company_the_library_lacks_typed_with_its_legal_form() -> None:
    out = rewrite_followup("and Arm Holdings?", ["What was Intel's net revenue in Q3 2023?"], NAMES)
    assert out.absent_company == "Arm" and "Intel" not in out.standalone


def test_a_followup_with_nothing_of_its_own_repeats_the_threads_question() -> None:
    prev = ["What was Intel's net revenue in Q3 2023?"]
    assert rewrite_followup("and the same for them?", prev, NAMES).standalone == prev[0]


def test_the_chipmaker_is_the_threads_company_not_one_the_library_lacks() -> None:
    out = rewrite_followup("and the chipmaker's Q2?", ["What was Intel's net revenue in Q3 2023?"], NAMES,
                           printed_lower={"revenue", "net"})
    assert out.standalone == "What was Intel's net revenue in Q2 2023?" and not out.absent_company


def test_a_followup_naming_only_a_period_is_no_repeat_of_the_threads_question() -> None:
    # "and YTD?" of a dated thread has no year to date to name here: the words stay the analyst's,
    # the thread's question is not repeated without them
    prev = ["What was Intel's net cash as of June 30, 2023?"]
    out = rewrite_followup("and YTD?", prev, NAMES)
    assert out.standalone != prev[0] and "YTD" in out.standalone


def test_the_year_ago_month_named_quarter() -> None:
    apple = FiscalCalendar(2023, 3, date(2023, 7, 1))  # fiscal year ends in September
    out = rewrite_followup("and the year-ago June quarter?", ["What was Apple's iPhone revenue in Q3 FY2023?"],
                           {"apple", "AAPL"}, calendars={"apple": apple, "aapl": apple})
    assert out.standalone == "What was Apple's iPhone revenue in Q3 FY2022?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("and Mobileye's parent in Q2?", "Intel"),
        ("and the company behind Azure?", "Microsoft"),
        ("and the owner of AWS?", "Amazon"),
        ("and the Converse brand owner?", "NIKE"),  # a kind word after the product
    ],
)
def test_a_company_described_by_its_parenthood_of_a_product(question: str, expected: str) -> None:
    names = {"intel", "INTC", "microsoft", "MSFT", "amazon", "AMZN", "nike", "NKE", "apple", "AAPL"}
    labels = {"intel": frozenset({"mobileye"}), "microsoft": frozenset({"azure"}), "amazon": frozenset({"aws"}),
              "nike": frozenset({"converse"}), "apple": frozenset({"iphone"})}
    company_of = {"intel": "Intel Corporation", "microsoft": "Microsoft Corporation", "amazon": "Amazon.com, Inc.",
                  "nike": "NIKE, Inc.", "apple": "Apple Inc."}
    prev = ["What was Apple's net revenue in Q3 2023?"]
    out = rewrite_followup(question, prev, names, labels=labels, company_of=company_of)
    assert expected in out.standalone and "Apple" not in out.standalone and "net revenue" in out.standalone


def test_a_question_word_typed_in_lower_case_is_no_trading_symbol() -> None:
    # "cost" is a word of the question, not Costco's symbol COST: the thread's company is carried
    names = {"salesforce", "CRM", "costco", "COST"}
    prev = ["What was Salesforce's total revenue in Q1 FY2024?"]
    out = rewrite_followup("how much did restructuring cost them this quarter?", prev, names)
    assert out.company == "Salesforce" and "(Salesforce" in out.standalone
    # typed as the symbol it still is one
    assert rewrite_followup("and COST?", prev, names).company == "COST"


@pytest.mark.parametrize(("question", "prev", "expected"), [
    # a period written as the adjective of a noun stays one, after its article or without one
    ("What's the full-year revenue guide?", "What was Salesforce's total revenue in Q1 FY2024?",
     "What's the fiscal 2024 revenue guide (Salesforce)?"),
    ("Why was full-year EPS down?", "What was Salesforce's diluted EPS in Q4 FY2024?",
     "Why was fiscal 2024 EPS down (Salesforce)?"),
])
def test_a_relative_period_as_an_adjective_stays_one(question: str, prev: str, expected: str) -> None:
    assert rewrite_followup(question, [prev], {"salesforce", "CRM"}).standalone == expected


# -- blind threads on pool filings (eval/threads_pool_t1.jsonl), with examples of our own --------------------
ORCL = {"oracle", "ORCL", "salesforce", "CRM", "pg&e", "PCG", "fedex", "FDX"}


def test_a_period_named_as_the_base_of_a_comparison_keeps_the_thread_s() -> None:
    out = rewrite_followup("why did it drop so much vs FY21?", ["What was Oracle's operating income in fiscal 2022?"], ORCL)
    assert out.standalone == "why did it drop so much in fiscal 2022 vs FY21 (operating income, Oracle)?"
    # the next follow-up is about fiscal 2022 still
    nxt = rewrite_followup("What was that litigation?", ["What was Oracle's operating income in fiscal 2022?",
                                                          out.standalone], ORCL)
    assert nxt.standalone == "What was that litigation (Oracle, fiscal 2022)?"


def test_a_change_since_another_period_sets_it_against_the_thread_s() -> None:
    prev = ["How many employees did Salesforce have at the end of Q1 FY2024?"]
    out = rewrite_followup("how much did that change from the prior quarter end?", prev, ORCL)
    assert out.standalone == "how much did that change in Q1 FY2024 vs Q4 FY2023 (employees, Salesforce)?"


def test_the_quarter_is_the_thread_s_quarter_after_a_question_about_its_year() -> None:
    prev = ["What was Salesforce's total revenue in Q1 FY2024?", "What's the fiscal 2024 revenue guide (Salesforce)?"]
    out = rewrite_followup("Which service offering grew fastest in constant currency in the quarter?", prev, ORCL)
    # the measure that grew is the thread's; the quarter is the one the thread asked
    assert out.standalone == ("Which service offering grew fastest in constant currency in the quarter "
                              "(revenue, Salesforce, Q1 FY2024)?")
    # the quarter and the year both asked: the year the thread is about stays
    both = rewrite_followup("Diluted EPS for the quarter and the year?", prev, ORCL)
    assert "fiscal 2024" in both.standalone


def test_a_question_asking_when_is_about_the_latest_period_the_thread_looked_at() -> None:
    prev = ["What was PG&E's net loss in 2020?", "What was PG&E's net loss in 2019?", "why was 2019 so much worse (PG&E)?"]
    out = rewrite_followup("When did they come out of Chapter 11?", prev, ORCL)
    assert out.standalone == "When did they come out of Chapter 11 (PG&E, 2020)?"


def test_a_company_as_the_subject_of_an_outlook_is_asked_its_own_outlook() -> None:
    prev = ["What was FedEx's revenue in fiscal 2023?", "What was operating income by segment for FedEx in fiscal 2023?"]
    out = rewrite_followup("and what is UPS guiding for 2024?", prev, ORCL)
    # UPS (a company the library lacks) is asked; FedEx and its measure are not carried into it
    assert out.absent_company == "UPS" and "FedEx" not in out.standalone and "operating income" not in out.standalone
    # what a segment or product does is no company's ("is Express guiding": a label the thread's company prints)
    labels = {"fedex": frozenset({"express", "ground", "freight"})}
    seg = rewrite_followup("and what is Express guiding for 2024?", prev, ORCL, labels=labels)
    assert not seg.absent_company and "FedEx" in seg.standalone
    # an outlook of the thread's company carries no measure of an earlier question either
    own = rewrite_followup("what is the company guiding for FY24?", prev, ORCL)
    assert "operating income" not in own.standalone


@pytest.mark.parametrize(("question", "expected"), [
    ("capex as % of revenue for each?", "capex as % of revenue for each (Oracle fiscal 2022, FedEx FY23)?"),
    ("and revenue for both?", "What was revenue for both (Oracle fiscal 2022, FedEx FY23)?"),
])
def test_each_of_the_companies_asked_is_carried_with_its_period(question: str, expected: str) -> None:
    prev = ["How much did Oracle spend on capex in fiscal 2022?", "What was free cash flow for Oracle in fiscal 2022?",
            "Same capex question for FedEx FY23"]
    assert rewrite_followup(question, prev, ORCL).standalone == expected


def test_the_thread_s_measure_is_carried_beside_a_question_ending_in_a_verb() -> None:
    prev = ["What was PG&E's net loss in 2020?", "What capex does the utility expect for 2021 (PG&E)?"]
    out = rewrite_followup("how does that compare with what was actually spent in 2020?", prev, ORCL)
    assert out.standalone == "how does that compare with what was actually spent in 2020 (capex, PG&E)?"


# -- blind threads on pool filings (eval/threads_pool_t2.jsonl), with examples of our own --------------------
ORACLE_EBAY = ["How many employees did Oracle have at the end of fiscal 2018?",
               "How many employees did eBay have at the end of 2020?"]
OE_NAMES = {"oracle", "ORCL", "ebay", "EBAY"}


def test_a_company_asked_earlier_comes_back_with_the_period_asked_of_it() -> None:
    q = "What's Oracle's revenue per employee?"
    # a question of its own about it
    assert rewrite_followup(q, ORACLE_EBAY, OE_NAMES).standalone == "What's Oracle's revenue per employee (fiscal 2018)?"
    # after an aside about it, answered from the conversation
    aside = rewrite_followup("What was its revenue?", ORACLE_EBAY, OE_NAMES,
                             asides=["Roughly how many times bigger is Oracle's workforce?"])
    assert aside.standalone == "What was its revenue (Oracle, fiscal 2018)?"
    # in a chat limited to both companies' filings, the scope read as the company named
    scoped = rewrite_followup("What was total revenue?", ORACLE_EBAY, OE_NAMES, "Oracle Corporation", "")
    assert scoped.standalone == "What was total revenue (Oracle Corporation, fiscal 2018)?"
    # a bare swap asks the thread's question, in the thread's period
    assert rewrite_followup("Same for Oracle", ORACLE_EBAY, OE_NAMES).standalone == \
        "How many employees did Oracle have at the end of 2020?"


def test_a_question_of_a_dozen_words_naming_no_company_is_about_the_thread_s() -> None:
    prev = ["What was PG&E Corporation's net income in 2017?", "What was PG&E Corporation's net income in 2016?"]
    names = {"pg&e", "PG&E Corporation", "PCG"}
    # (the Utility: a subsidiary the thread's filings print, no other company)
    labels = {n.lower(): frozenset({"utility"}) for n in names}
    out = rewrite_followup("What was behind the big drop in the Utility's O&M expense?", prev, names, labels=labels)
    # (a change asked about is explained by the later year's filing)
    assert out.standalone == "What was behind the big drop in the Utility's O&M expense (PG&E Corporation, 2017)?"
    ebay = ["What were eBay's net revenues in Q2 2023?"]
    out = rewrite_followup("GMV was down though, right? So how did revenue still grow?", ebay, {"ebay", "EBAY"})
    assert out.standalone == "GMV was down though, right? So how did revenue still grow (eBay, Q2 2023)?"


EBAY_YOY = ["What were eBay's net revenues in Q2 2023?", "What were eBay's net revenues in Q2 2022?"]


@pytest.mark.parametrize(("question", "expected"), [
    # after a look back a year, a question of its own is about the period the thread is about
    ("Operating margin for the quarter?", "Operating margin for the quarter (eBay, Q2 2023)?"),
    ("Any legal exposure I should know about?", "Any legal exposure I should know about (eBay, Q2 2023)?"),
    # ... and a quarter named without its year is of that year, not of the year looked back to
    ("what about Q1?", "What were eBay's net revenues in Q1 2023?"),
    # ... but "that quarter" and a bare "what about ...?" are about the quarter just asked
    ("operating margin that qtr?", "operating margin in Q2 2022 (eBay)?"),
    ("What about its operating margin?", "What was eBay's operating margin in Q2 2022?"),
])
def test_a_look_back_is_a_comparison_not_a_move_of_the_thread(question: str, expected: str) -> None:
    assert rewrite_followup(question, EBAY_YOY, {"ebay", "EBAY"}).standalone == expected


def test_a_question_about_a_consequence_after_a_look_back_is_about_the_thread_s_year() -> None:
    prev = ["What was Oracle's effective tax rate in fiscal 2018?", "Why so high (Oracle, fiscal 2018)?",
            "What was Oracle's effective tax rate in fiscal 2017?"]
    out = rewrite_followup("What did that do to the bottom line?", prev, {"oracle", "ORCL"})
    assert out.standalone == "What did that do to the bottom line (Oracle, fiscal 2018)?"


@pytest.mark.parametrize(("question", "prev", "expected"), [
    ("was that more or less than in 2016?",
     ["What dividends did PG&E declare per share in 2017?"],
     "was that more or less in 2017 than in 2016 (dividends, PG&E)?"),
    ("And in Q2 alone — what share of the half is that?", ["How much stock did eBay repurchase in the first half of 2023?"],
     "And in Q2 2023 alone — what share of the half is that (repurchase, eBay)?"),
    ("was it still loss-making?", ["What was Amazon's International segment operating income in Q3 2023?"],
     "was it still loss-making (segment operating income, Amazon, Q3 2023)?"),
    # "that" before a thing points at the thing, not at the answer
    ("What was that litigation?", ["What was Oracle's operating income in fiscal 2022?"],
     "What was that litigation (Oracle, fiscal 2022)?"),
])
def test_an_answer_as_the_subject_asks_the_thread_s_measure(question: str, prev: list[str], expected: str) -> None:
    assert rewrite_followup(question, prev, {"pg&e", "ebay", "amazon", "oracle"}).standalone == expected


def test_a_thing_pointed_at_by_its_own_noun_is_not_a_subject_of_the_measure() -> None:
    from desktop_rag.core.conversation.rewrite import pointed_thing
    assert pointed_thing("How big were those fires?") == "fires"
    assert pointed_thing("How did those two compare?") == ""
    assert pointed_thing("And those quarters?") == ""
    assert pointed_thing("What about those margins?") == ""
