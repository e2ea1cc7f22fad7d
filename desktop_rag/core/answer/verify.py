"""Evidence and verification: the passages an answer may quote, exact-quote anchoring
(each citation quote must be an exact substring, after white-space/dash folding, of the
retrieved passages, searched across all of them and across adjacent passages of the same
page for quotes that span two chunks, and re-anchored to its real page), the quotable units
of a page, and the check that keeps a model's answer only if its figures and words are
backed by real quotes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from desktop_rag.core.answer.generate import NOT_IN_CORPUS
from desktop_rag.core.answer.scope import OFF_SCOPE_WEIGHT, within
from desktop_rag.core.domain.companies import is_other_entity, table_owner
from desktop_rag.core.domain.measures import COUNT_WORDS
from desktop_rag.core.domain.numbers import (
    SCALE_OF_WORD,
    SCALE_WORD_FACTORS,
    nearest_scale,
    number_spans,
    number_supported,
    numbers_in,
    scale_factor,
)
from desktop_rag.core.domain.periods import (
    QuestionPeriods,
    calendar_quarter,
    filing_spans,
    find_periods,
    period_spans,
    without_periods,
)
from desktop_rag.core.domain.question import COMPUTED_WORDS, QuestionIntent, read_question
from desktop_rag.core.domain.terms import QUESTION_NOISE, STOPWORDS, content_terms, inflection_key, tokenize, word_root
from desktop_rag.core.domain.types import Citation, Document, Hit
from desktop_rag.core.index.library import Library
from desktop_rag.core.ingest.chunking import heading_of, is_page_furniture, is_table_row, subheading_of
from desktop_rag.core.ingest.identity import company_aliases, period_labels, period_match
from desktop_rag.core.ingest.pdf import fold_text, match_form
from desktop_rag.core.ingest.statements.columns import (
    CHANGE,
    OTHER,
    PART,
    TOTAL,
    Column,
    boxed_page,
    group_named,
    part_named,
    place_row,
    segment_title,
)
from desktop_rag.core.ingest.statements.table_reader import split_row

_SCALE_WORDS = frozenset({"thousand", "million", "billion", "trillion", "percent", "bn", "mn"})
# a sentence ends at "." or ";" before a capital, but not after an initial or an abbreviation
# ("contracts with the U.S. Government", "Richard A. Johnson", "JPMorgan Chase & Co. and")
# (not after an initial, "Inc.", "Co.", "No.", "Corp." or a time's "a.m."/"p.m.": "at 7:46 a.m. Pacific Time")
# A name written camel-case ("eBay", "iPhone") after a stop starts a sentence even after an
# initial: "... were located in the U.S. eBay has ..."
# nor after a title or a company form that a name follows ("Mr. Benioff", "Giosis Pte. Ltd.'s")
_SENTENCE_END = re.compile(r"(?<=[.;])(?<!\b[A-Z]\.)(?<!\bInc\.)(?<!\bCo\.)(?<!\bNo\.)(?<!\bCorp\.)(?<!\d\sa\.m\.)"
                           r"(?<!\bPte\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bJr\.)(?<!\bSt\.)(?<!\bNos\.)"
                           r"(?<!\d\sp\.m\.)\s+(?=[A-Z(])|(?<=\.)\s+(?=[a-z]{1,2}[A-Z][a-z])|"
                           # "... of MercadoLibre, Inc. Our effective tax rate was": a company's
                           # "Inc." ending a sentence, the next opening with a word only a sentence opens with
                           r"(?:(?<=\bInc\.)|(?<=\bCorp\.))\s+(?=(?:Our|The|This|These|That|We|During|It)\s)")
_REFUSAL_RE = re.compile(r"not in (the )?corpus|cannot (be )?(answer|determin|find)|no information|not (provided|mentioned|available)|unable to", re.I)


# -- quotes ----------------------------------------------------------------------------
@dataclass
class Passage:
    """A stretch of one page's text available as evidence (one chunk, or several
    adjacent/overlapping chunks of the same page merged)."""

    hit: Hit
    start: int  # offsets into the page text
    end: int
    text: str
    page: str = ""  # the whole page's text (where a table's scale note above the passage is read)
    # stretches of the page (offsets into the page text) about a part of the company the question
    # does not ask: a segment's section when the whole company is asked (core/answer/scope.py)
    off_scope: tuple[tuple[int, int], ...] = ()


def whole_page(p: Passage) -> Passage:
    """The passage's whole page as one passage (an answer may sit beside the retrieved chunk)."""
    page = p.page or p.text
    start = 0 if p.page else p.start
    return Passage(p.hit, start, start + len(page), page, page, p.off_scope)


def whole_pages(passages: list[Passage]) -> list[Passage]:
    """Each page of ``passages`` whole (``whole_page``), once, in the passages' order."""
    seen: set[tuple[str, int]] = set()
    out: list[Passage] = []
    for p in passages:
        key = (p.hit.chunk.doc_id, p.hit.chunk.page)
        if key not in seen:
            seen.add(key)
            out.append(whole_page(p))
    return out


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
        out.append(Passage(h, a, b, page_text[a:b] if page_text else h.chunk.text, page_text or ""))
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
                    out.append(Passage(first, start, end, page_text[start:end], page_text))
                start, end, first = h.chunk.char_start, h.chunk.char_end, h
        if end > first.chunk.char_end:
            out.append(Passage(first, start, end, page_text[start:end], page_text))
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
        i = _whole_words_at(match_form(p.text), q)
        if i >= 0:
            a, b = trim_furniture(p.text, i, i + len(q))
            if b - a < 8:
                continue
            c = p.hit.chunk
            return Citation(c.doc_id, p.hit.doc.file_name, c.page, p.text[a:b], p.start + a, c.chunk_id)
    return None


def _whole_words_at(text: str, q: str) -> int:
    """Where ``q`` occurs in ``text`` starting and ending on word boundaries, else -1: "100
    employees" is not a quote of "9,100 employees" (the figure would be another)."""
    i = text.find(q)
    while i >= 0:
        before = text[i - 1] if i else " "
        after = text[i + len(q)] if i + len(q) < len(text) else " "
        cut_number = before in ",." and i >= 2 and text[i - 2].isdigit()
        if not (before.isalnum() and q[:1].isalnum()) and not (after.isalnum() and q[-1:].isalnum()) and not cut_number:
            return i
        i = text.find(q, i + 1)
    return -1


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
    # Not the page's words: a dangling last sentence ("... was impacted by the") is dropped
    # when whole sentences precede it, so the answer claims nothing half-said.
    units = split_units(text)
    if len(units) >= 2:
        return text[:units[-2][1]].rstrip()
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


# a row's last cell may carry a footnote's asterisks ("Percent of cross-border TPV 12 % 13 % **")
_ENDS_IN_FIGURE = re.compile(r"(?:\d|%|\)|[-\u2013\u2014])(?:\s*\*{1,3})?\s*$")
# a footnote under a table, marked by asterisks: "** Not meaningful", "*Reflects active accounts ..."
_FOOTNOTE_LINE = re.compile(r"^\s*\*{1,3}\s*[A-Z]")


def is_row_unit(text: str) -> bool:
    """A table row: figure cells, ending in one (a prose line full of figures runs on into words).
    A currency sign printed as a cell of its own and a "not meaningful" mark ("$ 747 * * $
    (1,928)") are no words of a label."""
    cells = _SIGN_CELL.sub(" ", text)
    return (is_table_row(cells) and not LIST_ITEM.match(text) and bool(_ENDS_IN_FIGURE.search(text))
            and not _PROSE_FIGURES.search(text))


# what only prose prints among its figures: a scale word spelt out twice ("totaled $35.9 billion,
# compared with $35.6 billion"), or one sentence ending and the next beginning on the line
_PROSE_FIGURES = re.compile(r"\b(?:million|billion|thousand)\b.*\b(?:million|billion|thousand)\b|"
                            r"[a-z%)\d]\s?\.\s+(?:The|This|These|That|In|During|As|Our|We|It)\b|"
                            # words running on to a year after a preposition ("... during 2016
                            # compared to 2015"): the sentence goes on below
                            r"(?:[A-Za-z]{2,}\s+){6,}.*\b(?:in|to|during|from|since|than|versus|vs\.)\s+"
                            r"(?:fiscal\s+)?(?:19|20)\d\d\s*$")


_SIGN_CELL = re.compile(r"(?<!\S)(?:[$\u20ac\u00a3\u00a5]|\*{1,3}|n/?m|NM)(?!\S)")
# The opening of a list item on its own line: a bullet glyph, a dash, "(1)", "a.", "1)".
LIST_ITEM = re.compile(r"^\s*(?:[\u2022\u25cf\u25e6\u25aa\u25a0\u2023\u2043\u2219\u00b7*\u2013\u2014-]|\(?[0-9ivxa-h]{1,3}[.)])\s+")


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
        if (para_start >= 0 and is_row_unit(line) and _wrapped_label(text[para_start:a], line)
                and not _runs_on(text, para_start, a, line)):
            # "Total number of shares of common" / "stock repurchased 22.0 18.1": one row whose
            # label wraps, quoted whole
            units.append((para_start, b))
            para_start = -1
        elif not line.strip():
            flush(a - 1 if a else 0)
            para_start = -1
        elif (is_page_furniture(line) or heading_of(line) or subheading_of(line)
              or (is_row_unit(line) and not _runs_on(text, para_start, a, line))
              or (_FOOTNOTE_LINE.match(line) and len(line) <= 100)):
            # a row ends in its cells; a prose line full of figures ("... decreased 17% (12% in
            # constant") runs on into words and is a sentence's part
            flush(max(a - 1, 0))
            para_start = -1
            units.append((a, b))
        elif LIST_ITEM.match(line):
            # a list's item starts a unit of its own: the lead-in ("2022 results included:")
            # and each item are quoted apart, never run together into one "sentence"
            flush(max(a - 1, 0))
            para_start = a
        elif para_start < 0:
            para_start = a
        if line.rstrip().endswith(":") and para_start >= 0:
            if para_start < a and (re.search(r"[.;!?]\s*$", text[para_start:a]) or LIST_ITEM.match(text[para_start:a])):
                flush(a - 1)  # the lead-in is a sentence of its own, after the paragraph's last
                para_start = a
            flush(b)  # a lead-in ends where its list begins
            para_start = -1
    flush(len(text))
    return [(a, b) for a, b in units if b > a]


def _runs_on(text: str, para_start: int, at: int, line: str) -> bool:
    """``line`` goes on with the open sentence above it ("... repurchases of" / "common stock for
    the three months ended March 31, 2023"): it opens in lower case and words, not a row's cells."""
    return (para_start >= 0 and bool(re.match(r"\s*[a-z]+\s+[a-z]+\s+[a-z]+\s+[a-z]+", line))
            and not re.search(r"[.:;]\s*$", text[para_start:at]))


def _wrapped_label(above: str, row: str) -> bool:
    """``above`` (the open paragraph) is the first line of ``row``'s label: one short line of
    words with no sentence's end, and the row goes on in lower case."""
    first = above.rstrip("\n")
    return ("\n" not in first and 0 < len(first.strip()) <= 80 and not re.search(r"[.:;!?]\s*$", first)
            and not numbers_in(first) and bool(re.match(r"\s*[a-z]", row)))


def unit_citation(p: Passage, a: int, b: int) -> Citation:
    c = p.hit.chunk
    return Citation(c.doc_id, p.hit.doc.file_name, c.page, p.text[a:b], p.start + a, c.chunk_id)


# -- support and extractive answers -------------------------------------------------------
def statement_key(text: str) -> frozenset[str]:
    """What a sentence says, as its set of terms: the same sentence printed again elsewhere in
    the filing ("... under our stock repurchase program" and "... programs" a page later) has
    the same key, and is quoted once."""
    return frozenset(tokenize(text))


def restates(text: str, other: str) -> bool:
    """``text`` says what ``other`` says: the same figures, and at least four in five of the
    shorter one's terms in the longer ("As of June 30, 2023, approximately $3.3 billion remains
    available under the Company's 2019 Authorization." and, pages later, "... under our 2019
    Authorization, which does not have an expiration date ..."). Quoted once."""
    a, b = statement_key(text), statement_key(other)
    if not a or not b or set(numbers_in(text)) != set(numbers_in(other)):
        return False
    return len(a & b) >= 0.8 * min(len(a), len(b))


def content_term_set(text: str) -> set[str]:
    return set(content_terms(text))


_FURNITURE = re.compile(
    r"(form\s+10-[qk]\s*\|\s*\d+\s*$)|(^\s*(page\s+)?\d+\s*$)|(^table of contents$)|(see accompanying notes)", re.I)


def _is_quotable(seg: str) -> bool:
    """Page furniture (running headers/footers, page numbers) is never evidence."""
    words = re.findall(r"[A-Za-z]{2,}", seg)
    # A bare label ("Net sales:") says nothing; a row needs its figures, prose a few words.
    enough = len(words) >= 3 or (len(words) >= 1 and bool(numbers_in(seg)))
    return enough and not _FURNITURE.search(seg.strip())


# What a filing says of its own measures and statements, true of any period and answering no
# question about one: a safe-harbor caution ("assumes no obligation to update"), a definition
# ("take rate is defined as ..."), why management reports a measure ("we believe that GMV
# provides a useful measure"), where to read more ("For a reconciliation ..., see"). Weighed down as an answer's sentence (unless the question asks
# about definitions or cautions: ``asks_stock_language``), never a cause.
STOCK_LANGUAGE = re.compile(
    r"\b(?:forward-looking\s+statements?|(?:assumes?|undertakes?)\s+no\s+obligation|no\s+(?:duty|obligation)\s+to\s+"
    r"update|safe\s+harbor|(?:is|are)\s+defined\s+as|provides?\s+(?:a\s+)?useful\s+(?:measure|information|"
    r"supplemental)|useful\s+(?:measure|information)\s+(?:to|for)\s+investors|should\s+not\s+be\s+(?:considered|"
    r"relied)|actual\s+results\s+(?:could|may|might)\s+differ|(?:difficult|impossible)\s+to\s+predict|"
    r"there\s+can\s+be\s+no\s+assurance|based\s+on\s+information\s+available\s+(?:to\s+us\s+)?(?:on|as\s+of)|"
    r"(?:is|are)\s+provided\s+on\s+an?\s+[\w-]+\s+basis|"
    # the safe harbor's list of its own verbs ("may contain words such as 'will,' 'believe,' ...")
    r"(?:contain|use|include)s?\s+words\s+such\s+as|"
    # a definition of the filing's own term ("For purposes of this Form 10-Q, 'Russia' refers to ...")
    r"^\W*for\s+(?:the\s+)?purposes?\s+of\s+this\b|"
    # a pointer to another part of the filing ("For a reconciliation of these measures ... see")
    r"^\W*for\s+(?:a|an|further|more|additional)\s+(?:\w+\s+){0,2}(?:reconciliations?|discussions?|descriptions?|"
    r"information|details?)\b[^.]{0,300}?\bsee)\b", re.I)
STOCK_LANGUAGE_WEIGHT = 0.3
_ASKS_STOCK_LANGUAGE = re.compile(r"\b(?:defin\w*|mean(?:s|ing)?|useful|forward-looking|safe\s+harbor|caution\w*|"
                               r"disclaim\w*)\b", re.I)


def asks_stock_language(question: str) -> bool:
    """The question asks what a filing says of its measures or statements ("How does it define
    take rate?"): the sentences ``STOCK_LANGUAGE`` weighs down are its answer."""
    return bool(_ASKS_STOCK_LANGUAGE.search(question))


_FOOTNOTE_MARK = re.compile(r"\(\d{1,2}\)|\*+")


def is_title_line(seg: str) -> bool:
    """A heading or a line's name, no statement: a few words on one line, no figure (past its
    footnote marks), no closing stop ("Debt highlights (1)", "Hewlett-Packard Company
    Litigation", "Income (loss) Attributable to Common"). Quoted alone it answers nothing."""
    text = _FOOTNOTE_MARK.sub(" ", seg).strip()
    return (bool(text) and "\n" not in text and len(text.split()) <= 6 and not re.search(r"\d", text)
            and not text.endswith((".", "?", "!", ";")))


INFLECTED_WEIGHT = 0.7  # a word of the question matched only in another inflected form


def best_units(
    passages: list[Passage], terms: set[str], numbers: list[float], k: int, want_numbers: bool,
    rank_weight: bool = True, idf: dict[str, float] | None = None, asked_years: set[int] | None = None,
    bonus: Callable[[str], float] | None = None, stock_language_weight: float = 1.0,
) -> list[tuple[float, Passage, int, int]]:
    """Quotable units scored by (idf-weighted) term overlap, figure matches and rank.
    ``asked_years``: the years the question's period may end in; a sentence about another year
    only ranks below one about them (``about_other_years``). ``bonus``: added to a unit's score,
    which it ranks even without a term of ``terms`` (core/answer/asks: it answers a fact asked
    in its own words, "TPV" for "total payment volume"). ``stock_language_weight``: a unit's score
    times this when it is ``STOCK_LANGUAGE`` (a caution, a definition)."""
    weights = {t: max(0.2, (idf or {}).get(t, 1.0)) for t in terms}
    total = sum(weights.values()) or 1.0
    # each term's inflection key once per call, not once per unit (not a word for how a figure
    # moved: "compare" is the analyst's, "compared" any sentence's)
    term_keys = {t: inflection_key(t) for t in terms if t not in COMPUTED_WORDS}
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
            # the question's word in another form ("being added" / "adding a 4th D"): most of its weight
            unmatched = {t: k for t, k in term_keys.items() if t not in matched}
            keys = {inflection_key(t) for t in toks} if unmatched else set()
            inflected = {t for t, k in unmatched.items() if k in keys}
            extra = bonus(seg) if bonus is not None else 0.0
            if not matched and not inflected and not numbers and not extra:
                continue
            nums = numbers_in(seg)
            score = 2.0 * (sum(weights[t] for t in matched) + INFLECTED_WEIGHT * sum(weights[t] for t in inflected)) / total
            # In a table row the label carries the meaning: reward terms found there.
            label = set(tokenize(" ".join(w for w in seg.split()[:8] if not numbers_in(w))))
            score += 0.5 * sum(weights[t] for t in matched & label) / total
            if matched and label and label <= terms | _LABEL_FILLER and is_table_row(seg):
                # the row naming exactly what was asked ("Total retail units"), not a part of it
                # ("Walmart U.S. retail units", "Total U.S. retail units")
                score += 0.3
            if numbers:
                score += 3.0 * sum(number_supported(n, nums) for n in numbers) / len(numbers)
            score += extra
            if want_numbers and nums:
                score += 0.4
            elif want_numbers and not numbers_in(p.text):
                pass  # a passage without any figure: nothing better to quote from it
            elif want_numbers:
                # a heading or sentence without a figure ("Optical Communications Segment") is no
                # answer to "what were the segment's net sales" when its passage prints figures
                score *= 0.7
            if rank_weight and not p.hit.expanded:
                score += 0.3 / (1 + rank) + 0.2 * p.hit.score
            score -= 0.002 * max(0, len(seg) - 220)  # prefer crisp quotes
            if score > 0 and is_title_line(seg):
                score *= 0.5  # a heading names the topic; the sentences under it say something of it
            if stock_language_weight != 1.0 and score > 0 and STOCK_LANGUAGE.search(seg):
                score *= stock_language_weight
            if score > 0 and asked_years and about_other_years(seg, asked_years):
                # "During the year ended December 31, 2019, the Company repurchased 31.0 million
                # shares" is the best-worded sentence for "How many shares did X repurchase in
                # 2021?", and no evidence of it
                score *= 0.5
            if score > 0 and p.off_scope and within(p.start + a, p.off_scope):
                # "Net interest income was $12.8 billion, up 54%" under a segment's heading is
                # the segment's figure, no answer about the firm's (nor about another segment)
                score *= OFF_SCOPE_WEIGHT
            if score > 0 and is_table_row(seg) and _another_entitys_row(p, a, terms):
                # "The following table presents JPMSE's capital metrics": a subsidiary's CET1
                # ratio is no answer about the registrant's unless the question names it
                score *= 0.5
            if score > 0:
                scored.append((score, p, a, b))
    scored.sort(key=lambda s: -s[0])
    return scored[:k]


# a sentence comparing with another year ("up 25% compared to 2020") speaks of the asked one too
# ("from" only before a period or in "from $X to $Y": "$2.2 billion of proceeds from debt
# issuances", "cash outflows from $2.1 billion to repurchase common stock" compare nothing)
_COMPARED = re.compile(r"\b(?:compared|comparison|versus|vs\.?|than|prior|previous|preceding|increase[ds]?|"
                       r"from(?=\s+(?:the\s+(?:prior|previous|same|preceding)\b|(?:fiscal|fy|q[1-4])\b|(?:19|20)\d\d\b))|"
                       r"from\s+\$?\s?[\d.,]+\s*(?:%|percent|[mb]illion|thousand)?\s+to\s+\$?\s?\d|"
                       r"decrease[ds]?|grew|growth|rose|fell|declined?|change[ds]?|respectively)\b", re.I)


def about_other_years(sentence: str, asked_years: set[int]) -> bool:
    """A prose sentence whose own period is another year than any asked: it names years, none
    of them asked, and compares nothing ("During the year ended December 31, 2019, the Company
    repurchased ..." for a 2021 question). Table rows are read by their columns, not here."""
    words, figures = len(re.findall(r"[A-Za-z]{2,}", sentence)), len(numbers_in(sentence))
    if words < 6 or words < 2 * figures:
        return False  # a table row, or too short to tell
    years = find_periods(sentence).every_year
    if _COMPARED.search(sentence):
        # a comparison is of the asked year unless it sets two earlier years against each other
        # ("recorded in 2017, with no corresponding activity in 2016" for a 2018 question)
        return bool(asked_years) and len(years) >= 2 and max(years) < min(asked_years)
    return bool(years) and not years & asked_years


# label words that name nothing beside what was asked ("Total", "at end of period")
_LABEL_FILLER = STOPWORDS | QUESTION_NOISE


def _another_entitys_row(p: Passage, a: int, terms: set[str]) -> bool:
    """The row at ``a`` belongs to a table introduced as another entity's (a subsidiary's),
    and the question's terms do not name that entity."""
    above = p.page[:p.start + a] if p.page else p.text[:a]
    owner = table_owner(above)
    if not owner or not is_other_entity(owner, company_aliases(p.hit.doc.meta)):
        return False
    return not (set(tokenize(owner)) & terms)


@dataclass
class Verdict:
    ok: bool
    citations: list[Citation] = field(default_factory=list)
    reason: str = ""
    answer: str = ""  # the verified answer as shown (with the scale of a figure quoted from a scaled table)


def verify_answer(
    answer: str, model_quotes: list[str], question: str, passages: list[Passage], max_citations: int,
    concept: set[str] | None = None, idf: dict[str, float] | None = None, verdict_asked: bool = False,
) -> Verdict:
    """Keep the model's answer only if its figures and words are backed by real quotes.
    ``concept``: the question's evidence terms (not company or period); a figure counts as
    supported only by a quote that carries what was asked: its most distinctive term (by
    ``idf``) and most of the terms' weight ("1.0" in a current-ratio row is no support for
    a dividend of $1.00, nor "cash at end of year" for current liabilities at year end).
    ``verdict_asked``: the question is a yes/no claim; an answer opening with its verdict is
    shown as the verdict and the quoted sentences behind it (``verdict_with_quotes``)."""
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
    # the answer's own words, and what was asked: the support must name it (the claim's
    # subject is often only in the question: "Yes, they recorded restructuring charges")
    terms = (content_term_set(text) - content_term_set(question) or content_term_set(text)) | (concept or set())
    # Our own support search: the units that best carry the answer's figures and words.
    for _, p, a, b in best_units(passages, terms, answer_numbers, max_citations + 1, False, rank_weight=False):
        if len(cites) >= max_citations:
            break
        c = unit_citation(p, a, b)
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
    intent = read_question(question)  # the facts asked, read once for the checks below
    twice = _one_figure_for_two_facts(text, intent, cites)
    if twice is not None:
        return Verdict(False, reason=f"figure {twice:g} is given for two of the facts asked")
    silent_on = _claim_unsaid(text, intent)
    if silent_on:
        # "how much will it pay, and is it recoverable through rates?" answered "$50 million":
        # the half asked whether is left out, though its quote says "will not be recoverable"
        return Verdict(False, reason=f"the answer says nothing of what was asked in '{silent_on}'")
    # "100 employees" over "contribute up to 100% of their pre-tax salary": a figure the answer
    # states as an amount or a count is not backed by the same digits printed as a percentage
    shares = [n for n in answer_numbers if not _as_percent(n, text)
              and not number_supported(n, [v for c in cites for v in _plain_numbers(c.quote)])]
    if shares:
        return Verdict(False, reason=f"figure(s) {', '.join(f'{n:g}' for n in shares)} are quoted only as percentages")
    figures = [n for n in answer_numbers if not is_year(n)]
    for n in figures:
        # "105 million shares" over "repurchased 4.1 million shares ... for approximately $105
        # million": the digits are quoted, but as dollars, not as the count the answer claims
        # (nor is "$4.1 million" backed by "4.1 million shares")
        said, printed = printed_as(text, n), set().union(*(printed_as(c.quote, n) for c in cites))
        if said == {"count"} and printed == {"money"}:
            return Verdict(False, reason=f"figure {n:g} is quoted only as an amount of money, not as a count")
        if said == {"money"} and printed == {"count"}:
            return Verdict(False, reason=f"figure {n:g} is quoted only as a count, not as an amount of money")
    if concept and not figures and asks_for_figure(question):
        return Verdict(False, reason="the question asks for a figure, the answer gives none")
    if (concept and answer_numbers and _RATIO_ASKED.search(question) and not _EXPLANATION_ASKED.search(question)
            and _AMOUNT_GIVEN.search(text)):
        return Verdict(False, reason="the question asks for a ratio or rate, the answer gives an amount")
    if (concept and figures and _AMOUNT_ASKED.search(question) and not _RATIO_ASKED.search(question)
            and not _EXPLANATION_ASKED.search(question) and not _CHANGE_ASKED.search(question)
            and not _AMOUNT_GIVEN.search(text) and _PERCENTAGE.search(text)):
        # "What is Lockheed Martin's backlog at the end of 2022?" answered "37% of our backlog
        # over the next 12 months": true words, but not the amount asked
        return Verdict(False, reason="the question asks for an amount, the answer gives only percentages")
    if concept and figures and _only_counts_asked(intent) and _only_percentages(text):
        # "How many paid memberships did the International segment have?" answered "27% of total
        # average paid memberships": a share of something is no count of it
        return Verdict(False, reason="the question asks for a count, the answer gives only percentages")
    if _DENIAL.search(text) and not any(
            _DENIAL.search(c.quote) and (not concept or carries_concept(tokenize(c.quote), concept, idf)) for c in cites):
        # "No, Kraft Heinz did not record any goodwill impairment in 2019" over a quote of
        # "goodwill impairment losses of $1.2 billion ... in 2019": a denial is shown only
        # when a quote itself says no
        return Verdict(False, reason="the answer says no, and no quote of what was asked says so")
    if concept:
        # each figure's quotes that name what was asked around that figure (``figure_context``)
        naming: dict[float, list[Citation]] = {}
        pages = _passage_pages(passages)
        for n in answer_numbers:
            naming[n] = [c for c in cites if number_supported(n, numbers_in(c.quote))
                         and carries_concept(tokenize(figure_context(c.quote, n)), concept, idf)]
            if not naming[n]:
                return Verdict(False, reason=f"figure {n:g} is quoted only from text that does not name what was asked")
            # what the answer says the figure is ("The provision for credit losses was $1.5 billion")
            # must be what its quote's sentence says it is ("… $2.9 billion, reflecting a $1.5
            # billion net addition to the allowance"): a prose quote only, tables have their rows
            unsaid = [misnamed(text, c.quote, n, concept) for c in naming[n]]
            if all(unsaid):
                return Verdict(False, reason=f"figure {n:g} is, in its quote, not the {' '.join(sorted(unsaid[0]))} asked")
            # "… was due to the 22% growth in …" under "Year ended December 31, 2014 as compared to
            # the year ended December 31, 2013" is 2014's, whatever the question asked
            sections = [other_section_year(c, question, pages) for c in naming[n]]
            if all(sections):
                return Verdict(False, reason=f"figure {n:g} is quoted from the section on "
                                             f"{min(y for y in sections if y)}, not the period asked")
            if all(_PRIOR_OPENING.match(c.quote) for c in naming[n]) and not _PRIOR_ASKED.search(question):
                # "Prior year net income and diluted EPS were positively impacted by ... $3.3 billion
                # and $0.43, respectively" is no figure of the period asked
                return Verdict(False, reason=f"figure {n:g} is quoted from a sentence about the prior period, "
                                             "not the period asked")
            listed = [respectively_year(c.quote, n, question) for c in naming[n]]
            if all(listed):
                # "$318.5 billion, $307.8 billion and $298.4 billion for fiscal 2018, 2017 and 2016,
                # respectively": $307.8 billion is 2017's, not the 2018 asked
                return Verdict(False, reason=f"figure {n:g} is, in its quote, {min(y for y in listed if y)}'s, "
                                             "not the period asked")
            events = [counted_event(c, n, question, pages) for c in naming[n]]
            if all(events):
                return Verdict(False, reason=f"figure {n:g} is of {min(events)}, not the level the question asks")
        if not any(carries_concept(tokenize(c.quote), concept, idf) for c in cites):
            # "Yes, Nike recorded restructuring charges in fiscal 2019" over two quotes about
            # contingent liabilities: the answer's words came from the question, not the page. A
            # claim (yes or no, with or without a figure) is shown only when a quote names what
            # was asked.
            return Verdict(False, reason="no quote names what was asked")
        for n in figures:
            wrong_column = column_problem(n, naming[n], question, text, passages)
            if wrong_column:
                return Verdict(False, reason=wrong_column)
    wrong_scale = misstated_scale(text, cites, passages)
    if wrong_scale:
        return Verdict(False, reason=wrong_scale)
    wrong_period = contradicted_period(text, question, cites, passages)
    if wrong_period:
        return Verdict(False, reason=wrong_period)
    if not answer_numbers and not _YES_NO.match(text) and content_term_set(text) <= content_term_set(question):
        # "Apple Q2 2023: Services net sales and YoY growth" for "Apple Q2 2023: Services net
        # sales and YoY growth?": the small model echoing the question says nothing the quotes back
        return Verdict(False, reason="the answer only repeats the question")
    if _repeats_itself(text):
        # "No, the 10-K describes the resumption of dividends in 2020. The 10-K describes the
        # resumption of dividends in 2020.": a small model looping is no statement to check
        return Verdict(False, reason="the answer repeats a sentence of its own")
    # Wording check on words only: figures were checked above, scale words go with them.
    answer_terms = {t for t in content_term_set(text) if not t.replace(".", "").isdigit() and t not in _SCALE_WORDS}
    if answer_terms:
        backed = answer_terms & (set().union(*(set(tokenize(c.quote)) for c in cites)) | content_term_set(question))
        if len(backed) / len(answer_terms) < 0.8:
            return Verdict(False, reason="most of the answer's wording is not in the quoted text")
    verdict_word = _YES_NO.match(text) if verdict_asked else None
    if verdict_word:
        restated = verdict_with_quotes(verdict_word.group(1), cites, concept, idf)
        if restated is None:
            return Verdict(False, reason="the answer says yes, and every quote of what was asked says no")
        return Verdict(True, cites, answer=restated)
    return Verdict(True, cites, answer=stated_with_scale(text, cites, passages))


def verdict_with_quotes(word: str, cites: list[Citation], concept: set[str] | None,
                        idf: dict[str, float] | None) -> str | None:
    """A yes/no answer as its verdict and the filing's own sentences about what was asked, not
    the small model's wording after the verdict: on blind batches every model-worded reason was
    false ("No, the 10-K describes the resumption of common stock dividends in fiscal 2020" over
    quotes of the restriction that kept them suspended), because the verifier checks figures and
    words, not what a sentence claims. For "no" the sentences that deny come first (the
    verifier required one); "yes" when every quote of what was asked denies it is None."""
    about = [c for c in cites if not concept or carries_concept(tokenize(c.quote), concept, idf)] or cites
    denying = [c for c in about if _DENIAL.search(c.quote)]
    verdict = word.lower()
    if verdict == "yes" and concept and denying and len(denying) == len(about):
        return None
    ordered = ([*denying, *(c for c in about if c not in denying)] if verdict == "no" else
               [*(c for c in about if c not in denying), *denying])
    shown = " … ".join(re.sub(r"\s+", " ", c.quote).strip() for c in ordered[:2])
    return f"{verdict.capitalize()}. {shown}"


def _repeats_itself(text: str) -> bool:
    """A sentence of six words or more that the answer says twice (its opening "Yes, "/"No, "
    aside), or a run of eight words it says twice anywhere (a small model looping inside a
    sentence: "..., dated August 14, 2023 (as amended, the Indenture), and ..., dated August
    14, 2023 (as amended, the Indenture)")."""
    seen: set[str] = set()
    for a, b in split_units(text):
        words = re.findall(r"[a-z0-9]+", re.sub(r"^\s*(?:yes|no)\b[,.]?", "", text[a:b], flags=re.I).lower())
        if len(words) < 6:
            continue
        key = " ".join(words)
        if key in seen:
            return True
        seen.add(key)
    words = re.findall(r"[a-z0-9]+", text.lower())
    runs = [" ".join(words[i:i + _LOOP_WORDS]) for i in range(len(words) - _LOOP_WORDS + 1)]
    return len(set(runs)) < len(runs)


_LOOP_WORDS = 8


def _claim_unsaid(text: str, intent: QuestionIntent) -> str:
    """The first claim asked beside a fact ("is it recoverable through rates") of whose words
    the answer carries none, else ""."""
    said = {word_root(t) for t in tokenize(text)}
    # the words of the other facts asked, and of the topic, tell nothing of the claim itself
    # ("liability" of "how much liability insurance ..., and had it accrued any liability")
    others = {word_root(t) for f in intent.asks if f.kind != "claim" for t in tokenize(f"{f.words} {f.topic}")}
    for fact in intent.asks:
        if fact.kind != "claim":
            continue
        words = {word_root(t) for t in tokenize(without_periods(fact.words)) if t not in QUESTION_NOISE and not t.isdigit()} - others
        if words and not words & said:
            return fact.words
    return ""


def _one_figure_for_two_facts(text: str, intent: QuestionIntent, cites: list[Citation]) -> float | None:
    """A figure the answer states twice where the question asks two facts of its kind and no
    quote prints it twice ("136,000 full-time employees, and 136,000 were in research and
    development"): one figure was given as the answer to both."""
    kinds = [fact.kind for fact in intent.asks]
    if len(kinds) < 2 or len(set(kinds)) == len(kinds):
        return None
    stated = [n for n in numbers_in(text) if not is_year(n)]
    for n in dict.fromkeys(stated):
        if stated.count(n) >= 2 and not any(numbers_in(c.quote).count(n) >= 2 for c in cites):
            return n
    return None


_SCALE_WORD_AFTER = re.compile(r"\s*(?:thousand|million|billion|trillion|bn|mn|[mbk]\b|%|percent)", re.I)


# a figure as an answer states it: "$ 17,694,642", "2,399.0" (not a part of a longer number)
_ANSWER_FIGURE = re.compile(r"(?<![\w.])\$?\s?\d[\d,]*(?:\.\d+)?(?![\d,]*\.?\d)")


def _passage_pages(passages: list[Passage]) -> dict[tuple[str, int], str]:
    """Each passage's whole page text, by (document, page)."""
    return {(p.hit.chunk.doc_id, p.hit.chunk.page): p.page for p in passages if p.page}


def stated_with_scale(answer: str, cites: list[Citation], passages: list[Passage]) -> str:
    """The answer with the scale of each bare figure it copied from a table printed "(in
    thousands)"/"(in millions)": "$ 17,694,642" from such a table is $17.7 billion, and an
    analyst reading the bare digits would take them for dollars. The quote stays exact; the
    scale note is added after the figure ("$ 17,694,642 (in thousands: $17.7 billion)")."""
    pages = _passage_pages(passages)
    out, last = [], 0
    for m in _ANSWER_FIGURE.finditer(answer):
        token = m.group(0)
        value = float(token.strip("$ ").replace(",", ""))
        if _SCALE_WORD_AFTER.match(answer, m.end()) or is_year(value):
            continue
        scale = next((sc for c in cites if (sc := _table_scale(value, c, pages))), None)
        if not scale:
            continue
        note = f"in {scale}"
        if token.startswith("$"):
            note += f": {_readable_dollars(value * scale_factor(scale))}"
        out.append(answer[last:m.end()] + f" ({note})")
        last = m.end()
    return "".join(out) + answer[last:] if out else answer


def _table_scale(value: float, cite: Citation, pages: dict[tuple[str, int], str]) -> str | None:
    """The scale note ("thousands", "millions", "billions") of the table whose row the quote
    ``cite`` prints ``value`` in, else None: a scale note heads a table, and a figure said in a
    sentence ("up to 100% of their salary", "$1.2 billion") carries its own unit; a per-share
    figure of a table "in millions, except per share amounts" has none."""
    page = pages.get((cite.doc_id, cite.page), "")
    if not page or not any(value in numbers_in(line) and is_table_row(line) for line in cite.quote.split("\n")):
        return None
    above = page[:cite.char_start]
    per_share = (re.search(r"except\s+(?:for\s+)?per[\s-]share", above[-3000:], re.I)
                 and not value.is_integer() and value < 1000)
    return None if per_share else nearest_scale(above)


_STATED_SCALE = re.compile(r"\s*(?P<word>thousand|million|billion|trillion|bn|mn|[mbk])\b", re.I)


def misstated_scale(answer: str, cites: list[Citation], passages: list[Passage]) -> str:
    """Why the answer's scale is not its table's, else "": "Total deposits … $ 2,399.0 million"
    copied from JPMorgan's row "Deposits $ 2,399.0" under "(in billions except ratios)" is a
    thousandth of the deposits. Only a figure copied digit for digit is checked (a figure
    rescaled by the answer, "$2.4 trillion", is ``number_supported``'s)."""
    pages = _passage_pages(passages)
    for m in _ANSWER_FIGURE.finditer(answer):
        stated = _STATED_SCALE.match(answer, m.end())
        if not stated:
            continue
        value = float(m.group(0).strip("$ ").replace(",", ""))
        scales = [sc for c in cites if value in numbers_in(c.quote) for sc in _printed_scales(value, c, pages)]
        if scales and all(scales) and SCALE_OF_WORD[stated.group("word").lower()] not in scales:
            return (f"{m.group(0).strip()} {stated.group('word')} is printed "
                    f"in {scales[0]}, not {SCALE_OF_WORD[stated.group('word').lower()]}")
    return ""


def _printed_scales(value: float, cite: Citation, pages: dict[tuple[str, int], str]) -> list[str | None]:
    """The scale each occurrence of ``value`` in the quote is printed in: its table's scale
    note, else the word after it in a sentence ("$10.0 billion"); None where neither says."""
    table = _table_scale(value, cite, pages)
    if table:
        return [table]
    return [SCALE_OF_WORD[w.group("word").lower()] if (w := _STATED_SCALE.match(cite.quote, b)) else None
            for _, b, v in number_spans(cite.quote) if v == value]


def _readable_dollars(amount: float) -> str:
    """$17,694,642,000 -> "$17.7 billion" (an analyst's reading of a scaled cell)."""
    for word, factor in SCALE_WORD_FACTORS.items():
        if abs(amount) >= factor:
            return f"${amount / factor:,.1f} {word}"
    return f"${amount:,.0f}"


def contradicted_period(answer: str, question: str, cites: list[Citation], passages: list[Passage]) -> str:
    """Why the answer's period words contradict both the question and the cited filings ("for
    the quarter" of a figure asked "at the end of 2017" and quoted from a 10-K; "in 2018" of
    a fiscal-2019 question cited from the fiscal-2019 report), else "". The page's own period
    words (a quote's "fourth quarter") are never a contradiction."""
    metas = {p.hit.chunk.doc_id: p.hit.doc.meta for p in passages}
    cited = [metas[c.doc_id] for c in cites if c.doc_id in metas]
    if not cited:
        return ""
    asked = find_periods(question)
    allowed = period_spans(question) | set().union(*(period_spans(c.quote) for c in cites)) | set().union(
        *(filing_spans(m.form_type, m.fiscal_quarter) for m in cited))
    if asked.quarters:
        allowed.add("quarter")
    if asked.years:
        allowed.add("year")
    extra = period_spans(answer) - allowed
    if extra:
        return f"the answer speaks of {' and '.join(sorted(extra))}, neither what was asked nor what the filing reports"
    years = {int(n) for n in numbers_in(answer) if is_year(n)}
    asked_years = asked.every_year
    if years and asked_years:
        own = asked_years | {m.fiscal_year for m in cited if m.fiscal_year} | {
            int(m.period_end[:4]) for m in cited if m.period_end[:4].isdigit()}
        if not years & own:
            return f"the answer's year ({', '.join(map(str, sorted(years)))}) is not the period asked"
    return ""


_FIGURE_WITH_PERCENT = re.compile(r"(?<![\w.])[-(]?\$?(\d[\d,]*(?:\.\d+)?)\)?(\s*(?:%|percent\b|per\s+cent\b))?", re.I)


def _plain_numbers(text: str) -> list[float]:
    """The figures of ``text`` not printed as percentages ("100" of "100 units", not of "100%")."""
    return [float(m.group(1).replace(",", "")) for m in _FIGURE_WITH_PERCENT.finditer(text) if not m.group(2)]


def _as_percent(n: float, text: str) -> bool:
    """``text`` states the figure ``n`` as a percentage somewhere ("up 5%", "12.2 percent")."""
    return any(m.group(2) and number_supported(n, [float(m.group(1).replace(",", ""))])
               for m in _FIGURE_WITH_PERCENT.finditer(text))


_MONEY_BEFORE = re.compile(r"(?:[$€£¥]|\b(?:US\$|USD|EUR|GBP|JPY|CHF))\s?$")
_WORD_AFTER_FIGURE = re.compile(r"\s*(?:(?:thousand|million|billion|trillion|bn|mn)\b\s*)?([A-Za-z]+)", re.I)
_MONEY_WORDS = frozenset({"dollars", "dollar", "usd", "euros", "euro", "pounds", "yen", "francs"})


def printed_as(text: str, n: float) -> set[str]:
    """How ``text`` prints the figure ``n``, over all its occurrences: "money" ("$105 million",
    "105 million dollars"), "count" ("4.1 million shares", "9,100 employees": a word of
    ``COUNT_WORDS`` after it) or "plain" (a table cell, "up 5%", anything else)."""
    kinds: set[str] = set()
    for a, b, v in number_spans(text):
        if not number_supported(n, [v]):
            continue
        after = _WORD_AFTER_FIGURE.match(text, b)
        word = after.group(1).lower() if after else ""
        if "$" in text[a:b] or _MONEY_BEFORE.search(text[max(0, a - 4):a]) or word in _MONEY_WORDS:
            kinds.add("money")
        elif word in COUNT_WORDS:
            kinds.add("count")
        else:
            kinds.add("plain")
    return kinds


# a sentence about the period before ("Prior year net income ... was", "In the previous quarter, ..."),
# and a question asking that period
_AMOUNT_IN_LIST = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?%")
_LIST_YEAR = re.compile(r"(?<![\d,.$])((?:19|20)\d\d)(?![\d,.%])")


def respectively_year(quote: str, n: float, question: str) -> int | None:
    """The year a "respectively" list gives figure ``n`` ("$318.5 billion, $307.8 billion and
    $298.4 billion for fiscal 2018, 2017 and 2016, respectively": $307.8 billion is 2017's) when
    that is not a year the question asks and the list gives an asked year another figure; else
    None."""
    if "respectively" not in quote.lower():
        return None
    amounts = [(m.start(), found[0]) for m in _AMOUNT_IN_LIST.finditer(quote) if (found := numbers_in(m.group(0)))]
    if len(amounts) < 2:
        return None
    last = amounts[-1][0]
    years = [int(m.group(1)) for m in _LIST_YEAR.finditer(quote, last)]
    asked = {int(y) for y in _LIST_YEAR.findall(question)}
    if len(years) != len(amounts) or not asked & set(years):
        return None
    at = [i for i, (_, v) in enumerate(amounts) if number_supported(n, [v])]
    if len(at) != 1 or years[at[0]] in asked:
        return None
    return years[at[0]]


_PRIOR_OPENING = re.compile(r"^\W*(?:in\s+)?(?:the\s+)?(?:prior|previous|preceding|last)[\s-]+(?:fiscal\s+)?"
                            r"(?:year|period|quarter)\b", re.I)
_PRIOR_ASKED = re.compile(r"\b(?:prior|previous|preceding|last|year[\s-]ago|a\s+year\s+(?:earlier|before))\b", re.I)


def figure_context(quote: str, n: float) -> str:
    """The part of a quote that speaks of the figure ``n``: in a quote of several table rows,
    the row printing it and the lines without figures (headings, prose), not the other rows.
    "Net carrying amount was $1,250 million" is not backed by "Due in one year $ 1,250 | … |
    Net carrying amount 10,954": the quote names what was asked, but on another row than
    the figure's. A quote of one line is its own context."""
    lines = quote.split("\n")
    if len(lines) > 1:
        lines = [ln for ln in lines if number_supported(n, numbers_in(ln)) or not _is_figure_row(ln)]
    return "\n".join(ln if _is_figure_row(ln) else _prose_context(ln, n) for ln in lines)


# words after a figure that turn to another thing than the figure's: "… was $7.0 billion after
# the impairment", "… $X compared with …", "… excluding the charge"
_DETACHED = re.compile(r"\b(?:after|before|following|prior\s+to|compared\s+(?:with|to)|versus|vs\.?|than|"
                       r"excluding|exclusive\s+of|net\s+of|instead\s+of|rather\s+than)\b", re.I)


def _prose_context(line: str, n: float) -> str:
    """A prose line as far as it speaks of the figure ``n``: up to the figure and what follows
    it, but not a phrase turning to another thing ("after …", "compared with …"). "The goodwill
    carrying amount of this reporting unit was $7.0 billion after the impairment" is no support
    for a goodwill impairment of $7.0 billion: the figure is the carrying amount. Words after
    the figure do name it otherwise ("$1.7 billion of Commercial Paper outstanding", "an $8.0
    billion unsecured term loan", "$18.7 billion remained of this program")."""
    spans = [(a, b) for a, b, v in number_spans(line) if number_supported(n, [v])]
    if not spans:
        return line
    # the figure's own sentence or list item: "Key changes in expenses were: • Impairment ...
    # expenses were $10.0 billion ... • Research and development expenses decreased $58 million"
    # names research and development, but not beside the $10.0 billion
    first, last = spans[0][0], max(b for _, b in spans)
    breaks = [0] + [m.end() for m in _CLAUSE_BREAK.finditer(line, 0, first)]
    while len(breaks) > 1 and _REFERS_BACK.match(line, breaks[-1]):
        breaks.pop()  # "Net sales increased 18%. The improvement was attributable to ... 16%": one thing
    start = breaks[-1]
    # "The provision for credit losses was $2.9 billion, reflecting a $1.5 billion net addition to
    # the allowance": a figure after a clause's own figure and "reflecting", "including" … is a
    # part of it, named by the words after the connector, not the clause's subject
    part = _part_of(line, n, start, first)
    if part is not None:
        start = part.end()
    stop = next((m.start() for m in _CLAUSE_BREAK.finditer(line, last)), len(line))
    turn = _DETACHED.search(line, last, stop)
    return line[start:turn.start() if turn else stop]


# a connector after a clause's figure that introduces its parts or causes
_PART_OF = re.compile(r",\s*(?:reflecting|including|which\s+included|consisting\s+of|comprising|comprised\s+of|"
                      r"driven\s+by|(?:primarily|mainly|largely)\s+(?:due\s+to|driven\s+by|reflecting)|due\s+to|"
                      r"of\s+which)\b", re.I)
# a sentence whose subject is the previous one's: "The improvement was attributable to …"
_REFERS_BACK = re.compile(r"(?:the\s+(?:increase|decrease|improvement|decline|change|growth|rise|drop|reduction|"
                          r"amount|total|figure)|this|these|that|it|they|such)\b", re.I)
# where a sentence or a list item ends: "… in fiscal 2016. Research …", "• Cost of revenue …"
_CLAUSE_BREAK = re.compile(rf"{_SENTENCE_END.pattern}|\s*[•▪◦●]\s*")


# "How many employees did X have at the end of 2022?": a level at a date, which "we hired more
# than 14,000 employees" is not (a count of hires during the year)
_LEVEL_ASKED = re.compile(r"\b(?:ha(?:ve|d|s)|employ(?:s|ed)?|at\s+(?:the\s+)?(?:end|close)\s+of|as\s+of|outstanding|"
                          r"headcount|total\s+number|number\s+of)\b", re.I)
# a verb of an event right before a figure says what it counts: the things hired, opened, sold
_EVENT_BEFORE_FIGURE = re.compile(
    r"\b(hired|hiring|hires|recruited|added|adding|opened|opening|closed|closing|acquired|sold|issued|repurchased|"
    r"bought|granted|eliminated|reduced|terminated|laid\s+off|trained|welcomed|onboarded|lost|cut|relocated|"
    # ... or a noun of one: "long-term debt issuances of $14,511 million" is no debt at year end
    r"issuances?|payments?|repayments?|proceeds|purchases|additions|reductions|increases?|decreases?)\s+"
    r"(?:of\s+|from\s+)?"
    r"(?:(?:more|less|fewer)\s+than\s+|over\s+|about\s+|approximately\s+|nearly\s+|almost\s+|some\s+|"
    r"an?\s+(?:additional|further|total\s+of)\s+)?[$]?\s?$", re.I)


def _quote_on_page(cite: Citation, pages: dict[tuple[str, int], str]) -> tuple[str, int]:
    """The page text a citation quotes and where its quote starts there (its ``char_start``,
    else the first place the page prints it; -1 when the passages hold no such page)."""
    page = pages.get((cite.doc_id, cite.page), "")
    if page and cite.char_start >= 0 and page.startswith(cite.quote, cite.char_start):
        return page, cite.char_start
    return page, page.find(cite.quote) if page else -1


def counted_event(cite: Citation, n: float, question: str, pages: dict[tuple[str, int], str]) -> str:
    """The event (a verb, "hired", "opened", or a noun, "issuances of") that makes the cited
    figure ``n`` an amount of events when the question asks a level at a date and names no
    such event itself, else "". Read in the figure's sentence on the page, since a quote may be
    only "14,000 employees"."""
    if not _LEVEL_ASKED.search(question):
        return ""
    page, at = _quote_on_page(cite, pages)
    if at < 0:
        page, at = cite.quote, 0
    for a, _, v in number_spans(page[at:at + len(cite.quote)]):
        if not number_supported(n, [v]):
            continue
        start = at + a
        sentence_start = max(page.rfind(". ", 0, start), page.rfind("\n\n", 0, start), 0)
        m = _EVENT_BEFORE_FIGURE.search(page[sentence_start:start])
        if m is None:
            return ""
        verb = m.group(1).lower()
        stem = re.sub(r"(?:ed|ing|ances?|ents?|es|s)$", "", verb.split()[0])[:5]
        return "" if stem in question.lower() else verb
    return ""


def _part_of(line: str, n: float, start: int, first: int) -> re.Match[str] | None:
    """The last connector ("reflecting", "including" …) between the clause's own figure and the
    figure ``n`` (first printed at ``first``), if the clause has a figure of its own before it."""
    part = None
    for m in _PART_OF.finditer(line, start, first):
        if any(start <= a < m.start() and not number_supported(n, [v]) and not is_year(v)
               for a, _, v in number_spans(line)):
            part = m
    return part


# the heading over an MD&A comparison ("Year ended December 31, 2014 as compared to the year
# ended December 31, 2013", "Fiscal 2015 Compared to Fiscal 2014"): its prose is the first year's
_COMPARISON_HEADING = re.compile(r"\b(?:compared\s+(?:to|with)|versus|vs\.?)\b", re.I)


def section_year(page: str, at: int) -> int | None:
    """The year the comparison heading nearest above ``at`` on the page speaks of (its first
    year), else None. A heading is a short line naming two years, one compared with the other,
    without a figure of its own."""
    for line in reversed(page[max(0, at - 4000):at].split("\n")):
        ln = line.strip()
        if len(ln) > 160 or not _COMPARISON_HEADING.search(ln) or re.search(r"[$%]", ln):
            continue
        years = [m.year for m in find_periods(ln).mentions if m.year]
        if len(set(years)) >= 2:
            return years[0]
    return None


def other_section_year(cite: Citation, question: str, pages: dict[tuple[str, int], str]) -> int | None:
    """The year of the comparison section the quote sits in, when the question asks one other
    year and the quote names none of the asked; else None."""
    asked = find_periods(question).years
    if len(asked) != 1 or asked & find_periods(cite.quote).years:
        return None
    page, at = _quote_on_page(cite, pages)
    year = section_year(page, at) if at >= 0 else None
    return year if year is not None and year not in asked else None


def misnamed(answer: str, quote: str, n: float, concept: set[str]) -> set[str]:
    """The asked terms the answer attaches to the figure ``n`` when its quote prints it as a part
    of another figure ("… was $2.9 billion, reflecting a $1.5 billion net addition to …") whose
    words after the connector do not name them (else empty: quotes elsewhere may name a
    figure's subject in another sentence, or a table row, read by its own rules)."""
    text = " ".join(quote.split())  # prose wraps: its sentence is read across the quote's lines
    spans = [a for a, _, v in number_spans(text) if number_supported(n, [v])]
    if not spans or _part_of(text, n, 0, spans[0]) is None:
        return set()
    said = set(tokenize(_prose_context(answer, n))) & concept
    return said - set(tokenize(_prose_context(text, n)))


def _is_figure_row(line: str) -> bool:
    """A printed row: a label without figures, then figure cells ("Due in one year $ 1,250");
    a wrapped line of prose carries its figures inside the words, not after a label."""
    label, cells = split_row(line)
    return bool(cells) and not re.search(r"\d", label)


def column_problem(n: float, holders: list[Citation], question: str, answer: str, passages: list[Passage]) -> str:
    """Why the figure ``n`` is not the asked one although its quotes carry it, else "": every
    quote holding it is a table row and in each the figure sits in another column than the
    asked period's (or, for the whole, the total): a change column ("(1,163)" under "2014 vs.
    2013" for memberships at the end of 2015), another period's, a part of the whole ("4,582"
    under "Owned" for how many units Walmart operated), or a column the header above the row
    does not name (then no one can tell, and the figure is not claimed)."""
    pages = _passage_pages(passages)
    docs = {p.hit.chunk.doc_id: p.hit.doc for p in passages}
    asked = find_periods(question) or find_periods(answer)
    q_terms = content_term_set(question)
    derived_ok = bool(_DIFFERENCE_ASKED.search(question))
    problems: list[str] = []
    for c in holders:
        page = pages.get((c.doc_id, c.page), "")
        at = c.char_start if page and page[c.char_start:c.char_start + len(c.quote)] == c.quote else page.find(c.quote)
        if not page or at < 0:
            return ""  # the row cannot be read in its page: nothing to check against
        offset = 0
        for line in c.quote.split("\n"):
            here, offset = at + offset, offset + len(line) + 1
            if not number_supported(n, numbers_in(line)):
                continue
            row_start = page.rfind("\n", 0, here) + 1
            row_end = page.find("\n", here)
            full = page[row_start:row_end if row_end >= 0 else len(page)]
            _, row_cells = split_row(full)
            # a row of a table: figure cells after its label, however long the label ("Earnings
            # (loss) per share attributable to Intel—diluted $ (0.66) $ 1.98" is mostly words)
            in_row = is_table_row(full) or len([v for _, v, _ in row_cells if v is not None]) >= 2
            if not in_row or not any(v is not None and number_supported(n, [abs(v)]) for _, v, _ in row_cells):
                # said in a sentence ("As of December 26, 2015, we had approximately 9,100
                # employees."), not printed in a cell: no column to be in
                return ""
            if len(row_cells) < 2:
                return ""  # a row of one figure: no other column to take it from
            # the row's cells placed by their printed position when the filing's PDF gives the
            # page's boxes, by the header lines above the row otherwise (one column reader)
            doc = docs.get(c.doc_id)
            boxed = boxed_page(doc, c.page, page) if doc is not None else None
            annual = doc is not None and doc.meta.form_type.upper().startswith(("10-K", "20-F"))
            placed = place_row(page, row_start, boxed=boxed, annual=annual)
            if placed is None:
                problems.append(f"figure {n:g} is quoted from a table row whose column headings could not be read")
                continue
            cells = [pc for pc in placed if pc.value is not None and number_supported(n, [abs(pc.value)])]
            if not cells:
                return ""  # the figure is in the row's label ("Notes due 2025"), not a cell
            part = segment_title(page, row_start, boxed=boxed, annual=annual)
            if part and not part_named(part, q_terms):
                # "Paid memberships at end of period 4,787" of the "Domestic DVD Segment" table is
                # one segment's count, not the company's
                problems.append(f"figure {n:g} is the {part}'s, a part the question does not name")
                continue
            if any(_column_answers(pc.column, asked, docs.get(c.doc_id), derived_ok, q_terms) for pc in cells):
                return ""
            where = cells[0].column
            if where.part:
                problems.append(f"figure {n:g} is the {where.part}'s (a column group), a part the question does not name")
                continue
            problems.append(f"figure {n:g} sits in the table's \"{where.label}\" column, not the asked period's "
                            "or the total's")
    return problems[0] if problems else ""


def _column_answers(col: Column, asked: QuestionPeriods, doc: Document | None, derived_ok: bool,
                    q_terms: set[str]) -> bool:
    """A figure in column ``col`` answers the question: a period column of the asked period
    (any period when none is asked), the total, a part the question names, a change or
    percentage column only when a change or ratio is asked."""
    if col.kind == OTHER:
        return False  # printed between a period table's columns under no heading: no one's figure
    if not group_named(col.part, q_terms):
        return False  # a segment's column group ("Corporate & Investment Bank"), the question names another or none
    if col.kind == CHANGE:
        return derived_ok
    if col.kind == TOTAL:
        return True
    if col.kind == PART:
        # "owned" in "How many owned retail units ...": the question names the part
        return part_named(col.label, q_terms)
    if not asked.mentions:
        return True
    if asked.quarters and col.months not in (None, 0, 3):
        return False  # a six- or nine-month figure is no quarter's
    if (doc and doc.meta.form_type in ("10-K", "20-F") and asked.years and not asked.quarters
            and not asked.dates and col.months == 3):
        return False  # a quarter's figure is no year's
    own = doc is not None and (period_match(doc, asked.quarters, asked.years) is not None or any(
        doc.meta.period_end == d.isoformat() for d in asked.dates))
    end = _iso_date(doc.meta.period_end) if doc else None
    if col.date:
        if asked.dates:
            return any(abs((col.date - d).days) <= 7 for d in asked.dates)
        if own and end:
            return abs((col.date - end).days) <= 7
    if col.quarter and col.year:
        quarters = set(asked.quarters) | {(d.year, calendar_quarter(d)) for d in asked.dates}
        if own and doc:
            quarters |= {(y, q) for y, q in period_labels(doc.meta, doc.file_name) if q}
        return (col.year, col.quarter) in quarters
    years = asked.every_year
    if own and doc:
        years |= {y for y in (doc.meta.fiscal_year, end.year if end else None) if y}
    return col.year in years


def _iso_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


_YES_NO = re.compile(r"\s*(yes|no)\b", re.I)  # an answer opening with its verdict (the word: group 1)
_RATIO_ASKED = re.compile(r"\b(ratio|margin|percent(age)?|turnover|days\s+\w+\s+outstanding|rate|yield|multiple)\b|%", re.I)
# "How much ...", "what damages range ...": a sentence around the figure without the figure
# (a small model's usual way to fall short) is no answer to it.
_FIGURE_ASKED = re.compile(
    # "What was Apple's total net sales": a possessive name before the measure ("Apple's") is a word
    r"\b(how\s+much|how\s+many|what\s+(?:was|were|is|are)\s+(?:the\s+)?(?:[\w.&'’-]+\s+){0,4}(?:amount|range|total|"
    r"revenues?|sales|income|expenses?|costs?|eps|earnings\s+per\s+share|cash\s+flows?|margin|rate|ratio|percentage)"
    # a balance as the head of the question: "What was Coca-Cola's long-term debt at the end of 2017?"
    r"|what\s+(?:was|were|is|are)\s+(?:the\s+)?(?:(?!(?:to|of|about|regarding|related|on|in|with|risks?)\b)"
    r"[\w.&'’-]+\s+){0,4}(?:debt|borrowings|assets|liabilities|equity|"
    r"inventor(?:y|ies)|deposits|loans|receivables|payables|goodwill|backlog|headcount|cash\s+equivalents)"
    r"(?=\s+(?:at|as\s+of|on|for|in)\b|\s*\?)"
    r"|what\s+(?:\w+\s+){0,2}(?:amount|range|figure|price|value)s?"
    # "What goodwill impairment did Kraft Heinz record in 2019?": a measure the filer recorded
    r"|what\s+(?:\w+\s+){0,3}(?:impairments?|charges?|loss(?:es)?|revenues?|sales|income|expenses?|costs?|"
    r"dividends?|capex|capital\s+expenditures?|backlog|cash\s+flows?)\s+did)\b",
    re.I)
# "What drove the change in gross margin?" asks for the reasons, and the reasons are amounts
# ("lower charges for severance of $89 million"): no ratio figure is expected of the answer.
_EXPLANATION_ASKED = re.compile(
    r"\b(why|drove|drivers?|caused?|causes|reasons?|factors?|explain\w*|explanations?|attribut\w+|contribut\w+)\b", re.I)
_AMOUNT_GIVEN = re.compile(r"\$|\b(thousand|million|billion|trillion)s?\b", re.I)
# "What is the backlog ...", "how much ...": an amount asked (a rate is _RATIO_ASKED's)
_AMOUNT_ASKED = re.compile(r"\b(how\s+much|what\s+(?:is|was|were|are)\b)", re.I)
# a change or a share asked: a percentage is then an answer
_CHANGE_ASKED = re.compile(
    r"\b(chang\w*|grow\w*|growth|increas\w*|decreas\w*|declin\w*|rose|fell|compar\w*|versus|vs\.?|shares?\s+of|"
    r"portion|proportion|mix|split|percent\w*)\b", re.I)
# a change between periods asked: a change column ("2015 vs. 2014", "% Change") then answers
# (a margin or a rate is not: "5 %" under "% CHANGE" is no gross margin)
_DIFFERENCE_ASKED = re.compile(
    r"\b(chang\w*|grow\w*|growth|increas\w*|decreas\w*|declin\w*|rose|fell|compar\w*|versus|vs\.?|yoy|"
    r"year[-\s]over[-\s]year|differen\w*)\b", re.I)
_DENIAL = re.compile(r"\b(?:no|not|none|never|nor|neither|nothing)\b|n['’]t\b", re.I)
_PERCENTAGE = re.compile(r"\d\s*(?:%|percent\b|per\s+cent\b)", re.I)


_DAY_OF_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})\b", re.I)


def _only_percentages(text: str) -> bool:
    """Every figure ``text`` states, not counting years and the days of its dates ("as of
    December 31, 2015"), is a percentage; at least one is."""
    days = {m.start(1) for m in _DAY_OF_MONTH.finditer(text)}
    stated = [m for m in _FIGURE_WITH_PERCENT.finditer(text)
              if m.start(1) not in days and not is_year(float(m.group(1).replace(",", "")))]
    return bool(stated) and all(m.group(2) for m in stated)


def _only_counts_asked(intent: QuestionIntent) -> bool:
    """Every fact the question asks is a count ("how many stores"), none a rate or a change."""
    return {fact.kind for fact in intent.asks} == {"count"} and intent.ask not in ("change", "comparison")


def asks_for_figure(question: str) -> bool:
    """The question asks for a figure ("how much", "what was the total ..."), not for the reasons
    behind one: an answer to it must give a figure (``verify_answer``)."""
    return bool(_FIGURE_ASKED.search(question)) and not _EXPLANATION_ASKED.search(question)


def asks_for_explanation(question: str) -> bool:
    """The question asks why or how a figure moved ("What drove ...", "explain ..."), not the figure."""
    return bool(_EXPLANATION_ASKED.search(question))


def is_year(n: float) -> bool:
    """A figure that reads as a year (1900-2100), not an amount."""
    return float(n).is_integer() and 1900 <= n <= 2100


def carries_concept(tokens: list[str], concept: set[str], idf: dict[str, float] | None = None) -> bool:
    """A quote names what was asked: it has the question's most distinctive concept term and
    at least 60 % of the concept terms' weight (idf; equal weights without it)."""
    weights = {t: max(0.1, (idf or {}).get(t, 1.0)) for t in concept}
    present = concept.intersection(tokens)
    top = max(weights, key=lambda t: (weights[t], t))
    if len(concept) > 1 and top not in present:
        return False
    return sum(weights[t] for t in present) >= 0.6 * sum(weights.values())
