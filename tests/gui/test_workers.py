"""The one background-operation helper (``workers.op``): success, failure, progress and
cancellation hooks on the main thread, cancellation between yields, lanes, shutdown.

No sleeps: background steps wait on events the test (or a hook on the main thread) sets.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from desktop_rag.gui.workers import ALL_LANES, INDEX, MODEL, Cancel, JobEvent, JobEventKind, JobRunner, op

pytestmark = pytest.mark.gui

WAIT_MS = 5000


def test_generator_progress_then_success_all_on_the_main_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    seen: list[object] = []
    threads: set[int] = set()
    work_threads: set[int] = set()

    def work(cancel: threading.Event) -> Iterator[int]:
        work_threads.add(threading.get_ident())
        yield from range(5)
        return 42

    def on(name: str):  # type: ignore[no-untyped-def]
        def hook(*args: object) -> None:
            threads.add(threading.get_ident())
            seen.append((name, *args))
        return hook

    job = (op(runner, "count", work, lane=INDEX).started(on("started")).progress(on("progress"))
           .success(on("success")).always(on("always")).run())
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert seen == [("started",), *[("progress", i) for i in range(5)], ("success", 42), ("always",)]
    assert threads == {threading.get_ident()}, "hooks must run on the main thread"
    assert work_threads and threading.get_ident() not in work_threads, "the work must run off the main thread"
    assert not runner.busy


def test_the_job_reports_typed_events_in_order(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    release = threading.Event()
    events: list[JobEvent] = []
    op(runner, "holds the lane", lambda cancel: release.wait(WAIT_MS / 1000), lane=MODEL).run()

    def two_steps(cancel: threading.Event) -> Iterator[str]:
        yield from ["a", "b"]

    job = op(runner, "two steps", two_steps, lane=MODEL).run()
    assert not job.started  # waiting for its lane: nothing is reported before we listen
    job.signals.reported.connect(events.append)
    release.set()
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert [e.kind for e in events] == [JobEventKind.STARTED, JobEventKind.PROGRESS, JobEventKind.PROGRESS,
                                        JobEventKind.SUCCESS]
    assert [e.value for e in events[1:3]] == ["a", "b"]


def test_a_plain_callable_delivers_its_return_value(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    results: list[int] = []
    job = op(runner, "add", lambda cancel: 2 + 3, lane=INDEX).success(results.append).run()
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert results == [5]


def test_failure_reaches_the_failure_hook_on_the_main_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    errors: list[tuple[str, str, int]] = []
    succeeded: list[object] = []
    after: list[str] = []

    def boom(cancel: threading.Event) -> Iterator[int]:
        yield 1
        raise FileNotFoundError("model 'x.gguf' not found")

    job = (op(runner, "load model", boom, lane=MODEL).success(succeeded.append)
           .failure(lambda m, tb: errors.append((m, tb, threading.get_ident())))
           .always(lambda: after.append("always")).run())
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert succeeded == [] and after == ["always"]
    assert len(errors) == 1
    message, details, thread = errors[0]
    assert message == "model 'x.gguf' not found"
    assert "Traceback" in details and "FileNotFoundError" in details
    assert thread == threading.get_ident()


def test_a_failure_without_a_hook_goes_to_job_failed(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()

    def boom(cancel: threading.Event) -> None:
        raise KeyError("doc-1")

    with qtbot.waitSignal(runner.job_failed, timeout=WAIT_MS) as blocker:
        op(runner, "remove", boom, lane=INDEX).run()
    name, message, details = blocker.args
    assert name == "remove" and message == "KeyError: 'doc-1'" and "Traceback" in details


def test_cancel_is_checked_between_yields_and_closes_the_generator(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    release = threading.Event()
    reached: list[str] = []
    closed = threading.Event()
    progress: list[int] = []
    outcome: list[str] = []

    inside = threading.Event()

    def work(cancel: threading.Event) -> Iterator[int]:
        try:
            yield 0
            inside.set()
            release.wait(WAIT_MS / 1000)  # the main thread cancels while this step runs
            reached.append("after 0")
            yield 1
            reached.append("after 1")  # never: the helper stops at the gap after yield 1
            yield 2
            return 99
        finally:
            closed.set()

    def on_progress(i: int) -> None:
        progress.append(i)
        if i == 0:
            # Cancel once the generator is inside its next step (past the gap after 0), so the
            # gap the helper must stop at is the one after 1, whatever the scheduling.
            assert inside.wait(WAIT_MS / 1000)
            runner.cancel(job)  # from the main thread, as a Stop button does
            release.set()

    job = (op(runner, "steps", work, lane=INDEX).progress(on_progress).success(lambda r: outcome.append(f"success {r}"))
           .cancelled(lambda: outcome.append(f"cancelled on {threading.get_ident()}"))
           .always(lambda: outcome.append("always")).run())
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert progress == [0, 1]
    assert reached == ["after 0"], "the generator ran on past the first gap after the cancel"
    assert closed.is_set(), "the generator was not closed (its finally did not run)"
    assert outcome == [f"cancelled on {threading.get_ident()}", "always"]
    assert not runner.busy


def test_cooperative_work_sees_the_cancel_and_its_return_is_its_success(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    release = threading.Event()
    results: list[str] = []
    cancelled: list[bool] = []

    def work(cancel: threading.Event) -> Iterator[int]:
        n = 0
        while True:
            yield n
            release.wait(WAIT_MS / 1000)
            n += 1
            if cancel.is_set():  # finishes its step and says what it has
                return f"stopped after {n}"

    def on_progress(i: int) -> None:
        if i == 0:
            runner.cancel(job)
            release.set()

    job = (op(runner, "answer", work, lane=MODEL, cancel=Cancel.COOPERATIVE).progress(on_progress)
           .success(results.append).cancelled(lambda: cancelled.append(True)).run())
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert results == ["stopped after 1"] and cancelled == []


def test_never_cancellable_work_runs_to_its_end(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    running = threading.Event()
    release = threading.Event()
    results: list[object] = []

    def work(cancel: threading.Event) -> Iterator[str]:
        running.set()
        release.wait(WAIT_MS / 1000)
        yield "step"
        yield "step"
        return ("finished", cancel.is_set())  # the flag it got is never set

    job = op(runner, "re-index", work, lane=ALL_LANES, cancel=Cancel.NEVER).success(results.append).run()
    qtbot.waitUntil(running.is_set, timeout=WAIT_MS)
    runner.cancel(job)
    release.set()
    qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert results == [("finished", False)]


def test_a_hook_that_raises_still_frees_the_lanes(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    after: list[bool] = []

    def bad_hook(result: object) -> None:
        raise RuntimeError("a bug in a hook")

    with qtbot.captureExceptions() as caught:
        job = op(runner, "x", lambda cancel: 1, lane=INDEX).success(bad_hook).always(
            lambda: after.append(runner.lane_busy(INDEX))).run()
        qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)
    assert [str(exc) for _, exc, _ in caught] == ["a bug in a hook"]
    assert after == [False] and not runner.busy


def test_jobs_of_one_lane_run_one_at_a_time_and_in_order(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    active = 0
    peak = 0
    order: list[int] = []
    lock = threading.Lock()
    running = [threading.Event() for _ in range(4)]
    release = [threading.Event() for _ in range(4)]

    def make(n: int):  # type: ignore[no-untyped-def]
        def work(cancel: threading.Event) -> int:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
            running[n].set()
            release[n].wait(5)  # held until the test has looked at the other jobs
            with lock:
                active -= 1
            order.append(n)
            return n
        return work

    jobs = [op(runner, f"job{n}", make(n), lane=MODEL).run() for n in range(4)]
    for n in range(4):
        qtbot.waitUntil(running[n].is_set, timeout=WAIT_MS)
        # The runner starts jobs on the main thread: while job n runs, no later one was started.
        assert [j.started for j in jobs] == [i <= n for i in range(4)]
        release[n].set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=WAIT_MS)
    assert peak == 1
    assert order == [0, 1, 2, 3]


def test_cancel_running_and_waiting_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    started = threading.Event()
    release = threading.Event()
    ran_second: list[int] = []
    outcomes: list[str] = []

    def slow(cancel: threading.Event) -> Iterator[int]:
        started.set()
        yield 1
        release.wait(WAIT_MS / 1000)
        yield 2  # the helper stops at the gap after this one
        yield 3
        return -1

    first = (op(runner, "slow", slow, lane=INDEX).success(lambda r: outcomes.append(f"first {r}"))
             .cancelled(lambda: outcomes.append("first cancelled")).run())
    second = (op(runner, "waiting", lambda c: ran_second.append(1), lane=INDEX)
              .cancelled(lambda: outcomes.append("second cancelled")).run())
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    assert not second.started
    runner.cancel(second)  # dropped at once: reported on the main thread right away
    assert outcomes == ["second cancelled"]
    runner.cancel(first)
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=WAIT_MS)
    assert ran_second == []
    assert outcomes == ["second cancelled", "first cancelled"]
    assert first.done and second.done


def test_shutdown_refuses_new_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    assert runner.shutdown(1000)
    ran = []
    late = op(runner, "late", lambda c: ran.append(1), lane=INDEX).run()
    assert late.done and not late.started and not runner.busy
    assert runner.pool.waitForDone(1000) and runner.pool.activeThreadCount() == 0
    assert ran == []


def test_an_operation_holds_at_least_one_lane() -> None:
    with pytest.raises(ValueError, match="lane"):
        op(JobRunner(), "nowhere", lambda c: None, lane=())


def test_lanes_run_side_by_side_and_multi_lane_jobs_wait_for_all(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    ingest_running = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def ingest(cancel: threading.Event) -> None:
        ingest_running.set()
        release.wait(5)
        order.append("ingest")

    op(runner, "ingest", ingest, lane=INDEX).run()
    qtbot.waitUntil(ingest_running.is_set, timeout=WAIT_MS)
    op(runner, "answer", lambda c: order.append("answer"), lane=MODEL).run()
    qtbot.waitUntil(lambda: "answer" in order, timeout=WAIT_MS)  # did not wait for the ingest
    qtbot.waitUntil(lambda: not runner.lane_busy(MODEL), timeout=WAIT_MS)
    assert runner.lane_busy(INDEX)
    reindex = op(runner, "reindex", lambda c: order.append("reindex"), lane=ALL_LANES).run()
    answer2 = op(runner, "answer2", lambda c: order.append("answer2"), lane=MODEL).run()
    # Jobs are started on the main thread as lanes free up: the re-index waits for the
    # ingest, the later answer waits for the re-index.
    assert not reindex.started and not answer2.started
    assert order == ["answer"]
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=WAIT_MS)
    assert order == ["answer", "ingest", "reindex", "answer2"]


def test_cancelling_a_waiting_job_lets_the_jobs_behind_it_start(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    release = threading.Event()
    ran: list[str] = []
    op(runner, "ingest", lambda c: release.wait(5), lane=INDEX).run()
    reindex = op(runner, "reindex", lambda c: ran.append("reindex"), lane=ALL_LANES).run()
    answer = op(runner, "answer", lambda c: ran.append("answer"), lane=MODEL).run()
    # the answer queues behind the re-index, which waits for the ingest
    assert not reindex.started and not answer.started and ran == []
    runner.cancel(reindex)
    qtbot.waitUntil(lambda: ran == ["answer"], timeout=WAIT_MS)
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=WAIT_MS)
