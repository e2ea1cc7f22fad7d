"""THE threading module of the GUI. Nothing else in ``desktop_rag.gui`` starts a thread.

Every piece of background work goes through one helper, ``op`` (after Anki's ``QueryOp``)::

    op(self.runner, "remove", work, lane=INDEX).success(self._set_docs).failure(show).run()

``work`` is a plain core callable taking a ``threading.Event`` (the job's cancel flag). It
returns a value or a generator; every item a generator yields is delivered as progress and its
return value as success. What the job reports is a ``JobEvent`` of a typed kind
(``JobEventKind``): ``STARTED``, then any ``PROGRESS``, then exactly one of ``SUCCESS``,
``FAILURE`` or ``CANCELLED``. The events cross threads as queued signals, so every hook (and
every widget it touches) runs on the main thread; the work itself must never touch a widget.

Cancellation (``Cancel``), as superqt's generator worker does it: by default the helper checks
the cancel flag between yields and closes the generator (its ``finally`` blocks run), reporting
``CANCELLED``. Work that stops better on its own (an ingest finishes the document's transaction
and returns its report; an answer returns what it has, marked stopped) is ``COOPERATIVE``: it
watches the flag itself and its return value is its success. ``NEVER``: once started the work
runs to its end (a half-done re-index mixes embedders). A job still waiting for its lane is
dropped on cancel whatever its policy, reporting ``CANCELLED``.

``JobRunner`` owns the pool and runs jobs in *lanes*. Jobs of one lane run one at a time,
first in first out; jobs of different lanes run side by side:

- ``INDEX``: everything that writes the library (open, ingest, remove, metadata, re-index);
- ``MODEL``: everything that uses llama.cpp (model load and inspection, answering), which
  must not load or run two models from two threads;
- ``READ``: short reads the window needs while the others are busy (a page's text for a
  highlight, the page numbers a filing prints, the library's suggested questions): they must
  never wait behind an ingest, and never run on the window's thread (the library's store
  serialises its calls, and a commit holds it for seconds).

So a question is answered while a filing is being added: the answer job reads the library
under ``Library.views_lock`` (an ingest swaps its in-memory views only under that lock,
once per committed document) and the embedder serialises its own calls. A job may hold
several lanes (a re-index changes the embedder: nothing may search meanwhile).
"""

from __future__ import annotations

import enum
import logging
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)

Work = Callable[[threading.Event], Any]  # returns a value, or a generator (yields progress, returns the value)

INDEX = "index"
MODEL = "model"
READ = "read"
ALL_LANES = (INDEX, MODEL, READ)


class JobEventKind(enum.Enum):
    STARTED = "started"
    PROGRESS = "progress"  # value: one yielded item
    SUCCESS = "success"  # value: the return value (a generator's: its StopIteration value)
    FAILURE = "failure"  # message: a sentence for the user; details: the traceback
    CANCELLED = "cancelled"  # stopped between yields, or dropped before it started


OUTCOMES = frozenset({JobEventKind.SUCCESS, JobEventKind.FAILURE, JobEventKind.CANCELLED})


@dataclass(frozen=True)
class JobEvent:
    kind: JobEventKind
    value: Any = None
    message: str = ""
    details: str = ""


class Cancel(enum.Enum):
    """What cancelling a started job does (a job still waiting for its lane is always dropped)."""

    BETWEEN_YIELDS = "between yields"  # the helper closes the generator before its next item
    COOPERATIVE = "cooperative"  # the work watches the flag and returns what it has: that is its success
    NEVER = "never"  # the work runs to its end; it gets a flag that is never set


class JobSignals(QObject):
    reported = Signal(object)  # JobEvent (not "event": that is QObject.event, which Qt calls)


def describe_error(exc: BaseException) -> str:
    """A sentence for a dialog. Core errors already carry readable messages."""
    text = str(exc).strip()
    # (ConnectionError: a team library's server is unreachable; PermissionError: a reader)
    if isinstance(exc, FileNotFoundError | PermissionError | ConnectionError | RuntimeError | ValueError) and text:
        return text
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


@dataclass
class Hooks:
    """What the main thread does with a job's events (each optional)."""

    started: Callable[[], None] | None = None
    progress: Callable[[Any], None] | None = None
    success: Callable[[Any], None] | None = None
    failure: Callable[[str, str], None] | None = None  # message, traceback
    cancelled: Callable[[], None] | None = None
    always: list[Callable[[], None]] = field(default_factory=list)  # after the outcome, whatever it was


class _Stopped(Exception):
    """The cancel flag was seen between two yields."""


class Job(QRunnable):
    """One unit of background work, made by ``op(...).run()``. ``cancel`` is set by ``JobRunner.cancel``."""

    def __init__(self, work: Work, name: str, lanes: tuple[str, ...], policy: Cancel, hooks: Hooks) -> None:
        super().__init__()
        # The runner keeps the Python object alive until the outcome has been delivered;
        # Qt must not delete the C++ side under it.
        self.setAutoDelete(False)
        self.work = work
        self.name = name
        self.lanes = lanes
        self.policy = policy
        self.hooks = hooks
        self.cancel = threading.Event()
        self.signals = JobSignals()  # made here, on the main thread: its events are delivered there
        self.started = False
        self.done = False

    def _emit(self, kind: JobEventKind, value: Any = None, message: str = "", details: str = "") -> None:
        self.signals.reported.emit(JobEvent(kind, value, message, details))

    def run(self) -> None:  # worker thread: never touch widgets here
        self._emit(JobEventKind.STARTED)
        try:
            out = self.work(threading.Event() if self.policy is Cancel.NEVER else self.cancel)
            if isinstance(out, Generator):
                out = self._drain(out)
        except _Stopped:
            self._emit(JobEventKind.CANCELLED)
        except Exception as exc:
            log.exception("background job '%s' failed", self.name)
            self._emit(JobEventKind.FAILURE, message=describe_error(exc), details=traceback.format_exc())
        else:
            self._emit(JobEventKind.SUCCESS, out)

    def _drain(self, gen: Generator[Any, Any, Any]) -> Any:
        """Forward every item; with ``BETWEEN_YIELDS``, stop at the first gap after a cancel."""
        while True:
            if self.policy is Cancel.BETWEEN_YIELDS and self.cancel.is_set():
                gen.close()
                raise _Stopped
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value
            self._emit(JobEventKind.PROGRESS, item)


class Op:
    """A background operation being described; ``run()`` starts it. Made by ``op()``."""

    def __init__(self, runner: JobRunner, name: str, work: Work, lanes: tuple[str, ...], policy: Cancel) -> None:
        self.runner = runner
        self.name = name
        self.work = work
        self.lanes = lanes
        self.policy = policy
        self.hooks = Hooks()

    def started(self, fn: Callable[[], None]) -> Op:
        self.hooks.started = fn
        return self

    def progress(self, fn: Callable[[Any], None]) -> Op:
        self.hooks.progress = fn
        return self

    def success(self, fn: Callable[[Any], None]) -> Op:
        self.hooks.success = fn
        return self

    def failure(self, fn: Callable[[str, str], None]) -> Op:
        """Without one, a failure is reported by the runner's ``job_failed`` (the window's dialog)."""
        self.hooks.failure = fn
        return self

    def cancelled(self, fn: Callable[[], None]) -> Op:
        self.hooks.cancelled = fn
        return self

    def always(self, fn: Callable[[], None]) -> Op:
        """After the outcome, whichever it was (and after the runner has freed the job's lanes)."""
        self.hooks.always.append(fn)
        return self

    def run(self) -> Job:
        return self.runner.enqueue(Job(self.work, self.name, self.lanes, self.policy, self.hooks))


def op(runner: JobRunner, name: str, work: Work, *, lane: str | tuple[str, ...],
       cancel: Cancel = Cancel.BETWEEN_YIELDS) -> Op:
    """The one way the GUI runs work in the background (see the module docstring)."""
    lanes = (lane,) if isinstance(lane, str) else tuple(lane)
    if not lanes:
        raise ValueError("a background operation holds at least one lane")
    return Op(runner, name, work, lanes, cancel)


class JobRunner(QObject):
    """Starts jobs, serialises the jobs of each lane, delivers their events, cancels and drains
    them on shutdown."""

    busy_changed = Signal(bool)
    job_failed = Signal(str, str, str)  # job name, message, traceback (when the job has no failure hook)

    # How long a background thread may keep the interpreter while the window's thread waits
    # for it (Python's default is 5 ms). The window's thread needs it many times to handle one
    # event (every Python slot, paint and size hint), so with two jobs running a default
    # interval added up to stalls of 100 ms and more; 1 ms keeps them short.
    SWITCH_INTERVAL_S = 0.001

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if sys.getswitchinterval() > self.SWITCH_INTERVAL_S:
            sys.setswitchinterval(self.SWITCH_INTERVAL_S)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(4)
        self._jobs: list[Job] = []  # enqueued and not finished (started or waiting)
        self._waiting: deque[Job] = deque()  # enqueued, not started, in order
        self._running: dict[str, Job] = {}  # lane -> the job holding it
        self._closing = False

    # -- enqueueing (through ``op``) -------------------------------------------------------------
    def enqueue(self, job: Job) -> Job:
        job.signals.reported.connect(lambda ev, j=job: self._deliver(j, ev))
        if self._closing:
            job.done = True
            return job  # never started, never reports: the window is going away
        was_busy = self.busy
        self._jobs.append(job)
        self._waiting.append(job)
        self._start_waiting()
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    def _start_waiting(self) -> None:
        """Start every waiting job whose lanes are free, keeping FIFO order per lane: a job
        never overtakes an earlier waiting job that wants one of its lanes."""
        claimed: set[str] = set(self._running)
        for job in list(self._waiting):
            if not claimed.intersection(job.lanes):
                self._waiting.remove(job)
                for lane in job.lanes:
                    self._running[lane] = job
                job.started = True
                self.pool.start(job)
            claimed.update(job.lanes)

    # -- delivering (main thread) ----------------------------------------------------------------
    def _deliver(self, job: Job, ev: JobEvent) -> None:
        hooks = job.hooks
        if ev.kind is JobEventKind.STARTED:
            if hooks.started:
                hooks.started()
            return
        if ev.kind is JobEventKind.PROGRESS:
            if hooks.progress:
                hooks.progress(ev.value)
            return
        try:
            if ev.kind is JobEventKind.SUCCESS and hooks.success:
                hooks.success(ev.value)
            elif ev.kind is JobEventKind.FAILURE:
                if hooks.failure:
                    hooks.failure(ev.message, ev.details)
                else:
                    self.job_failed.emit(job.name, ev.message, ev.details)
            elif ev.kind is JobEventKind.CANCELLED and hooks.cancelled:
                hooks.cancelled()
        finally:  # a hook that raises must not leave the lanes held
            self._finished(job)
            for fn in hooks.always:
                fn()

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
        """Ask a running job to stop (as its ``Cancel`` policy says); a waiting one is dropped."""
        job.cancel.set()
        if job in self._waiting:
            self._waiting.remove(job)
            job.signals.reported.emit(JobEvent(JobEventKind.CANCELLED))  # main thread: delivered directly

    def cancel_all(self) -> None:
        for job in list(self._jobs):
            self.cancel(job)

    def begin_shutdown(self) -> None:
        """Cancel everything and refuse new jobs (hooks of cancelled jobs may try)."""
        self._closing = True
        self.cancel_all()

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Cancel everything and wait for running jobs (blocking). True when all stopped."""
        self._closing = True
        self.cancel_all()
        return self.pool.waitForDone(timeout_ms)
