"""Where the labelled data sets live and how they are read.

The data sets are evaluation-only files beside the checkout (``<repo>/../shared``), or
wherever ``DESKTOP_RAG_SHARED`` points: every dev-set location goes through
``shared_dir()``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ENV_SHARED = "DESKTOP_RAG_SHARED"


def shared_dir() -> Path:
    """Root of the shared evaluation data: ``$DESKTOP_RAG_SHARED`` > ``<repo>/../shared``."""
    from desktop_rag.paths import app_root

    env = os.environ.get(ENV_SHARED)
    if env:
        return Path(env).expanduser().resolve()
    return app_root().parent / "shared"


def sec10q_pdfs() -> Path:
    """The 20 10-Q filings the sec10q dev set (``eval/devset.jsonl``) is labelled on."""
    return shared_dir() / "data" / "sec10q" / "pdfs"


def default_corpus() -> Path:
    """Default folder of filings for ``eval``/``bench`` (the sec10q filings)."""
    return sec10q_pdfs()


def load_devset(path: str | Path) -> list[dict[str, Any]]:
    """One JSON object per non-empty line."""
    rows = []
    for line in Path(path).read_text("utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def spread(items: list[Any], n: int) -> list[Any]:
    """n items evenly spread over the list (deterministic, covers all companies)."""
    if n >= len(items):
        return list(items)
    if n <= 0:
        return []
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]
