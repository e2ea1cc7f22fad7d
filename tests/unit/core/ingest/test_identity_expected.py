"""The identity read from every filing of ``../shared/data`` against a table kept by hand.

``identity_expected.json`` holds, for each of the 117 filings of the three shared sets
(sec10q, financebench-dev, filings-pool), the company, trading symbol, form and period read
from the file's own cover or first page by a person, not copied from the reader. This test
runs ``detect_metadata`` on each file as ingest does (its first three pages, the rest as
body, the other filings as the library) and compares. It skips when the shared data is not
beside the checkout.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_rag.core.domain.types import DocumentMeta
from desktop_rag.core.ingest.identity import company_aliases

from .conftest import FILINGS, filing_key, shared_data

pytestmark = pytest.mark.slow  # reads every page of 117 filings once per session (about a minute)


def test_the_table_covers_every_shared_filing() -> None:
    root = shared_data()
    if root is None:
        pytest.skip("../shared/data is not beside the checkout")
    on_disk = {f"{p.parent.parent.name}/{p.name}" for s in ("sec10q", "financebench-dev", "filings-pool")
               for p in (root / s / "pdfs").glob("*.pdf")}
    assert on_disk == {filing_key(r) for r in FILINGS}


@pytest.mark.parametrize("row", FILINGS, ids=filing_key)
def test_identity_of_each_shared_filing(row: dict[str, Any], shared_identities: dict[str, DocumentMeta]) -> None:
    meta = shared_identities[filing_key(row)]
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
