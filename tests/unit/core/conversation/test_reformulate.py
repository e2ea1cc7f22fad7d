"""core/conversation/reformulate.py: retries keep the company and change one thing."""

from __future__ import annotations

from desktop_rag.core.conversation.reformulate import MAX_RETRIES, period_variant, reformulations, synonym_variant


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
