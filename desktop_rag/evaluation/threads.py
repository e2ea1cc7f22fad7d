"""Multi-turn threads (``main.py eval --threads``): follow-up resolution, routing, answers
from memory and retries, on ``eval/threads.jsonl``.

Each thread: ``{"id", "set", "group" ("tuned": written with the rules, the default;
"held-out": written afterwards and never tuned on), "scope": [file names the chat is limited to], "turns": [{"q",
"company" (expected company, as its filing's cover names it, or a name the library lacks),
"period" (expected period as a question writes it: "Q2 FY2024", "fiscal 2015", "2021",
"2023-06-30"; null when none), "route" ("retrieve" | "conversation" | "both"), "doc" (the
filing that answers it, or null)}]}``.

Measures:
- resolution: of the follow-up turns (not the first) that are retrieved, the share whose
  standalone question names the expected company (and no other library company) and the
  expected period (a fiscal quarter and the date it ends are one period through the expected
  company's fiscal calendar, read from its filing's cover: Apple's "Q1 FY2023" is "the quarter
  ended December 31, 2022"; a calendar quarter is the one a period mostly covers, as the search
  reads a filing's calendar label);
- concept kept: of those, the share whose standalone question keeps the measure asked
  (``thread_concept``: the follow-up's own measure, else the latest earlier question's,
  unless the follow-up asks a qualitative question); "all three" is company, period and
  concept together;
- router: the share of turns (not the first) routed as labelled;
- memory: every citation of an answer from the conversation is one stored earlier in it;
- retries (``--answers`` only, with the language model): of the answerable turns (a filing
  is labelled) whose first attempt failed verification or a borderline gate, the share a
  retry turned into a verified answer citing no other company; a must-refuse turn (no
  filing labelled) a retry answered is a regression, counted apart; and citations of
  another company than the expected one.

Without ``--answers`` the filings are not indexed: the library's company names and periods
come from the filings' first pages (as ingest detects them) and every retrieved turn is
answered by a stub that cites its expected filing, so resolution, routing and memory are
measured in seconds without the model.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from desktop_rag.core.conversation.database import ConversationDatabase
from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore
from desktop_rag.core.conversation.router import CONVERSATION
from desktop_rag.core.conversation.session import ConversationSession
from desktop_rag.core.domain.companies import derived_aliases, names_in, subject_names
from desktop_rag.core.domain.measures import measure_phrase
from desktop_rag.core.domain.periods import (
    YEAR_TO_DATE,
    FiscalCalendar,
    PeriodMention,
    calendar_quarter,
    find_periods,
    is_period_word,
)
from desktop_rag.core.domain.terms import content_terms
from desktop_rag.core.domain.types import Answer, Citation, Document
from desktop_rag.core.ingest.identity import company_aliases, detect_metadata
from desktop_rag.evaluation.devsets import shared_dir
from desktop_rag.evaluation.metrics import retry_record

# a thread's "set": where its filings are (the pool of blind batches: eval/README.md)
SET_DIRS = {"sec10q": ("sec10q", "pdfs"), "financebench-dev": ("financebench-dev", "pdfs"),
            "filings-pool": ("filings-pool", "pdfs")}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_threads(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def set_folder(name: str) -> Path:
    a, b = SET_DIRS[name]
    return shared_dir() / "data" / a / b


def cover_documents(folder: Path, cache: Path | None = None) -> list[Document]:
    """The set's filings as ingest would describe them (cover-page company, ticker, period),
    read from their first pages only: no index is built. ``cache``: a JSON file of the
    extracted first pages, keyed by file name and size (metadata is re-detected each run)."""
    return cover_library(folder, cache)[0]


def cover_library(folder: Path, cache: Path | None = None) -> tuple[list[Document], dict[str, list[str]]]:
    """``cover_documents`` and the first pages' texts by doc id (what a conversation derives
    the library's identifying terms from)."""
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    stored: dict[str, Any] = {}
    if cache is not None and cache.is_file():
        stored = json.loads(cache.read_text("utf-8"))
    docs = []
    texts: dict[str, list[str]] = {}
    for p in sorted(folder.glob("*.pdf")):
        key = f"{p.name}|{p.stat().st_size}"
        if key not in stored:
            pdf = open_pdf(p)
            try:
                stored[key] = [extract_page(pdf[i]).text for i in range(min(40, pdf.page_count))]
            finally:
                pdf.close()
        pages = stored[key]
        meta = detect_metadata(p.name, "\n".join(pages[:3]), "\n".join(pages[3:40]))
        docs.append(Document(p.name, p.name, str(p), len(pages), meta))
        texts[p.name] = pages
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored), "utf-8")
        tmp.replace(cache)
    return docs, texts


# -- scoring (pure) ---------------------------------------------------------------------------------
def _same_period(a: PeriodMention, b: PeriodMention, calendar: FiscalCalendar | None = None) -> bool:
    """One period however written. ``calendar``: the expected company's fiscal calendar (from
    its filing's cover), through which its fiscal quarter and the date that quarter ends (or
    the calendar quarter it mostly covers) are the same period, as the search reads them."""
    if b.span == YEAR_TO_DATE and (a.span != YEAR_TO_DATE or (a.quarter and b.quarter and a.quarter != b.quarter)):
        # the expected "nine months ended October 29, 2023" is no quarter ending that day, nor six
        # months (an expected quarter is met by its year to date: the same report is searched)
        return False
    if a.date and b.date:
        return abs((a.date - b.date).days) <= 7
    day, quarter = (a.date, b) if a.date else (b.date, a) if b.date else (None, None)
    if day is not None and quarter is not None:
        instant = (b if a is quarter else a).span in ("", "year")
        if not quarter.quarter and not quarter.span and instant and quarter.year:
            # a balance at a year's close and that (fiscal) year are one period: its 10-K
            # ("backlog at YE22" is the backlog as of December 31, 2022)
            slack = day - timedelta(days=7)
            closes = calendar.quarter_end(quarter.year, 4) if calendar is not None else (quarter.year, 12)
            return closes == (slack.year, slack.month)
        if not quarter.quarter:
            return False
        if quarter.fiscal and calendar is not None:
            ends = calendar.quarter_end(quarter.year or 0, quarter.quarter)
            slack = day - timedelta(days=7)
            return ends == (slack.year, slack.month)
        # "Q3 2023" written without "fiscal" is the calendar quarter the period mostly covers
        # (the quarter ended September 30, 2023; Apple's ended July 1, 2023 is Q2 2023), as the
        # search reads a filing's calendar label
        mid = day - timedelta(days=45)
        return bool(not quarter.fiscal and quarter.year == mid.year and quarter.quarter == calendar_quarter(day))
    if calendar is not None and a.quarter and b.quarter and a.fiscal != b.fiscal:
        fiscal, plain = (a, b) if a.fiscal else (b, a)
        year, month = calendar.quarter_end(fiscal.year or 0, fiscal.quarter or 0)
        end = date(year, month, 28)
        return (plain.year, plain.quarter) == ((end - timedelta(days=45)).year, calendar_quarter(end))
    return (a.year, a.quarter) == (b.year, b.quarter)


def period_resolved(standalone: str, expected: str | None, calendar: FiscalCalendar | None = None) -> bool:
    if not expected:
        return True
    iso = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", expected.strip())
    if iso:  # a label written as an ISO date ("2023-06-30"): questions write dates in words
        day = date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        want = [PeriodMention("", 0, 0, year=day.year, date=day)]
    else:
        want = find_periods(expected).mentions
    if not want:
        return False
    return any(_same_period(m, want[0], calendar) for m in find_periods(standalone).mentions)


def company_resolved(standalone: str, expected: str | None, docs: list[Document],
                     own_terms: Collection[str] = (), typed: str = "") -> bool:
    """The standalone question names the expected company and no other library company than
    the ones the analyst typed (``typed``: the message; "how does Adobe's revenue compare with
    Microsoft's" names both). ``own_terms``: the terms that identify the expected company in
    the library (its segments and products only its filings print: "Mobileye" of Intel), which
    are no other company."""
    if not expected:
        return True
    others: set[str] = set()
    mine: set[str] = set()
    for d in docs:
        names = company_aliases(d.meta)
        # one company however its cover capitalises it ("NIKE, Inc." labelled "Nike, Inc.")
        (mine if d.meta.company.casefold() == expected.casefold() else others).update(names)
    low = {n.lower() for n in mine}
    others = {n for n in others if n.lower() not in low}  # "Adobe" of Adobe Systems is the same company as "adobe"
    if mine:
        named = bool(names_in(standalone, mine))
    else:
        # a company the library lacks: a name a question uses for it, derived from its registered
        # name as for a library company ("Rivian Automotive, Inc." -> "Rivian"), must be there
        named = expected.lower() in standalone.lower() or bool(names_in(standalone, derived_aliases(expected)))
        mine = derived_aliases(expected)
    # nor a company the library lacks that an earlier turn named ("What were AMD's ... (Intel)?")
    strays = [n for n in subject_names(standalone)
              if not names_in(n, mine | {expected}) and expected.lower() not in n.lower()
              and n.lower() not in expected.lower()  # "3M" of "3M Company"
              and n.lower() not in own_terms
              and not re.search(rf"(?<![\w&]){re.escape(n)}(?![\w&])", typed)]  # typed by the analyst
    # another library company counts against the reading only when the analyst did not type it
    typed_companies = {d.meta.company.casefold() for d in docs if typed and names_in(typed, company_aliases(d.meta))}
    typed_names = {n.lower() for d in docs if d.meta.company.casefold() in typed_companies for n in company_aliases(d.meta)}
    added = [n for n in names_in(standalone, others) if n.lower() not in typed_names]
    return named and not added and not strays


# A follow-up asking what the filing says, why, or about risks asks something new: the
# thread's measure is not expected in it ("What did the filing say about currency risk?")
_QUALITATIVE = re.compile(r"\b(?:say|said|says|risks?|mention(?:ed|s)?|cites?|describe|explain|discuss(?:es|ed)?|why|"
                          r"drove|how\s+come)\b", re.I)


# A follow-up asking about something of its own, not about the thread's measure: the date of an
# event ("When did they come out of Chapter 11?"), an outlook ("What does management expect for
# FY24?"), or what a thing an earlier answer mentioned was ("What was that litigation?"; not "that
# quarter", "that figure")
_ASKS_WHEN = re.compile(r"^\W*(?:(?:and|so|ok(?:ay)?|also)\W+)?when\b", re.I)
_OUTLOOK = re.compile(r"\b(?:expects?|expected|expecting|guid(?:e|es|ed|ing|ance)|outlook|forecasts?|forecasting)\b", re.I)
# (an outlook of something an answer gave is about it: "what % of that book did they expect to burn off")
_POINTS_BACK = re.compile(r"\b(?:that|it|its|this|those|these|them)\b", re.I)
_POINTED_THING = re.compile(r"^\W*(?:(?:and|so|ok(?:ay)?)\W+)?(?:what|which)\s+(?:was|is|were|are)\s+(?:that|this|those|these)\s+"
                            r"(?P<noun>[A-Za-z][\w-]*)\s*[?.!]*\s*$", re.I)
_POINTED_GENERIC = {"figure", "figures", "number", "numbers", "amount", "amounts", "one", "ones", "value", "values",
                    "result", "results", "answer", "answers", "total", "metric", "measure", "ratio", "item", "line",
                    "quarter", "qtr", "year", "yr", "period", "month", "months", "half", "date", "day"}


def thread_concept(question: str, earlier: list[str]) -> str:
    """The measure a follow-up's standalone question must keep, from the analyst's own words:
    the measure it names, else the latest earlier question's (``earlier``: the thread's
    questions answered from the filings, as typed); "" when none is expected (a qualitative
    question, or one about a subject of its own: a date, an outlook, what a thing mentioned was)."""
    own = measure_phrase(question)
    if own:
        return own
    if _QUALITATIVE.search(question) or _ASKS_WHEN.search(question) or (
            _OUTLOOK.search(question) and not _POINTS_BACK.search(question)):
        return ""
    pointed = _POINTED_THING.search(question)
    if pointed and pointed.group("noun").lower() not in _POINTED_GENERIC and not is_period_word(pointed.group("noun")) \
            and not measure_phrase(pointed.group("noun")):
        return ""
    for q in reversed(earlier):
        found = measure_phrase(q)
        if found:
            return found
    return ""


def concept_kept(standalone: str, concept: str) -> bool:
    """Every evidence term of ``concept`` ("net sales" -> revenue) is in the standalone question."""
    return set(content_terms(concept)) <= set(content_terms(standalone))


class StubEngine:
    """Answers a retrieved turn by citing its expected filing (fast mode: no index, no model)."""

    def __init__(self, docs: dict[str, Document]) -> None:
        self.docs = docs
        self.doc_for: str | None = None

    def ask(self, question: str, standalone: str | None = None, doc_scope: Any = None) -> Answer:
        q = standalone or question
        doc = self.docs.get(self.doc_for or "")
        if doc is None:
            return Answer(question, "The library does not contain an answer.", [], not_in_corpus=True,
                          standalone_query=q)
        cite = Citation(doc.doc_id, doc.file_name, 1, f"evidence for: {q}")
        return Answer(question, f"Stub answer to: {q}", [cite], standalone_query=q)


def run_threads(threads: list[dict[str, Any]], docs_by_set: dict[str, list[Document]],
                engine_for: Callable[[str], Any], tmp: Path, answers: bool = False,
                log: Callable[[str], None] = _log,
                page_texts_by_set: dict[str, Callable[[str], list[str]]] | None = None) -> dict[str, Any]:
    """Play every thread in a fresh conversation and score it. ``page_texts_by_set``: per set,
    a document's page texts by doc id (the conversation's identifying terms come from them)."""
    database = ConversationDatabase(tmp / "threads-history.sqlite")
    hist, mem = HistoryStore(database), MemoryStore(database)
    rows: list[dict[str, Any]] = []
    try:
        for th in threads:
            docs = docs_by_set[th["set"]]
            by_name = {d.file_name: d for d in docs}
            engine = engine_for(th["set"])
            page_texts = (page_texts_by_set or {}).get(th["set"])
            session = ConversationSession(hist, mem, docs, page_texts=page_texts)
            identifying = session.company_terms().identifying  # derived once per set (a shared cache)
            calendars = {d.meta.company.casefold(): session.calendars.get(next(iter(company_aliases(d.meta))).lower())
                         for d in docs if d.meta.company and company_aliases(d.meta)}
            scope = [by_name[f].doc_id for f in th.get("scope") or [] if f in by_name] or None
            stored: set[tuple[str, int, str]] = set()
            asked: list[str] = []  # the thread's questions answered from the filings, as typed
            for i, t in enumerate(th["turns"]):
                t0 = time.perf_counter()
                turn = session.prepare(t["q"], scope)
                if isinstance(engine, StubEngine):
                    engine.doc_for = t.get("doc")
                ans = session.run(engine, turn, scope)
                cites = {(c.doc, c.page, c.quote) for c in ans.citations}
                row = {"thread": th["id"], "set": th["set"], "group": th.get("group", "tuned"), "turn": i, "q": t["q"], "standalone": turn.standalone,
                       "route": turn.route.kind, "route_task": turn.route.task, "expected_route": t["route"],
                       "route_ok": turn.route.kind == t["route"], "ms": round((time.perf_counter() - t0) * 1000, 1),
                       # what the analyst read, for grading answer turns by hand
                       "answer": ans.answer, "cited": [f"{c.doc} p.{c.page}: {c.quote[:160]}" for c in ans.citations]}
                if t["route"] != CONVERSATION and (t.get("company") or t.get("period")):
                    expected = (t.get("company") or "").casefold()
                    row["company_ok"] = company_resolved(turn.standalone, t.get("company"), docs,
                                                         {w for w, c in identifying.items() if c.casefold() == expected},
                                                         typed=t["q"])
                    row["period_ok"] = period_resolved(turn.standalone, t.get("period"),
                                                       calendars.get((t.get("company") or "").casefold()))
                    concept = thread_concept(t["q"], asked)
                    if concept:
                        row["concept"] = concept
                        row["concept_ok"] = concept_kept(turn.standalone, concept)
                if t["route"] != CONVERSATION:
                    asked.append(t["q"])
                if turn.route.kind == CONVERSATION:
                    row["memory_cites_stored"] = cites <= stored
                if answers and turn.route.kind != CONVERSATION:
                    row.update(_answer_row(ans, t, docs))
                    # one line per answered turn: a long run on a slow machine shows its progress
                    log(f"threads: {th['id']}#{i} {row['route']}: verified={row['verified']} "
                        f"first_failed={row['first_failed']} attempt={row['attempt']} "
                        f"wrong_company_cites={row['wrong_company_cites']} ({row['total_ms'] / 1000:.0f} s)")
                    for note in row["attempts"]:  # why the first attempt failed, what each retry tried
                        log(f"    {note}")
                stored |= cites
                rows.append(row)
            log(f"threads: {th['id']} done ({len(th['turns'])} turns)")
    finally:
        hist.close()
        mem.close()
        database.close()
    return {"rows": rows, "summary": summarise(rows, answers)}


def _answer_row(ans: Answer, t: dict[str, Any], docs: list[Document]) -> dict[str, Any]:
    """How one retrieved turn was answered. A turn labelled with no filing (``doc`` null: a
    company, period or subject the library lacks) must be refused: a retry that answers it
    turned a right refusal into an answer, a regression (``retry_regression``), never a
    conversion; a conversion is an answerable turn whose first attempt failed and whose retry
    was verified without a citation of another company."""
    first_failed, attempt, attempts = retry_record(ans.notes, ans.timings_ms)
    verified = not ans.extractive and not ans.not_in_corpus and bool(ans.citations)
    companies = {d.file_name: d.meta.company for d in docs}
    expected = t.get("company")
    wrong = [c.doc for c in ans.citations if expected and companies.get(c.doc) not in (None, expected)
             and expected in companies.values()]
    answerable = bool(t.get("doc"))
    retried = first_failed and attempt > 1 and verified
    return {"first_failed": first_failed, "attempt": attempt, "verified": verified, "answerable": answerable,
            "retry_verified": retried and answerable and not wrong,
            "retry_regression": retried and not answerable,
            "retry_cites_expected_doc": retried and answerable and not wrong
            and any(c.doc == t.get("doc") for c in ans.citations),
            "wrong_company_cites": len(wrong), "attempts": attempts,
            "total_ms": round(ans.timings_ms.get("total", 0.0), 1)}


def _share(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    have = [r for r in rows if key in r]
    ok = sum(bool(r[key]) for r in have)
    return {"n": len(have), "ok": ok, "share": round(ok / len(have), 3) if have else None}


def summarise(rows: list[dict[str, Any]], answers: bool) -> dict[str, Any]:
    follow = [r for r in rows if r["turn"] > 0]
    resolved = [dict(r, resolved=r["company_ok"] and r["period_ok"],
                     all_three=r["company_ok"] and r["period_ok"] and r.get("concept_ok", True))
                for r in follow if "company_ok" in r]
    out: dict[str, Any] = {}
    groups = sorted({r.get("group", "tuned") for r in rows}, key=lambda g: g != "tuned")
    names = ["all", "sec10q", "financebench-dev"]
    if len(groups) > 1:  # the threads the rules were tuned on apart from the held-out ones
        names += [f"{s}/{g}" for g in groups for s in ("all", "sec10q", "financebench-dev")]
    for name in names:
        def pick(r: dict[str, Any], n: str = name) -> bool:
            s, _, g = n.partition("/")
            return (s == "all" or r["set"] == s) and (not g or r.get("group", "tuned") == g)

        res = [r for r in resolved if pick(r)]
        out[name] = {"followups_resolved": _share(res, "resolved"), "company": _share(res, "company_ok"),
                     "period": _share(res, "period_ok"), "concept": _share(res, "concept_ok"),
                     "company_period_concept": _share(res, "all_three"),
                     "router": _share([r for r in follow if pick(r)], "route_ok"),
                     "memory_cites_stored": _share([r for r in rows if pick(r)], "memory_cites_stored")}
        if answers:
            ans_rows = [r for r in rows if pick(r) and "verified" in r]
            # conversion is measured on turns the filings answer; a must-refuse turn's first
            # attempt "fails" rightly, and a retry that answers it is counted as a regression
            failed = [r for r in ans_rows if r["first_failed"] and r.get("answerable", True)]
            converted = sum(r["retry_verified"] for r in failed)
            out[name]["answers"] = {
                "turns": len(ans_rows), "verified": sum(r["verified"] for r in ans_rows),
                "first_attempt_failed": len(failed), "converted_by_retry": converted,
                "conversion": round(converted / len(failed), 3) if failed else None,
                "converted_citing_expected_doc": sum(r.get("retry_cites_expected_doc", False) for r in failed),
                "must_refuse_first_failed": sum(r["first_failed"] and not r.get("answerable", True) for r in ans_rows),
                "retry_regressions": sum(r.get("retry_regression", False) for r in ans_rows),
                "wrong_company_citations": sum(r["wrong_company_cites"] for r in ans_rows)}
    return out


# -- the command ---------------------------------------------------------------------------------------
def run(ns: argparse.Namespace) -> int:
    from desktop_rag.paths import app_root

    path = Path(ns.threads_file) if getattr(ns, "threads_file", None) else app_root() / "eval" / "threads.jsonl"
    if not path.is_file():
        _log(f"eval --threads: not found: {path}")
        return 2
    threads = load_threads(path)
    wanted = getattr(ns, "set", None)
    if wanted:
        threads = [t for t in threads if t["set"] == wanted]
    limit = getattr(ns, "limit", None)
    if limit:
        threads = threads[:limit]
    answers = bool(getattr(ns, "threads_answers", False))
    sets = sorted({t["set"] for t in threads})
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if answers:
            result = _run_with_answers(ns, threads, sets, Path(tmp))
        else:
            docs_by_set = {}
            texts_by_set: dict[str, dict[str, list[str]]] = {}
            for s in sets:
                folder = set_folder(s)
                if not folder.is_dir():
                    _log(f"eval --threads: filings of {s} not found at {folder}: skipped")
                    threads = [t for t in threads if t["set"] != s]
                    continue
                docs_by_set[s], texts_by_set[s] = cover_library(folder, _cache_dir(ns) / f"threads-covers-{s}.json")
            stubs = {s: StubEngine({d.file_name: d for d in docs}) for s, docs in docs_by_set.items()}
            readers: dict[str, Callable[[str], list[str]]] = {
                s: functools.partial(_pages_of, t) for s, t in texts_by_set.items()}
            result = run_threads(threads, docs_by_set, stubs.__getitem__, Path(tmp), page_texts_by_set=readers)
    if not threads:
        _log("eval --threads: no thread could be run (set DESKTOP_RAG_SHARED to the shared data folder)")
        return 2
    result["threads"] = len(threads)
    result["turns"] = sum(len(t["turns"]) for t in threads)
    result["mode"] = "answers (language model)" if answers else "fast (stub answers, no index)"
    result["seconds"] = round(time.perf_counter() - t0, 1)
    if getattr(ns, "json_path", None):
        Path(ns.json_path).write_text(json.dumps(result, indent=1, ensure_ascii=False), "utf-8")
    print(report(result))
    return 0


def _cache_dir(ns: argparse.Namespace) -> Path:
    from desktop_rag.paths import data_dir as resolve_data_dir

    return resolve_data_dir(getattr(ns, "data_dir", None)) / "eval"


def _run_with_answers(ns: argparse.Namespace, threads: list[dict[str, Any]], sets: list[str], tmp: Path) -> dict[str, Any]:
    """Threads answered by the real engine on a library of the filings they name
    (``<data-dir>/eval/threads``, ingested once and reused)."""
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.paths import data_dir as resolve_data_dir

    lib_dir = Path(ns.library) if getattr(ns, "library", None) else resolve_data_dir(ns.data_dir) / "eval" / "threads"
    ws = Workspace(lib_dir, ns.models_dir)
    try:
        files = sorted({(t2["set"], f) for t in threads for t2 in [t]
                        for f in [*(t.get("scope") or []), *[x["doc"] for x in t["turns"] if x.get("doc")]]})
        have = {d.file_name for d in ws.library.documents()}
        todo = [set_folder(s) / f for s, f in files if f not in have and (set_folder(s) / f).is_file()]
        if todo:
            _log(f"threads: ingesting {len(todo)} filing(s) into {lib_dir}")
            for ev in ws.library.ingest(todo):
                if ev.kind == "file":
                    _log(f"  [{ev.index}/{ev.total}] {ev.file}")
        ws.load_model()
        docs = ws.library.documents()
        return run_threads(threads, {s: docs for s in sets}, lambda s: ws.engine, tmp, answers=True,
                           page_texts_by_set={s: ws.library.store.page_texts for s in sets})
    finally:
        ws.close()


def report(result: dict[str, Any]) -> str:
    lines = [f"threads: {result['threads']} threads, {result['turns']} turns, {result['mode']}, {result['seconds']} s"]
    for name, s in result["summary"].items():
        if s["router"]["n"] == 0:
            continue
        def fmt(x: dict[str, Any]) -> str:
            return f"{x['ok']}/{x['n']} = {100 * x['share']:.1f}%" if x["share"] is not None else "n/a"
        lines.append(f"[{name}] follow-ups resolved {fmt(s['followups_resolved'])} (company {fmt(s['company'])}, "
                     f"period {fmt(s['period'])}); concept kept {fmt(s['concept'])}; company, period and concept "
                     f"{fmt(s['company_period_concept'])}; router {fmt(s['router'])}; "
                     f"memory answers citing only stored citations {fmt(s['memory_cites_stored'])}")
        if "answers" in s:
            a = s["answers"]
            conv = f"{100 * a['conversion']:.1f}%" if a["conversion"] is not None else "n/a"
            lines.append(f"[{name}] answers: {a['verified']}/{a['turns']} verified; first attempt failed on an "
                         f"answerable turn {a['first_attempt_failed']}, converted by a retry {a['converted_by_retry']} "
                         f"({conv}; citing the expected filing {a['converted_citing_expected_doc']}); must-refuse "
                         f"turns retried {a['must_refuse_first_failed']}, answered by a retry (regressions) "
                         f"{a['retry_regressions']}; wrong-company citations {a['wrong_company_citations']}")
    wrong = [r for r in result["rows"] if (not r.get("route_ok", True) and r["turn"] > 0)
             or r.get("company_ok") is False or r.get("period_ok") is False or r.get("concept_ok") is False]
    for r in wrong:
        lost = f", concept {r['concept']!r} lost" if r.get("concept_ok") is False else ""
        lines.append(f"  miss {r['thread']}#{r['turn']} ({r.get('group', 'tuned')}): {r['q']!r} -> {r['standalone']!r} "
                     f"(route {r['route']}, expected {r['expected_route']}{lost})")
    return "\n".join(lines)


def _pages_of(texts: dict[str, list[str]], doc_id: str) -> list[str]:
    """A document's page texts from the cover-page cache (the session's page reader)."""
    return texts.get(doc_id, [])
