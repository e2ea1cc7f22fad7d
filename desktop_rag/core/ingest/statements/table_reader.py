"""Find the primary financial statements in a filing and parse them into data.

Works on the canonical page text of ``core/ingest/pdf.py`` (table rows are already joined on
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

import datetime as dt
import itertools
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from desktop_rag.core.domain.numbers import parse_cell, scale_of
from desktop_rag.core.domain.periods import MONTH_NAME_RE, MONTH_RE, month_name, month_number
from desktop_rag.core.ingest.pdf import PageText
from desktop_rag.core.ingest.statements.model import Box, Cell, Period, Row, Statement, StatementKind

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
_MONTH_DAY = re.compile(rf"\b({MONTH_RE})\.?\s+(\d{{1,2}})\b", re.I)
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
    rf"quarters?\s+ended|as\s+of|at|ended|fiscal(?:\s+year)?|year|{MONTH_NAME_RE}|and|&|[\s,.\d]+)*[\s,.)]*$", re.I)


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
    index: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @cached_property
    def tokens(self) -> list[_Token]:
        # Lazy: finding the candidate pages of a filing reads every line of every page but
        # needs no tokens (they were half of a 10-K's statement extraction time).
        return [_Token(m.group(0), self.start + m.start(), self.start + m.end()) for m in _WORD.finditer(self.text)]


_WORD = re.compile(r"\S+")


def _lines(page: PageText) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for i, text in enumerate(page.text.split("\n")):
        out.append(_Line(text, pos, i))
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


# a footnote marker between a row's cells ("(a)", "(b)"), and the words a change column prints
# where a change means nothing ("NM", "N/M", "NA")
_FOOTNOTE_BETWEEN_CELLS = re.compile(r"\([a-z]\)")
_NOT_MEANINGFUL = frozenset(("NM", "N/M", "NA", "N/A", "nm", "n/m"))


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
        if cells and _FOOTNOTE_BETWEEN_CELLS.fullmatch(text):
            i -= 1  # "3,100 5,645 (a) (45)": a footnote marker printed beside a cell, no column
            continue
        if text in _NOT_MEANINGFUL and (cells or (i > 0 and parse_cell(toks[i - 1].text.lstrip("$")) is not None)):
            # "(3,602) 5,772 NM (331)": a change column's "not meaningful", a cell without a
            # figure; read as the end of the row it cut off every cell left of it
            cells.append((text, None, False, t.start, t.end))
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
        marked = re.fullmatch(r"(.*?\d\)?)[*\u2020\u2021]+", text) if parsed is None else None
        if marked is not None and parse_cell(marked.group(1)) is not None:
            # "2022*": a footnote mark glued to a cell ("* The balance sheet at January 29,
            # 2022 has been derived from ..."): the cell without its mark
            text, end = marked.group(1), start + len(marked.group(1))
            parsed = parse_cell(text)
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
def header_durations(text: str) -> list[tuple[int, str]]:
    """The column lengths a table header names, in order, with their words: "Three Months
    Ended" -> 3, "52 weeks ended" -> 12, "Year Ended" -> 12, "As of" / "At" -> 0 (an instant)."""
    durations: list[tuple[int, str]] = []
    for m in _DURATION.finditer(text):
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
    return durations


def split_row(text: str) -> tuple[str, list[tuple[str, float | None, bool]]]:
    """One printed table line -> its label and its trailing cells (text as printed, value,
    percent), read as statements are: "Net losses (863) (1,163) (26)%" -> ("Net losses",
    [("(863)", -863.0, False), ("(1,163)", -1163.0, False), ("(26)%", -26.0, True)])."""
    parsed = _split(_Line(text, 0, 0))
    return parsed.label, [(c[0], c[1], c[2]) for c in parsed.cells]


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
    month_days = [(month_number(m.group(1)), int(m.group(2))) for m in _MONTH_DAY.finditer(before)]
    if len(set(month_days)) == 1:
        # one fiscal year-end printed twice ("For the Years Ended May 31, 2020, 2019 and 2018",
        # then "Year Ended May 31,"): it is every column's
        month_days = month_days[:1]
    durations = header_durations(before)
    if kind == "balance":
        months_per_col = [0] * n
        phrases = ["As of"] * n
    elif kind == "segment" and durations and all(d[0] == 0 for d in durations):
        months_per_col = [0] * n  # "As of December 31, 2023 2022": segment assets
        phrases = ["As of"] * n
    elif kind == "segment" and not any(d[0] for d in durations):
        return None  # no period words: a note table's columns are not known to be years
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
        name = month_name(month)
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
                                         r"comprehensive\s+\(?loss\)?(?:\s+income)?)|of\s+[\w.,&' ]+|\(?unaudited\)?|"
                                         r"\(?(?:deficit|loss|income|earnings)\)?)?[\s,)]*", rest):
                continue
            return kind
    return None


@dataclass
class _Open:
    statement: Statement
    years: list[int]
    anchors: list[float] | None = None
    headings: list[tuple[str, bool]] = field(default_factory=list)  # (heading, colon-style)
    change_after: bool = False  # the header names change columns after the periods


_PER_SHARE = re.compile(r"per\s+(?:common\s+|ordinary\s+|basic\s+|diluted\s+)?share|per\s+ads|earnings\s+per|\beps\b|"
                        r"dividends?\s+declared\s+per|per\s+unit", re.I)
_SHARES = re.compile(r"(?:weighted[- ]average|number\s+of)\s+(?:basic\s+|diluted\s+)?(?:common\s+|ordinary\s+)?shares|shares\s+(?:used|outstanding)|"
                     r"shares\s+used", re.I)


# A heading that is only a share class ("Basic", "Diluted:", "Assuming dilution") under
# "Earnings (loss) per common share": the per-share heading is one level up and was replaced.
_SHARE_CLASS = re.compile(r"^(basic|diluted|basic and diluted|assuming dilution)\s*:?$", re.I)
_PER_SHARE_FIGURE = re.compile(r"^\$?\s?\(?-?\$?\s?\d{1,3}\.\d{2,4}\)?$")


def _row_unit(label: str, parent: str, cells: list[tuple[str, float | None, bool, int, int]]) -> str:
    if cells and all(c[2] for c in cells if c[1] is not None):
        return "percent"
    if _SHARES.search(label) or (_SHARES.search(parent) and not _PER_SHARE.search(label)):
        return "shares"
    # a scale note taken for the heading above ("(in thousands, except per share data)" over
    # Netflix's "Revenues 11,692,713") says which rows are NOT in thousands, not that this one is per share
    if _PER_SHARE.search(label) or (_PER_SHARE.search(parent) and not scale_of(parent)):
        return "per_share"
    figures = [c[0].strip() for c in cells if c[1] is not None]
    if _SHARE_CLASS.match(parent.strip()) and figures and all(_PER_SHARE_FIGURE.match(f) for f in figures):
        # "Continuing operations $ 21.74" under "Basic" under "Earnings (loss) per common share":
        # a share-class heading over dollars-and-cents figures is per share, not millions
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


# the heading of a change column after the years of a header line
_CHANGE_HEADING = re.compile(r"(?<=\d)\s+(?:%\s*)?(?:inc(?:rease)?\.?\s*/?\s*\(?\s*dec(?:rease)?\.?\s*\)?|"
                             r"increase\s*/?\s*\(?decrease\)?|(?:%\s*)?change|variance|fav(?:orable)?\s*/?\s*"
                             r"\(?unfav(?:orable)?\)?)\s*%?\s*$", re.I)


def _find_header(parsed: list[_ParsedLine], start: int, limit: int = 12) -> tuple[int, int, _ParsedLine | None] | None:
    """(first header line, first data line, year line) after ``start``."""
    year_line = None
    for i in range(start, min(len(parsed), start + limit)):
        p = parsed[i]
        cut = _CHANGE_HEADING.search(p.line.text) if not p.cells else None
        if cut is not None:
            # "Quarters Ended March 31, 2023 2022 Inc/ (Dec)": the years, then the heading of a
            # change column; the years are the header
            years = _split(_Line(p.line.text[:cut.start()], p.line.start, p.line.index))
            if _is_header_line(years):
                p = parsed[i] = years
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
    op = _Open(st, header.years)
    if year_line is not None:
        end = page.text.find("\n", year_line.line.start)
        # "2023 2022 Inc/ (Dec)": each row's cells after the periods' are the change's
        op.change_after = bool(_CHANGE_HEADING.search(page.text[year_line.line.start:end if end >= 0 else None]))
    return op, _after_header(parsed, h0, data0)


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
        if op.change_after and len(p.cells) > n:
            p = _ParsedLine(p.line, p.label, p.label_span, p.cells[:n])
        assigned = _assign(page, p, n, op.anchors) if p.cells else None
        if assigned:
            first_cell = min(c[3] for _, c in assigned)
            label, label_span = _label_before(p.line, first_cell)
        else:
            label, label_span = _clean_label(text), (p.line.start, p.line.start + len(p.line.text.rstrip()))
        own_words = len(label.split())  # this line's words (a wrapped label may run long)
        if not re.search(r"[A-Za-z]", label) and assigned and not label and (pending is None or pending[0].endswith(":")):
            commit_heading()
            total = _unlabelled_total(st.rows, op, [c for _, c in sorted(assigned, key=lambda x: x[0])])
            if total is not None:
                # "2,338 2,893 2,363" under "Current assets:": the group's total, printed
                # without its label; the quote is the cells as printed
                cells = [Cell(st.periods[j].end, st.periods[j].months, c[0], c[1], page.number, (c[3], c[4]),
                              _box(page, c[3], c[4])) for j, c in sorted(assigned, key=lambda x: x[0])]
                st.rows.append(Row(total, op.headings[-1][0] if op.headings else "", page.number,
                                   (p.line.start, p.line.end), (p.line.start, p.line.start), cells, "currency"))
            continue
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
            if own_words > 25 or (re.match(r"^\(?[a-z0-9]\)\s+\w", label) and own_words > 8):
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
            head = _fold(op.headings[-1][0])
            if head and head in _fold(label):
                op.headings.pop()
    return stop


def _fold(label: str) -> str:
    return label.lower().replace("\u2019", "'")


_SUMMED_ROWS = 40  # rows a printed total may add up, at most


def _covered(rows: list[Row], end: int, value: float, least: int = 2) -> tuple[int, list[Row]] | None:
    """The rows just above ``end`` that add up to ``value`` (first column): (index of the first
    row covered, the rows counted), a total counted once with the rows it adds up skipped (a
    printed total may add up one row: "Total shareholders' equity" under one line); None when
    no run of ``least`` or more does."""
    counted: list[Row] = []
    total = 0.0
    j = end - 1
    while j >= 0 and len(counted) < _SUMMED_ROWS:
        r = rows[j]
        v = r.cells[0].value if r.cells else None
        if v is None or r.unit != "currency":
            return None
        counted.append(r)
        total += v
        inner = _covered(rows, j, v, 1) if _fold(r.label).startswith("total") else None
        start = inner[0] if inner is not None else j
        if len(counted) >= least and abs(total - value) <= 0.5 * len(counted) + 1e-9:
            return start, counted
        j = start - 1
    return None


def _unlabelled_total(rows: list[Row], op: _Open, cells: list[tuple[str, float | None, bool, int, int]]) -> str | None:
    """The label of a row of figures printed without one, when the rows above add up to it: the
    total of the open colon heading's group when they all sit under it ("Total current
    assets"), else of the section above ("Total assets", "Total liabilities and shareholders'
    equity"); None otherwise (the row stays unread, as before)."""
    value = cells[0][1] if cells else None
    if value is None or not op.headings:
        return None
    found = _covered(rows, len(rows), value)
    if found is None:
        return None
    summed = found[1]
    head, colon = op.headings[-1]
    if colon and all(r.parent == head for r in summed):
        op.headings.pop()  # the group is closed by its total
        return f"Total {head[:1].lower()}{head[1:]}" if not head.isupper() else f"Total {head.lower()}"
    # the section the first row added up is printed under ("ASSETS" above "Total current assets")
    top = summed[-1].parent
    if not top or (top == head and colon):
        return None
    while op.headings and op.headings[-1][1]:
        op.headings.pop()
    return f"Total {top.lower()}"


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


# -- equity statements laid out by component columns --------------------------------------
# "Balances at November 28, 2014 ... 600,834 $ 61 $ 3,778,495 ..." under column headings such as
# "Common Stock / Shares Amount", "Retained Earnings", "Total": each row is a balance at a date
# or a change over the period up to the next balance row; each column is a component of equity.
_FULL_DATE = re.compile(rf"\b({MONTH_RE})\.?\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)\b", re.I)
_BALANCE_WORDS = re.compile(r"^(?:(?:ending|beginning|opening|closing)\s+)?(?:balances?)?[,\s]*(?:at|as\s+of)?[,\s]*$", re.I)


def _balance_date(label: str) -> str | None:
    """ISO date of a balance row ("Balances at November 27, 2015", "December 26, 2015")."""
    m = _FULL_DATE.search(label)
    if m is None or not _BALANCE_WORDS.match(label[: m.start()]) or label[m.end():].strip(" ,.:"):
        return None
    month = month_number(m.group(1))
    return f"{int(m.group(3)):04d}-{month:02d}-{min(int(m.group(2)), 31):02d}"


def _date_label_whole(p: _ParsedLine) -> _ParsedLine:
    """"December 29, 2012 713 $ 7 ...": the year read as a first cell belongs to the date label."""
    if len(p.cells) < 2 or not _is_year(p.cells[0][0]) or not re.search(r"[A-Za-z]\.?\s+\d{1,2},?$", p.label):
        return p
    year = p.cells[0]
    return _ParsedLine(p.line, f"{p.label} {year[0]}", (p.label_span[0], year[4]), p.cells[1:])


def _snap_months(days: int) -> int | None:
    months = days / 30.44
    best = min((3, 6, 9, 12), key=lambda m: abs(m - months))
    return best if abs(best - months) * 30.44 <= 12 else None


def _column_names(page: PageText, header: list[_Line], extents: list[tuple[float, float]]) -> list[str]:
    """Each column's heading, from the header words above it: a phrase over several columns
    ("Treasury Stock" over "Shares" and "Amount") belongs to each of them, and so do the
    phrases printed under it within its width ("Common Stock and Capital in" / "Excess of Par
    Value"). Words left of the columns (the scale, "Three Months Ended") are no heading."""
    centres = [(a + b) / 2 for a, b in extents]
    left_limit = extents[0][0] - 0.6 * min((b[0] - a[1] for a, b in itertools.pairwise(extents)), default=40.0) - 20
    parts: list[list[str]] = [[] for _ in extents]
    spans: list[tuple[float, float, list[int]]] = []  # spanning phrases of the lines above

    def phrases_of(line: _Line) -> list[tuple[str, float, float]]:
        phrases: list[tuple[str, float, float]] = []
        for tok in line.tokens:
            b = _box(page, tok.start, tok.end)
            if b is None:
                continue
            if phrases and b[0] - phrases[-1][2] <= max(2.5, 0.45 * (b[3] - b[1])):
                text, x0, _ = phrases[-1]
                phrases[-1] = (f"{text} {tok.text}", x0, b[2])
            else:
                phrases.append((tok.text, b[0], b[2]))
        return [(t, x0, x1) for t, x0, x1 in phrases
                if (x0 + x1) / 2 >= left_limit and not scale_of(t) and not _CONTINUED.fullmatch(t)
                and not re.search(r"unaudited", t, re.I)]

    rows = [phrases_of(line) for line in header]
    bottom = next((r for r in reversed(rows) if r), [])
    if len(bottom) == len(extents):
        # One heading per column on the last line ("Shares Amount Capital ... Total"): the
        # headings' centres place the columns better than right-aligned figures do.
        def nearest_column(x: float) -> int:
            return min(range(len(centres)), key=lambda j: abs(centres[j] - x))

        nearest = [nearest_column((ph[1] + ph[2]) / 2) for ph in bottom]
        if nearest == list(range(len(extents))):
            centres = [(ph[1] + ph[2]) / 2 for ph in bottom]
    for phrases in rows:
        line_spans = []
        for text, x0, x1 in phrases:
            covered = [j for j, c in enumerate(centres) if x0 - 2 <= c <= x1 + 2]
            if len(covered) < 2:
                centre = (x0 + x1) / 2
                under = [sp for sp in spans
                         if abs(centre - (sp[0] + sp[1]) / 2) <= max(6.0, 0.08 * (sp[1] - sp[0]))]
                covered = under[-1][2] if under else \
                    [min(range(len(centres)), key=lambda j: abs(centres[j] - (x0 + x1) / 2))]
            if len(covered) >= 2:
                line_spans.append((x0, x1, covered))
            for j in covered:
                parts[j].append(text)
        spans.extend(line_spans)
    return [" ".join(p) for p in parts]


def _component_equity(page: PageText, parsed: list[_ParsedLine], title_idx: int, stop: int, title: str,
                      scale_hint: str | None) -> Statement | None:
    """An equity statement whose columns are components and whose rows are dated balances and
    the changes between them; None when the page does not read that way."""
    if page.boxes is None:
        return None
    parsed = [_date_label_whole(p) for p in parsed]
    first = next((i for i in range(title_idx + 1, min(stop, title_idx + 16))
                  if len(parsed[i].cells) >= 3 and re.search(r"[A-Za-z]", parsed[i].label)), None)
    if first is None or _balance_date(_clean_label(parsed[first].label)) is None:
        return None
    end = stop
    for i in range(first, stop):
        if _END.search(parsed[i].line.text):
            end = i
            break
    body = [p for p in parsed[first:end] if len(p.cells) >= 3]
    n = max(len(p.cells) for p in body)
    full = [p for p in body if len(p.cells) == n]
    anchors = _anchors(page, full, n)
    if anchors is None or len(full) < 2:
        return None
    extents = []
    for j in range(n):
        boxes = [b for p in full if (b := _box(page, p.cells[j][3], p.cells[j][4])) is not None]
        extents.append((min(b[0] for b in boxes), max(b[2] for b in boxes)))
    header = [parsed[i].line for i in range(title_idx + 1, first)
              if not (_DURATION.search(parsed[i].line.text) and _YEAR.search(parsed[i].line.text))]
    names = _column_names(page, header, extents)
    if any(not name for name in names):
        return None
    scale = scale_of(" ".join(parsed[i].line.text for i in range(title_idx, first))) or scale_hint or "units"
    # rows: (label, label span, row start, parsed line)
    rows: list[tuple[str, tuple[int, int], int, _ParsedLine]] = []
    pending: tuple[str, tuple[int, int], int] | None = None
    for p in parsed[first:end]:
        text = p.line.text.strip()
        if not text or _FURNITURE.search(text):
            continue
        assigned = _assign(page, p, n, anchors) if p.cells else None
        if not assigned:
            label, span = _clean_label(text), (p.line.start, p.line.start + len(p.line.text.rstrip()))
            # a heading ("Common stock:") or a period ("Nine Months Ended") is not half a label
            heading = label.endswith(":") or (_DURATION.search(label) is not None and len(label.split()) <= 6)
            pending = None if heading else (
                (f"{pending[0]} {label}", (pending[1][0], span[1]), pending[2]) if pending else (label, span, p.line.start))
            continue
        label, span = _label_before(p.line, min(c[3] for _, c in assigned))
        row_start = p.line.start
        if pending is not None:
            label, span, row_start = f"{pending[0]} {label}".strip(), (pending[1][0], span[1]), pending[2]
            pending = None
        rows.append((label, span, row_start, p))
    dates = [_balance_date(r[0]) for r in rows]
    periods: list[Period] = []
    st = Statement("equity", title, page.number, scale, periods, [], [page.number])
    previous: tuple[str, str] | None = None  # (date, label) of the last balance row
    for k, (label, span, row_start, p) in enumerate(rows):
        date = dates[k]
        if date is not None:
            period_end, months, parent = date, 0, ""
            previous = (date, label)
        else:
            following = next((d for d in dates[k + 1:] if d is not None), None)
            if previous is None or following is None:
                continue  # a change with no dated balance before and after it: period unknown
            months_or_none = _snap_months(_days_between(previous[0], following))
            if months_or_none is None:
                continue
            period_end, months, parent = following, months_or_none, previous[1]
        period = next((q for q in periods if q.end == period_end and q.months == months), None)
        if period is None:
            y, mo, d = period_end.split("-")
            name = month_name(int(mo))
            phrase = "Balance at" if months == 0 else ("Year Ended" if months == 12 else f"{months} Months Ended")
            periods.append(Period(f"{phrase} {name} {int(d)}, {y}", period_end, months))
        cells = [Cell(period_end, months, c[0], c[1], page.number, (c[3], c[4]), _box(page, c[3], c[4]), names[j])
                 for j, c in sorted(_assign(page, p, n, anchors) or [], key=lambda x: x[0])]
        st.rows.append(Row(label, parent, page.number, (row_start, p.line.end), span, cells,
                           _row_unit(label, parent, [])))
    return st if len(st.rows) >= 3 and any(r.cells for r in st.rows) else None


# -- segment tables ------------------------------------------------------------------------
# Segment figures sit in a note ("Note 2 : Operating Segments", "SEGMENT INFORMATION") or are
# introduced by a sentence ("Information on reportable segments ... is as follows (in millions):").
# The note's tables run until the next note heading, at most onto the next page.
_SEGMENT_HEADING = re.compile(
    r"^(?:note\s+\d{1,2}\s*[:.\-\u2013\u2014]*\s*)?(?:[A-Za-z&,\-]+\s+){0,4}segments?(?:\s+[A-Za-z&,()\-]+){0,4}$", re.I)
_SEGMENT_INTRO = re.compile(r"\bsegments?\b[^.]*(?:as\s+follows|following\s+tables?|below)\b[^.]*[:.]?$", re.I)
_NOTE_HEADING = re.compile(r"^note\s+\d{1,2}\b|^\d{1,2}\.\s+[A-Z][A-Za-z ,&]{3,60}$", re.I)


def _segment_context(text: str) -> bool:
    t = text.strip()
    if not t or len(t) > 220:
        return False
    if len(t) <= 80 and _SEGMENT_HEADING.match(t) and not t.endswith("."):
        return True
    return bool(_SEGMENT_INTRO.search(t))


def _table_start(p: _ParsedLine) -> bool:
    """A short line that opens a column header ("Three Months Ended Six Months Ended", years)."""
    text = p.line.text.strip()
    if not text or len(text.split()) > 14 or text.endswith("."):
        return False
    return _is_header_line(p) or bool(_DURATION.search(text) and not p.cells)


def _segment_tables(page: PageText, parsed: list[_ParsedLine], start: int, stop: int, title: str,
                    scale_hint: str | None) -> list[Statement]:
    """The tables of a segment note between lines ``start`` and ``stop`` of a page."""
    out: list[Statement] = []
    i = start
    while i < stop:
        if not _table_start(parsed[i]):
            i += 1
            continue
        found = _find_header(parsed, i)
        if found is None or found[1] >= stop:
            i += 1
            continue
        h0, data0, year_line = found
        header = _parse_header([parsed[k].line for k in range(h0, data0)], "segment", year_line)
        if header is None:
            i = data0
            continue
        around = " ".join(parsed[k].line.text for k in range(max(start, h0 - 2), data0))
        scale = header.scale or scale_of(around) or scale_hint or "units"
        op = _Open(Statement("segment", title, page.number, scale, header.periods, [], [page.number]), header.years)
        end = _consume(page, parsed, _after_header(parsed, h0, data0), stop, op)
        if _columns_are_periods(op.statement):
            _segment_instants(op.statement)
            out.append(op.statement)
        i = max(end, data0)
    return out


_TRAILING_FIGURE = re.compile(r"(?<![\w.,])\(?\$?\d[\d,]*(?:\.\d+)?\)?%?$")
_POSITION = re.compile(r"\bassets\b|\bliabilit|property,?\s+(?:plant\s+)?and\s+equipment,?\s+net|\bgoodwill\b|"
                       r"\bbalances?\b|\binvestments?\s+in\b", re.I)
_FLOW = re.compile(r"depreciation|amortization|additions?|expenditures?|purchases?|impairment|acquisitions?|"
                   r"income|expense|revenue|sales|return\s+on|\bchange|\bturnover|\bgrowth|\baverage", re.I)


def _columns_are_periods(st: Statement) -> bool:
    """A note table read against period columns for real: at least three rows, no row whose
    label ends in a figure (figures beyond the columns, e.g. segments printed as columns)
    and no prose as a label."""
    if len(st.rows) < 3:
        return False
    for row in st.rows:
        if len(row.label.split()) > 15:
            return False
        last = row.label.split()[-1] if row.label.split() else ""
        if _TRAILING_FIGURE.fullmatch(last) and not _is_year(last.strip("()")):
            return False
    return True


def _segment_instants(st: Statement) -> None:
    """Rows of positions (segment assets, "Property, plant and equipment, net", balances) in a
    table with period columns are amounts at the column's end, not over its period."""
    for row in st.rows:
        if _POSITION.search(row.label) and not _FLOW.search(row.label) and not _OPENING_BALANCE.match(row.label):
            for c in row.cells:
                c.months = 0
    _balances_are_instants(st)


# the heading that opens a balance sheet's second half, and a row of that half
_LIABILITIES_HEAD = re.compile(r"^\s*(?:total\s+)?liabilities(?:,)?\s+(?:and|&)\s+(?:stockholders|shareholders|shareowners|"
                               r"owners)['\u2019]?\s+(?:equity|deficit)|^\s*current\s+liabilities\s*:?\s*$", re.I)
_LIABILITIES_ROW = re.compile(r"\bliabilities\b", re.I)


def _liabilities_follow(last: _Open, parsed: list[_ParsedLine]) -> int | None:
    """Where the rows of a balance sheet continued without its column header begin: the page
    opens (within its first lines) with "LIABILITIES AND STOCKHOLDERS' EQUITY" or "Current
    liabilities:", the balance sheet read so far has no liabilities row, and the rows below
    carry as many cells as its columns. None otherwise."""
    st = last.statement
    if st.kind != "balance" or any(_LIABILITIES_ROW.search(r.label) for r in st.rows):
        return None
    for i, p in enumerate(parsed[:6]):
        if _LIABILITIES_HEAD.match(p.line.text.strip()):
            rows = [q for q in parsed[i + 1:i + 8] if q.cells]
            if rows and all(len(q.cells) == len(st.periods) for q in rows[:3]):
                return i
            return None
    return None


def extract_statements(pages: Iterable[PageText]) -> list[Statement]:
    """Every primary statement found in ``pages`` (in page order)."""
    out: list[Statement] = []
    last: _Open | None = None  # the statement that may continue on the next page
    segment_note: tuple[str, int] | None = None  # (title, page) of the segment note being read
    for page in pages:
        lines = _lines(page)
        parsed = _data_lines(lines)
        titles = _titles(lines)
        scale_hint = scale_of(" ".join(ln.text for ln in lines[:15]))
        _segments_of_page(page, lines, parsed, titles, scale_hint, segment_note, out)
        segment_note = _segment_note_after(page, lines, titles, segment_note)
        continued = False
        if last is not None and (not titles or titles[0][0] > 3):
            # A continuation page: the same column header near the top, then rows.
            found = _find_header(parsed, 0, 14)
            if found is not None and found[2] is not None and [int(c[0]) for c in found[2].cells] == last.years:
                last.statement.pages.append(page.number)
                end = titles[0][0] if titles else len(parsed)
                _consume(page, parsed, _after_header(parsed, found[0], found[1]), end, last)
                continued = True
            elif (start := _liabilities_follow(last, parsed)) is not None:
                # an earnings release's balance sheet whose liabilities half is printed on the
                # next page under "LIABILITIES AND STOCKHOLDERS' EQUITY", without the column header
                last.statement.pages.append(page.number)
                _consume(page, parsed, start, titles[0][0] if titles else len(parsed), last)
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
                by_component = _component_equity(page, parsed, idx, stop, title, scale_hint) if kind == "equity" else None
                if by_component is not None:
                    out.append(by_component)
                last = None
                continue
            op, data0 = begun
            _consume(page, parsed, data0, stop, op)
            if len(op.statement.rows) >= 3:
                out.append(op.statement)
                last = op
            else:
                last = None
    for st in out:
        if st.kind == "equity" and any(not c.column for r in st.rows for c in r.cells):
            _balances_are_instants(st)
    return _merge_split([s for s in out if s.rows])


_CLOSING_BALANCE = re.compile(
    r"^(?:balances?,?\s+(?:at\s+|as\s+of\s+)?end\s+of\s+(?:the\s+)?(?:period|year|quarter)|ending\s+balances?|"
    r"balances?,?\s+(?:at\s+)?end\s+of\s+(?:the\s+)?(?:period|year|quarter)|"
    r"total\s+(?:(?:stockholders|shareholders|shareowners)['\u2019]?\s+)?(?:equity|deficit)(?:\s+\(deficit\))?)$", re.I)
_OPENING_BALANCE = re.compile(
    r"^(?:balances?,?\s+(?:at\s+|as\s+of\s+)?beginning\s+of\s+(?:the\s+)?(?:period|year|quarter)|beginning\s+balances?)$", re.I)


def _days_between(a: str, b: str) -> int:
    return (dt.date.fromisoformat(b) - dt.date.fromisoformat(a)).days


def _balances_are_instants(st: Statement) -> None:
    """In an equity statement (or a note table) laid out by period columns, a balance row is an amount at a date,
    not over the column's period: a closing balance (and the total equity line) is at the
    column's end, an opening balance at the end of the column before it (the same length);
    an opening balance with no such column is dropped rather than dated wrongly."""
    ends = {(p.end, p.months) for p in st.periods}
    for row in st.rows:
        if _CLOSING_BALANCE.match(row.label):
            for c in row.cells:
                c.months = 0
        elif _OPENING_BALANCE.match(row.label):
            kept = []
            for c in row.cells:
                earlier = sorted(e for e, m in ends if m == c.months and e < c.period_end
                                 and abs(_days_between(e, c.period_end) - 30.44 * m) <= 12)
                if earlier and c.months:
                    c.period_end, c.months = earlier[-1], 0
                    kept.append(c)
            row.cells = kept


def _segment_spans(lines: list[_Line], titles: list[tuple[int, StatementKind, str]], page_number: int,
                   note: tuple[str, int] | None) -> list[tuple[int, int, str]]:
    """(first line, stop line, title) of the parts of a page inside a segment note."""
    spans: list[tuple[int, int, str]] = []
    title_lines = {t[0] for t in titles}
    current = (0, note[0]) if note is not None and note[1] == page_number - 1 else None
    for i, ln in enumerate(lines):
        text = ln.text.strip()
        if i in title_lines or (_NOTE_HEADING.match(text) and not _segment_context(text)):
            if current is not None:
                spans.append((current[0], i, current[1]))
            current = None
            continue
        if _segment_context(text) and current is None:
            current = (i + 1, text.rstrip(":"))
    if current is not None:
        spans.append((current[0], len(lines), current[1]))
    return spans


def _segments_of_page(page: PageText, lines: list[_Line], parsed: list[_ParsedLine],
                      titles: list[tuple[int, StatementKind, str]], scale_hint: str | None,
                      note: tuple[str, int] | None, out: list[Statement]) -> None:
    for start, stop, title in _segment_spans(lines, titles, page.number, note):
        out.extend(_segment_tables(page, parsed, start, stop, title, scale_hint))


def _segment_note_after(page: PageText, lines: list[_Line], titles: list[tuple[int, StatementKind, str]],
                        note: tuple[str, int] | None) -> tuple[str, int] | None:
    """The segment note still open at the bottom of the page (it may go on to the next)."""
    spans = _segment_spans(lines, titles, page.number, note)
    if spans and spans[-1][1] == len(lines):
        return (spans[-1][2], page.number)
    return None


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
        lines = _lines(PageText(i + 1, t))
        if _titles(lines) or any(_segment_context(ln.text) for ln in lines):
            hits.update((i, i + 1))
    return sorted(h for h in hits if h < len(texts))
