"""Answer styles: how a verified answer is laid out, never what it says.

A style only selects, splits or arranges text that already passed verification (the
answer's sentences and its citations' exact quotes); it adds no figure of its own, so the
verifier's guarantee holds for every style.
"""

from __future__ import annotations

import re

from desktop_rag.core.domain.numbers import numbers_in
from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.domain.types import Answer

STANDARD = "standard"
STYLES = ("standard", "concise", "detailed", "bullets", "table")
STYLE_NAMES = {"standard": "as generated", "concise": "concise (one sentence with the figure)",
               "detailed": "detailed (answer and the quoted evidence)", "bullets": "bullet points",
               "table": "table (figures by period)"}

_STYLE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # ("in a quick table", "as a simple table": a word for how plain it is, still a table)
    ("table", re.compile(r"\b(?:as|in(?:to)?|make\s+(?:it|that|this|those|these|them)|turn\s+(?:it|that|this|those|these|them)\s+into)\s+(?:a\s+)?"
                         r"(?:(?:quick|small|simple|short|little|neat|clean|brief|compact|summary)\s+)?table\b|\btabulate\b|\btable\s+(?:form|format)\b"
                         # the whole message is the layout's name ("table pls", "Table?")
                         r"|^\W*(?:a\s+)?table(?=\W*(?:(?:pls|plz|please|thx|thanks)\W*)?$)"
                         # "table it", "table the D&A figures pls": the verb
                         r"|^\W*(?:(?:pls|plz|please|now|ok(?:ay)?|can\s+you)\W+)?(?:table|grid)\s+(?=(?:it|that|this|those|these|them|the|all)\b)"
                         # "make a 3-col table", "build me a quick table", "as a grid"
                         r"|\b(?:make|build|do|draw|give|put\s+together)\s+(?:me\s+|us\s+)?(?:a|an)\s+(?:(?:quick|small|simple|short|"
                         r"compact|neat|clean|\d{1,2}[-\s]?col(?:umn)?s?|(?:two|three|four|five)[-\s]col(?:umn)?s?)\s+)*table\b"
                         r"|\b(?:as|in(?:to)?)\s+(?:a\s+)?grid\b", re.I)),
    ("bullets", re.compile(r"\bbullet(?:s|ed)?(?:\s+points?|\s+list)?\b|\bin\s+points\b"
                           # "into a chronological list", "as a short list"
                           r"|\b(?:as|in(?:to)?)\s+(?:a\s+)?(?:(?:short|quick|simple|chronological|numbered|ranked|sorted)\s+)?list\b"
                           # "as 4 short lines": one line a point
                           r"|\bas\s+(?:\d{1,2}|two|three|four|five|six)\s+(?:(?:short|quick|brief|plain)\s+)?lines\b", re.I)),
    ("concise", re.compile(r"\b(?:be\s+)?(?:concise(?:ly)?|brief(?:ly)?|shorter|short\s+(?:answer|version)|in\s+short|"
                           r"keep\s+(?:it|them|answers|replies|things)\s+(?:short|brief)|in\s+(?:one|a|a\s+single)\s+sentence|(?:in\s+)?(?:one|a\s+single)[-\s]line(?:r)?|"

                           r"one[-\s]sentence|tl;?dr|just\s+the\s+(?:number|figure))\b", re.I)),
    ("detailed", re.compile(r"\b(?:in\s+(?:more\s+)?detail|detailed|more\s+detail|elaborate|longer|"
                            r"explain\s+more|full\s+answer)\b", re.I)),
    ("standard", re.compile(r"\b(?:normal|default|standard)\s+(?:style|answers?|format)\b", re.I)),
]
# Words of a message that only asks for a style ("Make it a table please.", "Shorter.")
_STYLE_ONLY_WORDS = re.compile(
    r"\b(?:please|make|it|that|this|the|answer|answers|give|show|me|put|format|formatted|write|rewrite|"
    r"again|now|can|could|you|as|a|in|into|style|use|from|on|be|and|list|them|those|points?|form|more|sentence|one|"
    r"just|number|figure|ok(?:ay)?|thanks?|these|those|all|figures|numbers|results|everything|above|version|"
    r"short|keep|"
    # casual words and a count of the layout's parts ("in 3 bullets", "two sentences pls")
    r"pls|plz|please|thx|ty|kindly|quick(?:ly)?|\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|sentences?|lines?|"
    r"bullets?|rows?|columns?|up|out|for|of|"
    # the verbs that lay out what was said, and the order ("string the rates into a
    # chronological list, oldest first", "compile the figures into a compact table")
    r"string|compile|condense|arrange|organi[sz]e|lay|sort|order|ordered|sorted|chronological(?:ly)?|"
    r"oldest|newest|earliest|latest|first|last|compact|simple|brief|"
    # where the layout goes ("a two-bullet slack msg", "a short client-email paragraph")
    r"msg|message|paragraph|blurb|note|notes|slack|deck|memo|e-?mail|draft|punch[-\s]?line|gist|"
    # what the thread holds ("the rates we've got", "what you already have")
    r"we|we've|ve|got|have|already|only)\b", re.I)


def style_request(text: str) -> str | None:
    """The answer style a message asks for ("as a table", "in bullet points", "briefly"), or None."""
    for name, rx in _STYLE_PATTERNS:
        if rx.search(text):
            return name
    return None


# who the layout is for ("for my MD", "for our IC memo", "for the client note"): the reader, no new subject
_AUDIENCE = re.compile(r"\b(?:for|to)\s+(?:my|our|the|a|an)\s+(?:[\w-]+\s+){0,2}(?:md|boss|manager|pm|client|clients|team|"
                       r"committee|partner|director|head|investors?|notes?|deck|memo|e-?mail|slides?|reports?|readers?|"
                       r"audience|ic|cio|cfo|ceo|desk|chat|update)\b", re.I)


# how long the style holds ("from here", "from now on", "going forward"): part of the request, no question
_DURATION = re.compile(r"\b(?:from\s+(?:here|now|this\s+point|this\s+message)(?:\s+on(?:wards?)?)?(?:\s+out)?|"
                       r"going\s+forward|henceforth|onwards?|for\s+the\s+rest\s+of\s+(?:this|the|our)\s+"
                       r"(?:chat|conversation|thread|session)|until\s+I\s+say\s+otherwise)\b", re.I)


# the unit and precision a figure is written in ("in billions", "in $bn, one decimal"): how it
# is laid out, not what it is
_UNITS = re.compile(r"(?:\b(?:in|into|as|to)\s+)?(?:\$\s?)?\b(?:(?:billions?|millions?|thousands?|trillions?|bn|mn|mm|"
                    r"dollars|usd|percent(?:ages?)?|pct)\b|%)(?:\s*,?\s*(?:to\s+)?(?:one|two|three|\d)\s+"
                    r"(?:decimals?|decimal\s+places?|dp)\b)?", re.I)


def is_style_only(text: str) -> bool:
    """True when the message asks for a style and nothing else ("Make that a table.", "Keep it
    short from here.")."""
    if style_request(text) is None:
        return False
    rest = _UNITS.sub(" ", _DURATION.sub(" ", _AUDIENCE.sub(" ", text)))
    for _, rx in _STYLE_PATTERNS:
        rest = rx.sub(" ", rest)
    rest = _STYLE_ONLY_WORDS.sub(" ", rest)
    return not re.search(r"[A-Za-z0-9]{2,}", rest)


def only_layout_words(text: str) -> bool:
    """True when ``text`` holds nothing but the words of a layout request ("the figures as a
    sentence", "FCF in billions" once the figure asked is taken out), whether or not it names
    a style."""
    rest = _UNITS.sub(" ", _DURATION.sub(" ", _AUDIENCE.sub(" ", text)))
    for _, rx in _STYLE_PATTERNS:
        rest = rx.sub(" ", rest)
    rest = _STYLE_ONLY_WORDS.sub(" ", rest)
    return not re.search(r"[A-Za-z0-9]{2,}", rest)


_CLAUSE_BREAK = re.compile(r"((?<=[.!?;:])\s+|\s*[,;]\s+|\s+[-\u2013\u2014]+\s+)")


def _without_style_clauses(text: str) -> str:
    """``text`` without the sentences and clauses that only ask for a style ("Answer in
    bullets from now on. What did FedEx return?" -> "What did FedEx return?"): the words
    around the style's name in such a clause ("answer in ... from now on") are no part of the
    question; a question's own clause keeps its words."""
    parts = _CLAUSE_BREAK.split(text)
    clauses = parts[0::2]
    if len(clauses) < 2:
        return text
    style_only = [bool(c.strip()) and is_style_only(c) for c in clauses]
    if all(style_only) or not any(style_only):
        return text
    out = ""
    for i, clause in enumerate(clauses):
        if style_only[i]:
            continue
        if out:
            out += parts[2 * i - 1]
        out += clause
    end = text.rstrip()[-1:]
    if end in "?!." and out.rstrip()[-1:] not in "?!.":
        out = out.rstrip(" ,;:-") + end  # the message's closing mark, when its last clause was the style's
    return out


def strip_style(text: str) -> str:
    """The question without its style request ("What was R&D, as a table?" -> "What was R&D?";
    "Answer in bullets from now on. What did FedEx return?" -> "What did FedEx return?")."""
    out = _without_style_clauses(text)
    for _, rx in _STYLE_PATTERNS:
        out = rx.sub(" ", out)
    out = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s+", " ", out)).strip(" ,")
    out = re.sub(r"[,;]\s*([?.!])$", r"\1", out)
    return out or text


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(“\"$])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


_QUOTE_LINE = re.compile(r"^- “.*” \([^()]*, p\. \d+\)$")


def unstyled(text: str) -> str:
    """An answer's own statements without a style's layout (bullet marks, quoted-evidence
    lines, table rows), so a restyled answer is laid out again from what it said, not
    bulleted twice."""
    out = []
    for line in text.strip().splitlines():
        s = line.strip()
        if not s or s.startswith("|") or s == "Evidence quoted from the filings:" or _QUOTE_LINE.match(s):
            continue
        s = s[2:].strip() if s.startswith("- ") else s
        out.append(s if s[-1:] in ".!?" else s + ".")
    return " ".join(out) if out else text.strip()


def apply_style(answer: Answer, style: str) -> str:
    """The answer's text laid out in ``style``. Refusals, and answers without citations, are
    left as they are (nothing verified to arrange)."""
    text = unstyled(answer.answer)
    if style == STANDARD or answer.not_in_corpus or not answer.citations or not text:
        return text
    parts = sentences(text)
    if style == "concise":
        with_figure = [s for s in parts if numbers_in(s)]
        return (with_figure or parts or [text])[0]
    if style == "bullets":
        lines = [f"- {s}" for s in parts]
        lines += [f"- “{' '.join(c.quote.split())}” ({c.doc}, {cited_page(c)})" for c in answer.citations
                  if ' '.join(c.quote.split()) not in text]
        return "\n".join(lines)
    if style == "detailed":
        evidence = [f"- “{' '.join(c.quote.split())}” ({c.doc}, {cited_page(c)})" for c in answer.citations]
        return text + "\n\nEvidence quoted from the filings:\n" + "\n".join(evidence)
    if style == "table":
        table = _table(answer)
        return table if table else text
    return text


_CELL = re.compile(r"\(?\$?\s?-?\d[\d,]*(?:\.\d+)?\)?\s?%?|(?<=\s)[-\u2013\u2014](?=\s|$)")


def _row(quote: str) -> tuple[str, list[str]] | None:
    """A table row quote's label and cells, as printed."""
    flat = " ".join(quote.split())
    m = re.search(r"\(?\$?\s?\(?-?\d", flat)
    if not m or m.start() == 0:
        return None
    label = flat[:m.start()].strip(" .:$")
    cells = [c.strip() for c in _CELL.findall(flat[m.start():]) if c.strip()]
    return (label, cells) if label and len(cells) >= 2 else None


def _table(answer: Answer) -> str:
    """A Markdown table of the cited table rows (label and cells as printed), headed by the
    cited column headings when there are as many; "" when no cited quote is a row of figures."""
    rows = [r for r in (_row(c.quote) for c in answer.citations) if r]
    if not rows:
        return ""
    width = max(len(cells) for _, cells in rows)
    header_quote = next((c.quote for c in answer.citations if _row(c.quote) is None and re.search(r"(?:19|20)\d\d", c.quote)), "")
    years = re.findall(r"(?:19|20)\d\d", header_quote)
    heads = years if len(years) == width else [f"column {chr(65 + i)}" for i in range(width)]
    lines = ["| Line item | " + " | ".join(heads) + " |", "|---" * (width + 1) + "|"]
    for label, cells in rows:
        cells = cells + [""] * (width - len(cells))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lead = sentences(unstyled(answer.answer))
    return (lead[0] + "\n\n" if lead and numbers_in(lead[0]) else "") + "\n".join(lines)
