"""The workspace is the one service the GUI and CLI call: it closes what it opened, swaps the
embedder and the model itself, and changes the library through its own methods. The
language model is a fake here (the point is who closes what), the embedder the fake one."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core import workspace as workspace_module
from desktop_rag.core.domain.types import DocumentMeta
from desktop_rag.core.workspace import Workspace
from tests.conftest import APPLE_PAGES, FakeEmbedder, write_pdf


class FakeGenerator:
    def __init__(self, path: Path, settings: object) -> None:
        self.path = path
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "home", tmp_path / "models")
    ws.embedder = ws.library.embedder = FakeEmbedder()  # type: ignore[assignment]
    return ws


def test_context_manager_closes_the_library_history_and_model(ws: Workspace, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "LlamaGenerator", FakeGenerator)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    with ws as entered:
        assert entered is ws
        gen = ws.load_model(str(gguf))
    assert isinstance(gen, FakeGenerator) and gen.closed
    with pytest.raises(Exception, match="closed"):
        ws.history.conversations()  # the connection is closed


def test_reload_model_closes_the_current_one_first(ws: Workspace, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "LlamaGenerator", FakeGenerator)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    first = ws.load_model(str(gguf))
    assert ws.load_model(str(gguf)) is first  # the same file: kept
    second = ws.reload_model(str(gguf))
    assert second is not first and first.closed and not second.closed
    assert ws.engine.generator is second
    ws.close()


def test_set_embedder_that_is_no_model_changes_nothing(ws: Workspace, tmp_path: Path) -> None:
    before = ws.embedder
    setting = ws.settings.embedding.model
    with pytest.raises(FileNotFoundError):
        ws.set_embedder(str(tmp_path / "not-a-model"))
    assert ws.embedder is before and ws.library.embedder is before
    assert ws.settings.embedding.model == setting
    ws.close()


def test_remove_and_update_meta_go_through_the_library(ws: Workspace, tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "pdfs" / "2023 Q3 AAPL.pdf", APPLE_PAGES)
    for _ in ws.library.ingest([pdf]):
        pass
    [doc] = ws.library.documents()
    meta = DocumentMeta(**{**doc.meta.to_dict(), "company": "Apple Inc. (edited)"})
    ws.update_meta(doc.doc_id, meta)
    [edited] = ws.library.documents()
    assert edited.meta.company == "Apple Inc. (edited)" and edited.meta_edited
    assert ws.remove(doc.doc_id)
    assert ws.library.documents() == []
    assert not ws.remove(doc.doc_id)
    ws.close()
