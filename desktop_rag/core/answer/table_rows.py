"""The table-row retry (issue #12): a figure read off a table of the retrieved pages, no model.

When the model's answer fails verification, the figure asked is often printed in a table whose
row label does not name all of it: "Intelligent Cloud 22,081 18,987 16% ..." under the heading
"Revenue" of "SEGMENT RESULTS OF OPERATIONS", "Services 20,907 ..." under "Net sales by
category:". No single sentence carries the question's words, so the verifier (rightly) takes no
sentence as support, and the small model, reading bare rows, picks the wrong column or another
row. Here the row is read as the table prints it: its label, the heading above it (the row's
parent) and the table's own heading name what it is; the column heading names the period. A
figure is given only when

- the row's label, parent and table heading carry what was asked (``carries_concept``, the
  verifier's rule, over the question's concept without its period words, which the column
  answers, and without words the page never prints, which no label of it can hold), the
  label itself names part of it, and every measure the question names ("revenue", "operating
  income") is among them;
- the column is the asked period's: the asked length (a quarter, nine months, a year) ending at
  the filing's own period end, or in the asked year;
- no other row of the pages qualifies as well with another figure.

The cells are assigned to columns by their printed position (``statements.columns.period_tables``,
which needs the page's character boxes), so a change or percent column between the periods is
never read as a period's figure. The answer quotes the row and its column heading, exact text of
the page.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.core.answer.verify import Passage, asks_for_explanation, asks_for_figure, carries_concept
from desktop_rag.core.calculate.calculator import months_asked
from desktop_rag.core.domain.measures import asked_measures as measures_asked
from desktop_rag.core.domain.measures import asks_sales_by_verb, is_count_label, measure_modifiers, measure_terms
from desktop_rag.core.domain.numbers import nearest_scale
from desktop_rag.core.domain.periods import column_period_name, find_periods
from desktop_rag.core.domain.question import format_figure, read_question
from desktop_rag.core.domain.terms import QUESTION_NOISE, STOPWORDS, tokenize
from desktop_rag.core.domain.types import Citation, Document
from desktop_rag.core.ingest.pdf import PageText
from desktop_rag.core.ingest.statements.columns import (
    PeriodTable,
    boxed_page,
    group_named,
    part_name,
    part_named,
    period_tables,
    segment_title_above,
)
from desktop_rag.core.ingest.statements.model import Cell, Period, Row

log = logging.getLogger(__name__)

# Words of the period a column heading answers ("nine months", "first quarter", "fiscal year"):
# no row label prints them, so they are no part of what a row must name.
_PERIOD_WORDS = frozenset(tokenize(
    "one two three four six nine twelve month months week weeks quarter quarters year years first second third "
    "fourth half fiscal ended ending ytd date q1 q2 q3 q4 fy annual quarterly period periods"))
# The measures a question may name, as the tokenizer reads them ("net sales" -> revenue,
# "operating income" -> opincome): a row of another measure is no answer, however well its
# label names the segment asked.
_MEASURE_TOKENS = measure_terms()
# a word written with a capital anywhere: "Services", "Intelligent", "iPhone", "AWS"
_CAPITALISED = re.compile(r"(?<![\w'’])[a-z]*[A-Z][\w&'’.-]*")
# measures a heading names by their own term (the tokenizer's aliases), not the generic words
# every table of amounts uses ("expense", "cost")
_NAMED_MEASURES = frozenset(("revenue", "netincome", "opincome", "grossmargin", "opcashflow", "fcf", "capex", "cogs",
                             "opex", "eps", "buyback", "sbc", "dna", "rnd", "sga", "etr", "dividend", "impairment"))
_PERCENT_TABLE = re.compile(r"\b(?:percent(?:age)?s?\s+of|as\s+a\s+(?:percent(?:age)?|share)\b)", re.I)
_PERCENT_ASKED = re.compile(r"%|\bpercent|\bratio\b|\brate\b|\bshare\s+of\b|\bas\s+a\s+share\b", re.I)
_TOTAL_WORDS = frozenset(tokenize("total totals net")) | {"total"}
# a change asked beside the figure ("how did ... change", "how fast did ... grow", "growth rate"):
# computed from the row's two cells
_CHANGE_ASKED = re.compile(r"\b(?:chang\w*|grow\w*|growth|increas\w*|decreas\w*|declin\w*|yoy|"
                           r"year[-\s]over[-\s]year)\b", re.I)
_GROWTH_RATE = re.compile(r"\b(?:growth|change)\s+rate\b|\brate\s+of\s+(?:growth|change)\b", re.I)
# "... and what share of the company was that?": the row's share of its table's total, computed
_SHARE_OF_WHOLE = re.compile(r"\b(?:share|percent(?:age)?|portion|proportion)\s+of\s+(?:the\s+)?"
                             r"(?:company|total|firm|whole|consolidated|overall)\b", re.I)
# "Did Amazon buy back any stock ...?": a yes or no, which a bare figure does not say
_YES_NO_QUESTION = re.compile(r"^\s*(?:did|does|do|is|was|were|has|have|had|are|can|will|would)\b", re.I)
# "How much cash did Netflix spend on content assets in 2017?": an amount that flowed during a
# period, which no balance at a date answers ("Cash and cash equivalents $ 2,822,795")
_FLOW_ASKED = re.compile(r"\b(?:spen[dt]|spending|pa(?:y|id)|generated?|earn(?:ed)?|invest(?:ed)?|purchas(?:e|ed)|"
                         r"repurchas(?:e|ed)|b(?:uy|ought)|raised?|borrow(?:ed)?|repa(?:y|id)|acquired?|incurr(?:ed)?|"
                         r"during)\b", re.I)
# the filing's period end and a column's may differ by a few days (52/53-week calendars)
_SAME_END_DAYS = 7


@dataclass
class RowAnswer:
    """A figure read off a table row: the answer's text and its quotes (the row, then its
    column heading), with the row and period it came from."""

    text: str
    citations: list[Citation]
    row: Row
    period: Period
    value: float


@dataclass
class _Candidate:
    named: float  # the share of what was asked the row's label and parent name (idf-weighted)
    extra: int  # words of the row's label and parent, and its table's total, the question does not use
    with_heading: float  # the share with the table's heading
    label_terms: int
    value: float
    table: PeriodTable
    row: Row
    period: Period
    passage: Passage
    wanted: set[str]
    question: str


    @property
    def rank(self) -> tuple[float, int, float, int]:
        return -self.named, self.extra, -self.with_heading, -self.label_terms


def _share(present: set[str], wanted: set[str], idf: dict[str, float] | None) -> float:
    weights = {t: max(0.1, (idf or {}).get(t, 1.0)) for t in wanted}
    return round(sum(weights[t] for t in present) / sum(weights.values()), 6)


BoxedPage = Callable[[Document, int, str], PageText | None]


def _unprinted_modifier(question: str, asked_measures: set[str], printed: set[str]) -> str:
    """A lower-case word of the asked measure's own phrase that none of the pages prints
    ("annualized recurring revenue", "organic net sales", "adjusted EBITDA"), else "". Such a
    word makes another measure than the tables' rows: Adobe's "Digital Media" revenue row is no
    answer to its Digital Media *annualized recurring* revenue. (A word elsewhere in the
    question, "covered", "sell", only goes unasked of the rows.)"""
    words = re.findall(r"[A-Za-z][\w&'’-]*", question)
    for i, word in enumerate(words):
        if not set(tokenize(word)) & asked_measures:
            if i == 0 or not set(tokenize(f"{words[i - 1]} {word}")) & asked_measures:
                continue
            i -= 1  # a measure of two words ("net sales"): its phrase starts one word earlier
        modifiers = 0
        for j in range(i - 1, max(-1, i - 5), -1):
            before = words[j]
            toks = set(tokenize(before))
            if (before.lower() in STOPWORDS or before[0].isupper() or re.search(r"\d", before)
                    or toks & (asked_measures | _PERIOD_WORDS)):
                break  # the phrase begins after a preposition, a name or a period
            if before.lower() in QUESTION_NOISE or not toks or not toks <= set(tokenize(" ".join(words[j:i + 2]))):
                continue  # "how much", "total": no part of what is measured; "net" of "net revenue" is its name
            if toks - printed:
                return before
            modifiers += 1
            if modifiers == 2:
                break
    return ""


def table_row_answer(question: str, concept: set[str], passages: list[Passage],
                     idf: dict[str, float] | None, page_of: BoxedPage = boxed_page) -> RowAnswer | None:
    """The asked figure from a table row of the passages' pages (see the module's docstring),
    or None when no row names what was asked in the asked period's column, or two rows do
    with different figures. ``passages``: the asked company's, best first."""
    if not concept or asks_for_explanation(question) or _YES_NO_QUESTION.match(question):
        return None
    question_terms = set(tokenize(question))
    # what the question asks, not the analyst's instructions around it ("answer in USD billions")
    concept = concept & question_terms
    if not (question_terms & _MEASURE_TOKENS) and not asks_for_figure(question) and not asks_sales_by_verb(question):
        return None  # "How important was NIKE Direct?": neither a measure nor a figure asked
    # a growth rate or a share of the whole is computed from the amounts' cells (``_answer``)
    percent_asked = bool(_PERCENT_ASKED.search(_SHARE_OF_WHOLE.sub(" ", _GROWTH_RATE.sub(" ", question))))
    margin_asked = bool(re.search(r"\bmargins?\b", question, re.I))  # an amount or a percentage, as filers print it
    # "How much did the segment sell": its net sales too; "share of the company" and "growth rate"
    # ask no measure "share" or "rate"
    asked_measures = measures_asked(_SHARE_OF_WHOLE.sub(" ", _GROWTH_RATE.sub(" ", question)))
    # what the question names with capitals ("Intelligent Cloud", "Greater China", "Services"): the
    # subject a row must name itself, never through its table's heading or another page's words
    subject = concept & set(tokenize(" ".join(_CAPITALISED.findall(question))))
    pages: dict[tuple[str, int], Passage] = {}
    for p in passages:
        if p.page:
            pages.setdefault((p.hit.chunk.doc_id, p.hit.chunk.page), p)
    printed = set().union(*(tokenize(p.page) for p in pages.values())) if pages else set()
    # what a row must name: the concept less the period's words (the column answers them) and
    # less the question's own words that none of the pages prints ("covered", "sell"): no label
    # holds them. A word one of the pages prints stays asked of every page's rows.
    wanted = {t for t in concept if t not in _PERIOD_WORDS and (t in printed or t in subject)}
    ranking = _RANKING.search(question)
    if ranking is None and read_question(question).ask in ("ranking", "comparison"):
        return None  # a ranking of parts this reader cannot rank: one row's figure is no answer to it
    # "the highest net income" asks a ranking of the measure, no other measure
    plain = question[:ranking.start("how")] + question[ranking.end("how"):] if ranking else question
    if not wanted or not asked_measures <= printed or _unprinted_modifier(plain, asked_measures, printed):
        return None
    if ranking:
        # "Which segment had the highest net income?": every segment's row of that measure and period
        return _ranked_answer(question, ranking.group("how").lower() in _LOWEST, set(tokenize(ranking.group("what"))),
                              asked_measures, question_terms, list(pages.values()), page_of)
    # the most distinctive of it ("services", "intelligent") is the row's own, never only the
    # table heading's ("Products and Services Performance" over "Total net sales")
    top = max(wanted, key=lambda t: (max(0.1, (idf or {}).get(t, 1.0)), t))
    candidates: list[_Candidate] = []
    for p in pages.values():
        page = page_of(p.hit.doc, p.hit.chunk.page, p.page)
        if page is None:
            continue
        annual = p.hit.doc.meta.form_type.upper().startswith(("10-K", "20-F"))
        for table in period_tables(page, annual=annual):
            period = asked_period(question, p.hit.doc, table.statement.periods)
            if period is None:
                continue
            rows = table.statement.rows
            # a segment's column group ("Corporate & Investment Bank" over "2022 2021 Change") answers
            # only a question naming that segment; its name is then the rows' own
            if not group_named(table.part, question_terms):
                continue
            part = part_name(table.part)
            heading = set(tokenize(f"{table.statement.title} {page.text[table.header[0]:table.header[1]]}"))
            # a table of one measure may name it only in its heading or its total ("The following
            # table presents segment net sales": "Optical Communications 5,023 4,349"; "Total
            # revenue"), a table of several never
            measures = set().union(*(set(tokenize(f"{r.label} {r.parent}")) & _MEASURE_TOKENS for r in rows))
            one_measure = asked_measures <= heading | measures and measures <= asked_measures
            # its total names what the table adds up: "Total subscription revenue" is a part of the
            # revenue asked, not the revenue ("subscription" is not asked)
            totals = set().union(*(set(tokenize(r.label)) for r in rows if r.label.lower().startswith("total")))
            other_total = len(totals - question_terms - _TOTAL_WORDS - _PERIOD_WORDS)
            # a heading naming a measure no row does ("include stock-based compensation expense, as
            # follows": "Research and development 524") makes every row a part of that measure
            if (heading & _NAMED_MEASURES) - asked_measures - measures:
                continue
            part_title = segment_title_above(page.text, table.header[0])
            # "certain items ... expressed as a percentage of revenue": shares, not the amounts
            in_percent = bool(_PERCENT_TABLE.search(table.statement.title))
            for row in table.statement.rows:
                cell = row.cell_for(period.end, period.months)
                if cell is None or cell.value is None:
                    continue
                shares = in_percent or row.unit == "percent"
                if (shares and not (percent_asked or margin_asked)) or (percent_asked and not shares):
                    continue  # a share for an amount asked, or an amount for a share
                label = set(tokenize(row.label))
                named = label | set(tokenize(row.parent)) | part
                context = named | heading
                # the measure is the row's own (its label or the heading above it): a table
                # introduced as "Segment revenue and operating income" holds both measures' rows
                if not label & wanted or top not in named or not subject <= named or not (
                        asked_measures <= named or (one_measure and not other_total)):
                    continue
                if not carries_concept(sorted(context), wanted, idf):
                    continue
                if subject & label and _names_another_part(row.label, question_terms):
                    continue
                if _another_measure(row, table.statement.title + " " + page.text[table.header[0]:table.header[1]],
                                    asked_measures, question_terms):
                    continue
                if part_title and not part_named(part_title, question_terms) and not (subject and subject <= named):
                    # "Revenues 6,153,025" of Netflix's "Domestic Streaming Segment" table is that
                    # segment's revenue, not the company's (the verifier's rule, `column_problem`);
                    # a row naming the asked part itself ("Greater China") is that part's
                    continue
                candidates.append(_Candidate(_share(wanted & named, wanted, idf),
                                             len(named - question_terms) + other_total,
                                             _share(wanted & context, wanted, idf),
                                             len(label & wanted), cell.value, table, row, period, p, wanted,
                                             question))
    if not candidates:
        return None
    candidates.sort(key=lambda c: c.rank)
    best = candidates[0]
    # without a measure asked ("What operating result did the segment post?") the fewest extra
    # words do not tell the segment's revenue row from its operating-loss row: any row naming
    # it as well is a rival
    rivals = [c for c in candidates[1:] if c.rank == best.rank or (
        not asked_measures and (c.named, c.with_heading) == (best.named, best.with_heading))]
    if any(c.value != best.value for c in rivals):
        return None  # two rows name it as well, with different figures: no guess
    return _answer(best)


# "Which of the business segments had the lowest net revenue?", "which segment posted the
# largest operating income": a ranking of the parts' rows, not one row
_RANKING = re.compile(
    r"\bwhich\b[^?]*?\b(?P<what>segments?|divisions?|regions?|businesses|business\s+units?|reportable\s+units?|"
    r"operating\s+units?|geograph(?:y|ies|ic\s+areas?))\b[^?]*?"
    r"\b(?P<how>highest|largest|most|greatest|biggest|lowest|smallest|least|fewest)\b", re.I)
_LOWEST = frozenset(("lowest", "smallest", "least", "fewest"))
# "Net income/(loss)", "Operating income (loss)": the measure with its sign, no second measure
_LOSS_SIGN = re.compile(r"/?\(\s*loss(?:es)?\s*\)", re.I)


@dataclass
class _Ranked:
    part: str  # the segment: the row's label, or the column group's name
    value: float
    row: Row
    table: PeriodTable
    period: Period
    passage: Passage


def _ranked_answer(question: str, lowest: bool, parts_asked: set[str], asked: set[str], question_terms: set[str],
                   passages: list[Passage], page_of: BoxedPage) -> RowAnswer | None:
    """The segment with the highest (or lowest) figure of the asked measure in the asked period,
    over one table's segment rows (label: the segment; heading above or table title: the
    measure) or over a bank's column groups (group: the segment; label: the measure), every
    segment's row quoted. The table must say its rows are what the question ranks
    (``parts_asked``: "segment" of "SEGMENT RESULTS", "Segment results – managed basis"): a
    segment's own table of regions ("International metrics": "Asia-Pacific 514") ranks no
    segments. None unless one table prints at least two segments' figures of that measure, or
    when two tables on the pages rank them differently."""
    if not asked:
        return None
    rankings: list[list[_Ranked]] = []
    for p in passages:
        page = page_of(p.hit.doc, p.hit.chunk.page, p.page)
        if page is None:
            continue
        annual = p.hit.doc.meta.form_type.upper().startswith(("10-K", "20-F"))
        # a table's segment rows; a page's column groups together, per period (a bank prints its
        # segments as two tables of groups, "Consumer & Community Banking ..." then "Asset &
        # Wealth Management Corporate Total"), each group's row of the measure or None
        by_heading: dict[tuple[int, int], list[_Ranked]] = {}
        groups: dict[tuple[str, int], list[_Ranked | None]] = {}
        groups_named = False
        for table in period_tables(page, annual=annual):
            period = asked_period(question, p.hit.doc, table.statement.periods)
            if period is None:
                continue
            heading_text = f"{table.statement.title} {page.text[table.header[0]:table.header[1]]}"
            heading = set(tokenize(heading_text))
            says_parts = bool(parts_asked & (heading | set(tokenize(segment_title_above(page.text, table.header[0])))))
            rows = table.statement.rows
            if table.part:
                # a column group is the segment; the row's label names the measure
                groups_named = groups_named or says_parts
                found = [row for row in rows if asked <= set(tokenize(row.label)) and row.unit != "percent"
                         and not set(tokenize(_LOSS_SIGN.sub(" ", row.label))) & _MEASURE_TOKENS - asked
                         and not _another_measure(row, heading_text, asked, question_terms)]
                cell = found[0].cell_for(period.end, period.months) if len(found) == 1 else None
                groups.setdefault((period.end, period.months), []).append(
                    _Ranked(table.part, cell.value, found[0], table, period, p)
                    if cell is not None and cell.value is not None else None)
                continue
            if not says_parts:
                continue
            parts = by_heading.setdefault(table.header, [])
            measures = set().union(*(set(tokenize(f"{r.label} {r.parent}")) & _MEASURE_TOKENS for r in rows))
            one_measure = asked <= heading | measures and measures <= asked
            for row in rows:
                cell = row.cell_for(period.end, period.months)
                if cell is None or cell.value is None or row.unit == "percent":
                    continue
                label = set(tokenize(row.label))
                if row.label.lower().startswith("total") or label & _MEASURE_TOKENS or _another_measure(
                        row, heading_text, asked, question_terms):
                    continue
                if asked <= set(tokenize(row.parent)) or (one_measure and not row.parent):
                    # a segment's row under the measure's heading ("Net sales" / "Aeronautics 26,748")
                    parts.append(_Ranked(row.label, cell.value, row, table, period, p))
        rankable = list(by_heading.values())
        if groups_named:
            # every group of the page, or none: a group whose row of the measure was not read
            # would leave the ranking without a segment that may be the answer
            rankable += [[g for g in gs if g is not None] for gs in groups.values() if None not in gs]
        for parts in rankable:
            # one figure per segment (a group's row printed once)
            seen: dict[str, _Ranked] = {}
            for r in parts:
                seen.setdefault(r.part, r)
            if len(seen) >= 2 and len({(r.period.end, r.period.months) for r in seen.values()}) == 1:
                rankings.append(list(seen.values()))
    if not rankings:
        return None
    winners = {(min if lowest else max)(r, key=lambda x: x.value).part for r in rankings}
    if len(winners) != 1:
        return None  # two tables rank the segments differently: no guess
    ranked = sorted(rankings[0], key=lambda x: x.value, reverse=not lowest)
    best = ranked[0]
    st = best.table.statement
    page_text = best.passage.page
    scale = st.scale if st.scale != "units" else (nearest_scale(page_text[:best.row.span[0]]) or "units")
    money = "$" in page_text[best.table.header[0]:best.row.span[1]] or scale in ("thousands", "millions", "billions")
    measure = best.row.label if best.table.part else (best.row.parent or st.title)
    when = column_period_name(best.period, prose=True)

    def figure(r: _Ranked) -> str:
        cell = r.row.cell_for(r.period.end, r.period.months)
        assert cell is not None
        return _figure(r.row, cell, scale, money)

    others = "; ".join(f"{r.part} {figure(r)}" for r in ranked[1:])
    text = (f"{best.part}: {figure(best)} of {measure.strip().rstrip(':')} {when}, the "
            f"{'lowest' if lowest else 'highest'} of the {len(ranked)} segments the table prints ({others}).")
    hit = best.passage.hit
    chunk = hit.chunk
    cites = [Citation(chunk.doc_id, hit.doc.file_name, chunk.page, page_text[r.row.span[0]:r.row.span[1]],
                      r.row.span[0], chunk.chunk_id) for r in ranked]
    # each table's column heading (a bank's groups may be printed under two headings)
    cites += [Citation(chunk.doc_id, hit.doc.file_name, chunk.page, page_text[h[0]:h[1]], h[0], chunk.chunk_id)
              for h in dict.fromkeys(r.table.header for r in ranked)]
    unique = list({(c.char_start, c.quote): c for c in cites}.values())
    return RowAnswer(text, unique, best.row, best.period, best.value)


def _names_another_part(label: str, question_terms: set[str]) -> bool:
    """The row's label names its part with a capitalised word the question does not use: the
    row "Intelligent Cloud" is another part than the "Microsoft Cloud" asked, though both say
    "Cloud" (the company's name left the question's subject one shared word)."""
    # the label's own terms ("Research and development" is rnd) that a capitalised word gives
    named = set(tokenize(label)) & set(tokenize(" ".join(_CAPITALISED.findall(label))))
    return bool(named - question_terms - _TOTAL_WORDS - _MEASURE_TOKENS - _PERIOD_WORDS - STOPWORDS)


def _another_measure(row: Row, heading: str, asked: set[str], question_terms: set[str]) -> bool:
    """The row holds another measure than the asked one of the same name: the nearest of its
    label, the heading above it and its table's heading that names the asked measure qualifies
    it with a word the question does not use ("Unearned revenue by segment was as follows:"
    over "Intelligent Cloud 11,472": the segment's unearned revenue, no answer to its
    revenue). The label names the row's own measure, a heading only the rows it heads."""
    for text in (row.label, row.parent, heading):
        if asked & set(tokenize(text)):
            return bool(measure_modifiers(text, asked, question_terms))
    return False


def asked_period(question: str, doc: Document, periods: list[Period]) -> Period | None:
    """The column of the asked period: the asked length (``months_asked``; a table of
    instants answers at its dates) ending at the filing's own period end when the question
    names no other year, else ending in the one year it names."""
    months = months_asked(question, doc.meta.form_type)
    cols = [p for p in periods if p.months == months] or (
        [p for p in periods if p.months == 0] if not _FLOW_ASKED.search(question) else [])
    if not cols:
        return None
    found = find_periods(question)
    dates = {m.date for m in found.mentions if m.date}
    if dates:
        on = [p for p in cols if any(abs((dt.date.fromisoformat(p.end) - d).days) <= _SAME_END_DAYS for d in dates)]
        return on[0] if len({p.end for p in on}) == 1 else None
    years = {m.year for m in found.mentions if m.year}
    own_end = doc.meta.period_end
    own_years = {doc.meta.fiscal_year, int(own_end[:4]) if own_end[:4].isdigit() else None} - {None}
    if len(years) > 1 and not (years & own_years and all(any(p.year == y for p in cols) for y in years)):
        return None  # several years asked, not all printed beside the filing's own: a trend, not a row
    if len(years) > 1:
        years = years & own_years  # the filing's own year; the earlier ones are shown beside it
    if own_end and (not years or years & own_years):
        end = dt.date.fromisoformat(own_end)
        on = [p for p in cols if abs((dt.date.fromisoformat(p.end) - end).days) <= _SAME_END_DAYS]
        if on:
            return on[0]
    if years:
        on = [p for p in cols if p.year in years]
        return on[0] if len({p.end for p in on}) == 1 else None
    return None


def _figure(row: Row, cell: Cell, scale: str, money: bool) -> str:
    """The cell as an analyst reads it, with the decimals printed: "$3,095.2 million"."""
    value = cell.value or 0.0
    decimals = len(m.group(1)) if (m := re.search(r"\.(\d+)", cell.text)) else 0
    scaled = scale if scale in ("thousands", "millions", "billions") else ""
    if row.unit == "percent":
        return format_figure(value, "percent", decimals)
    if row.unit == "per_share":
        return format_figure(value, "", max(2, decimals), "USD")
    if row.unit == "shares" or is_count_label(row.label):
        return format_figure(value, scaled, decimals)
    return format_figure(value, scaled, decimals, "USD" if money else "")


def _answer(c: _Candidate) -> RowAnswer:
    st = c.table.statement
    page_text = c.passage.page
    row_quote = page_text[c.row.span[0]:c.row.span[1]]
    table_text = page_text[c.table.header[0]:c.row.span[1]]
    # the table's scale note, else the nearest above the row ("($ in millions)" under the years)
    scale = st.scale if st.scale != "units" else (nearest_scale(page_text[:c.row.span[0]]) or "units")
    money = "$" in table_text or scale in ("thousands", "millions", "billions")
    # the heading above the row when it names part of what was asked ("Intelligent Cloud (Revenue)")
    parent_names = bool(set(tokenize(c.row.parent)) & c.wanted - set(tokenize(c.row.label)))
    what = c.row.label + (f" ({c.row.parent})" if parent_names else "") + (f" ({c.table.part})" if c.table.part else "")
    cell = c.row.cell_for(c.period.end, c.period.months)
    assert cell is not None
    text = f"{what}: {_figure(c.row, cell, scale, money)} {column_period_name(c.period, prose=True)}"
    # the earlier years asked, else the same length a year earlier, as the table prints them beside
    asked_years = {m.year for m in find_periods(c.question).mentions if m.year} - {c.period.year}
    earlier = [p for p in st.periods if p.months == c.period.months and p.end < c.period.end and (
        p.year >= min(asked_years) if asked_years else  # "over fiscal 2018-2020": every year of the span
        350 <= (dt.date.fromisoformat(c.period.end) - dt.date.fromisoformat(p.end)).days <= 380)]
    shown = []
    for p in earlier:
        before = c.row.cell_for(p.end, p.months)
        if before is not None and before.value is not None:
            shown.append(f"{_figure(c.row, before, scale, money)} {column_period_name(p, prose=True)}")
    if shown:
        text += f" ({'; '.join(shown)})"
    amount = c.row.unit != "percent" and cell.value is not None
    year_before = [p for p in earlier if 350 <= (dt.date.fromisoformat(c.period.end) - dt.date.fromisoformat(p.end)).days
                   <= 380]
    if amount and _CHANGE_ASKED.search(c.question) and len(year_before) == 1 and not asked_years:
        before = c.row.cell_for(year_before[0].end, year_before[0].months)
        if before is not None and before.value and before.value > 0 and (cell.value or 0) >= 0:
            change = ((cell.value or 0) / before.value - 1) * 100
            text += f", {'up' if change >= 0 else 'down'} {abs(change):.1f}% (computed from the two cells)"
    hit = c.passage.hit
    chunk = hit.chunk
    cites = [Citation(chunk.doc_id, hit.doc.file_name, chunk.page, row_quote, c.row.span[0], chunk.chunk_id),
             Citation(chunk.doc_id, hit.doc.file_name, chunk.page, page_text[c.table.header[0]:c.table.header[1]],
                      c.table.header[0], chunk.chunk_id)]
    total = _total_row(c) if amount and _SHARE_OF_WHOLE.search(c.question) else None
    if total is not None:
        whole = total.cell_for(c.period.end, c.period.months)
        assert whole is not None and whole.value
        text += (f"; {(cell.value or 0) / whole.value * 100:.1f}% of {total.label} "
                 f"({_figure(total, whole, scale, money)}, computed)")
        cites.insert(1, Citation(chunk.doc_id, hit.doc.file_name, chunk.page, page_text[total.span[0]:total.span[1]],
                                 total.span[0], chunk.chunk_id))
    return RowAnswer(text + ".", cites, c.row, c.period, c.value)


def _total_row(c: _Candidate) -> Row | None:
    """The total the row is a part of: the first row after it in its table, under the same
    heading, whose label begins "Total" and which prints a positive figure in the same column
    ("Total net sales" under "Net sales", after "Missiles and Fire Control")."""
    rows = c.table.statement.rows
    for row in rows[rows.index(c.row) + 1:]:
        if row.parent != c.row.parent:
            return None
        if row.label.lower().startswith("total"):
            cell = row.cell_for(c.period.end, c.period.months)
            return row if cell is not None and cell.value and cell.value > 0 else None
    return None
