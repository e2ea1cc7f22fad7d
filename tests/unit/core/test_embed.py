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


# -- the onnx-int8 backend (core/embed_onnx.py) ---------------------------------------------


def test_backend_is_part_of_the_identity_an_index_records(tmp_path: Path) -> None:
    from desktop_rag.core.library import Library
    from desktop_rag.settings import Settings

    torch_emb = Embedder("all-MiniLM-L6-v2")
    int8_emb = Embedder("all-MiniLM-L6-v2", backend="onnx-int8", cache_dir=tmp_path / "cache")
    # libraries built before the ONNX backend keep their identity (no forced re-index)
    assert torch_emb.model_id == "all-MiniLM-L6-v2@384"
    assert int8_emb.model_id.startswith("all-MiniLM-L6-v2@384+onnx-")
    settings = Settings()
    built = Library(tmp_path / "data", settings, torch_emb)
    built.store.set_manifest_values(**built.expected_manifest())
    built.close()
    reopened = Library(tmp_path / "data", settings, int8_emb)
    problems = reopened.mismatch()
    reopened.close()
    assert len(problems) == 1 and problems[0].startswith("embedder:") and "+onnx-" in problems[0]
    assert not torch_emb.loaded and not int8_emb.loaded  # the identity needs no model


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="backend"):
        Embedder("all-MiniLM-L6-v2", backend="tensorrt")


def test_settings_keep_the_default_backend_for_an_unknown_option() -> None:
    from desktop_rag.settings import Settings

    assert Settings.from_dict({"embedding": {"backend": "torch"}}).embedding.backend == "torch"
    default = Settings().embedding.backend
    assert Settings.from_dict({"embedding": {"backend": "cuda"}}).embedding.backend == default


def test_a_shipped_graph_is_used_and_none_without_a_cache_is_an_error(minilm: Path, tmp_path: Path) -> None:
    from desktop_rag.core.embed_onnx import find_or_export, shipped_graph

    folder = tmp_path / "model"
    folder.mkdir()
    with pytest.raises(FileNotFoundError, match="no int8 ONNX graph"):
        find_or_export(folder, None)
    shipped_graph(folder).parent.mkdir()
    shipped_graph(folder).write_bytes(b"graph")
    assert find_or_export(folder, tmp_path / "cache") == shipped_graph(folder)  # nothing exported


def test_the_cached_graph_follows_the_model_files(tmp_path: Path) -> None:
    import os

    from desktop_rag.core.embed_onnx import cached_graph

    folder = _model_folder(tmp_path, ["Transformer", "Pooling"], {"mean_tokens": True})
    (folder / "model.safetensors").write_bytes(b"weights")
    first = cached_graph(folder, tmp_path / "cache")
    assert first == cached_graph(folder, tmp_path / "cache")  # stable while the model is
    os.utime(folder / "model.safetensors", ns=(1, 1))  # retrained in place
    assert cached_graph(folder, tmp_path / "cache") != first


def test_onnx_backend_refuses_models_it_cannot_reproduce(tmp_path: Path) -> None:
    from desktop_rag.core.embed_onnx import pooling_mode

    assert pooling_mode(_model_folder(tmp_path / "a", ["Transformer", "Pooling", "Normalize"],
                                      {"mean_tokens": True})) == "mean_tokens"
    with pytest.raises(ValueError, match="torch"):
        pooling_mode(_model_folder(tmp_path / "b", ["Transformer", "Pooling", "Dense"], {"mean_tokens": True}))
    with pytest.raises(ValueError, match="torch"):
        pooling_mode(_model_folder(tmp_path / "c", ["Transformer", "Pooling"], {"max_tokens": True}))


FILING_TEXTS = [
    "Apple Inc. 10-Q Q3 2023 | Liquidity and Capital Resources\nThe Company believes its balances of cash, "
    "cash equivalents and unrestricted marketable securities will be sufficient to satisfy its cash requirements.",
    "Net sales by reportable segment: Americas $ 35,383 $ 37,472 (6)% Europe 20,205 19,287 5 %",
    "Risk Factors",
    "What was NVIDIA's data center revenue in the second quarter of fiscal 2024?",
]


@pytest.mark.slow
def test_int8_vectors_agree_with_torch_on_filing_text(minilm: Path, tmp_path: Path) -> None:
    """The quantised graph (exported here on first use) gives unit
    vectors close to torch's; the retrieval gate on the dev sets is the real measure."""
    import numpy as np

    torch_emb = Embedder(str(minilm))
    int8_emb = Embedder(str(minilm), backend="onnx-int8", cache_dir=tmp_path / "cache")
    reference = torch_emb.encode(FILING_TEXTS)
    vectors = int8_emb.encode(FILING_TEXTS, batch_size=3)  # two batches, padded differently
    assert vectors.shape == (len(FILING_TEXTS), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.97, cosines
    # Dynamic quantisation scales each MatMul's activations over the whole batch, so a text's
    # int8 vector depends a little on its batch (not so in torch): alone it is close, not equal.
    alone = int8_emb.encode_query(FILING_TEXTS[2])
    assert float(alone @ vectors[2]) > 0.97
    assert float(alone @ reference[2]) > 0.97
