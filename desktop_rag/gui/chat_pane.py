"""Chat pane: conversation picker, question/answer cards with a live draft, badges,
numbered citation chips, feedback, and the input box (Enter sends, Shift+Enter newline).

Widgets here only display ``Answer`` objects and emit requests; the main window runs the
question in a background job and feeds events back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent, QKeyEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.answer.engine import EXTRACTIVE_NOTE, NO_MODEL_REASON, PROSE_QUOTED_REASON
from desktop_rag.core.conversation.router import is_route_note, route_in
from desktop_rag.core.conversation.styles import STYLES
from desktop_rag.core.domain.page_labels import describe_page
from desktop_rag.core.domain.types import Answer, Citation, Evidence
from desktop_rag.gui import style
from desktop_rag.gui.text import duration, esc, set_plain, set_rich, timing_bits

PageLabeler = Callable[[Citation], str]  # "p. 7 (PDF 10)" for a citation
# The style selector's words for core.conversation.styles.STYLES
STYLE_LABELS = {"standard": "As generated", "concise": "Concise", "detailed": "Detailed",
                "bullets": "Bullet points", "table": "Table"}

# What each badge means, in words (the Help page repeats these). Never internal numbers.
BADGE_HELP = {
    "Verified": "Every figure in this answer was found in the quoted passages of the filing.",
    "Computed": "Calculated from figures printed in the filing; each input links to its page.",
    "Extractive": "The model's wording could not be checked against the filing, so the answer quotes "
                  "the filing's own sentences instead.",
    "Not in corpus": "None of the documents searched contains an answer to this question.",
    "Stopped": "You stopped this answer before it finished; what is shown quotes the filing.",
}
# An extractive answer made with no model at all: nothing's wording failed a check. The engine
# notes it exactly so; the badge help and the details both read that one note.
EXTRACTIVE_WITHOUT_MODEL = "No language model is loaded, so the answer quotes the filing's own sentences."
_NO_MODEL_NOTE = f"{EXTRACTIVE_NOTE} {NO_MODEL_REASON}"
# A cause, list, description or outlook: the filing's sentences by design, the model not asked
EXTRACTIVE_PROSE = ("A cause, list, description or outlook is answered with the filing's own sentences, each "
                    "quoted and highlighted; the model does not reword them.")
_PROSE_NOTE = f"{EXTRACTIVE_NOTE} {PROSE_QUOTED_REASON}"


def extractive_lead(answer: Answer) -> str:
    """What an extractive answer shows above its citation chips: the figure read from a quoted
    row ("Total amount paid for share repurchases: $5,717 million (2020)") without the row
    again, and nothing when the answer is only its quotes (each chip shows one, exactly)."""
    shown = " ".join(answer.answer.split())
    quotes = [" ".join(c.quote.split()) for c in answer.citations]
    head, sep, tail = shown.partition(" — “")
    if sep and tail.endswith("”") and tail[:-1] in quotes:
        return head
    if quotes and any(shown == " … ".join(quotes[:n]) for n in range(1, len(quotes) + 1)):
        return ""
    return shown


def default_page_label(cited: Any) -> str:
    """A cited page (a ``Citation``, a ``CalculationInput`` or its JSON form) as the core names
    it: "p. 72 (PDF 74)" when the filing prints another number than the PDF's."""
    return describe_page(str(field_of(cited, "page_label", "") or ""), int(field_of(cited, "page", 0) or 0))


def answer_badges(answer: Answer) -> list[str]:
    """The badges an answer shows (the chat and the log name it alike)."""
    computed = bool(getattr(answer, "computed", False) or getattr(answer, "calculation", None))
    out = ["Stopped"] if answer.cancelled else []
    if answer.not_in_corpus:
        out.append("Not in corpus")
    elif computed:
        out.append("Computed")
    elif answer.extractive:
        out.append("Extractive")
    elif answer.citations:
        out.append("Verified")
    return out


BADGE_STYLES = {"Stopped": "BadgeStopped", "Not in corpus": "BadgeNotInCorpus", "Computed": "BadgeVerified",
                "Extractive": "BadgeExtractive", "Verified": "BadgeVerified"}
# said under a refusal whose reason does not already tell the analyst what to do
REFUSAL_HINT = "Try rephrasing the question, or add the filing that answers it."


def friendly_date(iso: str, now: datetime | None = None) -> str:
    """"14:05" today, "Nov 23" this year, "2025-11-23" before (local time)."""
    try:
        when = datetime.fromisoformat(iso).astimezone()
    except ValueError:
        return ""
    now = now or datetime.now().astimezone()
    if when.date() == now.date():
        return when.strftime("%H:%M")
    if when.year == now.year:
        return when.strftime("%b %d").replace(" 0", " ")
    return when.strftime("%Y-%m-%d")


def local_files(mime: QMimeData) -> list[Path]:
    return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []


class ChatInput(QPlainTextEdit):
    """Enter sends, Shift+Enter inserts a newline; dropped files go to the library."""

    send_requested = Signal()
    files_dropped = Signal(list)
    drag_hovered = Signal(bool)  # files are dragged over the box (True), or left it / were dropped
    LINES = 2  # lines of text the box shows, at any text size (it scrolls beyond)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # short: the keys are said in the hint under the box (a long placeholder wrapped and was
        # cut off at large text sizes)
        self.setPlaceholderText("Ask about your filings…")
        self.setToolTip("Enter sends · Shift+Enter starts a new line")
        self.setTabChangesFocus(True)
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as ``LINES`` lines of the current font, plus the frame and padding."""
        margins = self.contentsMargins().top() + self.contentsMargins().bottom()
        doc_margin = 2 * self.document().documentMargin()
        self.setFixedHeight(round(self.fontMetrics().lineSpacing() * self.LINES + doc_margin + margins + 12))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_height()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_files(event.mimeData()):
            self.drag_hovered.emit(True)
        super().dragEnterEvent(event)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drag_hovered.emit(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drag_hovered.emit(False)
        super().dropEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.send_requested.emit()
            return
        super().keyPressEvent(event)

    # A text edit accepts file drops as text; files belong to the library instead.
    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(local_files(source)) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = local_files(source)
        if files:
            self.files_dropped.emit(files)
        else:
            super().insertFromMimeData(source)


class WrapLabel(QLabel):
    """A word-wrapped label that takes its width from the pane, never from its text: with
    the horizontal policy Ignored its text cannot widen the chat (long tokens get break
    points from ``text.set_plain``)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        if text:
            set_plain(self, text)


class ElidedLabel(QLabel):
    """One line of plain text that ends in "…" when its row is too narrow (never widens the pane)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), shown)


class ElidedComboBox(QComboBox):
    """A combo box whose shown item ends in "…" when the box is narrower than its text (a long
    conversation title, a model's full description); the full text is in its list. Qt's own
    box cut the text off mid-word."""

    def paintEvent(self, event: Any) -> None:
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        icon = opt.iconSize.width() + 4 if not opt.currentIcon.isNull() else 0
        opt.currentText = self.fontMetrics().elidedText(opt.currentText, Qt.TextElideMode.ElideRight,
                                                        max(0, field.width() - icon - 2))  # as Qt draws it
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)


class ClickableText(WrapLabel):
    """A wrapping, button-like line of text (suggested questions): a push button would
    take the full width of its text as its minimum and widen the pane."""

    clicked = Signal()

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName("Suggestion")
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.clicked.emit()
            return
        super().keyPressEvent(event)


class CitationChip(QFrame):
    """[n] doc · page, with the quote below. Clicking opens the source viewer."""

    clicked = Signal(object)  # Citation

    def __init__(self, number: int, citation: Citation, page_label: str = "",
                 parent: QWidget | None = None, marker: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("CitationChip")
        self.citation = citation
        self.number = number
        self.page_label = page_label or default_page_label(citation)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # "E1" marks a quote of the evidence shown before the answer, "1" the answer's own
        num = QLabel(marker or str(number))
        num.setObjectName("EvidenceNumber" if marker else "ChipNumber")
        num.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.source_label = src = WrapLabel()
        src.setObjectName("ChipSource")
        quote = " ".join(citation.quote.split())
        self.quote_label = WrapLabel()
        self.quote_label.setObjectName("ChipQuote")
        set_plain(self.quote_label, f"“{quote}”")
        top = QHBoxLayout()
        top.setSpacing(8)
        top.addWidget(num, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(src, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 10, 7)
        lay.setSpacing(3)
        lay.addLayout(top)
        lay.addWidget(self.quote_label)
        for w in (num, src, self.quote_label):
            w.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.set_page_label(self.page_label)

    def set_page_label(self, page_label: str) -> None:
        self.page_label = page_label
        set_rich(self.source_label, f"{esc(self.citation.doc)} <span style='color:{style.MUTED}; font-weight:400'>"
                                    f"· {esc(page_label)}</span>")
        self.setToolTip(f"Open {self.citation.doc} at {page_label} with the quote highlighted")

    def set_active(self, on: bool) -> None:
        self.setProperty("active", "true" if on else "false")
        self.style().unpolish(self)
        self.style().polish(self)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit(self.citation)
        super().mouseReleaseEvent(event)


class EvidenceBlock(QFrame):
    """The exact quotes found in the asked company's filings, shown while the model writes its
    answer (seconds on a CPU). Labelled evidence, never the answer: the answer replaces it when
    it is these quotes, and is complemented by it otherwise."""

    citation_clicked = Signal(object)  # Citation

    def __init__(self, evidence: Evidence, page_labeler: PageLabeler, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("EvidenceBlock")
        self.evidence = evidence
        self.title = WrapLabel("")
        self.title.setObjectName("EvidenceTitle")
        self.figure = WrapLabel("")
        self.figure.setObjectName("EvidenceFigure")
        cites = evidence.citations
        # a table row's figure with its unit and period, read from the quoted row and header
        figure = evidence.text if cites and not evidence.text.startswith(cites[0].quote) else ""
        set_plain(self.figure, figure.split(" — “")[0])
        self.figure.setVisible(bool(figure))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 10, 8)
        lay.setSpacing(6)
        lay.addWidget(self.title)
        lay.addWidget(self.figure)
        self.chips: list[CitationChip] = []
        for i, c in enumerate(cites, 1):
            chip = CitationChip(i, c, page_labeler(c), marker=f"E{i}")
            chip.setToolTip(f"Evidence: open {c.doc} at {chip.page_label} with the quote highlighted")
            chip.clicked.connect(self.citation_clicked)
            self.chips.append(chip)
            lay.addWidget(chip)
        self.set_waiting(True)

    def set_waiting(self, waiting: bool) -> None:
        n = sum(not c.isHidden() for c in self.chips)
        quotes = f"{n} exact quote{'s' if n != 1 else ''} from the filing"
        set_plain(self.title, f"EVIDENCE · {quotes} · not the answer yet" if waiting
                  else f"ALSO FOUND BEFORE THE ANSWER · {quotes}")

    def keep_only_new(self, quoted: list[Citation]) -> int:
        """Hide the quotes the answer cites itself; how many are left."""
        shown = {" ".join(c.quote.split()) for c in quoted}
        for chip in self.chips:
            chip.setHidden(" ".join(chip.citation.quote.split()) in shown)
        return sum(not c.isHidden() for c in self.chips)


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a core object or of its JSON form (the calculation contract is shared by
    ``Answer.calculation`` and ``ask --json``)."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def format_value(value: Any, unit: str = "") -> str:
    if not isinstance(value, int | float):
        return str(value or "")
    unit = unit or ""
    if unit in ("percent", "%"):
        return f"{value:,.1f}%"
    if unit == "verdict":  # a yes/no judged from measures and thresholds (the title says which)
        return "Yes" if value else "No"
    if unit == "percentage_points":  # a change of a ratio: signed, never read as a level
        return f"{value:+,.{1 if round(value, 1) == value else 2}f} percentage points"
    text = f"{value:,.2f}" if abs(value) < 100 and value != int(value) else f"{value:,.0f}"
    if unit.startswith("usd"):
        scale = (unit.split("_", 1)[1] if "_" in unit else "").rstrip("s")  # usd_millions -> $… million
        return ("-" if value < 0 else "") + f"${text.lstrip('-')}" + (f" {scale}" if scale else "")
    if unit in ("ratio", "times", "x"):
        return f"{value:,.2f}" + ("x" if unit in ("times", "x") else "")
    if unit in ("thousands", "millions", "billions"):  # a statement's scale: "7,442 million"
        return f"{text} {unit[:-1]}"
    if unit == "units":
        return text
    return f"{text} {unit}".strip()


class InputChip(QFrame):
    """One input of a calculation: label, period, value and its page. Clicking opens the
    page with the exact cell highlighted."""

    clicked = Signal(object)  # the input

    def __init__(self, item: Any, page_label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CitationChip")
        self.item = item
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.text_label = WrapLabel()
        self.text_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.text_label, 1)
        self.set_page_label(page_label)

    def set_page_label(self, page_label: str) -> None:
        item = self.item
        label = field_of(item, "label", "")
        period = field_of(item, "period", "")
        value = format_value(field_of(item, "value"), field_of(item, "unit", ""))
        doc = str(field_of(item, "doc", ""))
        set_rich(self.text_label, f"<b>{esc(label)}</b> {esc(period)} = <b>{esc(value)}</b> "
                                  f"<span style='color:{style.MUTED}'>· {esc(doc)} · {esc(page_label)}</span>")
        self.setToolTip(f"Open {doc} at {page_label} with this figure highlighted")

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit(self.item)
        super().mouseReleaseEvent(event)


class CalculationCard(QFrame):
    """A computed answer shown as a calculation: result, formula, and one chip per input."""

    input_clicked = Signal(object)

    def __init__(self, calc: Any, page_labeler: Callable[[Any], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CalculationCard")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        metric = str(field_of(calc, "metric", "") or "Calculation")
        result = format_value(field_of(calc, "result"), field_of(calc, "unit", ""))
        self.title = WrapLabel()
        set_rich(self.title, f"<b>{esc(metric)}</b> = <b>{esc(result)}</b>")
        self.formula = WrapLabel(str(field_of(calc, "formula", "") or ""))
        self.formula.setObjectName("Formula")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 10, 8)
        lay.setSpacing(4)
        lay.addWidget(self.title)
        lay.addWidget(self.formula)
        self.chips: list[InputChip] = []
        for item in field_of(calc, "inputs", []) or []:
            chip = InputChip(item, page_labeler(item))
            chip.clicked.connect(self.input_clicked)
            self.chips.append(chip)
            lay.addWidget(chip)


def details_lines(answer: Answer) -> list[str]:
    """The answer's details as shown: the router's decision and reason, how the question was
    read, each attempt, the style, then the timings and which attempt was verified."""
    lines = []
    route = route_in(answer.notes)
    if route:
        where = {"conversation": "from the conversation", "retrieve": "searched the filings",
                 "both": "from the conversation and the filings"}.get(route.kind, route.kind)
        lines.append(f"Route: {where}{f' ({route.task})' if route.task else ''} — {route.reason}")
    for n in answer.notes:
        if is_route_note(n):
            continue
        if n == _NO_MODEL_NOTE:
            lines.append(EXTRACTIVE_WITHOUT_MODEL)
            continue
        if n == _PROSE_NOTE:
            lines.append(EXTRACTIVE_PROSE)
            continue
        if n.startswith(EXTRACTIVE_NOTE):
            # The verifier's reason is for the log and the eval ("figure(s) 1.0323e+07 ... not
            # found"); the analyst gets what it means in plain words.
            lines.append("The model's wording could not be checked against the quotes, so the filing's own "
                         "sentences are shown instead.")
            continue
        lines.append(n[0].upper() + n[1:] if n else n)
    if answer.timings_ms:
        lines.append("Timing: " + " · ".join(timing_bits(answer.timings_ms)))
    return lines


class ExchangeWidget(QWidget):
    """One question and its answer: draft while streaming, then the verified answer."""

    citation_clicked = Signal(object)  # Citation
    feedback_changed = Signal(int, int, str)  # msg_id, rating, comment
    copy_requested = Signal(object)  # Answer
    input_clicked = Signal(object)  # an input of the answer's calculation
    rerun_requested = Signal(str, str)  # the question, the searched (standalone) question as edited

    def __init__(self, question: str, page_labeler: PageLabeler | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = question
        self.page_labeler = page_labeler or default_page_label
        self.answer: Answer | None = None
        self.msg_id = 0
        self.rating = 0
        self.comment = ""
        self.chips: list[CitationChip] = []
        self.calculation_card: CalculationCard | None = None
        self.evidence_block: EvidenceBlock | None = None
        self._draft = ""

        self.bubble = bubble = QFrame()
        bubble.setObjectName("QuestionBubble")
        self.question_label = q = WrapLabel(question)
        q.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._fit_bubble()
        bl = QHBoxLayout(bubble)
        bl.setContentsMargins(12, 8, 12, 8)
        bl.addWidget(q)
        qrow = QHBoxLayout()
        qrow.addStretch(1)
        qrow.addWidget(bubble)

        # How the message was read, under the analyst's words: the question searched (a
        # follow-up made to stand alone) or "answered from the conversation"; one click on the
        # pencil edits it, Enter searches the edited question.
        self.standalone = ""
        self.searched = WrapLabel("")
        self.searched.setObjectName("Hint")
        self.searched.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.edit_btn = self._tool("pencil", "Edit the searched question and ask again")
        self.searched_edit = QLineEdit()
        self.searched_edit.setPlaceholderText("The question to search (Enter asks, Esc cancels)")
        self.searched_edit.hide()
        self.searched_row = QWidget()
        sr = QHBoxLayout(self.searched_row)
        sr.setContentsMargins(40, 0, 0, 0)
        sr.setSpacing(4)
        sr.addWidget(self.searched, 1)
        sr.addWidget(self.searched_edit, 1)
        sr.addWidget(self.edit_btn)
        self.searched_row.hide()

        self.card = QFrame()
        self.card.setObjectName("AnswerCard")
        self.badges = QHBoxLayout()
        self.badges.setSpacing(6)
        self.status = WrapLabel("Searching the library…")
        self.status.setObjectName("Draft")
        self.badges.addWidget(self.status, 1)
        self.badges.addStretch(0)
        self.badge_help = WrapLabel("")
        self.badge_help.setObjectName("Hint")
        self.badge_help.hide()
        self.note = WrapLabel("")
        self.note.setObjectName("Hint")
        self.note.hide()
        self.text = WrapLabel("")
        self.text.setObjectName("Draft")
        self.text.hide()
        self.cites = QVBoxLayout()
        self.cites.setSpacing(6)

        self.meta = WrapLabel("")
        self.meta.setObjectName("Hint")
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.up = self._tool("thumbs-up", "Good answer", checkable=True, checked_color="#166534")
        self.down = self._tool("thumbs-down", "Bad answer", checkable=True, checked_color=style.DANGER)
        self.comment_btn = self._tool("comment", "Add a comment to your rating")
        self.copy_btn = self._tool("copy", "Copy answer with citations")
        self.details_btn = QToolButton()
        self.details_btn.setText("Details")
        self.details_btn.setCheckable(True)
        self.details_btn.setAutoRaise(True)
        self.details_btn.setToolTip("How the question was read and routed, the attempts and the timings")
        self.footer = QWidget()
        fl = QHBoxLayout(self.footer)
        fl.setContentsMargins(0, 0, 0, 0)
        fl.setSpacing(2)
        fl.addWidget(self.meta, 1)
        for b in (self.details_btn, self.up, self.down, self.comment_btn, self.copy_btn):
            fl.addWidget(b)
        self.footer.hide()
        # the answer's details: route and its reason, how the question was read, attempts, timings
        self.details = WrapLabel("")
        self.details.setObjectName("Hint")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()

        self.comment_edit = QLineEdit()
        self.comment_edit.setPlaceholderText("What was right or wrong? (optional, Enter to save)")
        self.comment_edit.hide()

        self.card_layout = cl = QVBoxLayout(self.card)
        cl.setContentsMargins(14, 10, 14, 10)
        cl.setSpacing(8)
        cl.addLayout(self.badges)
        cl.addWidget(self.badge_help)
        cl.addWidget(self.note)
        cl.addWidget(self.text)
        cl.addLayout(self.cites)
        cl.addWidget(self.footer)
        cl.addWidget(self.details)
        cl.addWidget(self.comment_edit)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)
        lay.addLayout(qrow)
        lay.addWidget(self.searched_row)
        lay.addWidget(self.card)

        self.up.clicked.connect(lambda: self._rate(1 if self.up.isChecked() else 0))
        self.down.clicked.connect(lambda: self._rate(-1 if self.down.isChecked() else 0))
        self.comment_btn.clicked.connect(lambda: self._toggle_comment(None))
        self.comment_edit.returnPressed.connect(self._save_comment)
        self.copy_btn.clicked.connect(lambda: self.answer and self.copy_requested.emit(self.answer))
        self.details_btn.toggled.connect(self.details.setVisible)
        self.edit_btn.clicked.connect(self.start_edit)
        self.searched_edit.returnPressed.connect(self._rerun)

    def _fit_bubble(self) -> None:
        """A question bubble is at most about 60 characters of the current font wide."""
        self.question_label.setMaximumWidth(max(520, 60 * self.question_label.fontMetrics().averageCharWidth()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_bubble()

    def _tool(self, icon: str, tip: str, checkable: bool = False, checked_color: str | None = None) -> QToolButton:
        b = QToolButton()
        b.setIcon(style.icon(icon, style.MUTED, checked_color))
        b.setIconSize(QSize(16, 16))
        b.setToolTip(tip)
        b.setCheckable(checkable)
        b.setAutoRaise(True)
        return b

    # -- how the message was read ------------------------------------------------------------------
    def set_reading(self, standalone: str, from_conversation: str = "") -> None:
        """Show how the message is answered: ``standalone`` (the question searched) when it
        differs from the analyst's words, or ``from_conversation`` (e.g. "summary") when
        the answer comes from the thread without a new search."""
        self.standalone = standalone or self.question
        if from_conversation:
            set_plain(self.searched, f"answered from the conversation ({from_conversation}): no new search")
        elif self.standalone.strip() != self.question.strip():
            set_plain(self.searched, f"searched: {self.standalone}")
        else:
            self.searched_row.hide()
            return
        self.searched.show()
        self.searched_edit.hide()
        self.searched_row.show()

    def start_edit(self) -> None:
        """The searched question in an editor (one click on the pencil)."""
        self.searched_edit.setText(self.standalone or self.question)
        self.searched.hide()
        self.searched_edit.show()
        self.searched_row.show()
        self.searched_edit.setFocus()
        self.searched_edit.selectAll()

    def _rerun(self) -> None:
        text = " ".join(self.searched_edit.text().split())
        self.searched_edit.hide()
        self.searched.show()
        if text:
            self.rerun_requested.emit(self.question, text)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.searched_edit.isVisible():
            self.searched_edit.hide()
            self.searched.show()
            self.searched_row.setVisible(bool(self.searched.text()))
            return
        super().keyPressEvent(event)

    # -- streaming -----------------------------------------------------------------------------
    def set_waiting(self, text: str) -> None:
        set_plain(self.status, text)

    def set_note(self, text: str) -> None:
        """A line under the badges, e.g. which filings were still being added."""
        set_plain(self.note, text)
        self.note.setVisible(bool(text))

    def set_retrieved(self, n_hits: int) -> None:
        set_plain(self.status, f"Found {n_hits} passages · drafting…" if n_hits else "No matching passages")

    def set_evidence(self, evidence: Evidence) -> None:
        """The evidence block, above the draft, as soon as the passages passed the gate."""
        if self.evidence_block is not None or self.answer is not None or not evidence.citations:
            return
        self.evidence_block = block = EvidenceBlock(evidence, self.page_labeler)
        block.citation_clicked.connect(self._chip_clicked)
        self.card_layout.insertWidget(self.card_layout.indexOf(self.text), block)
        set_plain(self.status, "Evidence found · the model is writing the answer…")

    @property
    def evidence_chips(self) -> list[CitationChip]:
        return self.evidence_block.chips if self.evidence_block is not None else []

    def _settle_evidence(self, answer: Answer) -> None:
        """The answer replaces the evidence where it quotes the same text (the extractive
        answer is the evidence) and is complemented, below its own quotes, by the rest."""
        block = self.evidence_block
        if block is None:
            return
        if not block.keep_only_new(answer.citations):
            self.card_layout.removeWidget(block)
            block.hide()
            block.deleteLater()
            self.evidence_block = None
            return
        block.set_waiting(False)
        self.card_layout.removeWidget(block)
        self.card_layout.insertWidget(self.card_layout.indexOf(self.footer), block)

    def append_draft(self, piece: str) -> None:
        self._draft += piece
        set_plain(self.text, self._draft + " ▍")
        self.text.show()

    @property
    def draft(self) -> str:
        return self._draft

    # -- final answer -----------------------------------------------------------------------------
    def set_answer(self, answer: Answer, msg_id: int = 0, rating: int = 0, comment: str = "",
                   scope: list[str] | None = None) -> None:
        self.answer = answer
        self.msg_id = msg_id
        self.rating = rating
        self.comment = comment
        self.status.hide()
        computed = bool(getattr(answer, "computed", False) or getattr(answer, "calculation", None))
        for badge in answer_badges(answer):
            self._badge(badge, BADGE_STYLES[badge])
        # The badge says it in words too, not only in a hover tooltip.
        unasked = _NO_MODEL_NOTE in answer.notes
        prose = _PROSE_NOTE in answer.notes
        explain = [EXTRACTIVE_WITHOUT_MODEL if b == "Extractive" and unasked else
                   EXTRACTIVE_PROSE if b == "Extractive" and prose else BADGE_HELP[b]
                   for b in self.badge_texts() if b in BADGE_HELP]
        set_plain(self.badge_help, " ".join(explain))
        self.badge_help.setVisible(bool(explain))
        self.text.setObjectName("AnswerText")
        self.text.style().unpolish(self.text)
        self.text.style().polish(self.text)
        if answer.not_in_corpus:
            # the core's reason is the answer: which company, period or subject the library lacks
            reason = " ".join(answer.answer.split()) or "The library does not contain an answer to this question."
            set_plain(self.text, reason if reason.startswith("Cannot compute") else f"{reason} {REFUSAL_HINT}")
        elif answer.extractive:
            # Quoted table rows carry the PDF's line breaks; a paragraph reads better.
            set_plain(self.text, extractive_lead(answer))
        else:
            set_plain(self.text, answer.answer)
        self.text.setVisible(bool(self.text.text()))
        calc = getattr(answer, "calculation", None)
        if calc:
            self.calculation_card = CalculationCard(calc, self._input_label)
            self.calculation_card.input_clicked.connect(self.input_clicked)
            self.cites.addWidget(self.calculation_card)
            # The card says it all (result, formula, each input); the answer's one-line form
            # repeated above it read as a wall of brackets. Copy still copies that line.
            self.text.hide()
        for i, c in enumerate(answer.citations, 1):
            chip = CitationChip(i, c, self.page_labeler(c))
            chip.clicked.connect(self._chip_clicked)
            self.chips.append(chip)
            self.cites.addWidget(chip)
        route = route_in(answer.notes)
        from_thread = route is not None and route.kind == "conversation"
        # a computed answer's figures come from the statements and code, not from the model
        parts = ["computed from the statements" if computed else
                 answer.model or ("from the conversation" if from_thread else "no model loaded")]
        total = answer.timings_ms.get("total")
        if total:
            parts.append(duration(total))
        if scope:
            parts.append(f"only: {', '.join(scope)}")
        attempt = int(answer.timings_ms.get("attempt", 0) or 0)
        if attempt > 1:
            parts.append(f"attempt {attempt} verified")
        set_plain(self.meta, " · ".join(parts))
        self.meta.setToolTip("\n".join(f"{k}: {v:.0f} ms" for k, v in answer.timings_ms.items()))
        self._settle_evidence(answer)
        if not self.searched_row.isVisible():
            self.set_reading(answer.standalone_query or answer.query,
                             (route.task or "recall") if route is not None and from_thread else "")
        lines = details_lines(answer)
        set_plain(self.details, "\n".join(lines))
        self.details_btn.setVisible(bool(lines))
        self.up.setChecked(rating > 0)
        self.down.setChecked(rating < 0)
        self.footer.setVisible(True)
        for b in (self.up, self.down, self.comment_btn):
            b.setEnabled(msg_id > 0)

    def mark_found(self, ms: int = 2500) -> None:
        """Outline the question and answer for a moment (a search opened the thread here)."""
        for w in (self.card, self.bubble):
            w.setProperty("found", "true")
            w.style().unpolish(w)
            w.style().polish(w)

        def unmark() -> None:
            for w in (self.card, self.bubble):
                w.setProperty("found", "false")
                w.style().unpolish(w)
                w.style().polish(w)

        QTimer.singleShot(ms, self, unmark)

    def set_error(self, message: str) -> None:
        self.status.setObjectName("Error")
        self.status.setStyleSheet(f"color: {style.DANGER}")
        set_plain(self.status, f"Could not answer: {message}")

    def _badge(self, text: str, name: str) -> None:
        b = QLabel(text)
        b.setObjectName(name)
        b.setTextFormat(Qt.TextFormat.PlainText)
        b.setToolTip(BADGE_HELP.get(text, ""))
        self.badges.insertWidget(self.badges.count() - 1, b)

    def badge_texts(self) -> list[str]:
        out = []
        for i in range(self.badges.count()):
            item = self.badges.itemAt(i)
            w = item.widget() if item is not None else None
            if isinstance(w, QLabel) and w.objectName().startswith("Badge"):
                out.append(w.text())
        return out

    def _input_label(self, item: Any) -> str:
        return self.page_labeler(item)

    def relabel(self) -> None:
        """The chips' page names again (printed page numbers read after the answer was shown)."""
        for chip in [*self.chips, *self.evidence_chips]:
            chip.set_page_label(self.page_labeler(chip.citation))
        if self.calculation_card is not None:
            for ichip in self.calculation_card.chips:
                ichip.set_page_label(self._input_label(ichip.item))

    def _chip_clicked(self, citation: Citation) -> None:
        self.citation_clicked.emit(citation)

    # -- feedback ------------------------------------------------------------------------------
    def _rate(self, rating: int) -> None:
        self.rating = rating
        self.up.setChecked(rating > 0)
        self.down.setChecked(rating < 0)
        self.feedback_changed.emit(self.msg_id, rating, self.comment)
        if rating < 0 and not self.comment:
            self._toggle_comment(True)

    def _toggle_comment(self, show: bool | None = None) -> None:
        show = not self.comment_edit.isVisible() if show is None else show
        self.comment_edit.setText(self.comment)
        self.comment_edit.setVisible(show)
        if show:
            self.comment_edit.setFocus()

    def _save_comment(self) -> None:
        self.comment = self.comment_edit.text().strip()
        self.comment_edit.hide()
        if not self.rating:
            self.rating = -1 if self.down.isChecked() else 1
            self.up.setChecked(self.rating > 0)
        self.feedback_changed.emit(self.msg_id, self.rating, self.comment)
        self.comment_btn.setToolTip(f"Your comment: {self.comment}" if self.comment else "Add a comment")


class ChatPane(QFrame):
    send_requested = Signal(str)
    stop_requested = Signal()
    citation_clicked = Signal(object)  # Citation
    input_clicked = Signal(object)  # an input of a calculation
    feedback_changed = Signal(int, int, str)
    copy_requested = Signal(object)  # Answer
    conversation_selected = Signal(int)
    new_conversation_requested = Signal()
    delete_conversation_requested = Signal(int)
    export_requested = Signal(int)
    find_requested = Signal()
    clear_scope_requested = Signal()
    rerun_requested = Signal(str, str)  # question, edited searched question
    style_changed = Signal(str)  # the conversation's answer style (core.conversation.styles)
    memory_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Pane")
        self.exchanges: list[ExchangeWidget] = []
        self.page_labeler: PageLabeler = default_page_label
        self.running = False
        self._active_chip: CitationChip | None = None

        title = QLabel("Chat")
        title.setObjectName("PaneTitle")
        self.conversations = ElidedComboBox()
        self.conversations.setMinimumWidth(120)
        self.conversations.setMinimumContentsLength(12)
        self.conversations.setToolTip("Past conversations")
        self.conversations.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.find_btn = self._tool("search", "Find a conversation by its questions or answers (Ctrl+Shift+F)")
        self.new_btn = self._tool("message-plus", "New conversation")
        self.export_btn = self._tool("download", "Export conversation as Markdown…")
        self.delete_btn = self._tool("trash", "Delete this conversation")
        head = QHBoxLayout()
        head.setContentsMargins(12, 10, 12, 6)
        head.addWidget(title)
        head.addSpacing(8)
        head.addWidget(self.conversations, 1)
        for b in (self.find_btn, self.new_btn, self.export_btn, self.delete_btn):
            head.addWidget(b)

        self.body = QWidget()
        # The conversation takes the pane's width, never its own: the scroll area sizes an
        # Ignored-width widget to the viewport, and every label in it wraps.
        self.body.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(14, 8, 14, 8)
        self.body_layout.setSpacing(14)
        self.welcome = self._welcome()
        self.body_layout.addWidget(self.welcome)
        self.body_layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("ChatScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.body)
        self.scroll_area.verticalScrollBar().rangeChanged.connect(self._range_changed)
        self._stick_to_bottom = True

        self.scope_bar = QFrame()
        self.scope_bar.setObjectName("ScopeBar")
        self.scope_label = WrapLabel("")
        self.scope_clear = self._tool("x", "Ask the whole library again")
        sl = QHBoxLayout(self.scope_bar)
        sl.setContentsMargins(10, 3, 4, 3)
        sl.addWidget(self.scope_label, 1)
        sl.addWidget(self.scope_clear)
        self.scope_bar.hide()

        self.input = ChatInput()
        self.send_btn = QPushButton(style.icon("send", "#ffffff"), "Send")
        self.send_btn.setObjectName("Primary")
        self.send_btn.setToolTip("Send (Enter)")
        self.stop_btn = QPushButton(style.icon("stop", style.DANGER), "Stop")
        self.stop_btn.setObjectName("Danger")
        self.stop_btn.setToolTip("Stop generating (Esc)")
        self.stop_btn.hide()
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_btn)
        buttons.addWidget(self.stop_btn)
        buttons.addStretch(1)
        inrow = QHBoxLayout()
        inrow.setSpacing(8)
        inrow.addWidget(self.input, 1)
        inrow.addLayout(buttons)
        # shares its row with the style selector: shortened with "…" rather than widening a narrow pane
        self.hint = ElidedLabel("")
        self.hint.setObjectName("Hint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # the conversation's answer style (remembered with the thread) and its memory
        self.style_box = ElidedComboBox()
        for name in STYLES:
            self.style_box.addItem(STYLE_LABELS[name], name)
        self.style_box.setToolTip("How this conversation's answers are laid out (kept with the conversation);"
                                  " the verified figures and quotes stay the same")
        self.style_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.memory_btn = QToolButton()
        self.memory_btn.setText("Memory")
        self.memory_btn.setAutoRaise(True)
        self.memory_btn.setToolTip("What this conversation has established, with citations; clearable")
        style_label = QLabel("Style")
        style_label.setObjectName("Hint")
        opts = QHBoxLayout()
        opts.setSpacing(6)
        opts.addWidget(style_label)
        opts.addWidget(self.style_box)
        opts.addWidget(self.memory_btn)
        opts.addWidget(self.hint, 1)

        bottom = QVBoxLayout()
        bottom.setContentsMargins(12, 6, 12, 10)
        bottom.setSpacing(6)
        bottom.addWidget(self.scope_bar)
        bottom.addLayout(inrow)
        bottom.addLayout(opts)

        sep = QFrame()
        sep.setFrameShape(QFrame.Shape.HLine)
        sep.setStyleSheet(f"color: {style.BORDER}")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(1, 1, 1, 1)
        lay.setSpacing(0)
        lay.addLayout(head)
        lay.addWidget(self.scroll_area, 1)
        lay.addWidget(sep)
        lay.addLayout(bottom)

        self.input.send_requested.connect(self._send)
        self.send_btn.clicked.connect(self._send)
        self.stop_btn.clicked.connect(self.stop_requested)
        self.scope_clear.clicked.connect(self.clear_scope_requested)
        self.new_btn.clicked.connect(self.new_conversation_requested)
        self.find_btn.clicked.connect(self.find_requested)
        self.delete_btn.clicked.connect(self._delete)
        self.export_btn.clicked.connect(self._export)
        self.conversations.activated.connect(self._picked)
        self.style_box.activated.connect(lambda i: self.style_changed.emit(str(self.style_box.itemData(i))))
        self.memory_btn.clicked.connect(self.memory_requested)
        self._update_hint()

    def set_style(self, name: str) -> None:
        """Show the conversation's style (without emitting ``style_changed``)."""
        idx = self.style_box.findData(name)
        self.style_box.blockSignals(True)
        self.style_box.setCurrentIndex(max(idx, 0))
        self.style_box.blockSignals(False)

    def current_style(self) -> str:
        return str(self.style_box.currentData() or STYLES[0])

    def _tool(self, icon: str, tip: str) -> QToolButton:
        b = QToolButton()
        b.setIcon(style.icon(icon))
        b.setIconSize(QSize(18, 18))
        b.setToolTip(tip)
        b.setAutoRaise(True)
        return b

    def _welcome(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.setContentsMargins(8, 30, 8, 8)
        lay.setSpacing(10)
        t = WrapLabel("Ask about your filings")
        t.setObjectName("WelcomeTitle")
        s = WrapLabel("Answers are short and every claim is backed by an exact quote. "
                      "Click a numbered citation to see the quote highlighted in the filing.")
        s.setObjectName("Muted")
        lay.addWidget(t)
        lay.addWidget(s)
        self.suggestions = QVBoxLayout()
        self.suggestions.setSpacing(6)
        lay.addLayout(self.suggestions)
        return w

    def set_suggestions(self, questions: list[str]) -> None:
        while self.suggestions.count():
            item = self.suggestions.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        for q in questions:
            b = ClickableText(q)
            b.clicked.connect(lambda text=q: self._suggest(text))
            self.suggestions.addWidget(b)

    def _suggest(self, text: str) -> None:
        if not self.running:
            self.input.setPlainText(text)
            self._send()

    # -- conversations ---------------------------------------------------------------------------
    def set_conversations(self, items: list[tuple[int, str, str]], current: int | None) -> None:
        """``items``: (conv_id, title, last updated as ISO time), most recent first."""
        self.conversations.blockSignals(True)
        self.conversations.clear()
        if current is None:
            self.conversations.addItem("New conversation", 0)
        for conv_id, title, updated in items:
            when = friendly_date(updated)
            self.conversations.addItem(f"{title} — {when}" if when else title, conv_id)
        idx = self.conversations.findData(current or 0)
        self.conversations.setCurrentIndex(max(idx, 0))
        self.conversations.blockSignals(False)
        self.delete_btn.setEnabled(current is not None)
        self.export_btn.setEnabled(current is not None)

    def _picked(self, index: int) -> None:
        conv_id = int(self.conversations.itemData(index) or 0)
        if conv_id:
            self.conversation_selected.emit(conv_id)

    def current_conversation(self) -> int:
        return int(self.conversations.currentData() or 0)

    def _delete(self) -> None:
        if self.current_conversation():
            self.delete_conversation_requested.emit(self.current_conversation())

    def _export(self) -> None:
        if self.current_conversation():
            self.export_requested.emit(self.current_conversation())

    def clear(self) -> None:
        for ex in self.exchanges:
            self.body_layout.removeWidget(ex)
            # hidden now: out of the layout it would otherwise stay painted at its last place
            # under the next conversation's first exchange until the deferred delete runs
            ex.hide()
            ex.deleteLater()
        self.exchanges = []
        self._active_chip = None
        self.welcome.show()

    # -- exchanges ----------------------------------------------------------------------------------
    def add_exchange(self, question: str) -> ExchangeWidget:
        self.welcome.hide()
        ex = ExchangeWidget(question, self.page_labeler)
        ex.citation_clicked.connect(lambda c, e=ex: self._citation(e, c))
        ex.input_clicked.connect(self.input_clicked)
        ex.feedback_changed.connect(self.feedback_changed)
        ex.copy_requested.connect(self.copy_requested)
        ex.rerun_requested.connect(self.rerun_requested)
        self.body_layout.insertWidget(self.body_layout.count() - 1, ex)
        self.exchanges.append(ex)
        self._stick_to_bottom = True
        return ex

    def _citation(self, ex: ExchangeWidget, citation: Citation) -> None:
        chip = next((c for c in [*ex.chips, *ex.evidence_chips] if c.citation is citation), None)
        if self._active_chip is not None:
            try:
                self._active_chip.set_active(False)
            except RuntimeError:  # deleted with its conversation
                pass
        self._active_chip = chip
        if chip:
            chip.set_active(True)
        self.citation_clicked.emit(citation)

    def _range_changed(self, _lo: int, hi: int) -> None:
        # Follow the stream while the reader is at the bottom; leave them alone if they scrolled up.
        if self._stick_to_bottom:
            self.scroll_area.verticalScrollBar().setValue(hi)

    def scroll_to_exchange(self, ex: ExchangeWidget) -> None:
        """Bring ``ex`` to the top of the view (a search result) and mark it for a moment."""
        self._stick_to_bottom = False
        bar = self.scroll_area.verticalScrollBar()

        def scroll() -> None:
            self.body.layout().activate()  # type: ignore[union-attr]
            bar.setValue(min(max(0, ex.y() - 8), bar.maximum()))

        scroll()
        QTimer.singleShot(0, ex, scroll)  # again once the reopened thread is laid out
        ex.mark_found()

    def scroll_to_bottom(self) -> None:
        self._stick_to_bottom = True
        QTimer.singleShot(0, lambda: self.scroll_area.verticalScrollBar().setValue(self.scroll_area.verticalScrollBar().maximum()))

    # -- input state --------------------------------------------------------------------------------
    def _send(self) -> None:
        text = self.input.toPlainText().strip()
        if text and not self.running:
            self.send_requested.emit(text)

    def set_running(self, running: bool) -> None:
        """The input is disabled only while a question is running."""
        self.running = running
        self.input.setReadOnly(running)
        self.input.setEnabled(not running)
        self.send_btn.setVisible(not running)
        self.stop_btn.setVisible(running)
        self.stop_btn.setEnabled(running)
        if not running:
            self.input.setFocus()
        self._update_hint()

    def set_scope(self, names: list[str]) -> None:
        if names:
            shown = ", ".join(names[:2]) + (f" +{len(names) - 2}" if len(names) > 2 else "")
            set_rich(self.scope_label, f"Asking only: <b>{esc(shown)}</b>")
            self.scope_bar.show()
        else:
            self.scope_bar.hide()

    def _update_hint(self, extra: str = "") -> None:
        self.hint.setText(extra or ("Esc stops the answer" if self.running else
                                    "Enter sends · Shift+Enter new line · Ctrl+F searches the document"))

    def set_hint(self, text: str) -> None:
        self._update_hint(text)

    def last(self) -> ExchangeWidget | None:
        return self.exchanges[-1] if self.exchanges else None

    def answers(self) -> list[Any]:
        return [e.answer for e in self.exchanges if e.answer is not None]
