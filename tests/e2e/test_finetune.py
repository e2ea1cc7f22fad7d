"""Feedback -> triplets -> fine-tuned embedder -> re-index, with the real MiniLM (offline)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from desktop_rag.core.domain.types import Answer, Citation
from desktop_rag.core.finetune import build_triplets, finetune_from_feedback
from desktop_rag.core.workspace import Workspace

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
EMBEDDER = REPO / "models" / "all-MiniLM-L6-v2"
# What the frozen bundle leaves out (pyinstaller.spec): fine-tuning must not need them.
NOT_BUNDLED = ("datasets", "pandas", "pyarrow")

PAGES = [
    "Contoso Ltd. FORM 10-Q\nFor the quarterly period ended March 31, 2024\n"
    "Research and development expense increased 12% to $1.4 billion, driven by headcount growth.",
    "Liquidity and Capital Resources\nThe Company repurchased $2.0 billion of its common stock "
    "and paid dividends of $0.5 billion during the quarter.",
    "Risk Factors\nThe Company's operations may be disrupted by natural disasters, pandemics "
    "and other events beyond its control.",
]


def _make_pdf(path: Path) -> None:
    doc = pymupdf.open()
    for text in PAGES:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=11)
    doc.save(path)


def test_feedback_finetunes_and_reindexes(tmp_path: Path) -> None:
    pdf = tmp_path / "2024 Q1 contoso 10-Q.pdf"
    _make_pdf(pdf)
    ws = Workspace(tmp_path / "data")
    list(ws.library.ingest([pdf]))
    lib = ws.library
    assert len(lib.chunks) >= 3

    conv = ws.history.new_conversation()
    questions = {"How much did Contoso spend on R&D?": 1, "Did Contoso buy back stock?": 2}
    for q, page in questions.items():
        hits = ws.engine.retriever.search(q, k=3)
        cited = next(c for c in lib.chunks.values() if c.page == page)
        ans = Answer(q, "answer", [Citation(cited.doc_id, pdf.name, page, cited.text[:40], 0, cited.chunk_id)], hits=hits)
        ws.history.set_feedback(ws.history.add_message(conv, ans), +1)

    triplets = build_triplets(ws)
    assert len(triplets) == 2
    assert all(pos != neg for _, pos, neg in triplets)

    before = ws.embedder.encode_query("research and development spending")
    result = finetune_from_feedback(ws, epochs=1, min_triplets=2, log=lambda _m: None)
    assert result.ok, result.message
    assert result.model_dir is not None and (result.model_dir / "modules.json").exists()
    ws.close()

    # The settings now name the tuned model: the old index no longer fits and says so.
    ws2 = Workspace(tmp_path / "data")
    assert ws2.settings.embedding.model == str(result.model_dir)
    assert ws2.library.mismatch()
    after = ws2.embedder.encode_query("research and development spending")
    assert not np.allclose(before, after)
    list(ws2.library.reindex())
    assert not ws2.library.mismatch()
    hits = ws2.engine.retriever.search("R&D expense", k=1)
    assert hits and hits[0].chunk.page == 1
    ws2.close()


TRAIN_WITHOUT_DATASETS = textwrap.dedent(
    """
    import importlib.metadata as md
    import json, sys
    blocked = {blocked!r}
    for name in blocked:
        sys.modules[name] = None  # `import name` raises ImportError, as in the bundle
    def hidden(real):  # and no installed metadata either (sentence-transformers checks that)
        def lookup(name):
            if name in blocked:
                raise md.PackageNotFoundError(name)
            return real(name)
        return lookup
    md.metadata, md.version, md.distribution = hidden(md.metadata), hidden(md.version), hidden(md.distribution)
    import numpy as np
    from sentence_transformers import SentenceTransformer
    from desktop_rag.core.finetune import train_triplets

    model = SentenceTransformer(sys.argv[1], device="cpu", local_files_only=True)
    probe = "research and development spending"
    before = model.encode(probe, normalize_embeddings=True)
    train_triplets(model, [
        ("How much did Contoso spend on R&D?", "Research and development expense increased 12%.",
         "The Company paid dividends of $0.5 billion."),
        ("Did Contoso buy back stock?", "The Company repurchased $2.0 billion of its common stock.",
         "Operations may be disrupted by natural disasters."),
    ], epochs=1, batch_size=2)
    after = model.encode(probe, normalize_embeddings=True)
    print(json.dumps({{"moved": float(np.abs(before - after).max()), "training": model.training}}))
    """
).format(blocked=NOT_BUNDLED)


@pytest.mark.skipif(not (EMBEDDER / "modules.json").exists(), reason="MiniLM not in models/ (run make setup)")
def test_training_needs_neither_datasets_nor_pandas() -> None:
    """The bundle excludes datasets/pandas/pyarrow; the same training loop must run without them."""
    proc = subprocess.run([sys.executable, "-c", TRAIN_WITHOUT_DATASETS, str(EMBEDDER)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["moved"] > 1e-6  # the weights moved
    assert out["training"] is False  # left in eval mode for encoding
