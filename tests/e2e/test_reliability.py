"""Crash and concurrency promises of the library, kept by killing real writer processes.

A writer (``crash_driver.py``: the real Library/IndexStore with the deterministic
FakeEmbedder, slowed per batch so the moments are wide) is ``kill -9``-ed at chosen moments
of ``ingest``, ``remove`` and ``reindex``; afterwards SQLite's integrity check passes, every
listed document has all its pages and a complete chunk sequence, the filings that were there
before are byte-for-byte unchanged, finishing the interrupted command gives exactly the
library a clean run gives, and search works (no stale graph entries). Two writers on one
library at once both succeed, and a reader in another process never sees half a commit.
The filings are generated here with pymupdf (three fictitious companies, 10 pages each).
"""

from __future__ import annotations

import queue
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_rag.core.index.library import IngestReport, Library
from desktop_rag.core.retrieve.hybrid import HybridRetriever
from tests.conftest import write_pdf
from tests.e2e.crash_driver import open_library

pytestmark = [pytest.mark.e2e]

DRIVER = Path(__file__).with_name("crash_driver.py")
REPO = Path(__file__).resolve().parents[2]
# Each fictitious filer has a word nobody else uses: search must find its filing by it.
FILERS = {"2024 Q1 ALFA.pdf": ("Alfa Dynamics Inc.", "zephyrine"),
          "2024 Q1 BRVO.pdf": ("Bravo Minerals Corp.", "quillistor"),
          "2024 Q1 CHRL.pdf": ("Charlie Foods Inc.", "marvoglen")}
FIRST, SECOND, THIRD = FILERS
NEW_WORDS = 90  # the chunking a re-index switches to
WORDS = ("revenue income margin segment cash flow operating expense customer contract backlog inventory "
         "liquidity capital lease debt interest tax dividend share repurchase guidance demand supply pricing "
         "product service region quarter increase decrease compared prior period primarily due higher lower").split()


def filing_pages(company: str, word: str, seed: int, n_pages: int = 10) -> list[str]:
    rng = random.Random(seed)
    pages = [f"FORM 10-Q\nFor the quarterly period ended March 31, 2024\n{company}\n"
             "(Exact name of registrant as specified in its charter)"]
    for p in range(2, n_pages + 1):
        lines = []
        for i in range(40):
            words = [rng.choice(WORDS) for _ in range(11)]
            if i % 9 == 0:
                words.insert(3, word)
            lines.append(" ".join(words) + f" {rng.randint(100, 99_999):,}")
        pages.append(f"Page {p} of the report\n" + "\n".join(lines))
    return pages


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("filings")
    return {name: write_pdf(folder / name, filing_pages(company, word, seed))
            for seed, (name, (company, word)) in enumerate(FILERS.items())}


Rows = list[tuple]


def doc_rows(lib: Library) -> dict[str, Rows]:
    """file name -> its chunk rows without the autoincrement id (order, spans, tokens, vector)."""
    names = {d.doc_id: d.file_name for d in lib.store.documents()}
    out: dict[str, Rows] = {name: [] for name in names.values()}
    for row in lib.store.chunk_rows():
        out[names[row[1]]].append(tuple(row[2:]))
    return out


def _ingest_in_process(data_dir: Path, paths: list[Path], words: int = 0) -> Library:
    lib = open_library(data_dir, words)
    report = IngestReport()
    for _ in lib.ingest(paths, report=report):
        pass
    assert len(report.added) == len(paths), report
    return lib


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, filings: dict[str, Path]) -> dict[str, dict[str, Rows]]:
    """What clean runs store: default chunking and the re-index chunking."""
    out = {}
    for words in (0, NEW_WORDS):
        lib = _ingest_in_process(tmp_path_factory.mktemp(f"ref{words}"), list(filings.values()), words)
        out[str(words)] = doc_rows(lib)
        lib.close()
    assert all(len(rows) > 16 for rows in out["0"].values())  # several embed batches of 8 each
    assert out["0"] != out[str(NEW_WORDS)]
    return out


@pytest.fixture(scope="module")
def one_filed(tmp_path_factory: pytest.TempPathFactory, filings: dict[str, Path]) -> Path:
    data = tmp_path_factory.mktemp("one") / "data"
    _ingest_in_process(data, [filings[FIRST]]).close()
    return data


@pytest.fixture(scope="module")
def all_filed(tmp_path_factory: pytest.TempPathFactory, filings: dict[str, Path]) -> Path:
    data = tmp_path_factory.mktemp("all") / "data"
    _ingest_in_process(data, list(filings.values())).close()
    return data


# -- running and killing the writer -------------------------------------------------------------
class Writer:
    def __init__(self, data_dir: Path, *args: str, delay: float = 0.25, words: int = 0) -> None:
        cmd = [sys.executable, str(DRIVER), str(data_dir), "--delay", str(delay), "--words", str(words), *args]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, matches: Callable[[str], bool], timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise AssertionError("timed out waiting; output so far:\n" + "\n".join(self.lines)) from None
            if line is None:
                raise AssertionError("writer ended before the moment:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if matches(line):
                return line

    def kill(self) -> int:
        self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(timeout=60)

    def finish(self, timeout: float = 300) -> str:
        self.proc.wait(timeout=timeout)
        self._pump_thread.join(timeout=60)
        while (line := self._queue.get(timeout=5)) is not None:
            self.lines.append(line)
        assert self.proc.returncode == 0, "\n".join(self.lines)
        return "\n".join(self.lines)


def run_writer(data_dir: Path, *args: str, words: int = 0) -> str:
    return Writer(data_dir, *args, delay=0.0, words=words).finish()


def kill_at(data_dir: Path, args: list[str], moment: Callable[[str], bool], after_s: float, words: int = 0) -> None:
    w = Writer(data_dir, *args, words=words)
    w.wait_for(moment)
    time.sleep(after_s)
    rc = w.kill()
    assert rc == -signal.SIGKILL, f"the writer ended on its own before the kill (exit {rc}):\n" + "\n".join(w.lines)
    assert "DONE" not in w.lines


def event(kind: str, step: str = "", file: str = "", min_done: int = 0) -> Callable[[str], bool]:
    def matches(line: str) -> bool:
        parts = line.split(" ", 5)
        return (parts[0] == "EVENT" and parts[1] == kind and (not step or parts[2] == step)
                and (not file or parts[5] == file) and (min_done == 0 or int(parts[3]) >= min_done))
    return matches


# -- what must hold after any crash -------------------------------------------------------------------
def assert_consistent(data_dir: Path, words: int = 0) -> dict[str, Rows]:
    """SQLite is sound and every listed document is whole. Returns its chunk rows by file."""
    db = sqlite3.connect(data_dir / "index" / "library.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()
    lib = open_library(data_dir, words)
    try:
        for doc in lib.store.documents():
            texts = lib.store.page_texts(doc.doc_id)
            assert len(texts) == doc.pages == 10 and all(texts), doc.file_name
            rows = [r for r in lib.store.chunk_rows([doc.doc_id])]
            assert [r[2] for r in rows] == list(range(len(rows))) and rows, doc.file_name
            for r in rows:
                page, start, end = r[3], r[4], r[5]
                assert 1 <= page <= doc.pages and 0 <= start < end <= len(texts[page - 1])
        return doc_rows(lib)
    finally:
        lib.close()


def assert_searchable(data_dir: Path, expected: set[str], words: int = 0) -> None:
    """Every filing is found by its own word; no vector is missing; the saved graph holds no
    removed chunk and finds each chunk's own vector."""
    lib = open_library(data_dir, words)
    try:
        assert not lib.mismatch()
        lib.refresh()
        assert {d.file_name for d in lib.docs.values()} == expected
        assert lib.pending_embeddings == 0
        retriever = HybridRetriever(lib, lib.settings.retrieval)
        for name in expected:
            word = FILERS[name][1]
            hits = retriever.search(word, k=3)
            assert hits and hits[0].doc.file_name == name, (name, [h.doc.file_name for h in hits])
        for cid in list(lib.chunks)[:: max(1, len(lib.chunks) // 12)]:
            found = lib.dense.search(lib.vectors[lib.row_of[cid]], k=5)
            assert found and found[0][0] == cid
            assert all(c in lib.chunks for c, _ in found)
    finally:
        lib.close()


# -- kill -9 during ingest -----------------------------------------------------------------------------------
INGEST_MOMENTS = {
    "while reading the second filing": (event("file", file=SECOND), 0.0),
    "just after its text was committed, embedding": (event("searchable", file=SECOND), 0.05),
    "in the middle of embedding the third": (event("step", "embed", file=THIRD, min_done=8), 0.1),
    "at a random time around the first commit": (event("step", "index", file=SECOND), random.Random(7).uniform(0, 0.05)),
}


@pytest.mark.slow
@pytest.mark.parametrize("moment", list(INGEST_MOMENTS))
def test_kill_during_ingest(moment: str, tmp_path: Path, filings: dict[str, Path], one_filed: Path,
                            reference: dict[str, dict[str, Rows]]) -> None:
    data = tmp_path / "data"
    shutil.copytree(one_filed, data)
    matches, after = INGEST_MOMENTS[moment]
    kill_at(data, ["ingest", str(filings[SECOND]), str(filings[THIRD])], matches, after)

    rows = assert_consistent(data)
    assert rows[FIRST] == reference["0"][FIRST]  # the earlier filing is untouched
    for name, doc in rows.items():  # a document is there whole (its vectors may come later) or not at all
        assert [r[:-1] for r in doc] == [r[:-1] for r in reference["0"][name]], name

    # Ingest again: completes what was interrupted, adds what was never reached.
    run_writer(data, "ingest", *(str(p) for p in filings.values()))
    assert assert_consistent(data) == reference["0"]
    assert_searchable(data, set(FILERS))


# -- kill -9 during remove ------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("after_s", [0.0, 0.004, 0.03])
def test_kill_during_remove(after_s: float, tmp_path: Path, all_filed: Path, filings: dict[str, Path],
                            reference: dict[str, dict[str, Rows]]) -> None:
    data = tmp_path / "data"
    shutil.copytree(all_filed, data)
    w = Writer(data, "remove", SECOND, delay=0.0)
    w.wait_for(event("removing"))
    time.sleep(after_s)
    w.kill()  # it may have finished already at the later moments: that is one of the states too

    rows = assert_consistent(data)
    assert rows[FIRST] == reference["0"][FIRST] and rows[THIRD] == reference["0"][THIRD]
    if SECOND in rows:  # not removed yet: whole
        assert rows[SECOND] == reference["0"][SECOND]
        run_writer(data, "remove", SECOND)
    assert set(assert_consistent(data)) == {FIRST, THIRD}
    assert_searchable(data, {FIRST, THIRD})
    run_writer(data, "ingest", str(filings[SECOND]))  # and it can be filed again
    assert assert_consistent(data)[SECOND] == reference["0"][SECOND]


# -- kill -9 during reindex -----------------------------------------------------------------------------------
REINDEX_MOMENTS = {
    "embedding the first filing": (event("step", "embed", file=FIRST, min_done=8), 0.05),
    "as the second filing starts": (event("file", file=SECOND), 0.0),
    "embedding the last filing": (event("step", "embed", file=THIRD, min_done=8), 0.1),
}


@pytest.mark.slow
@pytest.mark.parametrize("moment", list(REINDEX_MOMENTS))
def test_kill_during_reindex(moment: str, tmp_path: Path, all_filed: Path,
                             reference: dict[str, dict[str, Rows]]) -> None:
    data = tmp_path / "data"
    shutil.copytree(all_filed, data)
    matches, after = REINDEX_MOMENTS[moment]
    kill_at(data, ["reindex"], matches, after, words=NEW_WORDS)

    rows = assert_consistent(data, NEW_WORDS)
    assert set(rows) == set(FILERS)
    for name, doc in rows.items():  # each filing whole, in the old chunking or in the new one
        assert doc in (reference["0"][name], reference[str(NEW_WORDS)][name]), name
    # The manifest already names the new chunking: the interrupted re-index must be reported.
    lib = open_library(data, NEW_WORDS)
    try:
        problems = lib.mismatch()
    finally:
        lib.close()
    assert any("re-index was interrupted" in p for p in problems), problems

    run_writer(data, "reindex", words=NEW_WORDS)
    assert assert_consistent(data, NEW_WORDS) == reference[str(NEW_WORDS)]
    assert_searchable(data, set(FILERS), NEW_WORDS)


# -- two writers, and a reader, at once ----------------------------------------------------------------------
@pytest.mark.slow
def test_two_ingests_into_one_new_library_at_once(tmp_path: Path, filings: dict[str, Path],
                                                  reference: dict[str, dict[str, Rows]]) -> None:
    data = tmp_path / "data"  # nothing there yet: both processes create the index together
    writers = [Writer(data, "ingest", str(filings[FIRST]), delay=0.1),
               Writer(data, "ingest", str(filings[SECOND]), str(filings[THIRD]), delay=0.1)]
    for w in writers:
        w.finish()
        assert "EVENT done_file" in "\n".join(w.lines)
    assert assert_consistent(data) == reference["0"]
    assert_searchable(data, set(FILERS))


@pytest.mark.slow
def test_a_reader_never_sees_half_a_commit(tmp_path: Path, filings: dict[str, Path], one_filed: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(one_filed, data)
    reader = open_library(data)
    retriever = HybridRetriever(reader, reader.settings.retrieval)
    writer = Writer(data, "ingest", str(filings[SECOND]), str(filings[THIRD]), delay=0.05)
    seen: set[int] = set()
    try:
        while writer.proc.poll() is None or not seen:
            reader.refresh()
            assert all(c.doc_id in reader.docs for c in reader.chunks.values())
            counts = {d.file_name: len(reader.doc_chunks.get(d.doc_id, [])) for d in reader.docs.values()}
            assert all(n > 0 for n in counts.values()), counts
            hits = retriever.search(FILERS[FIRST][1], k=3)
            assert hits and hits[0].doc.file_name == FIRST
            seen.add(len(counts))
            if writer.proc.poll() is not None:
                reader.refresh()
                seen.add(len(reader.docs))
    finally:
        writer.finish()
        reader.close()
    assert max(seen) == 3
    assert_searchable(data, set(FILERS))
