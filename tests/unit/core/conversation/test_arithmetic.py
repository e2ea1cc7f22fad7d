"""core/conversation/arithmetic.py: arithmetic on the answers a thread gave."""

from __future__ import annotations

import pytest

from desktop_rag.core.conversation.arithmetic import (
    Operand,
    compute,
    dated_pair,
    figures_in,
    operation,
    principal,
    range_in,
)


def _ops(*pairs: tuple[str, str]) -> list[Operand]:
    out = []
    for q, s in pairs:
        p = principal(s)
        assert p is not None
        out.append(Operand(q, p))
    return out


FY21 = ("What were eBay's net revenues for fiscal 2021?", "$10,420 million of net revenues in fiscal 2021.")
FY20 = ("What were eBay's net revenues for fiscal 2020?", "$8,894 million of net revenues in fiscal 2020.")


@pytest.mark.parametrize(("question", "op"), [
    ("midpoint of that range?", "midpoint"), ("what's the growth rate between the two?", "growth"),
    ("so total cash returned?", "sum"), ("which of those was bigger?", "larger"),
    ("what's the difference between the two?", "difference"), ("summarise the thread", ""),
])
def test_operation(question: str, op: str) -> None:
    assert operation(question) == op


def test_figures_are_amounts_not_years() -> None:
    found = figures_in("Net revenues were $10,420 million in 2021, up 17% from $8.9 billion (Q4: 3 bullets).")
    assert [(f.text, f.kind) for f in found] == [("$10,420 million", "$"), ("17%", "%"), ("$8.9 billion", "$")]
    assert found[2].value == 8.9e9
    pair = range_in("Revenue guidance of $34.5-$34.8 billion for the year.")
    assert pair is not None and pair[0].value == 34.5e9


def test_growth_runs_from_the_earlier_period_whatever_the_order_asked() -> None:
    # the later period asked first: the growth is still from fiscal 2020 to fiscal 2021
    out = compute("what's the growth rate between the two?", _ops(FY21, FY20))
    assert out.startswith("Change: +$1,526 million (+17.2%)")


def test_a_total_is_written_in_the_finer_scale() -> None:
    out = compute("so total cash returned?", _ops(("buybacks 2021?", "eBay repurchased $6.5 billion of stock."),
                                                   ("dividends 2021?", "eBay paid $467 million of dividends.")))
    assert out.startswith("Total: $6,967 million = $6.5 billion + $467 million")


def test_percentages_differ_in_points() -> None:
    out = compute("what's the difference between the two?", _ops(("take rate 2021?", "Take rate was 11.19%."),
                                                                  ("take rate 2020?", "Take rate was 9.41%.")))
    assert out.startswith("Difference: 1.78 percentage points")


def test_nothing_is_computed_when_the_operands_are_not_clear() -> None:
    # an amount and a percentage
    assert compute("what's the difference between the two?", _ops(FY21, ("take rate?", "Take rate was 11.19%."))) == ""
    # a growth rate across a change of sign
    loss = _ops(("net income 2021?", "Net income was $(120) million."), ("net income 2022?", "Net income was $300 million."))
    assert loss[0].figure.value == -120e6 and loss[0].figure.kind == "$"
    assert compute("growth rate between the two?", loss) == ""
    assert compute("difference between the two?", loss).startswith("Difference: +$420 million")
    # a ranking on a measure the answers' questions did not ask ("capital intensive" is no capex amount)
    capex = _ops(("How much did Oracle spend on capex in fiscal 2022?", "Capex was $4,511 million."),
                 ("Same capex question for FedEx FY23", "Capex was $6,174 million."))
    assert compute("so which is more capital intensive?", capex) == ""
    assert compute("which of those was bigger?", capex).startswith("Larger: $6,174 million")


def test_a_change_asked_of_one_answer_runs_between_the_two_figures_it_dates() -> None:
    # "By what percentage did it fall?" after an answer giving both years
    pair = dated_pair("Net income was $3,825 million in fiscal 2018, down from $9,335 million in fiscal 2017.")
    assert [(p, f.text) for p, f in pair] == [("fiscal 2018", "$3,825 million"), ("fiscal 2017", "$9,335 million")]
    out = compute("By what percentage did it fall?", [Operand(p, f) for p, f in pair])
    assert out.startswith("Change: -$5,510 million (-59.0%)")
    # figures without their periods: which is the later one is not clear
    assert dated_pair("Net income was $3,825 million, down from $9,335 million.") == []


def test_a_count_of_people_is_a_figure_and_a_ratio_of_two_counts_is_computed() -> None:
    assert [f.text for f in figures_in("As of May 31, 2018, we employed approximately 137,000 full-time employees")] == \
        ["137,000"]
    ops = _ops(("How many employees did Oracle have at the end of fiscal 2018?", "About 137,000 full-time employees."),
               ("and eBay at the end of 2020?", "Approximately 12,700 people."))
    assert operation("Roughly how many times bigger is Oracle's workforce?") == "ratio"
    assert compute("Roughly how many times bigger is Oracle's workforce?", ops).startswith("Ratio: 137,000 / 12,700 = 10.79")
