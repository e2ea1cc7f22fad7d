"""core/extract.py: the extractive answer's figure statement (unit, scale, period)."""

from __future__ import annotations


def _plan_for(question: str):  # type: ignore[no-untyped-def]
    from desktop_rag.core.query import parse_question
    from desktop_rag.core.types import QueryPlan

    parsed = parse_question(question)
    return QueryPlan(original=question, cleaned=parsed.question, bm25_terms=[], content_terms=[],
                     asked=parsed.question, instructions=parsed.instructions)


def test_figure_statement_gives_unit_scale_and_period() -> None:
    from desktop_rag.core.extract import figure_statement

    above = "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\n(In millions, except per-share amounts)\n"
    row, header = "Total net sales 81,797 82,959", "July 1, 2023 June 25, 2022"
    assert figure_statement(row, header, above, _plan_for("How much were net sales?")) == (
        "Total net sales: $81,797 million (2023)")
    assert figure_statement(row, header, above, _plan_for("How much were net sales in 2022?")) == (
        "Total net sales: $82,959 million (2022)")
    asked = _plan_for("How much were net sales? Answer in USD billions, rounded to two decimal places.")
    assert figure_statement(row, header, above, asked) == "Total net sales: $81.80 billion (2023)"
    eps = figure_statement("Diluted $ 1.26 $ 1.20", "2023 2022", above, _plan_for("What was diluted EPS?"))
    assert eps == "Diluted: $1.26 (2023)"
    # columns that cannot be matched to the header's periods give no figure (the row is quoted instead)
    assert figure_statement("Total net sales 81,797 82,959 70,000", "2023 2022", above, _plan_for("How much?")) == ""
