"""A short Help page: what the answer badges mean, the keyboard shortcuts, where data lives."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from desktop_rag.gui.chat_pane import BADGE_HELP
from desktop_rag.gui.text import esc

SHORTCUTS = [
    ("Enter", "Send the question (Shift+Enter: new line)"),
    ("Esc", "Stop the answer"),
    ("Ctrl+L", "Focus the question box"),
    ("Ctrl+F", "Search in the open document"),
    ("Enter / Shift+Enter (in search)", "Next / previous match"),
    ("Page Down / Page Up", "Next / previous page"),
    ("Ctrl++ / Ctrl+-", "Zoom the document"),
    ("Ctrl+O", "Add documents"),
    ("Ctrl+N", "New conversation"),
    ("Ctrl+Shift+F", "Find a conversation by its questions or answers"),
    ("Ctrl+E", "Export the conversation as Markdown"),
    ("Ctrl+Shift+C", "Copy the last answer with its citations"),
    ("Ctrl+1", "Show or hide the library"),
    ("Ctrl+,", "Settings"),
    ("F1", "This page"),
    ("Delete (in the library)", "Remove the selected documents"),
]


def help_html(data_dir: Path, models_dir: Path) -> str:
    badges = "".join(f"<tr><td><b>{esc(name)}</b></td><td>{esc(text)}</td></tr>" for name, text in BADGE_HELP.items())
    keys = "".join(f"<tr><td><code>{esc(k)}</code></td><td>{esc(v)}</td></tr>" for k, v in SHORTCUTS)
    return f"""
<h2>Filings Research Assistant</h2>
<p>Add 10-K, 10-Q, 8-K or earnings PDFs, ask a question, and read a short answer whose
citations are exact quotes. Click a numbered citation to open the filing at that page with
the quote highlighted. Citations give the page number printed on the page and, when it
differs, the PDF's page number: <i>p. 7 (PDF 10)</i>.</p>
<p>While the model writes its answer, an <b>Evidence</b> block shows at once the exact quotes
of the asked company's filing that best match the question (E1, E2: click one to open it). It is evidence, not the answer: the answer replaces it when it arrives, and quotes it
did not use stay below it.</p>
<p>Select documents in the library to ask only about them (the blue bar above the question
box says so; its × asks the whole library again). Drag PDFs or whole folders onto the window
to add them; you can keep asking while they are added.</p>
<p><b>Style</b> under the question box (the same choice as <i>Answer style</i> in Settings) lays
the answers out as generated, concise, detailed, as bullet points or as a table; each
conversation keeps its own. The figures and quotes are the same in every style.</p>
<p>The document viewer fits the page's width, or the whole page, to whatever room it has, and
refits when the window or a side panel changes size; zoom goes from 25 % to 400 %.</p>
<h3>What the answer badges mean</h3>
<table cellspacing="6">{badges}</table>
<h3>Keyboard shortcuts</h3>
<table cellspacing="4">{keys}</table>
<h3>Where your data lives</h3>
<p>Everything stays on this computer; nothing is sent anywhere.</p>
<table cellspacing="4">
<tr><td>Library, conversations, settings</td><td><code>{esc(str(data_dir))}</code></td></tr>
<tr><td>Log files</td><td><code>{esc(str(data_dir / "logs"))}</code></td></tr>
<tr><td>Models</td><td><code>{esc(str(models_dir))}</code></td></tr>
</table>
<p>The original PDFs are not copied: keep them where they were added from to view their pages.</p>
"""


class HelpDialog(QDialog):
    def __init__(self, data_dir: Path, models_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Help")
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(help_html(data_dir, models_dir))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser, 1)
        lay.addWidget(buttons)
        self.resize(620, 640)
