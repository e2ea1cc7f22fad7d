"""The look of the app in one place: Fusion + a light palette, one stylesheet, tinted icons.

Colours are named constants so widgets that paint themselves (badges, highlights) stay
consistent with the stylesheet.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from desktop_rag.paths import resources_dir

ACCENT = "#2563eb"
ACCENT_SOFT = "#e8efff"
TEXT = "#1f2937"
MUTED = "#6b7280"
BORDER = "#e2e5ea"
WINDOW_BG = "#f3f4f6"
PANE_BG = "#ffffff"
DANGER = "#b91c1c"
WARN_BG = "#fff4d6"
WARN_FG = "#8a5a00"
NIC_BG = "#eef0f3"
HIGHLIGHT = QColor(255, 200, 0, 105)  # quote highlight in the PDF viewer
HIGHLIGHT_EDGE = QColor(230, 150, 0, 200)
SEARCH_HIT = QColor(37, 99, 235, 60)

STYLESHEET = f"""
QMainWindow, QDialog {{ background: {WINDOW_BG}; }}
QWidget {{ color: {TEXT}; }}
QToolTip {{ color: {TEXT}; background: #ffffff; border: 1px solid {BORDER}; padding: 4px; }}
QFrame#Pane {{ background: {PANE_BG}; border: 1px solid {BORDER}; border-radius: 8px; }}
QLabel#PaneTitle {{ font-size: 11pt; font-weight: 600; }}
QLabel#Muted, QLabel#Hint {{ color: {MUTED}; }}
QLabel#Hint {{ font-size: 8.5pt; }}
QLabel#Error {{ color: {DANGER}; }}
QSplitter::handle {{ background: transparent; }}
QLineEdit, QPlainTextEdit, QSpinBox, QDoubleSpinBox, QComboBox {{
    background: #ffffff; border: 1px solid {BORDER}; border-radius: 6px; padding: 4px 6px;
    selection-background-color: {ACCENT};
}}
QLineEdit:focus, QPlainTextEdit:focus, QSpinBox:focus, QDoubleSpinBox:focus, QComboBox:focus {{
    border: 1px solid {ACCENT};
}}
QPushButton {{
    background: #ffffff; border: 1px solid {BORDER}; border-radius: 6px; padding: 5px 12px;
}}
QPushButton:hover {{ background: #f5f7fa; border-color: #cfd4dc; }}
QPushButton:pressed {{ background: #eceff3; }}
QPushButton:disabled {{ color: #a0a6ae; background: #f7f7f8; }}
QPushButton#Primary {{ background: {ACCENT}; color: #ffffff; border: 1px solid {ACCENT}; font-weight: 600; }}
QPushButton#Primary:hover {{ background: #1d4ed8; }}
QPushButton#Primary:disabled {{ background: #9bb5f0; border-color: #9bb5f0; }}
QPushButton#Danger {{ background: #ffffff; color: {DANGER}; border: 1px solid #f0c4c4; font-weight: 600; }}
QToolButton {{ border: 1px solid transparent; border-radius: 6px; padding: 3px; }}
QToolButton:hover {{ background: #eef1f5; border-color: {BORDER}; }}
QToolButton:checked {{ background: {ACCENT_SOFT}; border-color: #c7d6fb; }}
QToolBar {{ background: {PANE_BG}; border: none; border-bottom: 1px solid {BORDER}; padding: 4px 8px; spacing: 6px; }}
QStatusBar {{ background: {PANE_BG}; border-top: 1px solid {BORDER}; color: {MUTED}; }}
QStatusBar QLabel {{ color: {MUTED}; padding: 0 8px; }}
QTableView {{
    background: #ffffff; border: none; gridline-color: transparent;
    selection-background-color: {ACCENT_SOFT}; selection-color: {TEXT}; alternate-background-color: #fafbfc;
}}
QHeaderView::section {{
    background: #ffffff; color: {MUTED}; border: none; border-bottom: 1px solid {BORDER};
    padding: 5px 6px; font-weight: 600;
}}
QProgressBar {{ border: none; background: #e9ecf1; border-radius: 3px; height: 6px; max-height: 6px; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 3px; }}
QScrollArea {{ border: none; background: transparent; }}
QScrollArea#ChatScroll > QWidget > QWidget {{ background: {PANE_BG}; }}
QFrame#QuestionBubble {{ background: {ACCENT}; border-radius: 10px; }}
QFrame#QuestionBubble QLabel {{ color: #ffffff; }}
QFrame#AnswerCard {{ background: #ffffff; border: 1px solid {BORDER}; border-radius: 10px; }}
QFrame#CitationChip {{ background: #f8fafc; border: 1px solid {BORDER}; border-radius: 8px; }}
QFrame#CitationChip:hover {{ background: {ACCENT_SOFT}; border-color: #b9cdfa; }}
QFrame#CitationChip[active="true"] {{ background: {ACCENT_SOFT}; border: 1px solid {ACCENT}; }}
QLabel#ChipNumber {{
    background: {ACCENT}; color: #ffffff; border-radius: 9px; font-weight: 700; font-size: 8.5pt;
    min-width: 18px; max-width: 18px; min-height: 18px; max-height: 18px;
}}
QLabel#ChipSource {{ font-weight: 600; font-size: 9pt; }}
QLabel#ChipQuote {{ color: #374151; font-style: italic; font-size: 9pt; }}
QLabel#Draft {{ color: {MUTED}; font-style: italic; }}
QLabel#AnswerText {{ font-size: 10.5pt; }}
QLabel#Suggestion {{ background: #ffffff; border: 1px solid {BORDER}; border-radius: 6px; padding: 7px 12px; }}
QLabel#Suggestion:hover {{ background: #f5f7fa; border-color: #cfd4dc; }}
QLabel#BadgeNotInCorpus {{ background: {NIC_BG}; color: #374151; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeExtractive {{ background: {WARN_BG}; color: {WARN_FG}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeStopped {{ background: #fde8e8; color: {DANGER}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeVerified {{ background: #e6f6ec; color: #166534; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QFrame#ScopeBar {{ background: {ACCENT_SOFT}; border-radius: 6px; }}
QFrame#IngestPanel {{ background: #f8fafc; border: 1px solid {BORDER}; border-radius: 8px; }}
QScrollArea#ViewerScroll {{ background: #e5e7eb; }}
QListWidget#Thumbnails {{ background: #e5e7eb; border: none; border-right: 1px solid {BORDER}; }}
QScrollArea#ViewerScroll > QWidget > QWidget {{ background: #e5e7eb; }}
"""


def apply_style(app: QApplication) -> None:
    """Fusion everywhere: the same look on Linux, Windows and macOS, and in screenshots."""
    app.setStyle("Fusion")
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor(WINDOW_BG))
    pal.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#fafbfc"))
    pal.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Button, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Highlight, QColor(ACCENT))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor("#9ca3af"))
    app.setPalette(pal)
    font = QFont(app.font())
    font.setPointSizeF(10)
    app.setFont(font)
    app.setStyleSheet(STYLESHEET)


@cache
def _svg(name: str) -> str:
    return (resources_dir() / "icons" / f"{name}.svg").read_text("utf-8")


def _render(name: str, color: str, size: int = 48) -> QPixmap:
    data = _svg(name).replace("currentColor", color)
    renderer = QSvgRenderer(QByteArray(data.encode("utf-8")))
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return QPixmap.fromImage(image)


@cache
def icon(name: str, color: str = "#4b5563", checked_color: str | None = None) -> QIcon:
    """A stroke icon from resources/icons tinted ``color`` (``checked_color`` when checked)."""
    ic = QIcon()
    try:
        ic.addPixmap(_render(name, color), QIcon.Mode.Normal, QIcon.State.Off)
        ic.addPixmap(_render(name, "#b8bdc5"), QIcon.Mode.Disabled, QIcon.State.Off)
        ic.addPixmap(_render(name, checked_color or color), QIcon.Mode.Normal, QIcon.State.On)
    except OSError:
        pass  # a missing icon file must never stop the app; the button keeps its text
    return ic


def app_icon() -> QIcon:
    path = resources_dir() / "icon.png"
    return QIcon(str(path)) if path.is_file() else QIcon()
