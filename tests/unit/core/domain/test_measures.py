"""core/domain/measures.py: the measure a question names, as written."""

from __future__ import annotations

import pytest

from desktop_rag.core.domain.measures import measure_phrase


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("What was Intel's client computing segment operating income in Q2 2023?", "segment operating income"),
        ("how much did they spend on R&D last year", "R&D"),
        ("research and development expenses in 2022", "research and development expenses"),
        ("allowance: provision for credit losses that qtr?", "provision for credit losses"),
        ("cost of sales for fiscal 2021", "cost of sales"),
        ("free cash flow as of Q2", "free cash flow"),
        ("how did the segment do, op income-wise", "op income-wise"),
        ("and services?", ""),
        ("how about north america", ""),
    ],
)
def test_measure_phrase(text: str, measure: str) -> None:
    assert measure_phrase(text) == measure


def test_analysts_idioms_for_a_measure() -> None:
    assert measure_phrase("pepsico top line 2017?") == "top line"
    assert measure_phrase("what hit the bottom-line?") == "bottom-line"
    assert measure_phrase("revenue, the top line") == "revenue"  # the first one named
    assert measure_phrase("the product line") == ""


def test_ratio_and_line_shorthands_are_measures() -> None:
    # "DSO?" after an inventory question asks a new measure: the thread's is not carried with it
    for q in ("DSO?", "and SBC?", "what about D&A", "NIM for the quarter", "capex intensity"):
        assert measure_phrase(q), q


def test_count_labels_are_counts_of_things_not_money() -> None:
    from desktop_rag.core.domain.measures import is_count_label

    for label in ("Total employees", "Number of warehouses", "Paid memberships at end of period", "Stores open"):
        assert is_count_label(label), label
    for label in ("Net sales", "Average revenue per paying membership", "Membership fees", "Cost of sales",
                  "Dividends per share"):
        assert not is_count_label(label), label


def test_a_qualifier_the_question_does_not_use_makes_another_measure() -> None:
    from desktop_rag.core.domain.measures import measure_modifiers
    from desktop_rag.core.domain.terms import tokenize

    q = set(tokenize("What revenue did the Cloud segment report in 2016?"))
    assert measure_modifiers("Unearned revenue by segment was as follows:", {"revenue"}, q) == {"unearned"}
    assert measure_modifiers("Adjusted net revenue", {"revenue"}, q) == {"adjusted"}
    # the measure itself, however qualified by the words that keep it the same
    assert measure_modifiers("Total net revenue", {"revenue"}, q) == set()
    assert measure_modifiers("Net sales by category:", {"revenue"}, q) == set()
    # one plain mention names the measure; another measure beside it is no qualifier
    assert measure_modifiers("Deferred revenue and total revenue", {"revenue"}, q) == set()
    assert measure_modifiers("Segment revenue and operating income", {"revenue"}, q) == set()
    # the question's own qualifier
    assert measure_modifiers("Unearned revenue", {"revenue"}, set(tokenize("unearned revenue of Cloud"))) == set()


def test_how_much_a_part_sold_asks_its_sales() -> None:
    from desktop_rag.core.domain.measures import asked_measures

    assert asked_measures("How much did the Missiles and Fire Control segment sell in FY2021?") == {"revenue"}
    assert asked_measures("What EBIT did the North America segment report?") == {"ebit"}
    assert asked_measures("How many units were sold in 2021?") == set()


def test_a_measure_asked_by_its_verb() -> None:
    # "How much stock did they buy back?" asks a measure of its own: the thread's is not carried
    assert measure_phrase("How much stock did they buy back in 2020?") == "buy back"
    assert measure_phrase("How much stock did eBay repurchase in the first half of 2023?") == "repurchase"
    assert measure_phrase("How much had it declared per share in 2017?") == "declared per share"
    # a bank's repurchase agreements are a borrowing, not a buyback
    assert measure_phrase("repurchase agreements at year end") == ""


def test_a_derived_measure_moves_through_its_lines_not_through_itself() -> None:
    from desktop_rag.core.domain.measures import asked_measures, moves_through

    assert {"taxe", "provision"} <= moves_through(asked_measures("Why did the effective tax rate fall?"))
    through_net = moves_through(asked_measures("Why did net income fall while operating income rose?"))
    assert "taxe" in through_net and "opincome" not in through_net  # asked itself: not a line it moves through
    assert moves_through(asked_measures("Why did revenue grow?")) == set()  # revenue moves through its parts


def test_a_text_names_the_asked_measure_or_says_nothing_of_it() -> None:
    from desktop_rag.core.domain.measures import asked_measures, names_asked_measure

    assets = asked_measures("What were total assets of the International segment at December 31, 2022?")
    assert names_asked_measure("Net sales: International 6,145 5,691 5,341", assets) is False
    assert names_asked_measure("Total assets: North America 80,000 International 9,000", assets) is True
    # printed under its filers' words: total debt as notes payable and borrowings
    assert names_asked_measure("Notes payable and other borrowings, current 3,750",
                               asked_measures("What was Acme's total debt at year-end?")) is True
    # a segment's sales printed as net sales
    assert names_asked_measure("Net sales in the Life Sciences segment increased by $236 million",
                               asked_measures("How did its Life Sciences segment sales change in 2021?")) is True
    # income may be printed as earnings: no verdict
    assert names_asked_measure("Net earnings 1,200", asked_measures("What was net income in 2022?")) is None
