"""How long the window's event loop stalls while a large filing is added and a question is asked.

``main.py bench`` runs this in a child process (``python -m desktop_rag.gui.stall_probe``, with
``QT_QPA_PLATFORM=offscreen``) and reads the one JSON line it prints last; the window's row of
the bench is judged there. Run by hand the same way; it writes only to a temporary home (or
``--home``), never to the user's data folder.

What it does: a fresh home with the bundled ``2023 Q3 AAPL.pdf`` ingested (unless that is the
filing added), the real window over it, as shipped (the embedder and, when the models folder
has one, the GGUF loaded first). Once the window is idle a ``StallMeter`` starts, the filing is
added (read in the window's helper processes) and, as soon as that job has started, a question
about Apple is asked; the meter stops when both are done.

``StallMeter`` is also used by tests/gui/test_responsive.py (which checks the behaviour, not the
time): its one home is here, beside the probe, because the measurement package may not import
the GUI nor the GUI the measurement package (pyproject.toml's import contracts).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

LARGE_FILING = "2022 Q3 MSFT.pdf"  # an 80-page 10-Q in <shared>/data/sec10q/pdfs
CORPUS_FILING = "2023 Q3 AAPL.pdf"  # bundled (corpus/): the seed library, or the filing added without the shared data
QUESTION = "What were Apple's total net sales in Q3 2023?"
TICK_MS = 5


def filing_to_add(shared: Path, corpus: Path) -> Path:
    """The 80-page sec10q ``2022 Q3 MSFT.pdf`` under ``shared`` when present, else the bundled
    corpus filing (what the window test adds too)."""
    large = shared / "data" / "sec10q" / "pdfs" / LARGE_FILING
    return large if large.is_file() else corpus / CORPUS_FILING


def runqueue_wait_s() -> float | None:
    """Time this thread has spent runnable but not running (Linux), in seconds."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class StallMeter:
    """Ticks every 5 ms on the event loop and keeps the longest gap between two ticks. Time the
    window's thread spent waiting for a CPU (the machine is shared: other processes, the PDF
    reader's helper process) is the system's, not the window's: it is taken off each gap where
    the kernel reports it, so what remains is the window waiting for itself or for the
    interpreter lock a background thread holds. ``longest_raw`` keeps the gap as measured."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.longest = 0.0
        self.longest_raw = 0.0
        self.longest_at = 0.0  # seconds after start() when the longest (CPU wait taken off) gap ended
        self.ticks = 0
        self.waits_known = True  # False when the kernel did not report the run-queue wait
        self.started = 0.0  # perf_counter at start()
        self._last = 0.0
        self._last_wait: float | None = None

    def start(self) -> None:
        self._last, self._last_wait = time.perf_counter(), runqueue_wait_s()
        self.started = self._last
        self.waits_known = self._last_wait is not None
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    @property
    def seconds(self) -> float:
        return self._last - self.started

    def _tick(self) -> None:
        now, wait = time.perf_counter(), runqueue_wait_s()
        gap = now - self._last
        waited = (wait - self._last_wait) if wait is not None and self._last_wait is not None else 0.0
        self.waits_known = self.waits_known and wait is not None
        self.longest_raw = max(self.longest_raw, gap)
        if gap - waited > self.longest:
            self.longest, self.longest_at = gap - waited, now - self.started
        self._last, self._last_wait = now, wait
        self.ticks += 1


class _LogTimes(logging.Handler):
    """When the window logged its first line starting with each prefix (seconds on the
    ``perf_counter`` clock): when the filing was searchable, added, and the answer shown."""

    PREFIXES = ("searchable: ", "added: ", "answered: ")

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        for p in self.PREFIXES:
            if msg.startswith(p):
                self.at.setdefault(p.rstrip(": "), time.perf_counter())


def _wait_until(pred: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Run the event loop until ``pred()`` (checked every 10 ms), as a user's idle window would."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        loop = QEventLoop()
        QTimer.singleShot(10, loop.quit)
        loop.exec()


def measure(home: Path, filing: Path, corpus: Path, models_dir: Path | None, load_model: bool = True,
            timeout_s: float = 900.0) -> dict[str, Any]:
    """Seed ``home``, open the window over it, add ``filing`` while asking ``QUESTION``; the
    meter's figures and what happened, as the JSON line's fields."""
    from PySide6.QtWidgets import QApplication

    from desktop_rag.core.index.library import IngestReport
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.gui import style
    from desktop_rag.gui.chat_pane import answer_badges
    from desktop_rag.gui.main_window import MainWindow

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    style.apply_style(app)

    ws = Workspace(home, models_dir)
    seed = [corpus / CORPUS_FILING] if (corpus / CORPUS_FILING).is_file() and filing.name != CORPUS_FILING else []
    t0 = time.perf_counter()
    report = IngestReport()
    for _ in ws.library.ingest(seed, report=report):
        pass
    seed_s = time.perf_counter() - t0
    win = MainWindow(workspace=ws, ingest_bundled_corpus=False, load_model=load_model)
    times = _LogTimes()
    logging.getLogger("desktop_rag").setLevel(logging.INFO)  # as the app logs (gui/app.py)
    logging.getLogger("desktop_rag").addHandler(times)
    try:
        win.resize(1400, 860)
        win.show()
        _wait_until(lambda: win._library_ready and not win.runner.busy, timeout_s, "the window to be idle")
        dst = home / "incoming" / filing.name  # a copy: the filing's own folder is never written
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(filing, dst)

        meter = StallMeter()
        meter.start()
        t_add = time.perf_counter()
        job = win.add_paths([dst])
        add_call_s = time.perf_counter() - t_add
        if job is None:
            raise RuntimeError(f"the window did not start adding {filing.name}: {win.errors}")
        _wait_until(lambda: job.started, 60, "the add to start")
        t_ask = time.perf_counter()
        ex = win.ask(QUESTION)
        ask_call_s = time.perf_counter() - t_ask
        if ex is None:
            raise RuntimeError("the window did not take the question")
        _wait_until(lambda: not win.runner.busy, timeout_s, "the add and the answer")
        meter.stop()

        doc = next((d for d in win.docs if d.file_name == filing.name), None)
        answer = ex.answer

        def since(key: str) -> float | None:
            return round(times.at[key] - meter.started, 2) if key in times.at else None

        return {
            "longest_ms": round(meter.longest * 1000, 1),
            "longest_raw_ms": round(meter.longest_raw * 1000, 1),
            "longest_at_s": round(meter.longest_at, 2),
            "runqueue_wait_subtracted": meter.waits_known,
            "ticks": meter.ticks,
            "seconds": round(meter.seconds, 2),
            "filing": filing.name,
            "pages": doc.pages if doc else None,
            "added": doc is not None,
            "pdf_read_in_helper_process": not win.ws.library.pdf_reader.in_process,
            # the two calls the window's thread makes itself (the rest runs in the window's jobs)
            "add_call_ms": round(add_call_s * 1000, 1),
            "asked_at_s": round(t_ask - meter.started, 2),
            "ask_call_ms": round(ask_call_s * 1000, 1),
            "searchable_at_s": since("searchable"),
            "added_at_s": since("added"),
            "answered_at_s": since("answered"),
            "answered": answer is not None and not answer.not_in_corpus,
            "badges": answer_badges(answer) if answer is not None else [],
            "model": win.model_name,
            "seed": [p.name for p in seed],
            "seed_s": round(seed_s, 1),
            "errors": list(win.errors),
        }
    finally:
        logging.getLogger("desktop_rag").removeHandler(times)
        win.shutdown()
        win.deleteLater()


def main(argv: list[str] | None = None) -> int:
    from desktop_rag.paths import app_root, corpus_dir, set_offline_env

    p = argparse.ArgumentParser(prog="python -m desktop_rag.gui.stall_probe", description=__doc__.split("\n\n")[0])
    p.add_argument("--home", default=None, help="data folder of the run (default: a new temporary folder, removed)")
    p.add_argument("--filing", default=None, help="PDF to add (default: <shared>/data/sec10q/pdfs/2022 Q3 MSFT.pdf, "
                                                  "else the bundled corpus filing)")
    p.add_argument("--shared", default=None, help="shared data root (default ../shared beside the checkout)")
    p.add_argument("--models-dir", default=None, help="models folder (default: the app's)")
    p.add_argument("--no-model", action="store_true", help="do not load the GGUF (answers are extractive)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for each step")
    ns = p.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before PySide6 is imported
    set_offline_env()
    corpus = corpus_dir()
    filing = Path(ns.filing) if ns.filing else filing_to_add(Path(ns.shared) if ns.shared else app_root().parent / "shared",
                                                              corpus)
    if not filing.is_file():
        print(json.dumps({"error": f"no filing to add: {filing}"}), flush=True)
        return 1
    home = Path(ns.home) if ns.home else Path(tempfile.mkdtemp(prefix="desktop_rag_stall_"))
    try:
        out = measure(home, filing, corpus, Path(ns.models_dir) if ns.models_dir else None,
                      load_model=not ns.no_model, timeout_s=ns.timeout)
    finally:
        if not ns.home:
            shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
