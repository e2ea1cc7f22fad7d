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

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.core.index.library import embedding_text

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


def train_triplets(model: Any, triplets: list[tuple[str, str, str]], epochs: int = 1, batch_size: int = 16,
                   learning_rate: float = 2e-5, seed: int = 0) -> None:
    """MultipleNegativesRankingLoss over (question, positive, hard negative) batches: AdamW,
    no warm-up, linear decay to zero, gradients clipped at 1.0 — what sentence-transformers'
    trainer does with these arguments, written as a plain torch loop so that neither the
    ``datasets`` package (and with it pandas and pyarrow, ~250 MB) nor the transformers
    Trainer is needed at run time: the frozen bundle leaves them out."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    torch.manual_seed(seed)
    rng = random.Random(seed)
    loss_fn = MultipleNegativesRankingLoss(model)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=learning_rate, weight_decay=0.0)
    steps = max(1, epochs * math.ceil(len(triplets) / batch_size))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1.0 - step / steps))
    model.train()
    try:
        for _ in range(epochs):
            order = list(triplets)
            rng.shuffle(order)
            for i in range(0, len(order), batch_size):
                columns = list(zip(*order[i:i + batch_size], strict=True))  # anchors, positives, negatives
                features = [model.preprocess(list(col)) for col in columns]
                loss = loss_fn(features, None)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
                schedule.step()
    finally:
        model.eval()


def finetune_from_feedback(
    ws: Workspace, epochs: int = 1, min_triplets: int = 2, batch_size: int = 16,
    output_dir: Path | None = None, log: Callable[[str], None] = print,
) -> FinetuneResult:
    if getattr(ws.embedder, "static", False):
        return FinetuneResult(False, f"{ws.embedder.path.name} is a static embedder (one vector per word piece): "
                                     "fine-tuning trains a transformer; set embedding.model to all-MiniLM-L6-v2 "
                                     "(and re-index) to tune it on the feedback")
    triplets = build_triplets(ws)
    if len(triplets) < min_triplets:
        return FinetuneResult(False, f"not enough feedback to train on: {len(triplets)} triplet(s), "
                                     f"need {min_triplets} (give thumbs up to answers with citations)", len(triplets))
    from sentence_transformers import SentenceTransformer

    log(f"fine-tuning {ws.embedder.path.name} on {len(triplets)} triplets, {epochs} epoch(s)")
    model = SentenceTransformer(str(ws.embedder.path), device="cpu", local_files_only=True)
    train_triplets(model, triplets, epochs=epochs, batch_size=batch_size)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = output_dir or ws.data_dir / "models" / f"{ws.embedder.path.name}-ft-{stamp}"
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    ws.settings.embedding.model = str(out)
    ws.save_settings()
    return FinetuneResult(True, f"saved the tuned embedder to {out}; the library must be re-indexed "
                                f"(`python main.py reindex`)", len(triplets), out)
