"""The team library: PostgreSQL (15 or newer) with the ``vector`` extension (pgvector).

One database holds the library of a team; every desktop connects to it (``--library
postgresql://...`` or the "Library location" setting). Layout, in the ``desktop_rag``
schema (made by ``main.py team init URL``, see ``init_team_library``):

- ``manifest`` (key -> jsonb): schema version, embedder id and dimension, chunking,
  tokenizer and extractor versions, and the ``generation`` bumped by every write.
- ``changes`` (generation -> the documents it changed, NULL: all): written by the same
  transaction as the generation. The transaction also sends ``NOTIFY desktop_rag_library``
  with no payload: a notification only says "look" (any role that may connect can send one,
  so it carries nothing to trust). Every desktop LISTENs (``ChangeFeed``), then reads the
  generation and these rows, which only editors can write, and applies just those documents
  to its in-memory views (core/index/library.py): a filing added elsewhere is searchable
  within a second, without a restart or a reload of the library.
- ``writer_lock`` (one row): a writing transaction locks it first (``SELECT ... FOR UPDATE``,
  which needs the UPDATE privilege: editors only), so writers commit one at a time and no
  reader can hold them up (an advisory lock, which any role may take, could).
- ``documents`` (meta as jsonb), ``pages``, ``chunks`` (the embedding as ``vector(dim)``,
  kept in line, under an HNSW index: ``vector_cosine_ops``, or ``halfvec_cosine_ops`` over
  its half-precision cast), ``chunk_tokens`` (a chunk's BM25 tokens and their count: a new
  tokenizer rewrites these, never a chunk row and its HNSW entry), ``statements``.
- ``postings`` (term, chunk, tf), ``terms`` (term, df) and ``bm25_stats`` (chunk count,
  total length, vocabulary size): the library's term statistics and postings, kept by
  every write in the same transaction. A desktop scores BM25 from its in-memory copy of
  them (``core.domain.terms.LexicalIndex``, rank-bm25's Okapi scores, the one scorer of both
  backends; loaded at connect from the chunks' tokens, which the postings are made of, and
  kept current from the change notifications; a test checks its statistics are ``bm25_stats``) rather than aggregating postings in SQL per
  question: measured at 100k chunks, SQL took seconds and the copy milliseconds.

A document is written in one transaction (rows, vectors, postings, statistics,
statements) under the writer lock, so two desktops ingesting at once both succeed, the same
file (one SHA-256, the primary key) becomes one document, and a desktop killed mid-ingest
leaves nothing. The server keeps a document's file name (``documents.path`` too), never a
desktop's folders; the desktop that added it remembers where its copy is (``LocalPaths``).
Two roles: ``desktop_rag_reader`` (search, ask) and ``desktop_rag_editor`` (ingest, remove,
edit metadata); the library's owner runs ``team init``. Passwords come from libpq's own
places (``PGPASSWORD``, ``~/.pgpass``, a service file), never from a URL (refused). Set-up,
certificates and roles: docs/team-library-setup.md.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import select
import struct
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import psycopg
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.adapt import Dumper, Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import ConnStatus, Format, TransactionStatus
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

from desktop_rag.core.domain.page_types import PAGE_TYPES_VERSION, page_type
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta
from desktop_rag.core.index.backends.base import (
    PASSWORD_PLACES,
    SETUP_DOC,
    LibraryLoginFailed,
    LibraryPermissionDenied,
    LibraryUnavailable,
    ReadOnlyLibrary,
    StatementRows,
    check_url,
    ids_by_document,
    redact,
)
from desktop_rag.core.ingest.statements.model import page_kinds
from desktop_rag.settings import Settings, parameter_name, without_secrets, write_text_atomic

SCHEMA = "desktop_rag"
# 2: BM25 tokens in chunk_tokens, vectors in line; 3: the changes log and the writer lock
DB_SCHEMA_VERSION = 3
READER_ROLE = "desktop_rag_reader"
EDITOR_ROLE = "desktop_rag_editor"
CHANGES_KEPT = 10_000  # generations the changes log keeps (a desktop further behind reloads all)
# rank-bm25 substitutes a dummy token for an empty chunk (LexicalIndex.EMPTY_TOKEN, a NUL);
# PostgreSQL text cannot hold NUL, and the name never matters (no query produces it).
EMPTY_TERM = "\x01"
CHANGES_CHANNEL = "desktop_rag_library"  # NOTIFY with no payload: "look" (the changes log says what changed)
PGVECTOR_MAX_EF_SEARCH = 1000
PGVECTOR_MAX_M = 100


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _reason(exc: BaseException) -> str:
    """The server's or libpq's own words of a failed connection: those of the last address
    tried, after libpq's "connection to server at ... failed:", with the lines that follow
    (e.g. where the password was read from)."""
    lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
    last = max((i for i, line in enumerate(lines) if " failed: " in line), default=None)
    if last is None:
        words = "; ".join(lines) or type(exc).__name__
    else:
        words = "; ".join([lines[last].rsplit(" failed: ", 1)[1], *lines[last + 1:]])
    return words[:-1] if words.endswith(".") and not words.endswith("..") else words  # the caller ends the sentence


def url_user(url: str) -> str:
    """The role a connection string logs in as (libpq's default: PGUSER, else the OS user)."""
    try:
        user = conninfo_to_dict(url).get("user")
    except psycopg.Error:
        user = None
    if not user:
        try:
            user = os.environ.get("PGUSER") or getpass.getuser()
        except Exception:  # no user name to be found (a bare container)
            user = "?"
    return str(user)


def url_database(url: str) -> str:
    try:
        db = conninfo_to_dict(url).get("dbname")
    except psycopg.Error:
        db = None
    return str(db or os.environ.get("PGDATABASE") or url_user(url))


# How libpq and the server word each failure (their English messages; the server's are in its
# lc_messages). A login the server refused: a wrong or missing password, a role that does not
# exist or may not log in, no pg_hba.conf line for it, a client certificate it does not accept.
_LOGIN_REFUSED = re.compile(
    r"authentication failed|no password supplied|password is required|role \".*?\" does not exist|"
    r"not permitted to log in|no pg_hba\.conf entry|pg_hba\.conf rejects|valid client certificate|"
    r"certificate authentication|could not (?:open|read) certificate file|private key", re.I)
# of those, a certificate login's: the server wants a client certificate (a pg_hba.conf `cert`
# line) or refused the one given, or libpq could not use this desktop's certificate or key
_CLIENT_CERTIFICATE = re.compile(
    r"valid client certificate|certificate authentication|could not (?:open|read) certificate file|private key", re.I)
_NO_DATABASE = re.compile(r"database \".*?\" does not exist", re.I)
# the server's certificate or TLS itself (the desktop checks the certificate: sslmode=verify-full)
_TLS = re.compile(r"certificate|root\.crt|sslrootcert|does not support SSL|SSL (?:was )?required|tlsv1 alert|"
                  r"handshake", re.I)


def _passfile(params: dict[str, Any]) -> Path:
    """The password file libpq reads for a connection: the string's passfile=, PGPASSFILE, else
    ~/.pgpass (on Windows %APPDATA%\\postgresql\\pgpass.conf)."""
    named = params.get("passfile") or os.environ.get("PGPASSFILE")
    if named:
        return Path(str(named)).expanduser()
    if os.name == "nt":
        return Path(os.environ.get("APPDATA", "")) / "postgresql" / "pgpass.conf"
    return Path.home() / ".pgpass"


def _passfile_fields(line: str) -> list[str]:
    """A password file's line split at its unescaped colons, ``\\:`` and ``\\\\`` unescaped."""
    fields, field, escaped = [], "", False
    for ch in line:
        if escaped:
            field, escaped = field + ch, False
        elif ch == "\\":
            escaped = True
        elif ch == ":":
            fields.append(field)
            field = ""
        else:
            field += ch
    return [*fields, field]


def _other_database_hint(url: str) -> str:
    """When libpq found no password: whether the password file has the login's password on this
    server for other databases only, as a misspelled database name in the URL does (the server
    is never asked, so it cannot say there is no such database)."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error:
        return ""
    if params.get("service") or os.environ.get("PGSERVICE"):
        return ""  # the service file names the server and database: not worked out here
    hosts = [h if h and not h.startswith("/") else "localhost"
             for h in str(params.get("host") or os.environ.get("PGHOST") or "").split(",")]
    port = str(params.get("port") or os.environ.get("PGPORT") or "5432").split(",")[0]
    user, database, path = url_user(url), url_database(url), _passfile(params)
    try:
        lines = path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    others: list[str] = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = _passfile_fields(line)
        if len(fields) < 5:
            continue
        f_host, f_port, f_db, f_user = fields[:4]
        if f_host not in ("*", *hosts) or f_port not in ("*", port) or f_user not in ("*", user):
            continue
        if f_db in ("*", database):
            return ""  # a line for this database: not the cause
        if f_db not in others:
            others.append(f_db)
    if not others:
        return ""
    try:
        shown = f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        shown = str(path)
    return (f"{shown} has {user}'s password on this server for the database {' and '.join(others)}, not for "
            f"{database}: the database name in the URL may be wrong")


def connection_error(url: str, exc: BaseException) -> LibraryUnavailable:
    """What a failed connection means, in words a person can act on: the login refused
    (``LibraryLoginFailed``), no such database, the server's certificate not trusted, or the
    server not reached (``LibraryUnavailable``)."""
    text, where, reason = " ".join(str(exc).split()), redact(url), _reason(exc)
    if _LOGIN_REFUSED.search(text):
        user = url_user(url)
        if _CLIENT_CERTIFICATE.search(text):
            check = (f"check {user}'s client certificate and its key (the URL's sslcert= and sslkey=, else "
                     "~/.postgresql/postgresql.crt and postgresql.key; the certificate's common name is the login, "
                     "signed by a CA the server trusts; the key readable by its owner alone)")
        else:
            check = f"check {user}'s password where this desktop keeps it ({PASSWORD_PLACES})"
        database = _other_database_hint(url) if re.search(r"no password supplied", text, re.I) else ""
        advice = f"{database}; otherwise {check}" if database else check[0].upper() + check[1:]
        return LibraryLoginFailed(
            f"The team library at {where} refused the login of {user}: {reason}. {advice}, or ask the library's "
            f"administrator whether {user} may log in.")
    if _NO_DATABASE.search(text):
        return LibraryUnavailable(
            f"There is no database {url_database(url)} at {where} ({reason}): check the URL, or create the team "
            f"library there first (`main.py team init URL --admin-url ...`, see {SETUP_DOC}).")
    if _TLS.search(text):
        return LibraryUnavailable(
            f"Cannot connect securely to the team library at {where}: {reason}. With sslmode=verify-full this desktop "
            "checks the server's certificate against the CA certificate in ~/.postgresql/root.crt (on Windows "
            "%APPDATA%\\postgresql\\root.crt) or the URL's sslrootcert=, and the URL's host name against the "
            f"certificate ({SETUP_DOC}).")
    return LibraryUnavailable(f"Cannot reach the team library at {where}: {reason}")


def connect(url: str, settings: Settings) -> psycopg.Connection[Any]:
    """A connection with the library's timeouts; a failure -> ``connection_error``'s
    ``LibraryUnavailable`` (or ``LibraryLoginFailed``)."""
    check_url(url)
    cfg = settings.library
    try:
        return psycopg.connect(
            url, autocommit=True, connect_timeout=max(1, cfg.connect_timeout_s),
            # a server that vanished (no reset, e.g. a network cut) must not hang a question:
            # keepalive probes find the silent peer in ~25 s. (No tcp_user_timeout: a busy
            # server legitimately leaves a large COPY unacknowledged for longer.)
            keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3,
            options=f"-c statement_timeout={cfg.statement_timeout_s * 1000} -c search_path={SCHEMA},public",
        )
    except psycopg.OperationalError as exc:
        raise connection_error(url, exc) from exc
    except psycopg.ProgrammingError as exc:  # a malformed connection string
        raise LibraryUnavailable(f"Not a usable library URL ({redact(url)}): {_first_line(exc)}") from exc


def _readable(fd: int) -> bool:
    """Whether a socket has something to read now (no wait)."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # Windows: sockets only, which this is


def _dropped(conn: psycopg.Connection[Any]) -> bool:
    """Whether an idle connection was closed under us (a server restarted or stopped, an
    administrator's pg_terminate_backend): though no query is under way its socket is
    readable, and stays readable once what was sent is read (the end of the stream). One
    poll, no round trip. A silent peer (a network cut) is found by the keepalives instead."""
    if conn.closed or conn.broken:
        return True
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return False
    try:
        fd = conn.fileno()
        if not _readable(fd):
            return False
    except (OSError, ValueError, psycopg.Error):
        return False  # cannot tell: the statement itself will find out
    try:
        conn.pgconn.consume_input()
        return _readable(fd) or conn.pgconn.status == ConnStatus.BAD
    except (OSError, ValueError, psycopg.Error):
        return True


def _vector_adapters(conn: psycopg.Connection[Any]) -> None:
    """numpy float32 arrays <-> pgvector's binary ``vector`` (a uint16 dim, a uint16 unused,
    then big-endian float4s): no text round trip, so vectors come back bit for bit."""
    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        raise LibraryUnavailable("the server has no 'vector' extension: run `main.py team init URL` first")
    vector_oid = info.oid

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: Any) -> bytes:
            a = np.asarray(obj, dtype=">f4").ravel()
            return struct.pack(">HH", a.size, 0) + a.tobytes()

    class VectorLoader(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:  # little-endian float32 bytes, as the SQLite BLOB
            return np.frombuffer(bytes(data), dtype=">f4", offset=4).astype("<f4").tobytes()

    conn.adapters.register_dumper(np.ndarray, VectorDumper)
    conn.adapters.register_loader(info.oid, VectorLoader)


def hnsw_index_sql(dim: int, m: int, ef_construction: int, halfvec: bool) -> str:
    """The chunks' HNSW index (cosine): over the float vectors, or (``halfvec``) over their
    half-precision cast, an expression index (pgvector >= 0.7) half the size, with no second
    column: the dense query orders by the same expression (``_index_order``)."""
    expr, ops = (f"(embedding::public.halfvec({int(dim)}))", "public.halfvec_cosine_ops") if halfvec else (
        "embedding", "public.vector_cosine_ops")
    return (f"CREATE INDEX IF NOT EXISTS chunks_embedding ON chunks USING hnsw ({expr} {ops})"
            f" WITH (m = {int(m)}, ef_construction = {int(ef_construction)})")


def _schema_sql(dim: int, m: int, ef_construction: int, halfvec: bool = False) -> list[str]:
    return [
        f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
        "CREATE TABLE IF NOT EXISTS manifest (key text PRIMARY KEY, value jsonb NOT NULL)",
        """CREATE TABLE IF NOT EXISTS documents (
            doc_id text PRIMARY KEY, file_name text NOT NULL, path text NOT NULL, pages int NOT NULL,
            meta jsonb NOT NULL, meta_edited boolean NOT NULL DEFAULT false, added_at text NOT NULL)""",
        # the filters an analyst's question implies (company, form, period) are indexed
        "CREATE INDEX IF NOT EXISTS documents_company ON documents ((meta->>'company'))",
        "CREATE INDEX IF NOT EXISTS documents_form_period ON documents"
        " ((meta->>'form_type'), ((meta->>'fiscal_year')::int), ((meta->>'fiscal_quarter')::int))",
        """CREATE TABLE IF NOT EXISTS pages (
            doc_id text NOT NULL REFERENCES documents ON DELETE CASCADE, page int NOT NULL,
            text text NOT NULL, PRIMARY KEY (doc_id, page))""",
        f"""CREATE TABLE IF NOT EXISTS chunks (
            chunk_id bigserial PRIMARY KEY, doc_id text NOT NULL REFERENCES documents ON DELETE CASCADE,
            ordinal int NOT NULL, page int NOT NULL, char_start int NOT NULL, char_end int NOT NULL,
            kind text NOT NULL, section text NOT NULL, embedding public.vector({int(dim)}))""",
        "CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id, ordinal)",
        hnsw_index_sql(dim, m, ef_construction, halfvec),
        # a chunk's BM25 tokens beside it, not in it: a new tokenizer rewrites these narrow rows
        # (and the postings), never a chunk row and its HNSW entry; and a chunk row without them
        # (~1.7 kB at 384 dims) keeps its vector in line, so an exact scan of a filter's rows
        # reads heap pages, not one TOAST lookup per row
        """CREATE TABLE IF NOT EXISTS chunk_tokens (
            chunk_id bigint PRIMARY KEY REFERENCES chunks ON DELETE CASCADE, tokens text NOT NULL,
            length int NOT NULL)""",
        # a chunk's length beside each of its postings: a query reads only the postings of its
        # terms (an index-only scan of the primary key), never the chunks table
        """CREATE TABLE IF NOT EXISTS postings (
            term text NOT NULL, chunk_id bigint NOT NULL REFERENCES chunks ON DELETE CASCADE, tf int NOT NULL,
            length int NOT NULL, PRIMARY KEY (term, chunk_id) INCLUDE (tf, length))""",
        "CREATE INDEX IF NOT EXISTS postings_chunk ON postings (chunk_id)",
        "CREATE TABLE IF NOT EXISTS terms (term text PRIMARY KEY, df int NOT NULL)",
        """CREATE TABLE IF NOT EXISTS bm25_stats (
            id int PRIMARY KEY CHECK (id = 1), n bigint NOT NULL, total_len bigint NOT NULL,
            idf_sum float8 NOT NULL, vocab bigint NOT NULL)""",  # idf_sum, vocab: unused (BM25 is scored on the desktop)
        "INSERT INTO bm25_stats VALUES (1, 0, 0, 0, 0) ON CONFLICT DO NOTHING",
        """CREATE TABLE IF NOT EXISTS statements (
            doc_id text PRIMARY KEY REFERENCES documents ON DELETE CASCADE, extractor int NOT NULL,
            data text NOT NULL)""",
        # page -> statement kinds on it (statements.model.page_kinds of ``data``): what search
        # reads (the statement boost), so no desktop fetches and parses the statements to search
        "ALTER TABLE statements ADD COLUMN IF NOT EXISTS page_map jsonb",
        # each page's domain.page_types type and the rules' version that typed it, written with
        # the page: a search reads its pages' types with its candidates instead of typing them
        "ALTER TABLE pages ADD COLUMN IF NOT EXISTS page_type text",
        "ALTER TABLE pages ADD COLUMN IF NOT EXISTS page_type_version int",
        # what each generation changed (NULL: everything), written with the generation: what a
        # desktop applies when a notification says "look" (a notification itself carries nothing)
        """CREATE TABLE IF NOT EXISTS changes (
            generation bigint PRIMARY KEY, docs text[], committed_at timestamptz NOT NULL DEFAULT clock_timestamp())""",
        # the row every writing transaction locks first (FOR UPDATE: editors only)
        "CREATE TABLE IF NOT EXISTS writer_lock (id int PRIMARY KEY CHECK (id = 1))",
        "INSERT INTO writer_lock VALUES (1) ON CONFLICT DO NOTHING",
    ]


def _upgrade_schema(conn: psycopg.Connection[Any]) -> bool:
    """Bring a library made by an earlier version to ``DB_SCHEMA_VERSION`` (in the caller's
    transaction; idempotent). 2: the BM25 tokens move from ``chunks`` to ``chunk_tokens``
    (copied, then the columns dropped: no chunk row or HNSW entry is rewritten), and vectors
    are kept in line (``STORAGE MAIN``) by rows written from now on. The rows already stored
    keep their out-of-line vectors until the table is rewritten (``VACUUM FULL chunks``, as
    long as an index build). Returns whether anything was moved."""
    moved = conn.execute(
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = %s AND table_name = 'chunks'"
        " AND column_name IN ('tokens', 'length')", (SCHEMA,)).fetchone()
    if moved and moved[0]:
        conn.execute("INSERT INTO chunk_tokens (chunk_id, tokens, length) SELECT chunk_id, tokens, length FROM chunks"
                     " ON CONFLICT (chunk_id) DO NOTHING")
        conn.execute("ALTER TABLE chunks DROP COLUMN tokens, DROP COLUMN length")
    # in line unless the row could not fit a page otherwise (pgvector's default is EXTERNAL:
    # beside the tokens every vector went to TOAST, ~14 us a row for an exact scan)
    conn.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN")
    # 3: a document's path is its file name (earlier versions stored the adding desktop's path)
    conn.execute("UPDATE documents SET path = file_name WHERE path <> file_name")
    conn.execute("INSERT INTO manifest VALUES ('db_schema', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                 (Jsonb(DB_SCHEMA_VERSION),))
    return bool(moved and moved[0])


def _grants_sql() -> list[str]:
    """What each role may do (run by the owner at every ``team init``): readers read; editors
    also write, and lock the writer lock, but may not remove its row; nobody else anything."""
    out = [f"GRANT USAGE ON SCHEMA {SCHEMA} TO {role}" for role in (READER_ROLE, EDITOR_ROLE)]
    out += [
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {READER_ROLE}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {SCHEMA} TO {EDITOR_ROLE}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {SCHEMA} TO {EDITOR_ROLE}",
        f"REVOKE ALL ON writer_lock FROM {READER_ROLE}, PUBLIC",
        f"REVOKE INSERT, DELETE, TRUNCATE ON writer_lock FROM {EDITOR_ROLE}",
        f"REVOKE ALL ON SCHEMA {SCHEMA} FROM PUBLIC",
    ]
    return out


def server_index_params(settings: Settings) -> tuple[int, int]:
    """(m, ef_construction) of the server's HNSW index from the settings, within pgvector's
    limits (m <= 100, ef_construction >= 2 * m)."""
    m = min(settings.library.server_hnsw_m, PGVECTOR_MAX_M)
    return m, max(settings.library.server_hnsw_ef_construction, 2 * m)


def _page_map(statements: list[dict[str, Any]]) -> Jsonb:
    return Jsonb({str(page): kinds for page, kinds in page_kinds(statements).items()})


def _fill_page_maps(conn: psycopg.Connection[Any]) -> int:
    """Store the page map of statements written before it existed (a library made by an
    earlier version); returns how many documents got one."""
    rows = conn.execute("SELECT doc_id, data FROM statements WHERE page_map IS NULL").fetchall()
    for doc_id, data in rows:
        conn.execute("UPDATE statements SET page_map = %s WHERE doc_id = %s", (_page_map(json.loads(data)), doc_id))
    return len(rows)


def _fill_page_types(conn: psycopg.Connection[Any]) -> int:
    """Type the pages stored without a type of this version (an earlier version's library)."""
    rows = conn.execute("SELECT doc_id, page, text FROM pages WHERE page_type_version IS DISTINCT FROM %s",
                        (PAGE_TYPES_VERSION,)).fetchall()
    with conn.cursor() as cur:
        cur.executemany("UPDATE pages SET page_type = %s, page_type_version = %s WHERE doc_id = %s AND page = %s",
                        [(page_type(text), PAGE_TYPES_VERSION, doc_id, page) for doc_id, page, text in rows])
    return len(rows)


def _with_database(url: str, dbname: str) -> str:
    """The same server and login as ``url``, in the database ``dbname``."""
    scheme, _, rest = url.partition("://")
    rest, _, query = rest.partition("?")
    kept = "&".join(p for p in query.split("&") if p and parameter_name(p) != "dbname")
    return f"{scheme}://{rest.partition('/')[0]}/{quote(dbname, safe='')}" + (f"?{kept}" if kept else "")


# a connection string's parameters that belong to one person (a client certificate, a password
# file): left out of the strings ``team init`` prints for others
PERSONAL_PARAMETERS = {"user", "password", "sslpassword", "sslcert", "sslkey", "passfile"}


def person_url(url: str, user: str) -> str:
    """The library's connection string for ``user``: the same server, database and TLS
    settings, that user's name, no secret and none of the URL's own person's files."""
    scheme, _, rest = without_secrets(url).partition("://")
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    kept = [p for p in query.split("&") if p and parameter_name(p) not in PERSONAL_PARAMETERS]
    return (f"{scheme}://{quote(user, safe='')}@{netloc.rpartition('@')[2]}{slash}{path}"
            + (f"?{'&'.join(kept)}" if kept else ""))


# the sslmodes with which libpq checks the server's certificate against the trusted CA
# (verify-full: and the host name against the certificate)
CHECKED_SSLMODES = ("verify-full", "verify-ca")


def identity_notice(conn: psycopg.Connection[Any], url: str) -> str:
    """"" when this connection checked the server's identity (an sslmode of ``CHECKED_SSLMODES``,
    wherever it came from: the URL, a service file, PGSSLMODE) or never left this computer (a
    Unix socket, where TLS does not apply); else a sentence that it did not, for the person
    using it (a warning: a test server without TLS still works)."""
    host = conn.info.host or ""
    if host.startswith(("/", "@")):
        return ""
    options = {o.keyword.decode(): (o.val or b"").decode() for o in conn.pgconn.info}
    mode = options.get("sslmode") or "prefer"
    if mode in CHECKED_SSLMODES:
        return ""
    return (f"Warning: the team library at {redact(url)} is reached with sslmode={mode}: this desktop does not check "
            "the server's identity (its certificate), so another machine could pose as the server. Connection "
            f"strings with sslmode=verify-full have it checked ({SETUP_DOC}).")


def _missing_roles(conn: psycopg.Connection[Any]) -> list[str]:
    have = {r[0] for r in conn.execute("SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)",
                                       ([READER_ROLE, EDITOR_ROLE],)).fetchall()}
    return [r for r in (READER_ROLE, EDITOR_ROLE) if r not in have]


def _create_extension(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public")
    except (pg_errors.FeatureNotSupported, pg_errors.UndefinedFile) as exc:  # pgvector is not installed
        raise ValueError(f"the server has no pgvector to create the vector extension from ({_first_line(exc)}): "
                         f"install it on the server first (e.g. the postgresql-NN-pgvector package), see {SETUP_DOC}"
                         ) from exc


def _admin_setup(admin_url: str, settings: Settings, owner: str, dbname: str,
                 notify: Callable[[str], None]) -> list[str]:
    """What of ``team init`` only a superuser may do, as the superuser of ``admin_url``: the
    library's database (made for ``owner``), the vector extension in it (pgvector is not a
    trusted extension) and the two group roles, which ``owner`` may then grant to people
    (ADMIN OPTION). Returns what was done; ``notify`` is told when the server's identity is
    not checked (``identity_notice``)."""
    admin, done = url_user(admin_url), []
    conn = connect(admin_url, settings)
    try:
        notice = identity_notice(conn, admin_url)
        if notice:
            notify(notice)
        row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        if not (row and row[0]):
            raise LibraryPermissionDenied(
                f"team init --admin-url: {admin} is not a superuser, and creating the vector extension needs one: "
                "give the server's superuser's connection string (e.g. postgresql://postgres@HOST:5432/postgres)")
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (owner,)).fetchone() is None:
            raise ValueError(f"there is no role {owner} on the server to own the library: create it first (in psql, "
                             f"as {admin}: CREATE ROLE {owner} LOGIN; \\password {owner}), see {SETUP_DOC}")
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(dbname), sql.Identifier(owner)))
            done.append(f"database {dbname} created for {owner}")
    finally:
        conn.close()
    conn = connect(_with_database(admin_url, dbname), settings)
    try:
        with conn.transaction():
            if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
                _create_extension(conn)
                done.append("vector extension created")
            missing = _missing_roles(conn)
            for role in missing:
                conn.execute(f"CREATE ROLE {role} NOLOGIN")
            if missing:
                done.append(f"roles {', '.join(missing)} created")
            conn.execute(sql.SQL("GRANT {}, {} TO {} WITH ADMIN OPTION").format(
                sql.Identifier(READER_ROLE), sql.Identifier(EDITOR_ROLE), sql.Identifier(owner)))
            conn.execute(sql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(sql.Identifier(dbname),
                                                                              sql.Identifier(owner)))
    finally:
        conn.close()
    return done


def _check_owner(conn: psycopg.Connection[Any], where: str) -> None:
    """``team init`` by anyone but the library's owner (or a superuser) is told, before anything
    is tried, what they are and who runs it: an editor, a reader or a stranger to the library."""
    row = conn.execute(
        "SELECT pg_get_userbyid(n.nspowner), current_user, r.rolsuper, pg_has_role(current_user, n.nspowner, 'MEMBER'),"
        " CASE WHEN to_regrole(%(e)s) IS NOT NULL THEN pg_has_role(current_user, to_regrole(%(e)s), 'MEMBER') END,"
        " CASE WHEN to_regrole(%(r)s) IS NOT NULL THEN pg_has_role(current_user, to_regrole(%(r)s), 'MEMBER') END"
        " FROM pg_namespace n, pg_roles r WHERE n.nspname = %(s)s AND r.rolname = current_user",
        {"e": EDITOR_ROLE, "r": READER_ROLE, "s": SCHEMA}).fetchone()
    if row is None or row[2] or row[3]:
        return  # no library yet, or its owner (or a superuser)
    owner, user, _, _, editor, reader = row
    what = ("an editor" if editor else "a reader" if reader else "not the owner") + f" of the team library at {where}"
    if editor or reader:
        what += " (editors add, remove and edit filings)" if editor else " (readers search and ask)"
    raise LibraryPermissionDenied(
        f"team init: {user} is {what}. team init sets the library up and changes its tables and roles: its owner, "
        f"{owner}, runs it (or a superuser, with --admin-url); see {SETUP_DOC}.")


def init_team_library(
    url: str, settings: Settings, manifest: dict[str, Any], admin_url: str | None = None,
    readers: Sequence[str] = (), editors: Sequence[str] = (), notify: Callable[[str], None] = lambda _m: None,
) -> str:
    """Create (or complete, or upgrade) a team library, as the role of ``url``, who owns it:
    the schema, tables, indexes and grants, with this desktop's manifest; then grant the
    reader or editor role to the login roles named. ``admin_url`` (a superuser's connection
    string on the same server) first does what only a superuser may (``_admin_setup``: the
    database, the vector extension, the group roles). Idempotent; refuses a database that
    already holds a library built with another embedder, and anyone but the owner. Returns
    what was done and each person's connection string (no secret in any); ``notify`` is told,
    once for each of the two URLs, when the server's identity is not checked (``identity_notice``)."""
    check_url(url)
    if admin_url:
        check_url(admin_url)
    m, efc = server_index_params(settings)
    halfvec = settings.library.server_hnsw_halfvec
    owner, dbname, where = url_user(url), url_database(url), redact(url)
    done = _admin_setup(admin_url, settings, owner, dbname, notify) if admin_url else []
    conn = connect(url, settings)
    try:
        notice = identity_notice(conn, url)
        if notice:
            notify(notice)
        _check_owner(conn, where)
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            try:
                _create_extension(conn)
            except pg_errors.InsufficientPrivilege as exc:
                raise LibraryPermissionDenied(
                    f"team init: the vector extension is not in database {dbname} yet, and creating it needs a "
                    "superuser (pgvector is not a trusted extension): run team init with --admin-url and the "
                    "superuser's connection string (e.g. postgresql://postgres@HOST:5432/postgres), or have the "
                    f"server's administrator run CREATE EXTENSION vector; in {dbname}. See {SETUP_DOC}.") from exc
        with conn.transaction():
            missing = _missing_roles(conn)
            try:
                with conn.transaction():
                    for role in missing:
                        conn.execute(f"CREATE ROLE {role} NOLOGIN")
            except pg_errors.InsufficientPrivilege as exc:
                raise LibraryPermissionDenied(
                    f"team init: the roles {' and '.join(missing)} do not exist yet, and {owner} may not create roles: "
                    f"run team init once with --admin-url and the superuser's connection string. See {SETUP_DOC}."
                ) from exc
            for stmt in _schema_sql(int(manifest["dim"]), m, efc, halfvec):
                conn.execute(stmt)
            stored = {k: v for k, v in conn.execute("SELECT key, value FROM manifest").fetchall()}
            if stored.get("schema_version"):
                problems = [f"{k}: library has {stored.get(k)!r}, this desktop {manifest[k]!r}"
                            for k in ("embedder", "dim") if stored.get(k) != manifest[k]]
                if problems:
                    raise ValueError("this database already holds a team library built differently: "
                                     + "; ".join(problems))
                created = False
            else:
                for k, v in {**manifest, "db_schema": DB_SCHEMA_VERSION, "generation": 0}.items():
                    conn.execute("INSERT INTO manifest VALUES (%s, %s) ON CONFLICT (key) DO UPDATE"
                                 " SET value = excluded.value", (k, Jsonb(v)))
                created = True
            upgraded = _upgrade_schema(conn)
            _fill_page_maps(conn)
            _fill_page_types(conn)
            for stmt in _grants_sql():
                conn.execute(stmt)
            for role, names in ((READER_ROLE, readers), (EDITOR_ROLE, editors)):
                for name in names:
                    try:
                        with conn.transaction():
                            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(role), sql.Identifier(name)))
                    except pg_errors.UndefinedObject as exc:
                        raise ValueError(f"there is no role {name} on the server: create it first (in psql: CREATE "
                                         f"ROLE {name} LOGIN; \\password {name}), then run team init again") from exc
        people = conn.execute(
            "SELECT p.rolname, bool_or(g.rolname = %s) FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid"
            " JOIN pg_roles p ON p.oid = a.member WHERE g.rolname IN (%s, %s) AND p.rolcanlogin"
            " AND p.rolname <> current_user GROUP BY p.rolname ORDER BY p.rolname",
            (EDITOR_ROLE, READER_ROLE, EDITOR_ROLE)).fetchall()
    except pg_errors.InsufficientPrivilege as exc:
        raise LibraryPermissionDenied(
            f"team init: {owner} may not set up the library in database {dbname} ({_first_line(exc)}): run it as the "
            f"database's owner, or once with --admin-url and the superuser's connection string. See {SETUP_DOC}."
        ) from exc
    finally:
        conn.close()
    what = "created" if created else "already set up; tables, roles and grants checked"
    if upgraded:
        what += (f"; upgraded to schema {DB_SCHEMA_VERSION} (BM25 tokens in their own table; `VACUUM FULL "
                 f"{SCHEMA}.chunks` once, in a quiet hour, puts the stored vectors in line for faster filtered search)")
    index = "halfvec " if halfvec else ""
    lines = [f"Team library at {where} {what} (embedder {manifest['embedder']}, {index}HNSW m={m}, "
             f"ef_construction={efc}); owner {owner}."]
    if done:
        lines.append(f"As {url_user(admin_url or '')}: " + "; ".join(done) + ".")
    lines.append(f"Roles: {READER_ROLE} (search, ask), {EDITOR_ROLE} (ingest, remove, edit metadata).")
    if people:
        lines.append("Connection strings to hand out (each person's password goes in their ~/.pgpass, PGPASSWORD or "
                     "a service file, never in the string):")
        width = max(len(name) for name, _ in people)
        lines += [f"  {name:<{width}}  {'editor' if editor else 'reader'}  {person_url(url, name)}"
                  for name, editor in people]
        lines.append("Someone who logs in with a client certificate instead of a password adds the certificate and its "
                     "key to their string: &sslcert=PATH&sslkey=PATH.")
    else:
        lines.append(f"Nobody has a role yet. Grant one: main.py team init URL --reader NAME --editor NAME (each NAME "
                     f"a login role: in psql, CREATE ROLE NAME LOGIN; \\password NAME). Each person's connection "
                     f"string: {person_url(url, 'NAME')}")
    return "\n".join(lines)


class ChangeFeed:
    """Wakes a desktop when a commit to its team library may have changed something: a
    connection of its own LISTENs (a daemon thread reads it and reconnects after a failure).

    A notification is trusted for nothing: any role that may connect can send one, with any
    payload, so ours carry none and every one only says "look". The desktop then reads the
    generation and the changes log (``PostgresStore.changed_documents``), which only editors
    can write: a forged notification costs one read of the generation and changes nothing.
    (Re)starting to listen counts as a notification too: a commit in the gap is not missed."""

    def __init__(self, url: str, settings: Settings) -> None:
        self.url, self.settings = url, settings
        self._cond = threading.Condition()
        self.listening = False
        self.received = 0  # notifications so far (a follower waits for this to move)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="desktop_rag-changes", daemon=True)
        self._thread.start()

    def _look(self) -> None:
        with self._cond:
            self.received += 1
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn = connect(self.url, self.settings)
            except LibraryUnavailable:
                self._stop.wait(2.0)
                continue
            try:
                conn.execute(f"LISTEN {CHANGES_CHANNEL}")
                with self._cond:
                    self.listening = True
                self._look()
                while not self._stop.is_set():
                    for _note in conn.notifies(timeout=0.5):
                        self._look()
            except psycopg.Error:
                pass  # a lost connection: listen afresh
            finally:
                with self._cond:
                    self.listening = False
                    self._cond.notify_all()
                conn.close()
            self._stop.wait(1.0)

    def wait_listening(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.listening, timeout)

    def wait_for_change(self, seen: int, timeout: float) -> int:
        """Block until a notification arrives after the first ``seen`` (or ``timeout``);
        returns the count of notifications received."""
        with self._cond:
            self._cond.wait_for(lambda: self.received != seen or self._stop.is_set(), timeout)
            return self.received

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=5)


class ConnectionLost(LibraryUnavailable):
    """A connection that worked was lost under a statement (not a timeout)."""


class LocalPaths:
    """Where this desktop's own copies of a team library's filings are (doc_id -> path, a
    JSON file in its data folder): the server keeps only file names, so one analyst's folders
    are never shown to the others, while the analyst who added a filing can still open it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._paths: dict[str, str] | None = None

    def _load(self) -> dict[str, str]:
        if self._paths is None:
            self._paths = {}
            if self.path is not None:
                try:
                    data = json.loads(self.path.read_text("utf-8"))
                    self._paths = {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
                except (OSError, ValueError):
                    pass
        return self._paths

    def get(self, doc_id: str) -> str | None:
        return self._load().get(doc_id)

    def remember(self, doc_id: str, path: str) -> None:
        if self.path is None or not Path(path).is_absolute():
            return
        paths = self._load()
        if paths.get(doc_id) != path:
            paths[doc_id] = path
            try:
                write_text_atomic(self.path, json.dumps(paths, indent=1))
            except OSError:
                pass  # only a convenience: the filing is in the library either way


# Exact (brute-force) search in SQL over a filter's rows, instead of the HNSW index with the
# filter (an iterative scan), up to this many rows. Measured at 1M chunks (README "Team
# library", load ~9) on a company's filings (26k-56k chunks): hybrid p50 / p95 230 / 455 ms
# scanning the in-line rows exactly, 650 / 870 ms when every vector is a TOAST lookup (a
# library written before schema 2 and not rewritten since), 709 / 21,558 ms by the index at
# ef_search 1000 (an iterative scan). With TOASTed vectors the limit stays at 2,000 (at 100k a
# filter's 3k-6k rows are served by the index in ~50 ms).
EXACT_SCAN_ROWS_INLINE = 60_000
EXACT_SCAN_ROWS_TOASTED = 2_000


def _exact_scan_rows(chunks: float, toast_bytes: int) -> int:
    """How many of a filter's rows an exact scan serves, from where the vectors are: a
    TOAST table of more than a few bytes a chunk holds them out of line."""
    return EXACT_SCAN_ROWS_TOASTED if chunks > 0 and toast_bytes > 64 * chunks else EXACT_SCAN_ROWS_INLINE


def _index_order(indexdef: str | None) -> str:
    """The distance expression the HNSW index serves (``ORDER BY`` must repeat it): the float
    vectors' or, for a halfvec expression index, their half-precision cast's."""
    half = re.search(r"halfvec\((\d+)\)", indexdef or "")
    if half:
        return f"embedding::public.halfvec({half.group(1)}) <=> %(q)b::public.halfvec({half.group(1)})"
    return "embedding <=> %(q)b"


# the server's clock now, as the desktop writes a time (ISO 8601, seconds, UTC)
_NOW = "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || '+00:00'"


class PostgresStore:
    """The server backend of ``core.index.backends.LibraryStore`` (see the module docstring)."""

    searches_in_store = True
    dir = None  # no local index folder

    def __init__(self, url: str, settings: Settings, local_dir: Path | None = None) -> None:
        """``local_dir``: this desktop's index folder, where it notes where its own copies of
        the filings it added are (``LocalPaths``; None: nowhere)."""
        check_url(url)
        self.url = url
        self.location = redact(url)
        self.settings = settings
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        self._writable: bool | None = None
        self._feed: ChangeFeed | None = None
        self._session: dict[str, str] = {}  # settings SET on the current connection (dense_search)
        self._dense_order = "embedding <=> %(q)b"  # what the HNSW index orders by (read at connect)
        self._snapshot_thread: int | None = None
        self.local_paths = LocalPaths(local_dir / "team_files.json" if local_dir is not None else None)
        # a filter of at most this many rows is searched exactly (read at connect: where the vectors are)
        self.exact_scan_rows = EXACT_SCAN_ROWS_TOASTED
        # "" or the warning that this desktop does not check the server's identity (read at connect)
        self.identity_notice = ""
        self._connection()  # fail now, with a clear message, when the server is unreachable

    # -- connection ---------------------------------------------------------------------
    def _connection(self) -> psycopg.Connection[Any]:
        """The connection, made afresh when there is none or the server closed it (a restart
        between two questions is not noticed by anyone: ``_dropped``)."""
        if self._conn is not None and not _dropped(self._conn):
            return self._conn
        if self._conn is not None:
            self._forget_connection()
        conn = connect(self.url, self.settings)
        try:
            access = conn.execute("SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = %s",
                                  (SCHEMA,)).fetchone()
            if access is None:
                raise LibraryUnavailable(f"{self.location} is no desktop_rag team library yet: "
                                         "run `main.py team init URL` once")
            if not access[0]:
                user = url_user(self.url)
                raise LibraryPermissionDenied(
                    f"{user} may not read the team library at {self.location}: its owner grants access with "
                    f"`main.py team init URL --reader {user}` (or --editor), or in psql GRANT {READER_ROLE} TO {user};")
            # one round trip: of this schema, which index, where the vectors are
            row = conn.execute(
                "SELECT to_regclass('desktop_rag.manifest') IS NOT NULL,"
                " to_regclass('desktop_rag.chunk_tokens') IS NOT NULL AND to_regclass('desktop_rag.changes') IS NOT NULL"
                " AND to_regclass('desktop_rag.writer_lock') IS NOT NULL,"
                " (SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname = 'chunks_embedding'),"
                " (SELECT reltuples FROM pg_class WHERE oid = to_regclass('desktop_rag.chunks')),"
                " (SELECT pg_relation_size(reltoastrelid) FROM pg_class"
                "  WHERE oid = to_regclass('desktop_rag.chunks') AND reltoastrelid <> 0)", (SCHEMA,)).fetchone()
            assert row is not None
            if not row[0]:
                raise LibraryUnavailable(f"{self.location} is no desktop_rag team library yet: "
                                         "run `main.py team init URL` once")
            if not row[1]:
                raise LibraryUnavailable(f"{self.location} is a team library of an earlier version: run "
                                         "`main.py team init URL` once (as its owner) to upgrade it")
            _vector_adapters(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._session = {}
        self.identity_notice = identity_notice(conn, self.url)
        self._dense_order = _index_order(row[2])
        self.exact_scan_rows = _exact_scan_rows(float(row[3] or 0), int(row[4] or 0))
        return self._conn

    def _forget_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None  # reconnect on the next call

    def _unavailable(self, exc: BaseException) -> LibraryUnavailable:
        self._forget_connection()
        if isinstance(exc, pg_errors.QueryCanceled):
            return LibraryUnavailable(f"The team library at {self.location} did not answer in time (query "
                                      f"timeout {self.settings.library.statement_timeout_s} s, commit timeout "
                                      f"{self.settings.library.write_timeout_s} s); nothing was changed. Try again.")
        return ConnectionLost(f"Lost the connection to the team library at {self.location}: "
                              f"{_first_line(exc)}. Nothing was changed; try again when it is back.")

    @contextmanager
    def _cursor(self, write: bool = False, binary: bool = False) -> Iterator[psycopg.Cursor[Any]]:
        """One transaction (a savepoint when nested). ``write``: ordered after the other
        writers (the writer lock's row, which only editors may lock) and allowed the write
        timeout instead of the query one."""
        with self._lock:
            try:
                conn = self._connection()
                with conn.transaction(), conn.cursor(binary=binary) as cur:
                    if write:
                        cur.execute(f"SET LOCAL statement_timeout = {int(self.settings.library.write_timeout_s) * 1000}")
                        if cur.execute("SELECT 1 FROM writer_lock WHERE id = 1 FOR UPDATE").fetchone() is None:
                            raise LibraryUnavailable(f"The team library at {self.location} has lost its writer lock "
                                                     "row: its owner runs `main.py team init URL` once to restore it")
                    yield cur
            except pg_errors.InsufficientPrivilege as exc:
                self._writable = False
                raise ReadOnlyLibrary(_first_line(exc)) from exc
            except psycopg.OperationalError as exc:
                raise self._unavailable(exc) from exc

    @contextmanager
    def _read(self) -> Iterator[psycopg.Cursor[Any]]:
        """One read statement in one round trip: no BEGIN/COMMIT around it (autocommit;
        inside ``snapshot`` it joins that transaction). A search's server time is a few
        milliseconds, so the two extra round trips of a transaction would be a large share."""
        with self._lock:
            try:
                with self._connection().cursor() as cur:
                    yield cur
            except psycopg.OperationalError as exc:
                raise self._unavailable(exc) from exc

    def _set_session(self, cur: psycopg.Cursor[Any], name: str, value: str) -> None:
        """SET a server setting for this connection once (not per query: a round trip each).
        Inside a transaction (``snapshot``) a rollback would undo a SET unseen: SET LOCAL there."""
        if cur.connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            cur.execute(f"SET LOCAL {name} = {value}")
        elif self._session.get(name) != value:
            cur.execute(f"SET {name} = {value}")
            self._session[name] = value

    def close(self) -> None:
        if self._feed is not None:
            self._feed.close()
            self._feed = None
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see one committed state (REPEATABLE READ)."""
        with self._lock:
            conn = self._connection()
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                yield
                return
            with self._cursor() as cur:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                self._snapshot_thread = threading.get_ident()
                try:
                    yield
                finally:
                    self._snapshot_thread = None

    def in_snapshot(self) -> bool:
        """Whether this thread is inside ``snapshot`` (holding the connection: a query sent
        from another thread would wait for it to end)."""
        return self._snapshot_thread == threading.get_ident()

    # -- changes made by other desktops (LISTEN/NOTIFY) ---------------------------------
    def listen(self, timeout: float = 5.0) -> None:
        """Start receiving change notifications (idempotent); waits until LISTEN is in effect,
        so a load that starts afterwards misses none."""
        if self._feed is None:
            self._feed = ChangeFeed(self.url, self.settings)
            self._feed.wait_listening(timeout)

    def changed_documents(self, since: int, current: int) -> set[str] | None:
        """Documents changed by generations ``since`` + 1 .. ``current``, from the changes log
        (written only by editors, in the transaction of each generation; inside ``snapshot``
        it is read in the same state as ``current``). None when that is not known (a gap: older
        than the log keeps, or written by an earlier version; or a change of everything): the
        caller then reloads all."""
        if since < 0 or current < since:
            return None
        if current == since:
            return set()
        with self._read() as cur:
            rows = cur.execute("SELECT docs FROM changes WHERE generation > %s AND generation <= %s",
                               (since, current)).fetchall()
        if len(rows) != current - since or any(r[0] is None for r in rows):
            return None
        return {d for r in rows for d in r[0]}

    def wait_for_change(self, seen: int, timeout: float) -> int:
        if self._feed is None:
            self.listen()
        assert self._feed is not None
        return self._feed.wait_for_change(seen, timeout)

    def bm25_statistics(self) -> tuple[int, int, int]:
        """(chunks, total tokens, vocabulary size) of the postings kept in the server."""
        with self._cursor() as cur:
            row = cur.execute("SELECT n, total_len, (SELECT count(*) FROM terms) FROM bm25_stats WHERE id = 1").fetchone()
        return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)

    def can_write(self) -> bool:
        if self._writable is None:
            with self._cursor() as cur:
                row = cur.execute("SELECT has_table_privilege('desktop_rag.documents', 'INSERT')").fetchone()
            self._writable = bool(row and row[0])
        return self._writable

    # -- manifest -----------------------------------------------------------------------
    def manifest(self) -> dict[str, Any]:
        with self._cursor() as cur:
            return {k: v for k, v in cur.execute("SELECT key, value FROM manifest").fetchall()}

    def set_manifest_values(self, **values: Any) -> None:
        with self._cursor(write=True) as cur:
            self._set_manifest(cur, **values)

    @staticmethod
    def _set_manifest(cur: psycopg.Cursor[Any], **values: Any) -> None:
        for k, v in values.items():
            cur.execute("INSERT INTO manifest VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (k, Jsonb(v)))

    def delete_manifest_key(self, key: str) -> None:
        with self._cursor(write=True) as cur:
            cur.execute("DELETE FROM manifest WHERE key = %s", (key,))

    @property
    def generation(self) -> int:
        """Asked before every search (``Library.refresh``): one round trip. Its question's one
        transparent retry: a connection lost under the read (and not noticed before it, e.g.
        a network cut the keepalives found) is made again once, outside a snapshot; a server
        that stays away then raises ``LibraryUnavailable``."""
        with self._lock:
            outside = self._conn is None or self._conn.info.transaction_status == TransactionStatus.IDLE
            for attempt in (1, 2):
                try:
                    with self._read() as cur:
                        row = cur.execute("SELECT value FROM manifest WHERE key = 'generation'").fetchone()
                    return int(row[0]) if row else 0
                except ConnectionLost:
                    if attempt == 2 or not outside:
                        raise
            raise AssertionError("unreachable")

    @staticmethod
    def _bump_generation(cur: psycopg.Cursor[Any], docs: list[str] | None) -> int:
        """The next generation, its row in the changes log naming the documents this
        transaction changed (None: everything, e.g. new tokens for all chunks), the log's
        oldest rows dropped, and a notification with no payload (sent at commit): one round trip."""
        row = cur.execute(
            "WITH g AS (INSERT INTO manifest VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE"
            "  SET value = to_jsonb(manifest.value::text::bigint + 1) RETURNING value::text::bigint AS gen),"
            " logged AS (INSERT INTO changes (generation, docs) SELECT gen, %(docs)s::text[] FROM g),"
            " pruned AS (DELETE FROM changes WHERE generation <= (SELECT gen FROM g) - %(kept)s)"
            " SELECT gen, pg_notify(%(channel)s, '') FROM g",
            {"docs": docs, "kept": CHANGES_KEPT, "channel": CHANGES_CHANNEL}).fetchone()
        return int(row[0])  # type: ignore[index]

    # -- writing documents --------------------------------------------------------------
    def add_document(
        self, doc: Document, page_texts: list[str], chunks: list[Chunk], tokens: list[list[str]],
        vectors: np.ndarray | None, statements: StatementRows | None = None,
    ) -> list[int] | None:
        """The server keeps the file's name as its path (never this desktop's folders, which
        ``local_paths`` remembers here), and the server's clock at the commit as ``added_at``
        (the end of the write, not the start of the ingest; one clock for all desktops)."""
        with self._cursor(write=True) as cur:
            cur.execute(
                f"INSERT INTO documents VALUES (%s, %s, %s, %s, %s, %s, {_NOW}) ON CONFLICT (doc_id) DO NOTHING",
                (doc.doc_id, doc.file_name, doc.file_name, doc.pages, Jsonb(asdict(doc.meta)), doc.meta_edited))
            if cur.rowcount == 0:
                return None  # the same file, committed first by another desktop
            with cur.copy("COPY pages (doc_id, page, text, page_type, page_type_version) FROM STDIN") as cp:
                for i, t in enumerate(page_texts):
                    cp.write_row((doc.doc_id, i + 1, t, page_type(t), PAGE_TYPES_VERSION))
            ids = self._insert_chunks(cur, doc.doc_id, chunks, tokens, vectors)
            if statements is not None:
                cur.execute("INSERT INTO statements (doc_id, extractor, data, page_map) VALUES (%s, %s, %s, %s)",
                            (doc.doc_id, statements[0], json.dumps(statements[1]), _page_map(statements[1])))
                self._set_manifest(cur, extractor_version=statements[0])
            cur.execute(f"UPDATE documents SET added_at = {_NOW} WHERE doc_id = %s", (doc.doc_id,))
            self._bump_generation(cur, [doc.doc_id])
        self.local_paths.remember(doc.doc_id, doc.path)
        return ids

    def _insert_chunks(
        self, cur: psycopg.Cursor[Any], doc_id: str, chunks: list[Chunk], tokens: list[list[str]],
        vectors: np.ndarray | None,
    ) -> list[int]:
        if not chunks:
            return []
        vecs: list[np.ndarray | None] = [None] * len(chunks) if vectors is None else [
            np.asarray(v, dtype=np.float32) for v in vectors]
        cur.executemany(
            "INSERT INTO chunks (doc_id, ordinal, page, char_start, char_end, kind, section, embedding)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %b)",
            [(doc_id, c.ordinal, c.page, c.char_start, c.char_end, c.kind, c.section, v)
             for c, v in zip(chunks, vecs, strict=True)])
        ids = [int(r[0]) for r in cur.execute(
            "SELECT chunk_id FROM chunks WHERE doc_id = %s ORDER BY ordinal, chunk_id", (doc_id,)).fetchall()]
        self._write_tokens(cur, ids, tokens)
        self._add_postings(cur, ids, tokens)
        return ids

    @staticmethod
    def _write_tokens(cur: psycopg.Cursor[Any], ids: list[int], tokens: list[list[str]]) -> None:
        with cur.copy("COPY chunk_tokens (chunk_id, tokens, length) FROM STDIN") as cp:
            for cid, toks in zip(ids, tokens, strict=True):
                cp.write_row((cid, " ".join(toks), len(toks) or 1))

    @staticmethod
    def _add_postings(cur: psycopg.Cursor[Any], ids: list[int], tokens: list[list[str]]) -> None:
        """Postings, document frequencies and corpus statistics of new chunks (same counts
        as ``LexicalIndex``: an empty chunk is one dummy token)."""
        df: Counter[str] = Counter()
        total = 0
        with cur.copy("COPY postings (term, chunk_id, tf, length) FROM STDIN") as cp:
            for cid, toks in zip(ids, tokens, strict=True):
                toks = toks or [EMPTY_TERM]
                total += len(toks)
                counts = Counter(toks)
                df.update(counts.keys())
                for term, tf in counts.items():
                    cp.write_row((term, cid, tf, len(toks)))
        terms = sorted(df)
        cur.execute("INSERT INTO terms SELECT * FROM unnest(%s::text[], %s::int[]) ON CONFLICT (term)"
                    " DO UPDATE SET df = terms.df + excluded.df", (terms, [df[t] for t in terms]))
        cur.execute("UPDATE bm25_stats SET n = n + %s, total_len = total_len + %s WHERE id = 1", (len(ids), total))

    @staticmethod
    def _delete_chunks(cur: psycopg.Cursor[Any], where: str, params: tuple[Any, ...]) -> list[int]:
        """Remove chunks (``where`` over ``chunks c``) with their postings, and take them out
        of the term and corpus statistics."""
        cur.execute(
            "UPDATE terms t SET df = t.df - d.cnt FROM (SELECT p.term, count(*) AS cnt FROM postings p"
            f" JOIN chunks c ON c.chunk_id = p.chunk_id WHERE {where} GROUP BY p.term) d WHERE t.term = d.term", params)
        cur.execute("DELETE FROM terms WHERE df <= 0")
        # the lengths read in the same statement's snapshot (the tokens' rows go by cascade)
        rows = cur.execute(f"WITH gone AS (DELETE FROM chunks c WHERE {where} RETURNING c.chunk_id)"
                           " SELECT g.chunk_id, coalesce(t.length, 0) FROM gone g"
                           " LEFT JOIN chunk_tokens t ON t.chunk_id = g.chunk_id", params).fetchall()
        cur.execute("UPDATE bm25_stats SET n = n - %s, total_len = total_len - %s WHERE id = 1",
                    (len(rows), sum(r[1] for r in rows)))
        return [int(r[0]) for r in rows]

    def set_embeddings(self, ids: list[int], vectors: np.ndarray) -> int:
        with self._cursor(write=True) as cur:
            cur.executemany("UPDATE chunks SET embedding = %b WHERE chunk_id = %s",
                            [(np.asarray(v, dtype=np.float32), int(c)) for c, v in zip(ids, vectors, strict=True)])
            docs = [r[0] for r in cur.execute("SELECT DISTINCT doc_id FROM chunks WHERE chunk_id = ANY(%s)",
                                              ([int(c) for c in ids],))]
            return self._bump_generation(cur, docs)

    def pending_embeddings(self) -> dict[str, list[int]]:
        with self._cursor() as cur:
            rows = cur.execute("SELECT doc_id, chunk_id FROM chunks WHERE embedding IS NULL"
                               " ORDER BY doc_id, ordinal").fetchall()
        return ids_by_document(rows)

    def replace_chunks(
        self, doc_id: str, chunks: list[Chunk], tokens: list[list[str]], vectors: np.ndarray,
        page_texts: list[str] | None = None,
    ) -> list[int]:
        with self._cursor(write=True) as cur:
            if page_texts is not None:
                cur.executemany("UPDATE pages SET text = %s, page_type = %s, page_type_version = %s"
                                " WHERE doc_id = %s AND page = %s",
                                [(t, page_type(t), PAGE_TYPES_VERSION, doc_id, i + 1)
                                 for i, t in enumerate(page_texts)])
            self._delete_chunks(cur, "c.doc_id = %s", (doc_id,))
            ids = self._insert_chunks(cur, doc_id, chunks, tokens, vectors)
            self._bump_generation(cur, [doc_id])
        return ids

    def set_tokens(self, ids: list[int], token_lists: list[list[str]], tokenizer: int) -> None:
        """New BM25 tokens for every chunk (the tokenizer changed): ``chunk_tokens`` and the
        postings rewritten; no chunk row (nor its HNSW entry) is touched."""
        with self._cursor(write=True) as cur:
            cur.execute("DELETE FROM postings")
            cur.execute("DELETE FROM terms")
            cur.execute("UPDATE bm25_stats SET n = 0, total_len = 0 WHERE id = 1")
            cur.execute("DELETE FROM chunk_tokens")
            self._write_tokens(cur, ids, token_lists)
            self._add_postings(cur, ids, token_lists)
            self._set_manifest(cur, tokenizer=tokenizer)
            self._bump_generation(cur, None)

    def remove_document(self, doc_id: str) -> list[int]:
        with self._cursor(write=True) as cur:
            ids = self._delete_chunks(cur, "c.doc_id = %s", (doc_id,))
            cur.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,))
            self._bump_generation(cur, [doc_id])
        return ids

    def update_meta(self, doc_id: str, meta: DocumentMeta, edited: bool = True) -> None:
        with self._cursor(write=True) as cur:
            cur.execute("UPDATE documents SET meta = %s, meta_edited = %s WHERE doc_id = %s",
                        (Jsonb(asdict(meta)), edited, doc_id))
            self._bump_generation(cur, [doc_id])

    # -- reading ------------------------------------------------------------------------
    def documents(self) -> list[Document]:
        with self._cursor() as cur:
            rows = cur.execute(
                "SELECT d.doc_id, d.file_name, d.path, d.pages, d.meta, d.meta_edited, d.added_at,"
                " (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id)"
                " FROM documents d ORDER BY d.added_at, d.file_name").fetchall()
        return [Document(r[0], r[1], self.local_paths.get(r[0]) or r[2], r[3], DocumentMeta(**r[4]), int(r[7]), r[6],
                         bool(r[5])) for r in rows]

    def has_document(self, doc_id: str) -> bool:
        with self._cursor() as cur:
            return cur.execute("SELECT 1 FROM documents WHERE doc_id = %s", (doc_id,)).fetchone() is not None

    def page_text(self, doc_id: str, page: int) -> str | None:
        with self._read() as cur:
            row = cur.execute("SELECT text FROM pages WHERE doc_id = %s AND page = %s", (doc_id, page)).fetchone()
        return row[0] if row else None

    def page_texts_at(self, pages: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """The texts of many (doc_id, page) pairs in one round trip (missing pairs absent)."""
        if not pages:
            return {}
        with self._read() as cur:
            rows = cur.execute(
                "SELECT p.doc_id, p.page, p.text FROM unnest(%s::text[], %s::int[]) AS k(doc_id, page)"
                " JOIN pages p ON p.doc_id = k.doc_id AND p.page = k.page",
                ([d for d, _ in pages], [int(n) for _, n in pages])).fetchall()
        return {(r[0], int(r[1])): r[2] for r in rows}

    def page_texts(self, doc_id: str) -> list[str]:
        with self._cursor() as cur:
            return [r[0] for r in cur.execute("SELECT text FROM pages WHERE doc_id = %s ORDER BY page", (doc_id,))]

    def chunk_rows(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]:
        """As ``IndexStore.chunk_rows``: the embedding as little-endian float32 bytes (b"" when none)."""
        sql = ("SELECT c.chunk_id, c.doc_id, c.ordinal, c.page, c.char_start, c.char_end, c.kind, c.section,"
               " t.tokens, c.embedding FROM chunks c JOIN chunk_tokens t ON t.chunk_id = c.chunk_id")
        with self._cursor(binary=True) as cur:
            if doc_ids is None:
                rows = cur.execute(sql + " ORDER BY c.chunk_id").fetchall()
            else:
                rows = cur.execute(sql + " WHERE c.doc_id = ANY(%s) ORDER BY c.chunk_id", (list(doc_ids),)).fetchall()
        for r in rows:
            yield (int(r[0]), *r[1:9], r[9] if r[9] is not None else b"")

    def chunk_index(self, doc_ids: Iterable[str] | None = None) -> Iterator[tuple[Any, ...]]:
        """(chunk_id, doc_id, ordinal, page, tokens, embedded) by chunk id: what a desktop keeps
        of a team library (its BM25 postings and where each chunk is), neither the chunks'
        text nor their vectors (read per search, ``search_candidates``/``chunks_by_id``)."""
        sql = ("SELECT c.chunk_id, c.doc_id, c.ordinal, c.page, t.tokens, c.embedding IS NOT NULL"
               " FROM chunks c JOIN chunk_tokens t ON t.chunk_id = c.chunk_id")
        if doc_ids is None:
            sql, params = sql + " ORDER BY c.chunk_id", None
        else:
            sql, params = sql + " WHERE c.doc_id = ANY(%s) ORDER BY c.chunk_id", (list(doc_ids),)
        # a server-side cursor read in batches: the rows never all sit in memory at once
        with self._cursor() as cur, cur.connection.cursor(name="desktop_rag_chunk_index") as named:
            named.execute(sql, params)
            while rows := named.fetchmany(20_000):
                for r in rows:
                    yield (int(r[0]), r[1], int(r[2]), int(r[3]), r[4], bool(r[5]))

    # a chunk as the desktop reads it: its text cut from its page's (characters, as Python slices)
    _CHUNK_COLUMNS = ("c.chunk_id, c.doc_id, c.ordinal, c.page, c.char_start, c.char_end,"
                      " substr(p.text, c.char_start + 1, c.char_end - c.char_start), c.kind, c.section")
    _CHUNK_PAGES = " JOIN pages p ON p.doc_id = c.doc_id AND p.page = c.page"

    @staticmethod
    def _chunk(r: tuple[Any, ...]) -> Chunk:
        return Chunk(int(r[0]), r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5]), r[6], r[7], r[8])

    def chunks_by_id(self, ids: list[int]) -> list[Chunk]:
        """The chunks of these ids (text included), in one round trip; unknown ids absent."""
        if not ids:
            return []
        with self._read() as cur:
            rows = cur.execute(f"SELECT {self._CHUNK_COLUMNS} FROM chunks c{self._CHUNK_PAGES}"
                               " WHERE c.chunk_id = ANY(%s)", ([int(c) for c in ids],)).fetchall()
        return [self._chunk(r) for r in rows]

    def vectors_by_id(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The embeddings of these chunks (those that have one), in one round trip."""
        if not ids:
            return {}
        with self._cursor(binary=True) as cur:
            rows = cur.execute("SELECT chunk_id, embedding FROM chunks WHERE chunk_id = ANY(%s)"
                               " AND embedding IS NOT NULL", ([int(c) for c in ids],)).fetchall()
        return {int(c): np.frombuffer(v, dtype=np.float32) for c, v in rows}

    def search_candidates(
        self, vector: np.ndarray, k: int, doc_ids: list[str] | None, extra_ids: list[int], exact: bool = False,
    ) -> tuple[list[tuple[int, float]], list[Chunk], dict[int, float], dict[tuple[str, int], str]]:
        """A hybrid search's server side in one round trip: the dense top-k (chunk_id, cosine)
        among the chunks of ``doc_ids`` (None = all; pgvector's HNSW index as ``dense_search``,
        or an exact scan given ``exact``), and the chunks of those and of ``extra_ids`` (the
        lexical candidates, scored on the desktop) with their text and their cosine to
        ``vector`` (chunk_id -> cosine, for those that have an embedding), and the stored
        ``domain.page_types`` type of their pages ((doc_id, page) -> type; those typed by
        this version of the rules)."""
        if doc_ids is not None and not doc_ids:
            k = 0
        where = "" if doc_ids is None else " AND doc_id = ANY(%(docs)s)"
        with self._read() as cur:
            # ``+ 0`` orders by a value the index cannot provide: an exact scan of the allowed rows
            order = "(embedding <=> %(q)b) + 0, chunk_id" if exact else self._dense_order
            dense_sql = ("SELECT NULL::bigint AS chunk_id WHERE false" if k <= 0 else
                         f"SELECT chunk_id FROM chunks WHERE embedding IS NOT NULL{where} ORDER BY {order} LIMIT %(k)s")
            if not exact and k > 0:
                self._set_hnsw(cur, k)
            # the dense candidates' scores are their float vectors' cosines (a halfvec index
            # only chooses them), as every other candidate's
            rows = cur.execute(
                f"WITH dense AS MATERIALIZED ({dense_sql}),"
                " wanted AS (SELECT chunk_id FROM dense UNION SELECT unnest(%(extra)s::bigint[]))"
                f" SELECT {self._CHUNK_COLUMNS}, dense.chunk_id IS NOT NULL, c.embedding <=> %(q)b,"
                " CASE WHEN p.page_type_version = %(types)s THEN p.page_type END"
                f" FROM wanted JOIN chunks c ON c.chunk_id = wanted.chunk_id{self._CHUNK_PAGES}"
                " LEFT JOIN dense ON dense.chunk_id = c.chunk_id",
                {"q": np.asarray(vector, dtype=np.float32), "docs": doc_ids, "k": int(max(k, 0)),
                 "extra": [int(c) for c in extra_ids], "types": PAGE_TYPES_VERSION}).fetchall()
        cosines = {int(r[0]): 1.0 - float(r[10]) for r in rows if r[10] is not None}
        dense = sorted(((int(r[0]), cosines[int(r[0])]) for r in rows if r[9] and int(r[0]) in cosines),
                       key=lambda x: (-x[1], x[0]))
        types = {(r[1], int(r[3])): r[11] for r in rows if r[11] is not None}
        return dense, [self._chunk(r) for r in rows], cosines, types

    def _set_hnsw(self, cur: psycopg.Cursor[Any], k: int) -> None:
        ef = min(PGVECTOR_MAX_EF_SEARCH, max(self.settings.library.server_hnsw_ef_search, k))
        self._set_session(cur, "hnsw.ef_search", str(int(ef)))
        # no effect on an unfiltered query (every row of the index qualifies)
        self._set_session(cur, "hnsw.iterative_scan", "strict_order")

    def save_statements(self, doc_id: str, extractor: int, statements: list[dict[str, Any]]) -> None:
        with self._cursor(write=True) as cur:
            cur.execute("INSERT INTO statements (doc_id, extractor, data, page_map) VALUES (%s, %s, %s, %s)"
                        " ON CONFLICT (doc_id) DO UPDATE"
                        " SET extractor = excluded.extractor, data = excluded.data, page_map = excluded.page_map",
                        (doc_id, extractor, json.dumps(statements), _page_map(statements)))
            self._set_manifest(cur, extractor_version=extractor)

    def load_statements(self, doc_id: str) -> tuple[int, list[dict[str, Any]]] | None:
        with self._cursor() as cur:
            row = cur.execute("SELECT extractor, data FROM statements WHERE doc_id = %s", (doc_id,)).fetchone()
        return (int(row[0]), json.loads(row[1])) if row else None

    def statement_pages(self, doc_ids: list[str]) -> dict[str, tuple[int, dict[int, list[str]]]]:
        """doc_id -> (extractor version, page -> statement kinds) of the documents that have
        stored statements: the stored page maps, one round trip for all (a map missing, from
        before ``team init`` added them, is computed from the statements)."""
        if not doc_ids:
            return {}
        with self._read() as cur:
            rows = cur.execute("SELECT doc_id, extractor, page_map, CASE WHEN page_map IS NULL THEN data END"
                               " FROM statements WHERE doc_id = ANY(%s)", (list(doc_ids),)).fetchall()
        return {r[0]: (int(r[1]), {int(p): k for p, k in r[2].items()} if r[2] is not None
                       else page_kinds(json.loads(r[3]))) for r in rows}

    # -- search in the server -----------------------------------------------------------
    def dense_search(self, vector: np.ndarray, k: int, doc_ids: list[str] | None) -> list[tuple[int, float]]:
        """Top-k (chunk_id, cosine) by pgvector's HNSW index (``hnsw.ef_search`` from
        ``library.server_hnsw_ef_search``, at least k); the document filter in the same query,
        with an iterative scan so a narrow filter still gets its k results in exact order.
        One round trip: the two settings are SET on the connection when they change, and the
        query reads only the chunk id and distance (the index scan orders by the distance)."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        where = "" if doc_ids is None else " AND doc_id = ANY(%(docs)s)"
        with self._read() as cur:
            self._set_hnsw(cur, k)
            rows = cur.execute(
                "SELECT chunk_id, embedding <=> %(q)b FROM chunks WHERE embedding IS NOT NULL" + where
                + f" ORDER BY {self._dense_order} LIMIT %(k)s",
                {"q": np.asarray(vector, dtype=np.float32), "docs": doc_ids, "k": int(k)}).fetchall()
        # the float vectors' cosines, in their order (a halfvec index orders by the half-precision ones)
        return sorted(((int(c), 1.0 - float(d)) for c, d in rows), key=lambda x: (-x[1], x[0]))
