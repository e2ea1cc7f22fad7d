"""Which column of a printed table a row's figure sits in: the one reader of a table's column
headings, for the verifier (``place_row``) and the table-row retry (``period_tables``).

A table row in the page text is one line ("Memberships at end of period 4,904 5,767 6,930
(863) (15)% (1,163) (17)%"); its columns are named by header lines above it ("2015 2014 2013
2015 vs. 2014 2014 vs. 2013", "Owned Leased(1) Total", "June 30, 2022 December 31, 2021
requirements(b) ..."). One set of heading rules (``_ITEM``, ``header_columns``: periods, a
change between periods and the percentage printed beside it, a total, a part of the whole such
as "Owned") reads every heading line, and a row's cells are placed under them two ways:

- by position, wherever the page's character boxes are known (``period_tables``): a year line
  (years, perhaps beside change columns) under heading lines naming their lengths and ends,
  each cell going to the year printed above its right edge, so a change or percent column
  between the periods is never read as a period's figure, and a row that skips a column is
  still placed;
- from the page text alone where there are no boxes (a moved file, a table of parts and total
  the position reader does not read): the nearest header line above whose columns fit the
  row's cells.

None when neither fits the row: the caller must then not claim to know which column a figure
came from. Rows are split by the statements' own row reader (``statements.extract``), column
lengths by ``header_durations``, dates and quarters by ``domain.periods``.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from desktop_rag.core.domain.numbers import parse_cell, scale_of
from desktop_rag.core.domain.periods import DATE_RE, find_periods, parse_date
from desktop_rag.core.domain.terms import content_terms
from desktop_rag.core.domain.types import Document
from desktop_rag.core.ingest.chunking import is_table_row
from desktop_rag.core.ingest.pdf import PageText, extract_page, open_pdf
from desktop_rag.core.ingest.statements.model import Period, Statement
from desktop_rag.core.ingest.statements.table_reader import (
    _DURATION,
    _MONTH_DAY,
    _box,
    _consume,
    _data_lines,
    _Line,
    _lines,
    _Open,
    _parse_header,
    _ParsedLine,
    _right_edge,
    _split,
    _Token,
    header_durations,
    split_row,
)

log = logging.getLogger(__name__)

PERIOD, CHANGE, TOTAL, PART = "period", "change", "total", "part"
# a cell of a period table printed between the period columns, under no change heading: no
# period's figure, and no change the heading names either
OTHER = "other"


@dataclass(frozen=True)
class Column:
    kind: str  # PERIOD | CHANGE (a change between periods, or a percentage column) | TOTAL | PART | OTHER
    label: str  # the header words as printed ("2015", "2015 vs. 2014", "Owned")
    year: int | None = None
    quarter: int | None = None
    date: date | None = None
    months: int | None = None  # 3/6/9/12, 0 for an instant ("As of"); None when the header does not say
    part: str = ""  # the segment a column group is printed under ("Corporate & Investment Bank"), "" for the whole


@dataclass(frozen=True)
class PlacedCell:
    text: str
    value: float | None
    percent: bool
    column: Column


_YEAR_TEXT = r"(?:19|20)\d\d"
# The heading rules, one for every reader: a change between two years ("2015 vs. 2014", "21 vs.
# 20", "2015-2014"), a date, a change or percentage column ("% Change", "Percentage change",
# "Increase (Decrease)", "%"), a quarter ("2Q24"), a year ("2024", "Fiscal 2024", "FY2024"), or
# a word (a part's name, "Total", or the stub's heading before the first column).
_ITEM = re.compile(
    rf"(?P<pair>(?:{_YEAR_TEXT}|'?\d\d)\s*(?:vs\.?|versus|v\.|compared\s+(?:to|with)|over)\s*(?:{_YEAR_TEXT}|'?\d\d)\b"
    rf"|\b{_YEAR_TEXT}\s?[-\u2013]\s?{_YEAR_TEXT}\b"
    # "Versus 2014" of "2016 2015 2014 Versus 2015 Versus 2014" ("Change 2015" printed above)
    rf"|\b(?:vs\.?|versus)\s*{_YEAR_TEXT}\b)"
    rf"|(?P<date>{DATE_RE.pattern})"
    r"|(?P<change>%\s*(?:changes?|chg\.?)"
    r"|\(?(?:percent(?:age)?\s+)?(?:increase|decrease|change|variance)s?\)?(?:\s*/?\s*\(?(?:decrease|increase)\)?)?"
    r"|%(?=\s|$))"
    r"|(?P<quarter>\b[1-4]Q\s?'?\d\d\b|\bQ[1-4]\s?'?(?:\d\d){1,2}\b)"
    rf"|(?P<year>\b(?:fiscal\s+|FY\s?)?{_YEAR_TEXT}\b)"
    r"|(?P<word>\S+)",
    re.I,
)
_FOOTNOTE_MARK = re.compile(r"(?:\((?:[a-z]|\d{1,2}|[ivx]+)\))+$|\*+$")
_STUB_PUNCT = re.compile(r"^[\W_]+$")
# a word a heading line prints over the year line's columns without naming one ("Fiscal Fiscal
# Fiscal % Change" over "2015 2014 2013 2015-2014", "Percentage" over "... 2023 2022 Change")
_PERIOD_WORD = re.compile(r"^(?:fiscal|fy|percent|percentage)$", re.I)


def header_columns(line: str) -> list[Column] | None:
    """The columns one header line names, left to right; None when it names none. Words
    before the first period or change column head the row labels (the stub), not a column."""
    read = _heading(line)
    if read is None:
        return None
    _, items = read
    if not items:
        return None
    if not any(c.kind in (PERIOD, CHANGE) for c in items):
        # no period or change column: a header of parts ("Owned Leased(1) Total"), each a
        # capitalised word, on a line without figures or sentence punctuation
        bare = " ".join(_FOOTNOTE_MARK.sub("", w) for w in line.split())
        if re.search(r"\d", bare) or line.rstrip().endswith((":", ".")) or len(items) < 2 or len(items) > 8:
            return None
        if any(" " in c.label or not c.label[0].isupper() for c in items):
            return None
    return items


def _heading(line: str) -> tuple[list[str], list[Column]] | None:
    """The stub's words (before the first period or change column) and the columns of one
    heading line; a line without a period or change column is all columns (parts), no stub.
    None when a quarter cannot be read."""
    items: list[Column] = []
    stub_words: list[str] = []
    stub = True
    for m in _ITEM.finditer(line):
        kind = m.lastgroup
        text = m.group(0)
        if kind == "pair":
            items.append(Column(CHANGE, text))
        elif kind == "date":
            d = parse_date(text)
            items.append(Column(PERIOD, text, year=d.year if d else None, date=d))
        elif kind == "change":
            items.append(Column(CHANGE, text))
        elif kind == "quarter":
            found = find_periods(text).mentions
            if not found or not found[0].quarter:
                return None
            items.append(Column(PERIOD, text, year=found[0].year, quarter=found[0].quarter))
        elif kind == "year":
            items.append(Column(PERIOD, text, year=int(re.search(_YEAR_TEXT, text).group(0))))  # type: ignore[union-attr]
        else:
            word = _FOOTNOTE_MARK.sub("", text.strip(",;:$"))
            if not word or _STUB_PUNCT.match(word):
                continue
            if word.lower() == "total":
                items.append(Column(TOTAL, word))
            elif items and items[-1].kind == PART and not word[0].isupper():
                items[-1] = Column(PART, f"{items[-1].label} {word}")  # "ratio requirements"
            else:
                items.append(Column(PART, word))
            continue
        if stub:
            # the words before the first period/change column were the stub's heading
            stub_words = [w for c in items if c.kind == PART for w in c.label.split()]
            items = [c for c in items if c.kind != PART]
            stub = False
    return stub_words, items


def _names_periods_only(line: str) -> bool:
    """Every figure of the line belongs to a period or change heading ("2022 2021 22 vs. 21"):
    a header line, not a row of figures."""
    rest = " ".join(_FOOTNOTE_MARK.sub("", m.group(0)) for m in _ITEM.finditer(line) if m.lastgroup == "word")
    return not re.search(r"\d", rest)


def _align(cells: list[tuple[str, float | None, bool]], columns: list[Column], change_above: bool = False) -> list[Column] | None:
    """Each cell's column: one cell per column, a change column also taking the percentage
    printed after its amount ("(863) (15)%"). Columns left without a cell are allowed only at
    the end and only when they are change columns (a margin row has no change printed)."""
    if len(cells) == len(columns):
        return list(columns)
    periods = [c for c in columns if c.kind == PERIOD]
    if len(cells) == len(periods):
        # one cell per period and the change/requirement columns left blank ("CET1 capital
        # 12.2 % 13.0 % 12.2 % 13.0 %" under "2022 2021 Change 2022 2021 Change")
        return periods
    amounts = [j for j, c in enumerate(cells) if not c[2]]
    if len(amounts) == len(periods) and len(amounts) < len(cells) and (change_above or any(c.kind == CHANGE for c in columns)):
        # "Gross margin $ 35,259 $ 34,768 1% $ 69,929 $ 66,439 5%" under "2022 2021 2022 2021"
        # with "Percentage Change" printed above: the amounts are the periods', the
        # percentages the changes'
        it = iter(periods)
        return [next(it) if not c[2] else Column(CHANGE, "%") for c in cells]
    out: list[Column] = []
    i = 0
    for j, col in enumerate(columns):
        if i >= len(cells):
            return out if all(c.kind == CHANGE for c in columns[j:]) else None
        out.append(col)
        i += 1
        if col.kind == CHANGE and i < len(cells) and cells[i][2] and not cells[i - 1][2]:
            out.append(col)
            i += 1
    return out if i == len(cells) else None


_TOTAL_FIRST = re.compile(r"^total\b(?!\s+(?:net|revenue|sales|assets|liabilities|debt|cost|income|expenses?)\b)", re.I)
_TOTAL_LAST = re.compile(r"\btotal$", re.I)


def _total_at_edge(line: str, n: int) -> list[Column] | None:
    """"Total Less than 1 year 1-3 years ..." (a maturity table's header): the words between
    cannot be split into columns, but the total is the first column, or the last when the line
    ends with "Total"; the other columns are parts of it."""
    text = line.strip()
    if n < 2 or text.endswith((":", ".")) or len(text.split()) > 16:
        return None
    if _TOTAL_FIRST.match(text):
        rest = text[5:].strip()
        return [Column(TOTAL, "Total")] + [Column(PART, rest)] * (n - 1)
    if _TOTAL_LAST.search(text):
        rest = text[:-5].strip()
        return [Column(PART, rest)] * (n - 1) + [Column(TOTAL, "Total")]
    return None


def _is_prose(line: str) -> bool:
    """A sentence (the text introducing a table), not a wrapped row label: "Common stock ($0.01
    par value; 100,000 shares authorized; ..." runs long too but carries figures."""
    words = line.split()
    return (len(words) >= 6 and line.rstrip().endswith(".")) or (len(words) > 14 and not re.search(r"\d", line))


def _with_months(columns: list[Column], above: str) -> list[Column]:
    """The period columns' lengths from the duration words of the header ("Three Months Ended
    ... Nine Months Ended"), spread evenly over them; unchanged when they do not spread."""
    durations = [d for d, _ in header_durations(above)]
    if any(durations):
        durations = [d for d in durations if d]  # "As of or for the period ended" is no column's length
    out = [Column(c.kind, c.label, c.year, c.quarter, c.date, 3) if c.kind == PERIOD and c.quarter else c
           for c in columns]  # "2Q22" is a quarter whatever the header's "Six months ended" covers
    periods = [j for j, c in enumerate(out) if c.kind == PERIOD and not c.quarter]
    if not durations or not periods:
        return out
    k, n = len(durations), len(periods)
    if k == n:
        spread = durations
    elif n % k == 0:
        spread = [durations[i // (n // k)] for i in range(n)]
    else:
        return out
    for j, months in zip(periods, spread, strict=True):
        c = out[j]
        out[j] = Column(c.kind, c.label, c.year, c.quarter, c.date, months)
    return out


def place_row(page_text: str, row_start: int, max_lines: int = 80, boxed: PageText | None = None,
              annual: bool = False) -> list[PlacedCell] | None:
    """The cells of the table row starting at ``row_start`` of ``page_text``, each with its
    column: by position under a period table's year line when ``boxed`` (the same page with
    its character boxes) reads one holding the row, else from the nearest header line above
    that fits the row (a line of periods first, else a line of parts). None when neither fits
    the row's cells. ``annual``: an annual report's page (bare years are fiscal years)."""
    found = read_row(page_text, row_start, max_lines, boxed, annual)
    return found[0] if found else None


def read_row(page_text: str, row_start: int, max_lines: int = 80, boxed: PageText | None = None,
             annual: bool = False) -> tuple[list[PlacedCell], tuple[int, int]] | None:
    """``place_row``'s cells with the span (start, end in ``page_text``) of the heading their
    columns were read from."""
    if boxed is not None and boxed.boxes is not None and boxed.text == page_text:
        by_position = _place_by_position(boxed, row_start, annual)
        if by_position is not None:
            return by_position
    return _place_by_text(page_text, row_start, max_lines)


def _place_by_text(page_text: str, row_start: int, max_lines: int) -> tuple[list[PlacedCell], tuple[int, int]] | None:
    """The text reading: the nearest header line above whose columns fit the row's cells."""
    end = page_text.find("\n", row_start)
    row = page_text[row_start:end if end >= 0 else len(page_text)]
    _, cells = split_row(row)
    if not cells:
        return None
    lines = page_text[:row_start].split("\n")[:-1]
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    part_fit: tuple[list[Column], int] | None = None
    first = max(0, len(lines) - max_lines)
    for index in range(len(lines) - 1, first - 1, -1):
        text = lines[index].strip()
        if not text:
            continue
        if is_table_row(text) and not _names_periods_only(text):
            continue  # another row of the same table
        columns = header_columns(text)
        if columns is None or not any(c.kind in (PERIOD, CHANGE) for c in columns):
            if _is_prose(text):
                break  # the sentence introducing the table: no header above it belongs to the row
            if columns is None and part_fit is None:
                edge = _total_at_edge(text, len(cells))
                part_fit = (edge, index) if edge else None
            if columns is None or (scale_of(text) and not re.search(_YEAR_TEXT, text)):
                continue
        periods = any(c.kind in (PERIOD, CHANGE) for c in columns)
        above = "\n".join(lines[max(0, index - 3):index + 1]) if periods else ""
        change_above = any(m.lastgroup in ("change", "pair") for m in _ITEM.finditer(above))
        aligned = _align(cells, _with_months(columns, above) if periods else columns, change_above)
        if aligned is None:
            continue
        if periods:
            return ([PlacedCell(t, v, p, c) for (t, v, p), c in zip(cells, aligned, strict=True)],
                    (starts[index], starts[index] + len(lines[index])))
        if part_fit is None:
            part_fit = (aligned, index)
    if part_fit is not None:
        columns, index = part_fit
        return ([PlacedCell(t, v, p, c) for (t, v, p), c in zip(cells, columns, strict=True)],
                (starts[index], starts[index] + len(lines[index])))
    return None


_PART_TITLE = re.compile(r"\b(?:segments?|divisions?)\b", re.I)
_HEADER_WORDS = re.compile(r"\b(?:ended|months|weeks|quarter|as\s+of|change|total|(?:19|20)\d\d)\b", re.I)


def segment_title(page_text: str, row_start: int, boxed: PageText | None = None, annual: bool = False) -> str:
    """The title of the table the row belongs to when it names one segment or division of the
    company ("Domestic DVD Segment" above "As of/ Year Ended December 31, Change"): its rows are
    that part's figures, not the company's. "" otherwise."""
    read = read_row(page_text, row_start, boxed=boxed, annual=annual)
    return "" if read is None else segment_title_above(page_text, read[1][0])


def segment_title_above(page_text: str, head_start: int) -> str:
    """``segment_title`` of the table whose column heading starts at ``head_start``."""
    lines = page_text[:head_start].split("\n")[:-1]
    for line in reversed(lines[-4:]):
        text = line.strip()
        if not text or scale_of(text):
            continue
        if _HEADER_WORDS.search(text) and not _PART_TITLE.search(text):
            continue  # the header's upper lines ("As of/ Year Ended December 31, Change")
        if _PART_TITLE.search(text) and len(text.split()) <= 8 and not text.endswith((".", ":")):
            return text
        return ""
    return ""


# words of a part's heading that name no part: a maturity table's "Less than 1 year", "After 5
# years", and the "Segment" of "Domestic DVD Segment"
_NOT_A_PART_NAME = frozenset({"year", "month", "quarter", "day", "week", "less", "more", "than", "after", "before",
                              "within", "thereafter", "next", "beyond", "segment", "segments", "division",
                              "divisions"})


def part_name(part: str) -> set[str]:
    """The words that name a part (a segment's table title, column group or part column)."""
    return set(content_terms(part)) - _NOT_A_PART_NAME


def part_named(part: str, question_terms: set[str]) -> bool:
    """The question names the segment a table is titled by ("Domestic DVD Segment": it says
    "DVD" or "domestic"); its figures answer only such a question."""
    return bool(part_name(part) & question_terms)


def group_named(part: str, question_terms: set[str]) -> bool:
    """The question names the whole of a column group's segment ("Corporate & Investment Bank"),
    or the group is no segment's (""): a bank's segments side by side answer only for their own."""
    return part_name(part) <= question_terms


# -- the position reader: any table of period columns (MD&A, segment and note tables) ----------------
_SCALE_NOTE_FIRST = re.compile(r"^\s*\((?:\$\s*|dollars\s+|amounts\s+)?in\s+(?:thousands|millions|billions)[^)]*\)", re.I)
_FISCAL_YEARS = re.compile(r"\bfiscal\b", re.I)
_YEAR_TOKEN = re.compile(r"^(?:fy|fiscal)?'?((?:19|20)\d\d)$", re.I)


def _year_tokens(line: _Line) -> list[_Token] | None:
    """The year tokens of a table's year line ("2023 2022 Change 2023 2022 Change", "2021
    2020 2019 21 vs. 20 20 vs. 19", "(In millions, except percentages) 2023 2022 Change"):
    read by the heading rules, at least two years and nothing but change columns beside them
    (after a scale note); None for any other line."""
    note = _SCALE_NOTE_FIRST.match(line.text)
    rest = line.text[note.end():] if note else line.text
    read = _heading(rest)
    if read is None or read[0]:
        return None
    columns = read[1]
    if any(c.kind not in (PERIOD, CHANGE) or c.quarter or c.date for c in columns):
        return None
    skip = line.start + note.end() if note else line.start
    # the years of the period columns, not those of a change column's heading ("2021 vs. 2020")
    spans = [(skip + m.start(), skip + m.end()) for m in _ITEM.finditer(rest) if m.lastgroup == "year"]
    years = [t for t in line.tokens if any(a <= t.start < b for a, b in spans) and _YEAR_TOKEN.match(t.text.strip(","))]
    if len(years) < 2 or len(years) != sum(c.kind == PERIOD for c in columns):
        return None
    return years


def _column_heading(line: _Line) -> bool:
    """A line of a table's column heading above its year line ("Three Months Ended Six Months
    Ended", "April 1, March 26, April 1, March 26,", "(In millions) March 31, Change", "Fiscal
    Fiscal Fiscal % Change")."""
    text = line.text.strip()
    if not text or len(text.split()) > 16 or text.endswith((".", ":")):
        return False
    if _DURATION.search(text) or _MONTH_DAY.search(text) or scale_of(text):
        return True
    for m in _ITEM.finditer(text):
        if m.lastgroup in ("change", "pair") or (m.lastgroup == "year" and m.group(0).isdigit()):
            continue
        word = _FOOTNOTE_MARK.sub("", m.group(0).strip(",;:$"))
        if m.lastgroup == "word" and (not re.search(r"[A-Za-z]", word) or _PERIOD_WORD.match(word)):
            # "30, 30, 30, 30," (the days of "June" above), "$", "(1)", "Fiscal"
            continue
        return False
    return True


@dataclass
class PeriodTable:
    """A table of period columns read off one page: its rows and periods (``statement``) and
    where its column heading is printed (offsets in the page text, year line included)."""

    statement: Statement
    header: tuple[int, int]
    # the segment whose column group this is, when the heading prints several groups of the same
    # periods side by side under segment names (a bank's "Consumer & Community Banking Corporate
    # & Investment Bank ..." over "2022 2021 Change 2022 2021 Change ..."); "" for the whole
    part: str = ""


def period_tables(page: PageText, annual: bool = False) -> list[PeriodTable]:
    """Every table of the page whose columns are periods (kind "table"): a year line (years,
    perhaps beside change columns) under heading lines naming their lengths and ends ("Three
    Months Ended" / "March 31,"), then rows read as the statements' are (label, heading
    above it as parent). Each cell goes to the year whose right edge it shares, so change
    and percent columns between the periods are never read as a period's figure: this
    needs the page's character boxes, and a page without them gives no tables. ``title``
    is the text of the two lines above the column heading (the table's heading or the
    sentence introducing it). ``annual``: the page is an annual report's, where years printed
    alone over the columns ("2023 2022 Change") are its fiscal years; elsewhere a table needs
    period words ("Three Months Ended", "Fiscal") to be read."""
    if page.boxes is None:
        return []
    lines = _lines(page)
    parsed = _data_lines(lines)
    scale_hint = scale_of(" ".join(ln.text for ln in lines[:15]))
    out: list[PeriodTable] = []
    i = 0
    while i < len(lines):
        years = _year_tokens(lines[i])
        if years is None:
            i += 1
            continue
        h0 = i
        while h0 > 0 and i - h0 < 4 and _column_heading(lines[h0 - 1]):
            h0 -= 1
        # the years alone: "2015-2014" (a change column's heading) holds no column's year
        only_years = _Line(" ".join(t.text for t in years), lines[i].start, lines[i].index)
        year_line = _ParsedLine(only_years, "", (lines[i].start, lines[i].start), [])
        header_lines = [lines[k] for k in range(h0, i + 1)]
        header = _parse_header(header_lines, "segment", year_line)
        if header is None and (annual or _FISCAL_YEARS.search(" ".join(ln.text for ln in header_lines))):
            # "Fiscal Fiscal Fiscal % Change" over "2015 2014 2013 2015-2014": years, as a
            # statement's bare year columns are
            header = _parse_header(header_lines, "income", year_line)
        anchors = [_right_edge(page, t.start, t.end) for t in years]
        if header is None or len(header.periods) != len(years) or any(a is None for a in anchors):
            i += 1
            continue
        title_lines = [ln.text.strip() for ln in lines[max(0, h0 - 2):h0]]
        if len(title_lines) == 2 and title_lines[0].endswith("."):
            # the last line of the paragraph above ("... decreased diluted EPS by $1.15.") over
            # the table's own heading ("SEGMENT RESULTS OF OPERATIONS"): none of the table's words
            title_lines = title_lines[1:]
        title = " ".join(title_lines)
        scale = header.scale or scale_of(title) or scale_hint or "units"
        stop = next((k for k in range(i + 1, len(lines)) if _year_tokens(lines[k]) is not None), len(lines))
        groups = _column_groups(page, lines[h0:i], lines[i], years, header.periods)
        above = lines[h0 - 1].text.strip() if h0 > 0 else ""
        if groups is None and above and not above.endswith((".", ":")) and len(above.split()) <= 16 \
                and not re.search(r"\d", above):
            # the segments named on a line of their own over the year line ("Domestic pension
            # benefits International pension benefits Postretirement benefits" / "2022 2021 ...")
            groups = _column_groups(page, [lines[h0 - 1]], lines[i], years, header.periods)
        if groups is None:
            i += 1  # the same periods printed twice and no segment named over each: unreadable
            continue
        end = i + 1
        for part, first, count in groups:
            st = Statement("table", title, page.number, scale, header.periods[first:first + count], [], [page.number])
            op = _Open(st, header.years[first:first + count],
                       anchors=[a for a in anchors[first:first + count] if a is not None])
            end = max(end, _consume(page, parsed, i + 1, stop, op))
            if first:
                # a later group's row label is read up to its own first cell: cut the groups' before it
                for row in st.rows:
                    row.label = _label_words(row.label)
            if st.rows:
                out.append(PeriodTable(st, (lines[h0].start, lines[i].end), part))
        i = max(end, i + 1)
    return out


def _label_words(label: str) -> str:
    """A row's label without the cells printed after it ("Total net revenue $ 12,614 $ 12,760
    (1) %" -> "Total net revenue")."""
    words = label.split()
    cut = next((k for k, w in enumerate(words) if k and (w == "$" or (re.search(r"\d", w) and parse_cell(w)))),
               len(words))
    return " ".join(words[:cut])


# the words of a column heading that name a period, not a segment ("Three months ended June 30,")
_PERIOD_HEADING_WORD = re.compile(
    r"^(?:\(?in|millions|thousands|billions|except|ratios\)?|and|per|share|data|of|or|for|the|as|at|"
    r"ended|ending|months?|weeks?|quarters?|years?|fiscal|three|six|nine|twelve|"
    r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*)[,.;:)]*$", re.I)


def _column_groups(page: PageText, heading: list[_Line], year_line: _Line, years: list[_Token],
                   periods: list[Period]) -> list[tuple[str, int, int]] | None:
    """The groups of period columns a heading prints side by side, as (segment, first column,
    column count): one group of all the columns when no period repeats; when the same periods
    repeat (a bank's segments over "2022 2021 Change" three times), one group per repetition,
    named by the heading words printed over it (by their position on the page). None when the
    periods repeat and the words over each group cannot be read: the figures of different
    segments would be one period's."""
    keys = [(p.end, p.months) for p in periods]
    n = len(keys)
    if len(set(keys)) == n:
        return [("", 0, n)]
    size = next((m for m in range(1, n) if n % m == 0 and keys == keys[:m] * (n // m)), 0)
    if not size or len(set(keys[:size])) != size:
        return None
    spans: list[tuple[float, float]] = []
    for g in range(n // size):
        first = _box(page, years[g * size].start, years[g * size].end)
        last_token = years[(g + 1) * size - 1]
        # the group runs to its change columns: the year line's tokens up to the next group's first year
        nxt = years[(g + 1) * size].start if (g + 1) * size < n else year_line.end
        tail = [t for t in year_line.tokens if last_token.start <= t.start < nxt]
        last = _box(page, tail[-1].start, tail[-1].end) if tail else None
        if first is None or last is None:
            return None
        spans.append((first[0], last[2]))
    names: list[list[str]] = [[] for _ in spans]
    for line in heading:
        for t in line.tokens:
            if _PERIOD_HEADING_WORD.match(t.text) or re.search(r"\d", t.text):
                continue
            b = _box(page, t.start, t.end)
            if b is None:
                return None
            centre = (b[0] + b[2]) / 2
            g = min(range(len(spans)), key=lambda k: abs((spans[k][0] + spans[k][1]) / 2 - centre))
            lo, hi = spans[g]
            if lo - (hi - lo) <= centre <= hi + (hi - lo):
                names[g].append(t.text)
    if not all(any(w[0].isupper() for w in ws) for ws in names):
        return None
    parts = [" ".join(ws) for ws in names]
    if len(set(parts)) != len(parts):
        return None
    # the group headed "Total" is the whole, not a segment
    return [("" if part.lower() in ("total", "firmwide", "consolidated") else part, g * size, size)
            for g, part in enumerate(parts)]


# period tables read per page; the verifier asks for each quoted row of the same few pages
_TABLES: OrderedDict[tuple[int, str, bool], list[PeriodTable]] = OrderedDict()


def _tables_of(page: PageText, annual: bool) -> list[PeriodTable]:
    key = (page.number, page.text, annual)
    if key in _TABLES:
        _TABLES.move_to_end(key)
        return _TABLES[key]
    tables = period_tables(page, annual)
    _TABLES[key] = tables
    if len(_TABLES) > 32:
        _TABLES.popitem(last=False)
    return tables


def _period_column(p: Period, part: str = "") -> Column:
    """A period table's column as a placed cell's column: a date only when the heading prints
    its day ("Fiscal 2015" names none), the length as read from the heading."""
    end = date.fromisoformat(p.end)
    day_printed = bool(re.search(r"[A-Za-z]+\s+\d{1,2},", p.label))
    return Column(PERIOD, p.label, year=end.year, date=end if day_printed else None, months=p.months, part=part)


def _place_by_position(page: PageText, row_start: int, annual: bool) -> tuple[list[PlacedCell], tuple[int, int]] | None:
    """The row's cells under the period table of the page that holds the row, each a period's
    where it sits under the period's year, else a change column's (the year line or the
    heading above names one) or no period's (``OTHER``). None when no period table holds it."""
    end = page.text.find("\n", row_start)
    end = end if end >= 0 else len(page.text)
    parsed = _split(_Line(page.text[row_start:end], row_start, 0))
    if not parsed.cells:
        return None
    by_start: dict[int, tuple[Column, PeriodTable]] = {}
    for table in _tables_of(page, annual):
        heading = page.text[table.header[0]:table.header[1]]
        for row in table.statement.rows:
            periods = {(p.end, p.months): p for p in table.statement.periods}
            for cell in row.cells:
                if row_start <= cell.span[0] < end:
                    by_start[cell.span[0]] = (_period_column(periods[(cell.period_end, cell.months)], table.part), table)
    if not by_start:
        return None
    tables = [t for _, t in by_start.values()]
    heading = page.text[tables[0].header[0]:tables[0].header[1]]
    change = any(m.lastgroup in ("change", "pair") for m in _ITEM.finditer(heading))
    placed: list[PlacedCell] = []
    for text, value, percent, start, _ in parsed.cells:
        found = by_start.get(start)
        if found is not None:
            column = found[0]
        else:
            column = Column(CHANGE, "change") if change else Column(OTHER, "")
        placed.append(PlacedCell(text, value, percent, column))
    return placed, tables[0].header


def boxed_page(doc: Document, page: int, text: str) -> PageText | None:
    """The page read again from its PDF with character boxes, if the file is still where it
    was ingested from and gives the same canonical text as the stored page (else None: a
    moved or changed file gives no boxes, and the text reading alone)."""
    path = Path(doc.path)
    if not path.is_file():
        return None
    got = _boxed(str(path), path.stat().st_mtime_ns, page)
    return got if got is not None and got.text == text else None


@lru_cache(maxsize=16)
def _boxed(path: str, mtime_ns: int, page: int) -> PageText | None:
    try:
        pdf = open_pdf(Path(path))
    except Exception as exc:  # a moved, locked or broken file: no boxes
        log.debug("no boxes for %s: %s", path, exc)
        return None
    try:
        if not 1 <= page <= pdf.page_count:
            return None
        return extract_page(pdf[page - 1], with_boxes=True)
    except Exception as exc:
        log.debug("no boxes for %s p.%d: %s", path, page, exc)
        return None
    finally:
        pdf.close()
