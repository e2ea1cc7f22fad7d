"""From question to a trustworthy answer: retrieve, gate, generate, then verify.

Nothing the model says reaches the user unchecked:
- each citation quote must be an exact substring (after white-space/dash folding) of the
  retrieved passages — searched across all of them, and across adjacent passages of the
  same page for quotes that span two chunks — and is re-anchored to its real page;
- support for the answer is located by us in the passages (the model's passage ids are
  unreliable), and every figure in the answer must appear in a kept quote, and most of its
  words in the quotes or the question;
- otherwise the answer is replaced by an extractive one: the best-matching passage
  sentence(s), quoted verbatim, flagged ``extractive``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop_rag.core.chunking import heading_of, is_page_furniture, is_table_row, subheading_of
from desktop_rag.core.domain.numbers import number_supported, numbers_in, parse_cell, scale_factor, scale_of
from desktop_rag.core.domain.periods import find_periods
from desktop_rag.core.generate import NOT_IN_CORPUS, LlamaGenerator
from desktop_rag.core.lexical import content_terms, tokenize
from desktop_rag.core.library import Library
from desktop_rag.core.pdf import fold_text, match_form
from desktop_rag.core.query import format_figure
from desktop_rag.core.retrieve import HybridRetriever
from desktop_rag.core.statements import answer as statement_answer
from desktop_rag.core.types import Answer, Citation, Hit, QueryPlan
from desktop_rag.settings import Settings

log = logging.getLogger(__name__)
_SCALE_WORDS = frozenset({"thousand", "million", "billion", "trillion", "percent", "bn", "mn"})
_SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z(])")
_REFUSAL_RE = re.compile(r"not in (the )?corpus|cannot (be )?(answer|determin|find)|no information|not (provided|mentioned|available)|unable to", re.I)


# The note that marks an answer whose model wording failed verification (the filing is quoted).
EXTRACTIVE_NOTE = "extractive fallback:"


# -- quotes ----------------------------------------------------------------------------
@dataclass
class Passage:
    """A stretch of one page's text available as evidence (one chunk, or several
    adjacent/overlapping chunks of the same page merged)."""

    hit: Hit
    start: int  # offsets into the page text
    end: int
    text: str


def _widen(page_text: str, start: int, end: int, slack: int = 300) -> tuple[int, int]:
    """Grow a chunk span to whole lines/sentences of its page (chunks are word windows
    and may cut a sentence; the page text is still exactly what was retrieved)."""
    ls = page_text.rfind("\n", max(0, start - slack), start)
    new_start = ls + 1 if ls >= 0 else (0 if start <= slack else start)
    if end > 0 and page_text[end - 1] in ".;:":
        return new_start, end
    m = re.compile(r"[.;:](?=\s|$)").search(page_text, end, min(len(page_text), end + slack))
    return new_start, m.end() if m else end


def passages_for(library: Library, hits: list[Hit]) -> list[Passage]:
    """Context chunks widened to whole sentences, plus merged spans of overlapping or
    adjacent chunks on one page, so a quote spanning two chunks validates against text
    that really is contiguous on the page."""
    out = []
    for h in hits:
        page_text = library.page_text(h.chunk.doc_id, h.chunk.page)
        a, b = _widen(page_text, h.chunk.char_start, h.chunk.char_end) if page_text else (h.chunk.char_start, h.chunk.char_end)
        out.append(Passage(h, a, b, page_text[a:b] if page_text else h.chunk.text))
    by_page: dict[tuple[str, int], list[Hit]] = {}
    for h in hits:
        by_page.setdefault((h.chunk.doc_id, h.chunk.page), []).append(h)
    for (doc_id, page), group in by_page.items():
        if len(group) < 2:
            continue
        group.sort(key=lambda h: h.chunk.char_start)
        page_text = library.page_text(doc_id, page)
        start, end, first = group[0].chunk.char_start, group[0].chunk.char_end, group[0]
        for h in group[1:]:
            if h.chunk.char_start <= end + 1:
                end = max(end, h.chunk.char_end)
            else:
                if end > first.chunk.char_end:
                    out.append(Passage(first, start, end, page_text[start:end]))
                start, end, first = h.chunk.char_start, h.chunk.char_end, h
        if end > first.chunk.char_end:
            out.append(Passage(first, start, end, page_text[start:end]))
    return out


def locate_quote(quote: str, passages: list[Passage]) -> Citation | None:
    """Anchor a quote in the passages; None when it is not an exact substring of any.
    Matched leniently (quote/dash/line-break folding), shown verbatim: the citation's
    quote is the page's own characters, minus any running header/footer line the quoted
    span happened to run into."""
    q = fold_text(quote).strip(" .\"'")
    if len(q) < 8:
        return None
    for p in passages:
        i = match_form(p.text).find(q)
        if i >= 0:
            a, b = trim_furniture(p.text, i, i + len(q))
            if b - a < 8:
                continue
            c = p.hit.chunk
            return Citation(c.doc_id, p.hit.doc.file_name, c.page, p.text[a:b], p.start + a, c.chunk_id)
    return None


# where a sentence the model was copying ends (split_units has its own, lookahead-based rule)
_SENTENCE_STOP = re.compile(r"[.!?](?=\s|$)")


def complete_cut_sentence(answer: str, passages: list[Passage], limit: int = 300) -> str:
    """The model's answer, finished from the page when it is a verbatim stretch of a prose
    passage that stops mid-sentence. The small model often copies a sentence and closes the
    string early ("... as well as lower charges for severance and"); the rest is the page's
    own words up to the sentence's end (never across a table row), and verification then
    checks the whole sentence like any answer."""
    text = answer.strip()
    if not text or text[-1] in ".!?":
        return answer
    words = fold_text(text).split()
    # the whole answer, else its longest verbatim ending (the model's own opening words, then
    # the page's sentence it was copying) of at least half the answer and eight words: a
    # short stock phrase ("in the year ended December 31") is in too many places to continue
    keep = max(8, (len(words) + 1) // 2)
    tails = [" ".join(words[k:]) for k in range(0, max(1, len(words) - keep + 1))]
    hit = next(((p, i, len(q)) for q in tails if len(q) >= 20 for p in passages
                if (i := match_form(p.text).find(q)) >= 0), None)
    if hit is not None:
        p, i, n = hit
        end = i + n
        m = _SENTENCE_STOP.search(p.text, end, min(len(p.text), end + limit))
        if m is None:
            return answer
        line_start = p.text.rfind("\n", 0, end) + 1
        if any(is_table_row(line) for line in p.text[line_start:m.end()].splitlines()):
            return answer
        return f"{text} {' '.join(p.text[end:m.end()].split())}".rstrip()
    return answer


def trim_furniture(text: str, a: int, b: int) -> tuple[int, int]:
    """Shrink text[a:b] so it neither starts nor ends with a page-furniture line (a page
    number or running footer glued on by the line break before or after it)."""
    while True:
        nl = text.rfind("\n", a, b)
        if nl < 0 or not is_page_furniture(text[nl + 1:b]):
            break
        b = nl
    while True:
        nl = text.find("\n", a, b)
        if nl < 0 or not is_page_furniture(text[a:nl]):
            break
        a = nl + 1
    while b > a and text[b - 1] == " ":
        b -= 1
    return a, b


def split_units(text: str) -> list[tuple[int, int]]:
    """Quotable units of a passage: each table row, and the sentences of prose, which
    may wrap over several visual lines (a sentence is never cut at a line break)."""
    units: list[tuple[int, int]] = []
    lines: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    para_start = -1

    def flush(end: int) -> None:
        if para_start < 0:
            return
        flat = match_form(text[para_start:end])
        starts = [0] + [m.end() for m in _SENTENCE_END.finditer(flat)]
        ends = [*starts[1:], len(flat)]
        for s_, e_ in zip(starts, ends, strict=True):
            seg = flat[s_:e_]
            lead = len(seg) - len(seg.lstrip())
            seg = seg.strip()
            if len(seg) >= 8:
                units.append((para_start + s_ + lead, para_start + s_ + lead + len(seg)))

    for a, b in lines:
        line = text[a:b]
        if not line.strip():
            flush(a - 1 if a else 0)
            para_start = -1
        elif is_page_furniture(line) or is_table_row(line) or heading_of(line) or subheading_of(line):
            flush(max(a - 1, 0))
            para_start = -1
            units.append((a, b))
        elif para_start < 0:
            para_start = a
    flush(len(text))
    return [(a, b) for a, b in units if b > a]


def _unit_citation(p: Passage, a: int, b: int) -> Citation:
    c = p.hit.chunk
    return Citation(c.doc_id, p.hit.doc.file_name, c.page, p.text[a:b], p.start + a, c.chunk_id)


# -- support and extractive answers -------------------------------------------------------
def _terms(text: str) -> set[str]:
    return set(content_terms(text))


_BOILERPLATE = re.compile(
    r"(form\s+10-[qk]\s*\|\s*\d+\s*$)|(^\s*(page\s+)?\d+\s*$)|(^table of contents$)|(see accompanying notes)", re.I)


def _is_quotable(seg: str) -> bool:
    """Page furniture (running headers/footers, page numbers) is never evidence."""
    words = re.findall(r"[A-Za-z]{2,}", seg)
    # A bare label ("Net sales:") says nothing; a row needs its figures, prose a few words.
    enough = len(words) >= 3 or (len(words) >= 1 and bool(numbers_in(seg)))
    return enough and not _BOILERPLATE.search(seg.strip())


def best_units(
    passages: list[Passage], terms: set[str], numbers: list[float], k: int, want_numbers: bool,
    rank_weight: bool = True, idf: dict[str, float] | None = None,
) -> list[tuple[float, Passage, int, int]]:
    """Quotable units scored by (idf-weighted) term overlap, figure matches and rank."""
    weights = {t: max(0.2, (idf or {}).get(t, 1.0)) for t in terms}
    total = sum(weights.values()) or 1.0
    scored: list[tuple[float, Passage, int, int]] = []
    seen: set[str] = set()
    for rank, p in enumerate(passages):
        for a, b in split_units(p.text):
            seg = p.text[a:b]
            key = fold_text(seg)
            if key in seen or not _is_quotable(seg):
                continue
            seen.add(key)
            toks = tokenize(seg)
            matched = terms.intersection(toks)
            if not matched and not numbers:
                continue
            nums = numbers_in(seg)
            score = 2.0 * sum(weights[t] for t in matched) / total
            # In a table row the label carries the meaning: reward terms found there.
            label = set(tokenize(" ".join(w for w in seg.split()[:8] if not numbers_in(w))))
            score += 0.5 * sum(weights[t] for t in matched & label) / total
            if numbers:
                score += 3.0 * sum(number_supported(n, nums) for n in numbers) / len(numbers)
            if want_numbers and nums:
                score += 0.4
            if rank_weight and not p.hit.expanded:
                score += 0.3 / (1 + rank) + 0.2 * p.hit.score
            score -= 0.002 * max(0, len(seg) - 220)  # prefer crisp quotes
            if score > 0:
                scored.append((score, p, a, b))
    scored.sort(key=lambda s: -s[0])
    return scored[:k]


_WANTS_NUMBER = re.compile(r"\b(how much|how many|what (was|were|is|are) (the )?(total|amount|net|revenue|sales|income|cash|margin|rate|eps)|amount|percentage|percent|ratio|rate|figure|\$)\b", re.I)


def extractive_answer(
    question: str, plan: QueryPlan, passages: list[Passage], max_quotes: int = 2,
    idf: dict[str, float] | None = None, ignore: set[str] | None = None,
    page_text: Callable[[str, int], str | None] | None = None,
) -> tuple[str, list[Citation]]:
    """The passage sentence(s)/row(s) that best answer the question, quoted verbatim.
    ``ignore``: terms every passage shares (company, period) that would only add noise.
    ``page_text`` (doc_id, page) -> text: where a table's scale note is read from."""
    terms = (set(plan.content_terms) | _terms(question)) - (ignore or set())
    want_numbers = bool(_WANTS_NUMBER.search(question))
    top = best_units(passages, terms, [], max_quotes + 2, want_numbers, idf=idf)
    if not top:
        return "", []
    best = top[0]
    chosen = [best]
    # A second quote only when it adds evidence of similar strength from elsewhere.
    for cand in top[1:]:
        if len(chosen) >= max_quotes:
            break
        if cand[0] >= 0.75 * best[0] and fold_text(cand[1].text[cand[2]:cand[3]]) not in fold_text(best[1].text):
            chosen.append(cand)
    cites = [_unit_citation(p, a, b) for _, p, a, b in chosen]
    text = " … ".join(c.quote for c in cites)
    # A bare table row is unreadable without its column headings: quote those too.
    _, p, a, _ = best
    header = _column_header(p, a)
    if header is not None and all(header.quote != c.quote for c in cites):
        text = f"{cites[0].quote} (columns: {header.quote})" + (" … " + " … ".join(c.quote for c in cites[1:]) if cites[1:] else "")
        cites.append(header)
    if want_numbers and header is not None:
        # "how much" is answered with the figure, its unit and scale, not a bare row
        whole = page_text(p.hit.chunk.doc_id, p.hit.chunk.page) if page_text else None
        above = whole[:p.start + a] if whole else p.text[:a]
        figure = figure_statement(cites[0].quote, header.quote, above, plan)
        if figure:
            text = f"{figure} — “{cites[0].quote}”"
    return text, cites


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
    if cell.value is None:
        return f"{label}: none ({period})"
    inst = plan.instructions
    if cell.percent or "%" in row[m.start():]:
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
    figure = format_figure(value, unit, decimals, "" if shares else "USD")
    return f"{label}: {figure}{' shares' if shares else ''} ({period})"


_PERIOD_HEADER = re.compile(
    r"\b(ended|months|weeks|quarter|(19|20)\d\d|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b", re.I)


def _column_header(p: Passage, row_start: int) -> Citation | None:
    """The column-heading lines of the table a row belongs to (same passage, above it)."""
    row_end = p.text.find("\n", row_start)
    if p.hit.chunk.kind != "table" or not is_table_row(p.text[row_start:row_end if row_end >= 0 else len(p.text)]):
        return None
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
    return _unit_citation(p, a, b)


@dataclass
class Verdict:
    ok: bool
    citations: list[Citation] = field(default_factory=list)
    reason: str = ""


def verify_answer(
    answer: str, model_quotes: list[str], question: str, passages: list[Passage], max_citations: int,
    concept: set[str] | None = None, idf: dict[str, float] | None = None,
) -> Verdict:
    """Keep the model's answer only if its figures and words are backed by real quotes.
    ``concept``: the question's evidence terms (not company or period); a figure counts as
    supported only by a quote that carries what was asked: its most distinctive term (by
    ``idf``) and most of the terms' weight ("1.0" in a current-ratio row is no support for
    a dividend of $1.00, nor "cash at end of year" for current liabilities at year end)."""
    text = answer.strip()
    if not text or _REFUSAL_RE.search(text) or text.lower().startswith(NOT_IN_CORPUS.lower()):
        return Verdict(False, reason="the model gave no answer although passages matched")
    cites: list[Citation] = []
    # An answer that is the page's own sentence is cited by that sentence first.
    for q in [text, *model_quotes]:
        c = locate_quote(q, passages)
        if c and all(c.quote != k.quote for k in cites):
            cites.append(c)
    question_numbers = numbers_in(question)
    answer_numbers = [n for n in numbers_in(text) if not number_supported(n, question_numbers)]
    terms = _terms(text) - _terms(question) or _terms(text)
    # Our own support search: the units that best carry the answer's figures and words.
    for _, p, a, b in best_units(passages, terms, answer_numbers, max_citations + 1, False, rank_weight=False):
        if len(cites) >= max_citations:
            break
        c = _unit_citation(p, a, b)
        new = fold_text(c.quote)
        # the same sentence with or without its full stop is one citation
        if all(new not in fold_text(k.quote) and fold_text(k.quote) not in new for k in cites):
            cites.append(c)
    cites = cites[:max_citations]
    if not cites:
        return Verdict(False, reason="no passage supports the answer")
    quoted_numbers = [n for c in cites for n in numbers_in(c.quote)]
    missing = [n for n in answer_numbers if not number_supported(n, quoted_numbers)]
    if missing:
        return Verdict(False, reason=f"figure(s) {', '.join(f'{n:g}' for n in missing)} not found in any quote")
    figures = [n for n in answer_numbers if not (float(n).is_integer() and 1900 <= n <= 2100)]  # not years
    if (concept and not figures and _FIGURE_ASKED.search(question)
            and not _EXPLANATION_ASKED.search(question)):
        return Verdict(False, reason="the question asks for a figure, the answer gives none")
    if (concept and answer_numbers and _RATIO_ASKED.search(question) and not _EXPLANATION_ASKED.search(question)
            and _AMOUNT_GIVEN.search(text)):
        return Verdict(False, reason="the question asks for a ratio or rate, the answer gives an amount")
    if concept:
        for n in answer_numbers:
            holders = [c for c in cites if number_supported(n, numbers_in(c.quote))]
            if not any(carries_concept(tokenize(c.quote), concept, idf) for c in holders):
                return Verdict(False, reason=f"figure {n:g} is quoted only from text that does not name what was asked")
    # Wording check on words only: figures were checked above, scale words go with them.
    answer_terms = {t for t in _terms(text) if not t.replace(".", "").isdigit() and t not in _SCALE_WORDS}
    if answer_terms:
        backed = answer_terms & (set().union(*(set(tokenize(c.quote)) for c in cites)) | _terms(question))
        if len(backed) / len(answer_terms) < 0.8:
            return Verdict(False, reason="most of the answer's wording is not in the quoted text")
    return Verdict(True, cites)


_RATIO_ASKED = re.compile(r"\b(ratio|margin|percent(age)?|turnover|days\s+\w+\s+outstanding|rate|yield|multiple)\b|%", re.I)
# "How much ...", "what damages range ...": a sentence around the figure without the figure
# (a small model's usual way to fall short) is no answer to it.
_FIGURE_ASKED = re.compile(
    r"\b(how\s+much|how\s+many|what\s+(?:was|were|is|are)\s+(?:the\s+)?(?:\w+\s+){0,4}(?:amount|range|total|"
    r"revenues?|sales|income|expenses?|costs?|eps|earnings\s+per\s+share|cash\s+flows?|margin|rate|ratio|percentage)"
    r"|what\s+(?:\w+\s+){0,2}(?:amount|range|figure|price|value)s?)\b",
    re.I)
# "per its Q2 2023 10-Q": the form names the filing, the filing's sentences do not name it
_FORM_TERMS = frozenset(tokenize("10-K 10-Q 8-K 10-KT 10-QT"))
# "What drove the change in gross margin?" asks for the reasons, and the reasons are amounts
# ("lower charges for severance of $89 million"): no ratio figure is expected of the answer.
_EXPLANATION_ASKED = re.compile(
    r"\b(why|drove|drivers?|caused?|causes|reasons?|factors?|explain\w*|attribut\w+|contribut\w+)\b", re.I)
_AMOUNT_GIVEN = re.compile(r"\$|\b(thousand|million|billion|trillion)s?\b", re.I)


def carries_concept(tokens: list[str], concept: set[str], idf: dict[str, float] | None = None) -> bool:
    """A quote names what was asked: it has the question's most distinctive concept term and
    at least 60 % of the concept terms' weight (idf; equal weights without it)."""
    weights = {t: max(0.1, (idf or {}).get(t, 1.0)) for t in concept}
    present = concept.intersection(tokens)
    top = max(weights, key=lambda t: (weights[t], t))
    if len(concept) > 1 and top not in present:
        return False
    return sum(weights[t] for t in present) >= 0.6 * sum(weights.values())


def parse_model_json(raw: str) -> tuple[str, list[str]]:
    """(answer, quotes) from the model's output, tolerant of truncation and chatter."""
    raw = raw.strip()
    start = raw.find("{")
    if start >= 0:
        body = raw[start:]
        for candidate in (body, body[: body.rfind("}") + 1]):
            try:
                obj = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(obj, dict):
                ans = obj.get("answer")
                quotes = [c.get("quote", "") for c in obj.get("citations") or [] if isinstance(c, dict)]
                return (ans if isinstance(ans, str) else ""), [q for q in quotes if isinstance(q, str)]
    # Truncated JSON: salvage the answer string and any complete quotes.
    m = re.search(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', raw)
    answer = ""
    if m:
        try:
            answer = json.loads(f'"{m.group(1)}"')
        except ValueError:
            answer = m.group(1)
    quotes = []
    for q in re.findall(r'"quote"\s*:\s*"((?:[^"\\]|\\.)*)"', raw):
        try:
            quotes.append(json.loads(f'"{q}"'))
        except ValueError:
            continue
    if not m and start < 0:
        answer = raw  # plain text from a model that ignored the format
    return answer, quotes


class AnswerTextStream:
    """Incrementally pulls the ``answer`` string out of streamed JSON, for live display."""

    def __init__(self) -> None:
        self.raw = ""  # everything the model produced
        self._start = -1  # offset where the answer string's content begins
        self._shown = 0

    def feed(self, piece: str) -> str:
        """Add a piece of output; return the newly decoded part of the answer text."""
        self.raw += piece
        if self._start < 0:
            m = re.search(r'"answer"\s*:\s*"', self.raw)
            if not m:
                return ""
            self._start = m.end()
        out: list[str] = []
        i = self._start
        while i < len(self.raw):
            ch = self.raw[i]
            if ch == "\\":
                if i + 1 >= len(self.raw):
                    break  # escape split across pieces: wait for the rest
                nxt = self.raw[i + 1]
                if nxt == "u":
                    if i + 6 > len(self.raw):
                        break
                    try:
                        out.append(chr(int(self.raw[i + 2:i + 6], 16)))
                    except ValueError:
                        out.append(self.raw[i + 2:i + 6])
                    i += 6
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt, nxt))
                i += 2
                continue
            if ch == '"':
                break
            out.append(ch)
            i += 1
        text = "".join(out)
        new = text[self._shown:]
        self._shown = len(text)
        return new


# -- the pipeline -------------------------------------------------------------------------------
@dataclass
class AnswerEvent:
    """``kind``: retrieved (hits), token (text), answer (final Answer)."""

    kind: Literal["retrieved", "token", "answer"]
    text: str = ""
    hits: list[Hit] = field(default_factory=list)
    answer: Answer | None = None


class AnswerEngine:
    """Question in, verified answer out. The generator is optional (search-only use)."""

    def __init__(self, library: Library, settings: Settings, generator: LlamaGenerator | None = None) -> None:
        self.library = library
        self.settings = settings
        self.retriever = HybridRetriever(library, settings.retrieval)
        self.generator = generator

    @property
    def model_name(self) -> str:
        return self.generator.name if self.generator else ""

    def ask(self, question: str, **kw: Any) -> Answer:
        answer = None
        for ev in self.ask_stream(question, **kw):
            if ev.kind == "answer":
                answer = ev.answer
        assert answer is not None
        return answer

    def ask_stream(
        self, question: str, standalone: str | None = None, doc_scope: list[str] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AnswerEvent]:
        t0 = time.perf_counter()
        query = (standalone or question).strip()
        s = self.settings
        plan = self.retriever.plan(query, doc_scope)
        # a company or period the library lacks is refused by the gate below: a statement of
        # another period (the latest quarter for "Q4 2022") is no answer
        computed = self._computed_answer(question, query, plan, t0) if self._retriable(plan) else None
        if computed is not None:  # a statement figure or metric: numbers from cells, arithmetic from code
            yield AnswerEvent("retrieved", hits=[])
            yield AnswerEvent("answer", answer=computed)
            return
        hits = self.retriever.search(plan)
        t_retrieve = (time.perf_counter() - t0) * 1000
        yield AnswerEvent("retrieved", hits=hits)
        result = Answer(query=question, answer="", citations=[], model=self.model_name,
                        standalone_query=query, hits=hits)
        gate = self.retriever.gate(plan, hits)
        if not gate.passed and self._retriable(plan):
            # borderline: the company and period are in the library, the passages fell short
            retried = self._retry(query, doc_scope, cancel, f"gate: {gate.reason}", result)
            if retried is not None:
                yield AnswerEvent("answer", answer=self._finish_retry(result, retried, t0))
                return
        if not gate.passed:
            # the reason is the answer: which company, period or subject the library lacks
            result.answer, result.not_in_corpus = gate.reason or NOT_IN_CORPUS, True
            result.notes.append(gate.reason)
            result.timings_ms = {"retrieve": t_retrieve, "first_token": 0.0,
                                 "total": (time.perf_counter() - t0) * 1000}
            yield AnswerEvent("answer", answer=result)
            return
        context = self._context(hits)
        passages = passages_for(self.library, context)
        asked = plan.asked or query  # without the analyst's instructions (units, persona, rounding)
        concept = self._concept(plan, hits)
        first_token = 0.0
        model_answer = ""
        model_quotes: list[str] = []
        if self.generator is not None:
            labels = [(f"P{i}", _header(h), h.chunk.text) for i, h in enumerate(context, 1)]
            prompt = self.generator.build_prompt(asked, labels)
            stream = AnswerTextStream()
            for piece in self.generator.stream(prompt, cancel):
                shown = stream.feed(piece)
                if shown:
                    if not first_token:  # the first answer text, not the prefilled JSON opener
                        first_token = (time.perf_counter() - t0) * 1000
                    yield AnswerEvent("token", text=shown)
            if cancel is not None and cancel.is_set():
                result.cancelled = True
            model_answer, model_quotes = parse_model_json(stream.raw)
            model_answer = complete_cut_sentence(model_answer, passages)
        verdict = (
            verify_answer(model_answer, model_quotes, asked, passages, s.generation.max_citations,
                          concept=concept, idf=self.library.lexical.idf)
            if self.generator is not None and not result.cancelled
            else Verdict(False, reason="cancelled" if result.cancelled else "no generator loaded")
        )
        if not verdict.ok and self.generator is not None and not result.cancelled:
            retried = self._retry(query, doc_scope, cancel, verdict.reason, result)
            if retried is not None:
                yield AnswerEvent("answer", answer=self._finish_retry(result, retried, t0, t_retrieve, first_token))
                return
        if verdict.ok:
            result.answer, result.citations = model_answer.strip(), verdict.citations
        else:
            text, cites = extractive_answer(asked, plan, passages, s.generation.max_citations,
                                            idf=self.library.lexical.idf, ignore=self.retriever.filter_terms(plan, hits),
                                            page_text=self.library.page_text)
            if cites:
                result.answer, result.citations, result.extractive = text, cites, True
                result.notes.append(f"{EXTRACTIVE_NOTE} {verdict.reason}")
            else:
                result.answer, result.not_in_corpus = "No passage of the filings searched answers the question.", True
                result.notes.append("no passage sentence matches the question")
        result.timings_ms = {"retrieve": t_retrieve, "first_token": first_token,
                             "total": (time.perf_counter() - t0) * 1000}
        yield AnswerEvent("answer", answer=result)


    def statement_answer(self, question: str, doc_scope: list[str] | None = None) -> Answer | None:
        """What ``ask`` answers from the statements before any retrieval or generation (a
        computed figure, or the calculator's honest refusal); None when the question goes on
        to retrieval and the model."""
        plan = self.retriever.plan(question, doc_scope)
        return self._computed_answer(question, question, plan, time.perf_counter()) if self._retriable(plan) else None

    def _computed_answer(self, question: str, query: str, plan: QueryPlan, t0: float) -> Answer | None:
        """Line items and metrics of a named company answered from its extracted statements
        (core/statements), or an honest "cannot compute" naming the missing input."""
        if not plan.filters.get("company") or not plan.doc_ids:
            return None
        docs = [self.library.docs[d] for d in plan.doc_ids if d in self.library.docs]
        ins = plan.instructions
        scale = ins.scale if ins is not None and ins.scale in ("thousands", "millions", "billions") else ""
        decimals = ins.decimals if ins is not None else None
        try:
            out = statement_answer.calculate(query, docs, self.library.statements, self.library.page_text, scale, decimals)
        except Exception as exc:  # never let the calculator break an answer: retrieval still works
            log.warning("statement calculation failed: %r", exc)
            return None
        if out is None:
            return None
        result = Answer(query=question, answer=out.text, citations=out.citations, model=self.model_name,
                        standalone_query=query, calculation=out.calculation, computed=out.calculation is not None)
        if out.calculation is None:
            result.not_in_corpus = True
            result.notes.append("statement calculation refused: " + out.text)
        else:
            result.notes.append("computed from statement cells")
        total = (time.perf_counter() - t0) * 1000
        result.timings_ms = {"retrieve": total, "first_token": 0.0, "total": total}
        return result

    # -- self-check with retries (issue #12) ---------------------------------------------------
    @staticmethod
    def _retriable(plan: QueryPlan) -> bool:
        """A refusal worth a second look: not a company or period the library lacks."""
        f = plan.filters
        return not (f.missing_company and not f.company) and not f.period_relaxed

    def _retry(self, query: str, doc_scope: list[str] | None, cancel: threading.Event | None,
               first_failure: str, result: Answer) -> tuple[int, str, Verdict, list[Hit]] | None:
        """Up to three reformulations of ``query`` (statement hint, synonym, period variant,
        wider scope), each retrieved, gated, generated and verified; the first verified one
        whose citations are all of the first attempt's companies wins. Attempts go in the notes."""
        from desktop_rag.core.conversation.reformulate import reformulations

        result.notes.append(f"attempt 1: {query} — {first_failure}")
        if self.generator is None:
            return None
        first_plan = self.retriever.plan(query, doc_scope)
        docs = self.library.docs
        # the companies the first attempt was about: named, else the scope's, else its top passages'
        companies = set(first_plan.filters.company) or {
            docs[d].meta.company or docs[d].meta.ticker for d in (doc_scope or []) if d in docs} or {
            h.doc.meta.company or h.doc.meta.ticker for h in result.hits[:3]}
        for n, ref in enumerate(reformulations(query, bool(doc_scope)), 2):
            if cancel is not None and cancel.is_set():
                return None
            plan = self.retriever.plan(ref.query, None if ref.widen_scope else doc_scope)
            if ref.widen_scope and not plan.filters.company:
                result.notes.append(f"attempt {n} skipped: a wider scope would not keep to one company")
                continue
            hits = self.retriever.search(plan)
            gate = self.retriever.gate(plan, hits)
            if not gate.passed:
                result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — gate: {gate.reason}")
                continue
            context = self._context(hits)
            passages = passages_for(self.library, context)
            asked = plan.asked or ref.query
            # what was asked is the analyst's question, not the reformulation's added words
            concept = self._concept(first_plan, hits)
            labels = [(f"P{i}", _header(h), h.chunk.text) for i, h in enumerate(context, 1)]
            raw = "".join(self.generator.stream(self.generator.build_prompt(asked, labels), cancel))
            model_answer, model_quotes = parse_model_json(raw)
            model_answer = complete_cut_sentence(model_answer, passages)
            verdict = verify_answer(model_answer, model_quotes, asked, passages,
                                    self.settings.generation.max_citations, concept=concept,
                                    idf=self.library.lexical.idf)
            cited = {docs[c.doc_id].meta.company or docs[c.doc_id].meta.ticker for c in verdict.citations if c.doc_id in docs}
            if verdict.ok and companies and not cited <= companies:
                result.notes.append(f"attempt {n} ({ref.how}): rejected, it cites another company ({', '.join(sorted(cited - companies))})")
                continue
            if verdict.ok:
                result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — verified")
                return n, model_answer.strip(), verdict, hits
            result.notes.append(f"attempt {n} ({ref.how}): {ref.query} — {verdict.reason}")
        return None

    @staticmethod
    def _finish_retry(result: Answer, retried: tuple[int, str, Verdict, list[Hit]], t0: float,
                      t_retrieve: float = 0.0, first_token: float = 0.0) -> Answer:
        n, text, verdict, hits = retried
        result.answer, result.citations, result.hits = text, verdict.citations, hits
        result.timings_ms = {"retrieve": t_retrieve, "first_token": first_token,
                             "total": (time.perf_counter() - t0) * 1000, "attempt": float(n)}
        return result

    def _concept(self, plan: QueryPlan, hits: list[Hit]) -> set[str]:
        """What the question asks about, as the gate reads it: not the company or period (the
        filter used them) and not words of computation or trend ("ratio", "drove", "change"):
        filings print the figures and their own verbs, not the analyst's words for them."""
        return set(self.retriever.evidence_terms(plan, hits)) - _FORM_TERMS

    def _context(self, hits: list[Hit]) -> list[Hit]:
        """Ranked hits with their same-page neighbours, cut to the prompt's word budget.
        Ranked hits come first in priority: a neighbour is added only if it still fits."""
        budget = self.settings.retrieval.context_words
        expanded = self.retriever.expand(hits, self.settings.retrieval.context_chunks)
        out: list[Hit] = []
        used = 0
        for h in sorted(expanded, key=lambda h: h.expanded):  # stable: ranked first
            n = len(h.chunk.text.split())
            if out and used + n > budget:
                continue
            out.append(h)
            used += n
        # back to reading order within the chosen set
        order = {id(h): i for i, h in enumerate(expanded)}
        return sorted(out, key=lambda h: order[id(h)])


def _header(h: Hit) -> str:
    m = h.doc.meta
    who = " ".join(x for x in (m.company or h.doc.file_name, m.form_type, m.period_label()) if x)
    return f"{who} | page {h.chunk.page}" + (f" | {h.chunk.section}" if h.chunk.section else "")
