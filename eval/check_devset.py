#!/usr/bin/env python
"""Validate eval/devset.jsonl against the PDFs, using the app's canonical page text.

Usage:
    .venv/bin/python eval/check_devset.py [PDF_DIR] [DEVSET_JSONL]

PDF_DIR defaults to /work/shared/data/sec10q/pdfs, DEVSET_JSONL to devset.jsonl next to
this script. Prints a summary; exits 1 if any check fails (2 on bad usage / missing files).

Checks:
- every record has the expected fields and types; ids are unique;
- answerable: doc exists, pages are 1-based and in range, evidence is 20-200 chars and
  fold_text(evidence) is a substring of match_form(text of pages[0]) (the same rule the
  app uses to validate quotes);
- unanswerable: doc/evidence/answer/answer_type are null and pages is empty;
- minimums: >= 70 answerable, >= 20 unanswerable, >= 25 shorthand questions, every one of
  the 5 companies and every one of the 20 filings has at least 2 answerable questions.
Informational (not a failure): evidence that also occurs on pages not listed in "pages".
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.pdf import extract_page, fold_text, match_form, open_pdf  # noqa: E402

DEFAULT_PDF_DIR = Path("/work/shared/data/sec10q/pdfs")
COMPANIES = ("AAPL", "AMZN", "INTC", "MSFT", "NVDA")
PERIODS = ("2022 Q3", "2023 Q1", "2023 Q2", "2023 Q3")
MIN_ANSWERABLE, MIN_UNANSWERABLE, MIN_SHORTHAND, MIN_PER_DOC = 70, 20, 25, 2
SHORTHAND_RE = re.compile(r"\b(R&D|capex|SG&A|EPS|FY\d*|YoY|opex|COGS|YTD)\b", re.IGNORECASE)
FIELDS = {
    "id": str, "question": str, "answerable": bool, "doc": (str, type(None)), "pages": list,
    "evidence": (str, type(None)), "answer": (str, type(None)), "answer_type": (str, type(None)),
    "source": str, "tags": list,
}


def main(argv: list[str]) -> int:
    pdf_dir = Path(argv[1]) if len(argv) > 1 else DEFAULT_PDF_DIR
    devset = Path(argv[2]) if len(argv) > 2 else HERE / "devset.jsonl"
    if not pdf_dir.is_dir() or not devset.is_file():
        print(f"usage: {argv[0]} [PDF_DIR] [DEVSET_JSONL]  (missing {pdf_dir if not pdf_dir.is_dir() else devset})")
        return 2

    errors: list[str] = []
    notes: list[str] = []
    records = []
    for n, line in enumerate(devset.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: invalid JSON ({exc})")

    page_cache: dict[str, list[str]] = {}

    def pages_of(name: str) -> list[str] | None:
        if name not in page_cache:
            path = pdf_dir / name
            if not path.is_file():
                return None
            doc = open_pdf(path)
            try:
                page_cache[name] = [match_form(extract_page(doc[i]).text) for i in range(doc.page_count)]
            finally:
                doc.close()
        return page_cache[name]

    ids = Counter(r.get("id") for r in records)
    for rid, c in ids.items():
        if c > 1:
            errors.append(f"duplicate id {rid!r} ({c}x)")

    answerable, unanswerable = [], []
    for r in records:
        rid = r.get("id", "?")
        bad = [k for k, t in FIELDS.items() if k not in r or not isinstance(r[k], t)]
        if bad:
            errors.append(f"{rid}: missing/ill-typed fields {bad}")
            continue
        if not r["question"].strip():
            errors.append(f"{rid}: empty question")
        if r["answerable"]:
            answerable.append(r)
            if not rid.startswith("dev-") or rid.startswith("dev-oc-"):
                errors.append(f"{rid}: answerable ids should look like dev-NNN")
            if r["answer_type"] not in ("number", "text"):
                errors.append(f"{rid}: answer_type must be 'number' or 'text'")
            if not r["answer"]:
                errors.append(f"{rid}: empty answer")
            if not (r["source"] == "handmade" or r["source"].startswith("qna_data:docugami_sec10q_")):
                errors.append(f"{rid}: bad source {r['source']!r}")
            ev, doc_name, pages = r["evidence"], r["doc"], r["pages"]
            if not ev or not doc_name or not pages:
                errors.append(f"{rid}: answerable record needs doc, pages and evidence")
                continue
            if not 20 <= len(ev) <= 200:
                errors.append(f"{rid}: evidence length {len(ev)} not in 20..200")
            texts = pages_of(doc_name)
            if texts is None:
                errors.append(f"{rid}: PDF not found: {doc_name}")
                continue
            if len(set(pages)) != len(pages) or not all(isinstance(p, int) and 1 <= p <= len(texts) for p in pages):
                errors.append(f"{rid}: pages {pages} invalid for {doc_name} ({len(texts)} pages)")
                continue
            q = fold_text(ev)
            if q not in texts[pages[0] - 1]:
                errors.append(f"{rid}: evidence not found on {doc_name} p{pages[0]}: {ev!r}")
            elsewhere = [i + 1 for i, t in enumerate(texts) if q in t and i + 1 not in pages]
            if elsewhere:
                notes.append(f"{rid}: evidence also on unlisted pages {elsewhere}")
            if "shorthand" in r["tags"] and not SHORTHAND_RE.search(r["question"]):
                errors.append(f"{rid}: tagged shorthand but no shorthand term in question")
        else:
            unanswerable.append(r)
            if not rid.startswith("dev-oc-"):
                errors.append(f"{rid}: unanswerable ids should look like dev-oc-NNN")
            if r["doc"] is not None or r["pages"] or r["evidence"] is not None or r["answer"] is not None \
                    or r["answer_type"] is not None:
                errors.append(f"{rid}: unanswerable record must have null doc/evidence/answer/answer_type and no pages")

    per_doc = Counter(r["doc"] for r in answerable)
    per_company = Counter(d.split()[-1].removesuffix(".pdf") for d in per_doc.elements())
    shorthand = sum(1 for r in answerable if SHORTHAND_RE.search(r["question"]))
    qna = sum(1 for r in answerable if r["source"] != "handmade")

    if len(answerable) < MIN_ANSWERABLE:
        errors.append(f"only {len(answerable)} answerable questions (need >= {MIN_ANSWERABLE})")
    if len(unanswerable) < MIN_UNANSWERABLE:
        errors.append(f"only {len(unanswerable)} unanswerable questions (need >= {MIN_UNANSWERABLE})")
    if shorthand < MIN_SHORTHAND:
        errors.append(f"only {shorthand} answerable questions use finance shorthand (need >= {MIN_SHORTHAND})")
    for c in COMPANIES:
        for p in PERIODS:
            name = f"{p} {c}.pdf"
            if per_doc[name] < MIN_PER_DOC:
                errors.append(f"{name}: only {per_doc[name]} answerable questions (need >= {MIN_PER_DOC})")

    print(f"devset: {devset}")
    print(f"pdfs:   {pdf_dir} ({len(page_cache)} opened)")
    print(f"records: {len(records)}  answerable: {len(answerable)}  unanswerable: {len(unanswerable)}")
    print(f"shorthand questions: {shorthand}  adapted from qna_data: {qna}  handmade: {len(answerable) - qna}")
    print("per company: " + ", ".join(f"{c} {per_company[c]}" for c in COMPANIES))
    print("per filing:  " + ", ".join(f"{p[2:4]}{p[5:]} {c} {per_doc[f'{p} {c}.pdf']}" for c in COMPANIES for p in PERIODS))
    print("answer types: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['answer_type'] for r in answerable).items())))
    print(f"multi-page facts: {sum(1 for r in answerable if len(r['pages']) > 1)}")
    for n in notes:
        print("note:", n)
    if errors:
        print(f"\nFAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
