"""core/answer/assemble.py: drivers, lists, descriptions and outlooks from the page's structure,
every item an exact quote of its page."""

from __future__ import annotations

from desktop_rag.core.answer.assemble import assemble, list_items
from desktop_rag.core.answer.verify import Passage
from desktop_rag.core.domain.question import read_question
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

PAGE = """NET INCOME AND DILUTED EARNINGS PER COMMON SHARE
In 2022, net income decreased 18% (13% in constant currencies) to $6.2 billion and diluted earnings per common share decreased 17% (12% in constant
currencies) to $8.33. Foreign currency translation had a negative impact of $0.52 on diluted earnings per share.
2022 results included:
\u2022 Net pre-tax charges of $1,281 million, or $1.44 per share, related to the sale of the Company's business in Russia
\u2022 Net pre-tax gain of $271 million, or $0.40 per share, related to the Company's sale of its Dynamic Yield business
\u2022 $537 million, or $0.73 per share, of nonoperating expense related to the settlement of a tax audit in France
2021 results included:
\u2022 Net pre-tax gains of $339 million, or $0.33 per share, primarily related to the sale of McDonald's Japan stock
\u2022 $364 million, or $0.48 per share, of income tax benefit related to the remeasurement of deferred taxes as a result of a change in the U.K. statutory
income tax rate
Outlook
In 2023, the Company expects capital expenditures of approximately $2.2 billion to $2.4 billion.
The Company expects an operating margin percent in the mid-to-high 40% range.
Gross margin increased 120 basis points, primarily due to higher full-price sales and favorable currency rates, partially offset by
higher freight and logistics costs.
"""


def _passages(text: str = PAGE) -> list[Passage]:
    meta = DocumentMeta(company="Example Corp", form_type="10-K", fiscal_year=2022)
    doc = Document("d" * 64, "EXAMPLE_2022_10K.pdf", "x", 1, meta)
    chunk = Chunk(1, doc.doc_id, 0, 12, 0, len(text), text)
    return [Passage(Hit(chunk, doc, 1.0), 0, len(text), text, text)]


def _terms(question: str) -> set[str]:
    return {t for t in tokenize(question) if t not in {"why", "did", "fall", "2022", "what", "list", "main", "items"}}


def _exact(out, text: str = PAGE) -> None:
    for c in out.citations:
        assert text[c.char_start:c.char_start + len(c.quote)] == c.quote  # the page's own text, where it says


def test_a_list_under_a_lead_in_is_kept_whole_item_by_item() -> None:
    start = PAGE.index("2022 results included:")
    items, cut = list_items(PAGE, start + len("2022 results included:"))
    assert [PAGE[a:b][:22] for a, b in items] == ["\u2022 Net pre-tax charges ", "\u2022 Net pre-tax gain of ",
                                                  "\u2022 $537 million, or $0."]
    assert not cut
    wrapped, _ = list_items(PAGE, PAGE.index("2021 results included:") + len("2021 results included:"))
    assert PAGE[slice(*wrapped[-1])].endswith("income tax rate")  # a wrapped item keeps its next line


def test_drivers_are_the_movement_sentence_and_the_items_it_leads() -> None:
    question = "Why did net income fall 18% in 2022? List the main items management called out."
    out = assemble(read_question(question), _passages(), _terms(question) | set(tokenize("net income")))
    assert out is not None and out.shape == "drivers"
    quotes = [c.quote for c in out.citations]
    assert quotes[0].startswith("In 2022, net income decreased 18%")
    assert any("Russia" in q for q in quotes) and any("France" in q for q in quotes)
    assert not any("Japan" in q for q in quotes)  # the other year's list is not this year's causes
    assert "\u2022 Net pre-tax charges of $1,281 million" in out.text
    _exact(out)


def test_causes_after_a_connective_answer_a_what_drove_question() -> None:
    question = "What drove the gross margin expansion in 2022?"
    out = assemble(read_question(question), _passages(), set(tokenize("gross margin")))
    assert out is not None and out.shape == "drivers"
    assert out.citations[0].quote.startswith("Gross margin increased 120 basis points, primarily due to")
    _exact(out)


def test_an_outlook_is_the_expectations_the_filing_states() -> None:
    question = "What does the company expect for capital expenditures and operating margin in 2023?"
    out = assemble(read_question(question), _passages(), set(tokenize("capital expenditures operating margin")))
    assert out is not None and out.shape == "outlook"
    assert all("expects" in c.quote for c in out.citations)
    _exact(out)


def test_no_drivers_answer_without_a_cause_on_the_page() -> None:
    page = "Revenue\nRevenue was $10.0 billion in 2022 and $9.0 billion in 2021.\n"
    assert assemble(read_question("Why did revenue grow in 2022?"), _passages(page), set(tokenize("revenue"))) is None


def test_figure_questions_get_no_prose_assembly() -> None:
    assert assemble(read_question("What was net income in 2022?"), _passages(), set(tokenize("net income"))) is None
