"""The one home of period parsing: dates, fiscal years and quarters in file names, cover
pages, questions and follow-ups, and the labels shown for them.

A period is what a filing or a question *names*: "Q2 FY2024", "fiscal 2023", "the quarter
ended July 1, 2023". Fiscal years are the filer's own ("Nvidia's fiscal 2024 ends in
January 2024"); a calendar guess is only a fallback (see ``fiscal_year_for_end``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Protocol

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")
_MONTH_NUMBER = {name: i + 1 for i, name in enumerate(MONTH_NAMES)}
_MONTH_NUMBER.update({name[:3]: i + 1 for i, name in enumerate(MONTH_NAMES)})
_MONTH_NUMBER["sept"] = 9
# A month's full name (no abbreviation), to drop into a larger pattern.
MONTH_NAME_RE = "(?:" + "|".join(MONTH_NAMES) + ")"


def month_number(name: str) -> int:
    """A month as printed ("December", "Dec", "Sept") -> 1..12; KeyError for no month."""
    name = name.lower()
    return _MONTH_NUMBER[name[:4] if name.startswith("sept") else name[:3]]


def month_name(number: int) -> str:
    """1..12 -> "January".."December"."""
    return MONTH_NAMES[number - 1].capitalize()

# A month name or its abbreviation ("Dec.", "Sept"), case-insensitive when compiled with re.I.
MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
# "July 1, 2023", "Dec. 31, 2022", "December 31 2022", "1 July 2023", "2023-07-01".
DATE_RE = re.compile(
    rf"(?<![A-Za-z])(?P<m1>{MONTH_RE})\.?\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>(?:19|20)\d\d)(?!\d)"
    rf"|(?<!\d)(?P<d2>\d{{1,2}})\s+(?P<m2>{MONTH_RE})\.?,?\s+(?P<y2>(?:19|20)\d\d)(?!\d)"
    r"|(?<!\d)(?P<y3>(?:19|20)\d\d)-(?P<m3>\d\d)-(?P<d3>\d\d)(?!\d)",
    re.I,
)

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_ORD_RE = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_YEAR = r"(?:19|20)\d\d"


def full_year(text: str) -> int:
    """"23" -> 2023, "2023" -> 2023, "'98" -> 1998 (two digits from 50 up are last century's)."""
    return int(text) if len(text) == 4 else (1900 if int(text) >= 50 else 2000) + int(text)


def _date_of(m: re.Match[str]) -> date | None:
    try:
        if m.group("y3"):
            return date(int(m.group("y3")), int(m.group("m3")), int(m.group("d3")))
        month = m.group("m1") or m.group("m2")
        day = m.group("d1") or m.group("d2")
        year = m.group("y1") or m.group("y2")
        return date(int(year), month_number(month), int(day))
    except (ValueError, KeyError):
        return None


def parse_date(text: str) -> date | None:
    """The first date written in ``text`` ("July 1, 2023", "Dec. 31, 2022", "2023-07-01")."""
    for m in DATE_RE.finditer(text):
        d = _date_of(m)
        if d:
            return d
    return None


def find_dates(text: str) -> list[tuple[date, int, int]]:
    """Every date in ``text`` with its span."""
    out = []
    for m in DATE_RE.finditer(text):
        d = _date_of(m)
        if d:
            out.append((d, m.start(), m.end()))
    return out


# Period spellings folded to one token for BM25 (core/domain/terms.py normalises chunks and
# questions alike, on lower-cased text): "q3'23" -> "q3 2023", "fiscal year 23" -> "fy2023".
FY_TOKEN_RE = re.compile(r"\b(?:fy\s?|fiscal\s+(?:year\s+)?)'?(\d{4}|\d{2})\b")
QY_TOKEN_RE = re.compile(r"\bq([1-4])\s?'?(?:fy)?\s?(\d{4}|\d{2})\b")  # q3 2023, q3'23, q3fy23
FY_SHORT_RE = re.compile(r"\bFY\s?'?(\d{2}|\d{4})\b", re.I)  # "FY23" spelled out for the embedder


# A quarter's mention that means its fiscal year to date ("the first nine months of 2023" is
# the third quarter's year to date)
YEAR_TO_DATE = "year to date"
SECOND_HALF = "second half"  # the six months ending at the fiscal year's end ("2H22")
TRAILING = "trailing twelve months"  # "LTM", "TTM": the four quarters ending at a date
_YTD_WORDS = {1: "the first three months", 2: "the first half", 3: "the first nine months"}
_YTD_MONTHS = {1: "three months", 2: "six months", 3: "nine months", 4: "twelve months"}


# -- labels -------------------------------------------------------------------------------------
def period_label(fiscal_year: int | None, quarter: int | None = None) -> str:
    """"Q2 FY2024", "FY2023", or "" when the year is unknown."""
    if not fiscal_year:
        return ""
    return f"Q{quarter} FY{fiscal_year}" if quarter else f"FY{fiscal_year}"


class DatedColumn(Protocol):
    """A table column's period as a statement reads it (``statements.model.Period``)."""

    @property
    def label(self) -> str: ...  # the heading as printed, "Three Months Ended July 1, 2023"
    @property
    def end(self) -> str: ...  # ISO end date; "YYYY-12-31" when no day is printed
    @property
    def months(self) -> int: ...  # 3 | 6 | 9 | 12, 0 for an instant


# a month and its day ("July 1", "Dec. 31,"), the year maybe on a line of its own under it
_MONTH_DAY = re.compile(rf"(?<![A-Za-z]){MONTH_RE}\.?\s+\d{{1,2}}(?!\d)", re.I)
_LENGTH_WORDS = {3: "three months", 6: "six months", 9: "nine months", 12: "year"}


def column_period_name(column: DatedColumn, prose: bool = False) -> str:
    """A statement column's period as the app writes it.

    Compact, for formulas, their inputs and refusals: "FY2023", "3 months ended 2023-07-01",
    "2023-06-30". ``prose``, for a sentence of an answer: "in the three months ended July 1,
    2023", "as of June 30, 2023", and "in fiscal 2015" when the heading prints no day (none is
    claimed then: the end date is only the year's last day)."""
    year = int(column.end[:4])
    if not prose:
        if column.months == 0:
            return column.end
        return f"FY{year}" if column.months == 12 else f"{column.months} months ended {column.end}"
    if not _MONTH_DAY.search(column.label):
        return f"in fiscal {year}" if column.months == 12 else f"in {column.months} months of {year}"
    end = date.fromisoformat(column.end)
    day = f"{MONTH_NAMES[end.month - 1].capitalize()} {end.day}, {end.year}"
    if column.months == 0:
        return f"as of {day}"
    return f"in the {_LENGTH_WORDS.get(column.months, f'{column.months} months')} ended {day}"


def fiscal_year_for_end(period_end: date, fiscal_year_end_month: int | None = None) -> int:
    """The fiscal year a period ending on ``period_end`` belongs to, when the filing does
    not name it: the year in which the filer's fiscal year ends (52/53-week years end up to
    a week into the next month, so a few days of slack). Without a known fiscal year end,
    the calendar year of the (slack-adjusted) end date."""
    d = period_end - timedelta(days=7)
    if not fiscal_year_end_month:
        return d.year
    return d.year if d.month <= fiscal_year_end_month else d.year + 1


def fiscal_year_end_month_of(fiscal_year: int | None, fiscal_quarter: int | None, period_end: str) -> int | None:
    """The month a filer's fiscal year ends in, from what a filing says of itself: the fiscal
    year and quarter it reports and the date that period ends (Q2 FY2024 ending July 31, 2023:
    January). None when the three do not agree or are not known."""
    if not fiscal_year or not period_end:
        return None
    try:
        ends = date.fromisoformat(period_end)
    except ValueError:
        return None
    month = (ends - timedelta(days=7)).month
    if fiscal_quarter:
        month = (month - 1 + 3 * (4 - fiscal_quarter)) % 12 + 1
    return month if fiscal_year_for_end(ends, month) == fiscal_year else None


def calendar_quarter(period_end: date) -> int:
    """Calendar quarter of the middle of a three-month period ending on this date: Intel's
    quarter ending Oct 1 is Q3, Nvidia's ending July 30 is Q2 (May to July)."""
    d = period_end - timedelta(days=45)
    return (d.month - 1) // 3 + 1


# -- mentions in free text (questions, follow-ups, file names) ----------------------------------
@dataclass(frozen=True)
class PeriodMention:
    """One period named in a text, with the words as written (for follow-ups)."""

    text: str
    start: int
    end: int
    year: int | None = None
    quarter: int | None = None
    fiscal: bool = False  # named as a fiscal period ("FY2024", "fiscal 2023", "Q2 FY24")
    date: date | None = None  # "as of December 31, 2022", "the quarter ended July 1, 2023"
    span: str = ""  # "quarter" / "year" for "... ended <date>"; YEAR_TO_DATE for "the first nine months of 2023"


@dataclass
class QuestionPeriods:
    mentions: list[PeriodMention] = field(default_factory=list)
    latest: bool = False  # "latest 10-Q", "most recent quarter"

    @property
    def quarters(self) -> set[tuple[int, int]]:
        return {(m.year, m.quarter) for m in self.mentions if m.year and m.quarter}

    @property
    def years(self) -> set[int]:
        """Years named without a quarter: "FY2024", "fiscal 2023", "in 2021"."""
        return {m.year for m in self.mentions if m.year and not m.quarter and not m.date}

    @property
    def fiscal_years(self) -> set[int]:
        return {m.year for m in self.mentions if m.year and not m.quarter and m.fiscal}

    @property
    def dates(self) -> set[date]:
        return {m.date for m in self.mentions if m.date}

    @property
    def every_year(self) -> set[int]:
        """Every year a mention speaks of: a year's, a quarter's, a date's."""
        return self.years | {y for y, _ in self.quarters} | {d.year for d in self.dates}

    def __bool__(self) -> bool:
        return bool(self.mentions)

    def labels(self) -> list[str]:
        out: list[str] = []
        for m in self.mentions:
            if m.date:
                lab = m.date.isoformat()
            elif m.quarter:
                lab = f"Q{m.quarter} {'FY' if m.fiscal else ''}{m.year}"
            else:
                lab = f"{'FY' if m.fiscal else ''}{m.year}"
            if lab not in out:
                out.append(lab)
        return out


_Q = r"(?:fy|fiscal\s+(?:year\s+)?)"
# a day written the US way, month first: "6/30/23", "12/31/2022"
_US_DATE = r"(?<![\d/.])(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])/(?:(?:19|20)\d\d|\d\d)(?![\d/])"
# a day however a question writes it ("July 1, 2023", "2023-07-01", "7/1/23")
ANY_DATE_RE = re.compile(rf"{DATE_RE.pattern}|{_US_DATE}", re.I)
# a span's length as analysts write it before "ended": "nine months", "9 months", "9M", "39 weeks"
_SPAN_LENGTH = (r"(?:three|six|nine|twelve|3|6|9|12)[\s-]+months|[369]m|"
                r"(?:thirteen|13|twenty[-\s]six|26|thirty[-\s]nine|39|fifty[-\s]two|52|fifty[-\s]three|53)[\s-]+weeks")
# "the March quarter", "Sept qtr", "the June 2023 quarter", "the december quarter of 2022": a
# quarter named by the month it ends in ("may" only after "the": a verb otherwise)
_MONTH_NAMED_QUARTER = (
    rf"\b(?:the\s+)?(?P<m>(?:(?<=the\s)may|(?!may\b){MONTH_RE}))\.?(?:(?:\s+|-)'?(?P<y>{_YEAR}|\d\d))?\s+(?:fiscal\s+)?"
    rf"(?:quarter|qtr)(?![a-z])(?:\s+(?:of\s+|in\s+)?(?P<y2>{_YEAR}))?")
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # "the trailing nine months to sept 2023", "the six months through June '23", "nine months
    # to Oct-22": a span named by its length and the month it ends in (no day), read as ending
    # on that month's last day (a 52/53-week filer's end is within days of it)
    ("months_to", re.compile(
        rf"\b(?:(?:the|those|these)\s+)?(?:(?:trailing|first|last|past)\s+)?(?P<n>three|six|nine|twelve|3|6|9|12)\s*"
        rf"(?:months?|mos?\.?)\s+(?:to|through|thru|till|until|ended|ending)\s+(?:(?:the\s+)?end\s+of\s+)?"
        # a two-digit year only as "Oct-22" or "June '23" ("June 30" is a day)
        rf"(?P<m>{MONTH_RE})\.?(?:\s+(?P<y>{_YEAR})|(?:-|\s*')(?P<y2>\d\d))(?![0-9])(?!,?\s*(?:19|20)\d\d)", re.I)),
    # "the quarter ended July 1, 2023", "fiscal year ended January 29, 2023", "as of Dec. 31, 2022"
    ("ended", re.compile(
        # ("the quarter that ended ...", "Intel's quarter also ended ...")
        # (a length however written: "the 9M ended", "the 13 weeks ended", "the FY ended"; a
        # 52/53-week filer heads its columns in weeks)
        rf"\b(?P<what>{_SPAN_LENGTH}|(?:fiscal\s+)?quarter|(?:fiscal\s+)?year|fy|period)\s+"
        # ("the six months to June 30, 2023": a span of months named to its closing day)
        rf"(?:(?:that|which|also|too|likewise)\s+)?(?:ended|ending|(?<=months\s)(?:to|through|thru))\s+"
        rf"(?P<date>{DATE_RE.pattern}|{_US_DATE})",
        re.I)),
    ("asof", re.compile(rf"\b(?:as\s+of|at|on)\s+(?P<date>{DATE_RE.pattern})", re.I)),
    # a day written the US way: "at 6/30/23", "12/31/2022" (month first)
    ("asof", re.compile(r"(?:\b(?:as\s+of|at|on)\s+)?(?<![\d/.])(?P<date>(?P<nm>1[0-2]|0?[1-9])/(?P<nd>3[01]|[12]\d|0?[1-9])/"
                        r"(?P<ny>(?:19|20)\d\d|\d\d))(?![\d/])", re.I)),
    # "YE22", "FYE 2021", "year-end 2022": the filer's fiscal year of that number, whose 10-K
    # holds the balance at its close
    # ("FYE May-21", "fiscal year-end June 2022": the closing month written too)
    # ("FYE May 31, 2017": a day between the month and the year is no two-digit year)
    ("ye", re.compile(rf"(?<![a-z0-9])(?:fye|(?:fy|fiscal\s+)?(?:ye|year[-\s]end))[\s'-]*(?:{MONTH_RE}\.?[\s'-]*"
                      rf"(?:(?:3[01]|[12]\d|0?[1-9]),?\s+(?=(?:19|20)\d\d))?)?"
                      rf"(?P<y>{_YEAR}|\d\d)(?![0-9])(?!,?\s*(?:19|20)\d\d)", re.I)),
    # a fiscal quarter the sell-side way: "FQ2'23", "FQ1 2024", "F3Q23"
    ("qy", re.compile(rf"(?<![a-z0-9])(?P<fy>f)(?:q(?P<q>[1-4])|(?P<q2>[1-4])q)[\s_.'-]*(?P<y>{_YEAR}|\d\d)(?![0-9])", re.I)),
    # "second quarter of fiscal year 2024", "second fiscal quarter of 2023", "Q2 of fiscal 2024", "third quarter 2023"
    ("ordq", re.compile(
        rf"\b(?P<q>{_ORD_RE}|q[1-4])\s+(?P<fq>fiscal\s+)?(?:quarter|qtr)\s*(?:of\s+|in\s+)?(?:the\s+)?(?P<fy>{_Q})?\s*"
        rf"(?:(?P<y>{_YEAR})\b|['’](?P<ys>\d\d)(?![\d%]))",
        re.I)),
    ("ordq", re.compile(rf"\b(?P<q>q[1-4])\s+(?:of\s+)?(?P<fy>{_Q})\s*'?(?P<y>{_YEAR}|\d\d)\b", re.I)),
    # "the first nine months of 2023", "first half of fiscal 2024": the report whose year to
    # date that is (the third / second quarter's)
    ("ytd", re.compile(
        rf"\bfirst\s+(?P<n>three|six|nine|3|6|9)[\s-]+months\s+(?:of\s+)?(?P<fy>{_Q})?\s*'?(?P<y>{_YEAR}|(?<=['y\s])\d\d)\b"
        rf"|\b(?:first|front|1st)\s+(?P<half>half)\s+(?:of\s+)?(?P<fyh>{_Q})?\s*'?(?P<yh>{_YEAR}|(?<=['\s])\d\d(?![\d%.,]))\b"
        # "Q1-Q3 2023", "1Q-3Q23": the quarters from the year's first, its year to date
        rf"|(?<![a-z0-9])(?:q1|1q)\s*(?:-|–|to|through|thru)\s*(?:q(?P<qe>[23])|(?P<qe2>[23])q)[\s_.'/-]*(?P<fyq>fy)?[\s_.'/-]*"
        rf"(?P<yq>{_YEAR}|\d\d)(?![0-9])"
        # the sell side's "9M23", "6M 2023", "9M FY24": that many months of the year to date
        rf"|(?<![\w$.,])(?P<nm>[69])m[\s_.'/-]*(?P<fym>fy)?[\s_.'/-]*(?P<ym>{_YEAR}|\d\d)(?![0-9])", re.I)),
    # "fiscal '24 so far, i.e. the first three quarters", "the first two quarters of 2023": the
    # year to date of that many quarters (a year "so far" alone stays the year)
    ("ytd_year", re.compile(
        rf"(?<![a-z0-9])(?P<fy>{_Q})?\s*'?(?P<y>{_YEAR}|(?<=')\d\d)\s+(?:so\s+far|to\s+date|ytd)\b"
        rf"(?:[\s,;:(-]+(?:i\.?\s?e\.?,?|that\s+is,?|meaning)?\s*(?:the\s+)?first\s+(?P<n>two|three|2|3)\s+(?:fiscal\s+)?quarters)?"
        rf"|\b(?:the\s+)?first\s+(?P<n2>two|three|2|3)\s+(?:fiscal\s+)?quarters\s+(?:of\s+|in\s+)?(?P<fy2>{_Q})?\s*'?"
        rf"(?P<y2>{_YEAR}|(?<=')\d\d)\b", re.I)),
    # the sell side's half-years: "1H23", "H1 2023", "H1 FY24", "2H22", "second half of 2022"
    ("half", re.compile(
        rf"(?<![a-z0-9])(?:(?P<n>[12])h|h(?P<h>[12]))[\s_.'/-]*(?P<fy>fy)?[\s_.'/-]*(?P<y>{_YEAR}|\d\d)(?![0-9])"
        rf"|\b(?:the\s+)?(?:second|back|latter|2nd)\s+half\s+(?:of\s+)?(?P<fy2>{_Q})?\s*'?(?P<y2>{_YEAR}|(?<=['\s])\d\d(?![\d%.,]))\b",
        re.I)),
    # Q2 2023, Q2'23, Q2FY24, Q2-2023
    # "fiscal Q3 '23", "fiscal Q1 2024": a fiscal quarter with "fiscal" written before it
    ("qy", re.compile(rf"\b(?P<fy>fiscal)\s+(?:year\s+)?q(?P<q>[1-4])[\s_.'/-]*(?:fy)?[\s_.'/-]*(?P<y>{_YEAR}|\d\d)(?![0-9/])",
                      re.I)),
    # (a slash between them too: "Q4/FY21", "Q2/23")
    # ("Q1 CY23": a calendar quarter said to be one)
    ("qy", re.compile(rf"(?<![a-z0-9])q(?P<q>[1-4])[\s_.'/-]*(?:(?P<fy>fy)|cy)?[\s_.'/-]*(?P<y>{_YEAR}|\d\d)(?![0-9/])", re.I)),
    # 2023 Q2, 2023-Q2, FY2024 Q2, FY24 Q2
    ("yq", re.compile(rf"(?<![a-z0-9])(?:(?P<fy>fy|fiscal\s+)[\s_.'/-]*'?(?P<y2>\d\d)|(?P<fy4>fy|fiscal\s+)?[\s_.'/-]*(?P<y>{_YEAR}))"
                      rf"[\s_.'/-]*q(?P<q>[1-4])(?![0-9a-z])", re.I)),
    # 2Q23, 2Q 2023, 2QFY24
    # "fiscal 2Q23"
    ("nq", re.compile(rf"\b(?P<fy>fiscal)\s+(?:year\s+)?(?P<q>[1-4])q[\s_.'/-]*(?:fy)?[\s_.'/-]*(?P<y>{_YEAR}|\d\d)(?![0-9/])",
                      re.I)),
    ("nq", re.compile(rf"(?<![a-z0-9])(?P<q>[1-4])q[\s_.'/-]*(?:(?P<fy>fy)|cy)?[\s_.'/-]*(?P<y>{_YEAR}|\d\d)(?![0-9/])", re.I)),
    # FY2024, FY24, FY '24, fiscal 2023, fiscal year 2023, 2023 fiscal year
    ("fy", re.compile(rf"(?<![a-z0-9])(?:fy[\s_.-]*'?|fiscal\s+(?:year\s+)?'?)(?P<y>{_YEAR}|\d\d)(?![0-9])", re.I)),
    ("fy", re.compile(rf"\b(?P<y>{_YEAR})\s+fiscal\s+year\b", re.I)),
    # "CY22", "calendar 2022", "full-year 2022", "full year '22": the year, named as a whole
    ("year", re.compile(rf"(?<![a-z0-9])(?:cy|calendar\s+(?:year\s+)?|full[-\s]year\s+|(?:the\s+)?whole\s+(?:of\s+)?)"
                        rf"[\s'-]*(?P<y>{_YEAR}|\d\d)(?![0-9])", re.I)),
    ("year", re.compile(rf"\b(?P<y>{_YEAR})\s+(?:full[-\s]year|calendar\s+year)\b", re.I)),
    # a quarter named by its closing month with its year: "the June 2023 quarter", "March quarter 2023"
    # (the calendar quarter; ``month_quarter`` reads it for one filer's fiscal calendar)
    ("month_q", re.compile(_MONTH_NAMED_QUARTER, re.I)),
    # a day written in full without "as of" ("the same point, Dec 31 2021"): that instant
    ("date", DATE_RE),
    # a bare year: "in 2021", "2019 revenue"
    ("year", re.compile(rf"(?<![0-9$.,])(?P<y>{_YEAR})(?![0-9%]|,\d)")),
    # a year written short with its apostrophe: "end of '15", "back in '19" (not "the '90s")
    ("year", re.compile(r"(?<![\w'’$])['’](?P<y>\d\d)(?![\w'’%])")),
]
LATEST_RE = re.compile(
    r"\b(latest|most recent|newest|current|last)\s+(?:quarterly\s+|annual\s+)?(10-?q|10-?k|quarter|report|filing|period|fiscal year)\b",
    re.I,
)


# "the most recent quarter in the filings", "the latest quarter you've got", "the newest 10-Q on
# file": the latest period of a kind, with the words that say where (the library's filings)
_LATEST_WORDS = re.compile(
    rf"(?:\bthe\s+)?{LATEST_RE.pattern}"
    r"(?:\s+(?:(?:that\s+)?(?:you|u|we)(?:'ve|\s+have)?\s+(?:got|have|hold)|(?:in|on|of)\s+(?:the\s+)?"
    r"(?:filings?|library|file|record|reports?|documents?|10-?qs|10-?ks)|available|on\s+file))?", re.I)


@dataclass(frozen=True)
class LatestPeriod:
    """A period named as the latest of its kind ("the most recent quarter in the filings"):
    ``unit`` "quarter", "year" or "" (a report or period of either kind), with the words."""

    unit: str
    text: str


def latest_period(text: str) -> LatestPeriod | None:
    """The latest period ``text`` asks for by name, without naming it ("the latest quarter
    you've got"); None when it names none."""
    m = _LATEST_WORDS.search(text)
    if m is None:
        return None
    kind = m.group(2).lower()
    unit = ("quarter" if kind in ("quarter", "10-q", "10q") else "year" if kind in ("10-k", "10k", "fiscal year")
            else "")
    return LatestPeriod(unit, m.group(0).strip())


def latest_period_of(calendar: FiscalCalendar, unit: str = "") -> PeriodMention:
    """The latest period of ``unit`` a filer's library holds, from the calendar of its latest
    report (``metadata.fiscal_calendar``: that report's fiscal year and quarter, 4 for an
    annual one): its quarter (Q3 FY2024), or the latest fiscal year it completed."""
    fiscal = not calendar.calendar_year
    if unit == "year" or (not unit and calendar.quarter == 4):
        year = calendar.year if calendar.quarter == 4 else calendar.year - 1
        return PeriodMention("", 0, 0, year=year, fiscal=True)
    return PeriodMention("", 0, 0, year=calendar.year, quarter=calendar.quarter, fiscal=fiscal)


def find_periods(text: str) -> QuestionPeriods:
    """Periods named in a question, a follow-up or a file name, in order of appearance.
    Overlapping readings keep the first (most specific) pattern's."""
    taken: list[tuple[int, int]] = []
    mentions: list[PeriodMention] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for kind, rx in _PATTERNS:
        for m in rx.finditer(text):
            if not free(m.start(), m.end()):
                continue
            mention = _mention(kind, m)
            if mention is None:
                continue
            taken.append((m.start(), m.end()))
            mentions.append(mention)
    mentions.sort(key=lambda x: x.start)
    mentions = [_with_ytd_words(text, m) for m in mentions]
    # "the first six months of fiscal 2023, per the Q2 2023 10-Q": a year that a named
    # quarter already carries adds no period of its own
    quarter_years = {m.year for m in mentions if m.quarter}
    mentions = [m for m in mentions if m.quarter or m.date or m.year not in quarter_years]
    return QuestionPeriods(mentions, latest=bool(LATEST_RE.search(text)))


def without_periods(text: str) -> str:
    """``text`` with each period it names (``find_periods``) blanked to a space: the words left
    say what is asked of the period, or who filed for it."""
    for m in sorted(find_periods(text).mentions, key=lambda m: -m.start):
        text = text[:m.start] + " " + text[m.end:]
    return text


_YTD_AFTER = re.compile(r"\s*(?:ytd|year[-\s]to[-\s]date)\b", re.I)
_YTD_BEFORE = re.compile(r"\b(?:ytd|year[-\s]to[-\s]date)\s+(?:(?:through|thru|to|at)\s+)?$", re.I)


def _with_ytd_words(text: str, m: PeriodMention) -> PeriodMention:
    """A quarter with "YTD" beside it ("3Q23 YTD", "YTD Q3 2023") is its year to date."""
    if not m.quarter or m.span or m.date is not None:
        return m
    after = _YTD_AFTER.match(text, m.end)
    before = _YTD_BEFORE.search(text[:m.start])
    if after is None and before is None:
        return m
    start = before.start() if before is not None else m.start
    end = after.end() if after is not None else m.end
    return replace(m, text=text[start:end], start=start, end=end, span=YEAR_TO_DATE)


def months_to_month(text: str) -> list[PeriodMention]:
    """The spans ``text`` names by their length and closing month ("the trailing nine months to
    sept 2023"), each with its words (``mention_text`` writes it as filings head the column:
    "the nine months ended September 30, 2023")."""
    rx = next(p for k, p in _PATTERNS if k == "months_to")
    return [found for m in rx.finditer(text) if (found := _mention("months_to", m)) is not None]


def names_year_end(text: str) -> bool:
    """True when ``text`` is a year end written with its year ("YE22", "year-end 2022"): moved to
    another year, it stays a year end ("year-end 2021"), not the year alone."""
    rx = next(p for k, p in _PATTERNS if k == "ye")
    return bool(rx.fullmatch(text.strip()))


def _mention(kind: str, m: re.Match[str]) -> PeriodMention | None:
    text, start, end = m.group(0).strip(), m.start(), m.end()
    if kind == "months_to":
        name = m.group("m").lower()
        month = month_number(name)
        closing = full_year(m.group("y") or m.group("y2"))
        months = _STEP_WORDS[m.group("n").lower()]
        day = _add_months(date(closing, month, 1), 1) - timedelta(days=1)
        if months == 3:
            return PeriodMention(text, start, end, year=closing, date=day, span="quarter")
        if months == 12:
            return PeriodMention(text, start, end, year=closing, date=day, span=TRAILING)
        return PeriodMention(text, start, end, year=closing, date=day, span=YEAR_TO_DATE, quarter=months // 3)
    if kind == "ytd_year":
        n = m.group("n") or m.group("n2")
        so_far = full_year(m.group("y") or m.group("y2"))
        fiscal = bool(m.group("fy") or m.group("fy2"))
        if not n:
            return PeriodMention(text, start, end, year=so_far, fiscal=fiscal)
        return PeriodMention(text, start, end, year=so_far, quarter=3 if n in ("three", "3") else 2, fiscal=fiscal,
                             span=YEAR_TO_DATE)
    if kind == "ye":
        return PeriodMention(text, start, end, year=full_year(m.group("y")), fiscal=True)
    if kind == "date":
        d = _date_of(m)
        before = m.string[max(0, start - 30):start].lower()
        if d is None or _BUSINESS_DATE.search(before):
            return None
        return PeriodMention(text, start, end, year=d.year, date=d)
    if kind == "asof" and m.groupdict().get("nm"):
        try:
            d = date(full_year(m.group("ny")), int(m.group("nm")), int(m.group("nd")))
        except ValueError:
            return None
        return PeriodMention(m.group("date"), m.start("date"), end, year=d.year, date=d)
    if kind in ("ended", "asof"):
        d = parse_date(m.group("date")) or _us_date(m.group("date"))
        if d is None:
            return None
        span = ""
        quarters = None
        if kind == "ended":
            what = m.group("what").lower()
            months = _span_months(what)
            span = "quarter" if ("quarter" in what or months == 3) else "year" if (
                "year" in what or what == "fy" or months == 12) else ""
            if months in (6, 9):
                # "the nine months ended July 1, 2023": the year to date ending there, not an instant
                span, quarters = YEAR_TO_DATE, months // 3
        if kind == "asof":
            start = m.start("date")
            text = m.group("date")
        return PeriodMention(text, start, end, year=d.year, date=d, span=span, quarter=quarters,
                             fiscal="fiscal" in m.group(0).lower())
    if kind == "ordq":
        q = m.group("q").lower()
        quarter = int(q[1]) if q.startswith("q") else ORDINALS[q]
        fiscal = bool(m.groupdict().get("fy") or m.groupdict().get("fq"))
        return PeriodMention(text, start, end, year=full_year(m.group("y") or m.groupdict().get("ys") or ""),
                             quarter=quarter, fiscal=fiscal)
    if kind == "ytd":
        if m.group("qe") or m.group("qe2"):
            return PeriodMention(text, start, end, year=full_year(m.group("yq")), quarter=int(m.group("qe") or m.group("qe2")),
                                 fiscal=bool(m.group("fyq")), span=YEAR_TO_DATE)
        if m.group("nm"):
            return PeriodMention(text, start, end, year=full_year(m.group("ym")), quarter=int(m.group("nm")) // 3,
                                 fiscal=bool(m.group("fym")), span=YEAR_TO_DATE)
        if m.group("half"):
            return PeriodMention(text, start, end, year=full_year(m.group("yh")), quarter=2, fiscal=bool(m.group("fyh")),
                                 span=YEAR_TO_DATE)
        quarter = {"three": 1, "six": 2, "nine": 3, "3": 1, "6": 2, "9": 3}[m.group("n").lower()]
        return PeriodMention(text, start, end, year=full_year(m.group("y")), quarter=quarter, fiscal=bool(m.group("fy")),
                             span=YEAR_TO_DATE)
    if kind == "half":
        if m.group("y2"):
            return PeriodMention(text, start, end, year=full_year(m.group("y2")), quarter=4, fiscal=bool(m.group("fy2")),
                                 span=SECOND_HALF)
        first = (m.group("n") or m.group("h")) == "1"
        return PeriodMention(text, start, end, year=full_year(m.group("y")), quarter=2 if first else 4,
                             fiscal=bool(m.group("fy")), span=YEAR_TO_DATE if first else SECOND_HALF)
    if kind in ("qy", "nq"):
        return PeriodMention(text, start, end, year=full_year(m.group("y")), quarter=int(m.group("q") or m.group("q2")),
                             fiscal=bool(m.group("fy")))
    if kind == "yq":
        y = m.group("y") or m.group("y2")
        return PeriodMention(text.strip(" _.-"), start, end, year=full_year(y), quarter=int(m.group("q")),
                             fiscal=bool(m.group("fy") or m.group("fy4")))
    if kind == "fy":
        return PeriodMention(text, start, end, year=full_year(m.group("y")), fiscal=True)
    if kind == "month_q":
        year = m.group("y") or m.group("y2")
        if not year:
            return None  # the conversation's year: ``month_quarter``
        name = m.group("m").lower()
        month = month_number(name)
        return PeriodMention(text, start, end, year=full_year(year), quarter=(month - 1) // 3 + 1)
    listed = _DATE_LIST_TAIL.search(m.string[:start])
    if listed is not None and m.group("y").isdigit() and len(m.group("y")) == 4:
        # "as of January 31, 2017 and 2018", "December 31, 2022, 2021 and 2020": the day of the
        # list's first date in each year it lists (a filing's own heading style)
        first = parse_date(listed.group(0))
        if first is not None and not _BUSINESS_DATE.search(m.string[max(0, listed.start() - 30):listed.start()].lower()):
            try:
                d = first.replace(year=int(m.group("y")))
            except ValueError:  # February 29 of a year without it
                d = None
            if d is not None:
                return PeriodMention(text, start, end, year=d.year, date=d)
    before = m.string[max(0, start - 30):start].lower()
    if re.search(rf"\b{MONTH_RE}\.?,?\s*$", before):
        return None  # "in January 2023": a month of the business, not a period of report
    if _BUSINESS_DATE.search(before) and not _RANGE_END.search(before):
        return None  # "notes due 2026", "by 2030": a date in the business, not the period asked
    return PeriodMention(text, start, end, year=full_year(m.group("y")))


def _span_months(what: str) -> int:
    """The months a span's length words name ("nine months", "9M", "39 weeks" -> 9); 0 for a
    quarter, year or period named by its word."""
    found = re.match(r"(\w+(?:[-\s]\w+)?)[\s-]+weeks|(\w+)[\s-]+months|([369])m$", what)
    if found is None:
        return 0
    if found.group(1):
        weeks = _WEEK_WORDS.get(re.sub(r"[-\s]+", "", found.group(1)), 0)
        return 12 if weeks >= 52 else round(weeks / 13) * 3
    return _STEP_WORDS.get(found.group(2) or found.group(3), 0)


_WEEK_WORDS = {"thirteen": 13, "13": 13, "twentysix": 26, "26": 26, "thirtynine": 39, "39": 39, "fiftytwo": 52,
               "52": 52, "fiftythree": 53, "53": 53}


def _us_date(text: str) -> date | None:
    """A day written month first ("6/30/23"), or None."""
    found = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})", text.strip())
    if found is None:
        return None
    try:
        return date(full_year(found.group(3)), int(found.group(1)), int(found.group(2)))
    except ValueError:
        return None


# A written date followed by a list of bare years up to here: "January 31, 2017 and ", "Dec. 31,
# 2022, 2021 and " (the next bare year is the same day of that year).
_DATE_LIST_TAIL = re.compile(
    rf"(?<![A-Za-z])(?P<m1>{MONTH_RE})\.?\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>(?:19|20)\d\d)"
    r"(?:\s*(?:,|and|or|&)\s*(?:19|20)\d\d)*,?\s*(?:,|and|or|&)\s*$", re.I)
# the end of a range of years whose start is written just before: "2014 through 2016", "fiscal
# 2016 until 2018" (a period asked, not a date of the business)
_RANGE_END = re.compile(r"(?:19|20)\d\d\s+(?:through|thru|until|till)\s*$")
_BUSINESS_DATE = re.compile(r"\b(?:due|matur\w*|through|until|till|by|expir\w*|beyond|after|thereafter|before|since|"
                            r"notes?|bonds?|debentures?|plan|act|vision|agenda|target|goal)\s*(?:in\s+|on\s+)?$")


def period_phrase(text: str) -> str:
    """The first period named in ``text`` as written ("fiscal 2024", "3Q23"), or ""."""
    found = find_periods(text)
    return found.mentions[0].text if found.mentions else ""


# -- cover pages ---------------------------------------------------------------------------------
_COVER_END = re.compile(
    rf"(?P<what>quarterly\s+period|fiscal\s+quarter|fiscal\s+year|transition\s+period|period|year)\s+ended:?\s+"
    # two-column covers put other words between the label and the date (JPMorgan)
    rf"(?:[A-Za-z ]{{0,40}}\n)?(?P<date>{DATE_RE.pattern})"
    rf"|date\s+of\s+report[^:\n]{{0,60}}:\s*(?P<report>{DATE_RE.pattern.replace('?P<', '?P<r')})"
    # the date over its label: "January 4, 2023 / Date of Report (date of earliest event reported)"
    rf"|(?P<report_above>{DATE_RE.pattern.replace('?P<', '?P<a')})\s*\n\s*date\s+of\s+report\b",
    re.I,
)
# "Second Quarter of Fiscal Year 2024", "first quarter of fiscal 2023"
COVER_FISCAL_QUARTER = re.compile(
    rf"\b(?P<q>{_ORD_RE})\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?fiscal\s+(?:year\s+)?(?P<y>{_YEAR})\b", re.I)
_FOOTER_QUARTER = re.compile(rf"\bQ(?P<q>[1-4])\s+(?:FY\s?)?(?P<y>{_YEAR})\s+Form\s+10-Q", re.I)  # Apple's footer
_FISCAL_YEAR_NAMED = re.compile(rf"\bfiscal\s+(?:year\s+)?(?P<y>{_YEAR})\b", re.I)
_FYE_MONTH = re.compile(
    rf"(?:fiscal\s+year\s+end(?:s|ed|ing)?|fiscal\s+year\s+ends?\s+on)[\s:]*(?:on\s+)?(?:the\s+)?(?:last\s+\w+\s+(?:of|in)\s+|\w+\s+nearest\s+)?(?P<m>{MONTH_RE})",
    re.I,
)


@dataclass
class CoverPeriod:
    """What a filing says about the period of the report."""

    period_end: date | None = None
    annual: bool | None = None  # True: fiscal year ended; False: quarterly period ended
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    fiscal_year_named: bool = False  # the filing itself names the fiscal year


_YTD = re.compile(
    rf"\b(?P<a>three|six|nine|twelve|3|6|9|12)\s+(?:and\s+(?P<b>six|nine|twelve|6|9|12)\s+)?months\s+ended\s+(?P<date>{DATE_RE.pattern})",
    re.I,
)
_MONTH_WORDS = {"three": 3, "six": 6, "nine": 9, "twelve": 12, "3": 3, "6": 6, "9": 9, "12": 12}


def year_to_date_months(text: str, period_end: date) -> int | None:
    """How far into its fiscal year a quarterly report is: the longest "N months ended
    <period end>" column (3 = first quarter, 6 = second, 9 = third). Every 10-Q reports the
    year to date, whatever the filer's fiscal calendar."""
    counts: dict[int, int] = {}
    for m in _YTD.finditer(text):
        d = parse_date(m.group("date"))
        if d is None or abs((d - period_end).days) > 7:
            continue
        months = max(_MONTH_WORDS[m.group("a").lower()], _MONTH_WORDS.get((m.group("b") or "").lower(), 0))
        if months < 12:
            counts[months] = counts.get(months, 0) + 1
    # the longest column that is more than a stray mention (a bank's Q1 10-Q may cite a
    # "nine months ended" figure of another filing a few times among eighty headings)
    total = sum(counts.values())
    usual = [months for months, n in counts.items() if n >= 0.1 * total]
    return max(usual) if usual else None


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    return date(d.year + y, m + 1, min(d.day, 28))


def cover_period(cover: str, form_type: str = "", body: str = "") -> CoverPeriod:
    """Period of the report from a filing's cover page (``cover``) and, for the fiscal
    calendar, the rest of its text (``body``). The fiscal year is the one the filing names
    ("Second Quarter of Fiscal Year 2024"); else the year its fiscal year ends in: a 10-K
    for the year ended Jan 29, 2023 is FY2023, a 10-Q whose longest column is "six months
    ended July 30, 2023" is Q2 of the fiscal year ending six months later (FY2024)."""
    out = CoverPeriod()
    text = cover + "\n" + body
    m = _COVER_END.search(cover[:20000])
    if m and (m.group("report") or m.group("report_above")):  # an 8-K: the date of the event reported
        out.period_end = parse_date(m.group("report") or m.group("report_above"))
        out.fiscal_year = out.period_end.year if out.period_end else None
        reported = released_quarter(text)
        if reported:
            # an earnings release is the report of a quarter: labelled with it, questions
            # about that quarter find it ("Q1 2022"), not only its filing date
            out.fiscal_year, out.fiscal_quarter = reported.fiscal_year, reported.fiscal_quarter
            out.period_end = reported.period_end or out.period_end
            out.annual, out.fiscal_year_named = False, True
        return out
    if form_type == "earnings":
        # a press release of results: its quarter and the date that quarter ended, as it
        # says them ("first quarter fiscal 2024 ended April 30, 2023") or as its statements
        # head their columns ("Quarters Ended March 26, 2023")
        release = release_period(text)
        if release:
            out.fiscal_year, out.fiscal_quarter = release.fiscal_year, release.fiscal_quarter
            out.period_end, out.annual, out.fiscal_year_named = release.period_end, False, True
            return out
    if m:
        out.period_end = parse_date(m.group("date"))
        what = m.group("what").lower()
        out.annual = "year" in what if "quarter" not in what else False
    if form_type == "10-K":
        out.annual = True
    elif form_type == "10-Q":
        out.annual = False
    if out.period_end is None:
        if out.annual is not True:
            named = _named_quarter(text)
            if named:
                out.fiscal_year, out.fiscal_quarter = named
                out.fiscal_year_named = True
                return out
        fm = _FISCAL_YEAR_NAMED.search(text)
        if fm:
            out.fiscal_year = int(fm.group("y"))
            out.fiscal_year_named = True
        return out
    if out.annual:
        # The filing's own name for the year, when it calls the year ended early in a
        # calendar year by the previous year (some retailers).
        out.fiscal_year = _named_fiscal_year(text, out.period_end) or fiscal_year_for_end(out.period_end)
        out.fiscal_year_named = out.fiscal_year != fiscal_year_for_end(out.period_end)
        return out
    ytd = year_to_date_months(text, out.period_end)
    if ytd:
        out.fiscal_quarter = max(1, min(4, round(ytd / 3)))
        out.fiscal_year = (_add_months(out.period_end, 12 - ytd) - timedelta(days=7)).year
        # the year-to-date column is the filer's own count; a named quarter only confirms it
        # (10-Qs also name the prior year's quarter in comparisons)
        out.fiscal_year_named = _named_quarter(text, out.fiscal_quarter, out.fiscal_year) is not None
        return out
    out.fiscal_year = fiscal_year_for_end(out.period_end)
    out.fiscal_quarter = calendar_quarter(out.period_end)
    # Without a year-to-date column: a running footer ("Q2 2023 Form 10-Q") names the
    # quarter; prose naming quarters also names prior ones, so it must agree with the calendar.
    footer = _named_quarter(text, footer_only=True)
    named = footer or _named_quarter(text, out.fiscal_quarter)
    if named:
        out.fiscal_year, out.fiscal_quarter = named
        out.fiscal_year_named = True
    return out


# Item 2.02 of Form 8-K ("Results of Operations and Financial Condition") furnishes an
# earnings release; other items (a vote, a new officer) report events, not a period.
_RESULTS_ITEM = re.compile(r"\bitem\s*2\.02\b", re.I)
# "first quarter ended April 30, 2022", "first quarter of fiscal 2022 results", "Reports Q1 2022 Results"
_RELEASE_QUARTER = re.compile(
    rf"\b(?:(?P<q>{_ORD_RE})[\s-]+quarter|Q(?P<qn>[1-4]))\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<y>{_YEAR})?,?\s*"
    rf"(?:(?:financial\s+|operating\s+)?results|(?:ended|ending)\s+(?P<date>{DATE_RE.pattern.replace('?P<', '?P<e')}))",
    re.I)


@dataclass(frozen=True)
class ReleasedQuarter:
    fiscal_year: int
    fiscal_quarter: int
    period_end: date | None


def released_quarter(text: str) -> ReleasedQuarter | None:
    """The quarter an 8-K's earnings release reports, from its own words ("Foot Locker, Inc.
    Reports First Quarter 2022 Results", "for the first quarter ended April 30, 2022"): the
    quarter it names most often, with the year it names (the filer's fiscal label) and the
    date that quarter ended. None unless the 8-K furnishes results (Item 2.02)."""
    if not _RESULTS_ITEM.search(text):
        return None
    return release_period(text)


# "results for the third quarter of fiscal 2024", "Financial Results for Third Quarter Fiscal 2024"
_RESULTS_FOR_QUARTER = re.compile(
    rf"\bresults\s+for\s+(?:the\s+|its\s+)?(?P<q>{_ORD_RE})[\s-]+quarter\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?"
    rf"(?P<y>{_YEAR})?", re.I)
# the end of the quarter a release reports, as its prose or its statements' columns say it:
# "quarter ended March 31, 2023", "Quarters Ended March 26, 2023 and ...", "Three Months Ended",
# "12 Weeks Ended November 20, 2022"
_QUARTER_ENDED = re.compile(
    rf"\b(?:quarters?|three\s+months|(?:twelve|thirteen|fourteen|sixteen|twelve|1[2-6])[\s-]+weeks)\s+ended:?\s*"
    rf"(?:\([^)]{{0,30}}\)\s*)?(?P<date>{DATE_RE.pattern})", re.I)


def release_period(text: str) -> ReleasedQuarter | None:
    """The quarter a release of results reports and the date it ended: the quarter it names
    most often with results ("Reports First Quarter 2023 Results", "second-quarter 2023
    results", "first quarter fiscal 2024 ended April 30, 2023"), the fiscal year it names
    beside that quarter when the quarter's end allows it (a filer's fiscal year ends within
    the year after the quarter ends), else the year that end implies; the end is the date its
    prose or its statements' columns give for the quarter ("Quarters Ended March 26, 2023"),
    the most often printed, the latest of those. None when it names no quarter."""
    counts: dict[tuple[int, int | None], int] = {}
    ends: dict[int, date] = {}
    for rx in (_RELEASE_QUARTER, _RESULTS_FOR_QUARTER):
        for m in rx.finditer(text):
            q = int(m.group("qn")) if "qn" in rx.groupindex and m.group("qn") else ORDINALS[m.group("q").lower()]
            end = parse_date(m.group("date")) if "date" in rx.groupindex and m.group("date") else None
            year = int(m.group("y")) if m.group("y") else None
            if end and q not in ends:
                ends[q] = end
            counts[(q, year)] = counts.get((q, year), 0) + 1
    if not counts:
        return None
    # the quarter named most often (a release compares with last year's same quarter, and
    # names it less); a year named beside it wins over an unnamed one
    best_q = max({q for q, _ in counts}, key=lambda q: sum(n for (k, _), n in counts.items() if k == q))
    dated: dict[date, int] = {}
    for m in _QUARTER_ENDED.finditer(text):
        d = parse_date(m.group("date"))
        if d:
            dated[d] = dated.get(d, 0) + 1
    end = ends.get(best_q)
    if end is None and dated:
        end = max(dated, key=lambda d: (dated[d], d))
    years = {y: n for (k, y), n in counts.items() if k == best_q and y}
    implied = (_add_months(end, 12 - 3 * best_q) - timedelta(days=7)).year if end else None
    if implied is not None:
        # a filer labels its year by the calendar year it ends in, or (some retailers) begins in
        years = {y: n for y, n in years.items() if y in (implied, implied - 1)}
    if years:
        year = max(years, key=lambda y: (years[y], y))
    elif implied is not None:
        year = implied
    else:
        return None
    return ReleasedQuarter(year, best_q, end)


def _named_quarter(text: str, quarter: int | None = None, year: int | None = None,
                   footer_only: bool = False) -> tuple[int, int] | None:
    """The (fiscal year, quarter) a filing names most often ("second quarter of fiscal
    2024", Apple's "Q3 2023 Form 10-Q" footer), restricted to ``quarter``/``year`` when given."""
    counts: dict[tuple[int, int], int] = {}
    for rx in (_FOOTER_QUARTER,) if footer_only else (COVER_FISCAL_QUARTER, _FOOTER_QUARTER):
        for fm in rx.finditer(text):
            if rx is _FOOTER_QUARTER and len(_line_at(text, fm.start())) > 80:
                continue  # a running footer is a short line; "(as updated by our Q1 2022 Form 10-Q)" is prose
            q = fm.group("q").lower()
            key = (int(fm.group("y")), int(q) if q.isdigit() else ORDINALS[q])
            if (quarter is None or key[1] == quarter) and (year is None or key[0] == year):
                counts[key] = counts.get(key, 0) + 1
    if not counts:
        return None
    return max(counts, key=lambda k: (counts[k], k))


def _line_at(text: str, pos: int) -> str:
    """The line of ``text`` that holds position ``pos``."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else len(text)]


def _named_fiscal_year(text: str, period_end: date) -> int | None:
    """"fiscal 2022" printed near "year ended January 29, 2023" (the only other year a
    filing may call the year that ends early in the next calendar year)."""
    if period_end.month > 2:
        return None
    end_year = fiscal_year_for_end(period_end)
    counts: dict[int, int] = {}
    for m in _FISCAL_YEAR_NAMED.finditer(text[:60000]):
        y = int(m.group("y"))
        if y in (end_year, end_year - 1):
            counts[y] = counts.get(y, 0) + 1
    if counts.get(end_year - 1, 0) > 2 * counts.get(end_year, 0) + 2:
        return end_year - 1
    return None


def fiscal_year_end_month(text: str) -> int | None:
    """Month the filer's fiscal year ends in, when the text says so ("fiscal year ends on
    the last Sunday in January", "Fiscal Year End: 0131", "fiscal year ending January 28, 2024")."""
    m = _FYE_MONTH.search(text)
    if m:
        return _MONTH_NUMBER.get(m.group("m").lower()[:3])
    m = re.search(r"fiscal\s+year\s+end(?:ing)?[\s:]*(?P<m>[01]\d)(?P<d>[0-3]\d)\b", text, re.I)
    if m and 1 <= int(m.group("m")) <= 12:
        return int(m.group("m"))
    return None


# -- file names ----------------------------------------------------------------------------------
_FILE_YEAR = re.compile(rf"(?<!\d)(?P<y>{_YEAR})(?!\d)")


def file_name_period(stem: str) -> tuple[int | None, int | None, date | None]:
    """(fiscal year, quarter, date) hinted by a file name: "2023 Q1 NVDA", "AAPL_10-Q_Q3FY23",
    "JPMORGAN_2021Q1_10Q", "FOOTLOCKER_2022_8K_dated-2022-05-20", "msft-10k-fy2024"."""
    text = stem.replace("_", " ")
    dated = None
    m = re.search(r"dated[\s_-]*(\d{4}-\d\d-\d\d)", stem, re.I)
    if m:
        dated = parse_date(m.group(1))
        text = text.replace(m.group(0).replace("_", " "), " ")
    found = find_periods(text)
    for p in found.mentions:
        if p.quarter:
            return p.year, p.quarter, dated
    for p in found.mentions:
        if p.fiscal and p.year:
            return p.year, None, dated
    m = _FILE_YEAR.search(text)
    return (int(m.group("y")) if m else None), None, dated


# -- follow-ups: a period named relative to the one a thread is about ----------------------------
_STEP_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
               "nine": 9, "ten": 10, "twelve": 12, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
               "10": 10, "12": 12}
_BEFORE = r"(?:before|earlier|prior|previous|preceding|ago)"
_BACK = r"(?:before|earlier|prior|previous|preceding|ago|back)"  # after a count: "two years back"
_AFTER = r"(?:after|later|following|next|subsequent)"
# "the quarter before", "a year earlier", "two quarters ago", "the prior year", "previous quarter",
# "the following quarter", "same quarter last year", "three months earlier"
RELATIVE_PERIOD_RE = re.compile(
    rf"\b(?:(?P<n>a|one|two|three|four|five|six|seven|eight|nine|ten|twelve|[2-9]|10|12)[\s-]+)?(?:fiscal\s+)?"
    rf"(?P<unit1>quarters?|qtrs?|years?|yrs?|months)[\s-]+"
    rf"(?P<dir1>{_BACK}|{_AFTER})\b"
    rf"|\b(?P<dir2>{_BEFORE}|{_AFTER}|last|same|this)\s+(?:fiscal\s+)?(?P<unit2>quarter|qtr|year|yr|fy|period|time)(?:\s+(?P<ly>last\s+(?:year|yr)|a\s+(?:year|yr)\s+(?:earlier|before|ago|later|after)))?\b",
    re.I,
)


@dataclass(frozen=True)
class PeriodShift:
    """How far a follow-up's period is from the thread's: ``quarters`` and ``years`` (negative
    = earlier)."""

    quarters: int = 0
    years: int = 0
    text: str = ""  # the words as written
    # a change against that period ("sequentially?"): the thread's period is still asked,
    # compared with the shifted one
    against: bool = False
    # "last fiscal year", "the prior fiscal year": a whole fiscal year is named, so of a quarter
    # the thread is about it is the fiscal year before that quarter's, not the quarter a year earlier
    whole_year: bool = False


# analysts' shorthand for the same quarter a year earlier: "the prior-year quarter", "year-ago quarter"
# "the comparable quarter", "the comparable prior-year period": the same quarter a year earlier
_YEAR_AGO_QUARTER = re.compile(r"\b(?:(?:(?:comparable\s+)?(?:prior|previous|last)[-\s](?:year|yr)(?:'s)?|(?:year|yr)[-\s]ago|py|"
                               r"comparable)\s+(?:fiscal\s+)?(?:quarter|qtr|period)|"
                               # "prior-yr equivalent?": the same span a year earlier
                               r"(?:prior|previous|last)[-\s](?:year|yr)(?:'s)?\s+(?:equivalent|comparable|counterpart)|"
                               r"same\s+(?:quarter|qtr|period)\s+(?:of\s+|in\s+)?(?:the\s+)?(?:prior|previous|last)\s+(?:fiscal\s+)?(?:year|yr|fy))\b", re.I)
# "vs last fiscal?", "the prior fiscal": "fiscal" used as the noun, the fiscal year before
_PRIOR_FISCAL = re.compile(r"\b(?:last|prior|previous|preceding)\s+fiscal\b(?!\s*(?:years?|yrs?|quarters?|qtrs?|periods?|"
                           r"fy|half|h[12]|'?\d))", re.I)
# "sequentially?", "q/q", "QoQ": against the quarter before
_SEQUENTIAL = re.compile(r"\b(?:sequential(?:ly)?|q/q|qoq|q-o-q|quarter[-\s]over[-\s]quarter)(?![\w/])", re.I)
# chat shorthand for the units ("the yr before", "same qtr")
_UNIT_WORDS = {"qtr": "quarter", "yr": "year", "fy": "year"}


def relative_period(text: str) -> PeriodShift | None:
    """A period named relative to the previous one ("And the quarter before?", "a year
    earlier", "same quarter last year", "the prior-year quarter"); None when the text names
    none. "last quarter" alone is the latest quarter, not a shift, and is left to ``LATEST_RE``."""
    if _QUARTER_OF_RELATIVE_YEAR.search(text) and not find_periods(text).mentions:
        return None  # "Q2 last year": a quarter of the year before (``quarter_without_year``)
    ago = _YEAR_AGO_QUARTER.search(text)
    if ago:
        return PeriodShift(years=-1, text=ago.group(0))
    prior_fiscal = _PRIOR_FISCAL.search(text)
    if prior_fiscal:
        return PeriodShift(years=-1, text=prior_fiscal.group(0))
    seq = _SEQUENTIAL.search(text)
    if seq and not find_periods(text).mentions:
        return PeriodShift(quarters=-1, text=seq.group(0), against=True)
    for m in RELATIVE_PERIOD_RE.finditer(text):
        if m.group("unit1"):
            n = _STEP_WORDS.get((m.group("n") or "a").lower(), 1)
            sign = -1 if re.fullmatch(_BACK, m.group("dir1"), re.I) else 1
            unit = _UNIT_WORDS.get(m.group("unit1").lower().rstrip("s"), m.group("unit1").lower().rstrip("s"))
            if unit == "month":  # "three months earlier" is a quarter, "twelve months later" a year
                if n % 3:
                    continue
                n, unit = (n // 12, "year") if n % 12 == 0 else (n // 3, "quarter")
        else:
            word = m.group("dir2").lower()
            unit = _UNIT_WORDS.get(m.group("unit2").lower(), m.group("unit2").lower())
            if m.group("ly"):  # "same quarter last year", "the quarter a year earlier", "... a year later"
                return PeriodShift(years=1 if re.search(r"(?:later|after)$", m.group("ly"), re.I) else -1,
                                   text=m.group(0))
            if word in ("same", "this") or unit in ("period", "time"):
                continue  # "the previous period" without "last year": which one is not known
            if word == "last" and unit == "quarter":
                continue  # "last quarter" = the latest one
            n = 1
            sign = 1 if re.fullmatch(_AFTER, word, re.I) else -1
        whole = bool(m.group("dir2") and re.search(r"(?i)\bfiscal\s+(?:year|yr)\b", m.group(0)))
        shift = PeriodShift(quarters=sign * n, text=m.group(0)) if unit == "quarter" else PeriodShift(
            years=sign * n, text=m.group(0), whole_year=whole)
        return shift
    return None


@dataclass(frozen=True)
class ShiftedNamed:
    """A period named as a shift from a period the same words name ("the quarter a year before
    Q3 '23" -> Q3 2022): where the words are, and the period they mean."""

    start: int
    end: int
    period: PeriodMention


# what the shifted period is, written before the shift ("the quarter a year before ...")
_SHIFTED_WHAT = re.compile(r"(?:\bthe\s+)?(?:fiscal\s+)?(?:quarter|qtr|period|year|yr|half)\s+$", re.I)


def shifted_named_period(text: str) -> ShiftedNamed | None:
    """"the quarter a year before Q3 '23", "two quarters before Q1 FY24": the shift is from the
    period written right after it, not from the conversation's; None when no shift is followed
    by a period."""
    shift = relative_period(text)
    if shift is None or not re.search(rf"(?:{_BEFORE}|{_AFTER}|back)$", shift.text, re.I):
        return None
    at = text.find(shift.text)
    if at < 0:
        return None
    for m in find_periods(text).mentions:
        if m.start >= at + len(shift.text) and re.fullmatch(r"\s*(?:the\s+)?", text[at + len(shift.text):m.start], re.I):
            moved = shift_mention(m, shift)
            if moved is None:
                return None
            lead = _SHIFTED_WHAT.search(text[:at])
            return ShiftedNamed(lead.start() if lead else at, m.end, moved)
    return None


def shift_mention(mention: PeriodMention, shift: PeriodShift) -> PeriodMention | None:
    """The period ``shift`` away from ``mention``: Q1 FY2024 one quarter earlier is Q4 FY2023;
    fiscal 2023 a year earlier is fiscal 2022; the quarter ended July 1, 2023 one quarter
    earlier ends about April 1, 2023. A quarter shift of a year-only mention is None (which
    quarter is not known)."""
    if mention.year is None:
        return None
    if mention.date is not None:
        months = 3 * shift.quarters + 12 * shift.years
        d = _add_months(mention.date, months) if months else mention.date
        if months and (mention.date + timedelta(days=1)).month != mention.date.month:
            # a month's last day stays the last day (September 30 -> June 30, not June 28)
            d = _add_months(d.replace(day=1), 1) - timedelta(days=1)
        # month arithmetic keeps the day of month; a quarter's end is then within days of it
        # (a year to date keeps its length: "the six months ended June 30, 2023" a year earlier)
        return PeriodMention("", 0, 0, year=d.year, date=d, span=mention.span or ("quarter" if shift.quarters else ""),
                             fiscal=mention.fiscal, quarter=mention.quarter if mention.span == YEAR_TO_DATE else None)
    if mention.quarter and shift.whole_year and not shift.quarters:
        # "last fiscal year" of Q1 FY2024 is fiscal 2023 (the year that quarter's year follows)
        return PeriodMention("", 0, 0, year=mention.year + shift.years, fiscal=True)
    if mention.quarter:
        index = mention.year * 4 + (mention.quarter - 1) + shift.quarters + 4 * shift.years
        year, q = divmod(index, 4)
        # "1H23" two years back is the first half of 2021 (a half or year to date shifted by whole years)
        return PeriodMention("", 0, 0, year=year, quarter=q + 1, fiscal=mention.fiscal,
                             span=mention.span if shift.quarters % 4 == 0 else "")
    if shift.quarters and not shift.years:
        return None
    return PeriodMention("", 0, 0, year=mention.year + shift.years + (shift.quarters // 4 if shift.quarters % 4 == 0 else 0),
                         fiscal=mention.fiscal)


def mention_text(mention: PeriodMention) -> str:
    """How a question writes a period so that ``find_periods`` reads it back the same:
    "Q2 FY2024", "Q3 2023", "fiscal 2022", "2021", "the quarter ended April 1, 2023"."""
    if mention.date is not None:
        d = mention.date
        when = f"{MONTH_NAMES[d.month - 1].capitalize()} {d.day}, {d.year}"
        if mention.span == YEAR_TO_DATE:
            return f"the {_YTD_MONTHS.get(mention.quarter or 0, 'year to date')} ended {when}"
        if mention.span == TRAILING:
            return f"the twelve months ended {when}"
        if mention.span:
            return f"the {'fiscal ' if mention.fiscal else ''}{mention.span} ended {when}"
        return f"as of {when}"
    if mention.quarter and mention.span == SECOND_HALF:
        return f"the second half of {'fiscal ' if mention.fiscal else ''}{mention.year}"
    if mention.quarter and mention.span == YEAR_TO_DATE and mention.quarter in _YTD_WORDS:
        return f"{_YTD_WORDS[mention.quarter]} of {'fiscal ' if mention.fiscal else ''}{mention.year}"
    if mention.quarter:
        return f"Q{mention.quarter} {'FY' if mention.fiscal else ''}{mention.year}"
    return f"fiscal {mention.year}" if mention.fiscal else str(mention.year)


# "Q1", "1Q", "the first quarter", "first fiscal quarter" with no year after it: a quarter
# of the year the conversation is about ("and in Q1?")
_QUARTER_ALONE = re.compile(
    rf"(?<![a-z0-9])(?:q(?P<q>[1-4])|(?P<n>[1-4])q|(?:the\s+)?(?P<o>{_ORD_RE})\s+(?P<fq>fiscal\s+)?(?:quarter|qtr))"
    rf"(?![a-z0-9])(?!\s*(?:of\s+|in\s+)?(?:the\s+)?(?:fy|fiscal|'?\d))", re.I)


# a quarter of a year named relative to the thread's: "Q2 last year", "last year's Q2", "Q3 of the
# prior fiscal year", "this year's Q1"
_QUARTER_WORDS = rf"(?:q(?P<q>[1-4])|(?P<n>[1-4])q|(?:the\s+)?(?P<o>{_ORD_RE})\s+(?:fiscal\s+)?(?:quarter|qtr))"
_REL_YEAR_WORDS = r"(?:last|prior|previous|preceding|this|current|next|following)\s+(?:fiscal\s+)?(?:year|yr|fy)"
_QUARTER_OF_RELATIVE_YEAR = re.compile(
    rf"(?<![a-z0-9])(?:(?:the\s+)?(?P<pre>{_REL_YEAR_WORDS})(?:'s|’s)\s+{_QUARTER_WORDS}"
    rf"|{_QUARTER_WORDS.replace('?P<q>', '?P<q2>').replace('?P<n>', '?P<n2>').replace('?P<o>', '?P<o2>')}"
    rf"\s+(?:of\s+|in\s+)?(?:the\s+)?(?P<post>{_REL_YEAR_WORDS}))(?![a-z0-9])", re.I)


@dataclass(frozen=True)
class QuarterAlone:
    """A quarter named without its year ("Q1", "the third quarter"), with the words as written;
    ``years``: the year it is in relative to the thread's ("Q2 last year": -1)."""

    quarter: int
    text: str
    start: int
    end: int
    years: int = 0


def quarter_without_year(text: str) -> QuarterAlone | None:
    """The first quarter ``text`` names without a year; None when it names none, or when the
    quarter it names carries its year ("Q1 2023", "the first quarter of fiscal 2024")."""
    taken = [(m.start, m.end) for m in find_periods(text).mentions]
    for m in _QUARTER_OF_RELATIVE_YEAR.finditer(text):
        if any(not (m.end() <= s or m.start() >= e) for s, e in taken):
            continue
        q = m.group("q") or m.group("n") or m.group("q2") or m.group("n2")
        o = m.group("o") or m.group("o2")
        year_words = (m.group("pre") or m.group("post")).lower()
        years = -1 if year_words.startswith(("last", "prior", "previous", "preceding")) else \
            1 if year_words.startswith(("next", "following")) else 0
        return QuarterAlone(int(q) if q else ORDINALS[o.lower()], m.group(0), m.start(), m.end(), years)
    for m in _QUARTER_ALONE.finditer(text):
        if any(not (m.end() <= s or m.start() >= e) for s, e in taken):
            continue
        if _YTD_AFTER.match(text, m.end()) or _YTD_BEFORE.search(text[:m.start()]):
            continue  # "Q3 YTD": a year to date (``year_to_date``)
        q = m.group("q") or m.group("n")
        quarter = int(q) if q else ORDINALS[m.group("o").lower()]
        return QuarterAlone(quarter, m.group(0), m.start(), m.end())
    return None


def in_quarter(mention: PeriodMention, quarter: int) -> PeriodMention | None:
    """``quarter`` of the year ``mention`` is in, written the way it is (fiscal or calendar):
    Q2 2023 -> Q1 2023 for "and in Q1?", fiscal 2024 -> Q3 FY2024. None for a period named by
    its end date (which quarter of the filer's fiscal year that is is not known here)."""
    if mention.year is None or mention.date is not None:
        return None
    return PeriodMention("", 0, 0, year=mention.year, quarter=quarter, fiscal=mention.fiscal)


# -- quarters named by the month they end in ("the march qtr", "the June quarter") ---------------
# A month-named quarter with a year or without one ("the March quarter": the conversation's
# year), or "the quarter ending in March" (no day: with a day it is a date, read by ``find_periods``)
_MONTH_QUARTER = re.compile(
    rf"{_MONTH_NAMED_QUARTER}"
    rf"|\b(?:the\s+)?(?:fiscal\s+)?(?:quarter|qtr)\s+(?:that\s+)?end(?:ed|ing|s)?\s+(?:in\s+)?(?P<m2>{MONTH_RE})(?![a-z])\.?"
    # the year written in full or short ("the quarter ending in October '23"), else a day
    rf"(?!\s*\d{{1,2}}\b)(?:\s+(?P<y3>{_YEAR})|\s*['’](?P<y4>\d\d)(?!\d))?",
    re.I)


@dataclass(frozen=True)
class MonthQuarter:
    """A quarter named by the month it ends in, with the words as written; ``year`` is None
    when the text names none (the conversation's year is meant)."""

    month: int
    year: int | None
    text: str
    start: int
    end: int


def month_quarter(text: str) -> MonthQuarter | None:
    """The first quarter ``text`` names by its closing month ("the march qtr" -> March,
    "the June 2023 quarter" -> June 2023); None when it names none."""
    for m in _MONTH_QUARTER.finditer(text):
        name = (m.group("m") or m.group("m2")).lower()
        month = _MONTH_NUMBER.get(name[:4] if name.startswith("sept") else name[:3])
        if not month:
            continue
        y = m.group("y") or m.group("y2") or m.group("y3") or m.group("y4")
        return MonthQuarter(month, full_year(y) if y else None, m.group(0).strip(), m.start(), m.end())
    return None


# a follow-up that is only a month with its year ("Mar-23?", "and March '23?", "what about Dec
# 2022"): the quarter ending that month (a month in a sentence may be the business's own: "named
# CEO in Aug 2022", ``names_month``)
_MONTH_YEAR_ALONE = re.compile(
    rf"^\s*(?:(?:and|also|ok(?:ay)?|so|then|now|what\s+about|how\s+about|same\s+for|for|in|at|as\s+of)[\s,]+)*"
    rf"(?:the\s+)?(?P<m>{MONTH_RE})\.?(?:\s+(?P<y>{_YEAR})|\s*[-'’]\s*(?P<y2>\d\d))\s*[?.!]*\s*$", re.I)


def month_year_alone(text: str) -> MonthQuarter | None:
    """The quarter a message names only by a month and its year ("Mar-23?" -> March 2023), or None."""
    m = _MONTH_YEAR_ALONE.match(text)
    if m is None:
        return None
    name = m.group("m").lower()
    month = month_number(name)
    return MonthQuarter(month, full_year(m.group("y") or m.group("y2")), text[m.start("m"):m.end("y") if m.group("y")
                        else m.end("y2")], m.start("m"), m.end("y") if m.group("y") else m.end("y2"))


_YEAR_AGO_BEFORE = re.compile(r"\b(?:year[-\s]ago|yr[-\s]ago|prior[-\s](?:year|yr)|previous[-\s]year|last[-\s]year['’]s)\s+$",
                              re.I)


def year_ago_before(text: str, at: int) -> int:
    """Where words naming a year earlier end right before ``at`` begin ("the year-ago June
    quarter": the June quarter a year before the one meant), or -1 when none do."""
    m = _YEAR_AGO_BEFORE.search(text[:at])
    return m.start() if m else -1


@dataclass(frozen=True)
class FiscalCalendar:
    """One filer's fiscal calendar, known from one report: its fiscal ``year`` and ``quarter``
    (4 for an annual report) and the date that period ended. Apple's Q2 FY2023 ended
    April 1, 2023, so its quarter ending in March 2023 is Q2 FY2023 and its fiscal year ends
    in September; Intel's Q3 2023 ended September 30, 2023, a calendar fiscal year."""

    year: int
    quarter: int
    end: date

    def _month_index(self) -> int:
        d = self.end - timedelta(days=7)  # 52/53-week quarters end up to a week into the next month
        return d.year * 12 + d.month - 1

    def quarter_ending(self, year: int, month: int) -> tuple[int, int]:
        """(fiscal year, fiscal quarter) of the filer's quarter ending in ``month`` of ``year``
        (the nearest one when no quarter of the filer ends in that month)."""
        months = year * 12 + month - 1 - self._month_index()
        steps = round(months / 3)
        fy, q = divmod(self.year * 4 + self.quarter - 1 + steps, 4)
        return fy, q + 1

    def quarter_end(self, fiscal_year: int, quarter: int) -> tuple[int, int]:
        """(calendar year, month) in which the filer's fiscal ``quarter`` of ``fiscal_year`` ends."""
        steps = fiscal_year * 4 + quarter - 1 - (self.year * 4 + self.quarter - 1)
        year, month = divmod(self._month_index() + 3 * steps, 12)
        return year, month + 1

    @property
    def calendar_year(self) -> bool:
        """The filer's fiscal year ends in December (its fiscal quarters are calendar quarters)."""
        return self.quarter_end(self.year, 4)[1] == 12


def quarter_end_month(mention: PeriodMention, calendar: FiscalCalendar | None = None) -> tuple[int, int] | None:
    """(calendar year, month) in which the period ``mention`` names ends: a fiscal quarter
    through the filer's ``calendar`` (else read as a calendar quarter), a year in its last
    month (a fiscal year through the calendar), a date as dated."""
    if mention.date is not None:
        return mention.date.year, mention.date.month
    if mention.year is None:
        return None
    if mention.quarter:
        if mention.fiscal and calendar is not None:
            return calendar.quarter_end(mention.year, mention.quarter)
        return mention.year, mention.quarter * 3
    if mention.fiscal and calendar is not None:
        return calendar.quarter_end(mention.year, 4)
    return mention.year, 12


def quarter_ending_in(year: int, month: int, calendar: FiscalCalendar | None = None) -> PeriodMention:
    """The quarter ending in ``month`` of ``year`` as a question names it: the filer's fiscal
    quarter when its fiscal year does not end in December (Apple's March 2023 quarter is
    "Q2 FY2023"), else the calendar quarter ("Q1 2023", the same quarter); without a known
    calendar, the calendar quarter most of the three months fall in."""
    if calendar is not None and not calendar.calendar_year:
        fy, q = calendar.quarter_ending(year, month)
        return PeriodMention("", 0, 0, year=fy, quarter=q, fiscal=True)
    # the calendar quarter most of the three months fall in: a quarter ending in April is Q1
    mid_year, mid_month = divmod(year * 12 + month - 1 - 1, 12)
    return PeriodMention("", 0, 0, year=mid_year, quarter=mid_month // 3 + 1)


def month_quarter_period(found: MonthQuarter, thread: PeriodMention | None = None,
                         calendar: FiscalCalendar | None = None, thread_calendar: FiscalCalendar | None = None,
                         ) -> PeriodMention | None:
    """The period a month-named quarter means: in the year written, else the one nearest the
    period the conversation is about (``thread``, read through ``thread_calendar``), as the
    company whose ``calendar`` it is names it (``quarter_ending_in``). None when no year is
    written and the conversation names no period."""
    year = found.year
    if year is None:
        anchor = quarter_end_month(thread, thread_calendar) if thread is not None else None
        if anchor is None:
            return None
        base = anchor[0] * 12 + anchor[1] - 1
        year = min((anchor[0] + d for d in (-1, 0, 1)),
                   key=lambda y: (abs(y * 12 + found.month - 1 - base), y))
    return quarter_ending_in(year, found.month, calendar)


def fiscal_label_for(mention: PeriodMention, source: FiscalCalendar | None,
                     target: FiscalCalendar | None, calendar_words: bool = True) -> PeriodMention | None:
    """A fiscal quarter of one filer (``source``'s calendar) as another filer names the same
    months: Apple's Q2 FY2023 (ending March 2023) is Q1 2023 of a calendar-year company.
    None when nothing needs changing (not a fiscal quarter, or ``source``'s fiscal year
    ends in December), or when the other filer's calendar is not known and the conversation
    writes fiscal periods (``calendar_words`` false: its label is kept as written)."""
    if not (mention.quarter and mention.fiscal and mention.year) or source is None or source.calendar_year:
        return None
    if target is None and not calendar_words:
        return None
    ends = source.quarter_end(mention.year, mention.quarter)
    return quarter_ending_in(ends[0], ends[1], target)


# -- follow-ups: the year to date of the conversation's period ------------------------------------
# "and the nine months?", "the first half", "the 9M figure", "H1", "year to date", "the full year"
_YTD_RELATIVE = re.compile(
    r"\b(?:(?:(?:the|those|these)\s+)?(?:first\s+)?(?<![$\d.,])(?P<n>three|six|nine|3|6|9)[\s-]*(?:months?|mos?|mths?)\b"
    # "the 9 mo to Sept 30": the day written without its year is the conversation's year's
    rf"(?:\s+(?:to|through|thru|ended|ending)\s+{MONTH_RE}\.?\s+\d{{1,2}}(?![\d,])(?!\s*(?:(?:19|20)\d\d|['’]\d\d)))?"
    r"(?!\s+(?:ended|ending|of|in)\b)(?:\s+(?:ytd|year[-\s]to[-\s]date)\b)?"
    # "Q3 YTD", "YTD Q3": the year to date to that quarter's end
    r"|(?<![a-z0-9])q(?P<qa>[1-3])\s+(?:ytd|year[-\s]to[-\s]date)\b|\b(?:ytd|year[-\s]to[-\s]date)\s+(?:(?:through|thru|to)\s+)?"
    r"q(?P<qb>[1-3])(?![a-z0-9])(?!\s*'?\d)"
    r"|the\s+(?P<nm>[369])m\b"
    # a bare "9M?", "and 6M": the sell side's year to date (not "$9M", "9M shares": an amount, a count)
    r"|(?<![\w$.,])(?P<nb>[69])m\b(?!\s*(?:shares|users|subscribers|members|customers|units|people|employees|"
    r"accounts|barrels|tons|sq))"
    # ("the first half of the fiscal yr": of the conversation's year)
    r"|(?:the\s+)?(?:first\s+half|1h|h1)\b(?!\s+(?:of|in)\b(?!\s+(?:the\s+|this\s+)?(?:fiscal\s+)?(?:year|yr)\b))"
    r"(?:\s+(?:of|in)\s+(?:the\s+|this\s+)?(?:fiscal\s+)?(?:year|yr)\b)?"
    r"|(?:the\s+)?(?:fiscal\s+)?(?P<ytd>ytd|year[-\s]to[-\s]date)\b"
    r"|(?:the\s+)?half[-\s]year\b"
    r"|(?:the\s+)?(?P<full>full[-\s]year|whole\s+year|full\s+fiscal\s+year|entire\s+year)\b)", re.I)


@dataclass(frozen=True)
class YearToDate:
    """A year-to-date span named without its year: ``quarters`` (1-3, 4 = the full year;
    0 = to the end of the conversation's quarter), with the words as written."""

    quarters: int
    text: str
    second_half: bool = False  # "the back half", "H2": the six months ending at the year's end


# "the second half?", "and the back half", "H2?": the second half of the conversation's year
_SECOND_HALF_RELATIVE = re.compile(r"(?<![a-z0-9])(?:(?:the\s+)?(?:second|back|latter|2nd)\s+half|2h|h2)(?![a-z0-9])"
                                   r"(?!\s*(?:of\s+|in\s+)?(?:the\s+)?(?:fy|fiscal|'?\d))", re.I)


def year_to_date(text: str) -> YearToDate | None:
    """The year-to-date span ``text`` names without a year ("and the nine months?" -> 3, "the
    first half" -> 2, "the full year" -> 4, "ytd" -> 0); None when it names none or names
    its year ("the first nine months of 2023" is read by ``find_periods``)."""
    taken = [(m.start, m.end) for m in find_periods(text).mentions]
    for m in _SECOND_HALF_RELATIVE.finditer(text):
        if not any(not (m.end() <= s or m.start() >= e) for s, e in taken):
            return YearToDate(2, m.group(0).strip(), second_half=True)
    for m in _YTD_RELATIVE.finditer(text):
        if any(not (m.end() <= s or m.start() >= e) for s, e in taken):
            continue
        if m.group("qa") or m.group("qb"):
            quarters = int(m.group("qa") or m.group("qb"))
        elif m.group("n") or m.group("nm") or m.group("nb"):
            count = (m.group("n") or m.group("nm") or m.group("nb")).lower()
            quarters = {"three": 1, "six": 2, "nine": 3, "3": 1, "6": 2, "9": 3}[count]
        elif m.group("full"):
            quarters = 4
        elif m.group("ytd"):
            quarters = 0
        else:
            quarters = 2
        return YearToDate(quarters, m.group(0).strip())
    return None


def year_to_date_of(mention: PeriodMention, ytd: YearToDate,
                    calendar: FiscalCalendar | None = None) -> PeriodMention | None:
    """The span ``ytd`` names in the year of the conversation's period ``mention``: "the nine
    months" of Q3 2023 is the first nine months of 2023; "the full year" of Q3 FY2023 is fiscal
    2023; of the quarter ended July 1, 2023, the nine months ended July 1, 2023 (the year to
    date ending there, when ``ytd`` says how long: else None)."""
    if mention.year is None:
        return None
    if ytd.second_half:
        if mention.date is not None:
            return None  # where a dated period's fiscal year ends is not known here
        return PeriodMention("", 0, 0, year=mention.year, quarter=4, fiscal=mention.fiscal, span=SECOND_HALF)
    if mention.date is not None:
        if ytd.quarters == 0 and mention.span == YEAR_TO_DATE:
            return mention  # "year to date" of the nine months ended July 1, 2023: that span
        if ytd.quarters == 0 and calendar is not None and mention.span == "quarter":
            # "fiscal YTD" of the quarter ended October 30, 2022: as far into the fiscal year as
            # the filer's ``calendar`` puts that quarter (Q3: the nine months ended that day)
            day = mention.date - timedelta(days=7)  # a 52/53-week quarter ends up to a week into a month
            quarter = calendar.quarter_ending(day.year, day.month)[1]
            return PeriodMention("", 0, 0, year=mention.date.year, date=mention.date, span=YEAR_TO_DATE,
                                 quarter=quarter, fiscal=mention.fiscal) if quarter < 4 else None
        if ytd.quarters in (0, 4):
            return None  # how far into its fiscal year a date is is not known here (no calendar)
        return PeriodMention("", 0, 0, year=mention.date.year, date=mention.date, span=YEAR_TO_DATE,
                             quarter=ytd.quarters, fiscal=mention.fiscal)
    if ytd.quarters == 4:
        return PeriodMention("", 0, 0, year=mention.year, fiscal=mention.fiscal or bool(mention.quarter))
    quarters = ytd.quarters or mention.quarter
    if not quarters:
        return None
    return PeriodMention("", 0, 0, year=mention.year, quarter=quarters, fiscal=mention.fiscal, span=YEAR_TO_DATE)


# -- follow-ups: a trailing year, or the end of the conversation's quarter or year ----------------
_TRAILING_RE = re.compile(r"\b(?:ltm|ttm|(?:the\s+)?(?:trailing|last|past)\s+(?:twelve|12)\s+months|(?:the\s+)?trailing\s+"
                          r"(?:four|4)\s+quarters|(?:the\s+)?trailing\s+year)\b", re.I)
# "at quarter end", "how about year-end?", "the fiscal year end": an instant named by the
# period it closes (with no year or date of its own: "year end 2022" is read by ``find_periods``)
_PERIOD_END_RE = re.compile(r"\b(?:the\s+)?(?P<what>quarter|qtr|(?:fiscal\s+)?year|fy)[-\s]?end\b"
                            r"(?!\s*(?:of\s+)?(?:fiscal\s+)?'?\d)", re.I)


@dataclass(frozen=True)
class RelativeSpan:
    """A period named by its relation to the conversation's: ``kind`` "trailing" (the four
    quarters ending where the conversation's period ends), "quarter_end" or "year_end" (the
    instant it closes), with the words as written."""

    kind: str
    text: str


def relative_span(text: str) -> RelativeSpan | None:
    """"what about LTM" -> trailing; "net cash at quarter end?" -> quarter_end; "how about
    year-end?" -> year_end; None when the text names none (or names its own period)."""
    taken = [(m.start, m.end) for m in find_periods(text).mentions]
    for rx, kind in ((_TRAILING_RE, "trailing"), (_PERIOD_END_RE, "")):
        for m in rx.finditer(text):
            if any(not (m.end() <= s or m.start() >= e) for s, e in taken):
                continue
            if not kind:
                kind = "quarter_end" if m.group("what").lower() in ("quarter", "qtr") else "year_end"
            return RelativeSpan(kind, m.group(0).strip())
    return None


def _month_end(year: int, month: int) -> date:
    return _add_months(date(year, month, 1), 1) - timedelta(days=1)


def relative_span_of(mention: PeriodMention, found: RelativeSpan,
                     calendar: FiscalCalendar | None = None) -> PeriodMention | None:
    """The period ``found`` names from the conversation's ``mention`` (read through the filer's
    fiscal ``calendar`` when known): the trailing twelve months ending where it ends; the end
    of its quarter; the latest fiscal year end at or before it ends (a 10-Q's balance sheet
    compares the quarter's end with it). None when where it ends is not known, or when the
    period already is the one named (the year end of a year, the quarter end of a quarter)."""
    if found.kind != "trailing" and mention.date is None and (
            (found.kind == "year_end" and not mention.quarter) or (found.kind == "quarter_end" and not mention.span)):
        return None  # "at year end" of fiscal 2022, "at quarter end" of Q2 2023: the period as asked
    if mention.fiscal and mention.date is None and calendar is None:
        return None  # where a fiscal period ends is the filer's: not known here
    if found.kind == "trailing" and mention.date is None and (not mention.quarter or mention.span == SECOND_HALF):
        return None  # the trailing year of a year (or of a half ending it) is that year
    ends = quarter_end_month(mention, calendar)
    if ends is None:
        return None
    day = mention.date if mention.date is not None else _month_end(*ends)
    if found.kind == "trailing":
        return PeriodMention("", 0, 0, year=day.year, date=day, span=TRAILING)
    if found.kind == "quarter_end":
        return PeriodMention("", 0, 0, year=day.year, date=day)
    fye_month = calendar.quarter_end(calendar.year, 4)[1] if calendar is not None else 12
    # within a week of a month's start (52/53-week years) counts as the month before
    index = (day - timedelta(days=7)).year * 12 + (day - timedelta(days=7)).month - 1
    back = (index - (fye_month - 1)) % 12
    if back == 0:
        return PeriodMention("", 0, 0, year=day.year, date=day)
    year, month = divmod(index - back, 12)
    return PeriodMention("", 0, 0, year=year, date=_month_end(year, month + 1))


# The length of period a sentence speaks of, as its words say it: "for the quarter", "nine
# months ended", "fiscal year". (A "year-over-year" change or "year to date" names no length.)
_SPAN_WORDS = (
    ("quarter", re.compile(r"(?<!over[-\s])\b(?:quarter(?:ly)?|three[-\s]months?|3[-\s]months?|q[1-4])\b(?![-\s]over)", re.I)),
    ("six months", re.compile(r"\b(?:six|6)[-\s]months?\b|\bfirst\s+half\b|\bhalf[-\s]year\b", re.I)),
    ("nine months", re.compile(r"\b(?:nine|9)[-\s]months?\b", re.I)),
    ("year", re.compile(r"\b(?:full[-\s]year|fiscal\s+year|annual(?:ly)?|twelve[-\s]months|12[-\s]months|"
                        r"for\s+the\s+year|years?\s+ended)\b", re.I)),
)


_NAMES_A_REPORT = re.compile(r"\s*(?:['’]s\s+)?(?:form\s+)?(?:10-?[KQ]|8-?K|20-?F|annual\s+report|quarterly\s+report|"
                             r"report|filing|proxy)\b", re.I)


def names_a_report(text: str, mention: PeriodMention) -> bool:
    """The period ``mention`` of ``text`` names a report, not a period asked of it: "the 2020
    10-K", "per its Q3 2022 10-Q", "American Water's 2022 annual report" (the incident it
    describes may be of 2015)."""
    return bool(_NAMES_A_REPORT.match(text, mention.end))


def period_spans(text: str) -> set[str]:
    """Lengths of period ``text`` names: "quarter", "six months", "nine months", "year"."""
    return {name for name, rx in _SPAN_WORDS if rx.search(text)}


def filing_spans(form_type: str, fiscal_quarter: int | None) -> set[str]:
    """Lengths of period a filing reports: a 10-K the year, a 10-Q its quarter and its year to
    date (a second-quarter 10-Q also six months, a third-quarter one nine months)."""
    form = form_type.upper()
    if "10-K" in form or "20-F" in form or "40-F" in form:
        return {"year"}
    if "10-Q" in form:
        return {"quarter"} | ({"six months"} if fiscal_quarter == 2 else set()) | (
            {"nine months"} if fiscal_quarter == 3 else set())
    return set()  # an 8-K or a release may speak of any period


# a word that names a period or a month by itself ("Oct", "Sept", "YTD", "LTM", "Q1", "1H",
# "FY23", "q/q"): a question's period word, never the name of what a filing is about
_PERIOD_WORD = re.compile(
    rf"{MONTH_RE}|ytd|qtd|mtd|ltm|ttm|yoy|y/y|qoq|q/q|[1-4]q|q[1-4]|[12]h|h[12]|fy(?:\d\d|\d{{4}})?|"
    rf"(?:[1-4]q|q[1-4]|[12]h|h[12])(?:fy)?'?\d\d(?:\d\d)?|'\d\d|(?:19|20)\d\d",
    re.I)


def is_period_word(word: str) -> bool:
    """True when ``word`` alone names a period or a month ("Oct", "YTD", "Q1", "FY23")."""
    return bool(_PERIOD_WORD.fullmatch(word.strip().rstrip(".")))


# -- follow-ups: a run of consecutive periods ending at the conversation's ----------------------
# "over the 3 filings this yr", "the last four quarters", "across the past 3 fiscal years": a
# count of periods, each a quarter or a year (a filing or report is the conversation's kind)
_PERIOD_RUN = re.compile(
    r"\b(?:(?P<over>over|across|during|through)\s+|(?:for|in)\s+)?(?:the\s+)?"
    r"(?P<last>(?:last|past|previous|latest|recent|most\s+recent)\s+)?"
    r"(?P<n>two|three|four|five|six|eight|[2-9]|1[0-2])\s+(?P<unit>(?:fiscal\s+)?(?:quarters|qtrs|years|yrs)|filings|reports|"
    r"10-?qs|10-?ks|periods)(?P<this>\s+(?:this|of\s+the|in\s+the)\s+(?:fiscal\s+)?(?:year|yr))?\b", re.I)
_RUN_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8}


@dataclass(frozen=True)
class PeriodRun:
    """A run of ``count`` consecutive periods named by their number ("the last four quarters"):
    ``unit`` "quarter", "year" or "" (a filing or period of the conversation's own kind)."""

    count: int
    unit: str
    text: str


def period_run(text: str) -> PeriodRun | None:
    """The run of periods ``text`` names by a count ("over the 3 filings this yr" -> 3); None
    when it names none (or names its periods: "the three quarters of 2023" is read by
    ``find_periods``'s year)."""
    m = next((m for m in _PERIOD_RUN.finditer(text) if m.group("over") or m.group("last") or m.group("this")), None)
    if m is None:
        return None  # "in the two years since the deal": a count of years, no run of periods asked
    n = m.group("n").lower()
    count = _RUN_COUNTS.get(n) or int(n)
    unit = m.group("unit").lower()
    kind = "quarter" if re.search(r"quarters|qtrs|10-?qs", unit) else "year" if re.search(r"years|yrs|10-?ks", unit) else ""
    return PeriodRun(count, kind, m.group(0).strip())


def periods_ending(mention: PeriodMention, run: PeriodRun) -> list[PeriodMention]:
    """The ``run``'s periods, oldest first, ending with the conversation's ``mention``: the
    three quarters ending with Q3 2023 are Q1, Q2 and Q3 2023; three years ending with fiscal
    2022 are fiscal 2020-2022. Empty when the mention's kind does not fit (quarters of a year,
    or a period named by a date)."""
    if mention.year is None or mention.date is not None or mention.span:
        return []
    unit = run.unit or ("quarter" if mention.quarter else "year")
    if unit == "quarter" and mention.quarter:
        return [m for k in range(run.count - 1, -1, -1)
                if (m := shift_mention(mention, PeriodShift(quarters=-k))) is not None]
    if unit == "year" and not mention.quarter:
        return [PeriodMention("", 0, 0, year=mention.year - k, fiscal=mention.fiscal) for k in range(run.count - 1, -1, -1)]
    return []


def run_text(mentions: list[PeriodMention]) -> str:
    """Periods written as a question lists them: "Q1 2023, Q2 2023 and Q3 2023"."""
    said = [mention_text(m) for m in mentions]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


# -- a year named by the month it ends in ("the yr ended aug 2019", "FY ending June 2023") -------
_MONTH_YEAR_END = re.compile(
    rf"\b(?:the\s+)?(?:fiscal\s+)?(?:year|yr|fy)\s+(?:that\s+)?(?:ended|ending|ends|to|through)\s+(?:in\s+)?"
    # (a two-digit year only as "aug-19" or "aug '19": "January 29, 2023" is a day)
    rf"(?P<m>{MONTH_RE})\.?(?:\s+(?P<y>{_YEAR})|(?:-|\s*')(?P<y2>\d\d))(?![0-9])", re.I)


def month_year_end(text: str) -> MonthQuarter | None:
    """The first year ``text`` names by its closing month and year, without a day ("the yr
    ended aug 2019"); None when it names none ("the year ended August 31, 2019" is a date,
    read by ``find_periods``)."""
    m = _MONTH_YEAR_END.search(text)
    if m is None:
        return None
    name = m.group("m").lower()
    month = _MONTH_NUMBER.get(name[:4] if name.startswith("sept") else name[:3])
    if not month:
        return None
    return MonthQuarter(month, full_year(m.group("y") or m.group("y2")), m.group(0).strip(), m.start(), m.end())


def month_year_period(found: MonthQuarter, calendar: FiscalCalendar | None = None) -> PeriodMention:
    """The year ``found`` names: the filer's fiscal year when its fiscal year ends in that month
    (within days: Costco's fiscal 2019 ended September 1, 2019, its "year ended aug 2019"),
    else the twelve months ended on that month's last day."""
    if calendar is not None and found.year is not None:
        fiscal_year, quarter = calendar.quarter_ending(found.year, found.month)
        if quarter == 4 and calendar.quarter_end(fiscal_year, 4) == (found.year, found.month):
            return PeriodMention("", 0, 0, year=fiscal_year, fiscal=True)
    year = found.year or 0
    day = _month_end(year, found.month)
    return PeriodMention("", 0, 0, year=year, date=day, span="year")


_MONTH_OF_YEAR = re.compile(rf"\b{MONTH_RE}\.?(?:\s+{_YEAR}|(?:-|\s*')\d\d)(?![0-9])", re.I)


def names_month(text: str) -> bool:
    """True when ``text`` names a month of a year ("in aug 2022", "since March 2020"): a time of
    its own, which no period of the conversation is added to."""
    return bool(_MONTH_OF_YEAR.search(text))
