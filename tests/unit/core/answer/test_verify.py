"""core/answer/verify.py: passages, exact-quote anchoring across adjacent chunks, quotable
units, finishing a cut answer from the page, and answer verification."""

from __future__ import annotations

import pytest

from desktop_rag.core.answer.verify import (
    Passage,
    about_other_years,
    carries_concept,
    complete_cut_sentence,
    figure_context,
    locate_quote,
    passages_for,
    printed_as,
    split_units,
    verify_answer,
)
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Citation, Document, DocumentMeta, Hit
from desktop_rag.core.ingest.pdf import fold_text, match_form
from tests.conftest import REPO_ROOT, PageLibrary

# -- passages and quotes --------------------------------------------------------------------------
PAGE = (
    "Products and Services Performance\n"
    "Net sales decreased during the third quarter of 2023 compared to the same quarter in 2022.\n"
    "The year-over-year decrease was driven primarily by lower net sales of Mac and iPad.\n"
    "Three Months Ended Nine Months Ended\n"
    "July 1, 2023 June 25, 2022 July 1, 2023 June 25, 2022\n"
    "Total net sales 81,797 82,959 293,787 304,182\n"
    "Services net sales increased due to higher advertising, cloud and AppleCare revenue."
)
DOC = Document("f" * 64, "2023 Q3 AAPL.pdf", "/x/2023 Q3 AAPL.pdf", 30,
               DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))




def _hit(start: int, end: int, cid: int, page: int = 5, text: str = PAGE, score: float = 1.0) -> Hit:
    return Hit(Chunk(cid, DOC.doc_id, cid, page, start, end, text[start:end]), DOC, score)


def _split_hits() -> tuple[PageLibrary, list[Hit]]:
    """Two adjacent chunks of the same page: the boundary falls inside sentence 2."""
    cut = PAGE.index("driven primarily")
    lib = PageLibrary({(DOC.doc_id, 5): PAGE})
    return lib, [_hit(0, cut - 1, 1), _hit(cut, len(PAGE), 2)]


def test_quote_spanning_two_adjacent_chunks_validates() -> None:
    lib, hits = _split_hits()
    quote = "The year-over-year decrease was driven primarily by lower net sales"
    assert all(fold_text(quote) not in match_form(h.chunk.text) for h in hits)  # in neither chunk alone
    passages = passages_for(lib, hits)
    assert len(passages) == 3  # two chunks + their merged span
    cite = locate_quote(quote, passages)
    assert cite is not None
    assert cite.page == 5 and cite.doc == "2023 Q3 AAPL.pdf"
    assert PAGE[cite.char_start:cite.char_start + len(cite.quote)] == cite.quote
    assert fold_text(cite.quote) == fold_text(quote)


def test_chunks_of_different_pages_are_not_merged() -> None:
    other = "Completely different page text that continues the sentence here."
    lib = PageLibrary({(DOC.doc_id, 5): PAGE, (DOC.doc_id, 6): other})
    hits = [_hit(0, len(PAGE), 1), _hit(0, len(other), 2, page=6, text=other)]
    passages = passages_for(lib, hits)
    assert len(passages) == 2
    assert locate_quote("AppleCare revenue. Completely different page", passages) is None


def test_non_adjacent_chunks_are_not_merged() -> None:
    lib = PageLibrary({(DOC.doc_id, 5): PAGE})
    a_end = PAGE.index("\nThe year")
    b_start = PAGE.index("Total net sales")
    passages = passages_for(lib, [_hit(0, a_end, 1), _hit(b_start, len(PAGE), 2)])
    assert len(passages) == 2
    # The gap between them was never retrieved: a quote across it is not evidence.
    assert locate_quote("same quarter in 2022. The year-over-year decrease", passages) is None


@pytest.mark.parametrize(
    "quote",
    [
        "The year\u2013over\u2013year decrease was driven",  # en dashes
        "The year-over-year   decrease\nwas driven",  # extra white space / a line break
        "\u201cTotal net sales 81,797 82,959\u201d",  # typographic quotes around it
        "Total net sales 81,797 82,959.",  # a trailing full stop
    ],
)
def test_quote_dash_and_whitespace_variants(quote: str) -> None:
    lib, hits = _split_hits()
    cite = locate_quote(quote, passages_for(lib, hits))
    assert cite is not None, quote
    assert fold_text(cite.quote) in match_form(PAGE)


@pytest.mark.parametrize(
    "quote",
    [
        "Total net sales 91,797 82,959",  # a figure changed
        "Net sales increased during the third quarter",  # wording changed
        "short",  # too short to be evidence
        "",
    ],
)
def test_quotes_not_in_context_are_rejected(quote: str) -> None:
    lib, hits = _split_hits()
    assert locate_quote(quote, passages_for(lib, hits)) is None


# -- verify_answer --------------------------------------------------------------------------------
def _passages() -> list[Passage]:
    lib, hits = _split_hits()
    return passages_for(lib, hits)


def test_verify_rejects_number_not_in_any_quote() -> None:
    v = verify_answer("Apple's total net sales were $99,999 million.", ["Total net sales 81,797 82,959"],
                      "What were Apple's total net sales in Q3 2023?", _passages(), 2)
    assert not v.ok
    assert "99999" in v.reason


def test_an_answer_saying_a_sentence_twice_is_not_shown() -> None:
    """A small model looping ("No, X. X.") is no statement to check, even over true quotes."""
    said = "Apple's total net sales were $81.8 billion in the quarter."
    v = verify_answer(f"{said} {said}", ["Total net sales 81,797 82,959"],
                      "What were Apple's total net sales in Q3 2023?", _passages(), 2)
    assert not v.ok and "repeats" in v.reason
    assert verify_answer(said, ["Total net sales 81,797 82,959"], "What were Apple's total net sales in Q3 2023?",
                         _passages(), 2).ok


def test_verify_accepts_rescaled_number() -> None:
    v = verify_answer("Apple's total net sales were $81.8 billion.", ["Total net sales 81,797 82,959"],
                      "What were Apple's total net sales in Q3 2023?", _passages(), 2)
    assert v.ok, v.reason
    assert v.citations
    assert any("81,797" in c.quote for c in v.citations)
    for c in v.citations:
        assert PAGE[c.char_start:c.char_start + len(c.quote)] == c.quote


def test_verify_finds_support_when_model_quote_is_invented() -> None:
    v = verify_answer("Total net sales were $81,797 million.", ["Apple sold a record number of iPhones"],
                      "What were Apple's total net sales in Q3 2023?", _passages(), 2)
    assert v.ok, v.reason
    assert all("record number" not in c.quote for c in v.citations)
    assert any("81,797" in c.quote for c in v.citations)


def test_verify_numbers_from_the_question_need_no_quote() -> None:
    v = verify_answer("In Q3 2023 total net sales were 81,797.", [], "What were total net sales in Q3 2023?",
                      _passages(), 2)
    assert v.ok, v.reason


@pytest.mark.parametrize("answer", ["", "   ", "Not in corpus", "I cannot answer that from the passages.",
                                    "The information is not provided."])
def test_verify_rejects_refusals_and_empty(answer: str) -> None:
    assert not verify_answer(answer, [], "What were total net sales?", _passages(), 2).ok


def test_verify_rejects_unsupported_wording() -> None:
    v = verify_answer("Tim Cook announced a spaceship factory partnership with NASA.", [],
                      "What did Apple announce?", _passages(), 2)
    assert not v.ok


def test_verify_respects_max_citations() -> None:
    quotes = ["Total net sales 81,797 82,959", "Services net sales increased due to higher advertising",
              "lower net sales of Mac and iPad"]
    v = verify_answer("Net sales were 81,797 as Services increased and Mac and iPad sales were lower.",
                      quotes, "Why did net sales change?", _passages(), 2)
    assert len(v.citations) <= 2


def test_verify_needs_the_concept_beside_the_figure() -> None:
    # the figure is in a quote, but that quote is about net sales, not dividends: no support
    v = verify_answer("The dividend was $81,797 million.", ["Total net sales 81,797 82,959"],
                      "What dividend did Apple pay in Q3 2023?", _passages(), 2, concept={"dividend"})
    assert not v.ok
    assert "does not name what was asked" in v.reason
    ok = verify_answer("Apple's total net sales were $81,797 million.", ["Total net sales 81,797 82,959"],
                       "What were Apple's total net sales in Q3 2023?", _passages(), 2, concept={"revenue"})
    assert ok.ok, ok.reason


# -- verbatim quotes -------------------------------------------------------------------------------
FOOTER_PAGE = ("Liquidity and Capital Resources\n"
               "The Company\u2019s cash position remained strong at the end of the\n"
               "fiscal year\n"
               "59")


def test_quote_is_shown_verbatim_with_curly_apostrophe_and_without_footer_number() -> None:
    lib = PageLibrary({(DOC.doc_id, 5): FOOTER_PAGE})
    passages = passages_for(lib, [_hit(0, len(FOOTER_PAGE), 1, text=FOOTER_PAGE)])
    # the model types a straight apostrophe and runs on into the page number
    cite = locate_quote("The Company's cash position remained strong at the end of the fiscal year 59", passages)
    assert cite is not None
    assert cite.quote == "The Company\u2019s cash position remained strong at the end of the\nfiscal year"
    assert FOOTER_PAGE[cite.char_start:cite.char_start + len(cite.quote)] == cite.quote


def test_quotable_units_never_glue_a_page_number_to_a_sentence() -> None:
    units = [FOOTER_PAGE[a:b] for a, b in split_units(FOOTER_PAGE)]
    assert "The Company\u2019s cash position remained strong at the end of the\nfiscal year" in units
    assert not any(u.endswith("59") and len(u) > 2 for u in units)


def test_a_row_closed_by_a_footnote_mark_and_the_footnote_are_units_apart_from_the_prose_after() -> None:
    page = ("Percent of cross-border volume 12 % 13 % ** 12 % 14 % **\n** Not meaningful\n"
            "We had active accounts of 431 million and 429 million as of June 30, 2023 and 2022, respectively.\n")
    units = [page[a:b] for a, b in split_units(page)]
    assert units == ["Percent of cross-border volume 12 % 13 % ** 12 % 14 % **", "** Not meaningful",
                     "We had active accounts of 431 million and 429 million as of June 30, 2023 and 2022, respectively."]


def test_a_time_of_day_ends_no_sentence() -> None:
    page = "According to an update dated October 25, 2021, 7:46 a.m. Pacific Time, the fire consumed 963,309 acres.\n"
    assert [page[a:b] for a, b in split_units(page)] == [page.strip()]


def test_concept_needs_its_distinctive_term_and_most_of_its_weight() -> None:
    from desktop_rag.core.domain.terms import tokenize

    concept = {"liability", "end"}
    idf = {"liability": 2.0, "end": 0.5}
    assert not carries_concept(tokenize("Cash and cash equivalents at end of year 876,560"), concept, idf)
    assert carries_concept(tokenize("Total current liabilities 2,213,556 2,494,435"), concept, idf)
    investing = tokenize("net cash used for investing activities of $1.18 billion")
    assert not carries_concept(investing, {"cash", "operating", "activity"}, {"cash": 0.5, "operating": 1.5, "activity": 1.2})


def test_a_ratio_is_not_answered_with_an_amount() -> None:
    v = verify_answer("The operating cash flow ratio is $81,797 million.", ["Total net sales 81,797 82,959"],
                      "What is Apple's operating cash flow ratio?", _passages(), 2, concept={"revenue", "ratio"})
    assert not v.ok and "ratio" in v.reason


# -- answers the small model cut short, explanations with amounts ------------------------------------
MDNA_PAGE = (
    "Gross Margin\n"
    "The increase in gross margin was primarily driven by higher volumes in every segment and lower restructuring\n"
    "charges of $41 million, partially offset by higher freight costs for the year ended December 31, 2024.\n"
    "Segment net sales 1,204 1,118 2,406\n"
    "Operating expenses were flat."
)


def _page_passages(text: str, cid: int) -> list[Passage]:
    """One passage: the whole of a page of ``text``."""
    return [Passage(_hit(0, len(text), cid, text=text), 0, len(text), text)]


def _mdna_passages() -> list[Passage]:
    return _page_passages(MDNA_PAGE, 9)


def test_a_verbatim_answer_cut_mid_sentence_is_finished_from_the_page() -> None:
    cut = "The increase in gross margin was primarily driven by higher volumes in every segment and"
    done = complete_cut_sentence(cut, _mdna_passages())
    assert done == ("The increase in gross margin was primarily driven by higher volumes in every segment and lower "
                    "restructuring charges of $41 million, partially offset by higher freight costs for the year ended "
                    "December 31, 2024.")
    # what the page says, word for word (line breaks read as spaces)
    assert fold_text(done) in match_form(MDNA_PAGE).replace("\n", " ")


@pytest.mark.parametrize("answer", [
    "Operating expenses were flat.",  # a whole sentence already
    "Gross margin rose because customers paid more",  # the model's own words: nothing to finish
    "Segment net sales 1,204",  # a table row is never run on into the next lines
    "driven by",  # too short to anchor
])
def test_answers_that_are_not_cut_page_sentences_stay_as_they_are(answer: str) -> None:
    assert complete_cut_sentence(answer, _mdna_passages()) == answer


def test_an_explanation_with_amounts_is_no_ratio_answer() -> None:
    answer = ("The increase in gross margin was primarily driven by higher volumes in every segment and lower "
              "restructuring charges of $41 million.")
    why = verify_answer(answer, [], "What drove the change in gross margin in 2024?", _mdna_passages(), 2,
                        concept={"grossmargin"})
    assert why.ok, why.reason
    # the answer is the page's sentence, so that sentence is its first citation (it names the concept)
    assert "gross margin" in why.citations[0].quote and "$41 million" in why.citations[0].quote
    assert len({fold_text(c.quote).rstrip(".") for c in why.citations}) == len(why.citations)
    # asked for the margin itself, an amount is still no answer
    what = verify_answer("Gross margin was $41 million.", [], "What was the gross margin in 2024?",
                         _mdna_passages(), 2, concept={"grossmargin"})
    assert not what.ok and "ratio or rate" in what.reason


def test_a_cut_answer_whose_ending_is_the_pages_sentence_is_finished_too() -> None:
    # the model's own opening words, then the page's words, cut
    cut = "Gross margin rose because the increase in gross margin was primarily driven by higher volumes in every"
    done = complete_cut_sentence(cut, _mdna_passages())
    assert done.startswith(cut + " segment and lower restructuring charges of $41 million")
    assert done.endswith("for the year ended December 31, 2024.")
    # a stock phrase alone is in too many places to continue from
    short = "Margins were better in the year ended December 31,"
    assert complete_cut_sentence(short, _mdna_passages()) == short


@pytest.mark.parametrize("question", [
    "How much did restructuring charges amount to in 2024?",
    "What damages range did the plaintiff claim?",
    "What was the total restructuring charge in 2024?",
    # a balance: "The Company's long-term debt consisted of the following" is no answer to it
    "What was Acme's long-term restructuring debt at the end of 2024?",
    "What were Acme's inventories at the end of 2024?",
    "What is the company's debt?",
])
def test_a_question_asking_a_figure_is_not_answered_by_words_around_it(question: str) -> None:
    words_only = "The increase in gross margin was primarily driven by higher volumes in every segment."
    v = verify_answer(words_only, [], question, _mdna_passages(), 2, concept={"restructuring"})
    assert not v.ok and "asks for a figure" in v.reason
    # a year is no figure either; the figure itself passes this check
    assert not verify_answer(words_only.replace("segment.", "segment in 2024."), [], question,
                             _mdna_passages(), 2, concept={"restructuring"}).ok
    with_figure = "Lower restructuring charges of $41 million."
    assert "asks for a figure" not in verify_answer(with_figure, [], question, _mdna_passages(), 2,
                                                    concept={"restructuring"}).reason


def test_sentences_are_not_cut_after_an_abbreviation_or_a_decimal() -> None:
    text = ("In December 2018, Northwind IO, Inc. filed a complaint against the Company alleging that it infringed "
            "patents. The plaintiff seeks damages of $1.5 billion.")
    units = [text[a:b] for a, b in split_units(text)]
    assert units == ["In December 2018, Northwind IO, Inc. filed a complaint against the Company alleging that it "
                     "infringed patents.", "The plaintiff seeks damages of $1.5 billion."]


def test_a_camel_case_name_after_an_initial_starts_a_sentence() -> None:
    text = ("Approximately 6,300 of our employees were located in the\nU.S. eBay has robust programs. "
            "We sell to the U.S. Government.")
    units = [text[a:b] for a, b in split_units(text)]
    assert units == ["Approximately 6,300 of our employees were located in the\nU.S.", "eBay has robust programs.",
                     "We sell to the U.S. Government."]


def test_a_cut_answer_not_from_the_page_loses_its_dangling_sentence() -> None:
    from desktop_rag.core.answer.verify import complete_cut_sentence

    cut = ("Corning Inc.'s Display Technologies segment was impacted by the pandemic. "
           "The company's business was impacted by the")
    assert complete_cut_sentence(cut, _mdna_passages()) == (
        "Corning Inc.'s Display Technologies segment was impacted by the pandemic.")
    # one sentence, cut: nothing whole to keep, verification decides
    only = "The company's business was impacted by the"
    assert complete_cut_sentence(only, _mdna_passages()) == only


# -- answers true to their quotes but not to the question ----------------------------------------------
LMT_PAGE = (
    "Backlog\n"
    "At December 31, 2022, our backlog was $150.0 billion compared with $135.4 billion at December 31, 2021.\n"
    "We expect to recognize approximately 37% of our backlog over the next 12 months and approximately 61% over the "
    "next 24 months as revenue, with the remainder recognized thereafter.\n"
    "Goodwill impairment losses of $1.2 billion were recorded in 2019.\n"
    "We did not record any impairment of indefinite-lived intangible assets in 2021."
)


def _lmt_passages() -> list[Passage]:
    return _page_passages(LMT_PAGE, 7)


def test_an_amount_asked_is_not_answered_with_percentages_only() -> None:
    pct = ("We expect to recognize approximately 37% of our backlog over the next 12 months and approximately 61% "
           "over the next 24 months as revenue.")
    v = verify_answer(pct, [], "What is Lockheed Martin's backlog at the end of 2022?", _lmt_passages(), 2,
                      concept={"backlog"})
    assert not v.ok and "only percentages" in v.reason
    amount = "At December 31, 2022, the backlog was $150.0 billion."
    assert verify_answer(amount, [], "What is Lockheed Martin's backlog at the end of 2022?", _lmt_passages(), 2,
                         concept={"backlog"}).ok
    # a share or a change asked: a percentage answers it
    assert "only percentages" not in verify_answer(
        pct, [], "What share of the backlog will be recognized over the next 12 months?", _lmt_passages(), 2,
        concept={"backlog"}).reason


NFLX_PAGE = (
    "International Streaming\n"
    "Paid memberships at end of period 27,438 16,778 9,722\n"
    "Average paid international streaming memberships accounted for 35% of total average paid streaming memberships "
    "as of December 31, 2015, as compared to 27% of total average paid streaming memberships as of December 31, 2014."
)


def test_a_count_asked_is_not_answered_with_a_share() -> None:
    """fb-140: "how many paid memberships" answered "27% of total average paid streaming
    memberships" (true digits, a share, no count); the count itself stands."""
    q = "How many paid memberships did Netflix's International streaming segment have at the end of 2015?"
    share = "The International segment had 27% of total average paid streaming memberships as of December 31, 2014."
    v = verify_answer(share, [], q, _page_passages(NFLX_PAGE, 22), 2, concept={"paid", "membership"})
    assert not v.ok and v.reason == "the question asks for a count, the answer gives only percentages"
    count = "Paid memberships at end of period were 27,438."
    assert "count" not in verify_answer(count, [], q, _page_passages(NFLX_PAGE, 22), 2,
                                        concept={"paid", "membership"}).reason


def test_a_denial_needs_a_quote_that_says_no() -> None:
    no = "No, the company did not record any goodwill impairment in 2019."
    v = verify_answer(no, [], "Did the company record any goodwill impairment in 2019?", _lmt_passages(), 2,
                      concept={"goodwill", "impairment"})
    assert not v.ok and "says no" in v.reason
    quoted_no = "The company did not record any impairment of indefinite-lived intangible assets in 2021."
    ok = verify_answer(quoted_no, [], "Did the company impair indefinite-lived intangible assets in 2021?",
                       _lmt_passages(), 2, concept={"impairment", "intangible"})
    assert ok.ok, ok.reason


def test_an_affirmation_needs_a_quote_that_names_what_was_asked() -> None:
    # the answer's words are the question's, the quotes never name what was asked
    page = ("Recorded contingent liabilities are based on the best information available.\n"
            "If actual losses exceed our recorded liability, we would record additional charges in the period.\n"
            "Restructuring charges of $41 million were recorded in fiscal 2024 for the closure of two plants.")
    contingent = _page_passages(page[:page.index("Restructuring")], 11)
    yes = "Yes, the company recorded restructuring charges in fiscal 2024."
    question = "Did the company record restructuring charges in fiscal 2024?"
    v = verify_answer(yes, ["we would record additional charges in the period"], question, contingent, 2,
                      concept={"restructuring", "charge"})
    assert not v.ok and "names what was asked" in v.reason
    # the same claim over a quote that names restructuring charges is shown with that quote
    ok = verify_answer(yes, [], question, _page_passages(page, 12), 2, concept={"restructuring", "charge"})
    assert ok.ok, ok.reason
    assert any("Restructuring charges" in c.quote for c in ok.citations)


# -- period words and scale of a verified figure -------------------------------------------------
ANNUAL_DOC = Document("a" * 64, "ACME_2024_10K.pdf", "/x/ACME_2024_10K.pdf", 90,
                      DocumentMeta(company="Acme Corp", form_type="10-K", fiscal_year=2024, period_end="2024-12-31"))
OBLIGATIONS_PAGE = (
    "Contractual Obligations\n"
    "The following table summarizes our contractual obligations at December 31, 2024:\n"
    "Contractual obligations (in thousands):\n"
    "Total Less than 1 year 1-3 years\n"
    "Content obligations $ 12,345,678 $ 4,000,000 $ 8,345,678\n"
    "Operating lease obligations 1,200,000 300,000 900,000"
)


def _annual_passages() -> list[Passage]:
    text = OBLIGATIONS_PAGE
    hit = Hit(Chunk(40, ANNUAL_DOC.doc_id, 40, 31, 0, len(text), text), ANNUAL_DOC, 1.0)
    return [Passage(hit, 0, len(text), text, text)]


def test_period_words_that_contradict_the_question_and_the_filing_are_not_verified() -> None:
    question = "What were Acme's total content obligations at the end of 2024?"
    quarter = verify_answer("Acme's content obligations were $ 12,345,678 for the quarter.", [], question,
                            _annual_passages(), 2, concept={"content", "obligation"})
    assert not quarter.ok and "quarter" in quarter.reason
    other_year = verify_answer("In 2019, Acme's content obligations were $ 12,345,678.", [], question,
                               _annual_passages(), 2, concept={"content", "obligation"})
    assert not other_year.ok and "2019" in other_year.reason
    plain = verify_answer("Acme's content obligations were $ 12,345,678 at the end of 2024.", [], question,
                          _annual_passages(), 2, concept={"content", "obligation"})
    assert plain.ok, plain.reason


def test_a_figure_from_a_table_in_thousands_is_shown_with_its_scale() -> None:
    question = "What were Acme's total content obligations at the end of 2024?"
    v = verify_answer("Acme's content obligations were $ 12,345,678 at the end of 2024.", [], question,
                      _annual_passages(), 2, concept={"content", "obligation"})
    assert v.ok, v.reason
    assert v.answer == ("Acme's content obligations were $ 12,345,678 (in thousands: $12.3 billion) "
                        "at the end of 2024.")
    assert any(c.quote == "Content obligations $ 12,345,678 $ 4,000,000 $ 8,345,678" for c in v.citations)
    # a figure already written with its scale word is left as written
    scaled = verify_answer("Acme's content obligations were $12.3 billion at the end of 2024.", [], question,
                           _annual_passages(), 2, concept={"content", "obligation"})
    assert scaled.ok, scaled.reason
    assert scaled.answer == "Acme's content obligations were $12.3 billion at the end of 2024."
def test_a_figure_is_asked_by_how_much_not_by_why() -> None:
    from desktop_rag.core.answer.verify import asks_for_figure, is_year

    assert asks_for_figure("How much did Apple spend on R&D in Q3 2023?")
    assert asks_for_figure("What was the total revenue of Nvidia?")
    assert not asks_for_figure("Why did Apple's gross margin change in Q3 2023?")  # the reasons, not a figure
    assert asks_for_figure("What goodwill impairment did Kraft Heinz record in 2019?")  # a measure recorded
    assert not asks_for_figure("What risks did Nike report in fiscal 2019?")
    assert not asks_for_figure("What did Epic Games allege in its lawsuit?")
    assert is_year(2023) and is_year(1999.0) and not is_year(2023.5) and not is_year(81797)


def test_an_answer_that_only_repeats_the_question_is_not_verified() -> None:
    page = ("Services net sales increased during the second quarter of 2023 compared to the same quarter in 2022.\n"
            "Services 20,907 19,821")
    passages = _page_passages(page, 3)
    question = "Apple Q2 2023: Services net sales and YoY growth?"
    from desktop_rag.core.answer.verify import content_term_set

    concept = content_term_set("Services net sales")
    echo = verify_answer("Apple Q2 2023: Services net sales and YoY growth", [], question, passages, 2,
                         concept=concept)
    assert not echo.ok and echo.reason == "the answer only repeats the question"
    said = verify_answer("Services net sales increased in the second quarter of 2023.", [], question, passages, 2,
                         concept=concept)
    assert said.ok, said.reason  # words of the quote beyond the question: an answer
    yes = verify_answer("No, Apple did not sell Services in Q2 2023.", [], "Did Apple sell Services in Q2 2023?",
                        passages, 2)
    assert yes.reason != "the answer only repeats the question"  # a yes/no answer may use the question's words


# -- the column a table figure sits in --------------------------------------------------------------
SEGMENT_PAGE = (
    "Domestic DVD Segment\n"
    "As of/ Year Ended December 31, Change\n"
    "2024 2023 2022 2024 vs. 2023 2023 vs. 2022\n"
    "(in thousands, except revenue per membership and percentages)\n"
    "Memberships:\n"
    "Net losses (863) (1,163) (1,294) (300) (26)% (131) (10)%\n"
    "Memberships at end of period 4,904 5,767 6,930 (863) (15)% (1,163) (17)%\n"
    "Paid memberships at end of period 4,787 5,668 6,765 (881) (16)% (1,097) (16)%\n"
    "Contribution margin 50% 48% 48%"
)
PROPERTIES_PAGE = (
    "Owned and Leased Properties\n"
    "The following table provides further details of our retail units and distribution facilities, including return\n"
    "facilities, as of January 31, 2024:\n"
    "Owned Leased(1) Total\n"
    "U.S. properties\n"
    "Acme U.S. retail units 4,069 687 4,756\n"
    "Acme Club retail units 513 86 599\n"
    "Total U.S. retail units 4,582 773 5,355\n"
)


def _annual_page(text: str) -> list[Passage]:
    hit = Hit(Chunk(41, ANNUAL_DOC.doc_id, 41, 23, 0, len(text), text), ANNUAL_DOC, 1.0)
    return [Passage(hit, 0, len(text), text, text)]


def test_a_figure_from_a_change_column_or_another_year_is_not_the_asked_periods() -> None:
    # the row is right, the column is not: "(1,163)" under "2023 vs. 2022" (and "Net losses"
    # of 2023) is no count of memberships at the end of 2024
    question = "How many DVD memberships did Acme have at the end of 2024?"
    concept = {"membership"}
    change = verify_answer("1,163 (in thousands) memberships", [], question, _annual_page(SEGMENT_PAGE), 2,
                           concept=concept)
    assert not change.ok and "column" in change.reason, change.reason
    right = verify_answer("Acme had 4,904 thousand memberships at the end of 2024.", [], question,
                          _annual_page(SEGMENT_PAGE), 2, concept=concept)
    assert right.ok, right.reason
    prior = verify_answer("Acme had 5,767 thousand memberships.", [], question, _annual_page(SEGMENT_PAGE), 2,
                          concept=concept)
    assert not prior.ok and "2023" in prior.reason
    # a change is an answer when a change is asked
    decline = verify_answer("Acme's memberships decrease was 863 thousand in 2024.", [],
                            "How much did Acme's DVD memberships decrease in 2024?", _annual_page(SEGMENT_PAGE), 2,
                            concept=concept)
    assert decline.ok, decline.reason


def test_a_figure_from_a_part_column_is_not_the_whole() -> None:
    # "4,582" sits under "Owned": the units operated are the total, 5,355
    question = "How many U.S. retail units did Acme operate at the end of fiscal 2024?"
    concept = {"retail", "unit"}
    owned = verify_answer("Acme operated 4,582 U.S. retail units at the end of fiscal 2024.", [], question,
                          _annual_page(PROPERTIES_PAGE), 2, concept=concept)
    assert not owned.ok and "Owned" in owned.reason, owned.reason
    total = verify_answer("Acme operated 5,355 U.S. retail units at the end of fiscal 2024.", [], question,
                          _annual_page(PROPERTIES_PAGE), 2, concept=concept)
    assert total.ok, total.reason
    # the part is the answer when the question names it
    asked_owned = verify_answer("Acme owned 4,582 U.S. retail units.", [],
                                "How many U.S. retail units did Acme own (owned units) at the end of fiscal 2024?",
                                _annual_page(PROPERTIES_PAGE), 2, concept=concept)
    assert asked_owned.ok, asked_owned.reason


def test_a_table_figure_whose_column_cannot_be_read_is_not_verified() -> None:
    # no header above the row names its columns: which of 4,582 / 773 / 5,355 is the whole is unknown
    page = "Retail units\nTotal U.S. retail units 4,582 773 5,355\n"
    v = verify_answer("Acme operated 4,582 U.S. retail units.", [], "How many U.S. retail units did Acme operate?",
                      _annual_page(page), 2, concept={"retail", "unit"})
    assert not v.ok and "column headings could not be read" in v.reason
    # a figure said in a sentence has no column to be in
    prose = "Retail units\nAt year end we operated 5,355 U.S. retail units, of which 4,582 were owned.\n"
    said = verify_answer("Acme operated 5,355 U.S. retail units.", [], "How many U.S. retail units did Acme operate?",
                         _annual_page(prose), 2, concept={"retail", "unit"})
    assert said.ok, said.reason


def test_a_percent_change_is_no_margin() -> None:
    # "5 %" under "% CHANGE" answers how much an expense grew, not what a margin or rate was
    page = ("FISCAL 2024 FISCAL 2023 % CHANGE FISCAL 2022 % CHANGE\n"
            "Gross margin 43.5 % 46.0 % (5)% 44.8 % 3 %\n")
    margin = verify_answer("Acme's gross margin was 5% in fiscal 2024.", [], "What was Acme's gross margin in fiscal 2024?",
                           _annual_page(page), 2, concept={"grossmargin"})
    assert not margin.ok and "CHANGE" in margin.reason, margin.reason
    right = verify_answer("Acme's gross margin was 43.5% in fiscal 2024.", [], "What was Acme's gross margin in fiscal 2024?",
                          _annual_page(page), 2, concept={"grossmargin"})
    assert right.ok, right.reason


def test_a_sentence_is_not_cut_after_an_initial_or_an_abbreviation() -> None:
    text = ("We depend heavily on contracts with the U.S. Government for a substantial portion of our business. "
            "Richard A. Johnson will step down. The DoD. Acme Co. Ltd is a customer.")
    units = [text[a:b] for a, b in split_units(text)]
    assert units[0] == "We depend heavily on contracts with the U.S. Government for a substantial portion of our business."
    assert units[1] == "Richard A. Johnson will step down."
    assert units[2] == "The DoD."


def test_a_segment_tables_figure_is_not_the_companys() -> None:
    # the "Domestic DVD Segment" table's paid memberships (4,787) are one segment's, not Acme's
    question = "How many paid memberships did Acme have at the end of 2024?"
    concept = {"membership"}
    part = verify_answer("4,787 (in thousands)", [], question, _annual_page(SEGMENT_PAGE), 2, concept=concept)
    assert not part.ok and "Domestic DVD Segment" in part.reason, part.reason
    named = verify_answer("4,787 (in thousands)", [], "How many paid DVD memberships did Acme have at the end of 2024?",
                          _annual_page(SEGMENT_PAGE), 2, concept=concept)
    assert named.ok, named.reason


def test_a_count_is_not_backed_by_a_percentage_nor_scaled_by_a_table_note_in_prose() -> None:
    # "100 (in millions) employees" was verified over "contribute up to 100% of their pre-tax salary"
    page = ("NOTE 14: Other Employee Benefit Plans\n"
            "(In millions, except per share amounts)\n"
            "The Company has a retirement savings plan that allows participating employees in the United States to "
            "contribute up to 100% of their pre-tax salary.\n"
            "At year end the Company had approximately 9,100 employees worldwide.\n")
    question = "How many employees did Acme have at the end of 2024?"
    wrong = verify_answer("100 employees", [], question, _annual_page(page), 2, concept={"employee"})
    assert not wrong.ok and "percentages" in wrong.reason, wrong.reason
    right = verify_answer("Acme had approximately 9,100 employees.", [], question, _annual_page(page), 2,
                          concept={"employee"})
    assert right.ok, right.reason
    assert right.answer == "Acme had approximately 9,100 employees."  # a sentence's figure gets no table scale
    # nor is "100 employees" a quote of "9,100 employees"
    assert locate_quote("100 employees", _annual_page(page)) is None
    assert locate_quote("9,100 employees", _annual_page(page)) is not None


def test_a_sentence_with_a_date_and_a_figure_is_no_table_row_to_read_columns_of() -> None:
    # "As of December 26, 2024, we had approximately 9,100 employees." has three figures in ten words
    page = "Employees\nAs of December 26, 2024, we had approximately 9,100 employees.\n"
    v = verify_answer("Acme had approximately 9,100 employees.", [], "How many employees did Acme have at the end of 2024?",
                      _annual_page(page), 2, concept={"employee"})
    assert v.ok, v.reason


def test_a_figure_is_backed_only_by_the_row_that_prints_it() -> None:
    # the quote names "net carrying amount" on its last row, but $1,250 million is the row
    # above: "Due in one year" is no carrying amount of the notes
    page = ("Debt maturities\n"
            "(In millions)\n"
            "Due in one year $ 1,500\n"
            "Due in one to five years 3,250\n"
            "Due in greater than five years 7,000\n"
            "Net carrying amount 11,750\n")
    question = "What was the net carrying amount of Acme's notes at the end of 2024?"
    concept = {"net", "carrying", "amount"}
    wrong = verify_answer("Net carrying amount was $1,500 million.", [], question, _annual_page(page), 2,
                          concept=concept)
    assert not wrong.ok and "does not name what was asked" in wrong.reason, wrong.reason
    right = verify_answer("Net carrying amount was $11,750 million.", [], question, _annual_page(page), 2,
                          concept=concept)
    assert right.ok, right.reason


def test_a_figure_in_prose_is_not_backed_by_words_after_a_turn_to_another_thing() -> None:
    # Kraft Heinz 2019, asked on an unseen question: "goodwill impairment of $7.0 billion" was
    # verified over "The goodwill carrying amount … was $7.0 billion after the impairment"
    page = ("We test each reporting unit once a year, in the second quarter.\n"
            "The goodwill carrying amount of this reporting unit was $7.0 billion after the impairment.\n"
            "In 2024 we recorded non-cash goodwill impairment losses of $1.2 billion related to three units.\n")
    question = "What goodwill impairment did Acme record in 2024?"
    concept = {"goodwill", "impairment"}
    wrong = verify_answer("In 2024, Acme recorded a goodwill impairment of $7.0 billion.", [], question,
                          _annual_page(page), 2, concept=concept)
    assert not wrong.ok and "does not name what was asked" in wrong.reason, wrong.reason
    right = verify_answer("In 2024, Acme recorded goodwill impairment losses of $1.2 billion.", [], question,
                          _annual_page(page), 2, concept=concept)
    assert right.ok, right.reason
    # words after a figure that do name it still count
    assert figure_context("the Company had $1.7 billion and $10.0 billion of Commercial Paper outstanding", 1.7) \
        .endswith("Commercial Paper outstanding")
    assert figure_context("our backlog was $150.0 billion compared with $135.4 billion", 150.0) == \
        "our backlog was $150.0 billion "


def test_a_figure_copied_from_a_table_keeps_the_tables_scale() -> None:
    # JPMorgan's "Deposits $ 2,399.0" under "(in billions except ratios)" was answered
    # "$ 2,399.0 million" on an unseen question: a thousandth of the deposits
    page = ("The table below shows the deposit balances as of December 31, 2024 and December 31, 2023.\n"
            "(in billions except ratios)\n"
            "December 31, 2024 December 31, 2023\n"
            "Deposits $ 2,399.0 $ 2,340.2\n")
    question = "What were Acme's total deposits at December 31, 2024?"
    wrong = verify_answer("Total deposits at December 31, 2024 were $ 2,399.0 million.", [], question,
                          _annual_page(page), 2, concept={"deposit"})
    assert not wrong.ok and "in billions" in wrong.reason, wrong.reason
    right = verify_answer("Total deposits at December 31, 2024 were $ 2,399.0 billion.", [], question,
                          _annual_page(page), 2, concept={"deposit"})
    assert right.ok, right.reason
    # a bare figure gets the table's scale added instead
    bare = verify_answer("Total deposits at December 31, 2024 were $ 2,399.0.", [], question,
                         _annual_page(page), 2, concept={"deposit"})
    assert bare.ok and "(in billions: $2.4 trillion)" in bare.answer, (bare.reason, bare.answer)


def test_a_quarter_asked_is_not_answered_from_the_nine_months_column_placed_by_position() -> None:
    # Apple's "Services 21,213 19,604 8 % 62,886 58,941 7 %" under "Three Months Ended Nine Months
    # Ended": read from the text alone the year line says only "2023" over both 21,213 and 62,886;
    # placed by the PDF's character boxes (the one column reader) 62,886 is the nine months'

    from desktop_rag.core.domain.terms import tokenize
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    path = REPO_ROOT / "corpus" / "2023 Q3 AAPL.pdf"
    pdf = open_pdf(path)
    try:
        text = extract_page(pdf[18], with_boxes=True).text
    finally:
        pdf.close()
    doc = Document("b" * 64, path.name, str(path), 30, DocumentMeta(
        company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3, period_end="2023-07-01"))
    passages = [Passage(Hit(Chunk(7, doc.doc_id, 7, 19, 0, len(text), text), doc, 1.0), 0, len(text), text, text)]
    question = "What were Apple's Services net sales in the third quarter of 2023?"
    nine = verify_answer("Apple's Services net sales were $62,886 million.", [], question, passages, 2,
                         concept=set(tokenize("Services")))
    assert not nine.ok and "column" in nine.reason, nine.reason
    quarter = verify_answer("Apple's Services net sales were $21,213 million.", [], question, passages, 2,
                            concept=set(tokenize("Services")))
    assert quarter.ok, quarter.reason


def test_a_figure_of_a_segments_column_group_is_not_the_firms() -> None:
    # JPMorgan's "Total net revenue $ 12,614 $ 12,760 (1) % $ 11,947 ..." under "Consumer &
    # Community Banking Corporate & Investment Bank Commercial Banking": $12,614 million is the
    # first segment's, not the firm's (the "Total" group's $31,630 million)
    from pathlib import Path

    from desktop_rag.core.domain.terms import tokenize
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    path = next((p / "shared" / "data" / "financebench-dev" / "pdfs" / "JPMORGAN_2022Q2_10Q.pdf"
                 for p in Path(__file__).resolve().parents
                 if (p / "shared" / "data" / "financebench-dev" / "pdfs").is_dir()), Path("/nonexistent"))
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        text = extract_page(pdf[20], with_boxes=True).text
    finally:
        pdf.close()
    doc = Document("c" * 64, path.name, str(path), 100, DocumentMeta(
        company="JPMorgan Chase & Co.", ticker="JPM", form_type="10-Q", fiscal_year=2022, fiscal_quarter=2,
        period_end="2022-06-30"))
    passages = [Passage(Hit(Chunk(3, doc.doc_id, 3, 21, 0, len(text), text), doc, 1.0), 0, len(text), text, text)]
    firm = verify_answer("JPMorgan's total net revenue was $12,614 million.", [],
                         "What was JPMorgan's total net revenue in the second quarter of 2022?", passages, 2,
                         concept=set(tokenize("total net revenue")))
    assert not firm.ok and "Consumer & Community Banking" in firm.reason, firm.reason
    ccb = verify_answer("Consumer & Community Banking total net revenue was $12,614 million.", [],
                        "What was the total net revenue of JPMorgan's Consumer & Community Banking segment in the "
                        "second quarter of 2022?", passages, 2, concept=set(tokenize("total net revenue")))
    assert ccb.ok, ccb.reason


def test_a_row_with_a_long_label_is_still_a_table_row_whose_column_is_read() -> None:
    # "Earnings (loss) per share attributable to Acme—diluted $ (0.66) $ 1.98": two figures in
    # twelve words read as prose, so the prior year's $1.98 was taken for the quarter asked
    page = ("Condensed Consolidated Statements of Income\n"
            "Three Months Ended\n"
            "(In Millions, Except Per Share Amounts; Unaudited) Apr 1, 2024 Apr 2, 2023\n"
            "Net income (loss) attributable to Acme $ (2,758) $ 8,113\n"
            "Earnings (loss) per share attributable to Acme—diluted $ (0.66) $ 1.98\n")
    question = "What were Acme's diluted earnings (loss) per share attributable to Acme in Q1 2024?"
    concept = {"earnings", "loss", "share", "attributable"}
    prior = verify_answer("Diluted earnings (loss) per share attributable to Acme were $1.98.", [], question,
                          _q1_page(page), 2, concept=concept)
    assert not prior.ok and "Apr 2, 2023" in prior.reason, prior.reason
    own = verify_answer("Diluted earnings (loss) per share attributable to Acme were $(0.66).", [], question,
                        _q1_page(page), 2, concept=concept)
    assert own.ok, own.reason


Q1_DOC = Document("e" * 64, "ACME_2024_Q1_10Q.pdf", "/x/ACME_2024_Q1_10Q.pdf", 40,
                  DocumentMeta(company="Acme Corp", form_type="10-Q", fiscal_year=2024, fiscal_quarter=1,
                               period_end="2024-04-01"))


def _q1_page(text: str) -> list[Passage]:
    hit = Hit(Chunk(5, Q1_DOC.doc_id, 5, 6, 0, len(text), text), Q1_DOC, 1.0)
    return [Passage(hit, 0, len(text), text, text)]


def test_a_count_is_not_backed_by_the_same_digits_printed_as_dollars() -> None:
    # "105 million shares" was verified over "repurchased 4.1 million shares ... for approximately
    # $105 million": the digits are on the page, but as the dollars paid, not a count of shares
    page = ("Share Repurchases\n"
            "For the year ended December 31, 2024, the Company repurchased 4.1 million shares of common stock on "
            "the open market for approximately $105 million, as part of its Repurchase Program.\n")
    question = "How many shares did Acme repurchase in 2024?"
    wrong = verify_answer("105 million shares", [], question, _annual_page(page), 2, concept={"repurchase", "share"})
    assert not wrong.ok and "amount of money" in wrong.reason, wrong.reason
    right = verify_answer("Acme repurchased 4.1 million shares.", [], question, _annual_page(page), 2,
                          concept={"repurchase", "share"})
    assert right.ok, right.reason
    # and the other way round: the dollars paid are not the count of shares
    paid = verify_answer("$4.1 million", [], "How much did Acme spend on repurchases in 2024?", _annual_page(page), 2,
                         concept={"repurchase"})
    assert not paid.ok and "count" in paid.reason, paid.reason


def test_how_a_figure_is_printed() -> None:
    text = "repurchased 4.1 million shares for approximately $105 million; 9,100 employees; Revenue 105 98"
    assert printed_as(text, 4.1) == {"count"}
    assert printed_as(text, 105) == {"money", "plain"}
    assert printed_as(text, 9100) == {"count"}
    assert printed_as("EUR 12.5 million", 12.5) == {"money"}
    assert printed_as("12.5 million dollars", 12.5) == {"money"}


@pytest.mark.parametrize(("sentence", "other"), [
    ("During the year ended December 31, 2019, the Company repurchased 31.0 million shares.", True),
    ("In 2021 we bought back 7.3 million shares.", False),
    # a comparison speaks of the asked year too
    ("Net sales increased 25% compared to 2020.", False),
    ("The Company repurchased 7.3 million and 4.1 million shares in 2022 and 2020, respectively.", False),
    # no year: nothing says it is another period's
    ("The Company repurchased shares on the open market.", False),
    # table rows are read by their columns
    ("Shares repurchased 2019 31.0 4.1 7.3", False),
])
def test_a_sentence_about_another_year(sentence: str, other: bool) -> None:
    assert about_other_years(sentence, {2021}) is other


def test_a_count_of_hires_is_not_the_headcount() -> None:
    # "How many employees did Lockheed Martin have at the end of 2022?" was answered "14,000
    # employees", the model's quote of "During 2022, we hired more than 14,000 employees"
    page = ("Talent Acquisition, Retention and Development\n"
            "We strive to hire, develop and retain the top talent in the industry. During 2024, we hired more than "
            "14,000 employees, despite the continuing challenges. At December 31, 2024, we had approximately "
            "116,000 employees.\n")
    question = "How many employees did Acme have at the end of 2024?"
    wrong = verify_answer("14,000 employees", ["14,000 employees"], question, _annual_page(page), 2,
                          concept={"employee"})
    assert not wrong.ok and "of hired" in wrong.reason, wrong.reason
    right = verify_answer("Acme had approximately 116,000 employees.", [], question, _annual_page(page), 2,
                          concept={"employee"})
    assert right.ok, right.reason
    # asked about the hires, the hires answer it
    hires = verify_answer("Acme hired more than 14,000 employees.", [], "How many employees did Acme hire in 2024?",
                          _annual_page(page), 2, concept={"employee"})
    assert hires.ok, hires.reason


def test_a_question_about_a_balance_is_not_always_a_figure_asked() -> None:
    from desktop_rag.core.answer.verify import asks_for_figure

    assert asks_for_figure("What was Coca-Cola's long-term debt at the end of 2017?")
    assert not asks_for_figure("What were the risks related to the debt?")


def test_a_possessive_name_before_the_measure_still_asks_a_figure() -> None:
    """"What was Apple's total net sales in Q3 2023?" answered "Apple's total net sales
    decreased ... due primarily to lower net sales of laptops": a true sentence, no figure."""
    from desktop_rag.core.answer.verify import asks_for_figure

    assert asks_for_figure("What was Apple's total net sales in Q3 2023?")
    assert asks_for_figure("What were PG&E's operating revenues in 2020?")
    assert not asks_for_figure("What was Apple's explanation for the sales decline?")
    mdna = ("Apple's total net sales decreased during the third quarter and first nine months of 2023 compared "
            "to the same periods in 2022 due primarily to lower net sales of laptops.")
    verdict = verify_answer(mdna, [], "What was Apple's total net sales in Q3 2023?", _page_passages(mdna, 5), 3,
                            concept={"total", "net", "sales"})
    assert not verdict.ok and "gives none" in verdict.reason


def test_a_figure_said_in_another_scale_than_its_sentence_prints_it() -> None:
    # "Microsoft's research and development expenses decreased $10 million" was verified over
    # "Impairment, integration, and restructuring expenses were $10.0 billion", in a list whose
    # next item names research and development
    page = ("Key changes in expenses were:\n"
            "• Cost of revenue increased $6.0 billion or 22%, mainly due to phone sales. • Impairment, integration, "
            "and restructuring expenses were $10.0 billion in fiscal 2024. • Research and development expenses "
            "decreased $58 million, primarily due to a reduction in phone expenses.\n")
    question = "What was Acme's research and development expense in fiscal 2024?"
    concept = {"rnd", "expense"}  # the tokenizer reads "research and development" as "rnd"
    wrong = verify_answer("Acme's research and development expenses decreased $10 million.", [], question,
                          _annual_page(page), 2, concept=concept)
    assert not wrong.ok, wrong.reason
    right = verify_answer("Acme's research and development expenses decreased $58 million.", [], question,
                          _annual_page(page), 2, concept=concept)
    assert right.ok, right.reason


def test_the_scale_a_sentence_prints_a_figure_in() -> None:
    page = "Impairment, integration, and restructuring expenses were $10.0 billion in fiscal 2024.\n"
    v = verify_answer("Impairment, integration, and restructuring expenses were $10.0 million.", [],
                      "What were Acme's impairment, integration, and restructuring expenses in fiscal 2024?",
                      _annual_page(page), 2, concept={"impairment", "integration", "restructuring", "expense"})
    assert not v.ok and "printed in billions" in v.reason, v.reason


def test_a_figure_is_named_by_its_own_list_item() -> None:
    line = ("Key changes in expenses were: • Impairment expenses were $10.0 billion. • Research and development "
            "expenses decreased $58 million.")
    assert "Research" not in figure_context(line, 10.0)
    assert "Research and development" in figure_context(line, 58)


def test_a_sentence_referring_back_keeps_the_previous_ones_subject() -> None:
    line = "Net sales increased $28,832 or 18% during 2021. The improvement was attributable to comparable sales of 16%"
    assert figure_context(line, 16).startswith("Net sales increased")
    assert not figure_context("Revenue was $5 billion. Costs were $3 billion.", 3).startswith("Revenue")


def test_an_amount_issued_is_not_the_balance_at_year_end() -> None:
    # "What was Coca-Cola's long-term debt at the end of 2017?" was verified as "$14,511 million"
    # over "long-term debt issuances of $14,511 million"
    page = ("The Company's total issuances of debt also included long-term debt issuances of $14,511 million, net of "
            "related discounts. At December 31, 2024, long-term debt was $31,182 million.\n")
    question = "What was Acme's long-term debt at the end of 2024?"
    concept = set(tokenize("long-term debt"))
    wrong = verify_answer("Acme's long-term debt was $14,511 million.", [], question, _annual_page(page), 2,
                          concept=concept)
    assert not wrong.ok and "issuances" in wrong.reason, wrong.reason
    right = verify_answer("Acme's long-term debt was $31,182 million.", [], question, _annual_page(page), 2,
                          concept=concept)
    assert right.ok, right.reason
    asked = verify_answer("Acme's long-term debt issuances were $14,511 million.", [],
                          "What long-term debt issuances did Acme have in 2024?", _annual_page(page), 2,
                          concept=concept | {"issuance"})
    assert "issuances" not in asked.reason, asked.reason


def test_a_part_after_reflecting_is_not_the_clauses_figure() -> None:
    # "What was JPMorgan's provision for credit losses in the second quarter of 2023?" was
    # verified as "$1.5 billion" over "The provision for credit losses was $2.9 billion,
    # reflecting a $1.5 billion net addition to the allowance for credit losses"
    line = ("The provision for credit losses was $2.9 billion, reflecting a $1.5 billion net addition to the "
            "allowance for credit losses and $1.4 billion of net charge-offs.")
    assert "provision" not in figure_context(line, 1.5)
    assert "provision" in figure_context(line, 2.9)
    # a connector before the sentence's only figure changes nothing
    assert "Revenue" in figure_context("Revenue grew, reflecting higher sales of $5.0 billion.", 5.0)


def test_the_answer_names_its_figure_as_its_quote_does() -> None:
    page = ("Quarterly results\nThe provision for credit losses was $2.9 billion, reflecting a $1.5 billion net "
            "addition to the allowance for credit losses and $1.4 billion of net charge-offs.\n")
    question = "What was Acme's provision for credit losses in the second quarter of 2024?"
    concept = set(tokenize("provision for credit losses"))
    # the library's idf: "provision" is in many of a bank's sentences, "credit" and "losses" fewer
    idf = {t: 1.0 if t == "provision" else 3.0 for t in concept}
    wrong = verify_answer("The provision for credit losses was $1.5 billion, reflecting a net addition to the "
                          "allowance.", [], question, _annual_page(page), 2, concept=concept, idf=idf)
    assert not wrong.ok and "provision" in wrong.reason, wrong.reason
    right = verify_answer("The provision for credit losses was $2.9 billion.", [], question, _annual_page(page), 2,
                          concept=concept, idf=idf)
    assert right.ok, right.reason


def test_a_sentence_under_another_years_comparison_heading_is_that_years() -> None:
    # "What drove Netflix's domestic streaming revenue growth in FY2015?" was verified as "… due to
    # the 22% growth in the average number of paid memberships", 2014's sentence
    page = ("Year ended December 31, 2024 as compared to the year ended December 31, 2023\n"
            "The increase in our domestic revenues was due to the 17% growth in the average number of paid "
            "memberships.\n"
            "Year ended December 31, 2023 as compared to the year ended December 31, 2022\n"
            "The increase in our domestic revenues was due to the 22% growth in the average number of paid "
            "memberships.\n")
    question = "What drove Acme's domestic revenue growth in FY2024?"
    concept = set(tokenize("domestic revenue growth"))
    wrong = verify_answer("The increase in our domestic revenues was due to the 22% growth in the average number of "
                          "paid memberships.", [], question, _annual_page(page), 2, concept=concept)
    assert not wrong.ok and "section on 2023" in wrong.reason, wrong.reason
    right = verify_answer("The increase in our domestic revenues was due to the 17% growth in the average number of "
                          "paid memberships.", [], question, _annual_page(page), 2, concept=concept)
    assert right.ok, right.reason


def test_a_count_of_hires_quoted_twice_is_still_no_headcount() -> None:
    # the check compared the number of distinct event words with the number of quotes: two
    # quotes both saying "hired" let the figure through
    page = ("During 2024, we hired more than 14,000 employees.\n"
            "Talent. In the year we hired more than 14,000 employees across our sites.\n")
    v = verify_answer("14,000 employees", ["During 2024, we hired more than 14,000 employees.",
                                          "In the year we hired more than 14,000 employees across our sites."],
                      "How many employees did Acme have at the end of 2024?", _annual_page(page), 2,
                      concept={"employee"})
    assert not v.ok and "of hired" in v.reason, v.reason


@pytest.mark.parametrize(("line", "row"), [
    ("Benefit from (provision for) income taxes $ 747 * * $ (1,928)", True),  # "not meaningful" cells
    ("Total net revenues $ 40,479 4% 3% $ 39,068", True),
    ("Effective tax (benefit) expense rate (5.7%) 16.0%", True),
    ("We recognized a benefit from income taxes in fiscal 2021 of $747 million, compared with $1,928 million.", False),
])
def test_a_row_with_sign_and_not_meaningful_cells_is_a_row(line: str, row: bool) -> None:
    from desktop_rag.core.answer.verify import is_row_unit

    assert is_row_unit(line) is row


EPS_PAGE = (
    "Diluted earnings per share 2.20 2.48 (11)%\n"
    "Prior year net income and diluted EPS were positively impacted\n"
    "by the net tax benefit related to the transfer of intangible properties, which resulted in an increase to net income and "
    "diluted EPS of $3.3\nbillion and $0.43, respectively.\n"
)


def test_a_figure_of_a_sentence_about_the_prior_period_is_no_answer_for_the_period_asked() -> None:
    passages = _page_passages(EPS_PAGE, 11)
    wrong = verify_answer("Q1 2023 diluted EPS was $0.43.", [], "Microsoft Q1 2023 diluted EPS?", passages, 2,
                          concept={"eps", "diluted"})
    assert not wrong.ok and "prior period" in wrong.reason
    # the prior year asked: that sentence is its evidence
    asked = verify_answer("The prior year's diluted EPS benefit was $0.43.", [],
                          "How much did the tax benefit add to diluted EPS in the prior year?", passages, 2,
                          concept={"eps", "diluted"})
    assert "prior period" not in asked.reason


def test_a_heading_or_a_line_s_name_is_no_statement() -> None:
    from desktop_rag.core.answer.verify import is_title_line

    assert is_title_line("Debt highlights (1)") and is_title_line("Hewlett-Packard Company Litigation")
    assert is_title_line("Income (loss) Attributable to Common")
    assert not is_title_line("Revenue increased 5%.") and not is_title_line("Net revenues $ 10,800 $ 10,746")
    assert not is_title_line("Oracle filed its opening brief on March 7, 2019.")


def test_a_prose_line_dense_with_figures_is_no_table_row() -> None:
    from desktop_rag.core.answer.verify import is_row_unit

    line = ("at December 31, 2022 totaled $35.9 billion, compared with $35.6 billion at December 31, 2021. The net "
            "increase in 2022 was due to net issuances of $1.2")
    assert not is_row_unit(line)
    assert is_row_unit("Net revenues $ 10,800 $ 10,746 $ 9,927") and is_row_unit("Total debt 35,904 35,623")
    # a sentence is split where it ends, not at the line that looked like a row
    page = "Debt obligations\n" + line + "\nbillion, partly offset by exchange rates of $814 million.\n"
    units = [page[a:b] for a, b in split_units(page)]
    assert any(u.startswith("The net increase in 2022 was due to") for u in units)


def test_a_sentence_printed_again_in_other_words_restates_it() -> None:
    from desktop_rag.core.answer.verify import restates

    first = "As of June 30, 2023, approximately $3.3 billion remains available under the Company's 2019 Authorization."
    again = ("As of June 30, 2023, approximately $3.3 billion remains available under our 2019 Authorization, which "
             "does not have an expiration date.")
    assert restates(first, again) and restates(again, first)
    assert not restates(first, first.replace("$3.3", "$4.1"))  # another figure is another statement
    assert not restates(first, "As of June 30, 2023, the Company had 1,234 employees in 2023.")


def test_the_safe_harbors_list_of_verbs_is_stock_language() -> None:
    from desktop_rag.core.answer.verify import STOCK_LANGUAGE

    assert STOCK_LANGUAGE.search("These statements relate to plans, objectives, expectations and estimates and may "
                                 "contain words such as \u201cwill,\u201d \u201cbelieve,\u201d \u201canticipate\u201d")


def test_a_figure_of_a_respectively_list_is_the_year_at_its_place() -> None:
    from desktop_rag.core.answer.verify import respectively_year

    quote = ("The Walmart U.S. segment had net sales of $318.5 billion , $307.8 billion and $298.4 billion for\nfiscal "
             "2018 , 2017 and 2016 , respectively.")
    question = "What were net sales of the Walmart U.S. segment in fiscal 2018?"
    assert respectively_year(quote, 307.8, question) == 2017
    assert respectively_year(quote, 318.5, question) is None  # the asked year's own figure
    assert respectively_year("Net sales were $318.5 billion in fiscal 2018.", 318.5, question) is None
    assert respectively_year(quote, 307.8, "What were its net sales in fiscal 2017?") is None


def test_a_yes_no_answer_is_shown_as_its_verdict_and_the_filings_sentences() -> None:
    """The model's words after "No," claimed the opposite of its quotes; the verdict stays, the
    reason is the filing's sentence that denies."""
    page = ("Dividends. The Dividend Restriction provides that PG&E Corporation may not pay dividends on shares "
            "of its common stock until it recognizes $6.2 billion in Non-GAAP Core Earnings. "
            "The Board of Directors declared quarterly preferred dividends of the Utility.")
    question = ("Did PG&E pay common stock dividends in 2020? What restrictions does the FY2020 10-K describe on "
                "resuming them?")
    concept = {"common", "stock", "dividends"}
    model = "No, the 10-K describes the resumption of common stock dividends in fiscal year 2020."
    verdict = verify_answer(model, [], question, _page_passages(page, 9), 2, concept=concept, verdict_asked=True)
    assert verdict.ok, verdict.reason
    assert verdict.answer.startswith("No. The Dividend Restriction provides that PG&E Corporation may not pay")
    assert "resumption" not in verdict.answer
    # without the question read as a yes/no claim the model's sentence is checked as it stands
    plain = verify_answer(model, [], question, _page_passages(page, 9), 2, concept=concept)
    assert not plain.ok or "resumption" in plain.answer


def test_a_yes_against_quotes_that_all_deny_it_is_not_shown() -> None:
    from desktop_rag.core.answer.verify import verdict_with_quotes

    denies = Citation("d", "10q.pdf", 4, "There were no repurchases of our common stock during the nine months.")
    listed = Citation("d", "10q.pdf", 4, "Our common stock is listed on the Nasdaq Global Select Market.")
    concept = set(tokenize("repurchases of our common stock"))
    assert verdict_with_quotes("Yes", [denies, listed], concept, None) is None  # the one quote about it denies
    assert verdict_with_quotes("No", [listed, denies], concept, None) == (
        "No. There were no repurchases of our common stock during the nine months.")
    authorised = Citation("d", "10q.pdf", 4, "In 2022 the Board authorized repurchases of our common stock.")
    assert verdict_with_quotes("yes", [denies, authorised], concept, None) == (
        "Yes. In 2022 the Board authorized repurchases of our common stock. … There were no repurchases of our "
        "common stock during the nine months.")


def test_a_prose_line_running_on_to_a_year_or_a_second_scale_word_is_no_table_row() -> None:
    page = ("Our effective tax rate was (99.5)% in 2016 compared to 19.1% in 2015 . The decrease in our effective tax rate "
            "during 2016 compared to 2015\nwas primarily due to the recognition in 2016 of deferred tax assets of "
            "approximately $4.6 billion. This was partially off-set by the $485 million tax effect on the $1.3 billion "
            "gain on the sale of our equity holdings\nof MercadoLibre, Inc.\nOur effective tax rate was 19% in 2015 "
            "compared to 134% in 2014.\n")
    units = [page[a:b] for a, b in split_units(page)]
    assert units[0] == "Our effective tax rate was (99.5)% in 2016 compared to 19.1% in 2015 ."
    assert units[1].startswith("The decrease in our effective tax rate during 2016 compared to 2015\nwas primarily due")
    # a company's "Inc." ends its sentence when the next opens as a sentence does
    assert units[2].endswith("of MercadoLibre, Inc.") and units[3].startswith("Our effective tax rate was 19%")
    from desktop_rag.core.answer.verify import is_row_unit

    assert not is_row_unit("totaled $35.9 billion, compared with $35.6 billion 2022")


def test_a_row_whose_label_wraps_is_one_unit_and_a_line_running_on_is_prose() -> None:
    page = ("The following table sets forth the repurchases of\ncommon stock for the three months ended March 31, 2023\n"
            "and 2022.\nThree months ended March 31,\n(in millions) 2023 2022\nTotal number of shares of common\n"
            "stock repurchased 22.0 18.1\nNet revenue\nInvestment banking fees 1,649 2,100")
    units = [page[a:b] for a, b in split_units(page)]
    assert "Total number of shares of common\nstock repurchased 22.0 18.1" in units
    assert ("The following table sets forth the repurchases of\ncommon stock for the three months ended March 31, 2023\n"
            "and 2022.") in units
    # a group's label over a row that opens in capitals stays apart
    assert "Investment banking fees 1,649 2,100" in units and "Net revenue" in units


ORCL_PAGE = ("As of May 31, 2016, we employed approximately 136,000 full-time employees, including approximately 38,000 "
             "in sales and marketing and approximately 40,000 in research and development.")


def test_one_figure_given_for_two_facts_asked_is_refused() -> None:
    q = "How many full-time employees did Oracle have as of May 31, 2016, and how many were in research and development?"
    twice = "Oracle had 136,000 full-time employees as of May 31, 2016, and 136,000 were in research and development."
    v = verify_answer(twice, [], q, _page_passages(ORCL_PAGE, 22), 2, concept={"employe", "research", "develop"})
    assert not v.ok and v.reason == "figure 136000 is given for two of the facts asked"
    right = "Oracle had 136,000 full-time employees as of May 31, 2016, and 40,000 were in research and development."
    assert "two of the facts" not in verify_answer(right, [], q, _page_passages(ORCL_PAGE, 22), 2,
                                                   concept={"employe", "research", "develop"}).reason


def test_a_phrase_said_twice_is_a_model_looping() -> None:
    from desktop_rag.core.answer.verify import _repeats_itself
    assert _repeats_itself("The Company and the agents, dated August 14, 2023 (as amended, the Indenture), and the terms "
                           "agreements, dated August 14, 2023 (as amended, the Indenture), and more.")
    assert not _repeats_itself("The notes were issued under the Indenture dated October 19, 1996, with U.S. Bank as trustee.")


def test_a_word_of_the_question_in_another_form_weighs_a_sentence_up() -> None:
    """"being added" and "adding a 4th D": the sentence using the question's verb in another
    form ranks above one sharing only the question's other words."""
    from desktop_rag.core.answer.verify import best_units
    text = ("As we kick off the new plan, we are also creating new leadership roles.\n"
            "We will do that through the plan while adding a fourth pillar, Restaurant Development.\n")
    meta = DocumentMeta(company="Example Corp", form_type="8-K", fiscal_year=2023)
    doc = Document("d" * 64, "EXAMPLE_8K.pdf", "x", 1, meta)
    passage = Passage(Hit(Chunk(1, doc.doc_id, 0, 12, 0, len(text), text), doc, 1.0), 0, len(text), text, text)
    terms = {"plan", "added"}  # without the inflection the two tie and the first leads
    _, _, a, b = best_units([passage], terms, [], 2, want_numbers=False)[0]
    assert "adding a fourth pillar" in text[a:b]


def test_a_title_or_company_form_before_a_name_ends_no_sentence() -> None:
    text = ("In 2018, we completed the acquisition of 100% of Giosis Pte. Ltd.\u2019s Japan business. "
            "Mr. Benioff wrote to employees. Dr. Smith agreed.")
    assert [text[a:b] for a, b in split_units(text)] == [
        "In 2018, we completed the acquisition of 100% of Giosis Pte. Ltd.\u2019s Japan business.",
        "Mr. Benioff wrote to employees.", "Dr. Smith agreed."]


def test_a_definition_of_the_filings_own_term_is_stock_language() -> None:
    from desktop_rag.core.answer.verify import STOCK_LANGUAGE
    assert STOCK_LANGUAGE.search("For purposes of this Form 10-Q, \u201cRussia\u201d refers to exposure to clients")
    assert not STOCK_LANGUAGE.search("The Firm\u2019s exposure to Russia is not material to its financial condition.")


def test_an_answer_leaving_out_the_claim_asked_beside_a_fact_is_not_verified() -> None:
    from desktop_rag.core.answer.verify import _claim_unsaid
    from desktop_rag.core.domain.question import read_question
    intent = read_question("How much will the Utility pay under the stipulation, and is it recoverable through rates?")
    assert _claim_unsaid("The Utility will pay $50 million.", intent) == "is it recoverable through rates"
    assert _claim_unsaid("The Utility will pay $50 million, which will not be recoverable through rates.", intent) == ""
