"""Pure scoring functions for ``main.py eval``: retrieval metrics (P/R/F1@k, MRR, hit@k),
answer metrics (figures and terms matched against a labelled answer, exact quotes,
faithfulness) and their aggregation. No model, no index: unit-tested on hand-made cases.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from desktop_rag.core.domain.numbers import SCALE_FACTORS
from desktop_rag.core.domain.periods import MONTH_RE

KS = (1, 5, 10)

# -- retrieval metrics ---------------------------------------------------------------------


def precision_at_k(retrieved: Sequence[Hashable], relevant: set, k: int) -> float:
    """Share of the top-k results that are relevant (denominator k, as usual)."""
    if k <= 0:
        return 0.0
    return sum(1 for r in retrieved[:k] if r in relevant) / k


def recall_at_k(retrieved: Sequence[Hashable], relevant: set, k: int) -> float:
    """Share of the relevant items found in the top-k (duplicates count once)."""
    if not relevant:
        return 0.0
    return len(set(retrieved[:k]) & relevant) / len(relevant)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def reciprocal_rank(retrieved: Sequence[Hashable], relevant: set) -> float:
    for i, r in enumerate(retrieved, 1):
        if r in relevant:
            return 1.0 / i
    return 0.0


def hit_at_k(retrieved: Sequence[Hashable], relevant: set, k: int) -> float:
    return 1.0 if any(r in relevant for r in retrieved[:k]) else 0.0


def first_rank(retrieved: Sequence[Hashable], relevant: set) -> int | None:
    for i, r in enumerate(retrieved, 1):
        if r in relevant:
            return i
    return None


def retrieval_metrics(retrieved: Sequence[Hashable], relevant: set, ks: Iterable[int] = KS) -> dict[str, float]:
    """P@k, R@k, F1@k, hit@k for each k, and MRR, for one question."""
    out: dict[str, float] = {}
    for k in ks:
        p, r = precision_at_k(retrieved, relevant, k), recall_at_k(retrieved, relevant, k)
        out[f"P@{k}"], out[f"R@{k}"], out[f"F1@{k}"] = p, r, f1(p, r)
        out[f"hit@{k}"] = hit_at_k(retrieved, relevant, k)
    out["MRR"] = reciprocal_rank(retrieved, relevant)
    return out


def mean_metrics(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {key: sum(r[key] for r in rows) / len(rows) for key in rows[0]}


def ann_recall(ann_ids: Sequence[int], exact_ids: Sequence[int], k: int) -> float:
    """Recall of approximate top-k against exact top-k."""
    want = set(exact_ids[:k])
    return len(set(ann_ids[:k]) & want) / len(want) if want else 1.0


# -- answer metrics --------------------------------------------------------------------------

_MONTHS = rf"{MONTH_RE}[a-z]*\.?"  # a month as printed, abbreviated or not
_DATE_RE = re.compile(rf"\b{_MONTHS}\s+\d{{1,2}},?\s+(?:19|20)\d\d\b", re.I)
_NUM_RE = re.compile(
    r"(?<![\w.])(?P<neg>[-(])?\$?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s?(?P<pct>%)?"
    r"(?:\s?(?P<unit>trillion|billion|million|thousand|bn|tn|mn|[bmk])\b)?",
    re.I,
)
_UNITS = {"trillion": 1e12, "tn": 1e12, "billion": 1e9, "bn": 1e9, "b": 1e9, "million": 1e6, "mn": 1e6,
          "m": 1e6, "thousand": 1e3, "k": 1e3}
_CHANGE_WORDS = re.compile(r"\b(up|down|increas\w*|decreas\w*|rose|fell|grew|growth|declin\w*|change\w*|from)\W+(?:\w+\W+){0,2}$", re.I)


_UNIT_WORDS = frozenset({"million", "billion", "thousand", "trillion", "percent", "bn", "mn", "approximately", "about"})


@dataclasses.dataclass(frozen=True)
class Num:
    value: float  # absolute value with the unit applied (sign dropped: filings print negatives in parentheses)
    half_ulp: float  # half a unit of the last printed digit, with the unit applied
    percent: bool = False
    raw: float = 0.0  # the printed number, no unit
    raw_half_ulp: float = 0.5
    change: bool = False  # a percentage change ("up 3%")


def parse_numbers(text: str, drop_dates: bool = True) -> list[Num]:
    """Numbers in ``text`` with their units (million/billion/...); dates and bare years dropped."""
    if drop_dates:
        text = _DATE_RE.sub(" ", text)
    out: list[Num] = []
    for m in _NUM_RE.finditer(text):
        s = m.group("num").replace(",", "")
        try:
            raw = float(s)
        except ValueError:
            continue
        unit = (m.group("unit") or "").lower()
        pct = bool(m.group("pct"))
        has_comma = "," in m.group("num")
        if drop_dates and not unit and not pct and not has_comma and "." not in s and 1990 <= raw <= 2039 \
                and not text[max(0, m.start() - 2):m.start() + 1].strip().startswith("$") and "$" not in m.group(0):
            continue  # a year
        decimals = len(s.split(".")[1]) if "." in s else 0
        scale = _UNITS.get(unit, 1.0)
        change = pct and bool(_CHANGE_WORDS.search(text[:m.start()]))
        hu = 0.5 * 10 ** (-decimals)
        out.append(Num(abs(raw) * scale, hu * scale, pct, abs(raw), hu, change))
    return out


def numbers_close(pred: Num, exp: Num, rel_tol: float = 0.005) -> bool:
    """Equal up to rounding of either side, allowing the unit to be left out or rescaled
    ("$81.8 billion" = "81,797" in a table in millions)."""
    if pred.percent != exp.percent and pred.percent:
        return False
    cands = [(pred.value, pred.half_ulp)]
    if not pred.percent:
        cands += [(pred.raw * s, pred.raw_half_ulp * s) for s in (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6)]
    for v, hu in cands:
        if hu > 0.02 * abs(exp.value):
            hu = 0.0  # "3" is not "3.4 billion": rounding only counts with >= 2 significant digits
        if abs(v - exp.value) <= max(hu, exp.half_ulp, rel_tol * abs(exp.value)) + 1e-9:
            return True
    return False


def key_numbers(expected: str) -> list[Num]:
    """The labelled figures to look for: dates/years removed, and percentage changes
    ("up 3% YoY") dropped when the label also has a level figure."""
    nums = parse_numbers(expected)
    levels = [n for n in nums if not n.change]
    return levels or nums


def number_match(predicted: str, expected: str, rel_tol: float = 0.005) -> bool:
    """True if any key figure of the labelled answer appears in the prediction."""
    want = key_numbers(expected)
    got = parse_numbers(predicted)
    return bool(want) and any(numbers_close(g, w, rel_tol) for w in want for g in got)


def _terms(text: str) -> set[str]:
    from desktop_rag.core.domain.terms import QUESTION_NOISE, tokenize

    return {t for t in tokenize(text) if t not in QUESTION_NOISE and len(t) > 1}


def key_term_overlap(predicted: str, expected: str) -> float:
    """Share of the labelled answer's content terms found in the prediction."""
    want = _terms(expected)
    if not want:
        return 0.0
    return len(want & _terms(predicted)) / len(want)


def answer_correct(predicted: str, expected: str, answer_type: str, min_overlap: float = 0.5) -> bool:
    if answer_type == "number":
        return number_match(predicted, expected)
    return key_term_overlap(predicted, expected) >= min_overlap


def key_facts_covered(shown: str, facts: Sequence[str], min_overlap: float = 0.6) -> int:
    """How many of a prose question's key facts (short phrases: "higher fuel costs",
    "$1,281 million Russia charge") what was shown carries: each fact's figures all present
    and at least ``min_overlap`` of its content terms. ``shown`` is the answer with its quotes."""
    shown_terms = _terms(shown)
    shown_nums = parse_numbers(shown, drop_dates=False)
    n = 0
    for fact in facts:
        nums = parse_numbers(fact, drop_dates=False)
        terms = _terms(fact)
        if any(not any(numbers_close(x, y) for y in shown_nums) for x in nums):
            continue
        if terms and len(terms & shown_terms) / len(terms) < min_overlap:
            continue
        if terms or nums:
            n += 1
    return n


def quote_exact(quote: str, page_text: str) -> bool:
    """The rule the app promises: a shown quote is an exact substring of the cited page
    (after white-space/dash folding of the quote)."""
    from desktop_rag.core.ingest.pdf import fold_text, match_form

    q = fold_text(quote)
    return bool(q) and q in match_form(page_text)


def faithfulness(answer: str, quotes: Sequence[str], question: str = "") -> float:
    """Share of the answer's content (figures and content terms not already in the
    question) that the cited quotes support. 1.0 for an answer with no content."""
    q_nums = parse_numbers(question)
    nums = [n for n in parse_numbers(answer) if not any(numbers_close(n, qn) for qn in q_nums)]
    quote_nums = [n for q in quotes for n in parse_numbers(q, drop_dates=False)]
    terms = _terms(answer) - _terms(question)
    terms = {t for t in terms if not t.replace(".", "").isdigit() and t not in _UNIT_WORDS}
    quote_terms = set().union(*(_terms(q) for q in quotes)) if quotes else set()
    total = len(nums) + len(terms)
    if total == 0:
        return 1.0
    ok = sum(any(numbers_close(n, qn, 0.0) or numbers_close(qn, n, 0.0) for qn in quote_nums) for n in nums)
    ok += len(terms & quote_terms)
    return ok / total


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (numpy's default), p in [0, 100]."""
    if not len(values):
        return float("nan")
    xs = sorted(values)
    if len(xs) == 1:
        return float(xs[0])
    pos = (len(xs) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))


_VERIFIED_ATTEMPT = re.compile(r"^attempt \d+ \(([^)]+)\).*— verified$")


def verified_by(notes: Sequence[str]) -> str:
    """How the retry that gave the answer asked again ("evidence restated", "statement hint",
    "synonym" ...), from the engine's attempt notes; "" when no retry was verified."""
    return next((m.group(1) for n in notes if (m := _VERIFIED_ATTEMPT.match(n))), "")


def retry_record(notes: Sequence[str], timings_ms: dict[str, float]) -> tuple[bool, int, list[str]]:
    """(the first attempt failed, the attempt that gave the answer, the attempt notes) of an
    answer: the engine notes "attempt 1: ... — <why>" only when its first attempt failed
    verification or a borderline gate, then one "attempt N ..." per retry."""
    attempts = [n for n in notes if n.startswith("attempt ")]
    return bool(attempts), int(timings_ms.get("attempt", 1)), attempts


def _rate(xs: list[bool]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def answer_rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Rates over answered questions (rows made by the eval command; optional keys such as
    ``cites_other_company``, ``metric_match`` or a citation's ``verbatim`` count only where
    present). Denominators: answerable questions for correctness and false refusals, the
    answered ones (not refused) for what the shown answer cites, all metric questions for
    metric matches and wrong computations."""
    rate = _rate
    ans = [r for r in rows if r["answerable"]]
    ooc = [r for r in rows if not r["answerable"]]
    answered = [r for r in rows if not r["not_in_corpus"]]
    ans_answered = [r for r in ans if not r["not_in_corpus"]]
    cites = [c["exact"] for r in rows for c in r["citations"]]
    verbatim = [c["verbatim"] for r in rows for c in r["citations"] if c.get("verbatim") is not None]
    faith = [r["faithfulness"] for r in ans if "faithfulness" in r]
    faith_gen = [r["faithfulness"] for r in ans if "faithfulness" in r and not r["extractive"]]
    gen = [r for r in rows if not r["not_in_corpus"] and not r["extractive"]]
    metric = [r for r in ans if "metric_match" in r]
    # Retries (issue #12): of the answerable questions whose first attempt failed, those a
    # retry turned into a verified answer citing no other company; a must-refuse question a
    # retry answered is a regression.
    failed = [r for r in ans if r.get("first_failed")]
    converted = [r for r in failed if r.get("attempt", 1) > 1 and not r["not_in_corpus"] and not r["extractive"]
                 and r["citations"] and not r.get("cites_other_company")]
    return {
        "n_answerable": len(ans), "n_ooc": len(ooc),
        "quotes_exact_rate": rate(cites), "n_quotes": len(cites),
        "quotes_verbatim_rate": rate(verbatim), "n_quotes_verbatim_checked": len(verbatim),
        "refusal_rate_ooc": rate([r["not_in_corpus"] for r in ooc]),
        "false_refusal_rate": rate([r["not_in_corpus"] for r in ans]),
        "extractive_rate": rate([r["extractive"] for r in answered]),
        "correct_rate": rate([r["correct"] for r in ans]),
        "correct_rate_answered": rate([r["correct"] for r in ans_answered]),
        "correct_rate_generated": rate([r["correct"] for r in ans_answered if not r["extractive"]]),
        "correct_rate_extractive": rate([r["correct"] for r in ans if r["extractive"]]),
        "cited_right_page_rate": rate([r["cited_right_page"] for r in ans_answered]),
        "cites_other_company_rate": rate([r["cites_other_company"] for r in ans_answered
                                          if r.get("cites_other_company") is not None]),
        "n_metric": len(metric),
        # prose (issue #29): the labelled key facts the shown answer and quotes carry
        "n_prose": len(prose := [r for r in ans if r.get("key_facts_total")]),
        "key_facts_rate": (sum(r["key_facts_covered"] for r in prose) / sum(r["key_facts_total"] for r in prose))
        if prose else None,
        "prose_half_rate": rate([r["key_facts_covered"] * 2 >= r["key_facts_total"] for r in prose]),
        "prose_none_rate": rate([r["key_facts_covered"] == 0 for r in prose]),
        "metric_match_rate": rate([r["metric_match"] for r in metric]),
        "computed_rate": rate([bool(r.get("computed")) for r in metric]),
        "wrong_computed_rate": rate([bool(r.get("computed")) and not r["metric_match"] for r in metric]),
        "faithfulness_mean": sum(faith) / len(faith) if faith else None,
        "faithfulness_generated_mean": sum(faith_gen) / len(faith_gen) if faith_gen else None,
        "n_generated": len(gen),
        "first_attempt_failed": len(failed), "converted_by_retry": len(converted),
        "retry_conversion": rate([r in converted for r in failed]),
        "retry_regressions": sum(1 for r in ooc if r.get("first_failed") and r.get("attempt", 1) > 1
                                 and not r["not_in_corpus"]),
        "converted_how": dict(Counter(r.get("verified_by") or "?" for r in converted)),
        # the model's time on retries, per question whose first attempt failed (wall time of
        # every generation after the first)
        "retry_ms_mean": (sum(rm) / len(rm)) if (
            rm := [r["retry_ms"] for r in rows if r.get("first_failed") and r.get("retry_ms") is not None]) else None,
        "total_ms_mean": sum(r["total_ms"] for r in rows) / len(rows) if rows else None,
        "first_token_ms_mean": (sum(ft) / len(ft)) if (ft := [r["first_token_ms"] for r in rows if r["first_token_ms"] > 0]) else None,
        "new_prompt_tokens_mean": (sum(pt) / len(pt)) if (
            pt := [r["new_prompt_tokens"] for r in rows if r.get("new_prompt_tokens") is not None]) else None,
    }


def summarise_answers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``answer_rates`` of all rows, the same per category (``row["category"]``), and the rows."""
    cats = sorted({r["category"] for r in rows if r.get("category")})
    by_cat = {c: answer_rates([r for r in rows if r.get("category") == c]) for c in cats}
    shapes = sorted({r["shape"] for r in rows if r.get("shape")})
    by_shape = {s: answer_rates([r for r in rows if r.get("shape") == s]) for s in shapes}
    return answer_rates(rows) | {"by_category": by_cat, "by_shape": by_shape, "rows": rows}


# -- trust measures (per answer) ---------------------------------------------------------------


def cites_evidence_page(citations: Iterable[tuple[str, int]], doc: str | None, pages: Iterable[int]) -> bool:
    """Any citation (file name, 1-based page) on the labelled document and one of its pages."""
    want = {(doc, p) for p in pages}
    return doc is not None and any((d, p) in want for d, p in citations)


_COMPANY_SUFFIXES = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "ltd", "limited", "plc", "llc",
    "lp", "sa", "nv", "ag", "se", "the", "holdings", "holding", "group",
})


def company_keys(company: str, ticker: str = "") -> set[str]:
    """Identity keys of a filer from its document metadata: the upper-case ticker and the
    company name folded (case, punctuation, '&', legal-form words like Inc./Corp. dropped)."""
    keys = set()
    if ticker.strip():
        keys.add("$" + ticker.strip().upper())
    words = re.sub(r"[^a-z0-9 ]+", " ", company.casefold().replace("&", " and ")).split()
    words = [w for w in words if w not in _COMPANY_SUFFIXES]
    if words:
        keys.add(" ".join(words))
    return keys


def same_company(a: set[str], b: set[str]) -> bool | None:
    """True when two filers share a key, or one folded name is a leading word sequence of the
    other ("adobe" / "adobe systems"); None when either side has no metadata to compare."""
    if not a or not b:
        return None
    if a & b:
        return True
    names_a = [k for k in a if not k.startswith("$")]
    names_b = [k for k in b if not k.startswith("$")]
    for x in names_a:
        for y in names_b:
            short, long = sorted((x.split(), y.split()), key=len)
            if long[: len(short)] == short:
                return True
    return False


def cites_other_company(cited: Iterable[set[str]], labelled: set[str]) -> bool:
    """Any citation from a document whose filer differs from the labelled document's
    (unknown identities are not counted as different)."""
    return any(same_company(keys, labelled) is False for keys in cited)


def quote_verbatim(quote: str, raw_page_text: str) -> bool:
    """The quote is the page's own characters: a substring of the page's raw (unfolded)
    text, white space runs aside. Curly apostrophes, dashes and glyphs must be kept."""
    q = " ".join(quote.split())
    return bool(q) and q in " ".join(raw_page_text.split())


def _decimals_of(num: str) -> int:
    return len(num.split(".")[1]) if "." in num else 0


def metric_match(answer: str, value: float, unit: str = "", decimals: int | None = None) -> bool:
    """A figure of the answer equals the labelled metric within the asked rounding.

    ``value`` is in ``unit`` ("percent" means 24.3 for 24.3 %, "usd_millions" means millions);
    ``decimals`` is the rounding asked (None: the answer's own precision, at least 2
    significant digits). A percentage may be written with "%" or as a fraction (0.243);
    amounts in USD may carry a unit word (billion...).
    """
    tol_asked = 0.5 * 10 ** (-decimals) if decimals is not None else None
    for n in parse_numbers(answer, drop_dates=True):
        cands: list[tuple[float, float]] = []
        if unit == "percent":
            cands.append((n.raw, n.raw_half_ulp))
            if not n.percent:  # "0.243" for 24.3 %
                cands.append((n.raw * 100, n.raw_half_ulp * 100))
        elif unit.startswith("usd_"):
            scale = {"usd_thousands": 1e3, "usd_millions": 1e6, "usd_billions": 1e9, "usd": 1.0}.get(unit, 1.0)
            if n.value != n.raw:  # a unit word was given: compare in dollars
                cands.append((n.value / scale, n.half_ulp / scale))
            else:
                cands.append((n.raw, n.raw_half_ulp))
        else:
            if n.percent and unit not in ("", "ratio", "times"):
                continue
            cands.append((n.raw, n.raw_half_ulp))
        for v, hu in cands:
            tol = tol_asked if tol_asked is not None else max(hu, 0.005 * abs(value))
            if abs(abs(v) - abs(value)) <= tol + 1e-9 * max(1.0, abs(value)):
                return True
    return False


# -- statement cells ---------------------------------------------------------------------------



def normalise_label(label: str) -> str:
    """A row label folded for matching: case, footnote marks "(1)", punctuation, dot leaders,
    '&' = 'and', white space."""
    s = label.casefold().replace("&", " and ").replace("\u2019", "'")
    s = re.sub(r"\(\s*\d{1,2}\s*\)|\(\s*[a-z]\s*\)", " ", s)  # footnote marks
    s = re.sub(r"[^a-z0-9]+", " ", s)
    return " ".join(s.split())


def _cell_value(value: float | None, scale: str) -> float | None:
    return None if value is None else float(value) * SCALE_FACTORS.get(scale or "", 1.0)


def _values_equal(want: float | None, got: float | None) -> bool:
    if want is None:  # a dash: nothing, or zero
        return got is None or got == 0.0
    if got is None:
        return False
    return abs(want - got) <= max(1e-6 * abs(want), 1e-9)


def flatten_statements(doc: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Cells of a ``main.py statements DOC --json`` payload as flat records (``raw``: the
    value as given; ``value``: with the statement's scale applied, except for per-share and
    share-count rows, whose ``unit`` says they are not in the statement's scale)."""
    out = []
    for st in payload.get("statements", []):
        scale = st.get("scale") or ""
        for row in st.get("rows", []):
            row_scale = "units" if row.get("unit") in ("per_share", "shares", "percent", "ratio") else scale
            for c in row.get("cells", []):
                out.append({"doc": doc, "page": c.get("page") or row.get("page") or st.get("page"),
                            "label": normalise_label(row.get("label", "")),
                            "parent": normalise_label(row.get("parent", "") or ""),
                            "period_end": c.get("period_end"), "months": c.get("months"),
                            "raw": c.get("value"), "value": _cell_value(c.get("value"), row_scale),
                            "scale": scale, "unit": row.get("unit") or "",
                            "text": c.get("text"), "statement": st.get("kind"),
                            "column": normalise_label(c.get("column") or "")})
    return out


def _scale_agrees(label_scale: str, cell: dict[str, Any]) -> bool:
    unit = cell.get("unit") or ""
    if unit == "shares":
        return True
    if unit == "per_share":
        return label_scale in ("units", "")
    return (cell.get("scale") or "") == (label_scale or "")


def score_statement_cells(labels: list[dict[str, Any]], extracted: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Match each labelled cell (doc, page, label, period_end, months) to an extracted cell
    (``flatten_statements`` records per doc; label folded, else a leading-words match) and
    compare values (as printed, or scaled on both sides).
    A label printed twice on one page (e.g. "Other" under two headings) is told apart by its
    parent heading; the cells of an equity statement laid out by component columns by the
    label's ``column`` ("Retained Earnings"). Returns rates over all labelled cells and the misses."""
    rows = []
    for lab in labels:
        label = normalise_label(lab["label"])
        same_cell = [c for c in extracted.get(lab["doc"], [])
                     if c["page"] == lab["page"] and c["period_end"] == lab["period_end"]
                     and int(c["months"] or 0) == int(lab["months"] or 0)]
        cands = [c for c in same_cell if c["label"] == label]
        if not cands:  # a label cut or continued differently ("Total current assets" / "Total current")
            cands = [c for c in same_cell if c["label"] and label and (c["label"].startswith(label)
                                                                       or label.startswith(c["label"]))]
        if any(c.get("column") for c in cands):  # an equity statement by component columns
            column = normalise_label(lab.get("column") or "")
            cands = [c for c in cands if c.get("column") == column]
        if len(cands) > 1 and lab.get("parent"):
            parent = normalise_label(lab["parent"])
            cands = [c for c in cands if c["parent"] == parent] or cands
        want = _cell_value(lab.get("value"), lab.get("scale", ""))
        found = bool(cands)
        # right: the same amount once scaled, or the value as printed with the right scale
        # (per-share rows are in units, share counts in whatever scale the label gives)
        right = found and (_values_equal(want, cands[0]["value"]) or (
            _values_equal(lab.get("value"), cands[0].get("raw", cands[0]["value"]))
            and _scale_agrees(lab.get("scale", ""), cands[0])))
        rows.append({"doc": lab["doc"], "page": lab["page"], "label": lab["label"], "period_end": lab["period_end"],
                     "months": lab["months"], "want": lab.get("text"), "found": found, "right": right,
                     "got": cands[0]["text"] if cands else None, "statement": lab.get("statement")})
    n = len(rows)
    by_statement: dict[str, dict[str, float]] = {}
    for kind in sorted({r["statement"] or "" for r in rows}):
        sub = [r for r in rows if (r["statement"] or "") == kind]
        by_statement[kind] = {"n": len(sub), "found": sum(r["found"] for r in sub) / len(sub),
                              "exact_right": sum(r["right"] for r in sub) / len(sub)}
    return {"n": n, "found_rate": sum(r["found"] for r in rows) / n if n else None,
            "exact_right_rate": sum(r["right"] for r in rows) / n if n else None,
            "by_statement": by_statement, "misses": [r for r in rows if not r["right"]]}
