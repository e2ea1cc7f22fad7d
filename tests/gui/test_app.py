"""Entry point behaviour: no display -> CLI hint; logging location; the start-up signal in the log."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from desktop_rag.gui import app

pytestmark = pytest.mark.gui


def test_no_display_prints_cli_help_and_returns_2(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert app.main([]) == 2
    err = capsys.readouterr().err
    assert "no graphical display" in err and 'python main.py ask "' in err


def test_user_chosen_platform_is_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert app.display_available()


def test_arguments() -> None:
    ns = app.parse_args(["--data-dir", "/tmp/d", "--models-dir", "/tmp/m", "-style", "fusion"])
    assert (ns.data_dir, ns.models_dir) == ("/tmp/d", "/tmp/m")


def test_log_file_under_data_dir(tmp_path: Path) -> None:
    path = app.setup_logging(tmp_path)
    try:
        logging.getLogger("desktop_rag.test").error("hello log")
        for h in logging.getLogger().handlers:
            h.flush()
        assert path == tmp_path / "logs" / "desktop_rag.log"
        assert "hello log" in path.read_text("utf-8")
    finally:
        root = logging.getLogger()
        for h in list(root.handlers):
            if getattr(h, "baseFilename", "") == str(path):
                root.removeHandler(h)
                h.close()


def test_window_logs_ready_once_its_library_is_open(fake_window, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    """`make bundle-test` starts the frozen app offscreen and waits for this line (not a sleep)."""
    with caplog.at_level(logging.INFO, logger="desktop_rag.gui.main_window"):
        win = fake_window()  # returns once the library is open
    ready = [r.getMessage() for r in caplog.records if r.getMessage().startswith("ready:")]
    assert ready == [f"ready: window shown, library open ({len(win.docs)} documents)"]
    assert len(win.docs) == 2
