"""Which part of the company a stretch of a filing is about: its segments and lines of business.

A 10-Q discusses the whole company first and then each segment under the segment's own heading
("CONSUMER & COMMUNITY BANKING", "Sam's Club Segment"). The segment sections use the same words
as the consolidated discussion ("Net interest income was $12.8 billion, up 54%, driven by:"), so
by their words alone a segment's sentence answers "What drove JPMorgan's net interest income?"
as well as the firm's. The filing itself says which headings are parts: it names its segments
("our Walmart International segment", "four major reportable business segments – Consumer &
Community Banking, ...", "the Client segment"). ``FilingParts`` reads those names and the
headings of every page once per document; ``part_spans`` then gives, for each page, the stretches
under a part's heading. A question about the company as a whole ranks those stretches low; a
question naming a part ranks the other parts' stretches low. Nothing here names a filer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from desktop_rag.core.ingest.chunking import heading_of, is_page_furniture, subheading_of

_NAME_WORD = r"[A-Z][\w&'\u2019.\-]*"
# "the Walmart International segment", "our Client segment", "Corporate & Investment Bank segment"
_NAMED_SEGMENT = re.compile(
    rf"((?:{_NAME_WORD}[ \t]+(?:&[ \t]+)?){{0,4}}{_NAME_WORD})[ \t]+(?:reportable[ \t]+|operating[ \t]+|business[ \t]+)?"
    r"segments?\b")
# "four major reportable business segments – Consumer & Community Banking, Corporate & ...",
# "our segments are: Data Center, Client, Gaming, and Embedded"
# (also "segments for the NIKE Brand are: North America; Europe, Middle East & Africa (EMEA); ...")
_SEGMENT_LIST = re.compile(r"\bsegments?(?:\s+(?:for|of)\s+(?:the\s+)?(?:[A-Z][\w&'\u2019-]*\s+){1,3}?)?\s*"
                           r"(?:are|include|consist\s+of|comprise|:|\u2013|\u2014|-)\s*:?\s*(?P<items>[^.]{3,300})")
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
_ABBREVIATION = r"\s*\(\s*[\u201c\"']?(?P<abbr>[A-Z][A-Z&]{1,5})[\u201d\"']?\s*\)"
# words that begin a phrase before "segment" but are no part's name
_NOT_NAMES = frozenset({
    "the", "our", "each", "a", "an", "its", "their", "this", "these", "that", "those", "reportable", "operating",
    "business", "total", "other", "all", "company's", "company\u2019s", "segment", "new", "two", "three", "four",
    "five", "six", "both", "certain", "one", "which", "such", "any", "every", "respective", "major", "primary",
    "geographic", "consolidated", "remaining", "combined", "in", "of", "by", "for", "and", "within",
})
# how a part's heading is printed around its name
_HEADING_DRESS = re.compile(r"\s*\((?:continued|cont'?d)\)|\s+(?:reportable\s+)?(?:segments?|business)(?:\s+results)?$"
                            r"|\s+results(?:\s+of\s+operations)?$|^(?:the)\s+", re.I)
# a question about the parts in general ("which segment grew fastest", "by line of business")
PARTS_IN_GENERAL = re.compile(r"\b(?:segments?|lines?\s+of\s+business|divisions?|business\s+units?|reportable)\b", re.I)
MIN_NAME = 3  # characters: "CB" is an abbreviation, never a name
# a sentence under another part's heading ranks below one about what was asked, not out: when
# nothing else answers, it is still the nearest evidence
OFF_SCOPE_WEIGHT = 0.35


# a capitalised line of a table's column heading or a period's subheading, no section of its own
_COLUMN_HEADING = re.compile(r"[\d%$]|\b(?:change|changes|excluding|currency|dollars|millions|thousands|compared|"
                             r"amounts?|percent)\b", re.I)


def _listed(text: str) -> list[str]:
    """The names a list of parts gives: split at commas and "and", or, when its names carry
    commas ("North America; Europe, Middle East & Africa; Greater China; and Asia Pacific"), at
    semicolons, the last name ending where the sentence goes on ("..., and include results")."""
    if ";" not in text or len(text.split(";")) < 3:
        return [i for i in _LIST_SPLIT.split(text.split(";")[0]) if i]
    parts = [re.sub(r"^\s*and\s+", "", p).strip() for p in text.split(";")]
    last = re.split(r",|\s+(?:and|which|that|each)\s+(?=[a-z])", parts[-1])[0].strip()
    return [p for p in [*parts[:-1], last] if p]


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").lower().split()).strip(" .,:;")


def _name_of(phrase: str) -> str:
    """The part's name in the words before "segment": after the last sentence's end, without
    the determiners and qualifiers that precede it ("The Walmart U.S." -> "walmart u.s.")."""
    phrase = re.split(r"[.;:](?:\s+|$)(?=[A-Z])", phrase)[-1]
    words = phrase.split()
    while words and words[0].lower().strip("'\u2019") in _NOT_NAMES:
        words = words[1:]
    name = _norm(" ".join(words))
    return name if len(name) >= MIN_NAME else ""


@dataclass
class FilingParts:
    """The parts a filing names and the stretches of its pages under a part's heading."""

    names: dict[str, str] = field(default_factory=dict)  # normalised name -> part name
    abbreviations: dict[str, str] = field(default_factory=dict)  # as printed ("CIB") -> part name
    spans: dict[int, list[tuple[int, int, str]]] = field(default_factory=dict)  # page -> (start, end, part)

    @classmethod
    def read(cls, pages: Iterable[tuple[int, str]]) -> FilingParts:
        """Read from the filing's pages ((page number, text) in page order)."""
        pages = list(pages)
        headings = {page: _headings(text) for page, text in pages}  # each page's, read once
        counts: dict[str, int] = {}
        for _, text in pages:
            flat = " ".join(text.split())
            for m in _NAMED_SEGMENT.finditer(flat):
                name = _name_of(m.group(1))
                if name:
                    counts[name] = counts.get(name, 0) + 1
            for m in _SEGMENT_LIST.finditer(flat):
                items = _listed(re.sub(_ABBREVIATION, "", m.group("items")))
                listed = [_name_of(i) for i in items]
                # a list of names only ("Data Center, Client, Gaming, and Embedded"), not a sentence
                if len(listed) >= 2 and all(n and n[0].isalpha() and len(n.split()) <= 5 for n in listed) and all(
                        i.split()[-1][:1].isupper() for i in items):
                    for n in listed:
                        counts[n] = counts.get(n, 0) + 2
        names = {n: n for n, c in counts.items() if c >= 2}
        for h in (h for lines in headings.values() for *_, h in lines):
            # "Sam's Club Segment", "WALMART INTERNATIONAL SEGMENT": a heading that says it
            if re.search(r"\bsegment\b", h, re.I) and not re.search(r"\b(?:information|reporting|results)\b|\bsegments\b", h, re.I):
                words = re.sub(r"(?i)\s*segment.*$", "", h).split()
                name = _name_of(" ".join(words))
                # a name, not a topic about a segment ("Competition in Client Segment")
                if name and all(w[:1].isupper() or not w[:1].isalpha() for w in words):
                    names.setdefault(name, name)
        abbreviations: dict[str, str] = {}
        if names:
            flat_all = " ".join(" ".join(t.split()) for _, t in pages)
            for name in [n for n in names if len(n) > 6]:
                # the name as printed in any case, its abbreviation in capitals ("(\u201cCIB\u201d)")
                for m in re.finditer(f"(?i:{re.escape(name)})" + _ABBREVIATION, flat_all):
                    abbreviations.setdefault(m.group("abbr"), name)
        out = cls(names, abbreviations)
        if not names:
            return out
        part = ""  # the part whose section is in force
        by_major = False  # set by a major (all-caps) heading: a Title Case subheading stays inside it
        for page, text in pages:
            spans: list[tuple[int, int, str]] = []
            start = 0
            set_here = False
            for a, _, kind, h in headings[page]:
                named = names.get(_norm(_HEADING_DRESS.sub("", h)), "")
                if kind == "minor" and not named and by_major:
                    continue  # "Quarterly results" inside "CONSUMER & COMMUNITY BANKING"
                if part and not named and _COLUMN_HEADING.search(h):
                    continue  # "% CHANGE", "EXCLUDING", "FISCAL 2022 COMPARED TO FISCAL 2021" inside "GREATER CHINA"
                if part and a > start:
                    spans.append((start, a, part))
                part, by_major, start, set_here = named, bool(named) and kind == "major", a, True
            if part and len(text) > start:
                spans.append((start, len(text), part))
            if spans:
                out.spans[page] = spans
            if part and not by_major and not set_here:
                # a Title Case heading's section runs on to the next page at most (a segment's
                # discussion); only an all-caps section heading holds over several pages
                part = ""
        return out

    def asked(self, question: str) -> set[str] | None:
        """The parts the question names; None when it asks about the parts in general
        ("which segment grew fastest"): no stretch is out of its scope."""
        named = {part for key, part in self.names.items()
                 if re.search(rf"(?<![\w&]){re.escape(key)}(?![\w&])", question.replace("\u2019", "'"), re.I)}
        # an abbreviation as printed, in capitals ("CIB"): never a word of the question
        named |= {part for abbr, part in self.abbreviations.items()
                  if re.search(rf"(?<![\w&]){re.escape(abbr)}(?![\w&])", question)}
        if not named and PARTS_IN_GENERAL.search(question):
            return None
        return named

    def off_scope(self, page: int, asked: set[str] | None) -> tuple[tuple[int, int], ...]:
        """The stretches of ``page`` about a part the question does not ask (the question
        about the whole company: every part's)."""
        if asked is None:
            return ()
        return tuple((a, b) for a, b, part in self.spans.get(page, []) if part not in asked)


def _headings(text: str) -> list[tuple[int, int, str, str]]:
    """The heading lines of a page: (start, end, "major" | "minor", text); running headers and
    footers are none."""
    out = []
    pos = 0
    for line in text.split("\n"):
        a, b = pos, pos + len(line)
        pos = b + 1
        s = line.strip()
        if not s or is_page_furniture(s):
            continue
        if heading_of(s):
            out.append((a, b, "major", s))
        elif subheading_of(s):
            out.append((a, b, "minor", s))
    return out


def within(offset: int, spans: tuple[tuple[int, int], ...]) -> bool:
    return any(a <= offset < b for a, b in spans)


PageTexts = Callable[[str], list[tuple[int, str]]]


class PartsOfFilings:
    """``FilingParts`` of each document, read once (a filing's text does not change)."""

    def __init__(self, pages_of: PageTexts) -> None:
        self._pages_of = pages_of
        self._parts: dict[str, FilingParts] = {}

    def of(self, doc_id: str) -> FilingParts:
        if doc_id not in self._parts:
            self._parts[doc_id] = FilingParts.read(self._pages_of(doc_id))
        return self._parts[doc_id]
