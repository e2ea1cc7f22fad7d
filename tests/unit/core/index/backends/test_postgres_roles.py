"""What each role can and cannot do to a team library, on the real PostgreSQL + pgvector of
the session (tests/pg_server.py), no mocks: a role granted nothing forges change
notifications and nothing changes; a reader tries every lock it may take and an editor's
writes still go through at once; a role granted nothing, a reader and an editor running
``team init`` are each told what they are; ``team init --admin-url`` does the superuser's part
for an owner that is not one; a server restarted between two searches is reconnected without
a word, one that stays down is reported; ``added_at`` is the commit's time by the server's
clock, and the server keeps file names, not a desktop's folders."""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import psycopg
import pytest

from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.index.backends import LibraryPermissionDenied, LibraryUnavailable, ReadOnlyLibrary
from desktop_rag.core.index.backends.postgres import (
    CHANGES_CHANNEL,
    EDITOR_ROLE,
    READER_ROLE,
    PostgresStore,
    init_team_library,
    person_url,
)
from desktop_rag.core.index.library import IngestReport, Library, library_manifest
from desktop_rag.core.retrieve.hybrid import HybridRetriever
from desktop_rag.settings import Settings
from tests.conftest import APPLE_PAGES, NVIDIA_PAGES, FakeEmbedder, init_team, write_pdf

# the key of the advisory lock earlier versions ordered writers with (any role may take it)
OLD_WRITE_LOCK_KEY = 0x64725F6C6962


def _ingest(lib: Library, paths: list[Path]) -> IngestReport:
    report = IngestReport()
    for _ in lib.ingest(paths, report=report):
        pass
    assert not report.failed, report.failed
    return report


def _role(url: str, name: str, member_of: str | None = None) -> str:
    """A login role (the session server trusts loopback logins: no password), optionally a
    member of a library role; returns the library's URL for it."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DO $$ BEGIN CREATE ROLE {name} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        if member_of:
            conn.execute(f"GRANT {member_of} TO {name}")
    return url.replace("postgres@", f"{name}@")


@pytest.fixture
def team_url(pg_database: str, fake_embedder: FakeEmbedder) -> str:
    return init_team(pg_database, fake_embedder)


def test_forged_notifications_from_a_role_granted_nothing_change_nothing(
        tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """NOTIFY needs no privilege: a role granted nothing sends, on the library's channel, every
    payload earlier versions trusted (the next generations, each "changing no document"; a
    filing "removed"; garbage). The following desktop wakes up, reads the generation, finds
    nothing new and changes nothing. The tables that say what changed refuse that role and a
    reader alike; the next real commit is applied as usual, its filing searchable."""
    editor = Library(tmp_path / "editor", Settings(), fake_embedder, location=team_url)
    _ingest(editor, [write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    apple = editor.documents()[0].doc_id
    follower = Library(tmp_path / "follower", Settings(), fake_embedder, location=team_url)
    looked = threading.Event()
    refresh = follower.refresh

    def counted_refresh() -> bool:  # the real refresh; the test only learns that it ran
        changed = refresh()
        looked.set()
        return changed

    follower.refresh = counted_refresh  # type: ignore[method-assign]
    changed = threading.Event()
    follower.follow_changes(changed.set)
    store = follower.store
    assert isinstance(store, PostgresStore) and store._feed is not None
    before = (sorted(follower.docs), follower.chunk_ids.tolist(), follower.lexical_search(tokenize("net sales"), 5))
    generation = store.generation

    mallory_url = _role(team_url, "mallory")
    with psycopg.connect(mallory_url, autocommit=True) as mallory:
        received = store._feed.received
        looked.clear()
        for g in range(generation + 1, generation + 30):
            mallory.execute("SELECT pg_notify(%s, %s)", (CHANGES_CHANNEL, json.dumps({"generation": g, "docs": []})))
        mallory.execute("SELECT pg_notify(%s, %s)",
                        (CHANGES_CHANNEL, json.dumps({"generation": generation, "docs": [apple]})))
        mallory.execute("SELECT pg_notify(%s, 'not json')", (CHANGES_CHANNEL,))
        deadline = time.monotonic() + 10
        while store._feed.received < received + 31 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store._feed.received >= received + 31  # every forged notification arrived
        assert looked.wait(10)  # and made the desktop look
        time.sleep(0.5)
        assert not changed.is_set()  # nothing to show
        with follower.views_lock:
            assert (sorted(follower.docs), follower.chunk_ids.tolist(),
                    follower.lexical_search(tokenize("net sales"), 5)) == before
        for stmt in ("INSERT INTO desktop_rag.changes (generation, docs) VALUES (999, '{}')",
                     "UPDATE desktop_rag.manifest SET value = '999' WHERE key = 'generation'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                mallory.execute(stmt)
    with psycopg.connect(_role(team_url, "rita", READER_ROLE), autocommit=True) as reader:
        for stmt in ("INSERT INTO desktop_rag.changes (generation, docs) VALUES (999, '{}')",
                     "DELETE FROM desktop_rag.changes",
                     "UPDATE desktop_rag.manifest SET value = '999' WHERE key = 'generation'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                reader.execute(stmt)

    _ingest(editor, [write_pdf(tmp_path / "pdfs" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)])
    assert changed.wait(10)  # a generation the forger had claimed "changed nothing"
    nvda = next(d.doc_id for d in editor.documents() if d.file_name == "2023 Q2 NVDA.pdf")
    with follower.views_lock:
        assert nvda in follower.docs and apple in follower.docs
        hits = follower.lexical_search(tokenize("data center revenue hyperscale"), 5)
        assert hits and follower.chunks[hits[0][0]].doc_id == nvda
    editor.close()
    follower.close()


def test_a_reader_cannot_hold_up_an_editor(tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """A reader, in an open transaction, takes every lock it is allowed: the advisory lock
    earlier versions ordered writers with, and ACCESS SHARE on every table; the writer lock's
    row, an ACCESS EXCLUSIVE or SHARE lock and a row lock on documents are refused. Meanwhile an
    editor removes a filing and adds another (commit timeout 10 s): both at once."""
    settings = Settings()
    settings.library.write_timeout_s = 10
    editor = Library(tmp_path / "editor", settings, fake_embedder, location=team_url)
    _ingest(editor, [write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    apple = editor.documents()[0].doc_id
    reader = psycopg.connect(_role(team_url, "rick", READER_ROLE))
    try:
        with reader.transaction():
            reader.execute("SELECT pg_advisory_lock(%s)", (OLD_WRITE_LOCK_KEY,))
            reader.execute("SELECT pg_advisory_xact_lock(%s)", (OLD_WRITE_LOCK_KEY,))
            tables = [r[0] for r in reader.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'desktop_rag'").fetchall()]
            for table in tables:
                if table == "writer_lock":
                    continue
                reader.execute(f"LOCK TABLE desktop_rag.{table} IN ACCESS SHARE MODE")
            for stmt in ("SELECT * FROM desktop_rag.writer_lock FOR UPDATE",
                         "SELECT * FROM desktop_rag.writer_lock FOR KEY SHARE",
                         "LOCK TABLE desktop_rag.writer_lock IN ACCESS EXCLUSIVE MODE",
                         "LOCK TABLE desktop_rag.manifest IN SHARE MODE",
                         "LOCK TABLE desktop_rag.documents IN EXCLUSIVE MODE",
                         "SELECT * FROM desktop_rag.documents FOR KEY SHARE",
                         "SELECT * FROM desktop_rag.manifest FOR UPDATE"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege), reader.transaction():
                    reader.execute(stmt)
            t0 = time.monotonic()
            assert editor.remove(apple)
            _ingest(editor, [write_pdf(tmp_path / "pdfs" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)])
            took = time.monotonic() - t0
            held = reader.execute("SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()"
                                  " AND locktype = 'advisory' AND granted").fetchone()
        assert held is not None and held[0] >= 1  # the reader held the old lock all along
        assert took < 5, took
        assert [d.file_name for d in editor.documents()] == ["2023 Q2 NVDA.pdf"]
    finally:
        reader.close()
        editor.close()


def test_each_role_is_told_what_it_may_not_do(tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """A role granted nothing may not read (and is told how access is granted), a reader may
    not add, and neither an editor nor a reader may run ``team init``: each hears what it is
    and who runs it, never "You can read this library" when it cannot."""
    nobody = _role(team_url, "nadia")
    with pytest.raises(LibraryPermissionDenied, match=r"nadia may not read the team library at postgresql://nadia@"
                                                      r".*--reader nadia") as denied:
        PostgresStore(nobody, Settings())
    assert not isinstance(denied.value, ReadOnlyLibrary)
    reader = PostgresStore(_role(team_url, "rosa", READER_ROLE), Settings())
    assert not reader.can_write()
    with pytest.raises(ReadOnlyLibrary, match="You can read this library but not change it"):
        reader.set_manifest_values(note="x")
    reader.close()
    manifest = library_manifest(Settings(), fake_embedder)
    for name, role, what in (("ed", EDITOR_ROLE, "an editor"), ("rosa", READER_ROLE, "a reader"),
                             ("nadia", None, "not the owner")):
        with pytest.raises(LibraryPermissionDenied, match=rf"team init: {name} is {what} of the team library at .*"
                                                          r"its owner, postgres, runs it"):
            init_team_library(_role(team_url, name, role), Settings(), manifest)


def test_team_init_with_an_admin_url_sets_up_a_library_for_an_owner_who_is_no_superuser(
        pg_server, tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    """The owner (no superuser) alone cannot: no database yet, then no vector extension (not a
    trusted extension). ``--admin-url`` (the superuser) creates the database for the owner, the
    extension and the roles; the owner's part follows; people named get their roles, and
    each one's connection string is printed without secrets or the owner's own files."""
    admin = pg_server.url()
    owner_role = "olga"
    _role(admin, owner_role)
    manifest = library_manifest(Settings(), fake_embedder)
    db = f"owned_{int(time.time() * 1000) % 10_000_000}"
    url = (f"postgresql://{owner_role}@127.0.0.1:{pg_server.port}/{db}?sslmode=disable&application_name=x"
           "&sslcert=/home/olga/olga.crt&sslkey=/home/olga/olga.key")
    with pytest.raises(LibraryUnavailable, match=rf"There is no database {db} at .*--admin-url"):
        init_team_library(url, Settings(), manifest)
    with psycopg.connect(admin, autocommit=True) as conn:  # a database the owner got from its administrator
        conn.execute(f"CREATE DATABASE {db}_bare OWNER {owner_role}")
    bare = url.replace(f"/{db}?", f"/{db}_bare?")
    with pytest.raises(LibraryPermissionDenied, match=r"vector extension .* superuser .*--admin-url"):
        init_team_library(bare, Settings(), manifest)
    _role(admin, "alma")
    _role(admin, "eddie")
    out = init_team_library(url, Settings(), manifest, admin_url=admin, readers=["alma"], editors=["eddie"])
    assert f"database {db} created for {owner_role}" in out and "owner olga" in out
    assert f"postgresql://alma@127.0.0.1:{pg_server.port}/{db}?sslmode=disable&application_name=x" in out
    assert f"postgresql://eddie@127.0.0.1:{pg_server.port}/{db}?sslmode=disable&application_name=x" in out
    assert "olga.crt" not in out and "olga.key" not in out
    with psycopg.connect(admin.replace("/postgres?", f"/{db}?"), autocommit=True) as conn:
        assert conn.execute("SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'desktop_rag'"
                            ).fetchone() == (owner_role,)
    # the owner alone from now on (upgrades, more people); the roles' connection strings again
    again = init_team_library(url, Settings(), manifest, readers=["alma"])
    assert "already set up" in again
    assert re.search(r"alma +reader", again) and re.search(r"eddie +editor", again)
    with pytest.raises(ValueError, match="there is no role ghost"):
        init_team_library(url, Settings(), manifest, editors=["ghost"])
    plain = url.replace("&sslcert=/home/olga/olga.crt&sslkey=/home/olga/olga.key", "")
    eddie = Library(tmp_path / "eddie", Settings(), fake_embedder, location=plain.replace("olga@", "eddie@"))
    _ingest(eddie, [write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    alma = Library(tmp_path / "alma", Settings(), fake_embedder, location=plain.replace("olga@", "alma@"))
    assert [d.file_name for d in alma.documents()] == ["2023 Q3 AAPL.pdf"]
    eddie.close()
    alma.close()


def test_a_server_whose_identity_is_not_checked_is_said_and_still_used(
        pg_server, team_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the network (loopback too) without sslmode=verify-full or verify-ca, wherever the
    sslmode comes from (the URL, PGSSLMODE, libpq's default), the library works and the store
    says that this desktop does not check the server's identity; over a Unix socket, where TLS
    does not apply, it says nothing."""
    for url, mode in ((team_url, "disable"), (team_url.replace("?sslmode=disable", ""), "prefer")):
        store = PostgresStore(url, Settings())
        try:
            assert store.identity_notice.startswith(f"Warning: the team library at {store.location} is reached "
                                                    f"with sslmode={mode}: this desktop does not check the server's "
                                                    "identity"), store.identity_notice
            assert "sslmode=verify-full" in store.identity_notice
            assert store.generation >= 0  # and it works
        finally:
            store.close()
    monkeypatch.setenv("PGSSLMODE", "allow")
    store = PostgresStore(team_url.replace("?sslmode=disable", ""), Settings())
    assert "with sslmode=allow:" in store.identity_notice
    store.close()
    database = team_url.rpartition("/")[2].partition("?")[0]
    socket = PostgresStore(f"postgresql://postgres@/{database}?host={pg_server.pgdata}&port={pg_server.port}",
                           Settings())
    try:
        assert socket.identity_notice == "" and socket.generation >= 0
    finally:
        socket.close()


def test_person_url_keeps_the_server_and_tls_settings_only() -> None:
    url = ("postgresql://owner:pw@db.firm.local:5432/research?sslmode=verify-full&sslrootcert=/etc/ca.crt"
           "&sslcert=/home/o/o.crt&SSLPassword=x&passfile=/home/o/.pgpass")
    assert person_url(url, "alice") == ("postgresql://alice@db.firm.local:5432/research?sslmode=verify-full"
                                        "&sslrootcert=/etc/ca.crt")


def test_a_restarted_server_is_reconnected_without_a_word_and_a_stopped_one_is_reported(
        pg_server, tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """Between two searches of one desktop the server restarts (a fast shutdown, then a
    crash): the next search reconnects by itself and gives the same results. A server that
    stays down is reported (``LibraryUnavailable``: unreachable), and once it is back the next
    search works again."""
    lib = Library(tmp_path / "desk", Settings(), fake_embedder, location=team_url)
    _ingest(lib, [write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    retriever = HybridRetriever(lib, Settings().retrieval)

    def search() -> list[tuple[int, float]]:
        return [(h.chunk.chunk_id, round(h.score, 9)) for h in retriever.search("total net sales", k=5)]

    first = search()
    assert first
    try:
        for immediate in (False, True):
            pg_server.stop(immediate=immediate)
            pg_server.start()
            pg_server.wait_ready()
            assert search() == first, immediate
        pg_server.stop()
        with pytest.raises(LibraryUnavailable, match="Cannot reach the team library"):
            search()
    finally:
        if not pg_server.running:
            pg_server.start()
            pg_server.wait_ready()
    assert search() == first
    lib.close()


def test_added_at_is_the_commit_time_and_the_server_keeps_file_names(
        tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """A slow ingest (2 s of embedding): ``added_at`` is the server's clock at the commit, not
    at the start. The server's ``documents.path`` is the file name; the desktop that added the
    filing still finds its own copy (``team_files.json`` in its index folder), another desktop
    sees only the name."""

    class SlowEmbedder(FakeEmbedder):
        def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
            time.sleep(2.0)
            return super().encode(texts, batch_size)

    pdf = write_pdf(tmp_path / "Private folder of Ann" / "2023 Q3 AAPL.pdf", APPLE_PAGES)
    desk = Library(tmp_path / "ann", Settings(), SlowEmbedder(), location=team_url)
    with psycopg.connect(team_url, autocommit=True) as conn:
        start = conn.execute("SELECT date_trunc('second', clock_timestamp())").fetchone()[0]  # type: ignore[index]
    _ingest(desk, [pdf])
    with psycopg.connect(team_url, autocommit=True) as conn:
        path, added = conn.execute("SELECT path, added_at FROM desktop_rag.documents").fetchone()  # type: ignore[misc]
    assert path == "2023 Q3 AAPL.pdf"
    assert (datetime.fromisoformat(added) - start).total_seconds() >= 2, (added, start)
    assert desk.documents()[0].path == str(pdf)
    assert json.loads((tmp_path / "ann" / "index" / "team_files.json").read_text()) == {
        desk.documents()[0].doc_id: str(pdf)}
    other = Library(tmp_path / "bob", Settings(), fake_embedder, location=team_url)
    assert other.documents()[0].path == "2023 Q3 AAPL.pdf"
    assert other.documents()[0].added_at == added
    desk.close()
    other.close()
