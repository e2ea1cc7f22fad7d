"""Per message: answer from the conversation (what was already said and cited), retrieve
from the filings, or both (compare an answer already given with a new one)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from desktop_rag.core.conversation.styles import is_style_only, only_layout_words, style_request
from desktop_rag.core.domain.companies import names_in
from desktop_rag.core.domain.measures import PEOPLE_WORDS, measure_phrase
from desktop_rag.core.domain.periods import find_periods, is_period_word, period_run, relative_period
from desktop_rag.core.domain.terms import content_terms, tokenize

CONVERSATION = "conversation"
RETRIEVE = "retrieve"
BOTH = "both"

RECALL_RE = re.compile(
    # "what did you cite for the apple number": the sources of an answer given are the thread's
    r"\b(?:what\s+did\s+(?:you|u)\s+(?:say|tell\s+me|find|answer|cite|quote|source|base\s+(?:that|it|this))|"
    r"(?:what|which)\s+(?:sources?|pages?|filings?|documents?|quotes?)\s+did\s+(?:you|u)\s+(?:cite|use|quote|rely\s+on)|"
    r"(?:you|u)\s+(?:said|mentioned|told\s+me|found)|"
    # "what was the first figure you gave?", "the number you quoted for Q2"
    r"(?:figures?|numbers?|amounts?|answers?|values?)\s+(?:that\s+)?(?:you|u)(?:'ve|\s+have)?\s+"
    r"(?:gave|given|give|quoted|provided|cited|showed|shown|shared|listed|came\s+up\s+with)|"
    r"(?:earlier|before|previously)\s+(?:you|u)\b|remind\s+me|recap|repeat\s+(?:that|the\s+(?:last\s+)?answer|your\s+answer)|"
    r"what\s+(?:you(?:'ve|\s+have)?|we(?:'ve|\s+have)?)\s+(?:said|told\s+me|found|established|learned|covered)|"
    r"(?:summari[sz]e|sum\s+up|go\s+over)\s+(?:our|the|this)\s+(?:conversation|discussion|thread|chat|answers|findings)|"
    r"summari[sz]e\s+(?:everything|all\s+(?:of\s+)?(?:this|that|the\s+above)|the\s+above)|"
    r"what\s+(?:have\s+we|do\s+we\s+know)|"
    # "which docs did the KHC figures come from?", "where did those numbers come from", "file
    # names only": the sources of answers given (not "where did the growth come from")
    r"(?:which|what)\s+(?:docs?|documents?|files?|filings?|sources?|pages?|reports?)\s+(?:did|do|does)\s+"
    r"(?:[\w&.'/-]+\s+){0,8}?(?:come|came)\s+from|"
    r"where\s+(?:did|do|does)\s+(?:the\s+|those\s+|these\s+|your\s+)?(?:[\w&.'/-]+\s+){0,4}?"
    r"(?:figures?|numbers?|quotes?|citations?)\s+(?:come|came)\s+from|file\s+names?\s+only|"
    # "so far" as what the thread found, not a year to date ("fiscal '24 so far")
    r"(?<!fiscal\s)(?<!year\s)(?<!ytd\s)(?<!\d\s)(?<!')(?<!\d)so\s+far(?!\s+(?:this|in|of)\b))\b", re.I)
SUMMARY_RE = re.compile(r"\b(?:summari[sz]e|summary|sum\s+up|recap|so\s+far|what\s+have\s+we|what\s+do\s+we\s+know)\b", re.I)
COMPARE_RE = re.compile(
    r"\b(?:compare|comparison|versus|vs\.?|(?:difference|change|gap|growth|spread)(?:\s+rate)?\s+between|"
    # "how much did that change from the prior quarter end": an answer given beside another period
    r"(?:that|it|this)\s+(?:change|changed|move|moved|grow|grew|rise|rose|fall|fell|drop|dropped)\s+(?:from|since)|"
    r"which\s+(?:one\s+|of\s+(?:them|these|those|the\s+two)\s+)?"
    r"(?:was|is|were|had)\s+(?:the\s+)?(?:higher|larger|bigger|lower|smaller|greater|more|less|"
    r"highest|largest|biggest|lowest|smallest|greatest|most|least)|"
    r"(?:higher|larger|bigger|lower|smaller)\s+than|side[-\s]+by[-\s]+side|next\s+to\s+each\s+other|"
    r"stacks?\s+up|stacked\s+up|measures?\s+up|"
    # "how'd that trend over the 3 filings": an answer given beside the periods around it
    r"how\s*(?:'d|did|has|have|does|do)?\s+(?:that|it|this|those|these)\s+trend(?:ed|ing)?|trend(?:ed|ing)?\s+over|"
    # "line that up against Microsoft", "set it against Q2"
    r"(?:line|lined|lining|set|put)\s+(?:that|it|this|those|these|them)\s+(?:up\s+)?(?:against|next\s+to|beside|alongside))\b",
    re.I)
# "Which company had the larger figure?", "Which product did better?", "Who paid more?": a
# comparison of answers already given when nothing but generic words is left beside it
# ("Which segment had the highest revenue?" asks the filings something new)
WHICH_RE = re.compile(
    r"\b(?:which|who)(?:'s|’s)?\s+(?:[\w&'-]+\s+){0,8}?(?:the\s+)?(?:higher|larger|bigger|lower|smaller|greater|more|less|"
    r"highest|largest|biggest|lowest|smallest|greatest|most|least|better|worse|best|worst|faster|slower|"
    # "who's heavier", "who outspent whom"
    r"heavier|lighter|cheaper|costlier|richer|leaner|stronger|weaker|ahead|behind|"
    r"out(?:spent|spends?|spending|grew|grows|growing|sold|sells|earned|earns|performed|performs|paced))\b", re.I)
# "no new numbers", "no re-pull", "using only what you've already told me", "from what you
# already have": the analyst says the answer comes from the thread, not from the filings
_FROM_THREAD_ONLY = re.compile(
    r"\b(?:(?:no|without(?:\s+any)?)\s+(?:new|more|fresh|extra|additional|other)\s+(?:numbers?|figures?|data|"
    r"searche?s?|retrievals?|pulls?|look-?ups?)|"
    r"(?:no|without)\s+(?:a\s+)?re-?(?:pull(?:ing)?|search(?:ing)?|run(?:ning)?|quer(?:y|ying)|retrieval|look-?up)s?|"
    r"(?:don'?t|do\s+not|no\s+need\s+to)\s+(?:re-?pull|re-?search|search\s+again|"
    r"(?:pull|look)\s+(?:(?:it|them|anything)\s+)?(?:up\s+)?again)|"
    r"(?:(?:using|use|with|from|based\s+on)\s+(?:only\s+)?|(?:only|just)\s+(?:from\s+)?)"
    r"(?:what|the\s+(?:numbers?|figures?|answers?|data))\s+(?:you|u|we)(?:'ve|\s+have)?\s+(?:already\s+)?"
    r"(?:told\s+me|said|gave(?:\s+me)?|given(?:\s+me)?|have|got|found|pulled|shown|shared|provided))(?![\w-])", re.I)
# a question of its own ("In bullet points, what were the main risks it mentioned?", "Total
# revenue this quarter? answer in one line")
_ASKS = re.compile(r"\b(?:what|which|who|whom|why|how|when|where)\b|\?", re.I)
# "can you pull Meta's figure so I can line it up against this", "… for comparison": the
# analyst compares it; the message asks the filings for the figure alone
_OWN_COMPARISON = re.compile(r"\bso\s+(?:that\s+)?(?:i|we)\s+can\s+(?:\w+\s+){0,2}$|\bfor\s+$", re.I)
_GENERIC = {"company", "companies", "product", "products", "one", "ones", "figure", "figures", "number", "numbers",
            "amount", "amounts", "result", "results", "answer", "answers", "period", "periods", "year", "years",
            "quarter", "quarters", "value", "values"}
# "Sum it up", "summarise that in 3 bullets", "wrap it up": a summary of the thread when the
# message names nothing else (no company, period or measure of its own)
_SUMMARY_VERB = re.compile(r"\b(?:summari[sz]e|summary|sum\s+(?:\w+\s+){0,2}?up|wrap\s+(?:\w+\s+)?up|recap|tl;?dr)\b", re.I)
# what a summary is of, beside its verb: "sum up the trend in two lines", "summarise the key takeaways"
_SUMMARY_OF = re.compile(r"\b(?:the\s+)?(?:key\s+|main\s+)?(?:trends?|picture|story|takeaways?|findings|gist|highlights|"
                         r"points|bits|parts|pieces)\b", re.I)
# a count of the lines a layout has ("in two lines", "in 3 sentences")
_LINES = re.compile(r"\b(?:in|as|into)\s+(?:one|two|three|four|five|\d)\s+(?:short\s+)?(?:lines?|sentences?|bullets?|points?)\b",
                    re.I)
# the parts of a filing a summary may ask for, which the filings hold ("the risk factors", "the MD&A")
_FILING_PART = re.compile(r"\b(?:risks?|factors|proceedings|litigation|lawsuits?|md&a|controls?|properties|strategy|"
                          r"competition|outlook|guidance|footnotes?|10-?[KQ]|8-?K|filings?)(?![\w-])", re.I)
_POINTS_BACK = re.compile(r"\b(?:that|it|this)\b", re.I)
# ("the three quarters": the answers counted)
_THOSE = re.compile(r"\b(?:those|these|them|the\s+(?:two|three|four|five|six)|both|the\s+(?:two\s+)?(?:answers|figures|"
                    r"numbers))\b", re.I)


@dataclass
class Route:
    kind: str  # conversation | retrieve | both
    reason: str
    task: str = ""  # for conversation: restyle | recall | summary | compare

    def note(self) -> str:
        return f"route: {self.kind}" + (f" ({self.task})" if self.task else "") + f" — {self.reason}"


_ROUTE_NOTE = re.compile(r"^route: (\w+)(?: \((\w+)\))? — (.*)$")


def route_in(notes: Iterable[str]) -> Route | None:
    """The router's decision as an answer's notes record it (``Route.note``), the latest one:
    a stored message keeps its notes, not its ``Turn``."""
    found = None
    for n in notes:
        m = _ROUTE_NOTE.match(n)
        if m:
            found = Route(m.group(1), m.group(3), m.group(2) or "")
    return found


def is_route_note(note: str) -> bool:
    return bool(_ROUTE_NOTE.match(note))


def _compares_answers(q: str, previous: Sequence[str] = ()) -> bool:
    """"Which one was higher?", "which year had more paid members, and by how much": a
    comparison of answers already given, when beside the comparing words there is nothing
    but generic words and words the thread's questions already asked (a word may be written
    shorter than asked: "members" of "memberships")."""
    m = WHICH_RE.search(q)
    if not m:
        return False
    # (the words between "which" and the comparison name what is ranked: "which non-core item
    # added back the most" ranks items the thread never asked about)
    inner = m.group(0).split(None, 1)[1] if len(m.group(0).split()) > 1 else ""
    inner = re.sub(r"\S+$", " ", inner)
    rest = q[:m.start()] + " " + inner + " " + q[m.end():]
    if _THOSE.search(q) or re.search(r"\b[A-Za-z][\w&.'-]*\s+or\s+[A-Za-z]", rest):
        return True  # "them", "the two", "North America or International"
    asked = {t for p in previous for t in content_terms(p)}

    def new(terms: Iterable[str]) -> list[str]:
        return [t for t in terms if t not in _GENERIC and t not in asked
                and not any(len(t) >= 5 and a.startswith(t) for a in asked)]

    # "Which segment's margin improved the most?" after segment revenues: the measure it ranks,
    # written inside the comparing words, was never asked (the filings hold it)
    if new(content_terms(measure_phrase(q))):
        return False
    return not new(content_terms(_BY_HOW_MUCH.sub(" ", rest)))


# "midpoint of that range?", "the sum of those", "growth rate between the two", "so total cash
# returned?": arithmetic on answers given (an elliptical "so total ..." concludes from them)
_OPERATION = (r"(?:mid-?point|middle|average|mean|sum|total|difference|gap|spread|ratio|cagr|"
              r"growth(?:\s+rate)?|(?:percent(?:age)?\s+|%\s*)?change)")
_ARITHMETIC_ON_ANSWERS = re.compile(
    rf"\b{_OPERATION}\s+(?:of|between|across|for|in|from)\s+(?:(?:that|those|these|them|both|the\s+two)(?:\s+(?:range|"
    r"figures?|numbers?|amounts?|values?|answers?|two|three))?|the\s+(?:two\s+|three\s+)?(?:figures?|numbers?|amounts?|"
    r"values?|answers?|range))"
    # the answers themselves, not "growth in that quarter" (a period of the thread's)
    r"(?=\s*(?:$|[?.!,;:]|and\b|as\b|in\s+(?:\$|dollars|percent|%)))"
    r"|^\W*so\W+(?:(?:the|what'?s\s+the|what\s+is\s+the)\s+)?(?:total|combined|sum|all[-\s]in|in\s+total|altogether)\b",
    re.I)
# Operations whose operands are answers given, named by pointing at them or by the measures the
# thread asked: "by what percentage did it fall?", "roughly how many times bigger is Oracle's
# workforce?", "the midpoint of the total charge range", and a figure divided by an answered
# one ("revenue per employee", "what share of the half is that")
_BETWEEN_ANSWERS = re.compile(
    r"\bhow\s+many\s+times\b|\btimes\s+(?:as\s+)?(?:big|large|much|many|high|bigger|larger|higher|greater|more|"
    r"the\s+size)\b|\bby\s+(?:what|how\s+(?:much|many))\s+(?:percent(?:age)?(?:\s+points?)?|%|pct)(?![\w-])|"
    r"\bwhat\s+(?:percent(?:age)?|%)\s+(?:change|increase|decrease|decline|drop|rise|fall|move)\b|"
    r"\bmid-?point\s+of\s+(?:the|that|this|those)\s+(?:[\w&'’-]+\s+){0,3}?range\b", re.I)
# (what the figure is divided by: "per employee", not "per share", which filings print as a measure,
# nor "per that 10-Q", "per the filing": according to it)
_DIVIDED_BY = re.compile(r"\bper\s+(?!(?:diluted\s+|basic\s+|common\s+)?shares?\b|unit\b|(?:the|that|this|its|their|"
                         r"our|my|a|an|each|every|management|filings?|reports?|10-?[KQ])\b)(?P<of>[A-Za-z][\w-]*)|"
                         r"\b(?:share|portion|proportion|fraction|percent(?:age)?|%)\s+of\s+(?P<whole>(?:the|that|this|"
                         r"those|these|it|them)\b(?:\s+[A-Za-z][\w-]*)?|[A-Za-z][\w-]*)", re.I)
# the words of such an operation, and of its precision, which name no figure
_OPERATION_WORDS = {"percentage", "percent", "pct", "point", "points", "times", "time", "bigger", "larger", "higher",
                    "greater", "more", "smaller", "lower", "less", "big", "large", "fall", "fell", "drop", "dropped",
                    "rise", "rose", "grow", "grew", "decline", "declined", "increase", "increased", "decrease",
                    "decreased", "change", "changed", "move", "moved", "midpoint", "mid", "middle", "range", "share",
                    "portion", "proportion", "fraction", "ratio", "roughly", "approximately", "approx", "around",
                    "about", "alone", "per", "size", "billions", "billion", "millions", "million", "thousands", "bn",
                    "mn"}


def _operates_on_answers(q: str, previous: Sequence[str], names: Iterable[str], new_company: bool,
                         new_period: bool) -> str:
    """CONVERSATION when ``q`` asks an operation on answers given and names nothing the thread
    did not ask (computed from them); BOTH when a figure it divides by is answered but the
    other is new (a measure or period not asked yet); "" when it asks no such operation."""
    between = _BETWEEN_ANSWERS.search(q)
    divided = _DIVIDED_BY.search(q)
    if not (between or divided) or new_company:
        return ""
    asked = _Asked(previous)
    # the words describing the range an answer gave are no new figure ("the total charge range")
    text = q[:between.start()] + " " + q[between.end():] if between and "range" in between.group(0).lower() else q
    for n in sorted(names_in(text, names), key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?:'s|’s)?(?![A-Za-z0-9&])", " ", text, flags=re.I)
    for m in reversed(find_periods(text).mentions):
        text = text[:m.start] + " " + text[m.end:]
    new = [t for t in content_terms(text) if t not in _OPERATION_WORDS and t not in _GENERIC and not is_period_word(t)
           and t not in asked]
    if between:
        return CONVERSATION if not new and not new_period else ""
    assert divided is not None
    whole = (divided.group("of") or divided.group("whole") or "").lower()
    last = whole.split()[-1] if whole.split() else ""
    # the whole is an answer given: pointed at, a period the thread asked ("the half"), or a
    # figure it asked ("per employee")
    answered = bool(_POINTS_BACK.search(whole) or _THOSE.search(whole)
                    or (last and (is_period_word(last) or last in asked)))
    if not answered:
        return ""
    return BOTH if new or new_period else CONVERSATION


# "was that more than its operating cash flow?", "capex as % of revenue for each?": an answer
# given (or each of them) set against a figure of words the thread has not asked
_ANSWER_AS_SUBJECT = re.compile(
    r"\b(?:was|is|were|are)\s+(?:that|it|this|those|these|they)\s+(?:more|less|higher|lower|bigger|smaller|greater|"
    r"larger|above|below)\b|\b(?:did|does|do)\s+(?:that|it|this|those|these|they)\s+(?:exceed|beat|top|cover|surpass)\b",
    re.I)
_FOR_EACH = re.compile(r"\b(?:for|of|on|across)\s+(?:each|both|the\s+two|those|these|them)(?:\s+(?:of\s+them|"
                       r"companies|ones))?\s*[?.!]*\s*$", re.I)
# "why did it drop so much vs FY21?": what caused a change is the filings' to explain
_ASKS_CAUSE = re.compile(r"^\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?(?:why|how\s+come)\b|\bwhat\s+(?:drove|drives|caused|"
                         r"causes|explains)\b|\breasons?\s+(?:for|behind)\b", re.I)
# "the latter", "the former's": an answer given, pointed at
_LATTER = re.compile(r"\bthe\s+(?:latter|former)\b", re.I)
# "and by how much": the size of the difference, no new subject
_BY_HOW_MUCH = re.compile(r"\b(?:and\s+)?by\s+how\s+much\b", re.I)
# "restate the figures above as one formal sentence", "rephrase that": the answers given, re-laid
_RESTATE = re.compile(r"\b(?:restate|re-state|rephrase|reword|rewrite|recast|reformulate)\b", re.I)
# (what is restated, named by pointing at it: "both companies' figures", "each company's")
_RESTATE_WORDS = re.compile(r"\b(?:single|formal|full|plain|proper|complete|neat|clean|above|earlier|previous|"
                            r"so\s+far|given|both|each|all|the\s+two|compan(?:y|ies)(?:'s|'|’s|’)?)(?![\w'’])", re.I)

# "restate the second number", "which of the amazon figures above were losses?", "every nvda
# number in this chat", "rank those three", "lay the three we have out": the message points at
# answers already given (an ordinal figure, figures "above", "in this chat", a count of them)
_N = r"(?:two|three|four|five|six|seven|eight|[2-9])"
_FIGURE = r"(?:numbers?|figures?|amounts?|values?|answers?|results?|ones?)"
_POINTS_AT_ANSWERS = re.compile(
    rf"\b(?:first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+{_FIGURE}(?![\w'])|"
    # "above" closing a clause or before its verb, not "above $1 billion" or "above the prior year"
    r"\babove(?=\s*(?:$|[,.;:?!)]|(?:was|were|is|are|had|has|did|do|does)\b))|"
    r"\b(?:in|from|of)\s+(?:this|the|our)\s+(?:chat|conversation|thread|discussion)\b|"
    rf"\b(?:the\s+)?(?:{_N}|{_FIGURE})\s+(?:we|you|u)(?:'ve|\s+have|\s+got|'ve\s+got)(?![\w'])|"
    # "those three", "these two numbers", not "those three months"
    rf"\b(?:those|these)\s+{_N}(?=\s*(?:$|[,.;:?!)]|{_FIGURE}\b|(?:highest|lowest|largest|smallest|biggest|"
    r"from|by|in\s+order)\b))", re.I)
# "rank those three, highest first", "which ... was biggest": an order or a pick among them
_RANKS = re.compile(r"\b(?:rank|ranked|ranking|order|sort|sorted|highest|lowest|largest|smallest|biggest|"
                    r"greatest|healthier|better|worse|best|worst|which)\b", re.I)


def _nothing_new(q: str, previous: Sequence[str], names: Iterable[str], known_c: set[str], known_p: set[str],
                 company_of: Mapping[str, str] | None, absent: Iterable[str], periods: Iterable[str],
                 measures: bool = True) -> bool:
    """The message names no company, period or measure the thread's questions did not: a
    year alone counts as asked when a period of that year was ("'21 -> '22" after the year
    ends of 2021 and 2022); a period relative to the thread's ("the year before") is new.
    ``measures``: whether a measure counts (not in a summary, which groups answers under words
    of its own: "the capital return and one-offs")."""
    comp, per = _entities(q, names, company_of)
    if comp - known_c or {a.lower() for a in absent if a} - known_c or relative_period(q):
        return False
    for named in periods:
        per |= _period_keys(named)
    known_years = {k[:4] for k in known_p} | {y for k in known_p for y in re.findall(r"(?:19|20)\d\d", k)}
    if any(not (k in known_p or (re.fullmatch(r"(?:FY)?(?:19|20)\d\d", k) and k[-4:] in known_years))
           for k in per - known_p):
        return False
    asked = _Asked(previous)
    return not measures or all(t in asked for t in content_terms(measure_phrase(q)))


def _new_words(text: str, previous: Sequence[str], names: Iterable[str]) -> list[str]:
    """The content words of ``text`` the thread's questions never used (a word may be written
    shorter than asked), leaving out company names, period words and generic words."""
    for n in sorted(names_in(text, names), key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?:'s|’s)?(?![A-Za-z0-9&])", " ", text, flags=re.I)
    for m in reversed(find_periods(text).mentions):
        text = text[:m.start] + " " + text[m.end:]
    asked = {t for p in previous for t in content_terms(p)}
    return [t for t in content_terms(text) if t not in _GENERIC and t not in asked and not is_period_word(t)
            and not any(len(t) >= 5 and a.startswith(t) for a in asked)]


def _entities(text: str, names: Iterable[str], company_of: Mapping[str, str] | None = None) -> tuple[set[str], set[str]]:
    """The companies (one key per company however spelled: "wmt", "walmart") and periods a text names."""
    comp = {(company_of or {}).get(n.lower(), n.lower()) for n in names_in(text, names)}
    return comp, _period_keys(text)


def _period_keys(text: str) -> set[str]:
    """One key per period a text names, a half-year apart from its last quarter ("1H23" is not
    "2Q23", though a search filters both to the Q2 report)."""
    return {(m.date.isoformat() if m.date else f"Q{m.quarter} {'FY' if m.fiscal else ''}{m.year}" if m.quarter else
             f"{'FY' if m.fiscal else ''}{m.year}") + (f" {m.span}" if m.span else "")
            for m in find_periods(text).mentions}


def _without_known(text: str, names: Iterable[str], known: set[str], company_of: Mapping[str, str] | None) -> str:
    """``text`` without the names of companies the thread already asked about ("put the MSFT
    numbers in a table" is a layout request when MSFT's numbers were answered)."""
    for n in sorted(names_in(text, names), key=len, reverse=True):
        if (company_of or {}).get(n.lower(), n.lower()) in known:
            text = re.sub(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?:'s|’s)?(?![A-Za-z0-9&])", " ", text, flags=re.I)
    return text


class _Asked:
    """What the thread's questions asked, however a message writes it again: the words typed
    ("margin" of "operating margin", which the index folds into one token), their tokens
    ("FCF" of "free cash flow"), a word written shorter ("members" of "memberships"), and one
    count of people however named ("workforce" after "how many employees")."""

    def __init__(self, previous: Iterable[str]) -> None:
        texts = list(previous)
        self.words = {w.lower() for p in texts for w in re.findall(r"[A-Za-z][\w&'-]+", p)}
        self.terms = {t for p in texts for t in content_terms(p)}
        self.people = bool(self.words & PEOPLE_WORDS)

    def __contains__(self, word: object) -> bool:
        w = str(word).lower()
        if w in self.words or w in self.terms or (self.people and w in PEOPLE_WORDS):
            return True
        if len(w) >= 5 and any(a.startswith(w) for a in self.terms | self.words):
            return True
        tokens = tokenize(w)
        return bool(tokens) and all(t in self.terms for t in tokens)


def _without_asked_words(text: str, previous: list[str]) -> str:
    """``text`` without the words the thread's questions already used ("table the revenue
    figures pls" after questions about revenue is a layout of what was answered; "restate
    Oracle's FCF" after its free cash flow)."""
    asked = _Asked(previous)
    return re.sub(r"[A-Za-z][\w&'-]+", lambda m: " " if m.group(0) in asked else m.group(0), text)


def route(question: str, previous_standalone: list[str], answered: int, names: Iterable[str],
          absent_companies: Iterable[str] = (), company_of: Mapping[str, str] | None = None,
          periods: Iterable[str] = ()) -> Route:
    """Where the answer to ``question`` comes from.

    ``previous_standalone``: the thread's earlier standalone questions; ``answered``: how
    many of them have a verified, cited answer stored (what the conversation can quote);
    ``absent_companies``: companies the message names that the library holds no filing of
    (read by the rewrite: "how does that stack up vs adidas" compares with something the
    conversation never answered, so the filings are searched too); ``company_of``: each
    library name (lower case) -> its company, so that "wmt" and "walmart" are one company;
    ``periods``: the periods the rewrite read the message as naming ("the first half" ->
    "the first half of 2023"), which may be new to the thread."""
    names = set(names)
    q = question.strip()
    if not previous_standalone or answered == 0:
        return Route(RETRIEVE, "nothing answered yet in this conversation")
    known_c: set[str] = set()
    known_p: set[str] = set()
    for s in previous_standalone:
        c, p = _entities(s, names, company_of)
        known_c |= c | {a.lower() for a in absent_companies if a and a.lower() in s.lower()}
        known_p |= p
    # "summarise the walmart bits": a summary of what was said about a company already asked about
    if _SUMMARY_VERB.search(q) and is_style_only(_SUMMARY_OF.sub(" ", _SUMMARY_VERB.sub(
            " as a list ", _without_known(q, names, known_c, company_of)))):
        return Route(CONVERSATION, "asks for a summary of what was said, naming nothing new", "summary")
    filing_part = _FILING_PART.search(_without_asked_words(q, previous_standalone))
    if (_SUMMARY_VERB.search(q) and (style_request(q) not in (None, "detailed") or _LINES.search(q)) and not filing_part
            and _nothing_new(q, previous_standalone, names, known_c, known_p, company_of, absent_companies, periods,
                             measures=False)):
        # "Summarize the capital return and one-offs in three bullets": a summary laid out in
        # bullets or lines, naming no company or period the thread did not ask, is of what was
        # said, whatever words it groups the answers under ("condense the risk factors into two
        # bullets" asks a part of a filing the thread never read)
        return Route(CONVERSATION, "asks for a summary of what was said, laid out, naming nothing new", "summary")
    if is_style_only(q) and style_request(q) == "detailed":
        # a longer answer needs the passages again, beside the one given
        return Route(BOTH, "asks for a more detailed answer: the filings are read again", "restyle")
    if is_style_only(q) or is_style_only(_without_known(q, names, known_c, company_of)) or (
            style_request(q) and is_style_only(_without_asked_words(q, previous_standalone))):
        return Route(CONVERSATION, "asks only for another layout of what was answered", "restyle")
    if _FROM_THREAD_ONLY.search(q):
        compares = bool(COMPARE_RE.search(q) or WHICH_RE.search(q))
        return Route(CONVERSATION, "says to use only what was already answered",
                     "compare" if compares else "summary")
    laid_out = style_request(q)
    if laid_out and laid_out != "detailed" and not _ASKS.search(q) and not filing_part and _nothing_new(q, previous_standalone, names, known_c, known_p,
                                                              company_of, absent_companies, periods):
        # "grid the amzn/intc/msft capex numbers", "bullet the three Nike GM moves, oldest year
        # first": a layout of figures the thread answered, naming no company, period or measure
        # it did not ask (every answer is laid out, not only the last)
        return Route(CONVERSATION, "asks for a layout of what was answered, naming nothing new", "summary")
    if _RESTATE.search(q) and not _POINTS_AT_ANSWERS.search(q) and only_layout_words(_RESTATE_WORDS.sub(" ", _RESTATE.sub(" ", _without_asked_words(
            _without_known(q, names, known_c, company_of), previous_standalone)))):
        # "restate Oracle's FCF in billions": the answer of the measure it names, not the last one
        return Route(CONVERSATION, "asks to restate what was answered, naming nothing new",
                     "recall" if measure_phrase(q) else "restyle")
    if RECALL_RE.search(q):
        task = "summary" if SUMMARY_RE.search(q) else "recall"
        return Route(CONVERSATION, "asks about what was already said", task)
    if _POINTS_AT_ANSWERS.search(q):
        comp, per = _entities(q, names, company_of)
        for named in periods:
            per |= _period_keys(named)
        if not (comp - known_c or per - known_p or {a.lower() for a in absent_companies if a} - known_c
                or relative_period(q)):
            # the answers given are the subject; only a company or period the thread never
            # asked would need the filings (words about them, "losses", "reserve release", may be new)
            return Route(CONVERSATION, "works on the answers already given, naming nothing new",
                         "compare" if _RANKS.search(q) or COMPARE_RE.search(q) else "summary")
    if _ARITHMETIC_ON_ANSWERS.search(q):
        comp, per = _entities(q, names, company_of)
        for named in periods:
            per |= _period_keys(named)
        if not (comp - known_c or per - known_p or {a.lower() for a in absent_companies if a} - known_c
                or relative_period(q)):
            # "midpoint of that range?", "so total cash returned?": computed from the answers given
            return Route(CONVERSATION, "computes from the answers already given, naming nothing new", "compare")
    comp, per = _entities(q, names, company_of)
    for named in periods:
        per |= _period_keys(named)
    operated = _operates_on_answers(q, previous_standalone, names,
                                    bool(comp - known_c or {a.lower() for a in absent_companies if a} - known_c),
                                    bool(per - known_p or relative_period(q)))
    if operated == CONVERSATION:
        # "by what percentage did it fall?", "how many times bigger is Oracle's workforce?"
        return Route(CONVERSATION, "computes from the answers already given, naming nothing new", "compare")
    if operated == BOTH:
        # "what's Oracle's revenue per employee?" after its headcount: the answer, and the filings
        return Route(BOTH, "divides a figure not answered yet by an answer given")
    if (_ANSWER_AS_SUBJECT.search(q) or (_FOR_EACH.search(q) and not WHICH_RE.search(q))) \
            and _new_words(q, previous_standalone, names):
        # "was that more than its operating cash flow?": the answer given, and a figure the filings hold
        return Route(BOTH, "sets an answer given against a figure not answered yet")
    pointed = _LATTER.search(q)
    own = own_measure = measure_phrase(q)
    if pointed and own and not any(set(content_terms(own)) <= set(content_terms(s)) for s in previous_standalone):
        # "the latter as a % of revenue": an answer given, set against a figure not asked yet
        return Route(BOTH, f"uses an answer given with a figure not answered yet ({own})")
    compared = COMPARE_RE.search(q)
    own_comparison = compared and _OWN_COMPARISON.search(q[:compared.start()]) and (
        not q[:compared.start()].rstrip().lower().endswith("for") or compared.group(0).lower() == "comparison")
    if compared and own_comparison and measure_phrase(q[:compared.start()]):
        # "can you pull Meta's operating loss so I can line it up against this": the analyst
        # sets it beside the answer; the filings are asked the figure alone
        return Route(RETRIEVE, "asks a figure for the analyst's own comparison")
    if compared and measure_phrase(q[:compared.start()]) and find_periods(q[:compared.start()]).mentions \
            and re.search(r"\b(?:what|how|which)\b", q[:compared.start()], re.I) \
            and relative_period(q[compared.start():]) and not names_in(q[compared.start():], names):
        # "for fiscal 2023, what were Nike's China revenues, how did that compare with the prior
        # year": the message asks its own figure first and compares it with another period of
        # its own; the filings answer both
        return Route(RETRIEVE, "asks a figure of its own and compares it")
    if compared and compared.group(0).lower().rstrip(".") in ("vs", "versus") and not style_request(q) and all(
            _new_words(side, previous_standalone, names) for side in (q[:compared.start()], q[compared.end():])):
        # "renewal rates at that date - US/Canada vs worldwide", "how many did they deliver vs what
        # was scheduled": both sides are things the thread never asked; the filings hold them
        return Route(RETRIEVE, "compares two things not asked yet, both from the filings")
    if (compared or _compares_answers(q, previous_standalone)) and _ASKS_CAUSE.search(q):
        # "why did it drop so much vs FY21?": the causes of a change are the filings' to explain
        return Route(RETRIEVE, "asks what caused a change: the filings explain it")
    if compared or _compares_answers(q, previous_standalone):
        comp, per = _entities(q, names, company_of)
        comp |= {c.lower() for c in absent_companies if c}
        for named in periods:
            per |= _period_keys(named)
        new_c, new_p = comp - known_c, per - known_p
        if period_run(q) and not per:
            # a trend over a run of periods the rewrite could not name: the filings hold them
            return Route(BOTH, "asks a trend over periods not all answered")
        if period_run(q) and not new_p:
            # "how'd that trend over the 3 filings": each period of the run for the thread's measure;
            # the ones whose figure of that measure was not answered come from the filings
            measure = own_measure or next((m for s in reversed(previous_standalone) if (m := measure_phrase(s))), "")
            terms = set(content_terms(measure))
            asked_p = {k for s in previous_standalone if terms and terms <= set(content_terms(s)) for k in _period_keys(s)}
            new_p = per - asked_p
        if per and not new_p and not period_run(q):
            # "how does that compare with what was actually spent in 2020?" after capex for 2021 and
            # net loss for 2020: a period is answered for the measure compared, not for any measure
            measure = own_measure or next((m for s in reversed(previous_standalone) if (m := measure_phrase(s))), "")
            terms = set(content_terms(measure))
            if terms:
                asked_p = {k for s in previous_standalone if terms <= set(content_terms(s)) for k in _period_keys(s)}
                new_p = per - asked_p
        if relative_period(q):
            new_p.add("shifted")
        # both sides named in the message ("1H23 vs 1H22", "capex Q3 vs Q2 2023"), none pointing
        # at an answer given ("compare that to 1H22")
        two_sides = (len(per) >= 2 or len(comp) >= 2) and not _THOSE.search(q) and not _POINTS_BACK.search(q)
        if two_sides and not (comp & known_c or per & known_p):
            # "1H23 vs 1H22" when neither was answered: both sides come from the filings
            return Route(RETRIEVE, "compares figures none of which was answered yet")
        own = measure_phrase(q)
        if two_sides and own and not any(set(content_terms(own)) <= set(content_terms(s)) for s in previous_standalone):
            # "capex 1H23 vs 1H22" after D&A: a measure not asked yet, on both sides
            return Route(RETRIEVE, f"compares a measure not answered yet ({own})")
        if new_c or new_p:
            what = ", ".join(sorted(new_c | new_p))
            return Route(BOTH, f"compares with something not answered yet ({what})")
        if answered >= 2 or _THOSE.search(q):
            return Route(CONVERSATION, "compares answers already given", "compare")
        return Route(BOTH, "compares with something not answered yet")
    return Route(RETRIEVE, "asks for something new from the filings")
