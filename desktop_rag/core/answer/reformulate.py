"""Reformulations of a question for a second look when the first answer failed
verification or the gate was borderline: the analyst's shorthand spelled out, a statement
hint, a synonym for the concept, another way to write the period, a wider document scope. Never another company: the
company words of the question are kept as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_rag.core.domain.periods import find_periods
from desktop_rag.core.domain.terms import SHORTHAND

MAX_RETRIES = 3

# Where a line item is printed: income-statement, balance-sheet and cash-flow vocabulary.
_STATEMENT_HINTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:capex|capital\s+expenditures?|purchases?\s+of\s+property|depreciation|dividends?\s+paid|"
                r"repurchases?|buybacks?|operating\s+activities|investing\s+activities|financing\s+activities|"
                r"free\s+cash\s+flow|cash\s+flows?)\b", re.I), "consolidated statements of cash flows"),
    (re.compile(r"\b(?:total\s+assets|assets|liabilities|inventor(?:y|ies)|receivables?|payables?|debt|"
                r"stockholders'?\s+equity|shareholders'?\s+equity|cash\s+and\s+(?:cash\s+)?equivalents|goodwill|"
                r"working\s+capital)\b", re.I), "consolidated balance sheets"),
    (re.compile(r"\b(?:revenues?|net\s+sales|sales|income|expenses?|r&d|research\s+and\s+development|margin|"
                r"eps|earnings|cost\s+of\s+(?:sales|revenue|goods)|sg&a|profit)\b", re.I),
     "consolidated statements of operations"),
]
# Common finance synonyms (either way round): words analysts and filings use for one line item.
_SYNONYMS: list[tuple[str, str]] = [
    (r"research\s+and\s+development", "R&D"),
    (r"r&d", "research and development"),
    (r"capex|capital\s+expenditures?", "purchases of property and equipment"),
    (r"operating\s+income", "income from operations"),
    (r"income\s+from\s+operations|operating\s+profit", "operating income"),
    (r"net\s+income", "net earnings"),
    (r"net\s+earnings|profit", "net income"),
    (r"(?:total\s+)?net\s+sales", "total revenue"),
    (r"(?:total\s+)?revenues?", "net sales"),
    (r"eps", "earnings per share"),
    (r"earnings\s+per\s+share", "EPS"),
    (r"sg&a", "selling, general and administrative expenses"),
    (r"selling,?\s+general\s+and\s+administrative", "SG&A"),
    (r"gross\s+margin", "gross profit"),
    (r"gross\s+profit", "gross margin"),
    (r"cost\s+of\s+(?:sales|revenues?)", "cost of goods sold"),
    (r"cash\s+and\s+equivalents", "cash and cash equivalents"),
]
_ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth"}
# Chat shorthand a filing never prints ("amzn aws rev 2Q23?", "op income", "abt"): the gate
# finds no passage with "rev" in it, so the first attempt fails whatever the filing says
_CHAT_WORDS: list[tuple[str, str]] = [
    (r"revs?", "revenue"), (r"op\.?(?=\s+(?:income|expenses?|margin|profit|loss))", "operating"),
    (r"qtrs?", "quarter"), (r"yrs?", "year"), (r"abt", "about"), (r"w/", "with"), (r"mgmt", "management"),
    (r"pls|plz", ""),
]
_FINANCE_SHORTHAND = re.compile(
    r"(?<![A-Za-z0-9&])(" + "|".join(re.escape(k) for k in sorted(SHORTHAND, key=len, reverse=True)) + r")(?![A-Za-z0-9&])",
    re.I)


@dataclass(frozen=True)
class Reformulation:
    query: str
    how: str  # shorthand spelled out | statement hint | synonym | period variant | wider scope
    widen_scope: bool = False


def statement_hint(question: str) -> str:
    for rx, hint in _STATEMENT_HINTS:
        if rx.search(question):
            return hint
    return ""


def synonym_variant(question: str) -> str:
    for pattern, replacement in _SYNONYMS:
        m = re.search(rf"(?<![A-Za-z&])(?:{pattern})(?![A-Za-z&])", question, re.I)
        if m:
            return question[:m.start()] + replacement + question[m.end():]
    return ""


def spelled_out(question: str) -> str:
    """The question with finance and chat shorthand written as filings print it
    ("gm" -> "gross margin", "rev" -> "revenue"); "" when it has none. The finance terms are
    ``lexical.SHORTHAND`` (what dense retrieval already spells out); the gate reads the words
    as typed, so a first attempt in shorthand can fail there."""
    text = question
    for pattern, replacement in _CHAT_WORDS:
        text = re.sub(rf"(?<![A-Za-z&/])(?:{pattern})(?![A-Za-z&])", replacement, text, flags=re.I)
    text = _FINANCE_SHORTHAND.sub(lambda m: SHORTHAND[m.group(1).lower()], text)
    text = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    return text if text != question else ""


def period_variant(question: str) -> str:
    """The first period written another way: "Q3 2023" -> "the third quarter of 2023",
    "fiscal 2022" -> "the fiscal year 2022", "2021" -> "fiscal year 2021"."""
    found = find_periods(question).mentions
    if not found:
        return ""
    m = found[0]
    if m.date is not None or m.year is None:
        return ""
    if m.quarter:
        text = f"the {_ORDINAL[m.quarter]} quarter of {'fiscal ' if m.fiscal else ''}{m.year}"
    else:
        text = f"fiscal year {m.year}"
    if text.lower() == m.text.lower():
        return ""
    return question[:m.start] + text + question[m.end:]


def reformulations(question: str, scoped: bool) -> list[Reformulation]:
    """Up to ``MAX_RETRIES`` other ways to ask ``question``, most specific first."""
    out: list[Reformulation] = []
    plain = spelled_out(question)
    if plain:
        # the analyst's shorthand as filings print it, before any other change (the others
        # change the question as typed: "sg&a" in a statement hint finds the row its shorthand labels)
        out.append(Reformulation(plain, "shorthand spelled out"))
    # the hint and the synonym read the question as typed, else as spelled out ("gm" has none)
    typed = question if statement_hint(question) else plain or question
    hint = statement_hint(typed)
    if hint:
        out.append(Reformulation(f"{typed.rstrip(' ?.')} in the {hint}?", "statement hint"))
    typed = question if synonym_variant(question) else plain or question
    syn = synonym_variant(typed)
    if syn and syn != typed:
        out.append(Reformulation(syn, "synonym"))
    per = period_variant(question)
    if per:
        out.append(Reformulation(per, "period variant"))
    if scoped:
        out.insert(min(len(out), 2), Reformulation(question, "wider scope (same company)", widen_scope=True))
    seen: set[str] = set()
    unique = []
    for r in out:
        key = r.query.lower() + str(r.widen_scope)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique[:MAX_RETRIES]
