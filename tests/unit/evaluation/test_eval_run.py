"""Command plumbing of `main.py eval` (no model, no index)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation import eval_run


def test_apply_overrides():
    from desktop_rag.settings import Settings

    s = Settings()
    done = eval_run.apply_overrides(s, ["retrieval.alpha=0.7", "retrieval.use_filters=false", "retrieval.top_k=5"])
    assert s.retrieval.alpha == 0.7 and s.retrieval.use_filters is False and s.retrieval.top_k == 5
    assert done["retrieval.alpha"] == 0.7
    with pytest.raises(ValueError):
        eval_run.apply_overrides(s, ["retrieval.nope=1"])
    with pytest.raises(ValueError):
        eval_run.apply_overrides(s, ["alpha=1"])
