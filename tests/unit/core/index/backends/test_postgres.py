"""The team library's PostgreSQL backend on a real server (tests/pg_server.py): BM25 in SQL
equal to rank-bm25 on a real filing, the same search results as the embedded library, the
manifest check, roles, duplicates, removal and an unreachable server. No database mock."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import psycopg
import pytest

from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.index.backends import LibraryUnavailable, ReadOnlyLibrary
from desktop_rag.core.index.backends.postgres import DB_SCHEMA_VERSION, EDITOR_ROLE, READER_ROLE, PostgresStore
from desktop_rag.core.index.library import IngestReport, Library
from desktop_rag.core.retrieve.hybrid import HybridRetriever
from desktop_rag.settings import Settings
from tests.conftest import APPLE_PAGES, NVIDIA_PAGES, FakeEmbedder, init_team, write_pdf

QUESTIONS = [
    "What were total net sales in the third quarter?",
    "research and development expense",
    "How much cash did Apple return to shareholders through share repurchases?",
    "iPhone net sales by category",
    "unrecognized tax benefits",
]


def _ingest(lib: Library, paths: list[Path]) -> IngestReport:
    report = IngestReport()
    for _ in lib.ingest(paths, report=report):
        pass
    return report


@pytest.fixture
def team_url(pg_database: str, fake_embedder: FakeEmbedder) -> str:
    return init_team(pg_database, fake_embedder)


@pytest.fixture
def real_pair(tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder, sample_pdf: Path):
    """The bundled real 10-Q in an embedded library and in a team library."""
    local = Library(tmp_path / "local", Settings(), fake_embedder)
    team = Library(tmp_path / "desk", Settings(), fake_embedder, location=team_url)
    for lib in (local, team):
        report = _ingest(lib, [sample_pdf])
        assert not report.failed and len(report.added) == 1, report.failed
    yield local, team
    local.close()
    team.close()


def test_bm25_equals_rank_bm25_on_a_real_filing(real_pair) -> None:
    """The desktop scores BM25 from its copy of the server's postings: rank-bm25's scores,
    and the copy's statistics are the server's (chunks, tokens, vocabulary)."""
    from rank_bm25 import BM25Okapi

    _, team = real_pair
    team.refresh()
    rows = list(team.store.chunk_rows())
    ids = [r[0] for r in rows]
    corpus = [r[8].split() or ["\x00"] for r in rows]  # rank-bm25 divides by zero on []
    reference = BM25Okapi(corpus)
    assert len(ids) > 50
    assert team.store.bm25_statistics() == (len(ids), sum(map(len, corpus)), len(reference.idf))
    for q in QUESTIONS:
        terms = list(dict.fromkeys(tokenize(q)))
        expected = reference.get_scores(terms)
        got = team.lexical_search(terms, k=len(ids))
        assert got, q
        want = sorted(((ids[i], s) for i, s in enumerate(expected) if s > 0), key=lambda x: (-x[1], x[0]))
        assert [c for c, _ in got] == [c for c, _ in want], q
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-12, atol=0)


def _views(lib: Library) -> tuple:
    """What retrieval reads from a Library's in-memory views, comparable across two."""
    return (lib.chunk_ids.tolist(), lib.vectors.tobytes(), lib.embedded.tolist(), lib.row_of,
            lib.row_doc.tolist(), lib.row_page.tolist(),
            {c: (ch.doc_id, ch.ordinal, ch.page, ch.text) for c, ch in lib.chunks.items()},
            lib.doc_chunks, {d: (doc.meta, doc.chunk_count) for d, doc in lib.docs.items()})


def test_another_desktops_changes_are_applied_without_a_reload(
        tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder, sample_pdf: Path) -> None:
    """Desktop B follows A's commits from their notifications: only the changed document is
    read, and B's views (rows, vectors, BM25 scores) equal a desktop that loads afresh."""
    import threading

    a = Library(tmp_path / "a", Settings(), fake_embedder, location=team_url)
    b = Library(tmp_path / "b", Settings(), fake_embedder, location=team_url)
    _ingest(a, [write_pdf(tmp_path / "p" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    seen = threading.Event()
    b.follow_changes(seen.set)
    index = b.lexical  # the full load's; an incremental change keeps the object
    assert len(b.docs) == 1

    def same_as_fresh(note: str) -> None:
        fresh = Library(tmp_path / "fresh", Settings(), fake_embedder, location=team_url)
        fresh.refresh()
        with b.views_lock:
            assert b.lexical is index, note
            assert _views(b) == _views(fresh), note
            for q in QUESTIONS:
                terms = tokenize(q)
                got, want = b.lexical_search(terms, 20), fresh.lexical_search(terms, 20)
                assert [c for c, _ in got] == [c for c, _ in want], (note, q)
                np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-12)
        fresh.close()

    seen.clear()
    _ingest(a, [sample_pdf, write_pdf(tmp_path / "p" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)])
    assert seen.wait(10)  # B applied it in the background, no question asked
    b.refresh()
    assert len(b.docs) == 3
    same_as_fresh("two filings added")

    apple = next(d.doc_id for d in a.documents() if d.file_name == "2023 Q3 AAPL.pdf")
    assert a.remove(apple)
    b.refresh()
    assert apple not in b.docs and not any(c.doc_id == apple for c in b.chunks.values())
    same_as_fresh("a filing removed")

    nvda = next(d for d in a.documents() if d.file_name == "2023 Q2 NVDA.pdf")
    a.update_meta(nvda.doc_id, dataclasses.replace(nvda.meta, company="NVIDIA Corp (edited)"))
    b.refresh()
    assert b.docs[nvda.doc_id].meta.company == "NVIDIA Corp (edited)"
    same_as_fresh("metadata edited (chunks re-embedded)")
    a.close()
    b.close()


def test_same_search_results_as_the_embedded_library(real_pair) -> None:
    local, team = real_pair
    r_local, r_team = HybridRetriever(local, Settings().retrieval), HybridRetriever(team, Settings().retrieval)
    for q in QUESTIONS:
        for mode in ("hybrid", "bm25", "dense"):
            a = [(h.doc.file_name, h.chunk.page, h.chunk.text) for h in r_local.search(q, k=10, mode=mode)]
            b = [(h.doc.file_name, h.chunk.page, h.chunk.text) for h in r_team.search(q, k=10, mode=mode)]
            assert a == b, (q, mode)
    # statements come back as extracted
    doc_id = next(iter(team.docs))
    assert [s.to_json() for s in team.statements(doc_id)] == [s.to_json() for s in local.statements(doc_id)]
    assert team.statements(doc_id)


def test_filters_pushed_into_sql_and_removal_keeps_bm25_exact(tmp_path: Path, team_url: str,
                                                              fake_embedder: FakeEmbedder) -> None:
    from desktop_rag.core.index.lexical import LexicalIndex

    paths = [write_pdf(tmp_path / "a" / "2023 Q3 AAPL.pdf", APPLE_PAGES),
             write_pdf(tmp_path / "a" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)]
    lib = Library(tmp_path / "desk", Settings(), fake_embedder, location=team_url)
    assert len(_ingest(lib, paths).added) == 2
    nvda = next(d.doc_id for d in lib.documents() if d.file_name.startswith("2023 Q2"))
    terms = tokenize("revenue operating income")
    only = lib.lexical_search(terms, 10, [nvda])
    assert only and all(lib.chunks[c].doc_id == nvda for c, _ in only)
    qv = fake_embedder.encode_query("data center revenue")
    dense = lib.dense_search(qv, 5, [nvda])
    assert dense and all(lib.chunks[c].doc_id == nvda for c, _ in dense)
    assert lib.remove(next(d for d in lib.docs if d != nvda))
    lib.refresh()
    rows = list(lib.store.chunk_rows())  # what is left, indexed afresh in memory
    expected = LexicalIndex([r[0] for r in rows], [r[8].split() for r in rows]).search(terms, 10)
    got = lib.lexical_search(terms, 10)
    assert [c for c, _ in got] == [c for c, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-12)
    lib.close()


def test_other_embedder_refuses_to_write_and_says_why(tmp_path: Path, team_url: str) -> None:
    other = FakeEmbedder(dim=128, name="other")
    lib = Library(tmp_path / "desk", Settings(), other, location=team_url)
    problems = lib.mismatch()
    assert any("embedder" in p and "other@128" in p for p in problems), problems
    with pytest.raises(RuntimeError, match="does not match"):
        _ingest(lib, [write_pdf(tmp_path / "x.pdf", APPLE_PAGES)])
    assert lib.documents() == []
    lib.close()


def test_reader_may_search_but_not_add(tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    editor = Library(tmp_path / "e", Settings(), fake_embedder, location=team_url)
    _ingest(editor, [write_pdf(tmp_path / "a" / "2023 Q3 AAPL.pdf", APPLE_PAGES)])
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(f"DO $$ BEGIN CREATE ROLE alice LOGIN IN ROLE {READER_ROLE};"
                     " EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        conn.execute(f"DO $$ BEGIN CREATE ROLE bob LOGIN IN ROLE {EDITOR_ROLE};"
                     " EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    reader = Library(tmp_path / "r", Settings(), fake_embedder, location=team_url.replace("postgres@", "alice@"))
    assert not reader.store.can_write()
    assert reader.lexical_search(tokenize("net sales"), 5)
    with pytest.raises(ReadOnlyLibrary, match="You can read this library but not change it"):
        _ingest(reader, [write_pdf(tmp_path / "b" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)])
    with pytest.raises(ReadOnlyLibrary):
        reader.remove(reader.documents()[0].doc_id)
    bob = Library(tmp_path / "b2", Settings(), fake_embedder, location=team_url.replace("postgres@", "bob@"))
    assert bob.store.can_write()
    assert len(_ingest(bob, [write_pdf(tmp_path / "c" / "2023 Q2 NVDA.pdf", NVIDIA_PAGES)]).added) == 1
    assert len(reader.documents()) == 2  # the reader sees the new filing without reopening
    for lib in (editor, reader, bob):
        lib.close()


def test_same_file_twice_is_one_document(tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    src = write_pdf(tmp_path / "a" / "2023 Q3 AAPL.pdf", APPLE_PAGES)
    copy = tmp_path / "b" / "apple copy.pdf"
    copy.parent.mkdir()
    shutil.copy(src, copy)
    one = Library(tmp_path / "d1", Settings(), fake_embedder, location=team_url)
    two = Library(tmp_path / "d2", Settings(), fake_embedder, location=team_url)
    two.refresh()  # opened before the first commit: its own check cannot see it
    assert len(_ingest(one, [src]).added) == 1
    doc = two.store.documents()
    # the store refuses the second commit of the same content hash
    assert two.store.add_document(doc[0], ["x"], [], [], None) is None
    report = _ingest(two, [copy])
    assert report.skipped and not report.added
    assert len(one.documents()) == 1
    one.close()
    two.close()


def test_unreachable_server_and_password_in_url(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings()
    settings.library.connect_timeout_s = 2
    with pytest.raises(LibraryUnavailable, match=r"Cannot reach the team library at postgresql://u@127\.0\.0\.1"):
        PostgresStore(f"postgresql://u@127.0.0.1:{port}/db", settings)
    with pytest.raises(ValueError, match="pgpass"):
        PostgresStore(f"postgresql://u:secret@127.0.0.1:{port}/db", settings)


def _libpq_failure(host: str, *lines: str) -> psycopg.OperationalError:
    """A failed connection as libpq words it (the last address tried, then its own lines)."""
    return psycopg.OperationalError("\n".join([f'connection to server at "{host}" (10.1.2.3), port 5432 failed: '
                                               f"{lines[0]}", *lines[1:]]))


def test_a_failed_login_says_what_to_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A certificate login refused is told to check the certificate, not a password; a missing
    root.crt reads as one sentence; and "no password supplied" when ~/.pgpass has the login's
    password on that server for another database only says the database name may be wrong."""
    from desktop_rag.core.index.backends import LibraryLoginFailed
    from desktop_rag.core.index.backends.postgres import connection_error

    carol = "postgresql://carol@db.firm.local:5432/research?sslmode=verify-full"
    for words in ("FATAL:  connection requires a valid client certificate",
                  'FATAL:  certificate authentication failed for user "carol"'):
        refused = connection_error(carol, _libpq_failure("db.firm.local", words))
        assert isinstance(refused, LibraryLoginFailed)
        assert "Check carol's client certificate and its key" in str(refused) and "pgpass" not in str(refused)
    no_ca = connection_error(carol, _libpq_failure(
        "db.firm.local", 'root certificate file "/home/carol/.postgresql/root.crt" does not exist',
        "Either provide the file, use the system's trusted roots with sslrootcert=system, or change sslmode to "
        "disable server certificate verification."))
    assert "Cannot connect securely" in str(no_ca) and "verification. With sslmode=verify-full" in str(no_ca)
    assert ".." not in str(no_ca)

    pgpass = tmp_path / "pgpass"
    pgpass.write_text("db.firm.local:5432:research:alice:her password\n*:*:*:postgres:admin\n"
                      "db.firm.local:5432:archive:alice:her other password\n")
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    no_password = _libpq_failure("db.firm.local", "fe_sendauth: no password supplied")
    misspelt = connection_error("postgresql://alice@db.firm.local:5432/reserch?sslmode=verify-full", no_password)
    assert isinstance(misspelt, LibraryLoginFailed)
    assert ("has alice's password on this server for the database research and archive, not for reserch: the "
            "database name in the URL may be wrong; otherwise check alice's password") in str(misspelt)
    assert "her password" not in str(misspelt)
    for url in ("postgresql://bob@db.firm.local:5432/reserch",  # no line for bob at all
                "postgresql://alice@db.firm.local:5433/reserch",  # nor for another port
                "postgresql://alice@db.firm.local:5432/research"):  # a line for this database
        assert "may be wrong" not in str(connection_error(url, no_password)), url


def test_uninitialised_database_says_team_init(pg_database: str, tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    with pytest.raises(LibraryUnavailable, match="team init"):
        Library(tmp_path / "d", Settings(), fake_embedder, location=pg_database)


def test_dense_search_takes_the_server_settings_in_one_round_trip(real_pair) -> None:
    """ef_search comes from ``library.server_hnsw_ef_search`` (at least k), is SET on the
    connection once (not per query), and even inside a snapshot that rolls back the next
    search still runs with it. Results equal exact search on this small library."""
    _local, team = real_pair
    store = team.store
    assert isinstance(store, PostgresStore)
    store.settings.library.server_hnsw_ef_search = 64
    team.refresh()
    qv = team.embedder.encode_query("research and development expense")
    exact = np.sort(team.all_vectors()[1] @ qv)[::-1][:10]  # the scores (equal scores may come in either order)

    def top10() -> np.ndarray:
        return np.array([s for _, s in store.dense_search(qv, 10, None)])

    def shown() -> str:
        with store._read() as cur:
            return str(cur.execute("SHOW hnsw.ef_search").fetchone()[0])

    np.testing.assert_allclose(top10(), exact, atol=1e-5)
    assert shown() == "64" and store._session["hnsw.ef_search"] == "64"
    store.dense_search(qv, 80, None)  # more asked than ef_search: ef_search follows k
    assert shown() == "80"
    with pytest.raises(RuntimeError), store.snapshot():
        store.dense_search(qv, 10, None)  # SET LOCAL inside the transaction
        raise RuntimeError("rolled back")
    assert shown() == "80"  # the session's value survived the rollback
    store.settings.library.server_hnsw_ef_search = 400
    np.testing.assert_allclose(top10(), exact, atol=1e-5)
    assert shown() == "400"


def test_page_texts_at_reads_many_pages_at_once_on_both_backends(real_pair) -> None:
    local, team = real_pair
    doc_id = team.documents()[0].doc_id
    pages = [(doc_id, 1), (doc_id, 2), ("no such document", 1), (doc_id, 999)]
    for lib in (local, team):
        got = lib.page_texts_at(pages)
        assert got == {(doc_id, 1): lib.page_text(doc_id, 1), (doc_id, 2): lib.page_text(doc_id, 2)}
        assert got[(doc_id, 1)]


def test_team_init_builds_the_index_with_the_server_settings(pg_database: str, fake_embedder: FakeEmbedder) -> None:
    settings = Settings()
    settings.library.server_hnsw_m, settings.library.server_hnsw_ef_construction = 12, 10  # efc raised to 2 m
    init_team(pg_database, fake_embedder, settings)
    with psycopg.connect(pg_database) as conn:
        ddl = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'").fetchone()
    assert ddl and "m='12'" in ddl[0] and "ef_construction='24'" in ddl[0]


def test_the_desktop_keeps_no_chunk_text_or_vectors_of_a_team_library(real_pair, monkeypatch) -> None:
    """A team library's views are its rows' index (ids, documents, pages, BM25 postings): no
    chunk text, no vectors (1M chunks would need ~15 GB on the desktop). A hybrid search's
    server side is two round trips: the dense candidates (sent before BM25 runs here, so the
    two overlap) with their chunks, cosines and the stored types of their pages, then the same
    of the lexical candidates the dense ones did not bring; its chunks are then read from a
    bounded cache."""
    from desktop_rag.core.index.library import ServerChunks

    local, team = real_pair
    team.refresh()
    assert isinstance(team.chunks, ServerChunks) and not team.chunks._cache
    assert team.vectors.shape == (len(team.chunk_ids), 0) and team.embedded.all()
    assert team.row_doc.tolist() == local.row_doc.tolist() and team.row_page.tolist() == local.row_page.tolist()
    calls: list[str] = []
    store = team.store
    for name in ("search_candidates", "chunks_by_id", "page_texts_at", "dense_search", "statement_pages",
                 "vectors_by_id", "chunk_rows"):
        real = getattr(store, name)
        monkeypatch.setattr(store, name, lambda *a, _real=real, _name=name, **kw: calls.append(_name) or _real(*a, **kw))
    retriever = HybridRetriever(team, Settings().retrieval)
    hits = retriever.search("research and development expense", k=10, mode="hybrid")
    assert hits and calls.count("search_candidates") == 2
    assert "page_texts_at" not in calls and "chunks_by_id" not in calls and "chunk_rows" not in calls
    assert all(h.chunk.text == local.chunks[h.chunk.chunk_id].text for h in hits)  # ids are equal here
    assert 0 < len(team.chunks._cache) <= ServerChunks.CACHE
    calls.clear()
    team.chunks._cache.clear()
    retriever.search("research and development expense", k=10, mode="bm25")
    assert calls == ["chunks_by_id"]  # the BM25 hits' chunks, at once


def test_statement_page_maps_and_page_types_are_stored(real_pair, team_url: str) -> None:
    """Search reads a filing's statement pages from the stored page map (no statement parsed)
    and its pages' types as stored; both equal what the desktop computes, on both backends,
    and `team init` fills them in for a library written before they existed."""
    from desktop_rag.core.domain.page_types import PAGE_TYPES_VERSION, page_type
    from desktop_rag.core.index.backends.postgres import init_team_library
    from desktop_rag.core.index.library import library_manifest
    from desktop_rag.core.index.statement_store import to_rows
    from desktop_rag.core.ingest.statements.model import page_kinds

    local, team = real_pair
    doc_id = team.documents()[0].doc_id
    computed = page_kinds(to_rows(local.statements(doc_id)))
    assert computed and team.statement_pages([doc_id]) == local.statement_pages([doc_id]) == {doc_id: computed}

    def stored() -> tuple[list, list]:
        with psycopg.connect(team_url, autocommit=True) as conn:
            maps = conn.execute("SELECT page_map FROM desktop_rag.statements").fetchall()
            types = conn.execute("SELECT text, page_type, page_type_version FROM desktop_rag.pages ORDER BY doc_id, page").fetchall()
        return maps, types

    maps, types = stored()
    assert maps == [({str(p): k for p, k in computed.items()},)]
    assert types and all(t == page_type(text) and v == PAGE_TYPES_VERSION for text, t, v in types)
    with psycopg.connect(team_url, autocommit=True) as conn:  # as an earlier version wrote them
        conn.execute("UPDATE desktop_rag.statements SET page_map = NULL")
        conn.execute("UPDATE desktop_rag.pages SET page_type = NULL, page_type_version = NULL")
    assert team.statement_pages([doc_id]) == {doc_id: computed}  # computed from the statements meanwhile
    init_team_library(team_url, Settings(), library_manifest(Settings(), team.embedder))
    assert stored() == (maps, types)


def test_new_tokens_rewrite_no_chunk_row_and_vectors_stay_in_line(real_pair) -> None:
    """The BM25 tokens live in ``chunk_tokens``: a tokenizer change (``set_tokens``) rewrites
    them and the postings, not one chunk row (each row's physical place and version are the
    same, so neither is its HNSW entry); BM25 then scores the new tokens. A chunk row without
    the tokens keeps its vector in line (no TOAST), so exact scans of a filter's rows are
    allowed up to the in-line limit."""
    from desktop_rag.core.index.backends.postgres import EXACT_SCAN_ROWS_INLINE

    _local, team = real_pair
    store = team.store
    assert isinstance(store, PostgresStore)

    def chunk_rows() -> list[tuple[object, ...]]:
        with store._read() as cur:
            return cur.execute("SELECT chunk_id, ctid::text, xmin::text FROM chunks ORDER BY chunk_id").fetchall()

    before = chunk_rows()
    ids = [int(r[0]) for r in before]
    store.set_tokens(ids, [["tokenizer", "changed"]] * len(ids), 99)
    assert chunk_rows() == before
    assert store.manifest()["tokenizer"] == 99
    with store._read() as cur:
        assert cur.execute("SELECT count(*), min(tokens), sum(length) FROM chunk_tokens").fetchone() == (
            len(ids), "tokenizer changed", 2 * len(ids))
        toast = cur.execute("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'chunks'").fetchone()
    assert store.bm25_statistics() == (len(ids), 2 * len(ids), 2)
    assert toast is not None and toast[0] == 0  # every vector in line
    assert store.exact_scan_rows == EXACT_SCAN_ROWS_INLINE


def test_team_init_upgrades_a_library_with_tokens_in_the_chunk_rows(real_pair, team_url: str, tmp_path: Path,
                                                                     fake_embedder: FakeEmbedder) -> None:
    """A library made before schema 2 (tokens in ``chunks``) is refused with the way out
    (``team init``), which moves the tokens out without rewriting a chunk row; search then
    gives the same results as before."""
    _local, team = real_pair
    before = [[(h.chunk.chunk_id, round(h.score, 9)) for h in HybridRetriever(team, Settings().retrieval).search(
        q, k=10, mode="hybrid")] for q in QUESTIONS]
    team.close()
    with psycopg.connect(team_url, autocommit=True) as conn, conn.transaction():  # as schema 1 stored it
        conn.execute("SET search_path = desktop_rag, public")
        conn.execute("ALTER TABLE chunks ADD COLUMN tokens text, ADD COLUMN length int")
        conn.execute("UPDATE chunks c SET tokens = t.tokens, length = t.length FROM chunk_tokens t"
                     " WHERE t.chunk_id = c.chunk_id")
        conn.execute("DROP TABLE chunk_tokens")
        conn.execute("UPDATE manifest SET value = '1' WHERE key = 'db_schema'")
        rows = conn.execute("SELECT chunk_id, ctid::text, xmin::text FROM chunks ORDER BY chunk_id").fetchall()
    with pytest.raises(LibraryUnavailable, match=r"earlier version.*team init"):
        PostgresStore(team_url, Settings())
    init_team(team_url, fake_embedder)
    upgraded = Library(tmp_path / "desk2", Settings(), fake_embedder, location=team_url)
    try:
        assert upgraded.store.manifest()["db_schema"] == DB_SCHEMA_VERSION
        with upgraded.store._read() as cur:  # type: ignore[attr-defined]
            assert cur.execute("SELECT chunk_id, ctid::text, xmin::text FROM chunks ORDER BY chunk_id").fetchall() == rows
        after = [[(h.chunk.chunk_id, round(h.score, 9)) for h in HybridRetriever(upgraded, Settings().retrieval).search(
            q, k=10, mode="hybrid")] for q in QUESTIONS]
        assert after == before
    finally:
        upgraded.close()


def test_a_halfvec_index_chooses_the_same_neighbours_scored_by_the_float_vectors(
        pg_database: str, tmp_path: Path, fake_embedder: FakeEmbedder, sample_pdf: Path) -> None:
    """``server_hnsw_halfvec``: the HNSW index is an expression index over the vectors' half-
    precision cast (pgvector halfvec), the query orders by that expression so the index
    serves it, and the scores returned are still the float vectors' cosines: on this small
    library the top-10 equals exact search."""
    settings = Settings()
    settings.library.server_hnsw_halfvec = True
    url = init_team(pg_database, fake_embedder, settings)
    team = Library(tmp_path / "desk", settings, fake_embedder, location=url)
    try:
        assert not _ingest(team, [sample_pdf]).failed
        store = team.store
        assert isinstance(store, PostgresStore)
        with store._read() as cur:
            ddl = cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'").fetchone()
        half = f"halfvec({fake_embedder.dim})"
        assert ddl and half in ddl[0] and "halfvec_cosine_ops" in ddl[0]
        assert half in store._dense_order
        ids, vectors = team.all_vectors()
        for q in QUESTIONS:
            qv = team.embedder.encode_query(q)
            sims = vectors @ qv
            exact = sorted(zip(ids.tolist(), sims.tolist(), strict=True), key=lambda x: (-x[1], x[0]))[:10]
            got = store.dense_search(qv, 10, None)
            np.testing.assert_allclose([s for _, s in got], [s for _, s in exact], atol=1e-6)  # float cosines
            with store._read() as cur:  # the planner can use the index for that ORDER BY
                cur.execute("SET enable_seqscan = off")
                plan = "\n".join(r[0] for r in cur.execute(
                    f"EXPLAIN SELECT chunk_id FROM chunks ORDER BY {store._dense_order} LIMIT 10",
                    {"q": np.asarray(qv, dtype=np.float32)}).fetchall())
                cur.execute("RESET enable_seqscan")
            assert "chunks_embedding" in plan
            hits = HybridRetriever(team, settings.retrieval).search(q, k=5, mode="dense")
            assert [round(h.score, 6) for h in hits] == [round(s, 6) for _, s in exact[:5]]
    finally:
        team.close()


def test_hybrid_search_inside_a_snapshot_does_not_wait_for_itself(real_pair) -> None:
    """The dense query normally runs on a thread of the library beside BM25; inside a
    snapshot this thread holds the connection, so the two run one after the other (same
    results, no deadlock)."""
    _local, team = real_pair
    retriever = HybridRetriever(team, Settings().retrieval)
    outside = [(h.chunk.chunk_id, h.score) for h in retriever.search(QUESTIONS[0], k=10, mode="hybrid")]
    with team.store.snapshot():
        assert team.store.in_snapshot()  # type: ignore[attr-defined]
        inside = [(h.chunk.chunk_id, h.score) for h in retriever.search(QUESTIONS[0], k=10, mode="hybrid")]
    assert inside == outside and not team.store.in_snapshot()  # type: ignore[attr-defined]


def test_a_filing_another_desktop_commits_meanwhile_is_not_embedded_again(
        tmp_path: Path, team_url: str, fake_embedder: FakeEmbedder) -> None:
    """Two desktops add the same filing at once: the one that finishes reading it second asks
    the server before embedding and skips the copy."""
    pdf = write_pdf(tmp_path / "p" / "2023 Q3 AAPL.pdf", APPLE_PAGES)
    a = Library(tmp_path / "a", Settings(), fake_embedder, location=team_url)
    b = Library(tmp_path / "b", Settings(), fake_embedder, location=team_url)
    embedded: list[int] = []
    encode = fake_embedder.encode

    def counting(texts: list[str], *args: object, **kw: object) -> np.ndarray:
        embedded.append(len(texts))
        return encode(texts, *args, **kw)

    report = IngestReport()
    try:
        for ev in b.ingest([pdf], report=report):
            if ev.kind == "step" and ev.step == "index":  # B has read the filing; A commits it now
                assert not _ingest(a, [pdf]).failed
                fake_embedder.encode = counting  # type: ignore[method-assign]
        assert report.skipped and not report.added and embedded == []
        assert len(b.store.documents()) == 1
    finally:
        fake_embedder.encode = encode  # type: ignore[method-assign]
        a.close()
        b.close()
