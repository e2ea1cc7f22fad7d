"""The one threading module: progress forwarding, one model job at a time, cancellation, errors."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from desktop_rag.gui.workers import JobRunner

pytestmark = pytest.mark.gui


def test_generator_job_forwards_progress_then_result_on_main_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    seen: list[object] = []
    threads: set[int] = set()

    def work(cancel: threading.Event) -> Iterator[int]:
        yield from range(5)
        return 42

    def progress(x: object) -> None:
        threads.add(threading.get_ident())
        seen.append(x)

    with qtbot.waitSignal(runner.busy_changed, timeout=5000, check_params_cb=lambda b: b is False):
        runner.submit(work, "count", on_progress=progress, on_result=lambda r: seen.append(("result", r)))
    assert seen == [0, 1, 2, 3, 4, ("result", 42)]
    assert threads == {threading.get_ident()}, "slots must run on the main thread"


def test_model_jobs_run_one_at_a_time_and_in_order(qtbot) -> None:  # type: ignore[no-untyped-def]
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

    jobs = [runner.submit(make(n), f"job{n}") for n in range(4)]
    for n in range(4):
        qtbot.waitUntil(running[n].is_set, timeout=5000)
        # The runner starts jobs on the main thread: while job n runs, no later one was started.
        assert [j.started for j in jobs] == [i <= n for i in range(4)]
        release[n].set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert peak == 1
    assert order == [0, 1, 2, 3]


def test_cancel_running_and_queued_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    started = threading.Event()
    ran_second = []

    def slow(cancel: threading.Event) -> Iterator[int]:
        started.set()
        i = 0
        while not cancel.wait(0.01):  # a long job that checks its cancel event between steps
            i += 1
            yield i
        return -1

    results: list[int] = []
    finished: list[str] = []
    first = runner.submit(slow, "slow", on_result=results.append, on_finished=lambda: finished.append("first"))
    second = runner.submit(lambda c: ran_second.append(1), "queued", on_finished=lambda: finished.append("second"))
    qtbot.waitUntil(started.is_set, timeout=3000)
    runner.cancel(second)
    runner.cancel(first)
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert results == [-1]
    assert ran_second == []
    assert sorted(finished) == ["first", "second"]


def test_errors_are_reported_with_a_message(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    errors: list[tuple[str, str]] = []

    def boom(cancel: threading.Event) -> None:
        raise FileNotFoundError("model 'x.gguf' not found")

    runner.submit(boom, "load model", on_error=lambda m, tb: errors.append((m, tb)))
    qtbot.waitUntil(lambda: not runner.busy, timeout=3000)
    assert errors and errors[0][0] == "model 'x.gguf' not found"
    assert "Traceback" in errors[0][1]


def test_shutdown_refuses_new_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    assert runner.shutdown(1000)
    ran = []
    late = runner.submit(lambda c: ran.append(1), "late")
    assert late.done and not late.started and not runner.busy
    assert runner.pool.waitForDone(1000) and runner.pool.activeThreadCount() == 0
    assert ran == []


def test_lanes_run_side_by_side_and_multi_lane_jobs_wait_for_all(qtbot) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.gui.workers import ALL_LANES, INDEX, MODEL

    runner = JobRunner()
    ingest_running = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def ingest(cancel: threading.Event) -> None:
        ingest_running.set()
        release.wait(5)
        order.append("ingest")

    runner.submit(ingest, "ingest", lane=INDEX)
    qtbot.waitUntil(ingest_running.is_set, timeout=3000)
    runner.submit(lambda c: order.append("answer"), "answer", lane=MODEL)
    qtbot.waitUntil(lambda: "answer" in order, timeout=3000)  # did not wait for the ingest
    assert runner.lane_busy(INDEX) and not runner.lane_busy(MODEL)
    reindex = runner.submit(lambda c: order.append("reindex"), "reindex", lane=ALL_LANES)
    answer2 = runner.submit(lambda c: order.append("answer2"), "answer2", lane=MODEL)
    # Jobs are started on the main thread as lanes free up: the re-index waits for the
    # ingest, the later answer waits for the re-index.
    assert not reindex.started and not answer2.started
    assert order == ["answer"]
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert order == ["answer", "ingest", "reindex", "answer2"]


def test_cancelling_a_waiting_job_lets_the_jobs_behind_it_start(qtbot) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.gui.workers import ALL_LANES, INDEX, MODEL

    runner = JobRunner()
    release = threading.Event()
    ran: list[str] = []
    runner.submit(lambda c: release.wait(5), "ingest", lane=INDEX)
    reindex = runner.submit(lambda c: ran.append("reindex"), "reindex", lane=ALL_LANES)
    answer = runner.submit(lambda c: ran.append("answer"), "answer", lane=MODEL)
    # the answer queues behind the re-index, which waits for the ingest
    assert not reindex.started and not answer.started and ran == []
    runner.cancel(reindex)
    qtbot.waitUntil(lambda: ran == ["answer"], timeout=3000)
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
