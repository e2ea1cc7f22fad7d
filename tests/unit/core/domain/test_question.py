"""The concept a question asks for (core/query.asked_concept): the words the filings in scope
must use for the question to be answerable."""

from __future__ import annotations

import pytest

from desktop_rag.core.domain.question import asked_concept, concept_gloss, counted_noun, parse_question


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
