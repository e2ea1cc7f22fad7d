"""What kind of page a filing page is, from its canonical text alone.

Retrieval ranks pages of long 10-Ks; some pages match almost any question by their words
and answer none: the table of contents and its index of financial statements (every
section and statement title, each followed by a page number), the exhibit index (titles of
every agreement), the cover (form, company, fiscal year) and the signature page (officers'
titles). ``page_type`` names those so the ranking can weigh them down. Primary statements
are typed elsewhere (``core/ingest/statements``, with their columns and rows).

Rules, general for any filer: a table of contents is a page whose lines mostly end in a
bare page number; an exhibit index is a page where many lines start with an exhibit number
("10.1", "31.2*", "101.INS") under an "Exhibit" heading; a signature page names the
signatures and carries "/s/" lines; the cover names the SEC and a Commission file number.
"""

from __future__ import annotations

import re
from typing import Literal

PageType = Literal["toc", "exhibits", "signatures", "cover", "text"]
# Bump when the rules change: a team library stores each page's type with the version that
# typed it, and a desktop types again the pages stored with another version.
PAGE_TYPES_VERSION = 1
DOWNWEIGHTED: frozenset[str] = frozenset({"toc", "exhibits", "signatures", "cover"})

# "Item 7. Management's Discussion ... 25", "Consolidated Balance Sheets 52", "Risk Factors 12-30"
_TOC_LINE = re.compile(r"[\s.](?:[A-Z]-)?\d{1,3}(?:\s*[-–]\s*\d{1,3})?$")
_WORD = re.compile(r"[A-Za-z]{2,}")
_FIGURE = re.compile(r"\d[\d,]*\.?\d*")
_REF = re.compile(r"\b(?:item|note|part|section|exhibit)s?\s+\(?\d", re.I)
_EXHIBIT_LINE = re.compile(r"^\(?\d{1,3}(?:\.\d{1,3}){0,2}(?:\.[A-Z]{2,4})?\)?[*+†#]*\s+\S")
_SEC = re.compile(r"securities\s+and\s+exchange\s+commission", re.I)
_FILE_NUMBER = re.compile(r"commission\s+file\s+(?:number|no)", re.I)


def _is_toc_line(line: str) -> bool:
    """A title followed by its page number: one figure (plus "Item 7"/"Note 12" numbers),
    so a statement row with two small figures is not one."""
    # a page number ends the line: checked before the regex, which scans the whole line
    # (page typing of the retrieved pages was most of a hybrid search's time at 100k chunks)
    if not line[-1:].isdigit() or not _TOC_LINE.search(line) or not _WORD.search(line):
        return False
    refs = len(_REF.findall(line))
    return len(_FIGURE.findall(line)) <= 1 + refs


def page_type(text: str) -> PageType:
    """The kind of page (see module docstring); "text" for everything else."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if not lines:
        return "text"
    low = text.lower()
    if len(lines) >= 8:
        toc = sum(1 for ln in lines if _is_toc_line(ln))
        if toc >= 8 and toc >= 0.4 * len(lines):
            return "toc"
    if "exhibit" in low and sum(1 for ln in lines if _EXHIBIT_LINE.match(ln)) >= 6:
        return "exhibits"
    if low.count("/s/") >= 3 and "signature" in low:
        return "signatures"
    if "commission" in low and _SEC.search(text) and _FILE_NUMBER.search(text):  # both name the commission
        return "cover"
    return "text"
