"""A library writer run as its own process by test_reliability.py, which kills it (-9) at
chosen moments. It uses the real Library/IndexStore code with the deterministic
FakeEmbedder slowed down by ``--delay`` seconds per batch, so the moments between the
steps are wide enough to hit: crash safety is about storage, not about MiniLM.

    python crash_driver.py DATA_DIR [--words N] [--delay S] ingest PDF...
    python crash_driver.py DATA_DIR [--words N] [--delay S] remove FILE_NAME
    python crash_driver.py DATA_DIR [--words N] [--delay S] reindex
    python crash_driver.py DATA_DIR --library URL follow FILE_NAME...

``follow`` is another desktop on a team library: it loads the library, follows the change
notifications (``Library.follow_changes``) and prints ``SEARCHABLE name`` when BM25 finds
the chunks of a filing of that name, ``GONE name`` once it is removed, then
``SAME_INDEX True`` when no full reload happened (the changes were applied in place).

Every progress event is printed (flushed) on stdout as ``EVENT kind step done todo file``,
so the test can wait for a line such as ``EVENT searchable`` before killing.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from desktop_rag.core.index.library import IngestReport, Library  # noqa: E402
from desktop_rag.settings import Settings  # noqa: E402
from tests.conftest import FakeEmbedder  # noqa: E402

BATCH = 8  # small batches: several embed steps per document, each a moment to kill at


class SlowEmbedder(FakeEmbedder):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def encode(self, texts: list[str], batch_size: int | None = None):  # type: ignore[no-untyped-def]
        if self.delay:
            time.sleep(self.delay)
        return super().encode(texts, batch_size)


def make_settings(words: int = 0) -> Settings:
    """The settings both the driver and the test use; ``words`` > 0 changes the chunking
    (what a re-index is for)."""
    settings = Settings()
    settings.embedding.batch_size = BATCH
    if words:
        settings.chunking.words_per_chunk = words
        settings.chunking.overlap_words = words // 4
    return settings


def open_library(data_dir: Path, words: int = 0, delay: float = 0.0, location: str = "") -> Library:
    """``location``: a team library's URL (test_team_library.py), else the data dir's."""
    return Library(data_dir, make_settings(words), SlowEmbedder(delay), location=location)


def _say(*parts: object) -> None:
    print(" ".join(str(p) for p in parts), flush=True)


def _follow(lib: Library, names: list[str], timeout: float = 300.0) -> None:
    from desktop_rag.core.domain.terms import tokenize

    changed = threading.Event()
    lib.follow_changes(changed.set)
    index = lib.lexical
    _say("FOLLOWING", len(lib.docs))
    seen: set[str] = set()
    gone: set[str] = set()
    end = time.monotonic() + timeout
    while gone != set(names) and time.monotonic() < end:
        changed.wait(1.0)
        changed.clear()
        with lib.views_lock:
            present = {d.file_name: d.doc_id for d in lib.docs.values()}
            for name in names:
                if name in present and name not in seen:
                    doc_id = present[name]
                    first = lib.chunks[lib.doc_chunks[doc_id][0]]
                    if lib.lexical_search(tokenize(first.text), 5, [doc_id]):
                        seen.add(name)
                        _say("SEARCHABLE", name)
                elif name in seen and name not in present and name not in gone:
                    gone.add(name)
                    _say("GONE", name)
    _say("SAME_INDEX", lib.lexical is index)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("data_dir", type=Path)
    p.add_argument("--words", type=int, default=0)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--library", default="")
    p.add_argument("command", choices=["ingest", "remove", "reindex", "follow"])
    p.add_argument("args", nargs="*")
    ns = p.parse_args(argv)
    lib = open_library(ns.data_dir, ns.words, ns.delay, ns.library)
    _say("READY")
    if ns.command == "ingest":
        report = IngestReport()
        for ev in lib.ingest(ns.args, report=report):
            _say("EVENT", ev.kind, ev.step or "-", ev.done, ev.todo, ev.file or "-")
        if report.failed:
            _say("FAILED", report.failed)
            return 1
    elif ns.command == "remove":
        [name] = ns.args
        [doc] = [d for d in lib.documents() if d.file_name == name]
        _say("EVENT removing")
        lib.remove(doc.doc_id)
        _say("EVENT removed")
    elif ns.command == "follow":
        _follow(lib, ns.args)
    else:
        for ev in lib.reindex():
            _say("EVENT", ev.kind, ev.step or "-", ev.done, ev.todo, ev.file or "-")
    lib.close()
    _say("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
