"""The page's own characters, for checking that a shown quote is verbatim.

The product's canonical page text (``core.ingest.pdf.extract_page``) folds typographic characters
(curly quotes to ASCII, NFKC ligatures...) so quotes match whatever was typed. To check
that what the analyst sees is the filing's own wording, the raw text of a page is rebuilt
in the same reading order as the canonical text: each canonical character is mapped back,
through its character box, to the character pymupdf read at that box.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def raw_text_from(canonical: str, boxes: list[Any], raw_chars: dict[tuple[float, ...], str]) -> str:
    """Canonical text with each character replaced by the raw character drawn in its box.
    A folded character that expanded into several (a ligature) comes back once."""
    out: list[str] = []
    prev_box: Any = None
    for ch, box in zip(canonical, boxes, strict=True):
        if ch in " \n":
            out.append(ch)
            prev_box = None
            continue
        raw = raw_chars.get(tuple(box))
        if raw is None:
            out.append(ch)
        elif box != prev_box:
            out.append(raw)
        prev_box = box
    return "".join(out)


class RawPages:
    """Raw page texts of the library's PDFs, read on demand and cached per document."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int], str | None] = {}

    def text(self, pdf_path: str | Path, page: int) -> str | None:
        """Raw text of a 1-based page, or None when the PDF is not readable here."""
        key = (str(pdf_path), page)
        if key not in self._cache:
            self._cache[key] = self._read(Path(pdf_path), page)
        return self._cache[key]

    @staticmethod
    def _read(path: Path, page: int) -> str | None:
        from desktop_rag.core.ingest.pdf import PdfError, extract_page, open_pdf

        try:
            doc = open_pdf(path)
        except PdfError:
            return None
        try:
            if not 1 <= page <= doc.page_count:
                return None
            pg = doc[page - 1]
            canon = extract_page(pg, with_boxes=True)
            raw = pg.get_text("rawdict", flags=_flags(), sort=True)
            chars: dict[tuple[float, ...], str] = {}
            for block in raw["blocks"]:
                for line in block.get("lines", []):
                    for span in line["spans"]:
                        for ch in span["chars"]:
                            chars.setdefault(tuple(ch["bbox"]), ch["c"])
            return raw_text_from(canon.text, canon.boxes or [], chars)
        finally:
            doc.close()


def _flags() -> int:
    import pymupdf

    return pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
