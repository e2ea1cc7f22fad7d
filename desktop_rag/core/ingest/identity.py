"""Document metadata (company, form, fiscal period) from the cover page, with the file name
as a hint.

The cover page is the truth when it is readable: the registrant's exact name, its trading
symbols, and the period of the report (see ``domain.periods.cover_period`` for the fiscal
year). File names ("2023 Q1 NVDA.pdf", "ADOBE_2015_10K.pdf") fill in what the cover does not
say, and the period an analyst gave the file stays a label questions may use.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta

from desktop_rag.core.domain.companies import (
    core_name,
    cover_identity,
    derived_aliases,
    lower_case_symbols,
    names_in,
    printed_short_name,
    tidy_name,
)
from desktop_rag.core.domain.periods import (
    FiscalCalendar,
    calendar_quarter,
    cover_period,
    file_name_period,
    without_periods,
)
from desktop_rag.core.domain.types import Document, DocumentMeta

_FILE_FORM = re.compile(r"(?<![a-z0-9])(10-?k|10-?q|8-?k|20-?f|6-?k)(?![a-z0-9])", re.I)
_FILE_KIND = re.compile(r"(?<![a-z])(earnings|transcript)(?![a-z])", re.I)
_FILE_NOISE = re.compile(
    r"(?<![a-z])(annual|quarterly|report|final|draft|copy|filing|form|dated|amended|amendment|v\d+|"
    r"earnings|transcript|press|release|results|the|of|and)(?![a-z])", re.I)

# The cover page of a filing: its form on a line of its own under the Commission's name
# ("SECURITIES AND EXCHANGE COMMISSION / Washington, D.C. 20549 / FORM 10-K").
_COVER_FORM_LINE = re.compile(
    r"securities\s+and\s+exchange\s+commission[\s\S]{0,400}?^[\s_]*form\s+(10-K|10-Q|8-K|20-F|6-K)\b", re.I | re.M)
_FORM_NAMED = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|6-K)\b", re.I)  # "2022 Annual Report on Form 10-K"
_EARNINGS = re.compile(
    r"(reports?|announces?)\s+(?:\w+[\s-]+){0,4}(quarter|fiscal|annual)\S*\s+(?:[\w-]+\s+){0,3}results"
    r"|(reports?|announces?)\s+(?:[\w-]+\s+){0,3}results\s+for\s+(?:the\s+)?(?:[\w-]+\s+){0,2}(quarter|fiscal|year)"
    r"|today\s+(?:reported|announced)\s+(?:[\w-]+\s+){0,4}results\s+for",
    re.I,
)  # "Apple reports third quarter results" / "NVIDIA Announces Financial Results for Third Quarter" /
#    "PG&E Corporation Reports Second-Quarter Results" / "McDonald's Corporation today announced results for"
# A transcript's own marks: the operator's and the speakers' turns, its question-and-answer part
# (a release that announces its "earnings conference call" is no transcript).
_TRANSCRIPT = re.compile(r"\b(operator\s*:|question-and-answer session|conference call participants|"
                         r"corporate participants)", re.I)
_CALL_TITLE = re.compile(r"\bearnings\s+(?:conference\s+)?call\b", re.I)


def _form(text: str) -> str:
    f = text.upper().replace("-", "")
    return {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "20F": "20-F", "6K": "6-K"}.get(f, text.upper())


def file_name_hint(name: str) -> str:
    """The words of a file name that are neither period nor form: "ADOBE" of
    "ADOBE_2015_10K.pdf", "NVDA" of "2023 Q1 NVDA.pdf" ("" when nothing is left)."""
    stem = re.sub(r"\.pdf$", "", name, flags=re.I)
    text = re.sub(r"dated[\s_-]*\d{4}-\d\d-\d\d", " ", stem, flags=re.I).replace("_", " ")
    text = _FILE_FORM.sub(" ", without_periods(text))
    text = _FILE_NOISE.sub(" ", text)
    words = [w for w in re.split(r"[\s.-]+", text) if re.search(r"[A-Za-z]", w)]
    return " ".join(words).strip()


def parse_file_name(name: str) -> DocumentMeta:
    """Form and period an analyst's file name hints at; a one-word name hint ("NVDA",
    "ADOBE") becomes the company until the cover says otherwise."""
    stem = re.sub(r"\.pdf$", "", name, flags=re.I)
    meta = DocumentMeta()
    meta.fiscal_year, meta.fiscal_quarter, dated = file_name_period(stem)
    if dated:
        meta.period_end = dated.isoformat()
    m = _FILE_FORM.search(stem.replace("_", " "))
    if m:
        meta.form_type = _form(m.group(1))
    elif kind := _FILE_KIND.search(stem):  # "3Q23 nvda earnings.pdf" is a press release, not a 10-Q
        meta.form_type = kind.group(1).lower()
    hint = file_name_hint(name)
    if hint and len(hint.split()) == 1:
        if re.fullmatch(r"[A-Z]{1,5}", hint):
            meta.ticker = hint
        meta.company = hint
    if meta.fiscal_quarter and not meta.form_type:
        meta.form_type = "10-Q"
    return meta


def parse_first_pages(text: str, body: str = "", name_hint: str = "") -> DocumentMeta:
    """Metadata printed on a filing's cover and first pages (``text``); ``body`` is the
    rest of the filing, read only for its fiscal calendar (year-to-date columns)."""
    meta = DocumentMeta()
    head = text[:20000]
    m = _COVER_FORM_LINE.search(head)
    if m:
        meta.form_type = m.group(1).upper()
    elif _EARNINGS.search(head[:3000]):
        meta.form_type = "earnings"
    elif _TRANSCRIPT.search(head) or _CALL_TITLE.search(head[:400]):
        meta.form_type = "transcript"
    else:
        # an annual report to shareholders opens with letters; the 10-K's cover follows
        m = _COVER_FORM_LINE.search(body[:80000])
        if m:
            start = body.rfind("\n", 0, m.start()) + 1
            text, body = body[start:], text + "\n" + body[:start]
            meta.form_type = m.group(1).upper()
        elif named := _FORM_NAMED.search(head[:3000]):
            meta.form_type = named.group(1).upper()
    ident = cover_identity(text, name_hint, body)
    meta.company = ident.company
    if ident.tickers:
        meta.ticker = ident.tickers[0]
    meta.aliases = [*ident.tickers[1:], *ident.other_names]
    period = cover_period(text, meta.form_type, body)
    if period.period_end:
        meta.period_end = period.period_end.isoformat()
    meta.fiscal_year = period.fiscal_year
    meta.fiscal_quarter = None if meta.form_type == "10-K" or period.annual else period.fiscal_quarter
    return meta


def detect_metadata(file_name: str, first_pages_text: str, body: str = "",
                    library: Iterable[DocumentMeta] = ()) -> DocumentMeta:
    """The cover page's company and period; the file name fills what the cover lacks.
    ``library``: the identities of the library's other filings: a file whose text names no
    company (a release whose text layer cannot be read) is the library filer its file name
    names ("MCDONALDS_2022Q4_EARNINGS.pdf" of McDonald's Corporation), and takes the end of its
    quarter from that filer's fiscal calendar (``library_filer``)."""
    hint = file_name_hint(file_name)
    from_name = parse_file_name(file_name)
    from_text = parse_first_pages(first_pages_text, body, hint)
    meta = DocumentMeta(
        company=tidy_name(from_text.company) or from_name.company,
        ticker=from_text.ticker,
        form_type=from_text.form_type or from_name.form_type,
        fiscal_year=from_text.fiscal_year or from_name.fiscal_year,
        fiscal_quarter=from_text.fiscal_quarter if from_text.fiscal_year else from_name.fiscal_quarter,
        period_end=from_text.period_end or from_name.period_end,
        aliases=list(from_text.aliases),
    )
    if not from_text.company and hint:
        filer = library_filer(hint, library)
        if filer:
            meta.company = filer.company
            if not meta.period_end and meta.fiscal_year and meta.fiscal_quarter:
                meta.period_end = _calendar_quarter_end(filer, meta.fiscal_year, meta.fiscal_quarter)
    if from_text.company:
        # the name's first word, when the filing itself uses it alone as the company's name
        # and its symbols and initials in lower case, when the filing never prints them as words
        text = first_pages_text + "\n" + body
        short = printed_short_name(meta.company, text)
        if short and short not in company_aliases(meta):  # "Costco" matches only capitalised; "costco" any way
            meta.aliases.append(short)
        meta.aliases += [s for s in lower_case_symbols(company_aliases(meta), text) if s not in company_aliases(meta)]
    if hint and meta.company:
        # The analyst's own name for the file ("NVDA", "FOOTLOCKER") is an alias when it is
        # not already one: a ticker typed in capitals, or the name run together.
        known = derived_aliases(meta.company, [meta.ticker, *meta.aliases])
        squashed = {_squash(a) for a in known}
        if not names_in(hint, known) and not names_in(hint.lower(), known) and _squash(hint) not in squashed:
            if re.fullmatch(r"[A-Z]{1,5}", hint) and not meta.ticker:
                meta.ticker = hint
            elif hint.lower() not in {a.lower() for a in meta.aliases}:
                meta.aliases.append(hint if hint.isupper() and len(hint) <= 5 else hint.lower())
    if meta.form_type == "10-K":
        meta.fiscal_quarter = None
    return meta


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def library_filer(hint: str, library: Iterable[DocumentMeta]) -> DocumentMeta | None:
    """The library's filing of the one filer a file name names (its words run together are a
    name of that filer: "MCDONALDS" of McDonald's Corporation, "PG E" of PG&E Corporation, or
    its trading symbol): of that filer's filings the latest that states its fiscal calendar;
    None when no filer or several."""
    key = _squash(hint)
    if len(key) < 2:
        return None
    found: dict[str, DocumentMeta] = {}
    for m in library:
        if not m.company:
            continue
        names = {_squash(n) for n in company_aliases(m)} | {_squash(m.company)}
        if key in names:
            kept = found.get(m.company)
            if kept is None or _calendar_rank(m) > _calendar_rank(kept):
                found[m.company] = m
    return next(iter(found.values())) if len(found) == 1 else None


def _calendar_rank(meta: DocumentMeta) -> tuple[bool, str, int]:
    """A report that states its fiscal calendar first, then the latest."""
    return fiscal_calendar(meta) is not None, meta.period_end, meta.fiscal_year or 0


def _calendar_quarter_end(filer: DocumentMeta, fiscal_year: int, quarter: int) -> str:
    """The date a filer's fiscal quarter ends, from the calendar one of its reports states,
    when its periods end on the last day of a month (a 52/53-week calendar's day cannot be
    told); "" otherwise."""
    cal = fiscal_calendar(filer)
    if cal is None or (cal.end + timedelta(days=1)).day != 1:
        return ""
    year, month = cal.quarter_end(fiscal_year, quarter)
    return (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).isoformat()


def held_period_label(meta: DocumentMeta) -> str:
    """How a refusal names what a filing covers: its period ("Q1 FY2022", "FY2020"), or for a
    dated event report (an 8-K that furnishes no quarter's results) its form and date ("8-K
    dated 2022-05-20"): "the library has FY2022" would promise a year's report that is not there."""
    if meta.form_type not in ("10-K", "10-Q", "20-F") and not meta.fiscal_quarter and meta.period_end:
        return f"{meta.form_type or 'a report'} dated {meta.period_end}"
    return meta.period_label()


def company_aliases(meta: DocumentMeta) -> set[str]:
    """Names a question may use for this document's company: derived from the registered
    name and ticker, plus its other names (``meta.aliases``: other classes' symbols, a combined
    filing's other registrants and a former name, each with the names derived from it, the
    analyst's own). Lower-case names match in any case, capitalised ones only as names (see
    ``domain.companies.names_in``)."""
    names = set(_derived_aliases(meta.company, meta.ticker))
    for alias in (a.strip() for a in meta.aliases if a.strip()):
        names.add(alias)
        if _LEGAL_NAME.search(alias):
            names.update(_derived_aliases(alias, ""))
    return names


_LEGAL_NAME = re.compile(r"\s(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Ltd\.?|LLC|N\.V\.)$", re.I)


def named_documents(text: str, names_of: Mapping[str, frozenset[str]], metas: Mapping[str, DocumentMeta]) -> set[str]:
    """The documents of the filers ``text`` names: every document one of whose names
    (``names_of``: doc id -> ``company_aliases``) it mentions, with the other filings of the
    same filers: the same registrant's name or the same trading symbol (a filer renamed,
    "Adobe Systems Incorporated" then "Adobe Inc.", "salesforce.com, inc." then "Salesforce,
    Inc.", is one filer: "adobe" names both)."""
    matched = {names: bool(names_in(text, names)) for names in set(names_of.values())}  # once per company
    named = {doc_id for doc_id, names in names_of.items() if matched[names]}
    if named:
        cores = {_core_name(metas[i].company) for i in named if metas[i].company}
        tickers = {metas[i].ticker for i in named if metas[i].ticker}
        named |= {d for d in names_of if (metas[d].company and _core_name(metas[d].company) in cores)
                  or (metas[d].ticker and metas[d].ticker in tickers)}
    return named


_core_name = functools.lru_cache(maxsize=8192)(core_name)  # asked of every filing per question


@functools.lru_cache(maxsize=4096)
def _derived_aliases(company: str, ticker: str) -> frozenset[str]:
    """``derived_aliases`` once per name: a question's plan asks it of every filing in the
    library (0.26 ms each; most of a filtered search's planning at 100k chunks, 340 filings)."""
    return frozenset(derived_aliases(company, [ticker] if ticker else []))


def _end_date(meta: DocumentMeta) -> date | None:
    try:
        return date.fromisoformat(meta.period_end) if meta.period_end else None
    except ValueError:
        return None


def fiscal_calendar(meta: DocumentMeta) -> FiscalCalendar | None:
    """The filer's fiscal calendar as one report states it: its fiscal year and quarter (an
    annual report closes the fourth) and the date the period ended. None for a report
    without both (an 8-K, a file whose cover gave no period end)."""
    end = _end_date(meta)
    if end is None or not meta.fiscal_year:
        return None
    if meta.form_type in ("10-K", "20-F") or meta.fiscal_quarter is None:
        if meta.form_type not in ("10-K", "20-F"):
            return None  # a dated event (8-K) or an undated report: no quarter to anchor on
        return FiscalCalendar(meta.fiscal_year, 4, end)
    return FiscalCalendar(meta.fiscal_year, meta.fiscal_quarter, end)


def labelled_periods(meta: DocumentMeta, file_name: str = "") -> dict[str, set[tuple[int, int | None]]]:
    """(year, quarter) pairs a question may use for this document as its own period, by
    where they come from: "file" (the analyst's file name), "calendar" (the calendar quarter
    or year its period covers) and "fiscal" (the filer's own label). Analysts mix them:
    Nvidia's Q2 FY2024 is "Q2 2023" to many, and "2023 Q2 NVDA.pdf" on disk."""
    cached = _labelled_periods(meta.form_type, meta.fiscal_year, meta.fiscal_quarter, meta.period_end, file_name)
    return {tier: set(labels) for tier, labels in cached}


@functools.lru_cache(maxsize=8192)
def _labelled_periods(form_type: str, fiscal_year: int | None, fiscal_quarter: int | None, period_end: str,
                      file_name: str) -> tuple[tuple[str, frozenset[tuple[int, int | None]]], ...]:
    """``labelled_periods`` once per document: a question's plan asks it of every filing of
    the companies it names (the file name's period is a regex parse)."""
    meta = DocumentMeta(form_type=form_type, fiscal_year=fiscal_year, fiscal_quarter=fiscal_quarter,
                        period_end=period_end)
    out: dict[str, set[tuple[int, int | None]]] = {"file": set(), "calendar": set(), "fiscal": set()}
    quarterly = meta.form_type not in ("10-K", "20-F") and meta.fiscal_quarter is not None
    if meta.fiscal_year:
        out["fiscal"].add((meta.fiscal_year, meta.fiscal_quarter))
    end = _end_date(meta)
    if end:
        if quarterly:
            mid = end - timedelta(days=45)  # the middle of the quarter names its calendar quarter
            out["calendar"].add((mid.year, calendar_quarter(end)))
        elif meta.form_type in ("10-K", "20-F") or meta.fiscal_quarter is None:
            out["calendar"].add((end.year, None))
    if file_name:
        year, quarter, _ = file_name_period(re.sub(r"\.pdf$", "", file_name, flags=re.I))
        if year and (quarter or not quarterly):
            out["file"].add((year, quarter))
    return tuple((tier, frozenset(labels)) for tier, labels in out.items())


def period_labels(meta: DocumentMeta, file_name: str = "") -> set[tuple[int, int | None]]:
    """Every (year, quarter) label of ``labelled_periods``."""
    return set().union(*labelled_periods(meta, file_name).values())


def comparative_years(meta: DocumentMeta) -> set[int]:
    """Fiscal years an annual report also states figures for: its statements compare the
    year with the two before it (a FY2014 figure is in the FY2015 10-K)."""
    if meta.form_type in ("10-K", "20-F") and meta.fiscal_year:
        return {meta.fiscal_year - 1, meta.fiscal_year - 2}
    return set()


def period_match(doc: Document, quarters: set[tuple[int, int]], years: set[int],
                 fiscal_only: bool = False, comparative: bool = False) -> int | None:
    """How directly a document is the one for the periods a question names: 0 = by its file
    name, 1 = by the calendar period it covers, 2 = by its fiscal label (only the fiscal
    label when the question says "fiscal"/"FY"), 3 = it states the period as a comparison
    (``comparative``: a 10-K's two prior years, a 10-Q's same quarter a year earlier);
    None = not at all. The best rank among the library's documents wins."""
    labelled = labelled_periods(doc.meta, doc.file_name)
    tiers = ["fiscal"] if fiscal_only else ["file", "calendar", "fiscal"]
    quarterly = bool(doc.meta.fiscal_quarter) and doc.meta.form_type not in ("10-K", "20-F")
    for rank, tier in enumerate(tiers):
        labels = labelled[tier]
        if any((y, q) in quarters for y, q in labels) or any(q is None and y in years for y, q in labels):
            return rank if not fiscal_only else 2
        if years and quarterly and any(y in years for y, _ in labels):
            return rank if not fiscal_only else 2  # "in 2023" matches a 2023 quarterly report too
    if comparative:
        prior = comparative_years(doc.meta)
        if prior & years or any(y in prior for y, _ in quarters):
            return 3
        if quarterly and any((y + 1, q) in labelled["fiscal"] | labelled["calendar"] | labelled["file"]
                             for y, q in quarters):
            return 3  # a 10-Q compares its quarter with the same quarter a year earlier
    return None


def document_covers(doc: Document, quarters: set[tuple[int, int]], years: set[int],
                    comparative: bool = False) -> bool:
    """Whether a document is the one for a period named in a question (``comparative``:
    or states it as a prior-period comparison)."""
    return period_match(doc, quarters, years, comparative=comparative) is not None
