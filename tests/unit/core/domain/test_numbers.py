from __future__ import annotations

import pytest

from desktop_rag.core.domain.numbers import number_supported, numbers_in, parse_cell, scale_of


@pytest.mark.parametrize(("text", "value", "percent"), [
    ("(1,234)", -1234.0, False),
    ("1,234", 1234.0, False),
    ("$ 1,234.5", 1234.5, False),
    ("$1,234.5", 1234.5, False),
    ("12.3 %", 12.3, True),
    ("(0.5)%", -0.5, True),
    ("-", None, False),
    ("\u2014", None, False),
    ("$ -", None, False),
    ("-42", -42.0, False),
    ("0.24", 0.24, False),
])
def test_parse_cell(text: str, value: float | None, percent: bool) -> None:
    cell = parse_cell(text)
    assert cell is not None
    assert cell.value == value
    assert cell.percent is percent


@pytest.mark.parametrize("text", ["Net", "(a)", "1,23,4", "(12", "12)", "", "Q3"])
def test_parse_cell_rejects_non_cells(text: str) -> None:
    assert parse_cell(text) is None


@pytest.mark.parametrize(("text", "scale"), [
    ("(In millions, except per share data)", "millions"),
    ("(amounts in millions, except per share data)", "millions"),
    ("(Dollars in millions)", "millions"),
    ("(In thousands, except par value)", "thousands"),
    ("($ in billions)", "billions"),
    ("Net sales grew 5%", None),
])
def test_scale_of(text: str, scale: str | None) -> None:
    assert scale_of(text) == scale


def test_numbers_in_and_support_keep_their_behaviour() -> None:
    assert numbers_in("Net sales $81,797 and (265) or 15.7% and 2023") == [81797.0, 265.0, 15.7, 2023.0]
    assert number_supported(81.8, [81797.0])
    assert not number_supported(81.9, [81797.0])
