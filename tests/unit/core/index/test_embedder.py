"""core/index/embedder.py: the embedder's identity and word costs come from its files, without torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.core.index.embedder import Embedder, declared_shape, resolve_embedder
from tests.conftest import REPO_ROOT

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


# -- the onnx-int8 backend (core/embedder_onnx.py) ---------------------------------------------


def test_backend_is_part_of_the_identity_an_index_records(tmp_path: Path) -> None:
    from desktop_rag.core.index.library import Library
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
    from desktop_rag.core.index.embedder_onnx import find_or_export, shipped_graph

    folder = tmp_path / "model"
    folder.mkdir()
    with pytest.raises(FileNotFoundError, match="no int8 ONNX graph"):
        find_or_export(folder, None)
    shipped_graph(folder).parent.mkdir()
    shipped_graph(folder).write_bytes(b"graph")
    assert find_or_export(folder, tmp_path / "cache") == shipped_graph(folder)  # nothing exported


def test_the_cached_graph_follows_the_model_files(tmp_path: Path) -> None:
    import os

    from desktop_rag.core.index.embedder_onnx import cached_graph

    folder = _model_folder(tmp_path, ["Transformer", "Pooling"], {"mean_tokens": True})
    (folder / "model.safetensors").write_bytes(b"weights")
    first = cached_graph(folder, tmp_path / "cache")
    assert first == cached_graph(folder, tmp_path / "cache")  # stable while the model is
    os.utime(folder / "model.safetensors", ns=(1, 1))  # retrained in place
    assert cached_graph(folder, tmp_path / "cache") != first


def test_onnx_backend_refuses_models_it_cannot_reproduce(tmp_path: Path) -> None:
    from desktop_rag.core.index.embedder_onnx import pooling_mode

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


# -- the fp32 query path ----------------------------------------------------------------------


def _real_questions(n: int) -> list[str]:
    """Questions as the retriever embeds them, from both labelled sets (in the repo)."""
    from desktop_rag.core.domain.terms import expand_shorthand

    root = REPO_ROOT / "eval"
    out: list[str] = []
    for name in ("devset.jsonl", "financebench_dev_labels.jsonl"):
        lines = (root / name).read_text("utf-8").splitlines()
        out += [expand_shorthand(json.loads(line)["question"].strip()) for line in lines[:: max(1, len(lines) // n)][:n]]
    return out


@pytest.mark.slow
def test_query_vectors_equal_the_torch_vectors(minilm: Path, tmp_path: Path) -> None:
    """The onnxruntime query path gives torch's vector for the same text (real questions, a
    text longer than the model's 256 word pieces), under the same identity; its graph is
    exported once into the cache and reused."""
    import numpy as np

    from desktop_rag.core.index.embedder_onnx import query_graph_path, shipped_query_graph

    questions = [*_real_questions(6), "Risk Factors " + "goodwill impairment of reporting units " * 60]
    reference = Embedder(str(minilm))  # no cache folder and (here) no shipped graph: torch
    fast = Embedder(str(minilm), cache_dir=tmp_path / "cache")
    fast.load()
    assert fast._query is not None and fast.model_id == reference.model_id == "all-MiniLM-L6-v2@384"
    graph = shipped_query_graph(minilm)
    if not graph.is_file():
        graph = query_graph_path(minilm, tmp_path / "cache")
        assert graph.is_file()
    expected = np.stack([reference.encode([q])[0] for q in questions])
    vectors = np.stack([fast.encode_query(q) for q in questions])
    assert vectors.dtype == np.float32 and vectors.shape == (len(questions), 384)
    cosines = (vectors * expected).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines
    assert np.abs(vectors - expected).max() < 1e-5
    stamp = graph.stat().st_mtime_ns
    again = Embedder(str(minilm), cache_dir=tmp_path / "cache")
    again.load()
    assert again._query is not None and graph.stat().st_mtime_ns == stamp  # reused, not exported again


def test_recent_questions_are_served_from_a_bounded_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    emb = Embedder("all-MiniLM-L6-v2")
    calls: list[str] = []

    def embed(text: str) -> np.ndarray:
        calls.append(text)
        return np.full(4, float(len(calls)), dtype=np.float32)

    monkeypatch.setattr(emb, "_encode_one", embed)
    monkeypatch.setattr(emb, "RECENT_QUERIES", 2)
    first = emb.encode_query("a")
    first[:] = -1.0  # a caller changing its vector must not change the cached one
    assert emb.encode_query("a").tolist() == [1.0] * 4 and calls == ["a"]
    emb.encode_query("b")
    emb.encode_query("c")  # evicts "a", the least recently used
    emb.encode_query("a")
    assert calls == ["a", "b", "c", "a"]
    emb.forget_recent_queries()
    emb.encode_query("c")
    assert calls[-1] == "c" and not emb.loaded


def test_a_query_path_that_disagrees_with_torch_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from desktop_rag.core.index import embedder_onnx

    class Disagreeing:
        def agrees_with(self, reference: np.ndarray) -> float:
            return 0.99

    class Model:
        def encode(self, texts: list[str], **_: object) -> np.ndarray:
            return np.zeros((len(texts), 384), dtype=np.float32)

    monkeypatch.setattr(embedder_onnx, "load_query_encoder", lambda *a: Disagreeing())
    emb = Embedder("all-MiniLM-L6-v2")
    assert emb._load_query_path(Model()) is None  # type: ignore[arg-type]

    def broken(*_: object) -> None:
        raise RuntimeError("graph input missing")

    monkeypatch.setattr(embedder_onnx, "load_query_encoder", broken)
    assert emb._load_query_path(Model()) is None  # type: ignore[arg-type]


def test_transposed_weights_are_read_in_place_by_a_fused_matmul() -> None:
    """MatMul(x, Transpose(W)) becomes FusedMatMul(x, W, transB=1), W fed as an input: same result."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from desktop_rag.core.index.embedder_onnx import _fuse_transposed_weights

    nodes = [helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
             helper.make_node("MatMul", ["x", "wt"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4]),
                     helper.make_tensor_value_info("w", TensorProto.FLOAT, [5, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 5])])
    _fuse_transposed_weights(graph, {"w"}, helper)
    assert [n.op_type for n in graph.node] == ["FusedMatMul"]
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 4)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert np.allclose(session.run(None, {"x": x, "w": w})[0], x @ w.T, atol=1e-6)


# -- a static (model2vec) model ----------------------------------------------------------------

STATIC_VOCAB = ["[UNK]", "net", "sales", "revenue", "increased", "cash", "flows", "risk", "factors"]


def static_folder(folder: Path, dim: int = 8) -> Path:
    """A tiny model2vec folder saved by model2vec itself: a word-level tokenizer over
    STATIC_VOCAB, one random vector per word."""
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tokenizer = Tokenizer(WordLevel({w: i for i, w in enumerate(STATIC_VOCAB)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    vectors = np.random.default_rng(0).normal(size=(len(STATIC_VOCAB), dim)).astype(np.float32)
    StaticModel(vectors, tokenizer, config={"model_type": "model2vec", "hidden_dim": dim},
                normalize=True).save_pretrained(folder)
    return folder


def test_a_static_model_is_shaped_from_its_config_without_loading(tmp_path: Path) -> None:
    from desktop_rag.core.index.embedder import STATIC_SEQ_LENGTH, is_static

    folder = static_folder(tmp_path / "models" / "tiny-static")
    assert is_static(folder) and not is_static(tmp_path)
    assert resolve_embedder("tiny-static", tmp_path / "models") == folder  # found by name in models/
    emb = Embedder("tiny-static", tmp_path / "models", backend="onnx-int8")  # the backend does not apply
    assert (emb.dim, emb.max_seq_length, emb.model_id) == (8, STATIC_SEQ_LENGTH, "tiny-static@8")
    assert emb.word_cost("revenue") == 1
    assert not emb.loaded


def test_static_vectors_are_unit_float32_and_a_question_equals_its_passage(tmp_path: Path) -> None:
    import numpy as np

    emb = Embedder(str(static_folder(tmp_path / "tiny-static")))
    vectors = emb.encode(["net sales increased", "cash flows", "risk factors", "zzz qqq"], batch_size=2)
    assert vectors.shape == (4, 8) and vectors.dtype == np.float32 and emb.loaded
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert not vectors[3].any()  # no known word piece: the zero vector, not NaN
    assert np.allclose(emb.encode_query("cash flows"), vectors[1], atol=1e-6)
    assert emb.encode([]).shape == (0, 8)


def test_switching_to_a_static_model_asks_for_a_reindex(tmp_path: Path) -> None:
    from desktop_rag.core.index.library import Library
    from desktop_rag.settings import Settings

    settings = Settings()
    built = Library(tmp_path / "data", settings, Embedder("all-MiniLM-L6-v2"))
    built.store.set_manifest_values(**built.expected_manifest())
    built.close()
    reopened = Library(tmp_path / "data", settings, Embedder(str(static_folder(tmp_path / "tiny-static"))))
    problems = reopened.mismatch()
    reopened.close()
    assert any(p.startswith("embedder:") and "tiny-static@8" in p for p in problems), problems
    # the chunks stay those of the MiniLM it is distilled from: the same word-piece budget
    assert not any(p.startswith("chunking") for p in problems), problems


def test_a_missing_static_embedder_says_how_it_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_rag.core.index import embedder as embedder_module
    from desktop_rag.paths import STATIC_EMBEDDER

    monkeypatch.setattr(embedder_module, "model_dirs", lambda: [tmp_path])  # not set up here
    with pytest.raises(FileNotFoundError, match=r"tools/bootstrap\.sh"):
        resolve_embedder(STATIC_EMBEDDER, tmp_path)
