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
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_rag.core.answer.verify import LIST_ITEM as _BULLET
from desktop_rag.core.answer.verify import Passage, best_units, is_row_unit, split_units, unit_citation, whole_pages
from desktop_rag.core.domain.question import QuestionIntent
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Citation
from desktop_rag.core.ingest.chunking import heading_of, is_page_furniture, subheading_of

# A sentence that gives a cause: the connectives filings use in MD&A.
CAUSAL = re.compile(
    r"\b(?:due\s+(?:primarily\s+|mainly\s+|largely\s+|in\s+part\s+)?to|driven\s+(?:primarily\s+|mainly\s+|largely\s+)?by|"
    r"primarily\s+(?:as\s+a\s+result\s+of|from|by|related\s+to|reflecting|attributable\s+to|because)|"
    r"as\s+a\s+result\s+of|result(?:ed|ing)?\s+from|attributable\s+to|reflect(?:s|ed|ing)?|"
    r"(?:partially|partly)\s+offset\s+by|offset\s+by|because\s+of|led\s+by|caused\s+by|owing\s+to|"
    r"contribut(?:ed|ing)\s+to|on\s+(?:higher|lower|strong|weak)|thanks\s+to|impacted\s+by|affected\s+by|"
    r"benefit(?:ed)?\s+from|unfavorabl[ey]\s+impact|favorabl[ey]\s+impact|headwinds?|tailwinds?)\b", re.I)
# A sentence about the future: what management expects, plans or guides.
FORWARD = re.compile(
    r"\b(?:expect(?:s|ed|ing)?|anticipat(?:e|es|ed|ing)|outlook|guidance|forecast(?:s|ed)?|plan(?:s|ned)?\s+to|"
    r"intend(?:s|ed)?\s+to|project(?:s|ed)|target(?:s|ed)?|estimate(?:s|d)?\s+(?:that|to)|will\s+(?:be|continue|"
    r"remain|grow|increase|decrease|decline)|we\s+see|looking\s+ahead|going\s+forward|next\s+(?:fiscal\s+)?year)\b",
    re.I)
# How a figure moved: the sentence a drivers answer leads with.
MOVED = re.compile(r"\b(?:increas|decreas|declin|grew|grow|rose|rise|fell|fall|improv|expan|contract|drop|"
                   r"higher|lower|up|down)\w*\b|\d\s*(?:%|percent|basis\s+points|bps)\b", re.I)
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
             want: re.Pattern[str] | None, k: int = 12) -> list[tuple[float, Passage, int, int]]:
    """The best sentences of the passages for the asked terms, those matching ``want``
    (a cause, a forecast) ranked up; each on its whole page."""
    # each retrieved page whole, once, in retrieval order: the sentence that answers may sit
    # beside the chunk that matched (a reconciliation table above "net income decreased 18%")
    pages = whole_pages(passages)
    out = []
    for score, p, a, b in best_units(pages, terms, [], k, want_numbers=False, idf=idf):
        seg = p.text[a:b]
        if is_row_unit(seg) or _is_heading(seg):
            continue
        if want is not None and want.search(seg):
            score *= 1.6
        out.append((score, p, a, b))
    out.sort(key=lambda s: -s[0])
    return out


def _covers(tokens: Iterable[str], terms: set[str]) -> int:
    return len(terms.intersection(tokens))


def assemble(intent: QuestionIntent, passages: list[Passage], terms: set[str],
             idf: dict[str, float] | None = None) -> Assembled | None:
    """The prose answer of the question's shape from the asked company's passages, or None
    when its structure is not there (the caller then keeps the extractive answer)."""
    if not passages or not terms:
        return None
    shape = intent.ask
    if shape == "drivers" or (intent.wants_reasons and shape in ("comparison", "ranking", "yesno", "change")):
        return _drivers(passages, terms, idf)
    if shape == "outlook":
        return _sentences(passages, terms, idf, FORWARD, "outlook", need=True)
    if shape == "list":
        return _list(passages, terms, idf)
    if shape == "description":
        return _description(passages, terms, idf)
    return None


def _render(shape: str, quotes: list[tuple[Citation, bool]], cut: bool = False) -> Assembled:
    """The answer's text: each quote on its line, list items as bullets."""
    lines = []
    for cite, item in quotes:
        body = _BULLET.sub("", cite.quote).strip() if item else cite.quote.strip()
        lines.append(f"\u2022 {body}" if item else body)
    if cut:
        lines.append("\u2026 (the list continues in the filing)")
    return Assembled("\n".join(lines), [c for c, _ in quotes], shape, cut)


def _with_list(p: Passage, a: int, b: int, quotes: list[tuple[Citation, bool]], seen: set[int],
               cuts: list[bool] | None = None) -> bool:
    """Add the sentence at a..b and, when it leads a list (it ends in a colon, or a lead-in
    follows within ``_LEAD_IN_REACH`` sentences of its paragraph), that list: the sentences up
    to the lead-in, the lead-in and each item (and to ``cuts`` whether the list was longer than
    shown). True when a list was added."""
    quotes.append((_citation(p, a, b), False))
    seen.add(a)
    page = p.text
    lead: tuple[int, int] | None = (a, b) if _LEAD_IN.search(page[a:b]) else None
    between: list[tuple[int, int]] = []
    if lead is None:
        for ua, ub in _units_in(page, b, len(page))[:_LEAD_IN_REACH]:
            seg = page[ua:ub]
            if not seg.strip() or _is_heading(seg) or is_row_unit(seg) or _BULLET.match(seg) or "\n\n" in page[b:ua]:
                break
            if _LEAD_IN.search(seg):
                lead = (ua, ub)
                break
            between.append((ua, ub))
    if lead is None:
        return False
    items, cut = list_items(page, lead[1])
    if not items:
        return False
    for ua, ub in [*between, *([lead] if lead[0] != a else [])]:
        quotes.append((_citation(p, ua, ub), False))
        seen.add(ua)
    if cuts is not None:
        cuts.append(cut)
    for ia, ib in items:
        quotes.append((_citation(p, ia, ib), True))
        seen.add(ia)
    return True


def _drivers(passages: list[Passage], terms: set[str], idf: dict[str, float] | None) -> Assembled | None:
    """The movement sentence and its causes: causal sentences about the asked measure in its
    section, a list under a lead-in kept whole."""
    anchors = _anchors(passages, terms, idf, CAUSAL)
    if not anchors:
        return None
    _, p, a, b = anchors[0]
    page = p.text
    quotes: list[tuple[Citation, bool]] = []
    seen: set[int] = set()
    cuts: list[bool] = []
    has_list = _with_list(p, a, b, quotes, seen, cuts)
    s_a, s_b = _section(page, a)
    # more causes of the same section, in reading order
    for ua, ub in _units_in(page, s_a, s_b):
        if len([q for q in quotes if not q[1]]) >= MAX_SENTENCES or ua in seen:
            continue
        seg = page[ua:ub]
        if is_row_unit(seg) or _is_heading(seg) or _BULLET.match(seg):
            continue
        if CAUSAL.search(seg) and _covers(tokenize(seg), terms):
            quotes.append((_citation(p, ua, ub), False))
            seen.add(ua)
    if not has_list and not any(CAUSAL.search(c.quote) for c, _ in quotes):
        return None  # no cause named: not a drivers answer
    quotes.sort(key=lambda q: q[0].char_start)
    return _render("drivers", quotes, any(cuts))


def _list(passages: list[Passage], terms: set[str], idf: dict[str, float] | None) -> Assembled | None:
    """A lead-in about what was asked and its items; else the sentences that enumerate it."""
    anchors = _anchors(passages, terms, idf, _LEAD_IN)
    for _, p, a, b in anchors[:6]:
        quotes: list[tuple[Citation, bool]] = []
        cuts: list[bool] = []
        if _with_list(p, a, b, quotes, set(), cuts):
            return _render("list", quotes, any(cuts))
    return _sentences(passages, terms, idf, None, "list", need=False)


def _description(passages: list[Passage], terms: set[str], idf: dict[str, float] | None) -> Assembled | None:
    """The paragraph about what was asked: its best sentence and the ones after it."""
    anchors = _anchors(passages, terms, idf, None)
    if not anchors:
        return None
    _, p, a, b = anchors[0]
    page = p.text
    quotes: list[tuple[Citation, bool]] = []
    cuts: list[bool] = []
    if _with_list(p, a, b, quotes, set(), cuts):
        return _render("description", quotes, any(cuts))
    # the sentences after it in its paragraph (no blank line, heading or table between)
    para_end = page.find("\n\n", b)
    para_end = len(page) if para_end < 0 else para_end
    for ua, ub in _units_in(page, b, para_end):
        if len(quotes) >= MAX_SENTENCES:
            break
        seg = page[ua:ub]
        if is_row_unit(seg) or _is_heading(seg):
            break
        quotes.append((_citation(p, ua, ub), False))
    return _render("description", quotes)


def _sentences(passages: list[Passage], terms: set[str], idf: dict[str, float] | None,
               want: re.Pattern[str] | None, shape: str, need: bool) -> Assembled | None:
    """Up to ``MAX_SENTENCES`` distinct sentences about what was asked (those matching
    ``want`` only, when ``need``), each with its list when it leads one."""
    quotes: list[tuple[Citation, bool]] = []
    cuts: list[bool] = []
    seen_text: set[str] = set()
    for _, p, a, b in _anchors(passages, terms, idf, want):
        seg = p.text[a:b]
        if need and want is not None and not want.search(seg):
            continue
        if seg in seen_text:
            continue
        seen_text.add(seg)
        _with_list(p, a, b, quotes, set(), cuts)
        if len([q for q in quotes if not q[1]]) >= MAX_SENTENCES:
            break
    if not quotes:
        return None
    return _render(shape, quotes, any(cuts))
