"""Source viewer on a real filing: exact highlights (also across a line wrap), zoom, search."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from desktop_rag.core.domain.types import Citation
from desktop_rag.core.ingest.pdf import extract_page, open_pdf
from desktop_rag.gui.pdf_view import PAGE_MARGIN, PdfViewer

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


# -- issue #11, problem 5: a viewer analysts expect ---------------------------------------------
def numbered_filing(path: Path, pages: int = 12, front: int = 3) -> Path:
    """``front`` unnumbered pages (cover, contents), then pages printing 1, 2, 3… at the bottom."""
    from tests.conftest import write_pdf

    texts = []
    for i in range(pages):
        body = [f"Section {i + 1} heading", *[f"Line {k} of page {i + 1}: revenue grew in the quarter." for k in range(8)]]
        if i == 1:
            body.append("Risk Factors 22")  # a contents line ending in a number: not a page label
        if i >= front:
            body += ["", "", f"Apple Inc. | Q3 2023 Form 10-Q | {i + 1 - front}"]
        texts.append("\n".join(body))
    return write_pdf(path, texts)


def toolbar_overlaps(viewer: PdfViewer) -> list[str]:
    """Visible toolbar controls that overlap each other or stick out of the toolbar."""
    bar = viewer.toolbar
    leaves = [w for w in bar.findChildren(QWidget)
              if w.isVisibleTo(bar) and not w.findChildren(QWidget) and w.width() > 0
              and w.parentWidget() is not None and w.parentWidget().isVisibleTo(bar)]
    boxes = [(w, QRect(w.mapTo(bar, QPoint(0, 0)), w.size())) for w in leaves]
    out = []
    for i, (a, ra) in enumerate(boxes):
        if not bar.rect().contains(ra):
            out.append(f"{type(a).__name__} {ra} outside {bar.rect()}")
        for b, rb in boxes[i + 1:]:
            if ra.intersects(rb):
                out.append(f"{type(a).__name__} {ra} overlaps {type(b).__name__} {rb}")
    return out


def test_continuous_lazy_scrolling_and_a_header_that_follows(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = numbered_filing(tmp_path / "filing.pdf", pages=12)
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 800)
    viewer.show()
    rects = viewer.show_citation(Citation("id", pdf.name, 5, "Line 3 of page 5"), pdf)
    qtbot.wait(50)
    assert rects and viewer.current_page == 5
    assert viewer.subtitle.text() == "Page 2 (PDF 5 of 12) · quote highlighted"
    assert 0 < len(viewer.pages.rendered) < 12, "pages are rendered only when they come into view"

    # Page Down moves on and the header follows; the highlight stays with its page.
    viewer.setFocus()
    qtbot.keyClick(viewer.scroll_area, Qt.Key.Key_PageDown)
    assert viewer.current_page == 6
    assert viewer.subtitle.text() == "Page 3 (PDF 6 of 12)"

    # The wheel/scroll bar runs through all pages to the last one.
    vbar = viewer.scroll_area.verticalScrollBar()
    vbar.setValue(vbar.maximum())
    qtbot.wait(20)
    assert viewer.current_page == 12 and viewer.subtitle.text().startswith("Page 9 (PDF 12 of 12)")
    vbar.setValue(viewer.pages.page_rect(8).top() + 5)
    assert viewer.current_page == 8

    # A search jump lands on another page: the header says so, without the quote note.
    viewer.search.setText("page 10: revenue")
    viewer.find_next()
    assert viewer.current_page == 10
    assert viewer.subtitle.text() == "Page 7 (PDF 10 of 12)"
    assert viewer.search_count.text() == "1/8"  # eight lines of page 10 say it


def test_printed_page_labels_in_viewer_and_citations(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = numbered_filing(tmp_path / "filing.pdf", pages=12)
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    assert viewer.open_document(pdf)
    labels = viewer.labels
    assert labels is not None
    assert [labels.label(n) for n in (1, 2, 3, 4, 10)] == ["", "", "", "1", "7"]
    assert labels.describe(10) == "p. 7 (PDF 10)" and labels.describe(2) == "p. 2"

    # PDF page labels (/PageLabels) win over the footer.
    doc = pymupdf.open(pdf)
    doc.set_page_labels([{"startpage": 0, "prefix": "A-", "style": "D", "firstpagenum": 1}])
    labelled = tmp_path / "labelled.pdf"
    doc.save(labelled)
    doc.close()
    assert viewer.open_document(labelled)
    assert viewer.labels.describe(10) == "p. A-10 (PDF 10)"  # type: ignore[union-attr]


def test_fit_width_fits_any_width(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.gui.pdf_view import MIN_ZOOM

    pdf = numbered_filing(tmp_path / "filing.pdf", pages=3, front=0)
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(300, 700)
    viewer.show()
    viewer.open_document(pdf)
    viewer.show_page(1)
    qtbot.wait(100)
    vp = viewer.scroll_area.viewport()
    # a narrow pane: the page's whole width, smaller than true size, never cut at the side
    assert viewer.fit_width and MIN_ZOOM <= viewer.zoom < 0.8
    assert viewer.pages.page_rect(1).right() <= vp.width() and viewer.scroll_area.horizontalScrollBar().maximum() == 0
    assert viewer.zoom_label.text() == f"{round(viewer.zoom * 100)}%"
    viewer.resize(1400, 900)
    qtbot.waitUntil(lambda: viewer.zoom > 1.0, timeout=2000)  # a wide pane fits the page's width
    # fit page: the whole page in view
    viewer.set_fit_page(True)
    assert viewer.fit_mode == "page" and not viewer.fit_width and viewer.fit_page_btn.isChecked()
    assert viewer.pages.page_rect(1).height() <= vp.height()
    # zooming out goes down to a quarter of true size
    for _ in range(20):
        viewer.step_zoom(-1)
    assert viewer.zoom == MIN_ZOOM and not viewer.fit_mode and not viewer.fit_btn.isChecked()


def _rightmost_figure(pdf: Path, page_no: int) -> pymupdf.Rect:
    """The box of the rightmost figure printed on a page (a statement's last column)."""
    import re

    doc = pymupdf.open(pdf)
    words = [w for w in doc[page_no - 1].get_text("words") if re.fullmatch(r"\(?\$?[\d,.]+\)?", w[4]) and len(w[4]) >= 3]
    doc.close()
    best = max(words, key=lambda w: w[2])
    return pymupdf.Rect(best[:4])


def _in_view(viewer: PdfViewer, page_no: int, rect: pymupdf.Rect) -> bool:
    box = viewer.pages.to_widget(page_no, (rect.x0, rect.y0, rect.x1, rect.y1))
    vp = viewer.scroll_area.viewport()
    top_left = viewer.pages.mapTo(vp, box.topLeft().toPoint())
    bottom_right = viewer.pages.mapTo(vp, box.bottomRight().toPoint())
    return vp.rect().contains(top_left) and vp.rect().contains(bottom_right)


def test_a_statement_page_fits_at_1024_by_700_with_every_panel_open(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    """Issue #31, point 3: at 1024x700, with the thumbnails open, a statement page's rightmost
    figure column is inside the view; opening or closing a side panel refits the page; a
    search hit in that column is scrolled into view and the page stays fitted."""
    from .conftest import CORPUS_FILING

    win = fake_window(files={}, size=(1024, 700))
    viewer = win.viewer
    assert viewer.open_document(CORPUS_FILING, "Apple 10-Q")
    statement_page = 4  # the income statement: three columns of figures to the page's right edge
    viewer.show_page(statement_page)
    viewer.set_thumbnails_visible(True)
    qtbot.wait(200)
    figure = _rightmost_figure(CORPUS_FILING, statement_page)
    assert figure.x1 > 0.9 * 612
    assert statement_page in viewer.pages.rendered
    assert viewer.fit_width and viewer.zoom < 0.8  # the page is smaller than true size to fit
    assert _in_view(viewer, statement_page, figure), "the last figure column is off-screen"

    # the library pane folds away (the page area widens: the strip finds room), then the strip
    # closes and opens: the page is refitted to the page area each time
    def fitted() -> bool:
        vp = viewer.scroll_area.viewport().width()
        return abs(viewer.pages.page_rect(statement_page).width() - (vp - 2 * PAGE_MARGIN)) <= 2

    assert fitted()
    steps = [lambda: win.toggle_library(False), lambda: viewer.set_thumbnails_visible(False),
             lambda: viewer.set_thumbnails_visible(True), lambda: win.toggle_library(True)]
    widths = []
    for step in steps:
        before = viewer.scroll_area.viewport().width()
        step()
        qtbot.waitUntil(lambda b=before: viewer.scroll_area.viewport().width() != b, timeout=3000)
        qtbot.waitUntil(fitted, timeout=3000)
        widths.append(viewer.scroll_area.viewport().width())
        assert _in_view(viewer, statement_page, figure)
    assert len(set(widths)) >= 3

    # a search hit in the last column: in view, nothing scrolled sideways, still fitted
    doc = pymupdf.open(CORPUS_FILING)
    text = next(w[4] for w in doc[statement_page - 1].get_text("words") if pymupdf.Rect(w[:4]) == figure)
    doc.close()
    fitted = viewer.zoom
    viewer.search.setText(text)
    viewer.find_next()
    while viewer.pages.current_hit is not None and viewer.pages.current_hit[0] != statement_page:
        viewer.find_next()
    page, hit = viewer.pages.current_hit  # type: ignore[misc]
    assert page == statement_page
    assert _in_view(viewer, page, pymupdf.Rect(hit))
    assert viewer.fit_width and viewer.zoom == fitted and viewer.scroll_area.horizontalScrollBar().value() == 0


@pytest.mark.parametrize("width", [340, 480, 640, 900])
def test_toolbar_never_overlaps_itself_and_the_counter_is_uncovered(qtbot, tmp_path: Path, width: int) -> None:  # type: ignore[no-untyped-def]
    pdf = numbered_filing(tmp_path / "filing.pdf", pages=4, front=0)
    host = QWidget()  # a pane in a window, as in the app (a top-level widget sizes itself)
    lay = QHBoxLayout(host)
    lay.setContentsMargins(0, 0, 0, 0)
    viewer = PdfViewer()
    lay.addWidget(viewer)
    qtbot.addWidget(host)
    host.show()
    host.resize(width, 700)
    viewer.open_document(pdf)
    viewer.show_page(1)
    viewer.search.setText("revenue")
    viewer.find_next()
    qtbot.wait(50)
    assert viewer.width() == width
    assert viewer.search_count.text() == "1/32"
    assert toolbar_overlaps(viewer) == []
    bar = viewer.toolbar
    field = QRect(viewer.search.mapTo(bar, QPoint(0, 0)), viewer.search.size())
    counter = QRect(viewer.search_count.mapTo(bar, QPoint(0, 0)), viewer.search_count.size())
    assert viewer.search_count.isVisible() and not field.intersects(counter)
    assert viewer.search_count.width() >= viewer.search_count.sizeHint().width()
    if width < PdfViewer.COLLAPSE_BELOW:
        assert viewer.more_btn.isVisible() and not viewer.zoom_group.isVisible()


def test_thumbnail_strip_renders_lazily_and_jumps(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = numbered_filing(tmp_path / "filing.pdf", pages=40)
    host = QWidget()
    lay = QHBoxLayout(host)
    lay.setContentsMargins(0, 0, 0, 0)
    viewer = PdfViewer()
    lay.addWidget(viewer)
    qtbot.addWidget(host)
    host.show()
    host.resize(950, 800)
    assert viewer.open_document(pdf)
    viewer.show_page(1)
    assert viewer.thumbs.isVisible() and viewer.thumbs.count() == 40  # a wide pane shows the strip
    qtbot.waitUntil(lambda: len(viewer._thumbs_done) >= 3, timeout=5000)
    qtbot.wait(200)
    assert len(viewer._thumbs_done) < 40, "thumbnails are rendered only for the strip's view"
    assert viewer.thumbs.item(9).toolTip() in ("", "p. 7 (PDF 10)")
    viewer.thumbs.itemClicked.emit(viewer.thumbs.item(14))
    assert viewer.current_page == 15 and viewer.subtitle.text() == "Page 12 (PDF 15 of 40)"
    host.resize(500, 800)
    qtbot.wait(50)
    assert not viewer.thumbs.isVisible()  # a narrow pane keeps its width for the page
