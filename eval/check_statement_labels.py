#!/usr/bin/env python
"""Validate eval/statement_cells.jsonl and eval/financebench_dev_metrics.jsonl against the PDFs.

Usage:
    .venv/bin/python eval/check_statement_labels.py [--partial] [--data DIR ...]

The PDFs are looked up by file name in the data folders (default: ``financebench-dev/pdfs`` and
``sec10q/pdfs`` under ``../shared/data`` beside the checkout, or under ``$DESKTOP_RAG_SHARED/data``:
``desktop_rag.evaluation.devsets.label_pdf_dirs``). Page text
is the app's own canonical text (``desktop_rag.core.ingest.pdf.extract_page``). Exits 1 when a check
fails, 2 when a data folder or label file is missing. ``--partial`` skips the minimum counts.

Cell checks (``statement_cells.jsonl``):
- fields and types; ``statement``/``scale``/``months`` from the allowed sets; ``period_end`` is
  an ISO date; balance-sheet cells are instants (``months`` 0), income / cash-flow /
  comprehensive-income cells are durations;
- ``value`` is what ``text`` says: parentheses negative, a dash is null, thousands separators;
- ``text`` occurs as a whole token (whitespace-insensitive) on a line of ``page`` which, or one of
  the two lines above it (wrapped labels), starts with the label (its first 25 characters, dot
  leaders and white space ignored);
- no duplicate (doc, page, statement, label, parent, column).

Metric checks (``financebench_dev_metrics.jsonl``):
- fields and types, unique ``fbm-NNN`` ids, ``category`` "metric";
- answerable: every input's value is printed on its page (``1,234``, ``(1,234)``, ``1.26``) on a
  line starting with the input's label (or wrapped below it) as for cells; ``value`` recomputes
  from ``expr`` over the named inputs; ``answer`` is ``value`` rounded to ``decimals``;
- not answerable: ``value`` null and an ``answer`` that says why.
- minimums (unless ``--partial``): >= 320 cells on >= 16 filings (>= 12 financebench-dev,
  >= 4 sec10q), every statement kind present; >= 45 metrics with >= 6 not answerable.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import math
import operator
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.ingest.pdf import extract_page, fold_text, open_pdf  # noqa: E402
from desktop_rag.evaluation.devsets import label_pdf_dirs, load_devset, load_statement_cells  # noqa: E402

STATEMENTS = {"income", "balance", "cash_flow", "comprehensive", "equity", "segment"}
DURATION_STATEMENTS = {"income", "cash_flow", "comprehensive"}
SCALES = {"thousands", "millions", "billions", "units"}
MONTHS = {0, 3, 6, 9, 12}
UNITS = {"ratio", "percent", "usd_millions", "usd_thousands", "usd_billions", "usd", "days", "times"}
CELL_FIELDS = {
    "doc": str, "page": int, "statement": str, "label": str, "parent": str, "column": str,
    "period_end": str, "months": int, "text": str, "value": (float, int, type(None)), "scale": str,
}
METRIC_FIELDS = {
    "id": str, "question": str, "doc": str, "answer": str, "value": (float, int, type(None)),
    "unit": (str, type(None)), "decimals": (int, type(None)), "formula": (str, type(None)),
    "inputs": list, "answerable": bool, "category": str, "source": str,
}
INPUT_FIELDS = {"label": str, "period": str, "value": (float, int), "page": int}
LABEL_PREFIX = 25
DASH_RE = re.compile(r"[-\u2013\u2014]+")
TEXT_RE = re.compile(r"\(?-?\d{1,3}(?:,\d{3})*(?:\.\d+)?\)?|\(?-?\d+(?:\.\d+)?\)?")
MIN_CELLS, MIN_DOCS, MIN_FB_DOCS, MIN_SEC_DOCS, MIN_METRICS, MIN_REFUSE = 320, 16, 12, 4, 45, 6


def squash(text: str) -> str:
    """Label form for comparison: folded, dot leaders and all white space removed, lower case."""
    text = re.sub(r"\.{2,}", "", fold_text(text))
    return "".join(text.split()).lower()


def parse_text(text: str) -> float | None:
    """Value of a printed cell: ``(1,234)`` -> -1234.0, a dash -> None."""
    t = text.replace("$", "").replace(" ", "")
    if DASH_RE.fullmatch(t):
        return None
    if not TEXT_RE.fullmatch(t):
        raise ValueError(f"not a number: {text!r}")
    neg = t.startswith("(") and t.endswith(")")
    value = float(t.strip("()").replace(",", ""))
    return -value if neg else value


def token_in(token: str, line: str) -> bool:
    """``token`` occurs in ``line`` as a whole cell (not inside a longer number or word)."""
    body = r"\s?".join(re.escape(ch) for ch in token.replace(" ", ""))  # "(1,234 )" prints in some filings
    pattern = r"(?<![\w.,])" + body + r"(?![\w,]|\.\d)"
    return re.search(pattern, line) is not None


def label_line_hits(lines: list[str], label: str, token: str) -> bool:
    """A line carries ``token`` and it, or one of the two lines above, starts with ``label``."""
    prefix = squash(label)[:LABEL_PREFIX]
    for i, line in enumerate(lines):
        if not token_in(token, line):
            continue
        for j in range(max(0, i - 2), i + 1):
            if squash(lines[j]).startswith(prefix):
                return True
    return False


class Pages:
    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = dirs
        self.cache: dict[str, list[list[str]] | None] = {}

    def lines(self, doc: str, page: int) -> list[str] | None:
        if doc not in self.cache:
            path = next((d / doc for d in self.dirs if (d / doc).is_file()), None)
            if path is None:
                self.cache[doc] = None
            else:
                pdf = open_pdf(path)
                try:
                    self.cache[doc] = [
                        [" ".join(fold_text(ln).split()) for ln in extract_page(pdf[i]).text.split("\n")]
                        for i in range(pdf.page_count)
                    ]
                finally:
                    pdf.close()
        pages = self.cache[doc]
        if pages is None or not 1 <= page <= len(pages):
            return None
        return pages[page - 1]

    def dir_of(self, doc: str) -> str | None:
        return next((d.parent.name for d in self.dirs if (d / doc).is_file()), None)


def check_fields(rec: dict, fields: dict, where: str, errors: list[str]) -> bool:
    ok = True
    for name, kind in fields.items():
        if name not in rec:
            errors.append(f"{where}: missing field {name!r}")
            ok = False
        elif not isinstance(rec[name], kind) or (isinstance(rec[name], bool) and kind is not bool):
            errors.append(f"{where}: field {name!r} has type {type(rec[name]).__name__}")
            ok = False
    return ok


def check_cells(cells: list[dict], pages: Pages, errors: list[str]) -> None:
    seen: Counter = Counter()
    for n, c in enumerate(cells, 1):
        where = f"cell {n} ({c.get('doc')} p{c.get('page')} {c.get('label')!r} {c.get('column')!r})"
        if not check_fields(c, CELL_FIELDS, where, errors):
            continue
        seen[(c["doc"], c["page"], c["statement"], c["label"], c["parent"], c["column"], c["period_end"], c["months"])] += 1
        if c["statement"] not in STATEMENTS:
            errors.append(f"{where}: statement {c['statement']!r}")
        if c["scale"] not in SCALES:
            errors.append(f"{where}: scale {c['scale']!r}")
        if c["months"] not in MONTHS:
            errors.append(f"{where}: months {c['months']}")
        elif c["statement"] == "balance" and c["months"] != 0:
            errors.append(f"{where}: a balance-sheet cell is an instant (months 0)")
        elif c["statement"] in DURATION_STATEMENTS and c["months"] == 0:
            errors.append(f"{where}: a {c['statement']} cell covers a period (months > 0)")
        try:
            dt.date.fromisoformat(c["period_end"])
        except ValueError:
            errors.append(f"{where}: period_end {c['period_end']!r} is not an ISO date")
        try:
            parsed = parse_text(c["text"])
        except ValueError as exc:
            errors.append(f"{where}: {exc}")
            continue
        if (parsed is None) != (c["value"] is None) or (
            parsed is not None and not math.isclose(parsed, c["value"], rel_tol=0, abs_tol=1e-9)
        ):
            errors.append(f"{where}: value {c['value']} does not match text {c['text']!r}")
        lines = pages.lines(c["doc"], c["page"])
        if lines is None:
            errors.append(f"{where}: no such document/page")
        elif not label_line_hits(lines, c["label"], c["text"]):
            errors.append(f"{where}: text {c['text']!r} not on a line of label {c['label']!r}")
    for key, count in seen.items():
        if count > 1:
            errors.append(f"duplicate cell {key}")


def printed_forms(value: float) -> list[str]:
    """How a statement value can be printed: thousands separators, parentheses, decimals."""
    a = abs(value)
    forms = {f"{a:,.0f}"} if a == int(a) else set()
    forms |= {f"{a:,.{d}f}" for d in (1, 2, 3) if math.isclose(round(a, d), a, abs_tol=1e-9)}
    forms |= {f"({f})" for f in list(forms)}
    return sorted(forms)


_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def evaluate(expr: str, names: dict[str, float]) -> float:
    """Arithmetic over named inputs (+ - * / ** and parentheses only)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ValueError(f"unsupported expression element {ast.dump(node)}")

    return ev(ast.parse(expr, mode="eval"))


def answer_number(answer: str) -> float | None:
    m = re.search(r"-?\$?\(?-?[\d,]*\.?\d+", answer)
    if not m:
        return None
    t = m.group(0).replace("$", "").replace(",", "")
    neg = t.startswith("-") or t.startswith("(")
    return -float(t.strip("-(")) if neg else float(t)


def check_metrics(metrics: list[dict], pages: Pages, errors: list[str]) -> None:
    ids = Counter(m.get("id") for m in metrics)
    for mid, count in ids.items():
        if count > 1:
            errors.append(f"duplicate metric id {mid}")
    for m in metrics:
        where = f"metric {m.get('id')}"
        if not check_fields(m, METRIC_FIELDS, where, errors):
            continue
        if not re.fullmatch(r"fbm-\d{3}", m["id"]):
            errors.append(f"{where}: id must be fbm-NNN")
        if m["category"] != "metric":
            errors.append(f"{where}: category must be 'metric'")
        if pages.dir_of(m["doc"]) != "financebench-dev":
            errors.append(f"{where}: doc {m['doc']!r} is not a financebench-dev filing")
        if not m["answerable"]:
            if m["value"] is not None or len(m["answer"]) < 40:
                errors.append(f"{where}: not answerable needs value null and an answer saying why")
            continue
        if m["unit"] not in UNITS or m["decimals"] is None or m["value"] is None or not m["inputs"]:
            errors.append(f"{where}: answerable needs unit in {sorted(UNITS)}, decimals, value, inputs")
            continue
        names: dict[str, float] = {}
        for k, inp in enumerate(m["inputs"], 1):
            iw = f"{where} input {k} ({inp.get('label')!r})"
            if not check_fields(inp, INPUT_FIELDS, iw, errors):
                continue
            if "name" in inp:
                names[inp["name"]] = float(inp["value"])
            lines = pages.lines(m["doc"], inp["page"])
            if lines is None:
                errors.append(f"{iw}: no such page {inp['page']}")
            elif not any(label_line_hits(lines, inp["label"], form) for form in printed_forms(inp["value"])):
                errors.append(f"{iw}: value {inp['value']} not printed on a line of that label on p{inp['page']}")
        if "expr" not in m:
            errors.append(f"{where}: no machine-readable expr")
            continue
        try:
            got = evaluate(m["expr"], names)
        except (KeyError, ValueError, ZeroDivisionError, SyntaxError) as exc:
            errors.append(f"{where}: expr {m['expr']!r} fails: {exc!r}")
            continue
        if not math.isclose(got, m["value"], rel_tol=1e-6, abs_tol=1e-9):
            errors.append(f"{where}: expr gives {got} but value is {m['value']}")
        shown = answer_number(m["answer"])
        want = round(m["value"], m["decimals"])
        if shown is None or not math.isclose(shown, want, abs_tol=0.51 * 10 ** -m["decimals"]):
            errors.append(f"{where}: answer {m['answer']!r} is not value {m['value']} to {m['decimals']} dp")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, nargs="*", help="folders holding the PDFs")
    ap.add_argument("--cells", type=Path, default=HERE / "statement_cells.jsonl")
    ap.add_argument("--metrics", type=Path, default=HERE / "financebench_dev_metrics.jsonl")
    ap.add_argument("--partial", action="store_true", help="skip the minimum counts")
    args = ap.parse_args(argv[1:])
    dirs = args.data or label_pdf_dirs()
    if not dirs or not all(d.is_dir() for d in dirs) or not args.cells.is_file() or not args.metrics.is_file():
        print("missing PDF folders or label files; see --help")
        return 2
    errors: list[str] = []
    pages = Pages(dirs)
    cells = load_statement_cells(args.cells, errors)
    metrics = load_devset(args.metrics, errors)
    check_cells(cells, pages, errors)
    check_metrics(metrics, pages, errors)

    docs = Counter(c.get("doc") for c in cells)
    by_set = Counter(pages.dir_of(d) for d in docs)
    kinds = Counter(c.get("statement") for c in cells)
    refuse = sum(1 for m in metrics if m.get("answerable") is False)
    print(f"cells: {len(cells)} on {len(docs)} filings ({dict(by_set)}); by statement: {dict(sorted(kinds.items()))}")
    print(f"metrics: {len(metrics)} ({len(metrics) - refuse} answerable, {refuse} not answerable)")
    if not args.partial:
        if len(cells) < MIN_CELLS or len(docs) < MIN_DOCS:
            errors.append(f"need >= {MIN_CELLS} cells on >= {MIN_DOCS} filings")
        if by_set["financebench-dev"] < MIN_FB_DOCS or by_set["sec10q"] < MIN_SEC_DOCS:
            errors.append(f"need >= {MIN_FB_DOCS} financebench-dev and >= {MIN_SEC_DOCS} sec10q filings")
        if set(kinds) != STATEMENTS:
            errors.append(f"statement kinds missing: {sorted(STATEMENTS - set(kinds))}")
        if len(metrics) < MIN_METRICS or refuse < MIN_REFUSE:
            errors.append(f"need >= {MIN_METRICS} metrics with >= {MIN_REFUSE} not answerable")
    for e in errors:
        print("FAIL", e)
    print("OK" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
