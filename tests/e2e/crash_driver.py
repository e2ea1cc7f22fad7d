"""A library writer run as its own process by test_reliability.py, which kills it (-9) at
chosen moments. It uses the real Library/IndexStore code with the deterministic
FakeEmbedder slowed down by ``--delay`` seconds per batch, so the moments between the
steps are wide enough to hit: crash safety is about storage, not about MiniLM.

    python crash_driver.py DATA_DIR [--words N] [--delay S] ingest PDF...
    python crash_driver.py DATA_DIR [--words N] [--delay S] remove FILE_NAME
    python crash_driver.py DATA_DIR [--words N] [--delay S] reindex

Every progress event is printed (flushed) on stdout as ``EVENT kind step done todo file``,
so the test can wait for a line such as ``EVENT searchable`` before killing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from desktop_rag.core.library import IngestReport, Library  # noqa: E402
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


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("data_dir", type=Path)
    p.add_argument("--words", type=int, default=0)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--library", default="")
    p.add_argument("command", choices=["ingest", "remove", "reindex"])
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
    else:
        for ev in lib.reindex():
            _say("EVENT", ev.kind, ev.step or "-", ev.done, ev.todo, ev.file or "-")
    lib.close()
    _say("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
