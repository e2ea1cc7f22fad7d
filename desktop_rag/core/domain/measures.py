"""The measure a question asks for ("segment operating income", "net sales", "R&D", "capex"),
as the question writes it.

Used by follow-ups: "how about North America?" or "and services?" name a new subject (a
segment, a product, a region) and keep the thread's measure, while "what about operating
income?" names a new measure. The vocabulary is the generic one of financial statements and
analysts' shorthand (no company's own line names): a phrase is a run of words ending in a
measure word, with the qualifiers that precede it and "of"/"for" complements ("cost of
sales", "provision for credit losses").
"""

from __future__ import annotations

import re
from functools import lru_cache

# Words that name what is measured (the head of a measure phrase).
MEASURE_WORDS = frozenset({
    "revenue", "revenues", "sales", "income", "loss", "losses", "earnings", "profit", "profits", "margin", "margins",
    "expense", "expenses", "expenditure", "expenditures", "cost", "costs", "capex", "opex", "cash", "flow", "flows",
    "assets", "asset", "liabilities", "liability", "debt", "borrowings", "equity", "dividend", "dividends", "eps",
    "ebitda", "ebit", "backlog", "arr", "bookings", "depreciation", "amortization", "amortisation", "provision",
    "provisions", "r&d", "sg&a", "inventory", "inventories", "receivable", "receivables", "payable", "payables",
    "buybacks", "repurchases", "tax", "taxes", "rate", "ratio", "goodwill", "deposits", "loans", "charges", "charge",
    "impairment", "impairments", "fees", "fee", "spending", "capital", "investments", "headcount", "employees",
    "obligations", "compensation", "payout", "yield", "shares", "outstanding",
    "liquidity", "working", "turnover", "development", "returns", "return", "roe", "roa", "roic", "fcf", "opinc", "gm",
    # analysts' ratio and line shorthands: "DSO?" asks a new measure, not the thread's again
    "dso", "dpo", "dio", "ccc", "sbc", "d&a", "rpo", "nii", "nim", "arpu", "aum", "cet1", "ocf", "cogs", "turns",
    "intensity",
})
# Words that qualify a measure before it ("free cash flow", "diluted EPS", "op income").
QUALIFIER_WORDS = frozenset({
    "net", "operating", "op", "gross", "total", "segment", "free", "diluted", "basic", "adjusted", "non-gaap", "gaap",
    "comprehensive", "effective", "interest", "capital", "credit", "membership", "research", "development", "and",
    "selling", "general", "administrative", "long-term", "short-term", "current", "deferred", "unearned", "cost",
    "per", "share", "stock", "stock-based", "share-based", "restructuring", "marketing", "technology", "content",
    "fulfillment", "income", "cash", "pre-tax", "pretax", "after-tax", "organic", "comparable", "same-store",
    "average", "annual", "annualized", "recurring", "remaining", "performance", "noninterest", "non-interest",
    "sales", "unallocated", "corporate",
})
# Analysts' abbreviations of measures and of the words around them, which no filer is named
# ("and nii?", "arpu?"): never read as the name of a company.
FINANCE_ABBREVIATIONS = frozenset({
    "nii", "nim", "arpu", "asp", "asps", "aum", "cet1", "tier1", "dtc", "fx", "ytd", "ltm", "ttm", "yoy", "qoq",
    "bps", "bp", "roe", "roa", "roic", "roi", "ebitda", "ebit", "capex", "opex", "cogs", "gm", "om", "fcf", "ocf",
    "nol", "ppe", "dso", "dpo", "dio", "ccc", "sbc", "rpo", "arr", "mrr", "kpi", "kpis", "guidance", "comps", "mix",
    "headcount", "backlog", "churn", "subs", "rev", "revs", "opinc", "gaap", "non-gaap", "adj", "eps", "pe",
})
# What a row counts rather than prices: a table row labelled with one of these is a number of
# things (288,000 employees), never dollars, whatever the rest of the page is in.
COUNT_WORDS = frozenset({
    "employees", "employee", "headcount", "associates", "people", "workforce", "shares", "share", "stores", "store",
    "warehouses", "restaurants", "locations", "branches", "clubs", "outlets", "sites", "facilities", "properties",
    "hotels", "rooms", "members", "memberships", "subscribers", "subscriptions", "customers", "accounts", "users",
    "households", "units", "vehicles", "deliveries", "aircraft", "countries", "patents", "holders", "days",
})
# The words for a company's people, which count one thing however a question names it ("how
# many employees", "its workforce", "headcount")
PEOPLE_WORDS = frozenset({"employees", "employee", "headcount", "workforce", "people", "staff", "associates",
                          "personnel", "workers"})
# ...unless the label prices them: "revenue per member", "average cost per store", "share price"
_PRICED = re.compile(r"\b(revenue|revenues|sales|income|cost|costs|expense|expenses|price|prices|value|amount|fees?|"
                     r"compensation|salar(?:y|ies)|wages?|dividends?|earnings|per|proceeds|capital|equity|premium)\b|\$",
                     re.I)


def is_count_label(label: str) -> bool:
    """A table row label naming a count of things ("Total employees", "Number of warehouses",
    "Paid memberships at end of period"), not an amount of money."""
    words = {_norm(w.group(0)) for w in _WORD.finditer(label)}
    counted = bool(words & COUNT_WORDS) or bool(re.search(r"\bnumber\s+of\b", label, re.I))
    return counted and not _PRICED.search(label)


_COMPLEMENT = frozenset({"of", "for", "on", "from", "to"})
_WORD = re.compile(r"[A-Za-z][A-Za-z&'-]*(?:\s*&\s*[A-Za-z]+)?")


def _norm(word: str) -> str:
    # "op income-wise": the measure is income
    return re.sub(r"\s+", "", word.lower()).removesuffix("'s").removesuffix("’s").removesuffix("-wise")


# analysts' idioms for a measure that no single measure word makes: revenue, net income
_IDIOM = re.compile(r"\b(?:top|bottom)[-\s]?line\b", re.I)


# measures asked by their verb: "how much stock did they buy back" asks the buybacks, "how much
# had it declared per share" the dividends
# (not a bank's "repurchase agreements", a borrowing)
_BY_VERB = re.compile(r"\b(?:buy(?:ing)?\s+back|bought\s+back|repurchas(?:e|ed|ing)(?!\s+(?:agreements?|obligations?|"
                      r"facilit))|declared?\s+(?:\w+\s+){0,2}?per\s+(?:common\s+)?share)\b", re.I)


def measure_phrase(text: str) -> str:
    """The first measure ``text`` names, as written ("segment operating income", "R&D",
    "provision for credit losses", "top line", "buy back"); "" when it names none."""
    found = _measure_words_phrase(text)
    for rx in (_IDIOM, _BY_VERB):
        other = rx.search(text)
        if other and (not found or text.find(found) > other.start()):
            found = other.group(0)
    return found


def _measure_words_phrase(text: str) -> str:
    words = list(_WORD.finditer(text))
    norms = [_norm(w.group(0)) for w in words]
    for i, n in enumerate(norms):
        if n not in MEASURE_WORDS:
            continue
        start = i
        while start > 0 and norms[start - 1] in QUALIFIER_WORDS and (
                norms[start - 1] != "and" or (start > 1 and norms[start - 2] in QUALIFIER_WORDS)):
            start -= 1
        end = i
        # following measure words and complements: "cash flow", "cost of sales", "provision for credit losses"
        j = i + 1
        while j < len(norms):
            if norms[j] in MEASURE_WORDS:
                end = j
                j += 1
            elif norms[j] in _COMPLEMENT | QUALIFIER_WORDS and j + 1 < len(norms) and any(
                    n2 in MEASURE_WORDS for n2 in norms[j + 1:j + 3]):
                j += 1
            else:
                break
        return text[words[start].start():words[end].end()]
    return ""


# measure words analysts type short, spelled out in a searched question ("cloud rev" -> "cloud
# revenue"): a filing prints the word in full, and so does the measure a follow-up carries
_SPELLED_OUT = {"rev": "revenue", "revs": "revenues"}
_SHORT_MEASURE = re.compile(r"(?<![\w&.'’-])(" + "|".join(_SPELLED_OUT) + r")(?![\w&'’-]|\.\w)", re.I)


def spell_out_measures(text: str) -> str:
    """``text`` with a measure word typed short written in full ("ok now msft cloud rev" -> "...
    cloud revenue")."""
    return _SHORT_MEASURE.sub(lambda m: _SPELLED_OUT[m.group(1).lower()], text)


def names_measure(text: str) -> bool:
    return bool(measure_phrase(text))


# qualifiers that leave a measure the same measure: "total net revenue" and "segment operating
# income" are the revenue and the operating income asked; "unearned revenue", "deferred
# revenue", "adjusted EBITDA", "organic sales" are other measures
_SAME_MEASURE = frozenset({"total", "net", "segment", "segments", "reportable", "consolidated", "operating", "and"})


def measure_modifiers(text: str, asked: set[str], question_terms: set[str]) -> set[str]:
    """The qualifiers ``text`` (a row label, the heading above it, a table's title) prints
    before the asked measure that the question does not use ("unearned" of "Unearned revenue
    by segment was as follows:" asked for revenue), when every mention of the measure in
    ``text`` carries one; empty when one mention is plain ("Revenue", "Total net revenue") or
    ``text`` names none of it. ``asked`` and ``question_terms`` are tokens (``lexical.tokenize``:
    "net sales" is "revenue")."""
    from desktop_rag.core.domain.terms import FINANCE_ALIASES, STOPWORDS, tokenize

    # another measure beside the asked one ("Segment revenue and operating income") is no qualifier of it
    measures = set(FINANCE_ALIASES) | set(tokenize(" ".join(MEASURE_WORDS)))
    found: set[str] = set()
    plain = False
    phrase = measure_phrase(text)
    rest = text
    while phrase:
        at = rest.find(phrase)
        for part in re.split(r"\s+and\s+|,\s*", phrase):
            terms = set(tokenize(part))
            if not terms & asked:
                continue
            extra = {t for t in terms - asked - question_terms - measures - _SAME_MEASURE - STOPWORDS if t.isalpha()}
            if extra:
                found |= extra
            else:
                plain = True
        rest = rest[at + len(phrase):] if at >= 0 else ""
        phrase = measure_phrase(rest)
    return set() if plain else found


# "How much did the segment sell in 2021?": the verb asks the segment's sales
_SALES_VERB = re.compile(r"\bhow\s+much\b[^?.]*?\b(?:sell|sold)\b", re.I)


def asks_sales_by_verb(question: str) -> bool:
    """The question asks an amount sold with the verb ("How much did X sell"), no measure word."""
    return bool(_SALES_VERB.search(question))


@lru_cache(maxsize=1)
def measure_terms() -> frozenset[str]:
    """The measures as the tokenizer reads them ("net sales" -> revenue, "operating income" ->
    opincome), with the measure words' own tokens."""
    from desktop_rag.core.domain.terms import tokenize

    return frozenset(tokenize(" ".join(MEASURE_WORDS))) | frozenset(
        ("revenue", "netincome", "opincome", "grossmargin", "opcashflow", "fcf", "capex", "cogs", "opex", "eps",
         "buyback", "sbc", "dna", "rnd", "sga", "etr"))


def asked_measures(question: str) -> set[str]:
    """The measures a question asks, as tokens: its measure words', and revenue for "how much
    did X sell"."""
    from desktop_rag.core.domain.terms import tokenize

    return (set(tokenize(question)) & measure_terms()) | ({"revenue"} if asks_sales_by_verb(question) else set())


# Measure tokens a filing may print under other words than the analyst's, or that qualify more
# than they name ("income" is "earnings", a "rate" is of anything): a text lacking them says
# nothing of whether it gives the measure
_LOOSE_MEASURES = frozenset({
    "rate", "ratio", "capital", "cash", "return", "returns", "outstanding", "working", "turnover", "yield", "payout",
    "intensity", "turn", "income", "profit", "earning", "cost", "expense", "charge", "spending", "compensation",
    "loss", "flow", "provision", "share", "margin", "development", "investment", "obligation", "tax", "taxe",
    "employee", "headcount", "grossmargin", "opincome", "netincome", "opcashflow", "fcf", "opex", "etr"})
# the words filings print one measure by ("total debt": "notes payable and other borrowings")
_MEASURE_KIN: dict[str, frozenset[str]] = {
    # ("segment sales": the tokenizer reads "net sales" as revenue, "sales" alone as sale)
    "sale": frozenset({"sale", "revenue"}),
    "revenue": frozenset({"revenue", "sale"}),
    "debt": frozenset({"debt", "borrowing", "note", "loan", "senior", "credit"}),
    "borrowing": frozenset({"debt", "borrowing", "note", "loan"}),
    "buyback": frozenset({"buyback", "repurchase", "repurchased", "treasury"}),
    "dividend": frozenset({"dividend", "distribution"}),
    "liability": frozenset({"liability", "obligation"}),
    "equity": frozenset({"equity", "stockholder", "shareholder", "shareowner", "deficit"}),
}


def names_asked_measure(text: str, asked: set[str]) -> bool | None:
    """Does ``text`` name one of the ``asked`` measures (tokens, ``asked_measures``) by a word
    filings print it by? None when every asked measure is one the text may give under other
    words (``_LOOSE_MEASURES``): no verdict."""
    from desktop_rag.core.domain.terms import tokenize

    strict = asked - _LOOSE_MEASURES
    if not strict:
        return None
    words = set(tokenize(text))
    return any(words & _MEASURE_KIN.get(m, frozenset({m})) for m in strict)


# The lines a derived measure moves through, as tokens: a filing explains the movement of these
# where the analyst asks about the derived one ("Provision for income taxes decreased ...
# primarily due to" for a fall of the effective tax rate; the tax charge for a net loss beside
# an operating profit). Accounting identities, the same for every filer: a rate of tax is the
# provision over pre-tax income, an operating margin moves with operating costs, a gross margin
# with the cost of sales, net income with everything below operating income.
_BELOW_OPERATING = frozenset({"tax", "taxe", "provision", "etr", "opincome", "charge", "impairment", "expense", "income"})
_MOVES_THROUGH: dict[str, frozenset[str]] = {
    "etr": frozenset({"tax", "taxe", "provision"}),
    "opincome": frozenset({"opex", "cost", "cog", "expense", "grossmargin", "charge"}),
    "grossmargin": frozenset({"cog", "cost"}),
    "netincome": _BELOW_OPERATING,
    "loss": _BELOW_OPERATING,
    "earning": _BELOW_OPERATING,
    "eps": _BELOW_OPERATING,
}


def moves_through(asked: set[str]) -> set[str]:
    """The measures (tokens) whose movement a filing gives as the movement of the ``asked``
    ones (tokens, ``asked_measures``), not those asked themselves."""
    return set().union(*(_MOVES_THROUGH.get(a, frozenset()) for a in asked)) - asked
