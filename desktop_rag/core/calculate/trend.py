"""Trend and yes/no questions over a statement metric or line item, read from the question.

"Does X have an improving operating margin as of FY2022?", "Has X increased its debt between
FY2023 and FY2022?", "Does X have positive working capital based on FY2022 data?", "How much
has X's effective tax rate changed between FY2021 and FY2022?": the answer is the metric
computed for each period from the statements (answer.Calculator), with a direct verdict.
This module only reads what is asked and words the verdict; the figures come from the cells.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

TrendKind = Literal["direction", "sign", "change"]

# A yes/no question: the sentence opens with an auxiliary ("Does Adobe have ...", "Has the
# margin improved ...", "As of FY2022, is ..."), not "What is ..." or "How much has ...".
_YES_NO = re.compile(r"(?:^|[.?!]\s+|,\s+)(?:does|did|do|has|have|had|is|was|were|are)\s+(?!there\b)", re.I)
_UP = re.compile(r"\b(?:increas(?:e|es|ed|ing)|gr(?:ow|ew|own|owing|ows)|ris(?:e|en|es|ing)|rose|higher|expand(?:ed|ing|s)?|"
                 r"(?:go|goes|going|went|gone)\s+up)\b", re.I)
_DOWN = re.compile(r"\b(?:decreas(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|f(?:all|ell|allen|alling|alls)|drop(?:ped|ping|s)?|"
                   r"lower|shr(?:ink|ank|unk|inking)|contract(?:ed|ing)|reduc(?:e|ed|es|ing)|(?:go|goes|going|went|gone)\s+down)\b",
                   re.I)
# both directions asked ("did the tax rate go up or down", "increase or decrease"): the answer is which
_EITHER_WAY = re.compile(r"\b(?:go(?:ne)?|went|moved?)\s+up\s+or\s+down\b|\b(?:increas\w*|ris\w*|rose|gr[eo]w\w*)\s+or\s+"
                         r"(?:decreas\w*|declin\w*|f[ae]ll\w*|drop\w*|shr\w*)\b", re.I)
_BETTER = re.compile(r"\bimprov(?:e|es|ed|ing|ement)\b|\bstrengthen(?:ed|ing|s)?\b", re.I)
_WORSE = re.compile(r"\b(?:deteriorat(?:e|es|ed|ing|ion)|worsen(?:ed|ing|s)?|weaken(?:ed|ing|s)?)\b", re.I)
_SIGN = re.compile(r"\b(positive|negative)\b", re.I)
_CHANGED = re.compile(r"\bchang(?:e|es|ed|ing)\b", re.I)
# "How much has X changed", "By how much did X change", "What is the change in X between ...":
# the difference between two periods, asked without a direction
# "How did X change from fiscal 2021 to fiscal 2022?", "X's change between 2021 and 2022"
_HOW_MUCH_CHANGE = re.compile(r"\b(?:how much|by how much|by what amount)\b[^?.]*\bchang(?:e|ed)\b|"
                              r"\bwhat (?:is|was|were) the (?:change|difference) in\b|"
                              r"\bhow\s+(?:did|has|have|does|do)\b[^?.]*\bchange[sd]?\b|"
                              r"\bchang(?:e|es|ed)\s+(?:from|between)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?'?\d{2,4}\b", re.I)
# a growth rate asked ("By what percentage did revenue grow YoY"): the growth answer, not a trend
_GROWTH_ASKED = re.compile(r"\b(?:by\s+what\s+(?:percent(?:age)?|%)|growth|grow|grew|grown|cagr)\b", re.I)
# "If operating margin is not a useful metric for a company like this, then state that and
# explain why": an instruction for the case where the metric does not fit, not the question
_CONDITIONAL_ASIDE = re.compile(
    r"(?:^|(?<=[.?!]))\s*if\b[^.?!]*\b(?:not|isn't|n't)\b[^.?!]*\b(?:useful|relevant|meaningful|applicable|appropriate|"
    r"suitable|helpful)\b[^.?!]*(?:[.?!]|$)", re.I)


# Not a question about the statements' figures: a forecast ("is revenue expected to grow"), a
# cause ("did the increase come from pricing"), a part of the company ("segment margin").
_NOT_A_TREND = re.compile(
    r"\b(?:expect\w*|guidance|outlook|forecast\w*|anticipat\w*|project(?:ed|s|ion)|plan(?:s|ned)?|will|going to|"
    r"due to|because|result(?:ed|s)? (?:from|in)|driven|caused?|attributable|thanks to|owing to|c[oa]me from|led to|"
    r"contribut\w*|segments?|divisions?|regions?|geograph\w*)\b"
    # a sign that qualifies something else ("a negative impact on revenue", "positively affected")
    r"|\b(?:positive|negative)(?:ly\b|\s+(?:\w+\s+)?(?:impacts?|effects?|influence|contributions?|outlook|views?|news|"
    r"sentiment|feedback)\b)"
    # a comparison with a threshold or another thing, not with an earlier period ("higher than 80%",
    # "above its peers"); "than last year", "than in FY2021" are the earlier period
    r"|\b(?:than|above|below|exceed(?:s|ed|ing)?|at least|at most)\b(?!\s+(?:(?:in|during|for|at)\s+)?(?:the\s+)?"
    r"(?:last|prior|previous|preceding|a)\s+(?:fiscal\s+)?(?:year|quarter|period)|\s+(?:(?:in|during|for|at)\s+)?"
    r"(?:fy|fiscal\s+(?:year\s+)?)?\s*'?\d{2,4}\b(?!\s*%))", re.I)


@dataclass(frozen=True)
class TrendAsk:
    """What a trend question asks: ``direction`` (did it go up / down / get better / worse;
    ``want`` "up" | "down" | "better" | "worse"), ``sign`` (is it positive / negative; ``want``
    "positive" | "negative"; ``against_prior`` when it also asks how that compares with the
    period before), or ``change`` (by how much, ``yes_no`` when asked "has it changed")."""

    kind: TrendKind
    want: str = ""
    yes_no: bool = False
    against_prior: bool = False


# "..., and how does it compare with the prior year?", "versus the previous quarter"
_AGAINST_PRIOR = re.compile(
    r"\b(?:compare[sd]?|comparison|versus|vs\.?|against|change[sd]?|from)\b[^?.;]{0,40}?"
    r"\b(?:the\s+)?(?:prior|previous|preceding|last)\s+(?:fiscal\s+)?(?:year|quarter|period|year[- ]end)\b"
    # "how did they compare with a year earlier", "versus the same quarter a year ago"
    r"|\b(?:compare[sd]?|comparison|versus|vs\.?|against)\b[^?.;]{0,40}?\b(?:(?:the\s+same\s+)?(?:quarter|period)\s+)?"
    r"(?:a\s+year\s+(?:earlier|ago|before)|the\s+year\s+before|(?:a|one)\s+quarter\s+(?:earlier|ago|before)|last\s+year)\b"
    # "Compare X's operating income in fiscal 2022 with fiscal 2021": the other period after the measure
    r"|^\s*compare\b[^?.;]{0,80}?\b(?:with|to|against|versus|vs\.?)\s+(?:(?:the\s+)?(?:fiscal\s+)?(?:year\s+)?|fy\s*|q[1-4]\s+)"
    r"'?(?:19|20)?\d\d\b"
    r"|\byear[- ]over[- ]year\b|\byoy\b"
    # "..., and did the deficit get bigger or smaller versus 2021?": the earlier year named
    r"|\b(?:compared?\s+(?:with|to)|versus|vs\.?|against|than)\s+(?:(?:the\s+)?end\s+of\s+|year[- ]end\s+|"
    # "how does it compare with December 31, 2019?", "compared with year-end 2019"
    r"(?:(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{1,2},?\s+))?"
    r"(?:fiscal\s+|fy\s*)?(?:19|20)\d\d\b|\b(?:get|got|grow|grew)\s+(?:bigger|larger|smaller|wider|narrower)\b", re.I)


def without_conditional_asides(question: str) -> str:
    """The question without "If <metric> is not useful for this company, explain why" asides."""
    return " ".join(_CONDITIONAL_ASIDE.sub(" ", question).split())


def asks_either_way(question: str) -> bool:
    """"Did it go up or down?": which way is asked, both directions named."""
    return bool(_EITHER_WAY.search(question))


def trend_asked(question: str) -> TrendAsk | None:
    """The trend a question asks about, or None when it asks none."""
    q = without_conditional_asides(question)
    if _NOT_A_TREND.search(q):
        return None
    if asks_either_way(q):
        return TrendAsk("change")  # "did it go up or down": which way, stated, no yes or no
    yes_no = bool(_YES_NO.search(q))
    if yes_no:
        sign = _SIGN.search(q)
        if sign:
            return TrendAsk("sign", sign.group(1).lower(), True, bool(_AGAINST_PRIOR.search(q)))
        for want, rx in (("better", _BETTER), ("worse", _WORSE), ("up", _UP), ("down", _DOWN)):
            if rx.search(q):
                return TrendAsk("direction", want, True)
        if _CHANGED.search(q):
            return TrendAsk("change", "", True)
        return None
    if _HOW_MUCH_CHANGE.search(q):
        return TrendAsk("change")
    if _AGAINST_PRIOR.search(q) and not _GROWTH_ASKED.search(q):
        # "What was the gross margin in FY2021, and how much did it compress vs FY2020?": the
        # figure of both periods and which way it moved, no yes or no
        return TrendAsk("direction", "", False, True)
    return None


# The direction in which a metric or line item is better for the company (by its name in
# metrics.METRICS or concepts.CONCEPTS). Not listed (tax rate, payout, debt, capex, days
# payable): "improving" has no one reading, and the answer states the direction only.
HIGHER_IS_BETTER = frozenset({
    "gross_margin", "operating_margin", "net_margin", "ebitda_margin", "ebitda", "fcf", "fcf_conversion",
    "working_capital", "current_ratio", "quick_ratio", "cash_ratio", "ocf_ratio", "fixed_asset_turnover",
    "asset_turnover", "inventory_turnover", "roa", "roe", "interest_coverage",
    "revenue", "gross_profit", "operating_income", "net_income", "pretax_income", "cfo", "eps_diluted", "eps_basic",
    "net_interest_income", "equity"})
LOWER_IS_BETTER = frozenset({"ccc", "dso", "dio", "efficiency_ratio", "cogs", "noninterest_expense"})


def moved(delta: float) -> str:
    return "rose" if delta > 0 else "fell" if delta < 0 else "was unchanged"


def verdict(ask: TrendAsk, name: str, delta: float, later: float) -> str | None:
    """"Yes" / "No" for a yes/no question, or None when the figures cannot say (an
    "improving" asked of a measure with no better direction)."""
    if not ask.yes_no:
        return None
    if ask.kind == "sign":
        return "Yes" if (later > 0) == (ask.want == "positive") and later != 0 else "No"
    if ask.kind == "change":
        return "Yes" if delta != 0 else "No"
    want = ask.want
    if want in ("better", "worse"):
        if name in HIGHER_IS_BETTER:
            want = "up" if ask.want == "better" else "down"
        elif name in LOWER_IS_BETTER:
            want = "down" if ask.want == "better" else "up"
        else:
            return None
    return "Yes" if (delta > 0 if want == "up" else delta < 0) else "No"
