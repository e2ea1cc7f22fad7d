"""The main window: Library | Chat | Source panes, wired to the core through background jobs.

All core work that touches the embedder, the index or the language model runs in the
background through ``workers.op`` (its lanes say what may run side by side); the main thread
only reads snapshots the operations hand back (document lists, answers) plus cheap SQLite
reads (history, page text).
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QKeySequence,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QWidget,
)

from desktop_rag import APP_NAME, __version__
from desktop_rag.core.conversation.router import BOTH, CONVERSATION
from desktop_rag.core.conversation.session import ConversationSession, Turn, terms_for
from desktop_rag.core.conversation.styles import STANDARD, STYLE_NAMES, STYLES
from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.domain.types import Answer, Citation, Document
from desktop_rag.core.index.backends import LibraryPermissionDenied, LibraryUnavailable, PasswordInUrl, redact
from desktop_rag.core.index.backends.base import READ_ONLY_MESSAGE
from desktop_rag.core.index.library import IngestEvent, IngestReport, collect_pdfs
from desktop_rag.core.workspace import Workspace
from desktop_rag.gui import style
from desktop_rag.gui.chat_pane import (
    ChatPane,
    ElidedComboBox,
    ExchangeWidget,
    answer_badges,
    field_of,
    friendly_date,
    local_files,
)
from desktop_rag.gui.conversations import ConversationFinder, MemoryDialog
from desktop_rag.gui.help_dialog import HelpDialog
from desktop_rag.gui.library_pane import LibraryPane, MetadataDialog
from desktop_rag.gui.pdf_view import PdfViewer
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.gui.text import timing_bits
from desktop_rag.gui.workers import ALL_LANES, INDEX, MODEL, READ, Cancel, Job, JobRunner, op
from desktop_rag.paths import corpus_dir
from desktop_rag.settings import without_secrets, write_text_atomic

log = logging.getLogger(__name__)

GUI_STATE = "gui_state.json"
PANE_MINIMUMS = (220, 330, 300)  # library, chat, source: each stays usable down to 1024 px
DEFAULT_PANE_FRACTIONS = (0.2, 0.34, 0.46)  # the source pane fits a page at a readable size
NARROW_WINDOW = 1000  # below this width the library pane folds away and the toolbar compacts  # window layout, extra model files, first-run flag (in the data dir)
ADD_MODEL = "__add_model__"


class DropOverlay(QWidget):
    """Lights the window up while files are dragged over it: where they go and what happens.
    Transparent to the mouse, so the drag's events still reach the window beneath."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.text = "Drop PDFs or folders to add them to the library"
        self.hide()

    def show_over(self, count: int = 0) -> None:
        what = f"{count} file{'s' if count != 1 else ''}" if count else "PDFs or folders"
        self.text = f"Drop {what} to add them to the library"
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.raise_()
        self.show()
        self.update()

    def paintEvent(self, event: Any) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(style.ACCENT)
        fill.setAlpha(38)
        box = QRectF(self.rect()).adjusted(6, 6, -6, -6)
        p.setBrush(fill)
        p.setPen(QPen(QColor(style.ACCENT), 3, Qt.PenStyle.DashLine))
        p.drawRoundedRect(box, 12, 12)
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        p.setFont(font)
        fm = QFontMetrics(font)
        label = QRectF(0, 0, fm.horizontalAdvance(self.text) + 48, fm.height() + 28)
        label.moveCenter(box.center())
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(style.ACCENT))
        p.drawRoundedRect(label, 10, 10)
        p.setPen(QColor("#ffffff"))
        p.drawText(label, int(Qt.AlignmentFlag.AlignCenter), self.text)
        p.end()


class MainWindow(QMainWindow):
    # a team library changed on another desktop (emitted by the library's follower thread,
    # delivered on the GUI thread): the document list follows
    team_library_changed = Signal()

    def __init__(
        self,
        data_dir: str | Path | None = None,
        models_dir: str | Path | None = None,
        *,
        workspace: Workspace | None = None,
        ingest_bundled_corpus: bool = True,
        load_model: bool = True,
    ) -> None:
        super().__init__()
        # A team server that cannot be reached at start: this computer's library opens instead,
        # and the window says so (a banner; nothing is lost, the next start tries again).
        self.library_notice = ""
        if workspace is None:
            try:
                workspace = Workspace(data_dir, models_dir)
            except PasswordInUrl as exc:  # a hand-edited settings.json: the password leaves it now
                log.warning("team library location refused at start: %s", exc)
                workspace = Workspace(data_dir, models_dir, library="")
                workspace.settings.library.location = without_secrets(workspace.settings.library.location)
                workspace.save_settings()
                self.library_notice = (f"{exc}\nThe Library location setting held one; it was taken out of the "
                                       "settings file. This window uses this computer's library; restart to try "
                                       "the team library again.")
            except (LibraryUnavailable, LibraryPermissionDenied) as exc:
                log.warning("team library unavailable at start: %s", exc)
                self.library_notice = (f"{exc}\nThis window uses this computer's library instead; "
                                       "restart to try the team library again.")
                workspace = Workspace(data_dir, models_dir, library="")
        self.ws = workspace
        # PyMuPDF holds the interpreter lock for up to a second a page: filings are read in
        # helper processes, so this window's thread never waits for a page being read
        workspace.read_pdfs_in_helper_processes()
        self.runner = JobRunner(self)
        self.state = self._load_state()
        self.docs: list[Document] = []
        self.conv_id: int | None = None
        # the open conversation as the core reads it: follow-ups, router, memory, style
        self.session: ConversationSession | None = None
        # chosen before the conversation's first question: the style last chosen (Style, Settings)
        prefs = self.state.get("prefs")
        chosen = str(prefs.get("answer_style", "")) if isinstance(prefs, dict) else ""
        self.pending_style: str = chosen if chosen in STYLES else STANDARD
        self.scope_ids: list[str] = []  # documents questions are limited to ([] = whole library)
        self.ask_job: Job | None = None
        self.ingest_jobs: list[Job] = []
        self.model_job: Job | None = None
        self.model_name = ""
        self.errors: list[str] = []  # every error shown to the user (read by tests)
        self.warnings: list[str] = []  # every warning shown to the user (read by tests)
        self.last_answer: Answer | None = None
        self._closing = False
        self._closed = False
        self._terms_warming = False
        self._suggestion_request = 0
        self._library_ready = False
        self._model_infos: dict[str, str] = {}

        self.setWindowTitle(f"{APP_NAME.replace('_', ' ').title()} — Filings Research Assistant")
        self.setWindowIcon(style.app_icon())
        self.setAcceptDrops(True)
        self._build_ui()
        self.chat.set_style(self.pending_style)
        self._build_menus()
        self._restore_layout()
        self.runner.job_failed.connect(lambda name, msg, tb: self.show_error(f"{name.capitalize()} failed", msg, tb))
        self.runner.busy_changed.connect(self._busy_changed)

        self.refresh_conversations()
        last = self.state.get("last_conversation")
        if last and any(c.conv_id == last for c in self.ws.history.conversations()):
            self.open_conversation(int(last))
        self._populate_models()
        self._open_library(ingest_bundled_corpus)
        if load_model:
            self.load_model(None)

    # -- layout ------------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.library = LibraryPane()
        self.chat = ChatPane()
        self.viewer = PdfViewer()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setHandleWidth(8)
        for w, minimum in zip((self.library, self.chat, self.viewer), PANE_MINIMUMS, strict=True):
            w.setMinimumWidth(minimum)
            self.splitter.addWidget(w)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 1)
        self.splitter.setCollapsible(0, True)  # a small window hides the library (View menu)
        # The window may shrink below three panes' minimums: the library then folds away
        # (``_fit_to_width``) instead of the window refusing to fit a small screen.
        self.splitter.setMinimumWidth(PANE_MINIMUMS[1] + PANE_MINIMUMS[2] + 2 * self.splitter.handleWidth())
        self._pane_fractions = list(DEFAULT_PANE_FRACTIONS)
        self._fractions_applied = False
        central = QWidget()
        lay = QHBoxLayout(central)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.addWidget(self.splitter)
        self.setCentralWidget(central)
        self.drop_overlay = DropOverlay(central)

        # Toolbar: model and embedder on the right, like a product's header.
        tb = self.addToolBar("Main")
        tb.setMovable(False)
        tb.setFloatable(False)
        self.brand = brand = QLabel(" Filings Research Assistant")
        brand.setObjectName("Brand")
        logo = QLabel()
        logo.setPixmap(style.app_icon().pixmap(22, 22))
        tb.addWidget(logo)
        tb.addWidget(brand)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        model_lbl = QLabel("Model")
        model_lbl.setObjectName("Muted")
        tb.addWidget(model_lbl)
        self.model_combo = ElidedComboBox()
        self.model_combo.setMinimumContentsLength(24)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        tb.addWidget(self.model_combo)
        self.embedder_btn = QToolButton()
        self.embedder_btn.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.embedder_btn.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.embedder_btn.setIcon(style.icon("cpu"))
        embed_menu = QMenu(self.embedder_btn)
        embed_menu.addAction("Change embedder (re-index)…", self.choose_embedder)
        self.embedder_btn.setMenu(embed_menu)
        tb.addWidget(self.embedder_btn)
        self.settings_btn = QToolButton()
        self.settings_btn.setIcon(style.icon("sliders"))
        self.settings_btn.setToolTip("Settings (Ctrl+,)")
        self.settings_btn.clicked.connect(self.open_settings)
        tb.addWidget(self.settings_btn)

        # Status bar: model, embedder, counts, last answer's timings, background activity.
        sb = self.statusBar()
        sb.setSizeGripEnabled(False)
        self.busy_label = QLabel("")
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setFixedWidth(90)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.model_status = QLabel("")
        self.embedder_status = QLabel("")
        self.count_status = QLabel("")
        self.timing_status = QLabel("")
        sb.addWidget(self.busy_bar)
        sb.addWidget(self.busy_label, 1)
        # which library this window is on: this computer's, or a team server's (and as whom)
        self.library_status = QLabel(self.library_location_text())
        self.library_status.setObjectName("Muted")
        for w in (self.timing_status, self.library_status, self.count_status, self.embedder_status,
                  self.model_status):
            sb.addPermanentWidget(w)
        sb.messageChanged.connect(lambda _m: self._fit_status_bar())
        self._update_embedder_label()

        # Wiring.
        lib = self.library
        lib.add_requested.connect(self.add_documents_dialog)
        lib.remove_requested.connect(self.remove_documents)
        lib.edit_requested.connect(self.edit_metadata)
        lib.redetect_requested.connect(self.redetect_metadata)
        lib.open_requested.connect(self.open_document)
        lib.scope_changed.connect(self._scope_changed)
        lib.cancel_ingest_requested.connect(self.cancel_ingest)
        ch = self.chat
        ch.page_labeler = self.page_label_for
        ch.send_requested.connect(self.ask)
        ch.stop_requested.connect(self.stop_answer)
        ch.citation_clicked.connect(self.show_citation)
        ch.input_clicked.connect(self.show_calculation_input)
        ch.feedback_changed.connect(self._feedback)
        ch.copy_requested.connect(self.copy_answer)
        ch.conversation_selected.connect(self.open_conversation)
        ch.new_conversation_requested.connect(self.new_conversation)
        ch.delete_conversation_requested.connect(self.delete_conversation)
        ch.export_requested.connect(self.export_conversation_dialog)
        ch.find_requested.connect(self.find_conversation)
        ch.clear_scope_requested.connect(self.clear_scope)
        ch.rerun_requested.connect(lambda q, standalone: self.ask(q, standalone))
        ch.style_changed.connect(self.set_conversation_style)
        ch.memory_requested.connect(self.show_memory)
        ch.input.files_dropped.connect(self.add_paths)
        ch.input.drag_hovered.connect(lambda on: self.drop_overlay.show_over() if on else self.drop_overlay.hide())
        self.viewer.status.connect(lambda m: self.show_error("Cannot open document", m))
        self.model_combo.activated.connect(self._model_picked)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._action(f, "Add documents…", self.add_documents_dialog, QKeySequence.StandardKey.Open)
        self._action(f, "Add folder…", self.add_folder_dialog)
        f.addSeparator()
        self._action(f, "Export conversation as Markdown…", lambda: self.export_conversation_dialog(self.conv_id or 0),
                     "Ctrl+E")
        f.addSeparator()
        self._action(f, "Quit", self.close, QKeySequence.StandardKey.Quit)
        e = mb.addMenu("&Edit")
        self._action(e, "Copy last answer", self._copy_last_answer, "Ctrl+Shift+C")
        e.addSeparator()
        self._action(e, "Settings…", self.open_settings, "Ctrl+,")
        c = mb.addMenu("&Conversation")
        self._action(c, "New conversation", self.new_conversation, QKeySequence.StandardKey.New)
        self._action(c, "Delete conversation", self._delete_current_conversation)
        c.addSeparator()
        self._action(c, "Find conversation…", self.find_conversation, "Ctrl+Shift+F")
        self.history_menu = c.addMenu("Open")
        self.history_menu.aboutToShow.connect(self._fill_history_menu)
        self.models_menu = mb.addMenu("&Model")
        self.models_menu.aboutToShow.connect(self._fill_models_menu)
        v = mb.addMenu("&View")
        self.library_action = QAction("Show library", self)
        self.library_action.setCheckable(True)
        self.library_action.setChecked(not self.library.isHidden())
        self.library_action.setShortcut(QKeySequence("Ctrl+1"))
        self.library_action.triggered.connect(self.toggle_library)
        v.addAction(self.library_action)
        self.addAction(self.library_action)
        self._action(v, "Focus question box", self.focus_input, "Ctrl+L")
        self._action(v, "Find in document", self.viewer.focus_search, QKeySequence.StandardKey.Find)
        self._action(v, "Stop answer", self.stop_answer, "Esc")
        h = mb.addMenu("&Help")
        self._action(h, "Help", self.show_help, QKeySequence.StandardKey.HelpContents)
        self._action(h, "About", self._about)

    def _action(self, menu: QMenu, text: str, slot: Any, shortcut: Any = None) -> QAction:
        a = QAction(text, self)
        a.triggered.connect(lambda _=False: slot())
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        menu.addAction(a)
        self.addAction(a)  # shortcuts work even while the menu bar is hidden/native
        return a

    def focus_input(self) -> None:
        self.chat.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- persistent GUI state -------------------------------------------------------------------------
    def _load_state(self) -> dict[str, Any]:
        try:
            return json.loads((self.ws.data_dir / GUI_STATE).read_text("utf-8"))
        except (OSError, ValueError):
            return {}

    def _save_state(self) -> None:
        self.state["geometry"] = bytes(self.saveGeometry().toHex().data()).decode()
        sizes = self.splitter.sizes()
        if sum(sizes) > 0 and all(sizes):
            # Fractions, not pixels: a layout saved on a big screen must fit a small one.
            self.state["pane_fractions"] = [round(x / sum(sizes), 4) for x in sizes]
        self.state.pop("splitter", None)
        self.state["last_conversation"] = self.conv_id
        try:
            write_text_atomic(self.ws.data_dir / GUI_STATE, json.dumps(self.state, indent=2))
        except OSError:
            log.exception("could not save the window state")

    def _restore_layout(self) -> None:
        geo = self.state.get("geometry")
        if geo:
            self.restoreGeometry(QByteArray.fromHex(geo.encode()))
        else:
            self.resize(1400, 860)
        self.clamp_to_screen()
        self._fit_to_width()
        fractions = self.state.get("pane_fractions")
        old = self.state.get("splitter")  # older versions saved pixels
        if not fractions and isinstance(old, list) and len(old) == 3 and all(isinstance(x, int) and x > 0 for x in old):
            fractions = [x / sum(old) for x in old]
        if (isinstance(fractions, list) and len(fractions) == 3
                and all(isinstance(x, int | float) and 0.05 < x < 0.9 for x in fractions)):
            self._pane_fractions = [float(x) / sum(fractions) for x in fractions]

    def clamp_to_screen(self) -> None:
        """A restored window never starts larger than the screen or off it (a layout saved
        on a 4K monitor, then opened on a laptop or at 150 % scaling)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        avail = screen.availableGeometry()
        if self.isMaximized() or self.isFullScreen():
            return
        w = min(self.width(), avail.width())
        h = min(self.height(), avail.height())
        if (w, h) != (self.width(), self.height()):
            self.resize(w, h)
        frame = self.frameGeometry()
        x = min(max(frame.x(), avail.x()), avail.right() - min(frame.width(), avail.width()) + 1)
        y = min(max(frame.y(), avail.y()), avail.bottom() - min(frame.height(), avail.height()) + 1)
        if (x, y) != (frame.x(), frame.y()):
            self.move(x, y)

    def apply_pane_fractions(self) -> None:
        """Split the current width by the saved fractions, each pane at least its minimum."""
        total = self.splitter.width() - self.splitter.handleWidth() * 2
        if total <= 0:
            return
        panes = [self.library, self.chat, self.viewer]
        if self.library.isHidden():
            fr = self._pane_fractions[1:]
            sizes = [0] + [max(m, int(total * f / sum(fr))) for m, f in zip(PANE_MINIMUMS[1:], fr, strict=True)]
        else:
            sizes = [max(m, int(total * f)) for m, f in zip(PANE_MINIMUMS, self._pane_fractions, strict=True)]
        excess = sum(sizes) - total
        if excess > 0:  # take it from the widest pane(s), never below a minimum
            for i in sorted(range(3), key=lambda i: -sizes[i]):
                if panes[i].isHidden():
                    continue
                give = min(excess, sizes[i] - PANE_MINIMUMS[i])
                sizes[i] -= give
                excess -= give
        self.splitter.setSizes(sizes)
        self._fractions_applied = True

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._fractions_applied:
            self._fit_to_width()
            QTimer.singleShot(0, self.apply_pane_fractions)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._fit_to_width()

    def _fit_to_width(self) -> None:
        """Small windows (1024 px, or 150 % scaling): fold the library away unless the user
        asked for it, hide the brand text and secondary status fields."""
        narrow = self.width() < NARROW_WINDOW
        self.brand.setVisible(self.width() >= 1150)
        self.embedder_btn.setToolButtonStyle(
            Qt.ToolButtonStyle.ToolButtonIconOnly if self.width() < 1300 else Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._fit_status_bar()
        want_library = self.state.get("show_library")
        show = (not narrow) if want_library is None else bool(want_library)
        if self.library.isHidden() == show:
            self.library.setVisible(show)
            if hasattr(self, "library_action"):
                self.library_action.setChecked(show)
            QTimer.singleShot(0, self.apply_pane_fractions)

    # the status bar's fields, the first hidden first when they do not all fit beside its message
    STATUS_FIELDS = ("timing_status", "embedder_status", "library_status", "count_status", "model_status")

    def _fit_status_bar(self) -> None:
        """Show the status bar's fields that fit beside what it says now (a message, or the
        background activity), dropping the least needed first: at 14 pt or 150 % they did not
        all fit, and a message such as "2 added, 1 already in the library: …" was cut off."""
        sb = self.statusBar()
        avail = sb.width() - 24
        fm = sb.fontMetrics()
        message = sb.currentMessage()
        if message:
            need = fm.horizontalAdvance(message) + 24
        elif self.busy_label.text():
            need = fm.horizontalAdvance(self.busy_label.text()) + self.busy_bar.width() + 32
        else:
            need = 0
        fields = [getattr(self, name) for name in self.STATUS_FIELDS]
        used = need
        shown: list[QLabel] = []
        for label in reversed(fields):  # the most needed first
            width = label.sizeHint().width() + 8
            if label.text() and used + width <= avail:
                shown.append(label)
                used += width
        for label in fields:
            label.setVisible(label in shown)

    def changeEvent(self, event: Any) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange) and hasattr(self, "busy_label"):
            QTimer.singleShot(0, self._fit_status_bar)

    def toggle_library(self, on: bool) -> None:
        self.state["show_library"] = on
        self._fit_to_width()

    # -- errors -------------------------------------------------------------------------------------
    def show_error(self, title: str, message: str, details: str = "") -> None:
        """A non-blocking dialog; the full traceback (if any) is behind "Show Details"."""
        self.errors.append(message)
        self._warning_box(title, message, details)

    def show_warning(self, title: str, message: str) -> None:
        """A non-blocking dialog about something that works but should not be so (not an error)."""
        self.warnings.append(message)
        self._warning_box(title, message)

    def _warning_box(self, title: str, message: str, details: str = "") -> None:
        log.warning("%s: %s", title, message)
        if self._closed:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _busy_changed(self, busy: bool) -> None:
        if not busy and self._closing:
            QTimer.singleShot(0, self.close)

    def _set_activity(self, text: str) -> None:
        self.busy_label.setText(text)
        self.busy_bar.setVisible(bool(text))
        self._fit_status_bar()

    # -- library ----------------------------------------------------------------------------------
    def _open_library(self, ingest_bundled_corpus: bool) -> None:
        """Load the index (and the embedder) in the background, then maybe ingest the corpus."""
        self.team_library_changed.connect(self._team_library_changed)

        def work(cancel: threading.Event) -> tuple[list[Document], list[str]]:
            docs = self.ws.library.documents()
            # a team library: other desktops' filings appear in the list as they are committed
            self.ws.library.follow_changes(self.team_library_changed.emit)
            return docs, self.ws.library.mismatch()

        def done(result: tuple[list[Document], list[str]]) -> None:
            docs, mismatch = result
            self._library_ready = True
            # the start-up signal `make bundle-test` and support read in the log
            log.info("ready: window shown, library open (%d documents)", len(docs))
            self._warm_embedder()
            self._set_docs(docs)
            if self.library_notice:
                self.show_error("Team library unavailable", self.library_notice)
            # a team server whose certificate this desktop does not check: said once, at start
            # (a warning: the library is open and works)
            unchecked = self.ws.library.store.identity_notice if self.ws.library.on_server else ""
            if unchecked:
                self.show_warning("Team server not verified", unchecked)
                self.library_status.setToolTip(unchecked)
            if mismatch and self.ws.library.on_server:  # never re-index a team library from one desktop
                self.show_error("This desktop cannot use the team library",
                                "The team library was built with other settings:\n" + "\n".join(mismatch)
                                + "\nUse the team's embedder and chunking settings on this computer.")
                return
            if mismatch:
                self._offer_reindex("The index was built with different settings:\n" + "\n".join(mismatch))
                return
            corpus = corpus_dir()
            first_run = not docs and not self.state.get("first_run_done")
            if (first_run and ingest_bundled_corpus and not self.ws.library.on_server and corpus.is_dir()
                    and collect_pdfs([corpus])):
                self.add_paths([corpus], title="First run: adding the bundled filings")
            self.state["first_run_done"] = True

        self._set_activity("Opening the library…")
        op(self.runner, "open library", work, lane=INDEX).success(done).always(lambda: self._set_activity("")).run()

    def _warm_embedder(self) -> None:
        """Load the embedding model now, in the background, before anything is added or asked:
        its first load imports sentence-transformers and torch, which hold the interpreter for
        seconds (up to 0.3 s at a stretch) and froze the window when the first filing was
        embedded. On the index lane: an ingest queued meanwhile starts after it."""
        embedder = self.ws.embedder

        def work(_cancel: threading.Event) -> None:
            try:
                embedder.load()
            except Exception as exc:  # a missing model is reported by what needs it
                log.warning("the embedding model did not load at start: %s", exc)

        op(self.runner, "load the embedder", work, lane=INDEX).run()

    def _team_library_changed(self) -> None:
        if not self._closed:
            self._set_docs(list(self.ws.library.docs.values()))

    def _warm_company_terms(self) -> None:
        """Derive the terms that name each company (read from the first pages of every filing,
        a second or more on a large library) in the background, for the documents current when
        the job runs: the next question's rewrite finds them ready instead of reading pages on
        the UI thread. One job at a time; committed documents during an ingest add none."""
        if self._terms_warming or self._closing or self._closed:
            return
        self._terms_warming = True
        store = self.ws.library.store

        library = self.ws.library

        def work(_cancel: threading.Event) -> object:
            library.warm()  # the BM25 lookups the first question's gate and evidence read
            return terms_for(list(self.docs), store.page_texts)

        def done() -> None:
            self._terms_warming = False
        self._suggestion_request = 0

        op(self.runner, "company terms", work, lane=INDEX).always(done).run()

    def _set_docs(self, docs: list[Document]) -> None:
        """Swap in a new snapshot of the library (after each committed document)."""
        self.docs = sorted(docs, key=lambda d: (d.meta.company or d.file_name, d.file_name))
        self.library.set_documents(self.docs)
        if self.session is not None:
            self.session.set_documents(self.docs)
        self._warm_company_terms()
        chunks = sum(d.chunk_count for d in self.docs)
        n = len(self.docs)
        self.count_status.setText(f"{n} document{'s' if n != 1 else ''} · {chunks:,} chunks")
        self._fit_status_bar()
        # The scope follows the library: a removed document leaves it, visibly.
        present = {d.doc_id for d in self.docs}
        kept = [d for d in self.scope_ids if d in present]
        if kept != self.scope_ids:
            self.scope_ids = kept
            self.library.select_docs(kept)
            self.statusBar().showMessage(
                "A document you were asking about was removed: questions now go to "
                + ("the remaining selected documents" if kept else "the whole library"), 10000)
        self._show_scope()

    def _show_scope(self) -> None:
        self.chat.set_scope([self._doc_title(d) for d in self.docs if d.doc_id in self.scope_ids])
        self._suggest()

    def clear_scope(self) -> None:
        self.scope_ids = []
        self.library.select_docs([])
        self._show_scope()

    def _suggest(self) -> None:
        """Example questions about the filings in scope (else the library's), drawn from the
        filings themselves: their companies, periods and revenue lines (read in the background
        from the stored statements; the latest request wins)."""
        pool = [d for d in self.docs if d.doc_id in self.scope_ids] or list(self.docs)
        self._suggestion_request += 1
        request, ws = self._suggestion_request, self.ws
        if not pool:
            self.chat.set_suggestions([])
            return

        def work(_cancel: threading.Event) -> list[str]:
            return ws.suggested_questions(pool)

        def done(questions: list[str]) -> None:
            if request == self._suggestion_request and not self._closed:
                self.chat.set_suggestions(questions)

        op(self.runner, "suggestions", work, lane=READ).success(done).failure(lambda *_: None).run()

    def add_documents_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Add documents", str(Path.home()), "PDF files (*.pdf);;All files (*)")
        if files:
            self.add_paths([Path(f) for f in files])

    def add_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of PDFs", str(Path.home()))
        if folder:
            self.add_paths([Path(folder)])

    def library_location_text(self) -> str:
        store = self.ws.library.store
        if not self.ws.library.on_server:
            return "Library: this computer"
        try:
            role = "" if store.can_write() else " (read only)"
        except LibraryUnavailable:
            role = " (unreachable)"
        return f"Library: team server {store.location}{role}"

    def add_paths(self, paths: list[Path], title: str | None = None) -> Job | None:
        """Ingest files/folders in the background. Bad files are reported; good ones land."""
        try:
            writable = self.ws.library.store.can_write()
        except LibraryUnavailable as exc:
            self.show_error("Team library unavailable", str(exc))
            return None
        if not writable:  # a team reader: said plainly, before any work
            self.show_error("Read-only library", READ_ONLY_MESSAGE)
            return None
        files = collect_pdfs(paths)
        if not files:
            self.show_error("Nothing to add", "No PDF files were found in what you dropped.")
            return None
        self.library.ingest_queued(files)
        report = IngestReport()
        lib = self.ws.library
        n = len(files)
        title = title or f"Adding {n} file{'s' if n != 1 else ''}"

        def work(cancel: threading.Event) -> Generator[tuple[IngestEvent, list[Document] | None], None, IngestReport]:
            for ev in lib.ingest(files, cancel, report):
                # Snapshot the documents on the worker thread right after each commit, so the
                # main thread never has to rebuild the library's views itself.
                snapshot = list(lib.docs.values()) if ev.kind in ("done_file", "finished", "cancelled") else None
                yield ev, snapshot
            return report

        def progress(item: tuple[IngestEvent, list[Document] | None]) -> None:
            self._library_progress(item)
            ev = item[0]
            if ev.kind == "file":
                self._set_activity(f"Adding {ev.file} ({ev.index}/{ev.total})")
            elif ev.kind == "searchable":
                log.info("searchable: %s (%s)", ev.file, ev.message)
            elif ev.kind == "done_file":
                log.info("added: %s (%s)", ev.file, ev.message)
            elif ev.kind == "skipped":
                log.info("not added: %s (%s)", ev.file, ev.message)
            elif ev.kind == "failed":
                log.warning("could not add: %s (%s)", ev.file, ev.message)

        def result(rep: IngestReport) -> None:
            parts = [f"{len(rep.added)} added"]
            if rep.skipped:
                parts.append(f"{len(rep.skipped)} already in the library")
            if rep.failed:
                parts.append(f"{len(rep.failed)} failed")
            msg = ", ".join(parts) + (" (cancelled)" if rep.cancelled else "") + f" — {rep.seconds:.0f} s"
            log.info("adding finished: %s", msg)
            self.statusBar().showMessage(msg, 15000)

        def error(msg: str, tb: str) -> None:
            self.show_error("Adding documents failed", msg, tb)

        def finished(job_ref: list[Job]) -> None:
            job = job_ref[0]
            if job in self.ingest_jobs:
                self.ingest_jobs.remove(job)
            if not self.ingest_jobs:
                self.library.ingest_finished("")
                self._set_activity("")

        # Cooperative: a cancel lets the document being added commit or roll back whole, and
        # the report of what landed still arrives.
        ref: list[Job] = []
        job = (op(self.runner, "ingest", work, lane=INDEX, cancel=Cancel.COOPERATIVE)
               .started(lambda: self.library.ingest_started(title)).progress(progress).success(result)
               .failure(error).always(lambda: finished(ref)).run())
        ref.append(job)
        self.ingest_jobs.append(job)
        return job

    def _library_progress(self, item: tuple[IngestEvent, list[Document] | None]) -> None:
        """An ingest or re-index step: the library pane's progress, and the documents'
        snapshot (taken on the worker thread) after each commit."""
        ev, snapshot = item
        self.library.ingest_progress(ev)
        if snapshot is not None:
            self._set_docs(snapshot)

    def cancel_ingest(self) -> None:
        self.library.set_cancelling()
        for job in list(self.ingest_jobs):
            self.runner.cancel(job)

    def remove_documents(self, doc_ids: list[str]) -> None:
        if not doc_ids:
            return
        names = [d.file_name for d in self.docs if d.doc_id in doc_ids]
        ok = QMessageBox.question(self, "Remove documents",
                                  f"Remove {len(doc_ids)} document(s) from the library?\n\n" + "\n".join(names[:8]))
        if ok != QMessageBox.StandardButton.Yes:
            return
        ws = self.ws
        name_of = {d.doc_id: d.file_name for d in self.docs}

        def work(cancel: threading.Event) -> Generator[str, None, list[Document]]:
            # one document a step: closing the window stops between two removals
            for i, d in enumerate(doc_ids, 1):
                t0 = time.perf_counter()
                removed = ws.remove(d)
                log.info("removed: %s (%.1f s)" if removed else "not in the library: %s (%.1f s)",
                         name_of.get(d, d), time.perf_counter() - t0)
                yield f"Removing documents… ({i} of {len(doc_ids)} done)"
            return list(ws.library.docs.values())

        self._set_activity("Removing documents…")
        (op(self.runner, "remove", work, lane=INDEX).progress(self._set_activity).success(self._set_docs)
         .always(lambda: self._set_activity("")).run())

    def edit_metadata(self, doc_id: str) -> None:
        doc = next((d for d in self.docs if d.doc_id == doc_id), None)
        if doc is None:
            return
        dlg = MetadataDialog(doc, self)
        if dlg.exec() != MetadataDialog.DialogCode.Accepted:
            return
        meta = dlg.meta()
        ws = self.ws
        self._meta_job(f"Saving metadata for {doc.file_name}…", [doc_id], lambda d: ws.update_meta(d, meta))

    def redetect_metadata(self, doc_ids: list[str]) -> None:
        self._meta_job("Re-detecting metadata…", doc_ids, self.ws.redetect_meta)

    def _meta_job(self, activity: str, doc_ids: list[str], change: Callable[[str], Any]) -> None:
        lib = self.ws.library

        def work(cancel: threading.Event) -> Generator[None, None, list[Document]]:
            for d in doc_ids:  # each re-embeds the document's passages; closing stops between two
                change(d)
                yield None
            return list(lib.docs.values())

        self._set_activity(activity)
        op(self.runner, "metadata", work, lane=INDEX).success(self._set_docs).always(lambda: self._set_activity("")).run()

    def _offer_reindex(self, why: str) -> None:
        ok = QMessageBox.question(self, "Re-index the library?",
                                  f"{why}\n\nRe-index now? Documents are kept; passages are rebuilt and re-embedded.")
        if ok == QMessageBox.StandardButton.Yes:
            self.reindex()

    def reindex(self, before: Callable[[], None] | None = None, after: Callable[[], None] | None = None) -> Job:
        """Rebuild chunks/embeddings. Not cancellable: a half-done re-index mixes embedders.
        ``before`` runs first in the background (an embedder swap); ``after`` on the main
        thread once it is over, whatever the outcome."""
        lib = self.ws.library

        def work(cancel: threading.Event) -> Iterator[tuple[IngestEvent, list[Document] | None]]:
            if before is not None:
                before()
            for ev in lib.reindex(None):
                yield ev, (list(lib.docs.values()) if ev.kind == "finished" else None)
            return None

        def started() -> None:
            self.library.ingest_started("Re-indexing the library")
            self.library.ingest_cancel.setEnabled(False)

        rebuild = (op(self.runner, "re-index", work, lane=ALL_LANES, cancel=Cancel.NEVER)
                   .started(started).progress(self._library_progress).always(lambda: self.library.ingest_finished("")))
        if after is not None:
            rebuild.always(after)
        return rebuild.run()

    def open_document(self, doc_id: str) -> None:
        doc = next((d for d in self.docs if d.doc_id == doc_id), None)
        if doc and self._check_file(doc) and self.viewer.open_document(Path(doc.path), self._doc_title(doc)):
            self.viewer.show_page(1)

    def _scope_changed(self, doc_ids: list[str]) -> None:
        present = {d.doc_id for d in self.docs}
        self.scope_ids = [d for d in doc_ids if d in present]
        self._show_scope()

    @staticmethod
    def _doc_title(doc: Document) -> str:
        m = doc.meta
        bits = [m.company or doc.file_name, m.form_type, m.period_label()]
        return " · ".join(b for b in bits if b)

    def _check_file(self, doc: Document) -> bool:
        if Path(doc.path).is_file():
            return True
        self.show_error("Document file not found",
                        f"The original PDF of {doc.file_name} is no longer at\n{doc.path}\n\n"
                        "Add it again from its new location to view its pages.")
        return False

    # -- asking -----------------------------------------------------------------------------------
    def conversation_session(self) -> ConversationSession:
        """The open conversation's session (created with the conversation's first question)."""
        if self.conv_id is None:
            self.conv_id = self.ws.history.new_conversation()
            self.ws.memory.set_style(self.conv_id, self.pending_style)
        if self.session is None or self.session.conv_id != self.conv_id:
            self.session = ConversationSession(self.ws.history, self.ws.memory, self.docs, self.conv_id,
                                               page_texts=self.ws.library.store.page_texts)
        else:
            self.session.set_documents(self.docs)
        return self.session

    def ask(self, question: str, standalone: str | None = None) -> ExchangeWidget | None:
        """Ask ``question`` in the open conversation: made to stand alone with the thread and the
        chat's document scope, routed (answered from the conversation, searched, or both),
        laid out in the conversation's style and remembered. ``standalone``: the searched
        question as the analyst edited it (searched as written).

        The question shows at once; everything else runs in the answer's job: reading the
        question needs the terms naming each company (the first pages of every filing, read
        from the library's store, which a filing being committed holds for seconds), and
        storing the answer writes the conversation file."""
        question = question.strip()
        if not question or self.ask_job is not None or self._closing:
            return None
        session = self.conversation_session()
        scope = list(self.scope_ids) or None
        scope_names = [self._doc_title(d) for d in self.docs if d.doc_id in (scope or [])]
        conv_id = session.conv_id
        self.chat.input.clear()
        ex = self.chat.add_exchange(question)
        ex.set_waiting("Waiting for the model to be ready…" if self.runner.lane_busy(MODEL) else "Reading the question…")
        engine = self.ws.engine
        lib = self.ws.library
        asked_at = time.perf_counter()

        def work(cancel: threading.Event) -> Generator[Any, None, tuple[Answer, int, str] | None]:
            turn = session.prepare(question, scope, standalone)
            earlier = session.conversation_part(turn)
            yield turn
            if turn.route.kind == CONVERSATION and earlier is not None:
                # from the stored answers and their citations: no retrieval, no model
                return self._store_answer(session, turn, earlier, scope_names)
            if cancel.is_set():
                return None
            # Runs beside an ingest (its own lane). Retrieval reads the library's views under
            # their lock, so a document committed meanwhile is seen whole or not at all;
            # generation needs only the passages already retrieved.
            stream = engine.ask_stream(question, standalone=turn.standalone, doc_scope=scope, cancel=cancel)
            with lib.views_lock:
                first = next(stream, None)
            answer = None
            for ev in itertools.chain([first] if first is not None else [], stream):
                if ev.kind == "answer":
                    answer = ev.answer
                else:
                    yield ev
            if answer is None:
                return None
            return self._store_answer(session, turn, answer, scope_names,
                                      earlier if turn.route.kind == BOTH else None)

        def progress(ev: Any) -> None:
            if isinstance(ev, Turn):
                self.chat.set_style(ev.style)
                if ev.route.kind == CONVERSATION:
                    ex.set_reading(ev.standalone, ev.route.task or "recall")
                else:
                    ex.set_reading(ev.standalone)
                    ex.set_waiting("Searching the library…")
            elif ev.kind == "retrieved":
                ex.set_retrieved(len(ev.hits))
            elif ev.kind == "evidence" and ev.evidence is not None:
                ex.set_evidence(ev.evidence)  # exact quotes on screen before the model's first token
            elif ev.kind == "token":
                ex.append_draft(ev.text)

        def done(result: tuple[Answer, int, str] | None) -> None:
            if result is None:
                ex.set_waiting("Stopped before the library was searched.")
                return
            answer, msg_id, problem = result
            if problem:
                self.show_error("Could not save to history", problem)
            self._show_answer(ex, answer, msg_id, scope_names, time.perf_counter() - asked_at)

        def error(msg: str, tb: str) -> None:
            ex.set_error(msg)
            self.show_error("Could not answer", msg, tb)

        def finished() -> None:
            self.ask_job = None
            self.chat.set_running(False)
            if self.conv_id == conv_id:
                self.refresh_conversations()

        self.chat.set_running(True)
        # Cooperative: a stopped answer is still an answer (what was generated, marked stopped).
        self.ask_job = (op(self.runner, "answer", work, lane=MODEL, cancel=Cancel.COOPERATIVE)
                        .started(lambda: ex.set_waiting("Reading the question…")).progress(progress)
                        .success(done).failure(error).always(finished).run())
        return ex

    @staticmethod
    def _store_answer(session: ConversationSession, turn: Turn, answer: Answer, scope: list[str],
                      earlier: Answer | None = None) -> tuple[Answer, int, str]:
        """(In the answer's job.) Lay the answer out in the conversation's style, store it and
        update the memory: (answer, its message id, a problem to report or "")."""
        try:
            answer, msg_id = session.finish(turn, answer, scope, earlier)
        except Exception as exc:  # history is a convenience: never lose the answer over it
            log.exception("could not store the answer")
            return answer, 0, str(exc)
        return answer, msg_id, ""

    def _answered(self, ex: ExchangeWidget, answer: Answer, conv_id: int, scope: list[str] | None = None) -> None:
        """Store an answer made outside a conversation turn, as it is, and show it."""
        msg_id = 0
        try:
            msg_id = self.ws.history.add_message(conv_id, answer, scope)
        except Exception as exc:  # history is a convenience: never lose the answer over it
            log.exception("could not store the answer")
            self.show_error("Could not save to history", str(exc))
        self._show_answer(ex, answer, msg_id, scope)
        self.refresh_conversations()
        self._label_stored_answers(conv_id, [answer])

    def _show_answer(self, ex: ExchangeWidget, answer: Answer, msg_id: int, scope: list[str] | None = None,
                     seconds: float = 0.0) -> None:
        """Show a stored answer, say which filings it could not search yet, and log it."""
        ex.set_answer(answer, msg_id, scope=scope)
        ex.set_note(self._still_adding_note(answer))
        self.last_answer = answer
        self.timing_status.setText("Last answer: " + " · ".join(timing_bits(answer.timings_ms)))
        self._fit_status_bar()
        t = answer.timings_ms
        # the log records what was asked and how it went, never the answer's text
        log.info("answered: %r · %s · %d citations · total %.0f ms (retrieval %.0f ms, first token %.0f ms; "
                 "%.1f s on screen)", answer.query, " + ".join(answer_badges(answer)) or "no badge",
                 len(answer.citations), t.get("total", 0.0), t.get("retrieve", 0.0), t.get("first_token", 0.0),
                 seconds)

    def _still_adding_note(self, answer: Answer) -> str:
        """The filings still being added that the answer does not quote (one it quotes was
        searched, whatever its progress: saying it was still being added read as a contradiction)."""
        cited = {c.doc for c in answer.citations}
        if answer.calculation is not None:  # the core's, or its JSON form
            cited |= {str(field_of(i, "doc", "")) for i in field_of(answer.calculation, "inputs", []) or []}
        left = [f for f in self.library.pending_files() if f not in cited]
        if not left:
            return ""
        shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
        return f"Answered from the filings already in the library; still being added: {shown}."

    def set_conversation_style(self, name: str) -> None:
        """The answer style (Style under the chat, or Answer style in Settings: one control):
        this conversation's answers from now on (kept with it), and new conversations'."""
        if self.conv_id is None:
            self.pending_style = name
        else:
            self.ws.memory.set_style(self.conv_id, name)
        self.state.setdefault("prefs", {})["answer_style"] = name
        self.chat.set_style(name)
        self.statusBar().showMessage(f"Answers in this conversation: {STYLE_NAMES.get(name, name)}", 5000)

    def show_memory(self) -> MemoryDialog:
        """What the conversation has established, with its citations; clearable."""
        session = self.conversation_session() if self.conv_id is not None else None
        dlg = MemoryDialog(session, self)
        dlg.cleared.connect(lambda: self.statusBar().showMessage("Conversation memory cleared", 5000))
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def stop_answer(self) -> None:
        if self.ask_job is not None:
            self.runner.cancel(self.ask_job)
            last = self.chat.last()
            if last is not None and last.answer is None:
                last.set_waiting("Stopping…")

    def _feedback(self, msg_id: int, rating: int, comment: str) -> None:
        if msg_id:
            self.ws.history.set_feedback(msg_id, rating, comment)
            self.statusBar().showMessage("Thanks — feedback saved" if rating else "Feedback cleared", 4000)

    def page_label_for(self, cited: Any) -> str:
        """"p. 72 (PDF 74)": a cited page as the core names it everywhere (chips, answer text,
        copies, exports), from the label read when the answer was made."""
        return cited_page(cited)

    def _label_stored_answers(self, conv_id: int, answers: list[Answer]) -> None:
        """Answers stored before citations kept their printed page numbers: read them in the
        background and relabel the conversation's chips when it is still open."""
        docs = self.ws.library.docs
        todo = [a for a in answers if any(not c.page_label and c.doc_id in docs for c in a.citations)
                or (a.calculation is not None and any(not i.page_label and i.doc_id in docs
                                                      for i in a.calculation.inputs))]
        if not todo:
            return
        engine = self.ws.engine

        def work(_cancel: threading.Event) -> None:
            for a in todo:
                engine.label_answer(a)

        def done(_: object) -> None:
            if self.conv_id == conv_id:
                for ex in self.chat.exchanges:
                    ex.relabel()

        op(self.runner, "page labels", work, lane=READ).success(done).run()

    def _copy_last_answer(self) -> None:
        if self.last_answer:
            self.copy_answer(self.last_answer)

    def copy_answer(self, answer: Answer) -> None:
        lines = [answer.answer]
        for i, c in enumerate(answer.citations, 1):
            lines.append(f"[{i}] {c.doc}, {self.page_label_for(c)}: “{' '.join(c.quote.split())}”")
        QGuiApplication.clipboard().setText("\n".join(lines))
        self.statusBar().showMessage("Answer copied with its citations", 4000)

    def show_citation(self, citation: Citation) -> list[tuple[float, float, float, float]]:
        doc = self.ws.library.docs.get(citation.doc_id) or next(
            (d for d in self.docs if d.file_name == citation.doc), None)
        if doc is None:
            self.show_error("Document not in the library",
                            f"{citation.doc} has been removed from the library, so its page cannot be shown.")
            return []
        if not self._check_file(doc):
            return []
        rects = self.viewer.show_citation(citation, Path(doc.path), self._doc_title(doc))
        if not rects:
            self.statusBar().showMessage("The quote could not be located on the page (the file may have changed)", 8000)
        return rects

    def show_calculation_input(self, item: Any) -> list[tuple[float, float, float, float]]:
        """Open the page of one input of a calculation with its cell highlighted: the cell's
        box when the statement parser gave one, else its quote located on the page."""
        doc_id = str(field_of(item, "doc_id", "") or "")
        name = str(field_of(item, "doc", "") or "")
        page = int(field_of(item, "page", 0) or 0)
        quote = str(field_of(item, "quote", "") or "")
        box = field_of(item, "bbox") or field_of(item, "box")
        if box and len(box) == 4:
            doc = next((d for d in self.docs if d.doc_id == doc_id or d.file_name == name), None)
            if doc is None or not self._check_file(doc) or not self.viewer.open_document(Path(doc.path),
                                                                                       self._doc_title(doc)):
                return []
            rect = tuple(float(x) for x in box)
            self.viewer.set_highlight(page, [rect])  # type: ignore[list-item]
            return [rect]  # type: ignore[list-item]
        start = int(field_of(item, "cell_start", -1) if field_of(item, "cell_start", None) is not None else -1)
        end = int(field_of(item, "cell_end", -1) if field_of(item, "cell_end", None) is not None else -1)
        doc = next((d for d in self.docs if d.doc_id == doc_id or d.file_name == name), None)
        if doc is not None and 0 <= start < end:
            # Exactly the cell: its span in the canonical page text the viewer highlights from,
            # read in the background (the library's store may be busy committing a filing).
            lib, found = self.ws.library, doc

            def read(_cancel: threading.Event) -> str:
                return lib.page_text(found.doc_id, page)

            def show(text: str) -> None:
                if text[start:end].strip():
                    self.show_citation(Citation(found.doc_id, found.file_name, page, text[start:end], start))
                else:
                    self.show_citation(Citation(doc_id, name, page, quote))

            op(self.runner, "page text", read, lane=READ).success(show).run()
            return []
        return self.show_citation(Citation(doc_id, name, page, quote))

    # -- conversations -------------------------------------------------------------------------------
    def refresh_conversations(self) -> None:
        items = [(c.conv_id, c.title, c.updated_at) for c in self.ws.history.conversations()]
        self.chat.set_conversations(items, self.conv_id)

    def open_conversation(self, conv_id: int, at_message: int = 0) -> None:
        """Show a stored conversation, at its end, or at the message ``at_message`` (a search
        result), which is scrolled into view and marked for a moment."""
        if self.ask_job is not None:
            return
        self.conv_id = conv_id
        self.session = None  # made for this conversation with its next question
        self.chat.set_style(self.ws.memory.style(conv_id))
        self.chat.clear()
        messages = self.ws.history.messages(conv_id)
        for m in messages:
            ex = self.chat.add_exchange(m.question)
            ex.set_answer(m.answer, m.msg_id, m.rating, m.comment, scope=m.scope)
        self.last_answer = messages[-1].answer if messages else None
        self.refresh_conversations()
        self._label_stored_answers(conv_id, [m.answer for m in messages])
        found = next((ex for ex in self.chat.exchanges if at_message and ex.msg_id == at_message), None)
        if found is not None:
            self.chat.scroll_to_exchange(found)
        else:
            self.chat.scroll_to_bottom()

    def new_conversation(self) -> None:
        if self.ask_job is not None:
            return
        self.conv_id = None
        self.session = None
        # a new conversation starts in the style last shown (the analyst's habit); it is then its own
        self.pending_style = self.chat.current_style()
        self.chat.clear()
        self.refresh_conversations()
        self.focus_input()

    def _delete_current_conversation(self) -> None:
        if self.conv_id:
            self.delete_conversation(self.conv_id)

    def delete_conversation(self, conv_id: int) -> None:
        ok = QMessageBox.question(self, "Delete conversation", "Delete this conversation and its feedback?")
        if ok == QMessageBox.StandardButton.Yes:
            self.ws.history.delete_conversation(conv_id)
            if conv_id == self.conv_id:
                self.new_conversation()
            self.refresh_conversations()

    def export_conversation_dialog(self, conv_id: int) -> None:
        if not conv_id:
            return
        title = next((c.title for c in self.ws.history.conversations() if c.conv_id == conv_id), "conversation")
        safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title)[:60].strip() or "conversation"
        path, _ = QFileDialog.getSaveFileName(self, "Export conversation", str(Path.home() / f"{safe}.md"),
                                              "Markdown (*.md)")
        if path:
            self.export_conversation(conv_id, Path(path))

    def export_conversation(self, conv_id: int, path: Path) -> Job:
        """Write the conversation as Markdown (in the background: citations stored before they
        kept their printed page numbers have them read from their filings)."""
        ws = self.ws

        def work(_cancel: threading.Event) -> None:
            path.write_text(ws.history.export_markdown(conv_id, page_label=ws.page_name), "utf-8")

        return (op(self.runner, "export", work, lane=READ)
                .success(lambda _: self.statusBar().showMessage(f"Exported to {path}", 6000))
                .failure(lambda msg, _tb: self.show_error("Export failed", msg)).run())

    def find_conversation(self) -> ConversationFinder:
        """Search past questions and answers; picking a result opens its conversation."""
        dlg = ConversationFinder(self.ws.history, self)
        dlg.picked.connect(lambda conv_id, msg_id: self.open_conversation(conv_id, msg_id))
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def _fill_history_menu(self) -> None:
        self.history_menu.clear()
        for c in self.ws.history.conversations()[:30]:
            a = self.history_menu.addAction(f"{c.title} — {friendly_date(c.updated_at)}")
            a.triggered.connect(lambda _=False, cid=c.conv_id: self.open_conversation(cid))
        if self.history_menu.isEmpty():
            self.history_menu.addAction("No conversations yet").setEnabled(False)

    # -- models ------------------------------------------------------------------------------------
    def _model_paths(self) -> list[Path]:
        paths = list(self.ws.available_models())
        for extra in self.state.get("extra_models", []):
            p = Path(extra)
            if p.is_file() and p not in paths:
                paths.append(p)
        return paths

    def _populate_models(self) -> None:
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for p in self._model_paths():
            label = self._model_infos.get(str(p)) or f"{p.name} · {p.stat().st_size / 2**20:.0f} MB"
            self.model_combo.addItem(label, str(p))
            self.model_combo.setItemData(self.model_combo.count() - 1, str(p), Qt.ItemDataRole.ToolTipRole)
        self.model_combo.insertSeparator(self.model_combo.count())
        self.model_combo.addItem("Add model file…", ADD_MODEL)
        self._select_current_model()
        self.model_combo.blockSignals(False)
        if not self._model_infos:
            self._inspect_models()

    def _inspect_models(self) -> None:
        """GGUF metadata (name, quantisation, chat template), read in the background."""
        paths = self._model_paths()
        ws = self.ws

        def work(cancel: threading.Event) -> Generator[None, None, dict[str, str]]:
            out = {}
            for p in paths:  # one file a step: closing the window stops between two files
                yield None
                try:
                    info = ws.model_info(p)
                except Exception as exc:  # a broken file stays listed with its name only
                    log.warning("cannot inspect %s: %s", p, exc)
                    continue
                tmpl = "chat template" if info.has_chat_template else "base, no chat template"
                out[str(p)] = f"{info.name} · {info.quantization} · {info.size_mb:.0f} MB · {tmpl}"
            return out

        def done(infos: dict[str, str]) -> None:
            self._model_infos = infos or {"": ""}
            self._populate_models()

        # A model job too: llama.cpp must not load two files from two threads at once (a
        # vocab-only load racing the real one ended the process in testing).
        op(self.runner, "inspect models", work, lane=MODEL).success(done).run()

    def _select_current_model(self) -> None:
        try:
            current = str(self.ws.model_path(self.model_name_or_setting()))
        except FileNotFoundError:
            current = ""
        idx = self.model_combo.findData(current)
        if idx >= 0:
            self.model_combo.setCurrentIndex(idx)

    def model_name_or_setting(self) -> str | None:
        return self.ws.settings.generation.model_file or None

    def _model_picked(self, index: int) -> None:
        data = self.model_combo.itemData(index)
        if data == ADD_MODEL:
            self._select_current_model()
            path, _ = QFileDialog.getOpenFileName(self, "Add a GGUF model", str(Path.home()), "GGUF models (*.gguf)")
            if not path:
                return
            extra = self.state.setdefault("extra_models", [])
            if path not in extra:
                extra.append(path)
            self._model_infos = {}
            self._populate_models()
            data = path
        if data:
            self.load_model(str(data), remember=True)

    def _pick_model_from_menu(self, index: int) -> None:
        self.model_combo.setCurrentIndex(index)
        self._model_picked(index)

    def _fill_models_menu(self) -> None:
        self.models_menu.clear()
        group = QActionGroup(self.models_menu)
        for i in range(self.model_combo.count()):
            data = self.model_combo.itemData(i)
            if not data or data == ADD_MODEL:
                continue
            a = self.models_menu.addAction(self.model_combo.itemText(i))
            a.setCheckable(True)
            a.setChecked(i == self.model_combo.currentIndex())
            group.addAction(a)
            a.triggered.connect(lambda _=False, idx=i: self._pick_model_from_menu(idx))
        self.models_menu.addSeparator()
        self.models_menu.addAction("Add model file…", lambda: self._model_picked(self.model_combo.findData(ADD_MODEL)))
        self.models_menu.addAction("Change embedder (re-index)…", self.choose_embedder)

    def load_model(self, name: str | None, remember: bool = False, force: bool = False) -> Job:
        """Load a GGUF in the background. ``force`` reloads it (thread/context changes)."""
        ws = self.ws

        def work(cancel: threading.Event) -> str:
            return (ws.reload_model(name) if force else ws.load_model(name)).name

        def done(model: str) -> None:
            log.info("model loaded: %s", model)
            self.model_name = model
            self.model_status.setText(f"Model: {model}")
            self._fit_status_bar()
            if remember:
                path = ws.model_path(name)
                ws.settings.generation.model_file = path.name if path.parent == ws.models_dir else str(path)
                ws.save_settings()
            self._select_current_model()

        def error(msg: str, tb: str) -> None:
            self.model_status.setText("Model: not loaded")
            self._fit_status_bar()
            self.show_error("Could not load the model",
                            f"{msg}\n\nAnswers will be extractive (quoted from the filings) until a model loads.", tb)

        try:
            label = ws.model_path(name).name
        except FileNotFoundError:
            label = name or "model"
        self.model_status.setText(f"Model: loading {label}…")
        self._fit_status_bar()

        def started() -> None:
            self._set_activity(f"Loading {label}…")

        self.model_job = (op(self.runner, "load model", work, lane=MODEL).started(started).success(done)
                          .failure(error).always(lambda: self._set_activity("")).run())
        return self.model_job

    def _update_embedder_label(self) -> None:
        name = Path(self.ws.settings.embedding.model).name
        self.embedder_btn.setText(f"Embedder: {name}")
        self.embedder_btn.setToolTip(f"{getattr(self.ws.embedder, 'path', name)}\nClick to change (requires re-indexing)")
        self.embedder_status.setText(f"Embedder: {name}")
        self._fit_status_bar()

    def choose_embedder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a sentence-transformers model folder",
                                                  str(self.ws.models_dir))
        if not folder:
            return
        n = sum(d.chunk_count for d in self.docs)
        ok = QMessageBox.question(self, "Change embedder",
                                  f"Switch the embedder to\n{folder}\n\nAll {n:,} passages must be re-embedded "
                                  "(documents are kept). Continue?")
        if ok != QMessageBox.StandardButton.Yes:
            return
        self.change_embedder(folder)

    def change_embedder(self, folder: str) -> Job:
        ws = self.ws

        def swap() -> None:  # fails before the index is touched if the folder is not a model
            ws.set_embedder(folder)

        return self.reindex(before=swap, after=self._update_embedder_label)

    # -- settings ------------------------------------------------------------------------------------
    def open_settings(self) -> None:
        if self.runner.model_busy:
            self.statusBar().showMessage("Settings can be changed once the current task has finished", 6000)
            return
        dlg = self.settings_dialog()
        if dlg.exec() != SettingsDialog.DialogCode.Accepted:
            return
        self.apply_settings(dlg)

    def settings_dialog(self) -> SettingsDialog:
        models = []
        for i in range(self.model_combo.count()):
            data = self.model_combo.itemData(i)
            if data and data != ADD_MODEL:
                p = Path(data)
                models.append((self.model_combo.itemText(i), p.name if p.parent == self.ws.models_dir else str(p)))
        return SettingsDialog(self.ws.settings, self, prefs=self.state.get("prefs", {}), models=models,
                              data_dir=self.ws.data_dir, answer_style=self.chat.current_style())

    def apply_settings(self, dlg: SettingsDialog) -> None:
        s = self.ws.settings
        chunking_before = dict(s.chunking.__dict__)
        model_before = s.generation.model_file
        changed = dlg.apply()
        self.ws.save_settings()
        prefs = dlg.preferences()
        old = {k: v for k, v in self.state.get("prefs", {}).items() if k in prefs}
        if prefs != old:
            self.state["prefs"] = {**self.state.get("prefs", {}), **prefs}
            app = QApplication.instance()
            if isinstance(app, QApplication):
                style.apply_style(app, prefs["theme"], prefs["font_pt"])
        if dlg.chosen_style() != self.chat.current_style():
            self.set_conversation_style(dlg.chosen_style())
        if dlg.new_data_dir is not None:
            from desktop_rag.paths import save_data_dir

            try:
                save_data_dir(dlg.new_data_dir)
                self.statusBar().showMessage(f"The data folder {dlg.new_data_dir} is used from the next start", 10000)
            except OSError as exc:
                self.show_error("Cannot change the data folder", str(exc))
        if "chunking" in changed and self.docs:
            ok = QMessageBox.question(self, "Re-index the library?",
                                      "Chunking settings changed: the library must be re-indexed to use them. "
                                      "Re-index now?")
            if ok == QMessageBox.StandardButton.Yes:
                self.reindex()
            else:  # keep the index consistent with the settings
                for k, v in chunking_before.items():
                    setattr(s.chunking, k, v)
                self.ws.save_settings()
        if "generation" in changed and (self.model_name or s.generation.model_file != model_before):
            # The generator caches its grammar and thread/context sizes: reload to apply.
            self.load_model(self.model_name_or_setting(), force=True)
        if "library" in changed:
            from desktop_rag.core.index.backends.base import check_url, is_server_location

            location = s.library.location.strip()
            try:
                if location and not is_server_location(location):
                    raise ValueError("a team server's connection string starts with postgresql://")
                check_url(location)
            except ValueError as exc:
                s.library.location = self.ws.library_location
                self.ws.save_settings()
                self.show_error("Library location not changed", str(exc))
                return
            s.library.location = location
            self.ws.save_settings()
            where = f"the team server {redact(location)}" if location else "this computer's library"
            self.statusBar().showMessage(f"From the next start this app uses {where}", 10000)
            return
        if dlg.new_data_dir is None:
            self.statusBar().showMessage("Settings saved", 4000)

    # -- drag and drop ----------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        files = local_files(event.mimeData())
        if files:
            event.acceptProposedAction()
            self.drop_overlay.show_over(len(files))
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        if local_files(event.mimeData()):
            event.acceptProposedAction()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_overlay.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_overlay.hide()
        files = local_files(event.mimeData())
        if files:
            event.acceptProposedAction()
            self.add_paths(files)

    # -- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        """Never close under a running job: cancel, let the current step finish (each
        document commits in one transaction), then close for real."""
        if self.runner.busy:
            if not self._closing:
                self._closing = True
                self.runner.begin_shutdown()
                central = self.centralWidget()
                if central is not None:
                    central.setEnabled(False)
                self._set_activity("Finishing the current step before closing…")
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Blocking, idempotent: stop jobs, save the layout, close the workspace."""
        if self._closed:
            return
        self.runner.shutdown(-1)
        self._save_state()
        self.viewer.close_document()
        self.ws.close()
        self._closed = True

    def show_help(self) -> HelpDialog:
        dlg = HelpDialog(self.ws.data_dir, self.ws.models_dir, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def _about(self) -> None:
        QMessageBox.about(self, "About", f"<b>Filings Research Assistant</b> {__version__}<br>"
                          "Offline answers with exact, verifiable quotes from your filings.<br>"
                          f"Data: {self.ws.data_dir}")
