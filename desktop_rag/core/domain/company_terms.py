"""Words that identify a company in this library: a term printed prominently in one company's
filings (a segment table's row label, a heading: "AWS", "Data Center", "iPhone") and nowhere
in any other company's filings.

"What was AWS segment operating income?" names no company, but a library holding Amazon's,
Apple's and Microsoft's filings tells which one it is about. The terms are derived from the
library's own text, never from a hand list, so they follow whatever filings the analyst adds.

A filer's informal names come from its own words too: the names its filing prints as its
trademarks ("beverages bearing the trademark Coca-Cola or any trademark that includes
Coca-Cola or Coke", "under the Jumpman trademark") are terms of that company like its
segment labels. Such a trademark that its filings never print in lower case is a name,
matched however the analyst types it ("what did you tell me about coke?"); other terms need
a capital (a heading word like "Surplus" is a common word in a question).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from desktop_rag.core.domain.measures import MEASURE_WORDS, QUALIFIER_WORDS
from desktop_rag.core.domain.periods import MONTH_NAMES, is_period_word
from desktop_rag.core.domain.terms import QUESTION_NOISE, STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'’.-]*[A-Za-z0-9]|[A-Za-z]")
_FIRST_FIGURE = re.compile(r"[\s(]*[$(]?\s?-?\d")
MAX_LABEL_WORDS = 6
# a word a company's prose uses at least this often (per page read, and at all) is its own
# term: six times in the forty pages of a filing ("Azure" 15, "Converse" 33, "Google" at most
# 3.5 in a competitor's filing)
OWN_WORD_RATE = 6 / 40
OWN_WORD_MIN = 2
MIN_OCCURRENCES = 2  # prominent at least twice (a segment is a heading and a table row, or rows of several tables)
# words that say nothing about whose filing it is
_GENERIC = (STOPWORDS | QUESTION_NOISE | MEASURE_WORDS | QUALIFIER_WORDS | frozenset(MONTH_NAMES) | frozenset({
    "three", "six", "nine", "twelve", "months", "ended", "quarter", "year", "fiscal", "note", "notes", "item",
    "part", "table", "contents", "page", "form", "inc", "corporation", "company", "total", "consolidated",
    "statements", "statement", "balance", "sheet", "sheets", "financial", "condensed", "unaudited",
}))


# a name as printed: capitalised words ("Coca-Cola", "Jack Purcell", "NIKE"), up to three
_TM_NAME = r"[A-Z][\w&'’.-]*[\w]|[A-Z]"
# (the words of one name stay on one line: a heading's next line is no part of it)
_TM_NAMES = rf"(?:{_TM_NAME})(?:[ \t]+(?:{_TM_NAME})){{0,2}}"
_TM_LIST = rf"{_TM_NAMES}(?:[ \t]*(?:,|\bor\b|\band\b)[ \t]*{_TM_NAMES})*"
# "the trademark Coca-Cola or any trademark that includes Coca-Cola or Coke", "Trademark Sprite";
# "under the Jumpman trademark", "our NIKE and Swoosh trademarks" (not "a Venezuelan trademark",
# nor another owner's: "Windows ... are trademarks of Microsoft Corporation")
_TRADEMARK_AFTER = re.compile(rf"\b[Tt]rademarks?\s+(?:that\s+includes?\s+|such\s+as\s+|including\s+)?({_TM_LIST})")
_TRADEMARK_BEFORE = re.compile(rf"\b(?:the|our)\s+({_TM_LIST})\s+trademarks?\b(?!\s+of\b)")


_ADDRESS = re.compile(r"\S*(?:www\.|https?://|@|\.com/)\S*", re.I)
# what opens a list of names in prose: "competitors ... including adidas, Anta, ASICS, Puma"
_LIST_CUE = re.compile(r"\b(?:including|such\s+as|like|namely|include|includes|are|were)\s+")
_LIST_ITEM_WORDS = 3
# one item and the separator after it: ", ", ", and ", " and ", " or "; the list ends at a
# clause's punctuation or a line's end
_LIST_ITEM = re.compile(r"([^,;:.()\n]+?|[^,;:()\n]+?\.[^,;:()\n\s]+?)(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|(?=[;:.()\n])|$)")
MIN_LIST_ITEMS = 3


def name_lists(text: str) -> list[tuple[int, int]]:
    """Spans of the lists of names a filing prints ("including adidas, Anta, ASICS, Li Ning,
    lululemon athletica, Puma, Under Armour and V.F. Corporation"): at least three short
    items after a cue word, most of them capitalised. A name a filer styles in lower case
    ("adidas") is printed in lower case only there, and is no common word for it."""
    out: list[tuple[int, int]] = []
    for cue in _LIST_CUE.finditer(text):
        pos = cue.end()
        items: list[tuple[int, int, bool]] = []
        after = 0  # where the next item starts (each follows the previous one's separator)
        for m in _LIST_ITEM.finditer(text[pos:pos + 400]):
            item = m.group(1).strip()
            words = item.split()
            if not words or len(words) > _LIST_ITEM_WORDS or m.start() != after:
                break
            after = m.end()
            items.append((pos + m.start(1), pos + m.start(1) + len(m.group(1)), item[:1].isupper()))
            if not m.group(0)[len(m.group(1)):].strip():
                break  # the list's last item
        capitalised = sum(c for _, _, c in items)
        if len(items) >= MIN_LIST_ITEMS and capitalised * 2 > len(items):
            out.append((items[0][0], items[-1][1]))
    return out


def _outside_name_lists(text: str) -> str:
    spans = name_lists(text)
    for a, b in reversed(spans):
        text = text[:a] + " " * (b - a) + text[b:]
    return text


def trademark_names(page_text: str) -> list[str]:
    """Names a filing prints as trademarks: "Coca-Cola or Coke" -> ["Coca-Cola", "Coke"]."""
    text = re.sub(r"[ \t]+", " ", page_text)
    out: list[str] = []
    for rx in (_TRADEMARK_AFTER, _TRADEMARK_BEFORE):
        for m in rx.finditer(text):
            out.extend(n.strip() for n in re.split(r"\s*(?:,|\bor\b|\band\b)\s*", m.group(1)) if n.strip())
    return out


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'").rstrip(".") for w in _WORD.findall(text)]


def _plain_words(text: str) -> list[str]:
    """A question's words without the possessive: "coke's" -> "coke"."""
    return [re.sub(r"'s$", "", w) for w in _words(text)]


def prominent_labels(page_text: str) -> list[str]:
    """Short lines that head something or label a table row: "AWS", "Data Center",
    "North America 20,538 23,059" -> "North America"."""
    out = []
    for line in page_text.splitlines():
        line = line.strip()
        if not line or not line[0].isupper():
            continue
        figure = _FIRST_FIGURE.search(line)
        label = line[:figure.start()] if figure else line
        label = label.strip(" .:$—–-")
        if not label or (figure is None and line.endswith((".", ",", ";"))):
            continue  # a sentence's last line, not a heading
        words = _words(label)
        if 0 < len(words) <= MAX_LABEL_WORDS:
            out.append(label)
    return out


def _terms(words: list[str]) -> Iterable[str]:
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            gram = words[i:i + n]
            # (a period word a filing heads its columns with, "Oct", "YTD", "Q1", says nothing
            # about whose filing it is)
            if all(w in _GENERIC or w.isdigit() or len(w) < 2 or is_period_word(w) for w in gram):
                continue
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS:
                continue
            yield " ".join(gram)


@dataclass(frozen=True)
class LibraryTerms:
    """``identifying``: term -> the one company that prints it (see ``identifying_terms``);
    ``labels``: per company, the terms it prints prominently at least twice (its segments,
    products, regions: "International" is Amazon's segment, not a company the library lacks);
    ``names``: the identifying terms printed as their company's trademarks and never in lower
    case (a name however a question types it: "coke", "jumpman")."""

    identifying: dict[str, str] = field(default_factory=dict)
    labels: dict[str, frozenset[str]] = field(default_factory=dict)
    names: frozenset[str] = frozenset()
    # the words the library's filings print in lower case in prose (not in addresses, nor in
    # lists of names): common words, which a question typed in lower case uses as words
    printed_lower: frozenset[str] = frozenset()
    # per company, the words its prose uses often (its products, brands, places: "Azure",
    # "Xbox", "Converse"), however cased; another company it names in passing ("Google", a few
    # times a filing) is not among them
    own_words: dict[str, frozenset[str]] = field(default_factory=dict)
    # the abbreviations the filings define for another entity ("Amazon Web Services ("AWS")" in
    # a filing of Netflix): abbreviation as printed -> the entity's name as printed; not one a
    # filer defines for itself or its own segments, nor one defined two ways
    defined: dict[str, str] = field(default_factory=dict)
    # the names of other companies the filings print with their legal form ("General Dynamics
    # Corporation", "Under Armour, Inc."), of two words or more: lower case -> as printed
    # ("general dynamics" -> "General Dynamics"), none a library company's
    companies_named: dict[str, str] = field(default_factory=dict)


# "Amazon Web Services ("AWS")", "Federal Deposit Insurance Corporation (the “FDIC”)": a name and
# the abbreviation a filing defines for it
_DEFINITION = re.compile(r"((?:[A-Z][\w&.-]*[ \t]+){1,5}[A-Z][\w&.-]*)[ \t]*\((?:the[ \t]+)?[“\"']([A-Z]{2,6})[”\"']\)")


# the last word of an organisation's name ("Amazon Web Services", "Italian Competition Authority";
# not "European Union", "California Consumer Privacy Act": a place, a law)
_ORGANISATION_END = frozenset("""services service inc incorporated corporation corp company co group holdings limited
    ltd plc llc lp bank bancorp systems technologies partners association authority commission board agency institute
    foundation fund trust university labs laboratories networks communications motors airlines industries
    pharmaceuticals therapeutics platforms semiconductor semiconductors electronics entertainment studios""".split())


def other_entities_defined(pages_by_company: Mapping[str, Iterable[str]],
                           labels: Mapping[str, frozenset[str]] | None = None,
                           printed_lower: frozenset[str] = frozenset()) -> dict[str, str]:
    """Abbreviation -> the name a filing defines it for, when that name is another entity's:
    its initials are the abbreviation, its last word one of an organisation's, its first word a name (no word the library prints in
    lower case: "Software Assurance" is a product) and no word of the filer's own name, and the
    name is none of the filer's printed labels (Intel's "Data Center and AI ("DCAI")" is its
    own segment; Amazon's "Amazon Web Services ("AWS")" its own). An abbreviation defined for
    two names is dropped."""
    found: dict[str, set[str]] = {}
    for company, pages in pages_by_company.items():
        own = {w for w in _words(company)}
        printed = (labels or {}).get(company, frozenset())
        for text in pages:
            for m in _DEFINITION.finditer(text):
                name, short = " ".join(m.group(1).split()), m.group(2)
                initials = "".join(w[0] for w in name.split() if w[0].isupper())
                words = _words(name)
                if initials != short or not words or words[0] in own or " ".join(words) in printed \
                        or words[0] in _GENERIC or words[0] in printed_lower or words[-1] not in _ORGANISATION_END:
                    continue
                found.setdefault(short, set()).add(name)
    return {short: next(iter(names)) for short, names in found.items() if len(names) == 1}


# a company's name as printed with its legal form: "General Dynamics Corporation", "Under Armour, Inc."
_WITH_LEGAL_FORM = re.compile(r"\b((?:[A-Z][\w&'’.-]*[ \t]+){1,3}[A-Z][\w&'’-]*[A-Za-z0-9]),?[ \t]+(?:Inc\.|Incorporated|"
                              r"Corporation|Company|Co\.|plc|Ltd\.|Limited|Holdings)(?![\w-])")


def companies_with_legal_form(pages: Iterable[str], library_names: Iterable[str] = ()) -> dict[str, str]:
    """The names of two words or more that the filings print with a legal form, other than the
    library's own companies: lower case -> as printed ("general dynamics" -> "General
    Dynamics"). A name that opens with a period word ("FY20 NIKE"), runs across a sentence
    ("Exchange Act. The") or holds a library company's name ("Total NIKE") is none."""
    own = {" ".join(_words(n)) for n in library_names}
    out: dict[str, str] = {}
    for text in pages:
        for m in _WITH_LEGAL_FORM.finditer(text):
            name = re.sub(r"^The\s+", "", " ".join(m.group(1).split()))
            words = _words(name)
            if len(words) < 2 or is_period_word(words[0]) or re.search(r"\w{2,}\.\s", name):
                continue
            low = " ".join(words)
            if any(re.search(rf"(?<![\w&]){re.escape(o)}(?![\w&])", low) for o in own if o):
                continue  # "At Foot Locker", "Lockheed Martin": the library's own company
            out.setdefault(low, name)
    return out


def identifying_terms(pages_by_company: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Term (lower case, 1-3 words) -> company, for the terms printed prominently at least
    twice in that company's pages and never (not even as separate words) in another
    company's. Empty when the library holds fewer than two companies (nothing to tell apart)."""
    return library_terms(pages_by_company).identifying


def library_terms(pages_by_company: Mapping[str, Iterable[str]],
                  aliases: Mapping[str, Iterable[str]] | None = None) -> LibraryTerms:
    """The library's prominent labels and the terms among them that identify one company.
    A name a company's filing prints as its trademark counts as prominent however often.
    ``aliases``: per company, the names a question may use for it (``metadata.company_aliases``);
    one matched only with capitals (a trading symbol, a first word: "AMZN", "Lockheed") that no
    filing of the library prints as a lower-case word is a name however typed ("amzn rev
    2Q23?", "lockheed same yr"); "COST" stays a capitalised name where "cost" is a word."""
    vocab: dict[str, set[str]] = {}
    lower: dict[str, set[str]] = {}  # words each company's filings print in lower case
    prominent: dict[str, Counter[str]] = {}
    marks: set[str] = set()  # terms of names printed as trademarks
    own: dict[str, frozenset[str]] = {}
    for company, pages in pages_by_company.items():
        words: set[str] = set()
        in_lower: set[str] = set()
        counts: Counter[str] = Counter()
        said: Counter[str] = Counter()  # words of its prose, however cased
        n_pages = 0
        for text in pages:
            n_pages += 1
            words.update(_words(text))
            # words of prose, not of a web or mail address ("www.adobe.com/adbe")
            prose = _outside_name_lists(_ADDRESS.sub(" ", text))
            found = _WORD.findall(prose)
            in_lower.update(w.rstrip(".") for w in found if w.islower())
            said.update(w.lower().rstrip(".").removesuffix("’s").removesuffix("'s") for w in found)
            for label in prominent_labels(text):
                counts.update(set(_terms(_words(label))))
            for name in trademark_names(text):
                # the whole name ("Star Chevron"), not its words: "Chevron" alone is another company
                whole = " ".join(_words(name))
                if whole in set(_terms(_words(name))):
                    counts[whole] += MIN_OCCURRENCES
                    marks.add(whole)
        vocab[company] = words
        lower[company] = in_lower
        prominent[company] = counts
        least = max(OWN_WORD_MIN, OWN_WORD_RATE * n_pages)
        own[company] = frozenset(w for w, n in said.items() if n >= least and w not in _GENERIC)
    labels = {c: frozenset(t for t, n in counts.items() if n >= MIN_OCCURRENCES) for c, counts in prominent.items()}
    out: dict[str, str] = {}
    printed_lower = frozenset().union(*lower.values())
    if len(pages_by_company) < 2:
        return LibraryTerms({}, labels, printed_lower=printed_lower, own_words=own,
                            defined=other_entities_defined(pages_by_company, labels, printed_lower),
                            companies_named=companies_with_legal_form(
                                (t for pages in pages_by_company.values() for t in pages),
                                [n for company_names in (aliases or {}).values() for n in company_names]
                                + list(pages_by_company)))
    for company, counts in prominent.items():
        others = [v for c, v in vocab.items() if c != company]
        for term, n in counts.items():
            if n < MIN_OCCURRENCES:
                continue
            parts = term.split()
            if any(all(p in v for p in parts) for v in others):
                continue
            out[term] = company
    names = {t for t, c in out.items() if t in marks and not any(p in lower[c] for p in t.split())}
    typed: dict[str, set[str]] = {}  # lower-cased alias -> the companies it names
    capitalised: set[str] = set()
    for company, company_names in (aliases or {}).items():
        for alias in company_names:
            term = " ".join(_words(alias))
            typed.setdefault(term, set()).add(company)
            if alias != alias.lower():
                capitalised.add(term)
    for term in capitalised:
        companies = typed[term]
        if not term or term not in set(_terms(term.split())) or any(p in printed_lower for p in term.split()):
            continue
        # one filer under two registered names ("Adobe Systems Incorporated", "Adobe Inc.", both
        # ADBE): the shorter name, which the other's aliases also match
        company = min(companies, key=lambda c: (len(short_name(c)), c))
        if out.get(term, company) in companies:
            out[term] = company
            names.add(term)
    named = companies_with_legal_form((t for pages in pages_by_company.values() for t in pages),
                                      [n for company_names in (aliases or {}).values() for n in company_names]
                                      + list(pages_by_company))
    return LibraryTerms(out, labels, frozenset(names), printed_lower, own,
                        other_entities_defined(pages_by_company, labels, printed_lower), named)


def companies_by_terms(text: str, terms: Mapping[str, str]) -> set[str]:
    """The companies whose identifying terms ``text`` uses ("Coke's" uses "coke")."""
    words = _plain_words(text)
    return {terms[t] for t in _terms(words) if t in terms}


def companies_named_by_terms(question: str, terms: Mapping[str, str], names: Iterable[str] = ()) -> set[str]:
    """The companies whose identifying terms a question writes as names (with a capital:
    "AWS", "Data Center", "iPhone"): an analyst naming a segment or product; a lower-case
    word ("split", "ytd") is read as the common word it may be, unless it is one of ``names``
    (``LibraryTerms.names``: a term its filings only print as a name, "coke")."""
    runs = re.findall(r"(?:[A-Za-z0-9&'’.-]*[A-Z][A-Za-z0-9&'’.-]*)(?:\s+[A-Za-z0-9&'’.-]*[A-Z][A-Za-z0-9&'’.-]*)*",
                      question)
    found: set[str] = set()
    for run in runs:
        found |= companies_by_terms(run, terms)
    as_names = set(names)
    if as_names:
        found |= {terms[t] for t in _terms(_plain_words(question)) if t in as_names and t in terms}
    return found


_LEGAL_END = re.compile(r"(?:,?\s+(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Ltd\.?|Holdings))+$")


def short_name(company: str) -> str:
    """A registered name as a question writes it: "Amazon.com, Inc." -> "Amazon.com",
    "The Coca-Cola Company" -> "Coca-Cola"."""
    name = re.sub(r"^The\s+", "", company.strip())
    return _LEGAL_END.sub("", name).strip(" ,&") or company
