"""core/embed.py: the embedder's identity and word costs come from its files, without torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.core.embed import Embedder, declared_shape, resolve_embedder

WORDS = ["income", "6,981", "(1,234)", "NVIDIA’s", "café", "naïve", "—", "$", "year-over-year", "10-Q", "ünïcödé"]


@pytest.fixture(scope="module")
def minilm() -> Path:
    return resolve_embedder("all-MiniLM-L6-v2")


def test_shipped_minilm_shape_is_read_from_its_files(minilm: Path) -> None:
    assert declared_shape(minilm) == (384, 256)
    emb = Embedder("all-MiniLM-L6-v2")
    assert (emb.dim, emb.max_seq_length, emb.model_id) == (384, 256, "all-MiniLM-L6-v2@384")
    assert emb.chunk_token_budget == 256 - Embedder.HEADER_RESERVE
    assert all(emb.word_cost(w) >= 1 for w in WORDS)
    assert not emb.loaded  # none of the above imported torch or loaded the weights


def test_word_costs_equal_the_transformers_tokenizer(minilm: Path) -> None:
    from transformers import AutoTokenizer

    reference = AutoTokenizer.from_pretrained(str(minilm), local_files_only=True)
    emb = Embedder(str(minilm))
    assert [emb.word_cost(w) for w in WORDS] == [len(reference.tokenize(w)) or 1 for w in WORDS]


def _model_folder(tmp_path: Path, modules: list[str], pooling: dict[str, bool]) -> Path:
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "modules.json").write_text(json.dumps(
        [{"idx": i, "name": str(i), "path": "1_Pooling" if m == "Pooling" else f"{i}_{m}",
          "type": f"sentence_transformers.models.{m}"} for i, m in enumerate(modules)]))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 768, **{f"pooling_mode_{k}": v for k, v in pooling.items()}}))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 512}))
    return folder


def test_declared_shape_counts_concatenated_pooling_modes(tmp_path: Path) -> None:
    folder = _model_folder(tmp_path, ["Transformer", "Pooling"], {"cls_token": True, "mean_tokens": True})
    assert declared_shape(folder) == (1536, 512)


def test_declared_shape_defers_to_the_model_when_unsure(tmp_path: Path) -> None:
    # A Dense projection changes the dimension: only the loaded model knows it.
    assert declared_shape(_model_folder(tmp_path / "a", ["Transformer", "Pooling", "Dense"],
                                        {"mean_tokens": True})) is None
    folder = _model_folder(tmp_path / "b", ["Transformer", "Pooling"], {"mean_tokens": True})
    (folder / "sentence_bert_config.json").unlink()
    assert declared_shape(folder) is None
    assert declared_shape(tmp_path / "missing") is None
