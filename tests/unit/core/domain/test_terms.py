"""domain/terms.py: slips of the keyboard corrected towards the library's words."""

from __future__ import annotations

from desktop_rag.core.domain.companies import near_spelling
from desktop_rag.core.domain.terms import correct_slips

VOCAB = frozenset({"revenue", "dividends", "program", "inventory", "warehouses", "operating", "margin"})


def test_a_slip_becomes_the_word_the_filings_print() -> None:
    assert correct_slips("what were total net slaes?", VOCAB, near_spelling) == "what were total net sales?"  # alias word
    assert correct_slips("the invnetory at year end", VOCAB, near_spelling) == "the inventory at year end"
    assert correct_slips("operting margin", VOCAB, near_spelling) == "operating margin"


def test_inflections_names_and_short_words_are_left_as_typed() -> None:
    for text in ("how many capital return programs", "Revnue of Salesforce", "the rate", "zorblax headsets"):
        assert correct_slips(text, VOCAB, near_spelling) == text


def test_a_word_of_the_language_is_no_slip_even_when_the_library_never_prints_it() -> None:
    vocab = frozenset({"shipped", "margin", "operating"})
    # one edit from "shipped", and a word of its own: left as typed when the language has it
    assert correct_slips("operating margin slipped in 2018", vocab, near_spelling) == "operating margin shipped in 2018"
    words = {"slipped", "operating", "margin"}
    assert correct_slips("operating margin slipped in 2018", vocab, near_spelling,
                         words.__contains__) == "operating margin slipped in 2018"
    assert correct_slips("operating margin shiped", vocab, near_spelling, words.__contains__) == "operating margin shipped"


def test_a_figure_written_short_leaves_no_piece_among_the_evidence_terms() -> None:
    from desktop_rag.core.domain.terms import content_terms

    terms = content_terms("Acme earned $2.3B of operating income in 2017 but net income fell to $9.3bn. Why?")
    assert not {"3b", "3bn", "2", "9"} & set(terms)
    assert "opincome" in terms and "netincome" in terms


def test_inflected_forms_share_one_key() -> None:
    from desktop_rag.core.domain.terms import inflection_key
    assert inflection_key("added") == inflection_key("adding") == inflection_key("add")
    assert inflection_key("appointed") == inflection_key("appointment")
    assert inflection_key("called") == inflection_key("calling")
    assert inflection_key("revenue") != inflection_key("reserve")
