"""PDF reading with pymupdf: canonical page text, clear failures, quote -> rectangles.

Every page is turned into one canonical string, built character by character from
pymupdf's ``rawdict`` so each character keeps its bounding box. Chunks are slices of
that string and quotes are validated against it, so any quote maps back to exact
rectangles on the page, including quotes that wrap across lines.

Canonical text rules (the same at ingest and in the viewer, by construction):
- text lines that share a baseline (a table row split into cell blocks) are joined
  left-to-right into one visual line, so tables read row by row;
- two-column prose (bank 10-Qs, annual-report wraps) is read column by column: where a
  vertical white gutter runs through a block of prose lines, the left column is read
  before the right one instead of joining the two lines that share a baseline;
- visual lines are separated by "\\n"; runs of white space inside a line become one space;
- characters are the page's own (curly quotes, en/em dashes, minus signs are kept, so a
  quote shown to the analyst is verbatim and the viewer's own search finds it); only
  ligatures are expanded and invisible characters (soft hyphens, zero widths) dropped.
  Matching is lenient instead: ``match_form``/``fold_text`` fold quotes, dashes and line
  breaks one character for one, so a straight-quoted quote typed by a model or a person
  still finds the curly original at the same offsets.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pymupdf

Rect = tuple[float, float, float, float]

# Bump when the canonical page text changes (reading order, character rules): the
# library then re-extracts stored documents from their PDFs on re-index.
EXTRACTOR_VERSION = 2

# Typographic characters folded for matching only, one for one (so offsets found in the
# folded form are offsets into the verbatim text).
_MATCH_FOLD = {
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\n": " ",
}
_MATCH_TABLE = str.maketrans(_MATCH_FOLD)
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")


def fold_char(c: str) -> str:
    """A page character as stored: white space -> " ", invisible -> "", ligatures expanded,
    everything else (curly quotes, dashes, symbols) verbatim."""
    if c.isascii():
        return c
    if c in _INVISIBLE:
        return ""
    if c.isspace():
        return " "
    if "\ufb00" <= c <= "\ufb4f":  # ligatures (fi, fl, ffi...) and presentation forms
        return unicodedata.normalize("NFKC", c)
    return c


def fold_chars(text: str) -> str:
    """``fold_char`` over a string. ASCII text folds to itself character by character, so
    it skips the per-character pass (a third of the time of the quotes picked before
    generation, and most of a page read span by span)."""
    return text if text.isascii() else "".join(fold_char(c) for c in text)


def fold_text(text: str) -> str:
    """Canonical form of free text (a quote) for matching: folded characters, single spaces."""
    return " ".join(fold_chars(text).translate(_MATCH_TABLE).split())


def match_form(text: str) -> str:
    """Canonical page/chunk text in the form quotes are matched against (same length:
    line breaks become spaces, typographic quotes/dashes their ASCII twins)."""
    return text.translate(_MATCH_TABLE)


class PdfError(Exception):
    """A PDF that cannot be ingested, with a reason an analyst can act on."""

    MESSAGES = {
        "unreadable": "cannot read the file",
        "not_pdf": "not a PDF file",
        "corrupt": "the PDF is damaged or truncated and cannot be opened",
        "encrypted": "the PDF is protected by a password",
        "empty": "the PDF has no pages",
        "image_only": "the PDF has no text layer (scanned images); run OCR on it first",
        "garbled": "the PDF's text layer cannot be read (its fonts map glyphs to no letters, so "
                   "copied text comes out scrambled); run OCR on it first",
    }

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        msg = self.MESSAGES.get(kind, kind)
        super().__init__(f"{msg} ({detail})" if detail else msg)

    def __reduce__(self) -> tuple[type[PdfError], tuple[str, str]]:
        # kind and detail survive the trip from a helper process (core/index/pdf_reader)
        return (PdfError, (self.kind, self.detail))


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


Line = tuple[Rect, list[tuple[str, Rect]]]


def extract_page(page: pymupdf.Page, with_boxes: bool = False) -> PageText:
    """Canonical text of one page (see module docstring).

    Without boxes (ingest) the page is read span by span ("dict"): mupdf then builds no
    Python object per character, about 3x faster on a 10-K, and the text is the same as the
    character-by-character reading the viewer does with boxes (a test compares them)."""
    raw = page.get_text("rawdict" if with_boxes else "dict", flags=_TEXT_FLAGS, sort=True)
    lines: list[Line] = []
    for block in raw["blocks"]:
        if block.get("type") != 0:
            continue
        for line in block["lines"]:
            _dx, dy = line.get("dir", (1, 0))
            if abs(dy) > 0.1:  # rotated text (margin stamps): not part of the reading flow
                continue
            if with_boxes:
                chars = [(ch["c"], tuple(ch["bbox"])) for span in line["spans"] for ch in span["chars"]]
            else:  # one entry per span: its text and box
                chars = [(span["text"], tuple(span["bbox"])) for span in line["spans"]]
            if any(c.strip() for c, _ in chars):
                lines.append((tuple(line["bbox"]), chars))
    rows = reading_order(visual_rows(lines))
    if not with_boxes:
        return PageText(page.number + 1, _rows_text(rows), None)

    text: list[str] = []
    boxes: list[Rect] = []
    zero: Rect = (0.0, 0.0, 0.0, 0.0)
    for row in rows:
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
    return PageText(page.number + 1, "".join(text), boxes)


def _rows_text(rows: list[list[Line]]) -> str:
    """The text the character loop of ``extract_page`` builds, from whole spans: a row's
    words (white space collapsed, none leading or trailing, lines of a row joined by one
    space), rows joined by line breaks; a row whose characters all fold away adds none."""
    out: list[str] = []
    started = False
    for row in rows:
        words = " ".join(" ".join("".join(fold_chars(c) for c, _ in spans) for _, spans in row).split())
        if started:
            out.append("\n")
        out.append(words)
        started = started or bool(words)
    return "".join(out)


def visual_rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into visual rows (same baseline band, no horizontal overlap), top to
    bottom, each row left to right."""
    lines = sorted(lines, key=lambda ln: (ln[0][1] + ln[0][3]) / 2)
    rows: list[list[Line]] = []
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
    for row in rows:
        row.sort(key=lambda ln: ln[0][0])
    return rows


# Two-column detection. A "prose part" is the part of a row on one side of a gutter that
# reads as running text: several words, mostly alphabetic (a table cell of figures, an
# exhibit number or a signature name is not). A block of rows is read column by column
# only when both sides carry several prose parts and prose dominates each side, so a
# table (labels left of the gutter, figures right of it) stays joined row by row.
_MIN_PROSE_WORDS = 4
_MIN_PROSE_PARTS = 3
_MIN_GUTTER = 3.0  # points of white between the columns (a word space is ~2.5)


def _part_text(part: list[Line]) -> str:
    return " ".join("".join(c for c, _ in chars) for _, chars in part)


WordCounts = dict[int, tuple[int, int]]


def _line_words(line: Line) -> tuple[int, int]:
    """(words, mostly alphabetic words) of one line. A part's counts are its lines' sums:
    joining lines with a space never merges or splits a word."""
    words = "".join([c for c, _ in line[1]]).split()
    alpha = 0
    for w in words:
        if w.isalpha() or sum(map(str.isalpha, w)) >= max(1, len(w) // 2):
            alpha += 1
    return len(words), alpha


def _is_prose(part: list[Line], counts: WordCounts | None = None) -> bool:
    """``counts`` keeps each line's word counts for one page: the gutter search asks about
    the same lines for every candidate band (a quarter of a 10-K's extraction time before)."""
    n = alpha = 0
    for ln in part:
        c = counts.get(id(ln)) if counts is not None else None
        if c is None:
            c = _line_words(ln)
            if counts is not None:
                counts[id(ln)] = c
        n += c[0]
        alpha += c[1]
    return n >= _MIN_PROSE_WORDS and alpha >= 0.7 * n


def _crosses(rect: Rect, gutter: tuple[float, float]) -> bool:
    # 1 pt of slack: glyph boxes of a column's edge letters overhang by a fraction of a point
    return rect[0] < gutter[1] - 1.0 and rect[2] > gutter[0] + 1.0


def _split(row: list[Line], gutter: tuple[float, float]) -> tuple[list[Line], list[Line]]:
    """A row the gutter does not cut, as (left part, right part); every line goes to one side."""
    mid = (gutter[0] + gutter[1]) / 2
    left = [ln for ln in row if (ln[0][0] + ln[0][2]) / 2 < mid]
    return left, [ln for ln in row if (ln[0][0] + ln[0][2]) / 2 >= mid]


def find_gutter(rows: list[list[Line]], counts: WordCounts | None = None) -> tuple[float, float] | None:
    """The vertical white band (x from, x to) that best separates two prose columns, or
    None. Candidates start at the right edge of a line; the band runs to the nearest left
    edge of a line beginning right of it; the best band has the most prose parts on its
    weaker side among the rows it does not cut, then cuts the fewest rows."""
    all_lines = [ln for row in rows for ln in row]
    if len(all_lines) < 2 * _MIN_PROSE_PARTS:
        return None
    x_lo = min(ln[0][0] for ln in all_lines)
    x_hi = max(ln[0][2] for ln in all_lines)
    width = x_hi - x_lo
    lo, hi = x_lo + 0.25 * width, x_hi - 0.25 * width
    # Cheap test first: a right column needs prose lines that start well right of the margin.
    # Only the lines starting right of ``lo`` are judged for it: on a one-column page (most
    # of a 10-K) the others need no word counts at all.
    counts = {} if counts is None else counts
    if sum(1 for ln in all_lines if ln[0][0] >= lo and _is_prose([ln], counts)) < _MIN_PROSE_PARTS:
        return None
    prose = {id(ln): _is_prose([ln], counts) for ln in all_lines}
    # A column starts where prose lines start (a page number centred in the gutter does not).
    lefts = sorted({round(ln[0][0], 1) for ln in all_lines if prose[id(ln)]})
    best: tuple[tuple[int, int], tuple[float, float]] | None = None
    tried: set[float] = set()
    for ln in all_lines:
        g0 = ln[0][2]
        if round(g0) in tried or not lo <= g0 <= hi or not prose[id(ln)]:
            continue
        tried.add(round(g0))
        g1 = next((x for x in lefts if x >= g0 + _MIN_GUTTER), None)
        if g1 is None:
            continue
        band = (g0, g1)
        n_left = n_right = cut = 0
        for row in rows:
            if any(_crosses(r[0], band) for r in row):
                cut += 1
                continue
            left, right = _split(row, band)
            n_left += bool(left) and (prose[id(left[0])] if len(left) == 1 else _is_prose(left, counts))
            n_right += bool(right) and (prose[id(right[0])] if len(right) == 1 else _is_prose(right, counts))
        score = (min(n_left, n_right), -cut)
        if score[0] >= _MIN_PROSE_PARTS and (best is None or score > best[0]):
            best = (score, band)
    return best[1] if best else None


def reading_order(rows: list[list[Line]]) -> list[list[Line]]:
    """Rows in reading order: blocks of two-column prose become their left column's rows
    followed by their right column's rows; everything else keeps its visual row."""
    counts: WordCounts = {}
    gutter = find_gutter(rows, counts)
    if gutter is None:
        return rows
    out: list[list[Line]] = []
    block: list[list[Line]] = []

    def flush() -> None:
        parts = [_split(row, gutter) for row in block]
        left = [p for p, _ in parts if p]
        right = [p for _, p in parts if p]
        out.extend(left + right if _is_column(left, counts) and _is_column(right, counts) else block)
        block.clear()

    for row in rows:
        if any(_crosses(ln[0], gutter) for ln in row):
            flush()
            out.append(row)
        else:
            block.append(row)
    flush()
    return out


_BULLETS = "•◦▪■●–-·* "


def _is_column(parts: list[list[Line]], counts: WordCounts | None = None) -> bool:
    """Parts of rows on one side of a gutter read as a column of running text: enough
    prose parts, prose dominating, lines filling the column's width (a table's label or
    name cells are ragged), and lines continuing a sentence (starting lower-case or with
    a figure) as prose wraps, where table cells start afresh with a capital."""
    if not parts:
        return False
    prose = [p for p in parts if _is_prose(p, counts)]
    if len(prose) < _MIN_PROSE_PARTS or len(prose) < 0.5 * len(parts):
        return False
    x0 = min(p[0][0][0] for p in parts)
    x1 = max(p[-1][0][2] for p in parts)
    full = sum(1 for p in parts if p[-1][0][2] - p[0][0][0] >= 0.8 * (x1 - x0))
    if full < 0.45 * len(parts):
        return False
    starts = [_part_text(p).lstrip(_BULLETS)[:1] for p in prose[1:]]
    wrapped = sum(1 for c in starts if c.islower() or c.isdigit())
    return wrapped >= 0.25 * len(starts)


def _x_overlap(a: Rect, b: Rect) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1.0


def extract_document(doc: pymupdf.Document, with_boxes: bool = False) -> list[PageText]:
    pages: list[PageText] = []
    for page in doc.pages():
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


# A token of a readable page: a word (with its quotes, apostrophes, hyphens and punctuation) or
# a figure ("$(1,234.5)", "12%"). Fonts without a character map (Type 3 glyphs numbered in
# drawing order) give text like "+,-./,0-12,03" for "Revenues": tokens of neither kind.
_WORD_TOKEN = re.compile(r"[(\"'“‘]*[A-Za-z][A-Za-z'’.&/-]*[)\"'”’,.;:!?]*")
_FIGURE_TOKEN = re.compile(r"[(\-–$€£]*\$?\d[\d,.]*%?[)*,.;:]*")


def garbled_share(text: str) -> float:
    """The share of a page's tokens (of two or more characters) that are neither words nor
    figures; 0 for a page of fewer than 30 tokens. Filings measured here: at most 0.43 on any
    page of 97 readable filings (tables of eBay's and PG&E's filings), 0.62-0.82 on every page
    of an earnings release whose fonts carry no character map."""
    tokens = text.split()
    if len(tokens) < 30:
        return 0.0
    junk = sum(1 for t in tokens if len(t) > 1 and not _WORD_TOKEN.fullmatch(t) and not _FIGURE_TOKEN.fullmatch(t))
    return junk / len(tokens)


def check_text_layer(pages: list[PageText], doc: pymupdf.Document) -> None:
    """Raise PdfError when the PDF cannot be read as text: no text layer ("image_only"), or
    a text layer that is not the page's words on most pages ("garbled"): indexing it would
    quote scrambled characters and take the file name for the company."""
    if is_image_only(pages, doc):
        raise PdfError("image_only")
    texts = [p.text for p in pages if len(p.text.split()) >= 30]
    garbled = sum(1 for t in texts if garbled_share(t) > 0.5)
    if texts and garbled * 2 > len(texts):
        raise PdfError("garbled", f"{garbled} of {len(pages)} pages")
