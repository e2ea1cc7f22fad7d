"""core/statements/concepts.py: which line item a question names."""

from __future__ import annotations

import pytest

from desktop_rag.core.statements.concepts import named_in


@pytest.mark.parametrize(("question", "first"), [
    # "What was Lockheed Martin's net earnings per diluted share in 2020?" was answered with the
    # net earnings ($6,833 million), computed from statement cells
    ("What was Acme's net earnings per diluted share in 2020?", "eps_diluted"),
    ("What was Acme's net income per basic share in 2020?", "eps_basic"),
    ("What was Acme's diluted EPS in 2020?", "eps_diluted"),
])
def test_a_per_share_figure_is_named_before_the_earnings_it_divides(question: str, first: str) -> None:
    assert named_in(question)[0].name == first
