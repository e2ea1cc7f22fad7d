"""Definitions written in a question read into formulas over statement concepts."""

from __future__ import annotations

import pytest

from desktop_rag.core.calculate.metrics import metric_from_definition, metric_in


def test_definition_with_average_and_years_reads_into_concepts() -> None:
    m = metric_from_definition("ROA", "FY2017 net income / (average total assets between FY2016 and FY2017)",
                               metric_in("ROA"))
    assert m is not None and m.unit == "percent"
    assert m.needs == (("v0", "net_income", "cur"), ("v1", "total_assets", "avg"))
    assert m.compute({"v0": 10.0, "v1": 200.0}) == pytest.approx(5.0)  # a percent: × 100 added


def test_definition_with_words_for_operators_and_a_change() -> None:
    dpo = metric_from_definition(
        "DPO", "365 * (average accounts payable between FY2019 and FY2020) / (FY2020 COGS + change in inventory "
               "between FY2019 and FY2020)", metric_in("DPO"))
    assert dpo is not None and dpo.unit == "days"
    assert dpo.compute({"v0": 10.0, "v1": 200.0, "v2": 3.0, "v2p": 1.0}) == pytest.approx(3650 / 202)
    ebitda = metric_from_definition("unadjusted EBITDA", "operating income plus depreciation and amortization "
                                    "from the cash flow statement", metric_in("EBITDA"))
    assert ebitda is not None and [n[1] for n in ebitda.needs] == ["operating_income", "da"]
    wc = metric_from_definition("net working capital", "total current assets less total current liabilities", None)
    assert wc is not None and wc.compute({"v0": 5.0, "v1": 3.0}) == 2.0


@pytest.mark.parametrize("formula", [
    "revenue adjusted for one-off items / headcount",  # an operand that is no statement concept
    "net income",  # no operation
    "(operating income + ",  # not a formula
])
def test_unclear_definitions_are_not_read(formula: str) -> None:
    assert metric_from_definition("X", formula, None) is None


@pytest.mark.parametrize(("question", "name"), [
    ("Does Adobe have an improving Free cashflow conversion as of FY2022?", "fcf_conversion"),
    ("What was the FCF conversion in 2021?", "fcf_conversion"),
    ("What was free cashflow in 2021?", "fcf"),
    ("Has Microsoft increased its debt on balance sheet between FY2023 and FY2022?", "total_debt"),
    ("What was the company's total debt at year-end 2022?", "total_debt"),
    ("How much debt did it have outstanding?", "total_debt"),
])
def test_metric_named(question: str, name: str) -> None:
    m = metric_in(question)
    assert m is not None and m.name == name


@pytest.mark.parametrize("question", [
    "What was its long-term debt in FY2022?",  # one line item, not the sum
    "What interest rate applies to its debt securities?",
    "What is its total debt to total capital ratio?",
    "When do its debt maturities fall due?",
])
def test_debt_wording_that_is_no_total_debt(question: str) -> None:
    m = metric_in(question)
    assert m is None or m.name != "total_debt"


def test_a_ratio_asked_by_its_words_is_a_definition_over_concepts_or_labels() -> None:
    from desktop_rag.core.calculate.metrics import ratio_asked

    m = ratio_asked("What is the ratio of capital expenditures to depreciation, amortization, and decommissioning?")
    assert m is not None and m.unit == "ratio" and [c for _, c, _ in m.needs] == ["capex", "da"]
    m = ratio_asked("What was Oracle's total cloud revenues as a share of total revenues in fiscal 2017?")
    assert m is not None and m.unit == "percent"
    assert [c for _, c, _ in m.needs] == ["label:total cloud revenues", "revenue"]  # the possessor is dropped
    assert ratio_asked("What was revenue in 2017?") is None
    # the share of a whole that came from a part: the part over the whole
    m = ratio_asked("What share of Acme's reported total net revenue came from net interest income in Q2 2023?")
    assert m is not None and m.unit == "percent" and [c for _, c, _ in m.needs] == ["net_interest_income", "revenue"]


def test_a_comma_closes_the_difference_that_is_divided() -> None:
    # "A minus B, divided by C" is (A - B) / C as an analyst writes it, never A - B / C
    m = metric_from_definition("FCF", "net cash provided by operating activities minus purchases of property and "
                                      "equipment, divided by net revenue", metric_in("free cash flow margin"))
    assert m is not None and m.unit == "percent"
    assert m.compute({"v0": 3565.0, "v1": 450.0, "v2": 23601.0}) == pytest.approx((3565 - 450) / 23601 * 100)


def test_the_asked_metric_is_read_before_the_words_of_its_definition() -> None:
    from desktop_rag.core.domain.question import read_question

    q = ("What was AMD's FY2022 free cash flow margin? Define FCF as net cash provided by operating activities "
         "minus purchases of property and equipment, divided by net revenue. Answer in percent to one decimal.")
    asked = metric_in(read_question(q).asked)
    assert asked is not None and asked.name == "fcf_margin"


def test_a_share_of_revenue_ten_times_the_revenue_is_no_real_companys() -> None:
    from desktop_rag.core.calculate.calculator import implausible

    capex_pct = metric_in("capital expenditures as a percent of revenue")
    assert capex_pct is not None
    assert implausible(capex_pct, 356498.1) and not implausible(capex_pct, 13.2) and not implausible(capex_pct, 140.0)


def test_a_lone_x_multiplies_and_a_figure_is_never_dropped_from_an_operand() -> None:
    dpo = metric_from_definition("days payable outstanding", "year-end trade payables / cost of products sold x 365",
                                 metric_in("days payable outstanding"))
    assert dpo is not None
    assert dpo.compute({"v0": 4848.0, "v1": 18363.0}) == pytest.approx(96.36, abs=0.01)
    # an operand with a figure the reader cannot place is no operand (never read as "cost of sales")
    assert metric_from_definition("X", "payables / cost of sales per 365 days", None) is None


def test_how_to_show_the_result_is_no_part_of_the_formula() -> None:
    m = metric_from_definition("operating margin", "operating income divided by total revenue; give the answer in "
                               "percent rounded to two decimals", metric_in("operating margin"))
    assert m is not None and [n[1] for n in m.needs] == ["operating_income", "revenue"]


def test_a_defined_quotient_asked_as_a_percentage_is_a_percentage() -> None:
    """"capex intensity, defined as capital expenditures divided by total operating revenues.
    Express as a percent": no standard metric, and the quotient times 100."""
    m = metric_from_definition("capex intensity", "capital expenditures (cash flow statement) divided by total "
                               "operating revenues", None, percent=True)
    assert m is not None and m.unit == "percent" and m.title == "Capex intensity"
    assert m.compute({"v0": 5709.0, "v1": 17666.0}) == pytest.approx(32.3163, abs=1e-4)
    assert "  " not in m.formula
    plain = metric_from_definition("capex intensity", "capital expenditures divided by total operating revenues", None)
    assert plain is not None and plain.unit == "ratio"
    # a difference is no quotient: "percent" does not scale it
    wc = metric_from_definition("net working capital", "total current assets less total current liabilities", None,
                                percent=True)
    assert wc is not None and wc.unit == "ratio"


@pytest.mark.parametrize(("question", "name"), [
    # a name with its other name in parentheses is read as either
    ("JPM 1Q23 efficiency (overhead) ratio", "efficiency_ratio"),
    ("What was the overhead ratio in Q1?", "efficiency_ratio"),
    ("Gross margin (%) in 2022", "gross_margin"),
    # a name is matched in whole words: "ratio" inside "Corporation" named no capex ratio
    ("PCG FY2017 free cash flow (cash from operations less capital expenditures), PG&E Corporation consolidated "
     "cash flow statement, $ millions?", "fcf"),
    ("Capital expenditures as a percent of revenue in 2017", "capex_pct_revenue"),
    ("capex/revenue ratio for FY2018", "capex_pct_revenue"),
    # ... from the start of a word: "percent" of "percentage", the possessive before "debt"
    ("What is FedEx's FY2023 capital expenditure as a percentage of revenue?", "capex_pct_revenue"),
    ("Did Oracle's debt go up in fiscal 2023?", "total_debt"),
])
def test_the_metric_a_question_names(question: str, name: str) -> None:
    m = metric_in(question)
    assert m is not None and m.name == name
