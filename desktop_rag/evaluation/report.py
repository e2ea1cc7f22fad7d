"""Plain-text report helpers shared by ``main.py eval`` and ``main.py bench``."""

from __future__ import annotations

from typing import Any


def table(headers: list[str], rows: list[list[Any]], floatfmt: str = "{:.3f}") -> str:
    """Plain aligned text table (first column left-aligned, the rest right-aligned)."""
    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return floatfmt.format(v)
        return str(v)

    cells = [[cell(v) for v in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    def line(vals: list[str]) -> str:
        return "  ".join(v.ljust(widths[i]) if i == 0 else v.rjust(widths[i]) for i, v in enumerate(vals)).rstrip()
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


def short(s: str, n: int = 90) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


