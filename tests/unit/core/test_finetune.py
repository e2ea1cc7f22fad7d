"""core/finetune.py: what is refused before any training (the training itself: tests/e2e)."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.finetune import finetune_from_feedback
from desktop_rag.core.workspace import Workspace
from tests.unit.core.index.test_embedder import static_folder


def test_a_static_embedder_is_not_fine_tuned(tmp_path: Path) -> None:
    static_folder(tmp_path / "models" / "tiny-static")
    ws = Workspace(tmp_path / "data", tmp_path / "models")
    try:
        ws.set_embedder("tiny-static", remember=False)
        result = finetune_from_feedback(ws, log=lambda _m: None)
        assert not result.ok and "static embedder" in result.message and "all-MiniLM-L6-v2" in result.message
        assert ws.settings.embedding.model == "tiny-static"  # nothing changed
    finally:
        ws.close()
