"""Find a past conversation by what was asked or answered in it; see and clear what the
open conversation remembers."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import memory_text
from desktop_rag.core.conversation.session import ConversationSession
from desktop_rag.gui import style
from desktop_rag.gui.chat_pane import friendly_date


class ConversationFinder(QDialog):
    picked = Signal(int, int)  # conv_id, the id of the first message that matches (0: none)

    def __init__(self, history: HistoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Find a conversation")
        self.history = history
        self.query = QLineEdit()
        self.query.setPlaceholderText("Words from a question or an answer…")
        self.query.setClearButtonEnabled(True)
        self.query.addAction(style.icon("search", "#9ca3af"), QLineEdit.ActionPosition.LeadingPosition)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.count = QLabel("")
        self.count.setObjectName("Hint")
        lay = QVBoxLayout(self)
        lay.addWidget(self.query)
        lay.addWidget(self.results, 1)
        lay.addWidget(self.count)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.refresh)
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self._open_current)
        self.results.itemActivated.connect(self._open)
        self.resize(520, 440)
        self.refresh()

    def refresh(self) -> None:
        text = self.query.text().strip()
        ids = self.history.search(text) if text else [c.conv_id for c in self.history.conversations()]
        convs = {c.conv_id: c for c in self.history.conversations()}
        self.results.clear()
        low = text.lower()
        for conv_id in ids:
            c = convs.get(conv_id)
            if c is None:
                continue
            line = f"{c.title} — {friendly_date(c.updated_at)}"
            at = 0
            if low:
                for m in self.history.messages(conv_id):
                    for part in (m.question, m.standalone, m.answer.answer):
                        i = part.lower().find(low)
                        if i >= 0:
                            line += "\n…" + " ".join(part[max(0, i - 40):i + 80].split()) + "…"
                            at = m.msg_id
                            break
                    else:
                        continue
                    break
            item = QListWidgetItem(line)
            item.setData(Qt.ItemDataRole.UserRole, conv_id)
            item.setData(Qt.ItemDataRole.UserRole + 1, at)
            self.results.addItem(item)
        n = self.results.count()
        self.count.setText(f"{n} conversation{'s' if n != 1 else ''}" + (f" mention “{text}”" if text else ""))
        if n:
            self.results.setCurrentRow(0)

    def _open_current(self) -> None:
        item = self.results.currentItem()
        if item is not None:
            self._open(item)

    def _open(self, item: QListWidgetItem) -> None:
        self.picked.emit(int(item.data(Qt.ItemDataRole.UserRole)), int(item.data(Qt.ItemDataRole.UserRole + 1) or 0))
        self.accept()


class MemoryDialog(QDialog):
    """What the open conversation has established, each fact with its citations: the stored
    memory (older turns, summarised) and the latest answers kept whole. Routed questions
    ("summarise what we found", "what did you say about …") are answered from these and
    quote only their citations. Clearing forgets everything established so far."""

    cleared = Signal()

    def __init__(self, session: ConversationSession | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Conversation memory")
        self.session = session
        intro = QLabel("Answers this conversation has established, each with the quotes it was verified "
                       "against. Older answers are kept as short facts; the latest stay whole. Questions like "
                       "“summarise what we found” are answered from these without a new search.")
        intro.setWordWrap(True)
        intro.setObjectName("Hint")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.clear_btn = QPushButton("Clear memory")
        self.clear_btn.setToolTip("Forget what this conversation established (the messages stay)")
        close = QPushButton("Close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.clear_btn)
        buttons.addStretch(1)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.text, 1)
        lay.addLayout(buttons)
        self.clear_btn.clicked.connect(self.clear)
        close.clicked.connect(self.accept)
        self.resize(620, 420)
        self.refresh()

    def refresh(self) -> None:
        s = self.session
        if s is None:
            self.text.setPlainText("Nothing established yet: ask a question first.")
            self.clear_btn.setEnabled(False)
            return
        stored = s.memory.memory(s.conv_id)
        seen = {f.msg_id for f in stored}
        recent = [f for f in s.known_facts() if f.msg_id not in seen]
        parts = []
        if stored:
            parts += ["Memory (older answers, summarised):", memory_text(stored), ""]
        if recent:
            parts += ["Latest answers:", memory_text(recent)]
        self.text.setPlainText("\n".join(parts).strip() or "Nothing established yet (or the memory was cleared).")
        self.clear_btn.setEnabled(bool(stored or recent))

    def clear(self) -> None:
        if self.session is not None:
            self.session.clear_memory()
            self.cleared.emit()
        self.refresh()
