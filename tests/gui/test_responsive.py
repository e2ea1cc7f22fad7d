"""Issue #31, point 1: the window never freezes while a large filing is added. A 10-Q of 80
pages is dropped on a library and a question is typed meanwhile; the event loop's longest
stall is measured the whole time and must stay within 100 ms. The log file records the add,
the answer (question, badge, times; never the answer's text) and the removal."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from .conftest import CORPUS_FILING, REPO, wait_idle

pytestmark = pytest.mark.gui

LARGE_FILING = REPO.parent / "shared" / "data" / "sec10q" / "pdfs" / "2022 Q3 MSFT.pdf"  # 80 pages
MAX_STALL_S = 0.100


def _runqueue_wait_s() -> float | None:
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
    interpreter lock a background thread holds."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.longest = 0.0
        self.longest_raw = 0.0
        self.ticks = 0
        self._last = 0.0
        self._last_wait: float | None = None

    def start(self) -> None:
        self._last, self._last_wait = time.perf_counter(), _runqueue_wait_s()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now, wait = time.perf_counter(), _runqueue_wait_s()
        gap = now - self._last
        waited = (wait - self._last_wait) if wait is not None and self._last_wait is not None else 0.0
        self.longest_raw = max(self.longest_raw, gap)
        self.longest = max(self.longest, gap - waited)
        self._last, self._last_wait = now, wait
        self.ticks += 1


def test_the_window_never_stalls_while_a_large_filing_is_added(qtbot, fake_window, tmp_path: Path, caplog,  # type: ignore[no-untyped-def]
                                                              monkeypatch) -> None:
    caplog.set_level(logging.INFO, logger="desktop_rag")
    win = fake_window()
    wait_idle(qtbot, win)
    assert not win.ws.library.pdf_reader.in_process, "the window reads PDFs in a helper process"
    src = LARGE_FILING if LARGE_FILING.is_file() else CORPUS_FILING
    dst = tmp_path / "incoming" / src.name
    dst.parent.mkdir()
    shutil.copy2(src, dst)

    meter = StallMeter()
    meter.start()
    job = win.add_paths([dst])
    assert job is not None
    qtbot.waitUntil(lambda: job.started, timeout=10_000)
    # a question typed while the filing is read: on screen at once, answered from the library
    ex = win.ask("What were Apple's total net sales in Q3 2023?")
    assert ex is not None and win.chat.exchanges[-1] is ex
    wait_idle(qtbot, win, timeout=180_000)
    meter.stop()

    assert ex.answer is not None and not ex.answer.not_in_corpus
    assert src.name in [d.file_name for d in win.docs]
    assert meter.ticks > 100
    assert meter.longest <= MAX_STALL_S, (
        f"the event loop stalled {meter.longest * 1000:.0f} ms (raw gap {meter.longest_raw * 1000:.0f} ms)")

    # the log: the add, the answer with its badge and times, never the answer's text
    added = [r.getMessage() for r in caplog.records if r.getMessage().startswith("added: ")]
    assert added and src.name in added[0] and "pages" in added[0]
    [answered] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("answered: ")]
    assert "What were Apple's total net sales in Q3 2023?" in answered and " ms" in answered
    assert any(b in answered for b in ("Computed", "Verified", "Extractive"))
    assert not any(ex.answer.answer in r.getMessage() for r in caplog.records)

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    doc = next(d for d in win.docs if d.file_name == src.name)
    win.remove_documents([doc.doc_id])
    wait_idle(qtbot, win)
    assert any(r.getMessage().startswith(f"removed: {src.name}") for r in caplog.records)
