"""core/answer/reformulate.py: retries keep the company and change one thing."""

from __future__ import annotations

from desktop_rag.core.answer.reformulate import (
    MAX_RETRIES,
    period_variant,
    reformulations,
    spelled_out,
    synonym_variant,
)


def test_reformulations_keep_the_company() -> None:
    q = "What was Apple's research and development expense in Q3 2023?"
    out = reformulations(q, scoped=True)
    assert 1 <= len(out) <= MAX_RETRIES
    assert all("Apple" in r.query for r in out)
    assert {r.how for r in out} >= {"statement hint", "synonym"}
    assert "consolidated statements of operations" in out[0].query


def test_variants() -> None:
    assert synonym_variant("Microsoft capex in fiscal 2023") == "Microsoft purchases of property and equipment in fiscal 2023"
    assert period_variant("Apple revenue in Q3 2023") == "Apple revenue in the third quarter of 2023"
    assert period_variant("Apple revenue") == ""
    assert reformulations("Tell me about the weather", scoped=False) == []


def test_shorthand_is_spelled_out_first() -> None:
    # the gate reads the words as typed: no filing prints "rev" or "gm"
    assert spelled_out("AMZN aws rev Q1 2023?") == "AMZN aws revenue Q1 2023?"
    assert spelled_out("What was AMD's 1Q23 gm?") == "What was AMD's 1Q23 gross margin?"
    assert spelled_out("amazon op income q1 2023") == "amazon operating income q1 2023"
    assert spelled_out("rev by segment pls") == "revenue by segment"
    assert spelled_out("What was Apple's revenue in Q3 2023?") == ""  # nothing to spell out
    assert spelled_out("the op-ed said") == ""  # "op" only before what is operating
    first = reformulations("intc gm 1Q23", scoped=False)[0]
    assert first.how == "shorthand spelled out" and first.query == "intc gross margin 1Q23"
    assert len(reformulations("intc gm 1Q23", False)) == MAX_RETRIES
