"""Printed page labels: the number a page prints in its margin ("7", "F-3", "ii"), which is
what an analyst cites, as opposed to the PDF's page index (cover pages and tables of
contents make the two differ). The PDF's own page labels (/PageLabels) win when present.
"""

from __future__ import annotations

import re
from typing import Any

import pymupdf

EDGE_BLOCKS = 2  # text blocks looked at from the bottom (then the top) of the page

# Front-matter numerals only (i … xxxix): a lone "l" or "c" on a page is not a page number.
_ROMAN = r"(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})"
_LABEL = re.compile(
    rf"^(?:page\s+)?(?P<label>(?:[A-Z]{{1,2}}\s?-\s?)?\d{{1,3}}|{_ROMAN})(?:\s+of\s+\d{{1,4}})?$", re.I
)


def label_from_lines(lines: list[str]) -> str:
    """The page label among margin lines, nearest the page edge first: a bare number, a
    letter-prefixed one ("F-7"), a lower-case roman numeral, "Page 7", "7 of 116", or the
    last/first part of a "Company | Form 10-Q | 7" footer. "" when none is found."""
    for line in lines:
        parts = [p.strip(" -–—\u00a0") for p in line.split("|")]
        for part in (parts[-1], parts[0]) if len(parts) > 1 else (parts[0],):
            m = _LABEL.match(part)
            if m and (not m.group("label").isalpha() or m.group("label").islower()):
                return re.sub(r"\s", "", m.group("label"))
    return ""


def page_label(page: pymupdf.Page) -> str:
    """The label ``page`` prints (or is given by the PDF); "" when it has none. The printed
    number is the last line of the page's text (footers follow the content, which may end
    well above the paper's edge), else the first (a header)."""
    try:
        label = page.get_label()
    except Exception:  # a malformed /PageLabels tree must not hide the page
        label = ""
    if label:
        return str(label)
    blocks = [b for b in page.get_text("blocks") if str(b[4]).strip()]
    if not blocks:
        return ""
    bottom = sorted(blocks, key=lambda b: -b[3])[:EDGE_BLOCKS]
    lines = [ln for b in bottom for ln in reversed(str(b[4]).splitlines()) if ln.strip()]
    label = label_from_lines(lines[:3])
    if label:
        return label
    top = sorted(blocks, key=lambda b: b[1])[:1]
    return label_from_lines([ln for b in top for ln in str(b[4]).splitlines() if ln.strip()][:2])


class PageLabels:
    """Printed labels of one document's pages, read lazily and checked against their
    neighbours: a number is a page number only when a page nearby prints the number that
    keeps the same distance to its index (a table of contents' "22" on page 3 is not);
    a page printing nothing between two agreeing neighbours gets the number between them."""

    def __init__(self, doc: pymupdf.Document) -> None:
        self.doc = doc
        self._raw: dict[int, str] = {}
        self._label: dict[int, str] = {}

    def raw(self, number: int) -> str:
        if not 1 <= number <= self.doc.page_count:
            return ""
        if number not in self._raw:
            try:
                self._raw[number] = page_label(self.doc[number - 1])
            except Exception:  # an unreadable page has no label; its neighbours still do
                self._raw[number] = ""
        return self._raw[number]

    def _offset(self, number: int) -> int | None:
        r = self.raw(number)
        return int(r) - number if r.isdigit() else None

    def label(self, number: int) -> str:
        """Printed label of 1-based page ``number``; "" when the page prints none."""
        if number in self._label:
            return self._label[number]
        try:
            from_pdf = self.doc[number - 1].get_label()
        except Exception:
            from_pdf = ""
        if from_pdf:
            out = str(from_pdf)
        else:
            r = self.raw(number)
            off = self._offset(number)
            near = [self._offset(number + d) for d in (-1, 1, -2, 2)]
            if off is not None:
                out = r if off in near else ""
            elif r:
                out = r  # roman numerals and "F-7" style labels need no arithmetic check
            elif near[0] is not None and near[0] == near[1]:
                out = str(number + near[0])
            else:
                out = ""
        self._label[number] = out
        return out

    def describe(self, number: int) -> str:
        """"p. 7 (PDF 10)" when the printed label differs from the index, else "p. 10"."""
        return describe_page(self.label(number), number)


def describe_page(label: str, number: int) -> str:
    """The one way a page is named to the analyst: "p. 72 (PDF 74)" when the page prints
    another number than its place in the PDF, else "p. 74". Chips, answer text, tooltips,
    copies, exports and the history all name a cited page through this function."""
    if label and label != str(number):
        return f"p. {label} (PDF {number})"
    return f"p. {number}"


def cited_page(cited: Any) -> str:
    """``describe_page`` of a citation or a calculation input (its ``page`` and the
    ``page_label`` the answer engine read from the filing)."""
    return describe_page(str(getattr(cited, "page_label", "") or ""), int(getattr(cited, "page", 0) or 0))
