#!/usr/bin/env python
"""Which primary statements the reader finds in every filing of ../shared/data.

Usage:
    .venv/bin/python eval/check_statement_coverage.py [--json OUT] [PDF_DIR ...]

For each 10-K and 10-Q (and any filing whose pages carry a statement title) it lists the
statement kinds read (income, balance, cash_flow, equity, comprehensive) with their pages and
period columns, and flags a 10-K or 10-Q lacking one of the three primary statements. A
missing statement is a reader gap for some filer's layout (a title, a column heading, a
scale note it does not know): the list is where to look, filer by filer, for a rule that
holds for all of them. Reads the PDFs with the app's own extractor; no index, no model.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.index.statement_store import extract_from_pdf  # noqa: E402
from desktop_rag.core.ingest.pdf import extract_document, open_pdf  # noqa: E402
from desktop_rag.evaluation.devsets import shared_dir  # noqa: E402

PRIMARY = ("income", "balance", "cash_flow")


def form_of(name: str) -> str:
    """The form a file name says ("ADOBE_2015_10K.pdf"; the sec10q files "2023 Q1 AAPL.pdf" are 10-Qs)."""
    upper = name.upper()
    if "10K" in upper:
        return "10-K"
    return "10-Q" if "10Q" in upper or re.match(r"\d{4} Q\d ", name) else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--json", type=Path)
    ns = ap.parse_args(argv)
    data = shared_dir() / "data"
    dirs = ns.dirs or [data / "sec10q" / "pdfs", data / "financebench-dev" / "pdfs", data / "filings-pool" / "pdfs"]
    report = []
    gaps = 0
    for folder in dirs:
        for pdf_path in sorted(folder.glob("*.pdf")):
            pdf = open_pdf(pdf_path)
            try:
                statements = extract_from_pdf(pdf, extract_document(pdf))
            finally:
                pdf.close()
            kinds: dict[str, list[dict[str, object]]] = {}
            for s in statements:
                kinds.setdefault(s.kind, []).append({"pages": s.pages, "periods": [p.label for p in s.periods],
                                                     "rows": len(s.rows)})
            missing = [k for k in PRIMARY if k not in kinds] if form_of(pdf_path.name) else []
            # a flow statement's periods end on the balance sheet's dates (a fiscal year ending in
            # May read as December is a header misread)
            ends = {p.end[5:] for s in statements if s.kind == "balance" for p in s.periods}
            flows = {p.end[5:] for s in statements if s.kind in ("income", "cash_flow") for p in s.periods}
            disagree = sorted(flows - ends) if ends and flows and not flows & ends else []
            gaps += bool(missing or disagree)
            report.append({"file": pdf_path.name, "kinds": kinds, "missing": missing, "flow_ends_not_balance": disagree})
            flag = (f"  MISSING {', '.join(missing)}" if missing else "") + (
                f"  FLOW PERIODS END {', '.join(disagree)}, BALANCE {', '.join(sorted(ends))}" if disagree else "")
            print(f"{pdf_path.name:55s} {' '.join(f'{k}:{len(v)}' for k, v in sorted(kinds.items()))}{flag}", flush=True)
    print(f"\n{gaps} of {len(report)} filings lack a primary statement the form requires or read periods the balance sheet contradicts")
    if ns.json:
        ns.json.write_text(json.dumps(report, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
