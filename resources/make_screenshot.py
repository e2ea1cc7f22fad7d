"""Regenerate the README screenshots: the real window, a real filing library, real answers.

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/make_screenshot.py DATA_DIR OUT.png \\
        [--size 1600x1000] [--question "..."]... [--reuse] [--input N] [--citation N] [--details]
        [--style bullets] [--font-pt 14] [--no-model]
    QT_SCALE_FACTOR=1.5 ... --size 1066x666 --reuse      # 1600x1000 pixels at 150 % scaling

DATA_DIR must already hold an ingested library (``python main.py --data-dir D ingest corpus/``).
Without ``--reuse`` the window asks the questions with the bundled model in a new conversation
(``--question`` given several times asks a thread: follow-ups go through the conversation
session, the searched question shows under each); with it, the last conversation is reopened
(no model: the same answers at every size). ``--details`` opens the last answer's details.
Then the viewer is opened: ``--input N`` clicks input N of the first computed answer's
calculation card (its statement page opens with the cell highlighted), else ``--citation N``
clicks the last answer's citation N. The chat is scrolled to its last answer and the window
grabbed (at the device pixel ratio, so a 1.5x run gives a 1.5x image).

The README's three (a statement page open beside a drivers answer, at three sizes)::

    Q1="What was Apple's gross margin in Q3 2023?"
    Q2="What drove Apple's Services net sales growth in Q3 2023?"
    make_screenshot.py D resources/screenshot.png --question "$Q1" --question "$Q2" --input 1
    make_screenshot.py D resources/screenshot-1024x700.png --size 1024x700 --reuse --input 1
    QT_SCALE_FACTOR=1.5 make_screenshot.py D resources/screenshot-150pct.png --size 1066x666 --reuse --input 1
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
    ap.add_argument("--citation", type=int, default=1, help="which citation of the last answer to click (1-based)")
    ap.add_argument("--input", type=int, default=0,
                    help="click this input (1-based) of the first computed answer's calculation card instead")
    ap.add_argument("--no-model", action="store_true", help="answer without loading the language model")
    ap.add_argument("--details", action="store_true", help="open the last answer's details")
    ap.add_argument("--style", default="", help="the conversation's answer style before the first question")
    ap.add_argument("--font-pt", type=float, default=0, help="the text size (Settings, Text size)")
    ns = ap.parse_args()
    questions = ns.question or ["What was Apple's total net sales in Q3 2023?"]
    w, h = (int(x) for x in ns.size.lower().split("x"))
    app = QApplication([sys.argv[0]])
    from desktop_rag.gui import style
    from desktop_rag.gui.main_window import MainWindow

    style.apply_style(app, "light", ns.font_pt or style.DEFAULT_FONT_PT)
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
            assert wait(app, lambda e=ex: e.answer is not None and win.ask_job is None, 900), "no answer"
            print(f"{q!r} -> searched {ex.answer.standalone_query!r}: {ex.answer.answer!r}")
    wait(app, lambda: not win.runner.busy, 60)  # printed page numbers of stored answers, suggestions
    if ns.details:
        ex.details_btn.setChecked(True)
    wait(app, lambda: False, 0.5)
    card = next((e.calculation_card for e in win.chat.exchanges if e.calculation_card is not None), None)
    if ns.input and card is not None and len(card.chips) >= ns.input:
        chip = card.chips[ns.input - 1]
        chip.clicked.emit(chip.item)
    elif len(ex.chips) >= ns.citation:
        cite = ex.chips[ns.citation - 1]
        cite.clicked.emit(cite.citation)
    wait(app, lambda: not win.runner.busy, 60)
    win.chat.scroll_to_bottom()
    wait(app, lambda: False, 1.5)
    win.grab().save(ns.out)
    answer = ex.answer.answer if ex.answer else ""
    print(f"wrote {ns.out} ({win.width()}x{win.height()} logical, dpr {win.devicePixelRatioF()}): {answer!r}")
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
