"""The look of the app in one place: Fusion + a light palette, one stylesheet, tinted icons.

Colours are named constants so widgets that paint themselves (badges, highlights) stay
consistent with the stylesheet.
"""

from __future__ import annotations

import os
import re
import tempfile
from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from desktop_rag.paths import resources_dir

LIGHT = {
    "ACCENT": "#2563eb", "ACCENT_SOFT": "#e8efff", "TEXT": "#1f2937", "MUTED": "#6b7280", "BORDER": "#e2e5ea",
    "WINDOW_BG": "#f3f4f6", "PANE_BG": "#ffffff", "DANGER": "#b91c1c", "WARN_BG": "#fff4d6", "WARN_FG": "#8a5a00",
    "NIC_BG": "#eef0f3", "BASE": "#ffffff", "HOVER": "#f5f7fa", "HOVER_BORDER": "#cfd4dc", "PRESSED": "#eceff3",
    "DISABLED_FG": "#a0a6ae", "DISABLED_BG": "#f7f7f8", "ACCENT_HOVER": "#1d4ed8", "ACCENT_DISABLED": "#9bb5f0",
    "DANGER_BORDER": "#f0c4c4", "TOOL_HOVER": "#eef1f5", "CHECKED_BORDER": "#c7d6fb", "ALT_BG": "#fafbfc",
    "PROGRESS_BG": "#e9ecf1", "ON_ACCENT": "#ffffff", "CHIP_BG": "#f8fafc", "CHIP_HOVER_BORDER": "#b9cdfa",
    "QUOTE": "#374151", "STOPPED_BG": "#fde8e8", "OK_BG": "#e6f6ec", "OK_FG": "#166534", "VIEWER_BG": "#e5e7eb",
}
DARK = {
    "ACCENT": "#3b82f6", "ACCENT_SOFT": "#1e2a44", "TEXT": "#e5e7eb", "MUTED": "#9ca3af", "BORDER": "#363b45",
    "WINDOW_BG": "#111318", "PANE_BG": "#1a1d23", "DANGER": "#f87171", "WARN_BG": "#3b2f12", "WARN_FG": "#fbbf24",
    "NIC_BG": "#2a2e36", "BASE": "#22262e", "HOVER": "#2a2f38", "HOVER_BORDER": "#4b5563", "PRESSED": "#30353f",
    "DISABLED_FG": "#6b7280", "DISABLED_BG": "#1f232a", "ACCENT_HOVER": "#2563eb", "ACCENT_DISABLED": "#334a75",
    "DANGER_BORDER": "#7f1d1d", "TOOL_HOVER": "#2a2f38", "CHECKED_BORDER": "#3b4f7a", "ALT_BG": "#1e2128",
    "PROGRESS_BG": "#2a2e36", "ON_ACCENT": "#ffffff", "CHIP_BG": "#1f232a", "CHIP_HOVER_BORDER": "#3b5a99",
    "QUOTE": "#d1d5db", "STOPPED_BG": "#3f1d1d", "OK_BG": "#14301f", "OK_FG": "#86efac", "VIEWER_BG": "#0b0d10",
}
THEMES = ("system", "light", "dark")
FONT_SIZES = (8, 16)  # the font-size setting's range, in points
DEFAULT_FONT_PT = 10

# The current palette's colours as module constants: widgets that paint themselves read these.
ACCENT = LIGHT["ACCENT"]
ACCENT_SOFT = LIGHT["ACCENT_SOFT"]
TEXT = LIGHT["TEXT"]
MUTED = LIGHT["MUTED"]
BORDER = LIGHT["BORDER"]
WINDOW_BG = LIGHT["WINDOW_BG"]
PANE_BG = LIGHT["PANE_BG"]
DANGER = LIGHT["DANGER"]
WARN_BG = LIGHT["WARN_BG"]
WARN_FG = LIGHT["WARN_FG"]
NIC_BG = LIGHT["NIC_BG"]
HOVER = LIGHT["HOVER"]
current_theme = "light"
current_font_pt = float(DEFAULT_FONT_PT)  # the text size applied (apply_style)
HIGHLIGHT = QColor(255, 200, 0, 105)  # quote highlight in the PDF viewer
HIGHLIGHT_EDGE = QColor(230, 150, 0, 200)
SEARCH_HIT = QColor(37, 99, 235, 60)

STYLESHEET_TEMPLATE = """
QMainWindow, QDialog {{ background: {WINDOW_BG}; }}
QWidget {{ color: {TEXT}; }}
QToolTip {{ color: {TEXT}; background: {BASE}; border: 1px solid {BORDER}; padding: 4px; }}
QFrame#Pane {{ background: {PANE_BG}; border: 1px solid {BORDER}; border-radius: 8px; }}
QLabel#PaneTitle {{ font-size: 11pt; font-weight: 600; }}
QLabel#Brand {{ font-size: 11pt; font-weight: 700; }}
QLabel#WelcomeTitle {{ font-size: 15pt; font-weight: 600; }}
QLabel#Muted, QLabel#Hint {{ color: {MUTED}; }}
QLabel#Hint {{ font-size: 8.5pt; }}
QLabel#Error {{ color: {DANGER}; }}
QSplitter::handle {{ background: transparent; }}
QLineEdit, QPlainTextEdit, QSpinBox, QDoubleSpinBox, QComboBox {{
    background: {BASE}; border: 1px solid {BORDER}; border-radius: 6px; padding: 4px 6px;
    selection-background-color: {ACCENT};
}}
QLineEdit:focus, QPlainTextEdit:focus, QSpinBox:focus, QDoubleSpinBox:focus, QComboBox:focus {{
    border: 1px solid {ACCENT};
}}
QPushButton {{
    background: {BASE}; border: 1px solid {BORDER}; border-radius: 6px; padding: 5px 12px;
}}
QPushButton:hover {{ background: {HOVER}; border-color: {HOVER_BORDER}; }}
QPushButton:pressed {{ background: {PRESSED}; }}
QPushButton:disabled {{ color: {DISABLED_FG}; background: {DISABLED_BG}; }}
QPushButton#Primary {{ background: {ACCENT}; color: {ON_ACCENT}; border: 1px solid {ACCENT}; font-weight: 600; }}
QPushButton#Primary:hover {{ background: {ACCENT_HOVER}; }}
QPushButton#Primary:disabled {{ background: {ACCENT_DISABLED}; border-color: {ACCENT_DISABLED}; }}
QPushButton#Danger {{ background: {BASE}; color: {DANGER}; border: 1px solid {DANGER_BORDER}; font-weight: 600; }}
QToolButton {{ border: 1px solid transparent; border-radius: 6px; padding: 3px; }}
QToolButton:hover {{ background: {TOOL_HOVER}; border-color: {BORDER}; }}
QToolButton:checked {{ background: {ACCENT_SOFT}; border-color: {CHECKED_BORDER}; }}
QToolBar {{ background: {PANE_BG}; border: none; border-bottom: 1px solid {BORDER}; padding: 4px 8px; spacing: 6px; }}
QStatusBar {{ background: {PANE_BG}; border-top: 1px solid {BORDER}; color: {MUTED}; }}
QStatusBar QLabel {{ color: {MUTED}; padding: 0 8px; }}
QTableView {{
    background: {BASE}; border: none; gridline-color: transparent;
    selection-background-color: {ACCENT_SOFT}; selection-color: {TEXT}; alternate-background-color: {ALT_BG};
}}
QHeaderView::section {{
    background: {BASE}; color: {MUTED}; border: none; border-bottom: 1px solid {BORDER};
    padding: 5px 6px; font-weight: 600;
}}
QProgressBar {{ border: none; background: {PROGRESS_BG}; border-radius: 3px; height: 6px; max-height: 6px; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 3px; }}
QScrollArea {{ border: none; background: transparent; }}
QScrollArea#ChatScroll > QWidget > QWidget {{ background: {PANE_BG}; }}
QFrame#QuestionBubble {{ background: {ACCENT}; border-radius: 10px; }}
QFrame#QuestionBubble QLabel {{ color: {ON_ACCENT}; }}
QFrame#AnswerCard {{ background: {BASE}; border: 1px solid {BORDER}; border-radius: 10px; }}
QFrame#AnswerCard[found="true"] {{ border: 2px solid {ACCENT}; background: {ACCENT_SOFT}; }}
QFrame#QuestionBubble[found="true"] {{ border: 2px solid {ACCENT_HOVER}; }}
QFrame#CitationChip {{ background: {CHIP_BG}; border: 1px solid {BORDER}; border-radius: 8px; }}
QFrame#CitationChip:hover {{ background: {ACCENT_SOFT}; border-color: {CHIP_HOVER_BORDER}; }}
QFrame#CitationChip[active="true"] {{ background: {ACCENT_SOFT}; border: 1px solid {ACCENT}; }}
QLabel#ChipNumber {{
    background: {ACCENT}; color: {ON_ACCENT}; border-radius: {NUM_RADIUS}px; font-weight: 700; font-size: 8.5pt;
    min-width: {NUM_SIZE}px; max-width: {NUM_SIZE}px; min-height: {NUM_SIZE}px; max-height: {NUM_SIZE}px;
}}
QLabel#EvidenceNumber {{
    background: {MUTED}; color: {ON_ACCENT}; border-radius: {NUM_RADIUS}px; font-weight: 700; font-size: 8pt;
    min-width: {EVIDENCE_NUM_WIDTH}px; max-width: {EVIDENCE_NUM_WIDTH}px; min-height: {NUM_SIZE}px; max-height: {NUM_SIZE}px;
}}
QFrame#EvidenceBlock {{ background: {ALT_BG}; border: 1px dashed {HOVER_BORDER}; border-radius: 8px; }}
QLabel#EvidenceTitle {{ color: {MUTED}; font-weight: 700; font-size: 8pt; letter-spacing: 0.5px; }}
QLabel#EvidenceFigure {{ font-weight: 600; }}
QLabel#ChipSource {{ font-weight: 600; font-size: 9pt; }}
QLabel#ChipQuote {{ color: {QUOTE}; font-style: italic; font-size: 9pt; }}
QLabel#Draft {{ color: {MUTED}; font-style: italic; }}
QLabel#AnswerText {{ font-size: 10.5pt; }}
QFrame#CalculationCard {{ background: {ACCENT_SOFT}; border: 1px solid {CHECKED_BORDER}; border-radius: 8px; }}
QLabel#Formula {{ color: {MUTED}; font-family: monospace; font-size: 9pt; }}
QLabel#Suggestion {{ background: {BASE}; border: 1px solid {BORDER}; border-radius: 6px; padding: 7px 12px; }}
QLabel#Suggestion:hover {{ background: {HOVER}; border-color: {HOVER_BORDER}; }}
QLabel#BadgeNotInCorpus {{ background: {NIC_BG}; color: {QUOTE}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeExtractive {{ background: {WARN_BG}; color: {WARN_FG}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeStopped {{ background: {STOPPED_BG}; color: {DANGER}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QLabel#BadgeVerified {{ background: {OK_BG}; color: {OK_FG}; border-radius: 8px; padding: 2px 8px; font-weight: 600; font-size: 8.5pt; }}
QFrame#ScopeBar {{ background: {ACCENT_SOFT}; border-radius: 6px; }}
QLabel#IngestTitle {{ font-weight: 600; }}
QFrame#IngestPanel {{ background: {CHIP_BG}; border: 1px solid {BORDER}; border-radius: 8px; }}
QScrollArea#ViewerScroll {{ background: {VIEWER_BG}; }}
QListWidget#Thumbnails {{ background: {VIEWER_BG}; border: none; border-right: 1px solid {BORDER}; }}
QScrollArea#ViewerScroll > QWidget > QWidget {{ background: {VIEWER_BG}; }}
"""
SPIN_ARROWS = """
QSpinBox, QDoubleSpinBox {{ padding-right: 20px; }}
QSpinBox::up-button, QDoubleSpinBox::up-button {{
    subcontrol-origin: border; subcontrol-position: top right; width: 18px;
    border-left: 1px solid {BORDER}; border-top-right-radius: 6px; background: {BASE};
}}
QSpinBox::down-button, QDoubleSpinBox::down-button {{
    subcontrol-origin: border; subcontrol-position: bottom right; width: 18px;
    border-left: 1px solid {BORDER}; border-bottom-right-radius: 6px; background: {BASE};
}}
QSpinBox::up-button:hover, QDoubleSpinBox::up-button:hover,
QSpinBox::down-button:hover, QDoubleSpinBox::down-button:hover {{ background: {HOVER}; }}
QSpinBox::up-arrow, QDoubleSpinBox::up-arrow {{ image: url("{UP_ARROW}"); width: 10px; height: 10px; }}
QSpinBox::down-arrow, QDoubleSpinBox::down-arrow {{ image: url("{DOWN_ARROW}"); width: 10px; height: 10px; }}
QComboBox::drop-down {{ border: none; width: 20px; }}
QComboBox::down-arrow {{ image: url("{DOWN_ARROW}"); width: 10px; height: 10px; }}
"""



def resolve_theme(theme: str) -> str:
    """"light" or "dark"; "system" follows the desktop's colour scheme where Qt reports it."""
    if theme in ("light", "dark"):
        return theme
    try:
        scheme = QGuiApplication.styleHints().colorScheme()
        return "dark" if scheme == Qt.ColorScheme.Dark else "light"
    except Exception:  # older Qt or no platform integration: light
        return "light"


def _arrow_file(name: str, color: str) -> str:
    """A tinted arrow as a PNG file for the stylesheet (stylesheets take file URLs only)."""
    folder = Path(tempfile.gettempdir()) / f"desktop_rag_icons_{os.getuid() if hasattr(os, 'getuid') else 0}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}_{color.lstrip('#')}.png"
    if not path.exists():
        _render(name, color, 32).save(str(path))
    return path.as_posix()


def scale_of(font_pt: float) -> float:
    """How much bigger than at the default text size every text and text-sized box is."""
    return float(font_pt) / DEFAULT_FONT_PT


def stylesheet(palette: dict[str, str], font_pt: float = DEFAULT_FONT_PT) -> str:
    """The app's stylesheet at the text size ``font_pt``: every size written in points for the
    default 10 pt (answer text 10.5 pt, quotes 9 pt, hints 8.5 pt…) keeps its proportion to
    the chosen size, and the numbered circles grow with their digits."""
    k = scale_of(font_pt)
    arrows = {"UP_ARROW": _arrow_file("chevron-up", palette["MUTED"]),
              "DOWN_ARROW": _arrow_file("chevron-down", palette["MUTED"])}
    size = round(18 * k)  # a radius over half the size is ignored by Qt: the circle came out square
    boxes = {"NUM_SIZE": size, "NUM_RADIUS": size // 2, "EVIDENCE_NUM_WIDTH": round(24 * k)}
    text = (STYLESHEET_TEMPLATE + SPIN_ARROWS).format(**palette, **arrows, **boxes)
    return re.sub(r"(\d+(?:\.\d+)?)pt\b", lambda m: f"{float(m.group(1)) * k:.2f}pt", text)


def apply_style(app: QApplication, theme: str = "light", font_pt: float = DEFAULT_FONT_PT) -> str:
    """Fusion everywhere (the same look on Linux, Windows and macOS, and in screenshots), the
    light or dark palette, and the user's font size. Returns the theme applied."""
    global current_theme
    name = resolve_theme(theme)
    c = DARK if name == "dark" else LIGHT
    globals().update({k: v for k, v in c.items() if k in _CONSTANTS})
    current_theme = name
    app.setStyle("Fusion")
    pal = QPalette()
    roles = QPalette.ColorRole
    for role, key in ((roles.Window, "WINDOW_BG"), (roles.WindowText, "TEXT"), (roles.Base, "BASE"),
                      (roles.AlternateBase, "ALT_BG"), (roles.Text, "TEXT"), (roles.Button, "BASE"),
                      (roles.ButtonText, "TEXT"), (roles.Highlight, "ACCENT"), (roles.HighlightedText, "ON_ACCENT"),
                      (roles.ToolTipBase, "BASE"), (roles.ToolTipText, "TEXT"), (roles.PlaceholderText, "MUTED"),
                      (roles.Light, "HOVER"), (roles.Mid, "BORDER"), (roles.Dark, "HOVER_BORDER")):
        pal.setColor(role, QColor(c[key]))
    app.setPalette(pal)
    global current_font_pt
    current_font_pt = max(FONT_SIZES[0], min(float(font_pt), FONT_SIZES[1]))
    font = QFont(app.font())
    font.setPointSizeF(current_font_pt)
    app.setFont(font)
    app.setStyleSheet(stylesheet(c, current_font_pt))
    return name


_CONSTANTS = {"ACCENT", "ACCENT_SOFT", "TEXT", "MUTED", "BORDER", "WINDOW_BG", "PANE_BG", "DANGER", "WARN_BG",
              "WARN_FG", "NIC_BG", "HOVER"}


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


ICON_COLOR = {"light": "#4b5563", "dark": "#c3c8d0"}


def icon(name: str, color: str | None = None, checked_color: str | None = None) -> QIcon:
    """A stroke icon from resources/icons tinted ``color`` (default: the theme's icon
    colour; ``checked_color`` when checked)."""
    return _icon(name, color or ICON_COLOR.get(current_theme, ICON_COLOR["light"]), checked_color)


@cache
def _icon(name: str, color: str, checked_color: str | None) -> QIcon:
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
