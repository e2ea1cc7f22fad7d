"""The app on a team library (a real PostgreSQL + pgvector, tests/pg_server.py): switching
the "Library location" setting to the team server and back to this computer, the window
saying which library it is on (and that it does not check the server's identity without
sslmode=verify-full), a colleague's new filing appearing in the list without a
restart, a reader's drop answered with a plain sentence, and an unreachable server at
start (this computer's library opens, with the reason shown)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import psycopg
import pytest

from desktop_rag.core.index.backends.base import READ_ONLY_MESSAGE
from desktop_rag.core.index.backends.postgres import READER_ROLE
from desktop_rag.core.index.embedder import Embedder
from desktop_rag.settings import Settings
from tests.conftest import APPLE_PAGES, init_team, write_pdf
from tests.gui.conftest import MODELS_DIR, TEST_SETTINGS, drop_files

pytestmark = [pytest.mark.gui]


@pytest.fixture
def team_url(pg_database: str) -> str:
    """A team library made for the app's real embedder (its manifest, no model loaded)."""
    return init_team(pg_database, Embedder(Settings().embedding.model, MODELS_DIR))


def _home_on(home: Path, location: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({**json.loads(TEST_SETTINGS), "library": {"location": location}}))
    return home


def test_switching_the_library_location(qtbot, fake_window, make_window, team_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    assert win.library_status.text() == "Library: this computer"
    dlg = win.settings_dialog()
    qtbot.addWidget(dlg)
    editor = dlg.editors[("library", "location")]
    for secret in (team_url.replace("postgres@", "postgres:secret@"), team_url + "&Password=secret"):
        editor.setText(secret)  # type: ignore[attr-defined]
        win.apply_settings(dlg)
        assert win.errors and "pgpass" in win.errors[-1]  # a password never lands in settings.json
        assert "secret" not in win.errors[-1]
        assert Settings.load(win.ws.data_dir).library.location == ""

    dlg = win.settings_dialog()
    qtbot.addWidget(dlg)
    dlg.editors[("library", "location")].setText(team_url)  # type: ignore[attr-defined]
    win.apply_settings(dlg)
    assert Settings.load(win.ws.data_dir).library.location == team_url
    assert "next start" in win.statusBar().currentMessage()

    # the next start opens the team library, and says so
    team = make_window(win.ws.data_dir, load_model=False)
    qtbot.waitUntil(lambda: team._library_ready, timeout=20_000)
    assert team.ws.library.on_server
    assert team.library_status.text().startswith("Library: team server postgresql://postgres@127.0.0.1")
    assert "read only" not in team.library_status.text()
    # its connection string has no sslmode=verify-full: the window says so, once, and works on
    assert len(team.warnings) == 1 and "does not check the server's identity" in team.warnings[0]
    assert not team.errors

    # and back: an empty connection string is this computer's library again, from the next start
    dlg = team.settings_dialog()
    qtbot.addWidget(dlg)
    dlg.editors[("library", "location")].setText("")  # type: ignore[attr-defined]
    team.apply_settings(dlg)
    assert Settings.load(win.ws.data_dir).library.location == ""
    assert "this computer's library" in team.statusBar().currentMessage()
    team.shutdown()
    local = fake_window({}, home=win.ws.data_dir)  # the library built with the fake embedder
    assert not local.ws.library.on_server
    assert local.library_status.text() == "Library: this computer"
    assert {d.file_name for d in local.docs} == {d.file_name for d in win.docs}  # its own filings, untouched


def test_a_colleagues_new_filing_appears_without_a_restart(qtbot, fake_window, pg_database: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Another desktop commits a filing: the window's document list shows it (the library
    follows the server's change notifications), no restart, no question asked."""
    from desktop_rag.core.index.library import IngestReport, Library
    from tests.conftest import NVIDIA_PAGES, FakeEmbedder

    url = init_team(pg_database, FakeEmbedder())
    win = fake_window({}, home=_home_on(tmp_path / "home", url))
    assert win.ws.library.on_server and win.docs == []
    colleague = Library(tmp_path / "colleague", Settings(), FakeEmbedder(), location=url)
    report = IngestReport()
    for _ in colleague.ingest([write_pdf(tmp_path / "pdfs" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)], report=report):
        pass
    assert report.added
    qtbot.waitUntil(lambda: [d.file_name for d in win.docs] == ["2023 Q2 NVDA.pdf"], timeout=20_000)
    assert win.count_status.text().startswith("1 document")
    colleague.close()


def test_a_reader_dropping_a_pdf_gets_a_plain_sentence(qtbot, make_window, team_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(f"DO $$ BEGIN CREATE ROLE erin LOGIN IN ROLE {READER_ROLE};"
                     " EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    win = make_window(_home_on(tmp_path / "home", team_url.replace("postgres@", "erin@")), load_model=False)
    qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
    assert win.library_status.text().endswith("(read only)")
    drop_files(win, [write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    assert win.errors[-1] == READ_ONLY_MESSAGE
    assert not win.ingest_jobs  # no ingest was started
    assert win.ws.library.documents() == []


def test_a_password_in_the_settings_file_is_refused_at_start_and_taken_out(  # type: ignore[no-untyped-def]
        qtbot, make_window, team_url: str, tmp_path: Path) -> None:
    """A hand-edited settings.json with a password in the location: the team library is not
    opened with it, the window says where passwords go (never the password), and the file
    keeps the location without it."""
    home = _home_on(tmp_path / "home", team_url + "&password=s3cr3t")
    win = make_window(home, load_model=False)
    qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
    assert not win.ws.library.on_server
    assert any("pgpass" in e for e in win.errors) and not any("s3cr3t" in e for e in win.errors)
    assert "s3cr3t" not in (home / "settings.json").read_text()
    assert Settings.load(home).library.location == team_url
    assert "s3cr3t" not in win.library_status.text()


def test_unreachable_team_server_at_start_opens_this_computers_library(qtbot, make_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = _home_on(tmp_path / "home", f"postgresql://nobody@127.0.0.1:{port}/lib")
    win = make_window(home, load_model=False)
    qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
    assert not win.ws.library.on_server
    assert win.library_status.text() == "Library: this computer"
    assert any("Cannot reach the team library" in e and "this computer's library" in e for e in win.errors)
