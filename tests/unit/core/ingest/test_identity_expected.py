"""The identity read from every filing of ``../shared/data`` against a table kept by hand.

``identity_expected.json`` holds, for each of the 117 filings of the three shared sets
(sec10q, financebench-dev, filings-pool), the company, trading symbol, form and period read
from the file's own cover or first page by a person, not copied from the reader. This test
runs ``detect_metadata`` on each file as ingest does (its first three pages, the rest as
body, the other filings as the library) and compares. It skips when the shared data is not
beside the checkout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.core.domain.types import DocumentMeta
from desktop_rag.core.ingest.identity import company_aliases, detect_metadata

pytestmark = pytest.mark.slow  # reads every page of 117 filings once (about a minute)

TABLE = json.loads((Path(__file__).with_name("identity_expected.json")).read_text(encoding="utf-8"))
FILINGS: list[dict[str, Any]] = TABLE["filings"]


def _shared_data() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return None


@dataclass(frozen=True)
class _Text:
    first: str
    body: str


@cache
def _texts() -> dict[str, _Text]:
    """Each filing's text as ingest reads it: its first three pages and the rest."""
    from desktop_rag.core.ingest.pdf import extract_document, open_pdf

    root = _shared_data()
    assert root is not None
    out = {}
    for row in FILINGS:
        pdf = open_pdf(root / row["set"] / "pdfs" / row["file"])
        try:
            pages = [p.text for p in extract_document(pdf)]
        finally:
            pdf.close()
        out[_key(row)] = _Text("\n".join(pages[:3]), "\n".join(pages[3:]))
    return out


@cache
def _identities() -> dict[str, DocumentMeta]:
    """Every filing's identity, read with the others as its library (as a library holding the
    three sets reads each)."""
    texts = _texts()
    alone = {k: detect_metadata(k.split("/", 1)[1], t.first, t.body) for k, t in texts.items()}
    return {k: detect_metadata(k.split("/", 1)[1], t.first, t.body, library=[m for o, m in alone.items() if o != k])
            for k, t in texts.items()}


def _key(row: dict[str, Any]) -> str:
    return f"{row['set']}/{row['file']}"


def test_the_table_covers_every_shared_filing() -> None:
    root = _shared_data()
    if root is None:
        pytest.skip("../shared/data is not beside the checkout")
    on_disk = {f"{p.parent.parent.name}/{p.name}" for s in ("sec10q", "financebench-dev", "filings-pool")
               for p in (root / s / "pdfs").glob("*.pdf")}
    assert on_disk == {_key(r) for r in FILINGS}


@pytest.mark.parametrize("row", FILINGS, ids=_key)
def test_identity_of_each_shared_filing(row: dict[str, Any]) -> None:
    root = _shared_data()
    if root is None or not (root / row["set"] / "pdfs" / row["file"]).exists():
        pytest.skip("../shared/data is not beside the checkout")
    meta = _identities()[_key(row)]
    got = {"company": meta.company, "ticker": meta.ticker, "form": meta.form_type, "fiscal_year": meta.fiscal_year,
           "fiscal_quarter": meta.fiscal_quarter, "period_end": meta.period_end}
    assert got == {k: row[k] for k in got}, row.get("note", "")
    # the symbols of notes, preferred series, units and ETNs are never names of the company
    names = {n.upper().replace(" ", "") for n in company_aliases(meta)}
    for symbol in row.get("other_symbols", []):
        printed = symbol.upper().replace(" ", "")
        series = printed.removeprefix(row["ticker"]).strip("-/") if row["ticker"] else ""
        assert printed not in names and series not in names, symbol
    for other in row.get("other_registrants", []):
        assert other in meta.aliases
