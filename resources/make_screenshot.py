"""Regenerate resources/screenshot.png: the real window, a real filing library, a real answer.

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/make_screenshot.py DATA_DIR [QUESTION]

DATA_DIR must already hold an ingested library (e.g. ``python main.py --data-dir D ingest corpus/``).
The window asks QUESTION with the bundled model, clicks the first citation and saves a grab.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout


def wait(app: QApplication, cond, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        app.processEvents()
        if cond():
            return True
        time.sleep(0.02)
    return False


def main() -> int:
    data = Path(sys.argv[1])
    question = sys.argv[2] if len(sys.argv) > 2 else "What was Apple's total net sales in Q3 2023?"
    app = QApplication([])
    from desktop_rag.gui import style
    from desktop_rag.gui.main_window import MainWindow

    style.apply_style(app)
    win = MainWindow(data, HERE.parent / "models", ingest_bundled_corpus=False)
    win.resize(1400, 860)
    win.splitter.setSizes([330, 540, 530])
    win.show()
    assert wait(app, lambda: not win.runner.busy and win.model_name, 300), "model did not load"
    win.new_conversation()
    ex = win.ask(question)
    assert ex is not None
    assert wait(app, lambda: ex.answer is not None, 600), "no answer"
    if ex.chips:
        ex.chips[0].clicked.emit(ex.chips[0].citation)
    wait(app, lambda: False, 1.0)
    out = Path(sys.argv[3]) if len(sys.argv) > 3 else HERE / "screenshot.png"
    win.grab().save(str(out))
    print(f"wrote {out}: {ex.answer.answer!r}")
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
