"""The team library end to end through ``python main.py --library URL``: a real PostgreSQL
with pgvector (tests/pg_server.py, on 127.0.0.1), the real MiniLM embedder and Gemma, and
real pages of the bundled Apple 10-Q (cut into two short filings so embedding stays cheap).

``team init``, ingest, search, ask with exact quotes, statements, the same file from two
processes and two concurrent ingests, a ``kill -9`` mid-ingest that leaves nothing, a
reader refused with a plain message (exit 5), a server restarted between two questions of one
``ask`` (both answered, no message) and one that stays down (a clear message, exit 3, and the
retry works once it is back).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pymupdf
import pytest

from desktop_rag.core.index.backends.postgres import READER_ROLE
from desktop_rag.core.ingest.pdf import extract_page, fold_text, match_form
from tests.conftest import FakeEmbedder, init_team
from tests.e2e.crash_driver import make_settings

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("crash_driver.py")
SOURCE = REPO / "corpus" / "2023 Q3 AAPL.pdf"
QUESTION = "What was Apple's total net sales in Q3 2023?"


def run_cli(data_dir: Path, *args: str, url: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(_argv(data_dir, url, args), cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=_env(data_dir))


def _argv(data_dir: Path, url: str | None, args: tuple[str, ...]) -> list[str]:
    return [sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir),
            *(["--library", url] if url else []), *args]


def _env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "DESKTOP_RAG_HOME": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("DESKTOP_RAG_MODELS", None)
    return env


def _ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstderr:\n{proc.stderr[-3000:]}"
    return proc


def _cut(pages: list[int], path: Path) -> Path:
    """Pages (0-based) of the bundled 10-Q as a PDF of their own: a real filing, shorter."""
    doc = pymupdf.open(SOURCE)
    doc.select(pages)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("filings")
    return {
        "statements": _cut([0, 3, 4, 5, 6], folder / "2023 Q3 AAPL statements.pdf"),  # cover + statements
        "mdna": _cut([0, 16, 17, 18], folder / "2023 Q3 AAPL mdna.pdf"),  # cover + MD&A
        "notes": _cut([0, 9, 10], folder / "2023 Q3 AAPL notes.pdf"),  # cover + notes
    }


def _count(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute(f"SELECT count(*) FROM desktop_rag.{table}").fetchone()[0])  # type: ignore[index]


@pytest.fixture(scope="module")
def team(pg_server, filings: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A team library made by ``team init`` with one filing ingested through the CLI."""
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE team_e2e")
    url = pg_server.url(database="team_e2e")
    desk = tmp_path_factory.mktemp("desk")
    out = _ok(run_cli(desk, "team", "init", url))
    assert "desktop_rag_reader" in out.stdout and "desktop_rag_editor" in out.stdout
    _ok(run_cli(desk, "ingest", str(filings["statements"]), url=url))
    return {"url": url, "desk": desk, "server": pg_server}


def test_search_ask_with_exact_quotes_and_statements(team: dict, filings: dict[str, Path]) -> None:
    url, desk = team["url"], team["desk"]
    hits = json.loads(_ok(run_cli(desk, "search", "--json", "total net sales", url=url)).stdout.splitlines()[0])["hits"]
    assert hits and hits[0]["doc"] == filings["statements"].name
    ans = json.loads(_ok(run_cli(desk, "ask", "--json", QUESTION, url=url)).stdout.splitlines()[0])
    assert "81,797" in ans["answer"] and not ans["not_in_corpus"], ans
    doc = pymupdf.open(filings["statements"])
    for c in ans["citations"]:
        assert fold_text(c["quote"]) in match_form(extract_page(doc[c["page"] - 1]).text), c
    st = json.loads(_ok(run_cli(desk, "statements", "--json", filings["statements"].name, url=url)).stdout)
    kinds = {s["kind"] for s in st["statements"]}
    assert {"income", "balance"} <= kinds, kinds
    # a desktop on its own library (no --library) sees none of it
    docs = _ok(run_cli(desk, "docs")).stdout
    assert "0 document(s)" in docs


def test_same_file_from_two_processes_and_two_concurrent_ingests(team: dict, filings: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    url = team["url"]
    twin = tmp_path / "copy of mdna.pdf"
    shutil.copy(filings["mdna"], twin)  # same bytes, another name: one document
    procs = [subprocess.Popen(_argv(tmp_path / f"d{i}", url, ("ingest", *files)), cwd=REPO, env=_env(tmp_path / f"d{i}"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i, files in enumerate(([str(filings["mdna"]), str(filings["notes"])], [str(twin)]))]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-3000:]
    listing = json.loads("[" + ",".join(_ok(run_cli(tmp_path, "docs", "--json", url=url)).stdout.split("\n")[:-1]) + "]")
    names = sorted(d["file"] for d in listing)
    assert len(names) == 3, names  # statements + mdna (once, under either name) + notes
    assert filings["notes"].name in names
    assert _count(url, "chunks") == sum(d["chunks"] for d in listing)


def test_reader_is_refused_with_a_plain_message(team: dict, filings: dict[str, Path], tmp_path: Path) -> None:
    with psycopg.connect(team["url"], autocommit=True) as conn:
        conn.execute(f"DO $$ BEGIN CREATE ROLE carol LOGIN IN ROLE {READER_ROLE};"
                     " EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    reader_url = team["url"].replace("postgres@", "carol@")
    proc = run_cli(tmp_path, "ingest", str(filings["notes"]), url=reader_url)
    assert proc.returncode == 5
    assert "You can read this library but not change it" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _ok(run_cli(tmp_path, "search", "--json", "net sales", url=reader_url)).stdout


def test_kill_9_mid_ingest_leaves_nothing(pg_server, filings: dict[str, Path], tmp_path: Path) -> None:
    """The writer (the real Library with a slowed fake embedder) is killed while embedding
    and again right before its commit: the server holds no trace of the filing; a new run
    adds it whole."""
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE team_crash")
    url = init_team(pg_server.url(database="team_crash"), FakeEmbedder(), make_settings())
    for moment in ("first", "last"):
        proc = subprocess.Popen([sys.executable, str(DRIVER), str(tmp_path), "--delay", "0.3", "--library", url,
                                 "ingest", str(filings["statements"])], cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            parts = line.split()
            if parts[:3] == ["EVENT", "step", "embed"] and (
                    (moment == "first" and int(parts[3]) > 0) or (moment == "last" and parts[3] == parts[4])):
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(30)
        assert proc.returncode == -signal.SIGKILL, moment
        for table in ("documents", "pages", "chunks", "chunk_tokens", "postings", "terms", "statements"):
            assert _count(url, table) == 0, (moment, table)
    done = subprocess.run([sys.executable, str(DRIVER), str(tmp_path), "--library", url, "ingest",
                           str(filings["statements"])], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "DONE" in done.stdout, done.stderr[-2000:]
    assert _count(url, "documents") == 1 and _count(url, "chunks") > 0
    with psycopg.connect(url) as conn:
        n, total = conn.execute("SELECT n, total_len FROM desktop_rag.bm25_stats").fetchone()  # type: ignore[misc]
        assert n == _count(url, "chunks")
        assert total == conn.execute("SELECT sum(length) FROM desktop_rag.chunk_tokens").fetchone()[0]  # type: ignore[index]


def test_a_filing_added_on_one_desktop_is_searchable_on_another_and_its_removal_too(
        pg_server, filings: dict[str, Path], tmp_path: Path) -> None:
    """Two processes: one desktop follows the library (LISTEN/NOTIFY), another ingests and
    then removes a filing; the first finds it by BM25 a moment after the commit, then sees
    it gone, without a restart and without reloading the library (changes applied in place)."""
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE team_live")
    url = init_team(pg_server.url(database="team_live"), FakeEmbedder(), make_settings())
    first = subprocess.run([sys.executable, str(DRIVER), str(tmp_path / "w"), "--library", url, "ingest",
                            str(filings["statements"])], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    name = filings["notes"].name
    follower = subprocess.Popen([sys.executable, str(DRIVER), str(tmp_path / "f"), "--library", url, "follow", name],
                                cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert follower.stdout is not None
    try:
        lines = iter(follower.stdout.readline, "")
        assert next(line for line in lines if line.startswith("FOLLOWING")).split() == ["FOLLOWING", "1"]
        writer = subprocess.run([sys.executable, str(DRIVER), str(tmp_path / "w"), "--library", url, "ingest",
                                 str(filings["notes"])], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert writer.returncode == 0, writer.stderr[-2000:]
        assert next(lines).split() == ["SEARCHABLE", *name.split()]
        remover = subprocess.run([sys.executable, str(DRIVER), str(tmp_path / "w"), "--library", url, "remove", name],
                                 cwd=REPO, capture_output=True, text=True, timeout=300)
        assert remover.returncode == 0, remover.stderr[-2000:]
        assert next(lines).split() == ["GONE", *name.split()]
        assert next(lines).split() == ["SAME_INDEX", "True"]  # no full reload: applied in place
        follower.wait(60)
    finally:
        if follower.poll() is None:
            follower.kill()
    assert follower.returncode == 0, follower.stderr.read()[-2000:]  # type: ignore[union-attr]


def test_a_server_restarted_between_two_questions_goes_unnoticed_and_one_that_stays_down_is_reported(
        team: dict, tmp_path: Path) -> None:
    """Last in this module: the session server crashes (-m immediate) and starts again between
    the two questions of one ``ask``: the second is answered as the first, no message, exit 0.
    Then the server stops and stays down: ``ask`` says so (exit 3); once it is back the library
    answers again (the unit tests ask the same question again after such a stop)."""
    server, url, desk = team["server"], team["url"], team["desk"]
    proc = subprocess.Popen(_argv(desk, url, ("ask", "--json", "-")), cwd=REPO, env=_env(desk), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(QUESTION + "\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        assert "81,797" in first["answer"]
        server.stop(immediate=True)  # the server crashes between the two questions, and is back
        server.start()
        server.wait_ready()
        proc.stdin.write(QUESTION + "\n")
        proc.stdin.close()
        second = json.loads(proc.stdout.readline())
        proc.wait(120)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        if not server.running:
            server.start()
            server.wait_ready()
    assert proc.returncode == 0, err[-3000:]
    assert second["answer"] == first["answer"] and second["citations"] == first["citations"]
    # the one warning of a server identity not checked (sslmode) is said at start; nothing else
    said = [line for line in err.splitlines() if "team library" in line and "sslmode=" not in line]
    assert not said and "Traceback" not in err, err[-3000:]
    server.stop()
    try:
        down = run_cli(desk, "ask", "--json", QUESTION, url=url)
    finally:
        server.start()
        server.wait_ready()
    assert down.returncode == 3, down.stderr[-3000:]
    assert "Cannot reach the team library" in down.stderr and "Traceback" not in down.stderr
    assert _ok(run_cli(desk, "docs", url=url)).stdout.splitlines()[-1].endswith("document(s)")
