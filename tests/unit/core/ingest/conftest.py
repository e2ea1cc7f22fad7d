"""The identities of the shared filings (``../shared/data``), read once per test session."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.core.domain.types import DocumentMeta

TABLE = json.loads((Path(__file__).with_name("identity_expected.json")).read_text(encoding="utf-8"))
FILINGS: list[dict[str, Any]] = TABLE["filings"]  # the identities read by hand (see its "about")


def shared_data() -> Path | None:
    """``../shared/data`` beside the checkout (a worktree may be nested deeper: every ancestor is tried)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return None


def filing_key(row: dict[str, Any]) -> str:
    return f"{row['set']}/{row['file']}"


@cache
def _identities() -> dict[str, DocumentMeta]:
    """Every shared filing's identity as ingest reads it (its first three pages, the rest as
    body) with the other filings as its library (as a library holding the three sets reads each)."""
    from desktop_rag.core.ingest.identity import detect_metadata
    from desktop_rag.core.ingest.pdf import extract_document, open_pdf

    root = shared_data()
    assert root is not None
    texts: dict[str, tuple[str, str]] = {}
    for row in FILINGS:
        pdf = open_pdf(root / row["set"] / "pdfs" / row["file"])
        try:
            pages = [p.text for p in extract_document(pdf)]
        finally:
            pdf.close()
        texts[filing_key(row)] = ("\n".join(pages[:3]), "\n".join(pages[3:]))
    name = {filing_key(r): r["file"] for r in FILINGS}
    alone = {k: detect_metadata(name[k], first, body) for k, (first, body) in texts.items()}
    return {k: detect_metadata(name[k], first, body, library=[m for o, m in alone.items() if o != k])
            for k, (first, body) in texts.items()}


@pytest.fixture(scope="session")
def shared_identities() -> dict[str, DocumentMeta]:
    """doc key ("filings-pool/ORACLE_2020_10K.pdf") -> the identity read from that filing;
    skips when the shared filings are not beside the checkout."""
    root = shared_data()
    if root is None or not all((root / r["set"] / "pdfs" / r["file"]).exists() for r in FILINGS):
        pytest.skip("../shared/data (sec10q, financebench-dev, filings-pool) is not beside the checkout")
    return _identities()
