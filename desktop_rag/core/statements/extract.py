"""Find the primary financial statements in a filing and parse them into data.

Works on the canonical page text of ``core/pdf.py`` (table rows are already joined on
their baseline, one visual line per row) and, when available, the character boxes:

1. a statement starts at a title line ("Condensed Consolidated Statements of Operations",
   "Consolidated balance sheets (unaudited)", "Income Statements", …) followed by a column
   header with years;
2. the column header (possibly several lines: "Three Months Ended" / "July 1, June 25," /
   "2023 2022") gives each column's period: end date and length in months;
3. each following line is split into a label and trailing cells; cells are assigned to
   columns by their right edge when boxes are known (a row may skip a column), otherwise
   only rows with a cell in every column are kept;
4. label-only lines are headings (the row's parent) or the first half of a wrapped label;
5. a statement ends at "See accompanying notes…" or a new title, and may continue on the
   next page (a "(continued)" title or the same column header at the top).
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from desktop_rag.core.domain.numbers import parse_cell, scale_of
from desktop_rag.core.pdf import PageText
from desktop_rag.core.statements.model import Box, Cell, Period, Row, Statement, StatementKind

# -- statement titles ----------------------------------------------------------------
# A company name may precede the title on its line ("NIKE, Inc. Consolidated Statements of Income"):
# capitalised words only, so "Impact of derivatives on the consolidated balance sheets" is no title.
# (?-i:...): the patterns are compiled with re.I, under which "[A-Z]" would accept lower-case
# words too ("Impact of derivatives on the balance sheets"); company words stay capitalised.
_PREFIX = r"^(?-i:(?:(?:[A-Z0-9&][\w.,&'\-]*|and|of)\s+){0,8}?)(?:condensed\s+|interim\s+|unaudited\s+)*(?:consolidated\s+|combined\s+)*(?:and\s+combined\s+)?"
_TITLES: list[tuple[StatementKind, re.Pattern[str]]] = [
    ("comprehensive", re.compile(
        _PREFIX + r"(?:statements?\s+of\s+(?:consolidated\s+)?comprehensive\s+(?:income|loss|earnings|\(loss\)|\(income\))"
        r"|comprehensive\s+(?:income|loss)(?:\s+\(loss\))?\s+statements?)", re.I)),
    ("income", re.compile(
        _PREFIX + r"(?:statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings|net\s+income|\(loss\)|"
        r"loss|profit|results\s+of\s+operations|comprehensive\s+income\s+and\s+operations)"
        r"|income\s+statements?|statements?\s+of\s+profit\s+(?:and|or)\s+loss|profit\s+and\s+loss\s+statements?)", re.I)),
    ("balance", re.compile(
        _PREFIX + r"(?:balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+(?:position|condition))", re.I)),
    ("cash_flow", re.compile(
        _PREFIX + r"(?:statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?|cash\s+flows?\s+statements?)", re.I)),
    ("equity", re.compile(
        _PREFIX + r"(?:statements?\s+of\s+(?:changes\s+in\s+)?(?:consolidated\s+)?(?:stockholders|shareholders|"
        r"share\s*owners|shareowners|members)['\u2019]?\s+(?:equity|deficit|investment)"
        r"|statements?\s+of\s+(?:changes\s+in\s+)?(?:total\s+)?equity|(?:stockholders|shareholders)['\u2019]?\s+equity\s+statements?)",
        re.I)),
]
# Words are separated by exactly one space in the canonical text: no nested quantifiers here.
_COMPANY_SUFFIX = re.compile(r"(?:(?: [-\u2013])? (?:[A-Z0-9&][\w.,&'\-]*|and|of)){1,12} ?")
_NOT_TITLE = re.compile(r"\bnotes?\s+to\b|\bsee\b|\brefer\b|\bincluded\b|\bpart\s+of\b|\bin\s+the\b|\bthese\b|[.;]\s*$|\d\s*$", re.I)
_CONTINUED = re.compile(r"\(?\bcontinued\b\)?", re.I)
_END = re.compile(
    r"(see|refer to)\s+(the\s+)?accompanying|accompanying\s+notes|notes\s+to\s+(the\s+)?(condensed\s+)?(consolidated\s+)?"
    r"(interim\s+)?financial\s+statements\s+are|integral\s+part\s+of\s+th", re.I)
_FURNITURE = re.compile(r"table of contents|\|\s*\d+\s*$|form\s+10-[kq]|^\s*page\s+\d+|^\s*\d+\s*$", re.I)

# -- column headers ------------------------------------------------------------------
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_MON_ABBR = {m[:3]: i for m, i in _MONTHS.items()} | {"sept": 9}
_MONTH_DAY = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?\s+(\d{1,2})\b", re.I)
_YEAR = re.compile(r"(?<![\d,.$])((?:19|20)\d\d)(?![\d,.%])")
_NUMWORD = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "nine": 9, "twelve": 12, "thirteen": 13,
            "twenty-six": 26, "twenty six": 26, "thirty-nine": 39, "thirty nine": 39, "fifty-two": 52,
            "fifty two": 52, "fifty-three": 53, "fifty three": 53, "sixteen": 16, "twelve-": 12,
            "twenty-four": 24, "thirty-six": 36, "forty": 40}
_DURATION = re.compile(
    r"\b(?P<n>\d{1,2}|one|two|three|four|six|nine|twelve|thirteen|sixteen|twenty[- ]six|twenty-four|thirty[- ]nine|"
    r"thirty-six|forty|fifty[- ]two|fifty[- ]three)[- ](?P<u>months?|weeks?)\b"
    r"|\b(?P<q>quarters?)\s+ended\b|\b(?P<y>(?:fiscal\s+)?years?)\s+ended\b|\bfor\s+the\s+(?P<y2>(?:fiscal\s+)?years?)\b"
    r"|\b(?P<asof>as\s+of|at)\b", re.I)
_HEADER_WORDS = re.compile(
    r"^[\s(]*(?:(?:in|amounts?\s+in|dollars\s+in|\$\s*in)\s+(?:thousands|millions|billions)[^)]*\)?|"
    r"(?:three|six|nine|twelve|\d+)\s+(?:months|weeks)\s+ended|years?\s+ended|fiscal\s+years?\s+ended|for\s+the\s+.*|"
    r"quarter\s+ended|as\s+of|at|ended|fiscal(?:\s+year)?|year|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|[\s,.\d]+)*[\s,.)]*$", re.I)


def _weeks_to_months(weeks: int) -> int:
    months = round(weeks / 4.345)
    return min((3, 4, 6, 9, 12), key=lambda m: abs(m - months))


@dataclass
class _Token:
    text: str
    start: int  # offset in the page text
    end: int


@dataclass
class _Line:
    text: str
    start: int  # offset of the line in the page text
    tokens: list[_Token]
    index: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def _lines(page: PageText) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for i, text in enumerate(page.text.split("\n")):
        toks = [_Token(m.group(0), pos + m.start(), pos + m.end()) for m in re.finditer(r"\S+", text)]
        out.append(_Line(text, pos, toks, i))
        pos += len(text) + 1
    return out


# -- splitting a line into label and cells ---------------------------------------------
@dataclass
class _ParsedLine:
    line: _Line
    label: str
    label_span: tuple[int, int]
    cells: list[tuple[str, float | None, bool, int, int]]  # text, value, percent, start, end


_DOTS = re.compile(r"(?:\s?\.){2,}\s*$|\s*[._]{3,}.*$")
_FOOTNOTE = re.compile(r"(?:\s*\((?:[a-z]|\d{1,2}|[ivx]+)\))+\s*$|\s*\*+\s*$")


def _clean_label(text: str) -> str:
    t = _DOTS.sub("", text).strip()
    t = _FOOTNOTE.sub("", t).strip()
    t = re.sub(r"\s*\$\s*$", "", t)
    return t.rstrip(" .").strip()


def _split(line: _Line) -> _ParsedLine:
    """Trailing cells (read from the right) and the label before them."""
    toks = line.tokens
    cells: list[tuple[str, float | None, bool, int, int]] = []
    i = len(toks) - 1
    while i >= 0:
        t = toks[i]
        text, start, end = t.text, t.start, t.end
        if text == "$":
            i -= 1
            continue
        if text == "%" and i > 0:
            i -= 1
            text, start = toks[i].text + " %", toks[i].start
        elif text == ")" and i > 0 and toks[i - 1].text.startswith("(") and len(toks[i - 1].text) > 1:
            i -= 1  # "(737 )": the closing parenthesis printed apart
            text, start = toks[i].text + ")", toks[i].start
        elif text == ")" and i > 0:  # "( 1,234 )" printed with spaces
            j = i - 1
            while j >= 0 and toks[j].text != "(" and j > i - 4:
                j -= 1
            if j >= 0 and toks[j].text == "(":
                text, start = "(" + "".join(x.text for x in toks[j + 1:i]) + ")", toks[j].start
                i = j
        # A leading "$" glued to the cell or dot leaders before it belong to the label side.
        lead = re.match(r"^(?:\.{2,}|\$)+", text)
        if lead:
            text, start = text[lead.end():], start + lead.end()
        parsed = parse_cell(text) if text else None
        if parsed is None:
            break
        cells.append((text, parsed.value, parsed.percent, start, end))
        i -= 1
    cells.reverse()
    if i >= 0:
        label_end = toks[i].end
        raw = line.text[: label_end - line.start]
        label = _clean_label(raw)
        label_end = line.start + (raw.find(label) + len(label) if label and raw.find(label) >= 0 else len(raw.rstrip()))
    else:
        label, label_end = "", line.start
    return _ParsedLine(line, label, (line.start, label_end), cells)


def _is_year(text: str) -> bool:
    return bool(re.fullmatch(r"(19|20)\d\d", text))


def _is_header_line(p: _ParsedLine) -> bool:
    """Years with at most period words before them: a column header, not a data row."""
    if not p.cells:
        return False
    if not all(_is_year(c[0]) for c in p.cells):
        return False
    return not p.label or bool(_HEADER_WORDS.match(p.label)) or bool(scale_of(p.label))


def _after_header(parsed: list[_ParsedLine], h0: int, data0: int) -> int:
    """First line after the column header (headings such as "Net sales:" may precede data)."""
    last = h0 - 1
    for i in range(h0, data0):
        if _is_header_line(parsed[i]) or _DURATION.search(parsed[i].line.text) or _MONTH_DAY.search(parsed[i].line.text) \
                or scale_of(parsed[i].line.text):
            last = i
    return last + 1


# -- headers -> periods ----------------------------------------------------------------
@dataclass
class _Header:
    periods: list[Period]
    scale: str | None
    years: list[int]


def _spread(items: list, n: int) -> list | None:
    """Distribute k header items over n columns: one each, evenly grouped, or one for all."""
    k = len(items)
    if k == 0:
        return None
    if k == n:
        return list(items)
    if n % k == 0:
        return [items[i // (n // k)] for i in range(n)]
    return None


def _parse_header(lines: list[_Line], kind: StatementKind, year_line: _ParsedLine | None) -> _Header | None:
    text = " ".join(ln.text for ln in lines)
    scale = scale_of(text)
    if year_line is not None:
        years = [int(y) for y in _YEAR.findall(year_line.line.text)]
        before = " ".join(ln.text for ln in lines if ln.index <= year_line.line.index)
    else:
        # Dates printed whole ("December 31, 2021 December 31, 2020").
        years = [int(m.group(1)) for m in re.finditer(r"\b(?:[A-Za-z]+\.?\s+\d{1,2},?\s+)((?:19|20)\d\d)\b", text)]
        before = text
    n = len(years)
    if n == 0:
        return None
    month_days = [( _MONTHS.get(m.group(1).lower()) or _MON_ABBR[m.group(1).lower()[:4] if m.group(1).lower().startswith("sept") else m.group(1).lower()[:3]],
                    int(m.group(2))) for m in _MONTH_DAY.finditer(before)]
    durations: list[tuple[int, str]] = []
    for m in _DURATION.finditer(before):
        if m.group("n"):
            num = m.group("n").lower()
            count = int(num) if num.isdigit() else _NUMWORD.get(num, 0)
            months = count if m.group("u").lower().startswith("month") else _weeks_to_months(count)
            durations.append((months, m.group(0)))
        elif m.group("q"):
            durations.append((3, m.group(0)))
        elif m.group("y") or m.group("y2"):
            durations.append((12, m.group(0)))
        elif m.group("asof"):
            durations.append((0, m.group(0)))
    if kind == "balance":
        months_per_col = [0] * n
        phrases = ["As of"] * n
    else:
        durations = [d for d in durations if d[0] or kind == "balance"]
        spread = _spread(durations, n)
        if spread is None:
            spread = [(12, "Year Ended")] * n if not durations or all(d[0] == 12 for d in durations) else None
        if spread is None:
            return None
        months_per_col = [d[0] for d in spread]
        phrases = [d[1] for d in spread]
    md = _spread(month_days, n)
    periods = []
    for j in range(n):
        month, day = md[j] if md else (12, 31)
        day = min(day, 31)
        end = f"{years[j]:04d}-{month:02d}-{day:02d}"
        name = next(k for k, v in _MONTHS.items() if v == month).capitalize()
        label = f"{phrases[j].strip().title()} {name} {day}, {years[j]}" if md else f"{phrases[j].strip().title()} {years[j]}"
        periods.append(Period(label, end, months_per_col[j]))
    return _Header(periods, scale, years)


# -- statements on pages ---------------------------------------------------------------
def title_kind(line: str) -> StatementKind | None:
    """The statement a title line announces, or None if the line is not a title."""
    t = line.strip()
    if not t or len(t) > 110 or _NOT_TITLE.search(_CONTINUED.sub("", t).replace("(unaudited)", "").replace("(Unaudited)", "").strip()):
        return None
    core = re.sub(r"\((?:unaudited|continued|in [a-z ]+)\)|-\s*continued|\bcontinued\b", "", t, flags=re.I).strip(" -:,")
    for kind, rx in _TITLES:
        m = rx.match(core)
        # "… of Income Corning Incorporated and Subsidiaries"; a name never starts with "and"
        # ("CONSOLIDATED BALANCE SHEETS AND CASH FLOWS ANALYSIS" is an MD&A heading)
        if m and _COMPANY_SUFFIX.fullmatch(core[m.end():]) and not core[m.end():].lower().lstrip(" -\u2013").startswith("and "):
            return kind
        if m and len(core) - m.end() <= 40:
            rest = core[m.end():].lower()
            if kind == "income" and re.match(r"\s*and\s+comprehensive", rest):
                return "income"
            if rest and not re.fullmatch(r"[\s,(]*(?:and\s+(?:comprehensive\s+income|retained\s+earnings|"
                                         r"comprehensive\s+\(?loss\)?(?:\s+income)?)|of\s+[\w.,&' ]+|\(?unaudited\)?)?[\s,)]*", rest):
                continue
            return kind
    return None


@dataclass
class _Open:
    statement: Statement
    years: list[int]
    anchors: list[float] | None = None
    headings: list[tuple[str, bool]] = field(default_factory=list)  # (heading, colon-style)


_PER_SHARE = re.compile(r"per\s+(?:common\s+|ordinary\s+|basic\s+|diluted\s+)?share|per\s+ads|earnings\s+per|\beps\b|"
                        r"dividends?\s+declared\s+per|per\s+unit", re.I)
_SHARES = re.compile(r"(?:weighted[- ]average|number\s+of)\s+(?:common\s+|ordinary\s+)?shares|shares\s+(?:used|outstanding)|"
                     r"shares\s+used", re.I)


def _row_unit(label: str, parent: str, cells: list[tuple[str, float | None, bool, int, int]]) -> str:
    if cells and all(c[2] for c in cells if c[1] is not None):
        return "percent"
    if _SHARES.search(label) or (_SHARES.search(parent) and not _PER_SHARE.search(label)):
        return "shares"
    if _PER_SHARE.search(label) or _PER_SHARE.search(parent):
        return "per_share"
    return "currency"


def _box(page: PageText, start: int, end: int) -> Box | None:
    if page.boxes is None:
        return None
    rects = [page.boxes[i] for i in range(start, min(end, len(page.boxes))) if page.text[i] not in " \n"]
    if not rects:
        return None
    return (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))


def _right_edge(page: PageText, start: int, end: int) -> float | None:
    b = _box(page, start, end)
    return b[2] if b else None


def _assign(page: PageText, p: _ParsedLine, n: int, anchors: list[float] | None) -> list[tuple[int, tuple]] | None:
    """(column, cell) pairs for a data line; None when the cells do not fit the columns."""
    cells = p.cells
    if anchors is not None and page.boxes is not None:
        gaps = [b - a for a, b in itertools.pairwise(anchors)] or [60.0]
        tol = max(4.0, 0.45 * min(gaps))
        out: list[tuple[int, tuple]] = []
        used: set[int] = set()
        for c in cells:
            x = _right_edge(page, c[3], c[4])
            if x is None:
                return None
            if c[2] or c[0].endswith(")"):  # a closing ")" or "%" sticks out past the column edge
                x -= 3.5
            j = min(range(n), key=lambda k: abs(anchors[k] - x))
            if abs(anchors[j] - x) > tol or j in used:
                continue  # a number in the label ("2025 Notes") or a stray figure
            used.add(j)
            out.append((j, c))
        return out if out else None
    if len(cells) < n:
        return None
    return list(enumerate(cells[-n:]))


def _anchors(page: PageText, rows: list[_ParsedLine], n: int) -> list[float] | None:
    if page.boxes is None:
        return None
    edges: list[list[float]] = [[] for _ in range(n)]
    for p in rows:
        if len(p.cells) != n:
            continue
        for j, c in enumerate(p.cells):
            x = _right_edge(page, c[3], c[4])
            if x is not None:
                edges[j].append(x - (3.5 if (c[2] or c[0].endswith(")")) else 0.0))
    if any(not e for e in edges):
        return None
    return [statistics.median(e) for e in edges]


def _data_lines(lines: list[_Line]) -> list[_ParsedLine]:
    return [_split(ln) for ln in lines]


def _find_header(parsed: list[_ParsedLine], start: int, limit: int = 12) -> tuple[int, int, _ParsedLine | None] | None:
    """(first header line, first data line, year line) after ``start``."""
    year_line = None
    for i in range(start, min(len(parsed), start + limit)):
        p = parsed[i]
        if _is_header_line(p):
            year_line = p
            continue
        if p.cells and p.label and re.search(r"[A-Za-z]{2,}", p.label) and not _FURNITURE.search(p.line.text):
            if year_line is None and not re.search(r"\b(?:19|20)\d\d\b", " ".join(q.line.text for q in parsed[start:i])):
                return None
            return start, i, year_line
    return None


def _begin(page: PageText, parsed: list[_ParsedLine], title_idx: int, kind: StatementKind, title: str,
           default_scale: str | None) -> tuple[_Open, int] | None:
    found = _find_header(parsed, title_idx + 1)
    if found is None:
        return None
    h0, data0, year_line = found
    header_lines = [parsed[i].line for i in range(max(0, title_idx - 2), data0)]
    header = _parse_header(header_lines, kind, year_line)
    if header is None:
        return None
    st = Statement(kind, title, page.number, header.scale or default_scale or "units", header.periods, [], [page.number])
    return _Open(st, header.years), _after_header(parsed, h0, data0)


def _heading_style(label: str) -> bool:
    """True for a colon heading ("Current assets:"), False for a section ("ASSETS")."""
    return label.rstrip().endswith(":")


def _label_before(line: _Line, cut: int) -> tuple[str, tuple[int, int]]:
    """The cleaned label printed before offset ``cut`` of the line, and its span."""
    raw = line.text[: cut - line.start]
    label = _clean_label(raw)
    at = raw.find(label) if label else -1
    return label, (line.start, line.start + (at + len(label) if at >= 0 else len(raw.rstrip())))


_JOINS_NEXT = re.compile(r"(,|\band|\bof|\bfor|\bto|\bin|\bon|\bfrom|\bthe|\bby|\bor|\bnet|-|\(|;)$", re.I)


def _continues(first: str, second: str) -> bool:
    """Is ``second`` the wrapped end of the label ``first``?"""
    if first.endswith(":"):
        return False
    return second[:1].islower() or second[:1] in ")&" or bool(_JOINS_NEXT.search(first))


def _consume(page: PageText, parsed: list[_ParsedLine], start: int, stop: int, op: _Open) -> int:
    """Read rows into ``op.statement`` from line ``start``; returns the line where it ended."""
    st = op.statement
    n = len(st.periods)
    if op.anchors is None:
        op.anchors = _anchors(page, [p for p in parsed[start:stop] if not _is_header_line(p)], n)
    pending: tuple[str, tuple[int, int], int] | None = None  # label-only line: label, span, line start

    def commit_heading() -> None:
        nonlocal pending
        if pending is None:
            return
        raw = pending[0]
        label = raw.rstrip(":").strip()
        colon = _heading_style(raw)
        if colon and op.headings and op.headings[-1][1]:
            op.headings[-1] = (label, colon)  # a sibling sub-heading
        elif colon:
            op.headings.append((label, colon))
        elif op.headings and op.headings[-1][1] and not raw.isupper():
            op.headings[-1] = (label, colon)
        else:
            op.headings[:] = [(label, colon)]
        pending = None

    i = start
    while i < stop:
        p = parsed[i]
        text = p.line.text.strip()
        i += 1
        if not text:
            continue
        if _END.search(text):
            return i - 1
        if _is_header_line(p):
            if [int(c[0]) for c in p.cells] != op.years:
                return i - 1  # another table starts
            continue
        if title_kind(text):
            return i - 1
        if _FURNITURE.search(text):
            continue
        assigned = _assign(page, p, n, op.anchors) if p.cells else None
        if assigned:
            first_cell = min(c[3] for _, c in assigned)
            label, label_span = _label_before(p.line, first_cell)
        else:
            label, label_span = _clean_label(text), (p.line.start, p.line.start + len(p.line.text.rstrip()))
        if not re.search(r"[A-Za-z]", label):
            if not (assigned and pending is not None and not label and not pending[0].endswith(":")):
                continue
            # The figures sit a little below their label ("TOTAL CURRENT LIABILITIES" / "27,194 26,532").
            label, label_span, row_start = pending[0], pending[1], pending[2]
            pending = None
        elif pending is not None and _continues(pending[0], label):
            label = f"{pending[0]} {label}"
            label_span, row_start = (pending[1][0], label_span[1]), pending[2]
            pending = None
        else:
            commit_heading()
            row_start = p.line.start
        if not assigned:
            words = len(label.split())
            if words > 25 or (re.match(r"^\(?[a-z0-9]\)\s+\w", label) and words > 8):
                return i - 1  # prose / footnotes below the table
            pending = (label, label_span, row_start)
            continue
        parent = op.headings[-1][0] if op.headings else ""
        cells = [Cell(st.periods[j].end, st.periods[j].months, c[0], c[1], page.number, (c[3], c[4]),
                      _box(page, c[3], c[4])) for j, c in sorted(assigned, key=lambda x: x[0])]
        unit = _row_unit(label, parent, [c for _, c in assigned])
        st.rows.append(Row(label, parent, page.number, (row_start, p.line.end), label_span, cells, unit))
        # "Total current assets" closes "Current assets:".
        if op.headings and label.lower().startswith("total"):
            head = op.headings[-1][0].lower()
            if head and head in label.lower():
                op.headings.pop()
    return stop


def _titles(lines: list[_Line]) -> list[tuple[int, StatementKind, str]]:
    """(line index, kind) of the title lines of a page; a title may wrap onto a second line
    ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE" / "INCOME")."""
    out: list[tuple[int, StatementKind, str]] = []
    for i, ln in enumerate(lines):
        kind = title_kind(ln.text)
        title = ln.text.strip()
        if kind is None and i + 1 < len(lines) and len(lines[i + 1].text) < 40 \
                and not re.search(r"\d", lines[i + 1].text) and re.search(r"\b(of|statements?)\s*$", ln.text, re.I) is None \
                and re.search(r"statements?\b|balance", ln.text, re.I):
            title = f"{ln.text.strip()} {lines[i + 1].text.strip()}"
            kind = title_kind(title)
        if kind is not None and not (out and out[-1][0] == i - 1):
            out.append((i, kind, title))
    return out


def extract_statements(pages: Iterable[PageText]) -> list[Statement]:
    """Every primary statement found in ``pages`` (in page order)."""
    out: list[Statement] = []
    last: _Open | None = None  # the statement that may continue on the next page
    for page in pages:
        lines = _lines(page)
        parsed = _data_lines(lines)
        titles = _titles(lines)
        scale_hint = scale_of(" ".join(ln.text for ln in lines[:15]))
        continued = False
        if last is not None and (not titles or titles[0][0] > 3):
            # A continuation page: the same column header near the top, then rows.
            found = _find_header(parsed, 0, 14)
            if found is not None and found[2] is not None and [int(c[0]) for c in found[2].cells] == last.years:
                last.statement.pages.append(page.number)
                end = titles[0][0] if titles else len(parsed)
                _consume(page, parsed, _after_header(parsed, found[0], found[1]), end, last)
                continued = True
        if not continued:
            last = None
        for t, (idx, kind, title) in enumerate(titles):
            stop = titles[t + 1][0] if t + 1 < len(titles) else len(parsed)
            if _CONTINUED.search(title) and last is not None and last.statement.kind == kind:
                found = _find_header(parsed, idx + 1)
                if found is not None:
                    last.statement.pages.append(page.number)
                    _consume(page, parsed, _after_header(parsed, found[0], found[1]), stop, last)
                continue
            begun = _begin(page, parsed, idx, kind, title, scale_hint)
            if begun is None:
                continue
            op, data0 = begun
            _consume(page, parsed, data0, stop, op)
            if len(op.statement.rows) >= 3:
                out.append(op.statement)
                last = op
            else:
                last = None
    return _merge_split([s for s in out if s.rows])


def _merge_split(statements: list[Statement]) -> list[Statement]:
    """A statement printed over two pages with its title repeated (no "continued") is one."""
    out: list[Statement] = []
    for s in statements:
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == s.kind and prev.periods == s.periods
                and s.page == prev.pages[-1] + 1 and prev.kind != "segment"):
            prev.rows.extend(s.rows)
            prev.pages.extend(p for p in s.pages if p not in prev.pages)
            continue
        out.append(s)
    return out


def candidate_pages(texts: list[str]) -> list[int]:
    """0-based indexes of pages that may hold a statement (a title line), plus the page
    after each (a statement may continue there). Cheap: text only."""
    hits: set[int] = set()
    for i, t in enumerate(texts):
        if _titles(_lines(PageText(i + 1, t))):
            hits.update((i, i + 1))
    return sorted(h for h in hits if h < len(texts))
