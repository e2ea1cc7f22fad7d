#!/usr/bin/env python
"""Validate a labelled question file against its PDFs, using the app's canonical page text.

Usage:
    .venv/bin/python eval/check_devset.py [PDF_DIR] [LABELS_JSONL] [--profile sec10q|financebench]
        [--min-answerable N] [--min-unanswerable N] [--min-per-doc N] [--min-per-category N]
        [--min-shorthand N]

With no arguments it checks eval/devset.jsonl on /work/shared/data/sec10q/pdfs (profile sec10q).
The profile defaults to "financebench" when the labels file name starts with "financebench",
otherwise "sec10q"; the --min-* options override the profile's minimum counts.
Prints a summary; exits 1 if any check fails (2 on bad usage / missing files).

Checks (both profiles):
- every record has the expected fields and types; ids are unique and use the profile's prefix
  ("dev-NNN"/"dev-oc-NNN" or "fb-NNN"/"fb-oc-NNN");
- answerable: doc exists, pages are 1-based and in range, evidence is 20-200 chars and
  fold_text(evidence) is a substring of match_form(text of pages[0]) (the same rule the
  app uses to validate quotes);
- unanswerable: doc/evidence/answer/answer_type are null and pages is empty;
- minimum counts of answerable / unanswerable questions and answerable questions per filing.
Profile sec10q also: >= 25 shorthand questions and the 20 expected filings (5 companies x 4
periods) each covered. Profile financebench also: every record has a `category` from CATEGORIES
(answerable categories for answerable records, refuse-* for unanswerable ones), every PDF in
PDF_DIR is covered, and every category has at least --min-per-category records.
Informational (not a failure): evidence that also occurs on pages not listed in "pages".
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.ingest.pdf import extract_page, fold_text, match_form, open_pdf  # noqa: E402

DEFAULT_PDF_DIR = Path("/work/shared/data/sec10q/pdfs")
COMPANIES = ("AAPL", "AMZN", "INTC", "MSFT", "NVDA")
PERIODS = ("2022 Q3", "2023 Q1", "2023 Q2", "2023 Q3")
SHORTHAND_RE = re.compile(r"\b(R&D|capex|SG&A|EPS|FY\d*|YoY|opex|COGS|YTD)\b", re.IGNORECASE)
ANSWERABLE_CATEGORIES = ("line-item", "mdna", "segment", "legal-risk", "multi-year", "metric", "instruction", "persona")
REFUSAL_CATEGORIES = ("refuse-company", "refuse-period", "refuse-undisclosed")
CATEGORIES = ANSWERABLE_CATEGORIES + REFUSAL_CATEGORIES
FIELDS = {
    "id": str, "question": str, "answerable": bool, "doc": (str, type(None)), "pages": list,
    "evidence": (str, type(None)), "answer": (str, type(None)), "answer_type": (str, type(None)),
    "source": str, "tags": list,
}


@dataclass(frozen=True)
class Profile:
    name: str
    id_prefix: str
    min_answerable: int
    min_unanswerable: int
    min_per_doc: int
    min_shorthand: int = 0
    min_per_category: int = 0
    needs_category: bool = False


PROFILES = {
    "sec10q": Profile("sec10q", "dev", min_answerable=70, min_unanswerable=20, min_per_doc=2, min_shorthand=25),
    "financebench": Profile("financebench", "fb", min_answerable=150, min_unanswerable=45, min_per_doc=3,
                            min_per_category=12, needs_category=True),
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdf_dir", nargs="?", type=Path, default=DEFAULT_PDF_DIR)
    ap.add_argument("labels", nargs="?", type=Path, default=HERE / "devset.jsonl")
    ap.add_argument("--profile", choices=sorted(PROFILES))
    for name in ("answerable", "unanswerable", "per-doc", "per-category", "shorthand"):
        ap.add_argument(f"--min-{name}", type=int)
    return ap.parse_args(argv[1:])


def choose_profile(args: argparse.Namespace) -> Profile:
    name = args.profile or ("financebench" if args.labels.name.startswith("financebench") else "sec10q")
    profile = PROFILES[name]
    overrides = {
        "min_answerable": args.min_answerable, "min_unanswerable": args.min_unanswerable,
        "min_per_doc": args.min_per_doc, "min_per_category": args.min_per_category,
        "min_shorthand": args.min_shorthand,
    }
    return replace(profile, **{k: v for k, v in overrides.items() if v is not None})


def expected_docs(profile: Profile, pdf_dir: Path) -> list[str]:
    if profile.name == "sec10q":
        return [f"{p} {c}.pdf" for c in COMPANIES for p in PERIODS]
    return sorted(p.name for p in pdf_dir.glob("*.pdf"))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    pdf_dir, devset = args.pdf_dir, args.labels
    if not pdf_dir.is_dir() or not devset.is_file():
        print(f"usage: {argv[0]} [PDF_DIR] [LABELS_JSONL]  (missing {pdf_dir if not pdf_dir.is_dir() else devset})")
        return 2
    profile = choose_profile(args)
    ans_prefix, oc_prefix = f"{profile.id_prefix}-", f"{profile.id_prefix}-oc-"

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
        category = r.get("category")
        if profile.needs_category or category is not None:
            allowed = ANSWERABLE_CATEGORIES if r["answerable"] else REFUSAL_CATEGORIES
            if category not in allowed:
                errors.append(f"{rid}: category {category!r} not one of {allowed}")
        if r["answerable"]:
            answerable.append(r)
            if not rid.startswith(ans_prefix) or rid.startswith(oc_prefix):
                errors.append(f"{rid}: answerable ids should look like {ans_prefix}NNN")
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
            if not rid.startswith(oc_prefix):
                errors.append(f"{rid}: unanswerable ids should look like {oc_prefix}NNN")
            if r["doc"] is not None or r["pages"] or r["evidence"] is not None or r["answer"] is not None \
                    or r["answer_type"] is not None:
                errors.append(f"{rid}: unanswerable record must have null doc/evidence/answer/answer_type and no pages")

    per_doc = Counter(r["doc"] for r in answerable)
    docs = expected_docs(profile, pdf_dir)
    shorthand = sum(1 for r in answerable if SHORTHAND_RE.search(r["question"]))
    qna = sum(1 for r in answerable if r["source"] != "handmade")
    per_category = Counter(r.get("category") for r in records)

    if len(answerable) < profile.min_answerable:
        errors.append(f"only {len(answerable)} answerable questions (need >= {profile.min_answerable})")
    if len(unanswerable) < profile.min_unanswerable:
        errors.append(f"only {len(unanswerable)} unanswerable questions (need >= {profile.min_unanswerable})")
    if shorthand < profile.min_shorthand:
        errors.append(f"only {shorthand} answerable questions use finance shorthand (need >= {profile.min_shorthand})")
    for name in docs:
        if per_doc[name] < profile.min_per_doc:
            errors.append(f"{name}: only {per_doc[name]} answerable questions (need >= {profile.min_per_doc})")
    if profile.needs_category:
        for c in CATEGORIES:
            if per_category[c] < profile.min_per_category:
                errors.append(f"category {c}: only {per_category[c]} questions (need >= {profile.min_per_category})")

    print(f"labels:  {devset} (profile {profile.name})")
    print(f"pdfs:    {pdf_dir} ({len(page_cache)} opened)")
    print(f"records: {len(records)}  answerable: {len(answerable)}  unanswerable: {len(unanswerable)}")
    print(f"shorthand questions: {shorthand}  adapted from qna_data: {qna}  handmade: {len(answerable) - qna}")
    if profile.name == "sec10q":
        per_company = Counter(d.split()[-1].removesuffix(".pdf") for d in per_doc.elements())
        print("per company: " + ", ".join(f"{c} {per_company[c]}" for c in COMPANIES))
        print("per filing:  " + ", ".join(f"{p[2:4]}{p[5:]} {c} {per_doc[f'{p} {c}.pdf']}" for c in COMPANIES for p in PERIODS))
    else:
        print("per category: " + ", ".join(f"{c} {per_category[c]}" for c in CATEGORIES))
        print("per filing:   " + ", ".join(f"{d.removesuffix('.pdf')} {per_doc[d]}" for d in docs))
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
