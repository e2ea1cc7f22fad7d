"""Which part of a company led: its segments, regions or offerings ranked from a table of the filing.

"Which segment had the highest revenue growth in Q2 2023?", "Which service offering grew
fastest?", "Rank the segments by comparable sales growth": the filing answers in a table whose
rows are the company's parts and whose columns are periods (the current one and the year
before, often a printed % change beside them), or in a table of a change measure by period
("Comparable sales increases/(decreases)"). The question's reading (``RankingAsk``) says what
is ranked; here the tables of the asked company's retrieved pages are read line by line (a
heading naming the columns' periods, then rows of a label and cells) and each part's figure is
taken or computed by code:

- ``growth``: current / prior - 1 from the two period columns' amounts (the % change the table
  prints beside them is quoted when it agrees), or, in a table of changes, the printed change;
- ``level``: the asked period's cell ("the highest operating margin");
- ``increase``: current - prior ("which business drove the growth").

Rows that are no part are left out (totals, consolidated, corporate, eliminations, a line of
another measure); a geographic ranking keeps the rows naming places; parts the question names
("..., North America or International?") keep only those. Nothing is guessed: no readable
period columns, fewer than two parts, the asked period not printed, or two tables as good as
each other ranking the parts differently give None, and the other answers stand. Every cell
used is an input of the answer's ``Calculation`` (its row quoted, the cell's span highlighted),
and the rows, the heading naming the measure and the column heading are cited as exact page
text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field

from desktop_rag.core.answer.assemble import CAUSAL
from desktop_rag.core.answer.table_rows import asked_period
from desktop_rag.core.answer.verify import Passage, split_units
from desktop_rag.core.calculate.calculator import months_asked
from desktop_rag.core.domain.measures import is_count_label, measure_modifiers, measure_phrase, measure_terms
from desktop_rag.core.domain.numbers import nearest_scale, scale_of
from desktop_rag.core.domain.periods import MONTH_RE, column_period_name
from desktop_rag.core.domain.question import QuestionIntent, RankingAsk, format_figure
from desktop_rag.core.domain.terms import STOPWORDS, tokenize
from desktop_rag.core.domain.types import Calculation, CalculationInput, Citation, Document
from desktop_rag.core.ingest.statements.columns import CHANGE, PART, PERIOD, Column, header_columns
from desktop_rag.core.ingest.statements.model import Period
from desktop_rag.core.ingest.statements.table_reader import header_durations

# One printed cell at the end of a row: an amount ("$ 6,831", "(1,217 )", "-1%", "24 %"), a
# change in points ("(390 ) bp", "1.9 pp"), a dash or "NM".
_NUMBER = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
_CELL = (rf"(?:\$\s*)?(?:(?:\(\s*[-\u2212\u2013]?\$?\s*{_NUMBER}\s*%?\s*\)|[-\u2212\u2013]?\$?{_NUMBER})"
         r"(?:\s*%)?(?:\s*(?:bps?|pp|pts?)\b)?|[\u2014\u2013-]{1,2}%?|N/?M)")
_LAST_CELL = re.compile(rf"(?:^|(?<=\s))(?P<cell>{_CELL})\s*$")
_YEAR_CELL = re.compile(r"^(?:19|20)\d\d$")
_FOOTNOTE_CELL = re.compile(r"^\((?:\d{1,2}|[a-z])\)$")
_LABEL_END = re.compile(r"(?:\s*\((?:\d{1,2}|[a-z]|[ivx]+)\)|\s*\*+|\s*[:$])+\s*$")
_MONTH_DAY = re.compile(rf"(?<![A-Za-z])({MONTH_RE})\.?\s+(\d{{1,2}})(?!\d)", re.I)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# a line of running page furniture, no part of a table
_FURNITURE = re.compile(r"^\s*(?:table\s+of\s+contents|index\s+to\s+financial\s+statements|page\s+\d+|\d{1,3}|"
                        r"-\s*\d{1,3}\s*-)\s*$", re.I)
# rows that are no part of the whole: its total, the company, a reconciliation
_NOT_A_PART = re.compile(
    r"\btotals?\b|^(?:consolidated|corporate|eliminations?|intersegment|inter-segment|unallocated|all\s+other|"
    r"other\b|reconcil)|\breconcil|"
    r"\beliminations?\b|^(?:percentage|percent|%|as\s+a\s+%)\b", re.I)
# a row naming a measure, not a part ("Operating income", "Percentage of total revenue"): the
# measure words a part is never named by ("Sales" and "Services" can be offerings)
_MEASURE_ROW = re.compile(r"\b(?:income|expenses?|earnings|margins?|profits?|loss(?:es)?|taxes|interest|per\s+share|"
                          r"costs?|percentage|percent|ebitda|ebit)\b|%", re.I)
# a measure's line for a group of parts ("Net sales of reportable segments", "Revenue from ...")
_MEASURE_OF = re.compile(r"\b(?:sales|revenues?|income|earnings)\s+(?:of|from|for|by)\b", re.I)
# the words of a heading saying its figures are changes, not amounts
_CHANGE_CONTEXT = re.compile(r"\b(?:increases?|decreases?|growth|change[sd]?|declines?|comparable|same[-\s]store|"
                             r"organic)\b", re.I)
# a change on another basis than as reported: in constant currency, organic
_BASIS = re.compile(r"constant[-\s]currenc|currency[-\s]neutral|fx[-\s]neutral|excluding\s+(?:the\s+)?(?:effects?|"
                    r"impacts?)\s+of\s+(?:foreign\s+)?(?:currency|exchange)|excluding\s+(?:foreign\s+)?(?:currency|"
                    r"exchange)|\borganic\b", re.I)
_SHARE_ASKED = re.compile(r"\b(?:share|percent(?:age)?|portion|proportion)\s+of\b", re.I)
# words naming places: a geographic ranking keeps only rows naming one
_PLACES = re.compile(
    r"\b(?:americas?|north|south|latin|central|europe(?:an)?|emea|asia|pacific|apac|apj|china|greater|japan|india|"
    r"middle\s+east|africa|international|domestic|u\.?\s?s\.?|united\s+states|united\s+kingdom|u\.?k\.?|canada|"
    r"mexico|brazil|germany|france|korea|taiwan|australia|western|eastern|nordic|rest\s+of\s+(?:the\s+)?world|"
    r"countries|emerging\s+markets|developed\s+markets|hong\s+kong|singapore|caribbean|oceania|anz)\b", re.I)
_GEOGRAPHIC = re.compile(r"geograph|region|countr|international", re.I)
# a heading of shares of a whole, not changes ("% Revenues by Geography:", "Net sales mix:")
_SHARES = re.compile(r"(?:^|\s)%\s|\bas\s+a\s+(?:%|percent)|\bpercent(?:age)?\s+of\b|\bmix\b|\bshare\s+of\b", re.I)
# measure words printed in a table's heading that must be the asked ones' own (a margin is no amount)
_RAW_MEASURE_WORDS = ("margin", "rate", "ratio", "percentage", "mix", "share")
# the kinds of part, as the tokenizer reads their words ("segments" -> segment)
_KIND_TERMS = {"segment", "region", "geography", "market", "product", "service", "offering", "business", "division",
               "category", "brand", "unit", "channel", "line"}


# kinds of part that are never places (a segment, a division or a market may be one)
_NEVER_PLACES = frozenset({"product", "service", "offering", "business", "category", "brand", "channel", "line"})


def _kind_words(text: str) -> set[str]:
    """The words of ``text`` naming a kind of part, singular ("Businesses" -> business,
    "geographic" -> geography)."""
    out = set()
    for w in re.findall(r"[a-z]+", text.lower()):
        w = {"businesses": "business", "categories": "category", "geographies": "geography",
             "geographic": "geography", "geographical": "geography", "region": "geography",
             "regions": "geography", "regional": "geography"}.get(w, w)
        w = w[:-1] if w.endswith("s") and w[:-1] in _KIND_TERMS else w
        if w in _KIND_TERMS:
            out.add(w)
    return out


_PERIOD_SLACK = (330, 400)  # days between a period's end and the same period a year earlier


@dataclass(frozen=True)
class _Cell:
    text: str
    value: float | None
    percent: bool  # printed with %, bp or pp
    start: int
    end: int


@dataclass
class _Row:
    label: str
    start: int
    end: int
    cells: list[_Cell]
    parent: tuple[int, int] | None = None  # the heading line above the row's group ("Operating margin:")


@dataclass
class _Table:
    """A table of the page: its heading lines (``context``: the title and introduction above
    the column heading), the column heading (``header``: first line to the year line), the
    year line's columns and their periods, and its rows."""

    context: list[tuple[int, int]]
    header: tuple[int, int]
    columns: list[Column]
    periods: list[Period]
    scale: str
    rows: list[_Row] = field(default_factory=list)


@dataclass
class _Part:
    row: _Row
    value: float
    current: _Cell
    prior: _Cell | None = None
    printed: _Cell | None = None  # the table's own % change for the row (agreeing), or the change ranked


@dataclass
class _Candidate:
    score: tuple[int, int, int, int]
    parts: list[_Part]  # ranked, best first
    table: _Table
    current: Period
    prior: Period | None
    source: str  # "computed" | "printed" | "level" | "increase"
    passage: Passage
    percent: bool  # the ranked figures are percentages
    money: bool
    whole: _Cell | None = None  # the group's total in the asked period ("Total net sales")


@dataclass
class RankingAnswer:
    """The ranking's answer: its text, its quotes (rows, the heading naming the measure, the
    column heading) and the calculation (the ranked figure of the leader, every cell used)."""

    text: str
    citations: list[Citation]
    calculation: Calculation
    ranked: list[tuple[str, float]]  # (part, its ranked figure), best first


# -- reading a page's tables ---------------------------------------------------------------------
def _value(text: str) -> float | None:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if m is None:
        return None
    value = float(m.group(0).replace(",", ""))
    return -value if "(" in text or re.match(r"^\s*(?:\$\s*)?[-\u2212\u2013]\s*\$?\d", text) else value


def _parse_row(line: str, start: int) -> tuple[str, list[_Cell]] | None:
    """A line's label and the cells printed after it, or None when it is no row: no cells, a
    label without words (a line of years), or the cells all years (a column heading)."""
    cells: list[_Cell] = []
    rest = line
    while True:
        m = _LAST_CELL.search(rest)
        if m is None or not m.group("cell").strip():
            break
        text = m.group("cell").strip()
        a = m.start("cell")
        cells.append(_Cell(text, _value(text), bool(re.search(r"%|bps?\b|pp\b|pts?\b", text)), start + a,
                           start + a + len(text)))
        rest = rest[:a]
    if not cells:
        return None
    cells.reverse()
    label = _LABEL_END.sub("", re.sub(r"\s*[\u00ae\u2122\u00a9]", "", rest)).strip()  # "iPhone (R)" is iPhone
    if len(re.findall(r"[A-Za-z]", label)) < 2 or all(_YEAR_CELL.match(c.text) for c in cells):
        return None
    if len(label.split()) > 14 or re.search(r"[.;]\s+[A-Z]", label):
        return None  # a sentence ending in a figure
    if re.search(rf"\b{MONTH_RE}\.?$", label, re.I) and re.fullmatch(r"\d{1,2}", cells[0].text):
        return None  # a date ("... May 31"), no cell
    return label, cells


def _cells_only(line: str, start: int) -> list[_Cell] | None:
    """The cells of a line that is nothing but figures (no label, not a line of years)."""
    cells = []
    rest = line
    while (m := _LAST_CELL.search(rest)) is not None and m.group("cell").strip():
        text = m.group("cell").strip()
        cells.append(_Cell(text, _value(text), "%" in text, start + m.start("cell"), start + m.start("cell") + len(text)))
        rest = rest[:m.start("cell")]
    if rest.strip() or len(cells) < 2 or all(_YEAR_CELL.match(c.text) for c in cells):
        return None
    return cells[::-1]


def _is_prose(text: str) -> bool:
    words = text.split()
    return len(words) > 18 or (len(words) >= 7 and text.rstrip().endswith((".", ":")))


def _period_line(text: str) -> list[Column] | None:
    cols = header_columns(text)
    return cols if cols and any(c.kind == PERIOD for c in cols) else None


def _column_heading(text: str) -> bool:
    """A line of a column heading above the year line ("Three Months Ended", "June 30, change",
    "As a % of Total", "% CHANGE"): period, date or change words, few others."""
    return bool(header_durations(text) or _MONTH_DAY.search(text) or re.search(
        r"%|\bchange|\bgrowth|\bincrease|\bdecrease|\bexcluding|\bcurrency|\bended|\bfiscal|\bvariance|\bactual|"
        r"\bconstant|\bamount|\bpercent", text, re.I)) and len(text.split()) <= 16


def _ends(header: str, context: str, doc: Document, n: int) -> tuple[list[tuple[int, int] | None], bool]:
    """The month and day each of ``n`` period columns ends on, and whether the page prints
    them: the heading's month-days over the columns (one each, or one per group of columns),
    else the one the context names ("for the years ended May 31"), else the filing's own
    period end's (not printed); None when unknown."""
    found = [(m.group(1), int(m.group(2))) for m in _MONTH_DAY.finditer(header)]
    if not found:
        distinct = {(m.group(1)[:3].lower(), int(m.group(2))) for m in _MONTH_DAY.finditer(context)}
        found = [next(iter(distinct))] if len(distinct) == 1 else []
    if not found and doc.meta.period_end[5:]:
        month, day = int(doc.meta.period_end[5:7]), int(doc.meta.period_end[8:10])
        return [(month, day)] * n, False
    if not found:
        return [None] * n, False
    days = [(_MONTHS.index(name[:3].lower()) + 1, d) for name, d in found]
    if len(days) == n:
        return list(days), True
    if n % len(days) == 0:
        return [days[i // (n // len(days))] for i in range(n)], True
    return ([days[0]] * n, True) if len(set(days)) == 1 else ([None] * n, False)


def _months(header: str, n: int, quarters: list[bool], doc: Document) -> list[int]:
    """Each period column's length: the heading's duration words spread over the columns
    ("Three Months ... Six Months"), a quarter column's 3, else the filing's (a year for an
    annual report, else a quarter)."""
    durations = [d for d, _ in header_durations(header) if d]
    if durations and (len(durations) == n or n % len(durations) == 0):
        spread = durations if len(durations) == n else [durations[i // (n // len(durations))] for i in range(n)]
    elif len(set(durations)) == 1:
        spread = [durations[0]] * n
    else:
        annual = doc.meta.form_type.upper().startswith(("10-K", "20-F", "40-F")) or not doc.meta.fiscal_quarter
        spread = [12 if annual else 3] * n
    return [3 if q else m for q, m in zip(quarters, spread, strict=True)]


def _periods(columns: list[Column], header: str, context: str, doc: Document) -> list[Period] | None:
    cols = [c for c in columns if c.kind == PERIOD]
    if not cols or any(c.year is None for c in cols):
        return None
    ends, printed = _ends(header, context, doc, len(cols))
    months = _months(header, len(cols), [bool(c.quarter) for c in cols], doc)
    # each column named by its end as the heading prints it ("June 30, 2023"), else by its year
    out = []
    for c, end, length in zip(cols, ends, months, strict=True):
        year = c.year
        assert year is not None
        if c.date is not None:
            when = c.date
            label = c.label
        elif c.quarter:
            when = dt.date(year, c.quarter * 3, 28)
            label = c.label
        else:
            month, day = end or (12, 31)
            try:
                when = dt.date(year, month, day)
            except ValueError:
                when = dt.date(year, month, 28)
            label = f"{_MONTHS[month - 1].capitalize()} {day}, {year}" if printed and end else str(year)
        out.append(Period(label, when.isoformat(), length))
    return out


def read_tables(text: str, doc: Document) -> list[_Table]:
    """The tables of a page whose columns are periods: a column heading naming them (its year
    line read by ``statements.columns.header_columns``), then the rows under it, grouped by
    the heading lines between them ("Operating margin:"). A sentence ends a table."""
    lines: list[tuple[int, int, str]] = []
    pos = 0
    for ln in text.split("\n"):
        lines.append((pos, pos + len(ln), ln))
        pos += len(ln) + 1
    tables: list[_Table] = []
    buffer: list[int] = []  # the lines since the last row (or sentence) that are neither
    current: _Table | None = None
    parent: tuple[int, int] | None = None
    outer: tuple[int, int] | None = None  # the heading over ``parent`` ("Net revenue:" over "Client Computing")
    for i, (a, b, ln) in enumerate(lines):
        s = ln.strip()
        if not s or _FURNITURE.match(s):
            continue
        parsed = _parse_row(ln, a)
        subtotal = _cells_only(ln, a) if parsed is None and current is not None and parent is not None \
            and not buffer else None
        if subtotal is not None and current is not None and parent is not None:
            # a line of figures without a label closing the rows under a heading is that
            # heading's total: a part of the heading above it ("Client Computing" over "Desktop",
            # "Notebook", "Other", then "6,780 7,678 ...")
            name = _LABEL_END.sub("", text[parent[0]:parent[1]]).strip()
            current.rows.append(_Row(name, parent[0], b, subtotal, outer))
            parent, outer = outer, None
            continue
        if parsed is None:
            if _is_prose(s):
                current, parent = None, None
                # "... consisted of the following (in millions):" introduces a table, under the
                # section's heading above it ("Revenues by Service Offering")
                buffer = [*(k for k in buffer if not _period_line(lines[k][2])), i] if s.endswith(":") else []
            else:
                buffer.append(i)
            continue
        years = [k for k in buffer if _period_line(lines[k][2])]
        if years:
            year = max(years, key=lambda k: (sum(c.kind == PERIOD for c in _period_line(lines[k][2]) or []), k))
            # the column heading: from the highest line of period, date or change words within a
            # few lines above the year line ("Three Months Ended October 31," over "As a % of
            # Total" over "Subscription and Support ..." over "2022 Revenues 2021 Revenues Growth Rate")
            h0 = year
            k = year - 1
            while k in buffer and year - k <= 5 and not _is_prose(lines[k][2].strip()):
                if _column_heading(lines[k][2].strip()) or _period_line(lines[k][2]):
                    h0 = k
                k -= 1
            before = [k for k in buffer if k < h0]
            after = [k for k in buffer if k > year and re.search(r"[A-Za-z]{3}", lines[k][2])
                     and not scale_of(lines[k][2])]
            context = [(lines[k][0], lines[k][1]) for k in before]
            if not before and current is not None:
                context = current.context  # the next table of the same heading ("Nine Months Ended ...")
            head = text[lines[h0][0]:lines[year][1]]
            around = " ".join(text[x:y] for x, y in context)
            columns = _period_line(lines[year][2]) or []
            periods = _periods(columns, head, around, doc)
            if periods is None:
                current, buffer, parent = None, [], None
                continue
            scale = scale_of(head) or scale_of(around) or nearest_scale(text[:a]) or ""
            current = _Table(context, (lines[h0][0], lines[year][1]), columns, periods, scale)
            tables.append(current)
            parent = (lines[after[-1]][0], lines[after[-1]][1]) if after else None
            outer = (lines[after[-2]][0], lines[after[-2]][1]) if len(after) > 1 else None
        elif current is None:
            buffer = []
            continue
        elif buffer and parsed[0][:1].islower() and not lines[buffer[-1]][2].rstrip().endswith(":"):
            # a label wrapped over two lines ("Gadgets and related" / "services 450 300"): one row
            k = buffer.pop()
            parsed = (f"{lines[k][2].strip()} {parsed[0]}", parsed[1])
            a = lines[k][0]
        if buffer and not years:
            named = [k for k in buffer if re.search(r"[A-Za-z]{3}", lines[k][2]) and not scale_of(lines[k][2])]
            if named:
                outer = (lines[named[-2]][0], lines[named[-2]][1]) if len(named) > 1 else None
                parent = (lines[named[-1]][0], lines[named[-1]][1])
        buffer = []
        label, cells = parsed
        current.rows.append(_Row(label, a, b, cells, parent))
    return tables


# -- ranking one table ---------------------------------------------------------------------------
def _groups(table: _Table) -> list[list[_Row]]:
    out: list[list[_Row]] = []
    for row in table.rows:
        if out and out[-1][0].parent == row.parent:
            out[-1].append(row)
        else:
            out.append([row])
    return out


def _trim_footnotes(rows: list[_Row], table: _Table) -> list[_Row]:
    """A footnote mark printed after a label ("Asia Pacific & Latin America (2) 5,955 ...",
    "iPhone (R) (1) $ 65,775") is no cell: dropped from a row holding one cell more than the
    columns, or than the rows without such a mark."""
    fits = {len([c for c in table.columns if c.kind in (PERIOD, CHANGE)]), len(table.periods)}
    fits |= {len(r.cells) for r in rows if r.cells and not _FOOTNOTE_CELL.match(r.cells[0].text)}
    for r in rows:
        if len(r.cells) > 1 and _FOOTNOTE_CELL.match(r.cells[0].text) and len(r.cells) not in fits \
                and len(r.cells) - 1 in fits:
            r.cells = r.cells[1:]
    return rows


def _mapping(rows: list[_Row], table: _Table) -> tuple[int, dict[int, int], list[int]] | None:
    """(cells per row, cell index -> period index, cell indices of the change columns) for
    the group's rows: by position when the year line names only periods and changes and the
    rows print one cell each; else the amount columns in order over the periods; else one cell
    per period. None when none fits."""
    pcs = [c for c in table.columns if c.kind in (PERIOD, CHANGE)]
    parts_named = any(c.kind == PART for c in table.columns)
    n_periods = len(table.periods)
    for n, _ in Counter(len(r.cells) for r in rows).most_common():
        same = [r for r in rows if len(r.cells) == n]
        if not parts_named and n == len(pcs):
            where = [j for j, c in enumerate(pcs) if c.kind == PERIOD]
            return n, {j: k for k, j in enumerate(where)}, [j for j, c in enumerate(pcs) if c.kind == CHANGE]
        amounts = [j for j in range(n) if not any(r.cells[j].percent for r in same)
                   and any(r.cells[j].value is not None for r in same)]
        if len(amounts) == n_periods and n > n_periods:
            return n, {j: k for k, j in enumerate(amounts)}, [j for j in range(n) if j not in amounts]
        if n == n_periods:
            return n, {j: j for j in range(n)}, []
    return None


def _prior(periods: list[Period], current: Period) -> Period | None:
    end = dt.date.fromisoformat(current.end)
    before = [p for p in periods if p.months == current.months
              and _PERIOD_SLACK[0] <= (end - dt.date.fromisoformat(p.end)).days <= _PERIOD_SLACK[1]]
    return before[0] if len(before) == 1 else None


def _decimals(text: str) -> int:
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def _agrees(printed: _Cell, growth: float) -> bool:
    """The printed % change is the computed growth, as rounded to its printed decimals."""
    if printed.value is None:
        return False
    step = 10.0 ** -_decimals(printed.text)
    return abs(printed.value - growth) <= step * 0.51 + 1e-9 or abs(printed.value - round(growth)) < 1e-9


def _is_part(label: str, ask: RankingAsk) -> bool:
    """The row names one part: not a total, the company, a reconciling line or a line of a
    measure ("Operating income", "Net sales of reportable segments"), nor the parts together
    (the asked kind in the plural); with parts named by the question, one of them."""
    if ask.named:
        return any(_same_name(label, n) for n in ask.named)
    if _NOT_A_PART.search(label) or _MEASURE_ROW.search(label) or _MEASURE_OF.search(label):
        return False
    if not re.search(r"[A-Z]", label) or re.search(r"\b(?:19|20)\d\d\b|\bin\s+(?:millions|thousands|billions)\b",
                                                    label, re.I):
        return False  # a wrapped fragment ("fees") or a heading run into a label (a page printed in two columns)
    plural = {w for w in re.findall(r"[a-z]+", label.lower()) if w.endswith("s")}
    return not (_kind_words(" ".join(plural)) & _kind_words(ask.kind))


def _norm_name(text: str) -> str:
    return re.sub(r"[^a-z0-9&]+", " ", text.lower()).strip()


def _same_name(label: str, name: str) -> bool:
    a, b = (re.sub(r"[^a-z0-9&]+", " ", x.lower()).strip() for x in (label, name))
    return bool(a and b) and (a == b or a.startswith(b + " ") or b.startswith(a + " "))


def _geographic(ask: RankingAsk) -> bool:
    return bool(_GEOGRAPHIC.search(" ".join((ask.kind, *ask.qualifiers))))


def _rank_group(rows: list[_Row], table: _Table, ask: RankingAsk, current: Period, prior: Period | None,
                context: str, header: str) -> tuple[list[_Part], str, bool, _Cell | None] | None:
    """The group's parts with their ranked figure, best first, how it was had ("computed",
    "printed", "level", "increase"), whether the figures are percentages, and the group's
    total's cell in the asked period (None without one); None when the group cannot rank what
    was asked."""
    rows = rows_all = _trim_footnotes(rows, table)
    mapped = _mapping(rows, table)
    if mapped is None:
        return None
    n, to_period, changes = mapped
    by_period = {k: j for j, k in to_period.items()}
    cur_j = by_period.get(table.periods.index(current))
    pri_j = by_period.get(table.periods.index(prior)) if prior is not None else None
    if cur_j is None:
        return None
    rows = [r for r in rows if len(r.cells) == n and _is_part(r.label, ask)]
    if _geographic(ask):
        rows = [r for r in rows if _PLACES.search(r.label)]
    elif _kind_words(ask.kind) & _NEVER_PLACES and not ask.named and rows and \
            2 * sum(bool(_PLACES.search(r.label)) for r in rows) >= len(rows):
        return None  # "which of its businesses": a breakdown by region ranks places, not businesses
    if ask.named and not all(any(_same_name(r.label, x) for r in rows) for x in ask.named):
        return None
    percent = any(r.cells[cur_j].percent for r in rows) or (
        any(r.cells[cur_j].percent for r in _rows_of(table, n)) and all(
            r.cells[cur_j].value is None or abs(r.cells[cur_j].value or 0) < 1000 for r in rows))
    parts: list[_Part] = []
    source: str = ask.by if ask.by != "growth" else ""
    if ask.by == "growth" and not percent and pri_j is not None:
        source = "computed"
        for r in rows:
            cur, pri = r.cells[cur_j], r.cells[pri_j]
            if cur.value is None or pri.value is None or pri.value <= 0 or r.cells[pri_j].percent:
                continue
            parts.append(_Part(r, (cur.value / pri.value - 1) * 100, cur, pri))
        # the table's own % change column: the first whose every part's cell agrees with the computed
        for j in changes:
            if parts and any(p.row.cells[j].percent for p in parts) and all(_agrees(p.row.cells[j], p.value)
                                                                             for p in parts):
                for p in parts:
                    p.printed = p.row.cells[j]
                break
    elif ask.by == "growth" and percent and _changes(context, header, table) and not _SHARES.search(context):
        source = "printed"  # a table of the measure's changes: the printed change is the growth
        parts = [_Part(r, r.cells[cur_j].value or 0.0, r.cells[cur_j], printed=r.cells[cur_j])
                 for r in rows if r.cells[cur_j].value is not None]
    elif ask.by == "level" and percent == _percent_measure(ask.measure):
        parts = [_Part(r, r.cells[cur_j].value or 0.0, r.cells[cur_j],
                       r.cells[pri_j] if pri_j is not None else None) for r in rows if r.cells[cur_j].value is not None]
    elif ask.by == "increase" and percent == _percent_measure(ask.measure) and pri_j is not None:
        # an amount's increase, or a ratio's change in points ("whose margin improved the most")
        parts = [_Part(r, (r.cells[cur_j].value or 0.0) - (r.cells[pri_j].value or 0.0), r.cells[cur_j],
                       r.cells[pri_j]) for r in rows
                 if r.cells[cur_j].value is not None and r.cells[pri_j].value is not None]
    if len(parts) < 2 or len({p.row.label for p in parts}) < len(parts):
        return None
    parts.sort(key=lambda p: p.value, reverse=not ask.lowest)
    whole = next((r.cells[cur_j] for r in rows_all if len(r.cells) == n and re.match(r"(?:total|consolidated)\b",
                                                                                      r.label, re.I)), None)
    return parts, source, percent, whole


def _rows_of(table: _Table, n: int) -> list[_Row]:
    return [r for r in table.rows if len(r.cells) == n]


def _changes(context: str, header: str, table: _Table) -> bool:
    """The table's figures are changes on the year before: its title or the heading above the
    rows says so ("Comparable sales increases/(decreases)", "Year-over-year Percentage Growth"),
    or its column heading does when it names no change column of its own ("Increase/(Decrease)"
    over "Quarters Ended June 30," over "2023 2022")."""
    if _CHANGE_CONTEXT.search(context):
        return True
    return bool(_CHANGE_CONTEXT.search(header)) and not any(c.kind in (CHANGE, PART) for c in table.columns)


def _percent_measure(measure: str) -> bool:
    return bool(re.search(r"\b(?:margins?|rates?|ratios?|percent(?:age)?|%|share|mix|yield|comparable|comp|"
                          r"same[-\s]store|growth)\b", measure, re.I))


def _kind_strength(ask: RankingAsk, context: str, rows: list[_Row]) -> int:
    """How plainly the table says its rows are the asked kind of part: 2 when its heading
    names the kind ("Segment Information", "by reportable segment", "by Service Offering") or
    the rows do ("FedEx Ground segment"), 1 when it names one part of that kind ("offerings
    in our Digital Media reportable segment") or the kind is geographic and the rows are
    places, else 0."""
    kinds = _kind_words(ask.kind)
    if any(kinds & _kind_words(r.label) for r in rows):
        return 2
    strength = 0
    words = re.findall(r"[A-Za-z][\w&'\u2019-]*", context)
    for i, w in enumerate(words):
        if not kinds & _kind_words(w):
            continue
        before = words[max(0, i - 2):i]
        names_one = any(x[0].isupper() for x in before) and not (i >= 1 and words[i - 1].lower() == "by") \
            and i > 0 and not w[0].isupper()
        strength = max(strength, 1 if names_one else 2)
    if not strength and _geographic(ask) and sum(bool(_PLACES.search(r.label)) for r in rows) >= 2:
        strength = 1
    return strength


def _parent_measures_another(ask: RankingAsk, parent: str) -> bool:
    """The heading line over the rows names a measure that is not the asked one ("Revenue"
    over the segments' revenue rows, beside "Operating Income" over theirs): a heading over
    the rows says what they measure, whatever the table's title names besides."""
    named = set(tokenize(parent)) & measure_terms()
    if re.search(r"\bmargins?\b", parent, re.I):
        named.add("margin")
    asked = set(tokenize(ask.measure or "revenue")) & measure_terms()
    if re.search(r"\bmargins?\b", ask.measure, re.I):
        asked.add("margin")
    return bool(named) and bool(asked) and not asked <= named


def _another_kind(ask: RankingAsk, heading: str) -> bool:
    """The table's heading breaks its figures down by another kind of part than the asked
    ("Revenue by product" for business segments, "by geography" for offerings)."""
    named = set()
    for m in re.finditer(r"\bby\s+(?:(?:each|major|reportable|operating|business|of\s+the|the)\s+)*([a-z]+(?:\s+[a-z]+)?)",
                         heading, re.I):
        named |= _kind_words(m.group(1))
    asked = _kind_words(" ".join((ask.kind, *ask.qualifiers)))
    return bool(named) and not named & asked


def _plainly_parts(ask: RankingAsk, rows: list[_Row], above: str, parent: str, head: str) -> bool:
    """A table that does not say its rows are the asked kind of part still ranks them when its
    own heading names the asked measure (a title, the column heading or a heading line over the
    rows, not a total's line: "Total net revenue" over a region breakdown names that total's
    parts) and no row of it is a line of another measure or a count ("Headcount", "Loans")."""
    named = above + " " + head + ("" if re.match(r"\s*total\b", parent, re.I) else " " + parent)
    if ask.measure and not (set(tokenize(ask.measure)) - STOPWORDS) <= set(tokenize(named)):
        return False
    for r in rows:
        if _NOT_A_PART.search(r.label):
            continue
        if is_count_label(r.label) or (measure_phrase(r.label) and len(r.label.split()) > 1):
            return False
    return True


def _measure_fit(ask: RankingAsk, context: str, question_terms: set[str], totals: str = "") -> int | None:
    """Whether the table's heading (or its total's label, ``totals``) names the asked measure:
    None when it does not, or when the heading names it with a qualifier the question does
    not use ("Organic Net Sales" for net sales), else the number of its measure words beyond
    the asked ones (fewer is the plainer table)."""
    terms = set(tokenize(f"{context} {totals}"))
    if not ask.measure:
        # "Which segment grew fastest?" asks its sales: a table of them fits best
        return 0 if "revenue" in terms else 1
    asked = set(tokenize(ask.measure)) - STOPWORDS
    if not asked <= terms:
        return None
    raw = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]+", f"{context} {totals}")}
    for w in _RAW_MEASURE_WORDS:
        if re.search(rf"\b{w}s?\b", ask.measure, re.I) and w not in raw:
            return None  # "operating margin" is not the "Operating income" line
    if measure_modifiers(context, asked, question_terms):
        return None
    return len(raw & {"margin", "income", "expense", "cost", "tax"} - {w.lower() for w in ask.measure.split()})


def _candidates(intent: QuestionIntent, passages: list[Passage]) -> list[_Candidate]:
    ask = intent.ranking
    assert ask is not None
    question_terms = set(tokenize(intent.asked))
    out: list[_Candidate] = []
    seen: set[tuple[str, int]] = set()
    for order, p in enumerate(passages):
        key = (p.hit.chunk.doc_id, p.hit.chunk.page)
        if key in seen or not p.page:
            continue
        seen.add(key)
        doc = p.hit.doc
        for table in read_tables(p.page, doc):
            current = asked_period(intent.asked, doc, table.periods)
            if current is None:
                continue
            prior = _prior(table.periods, current)
            above = " ".join(p.page[a:b] for a, b in table.context)
            head = p.page[table.header[0]:table.header[1]]
            for rows in _groups(table):
                parent = p.page[rows[0].parent[0]:rows[0].parent[1]] if rows[0].parent else ""
                if parent and any(_norm_name(r.label) == _norm_name(_LABEL_END.sub("", parent))
                                  for r in table.rows if r not in rows):
                    continue  # the breakdown of one part (its rows under its name, its total a part beside)
                context = f"{above} {parent}"
                # a table of one measure may name it only in its total ("Total revenue")
                totals = " ".join(r.label for r in rows if re.match(r"total\b", r.label, re.I))
                fit = _measure_fit(ask, f"{context} {head}", question_terms, totals)
                if fit is None or _parent_measures_another(ask, parent):
                    continue
                ranked = _rank_group(rows, table, ask, current, prior, context, head)
                if ranked is None:
                    continue
                parts, source, percent, whole = ranked
                strength = _kind_strength(ask, f"{context} {head}", [x.row for x in parts])
                if not ask.measure and not strength and fit:
                    continue  # neither a measure, its sales nor the kind of part: no table of the question
                if _another_kind(ask, f"{context} {head}") and not (_geographic(ask) and strength):
                    continue  # "Revenue by product" ranks no segments (a geographic segment's rows are places)
                if not strength and not _plainly_parts(ask, rows, above, parent, head):
                    continue
                if bool(_BASIS.search(intent.asked)) != bool(_BASIS.search(context)) or (
                        _BASIS.search(intent.asked) and source != "printed"):
                    # growth in constant currency is the table's own figure on that basis: never
                    # the reported amounts' growth, nor the other way round
                    continue
                money = "$" in p.page[rows[0].start:rows[-1].end] or bool(re.search(r"dollars", context + head, re.I))
                score = (strength, 1 if source == "computed" else 0, -fit, -order)
                out.append(_Candidate(score, parts, table, current, prior if source != "level" or prior else None,
                                      source, p, percent, money, whole))
    return out


# -- the answer ----------------------------------------------------------------------------------
def ranking_answer(intent: QuestionIntent, passages: list[Passage]) -> RankingAnswer | None:
    """The asked ranking of the company's parts from the tables of ``passages``' pages (the
    asked company's, best first), or None (see the module's docstring)."""
    if intent.ranking is None or not passages:
        return None
    found = _candidates(intent, passages)
    if not found:
        return _prose_ranking(intent, passages)
    found.sort(key=lambda c: c.score, reverse=True)
    best = found[0]
    rivals = [c for c in found[1:] if c.score[:3] == best.score[:3]]
    if any(_lead(c, intent.ranking) != _lead(best, intent.ranking) for c in rivals):
        return None  # two tables as good as each other lead with different parts: no guess
    return _answer(intent, best)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _lead(c: _Candidate, ask: RankingAsk) -> object:
    """What a candidate answers: the leading part, or the parts that moved as asked."""
    if ask.select == "each":
        return tuple(sorted(p.row.label for p in c.parts))
    if ask.select:
        return tuple(p.row.label for p in c.parts if (p.value > 0) == (ask.select == "grew") and p.value)
    return c.parts[0].row.label


def _singular(kind: str) -> str:
    """"segments" -> "segment", "businesses" -> "business", "categories" -> "category"."""
    for plural, one in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("s", "")):
        if kind.endswith(plural) and not kind.endswith("ss"):
            return kind[:-len(plural)] + one
    return kind


def _fmt_amount(cell: _Cell, scale: str, money: bool) -> str:
    value = cell.value or 0.0
    scaled = scale if scale in ("thousands", "millions", "billions") else ""
    return format_figure(value, scaled, _decimals(cell.text), "USD" if money else "")


def _pct(x: float, signed: bool = True, decimals: int = 1) -> str:
    return f"{'+' if signed and x > 0 else ''}{x:,.{decimals}f}%".replace("-", "\u2212")


def _printed(cell: _Cell, signed: bool = False) -> str:
    """A printed percentage as the filing prints it, written alike ("(9) %" -> "-9%")."""
    if re.search(r"bps?\b|pp\b|pts?\b", cell.text):
        return cell.text
    return _pct(cell.value or 0.0, signed, _decimals(cell.text))


def _answer(intent: QuestionIntent, c: _Candidate) -> RankingAnswer:
    ask = intent.ranking
    assert ask is not None
    page = c.passage.page
    hit = c.passage.hit
    doc = hit.doc
    lead, rest = c.parts[0], c.parts[1:]
    when = column_period_name(c.current, prose=True)
    what = ask.measure or "growth"

    def shown(p: _Part) -> str:
        if c.source == "computed":
            return _pct(p.value)
        if c.source == "printed":
            return _printed(p.current, signed=True)
        if c.source == "increase" and c.percent:
            return f"{'+' if p.value >= 0 else chr(0x2212)}{abs(p.value):.1f} percentage points"
        if c.source == "increase":
            sign = "+" if p.value >= 0 else "\u2212"
            return sign + format_figure(abs(p.value), c.table.scale if c.table.scale in (
                "thousands", "millions", "billions") else "", _decimals(p.current.text), "USD" if c.money else "")
        return _printed(p.current) if c.percent else _fmt_amount(p.current, c.table.scale, c.money)

    if c.source == "computed":
        assert lead.prior is not None and c.prior is not None
        detail = (f"{_fmt_amount(lead.current, c.table.scale, c.money)} {when} vs "
                  f"{_fmt_amount(lead.prior, c.table.scale, c.money)} {column_period_name(c.prior, prose=True)}")
        if lead.printed is not None:
            detail += f"; the filing prints {_printed(lead.printed, signed=True)}"
        two = len(c.parts) == 2
        verb = (("grew faster" if two else "grew fastest") if lead.value > 0 else "had the higher growth" if two
                else "had the highest growth") if not ask.lowest else (
            ("declined more" if two else "declined the most") if lead.value < 0 else
            "grew less" if two else "grew the least")
        head = f"{lead.row.label} {verb}: {shown(lead)} ({detail})"
    elif c.source == "printed":
        verb = f"had the {'weakest' if ask.lowest else 'strongest'} {what}"
        head = f"{lead.row.label} {verb}: {shown(lead)} {when}"
    elif c.source == "increase" and c.percent:
        assert lead.prior is not None and c.prior is not None
        change = "increase" if lead.value >= 0 else "decline"
        size = "largest" if (lead.value >= 0) != ask.lowest else "smallest"
        head = (f"{lead.row.label} had the {size} {change} "
                f"in {what}: {shown(lead)} ({_printed(lead.current)} {when} vs {_printed(lead.prior)} "
                f"{column_period_name(c.prior, prose=True)})")
    elif c.source == "increase":
        assert lead.prior is not None and c.prior is not None
        head = (f"{lead.row.label} added the {'least' if ask.lowest else 'most'} {ask.measure or ''}".rstrip()
                + f": {shown(lead)} ({_fmt_amount(lead.current, c.table.scale, c.money)} {when} vs "
                  f"{_fmt_amount(lead.prior, c.table.scale, c.money)} {column_period_name(c.prior, prose=True)})")
    else:
        head = f"{lead.row.label} had the {'lowest' if ask.lowest else 'highest'} {what}: {shown(lead)} {when}"
        if lead.prior is not None and c.prior is not None:
            head += f" ({_printed(lead.prior) if c.percent else _fmt_amount(lead.prior, c.table.scale, c.money)} " \
                    f"{column_period_name(c.prior, prose=True)})"

    def other(p: _Part) -> str:
        extra = ""
        if c.source == "level" and p.prior is not None:
            extra = f"; {_printed(p.prior) if c.percent else _fmt_amount(p.prior, c.table.scale, c.money)} before"
        return f"{p.row.label} ({shown(p)}{extra})"

    text = f"{head} \u2014 {'below' if ask.lowest else 'ahead of'} {_and([other(p) for p in rest])}."
    total = next((r for r in c.table.rows if c.whole in r.cells), None)
    if c.source == "level" and not c.percent and total is not None and c.whole is not None and c.whole.value and \
            _SHARE_ASKED.search(intent.asked):
        # "... and what share of segment sales?": the leader's share of the table's total, computed
        text += (f" {lead.row.label} was {(lead.current.value or 0) / c.whole.value * 100:.1f}% of {total.label} "
                 f"({_fmt_amount(c.whole, c.table.scale, c.money)}), computed from the two cells.")
    if ask.select == "each":
        # "..., and what were net sales for each?": every part's figure, the largest first, no verdict
        head = f"{(ask.measure or what)[:1].upper()}{(ask.measure or what)[1:]} by {_singular(ask.kind)} {when}"
        text = f"{head}: {'; '.join(other(p) for p in c.parts)}."
    elif ask.select:
        # "Which segments grew ...?": those that did, then the others
        moved = [p for p in c.parts if (p.value > 0) == (ask.select == "grew") and p.value != 0]
        still = [p for p in c.parts if p not in moved]

        def item(p: _Part) -> str:
            if c.source == "computed" and p.prior is not None and c.prior is not None:
                return (f"{p.row.label} ({shown(p)}: {_fmt_amount(p.current, c.table.scale, c.money)} vs "
                        f"{_fmt_amount(p.prior, c.table.scale, c.money)})")
            return f"{p.row.label} ({shown(p)})"

        verb = "grew" if ask.select == "grew" else "declined"
        span = f"{when}" + (f" vs {column_period_name(c.prior, prose=True).removeprefix('in ')}"
                            if c.prior is not None else "")
        if moved:
            head = f"{_and([x.row.label for x in moved])} {verb}"
            text = f"{_and([item(x) for x in moved])} {verb} {ask.measure or ''} {span}".replace("  ", " ")
        else:
            head = f"None of the {len(c.parts)} {verb}"
            text = f"None of the {len(c.parts)} {ask.kind} {verb} {span}"
        if still:
            text += f"; {_and([f'{x.row.label} ({shown(x)})' for x in still])} did not"
        text += "."
    # the inputs: every cell used, each part's row its quote
    scale_unit = c.table.scale if c.table.scale in ("thousands", "millions", "billions") else "units"
    inputs: list[CalculationInput] = []

    def add(p: _Part, cell: _Cell, period: Period) -> None:
        inputs.append(CalculationInput(p.row.label, column_period_name(period), cell.value or 0.0,
                                       "percent" if cell.percent else scale_unit, doc.file_name, hit.chunk.page,
                                       page[p.row.start:p.row.end], doc.doc_id, p.row.start, cell.start, cell.end))

    if total is not None and c.whole is not None and c.source == "level" and _SHARE_ASKED.search(intent.asked):
        add(_Part(total, c.whole.value or 0.0, c.whole), c.whole, c.current)
    for p in c.parts:
        add(p, p.current, c.current)
        if p.prior is not None and c.prior is not None and c.source in ("computed", "increase"):
            add(p, p.prior, c.prior)
        if p.printed is not None and c.source == "computed":
            add(p, p.printed, c.current)
    formula = {
        "computed": "growth = current period / same period a year earlier \u2212 1, for each part",
        "printed": f"each part's {what} as the table prints it",
        "increase": "increase = current period \u2212 same period a year earlier, for each part",
        "level": f"each part's {what} as the table prints it",
    }[c.source] + ": " + ", ".join(f"{p.row.label} {shown(p)}" for p in c.parts)  # the ranking, on the card too
    unit = "percentage_points" if c.source == "increase" and c.percent else "percent" if c.source in (
        "computed", "printed") or c.percent else (
        f"usd_{scale_unit}" if c.money and scale_unit != "units" else "usd" if c.money else "units")
    calc = Calculation(head.split(":")[0], formula, inputs,
                       round(lead.value, 1) if unit in ("percent", "percentage_points") else lead.value,
                       unit)
    # the quotes: the heading naming the measure, the column heading, then each ranked row
    cites: list[Citation] = []

    def cite(a: int, b: int) -> None:
        quote = page[a:b].strip()
        if quote and all(x.char_start != a for x in cites):
            start = a + (len(page[a:b]) - len(page[a:b].lstrip()))
            cites.append(Citation(doc.doc_id, doc.file_name, hit.chunk.page, quote, start, hit.chunk.chunk_id))

    measure_line = lead.row.parent or next(
        ((a, b) for a, b in reversed(c.table.context) if not ask.measure or set(tokenize(ask.measure)) <= set(
            tokenize(page[a:b]))), None)
    if measure_line is not None:
        cite(*measure_line)
    cite(*c.table.header)
    for p in c.parts:
        cite(p.row.start, p.row.end)
    return RankingAnswer(text, cites, calc, [(p.row.label, p.value) for p in c.parts])


# -- why the leader moved --------------------------------------------------------------------------
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\u201c\"])")


def part_causes(label: str, passages: list[Passage], reach: int = 900) -> Citation | None:
    """The filing's cause for a part's figure where its MD&A gives each part a subsection: the
    first sentence giving a cause (``assemble.CAUSAL``) under a heading line that is the part's
    name ("Environmental Technologies" over "The increase in segment net sales ... was primarily
    driven by ..."), within ``reach`` characters of it. None when no page prints one."""
    want = re.sub(r"\s+", " ", label).strip().lower()
    seen: set[tuple[str, int]] = set()
    for p in passages:
        key = (p.hit.chunk.doc_id, p.hit.chunk.page)
        if key in seen or not p.page:
            continue
        seen.add(key)
        page = p.page
        for m in re.finditer(r"(?m)^(.+)$", page):
            if re.sub(r"\s+", " ", m.group(1)).strip().lower() != want:
                continue
            start = m.end() + 1
            block = page[start:start + reach]
            cut = re.search(r"\n(?=[A-Z][^\n.]{0,60}\n)", block)  # the next part's heading
            block = block[:cut.start()] if cut else block
            pos = 0
            for s in _SENTENCE_END.split(block):
                at = block.find(s, pos)
                pos = at + len(s)
                if CAUSAL.search(s):
                    quote = s.strip()
                    return Citation(p.hit.chunk.doc_id, p.hit.doc.file_name, p.hit.chunk.page, quote,
                                    start + at + (len(s) - len(s.lstrip())), p.hit.chunk.chunk_id)
    return None


# -- a prose list of the parts' changes ------------------------------------------------------------
# "Comparable sales in the International Operated segment increased 13.3%, ...", "Display
# Technologies net sales increased 6%": one part's change of a measure, in one sentence or item
_KIND_WORD = r"(?:\s+(?:segments?|regions?|business(?:es)?|divisions?|markets?|brands?|units?))?"
_MOVE = r"(?P<verb>increased|decreased|grew|rose|declined|fell)\s+(?:by\s+)?(?:approximately\s+)?" \
        r"(?P<num>\d+(?:\.\d+)?\s?%)"
_PART_NAME = r"(?P<part>[A-Z][\w&.\u2019'-]*(?:\s+(?:&\s+|and\s+|of\s+)?[A-Z][\w&.\u2019'-]*){0,5})"
_PROSE_ITEMS = (
    re.compile(rf"^[\W\d]{{0,3}}(?P<measure>[A-Z][a-z]+(?:\s+[a-z]+){{0,4}}?)\s+(?:in|for|of|at)\s+(?:the\s+)?"
               rf"{_PART_NAME}{_KIND_WORD}\s+{_MOVE}"),
    re.compile(rf"^[\W\d]{{0,3}}{_PART_NAME}{_KIND_WORD}(?:\u2019s|'s)?\s+(?P<measure>[a-z]+(?:\s+[a-z]+){{0,4}}?)\s+"
               rf"{_MOVE}"),
)
# the whole, or the basis a figure is stated on ("FX-Neutral net revenues increased 8%"): no part
_NOT_A_PART_NAME = re.compile(r"^(?:global|total|consolidated|overall|company|the\s+company|our|we|systemwide|"
                              r"(?:fx|currency|constant[\s-]currency)[\s-]neutral|organic|reported|adjusted|"
                              r"non-gaap|gaap)\b", re.I)
_PROSE_REACH = 700  # characters above a list's first item where its period is printed


def _prose_ranking(intent: QuestionIntent, passages: list[Passage]) -> RankingAnswer | None:
    """A growth ranking from a prose list of the parts' changes (each sentence or item naming
    one part, one measure and its % change), when no table ranks them: the items of one page
    naming the asked measure, at least two parts, the asked period printed in the lead-in above
    them ("2022 FINANCIAL PERFORMANCE", "In 2022, global comparable sales increased 10.9%").
    None otherwise."""
    ask = intent.ranking
    if ask is None or ask.by != "growth" or ask.select:
        return None
    asked = set(tokenize(ask.measure or "revenue")) - STOPWORDS
    seen: set[tuple[str, int]] = set()
    found: list[tuple[Passage, list[tuple[str, float, int, int, tuple[int, int]]], tuple[int, int]]] = []
    for p in passages:
        key = (p.hit.chunk.doc_id, p.hit.chunk.page)
        if key in seen or not p.page:
            continue
        seen.add(key)
        page = p.page
        items: list[tuple[str, float, int, int, tuple[int, int]]] = []  # part, change, its span, the unit's
        for ua, ub in split_units(page):
            unit = page[ua:ub]
            for rx in _PROSE_ITEMS:
                m = rx.search(unit)
                if m is None or not asked <= set(tokenize(m.group("measure"))):
                    continue
                part = re.sub(r"\s+", " ", m.group("part")).strip(" ,")
                if _NOT_A_PART_NAME.match(part) or (ask.named and not any(_same_name(part, n) for n in ask.named)):
                    break
                value = float(re.sub(r"[^\d.]", "", m.group("num")))
                value = -value if m.group("verb").lower() in ("decreased", "declined", "fell") else value
                items.append((part, value, ua + m.start("num"), ua + m.end("num"), (ua, ub)))
                break
        if len({i[0] for i in items}) < 2 or len({i[0] for i in items}) < len(items):
            continue
        first = items[0][4][0]
        if items[-1][4][0] - first > _PROSE_REACH * 2:
            continue  # not one list
        lead = _period_quote(intent, p, first)
        if lead is not None:
            found.append((p, items, lead))
    if len(found) != 1:
        return None  # none, or two lists: no guess which
    p, items, lead = found[0]
    items.sort(key=lambda i: i[1], reverse=not ask.lowest)
    page, hit, doc = p.page, p.hit, p.hit.doc
    what = ask.measure or "growth"
    year = next((m.year for m in intent.periods.mentions if m.year), doc.meta.fiscal_year)
    best, rest = items[0], items[1:]
    head = f"{best[0]} had the {'weakest' if ask.lowest else 'strongest'} {what} growth: {_pct(best[1])}"
    text = (f"{head} \u2014 {'below' if ask.lowest else 'ahead of'} "
            f"{_and([f'{i[0]} ({_pct(i[1])})' for i in rest])}, as the filing states them for {year}.")
    inputs = [CalculationInput(i[0], f"FY{year}" if year else "", i[1], "percent", doc.file_name, hit.chunk.page,
                               page[i[4][0]:i[4][1]], doc.doc_id, i[4][0], i[2], i[3]) for i in items]
    calc = Calculation(head.split(":")[0], f"each part's {what} change as the filing states it: " + ", ".join(
        f"{i[0]} {_pct(i[1])}" for i in items), inputs, round(best[1], 1), "percent")
    cites = [Citation(doc.doc_id, doc.file_name, hit.chunk.page, page[a:b], a, hit.chunk.chunk_id)
             for a, b in [lead, *(i[4] for i in items)]]
    return RankingAnswer(text, list({c.char_start: c for c in cites}.values()), calc, [(i[0], i[1]) for i in items])


def _period_quote(intent: QuestionIntent, p: Passage, first: int) -> tuple[int, int] | None:
    """The line above a list's first item (within ``_PROSE_REACH``) printing the asked period:
    its year, and a quarter's words when a quarter is asked; the filing's own year when the
    question names none."""
    doc = p.hit.doc
    years = {m.year for m in intent.periods.mentions if m.year} or {doc.meta.fiscal_year} - {None}
    quarter = months_asked(intent.asked, doc.meta.form_type) == 3
    above = p.page[max(0, first - _PROSE_REACH):first]
    base = first - len(above)
    for m in reversed(list(re.finditer(r"[^\n]+", above))):
        line = m.group(0)
        if not any(re.search(rf"\b{y}\b", line) for y in years):
            continue
        if quarter and not re.search(r"\bquarter\b|\bQ[1-4]\b|\bthree\s+months\b", line, re.I):
            continue
        return base + m.start(), base + m.end()
    return None
