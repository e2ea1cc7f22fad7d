"""models_setup: the default models' folders, with the embedder's query graph beside it."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.index.embedder_onnx import shipped_query_graph
from desktop_rag.models_setup import ensure_query_graph


def test_an_existing_query_graph_is_kept(tmp_path: Path) -> None:
    graph = shipped_query_graph(tmp_path / "all-MiniLM-L6-v2")
    graph.parent.mkdir(parents=True)
    graph.write_bytes(b"graph")
    assert ensure_query_graph(tmp_path / "all-MiniLM-L6-v2") is None  # nothing loaded or exported
    assert graph.read_bytes() == b"graph"
