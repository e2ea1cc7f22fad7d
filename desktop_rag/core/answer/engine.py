"""From question to a trustworthy answer: retrieve, gate, generate, then verify.

``AnswerEngine`` runs the steps; each check has its own module:
- ``verify``: each citation quote must be an exact substring (after white-space/dash folding)
  of the retrieved passages and is re-anchored to its real page; support for the answer is
  located by us in the passages (the model's passage ids are unreliable), and every figure in
  the answer must appear in a kept quote, and most of its words in the quotes or the question;
- ``extract``: otherwise the answer is replaced by an extractive one: the best-matching
  passage sentence(s), quoted verbatim, flagged ``extractive``;
- ``generate``: the model's JSON reply is parsed (whole, truncated or streamed) beside the
  schema it is asked for.
Nothing the model says reaches the user unchecked.
"""


from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any, Literal

from desktop_rag.core.answer.asks import gives_kind, may_answer, read_asks, unit_context
from desktop_rag.core.answer.assemble import Assembled, assemble
from desktop_rag.core.answer.extractive import column_header, extractive_answer
from desktop_rag.core.answer.generate import (
    NOT_IN_CORPUS,
    AnswerTextStream,
    LlamaGenerator,
    copied_figures_grammar,
    parse_model_json,
)
from desktop_rag.core.answer.prompt_context import evidence_context
from desktop_rag.core.answer.ranking import RankingAnswer, part_causes, ranking_answer
from desktop_rag.core.answer.scope import PartsOfFilings
from desktop_rag.core.answer.table_rows import table_row_answer
from desktop_rag.core.answer.verify import (
    Passage,
    Verdict,
    asks_for_figure,
    best_units,
    carries_concept,
    complete_cut_sentence,
    content_term_set,
    is_year,
    passages_for,
    split_units,
    unit_citation,
    verify_answer,
)
from desktop_rag.core.calculate import calculator as statements_calculator
from desktop_rag.core.domain.measures import asked_measures, measure_phrase, names_asked_measure
from desktop_rag.core.domain.numbers import number_supported, numbers_in
from desktop_rag.core.domain.periods import find_periods
from desktop_rag.core.domain.question import (
    asked_concept,
    computed_words,
    counted_noun,
    designators,
    printed_count,
    without_reasons,
)
from desktop_rag.core.domain.terms import QUESTION_NOISE, tokenize, word_root
from desktop_rag.core.domain.types import Answer, CalculationInput, Chunk, Citation, Evidence, Hit, QueryPlan
from desktop_rag.core.index.library import Library
from desktop_rag.core.ingest.chunking import is_table_row
from desktop_rag.core.retrieve.hybrid import HybridRetriever
from desktop_rag.settings import Settings

# the question itself asks the whole company's figure, not a segment's
_WHOLE_COMPANY_ASKED = re.compile(r"\b(?:consolidated|company[- ]wide|firm[- ]?wide|enterprise[- ]wide|total[- ]company)\b", re.I)
# words for the whole company beside its measure ("consolidated net sales", "total revenue")
_WHOLE_WORDS = frozenset({"consolidated", "total", "overall", "company", "firm", "firmwide", "group", "whole"})

log = logging.getLogger(__name__)

# The note that marks an answer whose model wording failed verification (the filing is quoted).
EXTRACTIVE_NOTE = "extractive fallback:"
NO_MODEL_REASON = "no generator loaded"  # the fallback's reason when no model was there to ask
REASONS_LEAD = "What the filing gives as the reasons:"
NO_REASONS = "The passages retrieved give no reason for it."
PROSE_QUOTED_REASON = "a prose answer is the filing's own sentences"  # why the model was not asked
# "per its Q2 2023 10-Q": the form names the filing, the filing's sentences do not name it
_FORM_TERMS = frozenset(tokenize("10-K 10-Q 8-K 10-KT 10-QT"))
# the sentences or rows a retry from the evidence shows the model, at most
_RESTATE_UNITS = 3
_TITLE_LINES = 8  # lines above a quoted row where its table's title is looked for


def _prints(text: str, code: str) -> bool:
    """``text`` prints the code, with or without its hyphen ("F-35", "F35")."""
    spelled = "-?".join(re.escape(ch) for ch in code.replace("-", ""))
    return re.search(rf"(?<![\w-]){spelled}(?![\w-])", text, re.I) is not None


# -- the pipeline -------------------------------------------------------------------------------
@dataclass
class AnswerEvent:
    """``kind``: retrieved (hits), evidence (the gated passages' exact quotes, before the
    model starts; only when a model will answer), token (text), answer (final Answer)."""

    kind: Literal["retrieved", "evidence", "token", "answer"]
    text: str = ""
    hits: list[Hit] = field(default_factory=list)
    answer: Answer | None = None
    evidence: Evidence | None = None


# a figure asked of a named source: "revenue from Amazon", "from its Authenticity Guarantee service"
_FROM_NAME = re.compile(r"\bfrom\s+(?:its\s+|the\s+|their\s+)?((?:[A-Z][\w&'\u2019-]*)(?:\s+[A-Z][\w&'\u2019-]*){0,3})")


class AnswerEngine:
    """Question in, verified answer out. The generator is optional (search-only use)."""

    def __init__(self, library: Library, settings: Settings, generator: LlamaGenerator | None = None) -> None:
        self.library = library
        self.settings = settings
        self.retriever = HybridRetriever(library, settings.retrieval)
        self.generator = generator
        self.parts = PartsOfFilings(self._pages_of)  # each filing's segments, read once
        self._statement_labels: dict[str, list[set[str]]] = {}  # doc_id -> its statement lines' words

    @property
    def model_name(self) -> str:
        return self.generator.name if self.generator else ""

    def ask(self, question: str, on_event: Callable[[AnswerEvent], None] | None = None, **kw: Any) -> Answer:
        """The final answer; ``on_event`` sees every event before it (evidence, tokens)."""
        answer = None
        for ev in self.ask_stream(question, **kw):
            if on_event is not None:
                on_event(ev)
            if ev.kind == "answer":
                answer = ev.answer
        assert answer is not None
        return answer

    def ask_stream(
        self, question: str, standalone: str | None = None, doc_scope: list[str] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AnswerEvent]:
        """The answer's events: retrieved, evidence, tokens, then the answer. Every citation
        (and calculation input) they carry has the page number its filing prints
        (``Citation.page_label``), so each front end names it alike ("p. 72 (PDF 74)")."""
        for ev in self._ask_stream(question, standalone, doc_scope, cancel):
            if ev.evidence is not None:
                self.label_pages(ev.evidence.citations)
            if ev.answer is not None:
                self.label_answer(ev.answer)
            yield ev

    def label_pages(self, cited: Iterable[Citation | CalculationInput]) -> None:
        """Fill in the printed page number of each citation or input that lacks it."""
        for c in cited:
            doc_id = getattr(c, "doc_id", "")
            if not c.page_label and doc_id:
                c.page_label = self.library.page_label(doc_id, c.page)

    def label_answer(self, answer: Answer) -> None:
        self.label_pages(answer.citations)
        if answer.evidence is not None:
            self.label_pages(answer.evidence.citations)
        if answer.calculation is not None:
            self.label_pages(answer.calculation.inputs)

    def _ask_stream(
        self, question: str, standalone: str | None, doc_scope: list[str] | None,
        cancel: threading.Event | None,
    ) -> Iterator[AnswerEvent]:
        t0 = time.perf_counter()
        query = (standalone or question).strip()
        s = self.settings
        plan = self.retriever.plan(query, doc_scope)
        # a company or period the library lacks is refused by the gate below: a statement of
        # another period (the latest quarter for "Q4 2022") is no answer
        computed = self._computed_answer(question, query, plan, t0) if self._retriable(plan) else None
        # "Has debt increased over FY2018? ... and say what drove it": the verdict computed from
        # the statements without the part asking why, the causes from the filing's sentences below
        with_reasons: Answer | None = None
        if computed is None and plan.intent is not None and plan.intent.wants_reasons and self._retriable(plan):
            head = without_reasons(query)
            figure = self._computed_answer(question, head, plan, t0) if head != query else None
            if figure is not None and figure.calculation is not None:
                with_reasons = figure
        if computed is not None:  # a statement figure or metric: numbers from cells, arithmetic from code
            yield AnswerEvent("retrieved", hits=[])
            yield AnswerEvent("answer", answer=computed)
            return
        hits = self.retriever.search(plan)
        t_retrieve = (time.perf_counter() - t0) * 1000
        yield AnswerEvent("retrieved", hits=hits)
        result = Answer(query=question, answer="", citations=[], model=self.model_name,
                        standalone_query=query, hits=hits)
        gate = self.retriever.gate(plan, hits)
        if not gate.passed and self._retriable(plan):
            # borderline: the company and period are in the library, the passages fell short
            retried = self._retry(query, doc_scope, cancel, f"gate: {gate.reason}", result, deadline=t0)
            if retried is not None:
                yield AnswerEvent("answer", answer=self._finish_retry(result, retried, t0))
                return
        if not gate.passed:
            # the reason is the answer: which company, period or subject the library lacks
            result.answer, result.not_in_corpus = gate.reason or NOT_IN_CORPUS, True
            result.notes.append(gate.reason)
            result.timings_ms = {"retrieve": t_retrieve, "first_token": 0.0,
                                 "total": (time.perf_counter() - t0) * 1000}
            yield AnswerEvent("answer", answer=result)
            return
        context = self._context(hits)
        passages = passages_for(self.library, context)
        asked = plan.asked or query  # without the analyst's instructions (units, persona, rounding)
        concept = self._concept(plan, hits)
        ignore = self.retriever.filter_terms(plan, hits)
        # The extractive answer of the asked company's passages: shown as evidence before the
        # model's prompt evaluation (seconds on a CPU) and reused below if the model fails.
        own = self._asked_companies_passages(plan, passages, doc_scope, hits[0] if hits else None)
        # "Which segment grew fastest?": the parts ranked from a table of the filing, each
        # figure read or computed from its cells (core/answer/ranking.py), no model
        ranked = self._ranked(plan, own)
        more: list[Passage] | None = None
        if ranked is None and plan.intent is not None and plan.intent.ranking is not None and own:
            # no table of the parts on the pages read: the further pages retrieved (a segment
            # note below the MD&A pages that matched)
            more = self._further_passages(plan, hits, own, doc_scope)
            ranked = self._ranked(plan, more) if more else None
        if ranked is not None:
            result.answer, result.citations = ranked.text, ranked.citations
            result.calculation, result.computed = ranked.calculation, True
            result.notes.append("ranked from a table of the filing's parts: every figure read or computed from its cells")
            result.timings_ms = {"retrieve": t_retrieve, "first_token": 0.0, "total": (time.perf_counter() - t0) * 1000}
            yield AnswerEvent("answer", answer=result)
            return
        # the other pages retrieved of the asked company's filings: where a fact asked, or a
        # cause, that the passages read lack is looked for before giving up
        more = self._further_passages(plan, hits, own, doc_scope) if more is None else more
        extracted = extractive_answer(asked, plan, own, s.generation.max_citations, idf=self.library.lexical.idf,
                                      ignore=ignore, page_text=self.library.page_text, more=more)
        # A cause, a list, a description or an outlook is answered by the filing's own
        # sentences and lists, read from the structure of its pages (core/answer/assemble.py)
        assembled = self._assembled(plan, own, concept, ignore, more)
        if with_reasons is not None:
            yield AnswerEvent("answer", answer=self._with_reasons(with_reasons, assembled, t0, t_retrieve))
            return
        missing = self._fact_not_given(plan, assembled, ignore) if assembled is not None else ""
        if missing and assembled is not None:
            # "what annual run-rate cost savings does it expect": sentences about the plan that
            # give no savings figure are the nearest passages, not its answer
            result.answer, result.not_in_corpus = missing, True
            result.evidence = Evidence(assembled.text, assembled.citations, ms=(time.perf_counter() - t0) * 1000)
            result.notes.append(f"refused: {missing}")
            result.timings_ms = {"retrieve": t_retrieve, "first_token": 0.0, "total": (time.perf_counter() - t0) * 1000}
            yield AnswerEvent("answer", answer=result)
            return
        if assembled is not None:
            extracted = (assembled.text, assembled.citations)
        # A cause, a list, a description or an outlook is shown as the filing's own sentences:
        # the small model's rewording of them joined facts the quotes keep apart ("paid $306
        # million ... for its Flipkart stake", "Accelerating the Arches 2.0 is a new leadership
        # role") on blind batches, and a prose claim has no figure to check it by
        quoted_prose = plan.intent is not None and plan.intent.prose and bool(extracted[1])
        generator = None if quoted_prose else self.generator
        if generator is not None and extracted[1]:
            result.evidence = Evidence(*extracted, ms=(time.perf_counter() - t0) * 1000)
            yield AnswerEvent("evidence", text=extracted[0], evidence=result.evidence)
        first_token = attempt_s = 0.0
        model_answer = ""
        model_quotes: list[str] = []
        if generator is not None:
            prompt = generator.build_prompt(asked, self._prompt_passages(context, passages, extracted[1]))
            stream = AnswerTextStream()
            budget = s.generation.answer_budget_s
            timed = _Until(cancel, t0 + budget if budget > 0 else None)  # a slow machine's first attempt too
            t_gen = time.perf_counter()
            for piece in generator.stream(prompt, timed):
                shown = stream.feed(piece)
                if shown:
                    if not first_token:  # the first answer text, not the prefilled JSON opener
                        first_token = (time.perf_counter() - t0) * 1000
                    yield AnswerEvent("token", text=shown)
            if cancel is not None and cancel.is_set():
                result.cancelled = True
            elif timed.expired():
                result.notes.append(f"attempt 1 cut at the answer's time budget ({budget:g} s)")
            attempt_s = time.perf_counter() - t_gen
            model_answer, model_quotes = parse_model_json(stream.raw)
            model_answer = complete_cut_sentence(model_answer, passages)
        verdict = (
            verify_answer(model_answer, model_quotes, asked, passages, s.generation.max_citations,
                          concept=concept, idf=self.library.lexical.idf, verdict_asked=_verdict_asked(plan))
            if generator is not None and not result.cancelled
            else Verdict(False, reason="cancelled" if result.cancelled else PROSE_QUOTED_REASON if quoted_prose
                         else NO_MODEL_REASON)
        )
        if verdict.ok and assembled is not None and not _overlaps(verdict.citations, assembled.citations):
            # the model's wording is backed by quotes, but not by the causes, items or
            # statements the filing gives for what was asked: no answer to this question
            verdict = Verdict(False, reason=f"the answer names none of the {assembled.shape} the filing gives")
        if not verdict.ok and assembled is not None:
            result.notes.append(f"{assembled.shape} from the filing's sentences: {verdict.reason}")
        elif not verdict.ok and generator is not None and not result.cancelled:
            first = _FirstAttempt(asked, plan, passages, own, concept, ignore)
            retried = self._retry(query, doc_scope, cancel, verdict.reason, result, first, deadline=t0,
                                  attempt_s=attempt_s)
            if retried is not None:
                yield AnswerEvent("answer", answer=self._finish_retry(result, retried, t0, t_retrieve, first_token))
                return
        if verdict.ok:
            result.answer, result.citations = verdict.answer or model_answer.strip(), verdict.citations
        else:
            # the evidence already shown: the asked company's quotes, never another filer's
            text, cites = extracted
            missing = self._figure_not_given(plan, cites, ignore) if cites and assembled is None else ""
            if missing:
                # a figure asked that no quote gives ("How many iPhone units did Apple sell?"):
                # the nearest passages stay on screen as evidence, the answer says why it stops
                result.answer, result.not_in_corpus = missing, True
                if result.evidence is None:
                    result.evidence = Evidence(text, cites, ms=(time.perf_counter() - t0) * 1000)
                result.notes.append(f"refused: {missing} ({verdict.reason})")
            elif cites:
                result.answer, result.citations, result.extractive = text, cites, True
                result.notes.append(f"{EXTRACTIVE_NOTE} {verdict.reason}")
            else:
                result.answer, result.not_in_corpus = "No passage of the filings searched answers the question.", True
                result.notes.append("no passage sentence matches the question")
        result.timings_ms = {"retrieve": t_retrieve, "first_token": first_token,
                             "total": (time.perf_counter() - t0) * 1000}
        if result.evidence is not None:
            result.timings_ms["evidence"] = result.evidence.ms
        yield AnswerEvent("answer", answer=result)


    @staticmethod
    def _with_reasons(computed: Answer, assembled: Assembled | None, t0: float, t_retrieve: float) -> Answer:
        """The computed verdict or figure, and the causes the filing's sentences give for it (a
        question asking both); the verdict alone, said so, when the pages give no cause."""
        if assembled is not None:
            computed.answer = f"{computed.answer}\n{REASONS_LEAD}\n{assembled.text}"
            computed.citations = [*computed.citations, *assembled.citations]
            computed.notes.append(f"{assembled.shape} from the filing's sentences")
        else:
            computed.answer = f"{computed.answer}\n{NO_REASONS}"
            computed.notes.append("no cause found in the filing's sentences")
        computed.timings_ms = {"retrieve": t_retrieve, "first_token": 0.0, "total": (time.perf_counter() - t0) * 1000}
        return computed

    def _figure_not_given(self, plan: QueryPlan, cites: list[Citation], ignore: set[str]) -> str:
        """Why the quotes found are no answer: the question asks a figure (an amount, a count, a
        rate, a date) and none of the quotes gives one of its kind for what was asked. "" when
        one does, or when the question asks for no figure (causes, lists, descriptions and
        yes/no questions are answered by sentences)."""
        intent = plan.intent
        if intent is None or intent.ask not in ("figure", "ratio", "change"):
            return ""
        named_thing = asked_concept(intent.asked) or measure_phrase(intent.asked) or "what was asked"
        coded = [code for code in designators(intent.asked) if cites and not _prints(self._around(cites[0]), code)]
        if coded:
            # "the operating margin of the F-35 program" over a quote about missile defense, "F-35
            # net sales" over the segment's net sales row: a program, product or model the question
            # names by its code is in the answer's quote, or the quote is no answer for it
            return self._nothing_gives(plan, f"{named_thing} for {', '.join(coded)}")
        own_words = {t for name in plan.filters.company for t in tokenize(name)}
        sources = [name for name in _FROM_NAME.findall(intent.asked)
                   if set(tokenize(name)) - own_words and not find_periods(name).mentions]
        unnamed = [name for name in sources
                   if not any(set(tokenize(name)) <= set(tokenize(self._around(c))) for c in cites)]
        if cites and unnamed:
            # "revenue from Amazon as a customer", "net revenue from its Authenticity Guarantee
            # service": the total revenue row is no answer; a quote naming the source would be
            return self._nothing_gives(plan, f"{named_thing} from {', '.join(unnamed)}")
        asks = [a for a in read_asks(intent, ignore, self.library.lexical.idf) if a.kind not in ("any", "claim")]
        if not asks:
            return ""
        noun = counted_noun(intent.asked) if len(asks) == 1 and asks[0].kind == "count" else ""
        if noun and not any(printed_count(noun).search(c.quote) for c in cites):
            # "How many employees": "1,373,961 shares ... of employee restricted stock units" counts shares
            return self._nothing_gives(plan, f"a number of {noun}")
        measures = asked_measures(intent.asked)
        if len(asks) == 1 and noun == "" and cites and all(self._names_measure_near(c, measures) is False for c in cites):
            # "total assets of the International segment": a row of its net sales names the
            # part, not the measure, whatever figure it prints
            return self._nothing_gives(plan, asked_concept(intent.asked) or measure_phrase(intent.asked))
        # a count asked of a noun ("how many corporate employees will be laid off") is given only
        # by a count of that noun, not by "Employee Communication ... 2.0" beside an exhibit number
        counts = {i: printed_count(n) for i, a in enumerate(asks) if a.kind == "count" and (n := counted_noun(a.words))}
        for c in cites:
            around = self._around(c)
            # any of the asked words beside a figure of the asked kind: a quote that may give it
            # (the filing's words for the measure differ from the analyst's: "capex" is printed
            # "Additions to property, plant and equipment")
            if any((may_answer(around, a) or may_answer(c.quote, a))
                   and (i not in counts or bool(counts[i].search(around))) for i, a in enumerate(asks)):
                return ""
        for first, second in pairwise(cites):
            # two quotes one after the other on a page: the words in one sentence, the figure in
            # the next ("... compensation to be paid ... The total compensation of $24.15 billion")
            if (first.doc_id, first.page) == (second.doc_id, second.page) and 0 <= second.char_start - (
                    first.char_start + len(first.quote)) <= 3 and any(
                    may_answer(f"{first.quote} {second.quote}", a) for a in asks):
                return ""
        return self._nothing_gives(plan, f"what was asked ({asks[0].words.strip(' ?.,;') or intent.asked.strip(' ?')})")

    def _fact_not_given(self, plan: QueryPlan, assembled: Assembled, ignore: set[str]) -> str:
        """Why an outlook or description is no answer: the question asks one figure (an amount,
        a count, a rate, a date) and no quote of the assembled answer gives a figure of its kind
        beside its words. "" otherwise (causes and lists are answered by sentences; guidance,
        ``any``, by whatever figures it gives)."""
        intent = plan.intent
        if intent is None or intent.ask not in ("outlook", "description"):
            return ""
        asks = read_asks(intent, ignore, self.library.lexical.idf)
        if len(asks) != 1 or asks[0].kind in ("any", "claim", "figure"):
            return ""
        # the thing the fact's own clause asks ("the status of the class action, and what did it
        # accrue": the accrual, not the status)
        what = asked_concept(intent.asks[0].words) if len(intent.asks) == 1 else ""
        heads = [t for t in tokenize(what) if t not in QUESTION_NOISE]
        if not heads:
            return ""
        # the thing asked by its head noun ("savings" of "annual run-rate cost savings"), beside a
        # figure of its kind: "reduce operating costs" and "10 percent" of the workforce are not it
        head = word_root(heads[-1])
        if any(gives_kind(text, asks[0]) and any(word_root(t) == head for t in tokenize(text))
               for c in assembled.citations for text in (self._around(c), c.quote)):
            return ""
        return self._nothing_gives(plan, what)

    @staticmethod
    def _nothing_gives(plan: QueryPlan, what: str) -> str:
        """The refusal of a fact no quote gives: whose filings were read and what they lack (the
        quotes found stay on screen as the nearest passages)."""
        who = " and ".join(plan.filters.company) if plan.filters.company else "the library"
        return f"No passage of the filings of {who} gives {what}; the nearest passages are shown."

    def _around(self, cite: Citation) -> str:
        """The quote with what its page prints around it for a reader (a row's table heading)."""
        page = self.library.page_text(cite.doc_id, cite.page) if cite.doc_id else ""
        at = page.find(cite.quote) if page else -1
        return unit_context(page, at, at + len(cite.quote)) if at >= 0 else cite.quote

    def _names_measure_near(self, cite: Citation, measures: set[str]) -> bool | None:
        """The quote, or the page above it as far as its table's title (a row "International
        6,145" under "Total assets:"), names one of the asked ``measures`` (tokens); None when
        no asked measure can be told by its words (``names_asked_measure``)."""
        page = self.library.page_text(cite.doc_id, cite.page) if cite.doc_id else ""
        at = page.find(cite.quote) if page else -1
        above: list[str] = []
        # the lines above, up to the table's title ("Net sales by segment were (in millions):"),
        # not the prose before it ("we do not disclose assets by segment.")
        for line in reversed(page[:max(0, at)].split("\n")[:-1][-_TITLE_LINES:] if at > 0 else []):
            if line.rstrip().endswith((".", ";")):
                break
            above.append(line)
            if line.rstrip().endswith(":") and not re.fullmatch(r"[^:]{0,40}:", line.strip()):
                break
        return names_asked_measure(" ".join([*above, cite.quote]), measures)

    def statement_answer(self, question: str, doc_scope: list[str] | None = None) -> Answer | None:
        """What ``ask`` answers from the statements before any retrieval or generation (a
        computed figure, or the calculator's honest refusal); None when the question goes on
        to retrieval and the model."""
        plan = self.retriever.plan(question, doc_scope)
        return self._computed_answer(question, question, plan, time.perf_counter()) if self._retriable(plan) else None

    def _computed_answer(self, question: str, query: str, plan: QueryPlan, t0: float) -> Answer | None:
        """Line items and metrics of a named company answered from its extracted statements
        (core/calculate), or an honest "cannot compute" naming the missing input."""
        if not plan.filters.get("company") or not plan.doc_ids:
            return None
        if plan.intent is not None and (plan.intent.prose or plan.intent.ranking is not None):
            # causes, lists, descriptions and outlooks are in the filing's sentences; a ranking
            # of the company's parts in a table of them, never one statement figure
            return None
        docs = [self.library.docs[d] for d in plan.doc_ids if d in self.library.docs]
        ins = plan.instructions
        scale = ins.scale if ins is not None and ins.scale in ("thousands", "millions", "billions") else ""
        decimals = ins.decimals if ins is not None else None
        try:
            out = statements_calculator.calculate(self.retriever.corrected(query), docs, self.library.statements,
                                                  self.library.page_text, scale, decimals,
                                                  page_label=self.library.page_label)
        except Exception as exc:  # never let the calculator break an answer: retrieval still works
            log.warning("statement calculation failed: %r", exc)
            return None
        if out is None:
            return None
        result = Answer(query=question, answer=out.text, citations=out.citations, model=self.model_name,
                        standalone_query=query, calculation=out.calculation, computed=out.calculation is not None)
        if out.calculation is None:
            result.not_in_corpus = True
            result.notes.append("statement calculation refused: " + out.text)
        else:
            result.notes.append("computed from statement cells")
        total = (time.perf_counter() - t0) * 1000
        result.timings_ms = {"retrieve": total, "first_token": 0.0, "total": total}
        return result

    # -- self-check with retries (issue #12) ---------------------------------------------------
    @staticmethod
    def _retriable(plan: QueryPlan) -> bool:
        """A refusal worth a second look: not a company or period the library lacks."""
        f = plan.filters
        return not (f.missing_company and not f.company) and not f.period_relaxed

    def _retry(self, query: str, doc_scope: list[str] | None, cancel: threading.Event | None,
               first_failure: str, result: Answer, first: _FirstAttempt | None = None,
               deadline: float | None = None, attempt_s: float = 0.0,
               ) -> tuple[int, str, Verdict, list[Hit]] | None:
        """Up to three retries: first, when the first attempt's model answer failed verification,
        the figure read off a table row of the asked company's pages whose label and headings
        name what was asked, in the asked period's column (``table_row_answer``, no model; it
        counts as an attempt only when it answers), then the answer restated from the evidence
        alone (``_restate``); then reformulations of
        ``query`` (statement hint, synonym, period variant, wider scope), each retrieved, gated,
        generated and verified. The first verified one whose citations are all of the first
        attempt's companies wins. Attempts go in the notes.

        ``deadline``: when the answer started (``time.perf_counter()``); no model retry starts
        after ``generation.answer_budget_s`` from then, nor when less time is left than the first
        attempt's generation took (``attempt_s``: its prompt evaluation cannot be cut), and one
        running is cut at it."""
        from desktop_rag.core.answer.reformulate import MAX_RETRIES, reformulations

        result.notes.append(f"attempt 1: {query} — {first_failure}")
        if self.generator is None:
            return None
        budget = self.settings.generation.answer_budget_s
        timed = _Until(cancel, deadline + budget if deadline is not None and budget > 0 else None)

        def spent(n: int) -> bool:
            left = timed.left()
            if left is not None and (left <= 0 or left < attempt_s):
                why = "is spent" if left <= 0 else (f"would be: {left:.1f} s left, the first attempt's "
                                                    f"generation took {attempt_s:.1f} s")
                result.notes.append(f"attempt {n} skipped: the answer's time budget ({budget:g} s) {why}")
                return True
            return False

        first_plan = self.retriever.plan(query, doc_scope)
        docs = self.library.docs
        # the companies the first attempt was about: named, else the scope's, else its top
        # passage's (the company its evidence quoted: a retry never drifts to another filer)
        companies = set(first_plan.filters.company) or {
            docs[d].meta.company or docs[d].meta.ticker for d in (doc_scope or []) if d in docs} or {
            h.doc.meta.company or h.doc.meta.ticker for h in result.hits[:1]}
        tried = 1  # attempts made so far
        if first is not None and self.settings.generation.retry_table_rows:
            row = table_row_answer(first.asked, first.concept, first.own, self.library.lexical.idf)
            if row is None:
                result.notes.append("table-row retry skipped: no table row of the asked company's pages names "
                                    "what was asked in the asked period's column")
            else:  # no model: the row's own figure in the asked period's column, quoted with its heading
                verdict = Verdict(True, row.citations, answer=row.text)
                if self._cites_only(verdict, companies):
                    result.notes.append(f"attempt 2 (table row): {first.asked} — verified")
                    return 2, row.text, verdict, result.hits
        if first is not None and self.settings.generation.retry_evidence_words > 0:
            if spent(tried + 1):
                return None
            restated = self._restate(first, first_failure, cancel, timed)
            if restated is None:
                result.notes.append("evidence retry skipped: no sentence of the asked company's passages names "
                                    "what was asked" + (" with a figure" if asks_for_figure(first.asked) else ""))
            else:
                tried = 2
                text, verdict = restated
                if verdict.ok and not self._cites_only(verdict, companies):
                    result.notes.append(f"attempt 2 (evidence restated): rejected, it cites another company "
                                        f"({', '.join(sorted(self._cited(verdict) - companies))})")
                elif verdict.ok:
                    result.notes.append(f"attempt 2 (evidence restated): {first.asked} — verified")
                    return 2, text, verdict, result.hits
                else:
                    result.notes.append(f"attempt 2 (evidence restated): {first.asked} — {verdict.reason}")
        for n, ref in enumerate(reformulations(query, bool(doc_scope))[:MAX_RETRIES + 1 - tried], tried + 1):
            if cancel is not None and cancel.is_set():
                return None
            if spent(n):
                return None
            plan = self.retriever.plan(ref.query, None if ref.widen_scope else doc_scope)
            if ref.widen_scope and not plan.filters.company:
                result.notes.append(f"attempt {n} skipped: a wider scope would not keep to one company")
                continue
            hits = self.retriever.search(plan)
            gate = self.retriever.gate(plan, hits)
            if not gate.passed:
                result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — gate: {gate.reason}")
                continue
            context = self._context(hits)
            passages = passages_for(self.library, context)
            asked = plan.asked or ref.query
            # what was asked is the analyst's question, not the reformulation's added words
            concept = self._concept(first_plan, hits)
            if self.settings.retrieval.prompt_evidence_words > 0:
                # the reformulation's own evidence, found as for the first attempt
                own = self._asked_companies_passages(plan, passages, None if ref.widen_scope else doc_scope,
                                                     next(iter(result.hits or hits), None))
                evidence = extractive_answer(asked, plan, own, self.settings.generation.max_citations,
                                             idf=self.library.lexical.idf,
                                             ignore=self.retriever.filter_terms(plan, hits),
                                             page_text=self.library.page_text)[1]
                labels = self._prompt_passages(context, passages, evidence)
            else:
                labels = [(f"P{i}", _header(h), h.chunk.text) for i, h in enumerate(context, 1)]
            raw = "".join(self.generator.stream(self.generator.build_prompt(asked, labels), timed))
            if cancel is not None and cancel.is_set():
                return None
            model_answer, model_quotes = parse_model_json(raw)
            model_answer = complete_cut_sentence(model_answer, passages)
            # verified against the analyst's question: a reformulation's added words ("in the
            # consolidated balance sheets") are the app's, no backing for an answer's wording
            verdict = verify_answer(model_answer, model_quotes, first_plan.asked or query, passages,
                                    self.settings.generation.max_citations, concept=concept,
                                    idf=self.library.lexical.idf, verdict_asked=_verdict_asked(first_plan))
            if verdict.ok and not self._cites_only(verdict, companies):
                result.notes.append(f"attempt {n} ({ref.how}): rejected, it cites another company "
                                    f"({', '.join(sorted(self._cited(verdict) - companies))})")
                continue
            if verdict.ok:
                result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — verified")
                return n, verdict.answer or model_answer.strip(), verdict, hits
            result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — {verdict.reason}")
        return None

    def _further_passages(self, plan: QueryPlan, hits: list[Hit], own: list[Passage],
                          doc_scope: list[str] | None) -> list[Passage]:
        """The passages of the retrieved hits whose pages the answer's passages (``own``) do
        not hold, of the asked company only, in retrieval order."""
        read = {(p.hit.chunk.doc_id, p.hit.chunk.page) for p in own}
        rest = [h for h in hits if (h.chunk.doc_id, h.chunk.page) not in read]
        if not own:
            return []
        further = self._asked_companies_passages(plan, passages_for(self.library, rest), doc_scope,
                                                 own[0].hit) if rest else []
        return further + self._counted_pages(plan, read | {(p.hit.chunk.doc_id, p.hit.chunk.page) for p in further})

    def _counted_pages(self, plan: QueryPlan, read: set[tuple[str, int]], most: int = 2) -> list[Passage]:
        """For "how many X": the pages of the asked company's filings (a few filings in scope)
        that print a count of X right before it ("approximately 79,100 employees"), those the
        passages read do not hold, most such counts first. Retrieval ranks a page by its words,
        and X is a word of many pages ("employees" of every benefits bullet); the count is
        printed once."""
        noun = counted_noun(plan.asked or plan.original)
        lib = self.library
        if not noun or plan.doc_ids is None or len(plan.doc_ids) > 6:
            return []
        printed = printed_count(noun, labelled=False)  # a figure right before the noun
        found: list[tuple[int, str, int]] = []
        for doc_id in plan.doc_ids:
            if doc_id not in lib.docs:
                continue
            for page in range(1, lib.docs[doc_id].pages + 1):
                if (doc_id, page) in read:
                    continue
                text = lib.page_text(doc_id, page) or ""
                close = len(printed.findall(text))
                if close:
                    found.append((close, doc_id, page))
        found.sort(key=lambda f: (-f[0], f[1], f[2]))
        out: list[Passage] = []
        for _, doc_id, page in found[:most]:
            chunk = next((lib.chunks[c] for c in lib.doc_chunks.get(doc_id, ()) if lib.chunks[c].page == page), None)
            text = lib.page_text(doc_id, page) or ""
            if chunk is not None and text:
                out.append(Passage(Hit(chunk, lib.docs[doc_id], 0.0, expanded=True), 0, len(text), text, text))
        return out

    def _assembled(self, plan: QueryPlan, own: list[Passage], concept: set[str], ignore: set[str],
                   more: list[Passage] | None = None) -> Assembled | None:
        """The prose answer of a drivers, list, description or outlook question (or one that
        also asks why), from the asked company's passages; None for other questions or when
        the pages lack the structure."""
        intent = plan.intent
        if intent is None or not (intent.prose or intent.wants_reasons) or not own:
            return None
        terms = set(concept) or set(plan.content_terms) - ignore
        try:
            return assemble(intent, own, terms, self.library.lexical.idf, ignore, more, self._next_page)
        except Exception as exc:  # an assembler must never break an answer: the extractive one stands
            log.warning("prose assembly failed: %r", exc)
            return None

    def _next_page(self, p: Passage) -> Passage | None:
        """The whole page after ``p``'s, of its filing (a table or a section the page's end cuts
        goes on there); None after the last page."""
        doc, page = p.hit.doc, p.hit.chunk.page + 1
        if doc.pages and page > doc.pages:
            return None
        text = self.library.page_text(doc.doc_id, page)
        if not text:
            return None
        chunk = Chunk(-1, doc.doc_id, -1, page, 0, len(text), text)
        return Passage(Hit(chunk, doc, 0.0, expanded=True), 0, len(text), text, text)

    def _ranked(self, plan: QueryPlan, own: list[Passage]) -> RankingAnswer | None:
        """The ranking a question asks of the company's parts (``QuestionIntent.ranking``) from
        the tables of the asked company's pages, the page after each too (a table continued
        or printed after the text that was found); with the causes the filing gives for the
        leader's figure when the question also asks why. None for other questions or when no
        table ranks them."""
        intent = plan.intent
        if intent is None or intent.ranking is None or not own:
            return None
        pages = list(own)
        have = {(p.hit.chunk.doc_id, p.hit.chunk.page) for p in own}
        for p in own:
            key = (p.hit.doc.doc_id, p.hit.chunk.page + 1)
            following = None if key in have else self._next_page(p)
            if following is not None:
                have.add(key)
                pages.append(following)
        try:
            out = ranking_answer(intent, pages)
            if out is None or not intent.wants_reasons:
                return out
            # "... and what drove it?": the filing's causes of the leader's figure, under its own
            # heading or in a sentence naming it
            ask = intent.ranking
            leader = out.ranked[0][0]
            # which parts' causes: the leader's, or (which grew?) those that moved as asked
            movers = [name for name, v in out.ranked if v and (v > 0) == (ask.select == "grew")][:3] \
                if ask.select else [leader]
            causes = [(name, c) for name in movers if (c := part_causes(name, pages)) is not None]
            why = assemble(intent, own, set(tokenize(f"{leader} {ask.measure}")),
                           self.library.lexical.idf) if not causes else None
        except Exception as exc:  # a ranking must never break an answer: the other paths stand
            log.warning("ranking failed: %r", exc)
            return None
        if causes:
            out.text = "\n".join([out.text, *(f"{name}: {c.quote}" for name, c in causes)])
            out.citations = [*out.citations, *(c for _, c in causes)]
        elif why is not None and why.shape == "drivers" and why.citations and \
                leader.lower() in why.citations[0].quote.lower():
            out.text = f"{out.text}\n{why.text}"
            out.citations = [*out.citations, *(c for c in why.citations if c.quote not in {x.quote for x in out.citations})]
        return out

    def _cited(self, verdict: Verdict) -> set[str]:
        docs = self.library.docs
        return {docs[c.doc_id].meta.company or docs[c.doc_id].meta.ticker for c in verdict.citations if c.doc_id in docs}

    def _cites_only(self, verdict: Verdict, companies: set[str]) -> bool:
        """A retry's citations are all of the first attempt's companies (none known: no check)."""
        return not companies or self._cited(verdict) <= companies

    def _restate(self, first: _FirstAttempt, first_failure: str, cancel: threading.Event | None,
                 timed: threading.Event | None = None) -> tuple[str, Verdict] | None:
        """The answer asked again of the model from the evidence alone: the sentences or table
        rows of the asked company's passages the verifier takes as support (they name what was
        asked, and hold a figure when one is asked; a row with its column headings), within
        ``generation.retry_evidence_words``. A short context leaves the small model less to
        get wrong than the first attempt's passages. The same verifier checks the answer
        against the same passages; the quotes offered are the shown sentences that hold the
        answer's figures (the verifier still finds each on the page and checks it). None when
        no sentence qualifies."""
        assert self.generator is not None
        units = self._supporting_units(first)
        if not units:
            return None
        budget = self.settings.generation.retry_evidence_words
        shown = evidence_context(units, first.passages, self.library.page_text, budget)
        if not shown:
            return None
        labels = [(f"P{i}", _header(p.hit), p.text) for i, p in enumerate(shown, 1)]
        grammar = copied_figures_grammar([p.text for p in shown] + [first.asked], asks_for_figure(first.asked)) if (
            self.settings.generation.retry_copied_figures) else ""
        prompt = self.generator.build_prompt(first.asked, labels)
        raw = "".join(self.generator.stream(prompt, timed or cancel, answer_grammar=grammar))
        if cancel is not None and cancel.is_set():
            return None
        model_answer, model_quotes = parse_model_json(raw)
        model_answer = complete_cut_sentence(model_answer, first.passages)
        figures = [x for x in numbers_in(model_answer) if not number_supported(x, numbers_in(first.asked))]
        # the shown sentences holding the answer's figures first: the quotes the answer was restated from
        holding = [u.quote for u in units if any(number_supported(x, numbers_in(u.quote)) for x in figures)]
        s = self.settings.generation
        verdict = verify_answer(model_answer, [*holding, *model_quotes], first.asked, first.passages,
                                s.max_citations, concept=first.concept, idf=self.library.lexical.idf,
                                verdict_asked=_verdict_asked(first.plan))
        return verdict.answer or model_answer.strip(), verdict

    def _supporting_units(self, first: _FirstAttempt) -> list[Citation]:
        """Up to ``_RESTATE_UNITS`` sentences or rows of the asked company's passages that name
        what was asked (``carries_concept``, as the verifier reads a quote) and, when a figure is
        asked, hold one that is not a year; best first (``best_units``, as the extractive answer
        ranks them), each table row followed by its column headings."""
        idf = self.library.lexical.idf
        want_figure = asks_for_figure(first.asked)
        terms = (set(first.plan.content_terms) | content_term_set(first.asked)) - first.ignore
        out: list[Citation] = []
        n = 0
        for _, p, a, b in best_units(first.own, terms, [], 4 * _RESTATE_UNITS, want_figure, idf=idf):
            if want_figure and not any(not is_year(x) for x in numbers_in(p.text[a:b])):
                continue
            if first.concept and not carries_concept(tokenize(p.text[a:b]), first.concept, idf):
                # a sentence holding the figure whose subject the sentence beside it names
                # ("Kove IO filed a complaint ... Kove is seeking damages of $517 million"): the
                # two as one contiguous quote of the page, if together they name what was asked
                span = _with_neighbour(p, a, b, lambda t: carries_concept(tokenize(t), first.concept, idf))
                if span is None:
                    continue
                a, b = span
            if any(a < c.char_start - p.start + len(c.quote) and c.char_start - p.start < b
                   for c in out if c.doc_id == p.hit.chunk.doc_id and c.page == p.hit.chunk.page):
                continue  # overlaps a sentence already shown
            out.append(unit_citation(p, a, b))
            header = column_header(p, a)
            if header is not None and all(header.quote != c.quote for c in out):
                out.append(header)
            n += 1
            if n >= _RESTATE_UNITS:
                break
        return out

    @staticmethod
    def _finish_retry(result: Answer, retried: tuple[int, str, Verdict, list[Hit]], t0: float,
                      t_retrieve: float = 0.0, first_token: float = 0.0) -> Answer:
        n, text, verdict, hits = retried
        result.answer, result.citations, result.hits = text, verdict.citations, hits
        result.timings_ms = {"retrieve": t_retrieve, "first_token": first_token,
                             "total": (time.perf_counter() - t0) * 1000, "attempt": float(n)}
        if result.evidence is not None:
            result.timings_ms["evidence"] = result.evidence.ms
        return result

    def _asked_companies_passages(self, plan: QueryPlan, passages: list[Passage],
                                  doc_scope: list[str] | None, top: Hit | None) -> list[Passage]:
        """The passages of the asked company's filings: the named companies (the plan's filter
        already keeps to them), else the scope's, else the top passage's company: evidence
        shown before the answer never quotes another filer beside the one asked about."""
        docs = self.library.docs

        def company(doc_id: str) -> str:
            d = docs.get(doc_id)
            return (d.meta.company or d.meta.ticker or d.file_name) if d is not None else doc_id

        if plan.filters.company:
            allowed = set(plan.doc_ids) if plan.doc_ids is not None else None
            return self._in_scope(plan, [p for p in passages if allowed is None or p.hit.chunk.doc_id in allowed])
        scoped = {company(d) for d in doc_scope or [] if d in docs}
        if len(scoped) == 1:
            wanted = scoped
        elif top is not None:
            wanted = {company(top.chunk.doc_id)}
        else:
            return []
        return self._in_scope(plan, [p for p in passages if company(p.hit.chunk.doc_id) in wanted])

    def _in_scope(self, plan: QueryPlan, passages: list[Passage]) -> list[Passage]:
        """The passages, each with the stretches of its page under a part of the company the
        question does not ask (a segment's heading when the whole company is asked): quotes
        from there rank low (core/answer/scope.py)."""
        try:
            parts = {p.hit.chunk.doc_id: self.parts.of(p.hit.chunk.doc_id) for p in passages}
        except Exception as exc:  # the parts are a ranking aid: never a reason to fail an answer
            log.warning("reading a filing's parts failed: %r", exc)
            return passages
        if not any(x.names for x in parts.values()):
            return passages
        question = plan.asked or plan.original
        measure = set(tokenize(asked_concept(question))) or set(plan.content_terms)
        measure -= self.retriever.filter_terms(plan, [p.hit for p in passages]) | computed_words(question) | _WHOLE_WORDS
        asked: dict[str, set[str] | None] = {}
        for doc_id, of_doc in parts.items():
            named = of_doc.asked(question) if of_doc.names else None
            # the whole company asked: only of a measure its own statements print ("Net interest
            # income"); "Azure and other cloud services revenue" is told of in its segment's section
            # (unless the question says so: "consolidated gross profit rate", "company-wide")
            asked[doc_id] = None if named == set() and not self._a_statement_line(doc_id, measure) \
                and not _WHOLE_COMPANY_ASKED.search(question) else named
        out = []
        for p in passages:
            scope = asked[p.hit.chunk.doc_id]
            off = parts[p.hit.chunk.doc_id].off_scope(p.hit.chunk.page, scope) if scope is not None else ()
            out.append(replace(p, off_scope=off) if off else p)
        return out

    def _a_statement_line(self, doc_id: str, measure: set[str]) -> bool:
        """Is ``measure`` (the question's words for what it asks) the label of a line of the
        document's primary statements, all its words in the label?"""
        if not measure:
            return False
        if doc_id not in self._statement_labels:
            self._statement_labels[doc_id] = [
                set(tokenize(r.label)) for st in self.library.statements(doc_id)
                if st.kind in ("income", "balance", "cash_flow") for r in st.rows]
        return any(measure <= label for label in self._statement_labels[doc_id])

    def _pages_of(self, doc_id: str) -> list[tuple[int, str]]:
        doc = self.library.docs.get(doc_id)
        if doc is None:
            return []
        texts = self.library.page_texts_at([(doc_id, n) for n in range(1, doc.pages + 1)])
        return [(n, texts.get((doc_id, n), "")) for n in range(1, doc.pages + 1)]

    def _concept(self, plan: QueryPlan, hits: list[Hit]) -> set[str]:
        """What the question asks about, as the gate reads it: not the company or period (the
        filter used them) and not words of computation or trend ("ratio", "drove", "change"):
        filings print the figures and their own verbs, not the analyst's words for them."""
        return set(self.retriever.evidence_terms(plan, hits)) - _FORM_TERMS

    def _prompt_passages(self, context: list[Hit], passages: list[Passage],
                         evidence: list[Citation]) -> list[tuple[str, str, str]]:
        """(label, header, text) of each passage the model reads. With
        ``prompt_evidence_words``: the evidence quotes with the sentences or rows around them
        (core/prompt_context); else, or when no quote lies in the passages, the passages
        within ``prompt_words``."""
        budget = self.settings.retrieval.prompt_evidence_words
        if budget > 0 and evidence:
            tight = evidence_context(evidence, passages, self.library.page_text, budget)
            if tight:
                return [(f"P{i}", _header(p.hit), p.text) for i, p in enumerate(tight, 1)]
        return [(f"P{i}", _header(h), h.chunk.text) for i, h in enumerate(self._prompt_context(context, evidence), 1)]

    def _prompt_context(self, context: list[Hit], evidence: list[Citation]) -> list[Hit]:
        """The passages the model reads, within ``prompt_words``: those holding the evidence
        quotes first, then ranked hits before their neighbours, in reading order. Prompt
        evaluation of a CPU model is the first token's cost, so the prompt carries the
        passages that carry the answer, not every page retrieved."""
        budget = self.settings.retrieval.prompt_words
        if budget <= 0:
            return context
        priority = sorted(range(len(context)), key=lambda i: (
            not any(_holds(context[i], c) for c in evidence), context[i].expanded, i))
        chosen: set[int] = set()
        used = 0
        for i in priority:
            n = len(context[i].chunk.text.split())
            if chosen and used + n > budget:
                continue
            chosen.add(i)
            used += n
        return [h for i, h in enumerate(context) if i in chosen]

    def _context(self, hits: list[Hit]) -> list[Hit]:
        """Ranked hits with their same-page neighbours, cut to the prompt's word budget.
        Ranked hits come first in priority: a neighbour is added only if it still fits."""
        budget = self.settings.retrieval.context_words
        expanded = self.retriever.expand(hits, self.settings.retrieval.context_chunks)
        out: list[Hit] = []
        used = 0
        for h in sorted(expanded, key=lambda h: h.expanded):  # stable: ranked first
            n = len(h.chunk.text.split())
            if out and used + n > budget:
                continue
            out.append(h)
            used += n
        # back to reading order within the chosen set
        order = {id(h): i for i, h in enumerate(expanded)}
        return sorted(out, key=lambda h: order[id(h)])


class _Until(threading.Event):
    """The analyst's cancel, or the answer's time budget spent: what a retry's generation
    stops on (the generator only asks ``is_set()``)."""

    def __init__(self, cancel: threading.Event | None, deadline: float | None) -> None:
        super().__init__()
        self.cancel, self.deadline = cancel, deadline

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def left(self) -> float | None:
        """Seconds until the deadline (negative once past it); None without one."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def is_set(self) -> bool:
        return super().is_set() or (self.cancel is not None and self.cancel.is_set()) or self.expired()


# the longest two-sentence quote the evidence retry joins (two typical filing sentences)
_JOINED_CHARS = 480


def _with_neighbour(p: Passage, a: int, b: int, names_it: Callable[[str], bool]) -> tuple[int, int] | None:
    """The prose sentence p.text[a:b] joined with the sentence just before or after it in the
    same paragraph, as one contiguous stretch of the page, when ``names_it`` accepts the
    two together; the one before first (it usually introduces the subject). None otherwise."""
    units = split_units(p.text)
    try:
        i = units.index((a, b))
    except ValueError:
        return None

    def prose(j: int) -> bool:
        ua, ub = units[j]
        return "\n\n" not in p.text[ua:ub] and not any(is_table_row(line) for line in p.text[ua:ub].splitlines())

    if not prose(i):
        return None
    for j in (i - 1, i + 1):
        if not 0 <= j < len(units) or not prose(j):
            continue
        lo, hi = min(a, units[j][0]), max(b, units[j][1])
        between = p.text[min(b, units[j][1]):max(a, units[j][0])]
        if "\n\n" in between or hi - lo > _JOINED_CHARS:
            continue  # another paragraph, or too long to read as one quote
        if names_it(p.text[lo:hi]):
            return lo, hi
    return None


@dataclass
class _FirstAttempt:
    """What the first attempt read, for a retry from its evidence: the question without the
    analyst's instructions, its plan, the passages verified against, those of the asked
    company, the concept the verifier checks and the terms every passage shares."""

    asked: str
    plan: QueryPlan
    passages: list[Passage]
    own: list[Passage]
    concept: set[str]
    ignore: set[str]


def _overlaps(cites: list[Citation], others: list[Citation]) -> bool:
    """Some quote of ``cites`` shares text with some quote of ``others`` on the same page."""
    return any(c.doc_id == o.doc_id and c.page == o.page and c.char_start < o.char_start + len(o.quote)
               and o.char_start < c.char_start + len(c.quote) for c in cites for o in others)


def _holds(h: Hit, c: Citation) -> bool:
    """The chunk's page span overlaps the quote's."""
    ch = h.chunk
    return (ch.doc_id == c.doc_id and ch.page == c.page and c.char_start >= 0
            and ch.char_start < c.char_start + len(c.quote) and c.char_start < ch.char_end)


def _header(h: Hit) -> str:
    m = h.doc.meta
    who = " ".join(x for x in (m.company or h.doc.file_name, m.form_type, m.period_label()) if x)
    return f"{who} | page {h.chunk.page}" + (f" | {h.chunk.section}" if h.chunk.section else "")


def _verdict_asked(plan: QueryPlan) -> bool:
    """The question is a yes/no claim (its ``QuestionIntent``): a model answer is shown as its
    verdict and the quoted sentences (``verify.verdict_with_quotes``)."""
    return plan.intent is not None and plan.intent.ask == "yesno"
