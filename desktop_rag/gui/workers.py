"""THE threading module of the GUI. Nothing else in ``desktop_rag.gui`` starts a thread.

A ``Job`` runs a plain core function on a ``QThreadPool`` thread. The function receives a
``threading.Event`` for cancellation and may return a value or a generator; every item a
generator yields is forwarded to the main thread as ``progress`` and its return value as
``result``. Signals cross threads as queued connections, so slots (and every widget they
touch) run on the main thread.

``JobRunner`` owns the pool and a FIFO "model queue": jobs that use the embedder or the
language model (ingest, answer, model load, re-index, metadata edits) run one at a time,
because neither llama.cpp nor the library's in-memory views are safe to use concurrently.
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


class JobSignals(QObject):
    started = Signal()
    progress = Signal(object)  # one yielded item
    result = Signal(object)  # the return value (generator: its StopIteration value)
    error = Signal(str, str)  # user-facing message, traceback
    finished = Signal()  # always last, after result or error


def describe_error(exc: BaseException) -> str:
    """A sentence for a dialog. Core errors already carry readable messages."""
    text = str(exc).strip()
    if isinstance(exc, FileNotFoundError | PermissionError | RuntimeError | ValueError) and text:
        return text
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


class Job(QRunnable):
    """One unit of background work. ``cancel`` is set by ``JobRunner.cancel``."""

    def __init__(self, fn: JobFn, name: str, uses_model: bool) -> None:
        super().__init__()
        # The runner keeps the Python object alive until ``finished`` has been delivered;
        # Qt must not delete the C++ side under it.
        self.setAutoDelete(False)
        self.fn = fn
        self.name = name
        self.uses_model = uses_model
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
    """Starts jobs, serialises model jobs, cancels and drains them on shutdown."""

    busy_changed = Signal(bool)
    job_failed = Signal(str, str, str)  # job name, message, traceback (when the job has no on_error)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(3)
        self._jobs: list[Job] = []  # submitted and not finished (started or queued)
        self._model_queue: deque[Job] = deque()
        self._model_job: Job | None = None
        self._closing = False

    # -- submitting -------------------------------------------------------------------
    def submit(
        self,
        fn: JobFn,
        name: str,
        *,
        uses_model: bool = True,
        on_progress: Callable[[Any], None] | None = None,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[str, str], None] | None = None,
        on_finished: Callable[[], None] | None = None,
        on_started: Callable[[], None] | None = None,
    ) -> Job:
        job = Job(fn, name, uses_model)
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
        if uses_model:
            self._model_queue.append(job)
            self._start_next_model_job()
        else:
            self._start(job)
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    def _start(self, job: Job) -> None:
        job.started = True
        self.pool.start(job)

    def _start_next_model_job(self) -> None:
        if self._model_job is None and self._model_queue:
            self._model_job = self._model_queue.popleft()
            self._start(self._model_job)

    def _finished(self, job: Job) -> None:
        job.done = True
        if job in self._jobs:
            self._jobs.remove(job)
        if self._model_job is job:
            self._model_job = None
            if not self._closing:
                self._start_next_model_job()
        if not self.busy:
            self.busy_changed.emit(False)

    # -- state and cancellation ----------------------------------------------------------
    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    @property
    def model_busy(self) -> bool:
        return self._model_job is not None or bool(self._model_queue)

    def jobs(self) -> list[Job]:
        return list(self._jobs)

    def cancel(self, job: Job) -> None:
        """Ask a running job to stop; a queued one is dropped and reports ``finished`` only."""
        job.cancel.set()
        if job in self._model_queue:
            self._model_queue.remove(job)
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
