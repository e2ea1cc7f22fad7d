"""Desktop entry point: arguments, display check, QApplication, style, logging, crash dialog.

    python main.py                      # opens the window
    python main.py --data-dir D --models-dir M   (via ``python -m desktop_rag.gui.app``)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType

from desktop_rag import APP_NAME, __version__

log = logging.getLogger("desktop_rag")

NO_DISPLAY_MESSAGE = """\
desktop_rag: no graphical display is available (DISPLAY / WAYLAND_DISPLAY are not set).

Use the command line instead, for example:
    python main.py ingest corpus/
    python main.py ask "What was Apple's total net sales in Q3 2023?"
    python main.py --help

To run the window without a screen (e.g. for screenshots), set QT_QPA_PLATFORM=offscreen.
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="desktop_rag", description="Offline research assistant for financial filings.")
    p.add_argument("--version", action="version", version=__version__)
    p.add_argument("--data-dir", help="index, settings, history, logs (env DESKTOP_RAG_HOME)")
    p.add_argument("--models-dir", help="folder with .gguf and embedder models (env DESKTOP_RAG_MODELS)")
    p.add_argument("--no-corpus", action="store_true", help="do not ingest the bundled corpus on first run")
    # Qt options (-platform, -style…) pass through untouched.
    ns, _rest = p.parse_known_args(argv)
    return ns


GUI_STATE = "gui_state.json"  # in the data folder: window layout and preferences


def load_prefs(data: Path) -> dict:
    try:
        prefs = json.loads((data / GUI_STATE).read_text("utf-8")).get("prefs", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return prefs if isinstance(prefs, dict) else {}


def display_available() -> bool:
    """False only where a window certainly cannot open (Linux/BSD without X11/Wayland)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True  # the user chose a platform (offscreen, vnc, eglfs…): trust them
    if sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def setup_logging(data_dir: Path) -> Path:
    """Log to ``<data dir>/logs/desktop_rag.log`` (rotated), so a user can send it to us."""
    log_dir = data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"{APP_NAME}.log"
    handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    if not any(isinstance(h, RotatingFileHandler) and getattr(h, "baseFilename", "") == str(path)
               for h in root.handlers):
        root.addHandler(handler)
    return path


def install_excepthook(log_path: Path) -> None:
    """An unexpected exception in a slot is logged and shown, never a silent crash."""

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("unexpected error\n%s", text)
        try:
            from PySide6.QtWidgets import QApplication, QMessageBox

            if QApplication.instance() is not None:
                box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error",
                                  f"Something went wrong: {exc}\n\nThe details were written to\n{log_path}")
                box.setDetailedText(text)
                box.exec()
                return
        except Exception:
            pass
        sys.__excepthook__(exc_type, exc, tb)

    sys.excepthook = hook


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    if not display_available():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return 2

    from desktop_rag.paths import choose_data_dir, data_dir

    data = data_dir(choose_data_dir(ns.data_dir))
    log_path = setup_logging(data)
    install_excepthook(log_path)
    log.info("starting %s %s (data %s)", APP_NAME, __version__, data)

    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication, QMessageBox

    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    app.setApplicationName("Filings Research Assistant")
    app.setApplicationVersion(__version__)

    from desktop_rag.gui import style

    prefs = load_prefs(data)
    style.apply_style(app, prefs.get("theme", "light"), prefs.get("font_pt", style.DEFAULT_FONT_PT))
    app.setWindowIcon(style.app_icon())

    from desktop_rag.gui.main_window import MainWindow

    try:
        window = MainWindow(data, ns.models_dir, ingest_bundled_corpus=not ns.no_corpus)
    except Exception as exc:
        log.exception("cannot start")
        QMessageBox.critical(None, "Cannot start",
                             f"The app could not open its data:\n{exc}\n\nDetails are in {log_path}")
        return 1
    window.show()
    code = app.exec()
    window.shutdown()  # no-op when the window already closed cleanly
    log.info("exit %s", code)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
