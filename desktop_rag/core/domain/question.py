"""What a question asks versus how the analyst wants it answered.

Analyst questions carry instructions: a persona ("You are an investment banker and your
only resource(s) to answer the following question is (are): the balance sheet ..."), units
("Answer in USD millions"), rounding ("Round your answer to two decimal places"), source
hints ("using the cash flow statement") and definitions ("X is defined as: ..."). None of
those words is evidence: they must not reach BM25, the embedder or the context gate. The
named statements steer retrieval; units and rounding shape the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from desktop_rag.core.domain.measures import measure_phrase
from desktop_rag.core.domain.periods import MONTH_NAME_RE, QuestionPeriods, find_periods, without_periods
from desktop_rag.core.domain.terms import content_terms

_NUMBER_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}

# Statement names as analysts write them -> the statement kinds of core/ingest/statements.
STATEMENT_NAMES: dict[str, str] = {
    r"balance\s+sheets?|statements?\s+of\s+financial\s+position|financial\s+position": "balance",
    r"(?:statements?\s+of\s+)?cash\s+flows?(?:\s+statements?)?|cash\s+flow\s+statements?": "cash_flow",
    r"income\s+statements?|statements?\s+of\s+(?:income|operations|earnings)|p\s*&\s*l|profit\s+and\s+loss(?:\s+statements?)?": "income",
    r"statements?\s+of\s+comprehensive\s+income": "comprehensive",
    r"statements?\s+of\s+(?:shareholders'?|stockholders'?)\s+equity|equity\s+statements?": "equity",
}
_STATEMENT_RE = re.compile("|".join(f"(?P<s{i}>{p})" for i, p in enumerate(STATEMENT_NAMES)), re.I)
_STATEMENT_KINDS = list(STATEMENT_NAMES.values())

_PERSONA = re.compile(
    r"^\s*you\s+are\s+an?\s+[^.?:]*?(?:and\s+)?your\s+only\s+resources?(?:\(s\))?\s+to\s+answer\s+the\s+following\s+"
    r"questions?\s+(?:is|are)\s*(?:\((?:is|are)\))?\s*:?\s*(?P<resources>.*?)\.\s*(?:here'?s\s+the\s+question\s*:\s*)?",
    re.I | re.S,
)
_PERSONA_SIMPLE = re.compile(r"^\s*(?:you\s+are\s+an?\s+[^.?]{3,80}?\.)\s*", re.I)
_HERES = re.compile(r"^\s*here'?s\s+the\s+question\s*:\s*", re.I)
_UNITS = re.compile(
    r"(?:(?:please\s+)?(?:answer|respond|provide\s+(?:the|your)\s+answer|express(?:ed)?(?:\s+the\s+answer)?|report(?:ed)?)\s+)?"
    r"\b(?:in|using)\s+(?:(?:usd|us\s*\$|\$|dollars?)\s+)?(?P<scale>thousands|millions|billions|mm|mn|bn|k)"
    r"(?:\s+(?:of\s+)?(?:usd|us\s+dollars|dollars))?\b"
    r"|\b(?:in|using)\s+(?:usd|us\s+dollars)\b(?!\s+(?:thousands|millions|billions))"
    r"|\bas\s+a\s+percent(?:age)?\b|\bin\s+percent(?:age)?(?:\s+terms)?\b",
    re.I,
)
_ROUND = re.compile(
    r"(?:(?:please\s+)?round(?:ed)?\s+(?:your\s+(?:final\s+)?answer\s+|the\s+answer\s+|it\s+)?to\s+(?:the\s+)?"
    r"(?:nearest\s+)?(?P<n>\d+|zero|no|one|two|three|four|five)\s+decimal(?:\s+places?|\s+points?)?"
    r"|(?:please\s+)?round(?:ed)?\s+(?:your\s+(?:final\s+)?answer\s+|the\s+answer\s+)?to\s+the\s+nearest\s+(?P<unit>whole\s+number|integer|percent|cent|million|billion|thousand)"
    r"|(?:please\s+)?(?:round|rounded)\s+(?:your\s+answer\s+)?to\s+(?P<n2>\d+)\s*dp"
    r"|\bto\s+(?P<n3>\d+|one|two|three)\s+decimal\s+places?"
    r"|\b(?:(?:percent|percentage|ratio)\s+)?(?:to|with)\s+(?P<n4>\d|one|two|three|four)\s+decimals\b)"
    r"[^.?:]*[.?]?",  # the rest of the instruction, not past a colon (the question follows it)
    re.I,
)
_SOURCE = re.compile(
    rf"\b(?:using|based\s+on|from|according\s+to|by\s+(?:relying|looking)\s+on|refer(?:ring)?\s+to|per)\s+(?:the\s+)?"
    rf"(?:(?:data|information|details|figures?|line\s+items?)\s+(?:in|from|on)\s+(?:the\s+)?)?"
    rf"(?:company'?s\s+|its\s+)?(?:consolidated\s+)?(?P<stmt>{_STATEMENT_RE.pattern})"
    rf"(?:\s+(?:and|&)\s+(?:the\s+)?(?:consolidated\s+)?(?:{_STATEMENT_RE.pattern.replace('?P<s', '?P<t')}))?",
    re.I,
)
_DEFINITION = re.compile(
    r"(?P<term>[A-Za-z][\w\s/&'()-]{2,60}?)\s+(?:is|are)\s+defined\s+as\s*:?\s*(?P<formula>[^.?]+(?:\.\d[^.?]*)*)[.?]?",
    re.I,
)
# A definition inside the question's own sentence: "..., defined as total noninterest expense /
# total net revenue", "... ratio for Q2 2022, computed as A over B?". The term is the thing the
# sentence asks for ("efficiency ratio"): the words after "'s"/"the"/"its" up to its period words.
_INLINE_DEFINITION = re.compile(
    r"(?:,|\s-|\s\u2013)\s*(?:(?:which\s+is\s+|being\s+)?(?:defined|computed|calculated|measured|taken)\s+as|"
    r"where\s+(?:it\s+is\s+)?(?:defined|computed|calculated)\s+as)\s*:?\s*(?P<formula>[^?]+?)\s*(?P<end>\?|$)", re.I)
# "JPM 1Q23 efficiency (overhead) ratio — total noninterest expense divided by total net revenue":
# the formula after a dash, written with an operator and no verb (after a colon is the question:
# "PCG Q3 2022: operating margin, i.e. A divided by B")
_DASHED_DEFINITION = re.compile(
    r"(?:\s[\u2014\u2013]|\s-{1,2}\s)(?!\s*(?:please\s+)?(?:compute|calculate|computing|calculating|what|how|which|why|"
    r"give|find|determine|estimate|derive|show|state|report|use|using|take|taking)\b)\s*"
    r"(?P<formula>(?:(?!\b(?:what|how|which|why|is|was|were|are|did|does)\b)[^?;:])+?"
    r"(?<![\w-])(?:divided\s+by|over|minus|less|plus|times)(?![\w-])[^?;:]+?)\s*"
    r"(?P<end>\?|$|,\s*(?=(?:as\s+a|in|expressed|shown|rounded|round)\b))",
    re.I)
# the words a term's period follows ("free cash flow for 2021", "the efficiency ratio in Q2 2022")
_TERM_END = r"(?:for|in|of|as\s+of|during|at|over|between|from)\b"
_INLINE_TERM = re.compile(rf"(?:'s|\u2019s|\bthe|\bits|\btheir)\s+(?P<term>[A-Za-z][\w\s()&/-]{{2,60}}?)\s+{_TERM_END}|"
                          r"(?:'s|\u2019s|\bthe|\bits|\btheir)\s+(?P<last>[A-Za-z][\w\s()&/-]{2,60}?)\s*$", re.I)
_BEFORE_REQUEST = re.compile(r"^.*\b(?:compute|calculate|determine|derive|work\s+out)\s+(?:the\s+|its\s+|their\s+)?",
                             re.I)
_CALC_HINT = re.compile(r"\b(?:calculate|compute|what\s+is\s+the\s+\w+\s+ratio)\b", re.I)


@dataclass
class Instructions:
    """How the answer is to be given, separate from what is asked."""

    persona: str = ""
    statements: list[str] = field(default_factory=list)  # statement kinds to read ("balance", "cash_flow")
    scale: str = ""  # "thousands" | "millions" | "billions" | "percent" | "units" | ""
    currency: str = ""  # "USD" when asked
    decimals: int | None = None
    definitions: dict[str, str] = field(default_factory=dict)  # term -> formula as written
    removed: list[str] = field(default_factory=list)  # instruction text taken out of the question

    def __bool__(self) -> bool:
        return bool(self.persona or self.statements or self.scale or self.currency
                    or self.decimals is not None or self.definitions)


@dataclass
class ParsedQuestion:
    original: str
    question: str  # what is asked, without persona/units/rounding/source/definition text
    instructions: Instructions


def _kinds(text: str) -> list[str]:
    out = []
    for m in _STATEMENT_RE.finditer(text):
        for i, kind in enumerate(_STATEMENT_KINDS):
            if m.group(f"s{i}") and kind not in out:
                out.append(kind)
    return out


_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\"'])|(?<=\.\.)\s*")
_QUESTION_START = re.compile(
    r"^(?:what|how|which|who|whom|whose|when|where|why|does|do|did|is|are|was|were|has|have|had|can|could|"
    r"will|would|should|among|in\s+\w+\s*\d*,?\s*(?:what|which|how)|if\s+\w+\s+went)\b", re.I)
# a request for a figure, alone or after a label naming the filing ("WMT 10-Q: compute ...")
_LABELLED_REQUEST = re.compile(r"^(?:[^.?!:\u2014\u2013]{0,60}(?::|\s[\u2014\u2013]|\s-{1,2})\s*)?(?:please\s+)?"
                               r"(?:compute|calculate|determine|estimate|derive|work\s+out)\b", re.I)
_INSTRUCTION_CUE = re.compile(
    r"\b(?:answer|respond|response|round|provide|give|base|basing|based|use|using|utili[sz]e|refer|referencing|rely|"
    r"relying|consult|take|taking|look|looking|please|compute|calculate|extract|assume|assuming|help|state|explain|"
    r"solution|judg(?:e)?ments?|perspective|approximation|reasonable|outlined|shown|provided|primarily|only)\b", re.I)
# words that direct the analyst's helper wherever they stand in a sentence stating figures ("Assume
# a 21% tax rate", "use $5bn as the base"); the other cues direct only as the sentence's opening
# word ("Only the 10-K's figures ..."), not as a premise's adverb ("revenue only grew 3% YoY")
_DIRECTING = re.compile(r"\b(?:answer|respond|round|please|assume|assuming|compute|calculate|use|using|utili[sz]e)\b",
                        re.I)


def _directs(sentence: str) -> bool:
    """The sentence is an instruction, not a premise stating figures (``_STATES_FIGURES``)."""
    first_word = sentence.split(maxsplit=1)[0] if sentence.strip() else ""
    return bool(_DIRECTING.search(sentence) or _INSTRUCTION_CUE.search(first_word))


# an instruction clause before the question, closed by a comma or a colon ("Using the cash flow
# statement, what ...", "Answer in USD billions rounded to one decimal place: how much ...")
# a sentence stating a figure ("fell from $15.9bn to $9.5bn", "grew 12%")
_STATES_FIGURES = re.compile(r"[$\u20ac\u00a3]\s?\d|\d[\d,.]*\s*(?:%|percent\b|bn\b|billion\b|million\b|mm\b)", re.I)
_CLAUSE = re.compile(r"^(?P<clause>[^,:?]{10,240}?)[,:]\s*(?=(?:what|how|which|who|does|did|is|are|was|were|has|have)\b)", re.I)
_PAREN = re.compile(r"\(([^()]{0,160})\)")
# The conversational frame around a question: a greeting or a lead-in before it ("Hi,", "Quick
# question -", "Could you tell me:"), thanks after it. None of it is asked.
_FRAME_LEAD = re.compile(
    r"^\s*(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening)|ok(?:ay)?|so|thanks|thank\s+you)\b[\s,!.:;\-\u2013\u2014]+|"
    r"(?:(?:a\s+|one\s+(?:more\s+)?)?quick\s+(?:question|one)|(?:one\s+more|another|a)\s+question|"
    r"(?:could|can|would)\s+you\s+(?:please\s+)?(?:tell\s+me|check|confirm|help\s+me\s+with|look\s+up)(?:\s+this)?|"
    r"i(?:'d|\s+would)\s+like\s+to\s+know(?:\s+this)?|i\s+(?:want|need)\s+to\s+know(?:\s+this)?|"
    r"please\s+(?:tell\s+me|check|confirm))\s*(?:[:,\-\u2013\u2014]\s*|(?=\s(?:what|how|which|who|when|where|why|is|are|was|"
    r"were|does|do|did|has|have)\b)))", re.I)
_FRAME_TAIL = re.compile(r"(?:\s+(?:thanks|thank\s+you|thx|cheers|please\s+be\s+(?:precise|brief|exact))"
                         r"(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?[!.\s]*)+$", re.I)
# Discourse adverbs and intensifiers (a closed class of English): they qualify the speaker's
# stance or the sentence, never the figure asked.
_DISCOURSE = re.compile(
    r"(?<![\w-])(?:really|actually|basically|honestly|literally|seriously|frankly|truly|simply|just|quite|"
    r"definitely|certainly|obviously|essentially|personally|kindly|please|anyway|anyhow)(?![\w-]),?\s*", re.I)
# a second term defined in the same sentence: "..., and equity as total equity"
_MORE_DEFINITIONS = re.compile(r",?\s+and\s+(?:define\s+)?(?P<term>[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,3})\s+as\s+", re.I)
_DEFINE = re.compile(r"^\s*define\s+(?P<term>.+?)\s+as\s+(?P<formula>.+?)\.*$", re.I)
# "Use revenues from franchised restaurants divided by total revenues on the income statement,
# percent to two decimals.": the formula of what the question asks, its term unnamed
_USE_FORMULA = re.compile(
    r"^\s*(?:use|using|take|compute\s+(?:it|this)\s+as|calculate\s+(?:it|this)\s+as|measure\s+(?:it|this)\s+as)\s+"
    r"(?P<formula>[^,;.]+?\s(?:divided\s+by|over|/|minus|less|plus|as\s+a\s+(?:percentage|percent|share)\s+of)\s"
    r"[^,;]+?)(?=\s+(?:on|from|in)\s+the\s+(?:[\w-]+\s+){0,3}statements?\b|,|;|\.\s*$|$)", re.I)


def _units_and_rounding(text: str, inst: Instructions) -> bool:
    """Read units/rounding from an instruction text; True when it held any."""
    found = False
    for m in _ROUND.finditer(text):
        n = m.group("n") or m.group("n2") or m.group("n3") or m.group("n4")
        unit = (m.group("unit") or "").lower()
        if n is not None:
            inst.decimals = int(n) if n.isdigit() else _NUMBER_WORDS.get(n.lower(), 2)
        elif unit == "cent":
            inst.decimals = 2
        elif unit:
            inst.decimals = 0
        found = True
    for m in _UNITS.finditer(text):
        word = m.group(0).lower()
        scale = (m.group("scale") or "").lower()
        if "percent" in word:
            inst.scale = "percent"
        elif scale:
            inst.scale = {"mm": "millions", "mn": "millions", "bn": "billions", "k": "thousands"}.get(scale, scale)
        if re.search(r"usd|us\s*\$|\$|dollar", word):
            inst.currency = "USD"
        found = True
    if re.search(r"\bunits?\s+of\s+percents?\b", text, re.I):
        inst.scale, found = "percent", True
    return found


def _statements(text: str, inst: Instructions) -> bool:
    kinds = _kinds(text)
    for kind in kinds:
        if kind not in inst.statements:
            inst.statements.append(kind)
    return bool(kinds)


def without_frame(text: str) -> str:
    """The question without the conversational frame around it: a greeting or "quick
    question" before it, "thanks" after it."""
    q = text
    while True:
        m = _FRAME_LEAD.match(q)
        if not m or not q[m.end():].strip():
            break
        q = q[m.end():]
    return _FRAME_TAIL.sub("", q).strip()


# "What's the status ...", "how's", "where's": the verb written short after a question word (or
# "it", "that", "there"); a possessive never follows these words
_IS_CONTRACTED = re.compile(r"\b(what|who|how|where|when|which|that|there|it)['\u2019]s\b", re.I)


def plain_question(text: str) -> str:
    """The question as asked, without its frame (``without_frame``) and without discourse words,
    which carry the analyst's tone, never what is asked ("total actually payment volume" is the
    total payment volume); a verb written short is written out ("What's" is "What is")."""
    q = without_frame(_IS_CONTRACTED.sub(r"\1 is", re.sub(r"\s+", " ", text).strip()))
    return re.sub(r"\s{2,}", " ", _DISCOURSE.sub("", q)).strip()


def parse_question(text: str) -> ParsedQuestion:
    """Split a question into what is asked and the analyst's instructions."""
    inst = Instructions()
    q = plain_question(text)
    m = _PERSONA.match(q)
    if m:
        inst.persona = m.group(0).strip()
        _statements(m.group("resources"), inst)
        inst.removed.append(inst.persona)
        q = q[m.end():]
    else:
        m = _PERSONA_SIMPLE.match(q)
        if m and re.search(r"\b(analyst|banker|investor|manager|advisor|accountant|expert|associate)\b", m.group(0), re.I):
            inst.persona = m.group(0).strip()
            inst.removed.append(inst.persona)
            q = q[m.end():]
    # Parentheticals that only give units or rounding: "(in USD millions)", "(round to 1dp)"
    def paren(m: re.Match[str]) -> str:
        probe = Instructions()
        if _units_and_rounding(m.group(1), probe) or not m.group(1).strip():
            _units_and_rounding(m.group(1), inst)
            inst.removed.append(m.group(0))
            return " "
        return m.group(0)

    q = _PAREN.sub(paren, q)
    kept: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(q) if s and s.strip()):
        sentence = _HERES.sub("", sentence)
        use = _USE_FORMULA.match(sentence)
        if use and kept:
            # the measure the question before asks, written as this formula
            term = asked_concept(kept[-1]) or "the asked measure"
            inst.definitions[term] = use.group("formula").strip(" .,")
            _units_and_rounding(sentence, inst)
            _statements(sentence, inst)
            inst.removed.append(sentence)
            continue
        d = _DEFINITION.search(sentence) or _DEFINE.match(sentence)
        if d:
            # "Define debt as A plus B, and equity as total equity": one definition per term
            term, formula = d.group("term").strip(), d.group("formula").strip(" .")
            for more in reversed(list(_MORE_DEFINITIONS.finditer(formula))):
                inst.definitions[more.group("term").strip()] = formula[more.end():].strip(" .")
                formula = formula[:more.start()]
            inst.definitions[term] = formula.strip(" .,")
            inst.definitions = dict(reversed(list(inst.definitions.items())))
            inst.removed.append(sentence)
            continue
        inline = _INLINE_DEFINITION.search(sentence) or _DASHED_DEFINITION.search(sentence)
        if inline and inline.start() > 0:
            asked = sentence[:inline.start()]
            terms = list(_INLINE_TERM.finditer(asked))
            # without "the"/"its" before it, the term is what follows the question's label
            # ("PG&E Corporation 2016: capex intensity")
            term = (terms[-1].group("term") or terms[-1].group("last")) if terms else re.split(r":\s", asked)[-1]
            # "Using eBay's 2021 Form 10-K cash flow statement, compute free cash flow ...": the
            # term is what the request verb asks, not the source named before it
            if _BEFORE_REQUEST.search(term):
                # ... up to its period words, as after "the"/"its" ("free cash flow for 2021")
                term = re.sub(rf"\s+{_TERM_END}.*$", "", _BEFORE_REQUEST.sub("", term)) or term
            inst.definitions[term.strip()] = inline.group("formula").strip(" .")
            inst.removed.append(sentence[inline.start():inline.end() - len(inline.group("end"))])
            sentence = (asked + inline.group("end")).strip()
        # "EBAY 10-Q Q2 2023 — compute free cash flow ... ($M).": a request after a label asks
        is_question = bool(_QUESTION_START.match(sentence)) or sentence.rstrip().endswith("?") or bool(
            _LABELLED_REQUEST.match(sentence))
        if not is_question:
            if (_STATES_FIGURES.search(sentence) and not _directs(sentence)
                    and not _ROUND.search(sentence) and not _UNITS.search(sentence)):
                # a premise ("Oracle's operating cash flow fell from $15.9bn in FY21 to $9.5bn in
                # FY22. What drove the decrease?"): it names what the question asks about
                kept.append(sentence)
                continue
            # an instruction sentence: units, rounding, statements to use, or other directions
            held = _units_and_rounding(sentence, inst) | _statements(sentence, inst)
            if held or _INSTRUCTION_CUE.search(sentence):
                inst.removed.append(sentence)
                continue
            kept.append(sentence)
            continue
        c = _CLAUSE.match(sentence)
        if c and _INSTRUCTION_CUE.search(c.group("clause")) and (
                _statements(c.group("clause"), inst) | _units_and_rounding(c.group("clause"), inst)):
            inst.removed.append(c.group("clause"))
            sentence = sentence[c.end():]
        for rx in (_ROUND, _UNITS):
            for m in reversed(list(rx.finditer(sentence))):
                _units_and_rounding(m.group(0), inst)
                inst.removed.append(m.group(0))
                sentence = sentence[:m.start()] + " " + sentence[m.end():]
        for m in reversed(list(_SOURCE.finditer(sentence))):
            _statements(m.group(0), inst)
            inst.removed.append(m.group(0))
            sentence = sentence[:m.start()] + " " + sentence[m.end():]
        kept.append(sentence)
    q = " ".join(kept)
    q = re.sub(r"\s+([,.?;:])", r"\1", re.sub(r"\s+", " ", q)).strip(" ,;:")
    q = re.sub(r"\?\s*\.$", "?", q)
    if q and q[0].islower():
        q = q[0].upper() + q[1:]
    return ParsedQuestion(text, q or text.strip(), inst)


def format_figure(value: float, scale: str = "", decimals: int | None = None, currency: str = "") -> str:
    """A figure as the analyst asked for it: "$81,797 million", "0.66", "24.3%"."""
    if decimals is None:
        decimals = 0 if float(value).is_integer() else 2
    body = f"{abs(value):,.{decimals}f}"
    sign = "-" if value < 0 else ""
    if scale == "percent":
        return f"{sign}{body}%"
    unit = {"thousands": " thousand", "millions": " million", "billions": " billion"}.get(scale, "")
    return f"{sign}{'$' if currency == 'USD' else ''}{body}{unit}"


# -- the concept asked ---------------------------------------------------------------------------
_AUX = r"(?:did|does|do|was|were|is|are|has|have|had|will|would|could|can|should)"
# Words that end the asked thing: its period, its source, a comparison ("in 2022", "as of June 30",
# "according to the 10-K", "compared with").
_CONCEPT_STOP = re.compile(
    # "per" ends the thing asked only before a share or a document ("per the 10-K"): "sales per
    # gross square foot" is another figure than sales
    r"\s+(?:in|for|at|as|during|over|ended|ending|through|on|from|per(?=\s+(?:share|diluted|basic|the|its|our|their|a|an|"
    r"each|its|annum|year|quarter|month)\b)|according|reported|under|to|by|within|since|"
    r"across|compared|versus|vs\.?|and\s+how|and\s+what|and\s+why)\b|[?,;:]|(?<![A-Z])\.(?:\s|$)", re.I)
_CONCEPT_END = rf"(?=(?:{_CONCEPT_STOP.pattern})|$)"
_CONCEPT_PATTERNS = (
    # "How many paid memberships did Netflix have ...", "How much revenue did Adobe report ..."
    re.compile(rf"^how\s+(?:many|much)\s+(?P<np>(?!{_AUX}\b)[^?]+?)\s+{_AUX}\b", re.I),
    # "What was Tesla's total automotive revenue in 2022?"
    re.compile(rf"^(?:what|which)\s+(?:was|were|is|are|has\s+been|have\s+been)\s+(?:the\s+)?(?P<np>[^?]+?){_CONCEPT_END}",
               re.I),
    # "What comparable sales growth did Target report for fiscal 2022?"
    re.compile(rf"^(?:what|which)\s+(?P<np>(?!{_AUX}\b)[^?]+?)\s+(?:did|does|do|has|have|might|may|must|could|would|"
               rf"should|will|can)\b", re.I),
)
# a lead-in is no question itself: "How much stock was bought back, what authorization was
# left ..." asks twice
_LEAD_IN = re.compile(r"^(?!(?:how|what|which|who|when|did|does|do|is|are|was|were|has|have)\b)[^?]{3,120}?[,:]\s+"
                      r"(?=(?:how\s+(?:many|much)|what|which)\b)", re.I)
_POSSESSOR = re.compile(r"^[^?]*?(?:'s|’s|s'|s’)\s+", re.I)


_AUX_WORD = re.compile(_AUX, re.I)


def asked_concept(question: str) -> str:
    """The thing a factual question asks for, as written: "total automotive revenue" of
    "What was Tesla's total automotive revenue in 2022?", "paid memberships" of "How many paid
    memberships did Netflix have ...". Empty when the question has none of these plain shapes
    (the caller then checks nothing). The possessor and parenthetical glosses are left out."""
    q = _PAREN.sub(" ", re.sub(r"\s+", " ", question)).strip()
    # a lead-in the instruction parser kept: "As a retail analyst covering COST, how many ..."
    q = _LEAD_IN.sub("", q)
    for rx in _CONCEPT_PATTERNS:
        m = rx.search(q)
        if m:
            concept = m.group("np").strip()
            cut = _CONCEPT_STOP.search(concept)
            if cut and rx is _CONCEPT_PATTERNS[0]:
                return ""  # "How much revenue came from the Americas ... did": a verb inside, no plain shape
            verb = re.search(rf"\s{_AUX}\b", concept, re.I)
            if rx is _CONCEPT_PATTERNS[2] and verb and (not cut or verb.start() < cut.start()):
                return ""  # "what authorization was left at year-end, and did ...": a clause, no noun phrase
            concept = concept[:cut.start()] if cut else concept  # "purchase price for iRobot did ..."
            if re.search(r"(?:'s|’s|s'|s’)\s", concept):
                concept = _POSSESSOR.sub("", concept)
            concept = _without_relative_clause(concept)
            return re.sub(r"^(?:the|a|an|its|their)\s+", "", concept, flags=re.I).strip(" ,")
    return ""


# "First Mortgage Bonds [that] the Utility sold", "stores the company operated": a clause after
# the thing asked, its subject and verb; the thing is what a filing prints ("the sale of ... First
# Mortgage Bonds"), the verb is the analyst's
_RELATIVE_CLAUSE = re.compile(r"\s+(?:the|its|their|our|this|that)\s+(?:[\w&'\u2019.-]+\s+){0,2}[a-z][a-z-]*$")
_BEFORE_NOUN_PHRASE = frozenset(
    "of in for to from by on at with and or under over per as into than between across about via during "
    "through within without against among versus vs".split())


def _without_relative_clause(concept: str) -> str:
    m = _RELATIVE_CLAUSE.search(concept)
    if m is None or not m.start():
        return concept
    before = concept[:m.start()].split()
    # "amount of the notes", "interest on its debt": a preposition's object, no clause
    if not before or before[-1].lower() in _BEFORE_NOUN_PHRASE or _AUX_WORD.fullmatch(before[-1]):
        return concept
    return concept[:m.start()]


# Words that name a computation over printed figures ("inventory turnover ratio", "3-year
# revenue CAGR", "net profit margin") or the analyst's bound on it ("minimum base salary" is
# printed "not less than"), not words a filing must print: the concept check looks only for
# the figures' own words.
COMPUTED_WORDS = frozenset(
    """ratio ratios margin margins turnover cagr growth rate rates coverage average averages change changes
    percentage percent proportion days day multiple multiples yield return returns payout per adjusted
    unadjusted compound annual annualized annualised trailing minimum maximum approximate approximately
    estimated overall combined aggregate""".split()
    # link words of compounds: "opioid-related exposure" is about opioids
    + "related relating based linked driven associated".split()
    # how a figure moved: filings print the figures (or "increased"), the analyst says "grow", "fall"
    + """grow grew grown fall fell fallen move moved evolve evolved change changed perform performed rise rose
    decline declined increase increased decrease decreased jump jumped drop dropped compare compared trend
    dependent improving improve drove drive drives driver drivers fast yoy qoq
    slip slipped slide slid surge surged plunge plunged soar soared climb climbed swing swung shrink shrank
    widen widened accelerate accelerated slow slowed weaken weakened strengthen strengthened""".split()
    # the analyst asking for a cause: the filing states it with its own connective ("due to")
    + "cause caused causes causing reason reasons explain explains explained explanation behind".split()
    # how big the analyst finds the move: "a large net loss" is the net loss
    + "large larger big bigger huge sharp steep".split()
    # rounding and unit words the instruction parser left in a short trailing sentence
    + "decimal decimals place places rounded round percent".split()
)
_NAMED_WORD = re.compile(r"(?<=[\w,;:'\u2019\"(]\s)[A-Z][\w&'-]*")


def computed_words(text: str) -> frozenset[str]:
    """``COMPUTED_WORDS`` less those ``text`` capitalises within a sentence: "Big Macs" and
    "Large Cap" are names, not how big a move was."""
    from desktop_rag.core.domain.terms import tokenize

    named = {t for m in _NAMED_WORD.finditer(text) for t in tokenize(m.group(0))}
    return COMPUTED_WORDS - named if named & COMPUTED_WORDS else COMPUTED_WORDS


# A question that defines what it asks ("... defined as", "measured as", "i.e.", "using A over B")
# names a computation: its words are the analyst's, not the filing's.
_DEFINED_HERE = re.compile(
    r"\b(?:defined\s+as|define\s+(?:it|\w+)\s+as|measured\s+as|calculated\s+as|computed\s+as|i\.e\.|"
    r"(?:divided\s+by|over\s+(?:the\s+)?average|as\s+a\s+percentage\s+of))", re.I)


def defines_its_concept(question: str) -> bool:
    """The question spells out how its figure is computed."""
    return bool(_DEFINED_HERE.search(question))


_MONEY_WORDS = frozenset({"dollars", "dollar", "usd", "money", "cash"})


def counted_noun(question: str) -> str:
    """The noun a "How many X ..." question counts ("consoles" of "How many Xbox consoles did
    Microsoft sell"); empty for other questions and for money ("how many dollars")."""
    q = _LEAD_IN.sub("", re.sub(r"\s+", " ", question).strip())
    if not re.match(r"how\s+many\b", q, re.I):
        return ""
    words = re.split(r"\s+of\s+", asked_concept(q), maxsplit=1)[0].split()  # "cans of Coca-Cola" counts cans
    # the head noun, past any adverb after it ("employees basically")
    nouns = [w for w in words if not (len(w) > 4 and w.lower().endswith("ly"))]
    head = nouns[-1].strip(".,").lower() if nouns else ""
    return "" if head in _MONEY_WORDS or len(head) < 3 else head


# the words a filing counts people by: a count of one is a count of the others
PEOPLE_WORDS = frozenset({"employees", "employee", "jobs", "job", "roles", "positions", "people", "staff", "workers",
                          "headcount", "associates"})


def printed_count(noun: str, labelled: bool = True) -> re.Pattern[str]:
    """Where a page prints a count of ``noun`` (``counted_noun``): "815 warehouses", "approximately
    79,100 employees", and with ``labelled`` also "Paid memberships at end of period 27,438" or a
    heading "Votes For" over rows of figures. Any word for people counts people ("500 employees
    ... their jobs")."""
    singular = noun[:-1] if noun.endswith("s") else noun
    # the noun as a whole word ("cans" is no "can"), singular or plural
    word = rf"\b(?:{re.escape(singular)}|{re.escape(noun)})\b" if len(singular) > 3 else rf"\b{re.escape(noun)}\b"
    if noun in PEOPLE_WORDS:
        word = rf"\b(?:{'|'.join(sorted(PEOPLE_WORDS))})\b"
    # not a year ("the 1998 Employee Stock Purchase Plan")
    number = r"(?!(?:19|20)\d\d(?!\d|,\d))\(?\$?\d[\d,]*(?:\.\d+)?\)?(?:[ \t]+(?:million|billion|thousand))?"
    # "12 months for employees" is a length of time
    # between the words a space or a line break ("201,000 permanent part-time [line break]
    # employees"); right after the figure a line break only before the noun itself ("Shares
    # outstanding were 400 [line break] first- and third-party console games" counts no consoles)
    gap = r"(?:[ \t]+\n?|\n)[ \t]*"
    before = (rf"(?<![\w.,]){number}(?!\s+(?:weeks?|months?|days?|years?|hours?)\b)"
              rf"(?:[ \t]+(?:[A-Za-z&'-]+{gap}){{0,3}}|[ \t]*\n[ \t]*){word}")  # "815 warehouses", "3,400 employees"
    if not labelled:
        return re.compile(before, re.I)
    if noun in PEOPLE_WORDS:
        # a row labelled by the people word itself ("Full time equivalent headcount 72,970",
        # "Employees at year end 1,500"), not a label the word modifies ("employee benefit plan
        # stock 5,548")
        return re.compile(rf"{before}|{word}(?:[ \t]+(?:at|as\s+of|end\s+of)\b[^\n\d]{{0,30}})?[ \t:]+{number}", re.I)
    return re.compile(
        rf"{before}"
        # "Paid memberships at end of period 27,438" (two digits at least: "employee benefit plan
        # stock — — 1" is a row of another thing, in millions)
        rf"|{word}[^\n\d.;]{{0,60}}?(?=\(?\$?\d[\d,]*\d){number}"
        rf"|{word}[^\n\d]*\n[^\n]*\d[\d,]{{2,}}[^\n]*\d[\d,]{{2,}}",  # a heading over figures
        re.I)


def concept_gloss(question: str) -> str:
    """A parenthetical that spells the asked thing out: "capex (purchases related to property
    and equipment)" -> "purchases related to property and equipment"."""
    m = _PAREN.search(question)
    if m is None or re.search(r"\d{4}|quarter|ended|ending|fiscal", m.group(1), re.I) or _UNIT_ASIDE.fullmatch(m.group(1).strip()):
        return ""  # a period, or the unit the answer is wanted in ("$M", "in USD millions", "%")
    return m.group(1).strip()


_UNIT_ASIDE = re.compile(r"(?:in\s+)?(?:us)?[$\u20ac\u00a3]?\s*(?:usd\s*)?(?:m|mm|mn|bn|b|k|000s|thousands?|millions?|billions?|"
                         r"%|percent(?:age)?|x|times|days|bps|basis\s+points|\$)(?:\s*usd)?|(?:in\s+)?usd", re.I)


def designators(question: str) -> list[str]:
    """Programs, products and models the question names by a code of letters and digits
    ("F-35", "PAC-3", "C-130J", "A320"), not a period ("Q1", "FY2023", "1Q23") or a form ("10-K")."""
    out: list[str] = []
    for m in _DESIGNATOR.finditer(question):
        code = m.group(0)
        if not _NOT_A_DESIGNATOR.fullmatch(code) and code not in out:
            out.append(code)
    return out


_DESIGNATOR = re.compile(r"(?<![\w-])[A-Z]{1,4}-?\d{1,4}[A-Z]{0,2}(?![\w-])")
_NOT_A_DESIGNATOR = re.compile(r"(?:Q[1-4]|H[12]|FY\d{2,4}|CY\d{2,4}|[1-4]Q\d{2}|\d{1,2}-[KQ]|S-\d|F-[1-4]|DEF14A)", re.I)


# -- the facts a question asks for ------------------------------------------------------------
FactKind = Literal["amount", "per_unit", "count", "date", "rate", "figure", "any", "claim"]


@dataclass(frozen=True)
class FactAsk:
    """One fact a question asks for, of a kind its wording names: "how much ... buy back" asks
    an ``amount``, "when did it close" a ``date``, "as a share of the total" a ``rate``, "how
    many employees" a ``count``, "price per share" a ``per_unit`` amount; ``figure`` is the
    level of a measure named without a kind ("What were total payment volume and ..."), ``any``
    any figure, a rate too (what guidance gives). ``words``
    is the clause that asks it, as written, for its measure's words ("how much authorization
    was left"); empty when the clause names no measure of its own ("in dollars"). ``topic``:
    the question's opening clause, what the question is about ("What debt did Corning issue in
    Q2 2023"), whose words a clause asks of when it names only the kind ("coupons",
    "maturities") or points back at it ("what did it cost").
    """

    kind: FactKind
    words: str
    # "level": a balance at a date ("how much authorization was left at year-end"); "flow":
    # what happened over a period ("how much stock did they buy back during fiscal 2023"); "": either
    timing: Literal["level", "flow", ""] = ""
    topic: str = ""


# A clause asks a fact of a kind by these words (tried in this order: "price per share" is a
# per-unit amount, "how many shares" a count, "when did the deal close" a date).
_KIND_CUES: tuple[tuple[FactKind, re.Pattern[str]], ...] = (
    ("per_unit", re.compile(r"\bper[\s-]+(?:common\s+|diluted\s+)?(?:share|unit)\b|\ba\s+share\s+price\b", re.I)),
    # "how many stores did it close": a count, whatever verb follows ("close", "file")
    ("count", re.compile(r"\bhow\s+many\b", re.I)),
    ("date", re.compile(r"\b(?:when|clos(?:e|ed|es|ing)|timing|(?<!to-)(?<!to\s)dates?|dated|fil(?:e|ed|ing)\s+for|maturit(?:y|ies)|"
                        r"matur(?:e|es|ed|ing)|expir(?:e|es|ed|ation|y))\b", re.I)),
    ("rate", re.compile(r"\b(?:(?:as\s+a\s+)?share\s+of|percent(?:age)?s?|proportion|growth|grow|grew|rates?|"
                        r"coupons?|yields?|basis\s+points)\b|%", re.I)),
    # "how big is the headcount cut": a change's size, as a count or a share ("approximately 10%")
    ("any", re.compile(r"\bhow\s+(?:big|large|deep|significant|sizable)\b(?=[^?;]*\b(?:cuts?|reductions?|declines?|"
                       r"decreases?|increases?|layoffs?|drops?|changes?)\b)", re.I)),
    # "how large is the reverse termination fee", "how big is the authorization": money's size
    ("amount", re.compile(r"\bhow\s+(?:large|big)\b(?=[^?;]*\b(?:fees?|authori[sz]ations?|programs?|prices?|charges?|"
                          r"costs?|deals?|loans?|debt|facilit(?:y|ies)|payments?|settlements?|awards?|damages|fines?|"
                          r"penalt(?:y|ies)|impairments?|buybacks?|repurchases?|dividends?|investments?|commitments?|"
                          r"backlog|liabilit(?:y|ies)|losses|write-?downs?|consideration)\b)", re.I)),
    # "how large was the fire": its size, in acres, structures, square feet
    ("count", re.compile(r"\bhow\s+(?:many|large|big|extensive)\b|\bnumber\s+of\b|\b(?:size|extent)\s+of\b", re.I)),
    ("amount", re.compile(
        r"\b(?:how\s+much|amounts?|costs?|cost\s+of|price[sd]?|paid|pay|spen[dt]|record(?:ed)?|charges?|accru(?:e|ed|al|als)|"
        r"proceeds|consideration|fees?|dollars?|liabilit(?:y|ies)|valued?|worth|buy\s*backs?|bought\s+back|gains?|"
        r"repurchas(?:e|es|ed|ing)|dividends?|capex|capital\s+expenditures?|financing|principal|authori[sz]ation|"
        r"revenues?|sales|income|earnings|expenses?|cash|debt|borrowings?|loans?)\b", re.I)),
)
# a clause asking another thing than a date, and the "when ..." that dates it
_OTHER_WH = re.compile(r"\s*(?:what|which|how\s+(?:much|many))\b", re.I)
_WHEN_CLAUSE = re.compile(r"\b(?:when|once|after|as)\s+(?:the\s+|its\s+|their\s+)?(?:[\w&'\u2019.-]+\s+){0,3}"
                          r"(?:clos(?:e|ed|es|ing)|complet\w+|matur\w+|expir\w+|dated|fil\w+)\b.*$", re.I)
# a date that qualifies the figure asked ("worth on the transfer date", "as of the record date")
_WHEN_QUALIFIER = re.compile(r"\b(?:on|at|as\s+of)\s+(?:the\s+|that\s+|its\s+)?(?:[\w-]+\s+){0,2}date\b", re.I)
# Words for things counted: "active accounts", "employees", "restaurant openings"
_COUNTED = re.compile(r"\b(?:employees|headcount|accounts|customers|users|members(?:hips)?|subscribers|stores|"
                      r"restaurants|openings|locations|units|shares|vehicles|deliveries)\b", re.I)
# "what support ...", "which item ...": the noun the clause asks for, right after its "what"
_WHAT_NOUN = re.compile(r"(?:what|which)\s+(?!(?:was|were|is|are|has|have|had|did|does|do|will|would|kind|type|sort|"
                        r"amount|number|total|level|portion|share|percentage|proportion)\b)([A-Za-z][\w-]*)", re.I)
# A balance at a date, or what happened over a period
# (an authorization is a ceiling in place, not what was done: "is authorized to purchase up to $30 billion")
LEVEL_WORDS = re.compile(r"\b(?:as\s+of|at\s+(?:the\s+)?(?:end|close)\b|year[- ]end|left|remain(?:s|ed|ing)?|outstanding|"
                         r"balance|available|authori[sz]ed\s+to)\b", re.I)
FLOW_WORDS = re.compile(rf"\b(?:during|over\s+the|in\s+the\s+(?:\w+\s+)?(?:quarter|year|period|months?)|"
                        rf"for\s+the\s+(?:\w+\s+)?(?:quarter|year|period|months?)|(?:in|on)\s+{MONTH_NAME_RE}\b|"
                        # "repurchased in fiscal 2022", "in FY23", "in Q2 2023": over a year or quarter
                        rf"in\s+(?:fiscal\s+(?:year\s+)?|fy\s*'?)(?:19|20)?\d\d\b|in\s+q[1-4]\b)", re.I)


def timing_of(text: str) -> Literal["level", "flow", ""]:
    """"level" when ``text`` speaks of a balance at a date ("as of", "remaining", "at year-end"),
    "flow" when of what happened over a period or on a day ("during", "for the quarter", "in
    August 2022"), "" for both or neither; a sentence's opening phrase says it for the sentence
    ("As of January 31, 2023, $6.0 billion remained, which was increased in February")."""
    opening = text.lstrip(" \u2022-*(")[:24]  # "As of January 31, 2023, ... which was increased in February"
    if LEVEL_WORDS.match(opening) or FLOW_WORDS.match(opening):
        return "level" if LEVEL_WORDS.match(opening) else "flow"
    level, flow = bool(LEVEL_WORDS.search(text)), bool(FLOW_WORDS.search(text))
    return "level" if level and not flow else "flow" if flow and not level else ""


# Guidance asks its figures, whatever they measure ("What guidance did they give for Q3?"); a
# margin is printed in dollars or as a percentage ("What was the gross margin?")
_GUIDANCE = re.compile(r"\b(?:guid(?:e|ed|ance)|outlook|forecasts?|margins?)\b", re.I)
# A clause that asks why or whether asks no figure ("why did it drop", "did it grow"), nor do
# the noun phrases that continue it ("What drove subscription and support revenues?").
_NO_FACT_CLAUSE = re.compile(
    rf"^(?:why|what\s+(?:drove|drives|caused|explains|led\s+to)|(?:what|which)\s+(?:were|are|was|is)\s+the\s+"
    rf"(?:main\s+|primary\s+|key\s+)?(?:reasons?|factors?|drivers?|causes?)|explain|describe|{_AUX}\s+(?!there\b))\b",
    re.I)
# a clause asking whether ("is it recoverable through rates", "had it accrued any liability")
_YES_NO_CLAUSE = re.compile(rf"^{_AUX}\s+(?!there\b)(?:it|they|this|that|these|those|the|its|their|any|[A-Z])", re.I)
# a clause qualifying the figure asked before it, no fact of its own: "net of insurance recoveries"
_QUALIFIER_CLAUSE = re.compile(r"^(?:net\s+of|excluding|including|before|after|exclusive\s+of|inclusive\s+of|"
                               r"on\s+an?\s+[\w-]+\s+basis|in\s+(?:millions|billions|thousands|dollars|usd))\b", re.I)
# A clause of its own (a new question or instruction), not a noun phrase continuing the one before
_OWN_CLAUSE = re.compile(rf"^(?:how|what|which|when|where|who|why|{_AUX}|give|provide|include|list|state|show|"
                         rf"name|specify|identify|i\b|i'm|i'd)\b", re.I)
# "How were they split between the U.S. and international?": the parts that follow ask the
# kind of the figure before them
_SPLIT = re.compile(r"\b(?:split|broken\s+down|breakdown|divided|allocated|between)\b", re.I)
# A figure asked by a measure named plainly ("What were total payment volume and ..."): a
# clause opening "what was/were ..." that names a measure
_WHAT_WAS = re.compile(r"^(?:what|which)\s+(?:was|were|is|are)\b", re.I)
_VOLUME = re.compile(r"\b(?:volumes?|gmv|tpv|arr|bookings|backlog)\b", re.I)
# Sentences that ask for content without a question's grammar: "Give the buyer, the price and
# the expected closing timing." (the instruction parser sets them apart), "I'm interested in
# capex, restaurant openings and tax rate."
_CONTENT_REQUEST = re.compile(r"^\s*(?:give|provide|include|list|state|show|name|specify|identify|"
                              r"i(?:'m|\s+am)\s+interested\s+in|i\s+(?:need|want|would\s+like))\b", re.I)
# a request about the answer itself: "Answer yes or no and explain using the 10-K", "Explain."
_ANSWER_REQUEST = re.compile(r"^\s*(?:answer|explain|justify|support|reply)\b", re.I)
_CLAUSE_BREAK = re.compile(r"\s*[,;:]\s*|\s+(?:and|as\s+well\s+as|plus)\s+", re.I)
# a question's auxiliary and the name after it, its subject: "... did PG&E Corporation"
_AUX_SUBJECT = re.compile(r"\b(?:did|does|do|has|have|had|was|were|is|are|will)\s+(?:the\s+)?[A-Z][\w&.'\u2019-]*"
                          r"(?:\s+[A-Z][\w&.'\u2019-]*)*$")
# "June 2, 2023" is one date, not two clauses
_DATE_COMMA = re.compile(rf"\b({MONTH_NAME_RE})\s+(\d{{1,2}}),\s*((?:19|20)\d\d)\b", re.I)
# "the U.S.", "the U.K.": a place named by its initials (no word of three letters)
_INITIALS = re.compile(r"\b(?:[A-Z]\.){2,}")
_FORMULA = re.compile(r"[=/]|\b(?:divided\s+by|minus|plus)\b", re.I)
# question words, and words of a figure's kind, that name no measure: what is left of a clause
# without them are its own words ("in dollars", "as a share of the total", "how was it split": none)
ASK_GRAMMAR = frozenset("how what which when where who why give provide include list state show name specify "
                         "identify interested want need like dollar share percent percentage proportion date number "
                         "split broken breakdown divided came come comes went go goes get got put place placed "
                         "enter entered announce announced large big extensive size extent first second third "
                         "fourth half months month nine six three twelve grow grew grown growth increase increased "
                         "decrease decreased decline declined change changed rise rose fall fell".split())


def _own_words(clause: str) -> set[str]:
    # not a period or a form ("per its Q1 2023 10-Q" names no measure)
    return {t for t in content_terms(clause) if t not in ASK_GRAMMAR and not any(c.isdigit() for c in t)} | set(
        _INITIALS.findall(clause))


_GLOSS = re.compile(r"\s*\(([^()]{0,160})\)")
_WH = re.compile(r"^(?:\w+\s+)?(?:how|what|which|when|where|who|why)\b", re.I)
_QUESTION_WORD = re.compile(r"\b(?:how|what|which|when|where|who|why)\b", re.I)
_AND = re.compile(r"\s+(?:and|as\s+well\s+as|plus)\s+", re.I)


def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that may each ask a fact: split at commas, semicolons and
    colons, and at "and" when what follows starts a question of its own ("... and how much
    remains", "... and for how much") or what precedes is an item of its own ("buybacks and
    dividends", "the price and the closing date"), not inside what a question names ("how much
    did Azure and other cloud services revenue grow"). A parenthetical stays with its clause,
    unsplit ("What capex (purchases related to property and equipment and intangible assets)")."""
    glosses: list[str] = []

    def hold(m: re.Match[str]) -> str:
        glosses.append(m.group(0))
        return f" \x00{len(glosses) - 1}\x00"

    text = _GLOSS.sub(hold, _DATE_COMMA.sub(r"\1 \2 \3", sentence))
    out: list[str] = []
    for piece in re.split(r"\s*[,;:]\s*", text):
        parts = _AND.split(piece)
        current = parts[0]
        for part in parts[1:]:
            item = not _QUESTION_WORD.search(current) or bool(measure_phrase(current) or _VOLUME.search(current)
                                                              or _COUNTED.search(current))
            # "how many employees did PG&E Corporation and the Utility have": one subject of two names
            subject = _AUX_SUBJECT.search(current) and re.match(r"(?:the\s+)?[A-Z]", part) and not _OWN_CLAUSE.match(part)
            if not subject and (_WH.match(part) or _OWN_CLAUSE.match(part) or item):
                out.append(current)
                current = part
            else:
                current = f"{current} and {part}"
        out.append(current)
    return [re.sub(r"\s*\x00(\d+)\x00", lambda m: glosses[int(m.group(1))], c).strip() for c in out]


# where the analyst says the answer is ("According to the 8-K dated February 13, 2023", "Per its
# FY2022 10-K", "As disclosed in the Q3 10-Q"): a source, not a fact asked
_SOURCE_CLAUSE = re.compile(r"(?:according\s+to|per|based\s+on|as\s+(?:stated|disclosed|described|reported|noted)\s+in|"
                            r"in\s+(?:its|the|their)\s+(?:[\w-]+\s+){0,3}?(?:8-k|10-k|10-q|filing|release|report|"
                            r"(?:income|cash\s+flows?|operations)\s+statement|statements?\s+of\s+[\w\s]{3,30}|"
                            r"balance\s+sheet))\b"
                            r"(?![^,]*\b(?:what|which|how|when|who|why)\b)", re.I)


# a short label before a colon and a question: "Headcount check: how many ...", "Buybacks: what ..."
# ("Salesforce buyback: per the 10-Q for the quarter ended ..., how big is ...": a source before the question)
_LABEL_LEAD = re.compile(r"^((?:[\w&'\u2019-]+\s+){0,3}[\w&'\u2019-]+):\s+(?=(?:how|what|which|who|when|where|why|did|does|"
                         r"do|is|are|was|were|has|have|can|will|(?:per|according\s+to|based\s+on|in|from|using)\s+"
                         r"(?:the|its|their)\b)\b)", re.I)


_SOURCE_WORDS = re.compile(r"\b(?:\d{1,2}-[KQ]|form|filing|report|release|for|the|its|of|per|fiscal|year|quarter|"
                           r"ended|ending|period|three|six|nine|twelve|months|weeks|as|at|in|on|dated|filed|event)\b", re.I)
# "the 8-K dated January 6, 2023", "filed on March 1, 2023": a date that names the filing, no date asked
_DATED_SOURCE = re.compile(rf"\b(?:dated|filed)\s+(?:on\s+|as\s+of\s+)?(?:{MONTH_NAME_RE})\s+\d{{1,2}},?\s+(?:19|20)\d\d\b", re.I)


def _names_a_source_only(clause: str) -> bool:
    """The clause names only a filing and its period ("WMT 10-Q for the quarter ended April 30,
    2023", "Salesforce 8-K (July 21, 2021)"): at most one word (the company) is left."""
    rest = re.sub(r"[()\d,:-]", " ", _SOURCE_WORDS.sub(" ", without_periods(clause)))
    return len(rest.split()) <= 1 and bool(re.search(r"\b\d{1,2}-[KQ]\b|\bform\b|\bfiling\b", clause, re.I))


def fact_asks(asked: str, removed: list[str] | tuple[str, ...] = ()) -> tuple[FactAsk, ...]:
    """The facts a question asks, one per clause that asks a figure of a kind (``FactAsk``), in
    the order asked. Only sentences that ask are read: questions, and requests for content
    ("Give the price and the closing date", also among ``removed``, the instruction sentences
    set apart from the question), never a stated premise ("GMV fell in 2019") or a formula.
    A clause that asks why or whether asks none, nor do the noun phrases continuing it; a noun
    phrase continuing a clause that asks a fact ("buybacks and dividends", "the U.S. and
    international" after "split between") asks a fact of the same kind, with the measure words
    of the clause before when it names none of its own ("in dollars and as a share of the total")."""
    sentences = [s for s in _SENTENCE.split(asked) if s.strip()]
    sentences += [r for r in removed if _CONTENT_REQUEST.match(r)]
    out: list[FactAsk] = []
    topic = ""
    for sentence in sentences:
        sentence = sentence.strip()
        if not (_QUESTION_START.match(sentence) or sentence.endswith("?") or _CONTENT_REQUEST.match(sentence)):
            continue
        label = _LABEL_LEAD.match(sentence)
        if label:
            # "Headcount check: how many employees ...": the label names the topic, asks nothing
            topic, sentence = topic or label.group(1), sentence[label.end():]
        clauses = _clauses(re.sub(r"(?<=[a-z0-9)])\.$", "", re.sub(r"[?!\s]+$", "", sentence)))
        # "WMT 10-Q for the quarter ended April 30, 2023: what debt did it issue": the source and
        # period lead, the question after it is the topic
        topic = topic or next((c for c in clauses if not _names_a_source_only(c)), clauses[0])
        previous: FactAsk | None = None
        no_fact = split = False
        for clause in _clauses(re.sub(r"(?<=[a-z0-9)])\.$", "", re.sub(r"[?!\s]+$", "", sentence))):
            clause = re.sub(r"^(?:and|or|but|also)\s+", "", clause.strip(), flags=re.I)
            if not clause or _FORMULA.search(_GLOSS.sub(" ", clause)) or _SOURCE_CLAUSE.match(clause):
                continue
            if _names_a_source_only(clause):
                continue  # "eBay 8-K for the event dated March 14, 2023": where to read, not what
            clause_cues = _DATED_SOURCE.sub(" ", clause)
            if previous is not None and _QUALIFIER_CLAUSE.match(clause):
                continue  # "..., net of insurance recoveries, ...": the fact before, qualified
            own = bool(_OWN_CLAUSE.match(clause))
            if out and _YES_NO_CLAUSE.match(clause):
                # "how much will it pay, and is it recoverable through rates?": a fact, then a
                # claim the answer must say yes or no to, in the filing's sentence that states it
                claim = FactAsk("claim", clause, "", topic if topic != clause else "")
                if claim not in out:
                    out.append(claim)
                previous, no_fact, split = None, True, False
                continue
            if _NO_FACT_CLAUSE.match(clause) and not re.match(r"(?:how|when)\b", clause, re.I):
                previous, no_fact, split = None, True, False
                continue
            if no_fact and not own:
                continue  # "What drove subscription and [support revenues]?"
            no_fact = False
            split = split or bool(_SPLIT.search(clause))
            kind: FactKind | None = "any" if _GUIDANCE.search(clause) else None
            for k, rx in _KIND_CUES:
                # "what were they worth on the transfer date": a date that says when, not one asked
                cue_text = _WHEN_QUALIFIER.sub(" ", clause_cues) if k == "date" else clause_cues
                if k == "date" and _OTHER_WH.match(clause):
                    # "what did each share receive when the deal closed": when it happened, no date asked
                    cue_text = _WHEN_CLAUSE.sub(" ", cue_text)
                if kind is None and rx.search(cue_text):
                    kind = k
            named = _WHAT_NOUN.match(clause)
            if kind is None and _COUNTED.search(clause) and not (named and not _COUNTED.match(named.group(1))):
                # "what support did it promise affected employees" asks the support, not a count
                kind = "count"
            if kind is None and previous is not None and (split or not own):
                kind = previous.kind  # "... buybacks and dividends", "split between the U.S. and international"
            if kind is None and _WHAT_WAS.match(clause) and (measure_phrase(clause) or _VOLUME.search(clause)):
                kind = "figure"
            if kind is None:
                continue
            words = clause
            timing = timing_of(clause)
            if previous is not None and not own:
                timing = timing or previous.timing  # "... recorded by year-end for Kincade, [Zogg] and [Dixie]"
            if not _own_words(clause) and previous is not None:
                if kind == previous.kind:
                    continue  # "how much ... in dollars", "... and how was it split": the same fact
                words = f"{previous.words} {clause}"  # "as a share of the total": of the measure asked before
            listed = _KINDS_LISTED.search(words)
            kinds = [_KIND_WORDS[listed.group(1).lower()], _KIND_WORDS[listed.group(2).lower()]] if listed else [kind]
            if listed:
                words = " ".join((words[:listed.start()] + words[listed.end():]).split())
            for each in dict.fromkeys(kinds):
                # "How much common stock did it buy back (shares and dollars)?": a count and an amount
                ask = FactAsk(each, words, timing, topic if topic != clause else "")
                if ask not in out:
                    out.append(ask)
                previous = ask
    return tuple(out)


# the kinds of figure an analyst lists in parentheses after what is asked: "(shares and dollars)"
_KIND_WORDS: dict[str, FactKind] = {
    "shares": "count", "number": "count", "count": "count", "units": "count", "volume": "count",
    "dollars": "amount", "amount": "amount", "value": "amount", "cost": "amount", "$": "amount", "usd": "amount",
    "percent": "rate", "percentage": "rate", "%": "rate", "rate": "rate"}
_KINDS_LISTED = re.compile(r"\(\s*(?:in\s+|both\s+)?(" + "|".join(re.escape(w) for w in _KIND_WORDS) + r")\s+(?:and|&|/|or)\s+(?:in\s+)?("
                           + "|".join(re.escape(w) for w in _KIND_WORDS) + r")\s*\)", re.I)


# -- the one reading of a question ------------------------------------------------------------
AskKind = Literal["figure", "ratio", "change", "yesno", "ranking", "comparison", "drivers", "list", "description",
                  "outlook"]

# Each shape is recognised by the question's own grammar: its opening words and the verbs and
# nouns an analyst uses for it, never a company, label or period. Tried in this order; the first
# that matches is the shape, the rest of the question is read by the stages that need it.
_OUTLOOK = re.compile(
    r"\b(?:guid(?:e|es|ed|ing|ance)|outlook|forecast\w*|project(?:s|ed|ions?)\s+(?:for|to)|"
    r"(?:does|did|do)\s+(?:[\w&'\u2019.-]+\s+){1,4}(?:expect|anticipate|plan|intend)|management\s+expects?|"
    r"(?:is|are)\s+(?:[\w&'\u2019.-]+\s+){1,4}expected\s+to\s+(?!close\b|be\s+completed)|expect(?:s|ed)?\s+(?:for|in)\s+"
    r"(?:fiscal\s+|fy\s*)?(?:next|the\s+(?:coming|next|following)|20\d\d)|next\s+(?:fiscal\s+)?year'?s?\b|"
    r"going\s+forward|in\s+the\s+coming\s+(?:year|quarters?)|"
    # a later period's figure as management sees it: "expected fiscal 2022 capital expenditures"
    r"(?:expected|anticipated|planned|projected|estimated|forecasted)\s+(?:fiscal\s+|fy\s*|calendar\s+)?"
    r"(?:20\d\d|next|future|upcoming)|"
    # "plans for equity issuance", not a benefit plan ("pension plans for employees")
    r"(?<!pension\s)(?<!benefit\s)(?<!retirement\s)(?<!incentive\s)(?<!compensation\s)(?<!stock\s)(?<!savings\s)"
    r"(?<!health\s)(?<!option\s)(?<!purchase\s)plans\s+(?:for|to)\b)", re.I)
_DRIVERS = re.compile(
    r"\b(?:why|drove|drives|driving|drivers?|driven\s+by\s+what|"
    # "what did Cal Fire conclude caused the fire", "what does management say led to the decline"
    r"what\s+(?:did|does|do)\s+(?:[\w&'\u2019.-]+\s+){1,4}(?:conclude|say|determine|find|believe|cite|report|think)s?\s+"
    r"(?:caused|led\s+to|drove)|what\s+(?:caused|led\s+to|contributed|explains?|"
    r"pushed|pulled|dragged|weighed\s+on|hurt|helped|boosted|lifted|"
    r"accounted\s+for|was\s+behind|were\s+behind|is\s+behind|are\s+behind)|reasons?\s+(?:for|behind|why)|"
    r"(?:main|primary|key)\s+(?:reasons?|factors?|causes?|contributors?)|explain\s+(?:the|why|how)|"
    # "Answer yes or no and explain using the 10-K": explain said of the answer itself
    r"explain(?=\s*(?:[.?!,;]|$)|\s+(?:using|with|based|from|briefly|it|this|that|your|in\s+(?:one|two|a)\b))|"
    r"attributable\s+to\s+what|what\s+(?:factors|items)|what\s+(?:rationale|justification|reasoning|motivation)|"
    r"(?:rationale|justification|reasoning|motivation)\s+(?:for|behind)|"
    # "Break down the factors behind the decline": the causes of a movement, however asked for
    r"(?:factors?|causes?|contributors?)\s+(?:behind|that\s+(?:drove|caused|led|explain))|"
    r"(?:factors?|causes?|contributors?)\s+(?:for|of)\s+(?:the\s+|its\s+|this\s+|that\s+)?(?:\w+\s+){0,3}?"
    r"(?:increase|decrease|decline|growth|change|drop|rise|fall|improvement|deterioration|shortfall|miss|beat)s?)\b", re.I)
_DESCRIBE_OPENING = re.compile(r"^(?:describe|summari[sz]e|explain|tell\s+me\s+about|walk\s+(?:me\s+)?through|"
                               r"give\s+(?:me\s+)?(?:an?\s+)?(?:overview|summary|description))\b", re.I)
_DRIVERS_OPENING = re.compile(
    r"^(?:why|what\s+(?:drove|drives|caused|causes|led\s+to|contributed|explains|accounts\s+for|was\s+behind|were\s+behind|"
    # "What pushed its effective tax rate so high?": a verb of moving a figure asks its causes
    r"pushed|pulled|dragged|weighed\s+on|hurt|helped|boosted|lifted|made(?!\s+up\b)|"
    r"rationale|justification|reasoning|motivation)|"
    r"(?:what|which)\s+(?:were|are|was|is)\s+(?:the\s+)?(?:main\s+|primary\s+|key\s+|major\s+)?(?:reasons?|factors?|"
    r"drivers?|causes?|contributors?))\b", re.I)
_YESNO = re.compile(r"^(?:(?:as\s+of|in|for|based\s+on|according\s+to|looking\s+at)\b[^,?]{1,80},\s*)?"
                    r"(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\s+(?!there\s+any\b)", re.I)
_RANKING = re.compile(
    r"\b(?:rank(?:ed|ing)?|order(?:ed)?\s+by|which\s+(?:\w+\s+){0,4}(?:had|has|have|was|were|is|are|grew|posted|"
    r"saw|showed|generated|delivered|contributed|recorded|reported)\s+(?:the\s+)?(?:highest|lowest|largest|"
    r"smallest|biggest|most|least|fastest|slowest|strongest|weakest|best|worst)|"
    r"(?:grew|growing|grow|declined?|fell)\s+(?:the\s+)?(?:fastest|slowest|most|least)|top\s+(?:\d+|three|five|two))\b",
    re.I)
_COMPARISON = re.compile(
    r"\b(?:compare[ds]?|comparison|versus|vs\.?|relative\s+to|how\s+did\s+(?:\w+\s+){1,5}(?:do|perform|fare)|"
    r"how\s+did\s+the\s+others?|(?:which|what)\s+(?:[\w'\u2019&.-]+\s+){0,4}(?:grew|declined|increased|decreased|rose|fell|"
    r"shrank|shrunk)\b|"
    r"difference\s+between|outperform\w*)", re.I)
_LIST = re.compile(
    # the instruction opens the question or follows its context ("Oracle 10-K FY2019: list the ...")
    r"(?:^|[:;]\s*)(?:please\s+)?(?:list|name|enumerate|identify)\b|\b(?:who\s+(?:are|were)|what\s+(?:are|were)\s+(?:the\s+|its\s+|their\s+)?"
    r"(?:main|key|principal|major|primary|largest|significant|most\s+significant|top)?\s*"
    r"(?:\w+\s+)?(?:risks?|customers|competitors|acquisitions|segments|products|brands|markets|geographies|regions|"
    r"suppliers|subsidiaries|proceedings|lawsuits|matters|items|components|categories|programs|initiatives|"
    r"priorities|businesses|divisions|channels|sources|uses))\b|\bwhich\s+(?:\w+\s+)?(?:acquisitions|companies|"
    r"businesses|deals|segments|products|markets|countries)\s+(?:did|has|have|were|closed|completed)\b|"
    # "What legal proceedings does Oracle disclose?": things (a plural) the filing tells of
    r"\bwhat\s+(?:[\w&'-]+\s+){0,3}?[a-z][a-z-]*[^s\W]s\s+(?:does|did|do|has|have)\s+(?:[\w&'\u2019.-]+\s+){1,4}?"
    r"(?:disclose|face|identify|cite|mention|name|list|highlight|flag|describe)\b", re.I)
# "which performance metrics and weightings determine the payouts", "which notes were issued": the
# things a filing enumerates (a verb of what they are, not of how they moved: that ranks or compares)
_WHICH_THINGS = re.compile(r"(?:^|,\s*)which\s+(?:[\w&'-]+\s+){0,3}?[a-z][a-z-]*[^s\W]s\s+(?:and\s+(?:[\w-]+\s+){0,2}?"
                           r"[a-z][a-z-]*s\s+)?(?:determine[sd]?|make\s+up|comprise[sd]?|include[sd]?|appl(?:y|ied|ies)|"
                           r"cover(?:s|ed)?|were|are)\b", re.I)
_DESCRIPTION = re.compile(
    r"^(?:describe|summari[sz]e|explain|tell\s+me\s+about|give\s+(?:me\s+)?(?:an?\s+)?(?:overview|summary|"
    r"description))\b|\bwhat\s+(?:deal|agreement|transaction|plan|program|settlement|acquisition|announcement|"
    r"debt|notes|action|event|change|policy|lawsuit|litigation|investigation|arrangement|partnership)\b|"
    # "What business did eBay acquire from Giosis": the thing bought or sold, named
    r"\b(?:what|which)\s+(?:business|businesses|company|companies|entity|entities|assets?|stake|brand|unit|division)\s+"
    r"(?:did|does|do|has|have|had|was|were|is|are)\s+(?:[\w&'\u2019.-]+\s+){1,4}?(?:acquire|buy|purchase|sell|divest|"
    r"spin|dispose|acquired|bought|purchased|sold|divested)\b|"
    # "What did McDonald's 8-K dated January 6, 2023 say about ...": a filing and its date between
    r"\bwhat\s+(?:did|does|do|has|have)\s+(?:[\w&'\u2019().,-]+\s+){1,9}?(?:announce|disclose|say|report\s+about|agree|enter|"
    r"conclude|decide|issue|do\s+about)|\bhow\s+(?:does|do|did)\s+(?:\w+\s+){1,5}(?:make\s+money|generate|"
    r"recogni[sz]e|account\s+for|manage|finance|fund)\b|\bwhat\s+(?:is|are|was|were)\s+(?:the\s+)?"
    r"(?:(?:key|main|principal|material|significant)\s+)?(?:nature|purpose|status|terms|business|strategy)\b|"
    # how a matter ended or what became of it: "How was the lawsuit resolved", "What was the
    # outcome of the trial", "What happened with the transaction", "How did the strikes affect it",
    # "What did it report in its 8-K dated ..."
    # "who was appointed to the board": a person named, with what the filing says of them
    r"(?:^|[:;,]\s*)who\s+(?:was|were|is|are|will|has|have|had)\b|"
    r"\bhow\s+(?:was|were|is|are|has|have|had)\s+(?:[\w&'\u2019().-]+\s+){1,10}?(?:been\s+)?(?:resolved|settled|"
    r"concluded|decided|structured|financed|funded)\b|\bwhat\s+(?:is|was|were|are)\s+the\s+(?:\w+\s+)?"
    r"(?:outcome|resolution|verdict)s?\s+of\b|\bwhat\s+(?:has\s+)?happened\s+(?:with|to|at)\b|\bwhat\s+(?:came|(?:has\s+)?become|became)\s+of\b|"
    r"\bhow\s+(?:did|does|do|will|would)\s+(?:[\w&'\u2019().-]+\s+){1,8}?(?:affect|impact|hurt|help)\b|"
    r"\bwhat\s+did\s+(?:[\w&'\u2019().-]+\s+){1,4}report\s+(?:in|with)\s+(?:its|the|a|this)\s+"
    r"(?:\w+\s+)?(?:8-k|form\s+8-k|current\s+report|press\s+release|release|announcement)\b", re.I)
# "What is McDonald's 'Accelerating the Arches 2.0'?", "What was the Tax Act?": a thing the
# filing names (capitalised or quoted, no measure word), described by its sentences
_WHAT_IS_NAMED = re.compile(r"^(?i:what\s+(?:is|are|was|were)\s+(?:the\s+)?)(?:[\w&.'\u2019-]+(?:'s|\u2019s)\s+)?"
                            r"(?P<thing>['\u2018\u201c\"]?[A-Z][^?,;]*)")
_CHANGE = re.compile(
    r"\b(?:how\s+much\s+(?:did|has|have|had)\s+(?:\w+\s+){1,6}(?:change|grow|increase|decrease|decline|rise|fall)|"
    r"by\s+how\s+much|growth\s+rate|(?:yoy|year[- ]over[- ]year|quarter[- ]over[- ]quarter)\s+(?:growth|change)|"
    r"cagr|compound\s+annual|percent(?:age)?\s+change|how\s+(?:did|has)\s+(?:\w+\s+){1,6}(?:changed?|evolved?|trended?))\b",
    re.I)
_RATIO_WORDS = re.compile(r"\b(?:ratio|margin|turnover|coverage|return\s+on|per\s+share|yield|payout|days\s+\w+\s+"
                          r"outstanding|as\s+a\s+(?:percent(?:age)?|share|proportion)\s+of|%\s+of|percentage)\b", re.I)


# -- a ranking of the company's parts ------------------------------------------------------------
# The parts a company reports its figures by, as analysts name them: "segment", "region",
# "service offering", "product line", "business" ...
_PART_KIND = (
    r"(?:segments?|regions?|geograph(?:y|ies)|geographic(?:al)?\s+(?:areas?|markets?|regions?|segments?)|"
    r"product\s+(?:lines?|categor(?:y|ies)|groups?|families)|products?|service\s+(?:offerings?|lines?)|services|"
    r"offerings?|markets?|business(?:es|\s+units?|\s+lines?|\s+groups?)?|divisions?|categor(?:y|ies)|brands?|"
    r"(?:operating|reporting|reportable)\s+units?|channels?|(?:revenue|sales)\s+(?:lines?|streams?|sources?)|platforms?|"
    r"lines\s+of\s+business)")
_PART_WORDS = r"(?:(?:the|its|their|his|her|our|each|all|of)\s+|[\w&.'’-]+\s+){0,5}?"
# "Which service offering ...", "Which of the company's market segments ...", "Rank the three
# segments by ...", "Among the geographic segments, which ...", "Across its three businesses, which ..."
# the last word of a run naming the part ("market segments" is segments, "service offering" one kind)
_KIND = rf"(?P<kind>{_PART_KIND})\b(?!\s+{_PART_KIND}\b)"
_WHICH_PART = re.compile(rf"\bwhich\s+(?:one\s+)?(?:of\s+)?(?P<quals>{_PART_WORDS}){_KIND}", re.I)
# ("Rank its three segments (Express, Ground, Freight) by ...": the parts listed before "by")
_RANK_PART = re.compile(rf"\brank(?:ed|ing)?\s+(?P<quals>{_PART_WORDS}){_KIND}(?:\s*\([^()]{{1,80}}\))?\s+by\b", re.I)
_AMONG_PART = re.compile(rf"\b(?:among|across|of|between)\s+(?P<quals>{_PART_WORDS}){_KIND}\s*,?\s*"
                         rf"(?P<which>which|what)\b", re.I)
_SUPER_HIGH = ("highest", "largest", "biggest", "greatest", "most", "fastest", "strongest", "best", "top")
_SUPER_LOW = ("lowest", "smallest", "least", "fewest", "slowest", "weakest", "worst")
# comparatives rank too when the question names the parts compared ("..., North America or International?")
_COMPARE_HIGH = ("faster", "stronger", "higher", "larger", "bigger", "greater", "more")
_COMPARE_LOW = ("slower", "weaker", "lower", "smaller", "fewer", "less")
_SUPERLATIVE = re.compile(r"\b(?:" + "|".join(_SUPER_HIGH + _SUPER_LOW) + r")\b", re.I)
_COMPARATIVE = re.compile(r"\b(?:" + "|".join(_COMPARE_HIGH + _COMPARE_LOW) + r")\b", re.I)
# "declined the most", "the steepest decline": the lowest growth
_FELL_MOST = re.compile(r"\b(?:declin\w*|decreas\w*|fell|fall(?:en|ing)?|dropp?\w*|shr[aiu]nk\w*|contract\w*)\s+"
                        r"(?:the\s+)?(?:most|furthest|sharpest|steepest)\b|\b(?:largest|biggest|steepest|sharpest|worst|"
                        r"greatest)\s+(?:decline|decrease|drop|fall|contraction)\b", re.I)
# "which business drove the growth": the part whose figure rose the most
_DROVE = re.compile(r"\b(?:drove|drives|driving|led|contributed(?:\s+the)?(?:\s+most)?\s+to|accounted\s+for)\s+"
                    r"(?:the\s+|most\s+of\s+the\s+)?(?:\w+\s+){0,3}?(?:growth|increase|gain|rise)\b", re.I)
# what moved: the figure's growth, not its level
_GROWTH_WORD = re.compile(r"\b(?:grew|grow(?:s|n|ing|th)?|increas\w*|rose|ris(?:e|es|ing)|expan\w*|declin\w*|"
                          r"decreas\w*|fell|fall(?:s|en|ing)?|dropp?\w*|shr[aiu]nk\w*|performance|performed|gains?|"
                          r"improv\w*|widen\w*|narrow\w*|contract\w*|compress\w*|deteriorat\w*|"
                          r"yoy|year[-\s]over[-\s]year|change[sd]?)\b", re.I)
# a ratio's own change is in points, not a growth rate ("whose margin improved the most")
_RATIO_MEASURE = re.compile(r"\b(?:margins?|rates?|ratios?|percent(?:age)?|mix|share|yield)\b", re.I)
_WORSENED = re.compile(r"\b(?:narrow\w*|contract\w*|compress\w*|deteriorat\w*|declin\w*|decreas\w*|fell|dropp?\w*)\b",
                       re.I)
_SPEED = frozenset(("fastest", "slowest", "faster", "slower"))
# a measure that is itself a change on the year before ("comparable sales", "same-store sales")
_CHANGE_MEASURE = re.compile(r"\b(?:comparable|comp|same[-\s]store|like[-\s]for[-\s]like|organic)\b", re.I)
# where the measure's words end: the period, the company, the rest of the sentence
_MEASURE_END = re.compile(
    r"\s+(?:in|for|during|over|of|at|on|from|by|among|across|versus|vs\.?|compared|relative|than|as|within|"
    r"through|since|between|while|when|with)\b|[,;:?(]|\s+(?:q[1-4]|fy|fiscal|year|quarter|h[12]|first|second|"
    r"third|fourth|(?:19|20)\d\d)\b|$", re.I)
_MEASURE_NOISE = re.compile(r"\b(?:the|a|an|its|their|of|had|has|have|was|were|is|are|posted|saw|showed|delivered|"
                            r"generated|recorded|reported|achieved|did|do|does|rate|terms|one|ones)\b", re.I)
# "..., North America or International?": the parts the question names
_NAMED_PARTS = re.compile(r"(?:,|:|\bbetween)\s*(?P<a>[A-Z][^,?;:]{1,60}?)\s*,?\s+(?:or|and|versus|vs\.?)\s+"
                          r"(?P<b>[A-Z][^,?;:]{1,60}?)\s*(?:[?.]*$|,\s*(?:and|or)\s+(?:by\s+)?(?:how|what|why|which|by)\b)"
                          # "..., electric or natural gas?": two short names of lines the filing prints
                          r"|,\s*(?P<a2>[a-z][a-z&-]*(?:\s+[a-z&-]+){0,2})\s+or\s+(?P<b2>[a-z][a-z&-]*(?:\s+[a-z&-]+){0,2})"
                          r"\s*\?\s*$")
# "... segments grew net sales", "... regions have declined": which parts moved that way
_MOVED_WHICH = re.compile(r"\s*(?:have\s+|has\s+|had\s+)?(?P<verb>grew|increased|rose|expanded|improved|declined|"
                          r"decreased|fell|shrank|shrunk|dropped|contracted)\b", re.I)
_CLAUSE_END = re.compile(r"\?|;|,\s*(?:and|but)\b|\s+and\s+(?:how|what|why|which|by|when|where|did|does|was|is)\b|"
                         r"\.\s|\.$")


@dataclass(frozen=True)
class RankingAsk:
    """A question ranking a company's parts ("Which segment had the highest revenue growth in
    Q2 2023?", "Which service offering grew fastest?", "Rank the segments by comparable sales
    growth"): the superlative, the measure and the kind of part, as written.

    - ``lowest``: the lowest/weakest/slowest (or the steepest decline) is asked;
    - ``by``: "growth" (each part's change between two periods), "increase" (the amount a part
      added: "which business drove the growth") or "level" (the figure itself: "the highest
      operating margin");
    - ``measure``: the measure's words ("revenue", "comparable sales", "subscription and support
      revenue"), "" when the question names none ("which offering grew fastest");
    - ``kind``: the part ("segment", "service offering", "region"), ``qualifiers`` its
      lower-case words ("geographic", "transportation");
    - ``named``: the parts the question names itself ("..., North America or International?");
    - ``select``: "grew" or "declined" when the question asks which parts moved that way, no
      superlative ("Which of the reportable segments grew net sales in Q2?"); "each" when it
      asks every part's figure ("What segments did it report, and what were net sales for
      each?"), no ranking.
    """

    lowest: bool
    by: Literal["growth", "increase", "level"]
    measure: str
    kind: str
    qualifiers: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    select: Literal["", "grew", "declined", "each"] = ""


def _measure_words(text: str) -> str:
    """The measure's words of a clause fragment, without growth words and auxiliaries."""
    cut = _MEASURE_END.search(text)
    words = _GROWTH_WORD.sub(" ", _MEASURE_NOISE.sub(" ", text[:cut.start()] if cut else text))
    return re.sub(r"\s+", " ", words).strip(" .,'’-")


def _measure_after_in(text: str) -> str:
    """The measure named after "in"/"of" ("the steepest decline in net operating revenues"), not
    a period ("fastest in fiscal 2022")."""
    from desktop_rag.core.domain.measures import measure_phrase

    m = re.match(r"\s*(?:in|of)\s+", text)
    words = _measure_words(text[m.end():]) if m else ""
    return words if words and measure_phrase(words) else ""


# every part's figure asked: "what were net sales for each", "how much revenue did each generate"
_EACH = re.compile(r"\b(?:for|of|in|from|by)\s+each(?:\s+(?:one|of\s+them|of\s+these|of\s+those))?\b|"
                   r"\beach\s+(?:one\s+|of\s+them\s+)?(?:generated?|earn(?:ed)?|post(?:ed)?|report(?:ed)?|"
                   r"contribut(?:e|ed)|record(?:ed)?|ha(?:ve|d)|deliver(?:ed)?|br(?:ing|ought)|make|made)\b", re.I)
_KIND_NAMED = re.compile(rf"\b(?P<quals>(?:[\w&.'\u2019/-]+\s+){{0,3}}?){_KIND}", re.I)


# words before a kind of part that qualify nothing ("its three segments", "the company's businesses")
_PART_FILLER = frozenset({"the", "its", "their", "his", "her", "our", "each", "all", "of", "one", "two", "three", "four",
                          "five", "six", "seven", "eight", "nine", "ten", "company", "company's"})
# ... and, before the kind a clause asking each part's figure names, the clause's own words
_EACH_FILLER = _PART_FILLER | {"what", "which", "did", "does", "do", "are", "is", "was", "were", "and", "or", "main"}


def _each_part(q: str) -> RankingAsk | None:
    """Every part's figure asked (``RankingAsk.select`` "each"): a kind of part named, and a
    clause asking a measure of each ("..., and what were net sales for each in 2022?")."""
    each = _EACH.search(q)
    kind = _KIND_NAMED.search(q)
    if each is None or kind is None:
        return None
    starts = [m.end() for m in _CLAUSE_START.finditer(q[:each.start()])]
    clause = q[starts[-1] if starts else 0:each.end()] if each.group(0).lower().startswith("each") else \
        q[starts[-1] if starts else 0:each.start()]
    clause = re.sub(r"^\s*(?:and\s+)?(?:what|how\s+much|how\s+many)\s+(?:\w+\s+)??(?:was|were|is|are|did|does|do)?\s*",
                    "", clause, flags=re.I)
    measure = _measure_words(re.sub(r"\beach\b.*$", "", clause, flags=re.I))
    if not measure:
        return None
    quals = tuple(w.lower() for w in kind.group("quals").split() if re.fullmatch(r"[a-z][a-z-]*", w)
                  and w.lower() not in _EACH_FILLER)
    return RankingAsk(False, "level", measure, re.sub(r"\s+", " ", kind.group("kind").lower()), quals, (), "each")


def ranking_asked(asked: str) -> RankingAsk | None:
    """The ranking a question asks (``RankingAsk``), or None: it needs a kind of part after
    "which"/"rank"/"among" and a superlative of a measure (or a comparative between parts it
    names, or "declined the most", or "drove the growth")."""
    q = re.sub(r"\s+", " ", asked).strip()
    m = _RANK_PART.search(q)
    tail = q[m.end():] if m else ""
    if m is None:
        m = _AMONG_PART.search(q)
        tail = q[m.end("which"):] if m else ""
    if m is None:
        m = _WHICH_PART.search(q)
        tail = q[m.end():] if m else ""
    if m is None:
        return _each_part(q)
    kind = re.sub(r"\s+", " ", m.group("kind").lower())
    quals = tuple(w for w in m.group("quals").split() if re.fullmatch(r"[a-z][a-z-]*", w) and w not in _PART_FILLER)
    tail = re.sub(r"^(?:'s|\u2019s|s'|\u2019)\s*", " ", tail)  # "Which segment's margin improved ..."
    end = _CLAUSE_END.search(tail)
    clause = tail[:end.start()] if end else tail
    named_m = _NAMED_PARTS.search(q)
    named = tuple(x.strip() for x in ((named_m.group("a"), named_m.group("b")) if named_m.group("a")
                                       else (named_m.group("a2"), named_m.group("b2")))) if named_m else ()
    if q.lower().startswith("rank") or _RANK_PART.search(q):
        # "Rank the segments by 2022 comparable sales growth": the measure follows "by"
        measure = _measure_words(re.sub(r"^\s*(?:(?:19|20)\d\d|fiscal\s+\S+|fy\S*|q[1-4]\S*)\s+", "", clause))
        growth = bool(_GROWTH_WORD.search(clause)) or bool(_CHANGE_MEASURE.search(measure))
        lowest = bool(re.search(r"\b(?:lowest|weakest|worst|slowest|ascending|bottom)\b", clause, re.I))
        return RankingAsk(lowest, "growth" if growth else "level", measure, kind, quals, named)
    sup = _SUPERLATIVE.search(clause) or (_COMPARATIVE.search(clause) if named else None)
    fell = _FELL_MOST.search(clause)
    drove = _DROVE.search(clause)
    if sup is None and fell is None and drove is None:
        moved = _MOVED_WHICH.match(clause)
        if moved is None:
            return None
        # "Which of the segments grew net sales in Q2 2023 versus Q2 2022?": the parts that grew
        select: Literal["grew", "declined"] = "declined" if re.match(r"de|fe|sh|dr|co", moved.group("verb"), re.I) \
            else "grew"
        return RankingAsk(select == "declined", "growth", _measure_words(clause[moved.end():]), kind, quals, named,
                          select)
    if fell is not None and (sup is None or fell.start() <= sup.start()):
        left, right, word = clause[:fell.start()], clause[fell.end():], "lowest"
        growth = True
    elif sup is not None:
        left, right, word = clause[:sup.start()], clause[sup.end():], sup.group(0).lower()
        growth = bool(_GROWTH_WORD.search(left) or _GROWTH_WORD.search(_MEASURE_END.split(right, 1)[0] + " ")
                      or word in _SPEED)
    else:
        assert drove is not None
        return RankingAsk(False, "increase", _measure_words(clause[drove.end():]), kind, quals, named)
    # the measure: the words after the superlative ("highest revenue growth"), else between the
    # verb and it ("grew net sales faster")
    measure = _measure_words(right) or _measure_after_in(right) or _measure_words(re.sub(r"^.*?\b(?:grew|grow\w*|increased|rose|declined|"
                                                           r"decreased|fell|had|has|posted|saw|showed|delivered|"
                                                           r"generated|recorded|reported|achieved)\b", "", left,
                                                           flags=re.I))
    growth = growth or bool(_CHANGE_MEASURE.search(measure))
    lowest = word in _SUPER_LOW or word in _COMPARE_LOW
    if growth and _RATIO_MEASURE.search(measure) and not _CHANGE_MEASURE.search(measure):
        # "whose margin improved the most": the change in points; a narrowing is the lowest
        worse = bool(_WORSENED.search(clause)) or bool(fell)
        return RankingAsk(lowest != worse, "increase", measure, kind, quals, named)
    return RankingAsk(lowest, "growth" if growth else "level", measure, kind, quals, named)


@dataclass(frozen=True)
class QuestionIntent:
    """One typed reading of a question, made once (``read_question``) and read by every later
    stage: the gate, retrieval, the calculator, the answer's assemblers and the verifier.

    - ``asked``: what is asked, without the analyst's instructions (persona, units, rounding,
      statements to use, definitions: ``instructions``);
    - ``ask``: the shape of the answer wanted (``AskKind``):
      ``figure`` a printed amount or count; ``ratio`` a figure computed from others;
      ``change`` how a figure moved between periods; ``yesno`` a claim to confirm or deny, with
      its reason; ``ranking`` which part was highest/lowest/fastest; ``comparison`` parts or
      periods set side by side; ``drivers`` the causes of a figure or event; ``list`` items the
      filing enumerates (risks, customers, acquisitions ...); ``description`` what a deal, plan
      or event is; ``outlook`` what management expects for a later period;
    - ``wants_reasons``: besides its shape, the question asks why ("... and what were the main
      reasons?");
    - ``periods``: the periods it names (``periods.QuestionPeriods``);
    - ``asks``: the facts it asks for, each of a kind its wording names (``fact_asks``): an
      amount, a date, a rate, a count; several when it asks several ("how much ... and how much
      remains");
    - ``forward``: it asks about the future (an outlook): its periods are after the filings'
      and the latest filing covers them;
    - ``ranking``: the company's parts it ranks (``RankingAsk``: "which segment grew fastest"),
      or which of them moved (its ``select``: "which segments grew", a comparison); None else.
    """

    text: str
    asked: str
    instructions: Instructions
    ask: AskKind
    wants_reasons: bool
    periods: QuestionPeriods
    asks: tuple[FactAsk, ...] = ()
    ranking: RankingAsk | None = None  # the parts ranked, when the question asks which part led

    @property
    def forward(self) -> bool:
        return self.ask == "outlook"

    @property
    def prose(self) -> bool:
        """Answered from the filing's sentences, lists and tables, not from one statement figure."""
        return self.ask in ("drivers", "list", "description", "outlook")


def ask_kind(asked: str) -> AskKind:
    """The shape of answer a question (without its instructions) wants; see ``QuestionIntent``.
    The question's opening decides first ("Describe ...", "Why ...", "Is ..."); a shape's words
    later in the question ("..., and what drove that growth?") only when the opening says none."""
    q = re.sub(r"\s+", " ", asked).strip()
    if _OUTLOOK.search(q):
        return "outlook"
    if _DESCRIBE_OPENING.match(q):
        return "description"
    if _DRIVERS_OPENING.match(q):
        return "drivers"
    if _RANKING.search(q):
        return "ranking"
    if _YESNO.match(q):
        return "yesno"
    if _LIST.search(q) or _WHICH_THINGS.search(q):
        return "list"
    if _COMPARISON.search(q):
        return "comparison"
    if _DESCRIPTION.search(q) or _names_a_thing(q):
        return "description"
    if _DRIVERS.search(q):
        return "drivers"
    if _CHANGE.search(q):
        return "change"
    if _RATIO_WORDS.search(q) or defines_its_concept(q):
        return "ratio"
    return "figure"


def _names_a_thing(question: str) -> bool:
    """The question asks what a named thing is ("What is the Tax Act?"), not a figure: the
    name carries no measure word and no period."""
    from desktop_rag.core.domain.measures import measure_phrase

    m = _WHAT_IS_NAMED.match(question)
    if m is None:
        return False
    rest = m.group("thing").strip()
    thing = re.split(r"\s+(?:per|according|in|as|under|from|and)\s", rest)[0].strip()
    words = thing.split()
    # a name: each word capitalised, quoted or a number ("Accelerating the Arches 2.0"), not a
    # possessor ("NVIDIA's share of the GPU market")
    named = bool(words) and all(w[0].isupper() or w[0].isdigit() or w[0] in "'\u2018\u201c\"" or w.lower() in _JOINERS
                                for w in words) and not re.search(r"(?:'s|\u2019s|s')$", words[-1].rstrip("'\u2019\u201d\""))
    return named and not measure_phrase(rest) and not _RATIO_WORDS.search(rest) and not find_periods(thing).mentions


_JOINERS = frozenset(("of", "the", "and", "&", "for", "on", "de", "to"))


# where a clause begins: the part of a question asking why starts at the last one before its
# word for causes ("... and say what new issuance drove it", ", and what were the main reasons?")
_CLAUSE_START = re.compile(r",?\s+(?:and|&)\s+|[,;:]\s*|(?<=[.?!])\s+", re.I)


def without_reasons(asked: str) -> str:
    """``asked`` without its part asking why, when it asks a figure or a verdict besides
    ("Has debt increased over FY2018? ... and say what new issuance drove it" -> "Has debt
    increased over FY2018? ..."); as it is when the whole question asks why."""
    why = _DRIVERS.search(asked)
    starts = list(_CLAUSE_START.finditer(asked[:why.start()])) if why else []
    if not starts or len(asked[:starts[-1].start()].split()) < 3:
        return asked  # "In 2022, why did margins fall?": the whole question asks why
    head = asked[:starts[-1].start()].rstrip(" ,;:")
    return head if head.endswith(("?", ".")) else f"{head}?"


def read_question(text: str) -> QuestionIntent:
    """The question read once: instructions apart, the shape asked, the periods named."""
    parsed = parse_question(text)
    asked = parsed.question
    kind = ask_kind(asked)
    if kind == "figure" and (parsed.instructions.definitions or defines_its_concept(text)):
        kind = "ratio"  # a figure the analyst defines is computed
    ranking = ranking_asked(asked)
    if ranking is not None and not ranking.select and kind in ("figure", "ratio", "change", "comparison"):
        kind = "ranking"  # "Which segment posted the strongest comparable sales growth?" ranks the segments
    # why may be asked in a request set apart from the question ("Has debt gone up? Give the
    # totals, what drove the change, and ...")
    reasons = kind != "drivers" and (bool(_DRIVERS.search(asked)) or any(
        (_CONTENT_REQUEST.match(r) or _ANSWER_REQUEST.match(r)) and _DRIVERS.search(r) for r in parsed.instructions.removed))
    return QuestionIntent(text, asked, parsed.instructions, kind, reasons, find_periods(asked),
                          fact_asks(asked, parsed.instructions.removed), ranking)
