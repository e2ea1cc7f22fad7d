"""Follow-ups made to stand alone: the company, period, form and concept a thread is about
carry into a question that leaves them out.

Deterministic on purpose (the floor; a 270M model rewriting questions would invent
entities). Periods are read, shifted and written by ``domain.periods``; company names are
matched by ``domain.companies.names_in`` against the names the library knows.

Three shapes of follow-up:
- a *swap*: nothing asked but a new company or period ("Same for AMD", "And in 2021?",
  "And the quarter before?") -> the previous standalone question with that part replaced;
- a *new concept* in a bare phrase ("What about operating income?", "And its capex?") ->
  "What was <concept> for <company> in <period>?";
- a full question lacking company or period -> the question with "(company, period)".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from desktop_rag.core.domain.companies import (
    core_name,
    is_question_word,
    lower_case_head,
    lower_case_name,
    lower_case_owner,
    named_company_at_start,
    names_in,
    near_spelling,
    proper_names,
    segment_owners,
    subject_names,
    typed_library_names,
)
from desktop_rag.core.domain.company_terms import companies_named_by_terms, short_name
from desktop_rag.core.domain.measures import (
    COUNT_WORDS,
    FINANCE_ABBREVIATIONS,
    MEASURE_WORDS,
    measure_phrase,
    spell_out_measures,
)
from desktop_rag.core.domain.periods import (
    ANY_DATE_RE,
    DATE_RE,
    FiscalCalendar,
    PeriodMention,
    PeriodShift,
    find_periods,
    fiscal_label_for,
    full_year,
    in_quarter,
    is_period_word,
    latest_period,
    latest_period_of,
    mention_text,
    month_quarter,
    month_quarter_period,
    month_year_alone,
    month_year_end,
    month_year_period,
    months_to_month,
    names_month,
    names_year_end,
    period_run,
    periods_ending,
    quarter_without_year,
    relative_period,
    relative_span,
    relative_span_of,
    run_text,
    shift_mention,
    shifted_named_period,
    year_ago_before,
    year_to_date,
    year_to_date_of,
)
from desktop_rag.core.domain.terms import content_terms

# Words that mark a message as continuing the thread.
FOLLOWUP_RE = re.compile(
    r"^(?:and|what about|how about|and what about|and how about|same for|same thing for|the same for|also|"
    r"same question for|now do|do the same for|"
    r"now|ok(?:ay)?|then|compared? (?:that|it|this)|why|how come)\b"
    r"|\b(?:it|its|they|their|them|that|those|this|these|the same)\b",
    re.I,
)
# A leading follow-up phrase, stripped to find what is left of the question.
_LEAD_RE = re.compile(
    r"^\s*(?:(?:and|also|now|ok(?:ay)?|fine|then|so|well|right|alright|all\s+right|back\s+to)[\s,.]+)*(?:(?:what about|how about|same (?:thing |question )?for|the same for|"
    # (whole words: "domestic streaming" is no "do", "forex" no "for")
    r"(?:now\s+)?do the same for|repeat (?:that|it|this) for|(?:now\s+)?do|and for|for)(?![A-Za-z]))?\s*",
    re.I,
)
_COMPARE_RE = re.compile(
    r"\b(?:how\s+(?:does|do|did)\s+(?:that|it|this|these|those)\s+(?:compare|stack\s+up)\s+(?:to|with|w/|against|vs\.?)|"
    r"compared?\s+(?:that|it|this|these|those)?\s*(?:to|with|w/)|versus|vs\.?|"
    # "now line that up against ...", "put it next to ..."
    r"(?:line|set|put)\s+(?:that|it|this|those|these|them)\s+(?:up\s+)?(?:against|next\s+to|beside|alongside|with))\s*",
    re.I)
# nouns an analyst refers back to the thread's company with ("the chipmaker's Q2", "the firm")
_REFERRING_NOUNS = {"company", "company's", "firm", "firm's", "chipmaker", "chipmaker's", "retailer", "retailer's",
                    "lender", "lender's", "manufacturer", "manufacturer's", "automaker", "automaker's", "carmaker",
                    "carmaker's", "issuer", "issuer's", "registrant", "registrant's", "filer", "filer's"}
_FILLER = {"the", "same", "for", "in", "of", "at", "and", "what", "about", "how", "then", "period", "please",
           "also", "now", "it", "its", "that", "this", "those", "them", "they", "their", "one", "ok", "okay",
           "so", "quarter", "year", "fiscal", "before", "earlier", "prior", "previous", "preceding", "ago",
           "after", "later", "following", "next", "subsequent", "a", "two", "three", "four", "last",
           # "at the end of fiscal 2018", "as of": words around a period, not a concept
           "as", "back", "end", "ending", "ended", "beginning", "start", "close", "months", "six", "nine", "twelve",
           # casual words around a follow-up ("ok back to msft, what about ...", "pls")
           "to", "pls", "plz", "thanks", "thx", "well", "right", "alright", "fine", "go", "let's", "lets", "qtr",
           # chat shorthand of the same words ("the yr before", "same qtrs", "w/")
           "yr", "yrs", "qtrs", "w",
           # "intl instead", "and gaming, for H1 FY24 instead?": a swap said as one, no concept
           "instead", "rather",
           # "its peer Intel", "a competitor, AMD": who the company is to the thread's, no concept
           "peer", "peers", "competitor", "competitors", "rival", "rivals",
           # "the chipmaker's Q2", "the company's": the thread's company described, no name of its own
           *_REFERRING_NOUNS}
# words naming a change of a measure ("growth", "the change"), which asks no measure of its own
_CHANGE_NOUNS = {"growth", "change", "changes", "increase", "decrease", "decline", "rise", "drop", "fall", "delta",
                 "trend", "trends", "move", "swing", "variance"}
_CHANGE_WORDS = _CHANGE_NOUNS | {"grow", "grew", "grown", "changed", "trended", "moved", "develop", "developed", "evolve",
                                 "evolved", "increased", "decreased", "declined", "rose", "dropped", "fell"}
# the words of asking how a change went ("how'd that trend", "did it grow")
_ASKING = {"how", "how'd", "how's", "hows", "did", "does", "do", "has", "have", "was", "were", "is", "are", "what",
           "what's", "whats"}
# "BJ's Wholesale same metric?", "AMD, same figure": the thread's question about another subject
_SAME_THING = re.compile(r"\b(?:the\s+)?same\s+(?:metric|measure|figure|number|ratio|thing|question|calc(?:ulation)?)s?\b",
                         re.I)
# "its peer Alphabet", "competitor northrop": the name after the word is a company's
_PEER_NAME = re.compile(r"\b(?:peers?|competitors?|rivals?)\s*,?\s+(?:(?:like|such\s+as|including|e\.?g\.?,?)\s+)?(?P<name>\$?[A-Za-z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*)")
# "$AMD": a trading symbol written the way investors write one
# a heading of capitals before a colon ("KO 2017:", "PEP:"): the symbol the message is about
_SYMBOL_LEAD = re.compile(r"^\s*\$?(?P<name>[A-Z]{2,5})(?:\s+(?:FY\s?)?'?\d{2,4})?\s*:(?!\d)")
_CASHTAG = re.compile(r"(?<![\w$])\$(?P<name>[A-Za-z]{1,5})\b")
# words that follow "peers" in a sentence without naming one ("peers like AMD", "peers such as")
_NOT_NAMES = {"like", "such", "including", "include", "includes", "e.g", "eg", "or", "with", "do", "did", "does", "have",
              "has", "are", "were", "is", "was", "on", "by", "over", "vs", "versus", "than", "group", "set", "average",
              "median", "compare", "compared"}
# the words between two periods compared ("1H23 vs 1H22", "FY21 and FY20")
_JOINER = re.compile(r"(?:\s*(?:,|vs\.?|versus|and|or|to|against|compared\s+(?:to|with))\s*)+(?:the\s+)?", re.I)
_MONEY_UNITS = {"mm", "mn", "bn", "bil", "mil", "usd", "k", "m", "b", "tn"}
# "target corp", "acme inc": a name with a legal form typed short (written as filings print it)
_LEGAL_SHORT = re.compile(r"\b(?P<name>(?:[A-Z][\w&'-]*\s+)?[A-Za-z][\w&'-]*)\s+(?P<form>(?i:corp))\b\.?")
# a name with its legal form as filings print it ("Target Corporation"), read in a short message
_LEGAL_NAME = re.compile(r"\b(?P<name>(?:[A-Z][\w&'-]*\s+)?[A-Z][\w&'-]*\s+Corporation)\b")
# Qualitative topics of a filing: a follow-up naming one asks something new, it is no subject
# (segment, product, region) of the thread's measure ("what about risk factors?")
_TOPIC_WORDS = {"risk", "risks", "factors", "litigation", "legal", "proceedings", "lawsuit", "lawsuits", "strategy",
                "competition", "competitors", "customers", "suppliers", "management", "auditor", "regulation",
                "regulatory", "outlook", "guidance", "why", "drove", "drivers", "driver", "reason", "reasons",
                "explain", "describe", "policy", "policies", "segments", "products", "business", "acquisition",
                "acquisitions", "mean", "means", "definition", "say", "said", "says", "discuss", "comment", "mention",
                "numbers", "figures", "sum", "summary", "summarize", "summarise", "recap", "growth", "grow", "grew",
                # what a company expects or guides is its outlook, a topic of its own
                "guide", "guides", "guided", "guiding", "expect", "expects", "expected", "expecting", "forecast",
                "forecasts", "forecasting", "anticipate", "anticipates", "project", "projects", "projecting"}
# "Same for X", "same question for X", "now do X": the same question about another subject
_SWAP_LEAD = re.compile(r"^\s*(?:(?:and|also|now|ok(?:ay)?|then|so)[\s,]+)*(?:(?:the\s+)?same\s+(?:thing\s+|question\s+)?for|"
                        r"(?:now\s+)?do(?:\s+the\s+same\s+for)?|repeat\s+(?:that|it|this)\s+for)\b", re.I)
# "the same quarter in 2022": the thread's quarter in the year named
_SAME_QUARTER_OF = re.compile(r"\b(?:the\s+)?same\s+(?:fiscal\s+)?quarter\s+(?:in|of|for)\s+(?:fiscal\s+)?(?:year\s+)?"
                              # "the same quarter in '22": a short year too
                              r"(?:(?P<year>(?:19|20)\d\d)|['’](?P<short>\d\d))\b", re.I)
_FORM_RE = re.compile(r"\b10-?[KQ]\b|\b8-?K\b", re.I)
_THAT_PERIOD = re.compile(r"\s*\b(?:(?:for|in|during|over|at|as\s+of)\s+(?:that|the\s+same|this)|that|the\s+same)\s+"
                          r"(?:quarter|qtr|year|yr|period|date|day|point|stretch)\b",
                          re.I)
# a question about the previous answer ("what drove that", "why did it grow?"): it carries no
# measure of its own, so the thread's measure is the one of the question before it
_REFERS_BACK = re.compile(r"\b(?:that|it|this|those|these)\b", re.I)
# "how much did it add", "how much did that help", "how much of the 9M figure was Services": a
# part or the size of a change of the thread's measure
_HOW_MUCH_CHANGE = re.compile(
    r"\bhow\s+much\s+(?:did|does|do|has|have|will|would|could)\s+(?:it|that|this|they|those|these)\s+"
    r"(?:add|contribute|increase|decrease|reduce|raise|lower|cut|grow|rise|fall|drop|decline|change|move|swing|"
    r"help|hurt|boost|lift|weigh|shift)\b"
    r"|\bhow\s+much\s+of\s+(?:it|that|this|the\s+(?:[\w-]+\s+){0,2}?(?:figure|number|total|amount|jump|increase|"
    r"drop|change|gap|growth|decline|rise))\b", re.I)
# a question about a change the thread found ("what drove the gap?", "why did it grow?", "big
# jump. how much of it was ..."): it is about the thread's measure, in the later of the two
# periods compared (the filing that explains the change)
_ABOUT_CHANGE = re.compile(
    r"\b(?:drove|drive[sn]?|driving|drivers?|caused?|causes|behind|explains?|blamed?|reasons?\s+for)\b.*?"
    r"\b(?:change|gap|drop|increase|decrease|decline|rise|jump|fall|growth|swing|difference|that|it|this)\b"
    r"|\bwhy\s+(?:did|was|were|is|has|had)\s+(?:it|that|this)\b|\bhow\s+come\b"
    r"|\bhow\s+much\s+of\s+(?:it|that|this|the\s+(?:jump|increase|drop|change|gap|difference|growth|decline|rise))\b",
    re.I)
# "in the quarter", "this qtr": the quarter the thread is about
_THE_QUARTER = re.compile(r"\b(?:the|this|that)\s+(?:quarter|qtr)\b(?!\s+(?:before|after|earlier|later|prior|ago|ended))",
                          re.I)
# "when did they come out of Chapter 11?": a question asking the date of an event
_ASKS_WHEN = re.compile(r"^\W*(?:(?:and|so|ok(?:ay)?|also)\W+)?when\b", re.I)
# "vs FY21", "compared with 2021": the period named after it is the base of a comparison
_COMPARISON_BASE = re.compile(r"\b(?:vs\.?|versus|compared\s+(?:to|with)|relative\s+to|than)(?=\s+\S)", re.I)
# "which service offering grew fastest?", "what region declined the most": subjects ranked by
# how a figure changed, with no measure of its own: the thread's measure is the one that changed
_RANKED_CHANGE = re.compile(
    r"\b(?:which|what)\b(?:\s+[\w&'’-]+){0,4}?\s+(?:grew|rose|fell|declined|increased|decreased|improved|expanded|"
    r"shrank|dropped|gained|grow|rise|fall|decline|increase|decrease|improve|expand|shrink|drop|gain)\s+(?:the\s+)?"
    r"(?:fastest|slowest|most|least|faster|slower|more|less)\b", re.I)
# "how much did that change from the prior quarter end?": a change since another period, which
# is set against the thread's
_CHANGE_FROM = re.compile(r"\b(?:change[ds]?|moved?|grow|grew|grown|rise|rose|risen|fall|fell|fallen|drop(?:ped)?|"
                          r"increase[ds]?|decrease[ds]?|decline[ds]?|up|down)\s+(?:from|since)\b", re.I)
# "those nine months", "these quarters": a period named only by pointing back at it
_THOSE_PERIOD = re.compile(r"\b(?:those|these)\s+(?:\w+\s+)?(?:months|quarters?|qtrs?|years?|yrs?|periods?)\b", re.I)
# "(Apple, Q3 2023)": what a follow-up's standalone question carried from the thread
_CARRIED_TAIL = re.compile(r"\s*\([^()]*\)\s*\??\s*$")
# a question that may span several companies: no thread company is added to it
_CROSS_COMPANY = re.compile(r"\b(?:compan(?:y|ies)|firms?|filers?|issuers?|peers?|competitors?|rivals?|industry|"
                            r"sector|each|every|both)\b", re.I)
# a message that reads as a question or an instruction of its own past its first words ("for
# fiscal 2023, what were ...", "now line that up against ..."): what the thread carries is added
# to it, it is not poured into "What was <phrase>?"
_ASKS_WITHIN = re.compile(r"(?:^|[,;:?!]\s*|\s[-–—]+\s*|\band\s+)(?:what|how|which|who|when|where|why|did|does|do|can|could)\b"
                          r"|^[a-z]+\s+(?:that|it|this|those|these|them)\s+(?:up|out|against|next|side|into|with|vs)\b", re.I)
_WH_START = re.compile(r"^(?:what|how|which|who|when|where|why|is|are|was|were|did|does|do|can|could|should|"
                       r"list|show|give|describe|explain|summari[sz]e|compare|tell|calculate|compute)\b", re.I)


@dataclass
class ThreadFacts:
    """What a thread is about so far, as its questions wrote it."""

    company: str = ""  # as written ("Apple", "NVIDIA")
    period: PeriodMention | None = None
    period_text: str = ""  # as written ("Q3 2023", "fiscal 2024")
    form: str = ""  # "10-K", "10-Q"
    question: str = ""  # the latest standalone question that asks a figure, or the latest one
    # the company was named by a message answered from the conversation after the latest
    # searched question ("back to intel, what did u say 1Q was"): the thread is about it again
    refocused: bool = False
    # the first period the thread named is a calendar one ("q1 2023", not "Q1 FY2024"): how
    # the analyst writes periods, for a company whose fiscal calendar is not known
    calendar_words: bool = True
    # of the two periods the thread named last, the later one (a change between them is
    # explained in its filing), with its words
    later: PeriodMention | None = None
    later_text: str = ""
    # the latest quarter the thread named, with its words ("in the quarter" after a question
    # about the fiscal year's guidance is still the quarter the thread is about)
    quarter: PeriodMention | None = None
    quarter_text: str = ""
    # the latest-ending period the questions about the thread's company named: the period the
    # thread is about when it looked back from it to an earlier one (a comparison, not a move)
    main: PeriodMention | None = None
    main_text: str = ""

    def looked_back(self) -> bool:
        """The thread's latest period is earlier than the one it is about ("same quarter last
        year?" after Q2 2023)."""
        return (self.main is not None and self.period is not None
                and _period_key(self.period)[:2] < _period_key(self.main)[:2])


@dataclass
class Rewrite:
    """A follow-up made to stand alone, and what was carried into it (for the answer's details)."""

    question: str
    standalone: str
    company: str = ""
    period: str = ""
    kind: str = "standalone"  # standalone | swap | concept | appended | edited (by the analyst)
    carried: list[str] = field(default_factory=list)  # "company", "period", "concept", "form"
    absent_company: str = ""  # a company the message names that the library holds no filing of
    named_period: str = ""  # the period the message names, as resolved ("the first half" -> "the first half of 2023")
    # the message with the library's company names written as printed ("microsft" -> "Microsoft",
    # "the iPhone maker" -> "Apple"): what the router reads the companies of
    spelled: str = ""

    def note(self) -> str:
        if self.kind == "standalone":
            return "read as asked"
        if self.kind == "edited":
            return "edited by the analyst"
        return f"follow-up ({self.kind}): carried {', '.join(self.carried) or 'nothing'} from the thread"


def _names_as_printed(text: str, names: Iterable[str], name_terms: Iterable[str]) -> str:
    """A company name that matches only as printed (a trading symbol, a first word: "AMZN",
    "Lockheed") typed in lower case, written as printed when no filing of the library uses the
    word in lower case (``name_terms``): "amzn rev 2Q23?" -> "AMZN rev 2Q23?", so the search
    reads the company; "cost" stays a word."""
    typed = set(name_terms)
    if not typed:
        return text
    for n in sorted(names, key=len, reverse=True):
        if n != n.lower() and n.lower() in typed:
            text = re.sub(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?![A-Za-z0-9&])", n, text, flags=re.I)
    return text


def _names_as_spelled(text: str, names: Iterable[str], printed_lower: Collection[str],
                      company_of: Mapping[str, str] | None, vocabulary: Collection[str] = frozenset()) -> str:
    """A library company's name typed without its possessive's apostrophe or with a slip of
    the keyboard ("apples R&D", "amazons books", "microsft"), written as its filings print it
    ("Apple's R&D", "Amazon's books", "Microsoft"), so that it reads as the company
    (``domain.companies.typed_library_names``: the library's own names only)."""
    for a, b, name, possessive in reversed(typed_library_names(text, names, printed_lower, vocabulary)):
        written = name[:1].upper() + name[1:] if name == name.lower() else name
        company = (company_of or {}).get(name.lower(), "")
        printed = re.search(rf"(?<![A-Za-z0-9&]){re.escape(name)}(?![A-Za-z0-9&])", short_name(company), re.I) \
            if company else None
        if printed:
            written = printed.group(0)
        text = text[:a] + written + ("'s" if possessive else "") + text[b:]
    return text


# "the iPhone maker", "the maker of Xbox", "the Azure company": a company described by its product
_DESCRIBED_NOUNS = r"(?:maker|makers|manufacturer|producer|company|giant|firm|people|owner|parent|operator|developer|provider)"
_DESCRIBED = re.compile(rf"\bthe\s+(?P<x>[A-Za-z][\w&'-]*(?:\s+[A-Za-z][\w&'-]*)?)\s+{_DESCRIBED_NOUNS}\b"
                        r"|\bthe\s+(?:maker|manufacturer|producer|owner|parent|operator|developer|provider)\s+of\s+"
                        r"(?:the\s+)?(?P<y>[A-Za-z][\w&'-]*(?:\s+[A-Za-z][\w&'-]*)?)"
                        # "Mobileye's parent", "the company behind Azure"
                        r"|(?<![\w'’])(?P<z>[A-Z][\w&-]*)(?:'s|’s)\s+(?:parent|owner)\b"
                        r"|\bthe\s+(?:company|firm|people)\s+behind\s+(?:the\s+)?(?P<w>[A-Za-z][\w&'-]*)"
                        # "F-35 maker's total net sales": the owner, described at the message's start
                        rf"|^\s*(?!(?:and|or|but|the|what|how|so|ok|okay|now|also|back|then|same|well|who|which)\b)"
                        rf"(?P<u>[A-Za-z][\w&'-]*(?:\s+[A-Za-z][\w&'-]*)?)\s+{_DESCRIBED_NOUNS}(?=['’]s)", re.I)
# the words that only say what kind of product the description names ("the Converse brand owner")
_KIND_WORDS = {"brand", "brands", "line", "platform", "service", "services", "product", "products", "franchise",
               "chip", "chips", "app", "apps", "business", "console", "phone", "software", "label"}


def _described_company(text: str, labels: Mapping[str, frozenset[str]], company_of: Mapping[str, str] | None
                       ) -> tuple[str, int, int]:
    """A library company named by a description ("the iPhone maker", "the maker of Xbox"):
    when the product is a term only that company's filings print as a label or use often
    (``labels``: per library name, its printed labels and own frequent words), its name and
    the description's span; ("", -1, -1) otherwise."""
    for m in _DESCRIBED.finditer(text):
        term = (m.group("x") or m.group("y") or m.group("z") or m.group("w") or m.group("u")).lower()
        words = term.split()
        if len(words) == 2 and words[1] in _KIND_WORDS:
            term = words[0]  # "the Converse brand owner": the product is "Converse"
        owners = {(company_of or {}).get(n, n) for n, own in labels.items() if term in own}
        shortest = min(owners, key=lambda o: len(core_name(o)), default="")
        if owners and all(core_name(o).startswith(core_name(shortest)) for o in owners):
            # one filer under its names over the years ("Adobe Systems Incorporated", "Adobe Inc.")
            return short_name(shortest), m.start(), m.end()
    return "", -1, -1


def _defined_owner(text: str, defined: Mapping[str, str]) -> str:
    """An abbreviation the filings define for another entity, written as the owner of the
    measure right after it, by the name the filings define it for: "how big was AWS revenue
    in 2017" in a library where only Netflix's filing defines Amazon Web Services ("AWS") ->
    "... Amazon Web Services' revenue ..." (a company the library lacks). Elsewhere ("they run
    on AWS") the abbreviation stays as typed."""
    measure = measure_phrase(text)
    if not measure:
        return text
    for short, name in defined.items():
        m = re.search(rf"(?<![\w&]){re.escape(short)}(?:'s|’s)?\s+(?={re.escape(measure)})", text)
        if m:
            owner = name + ("'" if name.endswith("s") else "'s")
            return text[:m.start()] + owner + " " + text[m.end():]
    return text


def _company_as_written(text: str, names: Iterable[str]) -> tuple[str, int, int]:
    """The longest library company name in ``text`` with its span, as the text spells it.
    A ticker of four or more letters typed in lower case ("back to msft") is the ticker,
    written back in capitals (shorter ones are words too: "all", "key", "low")."""
    names = set(names)
    found = names_in(text, names)
    best = ("", -1, -1)
    for n in sorted(found, key=len, reverse=True):
        m = re.search(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?![A-Za-z0-9&])", text, re.I)
        # the longest name; of names as long, the first written ("Intel's ... than Apple's" is Intel's)
        if m and (len(m.group(0)), -m.start()) > (len(best[0]), -best[1]):
            best = (m.group(0), m.start(), m.end())
    if not best[0]:
        for n in names:
            if len(n) >= 4 and n.isalpha() and n.isupper():
                m = re.search(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?![A-Za-z0-9&])", text, re.I)
                # ("how much did restructuring cost them": a word of questions typed in lower case
                # is that word, not the symbol spelled the same)
                if m and not (m.group(0).islower() and is_question_word(m.group(0))):
                    return n, m.start(), m.end()
    return best


def thread_facts(previous: list[str], names: Iterable[str], scope_company: str = "",
                 scope_period: str = "", asides: Sequence[str] = ()) -> ThreadFacts:
    """Company, period and form of the thread: the latest previous question that names each;
    the analyst's document scope fills what none names (a chat scoped to one filing is about
    that filing's company and period). ``asides``: the messages answered from the conversation
    since the latest searched question; one naming one library company ("back to intel, what
    did u say 1Q was") makes the thread about that company again. The question a bare
    follow-up repeats is the latest one, unless that one only asks about the answer before it
    ("what drove that"): then the latest one that asks a figure."""
    names = set(names)
    facts = ThreadFacts(question=previous[-1] if previous else "")
    first = next((found.mentions[0] for found in map(find_periods, previous) if found.mentions), None)
    facts.calendar_words = first is None or not first.fiscal
    if previous and _about_the_answer(previous[-1]):
        facts.question = next((q for q in reversed(previous[:-1]) if measure_phrase(q) and not _about_the_answer(q)),
                              previous[-1])
    recent: list[tuple[PeriodMention, str]] = []
    mains: list[tuple[PeriodMention, str]] = []
    company_run = True  # the questions since the thread last asked about another company
    for q in reversed(previous):
        written = _company_as_written(q, names)[0]
        if not facts.company:
            facts.company = written
        elif written and not names_in(written, _aliases_of(facts.company, names)):
            company_run = False
        found = find_periods(q).mentions
        if found:
            text = mention_text(found[0]) if found[0].date and not found[0].span else found[0].text
            if company_run:
                mains.append((found[0], text))
            if facts.period is None:
                facts.period, facts.period_text = found[0], text
            if facts.quarter is None and _is_quarter(found[0]):
                facts.quarter, facts.quarter_text = found[0], text
            if len(recent) < 2 and not any(_period_key(found[0]) == _period_key(m) for m, _ in recent):
                recent.append((found[0], text))
        if not facts.form:
            m = _FORM_RE.search(q)
            facts.form = m.group(0).upper() if m else ""
    if mains and len({(m.fiscal, m.date is not None) for m, _ in mains}) == 1:
        # (periods written alike: a fiscal quarter and a calendar date do not order by their numbers)
        facts.main, facts.main_text = max(reversed(mains), key=lambda r: _period_key(r[0]))
    for aside in reversed(asides):
        written, a, b = _company_as_written(aside, names)
        if not written:
            continue
        if not _company_as_written(aside[:a] + " " + aside[b:], names)[0]:  # one company, not "amzn or aapl?"
            if not facts.company or not names_in(facts.company, _aliases_of(written, names)):
                # back to a company asked earlier: the period asked of it too
                facts.main, facts.main_text = None, ""
                recent = _own_period(facts, _aliases_of(written, names), previous, names) or recent
            facts.company, facts.refocused = written, True
        break
    if scope_company and (not facts.company or not names_in(facts.company, _aliases_of(scope_company, names))):
        # the scope wins over an earlier question about another company, and so does its period,
        # else the period the thread asked of the scope's company (a chat limited to Oracle's and
        # eBay's 10-Ks: "Oracle's revenue per employee" is of the fiscal year asked of Oracle)
        facts.company = scope_company
        facts.main, facts.main_text = None, ""  # (the periods were asked of another company)
        if scope_period:
            facts.period, facts.period_text = None, ""
        else:
            recent = _own_period(facts, _aliases_of(scope_company, names), previous, names) or recent
    if facts.period is None and scope_period:
        found = find_periods(scope_period).mentions
        if found:
            facts.period, facts.period_text = found[0], scope_period
    if recent:
        facts.later, facts.later_text = max(recent, key=lambda r: _period_key(r[0]))
    elif facts.period is not None:
        facts.later, facts.later_text = facts.period, facts.period_text
    return facts


def _own_period(facts: ThreadFacts, aliases: set[str], previous: list[str], names: set[str]
                ) -> list[tuple[PeriodMention, str]]:
    """``facts`` about the company of ``aliases`` again: the periods the thread asked of it
    (in questions about it alone) set as the thread's; the later one to compare, or [] when the
    thread asked it none."""
    low = {a.lower() for a in aliases}
    own = [q for q in previous if names_in(q, aliases) and not {n.lower() for n in names_in(q, names)} - low]
    mine = thread_facts(own, names) if own else None
    if mine is None or mine.period is None:
        return []
    facts.period, facts.period_text = mine.period, mine.period_text
    facts.quarter, facts.quarter_text = mine.quarter, mine.quarter_text
    facts.main, facts.main_text = mine.main, mine.main_text
    return [(mine.later or mine.period, mine.later_text or mine.period_text)]


def _is_quarter(m: PeriodMention) -> bool:
    """A period that is one quarter ("Q1 FY2024", "the quarter ended April 30, 2023")."""
    return bool(m.quarter and not m.span) or m.span == "quarter"


def _period_key(m: PeriodMention) -> tuple[int, int, int]:
    """An order of periods by when they end (a date, a quarter, a year's last quarter)."""
    if m.date is not None:
        return m.date.year, (m.date.month - 1) // 3 + 1, m.date.toordinal()
    return m.year or 0, m.quarter or 4, 0


# a question asking the cause of what an answer found ("Why so high?", "what was behind it?")
_ASKS_CAUSE = re.compile(r"^\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?(?:why|how\s+come)\b|\bwhat(?:'s|’s|\s+is|\s+was)?\s+"
                         r"(?:drove|drives|driving|caused|causes|explains|behind)\b|\breasons?\s+(?:for|behind)\b", re.I)


def _about_the_answer(question: str) -> bool:
    """A question only about the answer before it ("what drove that", "what drove the change
    (gross margin %, Apple, Q3 2023)?", "Why so high?"): no measure of its own, outside what
    was carried; it asks about a figure, so a later bare follow-up ("And fiscal 2017?") asks
    that figure again, not the question about it."""
    own = _CARRIED_TAIL.sub("", question)
    return not measure_phrase(own) and bool(_REFERS_BACK.search(own) or _ABOUT_CHANGE.search(own)
                                            or _ASKS_CAUSE.search(own))


def _aliases_of(company: str, names: set[str]) -> set[str]:
    """The library names that the text ``company`` is spelled with (for comparing companies)."""
    return set(names_in(company, names)) or {company.lower()}


def _new_company(q: str, names: set[str], remainder: str, scoped: bool = False,
                 labels: frozenset[str] = frozenset(), printed_lower: Collection[str] = frozenset(),
                 library_labels: Collection[str] = frozenset(), companies_named: Mapping[str, str] | None = None) -> str:
    """The company a follow-up names: a library name, or, when the whole rest of a bare
    follow-up is one proper name ("Same for AMD"), that name (the gate then says whether the
    library has its filings), however typed ("and google?", "vs adidas": words no filing of
    the library prints in lower case, ``domain.companies.lower_case_name``; not a segment or
    product any library company prints, ``library_labels``). In a chat limited to one
    company's filings a bare name the library does not know ("And Mac?") is read as a
    product or segment of that company, unless the message asks the same question for it
    ("Same for AMD")."""
    written = _company_as_written(q, names)[0]
    if written:
        return written
    own = _own_figure_of(q, names)
    if own:
        return own
    # "wells fargo's at the same date?", "ibm's R&D for Q1 2023?": a name typed in lower case as
    # the owner of the figure (also in a chat limited to some filings: a possessive is whose figure)
    low = q.lower()
    for printed_name in (companies_named or {}).values():
        # "under armour's 2018 revenue": a company the filings print with its legal form, as the owner
        if re.search(rf"(?<![\w&]){re.escape(printed_name.lower())}(?:'s|’s|'|’)(?![\w])", low):
            return printed_name
    if printed_lower:
        owner = lower_case_owner(q, printed_lower, _FILLER | _TOPIC_WORDS | set(library_labels) | labels)
        if owner and owner.lower() not in labels:
            return owner
    lead = _SYMBOL_LEAD.match(q)
    if lead and not (lead.group("name").lower() in _FILLER | _TOPIC_WORDS | _NOT_NAMES | labels
                     | set(library_labels) | FINANCE_ABBREVIATIONS | MEASURE_WORDS or is_period_word(lead.group("name"))):
        # "KO 2017: what was the net charge …": the analyst's heading names the company asked
        # about; a symbol the library does not know is no reason to ask the thread's company
        return lead.group("name")
    if scoped and not _SWAP_LEAD.match(q):
        return ""
    for rx in (_CASHTAG, _LEGAL_NAME, _PEER_NAME):
        m = rx.search(q)
        if rx is _LEGAL_NAME and len(q.split()) > 8:
            continue  # a long question names its subject as it likes; a short follow-up names a company
        if m is None or m.group("name").lower() in _FILLER | _TOPIC_WORDS | _NOT_NAMES or m.group("name").lower() in labels:
            continue
        name = m.group("name").lstrip("$")
        if rx is _CASHTAG and (len(name) < 2 or name.lower() in _MONEY_UNITS):
            continue  # "$M", "$bn": a unit of money
        if name == name.lower() and (name.lower() in printed_lower or name.lower() in library_labels):
            continue  # "how do its peers compare": a word the filings print in lower case, no name
        if rx is _CASHTAG:
            return name.upper()
        if rx is _LEGAL_NAME:
            return name
        name = re.sub(r"(?:'s|’s)$", "", name).rstrip(".,")
        return name[:1].upper() + name[1:] if name == name.lower() else name
    # "peers like AMD", "rivals such as Google": the name after the words that introduce it
    bare = re.sub(r"(?i)^(?:.*\b(?:peers?|competitors?|rivals?)\s+)?(?:like|such\s+as|including|e\.?g\.?)\s+", "",
                  remainder.strip(" ?.!,"))
    # the words a period left behind ("AMD for the prior-year quarter" -> "AMD for the") are no part of a name
    bare = re.sub(r"(?i)(?:\s+(?:for|in|of|at|during|over|the|as|a))+$", "", bare)
    if bare.lower() in labels and not _SWAP_LEAD.match(q):
        return ""  # a segment, product or region the thread's company prints ("International?")
    cands = proper_names(bare)
    # ("Arm Holdings", "Target Corp": the name with its legal form typed after it)
    unformed = re.sub(r"(?:,?\s+(?:Holdings|Group|Inc|Incorporated|Corp|Corporation|Co|Company|plc|Ltd|LLC|SE|AG|NV|SA)\.?)+$",
                      "", bare.replace("'s", "").strip())
    if len(cands) == 1 and cands[0] in (bare.replace("'s", "").strip(), unformed):
        # as typed: "BJ's Wholesale" (a possessive inside the name)
        typed = re.search(r"(?:'s|’s)?\s+".join(map(re.escape, cands[0].split())), q)
        return typed.group(0) if typed else cands[0]
    # "general dynamics backlog same date": a company the filings print by name with its legal
    # form, typed in lower case before the measure (or alone)
    measure_at = measure_phrase(bare)
    opening = bare[:bare.lower().find(measure_at.lower())].strip(" ,:-") if measure_at else bare
    listed = named_company_at_start(opening, companies_named or {}) if opening == opening.lower() else ""
    if listed and listed.lower() not in labels and listed.lower() not in library_labels:
        return listed
    if printed_lower and bare.lower() not in labels:
        vocabulary = _FILLER | _TOPIC_WORDS | set(library_labels) | labels
        name = lower_case_name(bare, printed_lower, vocabulary)
        if name:
            return name
        # "pepsico top line 2017?": a name before the measure asked, however typed
        measure = measure_phrase(bare)
        head = bare[:bare.lower().find(measure.lower())].strip(" ,:-") if measure else ""
        if head and head.lower() not in labels and lower_case_name(head.lower(), printed_lower, vocabulary):
            return head if head != head.lower() else lower_case_name(head, printed_lower, vocabulary)
        # "qualcomm handset revenue": the name, then a segment or product of its own
        first = lower_case_head(head, printed_lower, vocabulary) if head == head.lower() else ""
        if first and first.lower() not in labels:
            return first
    # "what about AMD's 1Q23 gm": a possessive names whose figure it is, unless it is a segment,
    # product or region the thread's company prints
    # (a name the thread's filings print is still another company on the other side of a
    # comparison: "compare with Raytheon Technologies' missile sales")
    owners = [n for n in subject_names(q) if n.lower() not in labels
              or re.search(rf"{_AGAINST.pattern.split('(?P<name>')[0]}{re.escape(n)}(?:'s|’s|'|’)", q, re.I)]
    if not owners:
        # "what is UPS guiding for 2024?": the subject of what a company does (guides, reports,
        # pays), not a segment or product of the library's
        owners = [n for n in proper_names(q) if re.search(rf"\b(?:is|are|was|were|will|has|have|had)\s+{re.escape(n)}\s+"
                                                          rf"{_COMPANY_ACTS}\b", q)
                  and not names_in(n, names) and n.lower() not in labels and n.lower() not in library_labels
                  and n.lower() not in printed_lower]
    if not owners:
        # "can you pull Meta's Reality Labs operating loss": the owner of a capitalised segment,
        # when no filing of the library is its and the library's terms do not name it
        owners = [n for n in segment_owners(q) if not names_in(n, names) and n.lower() not in labels
                  and n.lower() not in library_labels and n.lower() not in printed_lower]
    if len(owners) == 1:
        return owners[0]
    return ""


def _own_figure_of(q: str, names: Iterable[str]) -> str:
    """A company the library lacks that the message names as the owner of its own figure:
    "Arm's own revenue", "what did Rivian itself report", "Mobileye alone" ("" when none).
    A name the thread's filings print (a deal, a stake, a customer: "the Rivian stake") is
    their company's subject matter, unless the message says so: the owner's own words, not
    the thread company's."""
    for name in proper_names(q):
        if names_in(name, names):
            continue
        esc = re.escape(name)
        if re.search(rf"(?<![\w&]){esc}(?:'s|’s)\s+own\b|(?<![\w&]){esc}\s+(?:itself|alone|on\s+its\s+own|by\s+itself)\b"
                     rf"|\b(?:did|does|do)\s+{esc}\s+(?:itself\s+)?(?:report|disclose|post|book|record)", q):
            return name
    return ""


# what a company does as the subject of a question ("is UPS guiding", "has Boeing reported")
_COMPANY_ACTS = (r"(?:guid(?:ing|ed|e)|expect(?:ing|ed)?|forecast(?:ing|ed)?|project(?:ing|ed)?|target(?:ing|ed)?|"
                 r"report(?:ing|ed)?|disclos(?:ing|ed|e)|announc(?:ing|ed|e)|plann?(?:ing|ed)?|pay(?:ing)?|paid|"
                 r"spend(?:ing)?|spent|return(?:ing|ed)?|say(?:ing)?|said|post(?:ing|ed)?|book(?:ing|ed)?)")


# the other side of a comparison: "stack up against kroger's", "vs Target", "higher than Citi's"
_AGAINST = re.compile(r"\b(?:against|versus|vs\.?|than|(?:compared?|compares|stacks?\s+up|measures?\s+up)\s+(?:to|with))"
                      r"\s+(?:the\s+)?(?P<name>[A-Za-z][\w&.-]*[A-Za-z0-9&](?:\s+[A-Z][\w&.-]*[A-Za-z0-9&])*)"
                      r"(?:'s|’s|'|’)?(?![\w&'’-])")
# what makes "against" a comparison ("stack up against", "line that up against"; not "a lawsuit against")
_COMPARING = re.compile(r"\b(?:compar\w*|stacks?\s+up|stacked\s+up|measures?\s+up|(?:line|lined|set|put)\s+\w+\s+(?:up\s+)?"
                        r"against|vs\.?|versus|(?:higher|lower|bigger|smaller|larger|more|less|better|worse)\s+than)\b",
                        re.I)


def _compared_with(q: str, names: set[str], printed_lower: Collection[str], vocabulary: Collection[str]) -> str:
    """A company the library lacks on the other side of a comparison the message makes ("stack
    up against kroger's", "vs Target"): a capitalised name, or a word no filing of the library
    prints in lower case (``lower_case_name``); "" when the other side is a library company, a
    period, a word of the thread or of questions."""
    if not _COMPARING.search(q):
        return ""
    for m in _AGAINST.finditer(q):
        name = m.group("name")
        if (names_in(name, names) or name.lower() in vocabulary or find_periods(name).mentions
                or any(part in vocabulary for part in re.split(r"[-\s]+", name.lower()))):
            continue  # a library company, a period ("the prior-year quarter"), a word of the thread
        if name[:1].isupper() and proper_names(name) == [name]:
            return name
        # (a slip from a word of questions is no name; one from another filer's label may be: "kroger")
        found = lower_case_name(name, printed_lower, _FILLER | _TOPIC_WORDS) if name == name.lower() else ""
        if found:
            return found
    return ""


def _same_company(a: str, b: str, names: set[str], company_of: Mapping[str, str] | None = None) -> bool:
    """Two spellings of one library company ("intel", "INTC"; through ``company_of``, each
    library name's company: "AAPL", "Apple"), or the same name."""
    if a.lower().removesuffix("'s") == b.lower().removesuffix("'s"):
        return True
    if company_of:
        ours = {company_of.get(n.lower()) for n in names_in(a, names)} - {None}
        if ours & ({company_of.get(n.lower()) for n in names_in(b, names)} - {None}):
            return True
    mine = set(names_in(a, names))
    return bool(mine) and bool(names_in(b, mine) or names_in(b.lower(), mine) or
                               mine & set(names_in(b, names)))


def _mentions(text: str, company: str, start: int, end: int, names: set[str], terms: Mapping[str, str],
              name_terms: Iterable[str]) -> list[tuple[int, int]]:
    """Where ``text`` names ``company`` (found at ``start``:``end``): its library names and
    the terms that name it ("coke ... (Coca-Cola)"), in order, none overlapping."""
    aliases = set(names_in(company, names))
    words = {t for t in name_terms if t in terms and names_in(short_name(terms[t]), aliases | {company})}
    spans = [(start, end)]
    for n in aliases | words:
        if not names_in(text, {n}) and n not in words:
            continue
        for m in re.finditer(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?![A-Za-z0-9&])", text, re.I):
            spans.append((m.start(), m.end()))
    kept: list[tuple[int, int]] = []
    for a, b in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    return kept


def _swap_company(text: str, spans: list[tuple[int, int]], company: str, absent: bool) -> str:
    """``text`` about ``company`` instead: its first mention of the previous company replaced,
    the others dropped (an emptied parenthesis too). A company the library lacks is written
    as whose figure it is ("Google's op income"), so that the search reads it as the subject
    and refuses it rather than answering about another company."""
    out = text
    for i, (a, b) in reversed(list(enumerate(spans))):
        if i == 0:
            name = company
            if a > 0 and out[a - 1] == "$" and not re.fullmatch(r"[A-Z]{1,5}", company):
                a -= 1  # "$NVDA rev" -> "Intel's rev", not "$Intel's"
            # "amazon op income" -> "Google's op income"; not "for Amazon", nor "did Amazon spend"
            if absent and not re.match(r"['’]s?\b", out[b:]) and re.match(r"\s+[A-Za-z0-9]", out[b:]) and not \
                    re.search(r"(?i)\b(?:for|of|at|by|from|in|about|on|did|does|do|has|have|had|was|were|is|are|"
                              r"will|would|can|could)\s+$", out[:a]):
                name = company + "'s"
            bare_apostrophe = re.match(r"['’](?!s\b)", out[b:])
            if bare_apostrophe and not name.endswith(("s", "'s", "’s")):
                # "American Water Works' revenues" -> "Corning's revenues", not "Corning' revenues"
                name, b = name + "'s", b + 1
            out = out[:a] + name + out[b:]
        else:
            out = out[:a] + out[b:]
    out = re.sub(r"\(\s*,\s*", "(", out)
    out = re.sub(r",\s*\)", ")", out)
    out = re.sub(r"\s*\(\s*\)", "", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    return out


def _remove(text: str, pattern: str) -> str:
    return re.sub(pattern, " ", text, flags=re.I) if pattern else text


def _replace_period(text: str, old: PeriodMention, new_text: str) -> str:
    """``text`` with the period it names (``old``, found in ``text``) written as ``new_text``."""
    for m in find_periods(text).mentions:
        if m == old or (m.text == old.text and m.year == old.year):
            span_text = text[m.start:m.end]
            new = find_periods(new_text).mentions
            if names_year_end(span_text) and new and new[0].year and not new[0].date and not new[0].quarter:
                # "backlog at year-end 2022" a year earlier is "at year-end 2021"
                return text[:m.start] + re.sub(r"'?(?:\d{4}|\d\d)$", str(new[0].year), span_text) + text[m.end:]
            if old.date is not None and new and new[0].date and (new[0].span == old.span or not old.span
                                                                 or new_text.startswith("as of")):
                # keep "the quarter ended" / "as of" as written; replace only the date
                new_date = re.sub(r"^(?:the\s+)?(?:fiscal\s+)?(?:quarter|year)\s+ended\s+|^as\s+of\s+", "", new_text)
                replaced = ANY_DATE_RE.sub(new_date, span_text, count=1)  # ("the quarter ended 7/1/23" too)
                return text[:m.start] + replaced + text[m.end:]
            # "for the second quarter of 2023" -> "for 2Q22", "in the quarter ended ..." -> "in Q4 FY2023";
            # "the first nine months of 2023" -> "the first half of 2023" (one "the")
            head = re.sub(r"(?i)\bthe\s+$", "", text[:m.start])
            if re.match(r"(?i)(?:three|six|nine|twelve)\s+months|(?:fiscal\s+)?(?:quarter|year)\s+ended", new_text):
                new_text = "the " + new_text  # "nine months ended ..." as a span is "the nine months ended ..."
            if old.date is not None and new and not new[0].date and not DATE_RE.search(new_text):
                # "net cash as of June 30, 2023" -> "net cash in Q1 2023"
                head = re.sub(r"(?i)\b(?:as\s+(?:of|at)|at)\s+$", "in ", head)
            return head + new_text + text[m.end:]
    return text


def _at(period: str) -> str:
    """A period after the words of a question: "in Q3 2023", "as of June 30, 2023" (an instant
    brings its own preposition)."""
    return period if period.startswith("as of") else f"in {period}"


def rewrite_followup(question: str, previous: list[str], names: Iterable[str], scope_company: str = "",
                     scope_period: str = "", terms: Mapping[str, str] | None = None,
                     labels: Mapping[str, frozenset[str]] | None = None,
                     name_terms: Iterable[str] = (), calendars: Mapping[str, FiscalCalendar] | None = None,
                     printed_lower: Collection[str] = frozenset(), asides: Sequence[str] = (),
                     company_of: Mapping[str, str] | None = None, defined: Mapping[str, str] | None = None,
                     companies_named: Mapping[str, str] | None = None) -> Rewrite:
    """Make ``question`` stand alone given the thread's ``previous`` standalone questions.

    ``names``: the company names/tickers the library knows (``metadata.company_aliases``);
    ``scope_company``/``scope_period``: the company and period label of the documents the
    chat is limited to, when they are one company/period; ``terms``: the library's
    identifying terms (``domain.company_terms``), term -> registered company name; ``labels``:
    per name of a library company (lower case), the terms its filings print as headings and
    row labels (segments, products, regions); ``name_terms``: the identifying terms that are
    names however typed (a filer's trademark: "coke", ``LibraryTerms.names``); ``calendars``:
    per name of a library company (lower case), its fiscal calendar (``metadata.fiscal_calendar``:
    "the march qtr" is Apple's Q2 FY2023); ``printed_lower``: the words the library's filings
    print in lower case (``LibraryTerms.printed_lower``: a bare "google" that no filing prints
    as a word is a company, "services" is a word); ``asides``: the messages answered from the
    conversation since the latest searched one (``thread_facts``); ``company_of``: each library
    name (lower case) -> its company ("aapl" and "apple" are one); ``defined``: the abbreviations
    the filings define for another entity (``LibraryTerms.defined``: "AWS" -> "Amazon Web Services");
    ``companies_named``: other companies the filings print by name with a legal form
    (``LibraryTerms.companies_named``: "general dynamics" -> "General Dynamics").

    A company the library lacks is written as whose figure is asked ("Google's op income
    Q1 2023"), so that the search reads it as the subject and refuses it."""
    out = _rewrite(question, previous, names, scope_company, scope_period, terms, labels, name_terms, calendars,
                   printed_lower, asides, company_of, defined, companies_named)
    if out.absent_company:
        out.standalone = _as_owner(out.standalone, out.absent_company)
    return out


def _as_owner(text: str, company: str) -> str:
    """``text`` naming ``company`` (one the library lacks) as the owner of the figure asked:
    "pepsico top line 2017?" -> "Pepsico's top line 2017?", "FCF for calendar 2022 (Northrop)?"
    -> "Northrop's FCF for calendar 2022?"; left as it is when it already is, or names it
    after a preposition ("revenue for Google")."""
    # with the legal form the analyst may type after it ("3M Company's")
    m = re.search(rf"(?<![A-Za-z0-9&]){re.escape(company)}(?:,?\s+(?:Company|Inc\.?|Incorporated|Corporation|Corp\.?|"
                  rf"Co\.|plc|Ltd\.?|Holdings|Group))*(?![A-Za-z0-9&])", text, re.I)
    if m is None:
        return text
    tail = _CARRIED_TAIL.search(text)
    if tail and m.start() >= tail.start():
        inside = re.sub(rf"(?<![A-Za-z0-9&]){re.escape(company)}(?![A-Za-z0-9&])", " ", tail.group(0), flags=re.I)
        inside = re.sub(r"\(\s*,\s*", "(", re.sub(r",\s*\)", ")", re.sub(r"\s*,\s*,", ",", inside)))
        inside = re.sub(r"\s*\(\s*\)", "", inside).rstrip(" ?")
        body = text[:tail.start()] + inside
        measure = measure_phrase(body)
        at = body.find(measure) if measure else -1
        if at < 0:
            return f"{body.rstrip(' ?')} ({company})?"
        head = re.sub(r"(?i)\bthe\s+$", "", body[:at])  # "the revenue drop" -> "AMD's revenue drop"
        return f"{head}{company}{chr(39) if company.endswith('s') else chr(39) + 's'} {body[at:]}".rstrip(" ?") + "?"
    after, before = text[m.end():], text[:m.start()]
    if re.match(r"['’]", after) or not re.match(r"\s+[A-Za-z0-9]", after) or _SYMBOL_LEAD.match(text) or re.search(
            r"(?i)\b(?:for|of|at|by|from|in|about|on|did|does|do|has|have|had|was|were|is|are|will|would|can|could|"
            r"vs\.?|versus|than|against|and|or|with|peers?|competitors?|rivals?)\s+$", before):
        return before + _capitalised(m.group(0), company) + after
    return f"{before}{_capitalised(m.group(0), company)}{chr(39) if company.endswith('s') else chr(39) + 's'}{after}"


def _capitalised(written: str, company: str) -> str:
    """The name as written, with the capitals of ``company`` when typed in lower case."""
    return company + written[len(company):] if written[:len(company)].lower() == company.lower() else written


def _rewrite(question: str, previous: list[str], names: Iterable[str], scope_company: str,
             scope_period: str, terms: Mapping[str, str] | None, labels: Mapping[str, frozenset[str]] | None,
             name_terms: Iterable[str], calendars: Mapping[str, FiscalCalendar] | None,
             printed_lower: Collection[str], asides: Sequence[str], company_of: Mapping[str, str] | None,
             defined: Mapping[str, str] | None = None, companies_named: Mapping[str, str] | None = None) -> Rewrite:
    """``rewrite_followup`` before a company the library lacks is written as the figure's owner."""
    names = set(names)
    q = _names_as_printed(spell_out_measures(" ".join(question.split())), names, name_terms)
    if printed_lower:
        q = _names_as_spelled(q, names, printed_lower, company_of, _FILLER | _TOPIC_WORDS | set(terms or {}))
    if defined and not names_in(q, names):
        q = _defined_owner(q, defined)
    if not names_in(q, names):
        described, da, db = _described_company(q, labels or {}, company_of)
        if described:
            q = q[:da] + described + q[db:]  # "back to the iPhone maker: capex" -> "back to Apple: capex"
    # "target corp" -> "Target Corporation": the name as filings print it (not a library name's)
    q = _LEGAL_SHORT.sub(lambda m: m.group(0) if names_in(m.group(0), names) or m.group("name").lower() in _FILLER
                         else f"{m.group('name')[:1].upper()}{m.group('name')[1:]} Corporation", q)
    as_typed = q
    q = _latter_named(q, previous, names)
    out = Rewrite(question=question, standalone=q, spelled=as_typed)
    if not q:
        return out
    # a company the library lacks named as the owner ("Raytheon Technologies' Raytheon Missiles &
    # Defense sales"): a term of a library company beside it names no library company
    owned_elsewhere = any(not names_in(n, names) and n.lower() not in (terms or {}) for n in subject_names(q))
    if terms and not names_in(q, names) and not owned_elsewhere:
        # "AWS segment operating income": a segment or product only one company's filings print;
        # "amzn rev 2Q23?", "coke 2017": a name typed as no filing prints it in prose, which the
        # search would not read as the company (the registered name is added)
        named = companies_named_by_terms(q, terms, name_terms)
        if len(named) == 1:
            company = short_name(next(iter(named)))
            q = _append(q, [company])
            out = Rewrite(question=question, standalone=q, company=company, kind="appended",
                          carried=["company (named by its own segment or product)"], spelled=out.spelled)
    facts = thread_facts(previous, names, scope_company, scope_period, asides)

    def calendar_of(company: str) -> FiscalCalendar | None:
        for n in names_in(company, names) if company else []:
            found = (calendars or {}).get(n.lower())
            if found is not None:
                return found
        return None

    if facts.period is None and any(find_periods(p).latest for p in previous):
        # "nvda revenue last quarter?": the latest quarter the library holds of the company
        latest = calendar_of(facts.company)
        if latest is not None:
            facts.period = PeriodMention("", 0, 0, year=latest.year, quarter=latest.quarter,
                                         fiscal=not latest.calendar_year)
            facts.period_text = mention_text(facts.period)
            facts.later, facts.later_text = facts.period, facts.period_text
    named_month = month_quarter(q) or (month_year_alone(q) if previous else None)
    if named_month and (previous or scope_company or scope_period
                        or (named_month.year and _company_as_written(q, names)[0])):
        # "the march qtr": the quarter ending that month, as the company asked about names it
        # the company asked about: one the library lacks has no fiscal calendar known here
        owner = _company_as_written(q, names)[0] or ("" if _own_figure_of(q, names) else facts.company)
        anchor, anchor_calendar = facts.period, calendar_of(facts.company)
        if named_month.year is None and owner and facts.company and not _same_company(owner, facts.company, names,
                                                                                     company_of):
            # "back to apple - ... for that june quarter?": the June quarter nearest the periods
            # asked of that company (the later of its last two), not of the company asked last
            own = [p for p in previous if (w := _company_as_written(p, names)[0])
                   and _same_company(w, owner, names, company_of)
                   and all(_same_company(n, owner, names, company_of) for n in names_in(p, names))]
            mine = thread_facts(own, names) if own else None
            if mine is not None and (mine.later or mine.period) is not None:
                anchor, anchor_calendar = mine.later or mine.period, calendar_of(owner)
        meant = month_quarter_period(named_month, anchor, calendar_of(owner), anchor_calendar)
        ago = year_ago_before(q, named_month.start)
        if meant is not None and ago >= 0:
            # "the year-ago June quarter": the June quarter meant, a year earlier
            meant = shift_mention(meant, PeriodShift(years=-1))
        if meant is not None:
            q = q[:ago if ago >= 0 else named_month.start] + mention_text(meant) + q[named_month.end:]
            out = Rewrite(question=question, standalone=q, company=out.company, kind="appended",
                          carried=[*out.carried, "period (a quarter named by its month)"], spelled=out.spelled)
    named_year = month_year_end(q)
    if named_year is not None and (previous or scope_company or _company_as_written(q, names)[0]):
        # "membership fees in the yr ended aug 2019": the fiscal year ending that month, as the
        # company's calendar names it ("fiscal 2019" of Costco), else the year ended that month's end
        owner = _company_as_written(q, names)[0] or ("" if _own_figure_of(q, names) else facts.company)
        meant = month_year_period(named_year, calendar_of(owner))
        q = q[:named_year.start] + mention_text(meant) + q[named_year.end:]
        out = Rewrite(question=question, standalone=q, company=out.company, kind="appended",
                      carried=[*out.carried, "period (a year named by its closing month)"], spelled=out.spelled)
    same_quarter = _SAME_QUARTER_OF.search(q)
    if same_quarter and facts.period is not None and (facts.period.quarter or facts.period.date) and facts.period.year:
        # the thread's quarter in the year named, written as the period module writes it
        year = full_year(same_quarter.group("year") or same_quarter.group("short"))
        moved = shift_mention(facts.period, PeriodShift(years=year - facts.period.year))
        if moved is not None:
            q = q[:same_quarter.start()] + mention_text(moved) + q[same_quarter.end():]
    for spelled in reversed(months_to_month(q)):
        # "over the trailing nine months to sept 2023" -> "over the nine months ended September 30,
        # 2023": as the filings head the column; on the thread's own closing day when it is
        # within days of the month's end (a 52/53-week filer's "Oct-22" ended October 30)
        thread_day = facts.period.date if facts.period is not None else None
        if thread_day is not None and spelled.date is not None and abs((thread_day - spelled.date).days) <= 7:
            spelled = replace(spelled, date=thread_day, year=thread_day.year)
        q = q[:spelled.start] + mention_text(spelled) + q[spelled.end:]
    anchored = shifted_named_period(q)
    if anchored is not None:
        # "the quarter a year before Q3 '23": the period those words name, written out
        q = q[:anchored.start] + mention_text(anchored.period) + q[anchored.end:]
    latest_own = latest_period(q)
    latest_calendar_named = calendar_of(_company_as_written(q, names)[0])
    if latest_own is not None and latest_calendar_named is not None and not find_periods(q).mentions \
            and not relative_period(q):
        # "back to intel, gross margin % in the latest 10-Q", "amazon's latest 10-Q": the latest
        # report of the company named, as its calendar names it, written beside the words
        at = q.find(latest_own.text) + len(latest_own.text)
        q = f"{q[:at]} ({mention_text(latest_period_of(latest_calendar_named, latest_own.unit))}){q[at:]}"
        out = Rewrite(question=question, standalone=q, company=out.company, kind="appended",
                      carried=[*out.carried, "period (the latest report of the company named)"], spelled=out.spelled)
    periods = find_periods(q)
    shift = relative_period(q)
    # "and in Q1?": a quarter of the thread's year
    alone = quarter_without_year(q) if not periods.mentions and not shift else None
    # "and the nine months?", "the first half", "the full year": the thread's year to date
    ytd = year_to_date(q) if not periods.mentions and not shift and not alone else None
    # "what about LTM", "at quarter end", "how about year-end?": a span or instant of the thread's period
    span = relative_span(q) if not periods.mentions and not shift and not alone and not ytd else None
    if span and (facts.period is None or relative_span_of(facts.period, span, calendar_of(
            _company_as_written(q, names)[0] or facts.company)) is None):
        span = None  # "LTM" of a fiscal year is that year: the words stay as asked
    names_none = not (periods.mentions or periods.latest or shift or alone or ytd or span or names_month(q))
    lead_words = _LEAD_RE.match(q)
    bare_phrase = bool(lead_words and lead_words.group(0).strip() and not _WH_START.match(q[lead_words.end():]))
    if (names_none and facts.looked_back() and facts.main is not None and not bare_phrase
            and not _THAT_PERIOD.search(q) and not _THOSE_PERIOD.search(q)):
        # "What did that do to the bottom line?", "Operating margin for the quarter?" after the
        # thread looked back a year: a question of its own is about the period the thread is about
        # (not "what about its debt?", nor "that quarter": the one just asked)
        facts.period, facts.period_text = facts.main, facts.main_text
        if _is_quarter(facts.main):
            facts.quarter, facts.quarter_text = facts.main, facts.main_text
    if names_none and facts.period is not None and not _is_quarter(facts.period) and facts.quarter is not None \
            and _THE_QUARTER.search(q) and not re.search(r"(?i)\b(?:year|yr|annual|twelve\s+months)\b", q):
        # "which offering grew fastest in the quarter?" after the full-year guide: the quarter the
        # thread is about, not the year asked last
        facts.period, facts.period_text = facts.quarter, facts.quarter_text
    if names_none and facts.later is not None and _ASKS_WHEN.search(q):
        # "when did they come out of Chapter 11?": a date of an event, which the latest filing the
        # thread looked at reports (not the earlier year it looked back to)
        facts.period, facts.period_text = facts.later, facts.later_text
    company_here = _company_as_written(q, names)[0]
    if (company_here and facts.company and not _same_company(company_here, facts.company, names, company_of)
            and not periods.mentions and (ytd or _THAT_PERIOD.search(q) or _THOSE_PERIOD.search(q))):
        # "on Apple: what drove Services growth over those nine months?": the period that was
        # asked of that company, not of the one asked last
        # (questions about that company alone: "Intel's quarter ... bigger than Apple's?" is Intel's)
        own = [p for p in previous
               if (w := _company_as_written(p, names)[0]) and _same_company(w, company_here, names, company_of)
               and all(_same_company(n, company_here, names, company_of) for n in names_in(p, names))]
        mine = thread_facts(own, names) if own else None
        if mine is not None and mine.period is not None:
            facts.period, facts.period_text = mine.period, mine.period_text
    # "the most recent quarter in the filings", "the latest quarter you've got": the latest period
    # of that kind the library's filings of the company cover (its latest report's calendar)
    latest_named: tuple[str, PeriodMention] | None = None
    latest_words = (latest_period(q) if (previous or scope_company) and not periods.mentions and not shift
                    and not alone and not ytd and not span else None)
    if latest_words is not None:
        latest_calendar = calendar_of(company_here or facts.company)
        if latest_calendar is not None:
            latest_named = (latest_words.text, latest_period_of(latest_calendar, latest_words.unit))

    # "how'd that trend over the 3 filings this yr": that many periods, ending with the later of
    # the two the thread named last
    run = (period_run(q) if not periods.mentions and not shift and not alone and not ytd and not span
           and latest_named is None else None)
    run_end = facts.later or facts.period
    run_periods = periods_ending(run_end, run) if run is not None and run_end is not None else []
    # what is left once the follow-up words, company and period are taken out
    rest = _LEAD_RE.sub("", q, count=1)
    rest = _COMPARE_RE.sub(" ", rest)
    rest = _SAME_THING.sub(" ", rest)
    if company_here:
        # with the legal form typed after it ("lockheed martin corp in 2021?", "the coca-cola co"): no concept
        rest = _remove(rest, rf"(?<![A-Za-z0-9&]){re.escape(company_here)}(?:'s|’s)?(?:,?\s+(?:corp(?:oration)?|co|company|"
                             rf"inc(?:orporated)?|ltd|plc|llc|holdings)\b\.?(?:'s|’s)?)*(?![A-Za-z0-9&])")
    # periods first: "and 2Q22?" names a period, not a company
    for m in periods.mentions:
        rest = rest.replace(m.text, " ")
    if shift:
        rest = rest.replace(shift.text, " ")
    if alone:
        rest = rest.replace(alone.text, " ")
    if ytd:
        rest = rest.replace(ytd.text, " ")
    if span:
        rest = rest.replace(span.text, " ")
    if latest_named:
        rest = rest.replace(latest_named[0], " ")
    if run_periods and run is not None:
        rest = rest.replace(run.text, " ")
    rest = _THAT_PERIOD.sub(" ", rest)  # "adidas for the same year?": a period, no part of the name
    thread_labels: frozenset[str] = frozenset()
    for n in names_in(facts.company, names) if facts.company else []:
        thread_labels |= (labels or {}).get(n.lower(), frozenset())
    # the terms that identify a library company ("iphone", "aws") are no company it lacks
    new_company = company_here or _new_company(q, names, rest, bool(scope_company), thread_labels, printed_lower,
                                               set(terms or {}), companies_named)
    if new_company and not names_in(new_company, names):
        out.absent_company = new_company
    elif not out.absent_company:
        # "how do costco's net sales stack up against kroger's": the other side of a comparison,
        # a company the library lacks (the router then searches, the conversation never answered it)
        out.absent_company = _compared_with(q, names, printed_lower, _FILLER | _TOPIC_WORDS | _NOT_NAMES
                                            | thread_labels | set(terms or {}))
    if new_company and not company_here:
        rest = _remove(rest, rf"(?<![A-Za-z0-9&]){re.escape(new_company)}(?:'s|’s)?(?![A-Za-z0-9&])")
    if company_here and terms:
        # "and coke's 2016?": a term that names the company (written beside it in parentheses) is
        # no concept of the message's own
        for t in set(name_terms):
            if t in terms and re.search(rf"(?i)(?<![A-Za-z0-9&]){re.escape(t)}", rest) and _same_company(
                    short_name(terms[t]), company_here, names, company_of):
                rest = _remove(rest, rf"(?<![A-Za-z0-9&]){re.escape(t)}(?:'s|’s)?(?![A-Za-z0-9&])")
    rest = _FORM_RE.sub(" ", rest)
    # whole words only: "1H23" is no word "H23" (the measure is written after the last one)
    rest_words = [w for w in re.findall(r"(?<![\w&])[A-Za-z&][\w&'-]*", rest) if w.lower() not in _FILLER]
    concept_terms = [t for t in content_terms(" ".join(rest_words))]
    # "q/q growth?", "and the y/y change?": the change of the thread's measure, no measure of its
    # own (the previous question is asked again, the word written after its measure)
    change_word = ""
    changes = False
    if rest_words and any(w.lower() in _CHANGE_WORDS for w in rest_words) and facts.question and not measure_phrase(q) \
            and all(w.lower() in _CHANGE_WORDS or w.lower() in _ASKING or is_period_word(w) for w in rest_words):
        # (a noun is written after the measure: "revenue growth"; a verb is not: "how did it develop")
        change_word = " ".join(w for w in rest_words if w.lower() not in _ASKING and w.lower() not in _CHANGE_WORDS - _CHANGE_NOUNS)
        concept_terms = []
        changes = True

    # a longer question naming a period but no company, in a thread about one ("what happened to
    # gross margin % in FY23 and why"), is about that company too, unless it may span several (a
    # long question naming neither reads as a new one: "Describe the principal risk factors ...")
    # (counted in the words typed: a period written out for the search is longer)
    typed_periods = find_periods(question).mentions
    about_none = bool(previous and facts.company and not new_company
                      and len((_sentence_at(question, typed_periods[0].start) if typed_periods else
                               _sentence_at(q, periods.mentions[0].start) if periods.mentions else
                               _sentence_at(question, len(question.rstrip()) - 1)).split()) <= 14
                      and not _CROSS_COMPANY.search(q))
    is_followup = bool(FOLLOWUP_RE.search(q) or _COMPARE_RE.search(q) or shift or alone or ytd or span or latest_named
                       or about_none or len(question.split()) <= 8 or (names_none and _THE_QUARTER.search(q)))
    if (names_none and concept_terms and not run_periods and latest_named is None and company_here and facts.company
            and not _same_company(company_here, facts.company, names, company_of) and not _COMPARING.search(q)):
        # "What's Oracle's revenue per employee?" after Oracle's fiscal 2018 and eBay's 2020: a
        # question of its own about a company asked earlier is about the period asked of it
        # (a bare "Same for Oracle" asks the thread's question, in the thread's period)
        own = [p for p in previous
               if (w := _company_as_written(p, names)[0]) and _same_company(w, company_here, names, company_of)
               and all(_same_company(n, company_here, names, company_of) for n in names_in(p, names))]
        mine = thread_facts(own, names) if own else None
        if mine is not None and mine.period is not None:
            facts.period, facts.period_text = mine.period, mine.period_text
            facts.later, facts.later_text = mine.later, mine.later_text
    has_company = bool(new_company)
    # ("who did they name as CEO in aug 2022": a month of its own, no period of the thread's)
    has_period = bool(periods.mentions) or periods.latest or names_month(q)
    if not previous and not scope_company and not scope_period:
        return out
    if has_company and has_period and not shift and (concept_terms or not facts.question):
        return out
    if not is_followup and not (scope_company and not has_company):
        return out

    # the period this message is about
    period_text = ""
    new_period: PeriodMention | None = None
    against = False
    base_text = ""
    if periods.mentions:
        new_period = periods.mentions[0]
        # a year typed short ("end of '15") is written in full where it replaces the thread's
        period_text = mention_text(new_period) if re.fullmatch(r"['’]\d\d", new_period.text) else new_period.text
        joined = q[new_period.start:periods.mentions[-1].end]
        if len(periods.mentions) >= 2 and _JOINER.fullmatch(q[new_period.end:periods.mentions[1].start]):
            period_text = joined  # "1H23 vs 1H22": both periods, compared
    elif shift and facts.period is not None:
        new_period = shift_mention(facts.period, shift)
        base_text = facts.period_text
        if new_period is not None and new_period.span and re.search(r"(?i)\b(?:quarter|qtr)", shift.text):
            # "the comparable quarter" of a half-year is a quarter (the half's last one), compared
            # with that quarter of the thread's half; of the nine months ended a date, the quarter
            # ended that date
            dated = new_period.date is not None
            new_period = replace(new_period, span="quarter" if dated else "", quarter=None if dated else new_period.quarter)
            base_text = mention_text(replace(facts.period, span="quarter" if dated else "",
                                             quarter=None if dated else facts.period.quarter))
        period_text = mention_text(new_period) if new_period else ""
        # "sequentially?", "vs the prior-year period", "and the comparable quarter": the thread's
        # period against the shifted one (which stays the period the thread is about)
        against = bool(period_text and (shift.against or _COMPARE_RE.search(q) or _CHANGE_FROM.search(q)
                                        or re.search(r"(?i)\bcomparable\b", shift.text)))
    elif alone and facts.period is not None:
        # "what about Q1?" after Q2 2023 and the same quarter a year earlier: Q1 of the year the
        # thread is about, not of the year it looked back to
        new_period = in_quarter(facts.main if facts.looked_back() and facts.main is not None else facts.period,
                                alone.quarter)
        if new_period is not None and alone.years:  # "Q2 last year"
            new_period = shift_mention(new_period, PeriodShift(years=alone.years))
        period_text = mention_text(new_period) if new_period else ""
    elif ytd and facts.period is not None:
        new_period = year_to_date_of(facts.period, ytd, calendar_of(company_here or facts.company))
        period_text = mention_text(new_period) if new_period else ""
    elif span and facts.period is not None:
        new_period = relative_span_of(facts.period, span, calendar_of(company_here or facts.company))
        period_text = mention_text(new_period) if new_period else ""
    elif latest_named is not None:
        new_period = latest_named[1]
        period_text = mention_text(new_period)
    elif run_periods:
        new_period = run_periods[-1]
        period_text = run_text(run_periods)
    # the words naming the period relative to the thread's, replaced by the period they name
    relative_words = "" if periods.mentions else (shift.text if shift else alone.text if (alone and period_text) else
                      ytd.text if (ytd and period_text) else span.text if (span and period_text) else
                      latest_named[0] if (latest_named and period_text) else
                      run.text if (run and run_periods) else "")
    if shift and relative_words == shift.text:
        # "a year before that quarter": the thread's period the shift is from is part of the words
        that = re.search(rf"{re.escape(shift.text)}\s+(?:that|the\s+same|this)\s+(?:quarter|qtr|year|yr|period)\b", q, re.I)
        if that:
            relative_words = that.group(0)
    out.named_period = period_text

    if not concept_terms and facts.question and (new_company or periods.mentions or relative_words or changes):
        # a swap: the previous question with the company and/or period replaced
        text = facts.question
        carried = ["concept"]
        prev_company, pa, pb = _company_as_written(text, names)
        if not prev_company:
            # a company the library lacks, carried by an earlier follow-up ("Same for AMD")
            for name in subject_names(text):
                found = re.search(rf"(?<![A-Za-z0-9&]){re.escape(name)}(?![A-Za-z0-9&])", text)
                if found:
                    prev_company, pa, pb = found.group(0), found.start(), found.end()
                    break
        company = new_company or facts.company
        # the company asked about now: the one named, or the one an aside went back to
        swap_to = new_company or (facts.company if facts.refocused else "")
        changed = bool(swap_to and prev_company and not _same_company(swap_to, prev_company, names, company_of))
        if changed:
            spans = _mentions(text, prev_company, pa, pb, names, terms or {}, name_terms)
            text = _swap_company(text, spans, swap_to, absent=not names_in(swap_to, names))
        elif not prev_company and company:
            text = _append(text, [company])
        if not new_company and company:
            carried.append("company")
        if changed and not periods.mentions and not relative_words:
            # a fiscal quarter is its filer's own: Apple's Q2 FY2023 is another company's Q1 2023
            old = find_periods(text).mentions
            scoped_to = find_periods(scope_period).mentions if scope_period and scope_company and names_in(
                swap_to, _aliases_of(scope_company, names)) else []
            # the company's filing the chat is limited to names its period; else a fiscal quarter
            # moves to the same months of the other filer
            moved = scoped_to[0] if scoped_to else fiscal_label_for(
                old[0], calendar_of(prev_company), calendar_of(swap_to), facts.calendar_words) if old else None
            if moved is not None:
                text = _replace_period(text, old[0], mention_text(moved))
                period_text = mention_text(moved)
        elif changed and relative_words and new_period is not None and not against:
            # "and Intel's for the prior quarter?" after Apple's F3Q23: the quarter before, as the
            # other filer names those months (Apple's Q2 FY2023 is Intel's Q1 2023)
            moved = fiscal_label_for(new_period, calendar_of(prev_company), calendar_of(swap_to), facts.calendar_words)
            if moved is not None:
                new_period, period_text = moved, mention_text(moved)
        if new_period is not None and facts.period is not None and period_text:
            old = find_periods(text).mentions
            if len(old) >= 2 and _JOINER.fullmatch(text[old[0].end:old[1].start]):
                # the question compared two periods ("Q2 2023 vs Q2 2022"): the new period
                # replaces the pair, not only its first half
                text = text[:old[0].end] + text[old[1].end:]
                old = find_periods(text).mentions
            if old and against and base_text != facts.period_text:
                text = _replace_period(text, old[0], f"{base_text} vs {period_text}")
            elif old and against:
                text = text[:old[0].end] + f" vs {period_text}" + text[old[0].end:]
            elif old:
                text = _replace_period(text, old[0], period_text)
            else:
                text = _append(text, [f"{base_text} vs {period_text}" if against else period_text])
        elif period_text and facts.period is None:
            text = _append(text, [period_text])
        elif not periods.mentions and not relative_words and facts.period is not None:
            if not find_periods(text).mentions:
                text = _append(text, [facts.period_text])
            carried.append("period")
        if period_text and period_text != facts.period_text:
            # "the latest 10-Q (Q3 2023)" moved to Q2 2023 is no longer the latest report
            text = re.sub(r"(?i)\b(?:latest|most\s+recent|newest)\s+(?=(?:quarterly\s+|annual\s+)?(?:10-?[QK]|report|filing)\s*\()",
                          "", text)
        if facts.form and not _FORM_RE.search(text):
            text = _append(text, [facts.form])
        if change_word and not re.search(rf"(?i)\b{re.escape(change_word)}\b", text):
            measure = measure_phrase(text)
            at = text.find(measure) + len(measure) if measure else -1
            if at > 0 and re.match(r"\s*%", text[at:]):
                at = text.index("%", at) + 1  # "gross margin %" is the measure with its unit
            text = f"{text[:at]} {change_word}{text[at:]}" if at > 0 else _append(text, [change_word])
        out.standalone, out.kind, out.carried = text, "swap", carried
        out.company = company
        out.period = period_text or facts.period_text
        return out

    company = new_company or facts.company
    measure = _carried_measure(q, rest_words, previous)
    carried_after = ""
    if _ANSWER_IS_SUBJECT.search(q) and not measure_phrase(q) and not _ABOUT_CHANGE.search(q):
        # "was that more or less than in 2016?", "what share of the half is that?": the answer
        # given is the subject, so the thread's measure is what is asked (beside the question)
        carried_after, measure = measure or _latest_measure(previous), ""
    elif measure and _VERB_FORM.fullmatch(rest_words[-1]):
        # "what was actually spent in 2020?": the words end in a verb, no subject the measure is
        # written after ("spent capex"); it is carried beside the question instead
        carried_after, measure = measure, ""
    if measure:
        # "how about North America?", "and services?": a new subject of the thread's measure,
        # written right after the subject's last word
        spots = list(re.finditer(rf"(?<![\w&]){re.escape(rest_words[-1])}(?![\w&])", q, re.I))
        end = spots[-1].end() if spots else len(q.rstrip(" ?.!"))
        q = f"{q[:end]} {measure}{q[end:]}"
    # "how much did it add", "what drove the gap?": the change asked is one in the thread's measure,
    # between the two periods it compared: the later one's filing explains it
    about_change = bool(_ABOUT_CHANGE.search(q))
    change_of = (_latest_measure(previous) if not measure and (_HOW_MUCH_CHANGE.search(q) or about_change
                                                                or _RANKED_CHANGE.search(q))
                 and not measure_phrase(q) else "") or carried_after
    # "how does nvidia's data center compare for the same quarter": another company set beside the
    # thread's is compared in the period the thread is about, the later of the two it named last
    # (not the year-earlier one it looked back to)
    compares_other = bool(company_here and facts.company and not _same_company(company_here, facts.company, names,
                                                                              company_of)
                          and _COMPARING.search(q) and _THAT_PERIOD.search(q))
    thread_period = facts.period
    base = _COMPARISON_BASE.search(q) if periods.mentions and thread_period is not None and not relative_words else None
    if base and thread_period is not None and all(m.start >= base.end() for m in periods.mentions) \
            and not any(_period_key(m) == _period_key(thread_period) for m in periods.mentions):
        # "why did it drop so much vs FY21?": the period named is what the thread's is compared
        # with; the thread's period stays the one asked about ("... in fiscal 2022 vs FY21")
        q = f"{q[:base.start()].rstrip()} {_at(facts.period_text)} {q[base.start():]}"
        carried_base = True
    else:
        carried_base = False
    period = period_text or ("" if has_period else facts.later_text if facts.later_text and (
        (about_change and not _THAT_PERIOD.search(q)) or compares_other) else facts.period_text)
    if re.match(r"(?i)(?:fiscal\s+)?(?:quarter|year|period|(?:three|six|nine|twelve)\s+months)\s+end", period):
        period = "the " + period  # "quarter ended June 30, 2023" as a question writes it
    carried = [k for k, v in (("company", company if not new_company else ""),
                              ("period", period if not (periods.mentions or relative_words) else "")) if v]
    if carried_base:
        carried.append("period (compared with the one named)")
    if measure or change_of:
        carried.append("concept")
    if relative_words and period_text:
        # "at quarter end" -> "as of July 1, 2023" (an instant brings its own preposition)
        said = f"{base_text} vs {period_text}" if against else period_text
        if shift and shift.against:
            # "sequential growth in revenue?": the word stays, the two quarters are added
            q = _append(q, [said])
        else:
            # "the year-earlier Rivian hit" -> "the Q1 2022 Rivian hit", "full-year EPS" -> "fiscal
            # 2022 EPS": a period written as the adjective of a noun stays one (the words' own
            # "the" is the article: "the full-year revenue guide" -> "the fiscal 2024 revenue guide")
            words = re.sub(r"(?i)^the\s+", "", relative_words)
            since = re.search(rf"(?i)\b(?:from|since)\s+(?:the\s+)?(?:end\s+of\s+(?:the\s+)?)?{re.escape(words)}"
                              r"(?:[\s-]+(?:end|close))?(?![\w-])", q) if against else None
            if since:
                # "how much did that change from the prior quarter end?" -> "... change in Q1 FY2024
                # vs Q4 FY2023": the thread's period against the one it changed from
                q = f"{q[:since.start()]}{_at(said)}{q[since.end():]}"
            q = q if since else re.sub(rf"(?:\b(?P<prep>in|for|during|of|over|at|as\s+(?:at|of))\s+)?(?P<the>\bthe\s+)?"
                       rf"{re.escape(words)}(?P<noun>\s+(?![Ii]n\b|[Ff]or\b|[Oo]n\b|[Aa]t\b)[A-Za-z])?",
                       # "next quarter's Azure growth" -> "Q3 FY2023's Azure growth": a possessive stays one
                       lambda m: said + m.group(0)[len(m.group(0).rstrip()):]
                       if q[m.end():m.end() + 2] in ("'s", "’s") and not m.group("noun") and not m.group("prep")
                       and not said.startswith(("as of", "the ")) else
                       (said if said.startswith("the ") else f"the {said.removeprefix('as of ')}") + m.group("noun")
                       if m.group("noun") and m.group("the") and not m.group("prep") and "-" in words else
                       said + m.group("noun")
                       if m.group("noun") and not m.group("prep") and "-" in words and not said.startswith("as of") else
                       said + (m.group("noun") or "") if said.startswith("as of") else
                       f"{m.group('prep') if m.group('prep') and not m.group('prep').startswith(('at', 'as')) else 'in'} "
                       f"{said}{m.group('noun') or ''}", q, count=1, flags=re.I)
        has_period = True
    elif period and not has_period and _THAT_PERIOD.search(q):
        # "for that quarter" names the thread's period
        q = _THAT_PERIOD.sub(f" {_at(period)}", q, count=1).replace("  ", " ")
        has_period = True
    # "capex as % of revenue for each?" after Oracle's and FedEx's capex: each company asked, in
    # the period asked of it, not only the latest one
    pairs = _companies_asked(previous, names, company_of) if _EACH_OF_THEM.search(q) and not has_company else []
    each = [f"{c} {p}".strip() for c, p in pairs] if len(pairs) == 2 else []
    if each:
        carried = [*[k for k in carried if k == "concept"], "companies (each of the two asked)"]
    lead = _LEAD_RE.match(q)
    body = q[lead.end():] if lead else q
    if (lead and lead.group(0).strip() and facts.question and not rest_words and not new_company and not has_period
            and not (shift or alone or ytd or span or latest_named or run) and not measure and not change_of):
        # "and the same for them?", "same for it?": nothing of its own, the thread's question again
        out.standalone, out.kind, out.carried = facts.question, "swap", ["concept", "company", "period"]
        out.company, out.period = company, period
        return out
    if lead and lead.group(0).strip() and not _WH_START.match(body) and not _ASKS_WITHIN.search(body) and body:
        # a bare phrase: "What about operating income?" -> a question about it
        phrase = body.rstrip(" ?.!")
        if company_here and re.match(rf"{re.escape(company_here)}\s*[:,-]\s", phrase):
            # "back to Apple: capex ytd" -> "What was Apple's capex ytd"
            phrase = re.sub(rf"^{re.escape(company_here)}\s*[:,-]\s*", f"{company_here}'s ", phrase)
        if each:
            text = _append(f"What was {phrase}", each).rstrip("?")
        elif company and re.match(r"(?i)its\b|their\b", phrase):
            phrase = re.sub(r"(?i)^(?:its|their)\b", f"{company}'s", phrase)
            text = f"What was {phrase}"
        else:
            text = f"What was {phrase}" + (f" for {company}" if company and not has_company else "")
        if each:
            pass
        elif period and not has_period:
            text += f" {_at(period)}"
        elif relative_words and period_text and period_text not in text:
            text += f" {_at(period_text)}"
        out.standalone, out.kind = text + "?", "concept"
    else:
        own = each or [company if not has_company else "", period if not has_period else ""]
        extra = [x for x in (change_of, *own) if x]
        if not extra:
            if q != " ".join(question.split()):
                out.standalone, out.kind, out.carried = q, "appended", carried
                out.company, out.period = company, period
            return out
        out.standalone, out.kind = _append(q, extra), "appended"
    out.carried, out.company, out.period = carried, company, period
    return out


# the answer given as the subject of the question ("was that more or less", "what share of the
# half is that", "is it higher")
# ("that" as the answer, not the word before a thing: "what was that litigation?")
_ANSWER_IS_SUBJECT = re.compile(r"\b(?:was|is|were|are)\s+(?:that|it|this)(?=\s*(?:[?.!,;:]|$|(?:more|less|higher|lower|"
                                r"bigger|smaller|larger|greater|above|below|up|down|still|also|really|then|than|vs|in|for|"
                                r"of|compared|relative|a|an|the)\b))|\b(?:that|it|this)\s+(?:was|is)\b", re.I)
# a verb's past form ("spent", "reported"): no subject of the thread's measure
_VERB_FORM = re.compile(r"(?i)[a-z]{2,}ed|spent|paid|made|sold|grew|fell|rose|lost|got|took|brought|built|kept|held|"
                        r"gave|won|cut|put|set|did|had|was|were")


# "for each?", "for both of them": every company the thread asked (of the two asked last)
_EACH_OF_THEM = re.compile(r"\b(?:for|of|on|across)\s+(?:each(?:\s+of\s+them|\s+company)?|both(?:\s+of\s+them|\s+companies)?|"
                           r"the\s+two(?:\s+companies)?)\s*[?.!]*\s*$", re.I)


def _companies_asked(previous: list[str], names: set[str], company_of: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """The last two companies the thread's questions asked about, each with the period asked of
    it (as written), in the order asked; fewer when the thread asked fewer."""
    found: list[tuple[str, str]] = []
    for p in reversed(previous):
        written = _company_as_written(p, names)[0]
        if not written or any(_same_company(written, w, names, company_of) for w, _ in found):
            continue
        mentions = find_periods(p).mentions
        found.append((written, mentions[0].text if mentions else ""))
        if len(found) == 2:
            break
    return found[::-1]


# "the latter as a % of revenue", "the former's margin": one of the two companies asked last
_LATTER = re.compile(r"\bthe\s+(?P<which>latter|former)(?P<pos>'s|’s)?(?![\w'’-])", re.I)


def _latter_named(q: str, previous: list[str], names: set[str]) -> str:
    """``q`` with "the latter" / "the former" written as what it points at when the thread's
    last two companies asked differ: the later (or earlier) one's measure as asked ("the latter
    as a % of revenue" after Apple's then Nvidia's R&D -> "nvidia's R&D as a % of revenue"), or
    its name when the message names a measure of its own after a possessive ("the former's
    margin" -> "Apple's margin")."""
    m = _LATTER.search(q)
    if m is None:
        return q
    asked: list[tuple[str, str]] = []  # (company as written, the question) per company, latest first
    for p in reversed(previous):
        written = _company_as_written(p, names)[0]
        if written and not any(_same_company(written, w, names) for w, _ in asked):
            asked.append((written, p))
        if len(asked) == 2:
            break
    if len(asked) < 2:
        return q
    company, source = asked[0] if m.group("which").lower() == "latter" else asked[1]
    owner = company + ("'" if company.endswith("s") else "'s")
    measure = measure_phrase(_CARRIED_TAIL.sub("", source))
    said = owner if m.group("pos") or not measure else f"{owner} {measure}"
    return q[:m.start()] + said + q[m.end():]


def _sentence_at(text: str, at: int) -> str:
    """The sentence of ``text`` around position ``at`` when the others only thank or ask for a
    layout ("Thanks. Separately, were there any one-offs in Q2 2023? Please answer in full
    sentences." -> its question), without a lead word that only turns to a new topic
    ("Separately,"); the whole text otherwise ("You are a credit analyst. What were ...": a
    persona and a full question)."""
    start = max((m.end() for m in re.finditer(r"[.?!]\s+(?=[A-Z])", text[:at])), default=0)
    end = next((m.end() for m in re.finditer(r"[.?!](?=\s+[A-Z]|\s*$)", text[at:])), len(text) - at) + at
    others = _COURTESY.sub(" ", text[:start] + " " + text[end:])
    if re.search(r"[A-Za-z0-9]{2,}", others):
        return text
    return re.sub(r"^(?:separately|also|next|now|then|finally|additionally|besides)\s*,\s*", "", text[start:end].strip(),
                  flags=re.I)


# the words of a sentence that only thanks or asks for a layout ("Thanks.", "Please answer in full sentences.")
_COURTESY = re.compile(r"(?i)\b(?:thanks?|thank\s+you|thx|ty|cheers|great|ok(?:ay)?|please|pls|plz|answer|reply|respond|"
                       r"in|with|as|a|an|the|full|short|brief(?:ly)?|complete|sentences?|words?|detail|detailed|bullets?|"
                       r"points?|lines?|one|two|three|keep|it|be|concise)\b")


def _append(text: str, extra: list[str]) -> str:
    extra = [x for x in extra if x]
    if not extra:
        return text
    base = text.rstrip("?. ")
    tail = re.search(r"\(([^()]*)\)$", base)
    if tail and all(find_periods(p).mentions or (p[:1].isupper() and not (p.isupper() and len(p) <= 5))
                    for p in (x.strip() for x in tail.group(1).split(","))):
        # one parenthesis of what the thread carried: "... (Intel)" + Q3 2023 -> "... (Intel, Q3 2023)?"
        # (not a printed label's own: "operating income (loss)", "(GAAP)")
        return f"{base[:tail.start()].rstrip()} ({', '.join([tail.group(1), *extra])})?"
    return f"{base} ({', '.join(extra)})?"


def _carried_measure(q: str, rest_words: list[str], previous: list[str]) -> str:
    """The thread's measure, when ``q`` names only a new subject of it ("and services?", "how
    much was gaming", "how about North America for that quarter"): a short phrase with no
    measure and no qualitative topic of its own; "" otherwise."""
    if not rest_words or len(rest_words) > 3 or measure_phrase(q):
        return ""
    latest = _latest_measure(previous)
    said = [w for w in rest_words if len(w) >= 2]
    shortened = r"[\s-]+".join(map(re.escape, said))
    if latest and said and any(re.search(rf"(?<![\w&]){shortened}\s+{re.escape(latest)}(?![\w&])", earlier, re.I)
                               for earlier in previous):
        # "next quarter's Azure growth?" after "what Azure growth rate …": the thread's phrase,
        # shortened; its measure completes it (a topic word like "growth" included)
        return latest
    if any(w.lower() in _TOPIC_WORDS for w in rest_words) or pointed_thing(q):
        return ""
    # a count asked ("global streaming memberships") or a measure word mistyped ("subscription
    # revnue") is a measure of its own, not a subject of the thread's
    if any(w.lower() in COUNT_WORDS or (len(w) >= 5 and near_spelling(w.lower(), MEASURE_WORDS)) for w in rest_words):
        return ""
    return _latest_measure(previous)


# "those fires", "these lawsuits": things an answer mentioned, pointed at by their own noun
_POINTED = re.compile(r"\b(?:those|these)\s+(?:(?:two|three|four|five|six|seven|eight|nine|ten|twelve|\d+)\s+)?"
                      r"(?P<noun>[A-Za-z][\w-]*)", re.I)
# nouns that point at figures or at subjects of a measure, not at things of their own
_FIGURE_NOUNS = {"figure", "figures", "number", "numbers", "amount", "amounts", "one", "ones", "value", "values",
                 "results", "answers", "totals", "metrics", "measures", "ratios", "items", "lines", "two", "three",
                 "four", "five", "segments", "businesses", "units", "divisions", "regions", "products", "categories",
                 "companies", "firms", "filings", "docs", "documents", "reports", "sources", "pages", "quotes",
                 "quarters", "qtrs", "years", "yrs", "months", "periods", "weeks", "days", "dates", "halves"}


def pointed_thing(question: str) -> str:
    """The thing a question points at by its own noun ("How big were those fires?" -> "fires"):
    something an earlier answer mentioned, which the question is about, not a subject of the
    thread's measure; "" when it points at figures, periods or measures ("those two", "those
    quarters", "those margins")."""
    for m in _POINTED.finditer(question):
        noun = m.group("noun")
        # "those"/"these" take a plural: a singular word after a count is the verb
        # ("how did those two compare?"), not a thing
        plural = noun.lower().endswith("s") and not noun.lower().endswith("ss")
        if (plural and noun.lower() not in _FIGURE_NOUNS and not is_period_word(noun) and not measure_phrase(noun)
                and not near_spelling(noun.lower(), MEASURE_WORDS)):
            return noun
    return ""


def _latest_measure(previous: list[str]) -> str:
    """The measure the thread asked last ("" when none did)."""
    for earlier in reversed(previous):
        found = measure_phrase(earlier)
        if found:
            return found
    return ""
