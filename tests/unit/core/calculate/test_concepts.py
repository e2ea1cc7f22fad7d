"""core/calculate/concepts.py: which line item a question names."""

from __future__ import annotations

import pytest

from desktop_rag.core.calculate.concepts import debt_rows, named_in
from desktop_rag.core.ingest.statements.model import Cell, Period, Row, Statement


@pytest.mark.parametrize(("question", "first"), [
    # "What was Lockheed Martin's net earnings per diluted share in 2020?" was answered with the
    # net earnings ($6,833 million), computed from statement cells
    ("What was Acme's net earnings per diluted share in 2020?", "eps_diluted"),
    ("What was Acme's net income per basic share in 2020?", "eps_basic"),
    ("What was Acme's diluted EPS in 2020?", "eps_diluted"),
])
def test_a_per_share_figure_is_named_before_the_earnings_it_divides(question: str, first: str) -> None:
    assert named_in(question)[0].name == first


def _balance(rows: list[tuple[str, str, float]]) -> Statement:
    st = Statement("balance", "Balance Sheets", 5, "millions", [Period("June 30, 2023", "2023-06-30", 0)])
    for label, parent, value in rows:
        st.rows.append(Row(label, parent, 5, (0, 1), (0, 1), [Cell("2023-06-30", 0, f"{value:,.0f}", value, 5, (0, 1))]))
    return st


def test_debt_rows_are_the_debt_lines_without_totals_or_other_items() -> None:
    st = _balance([("Accounts payable", "Current liabilities", 18.0),
                   ("Current portion of long-term debt", "Current liabilities", 5.0),
                   ("Short-term borrowings", "Current liabilities", 2.0),
                   ("Total current liabilities", "Current liabilities", 25.0),
                   ("Long-term debt", "Liabilities", 42.0),
                   ("Operating lease liabilities", "Liabilities", 12.0),
                   ("Finance lease obligations due within one year", "Current liabilities", 1.0),
                   ("Total debt", "", 49.0)])
    assert [r.label for r in debt_rows(st, "2023-06-30")] == [
        "Current portion of long-term debt", "Short-term borrowings", "Long-term debt"]


def test_debt_printed_gross_and_net_of_its_current_portion_is_not_summed() -> None:
    """'Long-term debt' then 'Long-term debt, net': the same debt twice; no sum is given."""
    st = _balance([("Long-term debt", "Liabilities", 50.0), ("Long-term debt, net", "Liabilities", 45.0)])
    assert debt_rows(st, "2023-06-30") == []
    netted = _balance([("Long-term debt", "Liabilities", 50.0), ("Current maturities of long-term debt", "Liabilities", -5.0)])
    assert debt_rows(netted, "2023-06-30") == []


@pytest.mark.parametrize(("label", "concept"), [
    ("Benefit from (provision for) income taxes", "income_tax"),
    ("(Provision for) benefit from income taxes", "income_tax"),
    ("Provision for income taxes", "income_tax"),
    ("Income before benefit from (provision for) income taxes", "pretax_income"),
    ("Income before provision for income taxes", "pretax_income"),
])
def test_tax_lines_printed_with_both_signs_in_their_label(label: str, concept: str) -> None:
    from desktop_rag.core.calculate.concepts import CONCEPTS, find

    st = Statement("income", "Statements of Operations", 61, "millions", [Period("FY2023", "2023-01-31", 12)])
    st.rows.append(Row(label, "", 61, (0, 1), (0, 1), [Cell("2023-01-31", 12, "(452)", -452.0, 61, (0, 1))]))
    found = find(CONCEPTS[concept], [st])
    assert found is not None and found.row.label == label


@pytest.mark.parametrize(("text", "first"), [
    # the pre-tax line named as filers print it, not the provision it is taken before
    ("income before provision for income taxes", "pretax_income"),
    ("provision for income taxes", "income_tax"),
    # the long-term debt line asked by its name
    ("Did Acme reduce its long-term debt during 2022?", "long_term_debt"),
])
def test_concepts_named_as_filers_print_them(text: str, first: str) -> None:
    assert named_in(text)[0].name == first
