"""Source viewer on a real filing: exact highlights (also across a line wrap), zoom, search."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from desktop_rag.core.pdf import extract_page, open_pdf
from desktop_rag.core.types import Citation
from desktop_rag.gui.pdf_view import PdfViewer

pytestmark = pytest.mark.gui

Rect = tuple[float, float, float, float]


def covered(target: pymupdf.Rect, rects: list[Rect], tol: float = 1.5) -> float:
    """Fraction of ``target``'s area inside the union of ``rects`` (each grown by ``tol``)."""
    area = target.get_area()
    if area <= 0:
        return 1.0
    inside = 0.0
    for r in rects:
        grown = pymupdf.Rect(r[0] - tol, r[1] - tol, r[2] + tol, r[3] + tol)
        inside += (grown & target).get_area()
    return min(1.0, inside / area)


def wrapped_citation(pdf: Path, page_no: int) -> Citation:
    """A quote that starts on one visual line and ends on the next (a wrapped sentence)."""
    doc = open_pdf(pdf)
    text = extract_page(doc[page_no - 1]).text
    doc.close()
    start = text.index("The growth in research and development")
    end = text.index("headcount-related expenses") + len("headcount-related expenses")
    assert "\n" in text[start:end]
    return Citation("id", pdf.name, page_no, text[start:end], start)


def test_wrapped_quote_gets_one_rect_per_line_and_covers_search_for(qtbot, filing_source: Path) -> None:  # type: ignore[no-untyped-def]
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 800)
    viewer.show()
    cit = wrapped_citation(filing_source, 21)
    rects = viewer.show_citation(cit, filing_source, "Apple 10-Q")
    assert viewer.current_page == 21
    assert len(rects) == cit.quote.count("\n") + 1
    assert viewer.canvas.highlights == rects

    page = open_pdf(filing_source)[20]
    # search_for works on the PDF's own characters (typographic quotes), so compare the
    # quote's plain stretches line by line.
    pieces = [p.strip() for line in cit.quote.split("\n") for p in line.split('"') if len(p.strip()) > 12]
    assert pieces
    for piece in pieces:
        hits = page.search_for(piece)
        assert hits, piece
        for hit in hits:
            assert covered(hit, rects) > 0.9

    # The highlight survives zoom: same rectangles in points, drawn at the new scale.
    before = viewer.canvas.scale
    viewer.set_zoom(2.0)
    assert viewer.canvas.scale > before
    assert viewer.highlight_rects == rects and viewer.canvas.highlights == rects
    viewer.set_fit_width(True)
    assert viewer.canvas.highlights == rects

    # Other pages carry no highlight; coming back restores it.
    viewer.show_page(22)
    assert viewer.canvas.highlights == []
    viewer.show_page(21)
    assert viewer.canvas.highlights == rects


def test_search_box_finds_and_steps_through_matches(qtbot, filing_source: Path) -> None:  # type: ignore[no-untyped-def]
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 800)
    viewer.show()
    assert viewer.open_document(filing_source)
    viewer.show_page(1)
    viewer.search.setText("Total net sales")
    viewer.find_next()
    assert viewer.canvas.search_hits, "no match drawn"
    first_page = viewer.current_page
    assert "/" in viewer.search_count.text()
    viewer.find_next()
    viewer.find_previous()
    assert viewer.current_page == first_page


def test_missing_quote_gives_no_rects_but_opens_the_page(qtbot, filing_source: Path) -> None:  # type: ignore[no-untyped-def]
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    rects = viewer.show_citation(Citation("id", filing_source.name, 3, "words that are not on this page at all"),
                                 filing_source)
    assert rects == [] and viewer.current_page == 3
