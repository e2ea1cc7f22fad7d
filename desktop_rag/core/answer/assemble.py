"""Prose answers built from the filing's own sentences: drivers, lists, descriptions, outlooks.

Most analyst questions are not one figure. The filing already holds their answers, in the
structure of its pages: a movement sentence and the causes after "due to", "driven by",
"partially offset by"; a lead-in ending in a colon and the bullet list under it; a paragraph
under a heading; the "we expect ..." sentences of an outlook. Each assembler reads that
structure around the passages retrieval found and returns an ordered set of exact quotes of
the page, one per item, so every claim shown is the filing's own words, cited and highlighted
as any quote. Which assembler runs is the question's shape (``QuestionIntent.ask``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from desktop_rag.core.answer.asks import MAX_ASK_QUOTES, Ask, answered, answering_units, read_asks, unit_context
from desktop_rag.core.answer.extractive import asked_years
from desktop_rag.core.answer.verify import LIST_ITEM as _BULLET
from desktop_rag.core.answer.verify import (
    STOCK_LANGUAGE,
    STOCK_LANGUAGE_WEIGHT,
    Passage,
    best_units,
    is_row_unit,
    is_title_line,
    is_year,
    split_units,
    unit_citation,
    whole_pages,
)
from desktop_rag.core.domain.measures import asked_measures, measure_phrase, measure_terms, moves_through
from desktop_rag.core.domain.numbers import numbers_in
from desktop_rag.core.domain.periods import MONTH_NAMES, find_periods
from desktop_rag.core.domain.question import QuestionIntent
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Citation
from desktop_rag.core.ingest.chunking import heading_of, is_page_furniture, subheading_of

# A sentence that gives a cause: the connectives filings use in MD&A.
CAUSAL = re.compile(
    r"\b(?:due\s+(?:primarily\s+|mainly\s+|largely\s+|in\s+part\s+)?to|driven\s+(?:primarily\s+|mainly\s+|largely\s+)?by|"
    r"primarily\s+(?:as\s+a\s+result\s+of|from|by|related\s+to|reflecting|attributable\s+to|because)|"
    # (not a line's name: "Net income attributable to common stock", "Income (loss) Attributable to")
    r"as\s+a\s+result\s+of|result(?:ed|ing)?\s+from|(?<!income\s)(?<!\(loss\)\s)(?<!loss\s)(?<!earnings\s)"
    r"(?<!amounts\s)attributable\s+to|reflect(?:s|ed|ing)?|"
    r"(?:partially|partly)\s+off-?set\s+by|off-?set\s+by|because\s+of|led\s+by|caused\s+by|owing\s+to|"
    r"contribut(?:ed|ing)\s+to|on\s+(?:higher|lower|strong|weak)|thanks\s+to|impacted\s+by|affected\s+by|"
    r"benefit(?:ed)?\s+from|unfavorabl[ey]\s+impact|favorabl[ey]\s+impact|headwinds?|tailwinds?|drivers?\s+of|"
    r"(?:partially|partly)\s+offset\s+in\s+\w+\s+by|"
    # "The majority of the tax provision was related to taxes from profitable jurisdictions"
    r"(?:majority|most|bulk|substantially\s+all)\s+of\b[^.;]{0,80}?\b(?:was|were)\s+(?:related|attributable|due)\s+to)\b",
    re.I)
# A sentence about the future: what management expects, plans or guides.
FORWARD = re.compile(
    r"\b(?:expect(?:s|ed|ing)?|anticipat(?:e|es|ed|ing)|outlook|guidance|forecast(?:s|ed)?|plan(?:s|ned)?\s+to|"
    r"intend(?:s|ed)?\s+to|project(?:s|ed)|target(?:s|ed)?|estimate(?:s|d)?\s+(?:that|to)|will\s+(?:be|continue|"
    r"remain|grow|increase|decrease|decline)|we\s+see|looking\s+ahead|going\s+forward|next\s+(?:fiscal\s+)?year)\b",
    re.I)
# How a figure moved: the sentence a drivers answer leads with.
MOVED = re.compile(r"\b(?:increas|decreas|declin|grew|grow|rose|rise|fell|fall|improv|expan|contract|drop|"
                   r"higher|lower|up|down)\w*\b|\d\s*(?:%|percent|basis\s+points|bps)\b", re.I)
# A sentence introducing a table: "eBay is providing the following guidance ...", "... were as follows"
_TABLE_LEAD = re.compile(r"\b(?:the\s+following|as\s+follows|(?:is|are)\s+(?:presented|shown|set\s+forth|summari[sz]ed)\s+"
                         r"(?:below|in\s+the\s+(?:following\s+)?table))\b", re.I)
_LEAD_FIRST = 1.5  # a lead-in's weight among the sentences of an outlook, list or description
_LEAD_NEAR = 0.6  # ... when it scores at least this share of the best sentence's
_HEADER_LINES = 3  # the column heading of a table under a lead-in, at most
# a table's row of one cell, below rows of several ("Thereafter 8,198")
_ONE_CELL = re.compile(r"^\s*[A-Za-z(][^\n]{0,60}?\s\$?\s?\(?\d[\d,]*(?:\.\d+)?\)?\s?%?\s*$")
# words for what is said of a thing described, not the thing
_DESCRIBED_AS = frozenset(tokenize("terms term status nature purpose details overview summary description"))
# a description asking the things its paragraph enumerates: "the key terms", "the actions", "the conditions"
_ITEMS_ASKED = re.compile(r"\b(?:terms|provisions|conditions|covenants|actions|steps|measures|components|elements|"
                          r"features|details)\b", re.I)
# A lead-in that announces a list: it ends in a colon, or says what follows.
_LEAD_IN = re.compile(r":\s*$|\b(?:the\s+following|as\s+follows|include[sd]?|including|such\s+as)\s*:?\s*$", re.I)

# A line that continues the item above it (wrapped mid-sentence): it starts in lower case or
# with a figure, never as a new sentence, heading or lead-in.
_CONTINUES = re.compile(r"^\s*(?:[a-z(\[$%]|\d)")
MAX_ITEMS = 6  # a list longer than this is cut, and says so
MAX_SENTENCES = 3
_LEAD_IN_REACH = 3  # sentences between a statement and the lead-in of its list


@dataclass
class Assembled:
    """A prose answer: its text (the quotes, a list's items as bullets) and one citation per
    quote, in reading order."""

    text: str
    citations: list[Citation]
    shape: str
    cut: bool = False  # a list longer than ``MAX_ITEMS`` was cut


def _line_bounds(text: str, at: int) -> tuple[int, int]:
    a = text.rfind("\n", 0, at) + 1
    b = text.find("\n", at)
    return a, (len(text) if b < 0 else b)


def _is_heading(line: str) -> bool:
    return bool(heading_of(line) or subheading_of(line))


def list_items(page: str, lead_end: int) -> tuple[list[tuple[int, int]], bool]:
    """The items of the list that starts after a lead-in ending at ``lead_end``: each bullet
    line with the lines that continue it (a wrapped item), until a blank line, a heading, a
    table row or a line that is no item. Returns the items' spans and whether the list was cut."""
    items: list[tuple[int, int]] = []
    pos = page.find("\n", lead_end)
    if pos < 0:
        return [], False
    pos += 1
    current: tuple[int, int] | None = None
    while pos < len(page):
        end = page.find("\n", pos)
        end = len(page) if end < 0 else end
        line = page[pos:end]
        if not line.strip() or is_page_furniture(line) or is_row_unit(line):
            break
        if _BULLET.match(line):
            if current is not None:
                items.append(current)
            current = (pos, end)
        elif current is not None and _CONTINUES.match(line) and not line.rstrip().endswith(":"):
            current = (current[0], end)  # a wrapped item's next line
        else:
            break
        pos = end + 1
    if current is not None:
        items.append(current)
    cut = len(items) > MAX_ITEMS
    return items[:MAX_ITEMS], cut


def _section(page: str, at: int) -> tuple[int, int]:
    """The span of the page under the heading above ``at``, to the next heading."""
    start = 0
    pos = 0
    for line in page.split("\n"):
        end = pos + len(line)
        if pos > at:
            if _is_heading(line):
                return start, pos
        elif _is_heading(line):
            start = pos
        pos = end + 1
    return start, len(page)


def _units_in(page: str, a: int, b: int) -> list[tuple[int, int]]:
    return [(a + x, a + y) for x, y in split_units(page[a:b])]


def _citation(p: Passage, a: int, b: int) -> Citation:
    text = p.text
    while a < b and text[a] in " \t":
        a += 1
    while b > a and text[b - 1] in " \t\n":
        b -= 1
    return unit_citation(p, a, b)


def _anchors(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
             want: re.Pattern[str] | None, k: int = 12, numbers: list[float] | None = None,
             fit: Callable[[str], float] | None = None) -> list[tuple[float, Passage, int, int]]:
    """The best sentences of the passages for the asked terms, those matching ``want``
    (a cause, a forecast) ranked up, those holding the question's own ``numbers`` ("fall 18%")
    too, each weighed by ``fit``; each on its whole page. Ranked over all the pages' sentences,
    ``k`` kept."""
    # each retrieved page whole, once, in retrieval order: the sentence that answers may sit
    # beside the chunk that matched (a reconciliation table above "net income decreased 18%")
    pages = whole_pages(passages)
    out = []
    for score, p, a, b in best_units(pages, terms, numbers or [], max(5 * k, 60), want_numbers=False, idf=idf):
        seg = p.text[a:b]
        if is_row_unit(seg) or _is_heading(seg) or is_title_line(seg):
            continue
        if fit is not None:
            # a cause is no worse for being long ("... was primarily due to A, B and C, partially offset by D")
            score += 0.002 * max(0, len(seg) - 220)
        if want is not None and want.search(seg):
            score *= 1.6
        elif want is not None and _cause_follows(p.text, b, want):
            score *= 1.3  # its cause told next: below a sentence telling its own
        if STOCK_LANGUAGE.search(seg):
            score *= STOCK_LANGUAGE_WEIGHT
        if fit is not None:
            # "The increase was primarily due to ...": its subject is the sentence before's
            before = _sentence_before(p.text, a) if _ANAPHOR.match(seg) and not _names_measure(seg) else ""
            score *= fit(f"{before} {seg}" if before else seg)
            if not score or not terms & set(tokenize(seg)):
                continue  # not about the asked measure (a sentence holding the question's figure only)
        out.append((score, p, a, b))
    out.sort(key=lambda s: -s[0])
    return out[:k]


def _names_measure(seg: str) -> bool:
    """The sentence names its own measure before its verb ("The increase in GAAP results was
    ..."), not only the movement ("The increase was primarily due to ...")."""
    verb = _SUBJECT_END.search(seg[:200])
    subject = seg[:verb.start()] if verb else seg[:80]
    # "The increase in GAAP results": what moved is named after "in" / "of"
    return bool(set(tokenize(measure_phrase(subject))) & measure_terms()) or bool(
        re.search(r"\b(?:in|of)\s+(?!(?:the\s+)?(?:quarter|year|period|first|second|third|fourth|fiscal|19\d\d|20\d\d)\b)[A-Za-z]",
                  subject, re.I))


def _cause_follows(page: str, end: int, want: re.Pattern[str]) -> bool:
    """The sentence right after the one ending at ``end`` tells its cause: "... totaled $35.9
    billion, compared with $35.6 billion ... The net increase in 2022 was due to ..."."""
    nxt = split_units(page[end:end + 600])
    if not nxt:
        return False
    a, b = nxt[0]
    seg = page[end + a:end + b]
    return not page[end:end + a].strip() and bool(_ANAPHOR.match(seg)) and bool(want.search(seg))


def _sentence_before(page: str, at: int) -> str:
    """The sentence of ``page`` ending right before offset ``at`` (same paragraph), else ""."""
    prior = [(a, b) for a, b in split_units(page[max(0, at - 600):at])]
    if not prior:
        return ""
    a, b = prior[-1]
    start = max(0, at - 600)
    return page[start + a:start + b] if page[start + b:at].count("\n") <= 1 and not page[start + b:at].strip() else ""


def _covers(tokens: Iterable[str], terms: set[str]) -> int:
    return len(terms.intersection(tokens))


NextPage = Callable[[Passage], "Passage | None"]  # the whole page after a passage's, of its filing


def assemble(intent: QuestionIntent, passages: list[Passage], terms: set[str],
             idf: dict[str, float] | None = None, ignore: set[str] | None = None,
             more: list[Passage] | None = None, next_page: NextPage | None = None) -> Assembled | None:
    """The prose answer of the question's shape from the asked company's passages, or None
    when its structure is not there (the caller then keeps the extractive answer). The facts
    the question asks (an amount, a date ...: ``QuestionIntent.asks``) are answered too: a
    sentence answering one leads a description, list or outlook, and a fact no quote answers
    gets the sentence of the retrieved pages that does (``_answer_asks``). ``ignore``: terms
    every passage shares (company, period); ``more``: further retrieved passages of the asked
    company's filings, read when the passages lack what was asked; ``next_page``: the page after
    a passage's, where a section cut by the page's end goes on."""
    if not passages or not terms:
        return None
    shape = intent.ask
    asks = read_asks(intent, ignore or (), idf)
    pools = [passages, more or []]
    out: Assembled | None = None
    if shape == "drivers" or (intent.wants_reasons and shape in ("comparison", "ranking", "yesno", "change")):
        out = _drivers(passages, terms, idf, intent, more, next_page)
    elif shape == "outlook":
        lead = _leading(asks, pools, terms, idf, FORWARD, siblings=True)  # each guided figure beside it
        out = _sentences(passages, terms, idf, FORWARD, "outlook", need=True, lead=lead,
                         all_answered=_answers_all(lead, asks))
    elif shape == "list":
        lead = _leading(asks, pools, terms, idf, siblings=True)
        all_answered = _answers_all(lead, asks)
        out = None if lead and all_answered else _titled_parts(passages + (more or []), terms, next_page)
        out = out or _list(passages, terms, idf, lead, all_answered)
    elif shape == "description":
        # "the key terms of the acquisition", "the status of the lawsuit": the thing described
        # is asked, not the words for what is said of it ("Term Loan" is no term of a deal)
        terms = (terms - _DESCRIBED_AS) or terms
        # a description whose question itself asks a figure ("What debt did it issue? Give the
        # coupons ...") leads with the sentence giving it; another ("Describe the plan: ... and
        # what did it cost") with its best sentence, the facts asked after it
        lead = _leading(asks, pools, terms, idf) if intent.asks and not intent.asks[0].topic else []
        out = _description(passages, terms, idf, lead, items=bool(_ITEMS_ASKED.search(intent.asked)),
                           latest=bool(_STANDING_ASKED.search(intent.asked)))
    if out is None or not asks:
        return out
    return _answer_asks(out, asks, pools, terms, idf, FORWARD if shape == "outlook" else None)


_Unit = tuple[float, Passage, int, int]


def _leading(asks: list[Ask], pools: list[list[Passage]], terms: set[str], idf: dict[str, float] | None,
             want: re.Pattern[str] | None = None, siblings: bool = False) -> list[_Unit]:
    """The sentences answering the facts asked, one per fact (``asks.answering_units``; with
    ``siblings``, the items beside each that answer them too): those lead the answer."""
    if not asks:
        return []
    keep = want.search if want is not None else None
    return answering_units(asks, pools, terms, idf, MAX_ASK_QUOTES, keep=(lambda t: bool(keep(t))) if keep else None,
                           siblings=siblings)


def _answers_all(units: list[_Unit], asks: list[Ask]) -> bool:
    """The units together answer every fact asked."""
    got: set[int] = set()
    for _, p, a, b in units:
        got |= set(answered(unit_context(p.text, a, b), asks))
    return bool(asks) and len(got) == len(asks)


_PRESENT_ASK = re.compile(r"\b(?:is|are|was|were|did|has|have|had)\b", re.I)


def _answer_asks(out: Assembled, asks: list[Ask], pools: list[list[Passage]], terms: set[str],
                 idf: dict[str, float] | None, want: re.Pattern[str] | None) -> Assembled:
    """``out`` with, for the facts asked that none of its quotes answers, the sentences of the
    passages' pages (then of the further pages) that do (at most one per fact,
    ``MAX_ASK_QUOTES`` in all; only those matching ``want``, a forecast for an outlook), after
    its own quotes."""
    quoted = [c.quote for c in out.citations]
    # a fact asked in the present of an outlook question ("how big is the headcount cut ... and
    # what charges does it expect") is answered by any sentence, the forecast asked by a forecast
    def forecast(text: str) -> bool:
        return want is not None and bool(want.search(text))

    def present(ask: Ask) -> bool:  # asked in its own tense: "how big is the cut", not "capex" of a guidance asked
        return not forecast(ask.words) and bool(_PRESENT_ASK.search(ask.words))

    groups: list[tuple[list[Ask], Callable[[str], bool] | None]] = [
        ([a for a in asks if not present(a)], forecast), ([a for a in asks if present(a)], None)
    ] if want is not None else [(asks, None)]
    added: list[Citation] = []
    for group, keeping in groups:
        if not group:
            continue
        for _, p, a, b in answering_units(group, pools, terms, idf, MAX_ASK_QUOTES - len(added),
                                          given=quoted + [c.quote for c in added], keep=keeping):
            if _is_heading(p.text[a:b]):
                continue
            cite = _citation(p, a, b)
            if not any(_overlaps(cite, c) for c in [*out.citations, *added]):
                added.append(cite)
    if not added:
        return out
    lines = [out.text, *(c.quote.strip() for c in added)]
    return Assembled("\n".join(lines), [*out.citations, *added], out.shape, out.cut)


def _overlaps(x: Citation, y: Citation) -> bool:
    return (x.doc_id == y.doc_id and x.page == y.page and x.char_start < y.char_start + len(y.quote)
            and y.char_start < x.char_start + len(x.quote))


def _render(shape: str, quotes: list[tuple[Citation, bool]], cut: bool = False) -> Assembled:
    """The answer's text: each quote on its line, list items as bullets."""
    lines = []
    for cite, item in quotes:
        body = _BULLET.sub("", cite.quote).strip() if item else cite.quote.strip()
        lines.append(f"\u2022 {body}" if item else body)
    if cut:
        lines.append("\u2026 (the list continues in the filing)")
    return Assembled("\n".join(lines), [c for c, _ in quotes], shape, cut)


def table_rows(page: str, lead_end: int) -> tuple[tuple[int, int] | None, list[tuple[int, int]], bool]:
    """The table a lead-in ending at ``lead_end`` introduces ("eBay is providing the following
    guidance for Q3 2023."): its column heading (up to ``_HEADER_LINES`` lines without a
    sentence's end, or None) and its rows, each a line of figure cells (of one cell too, below
    others: "Thereafter 8,198"), until a line that is none; with whether it was cut at
    ``MAX_ITEMS``. No rows unless at least two follow."""
    pos = page.find("\n", lead_end)
    if pos < 0:
        return None, [], False
    pos += 1
    header: tuple[int, int] | None = None
    rows: list[tuple[int, int]] = []
    while pos < len(page):
        end = page.find("\n", pos)
        end = len(page) if end < 0 else end
        line = page[pos:end]
        if is_row_unit(line) or (rows and _ONE_CELL.match(line)):
            rows.append((pos, end))
        elif rows or not line.strip() or is_page_furniture(line) or re.search(r"[.;:]\s*$", line) or (
                header is not None and page.count("\n", header[0], pos) >= _HEADER_LINES):
            break
        else:
            header = (header[0] if header else pos, end)
        pos = end + 1
    if len(rows) < 2:
        return None, [], False
    return header, rows[:MAX_ITEMS], len(rows) > MAX_ITEMS


def _with_list(p: Passage, a: int, b: int, quotes: list[tuple[Citation, bool]], seen: set[int],
               cuts: list[bool] | None = None, tables: bool = False, breakdown: bool = False) -> bool:
    """Add the sentence at a..b and, when it leads a list (it ends in a colon, or a lead-in
    follows within ``_LEAD_IN_REACH`` sentences of its paragraph), that list: the sentences up
    to the lead-in, the lead-in and each item (and to ``cuts`` whether the list was longer than
    shown). With ``tables``, a table it introduces is such a list too ("the following guidance"
    and its rows: ``table_rows``), each row quoted whole, after its column heading. True when a
    list was added. With ``breakdown``, a sentence leading no list brings the next one when that
    says what it is made of (``_BREAKDOWN``)."""
    quotes.append((_citation(p, a, b), False))
    seen.add(a)
    page = p.text

    def leads(seg: str) -> bool:
        return bool(_LEAD_IN.search(seg) or (tables and _TABLE_LEAD.search(seg)))

    lead: tuple[int, int] | None = (a, b) if leads(page[a:b]) else None
    between: list[tuple[int, int]] = []
    if lead is None:
        for ua, ub in _units_in(page, b, len(page))[:_LEAD_IN_REACH]:
            seg = page[ua:ub]
            if not seg.strip() or _is_heading(seg) or is_row_unit(seg) or _BULLET.match(seg) or "\n\n" in page[b:ua]:
                break
            if leads(seg):
                lead = (ua, ub)
                break
            between.append((ua, ub))
    if lead is None:
        after = _units_in(page, b, len(page))[:1]
        if breakdown and after and "\n\n" not in page[b:after[0][0]] and _BREAKDOWN.match(
                page[after[0][0]:after[0][1]]):
            # "Our full-year capital spending is expected to be $265 million. The forecast
            # includes $182 million related to ...": the next sentence says what it is made of
            quotes.append((_citation(p, *after[0]), False))
            seen.add(after[0][0])
        return False
    items, cut = list_items(page, lead[1])
    header: tuple[int, int] | None = None
    if not items and tables:
        header, items, cut = table_rows(page, lead[1])
    if not items:
        return False
    for ua, ub in [*between, *([lead] if lead[0] != a else []), *([header] if header else [])]:
        quotes.append((_citation(p, ua, ub), False))
        seen.add(ua)
    if cuts is not None:
        cuts.append(cut)
    for ia, ib in items:
        quotes.append((_citation(p, ia, ib), True))
        seen.add(ia)
    return True


# a sentence saying what the one before is made of: "The forecast includes $182 million related to
# ...", "This amount consists of ...", "Of this total, ..." (its subject points back)
_BREAKDOWN = re.compile(
    r"^\s*(?:(?:the|this|that|such)\s+(?:[\w-]+\s+){0,2}?(?:forecast|guidance|outlook|estimate|budget|plan|amount|total|"
    r"figure|spending|investment|expenditure)s?|this|these(?:\s+amounts)?|it)\s+(?:includes?|included|consists?\s+of|"
    r"comprises?|is\s+comprised\s+of)\b|^\s*of\s+(?:this|that|these|the\s+total)\b", re.I)
# a sentence offsetting the cause before it: "This activity was partially offset by ...", "Partially offsetting ..."
_OFFSET = re.compile(r"^(?:(?:this|these|the|such)\b[^.]{0,60}?\b(?:partially|partly)?\s*off-?set\s+(?:in\s+\w+\s+)?by|"
                     r"(?:partially|partly)\s+offsetting|offsetting\s+(?:this|these))", re.I)
# a sentence about the movement just told ("This decrease was primarily driven by ...", "The
# increase reflects ..."): its cause, whatever words it names the measure by
_ANAPHOR = re.compile(r"^(?:(?:this|these|that|such)\b|the\s+(?:\w+\s+)?(?:decrease|increase|decline|growth|"
                      r"improvement|change|reduction|rise|drop|expansion|contraction|deterioration|shift)s?\b)", re.I)
_TRIES = 3  # the best sentences tried as a drivers answer's anchor, per set of pages
_FURTHER = 0.8  # an anchor of the further pages retrieved, against one of the passages read


def _drivers(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
             intent: QuestionIntent | None = None, more: list[Passage] | None = None,
             next_page: NextPage | None = None) -> Assembled | None:
    """The movement sentence and its causes: causal sentences about the asked measure in its
    section, a list under a lead-in kept whole. The anchor is the best sentence about the asked
    measure (of the asked period, holding the question's own figures, ``_DriverFit``) that
    names a cause or leads a list; when the passages' pages have none, the further pages
    retrieved of the same filings (``more``) are read."""
    numbers = [n for n in numbers_in(intent.asked) if not is_year(n)] if intent is not None else []
    fit = _DriverFit(intent) if intent is not None else None
    out = _drivers_of(passages, more or [], terms, idf, numbers, fit, next_page)
    if out is None and fit is not None and fit.related:
        # none about the asked measure names a cause: the lines it moves through do ("Provision
        # for income taxes decreased ... primarily due to" for the effective tax rate)
        through = _DriverFit(fit.intent, through=True)
        out = _drivers_of(passages, more or [], terms | fit.related, idf, numbers, through, next_page)
    return out


def _drivers_of(passages: list[Passage], more: list[Passage], terms: set[str], idf: dict[str, float] | None,
                numbers: list[float], fit: _DriverFit | None, next_page: NextPage | None = None) -> Assembled | None:
    # the best anchors of the passages' pages, then of the further pages (ranked a little
    # lower): a further page's "Client net revenue ... decreased by 10%" above a passage's
    # "DATA CENTER segment annual revenue increased" when the question asks what declined
    tries = []
    for pages, weight in ((passages, 1.0), (more, _FURTHER)):
        tries += [(score * weight, p, a, b) for score, p, a, b in
                  _anchors(pages, terms, idf, CAUSAL, numbers=numbers, fit=fit.weight if fit else None)[:_TRIES]]
    for anchor in sorted(tries, key=lambda t: -t[0]):
        out = _drivers_at(anchor, terms, fit, next_page)
        if out is not None:
            return out
    return None


class _DriverFit:
    """How well a sentence fits a drivers answer to ``intent``. ``weight``, as its anchor:
    none when its subject is another measure than the asked one ("Total margin ... for our
    hardware business" for hardware revenue), less when it names a part the question does not
    (a segment, a business by its name: "FedEx Express segment operating income" for the
    consolidated one) or states an expectation (the causes of a past movement are stated in the
    past), or when it names years none of which is asked; more when it names the latest year
    asked. ``aside``: a cause of a part, an expectation or another year's movement beside an
    anchor of the latest year asked, not quoted beside the anchor's."""

    def __init__(self, intent: QuestionIntent, through: bool = False) -> None:
        self.intent = intent
        self.asked = asked_measures(intent.asked)
        # the lines the asked measure moves through (``moves_through``); with ``through`` their
        # sentences are about the asked measure too, a little below its own
        self.related = moves_through(self.asked)
        self.through = through
        self.question_words = {_bare_word(w) for w in re.findall(r"[A-Za-z][\w&'\u2019-]*", intent.text)}
        stated = intent.periods.every_year
        self.latest = max(stated) if stated else None
        self.years = asked_years(intent.asked)  # a fiscal year or quarter may end in the calendar year before
        # the parts the question names by a capitalised word ("U.S." of "McDonald's U.S. comparable
        # sales"), not the possessor, a month or a period
        # the way the question says the measure moved ("saw revenue decline"), if it says one
        ups, downs = bool(_UP.search(intent.asked)), bool(_DOWN.search(intent.asked))
        self.direction = "up" if ups and not downs else "down" if downs and not ups else ""
        self.named = {w for w in re.findall(r"(?<=\s)[A-Z][\w&.-]*(?![\w'\u2019])", intent.asked)
                      if w.lower() not in _MONTHS and not find_periods(w).mentions}

    def _subject(self, seg: str) -> str:
        cut = _SUBJECT_END.search(seg[:200])
        return seg[:cut.start()] if cut else ""

    def _names_a_part(self, subject: str) -> bool:
        opening = re.match(r"[^A-Za-z]*([A-Za-z][\w&'-]*)", subject)
        rest = subject[opening.end():] if opening else subject  # not the capital a sentence opens with
        parts = {_bare_word(w) for w in re.findall(r"(?<=\s)[A-Z][\w&'\u2019-]*|\bsegments?\b", rest)}
        if opening and re.search(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]*$", opening.group(1)):
            parts.add(_bare_word(opening.group(1)))  # a name opening it ("StubHub net transaction revenues")
        elif (opening and opening.start(1) == 0 and subject[opening.end():opening.end() + 1] == " " and self.asked
              and set(tokenize(rest)[:1]) & (self.asked | _MEASURE_OPENERS)
              and opening.group(1).lower() not in _PLAIN_OPENERS and set(tokenize(opening.group(1)))
              and not set(tokenize(opening.group(1))) & measure_terms()
              and not _OTHER_BASIS.match(opening.group(1))):
            parts.add(_bare_word(opening.group(1)))  # a name before the asked measure ("Marketplace net transaction revenues")
        # a measure written in capitals ("The decrease in net transaction revenues and GMV") is no part
        parts = {w for w in parts if not (set(tokenize(w)) & (measure_terms() | _VOLUME_WORDS))}
        return bool(parts - self.question_words - _MONTHS)

    def other_basis(self, seg: str, basis: re.Pattern[str] | None = None) -> bool:
        """``seg`` tells of a basis of the figure the question does not ask ("non-GAAP core
        earnings", "organic net sales"; with ``basis``, of that kind)."""
        rx = basis or _OTHER_BASIS
        return bool(rx.search(self._subject(seg) or seg[:120])) and not rx.search(self.intent.asked)

    def aside(self, seg: str, anchor: str) -> bool:
        # (an organic or constant-currency movement explains the reported one: it stays beside it)
        if (self._names_a_part(self._subject(seg)) or FORWARD.search(seg) or _HYPOTHETICAL.search(seg)
                or self.other_basis(seg, _NON_GAAP)):
            return True
        # another year's comparison, beside an anchor of the latest year asked
        named = find_periods(seg).every_year
        return (self.latest is not None and bool(named) and self.latest not in named
                and self.latest in find_periods(anchor).every_year)

    def weight(self, seg: str) -> float:
        subject = self._subject(seg)
        head = set(tokenize(measure_phrase(subject))) & measure_terms()
        # the asked measure under a name the filing writes longer ("Net cash provided by operating
        # activities" is the operating cash flow asked; its measure phrase stops at "Net cash")
        head |= self.asked & set(tokenize(subject))
        weight = 1.0
        direction = self.direction
        if self.asked and head and not head & self.asked:
            if not (self.through and head & self.related):
                return 0.0  # "segment net income decreased ... driven by" is no cause of net sales
            weight *= 0.8
            if head & _COSTS and not self.asked & _RATES_OF_COST:
                # a cost moves against the profit it is taken from: expenses rose as income fell
                direction = {"up": "down", "down": "up"}.get(direction, "")
        if self._names_a_part(subject):
            weight *= 0.7
        if self.other_basis(seg):
            weight *= 0.5  # "non-GAAP core earnings ... were" for the GAAP earnings asked
        if _SHARE_OR_PLACE.search(subject) and not _SHARE_OR_PLACE.search(self.intent.asked):
            # "Net transaction revenues earned internationally as a percentage of total net
            # transaction revenue decreased ...": a share of the measure, or where it was earned
            weight *= 0.4
        # (a whole word: "GAAP" is not the "GAAP" of "non-GAAP")
        if self.named and any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", seg) for w in self.named):
            weight *= 1.3  # "U.S.: Comparable sales results benefited from ..." for the U.S. asked
        if _generic_cause(seg):
            weight *= 0.5  # "Comparable sales are driven by changes in guest counts": what drives it in general
        # how the sentence's subject moved: its verb or its noun ("The increase in net revenue was")
        verb = _SUBJECT_END.search(seg[:200])
        told = seg[:verb.end()] if verb else ""
        if not (_UP.search(told) or _DOWN.search(told)):
            told = seg  # "Net revenue for 2022 was $23.6 billion, an increase of 44%"
        up, down = _UP.search(told), _DOWN.search(told)
        moved = "up" if up and (not down or up.start() < down.start()) else "down" if down else ""
        if direction and moved and moved != direction:
            # "revenue increased to $4.6 billion" is no answer to which revenue declined; but the
            # asked measure of the whole company moving the other way answers a wrong premise
            # ("what drove the gross margin decline": "Gross margin increased 120 basis points")
            whole = bool(head & self.asked) and not self._names_a_part(subject)
            weight *= 0.5 if whole else 0.2
        if FORWARD.search(seg):
            weight *= 0.6
        if _HYPOTHETICAL.search(seg):
            weight *= 0.3  # "Our effective tax rate could be impacted by ...": a risk, no cause of what happened
        if not MOVED.search(seg) and not _SET_AGAINST.search(seg):
            weight *= 0.5  # "no provisions ... as a result of a change in credit ratings": no movement told
        named = find_periods(seg).every_year
        if self.latest is not None and named:
            if self.latest in named:
                weight *= 1.25
            elif min(named) < min(self.years or {self.latest}):
                weight *= 0.5  # an earlier comparison: "2014 as compared to 2013" for 2015 against 2014
            elif not named & self.years:
                weight *= 0.7
        return weight


_MONTHS = frozenset(MONTH_NAMES)
_VOLUME_WORDS = frozenset({"gmv", "tpv", "gpv", "gtv", "bookings", "backlog"})
# words that open a measure's name ("net", "total"): the word before them is a part's name
_MEASURE_OPENERS = frozenset({"net", "total", "gross", "operating", "consolidated", "comparable"})
# a sentence's opening word that names no part
_PLAIN_OPENERS = frozenset({"the", "our", "its", "their", "this", "that", "these", "those", "total", "net", "gross",
                            "consolidated", "overall", "reported", "company", "combined", "in", "for", "during", "as"})
_SHARE_OR_PLACE = re.compile(r"\bas\s+a\s+(?:percentage|percent|share|proportion)\s+of\b|\b(?:internationally|"
                             r"domestically|outside\s+(?:of\s+)?the|earned\s+in|generated\s+in)\b", re.I)


def _bare_word(word: str) -> str:
    """A word as compared between a question and a filing: lower case, without its possessive
    ending, whichever apostrophe it is typed with ("McDonald’s" in the filing is "McDonald's")."""
    return re.sub(r"['\u2019]s?$", "", word.lower())


# a basis of a figure other than the reported one: a cause of it is no cause of the GAAP figure
# (``_NON_GAAP``, or the reported figure without currency or deals: "organic", "constant currency")
_NON_GAAP = re.compile(r"\bnon-?GAAP\b|\badjusted\b|\bcore\s+earnings\b", re.I)
_OTHER_BASIS = re.compile(rf"{_NON_GAAP.pattern}|\bconstant[\s-]currency\b|\b(?:fx|currency)[\s-]neutral\b|\borganic\b",
                          re.I)
# what might move a measure (a risk factor's wording), not what moved it
_HYPOTHETICAL = re.compile(r"\b(?:could|may|might)\s+(?:also\s+)?(?:be\s+)?(?:\w+ly\s+)?(?:impacted|affected|"
                           r"influenced|subject|fluctuate|vary|change|increase|decrease|harm|result)\b", re.I)
# a figure set against another period's, a movement told without its verb: "totaled $35.9
# billion, compared with $35.6 billion", "versus", "from $1.3 billion ... to $102 million"
_SET_AGAINST = re.compile(r"\bcompared\s+(?:with|to)\b|\bversus\b|\bvs\.?\s|\bfrom\s+\$?\d[^.;]{0,40}?\bto\s+\$?\d", re.I)
# lines taken from a profit (as tokens), and the measures that rise with them (a tax rate with the tax)
_COSTS = frozenset({"expense", "cost", "opex", "cog", "charge", "impairment", "tax", "taxe", "provision"})
_RATES_OF_COST = frozenset({"etr"})
# the words of a movement up and down
_UP = re.compile(r"\b(?:increas\w*|grew|grow\w*|rose|rise[sn]?|rising|higher|improv\w*|expan\w*|jump\w*|surg\w*|"
                 r"(?:went|gone|go|goes|going|moved|move)\s+up)\b", re.I)
_DOWN = re.compile(r"\b(?:declin\w*|decreas\w*|fell|fall\w*|drop\w*|contract\w*|shr[aiu]nk\w*|lower|weaken\w*|"
                   r"deteriorat\w*|(?:went|gone|go|goes|going|moved|move)\s+down)\b", re.I)
# a cause stated in the present, of the measure in general: a definition, not this period's drivers
_GENERIC_CAUSE = re.compile(r"\b(?:are|is|(?:have|has)\s+(?:historically|generally|typically|traditionally)\s+been)\s+"
                            r"(?:\w+ly\s+)?(?:driven|affected|impacted|influenced|determined|caused)\s+by\b", re.I)
# the movement a sentence's subject names ("The decrease in quarter-over-quarter core earnings is
# primarily driven by ..."): a cause of this period's movement, not of the measure in general
_MOVEMENT_NOUN = re.compile(r"\b(?:increase|decrease|decline|growth|change|improvement|reduction|rise|drop|expansion|"
                            r"contraction|deterioration|shift|swing)s?\b", re.I)


# what a line is made of: "Interest and other, net primarily consists of interest earned on cash
# ..., gains and losses due to changes in fair value ...": a definition, whatever its connectives
_DEFINES_LINE = re.compile(r"^[^.;]{0,120}?\b(?:(?:primarily|principally|mainly)\s+)?(?:consists?\s+of|"
                           r"(?:is|are)\s+(?:comprised|composed|made\s+up)\s+of|represents?\s+the)\b", re.I)


def _generic_cause(seg: str) -> bool:
    """A cause stated in the present of the measure in general ("Comparable sales are driven by
    changes in guest counts"), with no figure and no movement as its subject; or what a line
    consists of (its definition)."""
    made = _DEFINES_LINE.match(seg)
    if made is not None and not _MOVEMENT_NOUN.search(seg[:made.end()]):
        return True
    m = _GENERIC_CAUSE.search(seg)
    return m is not None and not numbers_in(seg) and not _MOVEMENT_NOUN.search(seg[:m.start()])


# where a sentence's subject ends: its verb of movement or its cause ("Operating income declined",
# "The decrease in segment net income ... was primarily driven by")
_SUBJECT_END = re.compile(rf"\b(?:increased|decreased|declined|grew|rose|fell|improved|expanded|contracted|dropped|"
                          rf"jumped|was|were|is|are|has|have)\b|{CAUSAL.pattern}", re.I)


def _drivers_at(anchor: tuple[float, Passage, int, int], terms: set[str],
                fit: _DriverFit | None = None, next_page: NextPage | None = None) -> Assembled | None:
    """The drivers answer around one anchor sentence: it, the list it leads and the causes of
    its section (not those ``fit`` sets aside), and the sentence offsetting a cause quoted;
    None when none of them names a cause. A section the page's end cuts goes on at the top of
    the next page (``next_page``): its causes there are read the same way."""
    _, p, a, b = anchor
    page = p.text
    quotes: list[tuple[Citation, bool]] = []
    seen: set[int] = set()
    cuts: list[bool] = []
    has_list = _with_list(p, a, b, quotes, seen, cuts, tables=True)
    s_a, s_b = _section(page, a)
    # more causes of the same section, in reading order, about what the anchor is about (as
    # many of the asked terms: "hardware revenues", not "services revenues")
    need = min(2, _covers(tokenize(page[a:b]), terms))
    spans: list[tuple[Passage, int, int]] = [(p, ua, ub) for ua, ub in _units_in(page, s_a, s_b)]
    following = next_page(p) if next_page is not None and s_b == len(page) else None
    if following is not None:
        # no heading below the anchor: its section goes on at the top of the next page
        spans += [(following, ua, ub) for ua, ub in _units_in(following.text, *_opening_section(following.text, page))]
    carried = False  # the page's last sentence (not its running footer) was quoted
    for i, (q, ua, ub) in enumerate(spans):
        turned = q is not p and (i == 0 or spans[i - 1][0] is p)  # the first sentence of the next page
        if turned:
            ends = [x for _, x, y in spans[:i] if re.search(r"[.;:]\W*$", page[x:y])]
            carried = bool(ends) and ends[-1] in seen
        if len([x for x in quotes if not x[1]]) >= MAX_SENTENCES or (q is p and ua in seen):
            continue
        seg = q.text[ua:ub]
        if is_row_unit(seg) or _is_heading(seg) or _BULLET.match(seg):
            continue
        # the sentence offsetting a quoted one just before it ("This activity was partially offset by ...")
        offsets = q is p and _OFFSET.match(seg) is not None and any(
            0 <= p.start + ua - (c.char_start + len(c.quote)) <= 3 for c, _ in quotes)
        if fit is not None and fit.aside(seg, page[a:b]):
            continue
        if _generic_cause(seg) or STOCK_LANGUAGE.search(seg):
            continue  # what drives the measure in general, no cause of this movement
        # the cause of the anchor's movement told in the sentence right after it
        # (an anaphor of a movement told, or a sentence on the asked terms: "The majority of the
        # tax provision was related to ..." after "we recognized a tax provision of $452 million")
        anaphor = _ANAPHOR.match(seg) is not None and bool(MOVED.search(page[a:b]) or _SET_AGAINST.search(page[a:b]))
        after = (q is p and 0 <= ua - b <= 3 and (anaphor or _covers(tokenize(seg), terms) >= 1)) or (
            turned and carried and anaphor)
        if CAUSAL.search(seg) and (_covers(tokenize(seg), terms) >= max(1, need) or offsets or after):
            quotes.append((_citation(q, ua, ub), False))
            if q is p:
                seen.add(ua)
    if not has_list and not any(CAUSAL.search(c.quote) for c, _ in quotes):
        return None  # no cause named: not a drivers answer
    quotes.sort(key=lambda x: (x[0].page, x[0].char_start))
    return _render("drivers", quotes, any(cuts))


def _opening_section(page: str, before: str) -> tuple[int, int]:
    """The span of a page's text before its first heading, after its running header ("Table of
    Contents", "Third Quarter 2022 Form 10-Q Page 25": furniture, or a line the page ``before``
    prints too but for its figures): a section begun on the page before goes on there. Empty
    when the page opens with a heading."""
    start = _after_running_header(page, before)
    lines = page[start:].split("\n")
    if start >= len(page) or _is_heading(lines[0]):
        return 0, 0
    pos = start + len(lines[0]) + 1
    for line in lines[1:]:
        if _is_heading(line):
            return start, pos
        pos += len(line) + 1
    return start, len(page)


def _without_figures(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()))


_TITLED_PAGES = 3  # the pages a section of titled parts is read over, its heading's page first


def _titled_parts(passages: list[Passage], terms: set[str], next_page: NextPage | None) -> Assembled | None:
    """The parts of the section whose heading names what was asked, each under its own title
    ("LEGAL PROCEEDINGS": "Hewlett-Packard Company Litigation", "Derivative Litigation
    Concerning ..."): each title with the first sentence under it, over the heading's page and
    the pages it goes on to. None when no retrieved page has such a heading with two titled
    parts under it."""
    need = max(1, min(2, len(terms)))
    for p in whole_pages(passages):
        page = p.text
        pos = 0
        for line in page.split("\n"):
            pos += len(line) + 1
            if not _is_heading(line) or _covers(tokenize(line), terms) < need or is_page_furniture(line):
                continue
            quotes = _parts_under(p, pos, next_page)
            if len([q for q in quotes if q[1]]) >= 2:
                return _render("list", quotes[:2 * MAX_ITEMS], len(quotes) > 2 * MAX_ITEMS)
    return None


def _parts_under(p: Passage, start: int, next_page: NextPage | None) -> list[tuple[Citation, bool]]:
    """The titled parts of the section that begins at ``start`` of ``p``'s page, to its next
    major heading (this page and the ones it goes on to): each title as a list item, the first
    sentence under it after it."""
    quotes: list[tuple[Citation, bool]] = []
    page, at = p, start
    for _ in range(_TITLED_PAGES):
        text = page.text
        lines = text[at:].split("\n")
        pos = at
        for i, line in enumerate(lines):
            here, pos = pos, pos + len(line) + 1
            if heading_of(line) and not is_page_furniture(line):
                return quotes  # the next section
            if _is_part_title(line, lines[i + 1:]):
                quotes.append((_citation(page, here, here + len(line)), True))
                first = _units_in(text, pos, min(len(text), pos + 900))[:1]
                if first and not is_row_unit(text[first[0][0]:first[0][1]]):
                    quotes.append((_citation(page, *first[0]), False))
        following = next_page(page) if next_page is not None else None
        if following is None:
            break
        # a running header the next page repeats is no heading of a new section
        at = _after_running_header(following.text, text)
        page = following
    return quotes


def _after_running_header(page: str, before: str) -> int:
    """Where ``page``'s text begins after the lines it repeats of the page ``before`` (its
    running header: "ORACLE CORPORATION", "NOTES TO ... —(Continued)") and its furniture."""
    running = {_without_figures(line) for line in before.split("\n") if line.strip()}
    pos = 0
    for line in page.split("\n"):
        if line.strip() and not is_page_furniture(line) and _without_figures(line) not in running:
            return pos
        pos += len(line) + 1
    return len(page)


def _is_part_title(line: str, after: list[str]) -> bool:
    """A part's title inside a section: one line of up to 14 words, no figure, no closing stop,
    its longer words capitalised, not a major heading, and prose right under it (a table's row
    names stand over figures)."""
    s = line.strip()
    words = s.split()
    if not 1 <= len(words) <= 14 or re.search(r"\d", s) or s.endswith((".", ",", ";", ":", "?", "!")) or heading_of(s):
        return False
    significant = [w for w in words if len(w) > 3]
    if not significant or not words[0][0].isupper() or not all(w[0].isupper() for w in significant):
        return False
    nxt = next((x.strip() for x in after if x.strip()), "")
    return len(nxt) >= 60 and len(re.findall(r"[A-Za-z]{2,}", nxt)) >= 8


def _list(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
          lead: list[_Unit] | None = None, all_answered: bool = False) -> Assembled | None:
    """A lead-in about what was asked and its items (bullets, or a table's rows); else the
    sentences that enumerate it, those answering a fact asked (``lead``) first. When those
    answer every fact asked they are the list ("we closed the A acquisition for $243 million";
    not the allocation table of one of them)."""
    anchors = [] if lead and all_answered else _anchors(passages, terms, idf, _LEAD_IN)
    for _, p, a, b in anchors[:6]:
        quotes: list[tuple[Citation, bool]] = []
        cuts: list[bool] = []
        if _with_list(p, a, b, quotes, set(), cuts, tables=True):
            return _render("list", quotes, any(cuts))
    return _sentences(passages, terms, idf, None, "list", need=False, lead=lead, all_answered=all_answered)


# where a matter stands: its status, its outcome, how it was resolved
_STANDING_ASKED = re.compile(r"\b(?:status|outcome|resolved|resolution|concluded|stand(?:s|ing)?|latest|"
                             r"currently|verdict|settled|(?:came|become|becomes)\s+of|happened|where\s+(?:does|do|did)\s+"
                             r"\w+(?:\s+\w+)?\s+stand)\b", re.I)


def _latest_told(p: Passage, a: int, b: int, passages: list[Passage]) -> tuple[Passage, int, int] | None:
    """The first sentence of the section around ``p.text[a:b]`` that dates its latest event (the
    latest year the section names, after the anchor's), when it is not among the anchor's own:
    where a matter told from its start stands now. A section running to the page's end goes on
    at the top of the next page, when that page is among ``passages``."""
    page = p.text
    s_a, s_b = _section(page, a)
    stretches = [(p, s_a, s_b)]
    if s_b >= len(page.rstrip()) - 40:  # to the page's end (its number printed under it aside)
        after = next((q for q in whole_pages(passages) if q.hit.chunk.doc_id == p.hit.chunk.doc_id
                      and q.hit.chunk.page == p.hit.chunk.page + 1), None)
        if after is not None:
            stretches.append((after, 0, _section(after.text, 0)[1]))
    units = [(q, ua, ub) for q, x, y in stretches for ua, ub in _units_in(q.text, x, y)
             if not (_is_heading(q.text[ua:ub]) or is_row_unit(q.text[ua:ub]) or is_page_furniture(q.text[ua:ub]))]
    years = [(max(find_periods(q.text[ua:ub]).every_year, default=0), q, ua, ub) for q, ua, ub in units]
    latest = max((y for y, _, _, _ in years), default=0)
    anchor_year = max(find_periods(page[a:b]).every_year, default=0)
    if not latest or latest <= anchor_year:
        return None
    told = next((q, ua, ub) for y, q, ua, ub in years if y == latest)
    # already among the sentences quoted after the anchor: the anchor leads, as it would
    following = [(ua, ub) for q, ua, ub in units if q is p and ua >= a][:MAX_SENTENCES]
    return None if told[0] is p and told[1:] in following else told


def _description(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
                 lead: list[_Unit] | None = None, items: bool = False, latest: bool = False) -> Assembled | None:
    """The paragraph about what was asked: its best sentence (the first answering a fact
    asked, ``lead``, when there is one) and the ones after it. When the question asks for the
    things a paragraph enumerates sentence by sentence (``items``: "the key terms of the
    acquisition"), up to ``MAX_ITEMS`` of them, from the first sentence under the heading over
    it when it is among the first ``MAX_ITEMS`` there (the terms open with the agreement)."""
    anchors = (lead or [])[:1] or _anchors(passages, terms, idf, None)
    if not anchors:
        return None
    _, p, a, b = anchors[0]
    page = p.text
    if latest and not lead:
        # the status asked: the section's latest event and what follows it, not the matter's start
        p, a, b = _latest_told(p, a, b, passages) or (p, a, b)
        page = p.text
    if items:
        s_a, _ = _section(page, a)
        opening = [u for u in _units_in(page, s_a, a) if not (_is_heading(page[u[0]:u[1]]) or is_row_unit(
            page[u[0]:u[1]]) or is_page_furniture(page[u[0]:u[1]]))]
        if opening and len(opening) < MAX_ITEMS:
            a, b = opening[0]
    quotes: list[tuple[Citation, bool]] = []
    cuts: list[bool] = []
    if _with_list(p, a, b, quotes, set(), cuts, tables=True):
        return _render("description", quotes, any(cuts))
    # the sentences after it in its paragraph (no blank line, heading or table between)
    para_end = page.find("\n\n", b)
    para_end = len(page) if para_end < 0 else para_end
    for ua, ub in _units_in(page, b, para_end):
        if len(quotes) >= (MAX_ITEMS if items else MAX_SENTENCES):
            break
        seg = page[ua:ub]
        if is_row_unit(seg) or _is_heading(seg):
            break
        if is_page_furniture(seg):
            continue  # the page's number printed under the paragraph
        quotes.append((_citation(p, ua, ub), False))
    return _render("description", quotes)


def _sentences(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
               want: re.Pattern[str] | None, shape: str, need: bool,
               lead: list[_Unit] | None = None, all_answered: bool = False) -> Assembled | None:
    """Up to ``MAX_SENTENCES`` distinct sentences about what was asked (those matching
    ``want`` only, when ``need``), each with its list when it leads one: those answering the
    facts asked (``lead``) first, and others only while a fact asked is left unanswered."""
    quotes: list[tuple[Citation, bool]] = []
    cuts: list[bool] = []
    seen_text: set[str] = set()
    more = [] if lead and all_answered else _anchors(passages, terms, idf, want)
    # a sentence introducing a table or list of what was asked ("The company is providing the
    # following guidance for Q2") carries its items: it goes before sentences about it
    # (one about it nearly as well as the best sentence: not any table the pages introduce)
    top = max((u[0] for u in more), default=0.0)
    more.sort(key=lambda u: -u[0] * (_LEAD_FIRST if u[0] >= _LEAD_NEAR * top and _TABLE_LEAD.search(
        u[1].text[u[2]:u[3]]) else 1.0))
    for _, p, a, b in [*(lead or []), *more]:
        seg = p.text[a:b]
        if need and want is not None and not want.search(seg):
            continue
        if seg in seen_text or any(_overlaps(_citation(p, a, b), c) for c, _ in quotes):
            continue
        seen_text.add(seg)
        _with_list(p, a, b, quotes, set(), cuts, tables=True, breakdown=True)
        if len([q for q in quotes if not q[1]]) >= MAX_SENTENCES:
            break
    if not quotes:
        return None
    return _render(shape, quotes, any(cuts))
