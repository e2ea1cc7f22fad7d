"""The one number parser: figures in prose and in statement cells.

- ``numbers_in``: every figure in free text (answers, quotes, questions), sign dropped;
- ``number_supported``: is an answer's figure backed by a quoted one (allowing rescaling);
- ``parse_cell``: one statement cell as printed — "(1,234)" is -1234, "—"/"-" is no value,
  "$ 1,234.5" is 1234.5, "12.3 %" is 12.3, footnote markers are not part of the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER_RE = re.compile(r"(?<![\w.])[-(]?\$?\d[\d,]*(?:\.\d+)?%?")

# A statement cell: optional "$", optional sign or opening parenthesis, digits with
# thousands separators, optional decimals, optional closing parenthesis and "%".
CELL_RE = re.compile(r"\$?\s?\(?\s?-?\$?\s?\d{1,3}(?:,\d{3})*(?:\.\d+)?\s?\)?\s?%?|\$?\s?\(?\s?-?\$?\s?\d+(?:\.\d+)?\s?\)?\s?%?")
# "—", "–", "-", "--" and "$ —" stand for "none" in a statement column.
DASH_RE = re.compile(r"^\$?\s?[-\u2013\u2014\u2012\u2212]{1,3}\s?%?$")
# -- scale words: the one table of how a figure's scale is written ---------------------------
# A table's scale note ("(in millions)") names its cells' factor.
SCALE_FACTORS = {"units": 1.0, "thousands": 1e3, "millions": 1e6, "billions": 1e9}
# A word printed after a figure ("4,127 million", "$2.4 bn", "3.1m") names its scale note.
SCALE_OF_WORD = {"thousand": "thousands", "k": "thousands", "million": "millions", "mn": "millions", "m": "millions",
                 "billion": "billions", "bn": "billions", "b": "billions", "trillion": "trillions"}
SCALE_WORD_FACTORS = {"trillion": 1e12, "billion": 1e9, "million": 1e6, "thousand": 1e3}  # largest first


# currency codes an analyst writes for the unit an answer is wanted in ("Answer in USD millions")
CURRENCY_CODES = frozenset("USD EUR GBP JPY CAD CHF CNY RMB AUD".split())

def scale_word(scale: str) -> str:
    """A scale note as the word written after a figure: "millions" -> "million"; "" for units."""
    return {"thousands": "thousand", "millions": "million", "billions": "billion"}.get(scale, "")


def numbers_in(text: str) -> list[float]:
    """Every figure in ``text``, as printed (no sign, no scale)."""
    return [value for _, _, value in number_spans(text)]


def number_spans(text: str) -> list[tuple[int, int, float]]:
    """Every figure in ``text`` with where it is printed: (start, end, value as in ``numbers_in``)."""
    out = []
    for m in _NUMBER_RE.finditer(text):
        s = m.group(0).strip("$(%-").replace(",", "").replace("$", "")
        try:
            out.append((m.start(), m.end(), float(s)))
        except ValueError:
            continue
    return out


def decimals_of(x: float) -> int:
    s = repr(x)
    return 0 if s.endswith(".0") else len(s.split(".")[1]) if "." in s else 0


def number_supported(value: float, candidates: list[float]) -> bool:
    """``value`` equals a candidate, or the candidate rescaled by thousands/millions and
    rounded to the precision the answer uses ("$81.8 billion" for "81,797" in millions)."""
    d = decimals_of(value)
    for c in candidates:
        if abs(c - value) < 1e-9:
            return True
        for scale in (1e3, 1e6, 1e-3):
            if d and abs(round(c / scale, d) - value) < 1e-9:
                return True
    return False


@dataclass(frozen=True)
class CellValue:
    value: float | None  # None: a dash (no amount)
    percent: bool = False


def parse_cell(text: str) -> CellValue | None:
    """A printed statement cell -> its value; None when ``text`` is not a cell at all."""
    t = text.strip().replace("\u2212", "-")
    if not t:
        return None
    if DASH_RE.match(t):
        return CellValue(None, t.endswith("%"))
    percent = t.endswith("%")
    body = t.rstrip("%").strip().replace("$", "").replace(" ", "")
    negative = False
    if body.startswith("(") and body.endswith(")"):
        negative, body = True, body[1:-1]
    elif body.startswith("(") or body.endswith(")"):
        return None
    if body.startswith("-"):
        negative, body = True, body[1:]
    if not re.fullmatch(r"\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?", body):
        return None
    v = float(body.replace(",", ""))
    return CellValue(-v if negative else v, percent)


def scale_factor(scale: str) -> float:
    return SCALE_FACTORS.get(scale, 1.0)


_SCALE_RE = re.compile(
    r"\b(?:in|amounts? in|dollars in|\$\s*in|expressed in|usd in)\s+(thousands|millions|billions)\b"
    r"|\(\s*(thousands|millions|billions)\b|\$\s*\(?(000)'?s\)?|\(\$?\s*in\s+(000)'?s\)", re.I)


def scale_of(text: str) -> str | None:
    """"thousands" | "millions" | "billions" from a statement's scale note, else None."""
    m = _SCALE_RE.search(text)
    if not m:
        return None
    word = next(g for g in m.groups() if g)
    return "thousands" if word == "000" else word.lower()


def nearest_scale(text_above: str, window: int = 3000, label: str = "") -> str | None:
    """The scale of a table row from the last scale note above it on its page (the row's own
    table's, not an earlier table's): "thousands" | "millions" | "billions", else None. A
    caption giving two scales, each after the items it scopes ("operating income (dollars in
    millions), ... package statistics (in thousands)"), gives the row (its ``label``) the one
    whose items name it, and none when no item does: no scale is said rather than a wrong one."""
    tail = text_above[-window:]
    found = list(_SCALE_RE.finditer(tail))
    if not found:
        return None
    last = found[-1]
    # the notes of the last one's caption: close before it, no row of figures (a line with two
    # numbers) between them
    caption = [m for m in found if last.start() - m.end() < 400
               and not re.search(r"\n[^\n]*\d[^\n]*\s\$?\(?\d[^\n]*\n", tail[m.end():last.start()])]
    if not label or len({scale_of(m.group(0)) for m in caption}) <= 1:
        return scale_of(last.group(0))
    words = _scope_words(label)
    for m in reversed(caption):
        items = re.split(r"[,;:.)]", tail[max(0, m.start() - 200):m.start()])[-1]
        if words & _scope_words(items):
            return scale_of(m.group(0))
    return None


def _scope_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{3,}", text.lower())) - {"the", "and", "dollars", "except", "selected", "amounts", "in"}


# A count written with its scale word in prose ("4,127 million shares", "2.47 billion",
# "15,634,232,000 shares"): the cover page prints share counts either way.
COUNT_RE = re.compile(r"(?<![\d,.$])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s+(thousand|million|billion)s?\b)?(?![\d,]|\.\d|\s?%)",
                      re.I)


def count_value(number: str, word: str | None) -> float:
    """"4,127" with "million" -> 4,127,000,000.0 (the scale word as printed beside it)."""
    return float(number.replace(",", "")) * SCALE_WORD_FACTORS.get((word or "").lower(), 1.0)


_SHARE_SCALE = re.compile(r"\bshares?\b[^.;()]{0,40}?\b(?:in|reflected\s+in|are\s+in|stated\s+in|presented\s+in)\s+"
                          r"(thousands|millions|billions)\b|\b(thousands|millions|billions)\s+of\s+shares\b", re.I)
_SHARE_WORD = re.compile(r"(?<!per[ -])\b(?:number\s+of\s+)?shares?\b(?!\s+(?:data|amounts?|information)?\s*\bin\b)", re.I)


def share_scale_of(note: str) -> str | None:
    """The scale of the share counts under a statement's scale note, where it says so:
    "(In millions, except number of shares, which are reflected in thousands, and per-share
    amounts)" -> "thousands"; "(in thousands, except share and per share data)" -> "units"
    (share counts are excepted from the scale); "(in millions, except per share data)" ->
    the note's own scale (only per-share amounts are excepted). None without a scale note."""
    m = _SHARE_SCALE.search(note)
    if m:
        return (m.group(1) or m.group(2)).lower()
    scale = scale_of(note)
    if scale is None:
        return None
    at = re.search(r"\bexcept\b", note, re.I)
    if at and _SHARE_WORD.search(note[at.end():]):
        return "units"
    return scale
