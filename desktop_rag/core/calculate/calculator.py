"""Question -> a line item or metric computed from the statements, with receipts.

Numbers come from statement cells, arithmetic from code, and every input is cited by its
row's exact page text (and the cell's span and box). When an input is missing the answer
says which one and where it looked; it never returns a number it did not derive.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from desktop_rag.core.calculate.concepts import (
    CONCEPTS,
    Concept,
    Found,
    components,
    concept_named,
    debt_rows,
    find,
    label_concept,
    named_in,
)
from desktop_rag.core.calculate.metrics import (
    METRIC_NAMED,
    Judgement,
    Metric,
    judgement_in,
    metric_from_definition,
    metric_in,
    ratio_asked,
    substituted_inputs,
)
from desktop_rag.core.calculate.shares import cover_shares, share_rows_scale
from desktop_rag.core.calculate.trend import (
    TrendAsk,
    asks_either_way,
    moved,
    trend_asked,
    verdict,
    without_conditional_asides,
)
from desktop_rag.core.domain.companies import abbreviates
from desktop_rag.core.domain.numbers import CURRENCY_CODES, SCALE_FACTORS, scale_word
from desktop_rag.core.domain.page_labels import cited_page, describe_page
from desktop_rag.core.domain.periods import (
    column_period_name,
    find_periods,
    fiscal_year_end_month_of,
    fiscal_year_for_end,
)
from desktop_rag.core.domain.question import parse_question, plain_question, read_question
from desktop_rag.core.domain.types import Calculation, CalculationInput, Citation, Document
from desktop_rag.core.ingest.identity import labelled_periods
from desktop_rag.core.ingest.pdf import match_form
from desktop_rag.core.ingest.statements.model import Cell, Period, Row, Statement

_LINE_ITEM_ASK = re.compile(r"\b(what (is|was|were|are)|how much|how many dollars|report(ed)?|amount of)\b", re.I)
_NOT_A_LOOKUP = re.compile(
    r"\b(why|drove|drivers?|explain|describe|how did|trend|segment|guidance|outlook|risk|compare|ratio|margin|"
    r"percent(age)?|%|growth|grow|change|increase|decrease|per share|eps|average|cagr|performance obligations?|backlog|"
    r"deferred|unearned|allocated)\b", re.I)
# A per-share line item ("diluted EPS") is itself named with "per share"/"EPS": only the rest counts.
_NOT_A_LOOKUP_PER_SHARE = re.compile(
    r"\b(why|drove|drivers?|explain|describe|how did|trend|segment|guidance|outlook|risk|compare|ratio|margin|"
    r"percent(age)?|%|growth|grow|change|increase|decrease|average|cagr|adjusted|non-gaap|continuing|pro forma|"
    r"performance obligations?|backlog|deferred|unearned|allocated)\b", re.I)
_EXPLAIN = re.compile(r"\b(why|drove|drivers?|driven|explain|describe|reasons?|factors?|caused?|attributable to what|"
                      r"how does(?!\s+(?:[\w'-]+\s+){0,4}compare)|what (led|contributed))\b", re.I)
_GROWTH = re.compile(r"\b(year[- ]over[- ]year|yoy|grow(th)?|change[ds]?|increase|decrease|decline)\b", re.I)
_CAGR = re.compile(r"\bcagr\b|compound annual growth", re.I)
_AVERAGE_YEARS = re.compile(r"(\d)[- ]year average|average .* from (fy)?\s?(\d{4}) to (fy)?\s?(\d{4})", re.I)
_YEAR_END = re.compile(r"year[- ]end (rather than|instead of|not) (the )?average|not the average|rather than average|"
                       r"using year[- ]end", re.I)
# "Sum capital expenditures over 2015-2017", "combined net income for fiscal 2016 through 2018":
# one flow added up over the years asked
_SUM_YEARS = re.compile(r"\b(?:sum(?:med)?|add(?:ed)?\s+up|combined|cumulative(?:ly)?|aggregate|in\s+total|"
                        r"total\s+(?:over|across|for\s+the\s+(?:three|two|four|five)|from))\b", re.I)
# a figure per something other than a share or a period: "per gross square foot", "per employee"
_PER_UNIT = re.compile(r"\bper\s+(?!(?:diluted\s+|basic\s+|common\s+|ordinary\s+)?shares?\b|the\b|its\b|our\b|their\b|"
                       r"annum\b|cent\b|year\b|quarter\b|month\b|period\b)[a-z]", re.I)
_EACH_YEAR = re.compile(r"\b(each|every) (fiscal )?year\b|\bin each of\b|\bper year from\b|\byear by year\b", re.I)
# A trailing-twelve-month figure spans four quarters: no column of a 10-Q holds it.
_TRAILING = re.compile(r"\btrailing\b|\bttm\b|\bltm\b|\blast twelve months\b|\btwelve months ended\b", re.I)
# "How many shares were outstanding", "shares of common stock outstanding", "outstanding shares":
# the count on the cover; weighted-average counts (the EPS denominators) are statement rows.
_SHARES_OUTSTANDING = re.compile(r"\bshares\b[^?.;]{0,60}\boutstanding\b|\boutstanding\s+(?:common\s+)?shares\b|"
                                 r"\bshare\s+count\b", re.I)
_NOT_COVER_SHARES = re.compile(r"weighted|average|diluted|basic|repurchas|buy\s?back|authori[sz]ed|options?\b|float|"
                               r"treasury|preferred|class\s+[a-c]\b|per\s+share|\beps\b|issued\s+during|ratio|%|percent|"
                               r"growth|change|increase|decrease", re.I)
_HOW_MANY = re.compile(r"\bhow many\b", re.I)
# The EPS wording a weighted-average share count is asked with ("shares used in computing
# earnings per share") is no per-share question.
_EPS_WORDING = re.compile(r"\bweighted[- ]average\b|\b(?:earnings|net income|income) per (?:common )?share\b|\beps\b", re.I)
# a share of something asked ("what percentage of free cash flow was returned"), not a change in percent
_SHARE_ASKED = re.compile(r"\b(?:what|which)\s+(?:percent(?:age)?|share|portion|proportion|fraction)\s+of\b|"
                          r"\bas\s+a\s+(?:percent(?:age)?|share|proportion|fraction)\s+of\b", re.I)
def _names_measure_of(text: str, title: str) -> bool:
    """``text`` names the measure ``title`` names ("COGS" for "Cost of sales")."""
    from desktop_rag.core.domain.measures import measure_terms
    from desktop_rag.core.domain.terms import tokenize

    own = set(tokenize(title)) & measure_terms()
    return bool(own) and own <= set(tokenize(text))


# a cell printed as nothing: a dash, a zero
_NIL = re.compile(r"[\u2014\u2013\-]+|\$?\s*0(?:\.0+)?|nil|none", re.I)
# "Did it pay a dividend in 2019?", "Has it recorded ...": whether a line has an amount in the period
_EXISTENCE = re.compile(r"\s*(?:did|does|has|have|had)\s+(?:[\w&.'\u2019-]+\s+){1,4}?(?:pay|paid|declare|declared|"
                        r"record|recorded|recogni[sz]e|recogni[sz]ed|incur|incurred)\b", re.I)
_PERCENT_ASKED = re.compile(r"%|\bpercent|\bratio\b|\bas a (share|proportion|fraction)\b|\bdecimal", re.I)
_DECIMALS = {"one": 1, "two": 2, "three": 3, "zero": 0, "no": 0}


class CannotCompute(Exception):
    """An input is missing or does not fit the company (said in the message)."""


class ReadTwoWays(CannotCompute):
    """The question reads two ways on the statements ("gross margin" asked without a unit of a
    filer that prints a "Gross margin" amount): no figure is computed, and the question is left
    to the filing's own words (its MD&A often says which: "Gross margin was 28%")."""


class Implausible(ReadTwoWays):
    """The computed value cannot be true of any company (a margin above 100 %, a negative day
    count): an input was misread. Nothing is shown as computed; the question goes to the
    filing's own words."""


# Bounds any company's value of a metric kind keeps; outside them an input was misread.
_MARGIN = re.compile(r"margin", re.I)


_OF_REVENUE = re.compile(r"(?:/|\bdivided\s+by|\bover|\bof)\s*\(?\s*(?:the\s+)?(?:total\s+|net\s+)?(?:revenues?|net\s+sales|sales)\b",
                         re.I)


def implausible(m: Metric, value: float) -> str:
    """Why ``value`` cannot be ``m`` of a real company, or "" when it can."""
    if m.unit == "percent" and _MARGIN.search(m.title) and not -100.0 <= value <= 100.0:
        return "is outside -100..100 %: a margin is a part of its revenue"
    if m.unit == "percent" and _OF_REVENUE.search(m.formula) and not -1000.0 <= value <= 1000.0:
        return "is more than ten times the revenue it is a share of"
    if m.unit == "days" and not 0.0 < value < 3650.0:
        return "is no day count of a year's turnover"
    if m.unit in ("ratio", "times") and m.name in ("current_ratio", "quick_ratio", "cash_ratio") and value < 0:
        return "is negative: a liquidity ratio divides amounts held by amounts owed"
    if m.name in ("inventory_turnover", "asset_turnover", "fixed_asset_turnover") and value <= 0:
        return "is not positive: a turnover divides two positive amounts"
    return ""


@dataclass
class Outcome:
    text: str
    citations: list[Citation]
    calculation: Calculation | None  # None: an honest refusal


# -- the question -------------------------------------------------------------------------------
def decimals_asked(question: str, default: int) -> int:
    q = question.lower()
    m = re.search(r"(\w+)\s+decimal", q)
    if m:
        w = m.group(1)
        return int(w) if w.isdigit() else _DECIMALS.get(w, default)
    if re.search(r"nearest (whole|integer|dollar|million)|whole number", q):
        return 0
    return default


def currency_scale_asked(question: str) -> str | None:
    m = re.search(r"\b(?:in|usd|\$)\s*(?:usd\s+|us\$\s*|\$\s*)?(thousands|millions|billions)\b|\((?:in )?usd (thousands|millions|billions)\)",
                  question, re.I)
    if not m:
        return None
    return (m.group(1) or m.group(2)).lower()


def months_asked(question: str, form: str) -> int:
    """The length in months of the period a question asks (6 for "first half", 9 for "nine
    months" or year to date, 3 for a quarter), else the form's own (a 10-Q's quarter, a year)."""
    q = question.lower()
    if re.search(r"\b(six|6)[- ]months?\b|first half|\bh1\b|half[- ]year", q):
        return 6
    if re.search(r"\b(nine|9)[- ]months?\b|year[- ]to[- ]date|\bytd\b", q):
        return 9
    if re.search(r"\b(three|3)[- ]months?\b|\bquarter\b|\bq[1-4]\b", q) or find_periods(question).quarters:
        return 3  # ("1Q23", "Q1'23": the one period parser reads the quarter)
    return 3 if form == "10-Q" else 12


# -- statements --------------------------------------------------------------------------------
@dataclass
class _Picked:
    concept: Concept
    statement: Statement
    row: Row
    cell: Cell
    period: Period


YearOf = Callable[[Period], int]


def _calendar_year(p: Period) -> int:
    return p.year


def _duration_period(statements: list[Statement], year: int | None, months: int,
                     years_of: Sequence[YearOf] = (_calendar_year,)) -> Period | None:
    """The column for ``year`` of the asked length: the year as each reading of a column's
    year understands it, in order (the fiscal year it belongs to, the year it ends in)."""
    for year_of in years_of:
        for st in statements:
            if st.kind not in ("income", "cash_flow"):
                continue
            cols = [p for p in st.periods if p.months == months and (year is None or year_of(p) == year)]
            if cols:
                return cols[0]
    return None


def _balance_period(statements: list[Statement], year: int | None, end: str | None,
                    years_of: Sequence[YearOf] = (_calendar_year,)) -> Period | None:
    if end:
        for st in statements:
            cols = [p for p in st.periods if p.end == end] if st.kind == "balance" else []
            if cols:
                return cols[0]
    for year_of in years_of:
        for st in statements:
            if st.kind != "balance":
                continue
            cols = [p for p in st.periods if year is None or year_of(p) == year]
            if cols:
                return cols[0]
    return None


def _plain_page(page: int) -> str:
    return describe_page("", page)


def _row_with_column(concept: Concept, statements: list[Statement], period: Period, question: str = "") -> Found | None:
    """The concept's row among the statements that print ``period``'s column."""
    return find(concept, [s for s in statements
                          if any(p.end == period.end and p.months == period.months for p in s.periods)], question)


def _pick(concept: Concept, statements: list[Statement], period: Period, what: str, question: str = "",
          found: Found | None = None, cite: Callable[[int], str] = _plain_page) -> _Picked:
    if found is None:
        found = _row_with_column(concept, statements, period, question)
    if found is None:
        kinds = " or ".join({"income": "income statement", "balance": "balance sheet", "cash_flow": "cash flow statement"}
                            .get(k, k) for k in concept.kinds)
        have = [s for s in statements if s.kind in concept.kinds]
        where = f"{kinds} ({', '.join(cite(p) for s in have for p in s.pages)})" if have else f"{kinds} (not found)"
        raise CannotCompute(f"{concept.title.lower()} not found in the {where}{what}")
    cell = found.row.cell_for(period.end, period.months)
    if cell is None or cell.value is None:
        raise CannotCompute(f"no {column_period_name(period)} figure for \"{found.row.label}\" ({cite(found.row.page)})")
    return _Picked(concept, found.statement, found.row, cell, period)


def _prior(statements: list[Statement], period: Period) -> Period | None:
    """The same-length column one year earlier (the prior-year column of the same filing)."""
    for st in statements:
        for p in st.periods:
            if p.months == period.months and p.year == period.year - 1 and (period.months or st.kind == "balance"):
                return p
    return None


def _years_back(statements: list[Statement], period: Period, n: int) -> Period | None:
    for st in statements:
        for p in st.periods:
            if p.months == period.months and p.year == period.year - n:
                return p
    return None


# Costs whose sign is the filer's presentation: some print them negative and add them.
_EXPENSES = ("income_tax", "cogs", "noninterest_expense")


def _added_as_printed(p: _Picked) -> bool:
    """Does the statement add this negative row as printed? Either the row above it plus
    this row gives the row below it ("Earnings before income taxes 6,680 / Income tax expense
    (948) / Net earnings 5,732"), or revenue plus this row gives the statement's gross profit
    ("Total net sales 65,398 ... Total cost of sales (56,744) ... Gross profit 8,654"). Then
    the negative figure is an expense printed negative, not a benefit or a credit. False
    when the statement's figures do not show it (no guess)."""
    v = p.cell.value
    if v is None or v >= 0:
        return False

    def at(row: Row | None) -> float | None:
        cell = row.cell_for(p.period.end, p.period.months) if row is not None else None
        return cell.value if cell is not None else None

    rows = p.statement.rows
    i = next((k for k, r in enumerate(rows) if r is p.row), -1)
    if 0 < i < len(rows) - 1:
        above, below = at(rows[i - 1]), at(rows[i + 1])
        if above is not None and below is not None and abs(above + v - below) < 1.0 <= abs(above - v - below):
            return True
    rev, gp = (find(CONCEPTS[c], [p.statement]) for c in ("revenue", "gross_profit"))
    r, g = at(rev.row if rev else None), at(gp.row if gp else None)
    return r is not None and g is not None and abs(r + v - g) < 1.0 <= abs(r - v - g)


# -- formatting ---------------------------------------------------------------------------------
def _fmt(x: float, decimals: int) -> str:
    return f"{x:,.{decimals}f}"


def _result_text(value: float, unit: str, decimals: int, scale: str) -> tuple[str, float, str]:
    r = round(value, decimals)
    if unit == "percent":
        return f"{_fmt(r, decimals)}%", r, "percent"
    if unit == "days":
        return f"{_fmt(r, decimals)} days", r, "days"
    if unit == "times":
        return f"{_fmt(r, decimals)}x", r, "times"
    if unit == "ratio":
        if 0 < abs(value) < 1 and decimals <= 1:
            # "the efficiency ratio ... round to one decimal": a fraction kept to one decimal
            # ("0.5") says nothing; the one decimal asked is of its percent (52.4%)
            pct = round(value * 100, decimals)
            return f"{_fmt(pct, decimals)}% ({_fmt(round(value, 3), 3)})", pct, "percent"
        return _fmt(r, decimals), r, "ratio"
    sign = "-" if r < 0 else ""
    word = scale_word(scale)
    return f"{sign}${_fmt(abs(r), decimals)}{' ' + word if word else ''}", r, f"usd_{scale}" if word else "usd"


def _input(p: _Picked, doc: Document, page_text: str) -> tuple[CalculationInput, Citation]:
    a, b = p.row.span
    quote = match_form(page_text[a:b]) if page_text else p.row.label
    scale = "units" if p.row.unit != "currency" else p.statement.scale
    ci = CalculationInput(p.row.label, column_period_name(p.period), float(p.cell.value or 0.0), scale, doc.file_name,
                          p.row.page, quote, doc.doc_id, a, p.cell.span[0], p.cell.span[1], p.cell.bbox)
    return ci, Citation(doc.doc_id, doc.file_name, p.row.page, quote, a)


# -- the calculator -------------------------------------------------------------------------------
class Calculator:
    """Answers one question from one document's statements."""

    def __init__(self, question: str, doc: Document, statements: list[Statement], page_text, scale_hint: str = "",
                 decimals_hint: int | None = None, page_label: Callable[[str, int], str] | None = None) -> None:
        self.q = question
        self.doc = doc
        self.statements = statements
        self.page_text = page_text  # (doc_id, page) -> text
        self.page_label = page_label  # (doc_id, page) -> the number the page prints ("" none)
        self.scale_hint = scale_hint
        self.decimals_hint = decimals_hint
        periods = find_periods(question)
        self.years = sorted(periods.years | {m.year for m in periods.mentions if m.year and (m.date or m.quarter)})
        self.dates = sorted(d.isoformat() for d in periods.dates)
        self.months = months_asked(question, doc.meta.form_type)
        # A column's year: the fiscal year it belongs to when the question names fiscal
        # periods ("Q2 FY2024" of a January year end is the quarter ended July 31, 2023),
        # else the year it ends in, then the other reading
        fye = fiscal_year_end_month_of(doc.meta.fiscal_year, doc.meta.fiscal_quarter, doc.meta.period_end)
        if fye:
            def fiscal_year(p: Period) -> int:
                return fiscal_year_for_end(date.fromisoformat(p.end), fye)
            named_fiscal = any(m.fiscal for m in periods.mentions)
            self.years_of: list[YearOf] = [fiscal_year, _calendar_year] if named_fiscal else [_calendar_year, fiscal_year]
        else:
            self.years_of = [_calendar_year]
        self.company_words: set[str] = set()
        # the balance-sheet date of the period being computed when a question compares two
        # (the question's last date is the later one's only)
        self.balance_end: str | None = None

    def cite(self, page: int) -> str:
        """A page of this filing as every citation names it ("p. 72 (PDF 74)")."""
        return describe_page(self.page_label(self.doc.doc_id, page) if self.page_label else "", page)

    def _label_inputs(self, inputs: list[CalculationInput], cites: list[Citation]) -> None:
        if self.page_label is not None:
            for ci in inputs:
                ci.page_label = self.page_label(self.doc.doc_id, ci.page)
            for c in cites:
                c.page_label = self.page_label(self.doc.doc_id, c.page)

    def _decimals(self, default: int) -> int:
        if self.decimals_hint is not None:
            return self.decimals_hint
        return decimals_asked(self.q, default)

    def _main_period(self, year: int | None = None) -> Period:
        if year is None and self.dates:
            # "the nine months ended October 31, 2022": the column ending on the date the
            # question writes out, whatever fiscal year it also names
            ending = [p for st in self.statements if st.kind in ("income", "cash_flow")
                      for p in st.periods if p.months == self.months and p.end == self.dates[-1]]
            if ending:
                return ending[0]
        year = year if year is not None else (self.years[-1] if self.years else None)
        p = _duration_period(self.statements, year, self.months, self.years_of)
        if p is None and self.months == 12 and year is None:
            p = _duration_period(self.statements, None, 3)
        if p is None:
            asked = f"FY{year}" if year and self.months == 12 else f"{self.months}-month period" + (f" of {year}" if year else "")
            raise CannotCompute(f"no {asked} column in the statements of {self.doc.file_name}")
        return p

    def _balance_for(self, period: Period) -> Period:
        end = self.balance_end or (self.dates[-1] if self.dates else period.end)
        b = _balance_period(self.statements, period.year, end)  # the duration column's own year
        if b is None:
            raise CannotCompute(f"no balance sheet column for {period.year} in {self.doc.file_name}")
        return b

    def _value(self, concept_name: str, when: str, period: Period, picks: list[_Picked], absolute: bool,
               year_end: bool) -> float:
        concept = concept_named(concept_name)
        balance = "balance" in concept.kinds
        cur = self._balance_for(period) if balance else period
        needs_prior = when in ("prev", "avg") and not (when == "avg" and year_end)
        prior = _prior(self.statements, cur) if needs_prior else None
        if needs_prior and prior is None:
            raise CannotCompute(f"no prior-year column for {concept.title.lower()} in {self.doc.file_name}")
        if concept_name == "debt" and prior is None:
            return self._debt(cur, picks)
        p_cur = _pick(concept, self.statements, cur, f" of {self.doc.file_name}", self.q, cite=self.cite)
        if prior is None:  # "cur", or a year-end average: the current column alone
            picks.append(p_cur)
            v = float(p_cur.cell.value or 0.0)
            return abs(v) if absolute else v
        p_prev = _pick(concept, self.statements, prior, f" of {self.doc.file_name}", self.q, cite=self.cite)
        if when == "prev":
            picks.append(p_prev)
            v = float(p_prev.cell.value or 0.0)
            return abs(v) if absolute else v
        picks.extend([p_cur, p_prev])
        a, b = float(p_cur.cell.value or 0.0), float(p_prev.cell.value or 0.0)
        return abs((a + b) / 2) if absolute else (a + b) / 2

    def _debt(self, period: Period, picks: list[_Picked]) -> float:
        """The sum of the debt lines of the balance sheet (the statement with total assets) at
        ``period``, each line cited."""
        sts = [s for s in self.statements if s.kind == "balance" and any(p.end == period.end and p.months == 0 for p in s.periods)]
        found = find(CONCEPTS["total_assets"], sts)
        if found is None:
            raise CannotCompute(f"no balance sheet with total assets for {column_period_name(period)} in {self.doc.file_name}")
        rows = debt_rows(found.statement, period.end)
        if not rows:
            raise CannotCompute(f"no debt lines that add up on the balance sheet ({self.cite(found.statement.page)}) of "
                                f"{self.doc.file_name}")
        total = 0.0
        for row in rows:
            cell = row.cell_for(period.end, 0)
            assert cell is not None and cell.value is not None  # debt_rows keeps rows with a figure there
            picks.append(_Picked(CONCEPTS["debt"], found.statement, row, cell, period))
            total += abs(cell.value)
        return total

    def metric(self, m: Metric, period: Period | None = None) -> tuple[float, list[_Picked]]:
        if period is None:
            balances_only = all("balance" in concept_named(c).kinds for _, c, _ in m.needs)
            at = _balance_period(self.statements, None, self.dates[-1]) if balances_only and self.dates else None
            # a metric of balances asked at a date ("working capital as of June 30, 2023") is
            # that date's column, whatever period of flows the filing reports
            period = at if at is not None and at.end == self.dates[-1] else self._main_period()
        try:
            return self._metric_at(m, period)
        except CannotCompute:
            longer = self._year_to_date(m, period)
            if longer is None:
                raise
            # a 10-Q's cash flow statement prints the year to date only: a quarter's ratio of a
            # cash flow ("capex as a share of revenue") is that of the year to date, both inputs
            # of the same months (each input says which)
            return self._metric_at(m, longer)

    def _year_to_date(self, m: Metric, period: Period) -> Period | None:
        """The longer column ending on ``period``'s date that the cash flow statement prints,
        when ``m`` is a ratio or rate that reads a cash flow and ``period`` is shorter than a year;
        else None."""
        if not period.months or period.months >= 12 or m.unit == "currency" or not any(
                "cash_flow" in concept_named(c).kinds for _, c, _ in m.needs):
            return None  # (an amount of six months is no answer for a quarter; a ratio of them is)
        longer = [p for st in self.statements if st.kind == "cash_flow" for p in st.periods
                  if p.end == period.end and p.months > period.months]
        return min(longer, key=lambda p: p.months) if longer else None

    def _metric_at(self, m: Metric, period: Period) -> tuple[float, list[_Picked]]:
        year_end = bool(_YEAR_END.search(self.q))
        values: dict[str, float] = {}
        picks: list[_Picked] = []
        for var, concept, when in m.needs:
            if m.name == "gross_margin" and var == "gp":
                try:
                    values[var] = self._value(concept, when, period, picks, False, year_end)
                except CannotCompute:
                    # no gross profit line: revenue − cost of sales, when both are printed
                    rev = self._value("revenue", "cur", period, picks, False, year_end)
                    values[var] = rev - self._value("cogs", "cur", period, picks, False, year_end)
                continue
            if m.name in ("quick_ratio", "cash_ratio") and var == "sti":
                try:
                    values[var] = self._value(concept, when, period, picks, False, year_end)
                except CannotCompute:
                    values[var] = 0.0  # no short-term investments line: none held
                if re.search(r"marketable securities", self.q, re.I) and not any(
                        "marketable" in p.row.label.lower() for p in picks):
                    try:  # the question's definition adds marketable securities printed on their own line
                        values[var] += self._value("marketable_securities", when, period, picks, False, year_end)
                    except CannotCompute:
                        pass
                continue
            values[var] = self._value(concept, when, period, picks, var in m.absolute, year_end)
            if concept in _EXPENSES and values[var] < 0 and all(_added_as_printed(p) for p in picks[-2 if when == "avg" else -1:]):
                # "Income tax expense (948)" between 6,680 and 5,732: the filer prints
                # expenses negative and adds them; the expense is 948, not -948
                values[var] = -values[var]
            if concept == "da" and picks[-1].row.label.lower().strip() == "depreciation" \
                    and re.search(r"\bamortization\b", self.q, re.I):
                # "depreciation plus amortization …" printed on two rows: add the amortization row
                values[var] += self._value("amortization", when, period, picks, False, year_end)
        try:
            return m.compute(values), picks
        except ZeroDivisionError as exc:
            raise CannotCompute(f"a divisor is zero in {m.formula}") from exc

    def run(self) -> Outcome | None:
        if _EXPLAIN.search(without_conditional_asides(self.q)):
            return None
        company_words = set(re.findall(r"[a-z0-9&]+", f"{self.doc.meta.company} {self.doc.meta.ticker}".lower()))
        company_words |= {a.lower() for alias in self.doc.meta.aliases for a in re.findall(r"[A-Za-z0-9&]+", alias)}
        # a symbol the analyst writes from the name ("MCD's effective tax rate"): the company
        company_words |= {w.lower() for w in re.findall(r"\b[A-Z]{3,5}\b", self.q) if abbreviates(w, self.doc.meta.company)}
        self.company_words = company_words
        if _names_a_part(self.q, company_words):
            return None  # a part of the company: its figure is in a note or MD&A, found by retrieval
        if _TRAILING.search(self.q) and self.doc.meta.form_type == "10-Q":
            return None
        if _EACH_YEAR.search(self.q) and not (_AVERAGE_YEARS.search(self.q) or _CAGR.search(self.q)):
            return None  # one figure per year asked: more years than one computed answer gives
        if asks_shares_outstanding(self.q):
            return self._cover_shares()
        judged = judgement_in(self.q)
        if judged is not None and read_question(self.q).ask == "yesno":
            return self._judgement(judged)
        # the metric the question asks, before the words of its definitions ("free cash flow
        # margin? Define FCF as ... minus purchases of property ..., divided by revenue" is no
        # capital expenditure as a % of revenue)
        m = metric_in(read_question(self.q).asked) or metric_in(self.q)
        defined = self._defined_metric(m)
        if defined is not None:
            return defined
        concepts = named_in(self.q)
        if concepts and _PER_UNIT.search(read_question(self.q).asked):
            # "sales per gross square foot", "revenue per paying member": a rate per a unit the
            # statements do not count, not the line (a metric of METRICS was computed above)
            return None
        ask = trend_asked(self.q)
        if ask is not None and m is not None:
            return self._trend(ask, m, None)
        avg = _AVERAGE_YEARS.search(self.q)
        if m is not None and avg and len(self.years) >= 2:
            return self._average_metric(m)
        if m is not None:
            return self._metric_outcome(m)
        ratio = ratio_asked(self.q)
        if ratio is not None:
            # "the ratio of capital expenditures to depreciation", "R&D as a percentage of
            # revenue": two line items (concepts or labels the filing prints) divided
            return self._metric_outcome(ratio)
        if not concepts:
            # "the 2-year CAGR of total cloud revenues": a growth of a row the filing prints
            label = measure_label(self.q)
            if label is None or find(label, self.statements) is None:
                return None
            return self._cagr(label) if _CAGR.search(self.q) else self._growth(label)
        concept = concepts[0]
        if _SUM_YEARS.search(self.q) and len(self.years) >= 2 and "balance" not in concept.kinds and m is None:
            return self._sum_over_years(concept)
        if ask is None and _EXISTENCE.match(self.q) and concept.unit == "currency" and "balance" not in concept.kinds:
            # "Did PG&E pay a common stock dividend in 2019?": the line's cell of the year asked
            return self._existence(concept)
        part = _part_asked(self.q, concept, self.statements, company_words)
        if part is None and _names_its_line(self.q, concept, self.statements):
            pass  # "operating revenues" of a filer whose revenue line is "Operating revenues": the line
        elif part is not None or _qualified(self.q, concept.words, company_words):
            # "data center revenue": a part, not the statement line, found by retrieval; unless
            # the statement prints that part as a row under the concept's heading
            # ("membership fee revenue", "revenue from membership fees": "Membership fees"
            # under "Revenue")
            if part is not None and ask is not None and concept.unit not in ("shares", "per_share"):
                # "How did cloud services and license support revenues in fiscal 2023 compare with
                # fiscal 2022?": the part's row in both columns, the change between them
                return self._trend(ask, None, concept, part)
            if part is not None and len(self.years) == 2 and _GROWTH.search(self.q) and _GROWTH_IN_PERCENT.search(self.q):
                # "By what percentage did cloud services and license support revenues grow from
                # fiscal 2021 to fiscal 2022?": the part's row in both years, the change between them
                return self._trend(TrendAsk("change"), None, concept, part)
            if part is None or _CAGR.search(self.q) or _GROWTH.search(self.q) or not _is_lookup(self.q, concept):
                return None
            return self._line_item(concept, part)
        if ask is not None and (ask.kind != "change" or asks_either_way(self.q)) and concept.unit != "shares" \
                and not _narrowing_follows(self.q, concept):
            # "Did revenue increase in FY2022?", "Is net income positive?" (a line item's change
            # in amount and percent stays the growth answer below)
            return self._trend(ask, None, concept)
        if _CAGR.search(self.q):
            return self._cagr(concept)
        if _GROWTH.search(self.q) and re.search(r"\b(by how much|percent(?:age)?|%|how much did|growth rate|change)\b", self.q, re.I):
            return self._growth(concept)
        if _is_lookup(self.q, concept):
            return self._line_item(concept)
        return None

    def _defined_metric(self, standard: Metric | None) -> Outcome | None:
        """A formula written in the question ("ROA is defined as: ..."). When it reads clearly
        and gives another figure than the standard formula, it wins (stated as the question's);
        when it gives the same figure, the standard outcome stands; when it cannot be read, the
        standard formula is used and the answer says so (no standard formula: None)."""
        definitions = parse_question(self.q).instructions.definitions
        if not definitions or _AVERAGE_YEARS.search(self.q):
            return None
        term, formula = next(iter(definitions.items()))
        own = [(t, f) for t, f in definitions.items() if standard is not None and metric_in(t) == standard]
        if len(definitions) > 1 and own:
            # "Define FCF as A less B, and FCF margin as FCF / revenue": the asked metric's own
            # definition, with the parts the question also defines written out in it
            term, formula = own[0]
            for part, written in definitions.items():
                if part != term:
                    formula = re.sub(rf"(?<![\w-]){re.escape(part)}(?![\w-])", f"({written})", formula)
        composed = substituted_inputs(standard, definitions) if standard is not None else None
        if composed is not None:
            # "Define debt as A plus B, and equity as total equity" of a debt-to-equity ratio:
            # the standard formula with each input the question defines written its way
            assert standard is not None
            term, formula = standard.title, composed
        elif standard is not None and metric_in(term) not in (None, standard):
            return None  # it defines a part ("EBITDA" in an EBITDA margin question): the standard formula
        dm = metric_from_definition(term, formula, standard,
                                    percent=parse_question(self.q).instructions.scale == "percent")
        if dm is None:
            if standard is None:
                return None
            out = self._metric_outcome(standard)
            out.text += f" (the question's definition \"{formula}\" was not read clearly: standard formula used)"
            return out
        try:
            value, picks = self.metric(dm)
        except CannotCompute:
            if standard is None:
                raise
            return None  # the standard formula's own lookups (and refusal) follow
        cells = [(p.row.page, p.row.span, p.cell.period_end, p.cell.months) for p in picks]
        if len(set(cells)) < len(cells):  # two names of the definition read the same cell: unclear
            if standard is None:
                return None
            out = self._metric_outcome(standard)
            out.text += f" (in the question's definition \"{formula}\" two terms are one line: standard formula used)"
            return out
        if standard is not None:
            try:
                std_value: float | None = self.metric(standard)[0]
            except CannotCompute:
                std_value = None
            if std_value is not None and math.isclose(value, std_value, rel_tol=1e-9, abs_tol=1e-12):
                return None  # the same formula: the standard outcome (with its usual title) follows
        return self._metric_outcome(dm)

    # -- outcomes ----------------------------------------------------------------------------
    def _outcome(self, title: str, formula: str, value: float, unit: str, picks: list[_Picked], decimals: int,
                 scale: str = "") -> Outcome:
        share = _SHARE_ASKED.search(self.q) if unit == "currency" else None
        if share is not None and not _names_measure_of(self.q[:share.start()], title):
            # "what percentage of free cash flow was returned to shareholders": a share is asked,
            # and an amount is no answer to it (the calculation answers the measure asked) unless
            # the question asks the amount too ("what was COGS, and what share of sales was it")
            raise ReadTwoWays(f"a share is asked; {title.lower()} is an amount")
        inputs, cites, where = self._receipts(picks)
        text, result, unit_out = _result_text(value, unit, decimals, scale)
        answer = f"{title}: {text}" + (f" = {formula}" if formula else "") + f" [{where}]"
        return Outcome(answer, cites, Calculation(title, formula, inputs, result, unit_out))

    def _receipts(self, picks: list[_Picked]) -> tuple[list[CalculationInput], list[Citation], str]:
        """Every input cell with its row's quote, the citations (one per row), and the inputs
        written out for the answer ("Total current assets 2022-12-31: 8,024 (p. 72); ...")."""
        inputs: list[CalculationInput] = []
        cites: list[Citation] = []
        for p in picks:
            ci, c = _input(p, self.doc, self.page_text(self.doc.doc_id, p.row.page))
            if all(x.quote != c.quote or x.page != c.page for x in cites):
                cites.append(c)
            inputs.append(ci)
        self._label_inputs(inputs, cites)
        where = "; ".join(f"{i.label} {i.period}: {_fmt(i.value, 2).rstrip('0').rstrip('.')} ({cited_page(i)})" for i in inputs)
        return inputs, cites, where

    def _trend_periods(self, ask: TrendAsk) -> list[Period]:
        """The periods compared: the two years asked (earlier first), or the asked year (the
        filing's latest when none is named) and the one before it; a sign is asked of one."""
        try:
            later = self._main_period(self.years[-1] if self.years else None)
        except CannotCompute:
            if ask.kind != "sign" or ask.against_prior:
                raise
            # "Does it have positive working capital as of June 30, 2023?" of an earnings
            # release: a balance at the date asked, with no year's column of flows
            later = self._main_period_or_balance()
        if ask.kind == "sign" and not ask.against_prior:
            return [later]
        if len(self.years) == 2:
            return [self._main_period(self.years[0]), later]
        earlier = _prior(self.statements, later)
        if earlier is None:
            raise CannotCompute(f"no prior-year column for {column_period_name(later)} in {self.doc.file_name}")
        return [earlier, later]

    def _trend_value(self, m: Metric | None, concept: Concept | None, period: Period,
                     part: Found | None = None) -> tuple[float, list[_Picked], str]:
        """(value, inputs, the column's name) of the metric or line item (or the ``part`` of
        it the question names) for one period."""
        picks: list[_Picked] = []
        if m is not None:
            value, picks = self.metric(m, period)
            if m.unit == "percent" and not _PERCENT_ASKED.search(self.q) and any(
                    _norm_label(p.row.label) == m.title.lower() for p in picks):
                raise ReadTwoWays(f"\"{m.title.lower()}\" is printed as an amount and asked without a unit")
        else:
            assert concept is not None
            at = self._balance_for(period) if "balance" in concept.kinds else period
            p = _pick(concept, self.statements, at, f" of {self.doc.file_name}", self.q, found=part, cite=self.cite)
            value = float(p.cell.value or 0.0)
            if concept.outflow:
                value = abs(value)
            elif concept.name in _EXPENSES and part is None and _added_as_printed(p):
                value = -value
            picks = [p]
        if not math.isfinite(value):
            raise CannotCompute("the result is not a finite number")
        instants = all(p.period.months == 0 for p in picks)
        return value, picks, column_period_name(picks[0].period if instants else period)

    def _trend(self, ask: TrendAsk, m: Metric | None, concept: Concept | None,
               part: Found | None = None) -> Outcome | None:
        """A trend or yes/no question: the metric (or line item, or the part of it the
        question names) computed for each period compared, every input cited, and the verdict
        the figures give."""
        if len(self.years) > 2 or len(self.dates) > 2 or (ask.kind == "sign" and len(self.years) > 1
                                                             and not ask.against_prior):
            return None  # more periods than one comparison: the other paths
        name = m.name if m is not None else concept.name if concept is not None and part is None else ""
        title = m.title if m is not None else concept.title if concept is not None else ""
        if part is not None:
            title = f"{part.row.parent.rstrip(': ')} \u203a {part.row.label}" if part.row.parent else part.row.label
        unit = m.unit if m is not None else ("currency" if concept is None or concept.unit != "per_share" else "per_share")
        values: list[float] = []
        picks: list[_Picked] = []
        names: list[str] = []
        periods = self._trend_periods(ask)
        for i, period in enumerate(periods):
            # the later period's balance sheet is at the question's last date (if any), the
            # earlier one's at the question's first of two dates, else at its own end
            last = i == len(periods) - 1
            self.balance_end = (self.dates[-1] if last else self.dates[0] if len(self.dates) == 2 else period.end) \
                if self.dates else period.end
            try:
                value, got, col = self._trend_value(m, concept, period, part)
            finally:
                self.balance_end = None
            if unit == "currency":
                value, scale = self._scaled(value, got)
            values.append(value)
            picks.extend(got)
            names.append(col)
        scale = self._scaled(0.0, picks)[1] if unit == "currency" else "units"
        if unit == "currency":
            decimals = self._decimals(2 if scale != picks[0].statement.scale else 0)
        elif unit == "per_share":
            decimals = self._decimals(2)
        else:
            decimals = self._decimals(1 if unit in ("percent", "days") else 2)
        if len(values) == 2 and values[0] != values[1]:
            while decimals < 4 and round(values[0], decimals) == round(values[1], decimals):
                decimals += 1  # two figures that differ are never shown as equal
        shown_unit = "currency" if unit == "per_share" else unit
        shown_scale = "units" if unit == "per_share" else scale

        def show(x: float) -> str:
            return _result_text(x, shown_unit, decimals, shown_scale)[0]

        later = values[-1]
        delta = round(round(later, decimals) - round(values[0], decimals), decimals)
        said = verdict(ask, name, later - values[0], later)
        head = f"{said}: " if said else ""
        subject = title[0].lower() + title[1:] if said else title
        # the headline is the calculation's title too (the card shows it with the result)
        if ask.kind == "sign":
            state = "positive" if later > 0 else "negative" if later < 0 else "zero"
            headline = f"{head}{subject} was {state} ({names[-1]})"
            text = f"{head}{subject} was {state}, {show(later)} ({names[-1]})."
            if len(values) == 2:  # "... and how does it compare with the prior year?"
                went = moved(delta)
                pct = f" ({(later / values[0] - 1) * 100:+.{self._decimals(1)}f}%)" if unit == "currency" and values[0] > 0 else ""
                text = text[:-1] + (f"; it {went} from {show(values[0])} ({names[0]})"
                                    + (f", by {show(abs(delta)).replace('$-', '$')}{pct}." if delta else "."))
            result, unit_out = _result_text(later, shown_unit, decimals, shown_scale)[1:]
        else:
            if unit == "percent":
                by = f"{abs(delta):,.{decimals}f} percentage points"
                signed = f"{delta:+,.{decimals}f} percentage points"
                unit_out = "percentage_points"
            else:
                by = show(abs(delta)).replace("$-", "$")
                signed = ("+" if delta > 0 else "-" if delta < 0 else "") + by
                unit_out = _result_text(delta, shown_unit, decimals, shown_scale)[2]
                if unit in ("currency", "per_share") and values[0] > 0:
                    pct = f" ({(later / values[0] - 1) * 100:+.{self._decimals(1)}f}%)"
                    by, signed = by + pct, signed + pct
            span = f"from {show(values[0])} ({names[0]}) to {show(later)} ({names[-1]})"
            if ask.kind == "change":
                # which way, said in words ("fell by $784 million (-7.8%)"), not a signed "changed by"
                headline = f"{head}{subject} changed {span}"
                text = f"{head}{subject} {moved(delta)} by {by}, {span}." if delta else f"{head}{subject} was unchanged, {span}."
            else:
                went = moved(delta)
                direction = "up" if delta > 0 else "down"
                headline = f"{head}{subject} {went} {span}"
                text = headline + (f", {direction} {by}." if delta else ".")
                if said is None and ask.want in ("better", "worse"):
                    text += " Whether that is an improvement depends on the reading: the figures give only the direction."
            result = delta
        inputs, cites, where = self._receipts(picks)
        formula = m.formula if m is not None else ""
        text += f" {title} = {formula} [{where}]" if formula else f" [{where}]"
        calc_title = headline
        return Outcome(text, cites, Calculation(calc_title, formula, inputs, result, unit_out))

    def _scaled(self, value: float, picks: list[_Picked]) -> tuple[float, str]:
        """A currency amount in the scale asked (default: the statement's)."""
        stmt_scale = picks[0].statement.scale if picks else "units"
        want = currency_scale_asked(self.q) or self.scale_hint or stmt_scale
        if want not in SCALE_FACTORS:
            want = stmt_scale
        return value * SCALE_FACTORS.get(stmt_scale, 1.0) / SCALE_FACTORS[want], want

    def _metric_outcome(self, m: Metric) -> Outcome:
        value, picks = self.metric(m)
        if m.unit == "percent" and not _PERCENT_ASKED.search(self.q) and any(
                _norm_label(p.row.label) == m.title.lower() for p in picks):
            # "the reported gross margin" of a filer that prints a "Gross margin" amount: the
            # amount or the ratio? Neither is presented as computed.
            raise ReadTwoWays(f"\"{m.title.lower()}\" is printed as an amount and asked without a unit")
        if not math.isfinite(value):
            raise CannotCompute("the result is not a finite number")
        why = implausible(m, value)
        if why:
            raise Implausible(f"{m.title} of {value:,.4g} {why}")
        if m.unit == "currency":
            value, scale = self._scaled(value, picks)
            return self._outcome(m.title, m.formula, value, "currency", picks, self._decimals(2 if scale != "units" else 0), scale)
        return self._outcome(m.title, m.formula, value, m.unit, picks, self._decimals(2))

    def _judgement(self, j: Judgement) -> Outcome:
        """"Is X capital-intensive?": each usual measure computed for the asked period, set
        against its threshold, and the verdict the rule gives; every input cited."""
        period = self._main_period()
        picks: list[_Picked] = []
        parts: list[str] = []
        met: list[bool] = []
        for name, op, threshold in j.tests:
            m = METRIC_NAMED[name]
            value, got = self.metric(m, period)
            why = implausible(m, value)
            if why:
                raise Implausible(f"{m.title} of {value:,.4g} {why}")
            picks.extend(got)
            ok = value >= threshold if op == ">=" else value <= threshold
            met.append(ok)
            shown = _result_text(value, m.unit, self._decimals(1 if m.unit == "percent" else 2), "units")[0]
            limit = _result_text(threshold, m.unit, 0 if float(threshold).is_integer() else 1, "units")[0]
            name = m.title if m.title[1:2].isupper() else m.title[0].lower() + m.title[1:]  # "PP&E" stays
            parts.append(f"{name} {shown} ({'meets' if ok else 'below'} the usual {op.replace('>=', '≥').replace('<=', '≤')} "
                         f"{limit})")
        yes = any(met) if j.rule == "any" else all(met)
        company = self.doc.meta.company or self.doc.file_name
        # a judgement of balances only is as of their date, not of the period's flows
        flows = [p.period for p in picks if p.period.months]
        # (the year to date when the cash flow statement prints no quarter: the inputs' months)
        when = column_period_name(picks[0].period if not flows else max(flows, key=lambda x: x.months))
        rule = "either measure at its threshold" if j.rule == "any" else "every measure at its threshold"
        headline = f"{'Yes' if yes else 'No'}: {company} {'is' if yes else 'is not'} {j.adjective} by the usual measures ({when})"
        inputs, cites, where = self._receipts(picks)
        formula = "; ".join(f"{METRIC_NAMED[n].title} = {METRIC_NAMED[n].formula}" for n, _, _ in j.tests)
        text = f"{headline}: {'; '.join(parts)}; the verdict needs {rule}. {formula} [{where}]"
        return Outcome(text, cites, Calculation(headline, formula, inputs, float(yes), "verdict"))

    def _average_metric(self, m: Metric) -> Outcome:
        lo, hi = self.years[0], self.years[-1]
        values, picks = [], []
        for y in range(lo, hi + 1):
            v, p = self.metric(m, self._main_period(y))
            values.append(v)
            picks.extend(p)
        avg = sum(values) / len(values)
        return self._outcome(f"{len(values)}-year average {m.title.lower()} FY{lo}-FY{hi}",
                             f"mean of {m.formula} over FY{lo}..FY{hi}", avg, m.unit, picks, self._decimals(2))

    def _sum_over_years(self, concept: Concept) -> Outcome:
        """A flow added up over the years asked, from the first to the last ("over 2015-2017"
        is three years), each year's cell cited."""
        lo, hi = self.years[0], self.years[-1]
        picks: list[_Picked] = []
        values: list[float] = []
        for y in range(lo, hi + 1):
            p = _pick(concept, self.statements, self._main_period(y), f" of {self.doc.file_name}", cite=self.cite)
            value = float(p.cell.value or 0.0)
            if concept.outflow:  # "Capital expenditures (5,641)": spent 5,641
                value = abs(value)
            elif concept.name in _EXPENSES and _added_as_printed(p):
                value = -value
            picks.append(p)
            values.append(value)
        total, scale = self._scaled(sum(values), picks)
        shown = [self._scaled(v, [p])[0] for v, p in zip(values, picks, strict=True)]
        decimals = self._decimals(2 if currency_scale_asked(self.q) else 0)
        formula = _fmt(shown[0], decimals) + "".join(f" {'−' if v < 0 else '+'} {_fmt(abs(v), decimals)}" for v in shown[1:])
        return self._outcome(f"{concept.title}, FY{lo}-FY{hi} added up", formula, total, "currency", picks, decimals,
                             scale)

    def _existence(self, concept: Concept) -> Outcome | None:
        """"Did it pay / record <a line> in <period>?": yes with the amount when the line's cell
        of the period is an amount, no when the line is printed with a dash or zero there; None
        (the filing's words) when the statements print no such line."""
        period = self._main_period()
        found = _row_with_column(concept, self.statements, period, self.q)
        cell = found.row.cell_for(period.end, period.months) if found is not None else None
        if found is None or cell is None or (cell.value is None and not _NIL.fullmatch(cell.text.strip())):
            return None
        p = _Picked(concept, found.statement, found.row, cell, period)
        value = abs(float(cell.value or 0.0))
        yes = value > 0
        when = column_period_name(period)
        inputs, cites, where = self._receipts([p])
        if yes:
            scaled, scale = self._scaled(value, [p])
            shown = _result_text(scaled, "currency", self._decimals(0), scale)[0]
            headline = f"Yes: {found.row.label} {shown} ({when})"
        else:
            headline = f"No: {found.row.label} printed as {cell.text.strip() or '—'} ({when})"
        return Outcome(f"{headline} [{where}]", cites, Calculation(headline, "", inputs, float(yes), "verdict"))

    def _line_item(self, concept: Concept, part: Found | None = None) -> Outcome | None:
        """The concept's row (or the part of it the question names) in the asked column."""
        if "balance" in concept.kinds:
            period = self._balance_for(self._main_period_or_balance())
        else:
            period = self._main_period()
        # A row the question quotes wins ("net sales": the "Net sales" row above "Total
        # revenue"), unless the question goes on to narrow it ("net income attributable to
        # Corning" is not the "Net income" row above the noncontrolling interests)
        quoted = self.q if part is None and not _narrowing_follows(self.q, concept) else ""
        p = _pick(concept, self.statements, period, f" of {self.doc.file_name}", quoted, found=part, cite=self.cite)
        if part is None and _narrowed(self.q, concept, p.row.label, self.company_words):
            return None
        value = float(p.cell.value or 0.0)
        if concept.unit == "shares":
            return self._shares_line_item(p, period)
        if concept.unit == "per_share":  # as printed, in dollars per share, never rescaled
            printed = re.sub(r"[^\d.]", "", p.cell.text)
            decimals = self._decimals(len(printed.split(".")[1]) if "." in printed else 2)
            out = self._outcome(p.row.label, "", value, "currency", [p], decimals, "units")
            label = p.row.label if re.search(r"per (common |ordinary )?share|\beps\b", p.row.label, re.I) \
                else f"{p.row.parent.rstrip(':')} \u203a {p.row.label}"
            out.text = f"{label}: {_result_text(value, 'currency', decimals, 'units')[0]} per share" \
                       f" ({column_period_name(period)}, {self.cite(p.row.page)})"
            return out
        if concept.outflow:  # "Purchases of property … (1,577)" is capex of $1,577 million
            value = abs(value)
        elif concept.name in _EXPENSES and part is None and _added_as_printed(p):
            value = -value  # "Total cost of sales (56,744)" added to net sales: a cost of 56,744
        value, sign_note = _loss_read(p.row.label, value, self.q)
        value, scale = self._scaled(value, [p])
        decimals = self._decimals(2 if currency_scale_asked(self.q) else 0)
        label = f"{p.row.parent.rstrip(': ')} \u203a {p.row.label}" if part is not None else p.row.label
        out = self._outcome(label, "", value, "currency", [p], decimals, scale)
        shown = _result_text(value, "currency", decimals, scale)[0]
        if sign_note == "a loss":
            sign_note = f"a loss of {_result_text(abs(value), 'currency', decimals, scale)[0]}"
        note = f"; {sign_note}" if sign_note else ""
        out.text = f"{label}: {shown} ({column_period_name(period)}, {self.cite(p.row.page)}{note})"
        return out

    def _shares_line_item(self, p: _Picked, period: Period) -> Outcome:
        """A weighted-average share count in the scale its statement's note gives share
        counts (confirmed by the statement's own EPS), as a count of shares."""
        scale = share_rows_scale(p.statement, p.row, self.page_text(self.doc.doc_id, p.statement.page),
                                 period.end, period.months)
        if scale is None:
            raise CannotCompute(f"the scale of the share counts of the {p.statement.title} ({self.cite(p.statement.page)}) "
                                "is not stated clearly")
        value = float(p.cell.value or 0.0)
        count = value * SCALE_FACTORS[scale]
        ci, cite = _input(p, self.doc, self.page_text(self.doc.doc_id, p.row.page))
        self._label_inputs([ci], [cite])
        ci.unit = scale
        label = p.row.label if re.search(r"\bshares\b", p.row.label, re.I) else f"{p.row.parent.rstrip(':')} \u203a {p.row.label}"
        word = f" {scale_word(scale)}" if scale_word(scale) else ""
        printed = p.cell.text.strip("$ ")
        text = f"{label}: {printed}{word} shares" + (f" ({count:,.0f})" if word else "") + \
               f" ({column_period_name(period)}, {self.cite(p.row.page)})"
        return Outcome(text, [cite], Calculation(label, "", [ci], count, "shares"))

    def _cover_shares(self) -> Outcome | None:
        """The common shares outstanding stated on the filing's cover, with its date."""
        texts = [self.page_text(self.doc.doc_id, n) for n in range(1, min(self.doc.pages, 3) + 1)]
        found = cover_shares(texts)
        if found is None:
            return None
        if self.dates and found.as_of not in self.dates:
            return None  # another date than the cover's: a balance-sheet or note figure
        if self.years and int(found.as_of[:4]) not in self.years and self.doc.meta.fiscal_year not in self.years:
            return None
        text = self.page_text(self.doc.doc_id, found.page)
        a, b = found.span
        quote = match_form(text[a:b]).strip()
        a += len(match_form(text[a:b])) - len(match_form(text[a:b]).lstrip())
        label = "Shares of common stock outstanding"
        ci = CalculationInput(label, found.as_of, found.value, "units", self.doc.file_name, found.page, quote,
                              self.doc.doc_id, a, found.cell[0], found.cell[1], None)
        answer = f"{label}: {found.value:,.0f} shares (as of {found.as_of}, cover page, {self.cite(found.page)})"
        cite = Citation(self.doc.doc_id, self.doc.file_name, found.page, quote, a)
        self._label_inputs([ci], [cite])
        return Outcome(answer, [cite], Calculation(label, "", [ci], found.value, "shares"))

    def _main_period_or_balance(self) -> Period:
        try:
            return self._main_period()
        except CannotCompute:
            b = _balance_period(self.statements, self.years[-1] if self.years else None,
                                self.dates[-1] if self.dates else None, self.years_of)
            if b is None:
                raise
            return Period(b.label, b.end, 12)

    def _growth(self, concept: Concept) -> Outcome:
        if concept.kinds[0] == "balance":
            # "by what percent did inventories grow vs. Oct 30, 2021": a balance at the latest
            # date asked against the date asked before it, else the balance a year earlier
            cur = (_balance_period(self.statements, None, self.dates[-1]) if self.dates else None) or \
                self._balance_for(self._main_period())
            earlier = _balance_period(self.statements, None, self.dates[0]) if len(self.dates) >= 2 else None
            prev = earlier if earlier is not None and earlier.end != cur.end else _prior(self.statements, cur)
        else:
            cur = self._main_period()
            prev = _prior(self.statements, cur)
        if prev is None:
            raise CannotCompute(f"no prior-year column in {self.doc.file_name}")
        a = _pick(concept, self.statements, cur, f" of {self.doc.file_name}", cite=self.cite)
        b = _pick(concept, self.statements, prev, f" of {self.doc.file_name}", cite=self.cite)
        if not b.cell.value:
            raise CannotCompute("the prior-year figure is zero")
        value = (float(a.cell.value or 0.0) / float(b.cell.value) - 1) * 100
        return self._outcome(f"{concept.title} growth {column_period_name(prev)} to {column_period_name(cur)}",
                             f"({concept.title.lower()} {column_period_name(cur)} / {column_period_name(prev)} − 1) × 100",
                             value, "percent", [a, b], self._decimals(1))

    def _cagr(self, concept: Concept) -> Outcome:
        if len(self.years) < 2:
            raise CannotCompute("a CAGR needs a start and an end year")
        lo, hi = self.years[0], self.years[-1]
        cur = self._main_period(hi)
        start = _years_back(self.statements, cur, hi - lo)
        if start is None:
            raise CannotCompute(f"no FY{lo} column in {self.doc.file_name}")
        a = _pick(concept, self.statements, cur, f" of {self.doc.file_name}", cite=self.cite)
        b = _pick(concept, self.statements, start, f" of {self.doc.file_name}", cite=self.cite)
        if not b.cell.value or (float(a.cell.value or 0.0) / float(b.cell.value)) <= 0:
            raise CannotCompute("the CAGR is undefined for these figures")
        n = hi - lo
        value = ((float(a.cell.value or 0.0) / float(b.cell.value)) ** (1 / n) - 1) * 100
        return self._outcome(f"{n}-year {concept.title.lower()} CAGR FY{lo}-FY{hi}",
                             f"({concept.title.lower()} FY{hi} / FY{lo})^(1/{n}) − 1", value, "percent", [a, b],
                             self._decimals(1))


_NEUTRAL_BEFORE = frozenset(
    "the its their total net consolidated annual quarterly fiscal year full of in for on was were is are what how much "
    "did does have had report reported company company's firm's group's s a an and year-end end ending period "
    "unadjusted reported gaap operating many weighted-average weighted average common number outstanding".split())


def _neutral(word: str, company_words: set[str]) -> bool:
    """A word before a concept's name that does not narrow it (the company, a period, "total")."""
    prev = word.strip("'.")
    return (prev.endswith(("'s", "s'")) or prev in _NEUTRAL_BEFORE or prev in company_words
            or re.fullmatch(r"(fy|q[1-4])?'?\d{2,4}|\d+-year", prev) is not None)


def _qualified(question: str, words: tuple[str, ...], company_words: set[str]) -> bool:
    """Is the concept named with a qualifier that makes it a part, not the total ("data center
    revenue", "services net sales", "iPhone revenue")? Then it is no statement line item."""
    q = question.lower().replace("\u2019", "'")
    for w in words:
        m = re.search(w, q)
        if not m:
            continue
        before = re.findall(r"[a-z0-9&'.-]+", q[:m.start()])
        if not before:
            return False
        return not _neutral(before[-1], company_words)
    return False


def _names_its_line(question: str, concept: Concept, statements: list[Statement]) -> bool:
    """Does the question name the concept by the very label of the line the statements print
    for it ("operating revenues" where the revenue line is "Operating revenues"; "net interest
    income")? A qualifier that is part of the printed label makes no part of the total."""
    found = find(concept, statements)
    if found is None:
        return False
    label = " ".join(_singular(w) for w in re.findall(r"[a-z0-9&'-]+", _norm_label(found.row.label)))
    asked = " ".join(_singular(w) for w in re.findall(r"[a-z0-9&'-]+", question.lower().replace("\u2019", "'")))
    return len(label.split()) > 1 and re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", asked) is not None


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _part_asked(question: str, concept: Concept, statements: list[Statement], company_words: set[str]) -> Found | None:
    """The part of ``concept`` the question names just before it, when the statement prints
    that part as its own row under the concept's heading ("membership fee revenue" is the
    "Membership fees" row under "Revenue"; "subscription revenue" the "Subscription" row).
    The whole qualifier must be the row's label (plurals folded): "data center revenue" is no
    row of a statement that prints "Products" and "Services"."""
    q = question.lower().replace("\u2019", "'")
    parts = components(concept, statements)
    best: tuple[int, Found] | None = None
    for w in concept.words:
        m = re.search(w, q)
        if not m:
            continue
        before = [_singular(x.strip("'.")) for x in re.findall(r"[a-z0-9&'.-]+", q[:m.start()])]
        after = [_singular(x.strip("'.")) for x in re.findall(r"[a-z0-9&'.-]+", q[m.end():])]
        if after[:1] in (["from"], ["of"]):  # "revenue from membership fees"
            after = after[2:] if after[1:2] == ["the"] else after[1:]
        else:
            after = []
        for f in parts:
            label = [_singular(x) for x in re.findall(r"[a-z0-9&'-]+", _norm_label(f.row.label))]
            n = len(label)
            if not n:
                continue
            named_before = before[-n:] == label and (len(before) == n or _neutral(before[-n - 1], company_words))
            named_after = after[:n] == label and (len(after) == n or _neutral(after[n], company_words)
                                                  or after[n] in _CLAUSE_END)
            if (named_before or named_after) and (best is None or n > best[0]):
                best = (n, f)
        break
    return best[1] if best else None


# Words that end the phrase naming a line item ("net income attributable to X | in fiscal 2021").
_CLAUSE_END = frozenset("in for during at as on over between ended ending through and or did does do was were is are "
                        "has have had reported report".split())
# What "attributable to ..." may name and still mean the bottom line the statement prints.
_OWNERS = frozenset("common shareholders stockholders shareowners share stock holders owners parent company "
                    "corporation inc".split())
_NARROWING = re.compile(r"^\s*(attributable to|including|excluding|excluding the effects? of|from|before|after|net of|"
                        r"related to|allocated to|generated by|of)\s+(.*)$")


# The filing or statement the figure is read from, named after the line item.
_SOURCE_NAMED = re.compile(r"(the |its |their |this |that )?(company's )?(consolidated |condensed |audited )*"
                           r"(statements? of [a-z' ]+|([a-z&']+ ){0,2}statements?\b|balance sheets?|10-?[kq]\b|"
                           r"(annual|quarterly) report|filing|form 10-?[kq]|financials?\b)")


def _narrowing_follows(question: str, concept: Concept) -> bool:
    """Does the concept's name go on with "attributable to", "from", "including", …?"""
    q = question.lower().replace("\u2019", "'")
    m = next((m for w in concept.words if (m := re.search(w, q))), None)
    nm = _NARROWING.match(q[m.end():]) if m else None
    return bool(nm and not _SOURCE_NAMED.match(nm.group(2)))


def _narrowed(question: str, concept: Concept, row_label: str, company_words: set[str]) -> bool:
    """Does the question narrow the line item with words the row does not print ("net income
    attributable to noncontrolling interests", "net income from continuing operations",
    "revenue from membership fees")? Then the row found for the concept is not what is asked:
    no computed answer (retrieval finds the figure, or nothing is shown as computed)."""
    q = question.lower().replace("\u2019", "'")
    label = {_singular(w) for w in re.findall(r"[a-z0-9&'-]+", _norm_label(row_label))}
    for w in concept.words:
        m = re.search(w, q)
        if not m:
            continue
        nm = _NARROWING.match(q[m.end():])
        if not nm or _SOURCE_NAMED.match(nm.group(2)):
            return False  # "from the income statement", "from its 10-K": where, not which part
        for word in re.findall(r"[a-z0-9&'.-]+|[?,;:]", nm.group(2)):
            word = word.strip("'.")
            if word in "?,;:" or word in _CLAUSE_END or re.fullmatch(r"(fy|q[1-4])?'?\d{2,4}|fiscal|year", word):
                break
            if _singular(word) in label or word in _OWNERS or word in {"the", "its"} or _neutral(word, company_words):
                continue
            return True
        return False
    return False


_LOSS_WORD = re.compile(r"\bloss(es)?\b", re.I)
_PROFIT_WORDS = re.compile(r"\b(income|earnings|profit)\b", re.I)


def _loss_read(label: str, value: float, question: str) -> tuple[float, str]:
    """(amount shown, what it is) for a bottom-line row that may be a loss. A row named only
    as a loss ("Net loss (660)") is a loss of 660, whichever way the filer signs it: the label
    already says the direction. A profit row asked as a loss ("net loss" of a profitable
    year), or a loss in a profit row ("Net income (loss) (660)"), is said in words, never
    left as a bare sign the reader must interpret."""
    asked_loss = bool(_LOSS_WORD.search(question)) and not _PROFIT_WORDS.search(question)
    if _LOSS_WORD.search(label) and not _PROFIT_WORDS.search(label):
        return abs(value), ""
    if value < 0 and (asked_loss or _LOSS_WORD.search(label)):
        return value, "a loss"
    if value > 0 and asked_loss:
        return value, "a profit, not a loss"
    return value, ""


# Words a question uses to ask for a statement figure; a capitalised word outside them (and
# outside the company's own names, months and sentence starts) names a part of the company
# -- a segment, region, product or business ("Greater China", "Digital Marketing", "AWS",
# "Regulated Businesses") -- whose figure is no line of the primary statements.
_STATEMENT_WORDS = frozenset("""
revenue revenues net sales sale income operating operations total cost costs goods sold gross profit margin margins ebit
ebitda cash flow flows statement statements balance sheet sheets capital expenditure expenditures capex free working current
ratio quick assets asset liabilities liability equity shareholders stockholders shareowners return returns on of interest
expense expenses tax taxes depreciation amortization d&a dividend dividends per share shares earnings diluted basic eps
inventory inventories receivable receivables payable payables days turnover fixed property plant equipment pp&e ppe
activities provided used financial position comprehensive unadjusted adjusted gaap usd us u.s. dollars dollar millions
billions thousands million billion thousand answer year fiscal quarter half fy roa roe dpo dso dio ccc yoy cagr capital
cfo fcf cogs sg&a r&d p&l opex ebit nopat ttm ltm qoq ytd fye fyq ye sec research development selling general administrative long-term short-term debt investments marketable
securities retained accumulated other the a an and or in for to from by with
inc inc. corp corp. corporation company co co. ltd plc llc group holdings incorporated
""".split())
_MONTH_WORDS = frozenset("january february march april may june july august september october november december "
                         "jan feb mar apr jun jul aug sep sept oct nov dec".split())


# a growth asked as a rate ("by what percentage", "growth rate", "how much did it grow in %")
_GROWTH_IN_PERCENT = re.compile(r"\b(?:by\s+how\s+much|percent(?:age)?|growth\s+rate)\b|%", re.I)
# the filing named as the source ("eBay's 2021 Form 10-K", "the Annual Report"): no part of the company
_FILING_WORDS = frozenset({"form", "annual", "quarterly", "report", "filing", "release", "press", "earnings", "proxy"})


def _names_a_part(question: str, company_words: set[str]) -> bool:
    """Does the question name a segment, region, product or business by a capitalised name?"""
    for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9&.'\u2019-]*", question):
        word = m.group(0)
        if not any(ch.isupper() for ch in word) or word == "I":  # "iPhone" counts too
            continue
        before = question[:m.start()].rstrip(" \"'(\u201c")
        if (not before or before[-1] in ".?!:;\n") and word[0].isupper() and not any(ch.isupper() for ch in word[1:]):
            continue  # a sentence start
        w = re.sub(r"['\u2019]s?$", "", word).lower().rstrip(".")
        if re.fullmatch(r"(fy|q[1-4]|h[12])?\d*|\d+-[kq]|8-k|10-k405", w) or find_periods(word).mentions:
            continue  # a period ("1Q23", "FY'22": the one period parser reads it) or a form ("10-K")
        if w.upper() in CURRENCY_CODES or (
                re.fullmatch(r"m|mm|mn|b|bn|k", w) and question[m.start() - 1:m.start()] == "$"):
            continue  # the unit the answer is wanted in ("($M)", "$bn", "EUR"); a lone "M" or "B" is a name
        known = _STATEMENT_WORDS | _MONTH_WORDS | _FILING_WORDS | company_words
        if w in known or all(part in known or part.isdigit() for part in w.split("-") if part):
            continue  # statement wording, a month, the company's own name ("Coca-Cola's")
        return True
    return False


def _norm_label(label: str) -> str:
    return " ".join(label.lower().replace("\u2019", "'").split()).strip(" :")


def _is_lookup(question: str, concept: Concept) -> bool:
    """Does the question ask for the line item itself (not a trend, a ratio, a part of it)?"""
    if concept.unit == "shares":  # "how many diluted shares were used in computing EPS"
        rest = _EPS_WORDING.sub(" ", question)
        return bool(_LINE_ITEM_ASK.search(question) or _HOW_MANY.search(question)) and not _NOT_A_LOOKUP.search(rest)
    rx = _NOT_A_LOOKUP_PER_SHARE if concept.unit == "per_share" else _NOT_A_LOOKUP
    return bool(_LINE_ITEM_ASK.search(question)) and not rx.search(question)


def asks_shares_outstanding(question: str) -> bool:
    """Is the question after the common shares outstanding (the cover page's count)?"""
    return bool(_SHARES_OUTSTANDING.search(question)) and not _NOT_COVER_SHARES.search(question) \
        and bool(_LINE_ITEM_ASK.search(question) or _HOW_MANY.search(question))


# "the CAGR of X", "X's 2-year CAGR", "the growth rate of X", "X growth rate": the measure a growth is of
_GROWTH_OF = re.compile(
    r"\b(?:cagr|compound\s+annual\s+growth(?:\s+rate)?|growth\s+rate|(?:yoy|year[- ]over[- ]year)\s+growth)\s+(?:of|in|for)\s+"
    r"(?:the\s+|its\s+|their\s+|[\w.&-]+(?:'s|\u2019s)\s+)?(?P<a>[a-z][\w ,&'-]{3,60}?)\s*(?=$|[?;.]|\s(?:from|between|in|for|over|during)\s)"
    r"|(?:'s|\u2019s|\bthe|\bits)\s+(?:\d[- ]year\s+|two[- ]year\s+|three[- ]year\s+)?(?P<b>[a-z][\w ,&'-]{3,60}?)\s+"
    r"(?:cagr|compound\s+annual\s+growth|growth\s+rate)\b", re.I)


def measure_label(question: str) -> Concept | None:
    """The printed label a growth or CAGR question names when no concept of the table does."""
    m = _GROWTH_OF.search(parse_question(question).question)
    if m is None:
        return None
    text = re.sub(r"^(?:\d[- ]year|two[- ]year|three[- ]year)\s+", "", (m.group("a") or m.group("b")).strip(), flags=re.I)
    return label_concept(text) if len(text.split()) >= 2 else None


def wants_calculation(question: str) -> bool:
    """Does the question ask for a statement figure or a metric at all? (cheap, text only)"""
    if _EXPLAIN.search(without_conditional_asides(question)):
        return False
    if metric_in(question) is not None or asks_shares_outstanding(question) or _defines_a_formula(question):
        return True
    if judgement_in(question) is not None and read_question(question).ask == "yesno":
        return True
    if ratio_asked(question) is not None:
        return True
    concepts = named_in(question)
    if not concepts:
        return measure_label(question) is not None
    return bool(_CAGR.search(question) or _GROWTH.search(question) or _is_lookup(question, concepts[0])
                or trend_asked(question) is not None or _EXISTENCE.match(question) is not None
                or (_SUM_YEARS.search(question) and len(find_periods(question).years) >= 2))


def _defines_a_formula(question: str) -> bool:
    """The question writes the formula of what it asks ("the efficiency ratio, computed as total
    noninterest expense divided by total net revenue"), in words the calculator reads: a
    metric of the question's own, whatever its name."""
    return any(metric_from_definition(term, formula, None) is not None
               for term, formula in parse_question(question).instructions.definitions.items())


_CONSOLIDATED = re.compile(r"\bconsolidat", re.I)


def primary_first(statements: list[Statement]) -> list[Statement]:
    """A 10-K's five-year summary ("Selected Financial Data": a few rows over more years than
    any primary statement prints, at most three fiscal years or balance-sheet dates) after the
    statements it summarises. The figures agree where both print them, but the answer cites
    the statement itself; a year only the summary prints is still read from it. Otherwise the
    page order stands (row counts are no guide: a condensed consolidating balance sheet of the
    guarantor note has more rows than the balance sheet)."""
    def summary(s: Statement) -> bool:
        years = {p.end for p in s.periods if p.months == 12}
        dates = {p.end for p in s.periods if p.months == 0}
        return s.kind in ("income", "cash_flow", "balance") and (len(years) > 3 or len(dates) > 3)

    # a kind the filing prints as "Consolidated ...": a statement of it without that word (a
    # guarantor group's "Summarized Statement of Income", a parent-only schedule) is another
    # entity's, after the company's own
    consolidated = {s.kind for s in statements if _CONSOLIDATED.search(s.title)}

    def other_entity(s: Statement) -> bool:
        return s.kind in consolidated and not _CONSOLIDATED.search(s.title)

    return sorted(statements, key=lambda s: (other_entity(s), summary(s)))


def calculate(question: str, docs: list[Document], statements_of, page_text, scale_hint: str = "",
              decimals_hint: int | None = None, page_label: Callable[[str, int], str] | None = None) -> Outcome | None:
    """The computed answer from the first document that has every input; an honest refusal
    naming what is missing when a metric was asked and no document has it; None when the
    question is no statement/metric question (the caller answers it by retrieval)."""
    question = plain_question(question)  # "Quick question - ...", "really", "... Thanks!": not asked
    if not docs or not wants_calculation(question):
        return None
    is_metric = metric_in(question) is not None or bool(_CAGR.search(question))
    periods = find_periods(question)
    quarters = {(m.year, m.quarter) for m in periods.mentions if m.year and m.quarter}
    years = periods.years | {y for y, _ in quarters}
    if quarters:
        # "the first quarter of 2021": only the filing of that quarter has its three-month column
        # for sure (another 10-Q of the same calendar year has other quarters ending that year).
        # The quarter is the filer's or the file name's; the calendar quarter only when neither
        # names it. Two filings that both answer to it (Microsoft's fiscal Q3 2023 and the file
        # "2023 Q3 MSFT.pdf") leave the question to retrieval.
        def named(kinds: tuple[str, ...]) -> list[Document]:
            return [d for d in docs if any(labelled_periods(d.meta, d.file_name)[k] & quarters for k in kinds)]

        docs = named(("fiscal", "file")) or named(("calendar",))
        if len(docs) != 1:
            return None
    docs = sorted(docs, key=lambda d: (-(d.meta.fiscal_year in years), -(d.meta.fiscal_year or 0), -(d.meta.fiscal_quarter or 0)))
    first_problem = ""
    for doc in docs:
        sts = primary_first(statements_of(doc.doc_id))
        if not sts:
            first_problem = first_problem or f"no primary financial statements were extracted from {doc.file_name}"
            continue
        try:
            out = Calculator(question, doc, sts, page_text, scale_hint, decimals_hint, page_label).run()
        except ReadTwoWays:
            return None  # retrieval: the filing's words say which reading they mean
        except CannotCompute as exc:
            first_problem = first_problem or str(exc)
            continue
        if out is not None:
            return out
    if is_metric and first_problem:
        return Outcome(f"Cannot compute: {first_problem}.", [], None)
    return None
