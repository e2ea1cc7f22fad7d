"""The passages the model reads: the evidence quotes the engine found before generation, each
with the sentences or table rows around it on its page, within a word budget.

Prompt evaluation is the first token's whole cost on a CPU (~340 prompt tokens/s for the
bundled Gemma on two cores), so the prompt carries the lines that hold the answer, not every
retrieved page. Every text here is a contiguous stretch of the page's own text (whole
sentences and table rows of the retrieved passages the answer is verified against), so a
quote the model copies from it is a quote ``verify.locate_quote`` finds on the page; separate
stretches of one page are joined by ``GAP``, which no page text holds, so a quote spanning it
fails verification instead of inventing a contiguous sentence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_rag.core.answer.verify import Passage, split_units
from desktop_rag.core.domain.types import Citation, Hit

# between two stretches of one page that are not contiguous on it
GAP = "\n[…]\n"


@dataclass
class PromptPassage:
    """One page's text for the prompt: ``text`` is stretches of the page's text (``GAP`` between
    them); ``hit`` names the filing and page for the passage header."""

    hit: Hit
    text: str


@dataclass
class _Region:
    """A stretch of one page covered by retrieved passages, cut into quotable units."""

    hit: Hit
    start: int  # offsets into the page text
    text: str
    units: list[tuple[int, int]]  # offsets into ``text``, in reading order
    chosen: set[int] = field(default_factory=set)


def _words(text: str) -> int:
    return len(text.split())


def _span_of(c: Citation, p: Passage) -> tuple[int, int] | None:
    """The quote's span in the passage, or None when the passage does not hold it."""
    if c.char_start >= 0:
        a = c.char_start - p.start
        if a >= 0 and a + len(c.quote) <= len(p.text) and p.text[a:a + len(c.quote)] == c.quote:
            return a, a + len(c.quote)
    i = p.text.find(c.quote)
    return (i, i + len(c.quote)) if i >= 0 and c.quote else None


def _region_for(c: Citation, passages: list[Passage], regions: list[_Region],
                page_text: Callable[[str, int], str | None]) -> tuple[_Region, int, int] | None:
    """The region holding the quote (one per page stretch of overlapping passages) and the
    quote's span in it."""
    holding = [p for p in passages if p.hit.chunk.doc_id == c.doc_id and p.hit.chunk.page == c.page
               and _span_of(c, p) is not None]
    if not holding:
        return None
    # the longest holder (a merged stretch of adjacent chunks beats one chunk), then every
    # passage of that page overlapping it: the region is their union on the page
    best = max(holding, key=lambda p: p.end - p.start)
    page = page_text(c.doc_id, c.page) or ""
    start, end = best.start, best.end
    if page[best.start:best.end] == best.text:
        same_page = [p for p in passages if p.hit.chunk.doc_id == c.doc_id and p.hit.chunk.page == c.page]
        grown = True
        while grown:
            grown = False
            for p in same_page:
                if p.start <= end and start <= p.end and (p.start < start or p.end > end):
                    start, end, grown = min(start, p.start), max(end, p.end), True
        text = page[start:end]
    else:  # no page text stored: the passage alone, as the verifier reads it
        text = best.text
    for r in regions:
        if r.hit.chunk.doc_id == c.doc_id and r.hit.chunk.page == c.page and r.start == start and len(r.text) == len(text):
            region = r
            break
    else:
        region = _Region(best.hit, start, text, split_units(text))
        regions.append(region)
    a = c.char_start - region.start
    if not (c.char_start >= 0 and a >= 0 and region.text[a:a + len(c.quote)] == c.quote):
        a = region.text.find(c.quote)
    return (region, a, a + len(c.quote)) if a >= 0 and c.quote else None


def _core(region: _Region, a: int, b: int) -> tuple[int, int]:
    """The span of the units overlapping text[a:b] (offsets into the region's text); when no
    run of units covers the whole quote (it spans a sentence boundary the splitter did not
    see), the quote and the units it touches become one unit."""
    idx = [i for i, (ua, ub) in enumerate(region.units) if ua < b and a < ub]
    lo = min([a] + [region.units[i][0] for i in idx])
    hi = max([b] + [region.units[i][1] for i in idx])
    if not idx or region.units[idx[0]][0] > a or region.units[idx[-1]][1] < b:
        chosen = [region.units[i] for i in region.chosen]
        region.units = sorted([u for u in region.units if u[1] <= lo or u[0] >= hi] + [(lo, hi)])
        region.chosen = {i for i, u in enumerate(region.units) if any(u[0] < cb and ca < u[1] for ca, cb in chosen)}
    return lo, hi


def _indices(region: _Region, lo: int, hi: int) -> list[int]:
    return [i for i, (ua, ub) in enumerate(region.units) if ua < hi and lo < ub]


def evidence_context(evidence: list[Citation], passages: list[Passage],
                     page_text: Callable[[str, int], str | None], budget_words: int) -> list[PromptPassage]:
    """The evidence quotes (best first, as ``extract.extractive_answer`` orders them) with the
    units around them, within ``budget_words`` words of page text: every quote's sentence or
    row first (the best one even beyond the budget), then one unit after and one before each
    quote in turn while they fit. One PromptPassage per page stretch, in evidence order; []
    when no quote lies in the passages (the caller then keeps its whole-passage prompt)."""
    regions: list[_Region] = []
    cores: list[tuple[_Region, int, int]] = []  # each quote's span of whole units
    used = 0
    for c in evidence:
        found = _region_for(c, passages, regions, page_text)
        if found is None:
            continue
        region, a, b = found
        lo, hi = _core(region, a, b)
        new = [i for i in _indices(region, lo, hi) if i not in region.chosen]
        cost = sum(_words(region.text[slice(*region.units[i])]) for i in new)
        if cores and used + cost > budget_words:
            continue
        region.chosen.update(new)
        used += cost
        cores.append((region, lo, hi))
    if not cores:
        return []
    # unit indices only now: a later quote may have re-cut the units of an earlier one's page
    windows = [(r, min(ix := _indices(r, lo, hi)), max(ix)) for r, lo, hi in cores]
    # grow each quote's window by whole units, after then before, round by round
    open_sides = [[True, True] for _ in windows]
    while any(any(s) for s in open_sides):
        for w, (region, lo, hi) in enumerate(windows):
            for side in (1, 0):
                if not open_sides[w][side]:
                    continue
                i = hi + 1 if side else lo - 1
                while 0 <= i < len(region.units) and i in region.chosen:  # already taken by another quote
                    i = i + 1 if side else i - 1
                if not 0 <= i < len(region.units):
                    open_sides[w][side] = False
                    continue
                cost = _words(region.text[slice(*region.units[i])])
                if used + cost > budget_words:
                    open_sides[w][side] = False
                    continue
                region.chosen.add(i)
                used += cost
                lo, hi = (lo, i) if side else (i, hi)
            windows[w] = (region, lo, hi)
    return [PromptPassage(r.hit, _render(r)) for r in regions if r.chosen]


def _render(region: _Region) -> str:
    """The chosen units as contiguous stretches of the page (the text between two adjacent
    chosen units is the page's own), ``GAP`` between stretches that are not adjacent."""
    runs: list[list[int]] = []
    for i in sorted(region.chosen):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return GAP.join(region.text[region.units[a][0]:region.units[b][1]] for a, b in runs)
