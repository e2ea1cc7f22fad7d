"""The embedder as an int8-quantised ONNX graph run by onnxruntime (issue #10).

Same model, same tokenizer, same pooling as the torch path (``core/index/embedder.py``): the
transformer's graph is exported from the model folder's weights with ``torch.onnx`` and its
MatMul/Gather weights quantised to int8 (onnxruntime's dynamic quantisation); the word-piece
tokenizer (``tokenizer.json``), the pooling and the L2 normalisation run here. Vectors are at
cosine ~0.99 to torch's (mean 0.991, min 0.979 on 96 real sec10q chunks). Dynamic quantisation
scales each MatMul's activations over the whole batch, so a text's vector also depends slightly
on the texts batched with it (a query embedded alone vs the same text in a chunk batch).

Measured speed (2026-11-23, this project's 2-core AMD EPYC with AVX2 but no AVX-512/VNNI, machine
at load 10-13, so per CPU-second of the process): int8 ONNX 6.1 sequences of 200 tokens per
CPU-s, fp32 ONNX 5.5, torch 5.7-6.1; on 128 real financebench-dev chunks 4.4 vs torch 4.2
chunks per CPU-s. No speed-up on this CPU: without VNNI, onnxruntime's int8 GEMM does not beat
fp32 FMA by enough to pay for quantising the activations of every MatMul. The ~3x that
sentence-transformers reports is for CPUs with VNNI (AVX512-VNNI / AVX-VNNI). So "torch" stays
the default and this backend is an option to measure on such a CPU (``main.py bench`` with
``embedding.backend`` set in the data dir's settings.json).

Why not sentence-transformers' own ``backend="onnx"``: it loads through optimum-onnx, whose
releases pin transformers < 4.58 and would downgrade the transformers 5 that the rest of the
stack runs on. The graph is the same; only the loader differs.

Where the quantised graph comes from (nothing is ever downloaded):
1. ``<model folder>/onnx/model_qint8.onnx`` when one is there (put beside the model, e.g. to ship
   it in a bundle's models/: ``export_quantized(folder, shipped_graph(folder))``);
2. otherwise it is exported on first use into a cache folder the app can write (the data
   dir), keyed by the model's files, so a model folder the app cannot write (a bundle's, a
   shared one) still works. Export takes ~25 s idle, once. It is not made by ``make setup``:
   with torch the default, every fresh install and CI run would pay for a graph it never uses.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

QUANTIZED_FILE = "model_qint8.onnx"
# Bump when the export or quantisation recipe changes: vectors change, so must the identity.
RECIPE = "qint8-v1"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_SUPPORTED_POOLING = ("mean_tokens", "cls_token")
_export_lock = threading.Lock()


def shipped_graph(model_dir: Path) -> Path:
    """Where the set-up step puts the quantised graph of a model folder."""
    return model_dir / "onnx" / QUANTIZED_FILE


def cached_graph(model_dir: Path, cache_dir: Path) -> Path:
    """Where a lazily exported graph goes: one folder per model, keyed by its config and
    weight files' sizes and times so a changed model is exported again rather than reused."""
    key = hashlib.sha256(RECIPE.encode())
    for name in ("config.json", "model.safetensors", "pytorch_model.bin", "tokenizer.json"):
        f = model_dir / name
        if f.is_file():
            stat = f.stat()
            key.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
            if f.suffix == ".json":
                key.update(f.read_bytes())
    return cache_dir / "onnx" / f"{model_dir.name}-{key.hexdigest()[:12]}" / QUANTIZED_FILE


def find_or_export(model_dir: Path, cache_dir: Path | None) -> Path:
    """The quantised graph of a model folder, exporting it once if none exists yet."""
    shipped = shipped_graph(model_dir)
    if shipped.is_file():
        return shipped
    if cache_dir is None:
        raise FileNotFoundError(
            f"no int8 ONNX graph at {shipped} and no cache folder to export one into "
            "(export one there, or set the embedding backend to 'torch')"
        )
    target = cached_graph(model_dir, cache_dir)
    with _export_lock:  # two libraries opening at once must not export twice into one file
        if not target.is_file():
            export_quantized(model_dir, target)
    return target


def pooling_mode(model_dir: Path) -> str:
    """The sentence-transformers pooling this path reproduces ("mean_tokens" or
    "cls_token"); anything else needs the torch backend."""
    modules = json.loads((model_dir / "modules.json").read_text("utf-8"))
    types = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if types not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise ValueError(f"{model_dir}: the ONNX backend handles Transformer + Pooling (+ Normalize) "
                         f"models only, not {types}; use the torch backend")
    pooling = next(m for m in modules if m["type"].endswith(".Pooling"))
    cfg = json.loads((model_dir / pooling["path"] / "config.json").read_text("utf-8"))
    modes = [k.removeprefix("pooling_mode_") for k, v in cfg.items() if k.startswith("pooling_mode_") and v]
    if len(modes) != 1 or modes[0] not in _SUPPORTED_POOLING:
        raise ValueError(f"{model_dir}: pooling {modes} is not supported by the ONNX backend; use torch")
    return modes[0]


def _last_hidden_state(model: Any) -> Any:
    """The transformer as a module of (input_ids, attention_mask, token_type_ids) -> its last
    hidden state, for ``torch.onnx.export``: called by keyword, as BertModel.forward's
    positional order differs across transformers releases. torch is imported here: set-up or
    first-load time only."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    return LastHiddenState(model)


def export_quantized(model_dir: Path, target: Path) -> Path:
    """Export the model's transformer to ONNX and quantise its weights to int8, atomically
    (a crash leaves no half-written graph at ``target``). Needs torch and onnx: set-up time."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    target.parent.mkdir(parents=True, exist_ok=True)
    model = _last_hidden_state(AutoModel.from_pretrained(str(model_dir), local_files_only=True)).eval()
    ids = torch.ones((2, 8), dtype=torch.long)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        plain = Path(tmp) / "model.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer notes about the legacy exporter
            torch.onnx.export(
                model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(plain),
                input_names=list(_INPUTS), output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")},
                opset_version=17, dynamo=False,
            )
        quantized = Path(tmp) / QUANTIZED_FILE
        quantize_dynamic(str(plain), str(quantized), weight_type=QuantType.QInt8, per_channel=True)
        os.replace(quantized, target)
    return target


class OnnxEncoder:
    """Tokenise, run the int8 graph, pool, L2-normalise: float32 (n, dim) unit rows."""

    def __init__(self, model_dir: Path, graph: Path, max_seq_length: int, threads: int = 0) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.graph = graph
        self.pooling = pooling_mode(model_dir)
        self.tokenizer: Tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        pad_id = self.tokenizer.token_to_id("[PAD]")
        self.tokenizer.enable_padding(pad_id=pad_id if pad_id is not None else 0,
                                      pad_token="[PAD]" if pad_id is not None else "<pad>")
        self._sessions: dict[int, onnxruntime.InferenceSession] = {}
        self._ort = ort
        self.threads = threads
        self._session(threads)  # fail now (a damaged graph) rather than at the first chunk

    def _session(self, threads: int) -> onnxruntime.InferenceSession:
        session = self._sessions.get(threads)
        if session is None:
            opts = self._ort.SessionOptions()
            opts.intra_op_num_threads = threads  # 0 = onnxruntime's choice (physical cores)
            opts.inter_op_num_threads = 1
            # No spin-waiting between ops: on a shared 2-core machine spinning threads steal
            # the core the other worker needs (the same collapse torch's OpenMP showed).
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.graph_optimization_level = self._ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = self._ort.InferenceSession(str(self.graph), opts, providers=["CPUExecutionProvider"])
            self._sessions[threads] = session
        return session

    def encode(self, texts: list[str], batch_size: int, threads: int | None = None) -> np.ndarray:
        session = self._session(self.threads if threads is None else threads)
        wanted = {i.name for i in session.get_inputs()}
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), max(1, batch_size)):
            enc = self.tokenizer.encode_batch(texts[start:start + batch_size])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, {k: v for k, v in feed.items() if k in wanted})[0]
            if self.pooling == "cls_token":
                pooled = hidden[:, 0]
            else:
                weights = mask[..., None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            parts.append(pooled / np.maximum(norms, 1e-12))
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


# -- the fp32 query path -------------------------------------------------------------------------
#
# One question is ~10-40 word pieces. Through sentence-transformers and torch it took ~33 ms idle
# (36 ms in the 2026-11-24 bench): torch's MKL GEMMs on this AMD CPU and per-call machinery
# (device checks, module walks) dominate at that size. onnxruntime's own GEMMs run the same
# fp32 graph in ~17 ms, with vectors equal to torch's to ~2e-7 (cosine 0.9999999 on 367 real
# questions): the same numbers, so the embedder's identity does not change.
#
# The graph carries no weights: its weight tensors are graph inputs fed with numpy views of the
# loaded torch model's own parameters, so the path adds ~12 MB for the session (+17 MB for
# onnxruntime's libraries) instead of another copy of the model (+126 MB with onnxruntime's
# initialisers and pre-packed GEMM weights; the app's memory row is within ~90 MB of its target).
# Where the graph (~150 KB) comes from, nothing downloaded:
# 1. ``<model folder>/onnx/query_fp32.onnx``, written by ``models_setup`` for the default
#    embedder at set-up time;
# 2. otherwise exported from the loaded model on first use (~2-4 s, on the worker that loads
#    the embedder, after the window is ready) into the data dir's cache, then reused. The export
#    imports onnx and torch's exporter: ~+60 MB resident in that one session.

QUERY_GRAPH_FILE = "query_fp32.onnx"
# Bump when the export or the graph surgery changes.
QUERY_RECIPE = "fp32-shared-weights-v1"
# Texts the loaded path is checked on before it is used: any difference from the torch
# vectors (a tokenizer option, a prompt, a model the export does not reproduce) keeps torch.
# Two short texts: a long one would make torch allocate for 256 tokens, resident from then on
# (the unit test checks truncation with the real model).
SELF_CHECK_TEXTS = (
    "What was Apple's total net sales for the three months ended June 25, 2022?",
    "  NVIDIA’s data-center revenue, year-over-year (in millions)  ",
)
SELF_CHECK_COSINE = 0.9999


def shipped_query_graph(model_dir: Path) -> Path:
    """Where the set-up step puts a model folder's weightless query graph."""
    return model_dir / "onnx" / QUERY_GRAPH_FILE


def query_graph_path(model_dir: Path, cache_dir: Path) -> Path:
    """Where the weightless query graph of a model folder is cached: keyed by the recipe, the
    model's config (its architecture) and the exporting library versions (the traced graph
    follows transformers' modelling code), not by the weights, which are fed at run time."""
    import torch
    import transformers

    key = hashlib.sha256(f"{QUERY_RECIPE}:{torch.__version__}:{transformers.__version__}".encode())
    config = model_dir / "config.json"
    if config.is_file():
        key.update(config.read_bytes())
    return cache_dir / "onnx" / f"{model_dir.name}-query-{key.hexdigest()[:12]}" / QUERY_GRAPH_FILE


def _transformer_module(model: Any) -> Any:
    """The transformers model inside a loaded SentenceTransformer (its first module)."""
    first = model[0]
    inner = getattr(first, "auto_model", None)
    return inner if inner is not None else first.model


def export_query_graph(model: Any, target: Path) -> Path:
    """Trace the loaded model's transformer to an fp32 ONNX graph whose weights are inputs
    named as in its ``state_dict()``; written atomically to ``target``."""
    import onnx
    import torch
    from onnx import helper

    inner = _transformer_module(model)

    ids = torch.ones((1, 8), dtype=torch.long)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        traced = Path(tmp) / "traced.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer notes about the legacy exporter
            # No constant folding: a Linear's weight stays the model's own tensor (folding would
            # store a transposed copy under a generated name, which no parameter could feed).
            torch.onnx.export(
                _last_hidden_state(inner), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(traced),
                input_names=list(_INPUTS), output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")},
                opset_version=17, dynamo=False, do_constant_folding=False,
            )
        graph_model = onnx.load(str(traced))
    graph = graph_model.graph
    params = {f"model.{name}": tuple(t.shape) for name, t in inner.state_dict().items()}
    fed = {i.name: i for i in graph.initializer if params.get(i.name) == tuple(i.dims)}
    _fuse_transposed_weights(graph, set(fed), helper)
    graph_model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    for name, init in fed.items():  # the weights become inputs, fed from the torch model
        graph.input.append(helper.make_tensor_value_info(name, init.data_type, list(init.dims)))
    kept = [onnx.TensorProto.FromString(i.SerializeToString()) for i in graph.initializer if i.name not in fed]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".tmp", delete=False) as out:
        out.write(graph_model.SerializeToString())
    os.chmod(out.name, 0o644)  # a temporary file is private; the graph is not (a shared models folder)
    os.replace(out.name, target)
    return target


def _fuse_transposed_weights(graph: Any, weights: set[str], helper: Any) -> None:
    """``MatMul(x, Transpose(W))`` -> ``FusedMatMul(x, W, transB=1)``: onnxruntime reads the
    weight in torch's (out, in) layout instead of transposing 42 MB of weights per call."""
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    nodes = list(graph.node)
    for node in nodes:
        if node.op_type != "Transpose" or len(node.input) != 1 or node.input[0] not in weights:
            continue
        perm = [list(a.ints) for a in node.attribute if a.name == "perm"]
        if perm and perm[0] != [1, 0]:
            continue
        users = consumers.get(node.output[0], [])
        if not users or any(u.op_type != "MatMul" or list(u.input).index(node.output[0]) != 1 for u in users):
            continue
        for user in users:
            fused = helper.make_node("FusedMatMul", [user.input[0], node.input[0]], list(user.output),
                                     name=user.name, domain="com.microsoft", transB=1, alpha=1.0)
            user.CopyFrom(fused)
        graph.node.remove(node)


class QueryEncoder:
    """One text at a time through the weightless fp32 graph, fed with the loaded torch model's
    parameters (shared memory, read only). Its own tokenizer and lock: a question need not wait
    for an ingest's embedding batch on the torch model's encode lock."""

    def __init__(self, model: Any, model_dir: Path, graph: Path, max_seq_length: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.pooling = pooling_mode(model_dir)
        self.tokenizer: Tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # one short input: a second thread only waits (see encode_query)
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"])
        state = {f"model.{name}": t for name, t in _transformer_module(model).state_dict().items()}
        self._weights: dict[str, np.ndarray] = {}
        for graph_input in self.session.get_inputs():
            if graph_input.name in _INPUTS:
                continue
            tensor = state[graph_input.name].detach()
            if not tensor.is_contiguous():
                tensor = tensor.contiguous()  # a copy; the model's parameters are contiguous
            self._weights[graph_input.name] = tensor.numpy()  # a view of the torch tensor
        self._wanted = {i.name for i in self.session.get_inputs()}
        self._lock = threading.Lock()  # a Rust tokenizer must not be used from two threads at once

    def encode(self, text: str) -> np.ndarray:
        with self._lock:
            ids = np.array([self.tokenizer.encode(text.strip()).ids], dtype=np.int64)
        feed: dict[str, Any] = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self._wanted} | self._weights)[0][0]
        pooled = hidden[0] if self.pooling == "cls_token" else hidden.mean(axis=0)
        return np.ascontiguousarray(pooled / max(float(np.linalg.norm(pooled)), 1e-12), dtype=np.float32)

    def agrees_with(self, reference: np.ndarray, texts: tuple[str, ...] = SELF_CHECK_TEXTS) -> float:
        """The lowest cosine between this path's vectors and ``reference`` (torch's, one row per text)."""
        return min(float(self.encode(t) @ reference[i]) for i, t in enumerate(texts))


def load_query_encoder(model: Any, model_dir: Path, cache_dir: Path | None, max_seq_length: int) -> QueryEncoder:
    """The query path for a loaded SentenceTransformer: the model folder's graph, else the
    cached one, exported first if missing (no cache folder and no shipped graph: an error)."""
    target = shipped_query_graph(model_dir)
    if not target.is_file():
        if cache_dir is None:
            raise FileNotFoundError(f"no query graph at {target} and no cache folder to export one into")
        target = query_graph_path(model_dir, cache_dir)
        with _export_lock:
            if not target.is_file():
                export_query_graph(model, target)
    return QueryEncoder(model, model_dir, target, max_seq_length)
