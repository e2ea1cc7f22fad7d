"""Regenerate the README screenshots: the real window, a real filing library, a real answer.

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/make_screenshot.py DATA_DIR OUT.png \\
        [--size 1600x1000] [--question "..."]... [--reuse] [--details] [--style bullets]
    QT_SCALE_FACTOR=1.5 ... --size 1066x666 --reuse      # 1600x1000 pixels at 150 % scaling

DATA_DIR must already hold an ingested library (``python main.py --data-dir D ingest corpus/``).
Without ``--reuse`` the window asks QUESTION with the bundled model in a new conversation;
with it, the last conversation is reopened. ``--question`` given several times asks a thread
(follow-ups go through the conversation session: the searched question shows under each);
``--details`` opens the last answer's details (route, attempts, timings). Then the first
citation is clicked and the window grabbed (at the device pixel ratio, so a 1.5x run gives a
1.5x image).
"""

from __future__ import annotations

import argparse
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
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--size", default="1600x1000")
    ap.add_argument("--question", action="append", default=None,
                    help="a question to ask (repeat for a thread); default: Apple's total net sales in Q3 2023")
    ap.add_argument("--reuse", action="store_true", help="reopen the last conversation instead of asking")
    ap.add_argument("--citation", type=int, default=1, help="which citation to click (1-based)")
    ap.add_argument("--input", type=int, default=0,
                    help="click this input (1-based) of the answer's calculation card instead of a citation")
    ap.add_argument("--no-model", action="store_true", help="answer without loading the language model")
    ap.add_argument("--details", action="store_true", help="open the last answer's details")
    ap.add_argument("--style", default="", help="the conversation's answer style before the first question")
    ns = ap.parse_args()
    questions = ns.question or ["What was Apple's total net sales in Q3 2023?"]
    w, h = (int(x) for x in ns.size.lower().split("x"))
    app = QApplication([sys.argv[0]])
    from desktop_rag.gui import style
    from desktop_rag.gui.main_window import MainWindow

    style.apply_style(app)
    from desktop_rag.core.workspace import Workspace

    ws = Workspace(Path(ns.data), HERE.parent / "models")
    stale = ws.library.mismatch()
    ws.close()
    if stale:  # the window would ask (modally) to re-index first
        sys.exit(f"{ns.data}: re-index first (python main.py --data-dir {ns.data} reindex): {stale}")
    win = MainWindow(Path(ns.data), HERE.parent / "models", ingest_bundled_corpus=False, load_model=not (ns.reuse or ns.no_model))
    win.resize(w, h)
    win.show()
    assert wait(app, lambda: win._library_ready and not win.runner.busy, 600), "library/model did not load"
    if ns.reuse:
        convs = win.ws.history.conversations()
        assert convs, "no conversation to reopen"
        win.open_conversation(convs[0].conv_id)
        ex = win.chat.exchanges[-1]
    else:
        win.new_conversation()
        if ns.style:
            win.set_conversation_style(ns.style)
        for q in questions:
            ex = win.ask(q)
            assert ex is not None
            assert wait(app, lambda: ex.answer is not None and win.ask_job is None, 900), "no answer"
            print(f"{q!r} -> searched {ex.answer.standalone_query!r}: {ex.answer.answer!r}")
    if ns.details:
        ex.details_btn.setChecked(True)
    wait(app, lambda: False, 0.5)
    card = ex.calculation_card
    if ns.input and card is not None and len(card.chips) >= ns.input:
        card.chips[ns.input - 1].clicked.emit(card.chips[ns.input - 1].item)
    elif len(ex.chips) >= ns.citation:
        chip = ex.chips[ns.citation - 1]
        chip.clicked.emit(chip.citation)
    win.chat.scroll_to_bottom()
    wait(app, lambda: False, 1.5)
    win.grab().save(ns.out)
    answer = ex.answer.answer if ex.answer else ""
    print(f"wrote {ns.out} ({win.width()}x{win.height()} logical, dpr {win.devicePixelRatioF()}): {answer!r}")
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
