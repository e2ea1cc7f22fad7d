"""Source viewer: pymupdf-rendered pages with exact-quote highlights, zoom and search.

Highlights are kept in PDF points and scaled at paint time, so they survive zoom and
fit-width changes. Quote rectangles come from the core's canonical page text
(``extract_page(with_boxes=True).rects_for``), the same text citations are substrings
of, so a quote that wraps across lines gets one rectangle per visual line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QIntValidator, QKeySequence, QPainter, QPaintEvent, QPen, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.pdf import PdfError, extract_page, fold_text, open_pdf
from desktop_rag.core.types import Citation
from desktop_rag.gui import style

log = logging.getLogger(__name__)

Rect = tuple[float, float, float, float]
ZOOM_STEPS = [0.5, 0.67, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0]


def quote_rects(page: pymupdf.Page, quote: str, char_start: int = -1) -> list[Rect]:
    """Rectangles (PDF points, one per visual line) covering exactly ``quote`` on ``page``.

    ``char_start`` is the citation's offset in the canonical page text; it is trusted when
    the text there really is the quote, else the quote is searched (white-space tolerant).
    """
    pt = extract_page(page, with_boxes=True)
    start = -1
    if char_start >= 0 and fold_text(pt.text[char_start:char_start + len(quote)]) == fold_text(quote):
        start, end = char_start, char_start + len(quote)
    else:
        start = pt.find(quote)
        # find() matches the folded quote, whose length can differ from the raw quote's.
        end = start + len(fold_text(quote)) if start >= 0 else -1
    if start < 0:
        return []
    rects = pt.rects_for(start, end)
    if page.rotation:
        m = page.rotation_matrix
        rects = [tuple(pymupdf.Rect(r) * m) for r in rects]  # type: ignore[misc]
    return rects


class PageCanvas(QWidget):
    """One rendered page plus highlight overlays, painted in PDF-point coordinates."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = QImage()
        self.scale = 1.0  # device-independent pixels per PDF point
        self.highlights: list[Rect] = []
        self.search_hits: list[Rect] = []
        self.current_hit = -1
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_image(self, image: QImage, scale: float) -> None:
        self.image = image
        self.scale = scale
        dpr = image.devicePixelRatio() or 1.0
        self.setFixedSize(QSize(int(image.width() / dpr), int(image.height() / dpr)))
        self.update()

    def to_widget(self, r: Rect) -> QRectF:
        s = self.scale
        return QRectF(QPointF(r[0] * s, r[1] * s), QPointF(r[2] * s, r[3] * s))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        if not self.image.isNull():
            p.drawImage(0, 0, self.image)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i, r in enumerate(self.search_hits):
            p.fillRect(self.to_widget(r).adjusted(-1, -1, 1, 1), style.SEARCH_HIT)
            if i == self.current_hit:
                p.setPen(QPen(style.SEARCH_HIT.darker(200), 1.5))
                p.drawRect(self.to_widget(r).adjusted(-1.5, -1.5, 1.5, 1.5))
        p.setPen(QPen(style.HIGHLIGHT_EDGE, 1.0))
        for r in self.highlights:
            box = self.to_widget(r).adjusted(-1.5, -1.5, 1.5, 1.5)
            p.fillRect(box, style.HIGHLIGHT)
            p.drawLine(box.bottomLeft(), box.bottomRight())
        p.end()


@dataclass
class _Open:
    path: Path
    title: str
    doc: pymupdf.Document


class PdfViewer(QFrame):
    """The Source pane. Public state is read by tests: ``current_page`` (1-based),
    ``highlight_rects`` (PDF points), ``zoom``."""

    status = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Pane")
        self._open: _Open | None = None
        self.current_page = 0
        self.zoom = 1.0
        self.fit_width = True
        self.highlight_rects: list[Rect] = []
        self._highlight_page = 0
        self._search_text = ""
        self._search_results: list[tuple[int, Rect]] = []
        self._search_index = -1

        self.title = QLabel("Source")
        self.title.setObjectName("PaneTitle")
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("Muted")
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        def tool(icon: str, tip: str) -> QToolButton:
            b = QToolButton()
            b.setIcon(style.icon(icon))
            b.setToolTip(tip)
            b.setAutoRaise(True)
            return b

        self.prev_btn = tool("chevron-left", "Previous page (Page Up)")
        self.next_btn = tool("chevron-right", "Next page (Page Down)")
        # A line edit, not a spin box: Fusion + stylesheet padding clips a button-less spin box.
        self.page_spin = QLineEdit()
        self._page_validator = QIntValidator(1, 99999, self.page_spin)
        self.page_spin.setValidator(self._page_validator)
        self.page_spin.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.page_spin.setFixedWidth(46)
        self.page_spin.setToolTip("Go to page")
        self.page_count = QLabel("/ 0")
        self.page_count.setObjectName("Muted")
        self.zoom_out_btn = tool("zoom-out", "Zoom out (Ctrl+-)")
        self.zoom_in_btn = tool("zoom-in", "Zoom in (Ctrl++)")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setObjectName("Muted")
        self.zoom_label.setFixedWidth(42)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.fit_btn = tool("fit-width", "Fit width")
        self.fit_btn.setCheckable(True)
        self.fit_btn.setChecked(True)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search in document")
        self.search.addAction(style.icon("search", "#9ca3af"), QLineEdit.ActionPosition.LeadingPosition)
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(120)
        self.search_count = QLabel("")
        self.search_count.setObjectName("Muted")
        self.search_prev = tool("chevron-up", "Previous match (Shift+Enter)")
        self.search_next = tool("chevron-down", "Next match (Enter)")

        head = QHBoxLayout()
        head.setContentsMargins(12, 10, 12, 0)
        titles = QVBoxLayout()
        titles.setSpacing(0)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        head.addLayout(titles, 1)

        bar = QHBoxLayout()
        bar.setContentsMargins(8, 4, 8, 6)
        bar.setSpacing(2)
        for w in (self.prev_btn, self.page_spin, self.page_count, self.next_btn):
            bar.addWidget(w)
        bar.addSpacing(8)
        for w in (self.zoom_out_btn, self.zoom_label, self.zoom_in_btn, self.fit_btn):
            bar.addWidget(w)
        bar.addSpacing(8)
        bar.addWidget(self.search, 1)
        for w in (self.search_count, self.search_prev, self.search_next):
            bar.addWidget(w)
        self.toolbar = QWidget()
        self.toolbar.setLayout(bar)

        self.canvas = PageCanvas()
        self.scroll = QScrollArea()
        self.scroll.setObjectName("ViewerScroll")
        self.scroll.setWidget(self.canvas)
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.scroll.setWidgetResizable(False)

        self.placeholder = QLabel(
            "<div style='font-size:11pt; font-weight:600'>No document open</div>"
            "<div style='color:#6b7280; margin-top:6px'>Click a numbered citation in an answer to open<br>"
            "the filing at that page with the quote highlighted.</div>"
        )
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.scroll)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(1, 1, 1, 1)
        lay.setSpacing(0)
        lay.addLayout(head)
        lay.addWidget(self.toolbar)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setStyleSheet(f"color: {style.BORDER}")
        lay.addWidget(line)
        lay.addWidget(self.stack, 1)

        self.prev_btn.clicked.connect(lambda: self.show_page(self.current_page - 1))
        self.next_btn.clicked.connect(lambda: self.show_page(self.current_page + 1))
        self.page_spin.editingFinished.connect(self._spin_changed)
        self.zoom_in_btn.clicked.connect(lambda: self.step_zoom(+1))
        self.zoom_out_btn.clicked.connect(lambda: self.step_zoom(-1))
        self.fit_btn.toggled.connect(self._fit_toggled)
        self.search.returnPressed.connect(self.find_next)
        self.search.textChanged.connect(self._search_changed)
        self.search_next.clicked.connect(self.find_next)
        self.search_prev.clicked.connect(self.find_previous)
        QShortcut(QKeySequence("Shift+Return"), self.search, self.find_previous,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence.StandardKey.ZoomIn, self, lambda: self.step_zoom(+1),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.StandardKey.ZoomOut, self, lambda: self.step_zoom(-1),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_PageDown), self, lambda: self.show_page(self.current_page + 1),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_PageUp), self, lambda: self.show_page(self.current_page - 1),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._update_controls()

    # -- documents -------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self._open.path if self._open else None

    @property
    def page_total(self) -> int:
        return self._open.doc.page_count if self._open else 0

    def open_document(self, path: Path, title: str = "") -> bool:
        """Open ``path`` (reusing it when already open). False + status message on failure."""
        path = Path(path)
        if self._open and self._open.path == path:
            return True
        try:
            doc = open_pdf(path)
        except PdfError as exc:
            self.status.emit(f"Cannot open {path.name}: {exc}")
            return False
        self.close_document()
        self._open = _Open(path, title or path.name, doc)
        self.title.setText(title or path.name)
        self.title.setToolTip(str(path))
        self._page_validator.setTop(doc.page_count)
        self.page_count.setText(f"/ {doc.page_count}")
        self._search_results = []
        self._search_text = ""
        self.stack.setCurrentWidget(self.scroll)
        self.current_page = 0
        return True

    def close_document(self) -> None:
        if self._open:
            self._open.doc.close()
        self._open = None
        self.current_page = 0
        self.highlight_rects = []
        self.canvas.highlights = []
        self.stack.setCurrentWidget(self.placeholder)
        self.title.setText("Source")
        self.subtitle.setText("")
        self._update_controls()

    # -- pages and citations ---------------------------------------------------------------------
    def show_page(self, number: int) -> None:
        if not self._open:
            return
        number = max(1, min(number, self._open.doc.page_count))
        changed = number != self.current_page
        self.current_page = number
        if changed:
            self.canvas.search_hits = []
        self.canvas.highlights = self.highlight_rects if self._highlight_page == number else []
        self._render()
        if changed:
            self.scroll.verticalScrollBar().setValue(0)
        self._update_controls()

    def show_citation(self, citation: Citation, path: Path, title: str = "") -> list[Rect]:
        """Open the cited document at the cited page, highlight the quote, scroll to it."""
        if not self.open_document(path, title):
            return []
        doc = self._open.doc  # type: ignore[union-attr]
        page_no = max(1, min(citation.page, doc.page_count))
        try:
            rects = quote_rects(doc[page_no - 1], citation.quote, citation.char_start)
        except Exception:  # a broken page must not break the viewer; log and show the page
            log.exception("highlighting failed on %s p.%s", path, page_no)
            rects = []
        self.highlight_rects = rects
        self._highlight_page = page_no
        self.current_page = 0  # force a redraw with highlights and scroll reset
        self.show_page(page_no)
        self.subtitle.setText(
            f"Page {page_no} · quote highlighted" if rects else f"Page {page_no} · quote not located on this page"
        )
        self._scroll_to_highlight()
        QTimer.singleShot(0, self._scroll_to_highlight)  # again once the layout has settled
        return rects

    def _scroll_to_highlight(self) -> None:
        if not self.highlight_rects or self._highlight_page != self.current_page:
            return
        box = self.canvas.to_widget(self.highlight_rects[0])
        for r in self.highlight_rects[1:]:
            box = box.united(self.canvas.to_widget(r))
        vbar = self.scroll.verticalScrollBar()
        viewport_h = self.scroll.viewport().height()
        target = int(box.center().y() - viewport_h / 2.5)
        vbar.setValue(max(0, min(target, vbar.maximum())))
        hbar = self.scroll.horizontalScrollBar()
        if box.right() > hbar.value() + self.scroll.viewport().width() or box.left() < hbar.value():
            hbar.setValue(max(0, int(box.left() - 20)))

    # -- rendering and zoom ------------------------------------------------------------------
    def _base_scale(self) -> float:
        """Pixels per PDF point at 100 %: the screen's logical DPI (a page at true size)."""
        return max(self.logicalDpiX(), 72) / 72.0

    def effective_scale(self) -> float:
        if not self._open or not self.current_page:
            return self._base_scale() * self.zoom
        if self.fit_width:
            page = self._open.doc[self.current_page - 1]
            avail = self.scroll.viewport().width() - 24
            return max(0.2, avail / max(1.0, page.rect.width))
        return self._base_scale() * self.zoom

    def _render(self) -> None:
        if not self._open or not self.current_page:
            return
        page = self._open.doc[self.current_page - 1]
        scale = self.effective_scale()
        if self.fit_width:
            self.zoom = scale / self._base_scale()
        dpr = self.devicePixelRatioF() or 1.0
        pix = page.get_pixmap(matrix=pymupdf.Matrix(scale * dpr, scale * dpr), alpha=False)
        image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
        image.setDevicePixelRatio(dpr)
        self.canvas.set_image(image, scale)
        self.zoom_label.setText(f"{round(self.zoom * 100)}%")

    def set_zoom(self, zoom: float) -> None:
        self.fit_width = False
        self.fit_btn.blockSignals(True)
        self.fit_btn.setChecked(False)
        self.fit_btn.blockSignals(False)
        self.zoom = max(ZOOM_STEPS[0], min(zoom, ZOOM_STEPS[-1]))
        self._rerender_keep_highlight()

    def step_zoom(self, direction: int) -> None:
        z = self.zoom
        if direction > 0:
            nxt = next((s for s in ZOOM_STEPS if s > z + 0.01), ZOOM_STEPS[-1])
        else:
            nxt = next((s for s in reversed(ZOOM_STEPS) if s < z - 0.01), ZOOM_STEPS[0])
        self.set_zoom(nxt)

    def set_fit_width(self, on: bool) -> None:
        self.fit_btn.setChecked(on)

    def _fit_toggled(self, on: bool) -> None:
        self.fit_width = on
        self._rerender_keep_highlight()

    def _rerender_keep_highlight(self) -> None:
        self._render()
        self._scroll_to_highlight()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        if self.fit_width and self._open and self.current_page:
            # Debounced: splitter drags send many resizes; rendering each would stutter.
            if not hasattr(self, "_resize_timer"):
                self._resize_timer = QTimer(self)
                self._resize_timer.setSingleShot(True)
                self._resize_timer.setInterval(60)
                self._resize_timer.timeout.connect(self._rerender_keep_highlight)
            self._resize_timer.start()

    def _spin_changed(self) -> None:
        text = self.page_spin.text().strip()
        if text.isdigit() and int(text) != self.current_page:
            self.show_page(int(text))

    def _update_controls(self) -> None:
        has = self._open is not None and self.current_page > 0
        for w in (self.prev_btn, self.next_btn, self.page_spin, self.zoom_in_btn, self.zoom_out_btn,
                  self.fit_btn, self.search, self.search_prev, self.search_next):
            w.setEnabled(has)
        if has:
            self.prev_btn.setEnabled(self.current_page > 1)
            self.next_btn.setEnabled(self.current_page < self.page_total)
            self.page_spin.setText(str(self.current_page))

    # -- search ------------------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _search_changed(self, _text: str) -> None:
        self._search_text = ""
        self._search_results = []
        self.search_count.setText("")
        if self.canvas.search_hits:
            self.canvas.search_hits = []
            self.canvas.update()

    def _run_search(self) -> None:
        text = self.search.text().strip()
        self._search_text = text
        self._search_results = []
        self._search_index = -1
        if not text or not self._open:
            return
        doc = self._open.doc
        n = doc.page_count
        # Start at the current page so "next" finds what is nearest the reader first.
        for k in range(n):
            pno = (self.current_page - 1 + k) % n
            for r in doc[pno].search_for(text):
                self._search_results.append((pno + 1, (r.x0, r.y0, r.x1, r.y1)))

    def find_next(self) -> None:
        self._step_search(+1)

    def find_previous(self) -> None:
        self._step_search(-1)

    def _step_search(self, direction: int) -> None:
        if self.search.text().strip() != self._search_text or not self._search_results:
            self._run_search()
            if not self._search_results:
                self.search_count.setText("No matches" if self._search_text else "")
                return
            self._search_index = 0 if direction > 0 else len(self._search_results) - 1
        else:
            self._search_index = (self._search_index + direction) % len(self._search_results)
        page, rect = self._search_results[self._search_index]
        if page != self.current_page:
            self.show_page(page)
        self.canvas.search_hits = [r for p, r in self._search_results if p == page]
        self.canvas.current_hit = self.canvas.search_hits.index(rect)
        self.canvas.update()
        self.search_count.setText(f"{self._search_index + 1}/{len(self._search_results)}")
        box = self.canvas.to_widget(rect)
        self.scroll.ensureVisible(int(box.center().x()), int(box.center().y()), 40, 120)
