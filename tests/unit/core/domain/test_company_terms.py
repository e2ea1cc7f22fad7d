"""core/domain/company_terms.py: terms that identify a company, derived from the library's text."""

from __future__ import annotations

from desktop_rag.core.domain.company_terms import (
    companies_named_by_terms,
    identifying_terms,
    library_terms,
    prominent_labels,
    short_name,
)

CLOUDCO = ["Segment Information\nCloud Platform\nCloud Platform 20,538 23,059\nRetail Stores 5,403 6,976\n"
           "The cloud platform segment grew on demand from customers.",
           "Cloud Platform\nNet sales by segment were as follows."]
CHIPCO = ["Segments\nGraphics Division 4,280 2,043\nGraphics Division\nRetail Stores 1,000 900\n"
          "We sell to customers through distributors."]


def test_prominent_labels_are_headings_and_row_labels() -> None:
    labels = prominent_labels(CLOUDCO[0])
    assert "Cloud Platform" in labels and "Retail Stores" in labels
    assert not any(lab.startswith("The cloud platform segment") for lab in labels)


def test_terms_printed_by_one_company_only() -> None:
    terms = identifying_terms({"CloudCo Inc.": CLOUDCO, "ChipCo Corporation": CHIPCO})
    assert terms["cloud platform"] == "CloudCo Inc."
    assert terms["graphics division"] == "ChipCo Corporation"
    assert "retail stores" not in terms  # both print it
    assert "segments" not in terms and "net sales" not in terms  # generic words identify nobody
    assert identifying_terms({"CloudCo Inc.": CLOUDCO}) == {}  # one company: nothing to tell apart


def test_a_question_names_a_company_by_a_term_written_as_a_name() -> None:
    terms = identifying_terms({"CloudCo Inc.": CLOUDCO, "ChipCo Corporation": CHIPCO})
    assert companies_named_by_terms("what was Cloud Platform operating income?", terms) == {"CloudCo Inc."}
    assert companies_named_by_terms("what was cloud platform operating income?", terms) == set()
    assert short_name("The Coca-Cola Company") == "Coca-Cola"
    assert short_name("JPMorgan Chase & Co.") == "JPMorgan Chase"
    assert short_name("Amazon.com, Inc.") == "Amazon.com"


def test_labels_per_company_even_alone() -> None:
    alone = library_terms({"CloudCo Inc.": CLOUDCO})
    assert "cloud platform" in alone.labels["CloudCo Inc."] and alone.identifying == {}
