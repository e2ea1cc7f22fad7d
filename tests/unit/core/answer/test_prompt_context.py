"""core/answer/prompt_context.py: the model's context built from the evidence quotes and the
sentences/rows around them: exact page text, the word budget, evidence first."""

from __future__ import annotations

from desktop_rag.core.answer.prompt_context import GAP, evidence_context
from desktop_rag.core.answer.verify import locate_quote, passages_for
from desktop_rag.core.domain.types import Chunk, Citation, Document, DocumentMeta, Hit
from desktop_rag.core.ingest.pdf import fold_text, match_form
from tests.conftest import PageLibrary

PAGE = (
    "Item 2. Management's Discussion and Analysis\n"
    "Net sales decreased during the third quarter of 2023 compared to the same quarter in 2022. "
    "The decrease was driven primarily by lower net sales of Mac and iPad. "
    "Services net sales increased due to higher advertising, cloud and AppleCare revenue. "
    "Gross margin percentage was 44.5 % for the quarter. "
    "Operating expenses grew due to higher headcount-related expenses.\n"
    "Three Months Ended\n"
    "July 1, 2023 June 25, 2022\n"
    "iPhone 39,669 40,665\n"
    "Mac 6,840 7,382\n"
    "iPad 5,791 7,224\n"
    "Total net sales 81,797 82,959\n"
    "The Company's fiscal year is the 52- or 53-week period that ends on the last Saturday of September."
)
OTHER = "Research and development expense was $7,442 million, up 8 % from the prior year."
DOC = Document("a" * 64, "2023 Q3 AAPL.pdf", "/x/2023 Q3 AAPL.pdf", 30,
               DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))




LIB = PageLibrary({(DOC.doc_id, 5): PAGE, (DOC.doc_id, 9): OTHER})


def _hit(start: int, end: int, cid: int, page: int = 5, text: str = PAGE) -> Hit:
    return Hit(Chunk(cid, DOC.doc_id, cid, page, start, end, text[start:end]), DOC, 1.0)


def _cite(quote: str, page: int = 5, text: str = PAGE) -> Citation:
    i = text.index(quote)
    return Citation(DOC.doc_id, DOC.file_name, page, quote, i)


def _words(text: str) -> int:
    return len(text.replace(GAP, " ").split())


def _passages() -> list:
    cut = PAGE.index("Three Months Ended")
    return passages_for(LIB, [_hit(0, cut - 1, 1), _hit(cut, len(PAGE), 2), _hit(0, len(OTHER), 3, 9, OTHER)])


def test_every_stretch_is_exact_page_text_and_holds_the_quotes() -> None:
    row, margin = "Total net sales 81,797 82,959", "Gross margin percentage was 44.5 % for the quarter."
    out = evidence_context([_cite(row), _cite(margin)], _passages(), LIB.page_text, 60)
    assert out and all(p.hit.chunk.page == 5 for p in out)
    for p in out:
        for stretch in p.text.split(GAP):
            assert stretch and stretch in PAGE
    text = "\n".join(p.text for p in out)
    assert row in text and margin in text


def test_the_word_budget_is_respected_beyond_the_quotes() -> None:
    passages = _passages()
    quote = "The decrease was driven primarily by lower net sales of Mac and iPad."
    for budget in (15, 30, 60):
        out = evidence_context([_cite(quote)], passages, LIB.page_text, budget)
        assert quote in out[0].text
        assert _words(out[0].text) <= budget
    # a larger budget takes more of the page around the quote, after and before it
    small = evidence_context([_cite(quote)], passages, LIB.page_text, 15)[0].text
    big = evidence_context([_cite(quote)], passages, LIB.page_text, 60)[0].text
    assert small in big and len(big) > len(small)
    assert big.index(quote) > 0 and not big.endswith(quote)


def test_the_best_quote_is_kept_even_when_it_alone_exceeds_the_budget() -> None:
    quote = "Net sales decreased during the third quarter of 2023 compared to the same quarter in 2022."
    out = evidence_context([_cite(quote), _cite("Total net sales 81,797 82,959")], _passages(), LIB.page_text, 5)
    assert len(out) == 1 and out[0].text == quote  # the second quote no longer fits


def test_evidence_pages_come_first_in_evidence_order() -> None:
    passages = _passages()
    first, second = _cite(OTHER[:60], page=9, text=OTHER), _cite("Total net sales 81,797 82,959")
    out = evidence_context([first, second], passages, LIB.page_text, 80)
    assert [p.hit.chunk.page for p in out] == [9, 5]
    out = evidence_context([second, first], passages, LIB.page_text, 80)
    assert [p.hit.chunk.page for p in out] == [5, 9]


def test_a_quote_outside_the_passages_gives_no_context() -> None:
    only_prose = passages_for(LIB, [_hit(0, PAGE.index("Three Months Ended") - 1, 1)])
    assert evidence_context([_cite("Total net sales 81,797 82,959")], only_prose, LIB.page_text, 80) == []
    assert evidence_context([], _passages(), LIB.page_text, 80) == []


def test_separate_stretches_of_a_page_are_not_quotable_as_one() -> None:
    header, row = "Three Months Ended\nJuly 1, 2023 June 25, 2022", "Total net sales 81,797 82,959"
    # room for the row (5 words) and the heading (9), not the rows between them
    out = evidence_context([_cite(row), _cite(header)], _passages(), LIB.page_text, 15)
    [p] = out
    assert GAP in p.text and header in p.text and row in p.text
    passages = _passages()
    assert locate_quote(f"{header}{GAP}{row}", passages) is None
    for stretch in p.text.split(GAP):  # each stretch verifies against the page
        cite = locate_quote(stretch, passages)
        assert cite is not None and fold_text(cite.quote) == fold_text(stretch)
        assert match_form(cite.quote) in match_form(PAGE)


def test_a_table_rows_neighbours_are_whole_rows_after_then_before() -> None:
    out = evidence_context([_cite("Mac 6,840 7,382")], _passages(), LIB.page_text, 12)
    # the row (3 words), the row after, the row before; the next row (5 words) would exceed 12
    assert out[0].text == "iPhone 39,669 40,665\nMac 6,840 7,382\niPad 5,791 7,224"
