"""A re-index from the window goes through the background-operation helper: its progress
reaches the library pane, its ``after`` hook runs on the main thread, and a cancel (closing
the window) does not stop it half way."""

from __future__ import annotations

import threading

import pytest

from .conftest import wait_idle

pytestmark = pytest.mark.gui


def test_reindex_reports_progress_and_runs_to_its_end(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    wait_idle(qtbot, win)
    before = {d.doc_id: d.chunk_count for d in win.docs}
    after: list[int] = []
    job = win.reindex(after=lambda: after.append(threading.get_ident()))
    assert job.started
    win.runner.cancel(job)  # not cancellable once started (a half-done re-index mixes embedders)
    wait_idle(qtbot, win)
    assert job.done and after == [threading.get_ident()]
    assert {d.doc_id: d.chunk_count for d in win.docs} == before
    assert win.ws.library.mismatch() == []
