from __future__ import annotations

import pytest

from desktop_rag.core.domain.numbers import (
    COUNT_RE,
    count_value,
    number_supported,
    numbers_in,
    parse_cell,
    scale_of,
    share_scale_of,
)


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
    assert numbers_in("no figures here") == []
    assert number_supported(81.8, [81797.0])
    assert not number_supported(81.9, [81797.0])


@pytest.mark.parametrize(("note", "scale"), [
    # share counts in another scale than the dollars, said so
    ("(In millions, except number of shares, which are reflected in thousands, and per-share amounts)", "thousands"),
    ("(In millions, except per share data and shares in thousands)", "thousands"),
    ("(Dollars and shares in millions, except per share amounts)", "millions"),
    # share counts excepted from the scale: printed as plain counts
    ("(in thousands, except share and per share data)", "units"),
    ("(in millions, except per share and share amounts)", "units"),
    # only per-share amounts excepted: share counts in the note's scale
    ("(in millions, except per share data)", "millions"),
    ("(in thousands, except per-share data)", "thousands"),
    ("Revenue grew", None),
])
def test_share_scale_of(note: str, scale: str | None) -> None:
    assert share_scale_of(note) == scale


@pytest.mark.parametrize(("text", "value"), [
    ("the registrant had outstanding 4,127 million shares", 4_127_000_000.0),
    ("outstanding as of May 19, 2023, was 2.47 billion.", 2_470_000_000.0),
    ("15,634,232,000 shares of common stock", 15_634_232_000.0),
])
def test_count_read_with_its_scale_word(text: str, value: float) -> None:
    counts = [count_value(m.group(1), m.group(2)) for m in COUNT_RE.finditer(text)]
    assert value in counts
    assert not any(c == 0.001 for c in counts)  # "$0.001 par value" is no count


@pytest.mark.parametrize(
    ("value", "candidates", "ok"),
    [
        (81797.0, [81797.0], True),
        (81.8, [81797.0], True),  # $81.8 billion for 81,797 (millions)
        (81.797, [81797.0], True),
        (7.4, [7442.0], True),
        (81.9, [81797.0], False),
        (82.0, [81797.0], False),  # no decimals given: only an exact match counts
        (99999.0, [81797.0, 82959.0], False),
        (1.3, [1.27], False),
    ],
)
def test_number_supported(value: float, candidates: list[float], ok: bool) -> None:
    assert number_supported(value, candidates) is ok


def test_nearest_scale_is_the_last_note_above_the_row() -> None:
    from desktop_rag.core.domain.numbers import nearest_scale

    page = "Revenue table (in millions)\nRevenue $ 5 $ 4\nContractual obligations (in thousands):\nTotal\n"
    assert nearest_scale(page) == "thousands"
    assert nearest_scale("Human capital\nTotal employees") is None


def test_a_caption_with_two_scales_gives_a_row_the_one_naming_it() -> None:
    """"operating income (dollars in millions), ... package statistics (in thousands)": the
    operating income row is in millions; a row neither names gets no scale, never a wrong one."""
    from desktop_rag.core.domain.numbers import nearest_scale

    caption = ("The following table compares revenue, operating expenses, operating income (dollars in millions), "
               "operating margin, selected package\nstatistics (in thousands, except yield amounts), and operating "
               "expenses as a percent of revenue for the years ended May 31:\n")
    assert nearest_scale(caption, label="Operating income ") == "millions"
    assert nearest_scale(caption, label="Average daily package volume ") == "thousands"
    assert nearest_scale(caption, label="Fuel ") is None
    assert nearest_scale("CONSOLIDATED BALANCE SHEETS (in millions)\nCash 1,234\n", label="Total assets ") == "millions"

