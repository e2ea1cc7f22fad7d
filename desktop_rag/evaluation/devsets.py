"""Where the labelled data sets live and how they are read.

The data sets are evaluation-only files beside the checkout (``<repo>/../shared``), or
wherever ``DESKTOP_RAG_SHARED`` points: every dev-set location goes through
``shared_dir()``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import Any

ENV_SHARED = "DESKTOP_RAG_SHARED"


def shared_dir() -> Path:
    """Root of the shared evaluation data: ``$DESKTOP_RAG_SHARED`` > ``<repo>/../shared``."""
    from desktop_rag.paths import app_root

    env = os.environ.get(ENV_SHARED)
    if env:
        return Path(env).expanduser().resolve()
    return app_root().parent / "shared"


def sec10q_pdfs() -> Path:
    """The 20 10-Q filings the sec10q dev set (``eval/devset.jsonl``) is labelled on."""
    return shared_dir() / "data" / "sec10q" / "pdfs"


def default_corpus() -> Path:
    """Default folder of filings for ``eval``/``bench`` (the sec10q filings)."""
    return sec10q_pdfs()


def load_devset(path: str | Path, errors: list[str] | None = None) -> list[dict[str, Any]]:
    """One JSON object per non-empty line. With ``errors``, a line that is not JSON is
    reported there (``<file> line N: invalid JSON (...)``) and skipped instead of raising."""
    path = Path(path)
    rows = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if errors is None:
                raise
            errors.append(f"{path.name} line {n}: invalid JSON ({exc})")
    return rows


STATEMENT_CELLS = "statement_cells.jsonl"  # in the repo's eval/ folder: cells as printed (eval/README.md)


def statement_cells_path(eval_dir: Path | None = None) -> Path:
    from desktop_rag.paths import app_root

    return (eval_dir or app_root() / "eval") / STATEMENT_CELLS


def load_statement_cells(path: Path | None = None, errors: list[str] | None = None) -> list[dict[str, Any]]:
    """The labelled statement cells (``eval/statement_cells.jsonl`` unless ``path``): what
    ``main.py eval``, ``eval/score_statement_cells.py`` and ``eval/check_statement_labels.py`` read."""
    return load_devset(path or statement_cells_path(), errors)


def label_pdf_dirs() -> list[Path]:
    """The folders of the filings the statement and metric labels are on (financebench-dev's
    and sec10q's PDFs); [] when either is missing."""
    data = shared_dir() / "data"
    dirs = [data / "financebench-dev" / "pdfs", data / "sec10q" / "pdfs"]
    return dirs if all(d.is_dir() for d in dirs) else []


def spread(items: list[Any], n: int) -> list[Any]:
    """n items evenly spread over the list (deterministic, covers all companies)."""
    if n >= len(items):
        return list(items)
    if n <= 0:
        return []
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


# -- the data sets ------------------------------------------------------------------------------

LABELLED_SETS = ("sec10q", "financebench-dev")
POOL_SETS_FILE = "pool_sets.json"  # eval/: the blind batches kept as regression sets, and their filings


def pool_sets(eval_dir: Path | None = None) -> dict[str, list[str]]:
    """The blind batches kept in eval/ as regression sets ("pool_p1", ...), in batch order,
    each with the pool filings its library holds ({} when eval/ keeps none)."""
    from desktop_rag.paths import app_root

    path = (eval_dir or app_root() / "eval") / POOL_SETS_FILE
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["sets"])


def pool_set_names(eval_dir: Path | None = None) -> tuple[str, ...]:
    """The names of ``pool_sets``, in batch order."""
    return tuple(pool_sets(eval_dir))


SETS = LABELLED_SETS + pool_set_names()
CATEGORIES = ("line-item", "mdna", "segment", "legal-risk", "multi-year", "metric", "instruction", "persona",
              "refuse-company", "refuse-period", "refuse-undisclosed")


@dataclasses.dataclass
class EvalSet:
    """One labelled data set: its filings and its questions in the dev-set schema
    (``eval/README.md``), each with a ``category``."""

    name: str
    corpus: Path  # folder of the PDFs the questions are about
    answerable: list[dict[str, Any]]
    unanswerable: list[dict[str, Any]]
    sources: list[str]  # label files read (for the report)
    cells_path: Path | None = None  # eval/statement_cells.jsonl when present (its cells on this set's filings count)
    notes: list[str] = dataclasses.field(default_factory=list)
    files: list[str] | None = None  # only these PDFs of the corpus folder (None: all of them)

    @property
    def items(self) -> list[dict[str, Any]]:
        return self.answerable + self.unanswerable


_SEGMENT_TAGS = {"segment-revenue", "segment-operating-income", "geography", "data-center", "aws", "gaming", "cloud",
                 "revenue-by-offering"}


def category_from_tags(row: dict[str, Any]) -> str:
    """Category of a sec10q dev-set question (which has tags, no category)."""
    tags = set(row.get("tags") or [])
    if not row.get("answerable"):
        if "other-company" in tags:
            return "refuse-company"
        if "period-not-covered" in tags:
            return "refuse-period"
        return "refuse-undisclosed"
    if tags & {"legal-proceedings", "risk-factors"}:
        return "legal-risk"
    if tags & _SEGMENT_TAGS:
        return "segment"
    if "yoy" in tags:
        return "multi-year"
    if "mdna" in tags or row.get("answer_type") == "text":
        return "mdna"
    return "line-item"


_FB_SEGMENT = re.compile(r"\bsegments?\b", re.I)
_FB_LEGAL = re.compile(r"\b(litigation|legal|lawsuits?|risk factors?)\b", re.I)
_FB_MULTI = re.compile(r"\b(improving|trend|chang(?:e|ed|es)|increas(?:e|ed)|decreas(?:e|ed)|year[- ]over[- ]year)\b",
                       re.I)
_FB_YEAR = re.compile(r"\b(?:FY\s?)?(20\d\d)\b")
_FB_LINE = re.compile(r"\b(working capital|cash flows?|operations|balance sheet|per share|assets|liabilities|"
                      r"revenue|income|debt)\b", re.I)


def financebench_category(question: str, question_type: str) -> str:
    """Category of an upstream FinanceBench question: metrics-generated ones are metric
    questions; the others are classed by what they ask."""
    if question_type == "metrics-generated":
        return "metric"
    if _FB_SEGMENT.search(question):
        return "segment"
    if _FB_LEGAL.search(question):
        return "legal-risk"
    if _FB_MULTI.search(question) or len(set(_FB_YEAR.findall(question))) > 1:
        return "multi-year"
    if _FB_LINE.search(question):
        return "line-item"
    return "mdna"


_USD_UNIT = re.compile(r"\b(?:in|of)\s+(?:USD|US\$|\$)\s*(thousands|millions|billions)\b", re.I)


def convert_financebench(row: dict[str, Any]) -> dict[str, Any]:
    """An upstream FinanceBench row in the dev-set schema: ``doc_name`` -> ``<doc_name>.pdf``,
    0-based ``evidence_page_num`` -> 1-based ``pages`` (first evidence first, no repeats).
    Metric questions also get ``value``/``unit``/``decimals`` read from the printed answer."""
    pages: list[int] = []
    for ev in row.get("evidence") or []:
        p = ev.get("evidence_page_num")
        if isinstance(p, int) and p + 1 not in pages:
            pages.append(p + 1)
    category = financebench_category(row["question"], row.get("question_type") or "")
    answer = str(row.get("answer") or "")
    out: dict[str, Any] = {
        "id": "fbsrc-" + str(row.get("financebench_id", "")).rsplit("_", 1)[-1],
        "question": row["question"], "answerable": True, "doc": f"{row['doc_name']}.pdf", "pages": pages,
        "evidence": "", "answer": answer, "answer_type": "number" if category == "metric" else "text",
        "category": category, "source": "financebench", "tags": [row.get("question_type") or ""],
    }
    if category == "metric":
        m = re.search(r"-?\d[\d,]*(?:\.\d+)?", answer)
        if m:
            num = m.group(0).replace(",", "")
            usd = _USD_UNIT.search(row["question"])
            out["value"] = float(num)
            out["decimals"] = len(num.split(".")[1]) if "." in num else 0
            out["unit"] = "percent" if "%" in answer else (f"usd_{usd.group(1).lower()}" if usd else "")
    return out


def convert_metric_label(row: dict[str, Any]) -> dict[str, Any]:
    """A metric label (``eval/financebench_dev_metrics.jsonl``) in the dev-set schema; its
    retrieval pages are the pages of its inputs."""
    pages: list[int] = []
    for inp in row.get("inputs") or []:
        p = inp.get("page")
        if isinstance(p, int) and p not in pages:
            pages.append(p)
    answerable = bool(row.get("answerable", True))
    return {
        "id": row["id"], "question": row["question"], "answerable": answerable, "doc": row.get("doc"),
        "pages": pages if answerable else [], "evidence": "", "answer": str(row.get("answer") or ""),
        "answer_type": "number" if answerable else None,
        "category": "metric" if answerable else "refuse-undisclosed", "source": row.get("source", ""),
        "tags": ["metric"], "value": row.get("value"), "unit": row.get("unit") or "", "decimals": row.get("decimals"),
        "formula": row.get("formula", ""),
    }


def with_category(row: dict[str, Any]) -> dict[str, Any]:
    return row if row.get("category") else row | {"category": category_from_tags(row)}


def load_set(name: str, eval_dir: Path | None = None) -> EvalSet:
    """A data set by name. ``eval_dir`` is the repo's ``eval/`` folder (label files)."""
    from desktop_rag.paths import app_root

    eval_dir = eval_dir or app_root() / "eval"
    if name == "sec10q":
        path = eval_dir / "devset.jsonl"
        rows = [with_category(r) for r in load_devset(path)]
        cells = statement_cells_path(eval_dir)
        return EvalSet(name, sec10q_pdfs(), [r for r in rows if r.get("answerable")],
                       [r for r in rows if not r.get("answerable")], [str(path)],
                       cells if cells.is_file() else None)
    if name == "financebench-dev":
        root = shared_dir() / "data" / "financebench-dev"
        upstream = root / "data" / "financebench_dev.jsonl"
        answerable: list[dict[str, Any]] = []
        unanswerable: list[dict[str, Any]] = []
        sources, notes = [], []
        if upstream.is_file():
            answerable += [convert_financebench(r) for r in load_devset(upstream)]
            sources.append(str(upstream))
        else:
            notes.append(f"upstream questions not found: {upstream}")
        labels = eval_dir / "financebench_dev_labels.jsonl"
        if labels.is_file():
            rows = [with_category(r) for r in load_devset(labels)]
            answerable += [r for r in rows if r.get("answerable")]
            unanswerable += [r for r in rows if not r.get("answerable")]
            sources.append(str(labels))
        else:
            notes.append(f"{labels.name} not present yet: upstream questions only")
        metrics = eval_dir / "financebench_dev_metrics.jsonl"
        if metrics.is_file():
            rows = [convert_metric_label(r) for r in load_devset(metrics)]
            answerable += [r for r in rows if r["answerable"]]
            unanswerable += [r for r in rows if not r["answerable"]]
            sources.append(str(metrics))
        else:
            notes.append(f"{metrics.name} not present yet")
        cells = statement_cells_path(eval_dir)
        return EvalSet(name, root / "pdfs", answerable, unanswerable, sources,
                       cells if cells.is_file() else None, notes)
    pools = pool_sets(eval_dir)
    if name in pools:
        path = eval_dir / f"{name}.jsonl"
        rows = [with_category(r) for r in load_devset(path)]
        return EvalSet(name, shared_dir() / "data" / "filings-pool" / "pdfs", [r for r in rows if r.get("answerable")],
                       [r for r in rows if not r.get("answerable")], [str(path)], files=list(pools[name]))
    raise ValueError(f"unknown data set {name!r} (choose from {', '.join(SETS)}, all)")


def custom_set(devset: Path, corpus: Path) -> EvalSet:
    """A labelled file of your own (dev-set schema) on a folder of filings."""
    rows = [with_category(r) for r in load_devset(devset)]
    return EvalSet(devset.stem, corpus, [r for r in rows if r.get("answerable")],
                   [r for r in rows if not r.get("answerable")], [str(devset)])
