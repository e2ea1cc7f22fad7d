"""Fine-tune the embedder on the analyst's thumbs up/down, fully offline.

Training data are triplets (question, positive passage, hard negative passage):
- thumbs up: each cited chunk is a positive; retrieved-but-not-cited chunks are negatives;
- thumbs down: the cited chunks become negatives for the question, paired with a
  positive only when the same question also has an approved answer.
Loss: MultipleNegativesRankingLoss (in-batch negatives + the hard negative). The tuned
model is saved under ``<data dir>/models/`` and selected in the settings; the index
manifest then no longer matches, which triggers a clear re-index.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_rag.core.library import embedding_text

if TYPE_CHECKING:
    from desktop_rag.core.workspace import Workspace


@dataclass
class FinetuneResult:
    ok: bool
    message: str
    triplets: int = 0
    model_dir: Path | None = None


def build_triplets(ws: Workspace, seed: int = 0) -> list[tuple[str, str, str]]:
    lib = ws.library
    lib.refresh()
    rng = random.Random(seed)

    def text(cid: int) -> str | None:
        c = lib.chunks.get(cid)
        return embedding_text(c, lib.docs[c.doc_id]) if c else None

    rows = ws.history.feedback_rows()
    approved: dict[str, list[int]] = {}
    rejected: dict[str, list[int]] = {}
    retrieved: dict[str, list[int]] = {}
    for r in rows:
        q = r["question"]
        retrieved.setdefault(q, []).extend(r["retrieved"])
        (approved if r["rating"] > 0 else rejected).setdefault(q, []).extend(c for c in r["cited"] if c >= 0)
    all_ids = list(lib.chunks)
    triplets: list[tuple[str, str, str]] = []
    for q, positives in approved.items():
        negatives = [c for c in rejected.get(q, []) + retrieved.get(q, []) if c not in positives]
        for pos in dict.fromkeys(positives):
            neg = next((c for c in negatives if text(c)), None)
            if neg is None and len(all_ids) > 1:
                neg = rng.choice([c for c in all_ids if c != pos])
            p, n = text(pos), text(neg) if neg is not None else None
            if p and n:
                triplets.append((q, p, n))
    return triplets


def finetune_from_feedback(
    ws: Workspace, epochs: int = 1, min_triplets: int = 2, batch_size: int = 16,
    output_dir: Path | None = None, log: Callable[[str], None] = print,
) -> FinetuneResult:
    triplets = build_triplets(ws)
    if len(triplets) < min_triplets:
        return FinetuneResult(False, f"not enough feedback to train on: {len(triplets)} triplet(s), "
                                     f"need {min_triplets} (give thumbs up to answers with citations)", len(triplets))
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    log(f"fine-tuning {ws.embedder.path.name} on {len(triplets)} triplets, {epochs} epoch(s)")
    model = SentenceTransformer(str(ws.embedder.path), device="cpu", local_files_only=True)
    data = Dataset.from_dict({
        "anchor": [t[0] for t in triplets], "positive": [t[1] for t in triplets], "negative": [t[2] for t in triplets],
    })
    with tempfile.TemporaryDirectory() as tmp:
        args = SentenceTransformerTrainingArguments(
            output_dir=tmp, num_train_epochs=epochs, per_device_train_batch_size=batch_size,
            learning_rate=2e-5, warmup_steps=0, use_cpu=True, save_strategy="no", report_to=[],
            logging_strategy="no", seed=0, disable_tqdm=True,
        )
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data,
                                             loss=MultipleNegativesRankingLoss(model))
        trainer.train()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = output_dir or ws.data_dir / "models" / f"{ws.embedder.path.name}-ft-{stamp}"
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    ws.settings.embedding.model = str(out)
    ws.save_settings()
    return FinetuneResult(True, f"saved the tuned embedder to {out}; the library must be re-indexed "
                                f"(`python main.py reindex`)", len(triplets), out)
