"""core/conversation/styles.py: layouts of verified content that add no figure."""

from __future__ import annotations

import re

import pytest

from desktop_rag.core.conversation.styles import STYLES, apply_style, is_style_only, strip_style, style_request
from desktop_rag.core.domain.numbers import numbers_in
from desktop_rag.core.domain.types import Answer, Citation

ROW = "Research and development $ 7,442 $ 6,797 $ 22,608 $ 19,490"
HEAD = "Three Months Ended Nine Months Ended July 1, 2023 June 25, 2022 July 1, 2023 June 25, 2022"


def _answer() -> Answer:
    cites = [Citation("d", "2023 Q3 AAPL.pdf", 4, ROW), Citation("d", "2023 Q3 AAPL.pdf", 4, HEAD)]
    return Answer("q", "Apple spent $7,442 million on R&D in Q3 2023. That was up from $6,797 million a year "
                  "earlier. Most of the growth came from headcount.", cites)


@pytest.mark.parametrize(("text", "style"), [
    ("Make that a table", "table"), ("in bullet points please", "bullets"), ("Briefly, what was R&D?", "concise"),
    ("Explain in more detail", "detailed"), ("What was R&D?", None)])
def test_style_request(text: str, style: str | None) -> None:
    assert style_request(text) == style


def test_style_only_and_strip() -> None:
    assert is_style_only("Make that a table please.")
    assert not is_style_only("What was R&D, as a table?")
    assert strip_style("What was R&D, as a table?") == "What was R&D?"


def _page_free(text: str) -> str:
    return re.sub(r"p\. \d+", "", text)


@pytest.mark.parametrize("style", STYLES)
def test_styles_add_no_figure(style: str) -> None:
    a = _answer()
    out = apply_style(a, style)
    source = set(numbers_in(a.answer + " " + " ".join(c.quote for c in a.citations)))
    assert set(numbers_in(_page_free(out))) <= source
    assert out


def test_layouts() -> None:
    a = _answer()
    assert apply_style(a, "concise") == "Apple spent $7,442 million on R&D in Q3 2023."
    assert apply_style(a, "bullets").startswith("- Apple spent")
    assert "Evidence quoted" in apply_style(a, "detailed")
    table = apply_style(a, "table")
    assert "| Research and development | $ 7,442 | $ 6,797 | $ 22,608 | $ 19,490 |" in table


def test_refusal_is_left_alone() -> None:
    a = Answer("q", "The library has no filing of AMD.", [], not_in_corpus=True)
    assert apply_style(a, "table") == a.answer


@pytest.mark.parametrize("first", ["bullets", "detailed", "table"])
@pytest.mark.parametrize("then", ["bullets", "concise", "table"])
def test_a_restyled_answer_is_laid_out_from_its_statements(first: str, then: str) -> None:
    a = _answer()
    styled = Answer(a.query, apply_style(a, first), a.citations)
    again = apply_style(styled, then)
    assert "- - " not in again and again.count("| Line item |") <= 1
    assert again == apply_style(a, then) or (then == "bullets" and again.startswith("- Apple spent"))


def test_a_message_that_is_only_the_layout_s_name() -> None:
    assert style_request("table pls") == "table" and is_style_only("table pls")
    assert style_request("Table?") == "table"
    assert style_request("table of contents") is None
    assert style_request("what is in the table") is None


@pytest.mark.parametrize(("text", "style"), [
    ("one line", "concise"), ("in one line pls", "concise"), ("one-liner", "concise"),
    ("table it", "table"), ("table the D&A figures pls", "table"), ("pls table them", "table"),
])
def test_shorthand_layout_requests(text: str, style: str) -> None:
    assert style_request(text) == style
    assert is_style_only(text)


def test_table_as_a_noun_is_no_layout_request() -> None:
    assert style_request("table tennis revenue?") is None
    assert not is_style_only("table the capex figures by segment for Q3 2023")


def test_a_plain_table_and_a_layout_for_a_reader() -> None:
    # "a quick table" is still a table; "for my boss" says who reads it, nothing to search
    assert style_request("lay the figures out in a simple table") == "table"
    assert is_style_only("the figures as a neat table for the IC memo")
    assert is_style_only("two bullets for my manager please")
    assert not is_style_only("two bullets on the China risk for my manager")


@pytest.mark.parametrize(("text", "style"), [
    ("grid them", "table"),
    ("make a 3-col table of those", "table"),
    ("put them in a grid", "table"),
    ("string those into a chronological list", "bullets"),
    ("write it up as 3 short lines", "bullets"),
    ("in a sentence, please", "concise"),
    ("give me the punchline in a sentence", "concise"),
])
def test_layout_verbs_and_media(text: str, style: str) -> None:
    assert style_request(text) == style
    assert is_style_only(text)


def test_a_medium_and_an_order_are_layout_words() -> None:
    assert is_style_only("condense it into a two-bullet slack msg, oldest first")
    # the gist asked for is no layout to strip from the question
    assert strip_style("give me the punchline on the backlog in a sentence") == "give me the punchline on the backlog"
    assert not is_style_only("condense the risk factors into two bullets")


@pytest.mark.parametrize(("text", "expected"), [
    # a sentence that only sets the style leaves nothing of itself in the question ("Answer in
    # from now on." was searched and carried into every later follow-up)
    ("Answer in bullets from now on. What did FedEx return to shareholders in FY23?",
     "What did FedEx return to shareholders in FY23?"),
    ("answer in bullets from now on. what drove US comps in Q4?", "what drove US comps in Q4?"),
    ("Total revenue this quarter? answer in one line", "Total revenue this quarter?"),
    ("In bullet points, what were the main risks it mentioned?", "what were the main risks it mentioned?"),
])
def test_a_style_clause_is_stripped_whole(text: str, expected: str) -> None:
    assert strip_style(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # how long the style holds is part of its request: "from here." was searched as a question
    ("Keep it short from here. How much did they spend on buybacks that year?",
     "How much did they spend on buybacks that year?"),
    ("Be brief going forward. What was capex?", "What was capex?"),
    ("Use bullets from here on out. And dividends?", "And dividends?"),
    ("Keep answers short from this point on. capex?", "capex?"),
])
def test_how_long_a_style_holds_is_part_of_its_request(text: str, expected: str) -> None:
    assert strip_style(text) == expected
    assert is_style_only(text.split(". ")[0] + ".")
