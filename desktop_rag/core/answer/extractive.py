"""The extractive answer: the passage sentence(s) or table row(s) that best answer the
question, quoted verbatim (with a table's column headings, and for "how much" the figure
with its unit, scale and period). Used when the model's wording fails verification or no
model is loaded."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from desktop_rag.core.answer.asks import (
    MAX_ASK_QUOTES,
    Ask,
    answered,
    answering_units,
    ask_bonus,
    counts_a_part,
    gives_kind,
    read_asks,
    span_months,
    unit_context,
)
from desktop_rag.core.answer.verify import (
    STOCK_LANGUAGE_WEIGHT,
    Passage,
    asks_stock_language,
    best_units,
    content_term_set,
    is_row_unit,
    split_units,
    statement_key,
    unit_citation,
    whole_page,
)
from desktop_rag.core.domain.measures import asked_measures, is_count_label, measure_modifiers, measure_terms
from desktop_rag.core.domain.numbers import nearest_scale, numbers_in, parse_cell, scale_factor, scale_of
from desktop_rag.core.domain.periods import MONTH_NAME_RE, QuestionPeriods, find_periods, names_a_report
from desktop_rag.core.domain.question import asked_concept, counted_noun, format_figure, printed_count
from desktop_rag.core.domain.terms import STOPWORDS, tokenize
from desktop_rag.core.domain.types import Citation, QueryPlan
from desktop_rag.core.ingest.chunking import is_page_furniture, is_table_row, subheading_of
from desktop_rag.core.ingest.pdf import fold_text
from desktop_rag.core.ingest.statements.columns import CHANGE, PERIOD, read_row
from desktop_rag.core.ingest.statements.table_reader import title_kind

_WANTS_NUMBER = re.compile(r"\b(how much|how many|what (was|were|is|are) (the )?(total|amount|net|revenue|sales|income|cash|margin|rate|eps)|amount|percentage|percent|ratio|rate|figure|\$)\b", re.I)

# the asked thing is a measure ("Optical Communications segment net sales"): a figure is wanted
_MEASURE = re.compile(
    r"\b(sales|revenues?|income|earnings|expenses?|costs?|margins?|ratios?|rates?|cash|assets|liabilities|debt|"
    r"equity|eps|dividends?|capex|expenditures?|backlog|units|employees|headcount|memberships?|shares|price)\b",
    re.I)


def extractive_answer(
    question: str, plan: QueryPlan, passages: list[Passage], max_quotes: int = 2,
    idf: dict[str, float] | None = None, ignore: set[str] | None = None,
    page_text: Callable[[str, int], str | None] | None = None, more: list[Passage] | None = None,
) -> tuple[str, list[Citation]]:
    """The passage sentence(s)/row(s) that best answer the question, quoted verbatim.
    ``ignore``: terms every passage shares (company, period) that would only add noise.
    ``page_text`` (doc_id, page) -> text: where a table's scale note is read from. ``more``:
    further retrieved passages of the asked company, where a fact asked that the passages leave
    unanswered is looked for."""
    # the asked thing's own words count, even those a question uses as filler elsewhere:
    # "paid" of "How many paid memberships ..." (the verb "paid" is question noise)
    named = {t for t in tokenize(asked_concept(question)) if t not in STOPWORDS}
    terms = (set(plan.content_terms) | content_term_set(question) | named) - (ignore or set())
    want_numbers = bool(_WANTS_NUMBER.search(question) or _MEASURE.search(asked_concept(question)))
    # the facts asked (an amount, a date, a rate ...): a sentence with the asked words and a
    # figure of the asked kind ranks above one with the words only (core/answer/asks.py)
    asks = read_asks(plan.intent, ignore or (), idf)
    # a figure asked is of a period: a sentence about another year is no evidence of it (an
    # event asked about is dated by its own sentence, whatever year the question names)
    spans = span_months(plan.asked or plan.original) if want_numbers else set()
    years = asked_years(plan.asked or plan.original) if want_numbers else None
    bonus = ask_bonus(asks)
    stock_weight = 1.0 if asks_stock_language(question) else STOCK_LANGUAGE_WEIGHT

    def ranked(pool: list[Passage]) -> list[tuple[float, Passage, int, int]]:
        units = best_units(pool, terms, [], max_quotes + 6, want_numbers, idf=idf, asked_years=years, bonus=bonus,
                           stock_language_weight=stock_weight)
        if spans:
            # "During the nine months ended July 1, 2023, the Company repurchased 365 million
            # shares" is no evidence of the three months asked: a sentence naming only other
            # spans ranks below one naming the asked span or none (a table row is read by its columns)
            units = sorted(((score * _OTHER_SPAN if _of_other_spans(p.text[a:b], spans) else score, p, a, b)
                            for score, p, a, b in units), key=lambda u: -u[0])
        return units[:max_quotes + 2]

    top = ranked(passages)
    if not top and more:
        # no sentence of the passages read carries a word asked ("how many people did it employ"
        # over MD&A pages): the further pages retrieved are read in their place
        passages, more = more, []
        top = ranked(passages)
    if not top:
        return "", []
    # several facts asked ("how much ... and how much remains"): the quotes together answer
    # each, one quote per fact, the most specific to it (core/answer/asks.cover)
    # (on the passages' whole pages: the sentence that answers one may sit beside the chunk)
    chosen = [top[0]]
    _, p0, a0, b0 = top[0]
    # one fact asked whose kind of figure the best unit of the passages does not hold at all
    # ("how many employees": "Employees may purchase shares ... 10%") is looked for on the
    # further pages too, where "we employed approximately 14,100 people" may sit; a quote found
    # so carries every word asked (a row "Grocery 56%" is no "share of the grocery market", "Xbox
    # 360" no count of graphics processors shipped)
    further = len(asks) == 1 and not any(gives_kind(unit_context(p0.text, a0, b0), k) for k in asks)
    # "how many employees": a count of the noun counted, not any count ("over 1 million face
    # coverings" in a sentence about employees' safety)
    noun = counted_noun(plan.asked or plan.original) if len(asks) == 1 and asks[0].kind == "count" else ""
    counted = printed_count(noun, labelled=False) if noun else None
    context0 = unit_context(p0.text, a0, b0)
    if counted is not None and (not counted.search(p0.text[a0:b0]) or counts_a_part(context0, asks[0])
                                or not answered(context0, asks)):
        # no count of the noun, a part's count ("FedEx Ground employed ...") or a count that
        # answers less than half the ask ("155 franchised stores" for the stores operated): the
        # whole's is looked for
        further = True
    if len(asks) > 1 or further:
        cap = min(MAX_ASK_QUOTES, max(max_quotes, len(asks)))
        def units(keep: Callable[[str], bool] | None) -> list[tuple[float, Passage, int, int]]:
            found = answering_units(asks, [passages, more or []], terms, idf, cap, want_numbers=want_numbers,
                                    asked_years=years, keep=keep)
            if further:
                # every word asked carried; for a count, its noun however the filing words people
                # ("how many people": "328,000 ... employees")
                need = 0.49 if counted is not None else 0.99
                found = [u for u in found
                         if min(answered(unit_context(u[1].text, u[2], u[3]), asks).values(), default=0.0) >= need
                         and (counted is None or counted.search(u[1].text[u[2]:u[3]]))]
            return found

        found: list[tuple[float, Passage, int, int]] = []
        if further and counted is not None:
            # the whole company's count before a part's ("FedEx Ground employed ...")
            found = units(lambda text: bool(counted.search(text)) and not counts_a_part(text, asks[0]))
            found = found or units(lambda text: bool(counted.search(text)))
        else:
            found = units(None)
        chosen = found or chosen
    best = chosen[0]
    after = _answering_next(best, asks)
    if after is not None:
        # "Fire Claims (at Emergence) represents compensation to be paid ..." names what was
        # asked; the next sentence of its paragraph gives it ("The total compensation of
        # $24.15 billion consists of ..."): both are quoted, in the page's order
        chosen.insert(1, after)
    # A second quote only when it adds evidence of similar strength from elsewhere (not when
    # the quotes were chosen to answer the facts asked: they do).
    for cand in top[1:] if best is top[0] else []:
        if len(chosen) >= max_quotes:
            break
        if cand in chosen or fold_text(cand[1].text[cand[2]:cand[3]]) in fold_text(best[1].text):
            continue  # a part of the best quote's passage
        # (a restatement elsewhere is kept as corroboration: the next candidate would rank lower)
        if cand[0] >= 0.75 * best[0] and statement_key(cand[1].text[cand[2]:cand[3]]) not in {
                statement_key(c[1].text[c[2]:c[3]]) for c in chosen}:
            chosen.append(cand)
    chosen = [_whole_sentence(u) for u in chosen]
    cites = [unit_citation(p, a, b) for _, p, a, b in chosen]
    # a row of a table printed "(in thousands)" is read with its scale ("$ 17,694,642" is $17.7
    # billion): the note follows the exact quote, it is not part of it
    shown = [f"{c.quote}{_scale_note(p, a, c.quote, page_text)}" for c, (_, p, a, _) in zip(cites, chosen, strict=True)]
    text = " … ".join(shown)
    # A bare table row is unreadable without its column headings: quote those too.
    _, p, a, _ = best
    header = column_header(p, a)
    if header is not None and all(header.quote != c.quote for c in cites):
        text = f"{shown[0]} (columns: {header.quote})" + (" … " + " … ".join(shown[1:]) if shown[1:] else "")
        cites.append(header)
    if want_numbers and header is not None:
        # "how much" is answered with the figure, its unit and scale, not a bare row
        whole = page_text(p.hit.chunk.doc_id, p.hit.chunk.page) if page_text else None
        above = whole[:p.start + a] if whole else p.text[:a]
        figure = figure_statement(cites[0].quote, header.quote, above, plan)
        if figure:
            text = f"{figure} — “{cites[0].quote}”"
    return text, cites


_OTHER_SPAN = 0.5  # the weight of a sentence naming only spans other than the one asked


def _of_other_spans(seg: str, spans: set[int]) -> bool:
    named = span_months(seg)
    return bool(named) and not named & spans and not is_row_unit(seg)


def _whole_sentence(unit: tuple[float, Passage, int, int]) -> tuple[float, Passage, int, int]:
    """``unit`` from the start of its sentence on the whole page, when the passage it came
    from began inside that sentence ("value 0.0001 per share, of Slack ..." of "Pursuant to
    the Merger Agreement, ... each share of Class A common stock, par value 0.0001 ...")."""
    score, p, a, b = unit
    if not p.page or not re.match(r"[a-z(\d]", p.text[a:b]):
        return unit  # it opens as a sentence does (a capital, a bullet)
    page = whole_page(p)
    at, end = p.start + a, p.start + b
    for x, y in split_units(page.text):
        if x <= at < y:
            # (never across a table row: a page whose columns the PDF's text interleaves)
            whole = x < at and y - x <= _LONGEST_SENTENCE and not any(
                is_row_unit(line) for line in page.text[x:at].split("\n"))
            return (score, page, x, max(y, end)) if whole else unit
    return unit


# a sentence longer than this is a run of text the page's layout merged, not one sentence
_LONGEST_SENTENCE = 1500


def _answering_next(unit: tuple[float, Passage, int, int], asks: Sequence[Ask]) -> tuple[float, Passage, int, int] | None:
    """The sentence after ``unit`` in its paragraph (on its whole page), when ``unit`` gives
    none of the facts asked and that sentence gives one; else None."""
    score, p, a, b = unit
    if not asks or answered(unit_context(p.text, a, b), asks):
        return None
    page = whole_page(p)
    shift = p.start - page.start if p.page else 0
    end = b + shift
    for a2, b2 in split_units(page.text):
        if a2 < end:
            continue
        gap = page.text[end:a2]
        if gap.strip() or gap.count("\n") > 1:
            return None
        # the words in the first, the figure of the asked kind only in the second
        first, second = page.text[a + shift:end], page.text[a2:b2]
        gives = any(gives_kind(second, k) and not gives_kind(first, k) for k in asks)
        return (score, page, a2, b2) if gives else None
    return None


def asked_years(question: str) -> set[int]:
    """The calendar years the asked period may end in: those named, and for a fiscal year or
    quarter the calendar year before too (Apple's Q1 FY2023 ended December 31, 2022; a
    fiscal 2018 that ends January 31, 2018 began in 2017)."""
    found = QuestionPeriods([m for m in find_periods(question).mentions if not names_a_report(question, m)])
    loose = found.fiscal_years | {y for y, _ in found.quarters}
    return found.every_year | {y - 1 for y in loose}


def _scale_note(p: Passage, a: int, quote: str,
                page_text: Callable[[str, int], str | None] | None) -> str:
    """" (in thousands)" after a quoted table row of amounts whose table's scale note (the
    nearest above it on its page) says so; "" for prose, percentages and unscaled tables."""
    if not is_table_row(quote) or "%" in quote or not any(
            n >= 1000 and not (1900 <= n <= 2100 and n.is_integer()) for n in numbers_in(quote)):
        # no amount a scale could apply to: "At August 29, 2021, Costco operated 815 warehouses"
        # is no "(in millions)" of anything, whatever the page's tables are in
        return ""
    whole = page_text(p.hit.chunk.doc_id, p.hit.chunk.page) if page_text else None
    above = whole[:p.start + a] if whole else p.text[:a]
    label = re.match(r"[^\d$(\u2014-]*", quote)
    scale = nearest_scale(above, label=label.group(0) if label else "")
    return f" (in {scale})" if scale else ""


_CELL_TOKEN = re.compile(r"\(?\$?\s?\(?-?\d[\d,]*(?:\.\d+)?\)?\s?%?|(?<=\s)[-\u2013\u2014](?=\s|$)")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def figure_statement(row: str, header: str, text_above: str, plan: QueryPlan) -> str:
    """The figure a table row gives for the asked (or latest) period, with unit and scale
    from the table's scale note: "Total net sales: $81,797 million (2023)". "" when the
    row's columns cannot be matched to the header's periods."""
    m = re.search(r"\(?\$?\s?\(?-?\d", row)
    if not m or m.start() == 0:
        return ""
    label = row[:m.start()].strip(" .:$")
    cells = [c for t in _CELL_TOKEN.findall(row[m.start():]) if (c := parse_cell(t)) is not None]
    years = [int(y) for y in _YEAR.findall(header)]
    if not cells or not label:
        return ""
    asked = {y for y, _ in find_periods(plan.asked or plan.original).quarters} | find_periods(
        plan.asked or plan.original).years
    if len(years) == len(cells):
        wanted = [i for i, y in enumerate(years) if y in asked]
        col = wanted[0] if wanted else max(range(len(years)), key=lambda i: (years[i], -i))
        period = str(years[col])
    elif len(years) and len(cells) % len(years) == 0 and not asked:
        # "Three months ended ... Nine months ended ..." with two years each: the first column
        col, period = 0, str(years[0])
    else:
        return ""
    cell = cells[col]
    title = _table_title(text_above, header)
    question = plan.asked or plan.original
    if _another_measure(question, label, title, text_above, header):
        return ""  # the row is quoted, its figure not given as the asked one
    if title:
        # "International Streaming Segment — Paid memberships ...": the row is one segment's,
        # and the lead must not pass it off as the company's whole
        label = f"{title} — {label}"
    if cell.value is None:
        return f"{label}: none ({period})"
    inst = plan.instructions
    # a percent column is the cell's own "%" ("64 %" beside "30,024" is a change column's), or
    # a row of bare figures closed by one "%" ("Gross margin 40.1 41.2 %")
    if cell.percent or ("%" in row[m.start():] and not any(c.percent for c in cells)):
        return f"{label}: {format_figure(cell.value, 'percent', inst.decimals if inst else None)} ({period})"
    scale = scale_of(text_above[-3000:]) or ""
    per_share = bool(re.search(r"per\s+(?:common\s+)?share|\beps\b", label, re.I)) or (
        # "(In millions, except per-share amounts)": a cents-precise small figure is per share
        bool(re.search(r"except\s+(?:for\s+)?per[\s-]share", text_above[-3000:], re.I))
        and not cell.value.is_integer() and abs(cell.value) < 1000)
    shares = bool(re.search(r"\bshares\b", label, re.I)) and not per_share
    if per_share:
        return f"{label}: {format_figure(cell.value, '', inst.decimals if inst else 2, 'USD')} ({period})"
    value, unit = cell.value, scale
    if inst and inst.scale in ("thousands", "millions", "billions") and scale:
        value = cell.value * scale_factor(scale) / scale_factor(inst.scale)
        unit = inst.scale
    decimals = inst.decimals if inst and inst.decimals is not None else (
        None if value.is_integer() else 2)
    # A "$" only where the table is in money: a count ("Total employees 288,000") never, and
    # a row printed without "$" only under a money scale note or a "$" elsewhere in its table
    # (statements print "$" on the first and total rows only).
    table = text_above[text_above.rfind(header):] if header and header in text_above else ""
    money = not shares and not is_count_label(label) and ("$" in row or "$" in table or bool(scale))
    figure = format_figure(value, unit, decimals, "USD" if money else "")
    return f"{label}: {figure}{' shares' if shares else ''} ({period})"


def _another_measure(question: str, label: str, title: str, text_above: str, header: str) -> bool:
    """The row holds another measure than the one asked: the nearest text naming its measure
    (its label, else the sub-heading over it, else its table's title or the sentence introducing
    the table) names measures but not the asked one ("Assets" over "Missiles and Fire Control
    5,243" asked how much the segment sold), or the asked one with a qualifier the question does
    not use ("Unearned revenue by segment was as follows:" over "Intelligent Cloud 11,472" asked
    for its revenue). Its figure is then no answer, however well its label names the segment."""
    asked = asked_measures(question)
    if not asked:
        return False
    at = text_above.rfind(header) if header else -1
    between = text_above[at + len(header):] if at >= 0 else ""
    # the sub-headings between the column heading and the row, nearest first: lines without figures
    subheadings = [ln.strip() for ln in reversed(between.split("\n")) if ln.strip() and not re.search(r"\d", ln)]
    intro = [ln.strip() for ln in text_above[:at].rstrip("\n").split("\n")[-2:]] if at >= 0 else []
    q_terms = set(tokenize(question))
    for text in (label, *subheadings[:1], title, " ".join(intro)):
        named = set(tokenize(text)) & measure_terms()
        if named:
            return not named & asked or bool(measure_modifiers(text, asked, q_terms))
    return False


def _table_title(text_above: str, header: str) -> str:
    """The title line printed right above a table's column header ("International Streaming
    Segment"), when it is a sub-heading naming a part of the company; "" for a primary
    statement's title, a scale note, page furniture or prose."""
    at = text_above.rfind(header) if header else -1
    if at < 0:
        return ""
    for line in reversed(text_above[:at].rstrip("\n").split("\n")[-2:]):
        text = line.strip()
        if not text or scale_of(text) or is_page_furniture(text):
            continue
        if title_kind(text) is None and subheading_of(text) and not _PERIOD_HEADER.search(text):
            return text
        return ""
    return ""


_PERIOD_HEADER = re.compile(
    rf"\b(ended|months|weeks|quarter|(19|20)\d\d|{MONTH_NAME_RE})\b", re.I)


def column_header(p: Passage, row_start: int) -> Citation | None:
    """The column-heading lines of the table a row belongs to (same passage, above it)."""
    row_end = p.text.find("\n", row_start)
    # (a prose line full of figures in a table chunk is no row: ``is_row_unit``)
    if p.hit.chunk.kind != "table" or not is_row_unit(p.text[row_start:row_end if row_end >= 0 else len(p.text)]):
        return None
    read = read_row(p.text, row_start)
    if read is not None and not any(c.column.kind in (PERIOD, CHANGE) for c in read[0]):
        # a header of parts ("Owned Leased(1) Total"): the line the row's columns were read
        # from, not the nearest line with a date ("as of January 31, 2020:")
        return unit_citation(p, *read[1])
    lines: list[tuple[int, int]] = []
    pos = 0
    for line in p.text[:row_start].split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    head: list[tuple[int, int]] = []
    for a, b in lines:
        seg = p.text[a:b]
        if _PERIOD_HEADER.search(seg) and len(seg.split()) <= 16 and "$" not in seg and len(head) < 3:
            head.append((a, b))
        elif head:
            break
    if not head:
        return None
    a, b = head[0][0], head[-1][1]
    return unit_citation(p, a, b)
