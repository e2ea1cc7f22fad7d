"""core/answer.py: JSON extraction from model output, quote validation, answer
verification, streaming display, and the pipeline with a scripted generator."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from desktop_rag.core.answer import (
    AnswerEngine,
    AnswerTextStream,
    Passage,
    locate_quote,
    number_supported,
    numbers_in,
    parse_model_json,
    passages_for,
    verify_answer,
)
from desktop_rag.core.pdf import fold_text, match_form
from desktop_rag.core.types import Chunk, Document, DocumentMeta, Hit
from desktop_rag.settings import Settings

# -- parse_model_json -----------------------------------------------------------------------------


def test_parse_clean_json() -> None:
    raw = json.dumps({"answer": "Net sales were $81,797 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 81,797"}]})
    assert parse_model_json(raw) == ("Net sales were $81,797 million.", ["Total net sales 81,797"])


def test_parse_chatter_around_json() -> None:
    raw = ('Sure! Here is the JSON you asked for:\n```json\n'
           '{"answer": "It grew 8%.", "citations": [{"chunk": "P2", "quote": "increased 8 % year over year"}]}\n'
           '```\nLet me know if you need anything else {smile}.')
    assert parse_model_json(raw) == ("It grew 8%.", ["increased 8 % year over year"])


def test_parse_truncated_json_salvages_answer_and_complete_quotes() -> None:
    raw = ('{"answer": "Net sales were \\"strong\\" at $81,797 million", "citations": ['
           '{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}, {"chunk": "P2", "quote": "Products $ 60,5')
    answer, quotes = parse_model_json(raw)
    assert answer == 'Net sales were "strong" at $81,797 million'
    assert quotes == ["Total net sales 81,797 82,959"]  # the cut-off quote is dropped


def test_parse_truncated_inside_answer() -> None:
    answer, quotes = parse_model_json('{"answer": "Research and development expense was 7,4')
    assert answer == "Research and development expense was 7,4"
    assert quotes == []


def test_parse_plain_text_and_empty() -> None:
    assert parse_model_json("Net sales were $81.8 billion.") == ("Net sales were $81.8 billion.", [])
    assert parse_model_json("") == ("", [])
    assert parse_model_json("   ") == ("", [])


def test_parse_wrong_types_are_ignored() -> None:
    raw = json.dumps({"answer": 42, "citations": [{"quote": 7}, "P1", {"chunk": "P1", "quote": "real quote"}]})
    assert parse_model_json(raw) == ("", ["real quote"])
    assert parse_model_json('{"answer": "x", "citations": null}') == ("x", [])


def test_parse_two_objects_takes_the_first_answer() -> None:
    raw = '{"answer": "first", "citations": []}\n{"answer": "second", "citations": []}'
    answer, _ = parse_model_json(raw)
    assert answer == "first"


def test_parse_unicode_escapes() -> None:
    raw = '{"answer": "Caf\\u00e9 sales rose \\u2014 a lot", "citations": []}'
    assert parse_model_json(raw)[0] == "Café sales rose — a lot"


# -- AnswerTextStream -------------------------------------------------------------------------------
def _feed_all(pieces: list[str]) -> str:
    stream = AnswerTextStream()
    return "".join(stream.feed(p) for p in pieces)


def test_stream_decodes_answer_incrementally() -> None:
    stream = AnswerTextStream()
    assert stream.feed('{"ans') == ""
    assert stream.feed('wer": "Net ') == "Net "
    assert stream.feed("sales") == "sales"
    assert stream.feed('", "citations": [{"quote": "other"}]}') == ""
    assert stream.feed(" more") == ""
    assert stream.raw.endswith(" more")


def test_stream_escape_split_across_pieces() -> None:
    pieces = ['{"answer": "Line one', "\\", 'nline \\"two', "\\", '" and a back\\', "\\slash", '"}']
    assert _feed_all(pieces) == 'Line one\nline "two" and a back\\slash'


def test_stream_unicode_escape_split_across_pieces() -> None:
    # json.dumps-style output escapes non-ASCII: the live text must show the character.
    pieces = ['{"answer": "Caf', "\\u00", 'e9 up 5% \\u20', '14 strong", "citations": []}']
    assert _feed_all(pieces) == "Café up 5% — strong"


def test_stream_matches_parse_model_json() -> None:
    raw = json.dumps({"answer": 'Tab\there, "quoted", slash / and newline\nend', "citations": []})
    for size in (1, 2, 3, 7):
        pieces = [raw[i:i + size] for i in range(0, len(raw), size)]
        assert _feed_all(pieces) == parse_model_json(raw)[0], size


# -- numbers --------------------------------------------------------------------------------------
def test_numbers_in() -> None:
    assert numbers_in("Net sales $81,797 and (265) or 15.7% and 2023") == [81797.0, 265.0, 15.7, 2023.0]
    assert numbers_in("no figures here") == []


@pytest.mark.parametrize(
    ("value", "candidates", "ok"),
    [
        (81797.0, [81797.0], True),
        (81.8, [81797.0], True),  # $81.8 billion for 81,797 (millions)
        (81.797, [81797.0], True),
        (7.4, [7442.0], True),
        (81.9, [81797.0], False),
        (82.0, [81797.0], False),  # no decimals given: only an exact match counts
        (99999.0, [81797.0, 82959.0], False),
        (1.3, [1.27], False),
    ],
)
def test_number_supported(value: float, candidates: list[float], ok: bool) -> None:
    assert number_supported(value, candidates) is ok


# -- passages and quotes --------------------------------------------------------------------------
PAGE = (
    "Products and Services Performance\n"
    "Net sales decreased during the third quarter of 2023 compared to the same quarter in 2022.\n"
    "The year-over-year decrease was driven primarily by lower net sales of Mac and iPad.\n"
    "Total net sales 81,797 82,959 293,787 304,182\n"
    "Services net sales increased due to higher advertising, cloud and AppleCare revenue."
)
DOC = Document("f" * 64, "2023 Q3 AAPL.pdf", "/x/2023 Q3 AAPL.pdf", 30,
               DocumentMeta(company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))


@dataclass
class PageLibrary:
    """The part of Library that passages_for needs."""

    pages: dict[tuple[str, int], str]

    def page_text(self, doc_id: str, page: int) -> str:
        return self.pages[(doc_id, page)]


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


# -- the pipeline with a scripted generator -----------------------------------------------------------
class ScriptedGenerator:
    """Duck-types LlamaGenerator: returns canned output in small pieces."""

    name = "scripted-model"

    def __init__(self, output: str) -> None:
        self.output = output
        self.prompts: list[object] = []

    def build_prompt(self, question: str, passages: list[tuple[str, str, str]]) -> str:
        self.prompts.append((question, passages))
        return question

    def stream(self, prompt: object, cancel: threading.Event | None = None, **_: object) -> Iterator[str]:
        for i in range(0, len(self.output), 5):
            if cancel is not None and cancel.is_set():
                return
            yield self.output[i:i + 5]

    def close(self) -> None:
        pass


QUESTION = "What was Apple's total net sales in Q3 2023?"


@pytest.fixture(autouse=True)
def _no_statement_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise retrieval + generation + verification; QUESTION would otherwise be
    answered from the extracted income statement (tested in tests/unit/core/statements)."""
    from desktop_rag.core.statements import answer as statement_answer

    monkeypatch.setattr(statement_answer, "calculate", lambda *a, **k: None)


def _engine(library, output: str) -> tuple[AnswerEngine, ScriptedGenerator]:
    gen = ScriptedGenerator(output)
    return AnswerEngine(library, library.settings, gen), gen  # type: ignore[arg-type]


def _check_citations(library, answer) -> None:
    for c in answer.citations:
        page_text = library.page_text(c.doc_id, c.page)
        assert fold_text(c.quote) in match_form(page_text), c


def test_engine_keeps_a_verified_model_answer(build_library) -> None:
    lib = build_library()
    out = json.dumps({"answer": "Apple's total net sales were $81,797 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})
    engine, gen = _engine(lib, out)
    events = list(engine.ask_stream(QUESTION))
    kinds = [e.kind for e in events]
    assert kinds[0] == "retrieved" and kinds[-1] == "answer" and "token" in kinds
    streamed = "".join(e.text for e in events if e.kind == "token")
    assert streamed == "Apple's total net sales were $81,797 million."
    ans = events[-1].answer
    assert not ans.not_in_corpus and not ans.extractive
    assert ans.answer == "Apple's total net sales were $81,797 million."
    assert ans.model == "scripted-model"
    assert any(c.page == 2 and "81,797" in c.quote for c in ans.citations)
    _check_citations(lib, ans)
    assert gen.prompts and any("81,797" in text for _, _, text in gen.prompts[0][1])
    data = ans.to_json()
    assert set(data) == {"query", "answer", "not_in_corpus", "extractive", "citations", "model", "timings_ms",
                         "calculation", "computed"}
    assert data["calculation"] is None and data["computed"] is False
    assert set(data["timings_ms"]) == {"retrieve", "first_token", "total"}
    assert all(set(c) == {"doc", "page", "quote"} for c in data["citations"])


def test_engine_falls_back_to_extractive_on_a_wrong_figure(build_library) -> None:
    lib = build_library()
    out = json.dumps({"answer": "Apple's total net sales were $95,000 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 95,000"}]})
    engine, _ = _engine(lib, out)
    ans = engine.ask(QUESTION)
    assert ans.extractive and not ans.not_in_corpus
    assert "95,000" not in ans.answer
    assert ans.citations
    assert any("81,797" in c.quote for c in ans.citations)
    _check_citations(lib, ans)
    assert any(n.startswith("extractive fallback") for n in ans.notes), ans.notes


@pytest.mark.parametrize("output", ['{"answer": "Total net sales were 81,7', "garbage }{ output", ""])
def test_engine_survives_broken_model_output(build_library, output: str) -> None:
    lib = build_library()
    engine, _ = _engine(lib, output)
    ans = engine.ask(QUESTION)
    assert ans.citations, "a verified or extractive answer with quotes"
    _check_citations(lib, ans)


def test_engine_out_of_corpus_never_calls_the_model(build_library) -> None:
    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "1.2 million vehicles", "citations": []}))
    ans = engine.ask("How many vehicles did Tesla deliver in Q3 2023?")
    assert ans.not_in_corpus
    assert ans.citations == []
    assert gen.prompts == []
    assert ans.to_json()["not_in_corpus"] is True


def test_engine_without_generator_is_extractive(build_library) -> None:
    lib = build_library()
    engine = AnswerEngine(lib, Settings(), None)
    ans = engine.ask(QUESTION)
    assert ans.extractive and ans.model == ""
    assert any("81,797" in c.quote for c in ans.citations)
    _check_citations(lib, ans)


def test_engine_cancel_stops_and_flags(build_library) -> None:
    lib = build_library()
    cancel = threading.Event()
    cancel.set()
    engine, _ = _engine(lib, json.dumps({"answer": "Apple's total net sales were $81,797 million.", "citations": []}))
    ans = engine.ask(QUESTION, cancel=cancel)
    assert ans.cancelled
    assert ans.answer != "Apple's total net sales were $81,797 million."


def test_verify_needs_the_concept_beside_the_figure() -> None:
    # the figure is in a quote, but that quote is about net sales, not dividends: no support
    v = verify_answer("The dividend was $81,797 million.", ["Total net sales 81,797 82,959"],
                      "What dividend did Apple pay in Q3 2023?", _passages(), 2, concept={"dividend"})
    assert not v.ok
    assert "does not name what was asked" in v.reason
    ok = verify_answer("Apple's total net sales were $81,797 million.", ["Total net sales 81,797 82,959"],
                       "What were Apple's total net sales in Q3 2023?", _passages(), 2, concept={"revenue"})
    assert ok.ok, ok.reason


def _plan_for(question: str):  # type: ignore[no-untyped-def]
    from desktop_rag.core.query import parse_question
    from desktop_rag.core.types import QueryPlan

    parsed = parse_question(question)
    return QueryPlan(original=question, cleaned=parsed.question, bm25_terms=[], content_terms=[],
                     asked=parsed.question, instructions=parsed.instructions)


def test_figure_statement_gives_unit_scale_and_period() -> None:
    from desktop_rag.core.answer import figure_statement

    above = "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\n(In millions, except per-share amounts)\n"
    row, header = "Total net sales 81,797 82,959", "July 1, 2023 June 25, 2022"
    assert figure_statement(row, header, above, _plan_for("How much were net sales?")) == (
        "Total net sales: $81,797 million (2023)")
    assert figure_statement(row, header, above, _plan_for("How much were net sales in 2022?")) == (
        "Total net sales: $82,959 million (2022)")
    asked = _plan_for("How much were net sales? Answer in USD billions, rounded to two decimal places.")
    assert figure_statement(row, header, above, asked) == "Total net sales: $81.80 billion (2023)"
    eps = figure_statement("Diluted $ 1.26 $ 1.20", "2023 2022", above, _plan_for("What was diluted EPS?"))
    assert eps == "Diluted: $1.26 (2023)"
    # columns that cannot be matched to the header's periods give no figure (the row is quoted instead)
    assert figure_statement("Total net sales 81,797 82,959 70,000", "2023 2022", above, _plan_for("How much?")) == ""


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
    from desktop_rag.core.answer import split_units

    units = [FOOTER_PAGE[a:b] for a, b in split_units(FOOTER_PAGE)]
    assert "The Company\u2019s cash position remained strong at the end of the\nfiscal year" in units
    assert not any(u.endswith("59") and len(u) > 2 for u in units)


class SequenceGenerator(ScriptedGenerator):
    """A scripted generator whose successive answers differ (one per attempt)."""

    def __init__(self, outputs: list[str]) -> None:
        super().__init__(outputs[0])
        self.outputs = outputs

    def stream(self, prompt: object, cancel: threading.Event | None = None, **kw: object) -> Iterator[str]:
        self.output = self.outputs[min(len(self.prompts) - 1, len(self.outputs) - 1)]
        yield from super().stream(prompt, cancel, **kw)


def test_engine_retries_a_failed_verification_with_a_reformulated_query(build_library) -> None:
    lib = build_library()
    wrong = json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []})
    right = json.dumps({"answer": "Apple's total net sales were $81,797 million.",
                        "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})
    gen = SequenceGenerator([wrong, right])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    ans = engine.ask(QUESTION)
    assert not ans.extractive and ans.answer == "Apple's total net sales were $81,797 million."
    assert ans.timings_ms["attempt"] == 2.0
    assert ans.notes[0].startswith("attempt 1:") and ans.notes[1].startswith("attempt 2 (")
    assert len(gen.prompts) == 2
    _check_citations(lib, ans)


def test_engine_stops_after_three_retries(build_library) -> None:
    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []}))
    ans = engine.ask(QUESTION)
    assert ans.extractive and len(gen.prompts) <= 4
    assert sum(n.startswith("attempt") for n in ans.notes) == len(gen.prompts)


def test_concept_needs_its_distinctive_term_and_most_of_its_weight() -> None:
    from desktop_rag.core.answer import carries_concept
    from desktop_rag.core.lexical import tokenize

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


def test_engine_refuses_a_missing_period_before_any_statement_calculation(
        build_library, monkeypatch: pytest.MonkeyPatch) -> None:
    # the calculator would take the library's only quarter for "Q1 2019"; the gate decides first
    from desktop_rag.core.statements import answer as statement_answer

    calls: list[str] = []
    monkeypatch.setattr(statement_answer, "calculate", lambda q, *a, **k: calls.append(q))
    engine, gen = _engine(build_library(), json.dumps({"answer": "$81,797 million", "citations": []}))
    ans = engine.ask("What were Apple's total net sales in Q1 2019?")
    assert calls == [] and gen.prompts == []
    assert ans.not_in_corpus and ans.answer.startswith("No filing of Apple Inc. covers Q1 2019")


# -- answers the small model cut short, explanations with amounts ------------------------------------
MDNA_PAGE = (
    "Gross Margin\n"
    "The increase in gross margin was primarily driven by higher volumes in every segment and lower restructuring\n"
    "charges of $41 million, partially offset by higher freight costs for the year ended December 31, 2024.\n"
    "Segment net sales 1,204 1,118 2,406\n"
    "Operating expenses were flat."
)


def _mdna_passages() -> list[Passage]:
    return [Passage(_hit(0, len(MDNA_PAGE), 9, text=MDNA_PAGE), 0, len(MDNA_PAGE), MDNA_PAGE)]


def test_a_verbatim_answer_cut_mid_sentence_is_finished_from_the_page() -> None:
    from desktop_rag.core.answer import complete_cut_sentence

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
    from desktop_rag.core.answer import complete_cut_sentence

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


def test_the_concept_checked_beside_a_figure_leaves_out_the_analysts_trend_words(build_library) -> None:
    lib = build_library()
    engine, _ = _engine(lib, "")
    plan = engine.retriever.plan("Per its 10-Q, what drove the change in Apple's total net sales in Q3 2023?")
    concept = engine._concept(plan, engine.retriever.search(plan))
    assert not concept & {"drove", "change", "10q"}  # filings write "driven", "decreased", not their form
    assert concept == {"revenue"}  # "total net sales" is read as the revenue concept


def test_a_cut_answer_whose_ending_is_the_pages_sentence_is_finished_too() -> None:
    from desktop_rag.core.answer import complete_cut_sentence

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
    from desktop_rag.core.answer import split_units

    text = ("In December 2018, Northwind IO, Inc. filed a complaint against the Company alleging that it infringed "
            "patents. The plaintiff seeks damages of $1.5 billion.")
    units = [text[a:b] for a, b in split_units(text)]
    assert units == ["In December 2018, Northwind IO, Inc. filed a complaint against the Company alleging that it "
                     "infringed patents.", "The plaintiff seeks damages of $1.5 billion."]


def test_statement_answer_is_what_ask_computes_before_any_generation(build_library, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.statements import answer as statement_answer
    from desktop_rag.core.statements.answer import Outcome

    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "x", "citations": []}))
    assert engine.statement_answer(QUESTION) is None  # this module's tests switch the calculator off
    monkeypatch.setattr(statement_answer, "calculate", lambda *a, **k: Outcome("Cannot compute: no statement.", [], None))
    refused = engine.statement_answer(QUESTION)
    assert refused is not None and refused.not_in_corpus and "Cannot compute" in refused.answer
    assert engine.ask(QUESTION).answer == refused.answer and gen.prompts == []
