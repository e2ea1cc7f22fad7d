"""Arithmetic on answers already given ("midpoint of that range?", "so total cash returned?",
"what's the growth rate between the two?", "which of those was bigger?"): computed by code from
the figures the earlier answers state, each operand shown with the question it answered, so the
analyst sees what was added, subtracted or divided. Nothing is computed when the operands are
not clear (no figure, figures of different kinds: a percentage and an amount)."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from desktop_rag.core.domain.measures import COUNT_WORDS, PEOPLE_WORDS
from desktop_rag.core.domain.numbers import SCALE_WORD_FACTORS
from desktop_rag.core.domain.periods import find_periods
from desktop_rag.core.domain.terms import content_terms

MIDPOINT = "midpoint"
SUM = "sum"
DIFFERENCE = "difference"
GROWTH = "growth"
RATIO = "ratio"
LARGER = "larger"
SMALLER = "smaller"

# what the message asks to compute (the first that matches)
_OPERATIONS: list[tuple[str, re.Pattern[str]]] = [
    (MIDPOINT, re.compile(r"\b(?:mid-?point|middle\s+of)\b", re.I)),
    # ("by what percentage did it fall?": the change in percent)
    (GROWTH, re.compile(r"\b(?:growth(?:\s+rate)?|cagr|(?:percent(?:age)?|%)\s*(?:change|increase|decrease|decline)|"
                        r"grew|how\s+fast|by\s+(?:what|how\s+much\s+of\s+a)\s+(?:percent(?:age)?|%))(?![\w-])", re.I)),
    # ("roughly how many times bigger is Oracle's workforce?": the one divided by the other)
    (RATIO, re.compile(r"\b(?:ratio|as\s+a\s+(?:share|percent(?:age)?|%)\s+of|how\s+many\s+times|"
                       r"times\s+(?:as\s+)?(?:big|large|much|bigger|larger|higher|greater|more))\b", re.I)),
    (SUM, re.compile(r"\b(?:total|sum|combined|altogether|all[-\s]in|add(?:ed)?\s+up|together)\b", re.I)),
    # "which is bigger and by how much?": the larger one, with the gap
    (LARGER, re.compile(r"\b(?:which|who)\b.*\b(?:bigger|biggest|larger|largest|higher|highest|greater|greatest|more)\b",
                        re.I)),
    (SMALLER, re.compile(r"\b(?:which|who)\b.*\b(?:smaller|smallest|lower|lowest|less|least)\b", re.I)),
    (DIFFERENCE, re.compile(r"\b(?:difference|differ|gap|spread|change|delta|by\s+how\s+much|how\s+much\s+(?:more|less|"
                            r"higher|lower|bigger|smaller))\b", re.I)),
]
# the words of asking and pointing, which name no measure ("which of those was bigger?")
_ASKING_WORDS = re.compile(
    r"\b(?:which|who|what|what's|whats|is|was|were|are|had|has|have|did|does|do|the|a|an|of|those|these|them|that|this|"
    r"it|two|both|one|ones|figure|figures|number|numbers|amount|amounts|answer|answers|and|by|how|much|so|in|its|their|"
    r"bigger|biggest|larger|largest|higher|highest|greater|greatest|more|smaller|smallest|lower|lowest|less|least|ratio|"
    r"latest|year|years|quarter|quarters|period|periods|company|companies|times|many|roughly|approximately|about|"
    r"around)\b", re.I)
# "in dollars and percent", "as a %": a difference asked in percent too
_PERCENT_TOO = re.compile(r"\b(?:percent(?:age)?|pct)\b|%", re.I)

# an amount as an answer states it: "$10,420 million", "$34.5 billion", "11.19%", "(1,234)"
_FIGURE = re.compile(
    r"(?<![\w.])(?P<cur0>\$)?\s?(?P<neg>-|\()?\s?(?P<cur>\$)?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d,]*\.\d)(?P<close>\))?"
    r"(?:\s?(?P<scale>trillion|billion|million|thousand|bn|mn|tn)\b|\s?(?P<pct>%|percent\b))?", re.I)
_SCALE_ALIASES = {"bn": "billion", "mn": "million", "tn": "trillion"}
# what a count counts, right after it ("137,000 full-time employees", "12,700 people")
_COUNTED = re.compile(r"\s+(?:[\w-]+\s+){0,2}?(?:" + "|".join(sorted(COUNT_WORDS)) + r")\b", re.I)
# two figures joined as a range: "$34.5 billion to $34.7 billion", "$34.5-$34.7 billion"
_RANGE_JOIN = re.compile(r"^\s*(?:to|-|–|—|and|through)\s*$", re.I)


@dataclass
class Figure:
    """One figure an answer states: its value in units, how it was printed, and its kind."""

    value: float
    text: str
    kind: str  # "$" (an amount of money), "%" (a percentage), "" (a count or plain number)
    scale: str  # "billion", "million", ... ("" for units)
    decimals: int
    start: int
    end: int


def operation(question: str) -> str:
    """The arithmetic a message asks of the answers given ("" when none)."""
    for name, rx in _OPERATIONS:
        if rx.search(question):
            return name
    return ""


def figures_in(text: str) -> list[Figure]:
    """The amounts, percentages and scaled counts a statement gives, in order; years, quarter
    numbers and bare small numbers are no figures."""
    out: list[Figure] = []
    for m in _FIGURE.finditer(text):
        raw = m.group("num")
        scale = _SCALE_ALIASES.get((m.group("scale") or "").lower(), (m.group("scale") or "").lower())
        pct = bool(m.group("pct"))
        cur = bool(m.group("cur") or m.group("cur0"))
        count = not (cur or scale or pct) and "," in raw and bool(_COUNTED.match(text, m.end()))
        if not (cur or scale or pct or count):
            continue  # "2021", "Q1", "3 bullets": no amount (a count of thousands of things is: "137,000 employees")
        value = float(raw.replace(",", "")) * SCALE_WORD_FACTORS.get(scale, 1.0)
        if m.group("neg") == "-" or (m.group("neg") == "(" and m.group("close")):
            value = -value
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        out.append(Figure(value, m.group(0).strip(" ("), "%" if pct else "$" if cur else "", scale, decimals,
                          m.start(), m.end()))
    # a range written with the scale once ("$34.5-$34.7 billion"): the first takes the second's scale
    for a, b in itertools.pairwise(out):
        if _RANGE_JOIN.match(text[a.end:b.start]) and not a.scale and b.scale and a.kind == b.kind:
            a.scale, a.value = b.scale, a.value * SCALE_WORD_FACTORS.get(b.scale, 1.0)
    return out


def principal(text: str) -> Figure | None:
    """The figure a statement answers with: its first amount of money, else its first figure."""
    found = figures_in(text)
    return next((f for f in found if f.kind == "$"), found[0] if found else None)


def dated_pair(text: str) -> list[tuple[str, Figure]]:
    """The first two figures of one kind a statement gives, each with the period written right
    after it ("$3,825 million in fiscal 2018, down from $9,335 million in fiscal 2017"): what a
    change in that one answer runs between; [] when they are not two of one kind, each dated
    (which one is the later is then not clear)."""
    found = figures_in(text)
    for a, b in itertools.pairwise(found):
        if a.kind != b.kind:
            continue
        dated = []
        for f, until in ((a, b.start), (b, len(text))):
            periods = find_periods(text[f.end:min(until, f.end + 40)]).mentions
            if not periods:
                return []
            dated.append((periods[0].text, f))
        return dated
    return []


def range_in(text: str) -> tuple[Figure, Figure] | None:
    """The first two figures of one kind written as a range ("$34.5 billion to $34.7 billion")."""
    found = figures_in(text)
    for a, b in itertools.pairwise(found):
        if a.kind == b.kind and _RANGE_JOIN.match(text[a.end:b.start]):
            return a, b
    return None


def _fmt(value: float, like: Figure, decimals: int | None = None) -> str:
    """``value`` (in units) written as ``like`` is: its currency sign, scale and precision."""
    factor = SCALE_WORD_FACTORS.get(like.scale, 1.0)
    d = like.decimals if decimals is None else decimals
    number = f"{abs(value) / factor:,.{d}f}"
    sign = "-" if value < 0 else ""
    if like.kind == "%":
        return f"{sign}{number}%"
    return f"{sign}{'$' if like.kind == '$' else ''}{number}{' ' + like.scale if like.scale else ''}"


def _finest(*operands: Figure) -> Figure:
    """The operand of the smallest scale, in which a result is written ("$6.5 billion" + "$467
    million" is "$6,967 million")."""
    return min(operands, key=lambda o: SCALE_WORD_FACTORS.get(o.scale, 1.0))


def _precision(value: float, like: Figure, *operands: Figure) -> int:
    """The operands' precision in ``like``'s scale, one more when the result needs it (a midpoint
    of 34.5 and 34.8)."""
    factor = SCALE_WORD_FACTORS.get(like.scale, 1.0)
    d = 0
    for o in operands:
        shift = round(math.log10(SCALE_WORD_FACTORS.get(o.scale, 1.0) / factor))
        d = max(d, o.decimals - shift)
    return d if abs(round(value / factor, d) - value / factor) < 1e-9 else d + 1


def _period_order(question: str) -> tuple[int, int, int] | None:
    found = find_periods(question).mentions
    if not found:
        return None
    m = found[0]
    if m.date is not None:
        return m.date.year, (m.date.month - 1) // 3 + 1, m.date.toordinal()
    return (m.year or 0, m.quarter or 4, 0) if m.year else None


@dataclass
class Operand:
    """A figure of an earlier answer, with the question it answered."""

    question: str
    figure: Figure


def compute(question: str, operands: list[Operand], statement_of_latest: str = "") -> str:
    """What ``question`` asks of ``operands`` (the principal figures of the answers chosen, in
    thread order), written with each operand; "" when it cannot be computed from them.
    ``statement_of_latest``: the latest answer's text, whose range a midpoint is of."""
    op = operation(question)
    if op in (LARGER, SMALLER, RATIO):
        # "which is more capital intensive?": a measure the answers' questions did not ask is not
        # what their figures are (a ranking of capex amounts is no ranking of capex intensity)
        asked = {t for o in operands for t in content_terms(o.question)}
        if asked & PEOPLE_WORDS:
            asked |= PEOPLE_WORDS  # "workforce", "headcount": the employees the answers counted
        if [t for t in content_terms(_ASKING_WORDS.sub(" ", question)) if t not in asked]:
            return ""
    if op == MIDPOINT:
        pair = range_in(statement_of_latest) if statement_of_latest else None
        if pair is None and len(operands) >= 2 and operands[-1].figure.kind == operands[-2].figure.kind:
            pair = (operands[-2].figure, operands[-1].figure)
        if pair is None:
            return ""
        a, b = pair
        mid = (a.value + b.value) / 2
        like = _finest(a, b)
        return f"Midpoint of {a.text} and {b.text}: {_fmt(mid, like, _precision(mid, like, a, b))} (computed from the " \
               "earlier answer)."
    if len(operands) < 2:
        return ""
    if len({o.figure.kind for o in operands}) != 1:
        return ""  # an amount and a percentage: no arithmetic between them
    shown = "; ".join(f"{o.figure.text} ({o.question.rstrip('?')})" for o in operands)
    if op == SUM:
        total = sum(o.figure.value for o in operands)
        like = _finest(*(o.figure for o in operands))
        return f"Total: {_fmt(total, like, _precision(total, like, *(o.figure for o in operands)))} = " \
               f"{' + '.join(o.figure.text for o in operands)} (computed from the earlier answers: {shown})."
    first, second = operands[-2], operands[-1]
    # the later period is the one that changed, the earlier its base (by the periods the questions name)
    ka, kb = _period_order(first.question), _period_order(second.question)
    old, new = (second, first) if ka is not None and kb is not None and ka > kb else (first, second)
    like = _finest(new.figure, old.figure)
    diff = new.figure.value - old.figure.value
    if op == DIFFERENCE and like.kind == "%":
        points = _fmt(diff, like, _precision(diff, like, old.figure, new.figure)).rstrip("%")
        return f"Difference: {points} percentage points ({new.figure.text} vs {old.figure.text}; computed from the " \
               f"earlier answers: {shown})."
    if op == GROWTH or (op == DIFFERENCE and _PERCENT_TOO.search(question)):
        if old.figure.value == 0 or (old.figure.value < 0) != (new.figure.value < 0):
            return ""  # a growth rate against zero or across a change of sign means nothing
        rate = diff / abs(old.figure.value) * 100
        change = _fmt(diff, like, _precision(diff, like, old.figure, new.figure))
        return f"Change: {'+' if diff >= 0 else ''}{change} ({'+' if rate >= 0 else ''}{rate:.1f}%), {new.figure.text} " \
               f"vs {old.figure.text} (computed from the earlier answers: {shown})."
    if op == DIFFERENCE:
        change = _fmt(diff, like, _precision(diff, like, old.figure, new.figure))
        return f"Difference: {'+' if diff >= 0 else ''}{change}, {new.figure.text} vs {old.figure.text} " \
               f"(computed from the earlier answers: {shown})."
    if op == RATIO:
        if second.figure.value == 0:
            return ""
        return f"Ratio: {first.figure.text} / {second.figure.text} = {first.figure.value / second.figure.value:.2f} " \
               f"(computed from the earlier answers: {shown})."
    if op in (LARGER, SMALLER):
        pick = max if op == LARGER else min
        chosen = pick(operands, key=lambda o: o.figure.value)
        gap = max(o.figure.value for o in operands) - min(o.figure.value for o in operands)
        like = _finest(*(o.figure for o in operands))
        return f"{'Larger' if op == LARGER else 'Smaller'}: {chosen.figure.text} ({chosen.question.rstrip('?')}), by " \
               f"{_fmt(gap, like, _precision(gap, like, *(o.figure for o in operands)))} (computed from the " \
               f"earlier answers: {shown})."
    return ""
