"""PDF reading with pymupdf: canonical page text, clear failures, quote -> rectangles.

Every page is turned into one canonical string, built character by character from
pymupdf's ``rawdict`` so each character keeps its bounding box. Chunks are slices of
that string and quotes are validated against it, so any quote maps back to exact
rectangles on the page, including quotes that wrap across lines.

Canonical text rules (the same at ingest and in the viewer, by construction):
- text lines that share a baseline (a table row split into cell blocks) are joined
  left-to-right into one visual line, so tables read row by row;
- visual lines are separated by "\\n"; runs of white space inside a line become one space;
- characters are NFKC-normalised (ligatures expand) and typographic dashes/quotes are
  folded to ASCII, so quotes typed by a model or a person still match.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pymupdf

Rect = tuple[float, float, float, float]

# Character folding shared by page text and quotes. Length-preserving per character
# except NFKC expansions (ligatures), which copy the source box to each output char.
_FOLD = {
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ",
    "\u00ad": "", "\u200b": "", "\ufeff": "",
}


def fold_char(c: str) -> str:
    if c in _FOLD:
        return _FOLD[c]
    if c.isascii():
        return c
    out = unicodedata.normalize("NFKC", c)
    return "".join(_FOLD.get(ch, ch) for ch in out)


def fold_text(text: str) -> str:
    """Canonical form of free text (a quote): folded characters, single spaces."""
    return " ".join("".join(fold_char(c) for c in text).split())


def match_form(text: str) -> str:
    """Canonical page/chunk text in the form quotes are matched against (same length)."""
    return text.replace("\n", " ")


class PdfError(Exception):
    """A PDF that cannot be ingested, with a reason an analyst can act on."""

    MESSAGES = {
        "unreadable": "cannot read the file",
        "not_pdf": "not a PDF file",
        "corrupt": "the PDF is damaged or truncated and cannot be opened",
        "encrypted": "the PDF is protected by a password",
        "empty": "the PDF has no pages",
        "image_only": "the PDF has no text layer (scanned images); run OCR on it first",
    }

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        msg = self.MESSAGES.get(kind, kind)
        super().__init__(f"{msg} ({detail})" if detail else msg)


@dataclass
class PageText:
    number: int  # 1-based
    text: str
    boxes: list[Rect] | None = None  # one box per character of ``text`` ("\n" gets a zero box)

    def rects_for(self, start: int, end: int) -> list[Rect]:
        """Rectangles covering text[start:end], one per visual line (merged char boxes)."""
        if self.boxes is None:
            raise ValueError("page extracted without character boxes")
        rects: list[list[float]] = []
        for i in range(max(0, start), min(end, len(self.text))):
            if self.text[i] in " \n":
                continue
            x0, y0, x1, y1 = self.boxes[i]
            if rects:
                r = rects[-1]
                same_line = min(y1, r[3]) - max(y0, r[1]) > 0.5 * min(y1 - y0, r[3] - r[1])
                if same_line and x0 >= r[0] - 1.0:
                    r[0], r[1], r[2], r[3] = min(r[0], x0), min(r[1], y0), max(r[2], x1), max(r[3], y1)
                    continue
            rects.append([x0, y0, x1, y1])
        return [(r[0], r[1], r[2], r[3]) for r in rects]

    def find(self, quote: str, start: int = 0) -> int:
        """Offset of ``quote`` (any white space/dash style) in the page text, or -1."""
        q = fold_text(quote)
        return match_form(self.text).find(q, start) if q else -1


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def open_pdf(path: Path) -> pymupdf.Document:
    """Open a PDF for reading or raise PdfError saying why not.

    Files encrypted with an empty user password (common for SEC filings) open normally.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise PdfError("unreadable", exc.strerror or str(exc)) from exc
    if b"%PDF-" not in head:
        raise PdfError("not_pdf", "no %PDF header")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:  # pymupdf raises FileDataError, RuntimeError, ValueError…
        raise PdfError("corrupt", str(exc)) from exc
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise PdfError("encrypted")
    if doc.is_repaired:
        # mupdf rebuilt a broken xref table. Usable when pages still parse; checked below.
        pass
    try:
        count = doc.page_count
    except Exception as exc:
        doc.close()
        raise PdfError("corrupt", str(exc)) from exc
    if count == 0:
        doc.close()
        raise PdfError("empty")
    return doc


_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP


def extract_page(page: pymupdf.Page, with_boxes: bool = False) -> PageText:
    """Canonical text of one page (see module docstring)."""
    raw = page.get_text("rawdict", flags=_TEXT_FLAGS, sort=True)
    lines: list[tuple[Rect, list[tuple[str, Rect]]]] = []
    for block in raw["blocks"]:
        if block.get("type") != 0:
            continue
        for line in block["lines"]:
            _dx, dy = line.get("dir", (1, 0))
            if abs(dy) > 0.1:  # rotated text (margin stamps): not part of the reading flow
                continue
            chars = [(ch["c"], tuple(ch["bbox"])) for span in line["spans"] for ch in span["chars"]]
            if any(not c.isspace() for c, _ in chars):
                lines.append((tuple(line["bbox"]), chars))  # type: ignore[arg-type]

    # Group lines into visual rows: same baseline band, left to right.
    lines.sort(key=lambda ln: (ln[0][1] + ln[0][3]) / 2)
    rows: list[list[tuple[Rect, list[tuple[str, Rect]]]]] = []
    for ln in lines:
        y0, y1 = ln[0][1], ln[0][3]
        if rows:
            ry0 = min(r[0][1] for r in rows[-1])
            ry1 = max(r[0][3] for r in rows[-1])
            overlap = min(y1, ry1) - max(y0, ry0)
            if overlap > 0.6 * min(y1 - y0, ry1 - ry0) and not any(
                _x_overlap(ln[0], r[0]) for r in rows[-1]
            ):
                rows[-1].append(ln)
                continue
        rows.append([ln])

    text: list[str] = []
    boxes: list[Rect] = []
    zero: Rect = (0.0, 0.0, 0.0, 0.0)
    for row in rows:
        row.sort(key=lambda ln: ln[0][0])
        if text:
            text.append("\n")
            boxes.append(zero)
        pending_space: Rect | None = None
        line_start = len(text)
        for li, (_, chars) in enumerate(row):
            if li and len(text) > line_start:
                pending_space = zero
            for c, box in chars:
                folded = fold_char(c)
                if not folded:
                    continue
                if folded.isspace():
                    if len(text) > line_start:
                        pending_space = box
                    continue
                if pending_space is not None:
                    text.append(" ")
                    boxes.append(pending_space)
                    pending_space = None
                for fc in folded:
                    text.append(" " if fc.isspace() else fc)
                    boxes.append(box)
    return PageText(page.number + 1, "".join(text), boxes if with_boxes else None)


def _x_overlap(a: Rect, b: Rect) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1.0


def extract_document(doc: pymupdf.Document, with_boxes: bool = False) -> list[PageText]:
    pages: list[PageText] = []
    for page in doc:
        try:
            pages.append(extract_page(page, with_boxes))
        except Exception as exc:  # a broken content stream
            raise PdfError("corrupt", f"page {page.number + 1}: {exc}") from exc
    if doc.is_repaired and not any(p.text.strip() for p in pages) and not has_images(doc, doc.page_count):
        # mupdf rebuilt a broken xref (e.g. a truncated download) and recovered page
        # objects but none of their content: damaged, not a scan that needs OCR.
        raise PdfError("corrupt", "no readable page content after repair")
    return pages


def has_images(doc: pymupdf.Document, max_pages: int = 5) -> bool:
    return any(doc[i].get_images() for i in range(min(max_pages, doc.page_count)))


def is_image_only(pages: list[PageText], doc: pymupdf.Document) -> bool:
    """No usable text layer: fewer than ~20 characters per page on average."""
    chars = sum(len(p.text.strip()) for p in pages)
    return chars < 20 * len(pages)
