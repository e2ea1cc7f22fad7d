"""Share counts, read with the scale they are printed in.

- ``cover_shares``: the cover page's "N shares of common stock outstanding as of <date>"
  (any filer's sentence: "As of July 24, 2023, there were 7,429,763,722 shares ...", "Number
  of shares of common stock outstanding as of June 30, 2023: 2,906,085,273", "the registrant
  had outstanding 4,127 million shares", "... was 2.47 billion"). The count is read with the
  scale word printed beside it (none: a plain count).
- ``share_rows_scale``: the scale of a statement's share-count rows (weighted-average
  shares), from the statement's own scale note ("in millions, except number of shares, which
  are reflected in thousands"), checked against the statement itself: basic EPS × basic
  shares must give the net income printed above them. A scale that cannot be read or does
  not check out is None (the caller then computes nothing from it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_rag.core.domain.numbers import COUNT_RE, count_value, scale_factor, share_scale_of
from desktop_rag.core.domain.periods import find_dates
from desktop_rag.core.ingest.statements.model import Row, Statement


@dataclass
class CoverShares:
    value: float  # shares, as a plain count
    as_of: str  # ISO date the count is given for
    page: int  # 1-based
    span: tuple[int, int]  # the sentence in the page text
    cell: tuple[int, int]  # the count as printed (with its scale word)
    text: str  # the count as printed


_SENTENCE_END = re.compile(r"\.(?=\s|$)|[\u2610\u2612\u2611\u00a8]|\n\s*\n")
_ABBREVIATION = re.compile(r"(?:\b(?:inc|corp|co|no|ltd|st|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)|\b[a-z])$", re.I)
_NOT_THE_COUNT = re.compile(r"aggregate market value|non-?affiliates|indicate the number|authorized|repurchased|"
                            r"weighted|average|diluted|options?\b|warrants?|preferred", re.I)
_STOCK = re.compile(r"\bcommon\s+(?:stock|shares)\b|\bordinary\s+shares\b|\bcapital\s+stock\b", re.I)
_CLASSES = re.compile(r"\bclass\s+[a-c]\b", re.I)


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.group(0) == "." and _ABBREVIATION.search(text[max(0, m.start() - 5):m.start()]):
            continue  # "Jan. 31", "Apple Inc. Form 10-Q", "U.S."
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def cover_shares(page_texts: list[str], first_pages: int = 3) -> CoverShares | None:
    """The common shares outstanding stated on the cover (first pages), or None when no
    sentence states one count clearly (several classes without their total, two counts)."""
    found: list[CoverShares] = []
    for n, text in enumerate(page_texts[:first_pages], start=1):
        for a, b in _sentences(text):
            # the cover's instruction before the answer ("Indicate the number of shares outstanding
            # ... as of the latest practicable date: 793,248,190 shares ...") and a check box's word
            lead = re.match(r"\s*(?:(?:yes|no)\s+)?(?:indicate the number of shares outstanding[^:]*practicable date\s*:)?\s*",
                            text[a:b], re.I)
            whole = text[a:b]
            a0 = a + (len(whole) - len(whole.lstrip()))
            a += lead.end() if lead else 0
            sentence = text[a:b]
            if not re.search(r"\boutstanding\b", whole, re.I) or not re.search(r"\bshares\b", whole, re.I) \
                    or not _STOCK.search(whole) or _NOT_THE_COUNT.search(sentence):
                continue
            dates = find_dates(sentence)
            if len(dates) != 1:
                continue
            d, ds, de = dates[0]
            counts = []
            for m in COUNT_RE.finditer(sentence):
                if m.start() < de and m.end() > ds:
                    continue  # part of the date
                if sentence[max(0, m.start() - 2):m.start()].strip().endswith("$"):
                    continue  # an amount (par value), not a count
                value = count_value(m.group(1), m.group(2))
                if value >= 1e5:
                    counts.append((value, m))
            if not counts:
                continue
            if len(counts) > 1:
                # "Class A 320,065,752 Class B 1,280,488,786 1,600,554,538": the total when printed
                *parts, (total, tm) = counts
                if not _CLASSES.search(sentence) or abs(sum(v for v, _ in parts) - total) > 0.5:
                    continue
                counts = [(total, tm)]
            value, m = counts[0]
            if re.match(r"(?:yes|no)\s", text[a0:b], re.I):
                a0 = a0 + len(text[a0:b].split(None, 1)[0]) + 1  # a check box's answer before the sentence
                a0 += len(text[a0:b]) - len(text[a0:b].lstrip())
            found.append(CoverShares(value, d.isoformat(), n, (a0, b), (a + m.start(), a + m.end()), m.group(0)))
    if len({(f.value, f.as_of) for f in found}) != 1:
        return None  # none, or two different counts: not one clear figure
    return found[0]


# -- share-count rows of a statement ------------------------------------------------------------
_NOTE = re.compile(r"\([^()]*\b(?:thousands|millions|billions)\b[^()]*\)|\b(?:in|dollars\s+in|amounts\s+in)\s+"
                   r"(?:thousands|millions|billions)\b[^\n]*", re.I)


def _scale_note(statement: Statement, page_text: str) -> str:
    """The statement's scale note: in the page text above its first row on its first page."""
    first = min((r.span[0] for r in statement.rows if r.page == statement.page), default=0)
    head = page_text[max(0, first - 900):first]
    notes = [m.group(0) for m in _NOTE.finditer(head)]
    return notes[-1] if notes else ""


def _eps_check(statement: Statement, shares_row: Row, scale: str, end: str, months: int) -> bool | None:
    """Does basic EPS × basic shares (at ``scale``) give the net income of the same column?
    None when the statement does not print the three."""
    from desktop_rag.core.calculate.concepts import CONCEPTS, find

    basic_eps = find(CONCEPTS["eps_basic"], [statement])
    net = find(CONCEPTS["net_income"], [statement])
    basic_shares = find(CONCEPTS["shares_basic"], [statement]) if shares_row.label.lower().find("basic") < 0 else None
    rows = [basic_eps.row if basic_eps else None, net.row if net else None,
            basic_shares.row if basic_shares else shares_row]
    if any(r is None for r in rows):
        return None
    cells = [r.cell_for(end, months) for r in rows if r is not None]
    if any(c is None or not c.value for c in cells):
        return None
    eps, income, shares = (float(c.value or 0.0) for c in cells if c is not None)
    income_units = income * scale_factor(statement.scale)
    implied = eps * shares * scale_factor(scale)
    # EPS is rounded to the cent and may be on the income attributable to common holders
    return abs(implied - income_units) <= 0.06 * abs(income_units) + abs(shares * scale_factor(scale)) * 0.006


def share_rows_scale(statement: Statement, row: Row, page_text: str, end: str, months: int) -> str | None:
    """The scale of a share-count row, as the statement's note states it and the statement's
    own EPS confirms; None when unclear."""
    note = _scale_note(statement, page_text)
    scale = share_scale_of(note) if note else None
    if scale is None:
        return None
    ok = _eps_check(statement, row, scale, end, months)
    if ok is False:
        return None
    return scale
