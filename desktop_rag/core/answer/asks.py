"""The facts a question asks (``QuestionIntent.asks``) found in the filing's sentences.

A question asks facts of kinds its wording names: an amount ("how much", "price", "recorded"),
a date ("when", "closing", "maturities"), a rate ("share of", "growth", "coupons"), a count
("how many", "employees"). A sentence answers an ask when it carries the asked measure's words
AND a figure of the asked kind: "we repurchased 28 million shares for $4.0 billion" answers
"how much stock did they buy back"; "the Board authorized a program to repurchase up to $10.0
billion" is about buybacks too, but answers "how much authorization remains" only once it says
what remains. A per-share price is no total ("$109.00 per share" is not what a deal cost), a
count no amount. When a question asks several facts, the quotes together cover each
(``cover``): greedy, best first, one more quote per fact the quotes so far leave unanswered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from desktop_rag.core.answer.verify import (
    Passage,
    about_other_years,
    best_units,
    restates,
    split_units,
    statement_key,
    whole_pages,
)
from desktop_rag.core.domain.measures import is_count_label
from desktop_rag.core.domain.periods import MONTH_NAME_RE, MONTH_NAMES, find_periods
from desktop_rag.core.domain.question import ASK_GRAMMAR, QuestionIntent, counted_noun, timing_of
from desktop_rag.core.domain.terms import QUESTION_NOISE, STOPWORDS, tokenize, word_root
from desktop_rag.core.ingest.chunking import is_table_row

# -- the kinds of figure a text holds ------------------------------------------------------------
_CURRENCY = r"(?:US\$|C\$|A\$|[$€£¥]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|RMB)\s?)"
_SCALE = r"(?:\s*(?:thousand|million|billion|trillion)s?\b)?"
_MONEY = re.compile(
    rf"{_CURRENCY}\s?\(?\d[\d,]*(?:\.\d+)?\)?{_SCALE}|"
    rf"\b\d[\d,]*(?:\.\d+)?{_SCALE}\s*(?:dollars|euros|yuan|yen|pounds|francs)\b", re.I)
_PER_UNIT = re.compile(r"^\s*(?:per\s+(?:common\s+|diluted\s+|basic\s+|ordinary\s+)?(?:share|unit|ads)|a\s+share)\b",
                       re.I)
_RATE = re.compile(r"\(?\d[\d,]*(?:\.\d+)?\)?\s*(?:%|percent\b|per\s*cent\b|percentage\s+points?\b|basis\s+points?\b|"
                   r"bps\b)", re.I)
_YEAR = r"(?:19|20)\d\d\b"
_DATE = re.compile(
    rf"\b{MONTH_NAME_RE}\.?\s+(?:\d{{1,2}},?\s+)?{_YEAR}|"
    rf"\b{MONTH_NAME_RE}\.?\s+\d{{1,2}}\b|"
    rf"\b(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+|calendar\s+)?(?:quarter|half)\s+of\s+"
    rf"(?:fiscal\s+|calendar\s+)?{_YEAR}|"
    rf"\bQ[1-4]\s*(?:FY\s*)?'?(?:19|20)?\d\d\b|"
    rf"\b(?:in|by|during|due|until|through|before|after|since|on|of|end\s+of)\s+(?:fiscal\s+|calendar\s+|early\s+|"
    rf"late\s+|mid-?)?{_YEAR}|"
    rf"\b{_YEAR}\s+(?:notes|debentures|bonds)\b", re.I)
# numbers that name a document's part, not a figure: "Note 4", "Item 7", "Rule 10b5-1"
_REFERENCE = re.compile(r"\b(?:notes?|items?|rules?|sections?|parts?|pages?|exhibits?|forms?|schedules?|articles?|"
                        r"chapter|level|tier|phase|class|series|no\.)\s+\(?\d[\w.-]*", re.I)
# an exhibit index: "(d) Exhibits / 99.1 Employee Communication ... / 104 Cover Page ...", each
# line opening with the exhibit's number, no figure
_EXHIBITS = re.compile(r"\bexhibits?\b", re.I)
_EXHIBIT_LINE = re.compile(r"^\s*\d{1,3}(?:\.\d{1,2})?(?=\s+[A-Z])", re.M)
_FOOTNOTE = re.compile(r"\(\d{1,2}\)|^\s*\d{1,2}\s*$|^\s*\d{1,2}[.)]\s", re.M)
_NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)\d[\d,]*(?:\.\d+)?(?![\w%]|-[A-Za-z])")  # not "12-month", "10-K", "COVID-19"

AMOUNT, PER_UNIT, COUNT, DATE, RATE, CHANGE = "amount", "per_unit", "count", "date", "rate", "change"
DURATION = "duration"
_TIME_UNIT = re.compile(r"\s+(?:calendar\s+|business\s+|consecutive\s+)?(?:weeks?|months?|days?|years?|hours?|minutes?)\b",
                        re.I)
# the kinds of figure that answer an ask of each kind: a measure asked plainly ("what were total
# payment volume ...") is a level, never its growth rate; guidance asks any figure
_ANSWERS: dict[str, frozenset[str]] = {
    "amount": frozenset({AMOUNT}), "per_unit": frozenset({PER_UNIT}), "count": frozenset({COUNT}),
    "date": frozenset({DATE}), "rate": frozenset({RATE}),
    "figure": frozenset({AMOUNT, PER_UNIT, COUNT, DURATION}),
    "any": frozenset({AMOUNT, PER_UNIT, COUNT, RATE, DURATION}),
}


_CELL = re.compile(r"^(?:\$|\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?|[\u2014\u2013-]|\*{1,3})$")


def _is_row(text: str) -> bool:
    """A table row: one line of a label and figure cells, closed by a cell ("Purchases related
    to property and equipment and intangible assets (537) (794)"), not a sentence."""
    words = text.split()
    if "\n" in text.strip() or len(words) < 2 or not _CELL.match(words[-1]) or words[-1] == "$":
        return is_table_row(text) and "\n" not in text.strip() and bool(re.search(r"[\d%)]\s*$", text))
    label = [w for w in words if not _CELL.match(w)]
    return len(label) <= 20 and not text.rstrip().endswith(".")
# a table row that gives the row above it as a share: "Percentage of net revenues 60% 59% 58%"
_SHARE_ROW = re.compile(r"^\s*(?:percent(?:age)?|%|as\s+a\s+(?:percent(?:age)?|%))\s+of\b", re.I)


def _blank(text: str, spans: list[tuple[int, int, str]]) -> str:
    out = list(text)
    for a, b, _ in spans:
        out[a:b] = " " * (b - a)
    return "".join(out)


def figure_spans(text: str) -> list[tuple[int, int, str]]:
    """The figures of ``text`` with their kind: ``amount`` (money: "$4.0 billion", "€300
    million"), ``per_unit`` (money per share or unit: "$109.00 per share"), ``rate`` ("11%",
    "3.875%", "120 basis points"), ``date`` ("May 15, 2023", "the first quarter of 2020", "in
    2023", "Notes due 2026") and ``count`` (any other figure: "28 million shares",
    "approximately 135,000"; not a year, a footnote mark or "Note 4"). A table row's bare
    cells are amounts, or counts when its label counts things, and its percents their
    ``change`` (no rate asked of the row's measure)."""
    spans: list[tuple[int, int, str]] = []
    for m in _MONEY.finditer(text):
        spans.append((m.start(), m.end(), PER_UNIT if _PER_UNIT.match(text[m.end():]) else AMOUNT))
    rest = _blank(text, spans)
    rates = [(m.start(), m.end(), RATE) for m in _RATE.finditer(rest)]
    spans += rates
    rest = _blank(rest, rates)
    dates = [(m.start(), m.end(), DATE) for m in _DATE.finditer(rest)]
    spans += dates
    refs = (_REFERENCE, _FOOTNOTE, _EXHIBIT_LINE) if _EXHIBITS.search(text) else (_REFERENCE, _FOOTNOTE)
    rest = _blank(rest, dates + [(m.start(), m.end(), "") for rx in refs for m in rx.finditer(rest)])
    bare = [m for m in _NUMBER.finditer(rest) if not re.fullmatch(_YEAR, m.group(0))]
    if bare:
        row = _is_row(text)
        first = _NUMBER.search(text)
        kind = (COUNT if is_count_label(text[:first.start()] if first else text) else AMOUNT) if row else COUNT
        # "12 weeks", "30 days": a length of time, no count of anything asked (a row's cells stay its kind)
        spans += [(m.start(), m.end(), DURATION if not row and _TIME_UNIT.match(text, m.end()) else kind)
                  for m in bare]
        if row and not _SHARE_ROW.match(text):
            # "International 6,463 1 % 6,373 11%": in a row of amounts a percent is their change
            spans = [(a, b, CHANGE if k == RATE else k) for a, b, k in spans]
    return sorted(spans)


def _figure_key(text: str) -> str:
    """A figure as written, without spaces, commas and currency signs ("$15 billion" -> "15billion")."""
    return re.sub(r"[\s,$\u20ac\u00a3]+", "", text).lower()


def figure_kinds(text: str) -> set[str]:
    """The kinds of figure ``text`` holds (``figure_spans``)."""
    return {k for _, _, k in figure_spans(text)}


# -- the asked measure's words in a sentence -----------------------------------------------------
# Words that say one thing of a figure in a filing however the question words it (roots):
# what remains of an authorization, a buyback, a deal's closing, what lies outside the home
# country, an amount accrued.
_SAME: tuple[frozenset[str], ...] = (
    frozenset({"remain", "left", "availabl"}),
    frozenset({"buyback", "repurchas"}),
    frozenset({"clos", "complet", "consummat"}),
    frozenset({"international", "internationally", "outsid"}),
    frozenset({"accru", "accrual", "record"}),
    frozenset({"cost", "incurr", "charg"}),
    # a workforce reduction as analysts say it ("how big is the headcount cut") and as filings print it
    frozenset({"headcount", "workforc", "employe", "staff", "position"}),
    frozenset({"cut", "reduct", "layoff", "elimin"}),
    # money raised in a debt deal, as analysts say it and as filings print it
    frozenset({"rais", "issu", "issuanc", "proceeds"}),
    frozenset({"bond", "bonds", "note", "notes", "debentur"}),
    # what was paid for a thing, as filings print it ("the total purchase price for NetSuite was")
    frozenset({"paid", "purchas", "consider", "acquir", "pric"}),
)
# words that name only the kind of figure asked ("the coupons" are the notes' rates, "the
# maturities" their dates): a clause of these alone asks them of the question's topic
# ("the range of maturities": the extent of the topic's dates)
_KIND_ROOTS = frozenset({"coupon", "matur", "maturity", "maturiti", "rate", "date", "timing", "dat", "rang", "span"})
# a clause pointing back at the topic: "what did it cost", "what did they accrue for it"
# (not a possessive: "its quarterly dividend" is the company's)
_POINTS_BACK = re.compile(r"\b(?:it|they|them|this|these|those)\b", re.I)
_INITIALS = re.compile(r"\b(?:[A-Z]\.){2,}")
# a parenthetical glossing the measure asked: "notes (long-term debt)", "capex (purchases related to ...)"
_GLOSS = re.compile(r"\(([^()]{3,160})\)")
# "What did Oracle pay for NetSuite": the price paid is asked (the verb is question noise elsewhere)
_PAID_FOR = re.compile(r"\b(?:pay|paid|spend|spent)\s+(?:\w+\s+){0,2}?(?:for|to\s+(?:acquire|buy))\b", re.I)
_GLOSSED = 0.9  # what a gloss's words are worth beside the measure's own
# "outside the U.S." is what filings call international
_OUTSIDE_HOME = re.compile(r"\b(?:outside|out\s+of)\s+(?:of\s+)?the\s+(?:U\.S\.|US\b|United\s+States)", re.I)


def _roots(text: str) -> set[str]:
    return {word_root(t) for t in tokenize(text)} | set(_INITIALS.findall(text))


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 6 and long_.startswith(short):  # "authoriz" of "authorization"
        return True
    return any(any(_same_root(a, x) for x in group) and any(_same_root(b, x) for x in group) for group in _SAME)


def _same_root(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 6 and long_.startswith(short))


@dataclass(frozen=True)
class Ask:
    """A fact asked, ready to be looked for: its kind and the roots of its measure's words (not
    the company, the period or the question's grammar)."""

    kind: str
    roots: frozenset[str]
    words: str
    timing: str = ""  # "level", "flow" or "" (``FactAsk.timing``)
    # the initials of runs of the ask's words ("TPV" of "total payment volume") -> those words' roots
    acronyms: tuple[tuple[str, frozenset[str]], ...] = ()
    # root -> its weight (the library's idf of the word: "international" tells more than "revenue")
    weights: tuple[tuple[str, float], ...] = ()
    # the roots of what the question glosses the measure as ("notes (long-term debt)")
    gloss: frozenset[str] = frozenset()
    # the clause's own words when the topic's were added to them ("U.S." of "..., and how many
    # were in the U.S."): a unit carrying none of them answers the topic, not this ask
    own: frozenset[str] = frozenset()
    # the figures the whole question states ("its $15 billion repurchase program"): what it
    # names, never what it asks (``_figure_key`` of each, space-joined)
    stated: str = ""

    def share(self, unit_roots: set[str], text: str = "") -> float:
        """The (idf-weighted) share of the ask's words the unit carries (1.0 when the ask names
        none); a run of them may be carried by its initials ("TPV was $377 billion"), and a
        gloss's words stand for them, a little less ("Long-term debt 9,704" for the notes' net
        carrying amount, "(long-term debt)")."""
        if not self.roots:
            return 1.0
        found = {r for r in self.roots | self.gloss if any(_same(r, u) for u in unit_roots)}
        for acronym, roots in self.acronyms:
            if re.search(rf"(?<![\w-]){acronym}(?![\w-])", text):
                found |= roots
        weight = dict(self.weights)

        def part(roots: frozenset[str]) -> float:
            total = sum(weight.get(r, 1.0) for r in roots)
            return sum(weight.get(r, 1.0) for r in found & roots) / total if total else 0.0

        share = max(part(self.roots), _GLOSSED * part(self.gloss)) if self.gloss else part(self.roots)
        return share * _TOPIC_ONLY if self.own and not found & self.own else share


def _acronyms(words: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Initials of each run of 3-4 words of ``words`` ("total payment volume" -> "TPV") and of
    each hyphenated compound of three words or more ("debtor-in-possession" -> "DIP")."""
    out = []
    for compound in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+){2,}", words):
        parts = compound.split("-")
        out.append(("".join(w[0] for w in parts).upper(), frozenset(word_root(t) for t in tokenize(" ".join(parts)))))
    seq = re.findall(r"[A-Za-z][A-Za-z'-]*", words)
    seq = [w for w in seq if w.lower() not in STOPWORDS]
    for n in (3, 4):
        for i in range(len(seq) - n + 1):
            run = seq[i:i + n]
            out.append(("".join(w[0] for w in run).upper(), frozenset(word_root(t) for t in tokenize(" ".join(run)))))
    return tuple(out)


def unit_context(page: str, a: int, b: int) -> str:
    """The unit page[a:b] as read for the facts asked: a row giving the row above it as a share
    ("Percentage of net revenues 60%" under "International 6,463") is read with that row's label."""
    unit = page[a:b]
    if not is_table_row(unit):
        return unit
    if not _SHARE_ROW.match(unit):
        parent = _parent_heading(page, a)
        return f"{parent} {unit}" if parent else unit
    above = page[:a].rstrip("\n").rsplit("\n", 1)[-1]
    first = _NUMBER.search(above)
    label = above[:first.start()].strip() if first else ""
    return f"{label} {unit}" if label and is_table_row(above) else unit


_PARENT_REACH = 8  # table rows above a row where the heading of its group is looked for


def _parent_heading(page: str, at: int) -> str:
    """The heading of the group a table row sits in ("Net transaction revenues:" over
    "Marketplace $ 6,107 ..." and "StubHub 937 29% 725"): the nearest line above ending in a
    colon with no figure, over rows of the table only; "" when there is none."""
    lines = page[:at].rstrip("\n").split("\n")
    for line in reversed(lines[-_PARENT_REACH:]):
        text = line.strip()
        if text.endswith(":") and not _NUMBER.search(text) and len(text) <= 80:
            return text.rstrip(":")
        if not text or not is_table_row(text):
            return ""
    return ""


# "which segment posted the strongest growth": a ranking of parts, whatever shape the question reads as
_SUPERLATIVE = re.compile(r"\b(?:highest|lowest|largest|smallest|biggest|fastest|slowest|strongest|weakest|best|worst|"
                          r"the\s+most|the\s+least)\b", re.I)


def read_asks(intent: QuestionIntent | None, ignore: Iterable[str] = (), idf: dict[str, float] | None = None
              ) -> list[Ask]:
    """The intent's facts asked, each with its words' roots (weighed by ``idf``); none for a
    question whose shape ranks or compares parts (read by the table of parts, not by sentences)
    unless it asks facts of several kinds."""
    if intent is None or intent.ask == "ranking" or _SUPERLATIVE.search(intent.asked):
        return []
    if intent.ask == "comparison" and len({fact.kind for fact in intent.asks}) < 2 and not _OVER_TIME.search(intent.asked):
        # one measure compared across parts or periods; a question asking facts of several kinds
        # ("how many shares did it issue, and what were they worth versus the liability") is
        # answered by the sentences giving each
        return []
    skip = set(ignore)
    stated = _figure_key(intent.asked)
    out: list[Ask] = []
    def weighed(text: str) -> dict[str, float]:
        tokens = [t for t in tokenize(text) if t not in STOPWORDS and t not in QUESTION_NOISE and t not in ASK_GRAMMAR
                  and t not in skip and t not in MONTH_NAMES and len(t) > 1 and not any(c.isdigit() for c in t)]
        return {word_root(t): max(0.2, (idf or {}).get(t, 1.0)) for t in tokens}

    for fact in intent.asks:
        glossed = " ".join(_GLOSS.findall(fact.words))
        words = _OUTSIDE_HOME.sub("international", _GLOSS.sub(" ", fact.words))
        weights = {r: w for r, w in weighed(words).items() if r not in _KIND_ROOTS}
        if _PAID_FOR.search(words):
            weights["paid"] = 1.0
        initials = frozenset(_INITIALS.findall(words))
        own = frozenset(weights) | initials
        # a place or body named by its initials ("the U.S.") tells as much as a rare word
        weights |= {i: _INITIALS_WEIGHT for i in initials}
        if fact.topic and (not weights or _POINTS_BACK.search(fact.words) or set(weights) <= _OF_THE_TOPIC):
            # ("and how much remains", "and YoY growth?": what is left of the topic, how it grew)
            # "coupons, maturities" of "What debt did Corning issue"; "what did it cost" of the
            # plan (the topic's words weigh half beside the clause's own)
            share = 0.5 if weights else 1.0
            topic = {r: share * w for r, w in weighed(_OUTSIDE_HOME.sub("international", fact.topic)).items()}
            weights = topic | weights
            words = f"{fact.topic} {words}"
        else:
            own = frozenset()
        gloss = weighed(glossed)
        roots = set(weights) | set(_INITIALS.findall(words))
        ask = Ask(fact.kind, frozenset(roots), words, fact.timing, _acronyms(f"{words} {glossed}"),
                  tuple((gloss | weights).items()), frozenset(gloss) - roots, own, stated)
        if not any(a.kind == ask.kind and a.roots == ask.roots for a in out):
            out.append(ask)
    return out


_NAMES_THE_PART = 0.9  # the share of an ask's words a portion's sentence carries to be the part asked
_INITIALS_WEIGHT = 3.0  # the weight of initials an ask names ("U.S."), which the library's idf does not weigh
_TOPIC_ONLY = 0.5  # the weight of a unit carrying an ask's topic but none of its clause's own words
_NEAR = 100  # characters between an asked word and the figure of its kind, at most, to be its figure
_FAR = 0.75  # the weight of an ask's words whose figure of the asked kind is further away
_OTHER_TIMING = 0.4  # the weight of a balance where a flow was asked, or the reverse, or of another span

# a figure asked of the past ("what did it cost", "how much was paid"), and a sentence of expectations
_PAST_ASK = re.compile(r"\b(?:did|was|were|had|has\s+been|have\s+been)\b", re.I)
# ("remained available for future repurchases", "reserved for future issuance" is what is left now)
_EXPECTED = re.compile(r"\b(?:expects?|expected|anticipat\w+|(?<!for\s)future|will\s+be|estimated?\s+to)\b", re.I)

# the length of the span a text speaks of, in months: "the quarter", "nine months ended", "fiscal year"
_SPANS = (
    # "During the three and six months ended June 30": both spans, the first without its noun
    (3, re.compile(r"\b(?:three|3)(?:[\s-]+months?\b|\s+and\s+(?:six|6|nine|9)[\s-]+months?\b)|\bquarter\b|\bQ[1-4]\b",
                   re.I)),
    (6, re.compile(r"\b(?:six|6)[\s-]+months?\b|\b(?:first|second)\s+half\b|\bhalf[\s-]+year\b", re.I)),
    (9, re.compile(r"\b(?:nine|9)[\s-]+months?\b", re.I)),
    (12, re.compile(r"\b(?:fiscal\s+)?year\s+ended\b|\b(?:twelve|12)[\s-]+months?\b|\bfull[\s-]+year\b|"
                    r"\bfiscal\s+(?:year\s+)?(?:19|20)\d\d\b|\bFY\s?\d{2,4}\b", re.I)),
)


def span_months(text: str) -> set[int]:
    """The span lengths ``text`` names (``_SPANS``)."""
    return {n for n, rx in _SPANS if rx.search(text)}


def _word_roots_at(text: str) -> list[tuple[int, str]]:
    return [(m.start(), r) for m in re.finditer(r"[A-Za-z][A-Za-z&'-]*", text) for t in tokenize(m.group(0))
            for r in (word_root(t),)] + [(m.start(), m.group(0)) for m in _INITIALS.finditer(text)]


def _sentence_of(text: str, a: int, b: int) -> str:
    """The sentence (``split_units``) of ``text`` holding text[a:b]."""
    return next((text[s:e] for s, e in split_units(text) if s <= a < e), text)


def ask_match(text: str, ask: Ask, spans: list[tuple[int, int, str]] | None = None,
              roots: set[str] | None = None) -> float:
    """How well ``text`` answers ``ask``: the share of its words it carries, when it holds a
    figure of the asked kind; a quarter less when no asked word lies near such a figure ("Net
    revenues increased $481 million ... driven by growth in total payment volume" names the
    volume, not its amount), and a quarter less when it speaks of a balance and a flow was
    asked or the reverse, below what answers ("As of January 31, 2023, $6.0 billion remained
    authorized under the Share Repurchase Program" is no answer to how much was bought back
    during the year); 0 without a figure of the kind."""
    if ask.kind == "claim":
        # a claim is stated in words ("which will not be recoverable through rates"), no figure;
        # each of its own words ("accrued", "liability"), not only the topic's it points back to
        roots = _roots(text) if roots is None else roots
        if ask.own and not all(any(_same(r, u) for u in roots) for r in ask.own if r in ask.roots):
            return 0.0
        return ask.share(roots, text)
    spans = figure_spans(text) if spans is None else spans
    kinds = _ANSWERS.get(ask.kind, _ANSWERS["figure"])
    # a date the question itself names ("as of June 2, 2023") is its period, no date it asks
    named = re.sub(r"[,\s]+", " ", ask.words).lower()
    # ... and an amount it states ("its $15 billion repurchase program") is the thing it names
    stated = ask.stated or _figure_key(ask.words)
    at = [(a, b) for a, b, k in spans if k in kinds
          and not (k == DATE and re.sub(r"[,\s]+", " ", text[a:b]).strip().lower() in named)
          and not (k == AMOUNT and re.search(rf"(?<![\d.]){re.escape(_figure_key(text[a:b]))}(?![\d.])", stated))]
    if not at:
        return 0.0
    share = ask.share(_roots(text) if roots is None else roots, text)
    if not share or not ask.roots:
        return share
    words_share = share
    near = [p for p, r in _word_roots_at(text) if any(_same(r, x) for x in ask.roots)]
    near += [m.start() for acronym, _ in ask.acronyms for m in re.finditer(rf"(?<![\w-]){acronym}(?![\w-])", text)]
    if not any(a - _NEAR <= p <= b + _NEAR for p in near for a, b in at):
        share *= _FAR
    timing = timing_of(text)
    if ask.timing and timing and timing != ask.timing:
        share *= _OTHER_TIMING
    asked, spoken = span_months(ask.words), span_months(text)
    if asked and spoken and not asked & spoken:
        share *= _OTHER_TIMING  # "during the nine months ended" is no answer for the quarter
    if ask.kind != "date" and _PAST_ASK.search(ask.words) and any(_EXPECTED.search(_sentence_of(text, a, b))
                                                                  for a, b in at):
        # "what did it cost": not what it is expected to cost (said in the figure's own
        # sentence: "... located in the U.S. eBay has programs to attract our future employees"
        # speaks of the future after the figure's sentence ended)
        share *= _OTHER_TIMING
    if ask.kind == "count" and (all(_PORTION.match(text, b) for a, b in at) or _qualified_count(text, at[0][1], ask)
                                or _PORTION_FIRST.match(text)) and not _asks_a_part(ask.words) and not (
            # "how many Utility employees were covered by collective bargaining agreements": the
            # part asked by its own words, each carried ("Of the Utility's regular employees,
            # approximately 13,500 are covered by collective bargaining agreements")
            len(ask.roots) >= 3 and words_share >= _NAMES_THE_PART and _names_its_part(text, at[0][1], ask)):
        # "Approximately 7,300 of our employees were located in the U.S.": a part of the count
        # asked, below "we employed approximately 14,100 people globally"
        share *= _OTHER_TIMING
    return share


def _names_its_part(text: str, end: int, ask: Ask) -> bool:
    """The words after a portion's figure ("13,500 are covered by collective bargaining
    agreements") are words the ask names: the part asked, not the whole it is a part of."""
    after = {word_root(t) for t in tokenize(text[end:end + 80])}
    return any(_same(r, u) for r in ask.roots for u in after)


# a figure followed by "of our", "of the", "of its": a portion of a whole ("7,300 of our employees")
_PORTION = re.compile(r"\s+(?:of|out\s+of)\s+(?:our|the|its|their|these|those)\b", re.I)
# a clause asking a part of a whole by where it is ("how many were in the U.S.", "outside of
# Japan", "internationally"), not by when ("in Q2", "in fiscal 2023")
_PART_ASKED = re.compile(r"\b(?:[Ii]n|[Oo]utside(?:\s+of)?|[Ww]ithin|located\s+in|based\s+in)\s+(?:the\s+)?"
                         r"(?:(?!Q[1-4]\b|FY|H[12]\b)[A-Z][\w&.-]*|international|domestic|overseas|foreign)|"
                         r"\b(?:internationally|domestically|overseas|abroad)\b")
_LAST_QUESTION = re.compile(r".*\b(?:how|what|which)\b", re.I | re.S)


# the whole named first, then its portion: "Of the Utility's regular employees, approximately
# 16,000 are covered by collective bargaining agreements"
_PORTION_FIRST = re.compile(r"^\W*of\s+(?:the|our|its|their|these|those|all)\b[^,;.]{0,100},\s*(?:approximately\s+|about\s+)?"
                            r"\d", re.I)
# "how many of the Utility's workers are covered": a portion of a whole asked
# ("how were they split between the U.S. and international": the parts of a whole)
_PORTION_ASKED = re.compile(r"\bhow\s+many\s+(?:of|out\s+of)\s+(?:the|its|their|our|these|those)\b|\bsplit\b|"
                            r"\bbroken\s+down\b|\bbreak(?:down|\s+down)\b|\bdivided\s+(?:between|among)\b", re.I)


def _qualified_count(text: str, end: int, ask: Ask) -> bool:
    """The count ending at ``end`` is of a kind of the noun asked the question does not name:
    "155 franchised stores" for "how many stores", "7,300 part-time employees" for "how many
    employees" (a part of the count asked)."""
    noun = counted_noun(ask.words)
    if not noun:
        return False
    m = re.match(r"\s+(?:(?:thousand|million|billion)\s+)?(?:of\s+)?([A-Za-z][\w-]*)\s+([A-Za-z][\w-]*)", text[end:], re.I)
    if m is None:
        return False
    counted, asked_noun = tokenize(m.group(2)), tokenize(noun) or [noun]
    if not counted or word_root(counted[0]) != word_root(asked_noun[-1]):
        return False
    qualifier = tokenize(m.group(1))
    if m.group(1).lower() in ask.words.lower():
        return False  # "full-time employees" asked
    return bool(qualifier) and not any(_same(word_root(q), r) for q in qualifier for r in ask.roots) and \
        qualifier[0] not in _NEUTRAL_COUNT_WORDS


# words before a counted noun that name no kind of it ("2,794 total stores", "approximately 23,000
# regular employees" is the count asked: "regular", "full-time equivalent" are how filings count)
_NEUTRAL_COUNT_WORDS = frozenset({"total", "regular", "global", "worldwide", "company", "operated", "operating", "active",
                                  "more", "additional", "new", "net", "approximately", "about", "over", "nearly"})


def _asks_a_part(words: str) -> bool:
    """The last clause of an ask's words asks a part by where it is ("..., and how many were in
    the U.S.") or of a whole ("how many of its workers are unionised"): a portion ("6,200 of our
    employees were located in the U.S.") is its answer."""
    m = _LAST_QUESTION.match(words)
    return bool(_PART_ASKED.search(words[m.end():] if m else words)) or bool(_PORTION_ASKED.search(words))


# the kinds of figure that may give an ask of each kind however the filing prints it: a bare
# cell is an amount or a count, a per-share figure is printed "$ 82.31" under a label "Book value
# per share", a rate may be printed as a change
_MAY_GIVE: dict[str, frozenset[str]] = {
    "amount": frozenset({AMOUNT, PER_UNIT, COUNT}), "per_unit": frozenset({AMOUNT, PER_UNIT, COUNT}),
    "count": frozenset({AMOUNT, PER_UNIT, COUNT}), "figure": frozenset({AMOUNT, PER_UNIT, COUNT, DURATION}),
    "date": frozenset({DATE}), "rate": frozenset({RATE, CHANGE}),
    "any": frozenset({AMOUNT, PER_UNIT, COUNT, RATE, CHANGE, DATE, DURATION}),
}


def gives_kind(text: str, ask: Ask) -> bool:
    """Does ``text`` hold a figure of the kind ``ask`` asks (an amount for "how much")? A claim
    asks no figure."""
    return ask.kind == "claim" or bool(figure_kinds(text) & _ANSWERS.get(ask.kind, _ANSWERS["figure"]))


def may_answer(text: str, ask: Ask) -> bool:
    """Could ``text`` give ``ask``: a figure of a kind that may be it, and at least one of the
    asked words (or of the question's gloss of them)? The loose reading a refusal needs: no
    quote of the answer may give it (``answered`` is the strict one that picks quotes)."""
    if ask.kind != "claim" and not figure_kinds(text) & _MAY_GIVE.get(ask.kind, _MAY_GIVE["any"]):
        return False
    return not ask.roots or ask.share(_roots(text), text) > 0


# the most quotes an answer gives to cover the facts asked (the usual cap, ``max_citations``,
# is for one fact)
MAX_ASK_QUOTES = 3
_ANSWERED = 0.5  # the share of an ask's words a sentence with a figure of its kind must carry


def _shares(text: str, asks: Sequence[Ask]) -> tuple[list[float], list[float]]:
    """Per ask, how well ``text`` answers it (``ask_match``: its words, with a figure of its
    kind), and the share of its words ``text`` carries whatever its figures."""
    spans, roots = figure_spans(text), _roots(text)
    words = [a.share(roots, text) if a.roots else 0.0 for a in asks]
    if not any(words) and all(a.roots for a in asks):
        return [0.0] * len(asks), words
    return [ask_match(text, a, spans, roots) for a in asks], words


def answered(text: str, asks: Sequence[Ask]) -> dict[int, float]:
    """The asks (index -> how well) ``text`` answers: those it carries at least half the words
    of, with a figure of their kind."""
    if not asks:
        return {}
    shares, _ = _shares(text, asks)
    return {i: s for i, s in enumerate(shares) if s >= _ANSWERED}


def _specific(shares: list[float], words: list[float], asks: Sequence[Ask], k: int,
              among: set[int] | None = None) -> float:
    """How well a unit answers ask ``k`` (its ``shares``) and nothing else: less half the words
    of the other asks it carries (its ``words``) as far as it does not answer them. "The Board
    authorized a program to repurchase up to $10.0 billion" names the stock bought back, and the
    authorization (a word of "how much authorization is left"): it answers "how much stock did
    they buy back" less well than "we repurchased 28 million shares for $4.0 billion".
    ``among``: the asks still unanswered; the words of one already answered mislead no longer
    ("As of June 30, 2023, $3.4 billion remain available for repurchases" once the shares
    repurchased are quoted)."""
    return shares[k] - 0.5 * sum(w * (1.0 - shares[j]) for j, w in enumerate(words)
                                 if j != k and not asks[j].roots <= asks[k].roots and (among is None or j in among))


def ask_bonus(asks: Sequence[Ask], weight: float = 0.6) -> Callable[[str], float] | None:
    """A score bonus for a unit that answers an ask (``best_units``' ``bonus``): ``weight``
    times its best match, so a sentence with the asked words and a figure of the asked kind
    outranks one with the words only. None without asks."""
    if not asks:
        return None

    def bonus(text: str) -> float:
        return weight * max(_shares(text, asks)[0])

    return bonus


_SCALE_OR_LINK = re.compile(r"(?:million|billion|thousand|and|or|to|[\d,.$%]+),?", re.I)
_PHRASE_END = re.compile(r"(?:is|are|was|were|be|been|has|have|had|which|who|that)[,.;:]?", re.I)
# a count of the whole, not of a place or a group: "approximately 79,100 employees worldwide"
_WHOLE_COUNT = re.compile(r"\b(?:worldwide|globally|in\s+total|a\s+total\s+of|company-wide|across\s+the\s+company)\b", re.I)


# the subject of a count: capitalised words, then the verb ("FedEx Express employed approximately")
_COUNT_SUBJECT = re.compile(r"(?P<name>[A-Z][\w&.\u2019'-]*(?:\s+[A-Z][\w&.\u2019'-]*)*)\s+(?:employed|employs|had|has|have)"
                            r"\s+(?:(?:approximately|about|around|over|nearly|roughly|some|more\s+than)\s+)?$")
_LEGAL_FORMS = frozenset({"inc", "incorporated", "corporation", "corp", "company", "co", "ltd", "plc", "llc", "n.v",
                          "group", "holdings"})


def counts_a_part(text: str, ask: Ask) -> bool:
    """``text`` counts what ``ask`` counts only for a part of the company the question does not
    name ("FedEx Ground employed approximately 56,000 ..." for how many people FedEx employs),
    or only a kind of it ("155 franchised stores" for how many stores)."""
    counts = [(a, b) for a, b, kind in figure_spans(text) if kind == "count"]
    counted = [(_detail(text, ask, a, b, "count"), b) for a, b in counts]
    counted = [(d, b) for d, b in counted if d > 0]
    if not counted:
        return False
    # (its later figures follow the same subject); or each a kind of the noun asked ("155
    # franchised stores" for how many stores)
    return min(d for d, _ in counted) < 1.0 or all(_qualified_count(text, b, ask) for _, b in counted)


def _detail(text: str, ask: Ask, a: int, b: int, kind: str) -> float:
    """What the figure text[a:b] of ``kind`` adds to a unit answering ``ask``: 1 when of the
    asked kind; for a count, only when an asked word follows it within its noun phrase (eight
    words, to a verb: "40 buildings" is no detail of how many employees; "19 million and 28
    million shares" counts shares), a little more for a count of the whole, less for a part's ("FedEx Express
    employed ...")."""
    if kind not in _ANSWERS.get(ask.kind, _ANSWERS["figure"]):
        return 0.0
    if ask.kind != "count" or not ask.roots:
        return 1.0
    words = text[b:b + 100].split()[:8]
    # a count's noun phrase ends at a verb: "40 buildings and is occupied by 11,200 employees"
    # counts buildings; "328,000 permanent full-time and approximately 201,000 part-time
    # employees" counts employees
    cut = next((i for i, w in enumerate(words) if _PHRASE_END.fullmatch(w)), len(words))
    after = " ".join(w for w in words[:cut] if not _SCALE_OR_LINK.fullmatch(w))
    counted = ask.roots | _roots(counted_noun(ask.words))  # "how many shares did it buy back": shares
    if not any(_same(r, x) for r in _roots(after) for x in counted):
        return 0.0
    part = _COUNT_SUBJECT.search(text[max(0, a - 120):a])
    if part:
        # "FedEx Express employed 188,000 ...": the company's name and more words before the
        # verb name a part of it (a subsidiary, a segment); "FedEx employed 328,000 ..." and
        # "eBay Inc. had ..." the whole. A part the question names is asked.
        extra = [w for w in part.group("name").split()[1:] if w.lower().rstrip(".,") not in _LEGAL_FORMS]
        if extra and not any(_same(r, x) for r in _roots(" ".join(extra)) for x in ask.roots):
            return 0.5
    return 1.5 if _WHOLE_COUNT.search(text) else 1.0


def cover(asks: Sequence[Ask], ranked: Sequence[str], chosen: Sequence[int], cap: int,
          given: Sequence[str] = ()) -> list[int]:
    """Indexes of ``ranked`` (unit texts, best first) to add to ``chosen`` so that the quotes
    together answer every ask they can: greedy, each time the unit that answers the asks still
    unanswered best (the sum of ``_specific`` over those it answers; the better ranked of
    equals), until ``cap`` quotes or no unit answers another ask. A sentence giving all three
    amounts asked is one quote, not three. ``given``: texts already quoted (their asks are
    answered; they count in no cap)."""
    if not asks:
        return []
    picked = list(chosen)
    table = [_shares(text, asks) for text in ranked]
    # of equal answers, the one giving more figures of the kinds asked ("The DIP Credit Agreement
    # provides for $5.5 billion in the form of $3.5 billion ..., $1.5 billion ... and $500 million")
    detail = [0.02 * min(5, sum(_detail(text, a, x, y, k) for a in asks for x, y, k in figure_spans(text)))
              for text in ranked]
    # of equal answers, the one printing the date the question names ("At October 29, 2022, we
    # operated 2,794 stores" before "last year we operated 161 stores as compared with 11")
    dates = find_periods(" ".join(a.words for a in asks)).dates
    if dates:
        detail = [d + (_ON_THE_DATE if find_periods(text).dates & dates else 0.0) for d, text in zip(detail, ranked, strict=True)]
    open_ = set(range(len(asks)))
    for text in [ranked[i] for i in picked] + list(given):
        open_ -= set(_credited(text, asks, open_))
    added: list[int] = []
    while open_ and len(picked) < cap:
        best, gain = -1, 0.0
        for i, (shares, words) in enumerate(table):
            if i in picked or any(restates(ranked[i], t) for t in [*(ranked[j] for j in picked), *given]):
                continue  # the same sentence printed again on another page
            credited = _credited(ranked[i], asks, open_, shares)
            g = sum(_specific(shares, words, asks, k, open_) for k in credited)
            # a unit whose figures several open asks compete for is the less sure answer of each:
            # the one answering only its own ask goes first ("we repurchased ... $1.7 billion"
            # before "authorized ... to repurchase up to $10.0 billion")
            contested = len([k for k in open_ if shares[k] >= _ANSWERED]) - len(credited)
            g += (detail[i] - _CONTESTED * contested) if g else 0.0
            if g > gain + 1e-9:
                best, gain = i, g
        if best < 0:
            break
        picked.append(best)
        added.append(best)
        open_ -= set(_credited(ranked[best], asks, open_, table[best][0]))
    return added


# a comparison with an earlier period of the company's own figure ("how many stores ..., and how
# did that compare with a year earlier?"): its sentences give both ("2,794 stores as compared with 2,956")
_OVER_TIME = re.compile(r"\b(?:a\s+year\s+(?:earlier|ago|before)|prior[-\s]year|previous\s+year|last\s+year|year[-\s]ago|"
                        r"year[-\s]over[-\s]year|yoy|(?:the\s+)?(?:prior|previous|preceding)\s+(?:year|quarter|period))\b",
                        re.I)
# a clause asking only what is left of the question's topic, or how it moved ("and how much
# remains?", "and YoY growth?")
_OF_THE_TOPIC = frozenset({"remain", "left", "availabl", "outstand", "unused", "unus",
                           "yoy", "qoq", "growth", "grow", "grew", "chang", "increas", "declin", "decreas"})
_CONTESTED = 0.05  # what a unit's gain loses per open ask it answers but has no figure left for
_ON_THE_DATE = 0.05  # what printing the asked date adds to a unit's gain


def _credited(text: str, asks: Sequence[Ask], open_: set[int], shares: list[float] | None = None) -> list[int]:
    """The open asks ``text`` answers, no more of one kind than it prints figures of that kind:
    one amount answers one amount asked ("authorized a program to repurchase up to $10.0
    billion" is the authorization, not also the stock bought in the quarter). Of asks competing
    for its figures, those whose own words stand nearest a figure of their kind are credited."""
    shares = _shares(text, asks)[0] if shares is None else shares
    answering = [k for k in open_ if shares[k] >= _ANSWERED]
    if len(answering) <= 1:
        return answering  # an ask answered holds a figure of its kind (``ask_match``): nothing competes
    spans = figure_spans(text)
    out = [k for k in answering if asks[k].kind == "claim"]  # a claim holds no figure others compete for
    answering = [k for k in answering if asks[k].kind != "claim"]
    for kinds in {_ANSWERS.get(asks[k].kind, _ANSWERS["figure"]) for k in answering}:
        group = [k for k in answering if _ANSWERS.get(asks[k].kind, _ANSWERS["figure"]) == kinds]
        figures = [(a, b) for a, b, kind in spans if kind in kinds]
        if len(group) > len(figures):
            group.sort(key=lambda k: (_distance(text, asks[k], figures), k))
            group = group[:len(figures)]
        out += group
    return sorted(out)


def _distance(text: str, ask: Ask, figures: list[tuple[int, int]]) -> int:
    """How far the nearest of the ask's own words stands from a figure (characters)."""
    near = len(text)
    for m in re.finditer(r"[A-Za-z][\w'-]*", text):
        if any(_same(word_root(t), r) for t in tokenize(m.group(0)) for r in ask.roots):
            for a, b in figures:
                near = min(near, abs(m.start() - b) if m.start() >= b else abs(a - m.end()))
    return near


def answering_units(asks: Sequence[Ask], pools: Sequence[Sequence[Passage]], terms: set[str],
                    idf: dict[str, float] | None, cap: int, given: Sequence[str] = (),
                    keep: Callable[[str], bool] | None = None, want_numbers: bool = False,
                    asked_years: set[int] | None = None, siblings: bool = False,
                    ) -> list[tuple[float, Passage, int, int]]:
    """The units (score, whole page, start, end) that together answer the facts asked
    (``cover``), ``given`` quotes aside: from the first pool's pages (the passages read), then,
    for the facts still unanswered, from the next (further pages retrieved of the same
    filings). ``keep``: which units may be quoted (a forecast for an outlook). ``siblings``:
    each pick comes with the units beside it that answer the same facts as well, within
    ``cap`` ("we closed the Just Spices Acquisition for $243 million. ... we closed the Hemmer
    Acquisition for $279 million": the items of a list asked). In the order the facts were asked."""
    out: list[tuple[float, Passage, int, int]] = []
    quoted = list(given)
    seen: set[tuple[str, int]] = set()
    said: set[frozenset[str]] = set()  # a sentence printed again on another page ("$3.2 billion remained") is quoted once
    for passages in pools:
        pages = [p for p in whole_pages(list(passages)) if (p.hit.chunk.doc_id, p.hit.chunk.page) not in seen]
        seen |= {(p.hit.chunk.doc_id, p.hit.chunk.page) for p in pages}
        if len(out) >= cap or not pages:
            continue
        pool = [u for u in best_units(pages, terms, [], 400, want_numbers, idf=idf, asked_years=asked_years,
                                      bonus=ask_bonus(asks))
                if (keep is None or keep(u[1].text[u[2]:u[3]])) and statement_key(u[1].text[u[2]:u[3]]) not in said]
        if asked_years:
            # ``cover`` weighs what a unit answers, not its rank: "cash outflows from $2.1 billion
            # to repurchase common stock, $850 million ..." of 2015 gives more figures than "During
            # 2017, we repurchased approximately $2.7 billion" for a 2017 question; a sentence about
            # another year is quoted only when no unit of the asked years is left
            of_years = [u for u in pool if not about_other_years(u[1].text[u[2]:u[3]], asked_years)]
            pool = of_years or pool
        texts = [unit_context(p.text, a, b) for _, p, a, b in pool]
        picks = cover(asks, texts, [], cap - len(out), given=quoted)
        if siblings:
            picks += _siblings(asks, pool, texts, picks, cap - len(out))
        out += [pool[i] for i in picks]
        quoted += [texts[i] for i in picks]
        said |= {statement_key(pool[i][1].text[pool[i][2]:pool[i][3]]) for i in picks}
    contexts = [unit_context(p.text, a, b) for _, p, a, b in out]
    order = sorted(range(len(out)), key=lambda i: (min(answered(contexts[i], asks), default=len(asks)), i))
    return [out[i] for i in order]


def _siblings(asks: Sequence[Ask], pool: list[tuple[float, Passage, int, int]], texts: list[str],
              picks: list[int], cap: int) -> list[int]:
    """The units of ``pool`` beside each pick (same page, within ``_BESIDE`` characters) that
    answer its facts as well, in reading order, while ``picks`` and they stay within ``cap``."""
    out: list[int] = []
    for i in picks:
        got = answered(texts[i], asks)
        _, p, a, b = pool[i]
        beside = sorted((pool[j][2], j) for j, (_, q, c, d) in enumerate(pool)
                        if j not in picks and j not in out and q is p and (0 <= c - b <= _BESIDE or 0 <= a - d <= _BESIDE)
                        and all(answered(texts[j], asks).get(k, 0.0) >= s - 1e-9 for k, s in got.items()))
        for _, j in beside:
            if len(picks) + len(out) >= cap:
                return out
            out.append(j)
    return out


_BESIDE = 400  # characters between two units of one paragraph, at most
