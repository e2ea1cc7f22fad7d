"""How text reaches a label: plain text is shown as plain text (escaped zero times), HTML
is built from escaped pieces (escaped exactly once), and long tokens get break points.

Qt's ``AutoText`` guesses the format per string: "R&amp;D" has no tag, so it was shown
literally. Every label that shows user or filing text therefore sets its format itself.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # carries Qt::mightBeRichText
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

ZWSP = "\u200b"  # zero-width space: an invisible line-break opportunity
LONG_TOKEN = 18  # characters; a run longer than this gets break points
_TOKEN = re.compile(r"\S{" + str(LONG_TOKEN + 1) + ",}")
_BREAK_AFTER = re.compile(r"([/\\_.,;:=&?\-|)\]])")


def esc(text: str) -> str:
    """For HTML labels: escape once (quotes too, so the text may go into attributes)."""
    return html.escape(text, quote=True)


def breakable(text: str) -> str:
    """``text`` with invisible break points inside long tokens (URLs, figures with many
    digits, file names) so a word-wrapped label never needs more width than its pane."""

    def split(m: re.Match[str]) -> str:
        token = _BREAK_AFTER.sub(r"\1" + ZWSP, m.group(0))
        out, run = [], 0
        for ch in token:
            out.append(ch)
            run = 0 if ch == ZWSP else run + 1
            if run >= LONG_TOKEN:
                out.append(ZWSP)
                run = 0
        return "".join(out)

    return _TOKEN.sub(split, text)


def unbreak(text: str) -> str:
    return text.replace(ZWSP, "")


def set_plain(label: QLabel, text: str) -> None:
    """Show ``text`` exactly as written (no HTML interpretation), wrappable anywhere long."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(breakable(text) if label.wordWrap() else text)


def set_rich(label: QLabel, html_text: str) -> None:
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setText(html_text)


def displayed_text(label: QLabel) -> str:
    """What the user reads in ``label`` (HTML rendered, break points removed)."""
    text = label.text()
    fmt = label.textFormat()
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text))
    if rich:
        doc = QTextDocument()
        doc.setHtml(text)
        text = doc.toPlainText()
    return unbreak(text)


def duration(ms: float) -> str:
    """"12 ms" under a second (a computed answer is not "0.0 s"), else "2.3 s"."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def timing_bits(t: dict[str, float]) -> list[str]:
    """An answer's timings as the chat's details and the status bar show them."""
    bits = [f"retrieval {duration(t.get('retrieve', 0))}"]
    if t.get("evidence"):
        bits.append(f"evidence {duration(t['evidence'])}")
    if t.get("first_token"):
        bits.append(f"first token {duration(t['first_token'])}")
    bits.append(f"total {duration(t.get('total', 0))}")
    if t.get("attempt"):  # set by a retry that was verified
        bits.append(f"attempt {int(t['attempt'])} verified")
    return bits
