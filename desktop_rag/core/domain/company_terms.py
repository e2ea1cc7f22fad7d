"""Words that identify a company in this library: a term printed prominently in one company's
filings (a segment table's row label, a heading: "AWS", "Data Center", "iPhone") and nowhere
in any other company's filings.

"What was AWS segment operating income?" names no company, but a library holding Amazon's,
Apple's and Microsoft's filings tells which one it is about. The terms are derived from the
library's own text, never from a hand list, so they follow whatever filings the analyst adds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from desktop_rag.core.domain.measures import MEASURE_WORDS, QUALIFIER_WORDS
from desktop_rag.core.domain.periods import MONTH_NAMES
from desktop_rag.core.lexical import QUESTION_NOISE, STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'’.-]*[A-Za-z0-9]|[A-Za-z]")
_FIRST_FIGURE = re.compile(r"[\s(]*[$(]?\s?-?\d")
MAX_LABEL_WORDS = 6
MIN_OCCURRENCES = 2  # prominent at least twice (a segment is a heading and a table row, or rows of several tables)
# words that say nothing about whose filing it is
_GENERIC = (STOPWORDS | QUESTION_NOISE | MEASURE_WORDS | QUALIFIER_WORDS | frozenset(MONTH_NAMES) | frozenset({
    "three", "six", "nine", "twelve", "months", "ended", "quarter", "year", "fiscal", "note", "notes", "item",
    "part", "table", "contents", "page", "form", "inc", "corporation", "company", "total", "consolidated",
    "statements", "statement", "balance", "sheet", "sheets", "financial", "condensed", "unaudited",
}))


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'").rstrip(".") for w in _WORD.findall(text)]


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
            if all(w in _GENERIC or w.isdigit() or len(w) < 2 for w in gram):
                continue
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS:
                continue
            yield " ".join(gram)


@dataclass(frozen=True)
class LibraryTerms:
    """``identifying``: term -> the one company that prints it (see ``identifying_terms``);
    ``labels``: per company, the terms it prints prominently at least twice (its segments,
    products, regions: "International" is Amazon's segment, not a company the library lacks)."""

    identifying: dict[str, str] = field(default_factory=dict)
    labels: dict[str, frozenset[str]] = field(default_factory=dict)


def identifying_terms(pages_by_company: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Term (lower case, 1-3 words) -> company, for the terms printed prominently at least
    twice in that company's pages and never (not even as separate words) in another
    company's. Empty when the library holds fewer than two companies (nothing to tell apart)."""
    return library_terms(pages_by_company).identifying


def library_terms(pages_by_company: Mapping[str, Iterable[str]]) -> LibraryTerms:
    """The library's prominent labels and the terms among them that identify one company."""
    vocab: dict[str, set[str]] = {}
    prominent: dict[str, Counter[str]] = {}
    for company, pages in pages_by_company.items():
        words: set[str] = set()
        counts: Counter[str] = Counter()
        for text in pages:
            words.update(_words(text))
            for label in prominent_labels(text):
                counts.update(set(_terms(_words(label))))
        vocab[company] = words
        prominent[company] = counts
    labels = {c: frozenset(t for t, n in counts.items() if n >= MIN_OCCURRENCES) for c, counts in prominent.items()}
    out: dict[str, str] = {}
    if len(pages_by_company) < 2:
        return LibraryTerms({}, labels)
    for company, counts in prominent.items():
        others = [v for c, v in vocab.items() if c != company]
        for term, n in counts.items():
            if n < MIN_OCCURRENCES:
                continue
            parts = term.split()
            if any(all(p in v for p in parts) for v in others):
                continue
            out[term] = company
    return LibraryTerms(out, labels)


def companies_by_terms(text: str, terms: Mapping[str, str]) -> set[str]:
    """The companies whose identifying terms ``text`` uses."""
    words = _words(text)
    return {terms[t] for t in _terms(words) if t in terms}


def companies_named_by_terms(question: str, terms: Mapping[str, str]) -> set[str]:
    """The companies whose identifying terms a question writes as names (with a capital:
    "AWS", "Data Center", "iPhone"): an analyst naming a segment or product; a lower-case
    word ("split", "ytd") is read as the common word it may be."""
    runs = re.findall(r"(?:[A-Za-z0-9&'’.-]*[A-Z][A-Za-z0-9&'’.-]*)(?:\s+[A-Za-z0-9&'’.-]*[A-Z][A-Za-z0-9&'’.-]*)*",
                      question)
    found: set[str] = set()
    for run in runs:
        found |= companies_by_terms(run, terms)
    return found


_LEGAL_END = re.compile(r"(?:,?\s+(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Ltd\.?|Holdings))+$")


def short_name(company: str) -> str:
    """A registered name as a question writes it: "Amazon.com, Inc." -> "Amazon.com",
    "The Coca-Cola Company" -> "Coca-Cola"."""
    name = re.sub(r"^The\s+", "", company.strip())
    return _LEGAL_END.sub("", name).strip(" ,&") or company
