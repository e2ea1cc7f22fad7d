#!/usr/bin/env python
"""Score eval/statement_cells.jsonl by running the statement extractor on the PDFs directly.

Usage:
    .venv/bin/python eval/score_statement_cells.py [--data DIR ...] [--cache DIR] [--doc NAME ...]
                                                  [--misses] [--dump cells.jsonl] [--all-pdfs]

No ingest and no embedding: each PDF's canonical page texts are read (cached as JSON in
``--cache`` when given), the candidate pages are re-read with character boxes, and
``extract_from_pdf`` (the ingest's own path) parses the statements. The score is the one
``main.py eval`` reports (``score_statement_cells``), per statement kind and per data set.

``--dump`` writes every extracted cell (labelled or not) of the scored filings, one JSON
object a line, so two versions of the extractor can be compared cell by cell
(``--all-pdfs`` extracts every PDF of the data folders, not only the labelled ones).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.ingest.pdf import PageText, extract_page, open_pdf  # noqa: E402
from desktop_rag.core.index.statement_store import extract_from_pdf  # noqa: E402
from desktop_rag.evaluation.devsets import label_pdf_dirs, load_statement_cells  # noqa: E402
from desktop_rag.evaluation.metrics import flatten_statements, score_statement_cells  # noqa: E402


def page_texts(pdf_path: Path, cache: Path | None) -> list[PageText]:
    """Canonical page texts (no boxes), cached by file name, size and mtime."""
    key = f"{pdf_path.name}.{pdf_path.stat().st_size}.{int(pdf_path.stat().st_mtime)}.json"
    if cache is not None and (cache / key).is_file():
        texts = json.loads((cache / key).read_text())
    else:
        with open_pdf(pdf_path) as pdf:
            texts = [extract_page(p).text for p in pdf]
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            (cache / key).write_text(json.dumps(texts))
    return [PageText(i + 1, t) for i, t in enumerate(texts)]


def extract_payload(pdf_path: Path, cache: Path | None) -> dict:
    pages = page_texts(pdf_path, cache)
    with open_pdf(pdf_path) as pdf:
        statements = extract_from_pdf(pdf, pages)
    return {"doc": pdf_path.name, "statements": [s.to_json() for s in statements]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, nargs="*", help="folders holding the PDFs")
    ap.add_argument("--cells", type=Path, default=HERE / "statement_cells.jsonl")
    ap.add_argument("--cache", type=Path, help="folder for cached page texts")
    ap.add_argument("--doc", nargs="*", help="only these filings")
    ap.add_argument("--misses", action="store_true", help="list every wrong or missing cell")
    ap.add_argument("--dump", type=Path, help="write every extracted cell here (JSONL)")
    ap.add_argument("--all-pdfs", action="store_true", help="extract every PDF of the data folders")
    ns = ap.parse_args(argv)
    dirs = ns.data or label_pdf_dirs()
    if not dirs:
        print("no data folders (give --data)", file=sys.stderr)
        return 2
    where = {p.name: (d.parent.name, p) for d in dirs for p in sorted(d.glob("*.pdf"))}
    labels = load_statement_cells(ns.cells)
    docs = sorted(where) if ns.all_pdfs else sorted({lab["doc"] for lab in labels if lab["doc"] in where})
    if ns.doc:
        docs = [d for d in docs if d in set(ns.doc)]
    extracted: dict[str, list[dict]] = {}
    dump = ns.dump.open("w") if ns.dump else None
    for doc in docs:
        payload = extract_payload(where[doc][1], ns.cache)
        extracted[doc] = flatten_statements(doc, payload)
        if dump is not None:
            for c in extracted[doc]:
                dump.write(json.dumps(c, sort_keys=True) + "\n")
    if dump is not None:
        dump.close()
    labels = [lab for lab in labels if lab["doc"] in extracted]
    sets: dict[str, list[dict]] = defaultdict(list)
    for lab in labels:
        sets[where[lab["doc"]][0]].append(lab)
    out = []
    for name, subset in [("all", labels), *sorted(sets.items())]:
        if not subset:
            continue
        res = score_statement_cells(subset, extracted)
        right = round(res["exact_right_rate"] * res["n"])
        out.append(f"{name}: {right}/{res['n']} cells exactly right ({res['exact_right_rate']:.1%})")
        for kind, k in res["by_statement"].items():
            out.append(f"  {kind:<13} {round(k['exact_right'] * k['n']):>5}/{k['n']:<5} ({k['exact_right']:.1%})")
        if name == "all" and ns.misses:
            for m in res["misses"]:
                print(f"MISS {m['doc']} p{m['page']} [{m['statement']}] {m['label']!r} {m['period_end']}/{m['months']}"
                      f" want {m['want']!r} got {m['got']!r}")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
