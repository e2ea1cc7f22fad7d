"""Real filings beside the checkout (``../shared/data/<set>/pdfs``), read from disk only."""

from __future__ import annotations

from pathlib import Path

import pytest


def shared_pdf(data_set: str, name: str) -> Path:
    """A filing of a shared data set; skips the test when it is not on this machine. The
    checkout may be a worktree nested deeper than the data, so every ancestor is tried."""
    for parent in Path(__file__).resolve().parents:
        path = parent / "shared" / "data" / data_set / "pdfs" / name
        if path.exists():
            return path
    pytest.skip(f"{data_set} filings not available beside the checkout")


def filing_pages(path: Path) -> list[str]:
    from desktop_rag.core.ingest.pdf import extract_page, open_pdf

    doc = open_pdf(path)
    return [extract_page(doc[i]).text for i in range(min(len(doc), 15))]
