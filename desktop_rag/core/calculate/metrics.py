"""Metric definitions: one table of formulas over concepts (see concepts.py).

An input is ``(variable, concept, when)`` with ``when``:
- ``cur``: the asked period's column;
- ``prev``: the same-length column one year earlier (from the same filing);
- ``avg``: the mean of ``cur`` and ``prev`` (balance-sheet averages), or ``cur`` alone when the
  question asks for year-end rather than average figures.
Outflows printed in parentheses (capex, dividends paid) enter as absolute amounts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.core.domain.periods import MONTH_RE

Inputs = dict[str, float]


@dataclass(frozen=True)
class Metric:
    name: str
    title: str
    triggers: tuple[str, ...]  # regex on the lower-cased question
    unit: str  # percent | ratio | times | days | currency
    formula: str  # shown to the analyst
    needs: tuple[tuple[str, str, str], ...]  # (variable, concept, cur|prev|avg)
    compute: Callable[[Inputs], float]
    absolute: tuple[str, ...] = ()  # variables taken as absolute amounts (outflows)


def _div(a: float, b: float) -> float:
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a / b


_M = Metric
METRICS: list[Metric] = [
    _M("ebitda_margin", "Unadjusted EBITDA margin", (r"ebitda\s*(%\s*)?margin",), "percent",
       "(operating income + depreciation and amortization) / revenue × 100",
       (("oi", "operating_income", "cur"), ("da", "da", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["oi"] + v["da"], v["rev"]) * 100),
    _M("ebitda", "Unadjusted EBITDA", (r"\bebitda\b",), "currency", "operating income + depreciation and amortization",
       (("oi", "operating_income", "cur"), ("da", "da", "cur")), lambda v: v["oi"] + v["da"]),
    _M("gross_margin", "Gross margin", (r"gross (profit )?margin",), "percent", "gross profit / revenue × 100",
       (("gp", "gross_profit", "cur"), ("rev", "revenue", "cur")), lambda v: _div(v["gp"], v["rev"]) * 100),
    _M("operating_margin", "Operating margin", (r"operating (income |profit )?(%\s*)?margin",), "percent",
       "operating income / revenue × 100", (("oi", "operating_income", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["oi"], v["rev"]) * 100),
    _M("net_margin", "Net profit margin", (r"net (profit |income )?margin", r"profit margin"), "percent",
       "net income / revenue × 100", (("ni", "net_income", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["ni"], v["rev"]) * 100),
    # A bank's cost of earning its revenue (it has no cost of sales): lower is leaner.
    _M("efficiency_ratio", "Efficiency ratio", (r"efficiency ratio", r"overhead ratio", r"cost[- ]to[- ]income ratio"), "percent",
       "noninterest expense / total net revenue × 100", (("nie", "noninterest_expense", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["nie"], v["rev"]) * 100),
    _M("capex_pct_revenue", "Capital expenditure as % of revenue",
       (r"(capex|capital expenditures?|additions to property|purchases? of property|payments for property).{0,60}"
        r"(percent|%|as a share|proportion|ratio)",), "percent",
       "capital expenditures / revenue × 100", (("capex", "capex", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["capex"], v["rev"]) * 100, ("capex",)),
    _M("da_pct_revenue", "Depreciation and amortization as % of revenue",
       (r"(depreciation and amortization|d&a).{0,40}(%|percent)",), "percent",
       "depreciation and amortization / revenue × 100", (("da", "da", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["da"], v["rev"]) * 100),
    # how much of each dollar of revenue is left as free cash
    _M("fcf_margin", "Free cash flow margin", (r"(free cash ?flows?|\bfcf) margin",), "percent",
       "(cash from operations − capital expenditures) / revenue × 100",
       (("cfo", "cfo", "cur"), ("capex", "capex", "cur"), ("rev", "revenue", "cur")),
       lambda v: _div(v["cfo"] - v["capex"], v["rev"]) * 100, ("capex",)),
    # how much of the year's earnings came in as free cash (net income the usual base)
    _M("fcf_conversion", "Free cash flow conversion", (r"(free cash ?flows?|\bfcf) conversion",), "percent",
       "(cash from operations − capital expenditures) / net income × 100",
       (("cfo", "cfo", "cur"), ("capex", "capex", "cur"), ("ni", "net_income", "cur")),
       lambda v: _div(v["cfo"] - v["capex"], v["ni"]) * 100, ("capex",)),
    _M("fcf", "Free cash flow", (r"free cash ?flow",), "currency", "cash from operations − capital expenditures",
       (("cfo", "cfo", "cur"), ("capex", "capex", "cur")), lambda v: v["cfo"] - v["capex"], ("capex",)),
    # every debt line of the balance sheet (answer.Calculator sums them, each cited)
    _M("total_debt", "Total debt",
       (r"\btotal debt\b(?!\s*(?:to|/|-to-|ratio))", r"\bdebt (?:on|in) (?:the |its |their )?balance sheets?\b",
        r"(?:\b(?:its|their|the company's)|\w(?:'s|s')) (?:total )?debt\b(?!\s*(?:securities|investments?|to\b|/|-to-|ratios?|covenants?|"
        r"ratings?|maturit\w*|issu\w*|instruments?|offerings?|costs?|interest|repay\w*|refinanc\w*|holders?|markets?))",
        r"\bhow much debt\b", r"\bdebt (?:levels?|loads?|balances?|outstanding)\b", r"\boutstanding debt\b",
        # debt by its other name ("Has Oracle's borrowing increased?"), not the terms of borrowing
        r"\btotal borrowings\b", r"(?:\b(?:its|their|the company's)|\w(?:'s|s')) (?:total )?borrowings?\b(?!\s*(?:rates?|"
        r"costs?|capacity|base|availability|under|facilit\w*|agreements?|arrangements?|limits?))"), "currency",
       "short-term borrowings + current portion of long-term debt + long-term debt (the balance sheet's debt lines)",
       (("debt", "debt", "cur"),), lambda v: v["debt"]),
    _M("debt_to_equity", "Debt-to-equity ratio", (r"debt[- /]+to[- /]+(?:total\s+)?(?:shareholders'? |stockholders'? )?equity",
                                                   r"\bd/e\b", r"debt\s*/\s*equity",
                                                   r"ratio of (?:total )?debt to (?:total )?(?:shareholders'? |stockholders'? )?equity"),
       "ratio",
       "total debt / total shareholders' equity", (("debt", "debt", "cur"), ("eq", "equity", "cur")),
       lambda v: _div(v["debt"], v["eq"])),
    _M("ppe_pct_assets", "PP&E, net as % of total assets",
       (r"(?:pp&e|property(?:, plant)? and equipment|fixed assets).{0,40}(?:of|to|relative to|as a share of|over) "
        r"(?:the )?total assets",), "percent",
       "property, plant and equipment, net / total assets × 100", (("ppe", "ppe_net", "cur"), ("ta", "total_assets", "cur")),
       lambda v: _div(v["ppe"], v["ta"]) * 100),
    _M("working_capital", "Net working capital", (r"working capital",), "currency",
       "total current assets − total current liabilities",
       (("ca", "current_assets", "cur"), ("cl", "current_liabilities", "cur")), lambda v: v["ca"] - v["cl"]),
    _M("current_ratio", "Current ratio", (r"current ratio",), "ratio", "total current assets / total current liabilities",
       (("ca", "current_assets", "cur"), ("cl", "current_liabilities", "cur")), lambda v: _div(v["ca"], v["cl"])),
    _M("quick_ratio", "Quick ratio", (r"quick ratio", r"acid[- ]test"), "ratio",
       "(cash and equivalents + short-term investments + receivables) / total current liabilities",
       (("cash", "cash", "cur"), ("sti", "short_term_investments", "cur"), ("ar", "receivables", "cur"),
        ("cl", "current_liabilities", "cur")), lambda v: _div(v["cash"] + v["sti"] + v["ar"], v["cl"])),
    _M("cash_ratio", "Cash ratio", (r"cash ratio",), "ratio",
       "(cash and equivalents + short-term investments) / total current liabilities",
       (("cash", "cash", "cur"), ("sti", "short_term_investments", "cur"), ("cl", "current_liabilities", "cur")),
       lambda v: _div(v["cash"] + v["sti"], v["cl"])),
    _M("ocf_ratio", "Operating cash flow ratio", (r"operating cash flow ratio", r"cash flow from operations ratio"), "ratio",
       "cash from operations / total current liabilities", (("cfo", "cfo", "cur"), ("cl", "current_liabilities", "cur")),
       lambda v: _div(v["cfo"], v["cl"])),
    _M("fixed_asset_turnover", "Fixed asset turnover", (r"fixed[- ]asset turnover", r"pp&e turnover"), "times",
       "revenue / average PP&E, net", (("rev", "revenue", "cur"), ("ppe", "ppe_net", "avg")), lambda v: _div(v["rev"], v["ppe"])),
    _M("asset_turnover", "Total asset turnover", (r"asset turnover",), "times", "revenue / average total assets",
       (("rev", "revenue", "cur"), ("ta", "total_assets", "avg")), lambda v: _div(v["rev"], v["ta"])),
    _M("inventory_turnover", "Inventory turnover", (r"inventory turnover",), "times", "cost of sales / average inventories",
       (("cogs", "cogs", "cur"), ("inv", "inventory", "avg")), lambda v: _div(v["cogs"], v["inv"])),
    _M("ccc", "Cash conversion cycle", (r"cash conversion cycle", r"\bccc\b"), "days", "DSO + DIO − DPO",
       (("ar", "receivables", "avg"), ("rev", "revenue", "cur"), ("inv", "inventory", "avg"), ("cogs", "cogs", "cur"),
        ("ap", "payables", "avg")),
       lambda v: 365 * _div(v["ar"], v["rev"]) + 365 * _div(v["inv"], v["cogs"]) - 365 * _div(v["ap"], v["cogs"])),
    _M("dso", "Days sales outstanding", (r"days sales outstanding", r"\bdso\b", r"days receivables?"), "days",
       "365 × average receivables / revenue", (("ar", "receivables", "avg"), ("rev", "revenue", "cur")),
       lambda v: 365 * _div(v["ar"], v["rev"])),
    _M("dio", "Days inventory outstanding", (r"days inventory", r"\bdio\b", r"days sales (of|in) inventory"), "days",
       "365 × average inventories / cost of sales", (("inv", "inventory", "avg"), ("cogs", "cogs", "cur")),
       lambda v: 365 * _div(v["inv"], v["cogs"])),
    _M("dpo_inv", "Days payable outstanding", (r"(days payables? outstanding|\bdpo\b).*change in inventor",), "days",
       "365 × average accounts payable / (cost of sales + change in inventories)",
       (("ap", "payables", "avg"), ("cogs", "cogs", "cur"), ("inv", "inventory", "cur"), ("inv_prev", "inventory", "prev")),
       lambda v: 365 * _div(v["ap"], v["cogs"] + v["inv"] - v["inv_prev"])),
    _M("dpo", "Days payable outstanding", (r"days payables? outstanding", r"\bdpo\b"), "days",
       "365 × average accounts payable / cost of sales", (("ap", "payables", "avg"), ("cogs", "cogs", "cur")),
       lambda v: 365 * _div(v["ap"], v["cogs"])),
    _M("roa", "Return on assets", (r"return on (average )?assets", r"\broa\b"), "percent", "net income / average total assets × 100",
       (("ni", "net_income", "cur"), ("ta", "total_assets", "avg")), lambda v: _div(v["ni"], v["ta"]) * 100),
    _M("roe", "Return on equity", (r"return on (average )?(\w+ )?(stockholders'? |shareholders'? )?equity", r"\broe\b"), "percent",
       "net income / average shareholders' equity × 100", (("ni", "net_income", "cur"), ("eq", "equity", "avg")),
       lambda v: _div(v["ni"], v["eq"]) * 100),
    _M("effective_tax_rate", "Effective tax rate", (r"effective (income )?tax rate",), "percent",
       "income tax expense / income before income taxes × 100",
       (("tax", "income_tax", "cur"), ("pti", "pretax_income", "cur")), lambda v: _div(v["tax"], v["pti"]) * 100),
    _M("payout", "Dividend payout ratio", (r"(dividend )?payout ratio", r"pa(y|id) out as (cash )?dividends",
                                           r"share of .* (paid|pay) out"), "percent",
       "dividends paid / net income × 100", (("div", "dividends_paid", "cur"), ("ni", "net_income", "cur")),
       lambda v: _div(v["div"], v["ni"]) * 100, ("div",)),
    _M("interest_coverage", "Interest coverage", (r"interest coverage", r"times .*cover(ed)? .*interest",
                                                   r"cover(ed)? its interest"), "times",
       "operating income / interest expense", (("oi", "operating_income", "cur"), ("int", "interest_expense", "cur")),
       lambda v: _div(v["oi"], v["int"]), ("int",)),
]


METRIC_NAMED = {m.name: m for m in METRICS}


@dataclass(frozen=True)
class Judgement:
    """A yes/no an analyst answers with usual measures and thresholds: "Is X capital-intensive?"
    is "capex of 10 % of revenue or more, or PP&E, net of 30 % of total assets or more". The
    answer states each measure, its threshold and the verdict, every input cited."""

    name: str
    adjective: str  # "capital-intensive"
    triggers: tuple[str, ...]  # regex on the lower-cased question
    tests: tuple[tuple[str, str, float], ...]  # (metric name, ">=" | "<=", threshold)
    rule: str  # "any": one test met suffices; "all": every test must be met


JUDGEMENTS: list[Judgement] = [
    Judgement("capital_intensive", "capital-intensive", (r"capital[- ]intensive|capital intensity",),
              (("capex_pct_revenue", ">=", 10.0), ("ppe_pct_assets", ">=", 30.0)), "any"),
    Judgement("liquid", "liquid enough to cover its current liabilities",
              (r"\b(?:is|are|was|were)\b[^?]{0,60}\bliquid\b",
               r"\bliquidity\b[^?]{0,40}\b(?:healthy|strong|good|adequate|sufficient|solid|sound)\b",
               r"\b(?:healthy|strong|good|adequate|sufficient|solid|sound)\b[^?]{0,20}\bliquidity\b"),
              (("current_ratio", ">=", 1.0), ("quick_ratio", ">=", 1.0)), "all"),
]


def _names(trigger: str, text: str) -> bool:
    """Does ``text`` name what ``trigger`` matches? A word the trigger's groups name must begin
    a word of the text: "ratio" inside "Corporation" would read "capital expenditures), PG&E
    Corporation" as capex as a ratio of something ("percent" of "percentage" begins its word)."""
    def begins_words(m: re.Match[str]) -> bool:
        return all(m.start(g) <= 0 or not (text[m.start(g)].isalnum() and text[m.start(g) - 1].isalnum())
                   for g in range(1, (m.re.groups or 0) + 1))
    return any(begins_words(m) for m in re.finditer(trigger, text))


def judgement_in(question: str) -> Judgement | None:
    q = question.lower().replace("\u2019", "'")
    return next((j for j in JUDGEMENTS if any(_names(t, q) for t in j.triggers)), None)


def metric_in(question: str) -> Metric | None:
    """The standard metric the question names; a name with its other name in parentheses
    ("efficiency (overhead) ratio") is read as either ("efficiency ratio", "overhead ratio")."""
    q = question.lower().replace("\u2019", "'")
    readings = [q]
    for aside in _NAME_ASIDE.finditer(q):
        readings += [q[:aside.start()] + aside.group(1) + q[aside.end():], q[:aside.start(1)] + aside.group(2) + q[aside.end():]]
    for m in METRICS:
        if any(_names(t, text) for text in readings for t in m.triggers):
            return m
    return None


# "efficiency (overhead) ratio", "return on (average) assets": a word in parentheses inside a
# metric's name, the name's other form; ``group(1)`` the word before it, ``group(2)`` the aside
_NAME_ASIDE = re.compile(r"([a-z&-]+)\s+\(([a-z&\s-]{2,30})\)(?=\s+[a-z])")


# -- a definition written in the question ---------------------------------------------------------
# "ROA is defined as: FY2017 net income / (average total assets between FY2016 and FY2017)",
# "unadjusted EBITDA = operating income plus depreciation and amortization from the cash flow
# statement": operands are statement concepts (named as concepts.named_in reads them, covering
# most of the operand's words) or plain numbers, joined by + − × / and parentheses. Anything
# else makes the definition unclear: the caller then uses the standard formula and says so.
_OPERATORS = [(r"\bdivided by\b|\bover\b|/|÷", "/"), (r"\bplus\b|\+", "+"), (r"\bminus\b|\bless\b|(?<=\s)[-\u2212\u2013](?=\s)", "-"),
              # "cost of products sold x 365": a lone x between spaces multiplies
              (r"\btimes\b|\bmultiplied by\b|\*|×|(?<=\s)[xX](?=\s)", "*")]
_SYMBOL = {"divided by": "/", "over": "/", "/": "/", "÷": "/", "plus": "+", "+": "+", "minus": "-", "less": "-",
           "times": "*", "multiplied by": "*", "*": "*", "×": "*", "x": "*"}  # anything else matched is a dash: "-"
_DROP = re.compile(
    r"\b(?:fy|fiscal\s+(?:year\s+)?)?(?:19|20)\d\d\b|\bbetween\s+and\b|\bfrom the (?:cash flows? statement|income statement|"
    r"balance sheet|statement of cash flows|statement of income|statement of operations)\b|\bunadjusted\b|\breported\b|"
    r"\bconsolidated\b|\bthe\b|\bfor the (?:year|period)\b|\(not the average\)|\bnot the average\b", re.I)
# Words a printed label is made of: 2 to 12 words of letters, commas and hyphens, no figures.
_LABEL_LIKE = re.compile(r"[A-Za-z][A-Za-z&'\-]*(?:,?\s+[A-Za-z&'\-]+){1,11}")
# what follows a formula: how to round or show it ("; give the answer in percent rounded to two decimals")
_ROUNDING_TAIL = re.compile(r",?\s*(?:and\s+)?round(?:ed|ing)?\b.*$|,?\s*(?:expressed|shown|given)\s+(?:as|in)\b.*$|"
                            r"\s*;.*$|,?\s*(?:and\s+)?(?:give|express|show|state|report)\s+(?:the\s+|it\s+|your\s+)?"
                            r"(?:answer|result|figure|value|ratio|number)?\b.*$", re.I)


def _operand(text: str) -> tuple[str, str] | float | None:
    """(concept, when) or a number for one operand; None when it is not clearly one concept."""
    from desktop_rag.core.calculate.concepts import CONCEPTS, LABEL_PREFIX, named_in

    t = " ".join(_DROP.sub(" ", text).split()).strip(" ,")
    if re.fullmatch(r"\d+(?:\.\d+)?", t):
        return float(t)
    when = "cur"
    if re.match(r"(?:the\s+)?average\b", t, re.I):
        when, t = "avg", re.sub(r"^(?:the\s+)?average\s+(?:of\s+)?", "", t, flags=re.I)
    elif re.match(r"(?:the\s+)?change in\b", t, re.I):
        when, t = "chg", re.sub(r"^(?:the\s+)?change in\s+", "", t, flags=re.I)
    elif re.search(r"\byear[- ]end\b", t, re.I):
        t = re.sub(r"\byear[- ]end\b", "", t, flags=re.I).strip()
    t = re.sub(r"\s+between\b.*$", "", t, flags=re.I).strip()
    # the dates an operand is taken at ("total assets at May 31, 2023 and May 31, 2022")
    t = " ".join(_AT_DATES.sub(" ", t).split()).strip(" ,")
    if not t or re.search(r"\d", t):
        return None  # a figure inside an operand ("sold x 365" unread) would be dropped silently

    concepts = named_in(t)
    if not concepts:
        # an operand the concept table does not know may be a label the filing prints ("notes
        # payable, current"): read as those words, matched against the statements' rows
        return (LABEL_PREFIX + t, when) if _LABEL_LIKE.fullmatch(t) else None
    concept = concepts[0]
    low = t.lower().replace("\u2019", "'")
    covered = max([len(m.group(0)) for w in concept.words for m in re.finditer(w, low)]
                  + [len(m.group(0)) for p in concept.patterns if (m := re.search(p, low))], default=0)
    letters = len(re.sub(r"[^a-z&]", "", low))
    if letters == 0 or covered < 0.5 * len(low) or concept.name not in CONCEPTS:
        # most of the words are no concept's name ("notes payable, current" is no "payables"):
        # the words of a printed label, if they read as one
        return (LABEL_PREFIX + t, when) if _LABEL_LIKE.fullmatch(t) else None
    return concept.name, when


_AT_DATES = re.compile(rf"(?:\b(?:at|as\s+of|on|and)\s+)?\b{MONTH_RE}\.?\s+\d{{1,2}}\b,?(?:\s*(?:19|20)\d\d)?", re.I)
_FORMULA_SPLIT = re.compile(r"(\s[/+\u2212\-×]\s|[()])")


def substituted_inputs(standard: Metric, definitions: dict[str, str]) -> str | None:
    """The standard formula with each input the question defines written as the question
    defines it: "total debt / total shareholders' equity" with debt = "notes payable, current
    plus notes payable and other borrowings, non-current" and equity = "total equity" ->
    "(notes payable, current plus ...) / (total equity)". None when a definition names no
    input of the formula (it defines the metric itself, or a part of it)."""
    parts = _FORMULA_SPLIT.split(standard.formula)
    used = False
    for term, formula in definitions.items():
        words = set(re.findall(r"[a-z&]+", term.lower())) - {"the", "total", "a", "an"}
        if not words:
            return None
        hits = [i for i, part in enumerate(parts) if not _FORMULA_SPLIT.fullmatch(part)
                and words <= set(re.findall(r"[a-z&]+", part.lower()))]
        if len(hits) != 1:
            return None
        parts[hits[0]] = f"({_ROUNDING_TAIL.sub('', formula).strip(' .')})"
        used = True
    return "".join(parts) if used else None


def metric_from_definition(term: str, formula: str, standard: Metric | None, percent: bool = False) -> Metric | None:
    """The question's own formula as a Metric, or None when it cannot be read clearly.
    ``percent``: the question asks the result as a percentage (a quotient of no standard
    metric is then times 100)."""
    text = _ROUNDING_TAIL.sub("", formula).strip(" .")
    # "A minus B, divided by C": the comma closes the difference that is divided, as written
    # ((A - B) / C, never A - B / C)
    parted = re.match(r"^(?P<head>[^,()]+?)\s*,\s*(?P<op>divided\s+by|over|/|÷)\s+(?P<tail>.+)$", text, re.I)
    if parted and re.search(r"\b(?:plus|minus|less)\b|\s[-+\u2212]\s", parted.group("head"), re.I):
        text = f"({parted.group('head')}) {parted.group('op')} {parted.group('tail')}"
    # an aside in parentheses without an operator ("(from the cash flow statement)") is no group
    text = re.sub(r"\((?![^()]*(?:[+*/×÷]|\s[-\u2212]\s|\bplus\b|\bminus\b|\bless\b|\btimes\b|\bover\b|\bdivided\b))"
                  r"[^()]*[A-Za-z][^()]*\)",
                  lambda m: " " + m.group(0)[1:-1] + " ", text)
    tokens: list[str] = []
    pattern = "|".join(f"(?:{rx})" for rx, _ in _OPERATORS) + r"|\(|\)"
    pos = 0
    for m in re.finditer(pattern, text, re.I):
        tokens.append(text[pos:m.start()])
        op = m.group(0)
        tokens.append(op if op in "()" else _SYMBOL.get(" ".join(op.lower().split()), "-"))
        pos = m.end()
    tokens.append(text[pos:])
    expr: list[str] = []
    needs: list[tuple[str, str, str]] = []
    for tok in tokens:
        if tok in ("(", ")", "+", "-", "*", "/"):
            expr.append(tok)
            continue
        if not tok.strip():
            continue
        operand = _operand(tok)
        if operand is None:
            return None
        if isinstance(operand, float):
            expr.append(repr(operand))
            continue
        concept, when = operand
        var = f"v{len(needs)}"
        if when == "chg":
            needs += [(var, concept, "cur"), (var + "p", concept, "prev")]
            expr.append(f"({var} - {var}p)")
        else:
            needs.append((var, concept, when))
            expr.append(var)
    source = " ".join(expr)
    if not needs or not any(op in expr for op in ("+", "-", "*", "/")):
        return None
    try:
        tree = compile(source, "<definition>", "eval")
    except SyntaxError:
        return None
    names = set(tree.co_names)
    if not names <= {n for n, _, _ in needs}:
        return None
    unit = standard.unit if standard is not None else "percent" if percent and "/" in expr else "ratio"
    scaled = unit == "percent" and not re.search(r"[*×]\s*100\b|\b100\s*[*×]", text)

    def compute(v: Inputs) -> float:
        try:
            # the source was built above from v-names, numbers, + - * / and parentheses only
            value = float(eval(tree, {"__builtins__": {}}, dict(v)))
        except ZeroDivisionError as exc:
            raise ZeroDivisionError("division by zero") from exc
        return value * 100 if scaled else value

    from desktop_rag.core.calculate.concepts import concept_named

    title = standard.title if standard is not None else term.strip().capitalize()
    # an outflow printed in parentheses ("Purchases of property and equipment (184,936)") is the
    # amount the definition names: "cash from operations minus purchases" subtracts 184,936
    absolute = tuple(var for var, concept, _ in needs if concept_named(concept).outflow)
    written = " ".join(text.split())  # an aside's parentheses were taken out above
    return Metric("defined", title, (), unit, f"{written} (as defined in the question)", tuple(needs), compute, absolute)


# "the ratio of A to B", "A-to-B ratio", "A as a percentage of B", "A relative to B", "A divided by
# B": two line items set against each other, each a concept or a label the filing prints.
_RATIO_OF = re.compile(r"\bratio\s+(?:of|between)\s+(?P<a>.+?)\s+(?:to|and|versus|vs\.?)\s+(?P<b>.+?)\s*(?=$|[?;]|\s(?:in|for|at|as\s+of|during|over)\s)",
                       re.I)
_PERCENT_OF = re.compile(r"\b(?:is|was|were|are|the|its|their)\s+(?P<a>[A-Za-z][\w ,&'/-]{2,80}?)\s+(?:as\s+a\s+(?P<pct>percent(?:age)?|share|proportion|fraction)\s+of|"
                         r"(?:relative|compared)\s+to|divided\s+by)\s+(?:the\s+|its\s+|their\s+)?(?P<b>.+?)\s*"
                         r"(?=$|[?;]|,\s|\s(?:in|for|at|as\s+of|during|over)\s)", re.I)


# "what share of total net revenue came from net interest income", "what percentage of revenue was
# R&D": the part after the verb, the whole after "of"
_SHARE_OF = re.compile(r"\bwhat\s+(?P<pct>percent(?:age)?|share|proportion|portion|fraction)\s+of\s+(?P<b>[^?;]+?)\s+"
                       r"(?:came|comes|come)\s+from\s+(?P<a>.+?)\s*(?=$|[?;]|,\s|\s(?:in|for|at|as\s+of|during|over)\s)",
                       re.I)


def ratio_asked(question: str) -> Metric | None:
    """The ratio of two line items a question asks for by the form of its words (no standard
    metric named), read as a definition over concepts or printed labels; None otherwise."""
    m = _RATIO_OF.search(question) or _PERCENT_OF.search(question) or _SHARE_OF.search(question)
    if m is None:
        return None
    # "Oracle's total cloud revenues": the possessor is the company the filters already chose
    a, b = (re.sub(r"^(?:the|its|their)\s+|^[\w.&-]+(?:'s|\u2019s|s')\s+", "", x.strip(" ,"), flags=re.I)
            for x in (m.group("a"), m.group("b")))
    percent = bool(m.groupdict().get("pct")) and m.group("pct").lower() != "fraction"
    formula = f"{a} / {b}" + (" × 100" if percent else "")
    standard = Metric("ratio", f"{a[0].upper()}{a[1:]} to {b}" if not percent else f"{a[0].upper()}{a[1:]} as % of {b}",
                      (), "percent" if percent else "ratio", formula, (), lambda v: 0.0)
    return metric_from_definition(standard.title, formula, standard)
