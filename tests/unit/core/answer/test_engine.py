"""core/answer/engine.py: the pipeline (retrieve, gate, generate, verify, fall back, retry)
with a scripted generator."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from desktop_rag.core.answer.engine import AnswerEngine
from desktop_rag.core.ingest.pdf import fold_text, match_form
from desktop_rag.settings import Settings


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
    answered from the extracted income statement (tested in tests/unit/core/calculate)."""
    from desktop_rag.core.calculate import calculator

    monkeypatch.setattr(calculator, "calculate", lambda *a, **k: None)


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
                         "calculation", "computed", "evidence"}
    assert data["calculation"] is None and data["computed"] is False
    assert set(data["timings_ms"]) == {"retrieve", "first_token", "total", "evidence"}
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
    engine.settings.generation.retry_evidence_words = 0  # reformulations only
    ans = engine.ask(QUESTION)
    assert not ans.extractive and ans.answer == "Apple's total net sales were $81,797 million."
    assert ans.timings_ms["attempt"] == 2.0
    attempts = [n for n in ans.notes if n.startswith("attempt ")]
    assert attempts[0].startswith("attempt 1:") and attempts[1].startswith("attempt 2 (")
    assert "evidence restated" not in attempts[1] and "table row" not in attempts[1]
    assert len(gen.prompts) == 2
    _check_citations(lib, ans)


def test_a_failed_verification_is_retried_first_from_the_evidence_sentences_alone(build_library) -> None:
    lib = build_library()
    wrong = json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []})
    right = json.dumps({"answer": "Total net sales were $81,797 million.", "citations": []})
    gen = SequenceGenerator([wrong, right])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_evidence_words = 15  # the fixture's page is short: less than all of it
    ans = engine.ask(QUESTION)
    assert not ans.extractive and ans.answer == "Total net sales were $81,797 million."
    assert ans.timings_ms["attempt"] == 2.0
    attempts = [n for n in ans.notes if n.startswith("attempt ")]
    assert attempts[1].startswith("attempt 2 (evidence restated):") and attempts[1].endswith("verified")
    assert len(gen.prompts) == 2
    (first_q, first_ps), (again_q, again_ps) = gen.prompts
    assert again_q == first_q  # the same question, asked of less text
    shown = "\n".join(t for _, _, t in again_ps)
    assert "Total net sales 81,797 82,959" in shown and "2023 2022" in shown  # the row and its column headings
    assert "Liquidity" not in shown and "NVIDIA" not in " ".join(h for _, h, _ in again_ps)
    assert len(shown.split()) <= engine.settings.generation.retry_evidence_words
    assert len(shown.split()) < sum(len(t.split()) for _, _, t in first_ps)
    assert any("81,797" in c.quote for c in ans.citations)  # the shown row is the quote, found on the page
    _check_citations(lib, ans)


def test_the_evidence_retry_is_checked_by_the_same_verifier(build_library) -> None:
    lib = build_library()
    wrong = json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []})
    still_wrong = json.dumps({"answer": "Total net sales were $82,000 million.", "citations": []})
    gen = SequenceGenerator([wrong, still_wrong])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_evidence_words = 60  # off by default (README: measured)
    ans = engine.ask(QUESTION)
    assert ans.extractive and "82,000" not in ans.answer
    restated = [n for n in ans.notes if "(evidence restated)" in n]
    assert restated == [restated[0]] and not restated[0].endswith("verified")
    # the evidence retry counts among the three: at most four generations in all
    assert len(gen.prompts) <= 4 and sum(n.startswith("attempt") for n in ans.notes) == len(gen.prompts)


def test_the_evidence_retry_can_only_copy_the_figures_it_is_shown(build_library) -> None:
    lib = build_library()
    wrong = json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []})
    right = json.dumps({"answer": "Total net sales were $81,797 million.", "citations": []})

    class Recording(SequenceGenerator):
        grammars: list[str] = []

        def stream(self, prompt: object, cancel: threading.Event | None = None, **kw: object) -> Iterator[str]:
            self.grammars.append(str(kw.get("answer_grammar", "")))
            yield from super().stream(prompt, cancel, **kw)

    gen = Recording([wrong, right])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_evidence_words = 15
    assert not engine.settings.generation.retry_copied_figures  # off by default
    assert not engine.ask(QUESTION).extractive and gen.grammars == ["", ""]
    gen.grammars.clear()
    gen.prompts.clear()
    engine.settings.generation.retry_copied_figures = True
    ans = engine.ask(QUESTION)
    assert not ans.extractive and gen.grammars[0] == ""  # the first attempt is free
    figures = gen.grammars[1].split("num ::= ")[1].split(" | ")
    assert '"81,797"' in figures and '"95,000"' not in figures and '"13,507"' not in figures  # Nvidia's


def test_the_evidence_retry_shows_only_the_asked_companys_sentences_that_name_what_was_asked(
        build_library, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_rag.core.answer.verify import carries_concept
    from desktop_rag.core.domain.terms import tokenize

    lib = build_library()
    gen = SequenceGenerator([json.dumps({"answer": "Revenue was $13,507 million.", "citations": []})])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_evidence_words = 60  # off by default (README: measured)
    seen = []
    monkeypatch.setattr(engine, "_restate", lambda first, *a: seen.append(first))
    ans = engine.ask(QUESTION)  # Nvidia's revenue row holds the figure: not Apple's
    assert ans.extractive and len(seen) == 1
    units = engine._supporting_units(seen[0])
    assert units[0].quote == "Total net sales 81,797 82,959" and "2023 2022" in units[1].quote  # row, its headings
    assert {lib.docs[u.doc_id].file_name for u in units} == {"2023 Q3 AAPL.pdf"}
    rows = [u for u in units if "Ended" not in u.quote]  # not a table's column headings
    assert rows and all(carries_concept(tokenize(u.quote), seen[0].concept, lib.lexical.idf) for u in rows)


def test_engine_stops_after_three_retries(build_library) -> None:
    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []}))
    ans = engine.ask(QUESTION)
    assert ans.extractive and len(gen.prompts) <= 4
    assert sum(n.startswith("attempt") for n in ans.notes) == len(gen.prompts)


WRONG = json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []})
RIGHT = json.dumps({"answer": "Apple's total net sales were $81,797 million.",
                    "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})


def test_no_retry_starts_once_the_answers_time_budget_is_spent(build_library) -> None:
    lib = build_library()
    gen = SequenceGenerator([WRONG, RIGHT])
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_table_rows = False
    engine.settings.generation.answer_budget_s = 1e-9  # spent by the first attempt
    ans = engine.ask(QUESTION)
    assert len(gen.prompts) == 1 and ans.extractive  # the evidence shown, not a retry's answer
    assert any("time budget (1e-09 s) is spent" in n for n in ans.notes), ans.notes
    engine.settings.generation.answer_budget_s = 0.0  # no limit: the retry runs and verifies
    gen.prompts.clear()
    assert engine.ask(QUESTION).answer == "Apple's total net sales were $81,797 million."


class Ticking(SequenceGenerator):
    """Each piece of a reply takes ``step`` seconds of the engine's (fake) clock."""

    def __init__(self, outputs: list[str], clock: list[float], step: float = 0.1) -> None:
        super().__init__(outputs)
        self.clock, self.step = clock, step

    def stream(self, prompt: object, cancel: threading.Event | None = None, **kw: object) -> Iterator[str]:
        for piece in super().stream(prompt, cancel, **kw):
            self.clock[0] += self.step
            yield piece


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The engine's clock, advanced by the generator only."""
    import types

    from desktop_rag.core.answer import engine as engine_module

    now = [0.0]
    monkeypatch.setattr(engine_module, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    return now


def test_a_retrys_generation_is_cut_at_the_answers_time_budget(build_library, clock) -> None:
    lib = build_library()
    gen = Ticking([WRONG, RIGHT], clock)
    gen.step = 0.0  # the first attempt at once ...
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_table_rows = False
    engine.settings.generation.answer_budget_s = 0.3
    orig = gen.stream

    def slow_retries(prompt: object, cancel: threading.Event | None = None, **kw: object) -> Iterator[str]:
        gen.step = 0.1 if len(gen.prompts) > 1 else 0.0  # ... a retry 0.1 s per piece
        yield from orig(prompt, cancel, **kw)

    gen.stream = slow_retries  # type: ignore[method-assign]
    ans = engine.ask(QUESTION)
    assert len(gen.prompts) == 2 and clock[0] == pytest.approx(0.3)  # the retry stopped at the budget
    assert ans.extractive and any("time budget (0.3 s) is spent" in n for n in ans.notes), ans.notes


def test_a_slow_first_attempt_is_cut_at_the_answers_time_budget(build_library, clock) -> None:
    lib = build_library()
    gen = Ticking([RIGHT], clock)
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_table_rows = False
    engine.settings.generation.answer_budget_s = 0.3
    ans = engine.ask(QUESTION)
    assert clock[0] == pytest.approx(0.3) and not ans.cancelled
    assert "attempt 1 cut at the answer's time budget (0.3 s)" in ans.notes
    assert ans.extractive and ans.answer != "Apple's total net sales were $81,797 million."


def test_no_retry_starts_that_would_outlast_the_budget(build_library, clock) -> None:
    lib = build_library()
    gen = Ticking([WRONG, RIGHT], clock)
    engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
    engine.settings.generation.retry_table_rows = False
    first_s = 0.1 * -(-len(WRONG) // 5)
    engine.settings.generation.answer_budget_s = first_s + 0.5  # less left than the first attempt took
    ans = engine.ask(QUESTION)
    assert len(gen.prompts) == 1 and ans.extractive
    assert any("would be: 0.5 s left, the first attempt's generation took" in n for n in ans.notes), ans.notes
    engine.settings.generation.answer_budget_s = 2 * first_s + 1.0  # room for one more
    gen.prompts.clear()
    clock[0] = 0.0
    assert engine.ask(QUESTION).answer == "Apple's total net sales were $81,797 million."


def test_engine_refuses_a_missing_period_before_any_statement_calculation(
        build_library, monkeypatch: pytest.MonkeyPatch) -> None:
    # the calculator would take the library's only quarter for "Q1 2019"; the gate decides first
    from desktop_rag.core.calculate import calculator

    calls: list[str] = []
    monkeypatch.setattr(calculator, "calculate", lambda q, *a, **k: calls.append(q))
    engine, gen = _engine(build_library(), json.dumps({"answer": "$81,797 million", "citations": []}))
    ans = engine.ask("What were Apple's total net sales in Q1 2019?")
    assert calls == [] and gen.prompts == []
    assert ans.not_in_corpus and ans.answer.startswith("No filing of Apple Inc. covers Q1 2019")


def test_the_concept_checked_beside_a_figure_leaves_out_the_analysts_trend_words(build_library) -> None:
    lib = build_library()
    engine, _ = _engine(lib, "")
    plan = engine.retriever.plan("Per its 10-Q, what drove the change in Apple's total net sales in Q3 2023?")
    concept = engine._concept(plan, engine.retriever.search(plan))
    assert not concept & {"drove", "change", "10q"}  # filings write "driven", "decreased", not their form
    assert concept == {"revenue"}  # "total net sales" is read as the revenue concept


def test_statement_answer_is_what_ask_computes_before_any_generation(build_library, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.calculate import calculator
    from desktop_rag.core.calculate.calculator import Outcome

    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "x", "citations": []}))
    assert engine.statement_answer(QUESTION) is None  # this module's tests switch the calculator off
    monkeypatch.setattr(calculator, "calculate", lambda *a, **k: Outcome("Cannot compute: no statement.", [], None))
    refused = engine.statement_answer(QUESTION)
    assert refused is not None and refused.not_in_corpus and "Cannot compute" in refused.answer
    assert engine.ask(QUESTION).answer == refused.answer and gen.prompts == []


# -- evidence before generation (issue #10: first useful output) ------------------------------------
def test_evidence_comes_before_the_first_token_with_exact_quotes(build_library) -> None:
    lib = build_library()
    out = json.dumps({"answer": "Apple's total net sales were $81,797 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})
    engine, _ = _engine(lib, out)
    events = list(engine.ask_stream(QUESTION))
    kinds = [e.kind for e in events]
    assert kinds.count("evidence") == 1
    assert kinds.index("retrieved") < kinds.index("evidence") < kinds.index("token")
    ev = events[kinds.index("evidence")].evidence
    assert ev is not None and ev.citations and ev.text == events[kinds.index("evidence")].text
    assert any("81,797" in c.quote for c in ev.citations)
    for c in ev.citations:  # exact page text of the asked company's filing
        assert fold_text(c.quote) in match_form(lib.page_text(c.doc_id, c.page))
        assert lib.docs[c.doc_id].file_name == "2023 Q3 AAPL.pdf"
    ans = events[-1].answer
    assert not ans.extractive and ans.evidence is ev  # the verified answer complements it
    assert 0 < ans.timings_ms["evidence"] <= ans.timings_ms["total"]
    data = ans.to_json()["evidence"]
    assert data["text"] == ev.text and all(set(c) == {"doc", "page", "quote"} for c in data["citations"])


def test_the_extractive_fallback_is_the_evidence_already_shown(build_library) -> None:
    lib = build_library()
    engine, _ = _engine(lib, json.dumps({"answer": "Apple's total net sales were $95,000 million.", "citations": []}))
    events = list(engine.ask_stream(QUESTION))
    ev = next(e.evidence for e in events if e.kind == "evidence")
    ans = events[-1].answer
    assert ans.extractive and ev is not None
    assert ans.answer == ev.text and [c.quote for c in ans.citations] == [c.quote for c in ev.citations]


def test_no_evidence_when_the_gate_refuses(build_library) -> None:
    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "1.2 million vehicles", "citations": []}))
    events = list(engine.ask_stream("How many vehicles did Tesla deliver in Q3 2023?"))
    assert "evidence" not in [e.kind for e in events]
    assert events[-1].answer.not_in_corpus and events[-1].answer.evidence is None
    assert events[-1].answer.to_json()["evidence"] is None
    assert gen.prompts == []


def test_no_evidence_event_without_a_model_the_answer_is_immediate(build_library) -> None:
    engine = AnswerEngine(build_library(), Settings(), None)
    events = list(engine.ask_stream(QUESTION))
    assert [e.kind for e in events] == ["retrieved", "answer"] and events[-1].answer.extractive


def test_evidence_keeps_to_one_company_when_the_question_names_none(build_library) -> None:
    lib = build_library()
    engine, _ = _engine(lib, json.dumps({"answer": "", "citations": []}))
    events = list(engine.ask_stream("What were revenue and gross profit?"))
    hits = next(e.hits for e in events if e.kind == "retrieved")
    assert len({h.doc.file_name for h in hits}) == 2  # both filers' passages were retrieved
    evidence = [e.evidence for e in events if e.kind == "evidence"]
    assert evidence and evidence[0] is not None and evidence[0].citations
    top = lib.docs[hits[0].chunk.doc_id].file_name
    assert {lib.docs[c.doc_id].file_name for c in evidence[0].citations} == {top}
    # and so does the quoted answer when the model's fails: the filing quoted is the evidence's
    # (FinanceBench's "Were there any board member nominees …" quoted Foot Locker and Lockheed)
    final = events[-1].answer
    assert final.extractive and {lib.docs[c.doc_id].file_name for c in final.citations} == {top}
    assert final.answer == evidence[0].text
    # within a one-company scope, the scope's company
    apple = next(d for d in lib.docs.values() if d.file_name == "2023 Q3 AAPL.pdf").doc_id
    scoped = [e.evidence for e in engine.ask_stream("What were revenue and gross profit?", doc_scope=[apple])
              if e.kind == "evidence"]
    assert all(c.doc_id == apple for ev in scoped if ev is not None for c in ev.citations)


def test_the_quoted_answer_never_reads_another_filers_passages(build_library, monkeypatch) -> None:
    # the extractive fallback used to be re-read from every passage when the evidence was the
    # top company's only, so a question naming no company could quote two filers
    import desktop_rag.core.answer.engine as answer_module

    read: list[set[str]] = []
    real = answer_module.extractive_answer

    def recording(asked, plan, passages, *args, **kw):  # type: ignore[no-untyped-def]
        read.append({p.hit.doc.file_name for p in passages})
        return real(asked, plan, passages, *args, **kw)

    monkeypatch.setattr(answer_module, "extractive_answer", recording)
    lib = build_library()
    engine, _ = _engine(lib, json.dumps({"answer": "", "citations": []}))
    final = engine.ask("What were revenue and gross profit?")
    assert final.extractive and read and all(len(files) == 1 for files in read), read


def test_ask_passes_every_event_to_its_listener(build_library) -> None:
    engine, _ = _engine(build_library(), json.dumps({"answer": "", "citations": []}))
    seen: list[str] = []
    ans = engine.ask(QUESTION, on_event=lambda ev: seen.append(ev.kind))
    assert seen[0] == "retrieved" and "evidence" in seen and seen[-1] == "answer" and ans.extractive


def test_the_prompt_carries_the_evidence_passages_first_within_its_budget(build_library) -> None:
    lib = build_library()
    out = json.dumps({"answer": "Apple's total net sales were $81,797 million.", "citations": []})
    engine, gen = _engine(lib, out)
    engine.settings.retrieval.prompt_evidence_words = 0  # passages, not the evidence's sentences
    engine.settings.retrieval.prompt_words = 1  # room for one passage: the evidence's
    events = list(engine.ask_stream(QUESTION))
    evidence = next(e.evidence for e in events if e.kind == "evidence")
    [(_, passages)] = gen.prompts
    assert len(passages) == 1 and evidence is not None
    assert any(fold_text(c.quote) in fold_text(passages[0][2]) for c in evidence.citations)
    engine.settings.retrieval.prompt_words = 0  # the whole context, as before the budget
    gen.prompts.clear()
    list(engine.ask_stream(QUESTION))
    assert len(gen.prompts[0][1]) > 1


def test_the_evidence_prompt_is_exact_page_text_around_the_quotes_and_verifies(build_library) -> None:
    from desktop_rag.core.answer.prompt_context import GAP

    lib = build_library()
    out = json.dumps({"answer": "Apple's total net sales were $81,797 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}]})
    engine, gen = _engine(lib, out)
    assert engine.settings.retrieval.prompt_evidence_words > 0  # the default
    engine.settings.retrieval.prompt_evidence_words = 0  # whole passages, as before the budget
    whole = [len(t.split()) for _, _, t in (list(engine.ask_stream(QUESTION)) and gen.prompts[0][1])]
    gen.prompts.clear()
    engine.settings.retrieval.prompt_evidence_words = 40
    events = list(engine.ask_stream(QUESTION))
    evidence = next(e.evidence for e in events if e.kind == "evidence")
    [(_, passages)] = gen.prompts
    assert evidence is not None and passages
    text = "\n".join(t for _, _, t in passages)
    for c in evidence.citations:  # every evidence quote is in the prompt, exactly
        assert c.quote in text
    for label, header, t in passages:
        assert label.startswith("P") and "page" in header
        for stretch in t.split(GAP):  # and every stretch is the page's own text
            assert any(stretch in lib.page_text(d, p) for d in lib.docs for p in range(1, lib.docs[d].pages + 1))
    assert sum(len(t.replace(GAP, " ").split()) for _, _, t in passages) <= max(
        40, max(len(c.quote.split()) for c in evidence.citations))
    assert sum(whole) > 40
    ans = events[-1].answer
    assert ans is not None and not ans.extractive and "81,797" in ans.answer  # verified against the pages
    _check_citations(lib, ans)
    # a failed verification's retries read their own evidence the same way
    gen.prompts.clear()
    engine.generator = gen = SequenceGenerator([json.dumps({"answer": "It was $95,000 million.", "citations": []}), out])
    engine.ask(QUESTION)
    assert len(gen.prompts) == 2 and all(
        sum(len(t.replace(GAP, " ").split()) for _, _, t in ps) < sum(whole) for _, ps in gen.prompts)


def test_a_figure_sentence_is_joined_with_the_sentence_beside_it_that_names_the_subject() -> None:
    from desktop_rag.core.answer.engine import _with_neighbour
    from desktop_rag.core.answer.verify import Passage, split_units

    text = ("Legal Proceedings\n"
            "In December 2018, Kove IO, Inc. filed a complaint against Amazon Web Services, Inc. in the United "
            "States District Court. Kove is seeking damages ranging from $517 million to $1.03 billion. "
            "We dispute the allegations.\n\nRevenue 13,507 6,704\n")
    p = Passage(None, 0, len(text), text)  # type: ignore[arg-type]
    a, b = next(u for u in split_units(text) if "517" in text[u[0]:u[1]])
    names_kove_io = lambda t: "Kove IO" in t and "damages" in t
    lo, hi = _with_neighbour(p, a, b, names_kove_io) or (0, 0)
    assert text[lo:hi].startswith("In December 2018, Kove IO") and text[lo:hi].endswith("$1.03 billion.")
    assert _with_neighbour(p, a, b, lambda t: "never printed" in t) is None
    row = next(u for u in split_units(text) if text[u[0]:u[1]].startswith("Revenue"))
    assert _with_neighbour(p, *row, lambda t: True) is None  # a table row is never joined


# -- the table-row retry: a figure off a table row, no model ------------------------------------------
def _table_pdf(path, cover: str, title: str, header: list[list[tuple[str, float]]],
               rows: list[list[tuple[str, float]]]):
    """A two-page PDF: a cover, then a table whose cells are printed right-aligned at their
    column's x (as filings print them), each line a list of (text, right edge)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for i, line in enumerate(cover.split("\n")):
        page.insert_text((50, 60 + 14.4 * i), line, fontsize=9, fontname="helv")
    page = doc.new_page(width=612, height=792)
    y = 60.0
    page.insert_text((50, y), title, fontsize=9, fontname="helv")
    for line in [*header, *rows]:
        y += 14.4
        for text, right in line:
            x = right if right < 0 else right - pymupdf.get_text_length(text, fontname="helv", fontsize=9)
            page.insert_text((abs(x), y), text, fontsize=9, fontname="helv")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def _category_library(tmp_path, fake_embedder):
    from desktop_rag.core.index.library import IngestReport, Library
    from tests.conftest import APPLE_PAGES, NVIDIA_PAGES, write_pdf

    cols = (300.0, 350.0, 390.0, 460.0, 510.0, 550.0)  # right edges: 3M 2023, 3M 2022, change, 9M ...
    header = [[("Three Months Ended", 350.0), ("Nine Months Ended", 510.0)],
              [("July 1,", 300.0), ("June 25,", 350.0), ("July 1,", 460.0), ("June 25,", 510.0)],
              [("2023", 300.0), ("2022", 350.0), ("Change", 390.0), ("2023", 460.0), ("2022", 510.0),
               ("Change", 550.0)],
              [("Net sales by category:", -50.0)]]
    figures = {"iPhone": ("39,669", "40,665", "(2)%", "156,778", "162,863", "(4)%"),
               "Services": ("21,213", "19,604", "8 %", "62,886", "58,941", "7 %"),
               "Total net sales": ("81,797", "82,959", "(1)%", "293,787", "304,182", "(3)%")}
    rows = [[(label, -50.0), *zip(cells, cols, strict=True)] for label, cells in figures.items()]
    path = _table_pdf(tmp_path / "src" / "2023 Q3 AAPL.pdf",
                      APPLE_PAGES[0],
                      "The following table shows net sales by category (dollars in millions):", header, rows)
    other = write_pdf(tmp_path / "src" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)  # a second filer, as a library has
    settings = Settings()
    settings.retrieval.gate_min_cosine = 0.0  # the fake embedder's cosines say nothing; the gate is not tested here
    lib = Library(tmp_path / "data", settings, fake_embedder)
    report = IngestReport()
    for _ in lib.ingest([path, other], report=report):
        pass
    assert not report.failed, report.failed
    return lib


def test_a_failed_verification_is_retried_from_the_table_row_without_the_model(tmp_path, fake_embedder) -> None:
    lib = _category_library(tmp_path, fake_embedder)
    try:
        wrong = json.dumps({"answer": "Services net sales were $95,000 million.", "citations": []})
        gen = SequenceGenerator([wrong])
        engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
        ans = engine.ask("What were Apple's Services net sales in Q3 2023?")
        attempts = [n for n in ans.notes if n.startswith("attempt ")]
        assert attempts[-1].startswith("attempt 2 (table row):") and attempts[-1].endswith("verified"), ans.notes
        assert ans.timings_ms["attempt"] == 2.0 and not ans.extractive
        # the quarter's column (not the nine months' 62,886 beside it), and no model call for it
        assert ans.answer.startswith("Services (Net sales by category): $21,213 million in the three months ended "
                                     "July 1, 2023"), ans.answer
        assert len(gen.prompts) == 1
        assert ans.citations[0].quote == "Services 21,213 19,604 8 % 62,886 58,941 7 %"
        _check_citations(lib, ans)
        engine.settings.generation.retry_table_rows = False
        off = engine.ask("What were Apple's Services net sales in Q3 2023?")
        assert not any("table row" in n for n in off.notes)
    finally:
        lib.close()


def test_the_further_pages_are_the_asked_companys_retrieved_pages_not_read_yet() -> None:
    from desktop_rag.core.answer.scope import PartsOfFilings
    from desktop_rag.core.answer.verify import passages_for
    from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Filters, Hit, QueryPlan
    from tests.conftest import PageLibrary

    own_doc = Document("a" * 64, "EXAMPLE_2022_10K.pdf", "x", 9, DocumentMeta(company="Example Corp"))
    other = Document("b" * 64, "OTHER_2022_10K.pdf", "y", 9, DocumentMeta(company="Other Inc."))
    texts = {(own_doc.doc_id, 1): "Revenue was $10.0 billion.", (own_doc.doc_id, 7): "Revenue increased due to volume.",
             (other.doc_id, 3): "Revenue increased due to price."}

    def hit(doc: Document, page: int) -> Hit:
        text = texts[(doc.doc_id, page)]
        return Hit(Chunk(page, doc.doc_id, 0, page, 0, len(text), text), doc, 1.0)

    library = PageLibrary(texts)
    library.docs = {own_doc.doc_id: own_doc, other.doc_id: other}  # type: ignore[attr-defined]
    engine = AnswerEngine.__new__(AnswerEngine)
    engine.library = library  # type: ignore[assignment]
    engine.parts = PartsOfFilings(lambda doc_id: [(n, t) for (d, n), t in texts.items() if d == doc_id])
    plan = QueryPlan(original="q", cleaned="q", bm25_terms=[], content_terms=[], doc_ids=[own_doc.doc_id],
                     filters=Filters(company=["Example Corp"]))
    hits = [hit(own_doc, 1), hit(own_doc, 7), hit(other, 3)]
    own = passages_for(library, hits[:1])  # type: ignore[arg-type]
    further = engine._further_passages(plan, hits, own, None)
    assert [(p.hit.chunk.doc_id, p.hit.chunk.page) for p in further] == [(own_doc.doc_id, 7)]


def test_a_ranking_of_the_companys_parts_is_computed_from_the_table_without_the_model(tmp_path, fake_embedder) -> None:
    lib = _category_library(tmp_path, fake_embedder)
    try:
        gen = SequenceGenerator([json.dumps({"answer": "iPhone grew fastest.", "citations": []})])
        engine = AnswerEngine(lib, lib.settings, gen)  # type: ignore[arg-type]
        ans = engine.ask("Which product category had the highest net sales growth in Q3 2023?")
        assert ans.computed and not ans.extractive and not ans.not_in_corpus, ans.notes
        assert ans.answer.startswith("Services grew faster: +8.2% ($21,213 million in the three months ended July 1, "
                                     "2023 vs $19,604 million in the three months ended June 25, 2022; the filing "
                                     "prints +8%)"), ans.answer
        assert "ahead of iPhone (\u22122.4%)" in ans.answer and "Total" not in ans.answer
        assert not gen.prompts  # no model: the figures are the table's cells and code's arithmetic
        calc = ans.calculation
        assert calc is not None and calc.unit == "percent" and calc.result == 8.2
        assert [(i.label, i.value) for i in calc.inputs[:3]] == [("Services", 21213.0), ("Services", 19604.0),
                                                                 ("Services", 8.0)]
        _check_citations(lib, ans)
        for i in calc.inputs:  # each input's cell is where the page prints it
            page = lib.page_text(i.doc_id, i.page)
            assert page[i.cell_start:i.cell_end].replace(" ", "") in i.quote.replace(" ", "")
    finally:
        lib.close()


def test_a_figure_asked_that_no_quote_gives_is_refused_with_the_nearest_passages_as_evidence(build_library) -> None:
    lib = build_library()
    engine = AnswerEngine(lib, Settings(), None)
    # the filing speaks of its capital return program, and gives no date of it
    ans = engine.ask("When did Apple start its capital return program?")
    assert ans.not_in_corpus and not ans.citations, ans
    assert ans.answer.startswith("No passage of the filings of Apple Inc. gives what was asked"), ans.answer
    assert ans.evidence is not None and ans.evidence.citations  # the nearest passages, on screen
    # a figure the quotes do give is answered as before
    ans = engine.ask(QUESTION)
    assert ans.extractive and not ans.not_in_corpus and any("81,797" in c.quote for c in ans.citations)


def test_a_prose_answer_is_the_filings_sentences_without_the_models_rewording(build_library) -> None:
    # a description is shown as the filing's own sentences: the model is not asked to reword
    # them (its rewordings joined facts the quotes keep apart), and nothing it wrote is shown
    lib = build_library()
    engine, gen = _engine(lib, json.dumps({"answer": "Apple's liquidity is a new leadership role.", "citations": []}))
    ans = engine.ask("Describe Apple's liquidity and capital resources in Q3 2023.")
    assert not ans.not_in_corpus and ans.extractive
    assert gen.prompts == []
    assert "leadership" not in ans.answer
    assert any("sufficient to satisfy its cash requirements" in c.quote for c in ans.citations)
    _check_citations(lib, ans)


def test_a_computed_verdict_asked_with_its_reasons_comes_with_the_filings_causes(build_library, monkeypatch) -> None:
    # the statements give the verdict of the question without its part asking why; the
    # filing's sentences give the causes; the model is not asked
    from desktop_rag.core.calculate import calculator
    from desktop_rag.core.calculate.calculator import Outcome
    from desktop_rag.core.domain.types import Calculation

    asked: list[str] = []

    def calculate(question: str, *a: object, **k: object) -> Outcome | None:
        asked.append(question)
        if "why" in question.lower():
            return None  # the calculator answers no question asking why
        return Outcome("Yes: revenue rose from $6,704 million to $13,507 million.", [],
                       Calculation("Revenue", "", [], 13507.0, "usd_millions"))

    monkeypatch.setattr(calculator, "calculate", calculate)
    from tests.conftest import NVIDIA_PAGES

    mdna = ("Item 2. Management's Discussion and Analysis\nRevenue\nRevenue increased 101% in the second quarter of "
            "fiscal 2024, primarily due to higher Data Center sales to cloud service providers.\n")
    lib = build_library({"2023 Q2 NVDA.pdf": [*NVIDIA_PAGES, mdna]})
    engine, gen = _engine(lib, json.dumps({"answer": "Revenue fell.", "citations": []}))
    ans = engine.ask("Did NVIDIA's revenue increase in Q2 2023, and why?")
    assert ans.computed and ans.answer.startswith("Yes: revenue rose from $6,704 million")
    assert "Did NVIDIA's revenue increase in Q2 2023?" in asked
    assert "primarily due to higher Data Center sales" in ans.answer  # the cause, quoted
    assert gen.prompts == []
    _check_citations(lib, ans)


_BENEFITS = ("Human capital\nWe offer our employees competitive pay. Our leave benefit provides up to 12 weeks of paid "
             "time off every 12 months for employees. Employees may join our Sport Centers and over 1 million face "
             "coverings were given to teammates, facilitating access to COVID-19 testing for employees.")


def test_a_count_asked_is_the_sentence_counting_that_noun_wherever_its_page_ranks(build_library) -> None:
    """"How many employees": retrieval ranks the pages full of the word "employees" (benefits);
    the count is printed once, on a page the passages may lack, and is quoted from there. A
    filing that prints no count of employees is no answer ("12 weeks", "1 million face
    coverings" count other things)."""
    from tests.conftest import APPLE_PAGES

    pages = [APPLE_PAGES[0], *[_BENEFITS] * 14,
             "Employee base\nAs of September 30, 2023, we had approximately 161,000 full-time equivalent employees.",
             *[_BENEFITS] * 4]
    lib = build_library({"2023 Q3 AAPL.pdf": pages})
    ans = AnswerEngine(lib, Settings(), None).ask("How many employees did Apple have?")
    assert not ans.not_in_corpus and "161,000" in ans.answer, ans.answer
    _check_citations(lib, ans)
    lacking = build_library({"2023 Q3 AAPL.pdf": [*pages[:15], "Employee base\nWe value our full-time employees.",
                                                  *pages[16:]]})
    # (the fake embedder's cosines are no measure of relevance: the gate on them is set aside)
    near = Settings()
    near.retrieval.gate_min_cosine = 0.0
    ans = AnswerEngine(lacking, near, None).ask("How many employees did Apple have?")
    assert ans.not_in_corpus and "number of employees" in ans.answer, ans.answer


def test_a_program_named_by_its_code_must_be_in_the_answers_quote(build_library) -> None:
    """"What operating margin did it earn on the F-35 program?" over a quote about missile
    defense (no F-35 margin is printed): refused, the nearest passages shown; a quote that
    prints the code answers as before."""
    pages = ["FORM 10-Q\nLockheed Martin Corporation\n(Exact name of registrant as specified in its charter)\n"
             "Our programs include the PAC-3 and the F-35.",
             "Operating margin for integrated air and missile defense programs was 12.5% in the first quarter of "
             "2023.\nF-35 net sales were $3,100 million in the first quarter of 2023."]
    lib = build_library({"LOCKHEEDMARTIN_2023Q1_10Q.pdf": pages})
    engine = AnswerEngine(lib, Settings(), None)
    ans = engine.ask("What operating margin did Lockheed Martin earn on the PAC-3 program in Q1 2023?")
    assert ans.not_in_corpus and ans.answer.startswith("No passage of the filings of Lockheed Martin Corporation gives "), ans
    assert ans.answer.endswith("for PAC-3; the nearest passages are shown.")
    ans = engine.ask("How much were F-35 net sales in Q1 2023 for Lockheed Martin?")
    assert not ans.not_in_corpus and "F-35" in ans.citations[0].quote, ans


def test_a_consolidated_measure_is_answered_from_the_consolidated_discussion_not_a_segments(build_library) -> None:
    """"Why did the consolidated gross profit rate decline?": the gross profit rate is no
    statement line, but the question says whole company; the segment section's sentence (which
    states its cause in one sentence) ranks below the consolidated one."""
    pages = ["FORM 10-Q\nWalmart Inc.\n(Exact name of registrant as specified in its charter)\n"
             "We operate our Walmart U.S. segment and our Walmart International segment. The Walmart U.S. segment "
             "and the Walmart International segment are our reportable segments.",
             "Consolidated Results of Operations\nGross profit rate decreased 18 basis points for the three months ended "
             "April 30, 2023. The decrease was primarily due to mix of sales globally, partially offset by the lapping of "
             "higher supply chain costs.\nWalmart U.S. Segment\nGross profit rate decreased 41 basis points for the three "
             "months ended April 30, 2023, primarily driven by product mix shifts into lower margin categories."]
    lib = build_library({"WALMART_2024Q1_10Q.pdf": pages})
    engine = AnswerEngine(lib, Settings(), None)
    ans = engine.ask("Why did Walmart's consolidated gross profit rate decline in Q1 FY2024?")
    assert ans.citations and "mix of sales globally" in " ".join(c.quote for c in ans.citations), ans.answer
    assert "41 basis points" not in ans.answer


def test_an_outlook_giving_no_figure_of_the_thing_asked_is_refused_with_its_reason() -> None:
    """"What annual run-rate cost savings does it expect": sentences about the plan ("reduce
    operating costs", a workforce cut of "10 percent") give no savings figure."""
    from types import SimpleNamespace

    from desktop_rag.core.answer.assemble import Assembled
    from desktop_rag.core.domain.question import parse_question, read_question
    from desktop_rag.core.domain.types import Citation, Filters, QueryPlan
    from tests.conftest import PageLibrary

    page = ("The Company announced a restructuring plan intended to reduce operating costs and improve margins. "
            "The Plan includes a reduction of the workforce by approximately 10 percent.")
    library = PageLibrary({("d", 2): page})
    library.lexical = SimpleNamespace(idf={})  # type: ignore[attr-defined]
    engine = AnswerEngine.__new__(AnswerEngine)
    engine.library = library  # type: ignore[assignment]

    def plan(question: str) -> QueryPlan:
        return QueryPlan(original=question, cleaned=question, bm25_terms=[], content_terms=[],
                         asked=parse_question(question).question, intent=read_question(question),
                         filters=Filters(company=["Example Corp"]))

    def cite(quote: str) -> Citation:
        return Citation(doc_id="d", doc="EX_8K.pdf", page=2, quote=quote, char_start=page.index(quote))

    quotes = [cite("The Company announced a restructuring plan intended to reduce operating costs and improve margins."),
              cite("The Plan includes a reduction of the workforce by approximately 10 percent.")]
    out = Assembled(" ".join(c.quote for c in quotes), quotes, "outlook")
    asked = plan("What annual run-rate cost savings does the company expect the plan to generate?")
    assert engine._fact_not_given(asked, out, set()).startswith(
        "No passage of the filings of Example Corp gives annual run-rate cost savings")
    # the workforce cut asked is given by its sentence
    assert engine._fact_not_given(plan("By what percent does the company expect the plan to reduce its workforce?"),
                                  out, set()) == ""


def test_a_figure_asked_of_a_named_source_needs_a_quote_naming_it() -> None:
    """"How much revenue did FedEx generate from Amazon": the total revenue row is no answer."""
    from types import SimpleNamespace

    from desktop_rag.core.domain.question import parse_question, read_question
    from desktop_rag.core.domain.types import Citation, Filters, QueryPlan
    from tests.conftest import PageLibrary

    page = "Consolidated revenue $ 90,155 $ 93,512\nRevenue from Amazon was $1,200 million in 2023.\n"
    library = PageLibrary({("d", 53): page})
    library.lexical = SimpleNamespace(idf={})  # type: ignore[attr-defined]
    engine = AnswerEngine.__new__(AnswerEngine)
    engine.library = library  # type: ignore[assignment]
    question = "How much revenue did Example generate from Amazon as a customer in fiscal 2023?"
    plan = QueryPlan(original=question, cleaned=question, bm25_terms=[], content_terms=[],
                     asked=parse_question(question).question, intent=read_question(question),
                     filters=Filters(company=["Example Corporation"]))

    def cite(quote: str) -> Citation:
        return Citation(doc_id="d", doc="EX_10K.pdf", page=53, quote=quote, char_start=page.index(quote))

    total = engine._figure_not_given(plan, [cite("Consolidated revenue $ 90,155 $ 93,512")], set())
    assert total.startswith("No passage of the filings of Example Corporation gives revenue from Amazon"), total
    assert engine._figure_not_given(plan, [cite("Revenue from Amazon was $1,200 million in 2023.")], set()) == ""
