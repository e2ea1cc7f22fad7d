"""Financial statements as data: statements -> periods (columns) x rows (line items) -> cells.

Every cell keeps where it was printed (page, character span in the canonical page text,
box on the page), so an answer built from it can quote the row and highlight the cell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# "table": any other table of period columns (MD&A, notes), read at answer time, never stored
StatementKind = Literal["income", "balance", "cash_flow", "comprehensive", "equity", "segment", "table"]
Box = tuple[float, float, float, float]

# Bump when extraction changes: stored statements of an older version are re-extracted
# from the PDF (or the stored page texts) without re-embedding anything.
EXTRACTOR_VERSION = 9  # 3: per-share rows under a share-class heading; 5: "(Loss)" after a title, one fiscal
# year-end printed twice over the columns, "and" between the dates of a header; 6: a footnote mark
# glued to a cell ("2022*"), a total printed without its label; 7: a change column named after the
# years of a header ("2023 2022 Inc/ (Dec)"); 8: a printed total of one row counted as such; 9: a balance
# sheet's liabilities half on the next page without the column header


def page_kinds(rows: list[dict[str, Any]]) -> dict[int, list[str]]:
    """page -> the kinds of statement printed on it (its title page, continuation pages and
    every row's page), from statements as stored (``Statement.to_json`` plus ``pages``),
    without building them: retrieval's statement boost reads only this map of a filing,
    and a team library stores it beside the statements so no desktop parses them to search."""
    out: dict[int, set[str]] = {}
    for st in rows:
        pages = {int(st["page"]), *(int(p) for p in st.get("pages") or ()), *(int(r["page"]) for r in st["rows"])}
        for page in pages:
            out.setdefault(page, set()).add(str(st["kind"]))
    return {page: sorted(kinds) for page, kinds in sorted(out.items())}


@dataclass
class Period:
    label: str  # the column heading as printed, e.g. "Three Months Ended July 1, 2023"
    end: str  # ISO date of the period end ("2023-07-01"); "YYYY-12-31" if no day printed
    months: int  # 3 | 6 | 9 | 12 for a duration, 0 for an instant (balance sheet)

    @property
    def year(self) -> int:
        return int(self.end[:4])


@dataclass
class Cell:
    period_end: str
    months: int
    text: str  # as printed, e.g. "(1,234)" or "-"
    value: float | None  # in the statement's scale (per-share rows: in units); None = dash
    page: int
    span: tuple[int, int]  # character offsets of the cell in the page text
    bbox: Box | None = None
    # The component column of an equity statement laid out by components ("Retained Earnings",
    # "Treasury Stock Shares"); "" when the columns are periods (every other statement).
    column: str = ""


@dataclass
class Row:
    label: str  # as printed, dot leaders and footnote markers removed
    parent: str  # the heading above it ("Current assets"), "" at top level
    page: int
    span: tuple[int, int]  # the whole row (label + cells) in the page text
    label_span: tuple[int, int]
    cells: list[Cell] = field(default_factory=list)
    unit: str = "currency"  # currency | per_share | shares | percent

    def cell_for(self, period_end: str, months: int) -> Cell | None:
        for c in self.cells:
            if c.period_end == period_end and c.months == months:
                return c
        return None


@dataclass
class Statement:
    kind: StatementKind
    title: str
    page: int  # first page
    scale: str  # thousands | millions | billions | units
    periods: list[Period]
    rows: list[Row] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The ``main.py statements --json`` contract (plus spans for the viewer)."""
        return {
            "kind": self.kind, "title": self.title, "page": self.page, "scale": self.scale,
            "periods": [asdict(p) for p in self.periods],
            "rows": [
                {"label": r.label, "parent": r.parent, "page": r.page, "unit": r.unit,
                 "span": list(r.span), "label_span": list(r.label_span),
                 "cells": [{"period_end": c.period_end, "months": c.months, "text": c.text, "value": c.value,
                            "page": c.page, "span": list(c.span),
                            "bbox": [round(v, 2) for v in c.bbox] if c.bbox else None}
                           | ({"column": c.column} if c.column else {})
                           for c in r.cells]}
                for r in self.rows
            ],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Statement:
        rows = [
            Row(r["label"], r["parent"], r["page"], tuple(r["span"]), tuple(r["label_span"]),
                [Cell(c["period_end"], c["months"], c["text"], c["value"], c["page"], tuple(c["span"]),
                      tuple(c["bbox"]) if c.get("bbox") else None, c.get("column", "")) for c in r["cells"]],
                r.get("unit", "currency"))
            for r in d["rows"]
        ]
        return cls(d["kind"], d["title"], d["page"], d["scale"], [Period(**p) for p in d["periods"]], rows,
                   d.get("pages") or [d["page"]])
