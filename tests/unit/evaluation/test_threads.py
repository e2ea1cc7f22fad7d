"""evaluation/threads.py: scoring of follow-up resolution, routing and memory citations."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from desktop_rag.core.domain.periods import FiscalCalendar
from desktop_rag.core.domain.types import Answer, Citation, Document, DocumentMeta
from desktop_rag.evaluation.threads import (
    StubEngine,
    company_resolved,
    concept_kept,
    period_resolved,
    report,
    run_threads,
    thread_concept,
)

APPLE = Document("2023 Q3 AAPL.pdf", "2023 Q3 AAPL.pdf", "/x", 30,
                 DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))
INTEL = Document("2023 Q3 INTC.pdf", "2023 Q3 INTC.pdf", "/y", 60,
                 DocumentMeta(company="Intel Corporation", ticker="INTC", form_type="10-Q", fiscal_year=2023,
                              fiscal_quarter=3))
DOCS = [APPLE, INTEL]


def test_company_and_period_checks() -> None:
    assert company_resolved("What was Apple's revenue in Q2 2023?", "Apple Inc.", DOCS)
    assert not company_resolved("What was Apple's and Intel's revenue?", "Apple Inc.", DOCS)  # another company too
    assert not company_resolved("What was revenue in Q2 2023?", "Apple Inc.", DOCS)
    assert company_resolved("What was AMD's revenue?", "AMD", DOCS)  # a company the library lacks, as written
    assert not company_resolved("What were AMD's total revenues in Q1 2023 (Intel)?", "Intel Corporation", DOCS)
    assert period_resolved("revenue in Q2 2023", "Q2 2023")
    assert not period_resolved("revenue in Q3 2023", "Q2 2023")
    assert period_resolved("for the quarter ended July 1, 2023", "the quarter ended June 30, 2023")
    assert period_resolved("anything", None)


def test_run_threads_scores_each_turn(tmp_path: Path) -> None:
    thread = {"id": "th-x", "set": "s", "scope": [], "turns": [
        {"q": "What was Apple's revenue in Q3 2023?", "company": "Apple Inc.", "period": "Q3 2023", "route": "retrieve",
         "doc": "2023 Q3 AAPL.pdf"},
        {"q": "And the quarter before?", "company": "Apple Inc.", "period": "Q2 2023", "route": "retrieve", "doc": None},
        {"q": "Same for Intel", "company": "Intel Corporation", "period": "Q2 2023", "route": "retrieve",
         "doc": "2023 Q3 INTC.pdf"},
        {"q": "What did you say about Apple?", "company": None, "period": None, "route": "conversation", "doc": None},
        {"q": "Which one was higher?", "company": None, "period": None, "route": "retrieve", "doc": None}]}
    stub = StubEngine({d.file_name: d for d in DOCS})
    out = run_threads([thread], {"s": DOCS}, lambda s: stub, tmp_path, log=lambda m: None)
    s = out["summary"]["all"]
    assert s["followups_resolved"] == {"n": 2, "ok": 2, "share": 1.0}
    # the last turn is labelled wrongly on purpose: the router's "conversation" must count as a miss
    assert s["router"] == {"n": 4, "ok": 3, "share": 0.75}
    assert s["memory_cites_stored"]["ok"] == s["memory_cites_stored"]["n"] == 2


def test_iso_date_labels_and_groups_are_scored_apart(tmp_path: Path) -> None:
    assert period_resolved("cash as of July 1, 2023?", "2023-07-01")
    assert not period_resolved("cash as of April 1, 2023?", "2023-07-01")
    tuned = {"id": "th-a", "set": "s", "scope": [], "turns": [
        {"q": "What was Apple's revenue in Q3 2023?", "company": "Apple Inc.", "period": "Q3 2023", "route": "retrieve",
         "doc": "2023 Q3 AAPL.pdf"},
        {"q": "And the quarter before?", "company": "Apple Inc.", "period": "Q2 2023", "route": "retrieve", "doc": None}]}
    held = {"id": "th-b", "set": "s", "group": "held-out", "scope": [], "turns": [
        {"q": "What was Intel's revenue in Q3 2023?", "company": "Intel Corporation", "period": "Q3 2023",
         "route": "retrieve", "doc": "2023 Q3 INTC.pdf"},
        {"q": "And the quarter before?", "company": "Intel Corporation", "period": "Q1 2023", "route": "retrieve",
         "doc": None}]}  # labelled wrongly on purpose: a held-out miss must not show in the tuned figure
    stub = StubEngine({d.file_name: d for d in DOCS})
    s = run_threads([tuned, held], {"s": DOCS}, lambda s: stub, tmp_path, log=lambda m: None)["summary"]
    assert s["all/tuned"]["followups_resolved"]["share"] == 1.0
    assert s["all/held-out"]["followups_resolved"] == {"n": 1, "ok": 0, "share": 0.0}


def test_the_concept_a_follow_up_must_keep() -> None:
    earlier = ["What was Intel's client computing segment operating income in Q2 2023?", "and the year before?"]
    assert thread_concept("what about the data center group?", earlier) == "segment operating income"
    assert thread_concept("and its gross margin?", earlier) == "gross margin"  # its own measure
    assert thread_concept("what did the filing say about export risks?", earlier) == ""  # asks something new
    assert thread_concept("and a year later?", []) == ""
    # a subject of its own: the date of an event, an outlook, what a thing an answer mentioned was
    assert thread_concept("When did they come out of Chapter 11?", earlier) == ""
    assert thread_concept("What does management expect for FY24?", earlier) == ""
    assert thread_concept("and what is UPS guiding for 2024?", earlier) == ""
    assert thread_concept("What was that litigation?", earlier) == ""
    # ... but an outlook of an answer given, or "that figure", is about the thread's measure
    assert thread_concept("what % of that did they expect to lose next year?", earlier) == "segment operating income"
    assert thread_concept("what was that figure?", earlier) == "segment operating income"
    assert thread_concept("and for that quarter?", earlier) == "segment operating income"
    assert concept_kept("What was DCAI segment operating income in Q2 2023 (Intel)?", "segment operating income")
    assert concept_kept("What were Apple's total net sales in Q1?", "net sales")  # same evidence terms
    assert not concept_kept("What was back to intc, what about Q1 2023 for Intel?", "segment operating income")


class _RetriedEngine:
    """Every answer is the second attempt's, verified, citing the document it is told to."""

    def __init__(self) -> None:
        self.cite: Document | None = None

    def ask(self, question: str, standalone: str | None = None, doc_scope: object = None) -> Answer:
        doc = self.cite or APPLE
        ans = Answer(question, "Revenue was $81.8 billion.", [Citation(doc.doc_id, doc.file_name, 3, "81,797")],
                     standalone_query=standalone or question,
                     notes=["attempt 1: q — not verified", "attempt 2 (synonym): q2 — verified"])
        ans.timings_ms = {"total": 1.0, "attempt": 2.0}
        return ans


def test_retries_count_conversions_and_regressions_apart(tmp_path: Path) -> None:
    thread = {"id": "th-r", "set": "s", "scope": [], "turns": [
        {"q": "What was Apple's revenue in Q3 2023?", "company": "Apple Inc.", "period": "Q3 2023", "route": "retrieve",
         "doc": "2023 Q3 AAPL.pdf"},
        # no filing answers it: the retry's verified answer turned a right refusal into an answer
        {"q": "What was Apple's revenue in Q3 2019?", "company": "Apple Inc.", "period": "Q3 2019", "route": "retrieve",
         "doc": None},
        {"q": "What was Intel's revenue in Q3 2023?", "company": "Intel Corporation", "period": "Q3 2023",
         "route": "retrieve", "doc": "2023 Q3 INTC.pdf"}]}
    engine = _RetriedEngine()  # cites Apple's filing for every turn: the Intel turn's retry cites another company
    out = run_threads([thread], {"s": DOCS}, lambda s: engine, tmp_path, answers=True, log=lambda m: None)
    a = out["summary"]["all"]["answers"]
    assert a["first_attempt_failed"] == 2  # the answerable turns only
    assert a["converted_by_retry"] == 1 and a["conversion"] == 0.5  # the Intel retry cites Apple: no conversion
    assert a["converted_citing_expected_doc"] == 1
    assert a["must_refuse_first_failed"] == 1 and a["retry_regressions"] == 1
    assert a["wrong_company_citations"] == 1
    assert "regressions) 1" in report({**out, "threads": 1, "turns": 3, "mode": "answers", "seconds": 0.0})


def test_a_calendar_quarter_is_the_quarter_ended_on_its_last_day() -> None:
    assert period_resolved("What was MSFT intelligent cloud revenue in Q3 2023?", "the quarter ended September 30, 2023")
    assert not period_resolved("What was MSFT intelligent cloud revenue in Q3 FY2023?",
                               "the quarter ended September 30, 2023")  # fiscal: another quarter
    assert not period_resolved("revenue in Q2 2023?", "the quarter ended September 30, 2023")


def test_a_fiscal_quarter_and_the_date_it_ends_are_one_period_through_the_company_s_calendar() -> None:
    apple = FiscalCalendar(2023, 2, date(2023, 4, 1))
    assert period_resolved("Apple gross margin in Q1 FY2023?", "the quarter ended December 31, 2022", apple)
    assert not period_resolved("Apple gross margin in Q1 FY2023?", "the quarter ended December 31, 2022")
    assert period_resolved("Apple gross margin in Q2 2023?", "the quarter ended July 1, 2023")  # its calendar quarter
    assert period_resolved("Apple gross margin in Q1 2023?", "Q2 FY2023", apple)
    assert not period_resolved("Apple gross margin in Q2 2023?", "Q2 FY2023", apple)


def test_a_company_the_library_lacks_is_named_as_a_question_names_it() -> None:
    # the label may give the registered name: the names derived from it count, as for a library company
    assert company_resolved("What was Qualcomm's revenue in 2022?", "QUALCOMM Incorporated", DOCS)
    assert company_resolved("what did Lululemon itself report for revenue?", "Lululemon Athletica Inc.", DOCS)
    assert not company_resolved("What was revenue in 2022 (Apple)?", "Lululemon Athletica Inc.", DOCS)
    # a cover's capitals are no other company ("APPLE INC." labelled "Apple Inc.")
    assert company_resolved("What was Apple's revenue in Q2 2023?", "APPLE INC.", DOCS)
    # the expected company's own segment in the subject is no stray company
    assert not company_resolved("how much did Altera earn in Q2 2023 (Intel)?", "Intel Corporation", DOCS)
    assert company_resolved("how much did Altera earn in Q2 2023 (Intel)?", "Intel Corporation", DOCS, {"altera"})


def test_a_company_the_analyst_typed_is_no_stray() -> None:
    q = "How does Apple's Q3 2023 revenue compare with Intel's?"
    assert company_resolved(q, "Intel Corporation", DOCS, typed=q)
    assert not company_resolved(q, "Intel Corporation", DOCS)  # not typed: another company added
    # an abbreviation the analyst typed ("DC" for data center) is no company the rewrite added
    assert company_resolved("what does DC add up to (Intel)?", "Intel Corporation", DOCS, typed="what does DC add up to?")
    assert not company_resolved("what does DC add up to (Intel)?", "Intel Corporation", DOCS)


def test_an_expected_year_to_date_is_no_quarter() -> None:
    assert not period_resolved("Nvidia revenue in Q3 FY2024", "the nine months ended October 29, 2023",
                               FiscalCalendar(2024, 3, date(2023, 10, 29)))
    assert period_resolved("Nvidia revenue for the first nine months of fiscal 2024",
                           "the nine months ended October 29, 2023", FiscalCalendar(2024, 3, date(2023, 10, 29)))
    assert not period_resolved("capex for the nine months ended June 30, 2023", "the six months ended June 30, 2023")
    # an expected quarter is met by its year to date: the same report is searched
    assert period_resolved("risks in the first half of fiscal 2024", "Q2 FY2024")


def test_a_balance_at_a_year_close_and_that_year_are_one_period() -> None:
    assert period_resolved("Lockheed backlog at YE22?", "2022-12-31")
    assert period_resolved("Lockheed backlog as of December 31, 2022?", "2022")
    costco = FiscalCalendar(2021, 4, date(2021, 8, 29))
    assert period_resolved("Costco warehouses at YE21", "2021-08-29", costco)
    assert not period_resolved("Costco warehouses at YE21", "2021-08-29")  # December 31 without its calendar
    assert not period_resolved("revenue for the quarter ended December 31, 2022", "2022")  # a quarter is no year
