"""models_setup: the default models' folders, with the embedder's query graph beside it."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from desktop_rag.core.index.embedder_onnx import shipped_query_graph
from desktop_rag.models_setup import ensure_query_graph


def test_an_existing_query_graph_is_kept(tmp_path: Path) -> None:
    graph = shipped_query_graph(tmp_path / "all-MiniLM-L6-v2")
    graph.parent.mkdir(parents=True)
    graph.write_bytes(b"graph")
    assert ensure_query_graph(tmp_path / "all-MiniLM-L6-v2") is None  # nothing loaded or exported
    assert graph.read_bytes() == b"graph"


def test_the_static_embedder_is_checked_and_kept_when_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_rag.models_setup import STATIC_DIMS, ensure_static_embedder, static_embedder_problem
    from tests.unit.core.index.test_embedder import static_folder

    target = tmp_path / "static"
    assert static_embedder_problem(target) == "missing config.json, model.safetensors, tokenizer.json"
    assert static_embedder_problem(static_folder(tmp_path / "small", dim=8)) == f"8 dimensions, not {STATIC_DIMS}"
    static_folder(target, dim=STATIC_DIMS)
    monkeypatch.setitem(sys.modules, "model2vec.distill", None)  # distilling would fail the test
    assert static_embedder_problem(target) is None
    assert ensure_static_embedder(tmp_path / "all-MiniLM-L6-v2", target) is None


def test_an_incomplete_static_embedder_is_distilled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from model2vec import StaticModel

    from desktop_rag.core.index.embedder import is_static
    from desktop_rag.models_setup import STATIC_DIMS, ensure_static_embedder
    from tests.unit.core.index.test_embedder import static_folder

    made = StaticModel.from_pretrained(static_folder(tmp_path / "made", dim=STATIC_DIMS))
    made.config["tokenizer_name"] = str(tmp_path / "all-MiniLM-L6-v2")
    calls: list[dict[str, object]] = []

    def distill(**kw: object) -> StaticModel:
        calls.append(kw)
        return made

    monkeypatch.setitem(sys.modules, "model2vec.distill", types.SimpleNamespace(distill=distill))
    target = tmp_path / "models" / "static"
    target.mkdir(parents=True)
    (target / "config.json").write_text("{}")  # an interrupted copy
    assert ensure_static_embedder(tmp_path / "all-MiniLM-L6-v2", target) == target
    assert calls == [{"model_name": str(tmp_path / "all-MiniLM-L6-v2"), "pca_dims": STATIC_DIMS}]
    assert is_static(target) and not (target.parent / ".static.tmp").exists()
    # the config names the folder it came from, not where it was on this machine
    assert json.loads((target / "config.json").read_text())["tokenizer_name"] == "all-MiniLM-L6-v2"
