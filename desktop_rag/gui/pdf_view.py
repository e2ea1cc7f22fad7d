"""Source viewer: every page of the filing in one continuous, lazily rendered scroll, with a
thumbnail strip, printed page labels beside the PDF index, exact-quote highlights, zoom (fit
width or fit page at any pane width, down to 25 %; refitted whenever the page area changes
size: the window, the splitter, the thumbnail strip) and search with a counter.

Highlights are kept in PDF points and scaled at paint time, so they survive zoom and
fit-width changes. Quote rectangles come from the core's canonical page text
(``extract_page(with_boxes=True).rects_for``), the same text citations are substrings
of, so a quote that wraps across lines gets one rectangle per visual line.

Pages are rendered only when they come into view (and thumbnails only when their strip
scrolls to them); a small cache keeps the pages around the reader.
"""

from __future__ import annotations

import bisect
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QIcon,
    QImage,
    QIntValidator,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.domain.page_labels import PageLabels, describe_page
from desktop_rag.core.domain.types import Citation
from desktop_rag.core.ingest.pdf import PdfError, extract_page, fold_text, open_pdf
from desktop_rag.gui import style

log = logging.getLogger(__name__)

Rect = tuple[float, float, float, float]
ZOOM_STEPS = [0.25, 0.33, 0.5, 0.67, 0.75, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0]
MIN_ZOOM, MAX_ZOOM = ZOOM_STEPS[0], ZOOM_STEPS[-1]
FIT_WIDTH, FIT_PAGE, NO_FIT = "width", "page", ""  # PdfViewer.fit_mode
PAGE_GAP = 12  # pixels between pages
PAGE_MARGIN = 12  # pixels left/right of the widest page
CACHE_PAGES = 12
THUMB_WIDTH = 84


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
        rects = [tuple(pymupdf.Rect(r) * m) for r in rects]
    return rects


@dataclass
class _Open:
    path: Path
    title: str
    doc: pymupdf.Document
    labels: PageLabels
    sizes: list[tuple[float, float]] = field(default_factory=list)  # page sizes in points


class PagesView(QWidget):
    """All pages stacked vertically at one scale; only pages in view are rendered."""

    def __init__(self, viewer: PdfViewer) -> None:
        super().__init__()
        self.viewer = viewer
        self.scale = 1.0  # device-independent pixels per PDF point
        self.tops: list[int] = []
        self.cache: OrderedDict[int, QImage] = OrderedDict()  # page -> image at self.scale
        self.rendered: set[int] = set()  # every page rendered since the document opened (tests)
        self.page_highlights: dict[int, list[Rect]] = {}
        self.page_hits: dict[int, list[Rect]] = {}
        self.current_hit: tuple[int, Rect] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    # -- geometry -------------------------------------------------------------------------
    def relayout(self, scale: float, viewport_width: int) -> None:
        op = self.viewer._open
        if op is None:
            return
        if abs(scale - self.scale) > 1e-6:
            self.cache.clear()
        self.scale = scale
        y = PAGE_GAP
        self.tops = []
        for _w, h in op.sizes:
            self.tops.append(y)
            y += round(h * scale) + PAGE_GAP
        widest = max((w for w, _ in op.sizes), default=0.0)
        width = max(viewport_width, round(widest * scale) + 2 * PAGE_MARGIN)
        self.setFixedSize(QSize(width, y))
        self.update()

    def page_rect(self, number: int) -> QRect:
        op = self.viewer._open
        if op is None or not (1 <= number <= len(self.tops)):
            return QRect()
        w, h = op.sizes[number - 1]
        pw, ph = round(w * self.scale), round(h * self.scale)
        return QRect((self.width() - pw) // 2, self.tops[number - 1], pw, ph)

    def page_at(self, y: float) -> int:
        """1-based page under the vertical position ``y`` (gaps belong to the page above)."""
        if not self.tops:
            return 0
        return max(1, bisect.bisect_right(self.tops, y))

    def to_widget(self, number: int, r: Rect) -> QRectF:
        origin = self.page_rect(number).topLeft()
        s = self.scale
        return QRectF(QPointF(origin.x() + r[0] * s, origin.y() + r[1] * s),
                      QPointF(origin.x() + r[2] * s, origin.y() + r[3] * s))

    # -- compatibility views of the current page (tests and callers read these) ---------------
    @property
    def highlights(self) -> list[Rect]:
        return self.page_highlights.get(self.viewer.current_page, [])

    @property
    def search_hits(self) -> list[Rect]:
        return self.page_hits.get(self.viewer.current_page, [])

    # -- rendering ------------------------------------------------------------------------
    def image(self, number: int) -> QImage:
        img = self.cache.get(number)
        if img is not None:
            self.cache.move_to_end(number)
            return img
        op = self.viewer._open
        assert op is not None
        dpr = self.devicePixelRatioF() or 1.0
        m = pymupdf.Matrix(self.scale * dpr, self.scale * dpr)
        try:
            pix = op.doc[number - 1].get_pixmap(matrix=m, alpha=False)
            img = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
        except Exception:  # a broken page is drawn blank, the others still render
            log.exception("cannot render page %s of %s", number, op.path)
            img = QImage(1, 1, QImage.Format.Format_RGB888)
            img.fill(QColor("#ffffff"))
        img.setDevicePixelRatio(dpr)
        self.cache[number] = img
        self.rendered.add(number)
        while len(self.cache) > CACHE_PAGES:
            self.cache.popitem(last=False)
        return img

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.viewer._open is None or not self.tops:
            return
        area = event.rect()
        first = self.page_at(area.top())
        last = self.page_at(area.bottom())
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for n in range(first, last + 1):
            r = self.page_rect(n)
            if not r.intersects(area):
                continue
            p.fillRect(r.adjusted(1, 1, 2, 2), QColor(0, 0, 0, 30))  # a hint of shadow
            p.drawImage(r, self.image(n))
            for hit in self.page_hits.get(n, []):
                box = self.to_widget(n, hit).adjusted(-1, -1, 1, 1)
                p.fillRect(box, style.SEARCH_HIT)
                if self.current_hit == (n, hit):
                    p.setPen(QPen(style.SEARCH_HIT.darker(200), 1.5))
                    p.drawRect(box.adjusted(-0.5, -0.5, 0.5, 0.5))
            p.setPen(QPen(style.HIGHLIGHT_EDGE, 1.0))
            for hl in self.page_highlights.get(n, []):
                box = self.to_widget(n, hl).adjusted(-1.5, -1.5, 1.5, 1.5)
                p.fillRect(box, style.HIGHLIGHT)
                p.drawLine(box.bottomLeft(), box.bottomRight())
        p.end()


class PdfViewer(QFrame):
    """The Source pane. Public state read by tests and the main window: ``current_page``
    (1-based, the page the reader is looking at), ``highlight_rects`` (PDF points),
    ``highlight_page``, ``zoom``, ``fit_mode`` (``fit_width``), ``labels``."""

    status = Signal(str)

    # Toolbar widths below which groups move: search to a second row, zoom into the menu.
    TWO_ROWS_BELOW = 640
    COLLAPSE_BELOW = 420
    THUMBS_MIN_WIDTH = 560  # narrower panes keep their width for the page

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Pane")
        self._open: _Open | None = None
        self.current_page = 0
        self.zoom = 1.0
        self.fit_mode = FIT_WIDTH  # the page follows the pane: its width, or the whole page
        self.highlight_rects: list[Rect] = []
        self.highlight_page = 0
        self._search_text = ""
        self._search_results: list[tuple[int, Rect]] = []
        self._search_index = -1
        self._following = True  # the header follows scrolling (off while we scroll ourselves)

        self.title = QLabel("Source")
        self.title.setObjectName("PaneTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("Muted")
        self.subtitle.setTextFormat(Qt.TextFormat.PlainText)
        self.subtitle.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        def tool(icon: str, tip: str) -> QToolButton:
            b = QToolButton()
            b.setIcon(style.icon(icon))
            b.setToolTip(tip)
            b.setAutoRaise(True)
            return b

        self.thumbs_btn = tool("file-text", "Page thumbnails")
        self.thumbs_btn.setCheckable(True)
        self.prev_btn = tool("chevron-left", "Previous page (Page Up)")
        self.next_btn = tool("chevron-right", "Next page (Page Down)")
        # A line edit, not a spin box: Fusion + stylesheet padding clips a button-less spin box.
        self.page_spin = QLineEdit()
        self._page_validator = QIntValidator(1, 99999, self.page_spin)
        self.page_spin.setValidator(self._page_validator)
        self.page_spin.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.page_spin.setFixedWidth(50)
        self.page_spin.setToolTip("Go to page (PDF page number)")
        self.page_count = QLabel("/ 0")
        self.page_count.setObjectName("Muted")
        self.zoom_out_btn = tool("zoom-out", "Zoom out (Ctrl+-)")
        self.zoom_in_btn = tool("zoom-in", "Zoom in (Ctrl++)")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setObjectName("Muted")
        self.zoom_label.setMinimumWidth(self.zoom_label.fontMetrics().horizontalAdvance("400%") + 6)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.fit_btn = tool("fit-width", "Fit width: the page's width fills the pane, whatever its size")
        self.fit_btn.setCheckable(True)
        self.fit_btn.setChecked(True)
        self.fit_page_btn = tool("fit-page", "Fit page: the whole page in view")
        self.fit_page_btn.setCheckable(True)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search in document")
        self.search.addAction(style.icon("search", "#9ca3af"), QLineEdit.ActionPosition.LeadingPosition)
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(110)
        # The counter is a label of its own beside the field (never inside it, where the
        # clear icon sat on top of it), wide enough for "999/999".
        self.search_count = QLabel("")
        self.search_count.setObjectName("Muted")
        self.search_count.setMinimumWidth(self.search_count.fontMetrics().horizontalAdvance("No matches") + 4)
        self.search_prev = tool("chevron-up", "Previous match (Shift+Enter)")
        self.search_next = tool("chevron-down", "Next match (Enter)")
        self.more_btn = QToolButton()
        self.more_btn.setText("⋯")
        self.more_btn.setToolTip("More: zoom and view options")
        self.more_btn.setAutoRaise(True)
        self.more_btn.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        more = QMenu(self.more_btn)
        self.act_zoom_in = QAction(style.icon("zoom-in"), "Zoom in", self)
        self.act_zoom_out = QAction(style.icon("zoom-out"), "Zoom out", self)
        self.act_fit = QAction(style.icon("fit-width"), "Fit width", self)
        self.act_fit.setCheckable(True)
        self.act_fit.setChecked(True)
        self.act_fit_page = QAction(style.icon("fit-page"), "Fit page", self)
        self.act_fit_page.setCheckable(True)
        self.act_thumbs = QAction(style.icon("file-text"), "Thumbnails", self)
        self.act_thumbs.setCheckable(True)
        for a in (self.act_zoom_in, self.act_zoom_out, self.act_fit, self.act_fit_page, self.act_thumbs):
            more.addAction(a)
        self.more_btn.setMenu(more)

        head = QHBoxLayout()
        head.setContentsMargins(12, 10, 12, 0)
        titles = QVBoxLayout()
        titles.setSpacing(0)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        head.addLayout(titles, 1)

        def group(*widgets: QWidget) -> QWidget:
            w = QWidget()
            lay = QHBoxLayout(w)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(2)
            for x in widgets:
                lay.addWidget(x)
            return w

        self.nav_group = group(self.thumbs_btn, self.prev_btn, self.page_spin, self.page_count, self.next_btn)
        self.zoom_group = group(self.zoom_out_btn, self.zoom_label, self.zoom_in_btn, self.fit_btn, self.fit_page_btn)
        self.search_group = group(self.search, self.search_count, self.search_prev, self.search_next)
        self.search_group.layout().setStretch(0, 1)  # type: ignore[union-attr]
        self.row1 = QHBoxLayout()
        self.row1.setContentsMargins(0, 0, 0, 0)
        self.row1.setSpacing(8)
        self.row2 = QHBoxLayout()
        self.row2.setContentsMargins(0, 0, 0, 0)
        self.toolbar = QWidget()
        tl = QVBoxLayout(self.toolbar)
        tl.setContentsMargins(8, 4, 8, 6)
        tl.setSpacing(4)
        tl.addLayout(self.row1)
        tl.addLayout(self.row2)
        self._rows = 0
        self._collapsed = False
        self._arrange_toolbar(wide=True, collapsed=False)

        self.pages = PagesView(self)
        self.canvas = self.pages  # former name, kept for callers
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("ViewerScroll")
        self.scroll_area.setWidget(self.pages)
        self.scroll_area.setWidgetResizable(False)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.scroll_area.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.scroll_area.verticalScrollBar().setSingleStep(40)
        # Always there: a fitted page must not change width when its scroll bar comes and goes.
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        # Whatever changes the page area's size (window, splitter, library pane, thumbnail
        # strip) refits the page: the viewport's own resize says so, not the pane's.
        self.scroll_area.viewport().installEventFilter(self)

        self.thumbs = QListWidget()
        self.thumbs.setObjectName("Thumbnails")
        self.thumbs.setViewMode(QListWidget.ViewMode.IconMode)
        self.thumbs.setFlow(QListWidget.Flow.TopToBottom)
        self.thumbs.setWrapping(False)
        self.thumbs.setMovement(QListWidget.Movement.Static)
        self.thumbs.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.thumbs.setIconSize(QSize(THUMB_WIDTH, round(THUMB_WIDTH * 1.3)))
        self.thumbs.setSpacing(4)
        self.thumbs.setFixedWidth(THUMB_WIDTH + 34)
        self.thumbs.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.thumbs.hide()
        self._thumb_timer = QTimer(self)
        self._thumb_timer.setInterval(40)
        self._thumb_timer.timeout.connect(self._render_visible_thumbs)
        self._thumbs_done: set[int] = set()

        self.placeholder = QLabel(
            "<div style='font-size:large; font-weight:600'>No document open</div>"
            f"<div style='color:{style.MUTED}; margin-top:6px'>Click a numbered citation in an answer to open<br>"
            "the filing at that page with the quote highlighted.</div>"
        )
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        body = QWidget()
        bl = QHBoxLayout(body)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(0)
        bl.addWidget(self.thumbs)
        bl.addWidget(self.scroll_area, 1)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(body)

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
        self.act_zoom_in.triggered.connect(lambda: self.step_zoom(+1))
        self.act_zoom_out.triggered.connect(lambda: self.step_zoom(-1))
        self.fit_btn.clicked.connect(lambda on: self.set_fit_mode(FIT_WIDTH if on else NO_FIT))
        self.fit_page_btn.clicked.connect(lambda on: self.set_fit_mode(FIT_PAGE if on else NO_FIT))
        self.act_fit.triggered.connect(lambda on: self.set_fit_mode(FIT_WIDTH if on else NO_FIT))
        self.act_fit_page.triggered.connect(lambda on: self.set_fit_mode(FIT_PAGE if on else NO_FIT))
        self.thumbs_btn.toggled.connect(self.set_thumbnails_visible)
        self.act_thumbs.triggered.connect(lambda on: self.set_thumbnails_visible(on))
        self.thumbs.itemClicked.connect(lambda item: self.show_page(int(item.data(Qt.ItemDataRole.UserRole))))
        self.thumbs.verticalScrollBar().valueChanged.connect(lambda _v: self._thumb_timer.start())
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
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(60)
        self._resize_timer.timeout.connect(self._relayout_keep_position)
        self._update_controls()

    # -- toolbar that fits its pane ----------------------------------------------------------
    def _arrange_toolbar(self, wide: bool, collapsed: bool) -> None:
        rows = 1 if wide else 2
        if rows == self._rows and collapsed == self._collapsed:
            return
        for lay in (self.row1, self.row2):
            while lay.count():
                lay.takeAt(0)
        self.row1.addWidget(self.nav_group)
        self.row1.addWidget(self.zoom_group)
        self.zoom_group.setVisible(not collapsed)
        self.more_btn.setVisible(collapsed)
        if rows == 1:
            self.row1.addWidget(self.search_group, 1)
            self.row1.addWidget(self.more_btn)
            self.row2.addStretch(0)
        else:
            self.row1.addStretch(1)
            self.row1.addWidget(self.more_btn)
            self.row2.addWidget(self.search_group, 1)
        self._rows = rows
        self._collapsed = collapsed

    def minimumSizeHint(self) -> QSize:
        # The toolbar rearranges itself for narrow widths (two rows, zoom in the ⋯ menu), so
        # its one-row width must not become the pane's minimum.
        return QSize(280, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        w = event.size().width()
        self._arrange_toolbar(wide=w >= self.TWO_ROWS_BELOW, collapsed=w < self.COLLAPSE_BELOW)
        self.thumbs.setVisible(self.thumbs_btn.isChecked() and self._open is not None and w >= self.THUMBS_MIN_WIDTH)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll_area.viewport() and event.type() == QEvent.Type.Resize and self._open:
            # Debounced: splitter drags send many resizes; re-laying out each would stutter.
            self._resize_timer.start()
        return super().eventFilter(watched, event)

    # -- documents -------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self._open.path if self._open else None

    @property
    def page_total(self) -> int:
        return self._open.doc.page_count if self._open else 0

    @property
    def labels(self) -> PageLabels | None:
        return self._open.labels if self._open else None

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
        sizes = [(p.rect.width, p.rect.height) for p in doc.pages()]
        self._open = _Open(path, title or path.name, doc, PageLabels(doc), sizes)
        self.title.setText(title or path.name)
        self.title.setToolTip(str(path))
        self._page_validator.setTop(doc.page_count)
        self.page_count.setText(f"/ {doc.page_count}")
        self._search_results = []
        self._search_text = ""
        self.pages.rendered = set()
        self.pages.page_hits = {}
        self.pages.current_hit = None
        self.stack.setCurrentIndex(1)
        self._fill_thumbnails()
        if not self.thumbs_btn.isChecked() and self.width() >= 820:
            self.set_thumbnails_visible(True)  # wide pane: show the strip by default
        self.current_page = 0
        self._relayout()
        return True

    def close_document(self) -> None:
        if self._open:
            self._open.doc.close()
        self._open = None
        self.current_page = 0
        self.highlight_rects = []
        self.highlight_page = 0
        self.pages.page_highlights = {}
        self.pages.page_hits = {}
        self.pages.cache.clear()
        self.pages.tops = []
        self.thumbs.clear()
        self._thumbs_done = set()
        self.stack.setCurrentWidget(self.placeholder)
        self.title.setText("Source")
        self.subtitle.setText("")
        self._update_controls()

    def page_description(self, number: int) -> str:
        return self._open.labels.describe(number) if self._open else f"p. {number}"

    # -- pages and citations ---------------------------------------------------------------------
    def show_page(self, number: int, y_points: float | None = None) -> None:
        """Scroll page ``number`` to the top of the view (or its ``y_points`` to a third)."""
        if not self._open:
            return
        number = max(1, min(number, self._open.doc.page_count))
        if not self.pages.tops:
            self._relayout()
        r = self.pages.page_rect(number)
        if y_points is None:
            target = r.top() - PAGE_GAP // 2
        else:
            target = int(r.top() + y_points * self.pages.scale - self.scroll_area.viewport().height() / 2.5)
        vbar = self.scroll_area.verticalScrollBar()
        self._following = False
        vbar.setValue(max(0, min(target, vbar.maximum())))
        self._following = True
        self._set_current(number)

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
        self.set_highlight(page_no, rects)
        return rects

    def set_highlight(self, page_no: int, rects: list[Rect]) -> None:
        """Highlight ``rects`` (PDF points) on ``page_no`` and bring them into view."""
        self.highlight_rects = list(rects)
        self.highlight_page = page_no
        self.pages.page_highlights = {page_no: self.highlight_rects} if rects else {}
        self.current_page = 0
        self._scroll_to_highlight(page_no)
        # Again once the layout has settled (first open: the viewport size is not final yet).
        QTimer.singleShot(0, lambda: self._scroll_to_highlight(page_no))
        self.pages.update()

    def _scroll_to_highlight(self, page_no: int) -> None:
        if not self._open or self.highlight_page != page_no:
            return
        if not self.highlight_rects:
            self.show_page(page_no)
            return
        box = self.pages.to_widget(page_no, self.highlight_rects[0])
        for r in self.highlight_rects[1:]:
            box = box.united(self.pages.to_widget(page_no, r))
        vbar = self.scroll_area.verticalScrollBar()
        target = int(box.center().y() - self.scroll_area.viewport().height() / 2.5)
        self._following = False
        vbar.setValue(max(0, min(target, vbar.maximum())))
        hbar = self.scroll_area.horizontalScrollBar()
        vw = self.scroll_area.viewport().width()
        if box.right() > hbar.value() + vw or box.left() < hbar.value():
            hbar.setValue(max(0, int(box.left() - 20)))
        self._following = True
        self._set_current(page_no)

    def _bring_into_view(self, box: QRectF) -> None:
        """Scroll ``box`` (page-view pixels) into view: vertically to a third of the view when it
        is not in view; sideways only when the page is wider than the view (a fitted page never
        moves sideways, so the fit is kept)."""
        vbar, hbar = self.scroll_area.verticalScrollBar(), self.scroll_area.horizontalScrollBar()
        vp = self.scroll_area.viewport()
        if box.top() < vbar.value() or box.bottom() > vbar.value() + vp.height():
            vbar.setValue(max(0, min(int(box.center().y() - vp.height() / 3), vbar.maximum())))
        if self.fit_mode:
            hbar.setValue(0)
        elif box.left() < hbar.value() or box.right() > hbar.value() + vp.width():
            hbar.setValue(max(0, min(int(box.center().x() - vp.width() / 2), hbar.maximum())))

    def _scrolled(self, value: int) -> None:
        if not self._following or not self._open or not self.pages.tops:
            return
        vbar = self.scroll_area.verticalScrollBar()
        vh = self.scroll_area.viewport().height()
        # The page at a third of the view; at the very end, the last page.
        y = value + vh - 1 if value >= vbar.maximum() > 0 else value + vh / 3
        self._set_current(self.pages.page_at(y))

    def _set_current(self, number: int) -> None:
        if number == self.current_page:
            return
        self.current_page = number
        self._update_controls()
        if self.thumbs.isVisible() and 0 < number <= self.thumbs.count():
            self.thumbs.blockSignals(True)
            self.thumbs.setCurrentRow(number - 1)
            self.thumbs.scrollToItem(self.thumbs.item(number - 1))
            self.thumbs.blockSignals(False)

    def header_text(self) -> str:
        if not self._open or not self.current_page:
            return ""
        n = self.current_page
        label = self._open.labels.label(n)
        if label and label != str(n):
            text = f"Page {label} (PDF {n} of {self.page_total})"
        else:
            text = f"Page {n} of {self.page_total}"
        if n == self.highlight_page:
            text += " · quote highlighted" if self.highlight_rects else " · quote not located on this page"
        return text

    # -- rendering and zoom ------------------------------------------------------------------
    def _base_scale(self) -> float:
        """Pixels per PDF point at 100 %: the screen's logical DPI (a page at true size)."""
        return max(self.logicalDpiX(), 72) / 72.0

    @property
    def fit_width(self) -> bool:
        return self.fit_mode == FIT_WIDTH

    def effective_scale(self) -> float:
        """Pixels per PDF point: the fit's (width, or the whole page), else the zoom's; within
        25 % and 400 % of true size."""
        base = self._base_scale()
        if self.fit_mode and self._open and self._open.sizes:
            widest = max(w for w, _ in self._open.sizes)
            vp = self.scroll_area.viewport()
            fit = (vp.width() - 2 * PAGE_MARGIN) / max(1.0, widest)
            if self.fit_mode == FIT_PAGE:
                tallest = max(h for _, h in self._open.sizes)
                fit = min(fit, (vp.height() - 2 * PAGE_GAP) / max(1.0, tallest))
            return max(MIN_ZOOM * base, min(fit, MAX_ZOOM * base))
        return base * self.zoom

    def _relayout(self) -> None:
        if not self._open:
            return
        scale = self.effective_scale()
        if self.fit_mode:
            self.zoom = scale / self._base_scale()
        self.pages.relayout(scale, self.scroll_area.viewport().width())
        self.zoom_label.setText(f"{round(self.zoom * 100)}%")
        if self.fit_mode:  # the page is as wide as the view (or narrower): nothing to the side
            self.scroll_area.horizontalScrollBar().setValue(0)

    def _relayout_keep_position(self) -> None:
        """Re-layout (zoom, resize) keeping the highlighted quote, else the current page, in view."""
        if not self._open:
            return
        page = self.current_page or 1
        vbar = self.scroll_area.verticalScrollBar()
        r = self.pages.page_rect(page)
        offset = (vbar.value() - r.top()) / max(1.0, self.pages.scale) if r.isValid() else 0.0
        self._relayout()
        if self.highlight_page == page and self.highlight_rects:
            self._scroll_to_highlight(page)
        else:
            self._following = False
            vbar.setValue(int(self.pages.page_rect(page).top() + offset * self.pages.scale))
            self._following = True
            self._set_current(page)

    def _show_fit(self) -> None:
        for w, on in ((self.fit_btn, self.fit_mode == FIT_WIDTH), (self.act_fit, self.fit_mode == FIT_WIDTH),
                      (self.fit_page_btn, self.fit_mode == FIT_PAGE), (self.act_fit_page, self.fit_mode == FIT_PAGE)):
            w.blockSignals(True)
            w.setChecked(on)
            w.blockSignals(False)

    def set_fit_mode(self, mode: str) -> None:
        """Fit the width (``FIT_WIDTH``), the whole page (``FIT_PAGE``), or keep the zoom as it
        is now (``NO_FIT``)."""
        self.fit_mode = mode
        self._show_fit()
        self._relayout_keep_position()

    def set_zoom(self, zoom: float) -> None:
        self.fit_mode = NO_FIT
        self._show_fit()
        self.zoom = max(MIN_ZOOM, min(zoom, MAX_ZOOM))
        self._relayout_keep_position()

    def step_zoom(self, direction: int) -> None:
        z = self.zoom
        if direction > 0:
            nxt = next((s for s in ZOOM_STEPS if s > z + 0.01), ZOOM_STEPS[-1])
        else:
            nxt = next((s for s in reversed(ZOOM_STEPS) if s < z - 0.01), ZOOM_STEPS[0])
        self.set_zoom(nxt)

    def set_fit_width(self, on: bool) -> None:
        self.set_fit_mode(FIT_WIDTH if on else NO_FIT)

    def set_fit_page(self, on: bool) -> None:
        self.set_fit_mode(FIT_PAGE if on else NO_FIT)

    def _spin_changed(self) -> None:
        text = self.page_spin.text().strip()
        if text.isdigit() and int(text) != self.current_page:
            self.show_page(int(text))

    def _update_controls(self) -> None:
        has = self._open is not None and self.current_page > 0
        for w in (self.prev_btn, self.next_btn, self.page_spin, self.zoom_in_btn, self.zoom_out_btn,
                  self.fit_btn, self.fit_page_btn, self.search, self.search_prev, self.search_next, self.thumbs_btn, self.more_btn):
            w.setEnabled(has)
        if has:
            self.prev_btn.setEnabled(self.current_page > 1)
            self.next_btn.setEnabled(self.current_page < self.page_total)
            self.page_spin.setText(str(self.current_page))
            label = self._open.labels.label(self.current_page) if self._open else ""
            self.page_spin.setToolTip(f"PDF page {self.current_page}" + (f", printed page {label}" if label else ""))
        self.subtitle.setText(self.header_text())

    # -- thumbnails -------------------------------------------------------------------------
    def set_thumbnails_visible(self, on: bool) -> None:
        for w in (self.thumbs_btn, self.act_thumbs):
            w.blockSignals(True)
            w.setChecked(on)
            w.blockSignals(False)
        self.thumbs.setVisible(on and self._open is not None and self.width() >= self.THUMBS_MIN_WIDTH)
        if on:
            self._thumb_timer.start()
            if self.current_page:
                self.thumbs.setCurrentRow(self.current_page - 1)
        if self._open:
            self._resize_timer.start()

    def _fill_thumbnails(self) -> None:
        self.thumbs.clear()
        self._thumbs_done = set()
        op = self._open
        if op is None:
            return
        blank = QPixmap(self.thumbs.iconSize())
        blank.fill(QColor("#ffffff"))
        for n in range(1, op.doc.page_count + 1):
            item = QListWidgetItem(QIcon(blank), str(n))
            item.setData(Qt.ItemDataRole.UserRole, n)
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter)
            self.thumbs.addItem(item)
        self._thumb_timer.start()

    def _render_visible_thumbs(self) -> None:
        """A few thumbnails per tick, only those in the strip's view."""
        op = self._open
        if op is None or not self.thumbs.isVisible():
            self._thumb_timer.stop()
            return
        vp = self.thumbs.viewport().rect()
        first = self.thumbs.indexAt(vp.topLeft() + QPoint(5, 5)).row()
        last = self.thumbs.indexAt(vp.bottomLeft() + QPoint(5, -5)).row()
        first = max(first, 0)
        last = self.thumbs.count() - 1 if last < 0 else last
        todo = [r for r in range(first, last + 2) if r < self.thumbs.count() and r + 1 not in self._thumbs_done]
        if not todo:
            self._thumb_timer.stop()
            return
        for row in todo[:3]:
            n = row + 1
            page = op.doc[row]
            scale = THUMB_WIDTH / max(1.0, page.rect.width)
            try:
                pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
                img = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
                item = self.thumbs.item(row)
                item.setIcon(QIcon(QPixmap.fromImage(img)))
                item.setToolTip(describe_page(op.labels.label(n), n))
            except Exception:
                log.exception("thumbnail of page %s", n)
            self._thumbs_done.add(n)

    # -- search ------------------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _search_changed(self, _text: str) -> None:
        self._search_text = ""
        self._search_results = []
        self.search_count.setText("")
        if self.pages.page_hits:
            self.pages.page_hits = {}
            self.pages.current_hit = None
            self.pages.update()

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
        start = max(self.current_page, 1) - 1
        for k in range(n):
            pno = (start + k) % n
            for r in doc[pno].search_for(text):
                self._search_results.append((pno + 1, (r.x0, r.y0, r.x1, r.y1)))
        hits: dict[int, list[Rect]] = {}
        for p, r in self._search_results:
            hits.setdefault(p, []).append(r)
        self.pages.page_hits = hits

    def find_next(self) -> None:
        self._step_search(+1)

    def find_previous(self) -> None:
        self._step_search(-1)

    def _step_search(self, direction: int) -> None:
        if self.search.text().strip() != self._search_text or not self._search_results:
            self._run_search()
            if not self._search_results:
                self.search_count.setText("No matches" if self._search_text else "")
                self.pages.update()
                return
            self._search_index = 0 if direction > 0 else len(self._search_results) - 1
        else:
            self._search_index = (self._search_index + direction) % len(self._search_results)
        page, rect = self._search_results[self._search_index]
        self.pages.current_hit = (page, rect)
        self.search_count.setText(f"{self._search_index + 1}/{len(self._search_results)}")
        box = self.pages.to_widget(page, rect)
        self._following = False
        self._bring_into_view(box)
        self._following = True
        self._set_current(page)
        self._update_controls()
        self.pages.update()
