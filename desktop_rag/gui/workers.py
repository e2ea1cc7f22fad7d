"""THE threading module of the GUI. Nothing else in ``desktop_rag.gui`` starts a thread.

A ``Job`` runs a plain core function on a ``QThreadPool`` thread. The function receives a
``threading.Event`` for cancellation and may return a value or a generator; every item a
generator yields is forwarded to the main thread as ``progress`` and its return value as
``result``. Signals cross threads as queued connections, so slots (and every widget they
touch) run on the main thread.

``JobRunner`` owns the pool and runs jobs in *lanes*. Jobs of one lane run one at a time,
first in first out; jobs of different lanes run side by side:

- ``INDEX``: everything that writes the library (open, ingest, remove, metadata, re-index);
- ``MODEL``: everything that uses llama.cpp (model load and inspection, answering), which
  must not load or run two models from two threads.

So a question is answered while a filing is being added: the answer job reads the library
under ``Library.views_lock`` (an ingest swaps its in-memory views only under that lock,
once per committed document) and the embedder serialises its own calls. A job may hold
several lanes (a re-index changes the embedder: nothing may search meanwhile).
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections import deque
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)

JobFn = Callable[[threading.Event], Any]

INDEX = "index"
MODEL = "model"
ALL_LANES = (INDEX, MODEL)


class JobSignals(QObject):
    started = Signal()
    progress = Signal(object)  # one yielded item
    result = Signal(object)  # the return value (generator: its StopIteration value)
    error = Signal(str, str)  # user-facing message, traceback
    finished = Signal()  # always last, after result or error


def describe_error(exc: BaseException) -> str:
    """A sentence for a dialog. Core errors already carry readable messages."""
    text = str(exc).strip()
    # (ConnectionError: a team library's server is unreachable; PermissionError: a reader)
    if isinstance(exc, FileNotFoundError | PermissionError | ConnectionError | RuntimeError | ValueError) and text:
        return text
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


class Job(QRunnable):
    """One unit of background work. ``cancel`` is set by ``JobRunner.cancel``."""

    def __init__(self, fn: JobFn, name: str, lanes: tuple[str, ...]) -> None:
        super().__init__()
        # The runner keeps the Python object alive until ``finished`` has been delivered;
        # Qt must not delete the C++ side under it.
        self.setAutoDelete(False)
        self.fn = fn
        self.name = name
        self.lanes = lanes
        self.cancel = threading.Event()
        self.signals = JobSignals()
        self.started = False
        self.done = False

    def run(self) -> None:  # worker thread: never touch widgets here
        self.signals.started.emit()
        try:
            out = self.fn(self.cancel)
            if isinstance(out, Generator):
                while True:
                    try:
                        item = next(out)
                    except StopIteration as stop:
                        out = stop.value
                        break
                    self.signals.progress.emit(item)
            self.signals.result.emit(out)
        except Exception as exc:
            log.exception("background job '%s' failed", self.name)
            self.signals.error.emit(describe_error(exc), traceback.format_exc())
        finally:
            self.signals.finished.emit()


class JobRunner(QObject):
    """Starts jobs, serialises the jobs of each lane, cancels and drains them on shutdown."""

    busy_changed = Signal(bool)
    job_failed = Signal(str, str, str)  # job name, message, traceback (when the job has no on_error)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(4)
        self._jobs: list[Job] = []  # submitted and not finished (started or queued)
        self._waiting: deque[Job] = deque()  # submitted, not started, in submission order
        self._running: dict[str, Job] = {}  # lane -> the job holding it
        self._closing = False

    # -- submitting -------------------------------------------------------------------
    def submit(
        self,
        fn: JobFn,
        name: str,
        *,
        uses_model: bool = True,
        lane: str | tuple[str, ...] | None = None,
        on_progress: Callable[[Any], None] | None = None,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[str, str], None] | None = None,
        on_finished: Callable[[], None] | None = None,
        on_started: Callable[[], None] | None = None,
    ) -> Job:
        if lane is None:
            lanes: tuple[str, ...] = (INDEX,) if uses_model else ()
        else:
            lanes = (lane,) if isinstance(lane, str) else tuple(lane)
        job = Job(fn, name, lanes)
        sig = job.signals
        if on_started:
            sig.started.connect(on_started)
        if on_progress:
            sig.progress.connect(on_progress)
        if on_result:
            sig.result.connect(on_result)
        if on_error:
            sig.error.connect(on_error)
        else:
            sig.error.connect(lambda msg, tb, n=name: self.job_failed.emit(n, msg, tb))
        sig.finished.connect(lambda j=job: self._finished(j))
        if on_finished:
            sig.finished.connect(on_finished)
        if self._closing:
            job.done = True
            return job  # never started, never reports: the window is going away
        was_busy = self.busy
        self._jobs.append(job)
        if lanes:
            self._waiting.append(job)
            self._start_waiting()
        else:
            self._start(job)
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    def _start(self, job: Job) -> None:
        job.started = True
        self.pool.start(job)

    def _start_waiting(self) -> None:
        """Start every waiting job whose lanes are free, keeping FIFO order per lane: a job
        never overtakes an earlier waiting job that wants one of its lanes."""
        claimed: set[str] = set(self._running)
        for job in list(self._waiting):
            if not claimed.intersection(job.lanes):
                self._waiting.remove(job)
                for lane in job.lanes:
                    self._running[lane] = job
                self._start(job)
            claimed.update(job.lanes)

    def _finished(self, job: Job) -> None:
        job.done = True
        if job in self._jobs:
            self._jobs.remove(job)
        for lane in [lane for lane, j in self._running.items() if j is job]:
            del self._running[lane]
        if not self._closing:  # freed lanes, or a dropped waiting job that others queued behind
            self._start_waiting()
        if not self.busy:
            self.busy_changed.emit(False)

    # -- state and cancellation ----------------------------------------------------------
    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def lane_busy(self, lane: str) -> bool:
        return lane in self._running or any(lane in j.lanes for j in self._waiting)

    @property
    def model_busy(self) -> bool:
        """Any lane busy (settings changes wait for this)."""
        return bool(self._running) or bool(self._waiting)

    def jobs(self) -> list[Job]:
        return list(self._jobs)

    def cancel(self, job: Job) -> None:
        """Ask a running job to stop; a queued one is dropped and reports ``finished`` only."""
        job.cancel.set()
        if job in self._waiting:
            self._waiting.remove(job)
            job.signals.finished.emit()  # main thread: delivered directly

    def cancel_all(self) -> None:
        for job in list(self._jobs):
            self.cancel(job)

    def begin_shutdown(self) -> None:
        """Cancel everything and refuse new jobs (callbacks of cancelled jobs may try)."""
        self._closing = True
        self.cancel_all()

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Cancel everything and wait for running jobs (blocking). True when all stopped."""
        self._closing = True
        self.cancel_all()
        return self.pool.waitForDone(timeout_ms)
