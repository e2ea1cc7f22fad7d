"""Library pane: the documents table (filterable, multi-select scope), ingest progress with
cancel, failed files with their reasons, and the metadata editor dialog.

The pane only displays snapshots handed to it by the main window (``set_documents``) and
emits requests; all library work happens in background jobs owned by the main window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.domain.types import Document, DocumentMeta
from desktop_rag.core.index.library import IngestEvent
from desktop_rag.gui import style

ModelIndex = QModelIndex | QPersistentModelIndex


@dataclass
class Row:
    """A document, or a file being added / that failed (``doc`` is None)."""

    key: str  # doc_id, or "file:<path>" for pending/failed rows
    file_name: str
    status: str  # Ready, Queued, Extracting…, Embedding 40 %, Failed, File missing
    doc: Document | None = None
    error: str = ""


COLUMNS = ["Document", "Form", "Period", "Pages", "Chunks", "Status"]


class LibraryModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Row] = []

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        d = row.doc
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return (d.meta.company or d.file_name) if d else row.file_name
            if col == 1:
                return d.meta.form_type if d else ""
            if col == 2:
                return d.meta.period_label() if d else ""
            if col == 3:
                return d.pages if d else None
            if col == 4:
                return d.chunk_count if d else None
            return row.status
        if role == Qt.ItemDataRole.ToolTipRole:
            if row.error:
                return f"{row.file_name}\n{row.error}"
            if d:
                m = d.meta
                extra = f"\nPeriod end: {m.period_end}" if m.period_end else ""
                edited = "\nMetadata edited by hand" if d.meta_edited else ""
                return f"{d.file_name}\n{d.path}\nTicker: {m.ticker or '—'}{extra}{edited}"
            return row.file_name
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == 5 and row.status.startswith(("Failed", "File missing")):
                return QColor(style.DANGER)
            if col == 5 and row.status != "Ready":
                return QColor(style.ACCENT)
            if col in (1, 2, 3, 4):
                return QColor(style.MUTED)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return row.key
        if role == Qt.ItemDataRole.UserRole + 1:  # filter text: everything an analyst may type
            if d:
                m = d.meta
                return " ".join([d.file_name, m.company, m.ticker, m.form_type, m.period_label(), row.status])
            return f"{row.file_name} {row.status}"
        return None

    def row_index(self, key: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.key == key), -1)

    def set_rows(self, rows: list[Row]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def update_row(self, key: str, **changes: Any) -> None:
        i = self.row_index(key)
        if i < 0:
            return
        self.rows[i] = replace(self.rows[i], **changes)
        self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))


class DocumentDelegate(QStyledItemDelegate):
    """Two-line rows: company and status on top; form, period, pages, chunks, file below.
    Fits every column the analyst needs into a narrow pane without horizontal scrolling.
    Every height follows the text size (``row_height``)."""

    PAD = 6  # pixels above the first line and below the second
    GAP = 2  # pixels between the two lines

    @staticmethod
    def fonts(base: QFont) -> tuple[QFont, QFont]:
        """The title's font (semi-bold) and the second line's (smaller)."""
        bold = QFont(base)
        bold.setWeight(QFont.Weight.DemiBold)
        small = QFont(base)
        small.setPointSizeF(base.pointSizeF() * 0.88)
        return bold, small

    @classmethod
    def row_height(cls, base: QFont) -> int:
        bold, small = cls.fonts(base)
        return 2 * cls.PAD + QFontMetrics(bold).height() + cls.GAP + QFontMetrics(small).height() + 2

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        return QSize(200, self.row_height(option.font))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        model = index.model()
        src = model.mapToSource(index) if isinstance(model, QSortFilterProxyModel) else index
        row: Row = src.model().rows[src.row()]  # type: ignore[attr-defined]
        painter.save()
        r = option.rect
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if selected:
            painter.fillRect(r, QColor(style.ACCENT_SOFT))
            painter.fillRect(QRect(r.left(), r.top(), 3, r.height()), QColor(style.ACCENT))
        elif hovered:
            painter.fillRect(r, QColor(style.HOVER))
        painter.setPen(QColor(style.BORDER))
        painter.drawLine(r.left() + 8, r.bottom(), r.right() - 8, r.bottom())

        d = row.doc
        title = (d.meta.company or d.file_name) if d else row.file_name
        if d:
            m = d.meta
            bits = [m.form_type, m.period_label(), f"{d.pages} pages", f"{d.chunk_count} chunks"]
            sub = " · ".join(b for b in bits if b)
        else:
            sub = row.error or "waiting to be added"
        status = row.status
        ok = status == "Ready"
        bad = status.startswith(("Failed", "File missing"))
        status_color = QColor("#16a34a") if ok else QColor(style.DANGER) if bad else QColor(style.ACCENT)

        bold, small = self.fonts(QFont(option.font))
        fm, fm_small = QFontMetrics(bold), QFontMetrics(small)
        line1 = QRect(r.left(), r.top() + self.PAD, r.width(), fm.height())
        line2 = QRect(r.left(), line1.bottom() + 1 + self.GAP, r.width(), fm_small.height())
        left = r.left() + 12
        right = r.right() - 10
        # status, right-aligned on the first line
        painter.setFont(small)
        stext = "" if ok else status
        # a status never takes more than half the row: the document's name keeps the rest
        sw = min(fm_small.horizontalAdvance(stext), (right - left) // 2) if stext else 0
        dot = max(7, fm_small.height() // 3)
        dot_x = right - sw - (dot + 5 if stext else 8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(status_color)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.drawEllipse(dot_x, line1.center().y() - dot // 2, dot, dot)
        if stext:
            painter.setPen(status_color)
            painter.drawText(QRect(right - sw, line1.top(), sw, line1.height()), int(Qt.AlignmentFlag.AlignVCenter),
                             fm_small.elidedText(stext, Qt.TextElideMode.ElideRight, sw))
        painter.setFont(bold)
        painter.setPen(QColor(style.TEXT))
        tw = dot_x - left - 8
        painter.drawText(QRect(left, line1.top(), tw, line1.height()), int(Qt.AlignmentFlag.AlignVCenter),
                         fm.elidedText(title, Qt.TextElideMode.ElideRight, tw))
        painter.setFont(small)
        painter.setPen(QColor(style.DANGER) if bad else QColor(style.MUTED))
        sw2 = right - left
        painter.drawText(QRect(left, line2.top(), sw2, line2.height()), int(Qt.AlignmentFlag.AlignVCenter),
                         fm_small.elidedText(sub, Qt.TextElideMode.ElideRight, sw2))
        painter.restore()


class LibraryPane(QFrame):
    LOADING_HINT = "<div style='color:#6b7280'>Opening the library…</div>"
    EMPTY_HINT = ("<div style='font-weight:600'>Drop 10-K / 10-Q PDFs here</div>"
                  "<div style='color:#6b7280'>or whole folders — or use <b>Add</b>.</div>")
    add_requested = Signal()
    remove_requested = Signal(list)  # doc ids
    edit_requested = Signal(str)  # doc id
    redetect_requested = Signal(list)  # doc ids
    open_requested = Signal(str)  # doc id: show in viewer
    scope_changed = Signal(list)  # selected doc ids ([] = whole library)
    cancel_ingest_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Pane")
        self.model = LibraryModel()
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterRole(Qt.ItemDataRole.UserRole + 1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setSortRole(Qt.ItemDataRole.DisplayRole)

        title = QLabel("Library")
        title.setObjectName("PaneTitle")
        self.count_label = QLabel("")
        self.count_label.setObjectName("Muted")
        # Elided by the pane, never widening it past the Add button.
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.add_btn = QPushButton(style.icon("file-plus", "#ffffff"), "Add")
        self.add_btn.setObjectName("Primary")
        self.add_btn.setToolTip("Add PDF files (or drop files and folders anywhere on the window)")
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.count_label, 1)
        head.addWidget(self.add_btn)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by company, ticker, form, period…")
        self.filter.setClearButtonEnabled(True)
        self.filter.addAction(style.icon("search", "#9ca3af"), QLineEdit.ActionPosition.LeadingPosition)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setMinimumSectionSize(1)
        self._fit_rows()
        self.table.horizontalHeader().hide()
        self.table.setItemDelegateForColumn(0, DocumentDelegate(self.table))
        self.table.setMouseTracking(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setAlternatingRowColors(False)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.setAcceptDrops(False)  # drops go to the main window
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Form, period, pages, chunks and status are drawn inside the first column's rows;
        # the columns stay in the model for sorting, filtering and accessibility.
        for c in range(1, len(COLUMNS)):
            self.table.setColumnHidden(c, True)

        self.empty_hint = QLabel(self.LOADING_HINT)  # until the first snapshot arrives
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.loaded = False

        # Selection actions: only shown while something is selected, so the pane stays calm.
        self.scope_label = QLabel("")
        self.scope_label.setObjectName("Muted")
        self.edit_btn = QToolButton()
        self.edit_btn.setIcon(style.icon("pencil"))
        self.edit_btn.setToolTip("Edit metadata…")
        self.redetect_btn = QToolButton()
        self.redetect_btn.setIcon(style.icon("refresh"))
        self.redetect_btn.setToolTip("Re-detect metadata from the document")
        self.remove_btn = QToolButton()
        self.remove_btn.setIcon(style.icon("trash", style.DANGER))
        self.remove_btn.setToolTip("Remove from library (Delete)")
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.addWidget(self.scope_label, 1)
        for b in (self.edit_btn, self.redetect_btn, self.remove_btn):
            actions.addWidget(b)
        self.actions_bar = QWidget()
        self.actions_bar.setLayout(actions)

        # Ingest progress panel (hidden when idle).
        self.ingest_panel = QFrame()
        self.ingest_panel.setObjectName("IngestPanel")
        # both wrap: "Adding 1 of 3: <a long file name>" is read whole in a narrow pane
        self.ingest_title = QLabel("")
        self.ingest_title.setObjectName("IngestTitle")
        self.ingest_detail = QLabel("")
        self.ingest_detail.setObjectName("Hint")
        for label in (self.ingest_title, self.ingest_detail):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.ingest_bar = QProgressBar()
        self.ingest_bar.setRange(0, 1000)
        self.ingest_bar.setTextVisible(False)
        self.ingest_cancel = QPushButton("Cancel")
        ip = QVBoxLayout(self.ingest_panel)
        ip.setContentsMargins(10, 8, 10, 8)
        ip.setSpacing(4)
        row1 = QHBoxLayout()
        row1.addWidget(self.ingest_title, 1)
        row1.addWidget(self.ingest_cancel, 0, Qt.AlignmentFlag.AlignTop)
        ip.addLayout(row1)
        ip.addWidget(self.ingest_bar)
        ip.addWidget(self.ingest_detail)
        self.ingest_panel.hide()

        # Problems of the last batch: each failed file with the reason.
        self.problems = QFrame()
        self.problems.setObjectName("IngestPanel")
        self.problems_label = QLabel("")
        self.problems_label.setObjectName("Error")
        self.problems_label.setWordWrap(True)
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems_dismiss = QToolButton()
        self.problems_dismiss.setIcon(style.icon("x"))
        self.problems_dismiss.setToolTip("Dismiss")
        pl = QHBoxLayout(self.problems)
        pl.setContentsMargins(10, 8, 6, 8)
        pl.addWidget(self.problems_label, 1)
        pl.addWidget(self.problems_dismiss, 0, Qt.AlignmentFlag.AlignTop)
        self.problems.hide()

        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 12)
        lay.setSpacing(8)
        lay.addLayout(head)
        lay.addWidget(self.filter)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.empty_hint, 1)
        lay.addWidget(self.actions_bar)
        lay.addWidget(self.ingest_panel)
        lay.addWidget(self.problems)

        self.add_btn.clicked.connect(self.add_requested)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.edit_btn.clicked.connect(self._edit)
        self.redetect_btn.clicked.connect(lambda: self.redetect_requested.emit(self.selected_doc_ids()))
        self.remove_btn.clicked.connect(lambda: self.remove_requested.emit(self.selected_doc_ids()))
        self.ingest_cancel.clicked.connect(self.cancel_ingest_requested)
        self.problems_dismiss.clicked.connect(self.clear_failures)
        QShortcut(QKeySequence.StandardKey.Delete, self.table,
                  lambda: self.remove_requested.emit(self.selected_doc_ids()),
                  context=Qt.ShortcutContext.WidgetShortcut)
        self._failures: list[tuple[str, str]] = []
        self._refresh_chrome()

    @staticmethod
    def _say(label: QLabel, text: str) -> None:
        """A progress line that wraps anywhere a file name can break ("(amended).pdf" is one
        word to Qt, wider than a narrow pane)."""
        label.setText(re.sub(r"([._)(\-])(?=\S)", "\\1\u200b", text))

    def _fit_rows(self) -> None:
        self.table.verticalHeader().setDefaultSectionSize(DocumentDelegate.row_height(self.table.font()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange) and hasattr(self, "table"):
            self._fit_rows()

    # -- documents -----------------------------------------------------------------------------
    def set_documents(self, docs: list[Document]) -> None:
        """Replace the document rows, keeping pending/failed file rows and the selection."""
        if not self.loaded:
            self.loaded = True
            self.empty_hint.setText(self.EMPTY_HINT)
        selected = set(self.selected_doc_ids())
        others = [r for r in self.model.rows if r.doc is None]
        rows = [Row(d.doc_id, d.file_name, "Ready" if Path(d.path).exists() else "File missing", d,
                    "" if Path(d.path).exists() else f"original file not found: {d.path}") for d in docs]
        done = {d.file_name for d in docs}
        others = [r for r in others if not (r.status in ("Queued",) and r.file_name in done)]
        self.model.set_rows(rows + others)
        self._restore_selection(selected)
        self._refresh_chrome()

    def pending_files(self) -> list[str]:
        """Files queued or being added right now (not yet searchable)."""
        return [r.file_name for r in self.model.rows if r.doc is None and not r.status.startswith("Failed")]

    def documents(self) -> list[Document]:
        return [r.doc for r in self.model.rows if r.doc is not None]

    def selected_doc_ids(self) -> list[str]:
        out = []
        for idx in self.table.selectionModel().selectedRows():
            key = self.proxy.data(idx, Qt.ItemDataRole.UserRole)
            if key and not str(key).startswith("file:"):
                out.append(str(key))
        return out

    def select_docs(self, doc_ids: list[str]) -> None:
        self.table.clearSelection()
        self._restore_selection(set(doc_ids))

    def _restore_selection(self, keys: set[str]) -> None:
        sm = self.table.selectionModel()
        for r in range(self.proxy.rowCount()):
            idx = self.proxy.index(r, 0)
            if self.proxy.data(idx, Qt.ItemDataRole.UserRole) in keys:
                sm.select(idx, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)

    def _selection_changed(self, *_: Any) -> None:
        self._refresh_chrome()
        self.scope_changed.emit(self.selected_doc_ids())

    def _refresh_chrome(self) -> None:
        docs = self.documents()
        has_rows = bool(self.model.rows)
        self.table.setVisible(has_rows)
        self.filter.setVisible(has_rows)
        self.empty_hint.setVisible(not has_rows)
        chunks = sum(d.chunk_count for d in docs)
        n = len(docs)
        # Chunk counts are in the status bar and the rows; the header stays short enough to fit.
        self.count_label.setText(f"{n} doc{'s' if n != 1 else ''}" if docs else "")
        self.count_label.setToolTip(f"{n} documents · {chunks:,} passages" if docs else "")
        sel = self.selected_doc_ids()
        self.actions_bar.setVisible(bool(sel))
        self.edit_btn.setEnabled(len(sel) == 1)
        self.scope_label.setText(f"{len(sel)} selected — questions are limited to {'it' if len(sel) == 1 else 'them'}")

    def _double_clicked(self, index: QModelIndex) -> None:
        key = str(self.proxy.data(index, Qt.ItemDataRole.UserRole) or "")
        if key and not key.startswith("file:"):
            self.open_requested.emit(key)

    def _edit(self) -> None:
        sel = self.selected_doc_ids()
        if len(sel) == 1:
            self.edit_requested.emit(sel[0])

    def _context_menu(self, pos: Any) -> None:
        sel = self.selected_doc_ids()
        if not sel:
            return
        menu = QMenu(self)
        menu.addAction("Open in viewer", lambda: self.open_requested.emit(sel[0]))
        a = menu.addAction("Edit metadata…", self._edit)
        a.setEnabled(len(sel) == 1)
        menu.addAction("Re-detect metadata", lambda: self.redetect_requested.emit(sel))
        menu.addSeparator()
        menu.addAction("Remove from library", lambda: self.remove_requested.emit(sel))
        menu.popup(self.table.viewport().mapToGlobal(pos))

    # -- ingest progress --------------------------------------------------------------------------
    def ingest_queued(self, files: list[Path]) -> None:
        known = {r.file_name for r in self.model.rows}
        rows = list(self.model.rows)
        for f in files:
            if f.name not in known:
                rows.append(Row(f"file:{f}", f.name, "Queued"))
        self.model.set_rows(rows)
        self._refresh_chrome()

    def ingest_started(self, title: str) -> None:
        self._say(self.ingest_title, title)
        self._say(self.ingest_detail, "Starting…")
        self.ingest_bar.setValue(0)
        self.ingest_cancel.setEnabled(True)
        self.ingest_panel.show()

    def ingest_progress(self, ev: IngestEvent) -> None:
        """Show one core ingest event: which file of how many, its pages, the current step."""
        total = max(ev.total, 1)
        frac = 0.0
        key = self._pending_key(ev.file)
        if ev.kind == "file":
            self._say(self.ingest_title, f"Adding {ev.index} of {ev.total}: {ev.file}")
            self._say(self.ingest_detail, "Reading…")
            self._set_status(key, "Reading…")
        elif ev.kind == "step":
            if ev.step == "extract":
                self._pages = ev.todo
                self._say(self.ingest_detail, f"Extracting text from {ev.todo} pages")
                self._set_status(key, "Extracting…")
                frac = 0.05
            elif ev.step == "embed":
                pct = ev.done / max(ev.todo, 1)
                pages = getattr(self, "_pages", 0)
                self._say(self.ingest_detail,
                    (f"{pages} pages · " if pages else "") + f"embedding {ev.done}/{ev.todo} chunks")
                self._set_status(key, f"Embedding {round(pct * 100)}%")
                frac = 0.15 + 0.8 * pct
            else:
                self._say(self.ingest_detail, f"Indexing {ev.todo} chunks")
                self._set_status(key, "Indexing…")
                frac = 0.97
        elif ev.kind == "done_file":
            frac = 1.0
            self._say(self.ingest_detail, f"Added {ev.file}: {ev.message}")
            self._drop_row(key)
        elif ev.kind == "skipped":
            frac = 1.0
            self._say(self.ingest_detail, f"Skipped {ev.file}: {ev.message}")
            self._drop_row(key)
        elif ev.kind == "failed":
            frac = 1.0
            self.add_failure(ev.file, ev.message)
        elif ev.kind == "cancelled":
            self._say(self.ingest_detail, "Cancelled")
        done_files = max(ev.index - 1, 0) + frac if ev.index else 0
        if ev.kind not in ("start", "finished", "cancelled"):
            self.ingest_bar.setValue(int(1000 * done_files / total))

    def ingest_finished(self, summary: str) -> None:
        self.ingest_panel.hide()
        # Rows still "queued" were never reached (cancelled batch): forget them.
        self.model.set_rows([r for r in self.model.rows if r.doc is not None or r.status.startswith("Failed")])
        self._refresh_chrome()
        self.last_summary = summary

    def set_cancelling(self) -> None:
        self.ingest_cancel.setEnabled(False)
        self._say(self.ingest_detail, "Cancelling after the current step…")

    def _pending_key(self, file_name: str) -> str:
        for r in self.model.rows:
            if r.doc is None and r.file_name == file_name and not r.status.startswith("Failed"):
                return r.key
        return ""

    def _set_status(self, key: str, status: str) -> None:
        if key:
            self.model.update_row(key, status=status)

    def _drop_row(self, key: str) -> None:
        if key:
            self.model.set_rows([r for r in self.model.rows if r.key != key])
            self._refresh_chrome()

    def add_failure(self, file_name: str, reason: str) -> None:
        key = self._pending_key(file_name) or f"file:{file_name}"
        if self.model.row_index(key) >= 0:
            self.model.update_row(key, status="Failed", error=reason)
        else:
            self.model.set_rows([*self.model.rows, Row(key, file_name, "Failed", None, reason)])
        self._failures.append((file_name, reason))
        lines = "<br>".join(f"<b>{_esc(f)}</b>: {_esc(r)}" for f, r in self._failures[-6:])
        n = len(self._failures)
        self.problems_label.setText(f"{n} file{'s' if n > 1 else ''} could not be added:<br>{lines}")
        self.problems.show()
        self._refresh_chrome()

    def failures(self) -> list[tuple[str, str]]:
        return list(self._failures)

    def clear_failures(self) -> None:
        self._failures = []
        self.problems.hide()
        self.model.set_rows([r for r in self.model.rows if not r.status.startswith("Failed")])
        self._refresh_chrome()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class MetadataDialog(QDialog):
    """Edit what the library shows and filters by for one document."""

    FORMS = ["", "10-K", "10-Q", "8-K", "earnings", "transcript"]

    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Metadata — {doc.file_name}")
        m = doc.meta
        self.company = QLineEdit(m.company)
        self.ticker = QLineEdit(m.ticker)
        self.form = QComboBox()
        self.form.setEditable(True)
        self.form.addItems(self.FORMS)
        self.form.setCurrentText(m.form_type)
        self.year = QSpinBox()
        self.year.setRange(0, 2100)
        self.year.setSpecialValueText("—")
        self.year.setValue(m.fiscal_year or 0)
        self.quarter = QComboBox()
        self.quarter.addItems(["— (annual)", "Q1", "Q2", "Q3", "Q4"])
        self.quarter.setCurrentIndex(m.fiscal_quarter or 0)
        self.period_end = QLineEdit(m.period_end)
        self.period_end.setPlaceholderText("YYYY-MM-DD")
        # Extra names questions may use ("Coke", "JPM"); names derived from the company and
        # ticker are always known, so only additions go here.
        self.aliases = QLineEdit(", ".join(m.aliases))
        self.aliases.setPlaceholderText("other names, comma-separated")
        self.aliases.setToolTip("Names a question may use for this company besides its name and ticker. "
                                "Names with capitals match only when written with a capital.")
        form = QFormLayout()
        form.addRow("Company", self.company)
        form.addRow("Ticker", self.ticker)
        form.addRow("Form", self.form)
        form.addRow("Fiscal year", self.year)
        form.addRow("Fiscal quarter", self.quarter)
        form.addRow("Period end", self.period_end)
        form.addRow("Aliases", self.aliases)
        note = QLabel("Saving re-embeds this document's passages so search matches what you see here.")
        note.setObjectName("Hint")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(note)
        lay.addWidget(buttons)
        self.resize(420, self.sizeHint().height())

    def meta(self) -> DocumentMeta:
        return DocumentMeta(
            company=self.company.text().strip(), ticker=self.ticker.text().strip().upper(),
            form_type=self.form.currentText().strip(), fiscal_year=self.year.value() or None,
            fiscal_quarter=self.quarter.currentIndex() or None, period_end=self.period_end.text().strip(),
            aliases=[a.strip() for a in self.aliases.text().split(",") if a.strip()],
        )
