"""Which column of a printed table a row's figure sits in, read from the page text alone.

A table row in the page text is one line ("Memberships at end of period 4,904 5,767 6,930
(863) (15)% (1,163) (17)%"); its columns are named by header lines above it ("2015 2014 2013
2015 vs. 2014 2014 vs. 2013", "Owned Leased(1) Total", "June 30, 2022 December 31, 2021
requirements(b) ..."). ``place_row`` pairs each cell of a row with its column: a period (its
year, quarter, date and length when the header says), a change between periods (and the
percentage printed beside it), a total, or a part of the whole (a sub-category such as
"Owned"). None when the header cannot be matched to the row's cells: the caller must then not
claim to know which column a figure came from.

Rows are split by ``statements.extract.split_row`` (the statements' own row reader), column
lengths by ``header_durations``, dates and quarters by ``domain.periods``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from desktop_rag.core.chunking import is_table_row
from desktop_rag.core.domain.numbers import scale_of
from desktop_rag.core.domain.periods import DATE_RE, find_periods, parse_date
from desktop_rag.core.statements.extract import header_durations, split_row

PERIOD, CHANGE, TOTAL, PART = "period", "change", "total", "part"


@dataclass(frozen=True)
class Column:
    kind: str  # PERIOD | CHANGE (a change between periods, or a percentage column) | TOTAL | PART
    label: str  # the header words as printed ("2015", "2015 vs. 2014", "Owned")
    year: int | None = None
    quarter: int | None = None
    date: date | None = None
    months: int | None = None  # 3/6/9/12, 0 for an instant ("As of"); None when the header does not say


@dataclass(frozen=True)
class PlacedCell:
    text: str
    value: float | None
    percent: bool
    column: Column


_YEAR_TEXT = r"(?:19|20)\d\d"
_ITEM = re.compile(
    rf"(?P<pair>(?:{_YEAR_TEXT}|'?\d\d)\s*(?:vs\.?|versus|v\.|compared\s+(?:to|with)|over)\s*(?:{_YEAR_TEXT}|'?\d\d)\b)"
    rf"|(?P<date>{DATE_RE.pattern})"
    r"|(?P<change>%\s*(?:change|chg\.?)|(?:increase|decrease|change|variance)s?(?:\s*/?\s*\(?(?:decrease|increase)\)?)?"
    r"|%(?=\s|$))"
    r"|(?P<quarter>\b[1-4]Q\s?'?\d\d\b|\bQ[1-4]\s?'?(?:\d\d){1,2}\b)"
    rf"|(?P<year>\b(?:fiscal\s+|FY\s?)?{_YEAR_TEXT}\b)"
    r"|(?P<word>\S+)",
    re.I,
)
_FOOTNOTE_MARK = re.compile(r"(?:\((?:[a-z]|\d{1,2}|[ivx]+)\))+$|\*+$")
_STUB_PUNCT = re.compile(r"^[\W_]+$")


def header_columns(line: str) -> list[Column] | None:
    """The columns one header line names, left to right; None when it names none. Words
    before the first period or change column head the row labels (the stub), not a column."""
    items: list[Column] = []
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
            items = [c for c in items if c.kind != PART]
            stub = False
    if not items:
        return None
    if stub:
        # no period or change column: a header of parts ("Owned Leased(1) Total"), each a
        # capitalised word, on a line without figures or sentence punctuation
        bare = " ".join(_FOOTNOTE_MARK.sub("", w) for w in line.split())
        if re.search(r"\d", bare) or line.rstrip().endswith((":", ".")) or len(items) < 2 or len(items) > 8:
            return None
        if any(" " in c.label or not c.label[0].isupper() for c in items):
            return None
    return items


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


def place_row(page_text: str, row_start: int, max_lines: int = 80) -> list[PlacedCell] | None:
    """The cells of the table row starting at ``row_start`` of ``page_text``, each with its
    column, read from the nearest header line above that fits the row (a line of periods first,
    else a line of parts). None when no header line above fits the row's cells."""
    found = read_row(page_text, row_start, max_lines)
    return found[0] if found else None


def read_row(page_text: str, row_start: int, max_lines: int = 80) -> tuple[list[PlacedCell], tuple[int, int]] | None:
    """``place_row``'s cells with the span (start, end in ``page_text``) of the header line
    their columns were read from."""
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


def segment_title(page_text: str, row_start: int) -> str:
    """The title of the table the row belongs to when it names one segment or division of the
    company ("Domestic DVD Segment" above "As of/ Year Ended December 31, Change"): its rows are
    that part's figures, not the company's. "" otherwise."""
    read = read_row(page_text, row_start)
    if read is None:
        return ""
    head_start = read[1][0]
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
