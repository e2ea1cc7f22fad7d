"""Reading what a trend or yes/no question asks, and the verdict its figures give."""

from __future__ import annotations

import pytest

from desktop_rag.core.calculate.trend import TrendAsk, trend_asked, verdict, without_conditional_asides


@pytest.mark.parametrize(("question", "ask"), [
    ("Does Adobe have an improving operating margin profile as of FY2022?", TrendAsk("direction", "better", True)),
    ("Has Microsoft increased its debt on balance sheet between FY2023 and the FY2022 period?",
     TrendAsk("direction", "up", True)),
    ("As of FY2021, did the company's gross margin decline?", TrendAsk("direction", "down", True)),
    ("Did eBay's total debt go up in 2017?", TrendAsk("direction", "up", True)),
    ("Does the tax rate go down in FY2019?", TrendAsk("direction", "down", True)),
    ("Is the current ratio deteriorating?", TrendAsk("direction", "worse", True)),
    ("Does Corning have positive working capital based on FY2022 data?", TrendAsk("sign", "positive", True)),
    ("Was free cash flow negative in 2020?", TrendAsk("sign", "negative", True)),
    ("How much has the effective tax rate changed between FY2021 and FY2022?", TrendAsk("change")),
    ("By how much did the operating margin change in 2022?", TrendAsk("change")),
    ("Has the effective tax rate changed since FY2021?", TrendAsk("change", "", True)),
    ("Was the gross margin higher in FY2022 than in FY2021?", TrendAsk("direction", "up", True)),
    ("Is net income lower than last year?", TrendAsk("direction", "down", True)),
    # a figure asked with its comparison to an earlier period: both figures and the way it moved
    ("What was the gross margin in FY2021 and how much did it compress vs FY2020?",
     TrendAsk("direction", "", False, True)),
    ("What was the current ratio at December 31, 2020, and how does it compare with year-end 2019?",
     TrendAsk("direction", "", False, True)),
    ("What was the quick ratio at June 30, 2023 compared with December 31, 2022?",
     TrendAsk("direction", "", False, True)),
    # the earlier period in the analyst's words, or after the measure of "Compare X in A with B"
    ("What were total revenues in Q2 fiscal 2024 and how did they compare with a year earlier?",
     TrendAsk("direction", "", False, True)),
    ("Compare operating income in fiscal 2022 with fiscal 2021.", TrendAsk("direction", "", False, True)),
    ("How does net income compare to the same quarter a year ago?", TrendAsk("direction", "", False, True)),
    # how it changed between two years named, no "how much"
    ("How did the gross margin (gross profit / net sales) change from fiscal 2021 to fiscal 2022?", TrendAsk("change")),
    ("Net margin changed between 2021 and 2022 by how many points?", TrendAsk("change")),
])
def test_trend_asked(question: str, ask: TrendAsk) -> None:
    assert trend_asked(question) == ask


@pytest.mark.parametrize("question", [
    "What was the operating margin in FY2022?",  # a level, not a trend
    "What drove the increase in revenue?",  # no yes/no, no 'how much changed'
    "Is revenue expected to grow next year?",  # a forecast
    "Did the increase in operating income come from pricing?",  # a cause
    "Did the Cloud segment's operating margin improve?",  # a part of the company
    "Is there a positive outlook for margins?",
    "Did currency have a negative impact on revenue in FY2022?",  # the sign of an effect, not of revenue
    "Was the gross margin higher than 80% in FY2022?",  # a threshold, not the year before
    "Is its operating margin above its peers'?",
    "By what percentage did revenue grow YoY in the quarter?",  # a growth rate, answered as one
    "What was revenue growth in 2021 versus 2020?",
    "Compare Apple and Microsoft revenue in 2022.",  # two companies, one period
])
def test_not_a_trend(question: str) -> None:
    assert trend_asked(question) is None


def test_a_conditional_aside_is_no_request_to_explain() -> None:
    q = ("Does Adobe have an improving operating margin profile as of FY2022? If operating margin is not a useful "
         "metric for a company like this, then state that and explain why.")
    assert without_conditional_asides(q) == "Does Adobe have an improving operating margin profile as of FY2022?"
    assert without_conditional_asides("Explain why margins fell. If so, list the causes.").startswith("Explain why")


def test_verdict_follows_the_measures_better_direction() -> None:
    better = TrendAsk("direction", "better", True)
    assert verdict(better, "operating_margin", -2.2, 34.6) == "No"
    assert verdict(better, "dso", -3.0, 40.0) == "Yes"  # fewer days of receivables is better
    assert verdict(better, "effective_tax_rate", 2.7, 22.9) is None  # no one reading: direction only
    assert verdict(TrendAsk("direction", "up", True), "total_debt", -2544.0, 47237.0) == "No"
    assert verdict(TrendAsk("sign", "positive", True), "working_capital", 0.0, -1561.0) == "No"
    assert verdict(TrendAsk("change"), "effective_tax_rate", 2.7, 22.9) is None  # not a yes/no question


@pytest.mark.parametrize("question", [
    "Did the effective tax rate go up or down in FY2019 versus FY2018?",
    "Did revenue increase or decrease in 2022?",
    "Has the operating margin gone up or down since last year?",
])
def test_both_directions_asked_is_a_change_stated_not_a_yes_or_no(question: str) -> None:
    from desktop_rag.core.calculate.trend import TrendAsk, trend_asked

    assert trend_asked(question) == TrendAsk("change")


@pytest.mark.parametrize("question", [
    "Is the company's shareholders' equity negative at the end of 2022, and did the deficit get bigger or smaller "
    "versus 2021?",
    "Was working capital positive at the end of fiscal 2023 compared with fiscal 2022?",
])
def test_a_sign_asked_against_an_earlier_year_named(question: str) -> None:
    ask = trend_asked(question)
    assert ask is not None and ask.kind == "sign" and ask.against_prior


def test_the_months_of_a_quarter_written_the_analysts_way() -> None:
    from desktop_rag.core.calculate.calculator import _names_a_part, months_asked
    assert months_asked("eBay 1Q23 gross margin?", "8-K") == 3
    assert months_asked("free cash flow for the six months ended June 30, 2023 (Q2 2023 10-Q)", "10-Q") == 6
    # the unit the answer is wanted in names no part of the company
    assert not _names_a_part("What was capex ($M) in 2022?", set())
    assert not _names_a_part("What was revenue in $bn in 2022?", set())
    assert _names_a_part("What was the revenue of unit M in 2022?", set())  # a name: no "$" before it
    assert _names_a_part("What was the Marketplace segment's revenue?", set())
