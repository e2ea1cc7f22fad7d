"""One conversation with the analyst: each message is made to stand alone, routed (answer
from what the thread already established, retrieve, or both), answered, laid out in the
conversation's style, stored, and older turns summarised into the memory.

Used by the CLI's interactive ``ask`` (``ask``) and the GUI, which calls ``prepare``,
``conversation_part`` and ``finish`` around its own streaming call of ``AnswerEngine.ask_stream``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_rag.core.conversation.arithmetic import (
    DIFFERENCE,
    GROWTH,
    MIDPOINT,
    RATIO,
    SUM,
    Operand,
    compute,
    dated_pair,
    operation,
    principal,
    range_in,
)
from desktop_rag.core.conversation.history import HistoryStore, StoredMessage
from desktop_rag.core.conversation.memory import Fact, MemoryStore, facts_from
from desktop_rag.core.conversation.rewrite import Rewrite, rewrite_followup
from desktop_rag.core.conversation.router import BOTH, CONVERSATION, RECALL_RE, RETRIEVE, Route, route, route_in
from desktop_rag.core.conversation.styles import STANDARD, apply_style, is_style_only, strip_style, style_request
from desktop_rag.core.domain.companies import names_in
from desktop_rag.core.domain.company_terms import LibraryTerms, companies_named_by_terms, library_terms, short_name
from desktop_rag.core.domain.measures import PEOPLE_WORDS
from desktop_rag.core.domain.numbers import numbers_in
from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.domain.periods import FiscalCalendar, find_periods
from desktop_rag.core.domain.terms import content_terms
from desktop_rag.core.domain.types import Answer, Citation, Document
from desktop_rag.core.ingest.identity import company_aliases, fiscal_calendar


@dataclass
class Turn:
    """A message read in the thread's light: how it stands alone, where it is answered from,
    and in which style."""

    question: str
    standalone: str
    rewrite: Rewrite
    route: Route
    style: str
    notes: list[str] = field(default_factory=list)


def scope_identity(docs: list[Document]) -> tuple[str, str]:
    """The company and period label of a document scope, when it is one company (and one period)."""
    companies = {d.meta.company for d in docs if d.meta.company}
    if len(docs) == 0 or len(companies) != 1:
        return "", ""
    periods = {d.meta.period_label() for d in docs}
    return next(iter(companies)), (next(iter(periods)) if len(periods) == 1 else "")


# pages of each filing read for its identifying terms: a 10-Q's segment tables and a 10-K's
# business section are in its first pages; bounds the time on a large library (and is what
# ``eval --threads`` reads without an index)
TERM_PAGES = 40


# a few sets of documents (a window's library, an evaluation's two data sets); insertion order
_terms_cache: dict[frozenset[tuple[str, str, str, tuple[str, ...]]], LibraryTerms] = {}
_TERMS_KEPT = 4


def terms_key(documents: list[Document]) -> frozenset[tuple[str, str, str, tuple[str, ...]]]:
    """What the terms of a set of documents depend on: each filing, its company and the names
    a question may use for it (ticker, the analyst's aliases)."""
    return frozenset((d.doc_id, d.meta.company, d.meta.ticker, tuple(d.meta.aliases)) for d in documents if d.meta.company)


def terms_for(documents: list[Document], page_texts: Callable[[str], list[str]]) -> LibraryTerms:
    """The identifying terms of a set of documents, computed once for that set (reading the
    first pages of every filing takes a second or more on a large library). The window warms
    it in the background when its documents change, so a question typed right after never
    waits for it on the UI thread; any conversation then finds it ready."""
    key = terms_key(documents)
    cached = _terms_cache.get(key)
    if cached is not None:
        return cached
    pages: dict[str, list[str]] = {}
    aliases: dict[str, set[str]] = {}
    for d in documents:
        if d.meta.company:
            pages.setdefault(d.meta.company, []).extend(page_texts(d.doc_id)[:TERM_PAGES])
            aliases.setdefault(d.meta.company, set()).update(company_aliases(d.meta))
    terms = library_terms(pages, aliases)
    _terms_cache[key] = terms  # one item assignment: a reader on another thread sees it or not
    while len(_terms_cache) > _TERMS_KEPT:
        _terms_cache.pop(next(iter(_terms_cache)), None)
    return terms


def company_calendars(documents: list[Document]) -> dict[str, FiscalCalendar]:
    """Each name of a library company (lower case) -> its fiscal calendar, from its latest
    report that states one (``metadata.fiscal_calendar``)."""
    latest: dict[str, tuple[str, FiscalCalendar]] = {}
    for d in documents:
        cal = fiscal_calendar(d.meta)
        if cal is None or not d.meta.company:
            continue
        if d.meta.company not in latest or d.meta.period_end > latest[d.meta.company][0]:
            latest[d.meta.company] = (d.meta.period_end, cal)
    out: dict[str, FiscalCalendar] = {}
    for d in documents:
        if d.meta.company in latest:
            for n in company_aliases(d.meta):
                out.setdefault(n.lower(), latest[d.meta.company][1])
    return out


class ConversationSession:
    def __init__(self, history: HistoryStore, memory: MemoryStore, documents: list[Document],
                 conv_id: int | None = None, page_texts: Callable[[str], list[str]] | None = None) -> None:
        """``page_texts``: a document's page texts by doc id (the library's store), from which
        the terms that identify a company (its segments, products) are derived; without it
        a follow-up is read from company names only."""
        self.history = history
        self.memory = memory
        self.documents: list[Document] = []
        self.names: set[str] = set()
        self.page_texts = page_texts
        self.set_documents(documents)
        self.conv_id = conv_id if conv_id is not None else history.new_conversation()

    def set_documents(self, documents: list[Document]) -> None:
        """The library's documents changed (added, removed, metadata edited)."""
        self.documents = list(documents)
        self.names = {n for d in documents for n in company_aliases(d.meta)}
        self.calendars = company_calendars(documents)
        self.company_of = {n.lower(): d.meta.company for d in documents if d.meta.company for n in company_aliases(d.meta)}

    def company_terms(self) -> LibraryTerms:
        """The library's prominent labels and identifying terms (term -> company), derived
        once per set of documents and shared by every conversation (``terms_for``)."""
        if self.page_texts is None:
            return LibraryTerms()
        return terms_for(self.documents, self.page_texts)

    @property
    def style(self) -> str:
        return self.memory.style(self.conv_id)

    def set_style(self, style: str) -> None:
        """Choose the conversation's answer style (remembered with the thread)."""
        self.memory.set_style(self.conv_id, style)

    # -- reading the message -----------------------------------------------------------------
    def messages(self) -> list[StoredMessage]:
        return self.history.messages(self.conv_id)

    def prepare(self, question: str, doc_scope: list[str] | None = None, standalone: str | None = None) -> Turn:
        """Read ``question`` in the thread: its standalone form, route and style.
        ``standalone``: the searched question as the analyst edited it; it is searched as
        written (no rewrite, no routing to the conversation)."""
        if standalone is not None and standalone.strip():
            edited = " ".join(standalone.split())
            rw = Rewrite(question=question, standalone=edited, kind="edited", carried=[])
            rt = Route(RETRIEVE, "the analyst edited the searched question")
            return Turn(question, edited, rw, rt, self.memory.style(self.conv_id),
                        [rt.note(), f"read as: {edited} (edited by the analyst)"])
        msgs = self.messages()
        previous = [m.standalone or m.question for m in msgs if not m.answer.cancelled]
        # what the thread searched: a message answered from the conversation ("What was the
        # change between them?") is no question to carry into the next follow-up
        searched = [m.standalone or m.question for m in msgs
                    if not m.answer.cancelled and getattr(route_in(m.answer.notes), "kind", RETRIEVE) != CONVERSATION]
        style = self.memory.style(self.conv_id)
        asked_style = style_request(question)
        notes = []
        if asked_style:
            style = asked_style
            self.memory.set_style(self.conv_id, style)
            notes.append(f"style: {style} (kept for this conversation)")
        scoped = [d for d in self.documents if doc_scope and d.doc_id in doc_scope]
        company, period = scope_identity(scoped)
        if scoped and not company:
            # a scope of several companies' filings: the one the message names, else the one the
            # thread asked last, is read as a scope of that company's filings ("What was Apple's R&D
            # for the quarter?" with Apple's and Nvidia's 10-Qs chosen is Apple's scoped quarter)
            company, period = self._scope_of_named(question, searched, scoped)
        if not period:
            # a thread whose questions name no period ("What did Oracle pay for Cerner?") is about
            # the period of the filing its answer cited: a follow-up searches that filing again
            period = self._cited_period(msgs, searched, company)
        text = strip_style(question) if asked_style and not is_style_only(question) else question
        terms = self.company_terms()
        # each name the library knows a company by -> that company's printed labels
        # (and the words its prose uses often: its products and brands, "Azure", "Converse")
        labels = {n.lower(): terms.labels[d.meta.company] | terms.own_words.get(d.meta.company, frozenset())
                  for d in self.documents if d.meta.company in terms.labels for n in company_aliases(d.meta)}
        # the messages answered from the conversation since the latest searched one ("back to
        # intel, what did u say 1Q was"): the company they name is the thread's again
        asides: list[str] = []
        for m in reversed([m for m in msgs if not m.answer.cancelled]):
            if getattr(route_in(m.answer.notes), "kind", RETRIEVE) != CONVERSATION:
                break
            asides.insert(0, m.question)
        rw = rewrite_followup(text, searched, self.names, company, period, terms.identifying, labels, terms.names,
                              calendars=self.calendars, printed_lower=terms.printed_lower, asides=asides,
                              company_of=self.company_of, defined=terms.defined, companies_named=terms.companies_named)
        answered = len(facts_from(msgs, self.memory.cleared_upto(self.conv_id)))
        # the router reads the message with the library's names as printed ("microsft" -> "Microsoft")
        routed = rw.spelled if rw.spelled and text == question else question
        rt = route(routed, previous, answered, self.names,
                   absent_companies=[rw.absent_company] if rw.absent_company else [], company_of=self.company_of,
                   periods=[rw.named_period] if rw.named_period else [])
        if rt.kind == BOTH and is_style_only(question) and searched:
            # "give me a detailed version": the last question searched again, laid out in the style
            rw = Rewrite(question=question, standalone=searched[-1], kind="swap", carried=["question"])
        notes.append(rt.note())
        if rt.kind == CONVERSATION:
            # nothing is searched: the message is read as written ("Summarise what we found"
            # is no question about the thread's company and period)
            return Turn(question, " ".join(question.split()), rw, rt, style, notes)
        if rw.standalone != rw.question.strip():
            notes.append(f"read as: {rw.standalone} ({rw.note()})")
        return Turn(question, rw.standalone, rw, rt, style, notes)

    def _cited_period(self, msgs: list[StoredMessage], searched: list[str], company: str) -> str:
        """The period label of the filing(s) the latest answer searched from the filings cited,
        when no searched question names a period and they are one company's filings of one
        period (that company's, when the chat is limited to one); "" otherwise."""
        if any(find_periods(q).mentions or find_periods(q).latest for q in searched):
            return ""
        for m in reversed(msgs):
            if m.answer.cancelled or getattr(route_in(m.answer.notes), "kind", RETRIEVE) == CONVERSATION:
                continue
            if m.answer.not_in_corpus or not m.answer.citations:
                return ""
            by_id = {d.doc_id: d for d in self.documents}
            cited = [by_id[c.doc_id] for c in m.answer.citations if c.doc_id in by_id]
            companies = {d.meta.company for d in cited}
            labels = {d.meta.period_label() for d in cited}
            if len(companies) == 1 and len(labels) == 1 and (not company or company in companies):
                return next(iter(labels))
            return ""
        return ""

    def _scope_of_named(self, question: str, searched: list[str], scoped: list[Document]) -> tuple[str, str]:
        """The company and period of the scoped filings of the one scoped company that the
        message names, else that the latest searched question naming one names; ("", "")
        when none does."""
        by_company: dict[str, list[Document]] = {}
        for d in scoped:
            by_company.setdefault(d.meta.company, []).append(d)
        for text in [question, *reversed(searched)]:
            named = {self.company_of.get(n.lower(), "") for n in names_in(text, self.names)} & set(by_company)
            if len(named) == 1:
                return scope_identity(by_company[next(iter(named))])
            if named:
                break
        return "", ""

    # -- answering from the thread ---------------------------------------------------------------
    def known_facts(self) -> list[Fact]:
        """What the thread established: the stored memory, then the recent turns in full."""
        msgs = self.messages()
        stored = self.memory.memory(self.conv_id)
        seen = {f.msg_id for f in stored}
        recent = [f for f in facts_from(msgs, self.memory.cleared_upto(self.conv_id)) if f.msg_id not in seen]
        return stored + recent

    def from_conversation(self, turn: Turn) -> Answer | None:
        """An answer made only of stored answers and their stored citations; None when the
        thread holds nothing that answers (the caller retrieves instead)."""
        t0 = time.perf_counter()
        facts = self.known_facts()
        if not facts:
            return None
        task = turn.route.task
        if task == "restyle":
            # the whole last answer, with its stored citations: the style re-lays it in finish()
            last = facts[-1]
            full = next((m.answer.answer for m in reversed(self.messages()) if m.msg_id == last.msg_id), "")
            chosen, text = [last], full or last.statement
        elif task == "summary":
            chosen = facts
            text = "\n".join(f"- {f.question}: {f.statement}" for f in facts)
        elif turn.route.kind == BOTH:
            # "how does that compare with Intel?": "that" is the latest answer
            chosen = [facts[-1]]
            text = f"Earlier ({facts[-1].question}): {facts[-1].statement}"
        elif task == "compare" and (worked := self._computed(turn.question, facts))[0]:
            # "midpoint of that range?", "so total cash returned?": computed from the answers given
            text, chosen = worked[0], worked[1]
            text += "\n" + "\n".join(f"Earlier ({f.question}): {f.statement}" for f in chosen)
        elif task == "compare":
            chosen = self._matching(self._with_company_names(turn.question), facts, 2) or facts[-2:]
            text = self._comparison(chosen)
        else:
            chosen = self._matching(self._with_company_names(turn.question), facts, 2)
            if not chosen and not RECALL_RE.search(turn.question):
                return None
            if chosen:
                text = "\n".join(f"Earlier ({f.question}): {f.statement}" for f in chosen)
            else:
                # asked what was said ("what did you tell me about Coke?"): the filings cannot
                # answer that; say that nothing said matches its words, and what was said
                chosen = facts
                text = ("Nothing said earlier in this conversation uses those words. What it established:\n"
                        + "\n".join(f"- {f.question}: {f.statement}" for f in facts))
        cites = _unique([c for f in chosen for c in f.citations])
        ans = Answer(query=turn.question, answer=text, citations=cites, standalone_query=turn.standalone,
                     notes=[*turn.notes, f"answered from the conversation: {len(chosen)} earlier answer(s), "
                                        "their stored citations, no new retrieval"])
        ans.timings_ms = {"retrieve": 0.0, "first_token": 0.0, "total": (time.perf_counter() - t0) * 1000}
        return ans

    def _with_company_names(self, question: str) -> str:
        """The question with the names of the companies it names by their own terms ("what
        did you tell me about coke?" + "Coca-Cola"): earlier answers name the company."""
        terms = self.company_terms()
        named = companies_named_by_terms(question, terms.identifying, terms.names)
        return " ".join([question, *sorted(short_name(c) for c in named)])

    @staticmethod
    def _matching(question: str, facts: list[Fact], k: int) -> list[Fact]:
        terms = _terms(question)
        scored = []
        for i, f in enumerate(facts):
            overlap = len(terms & _terms(f.question + " " + f.statement))
            if overlap:
                scored.append((overlap, i, f))
        scored.sort(key=lambda s: (-s[0], -s[1]))
        return sorted((f for _, _, f in scored[:k]), key=lambda f: f.msg_id)

    def _computed(self, question: str, facts: list[Fact]) -> tuple[str, list[Fact]]:
        """The arithmetic the message asks of the answers given, computed from their figures,
        and the answers used; ("", []) when it asks none or their figures do not allow it. A
        midpoint is of the range the latest answer states (else of the last two answers); a
        total of the last answers (as many as the message counts, else two); the rest of the
        two answers its words match (else the last two)."""
        op = operation(question)
        # the figures the filings gave, not an earlier computation or recall from the thread
        searched = {m.msg_id for m in self.messages() if getattr(route_in(m.answer.notes), "kind", RETRIEVE) != CONVERSATION}
        facts = [f for f in facts if f.msg_id in searched]
        if not op or not facts:
            return "", []
        if op == MIDPOINT and range_in(facts[-1].statement):
            used = [facts[-1]]
        elif op in (GROWTH, DIFFERENCE) and _ONE_ANSWER.search(question) and (pair := dated_pair(facts[-1].statement)):
            # "by what percentage did it fall?": the change within the latest answer, which gives
            # both figures with their periods ("$3,825 million in fiscal 2018, from $9,335 million in
            # fiscal 2017")
            operands = [Operand(period, figure) for period, figure in pair]
            text = compute(question, operands)
            return (text, [facts[-1]]) if text else ("", [])
        elif op == SUM:
            count = re.search(r"\b(?:those|these|the|all)\s+(two|three|four|five|[2-5])\b", question, re.I)
            n = {"two": 2, "three": 3, "four": 4, "five": 5}.get(count.group(1).lower(), 0) or int(count.group(1)) \
                if count else 2
            used = facts[-n:]
        else:
            used = self._matching(self._with_company_names(question), facts, 2)
            used = used if len(used) == 2 else facts[-2:]
            named = set(content_terms(self._with_company_names(question)))
            first = [f for f in used if named & set(content_terms(f.question))]
            if op == RATIO and len(first) == 1:
                # "how many times bigger is Oracle's workforce?": Oracle's figure over the other
                used = [first[0], *[f for f in used if f is not first[0]]]
        operands = [Operand(f.question, p) for f in used if (p := principal(f.statement)) is not None]
        if len(operands) != len(used) and not (op == MIDPOINT and len(used) == 1):
            return "", []
        text = compute(question, operands, facts[-1].statement if op == MIDPOINT else "")
        return (text, used) if text else ("", [])

    @staticmethod
    def _comparison(facts: list[Fact]) -> str:
        lines = [f"{f.question}: {f.statement}" for f in facts]
        return "\n".join(lines)

    # -- after the answer ---------------------------------------------------------------------
    def finish(self, turn: Turn, answer: Answer, scope_names: list[str] | None = None,
               earlier: Answer | None = None) -> tuple[Answer, int]:
        """Lay the answer out in the conversation's style, add the turn's details, store it,
        and summarise older turns into the memory. ``earlier``: for a ``both`` route, the
        answer from the conversation to set beside the new one."""
        if earlier is not None and not answer.not_in_corpus:
            answer.answer = f"{answer.answer}\n\n{earlier.answer}"
            answer.citations = _unique(list(answer.citations) + list(earlier.citations))
        if turn.style != STANDARD and not answer.not_in_corpus:
            styled = apply_style(answer, turn.style)
            # what the style may show: the answer, its quotes, and the sources it names them by
            # ("2023 Q3 INTC.pdf, p. 4")
            allowed = " ".join([answer.answer, *(f"{c.quote} {c.doc} {cited_page(c)}" for c in answer.citations)])
            extra = set(numbers_in(styled)) - set(numbers_in(allowed))
            if extra:  # a style must not add a figure; keep the verified text as it was
                turn.notes.append(f"style {turn.style} not applied: it would add {sorted(extra)}")
            else:
                answer.answer = styled
        answer.standalone_query = turn.standalone
        answer.notes = [*turn.notes, *[n for n in answer.notes if n not in turn.notes]]
        msg_id = self.history.add_message(self.conv_id, answer, scope_names)
        self.memory.update(self.conv_id, self.messages())
        return answer, msg_id

    def ask(self, engine: Any, question: str, doc_scope: list[str] | None = None,
            on_event: Callable[[Any], None] | None = None) -> Answer:
        """Read, route, answer, style and store one message (``engine``: ``AnswerEngine``;
        ``on_event`` sees its events, e.g. the evidence shown before the model's answer)."""
        return self.run(engine, self.prepare(question, doc_scope), doc_scope, on_event=on_event)

    def conversation_part(self, turn: Turn) -> Answer | None:
        """For a turn routed to the conversation (or both): the answer made from the thread.
        A conversation route the thread cannot answer becomes a retrieval (noted)."""
        if turn.route.kind not in (CONVERSATION, BOTH):
            return None
        earlier = self.from_conversation(turn)
        if turn.route.kind == CONVERSATION and earlier is None:
            turn.notes.append("nothing stored answers it: retrieving instead")
            turn.route = Route(RETRIEVE, "the conversation holds no answer to it")
            turn.standalone = turn.rewrite.standalone
            if turn.standalone != turn.rewrite.question.strip():
                turn.notes.append(f"read as: {turn.standalone} ({turn.rewrite.note()})")
        return earlier

    def run(self, engine: Any, turn: Turn, doc_scope: list[str] | None = None,
            scope_names: list[str] | None = None, on_event: Callable[[Any], None] | None = None) -> Answer:
        """Answer a prepared turn: from the conversation, by retrieval, or both; then store it."""
        earlier = self.conversation_part(turn)
        if turn.route.kind == CONVERSATION and earlier is not None:
            return self.finish(turn, earlier, scope_names)[0]
        events = {"on_event": on_event} if on_event is not None else {}
        answer = engine.ask(turn.question, standalone=turn.standalone, doc_scope=doc_scope, **events)
        return self.finish(turn, answer, scope_names, earlier=earlier if turn.route.kind == BOTH else None)[0]

    def clear_memory(self) -> None:
        msgs = self.messages()
        self.memory.clear(self.conv_id, msgs[-1].msg_id if msgs else 0)


def conversation_json(answer: Answer) -> dict[str, Any]:
    """How a message was read and answered, for ``ask --json``: the searched (standalone)
    question, the router's decision and reason, the retry attempts, which attempt was
    verified, and every note."""
    rt = route_in(answer.notes)
    attempt = int(answer.timings_ms.get("attempt", 0) or 0)
    return {
        "standalone": answer.standalone_query or answer.query,
        "route": {"kind": rt.kind, "task": rt.task, "reason": rt.reason} if rt else None,
        "attempts": [n for n in answer.notes if n.startswith("attempt ")],
        "verified_attempt": attempt or None,
        "notes": list(answer.notes),
    }


def _terms(text: str) -> set[str]:
    """The content terms of ``text``, a company's people counted as one thing however named
    ("workforce", "headcount", "employees")."""
    return {"employees" if t in PEOPLE_WORDS else t for t in content_terms(text)}


# a message pointing at one answer ("did it fall", "that"), not at several ("those", "the two")
_ONE_ANSWER = re.compile(r"\b(?:it|that|this)\b(?!\s+(?:two|three|both))", re.I)


def _unique(cites: list[Citation]) -> list[Citation]:
    out: list[Citation] = []
    for c in cites:
        if not any(o.doc_id == c.doc_id and o.page == c.page and o.quote == c.quote for o in out):
            out.append(c)
    return out
