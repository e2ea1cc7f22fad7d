#!/usr/bin/env python
"""Score the computed answers (line items and metrics from the statements) without an index.

Usage:
    .venv/bin/python eval/score_computed.py [--cache DIR] [--only metrics|financebench|labels] [--show]

Runs ``core.calculate.calculator.calculate`` (the step the app takes before retrieval) on every
question with a numeric answer of financebench-dev: the metric labels
(``eval/financebench_dev_metrics.jsonl``), the upstream FinanceBench questions and the
numeric questions of ``eval/financebench_dev_labels.jsonl`` (per category: line items,
metrics, segment, multi-year, ...), and the numeric questions of the sec10q dev set
(``eval/devset.jsonl``). The filings of the question's company are the documents
(as the app's company filter gives them); statements are extracted straight from the PDFs
(``score_statement_cells.extract_payload``, cached per extractor source in ``--cache``).

Each question is counted as: right (computed, matches the label within its rounding), wrong
(computed, does not match: the figure the product must never show), refused ("Cannot
compute: ..."), or left to retrieval (no computed answer). A question that must be refused
(a metric that does not fit the company) is right when refused or left to retrieval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from score_statement_cells import extract_payload, page_texts  # noqa: E402

from desktop_rag.core.ingest.identity import detect_metadata  # noqa: E402
from desktop_rag.core.domain.question import parse_question  # noqa: E402
from desktop_rag.core.calculate.calculator import calculate  # noqa: E402
from desktop_rag.core.ingest.statements.model import Statement  # noqa: E402
from desktop_rag.core.domain.types import Document  # noqa: E402
from desktop_rag.evaluation.devsets import (  # noqa: E402
    convert_financebench,
    convert_metric_label,
    label_pdf_dirs,
    load_devset,
)
from desktop_rag.evaluation.metrics import answer_correct, metric_match  # noqa: E402

PACKAGE = HERE.parent / "desktop_rag"


def extractor_key() -> str:
    """Changes whenever the extractor's code does (cached statements are then re-extracted)."""
    h = hashlib.sha256()
    for rel in ("core/ingest/statements/table_reader.py", "core/ingest/statements/model.py", "core/domain/numbers.py", "core/ingest/pdf.py"):
        h.update((PACKAGE / rel).read_bytes())
    return h.hexdigest()[:16]


class Filings:
    def __init__(self, pdfs: dict[str, Path], cache: Path | None) -> None:
        self.pdfs, self.cache = pdfs, cache
        self.key = extractor_key()
        self._statements: dict[str, list[Statement]] = {}
        self._texts: dict[str, list[str]] = {}
        self._docs: dict[str, Document] = {}

    def texts(self, name: str) -> list[str]:
        if name not in self._texts:
            self._texts[name] = [p.text for p in page_texts(self.pdfs[name], self.cache)]
        return self._texts[name]

    def statements(self, name: str) -> list[Statement]:
        if name not in self._statements:
            path = self.cache / f"statements.{self.key}.{name}.json" if self.cache else None
            if path is not None and path.is_file():
                payload = json.loads(path.read_text())
            else:
                payload = extract_payload(self.pdfs[name], self.cache)
                if path is not None:
                    path.write_text(json.dumps(payload))
            self._statements[name] = [Statement.from_json(s) for s in payload["statements"]]
        return self._statements[name]

    def document(self, name: str) -> Document:
        if name not in self._docs:
            texts = self.texts(name)
            meta = detect_metadata(name, "\n".join(texts[:3]), "\n".join(texts[3:8]))
            self._docs[name] = Document(name, name, str(self.pdfs[name]), len(texts), meta)
        return self._docs[name]

    def company_docs(self, name: str) -> list[Document]:
        """The filings of the same company (financebench file names start with it)."""
        company = re.split(r"[_ ]", name)[0] if "_" in name else name.rsplit(" ", 1)[-1].removesuffix(".pdf")
        same = [n for n in self.pdfs if (n.split("_")[0] == company if "_" in n else n.endswith(f" {company}.pdf"))]
        return [self.document(n) for n in sorted(same)]

    def page_text(self, doc_id: str, page: int) -> str:
        texts = self.texts(doc_id)
        return texts[page - 1] if 0 < page <= len(texts) else ""


def judge(item: dict, filings: Filings) -> tuple[str, str]:
    """(outcome, answer text): right | wrong | refused | retrieval (| right-refused for must-refuse)."""
    parsed = parse_question(item["question"])
    ins = parsed.instructions
    scale = ins.scale if ins.scale in ("thousands", "millions", "billions") else ""
    out = calculate(item["question"], filings.company_docs(item["doc"]), filings.statements, filings.page_text,
                    scale, ins.decimals)
    if out is None:
        return "retrieval", ""
    if out.calculation is None:
        return "refused", out.text
    if not item.get("answerable", True):
        return "wrong", out.text
    if item.get("value") is not None and item.get("category") == "metric":
        ok = metric_match(out.text, float(item["value"]), item.get("unit") or "", item.get("decimals"))
    else:
        ok = answer_correct(out.text, str(item["answer"]), "number")
    return ("right" if ok else "wrong"), out.text


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, nargs="*", help="folders holding the PDFs")
    ap.add_argument("--cache", type=Path, help="folder for cached page texts and statements")
    ap.add_argument("--only", choices=("metrics", "financebench", "labels", "sec10q"))
    ap.add_argument("--show", action="store_true", help="print every question's outcome")
    ns = ap.parse_args(argv)
    dirs = ns.data or label_pdf_dirs()
    pdfs = {p.name: p for d in dirs for p in sorted(d.glob("*.pdf"))}
    if ns.cache:
        ns.cache.mkdir(parents=True, exist_ok=True)
    filings = Filings(pdfs, ns.cache)
    groups: dict[str, list[dict]] = defaultdict(list)
    if ns.only in (None, "metrics"):
        for r in load_devset(HERE / "financebench_dev_metrics.jsonl"):
            item = convert_metric_label(r) | {"answerable": r.get("answerable", True)}
            groups["metric labels" if item["answerable"] else "metric labels, must refuse"].append(item)
    root = next((d.parent for d in dirs if d.parent.name == "financebench-dev"), None)
    upstream = root / "data" / "financebench_dev.jsonl" if root else None
    if ns.only in (None, "financebench") and upstream is not None and upstream.is_file():
        for r in load_devset(upstream):
            item = convert_financebench(r)
            if item["category"] == "metric":
                groups["FinanceBench metric questions"].append(item)
    if ns.only in (None, "labels"):
        for r in load_devset(HERE / "financebench_dev_labels.jsonl"):
            if r.get("answerable") and r.get("answer_type") == "number":
                groups[f"labels: {r['category']}"].append(r)
    if ns.only in (None, "sec10q"):
        for r in load_devset(HERE / "devset.jsonl"):
            if r.get("answerable") and r.get("answer_type") == "number" and r.get("doc"):
                groups[f"sec10q: {r.get('category') or 'other'}"].append(r)
    print(f"{'questions':<34} {'n':>4} {'right':>6} {'wrong':>6} {'refused':>8} {'retrieval':>10}")
    for name, items in groups.items():
        counts: dict[str, int] = defaultdict(int)
        for it in items:
            if it["doc"] not in pdfs:
                counts["missing"] += 1
                continue
            outcome, text = judge(it, filings)
            counts[outcome] += 1
            if ns.show or outcome == "wrong":
                print(f"  {outcome.upper():<9} {it['id']}: {it['question'][:110]!r}\n            -> {text[:160]!r}"
                      f" (label {it.get('answer')!r})")
        print(f"{name:<34} {len(items):>4} {counts['right']:>6} {counts['wrong']:>6} {counts['refused']:>8}"
              f" {counts['retrieval']:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
