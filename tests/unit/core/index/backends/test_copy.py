"""``library push`` / ``library pull`` through the CLI on a real PostgreSQL: documents,
chunks, vectors (bit for bit), BM25 tokens and statements copied without re-embedding, the
same search results on every copy, a second run skips what is there, and libraries built
with another embedder are refused."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.cli import main
from desktop_rag.core.index.library import Library
from desktop_rag.core.retrieve.hybrid import HybridRetriever
from desktop_rag.settings import Settings
from tests.conftest import FakeEmbedder, init_team

QUESTIONS = ["total net sales", "data center revenue growth", "research and development"]


def _results(lib: Library) -> list[list[tuple[str, int, str]]]:
    r = HybridRetriever(lib, Settings().retrieval)
    return [[(h.doc.file_name, h.chunk.page, h.chunk.text) for h in r.search(q, k=5)] for q in QUESTIONS]


def _vectors(lib: Library) -> dict[tuple[str, int], bytes]:
    # a team library keeps no vectors on the desktop: all_vectors reads them from the server
    ids, matrix = lib.all_vectors()
    return {(lib.chunks[int(c)].doc_id, lib.chunks[int(c)].ordinal): matrix[i].tobytes() for i, c in enumerate(ids)}


def test_push_then_pull_copies_without_reembedding(build_library, pg_database: str, tmp_path: Path,
                                                   fake_embedder: FakeEmbedder, capsys) -> None:
    local = build_library()
    local_dir = local.store.dir.parent
    url = init_team(pg_database, fake_embedder)
    calls = fake_embedder.calls

    assert main(["--data-dir", str(local_dir), "library", "push", url]) == 0
    team = Library(tmp_path / "desk", Settings(), fake_embedder, location=url)
    assert sorted(d.file_name for d in team.documents()) == sorted(d.file_name for d in local.documents())
    assert _vectors(team) == _vectors(local)
    assert _results(team) == _results(local)
    doc_id = next(iter(local.docs))
    assert [s.to_json() for s in team.statements(doc_id)] == [s.to_json() for s in local.statements(doc_id)]

    assert main(["--data-dir", str(local_dir), "library", "push", url]) == 0  # again: nothing to do
    assert "0 document(s), 0 chunks copied" in capsys.readouterr().err

    away = tmp_path / "away"
    assert main(["--data-dir", str(away), "library", "pull", url]) == 0
    pulled = Library(away, Settings(), fake_embedder)
    assert pulled.mismatch() == []
    assert _vectors(pulled) == _vectors(local)
    assert _results(pulled) == _results(local)
    assert len(pulled.dense) == len(local.chunk_ids)  # the graph is built from the copied vectors
    assert fake_embedder.calls - calls <= 2 * len(QUESTIONS) * 3  # only queries were embedded, no chunk
    for lib in (team, pulled):
        lib.close()


def test_push_refuses_a_library_of_another_embedder(build_library, pg_database: str, capsys) -> None:
    other = build_library(embedder=FakeEmbedder(dim=64, name="other"))
    url = init_team(pg_database, FakeEmbedder())
    assert main(["--data-dir", str(other.store.dir.parent), "library", "push", url]) == 2
    err = capsys.readouterr().err
    assert "built differently" in err and "other@64" in err
