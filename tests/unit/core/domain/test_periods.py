"""core/domain/periods.py: dates, question periods, file-name periods and cover-page fiscal periods."""

from __future__ import annotations

from datetime import date

import pytest

from desktop_rag.core.domain.periods import (
    YEAR_TO_DATE,
    FiscalCalendar,
    PeriodMention,
    PeriodShift,
    ReleasedQuarter,
    calendar_quarter,
    cover_period,
    file_name_period,
    find_periods,
    fiscal_label_for,
    fiscal_year_for_end,
    is_period_word,
    latest_period,
    latest_period_of,
    mention_text,
    month_quarter,
    month_quarter_period,
    month_year_end,
    month_year_period,
    months_to_month,
    names_month,
    parse_date,
    period_label,
    period_phrase,
    period_run,
    periods_ending,
    relative_period,
    released_quarter,
    run_text,
    shift_mention,
    shifted_named_period,
    year_to_date,
    year_to_date_months,
    year_to_date_of,
)

from .conftest import filing_pages, shared_pdf


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("July 1, 2023", date(2023, 7, 1)),
        ("for the period ended Dec. 31, 2022.", date(2022, 12, 31)),
        ("2023-07-01", date(2023, 7, 1)),
        ("Sept. 30, 2023", date(2023, 9, 30)),
        ("as of 1 July 2023", date(2023, 7, 1)),
        ("JANUARY 29, 2023", date(2023, 1, 29)),
        ("February 30, 2023", None),
        ("no date here 2023", None),
    ],
)
def test_parse_date(text: str, expected: date | None) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    ("question", "quarters", "years", "dates"),
    [
        ("Apple net sales Q3 2023", {(2023, 3)}, set(), set()),
        ("Apple net sales in 2023 Q3", {(2023, 3)}, set(), set()),
        ("NVDA 3Q23 revenue", {(2023, 3)}, set(), set()),
        ("Q3 FY23 capex", {(2023, 3)}, set(), set()),
        ("Q2'23 capex", {(2023, 2)}, set(), set()),
        ("third quarter of fiscal 2023", {(2023, 3)}, set(), set()),
        ("What was revenue in the second quarter of fiscal year 2024?", {(2024, 2)}, set(), set()),
        ("Q2 of fiscal 2024 margin", {(2024, 2)}, set(), set()),
        ("revenue in FY24", set(), {2024}, set()),
        ("revenue in FY '24", set(), {2024}, set()),
        ("revenue in fiscal year 2024", set(), {2024}, set()),
        ("What is the FY2015 operating cash flow ratio?", set(), {2015}, set()),
        ("How did the dividend change in 2021?", set(), {2021}, set()),
        ("total assets as of December 31, 2022", set(), set(), {date(2022, 12, 31)}),
        ("revenue for the quarter ended July 1, 2023", set(), set(), {date(2023, 7, 1)}),
        ("revenue of $2,021 million", set(), set(), set()),
        ("What are the senior notes due 2026 worth in FY2017?", set(), {2017}, set()),
        ("What emissions cut did it promise by 2030?", set(), set(), set()),
        ("What term loan did it enter into in January 2023, per its Q1 2023 10-Q?", {(2023, 1)}, set(), set()),
        ("Capex for the first six months of fiscal 2023, per the Q2 2023 10-Q?", {(2023, 2)}, set(), set()),
        ("Operating cash flow for the first nine months of 2023?", {(2023, 3)}, set(), set()),
        ("Dividends paid in the first half of 2023?", {(2023, 2)}, set(), set()),
        ("revenue last year", set(), set(), set()),
        # a filing's list of year-ends: the first date's day in each year listed
        ("average inventories (January 31, 2017 and 2018)", set(), set(), {date(2017, 1, 31), date(2018, 1, 31)}),
        ("as of December 31, 2022, 2021 and 2020", set(), set(),
         {date(2022, 12, 31), date(2021, 12, 31), date(2020, 12, 31)}),
        ("notes due March 1, 2025 and 2030", set(), {2025, 2030}, set()),
        # a fiscal year-end written with its day: the day is no two-digit year
        ("return on assets for fiscal 2017 (FYE May 31, 2017)", set(), {2017}, set()),
        ("FYE May-21 revenue", set(), {2021}, set()),
    ],
)
def test_find_periods(question: str, quarters: set, years: set, dates: set) -> None:
    found = find_periods(question)
    assert found.quarters == quarters
    assert found.years == years
    assert found.dates == dates


def test_fiscal_flag_and_latest() -> None:
    assert find_periods("FY2024 revenue").fiscal_years == {2024}
    assert find_periods("revenue in 2024").fiscal_years == set()
    assert find_periods("what did the latest 10-Q say").latest
    assert not find_periods("what did the 10-Q say").latest
    ended = find_periods("the quarter ended July 1, 2023").mentions[0]
    assert ended.span == "quarter" and ended.date == date(2023, 7, 1)


@pytest.mark.parametrize("phrase", ["fiscal 2024", "fiscal year 2024", "FY24", "3Q23", "third quarter of fiscal 2023",
                                    "Q2 2023"])
def test_period_phrase_keeps_the_words_as_written(phrase: str) -> None:
    assert period_phrase(f"How much did NVIDIA spend on R&D in {phrase}?") == phrase


@pytest.mark.parametrize(
    ("stem", "expected"),
    [
        ("2023 Q1 NVDA", (2023, 1, None)),
        ("AAPL_10-Q_Q3FY23", (2023, 3, None)),
        ("JPMORGAN_2021Q1_10Q", (2021, 1, None)),
        ("FOOTLOCKER_2022_8K_dated-2022-05-20", (2022, None, date(2022, 5, 20))),
        ("FOOTLOCKER_2022_8K_dated_2022-08-19", (2022, None, date(2022, 8, 19))),
        ("msft-10k-fy2024", (2024, None, None)),
        ("3Q23 nvda earnings", (2023, 3, None)),
        ("ADOBE_2015_10K", (2015, None, None)),
        ("notes", (None, None, None)),
    ],
)
def test_file_name_period(stem: str, expected: tuple) -> None:
    assert file_name_period(stem) == expected


def test_labels_and_fiscal_year_rules() -> None:
    assert period_label(2024, 2) == "Q2 FY2024"
    assert period_label(2023) == "FY2023"
    assert period_label(None) == ""
    assert fiscal_year_for_end(date(2023, 1, 29)) == 2023  # Nvidia's FY2023 ends in January 2023
    assert fiscal_year_for_end(date(2023, 7, 30), fiscal_year_end_month=1) == 2024
    assert fiscal_year_for_end(date(2022, 10, 1)) == 2022  # a 52/53-week year spilling into October
    assert calendar_quarter(date(2022, 10, 1)) == 3  # Intel
    assert calendar_quarter(date(2023, 7, 30)) == 2  # Nvidia: May to July


def test_year_to_date_months_counts_the_longest_usual_column() -> None:
    text = ("Three Months Ended July 30, 2023 ... Six Months Ended July 30, 2023 ... "
            "Six Months Ended July 31, 2022")
    assert year_to_date_months(text, date(2023, 7, 30)) == 6
    assert year_to_date_months("three months ended March 31, 2021", date(2021, 3, 31)) == 3
    assert year_to_date_months("nothing", date(2021, 3, 31)) is None


NVDA_COVER = """FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended July 30, 2023
NVIDIA CORPORATION
(Exact name of registrant as specified in its charter)"""


def test_cover_period_fiscal_year_is_the_filers() -> None:
    body = ("Condensed Consolidated Statements of Income (In millions) Three Months Ended Six Months Ended "
            "Six Months Ended July 30, 2023 July 31, 2022\nSecond Quarter of Fiscal Year 2024 Summary")
    got = cover_period(NVDA_COVER, "10-Q", body)
    assert (got.period_end, got.fiscal_year, got.fiscal_quarter, got.fiscal_year_named) == (
        date(2023, 7, 30), 2024, 2, True)
    annual = cover_period("FORM 10-K\nFor the fiscal year ended January 29, 2023", "10-K")
    assert (annual.fiscal_year, annual.fiscal_quarter, annual.annual) == (2023, None, True)
    eight_k = cover_period("FORM 8-K\nDate of report (Date of earliest event reported): May 20, 2022 (May 18, 2022)")
    assert eight_k.period_end == date(2022, 5, 20)
    two_col = cover_period("FORM 10-Q\nFor the quarterly period ended Commission file\nMarch 31, 2021 number 1-5805",
                           "10-Q", "three months ended March 31, 2021")
    assert (two_col.period_end, two_col.fiscal_year, two_col.fiscal_quarter) == (date(2021, 3, 31), 2021, 1)


@pytest.mark.parametrize(
    ("name", "end", "fy", "fq"),
    [
        ("2023 Q2 NVDA.pdf", date(2023, 7, 30), 2024, 2),  # "Second Quarter of Fiscal Year 2024"
        ("2023 Q1 MSFT.pdf", date(2022, 12, 31), 2023, 2),  # Microsoft's FY ends June 30
        ("2023 Q3 AAPL.pdf", date(2023, 7, 1), 2023, 3),
        ("2022 Q3 INTC.pdf", date(2022, 10, 1), 2022, 3),
    ],
)
def test_cover_period_on_real_10qs(name: str, end: date, fy: int, fq: int) -> None:
    pages = filing_pages(shared_pdf("sec10q", name))
    got = cover_period("\n".join(pages[:3]), "10-Q", "\n".join(pages[3:]))
    assert (got.period_end, got.fiscal_year, got.fiscal_quarter) == (end, fy, fq)


# -- follow-ups: relative periods ------------------------------------------------------------------
@pytest.mark.parametrize(("text", "quarters", "years"), [
    ("And the quarter before?", -1, 0), ("a year earlier", 0, -1), ("two quarters ago", -2, 0),
    ("the prior year", 0, -1), ("same quarter last year", 0, -1), ("the following quarter", 1, 0),
    ("What about the previous quarter?", -1, 0)])
def test_relative_period(text: str, quarters: int, years: int) -> None:
    shift = relative_period(text)
    assert shift is not None and (shift.quarters, shift.years) == (quarters, years)


def test_relative_period_leaves_latest_and_plain_text() -> None:
    assert relative_period("last quarter") is None  # the latest quarter, not a shift
    assert relative_period("What was revenue in Q3 2023?") is None


@pytest.mark.parametrize(("asked", "quarters", "years", "written"), [
    ("Q1 FY2024", -1, 0, "Q4 FY2023"), ("Q3 2023", 0, -1, "Q3 2022"), ("fiscal 2023", 0, -1, "fiscal 2022"),
    ("2021", 0, 1, "2022"), ("the quarter ended July 1, 2023", -1, 0, "the quarter ended April 1, 2023")])
def test_shift_and_write_back(asked: str, quarters: int, years: int, written: str) -> None:
    mention = find_periods(asked).mentions[0]
    shifted = shift_mention(mention, PeriodShift(quarters, years))
    assert shifted is not None and mention_text(shifted) == written
    again = find_periods(written).mentions[0]
    assert (again.year, again.quarter, again.date) == (shifted.year, shifted.quarter, shifted.date)


def test_quarter_shift_of_a_year_is_unknown() -> None:
    assert shift_mention(find_periods("fiscal 2023").mentions[0], PeriodShift(quarters=-1)) is None


def test_a_quarter_without_its_year() -> None:
    from desktop_rag.core.domain.periods import PeriodMention, in_quarter, quarter_without_year

    assert quarter_without_year("and for Q4?").quarter == 4
    assert quarter_without_year("what about 3Q then").quarter == 3
    assert quarter_without_year("the second quarter?").quarter == 2
    for with_year in ("Q4 2022", "4Q22", "the second quarter of fiscal 2024", "Q1 FY24", "q3 '23"):
        assert quarter_without_year(with_year) is None, with_year
    assert in_quarter(PeriodMention("Q3 FY2024", 0, 9, year=2024, quarter=3, fiscal=True), 1) == PeriodMention(
        "", 0, 0, year=2024, quarter=1, fiscal=True)
    assert in_quarter(PeriodMention("2021", 0, 4, year=2021), 2).quarter == 2
    dated = PeriodMention("June 30, 2023", 0, 13, year=2023, date=date(2023, 6, 30))
    assert in_quarter(dated, 1) is None


@pytest.mark.parametrize(("text", "year", "quarter"), [("and 3Q21?", 2021, 3), ("1Q 2020 net income", 2020, 1),
                                                         ("2QFY24", 2024, 2)])
def test_quarter_first_shorthand(text: str, year: int, quarter: int) -> None:
    m = find_periods(text).mentions
    assert [(x.year, x.quarter) for x in m] == [(year, quarter)]


def test_relative_period_in_chat_shorthand() -> None:
    assert relative_period("and the yr before?") == PeriodShift(years=-1, text="yr before")
    assert relative_period("the prior qtr") == PeriodShift(quarters=-1, text="prior qtr")
    assert relative_period("same qtr last yr") == PeriodShift(years=-1, text="same qtr last yr")
    assert relative_period("lockheed same yr") is None  # the thread's own year


# -- quarters named by their closing month ----------------------------------------------------------
APPLE = FiscalCalendar(2023, 2, date(2023, 4, 1))  # fiscal year ends in September
NVIDIA = FiscalCalendar(2024, 1, date(2023, 4, 30))  # fiscal year ends in January
INTEL = FiscalCalendar(2023, 3, date(2023, 9, 30))  # calendar fiscal year


@pytest.mark.parametrize(
    ("text", "month", "year"),
    [
        ("how does that compare w/ apple's for the march qtr", 3, None),
        ("the June quarter", 6, None),
        ("Sept quarter 2023", 9, 2023),
        ("the June '23 quarter", 6, 2023),
        ("the december quarter of 2022", 12, 2022),
        ("for the quarter ending in March", 3, None),
        ("the may qtr", 5, None),
        # a short year after the month is the quarter's year, not left over as another period
        ("the quarter ending in October '23?", 10, 2023),
        ("the quarter ending in March ’23", 3, 2023),
    ],
)
def test_month_named_quarter(text: str, month: int, year: int | None) -> None:
    found = month_quarter(text)
    assert found is not None and (found.month, found.year) == (month, year)


@pytest.mark.parametrize("text", ["the quarter ended March 31, 2023", "sales may quarterly rise", "in March 2023",
                                  "we may quarter the budget", "the fourth quarter"])
def test_not_a_month_named_quarter(text: str) -> None:
    assert month_quarter(text) is None


def test_find_periods_reads_a_month_named_quarter_with_its_year_as_the_calendar_quarter() -> None:
    found = find_periods("Apple revenue for the June 2023 quarter").mentions
    assert [(m.year, m.quarter, m.fiscal) for m in found] == [(2023, 2, False)]
    assert find_periods("the march qtr").mentions == []  # no year: the conversation's


def test_fiscal_calendar_maps_months_and_quarters() -> None:
    assert APPLE.quarter_ending(2023, 3) == (2023, 2) and APPLE.quarter_ending(2022, 12) == (2023, 1)
    assert APPLE.quarter_end(2023, 4) == (2023, 9) and not APPLE.calendar_year
    assert NVIDIA.quarter_ending(2023, 7) == (2024, 2) and not NVIDIA.calendar_year
    assert INTEL.calendar_year and INTEL.quarter_ending(2023, 3) == (2023, 1)


def test_month_quarter_resolves_in_the_conversation_s_year_as_the_company_names_it() -> None:
    march = month_quarter("the march qtr")
    assert march is not None
    amazon_q1 = find_periods("q1 2023").mentions[0]
    # Apple's quarter ending in March 2023 is its Q2 FY2023; a calendar-year company's is Q1 2023
    assert mention_text(month_quarter_period(march, amazon_q1, APPLE)) == "Q2 FY2023"
    assert mention_text(month_quarter_period(march, amazon_q1, INTEL)) == "Q1 2023"
    assert mention_text(month_quarter_period(march, amazon_q1, None)) == "Q1 2023"
    # the nearest March to a thread about Nvidia's Q3 FY2024 (ending October 2023) is March 2024
    nv_q3 = find_periods("Q3 FY2024").mentions[0]
    assert mention_text(month_quarter_period(march, nv_q3, INTEL, NVIDIA)) == "Q1 2024"  # Intel's year is the calendar's
    assert month_quarter_period(march, None, APPLE) is None  # no year anywhere


def test_a_fiscal_quarter_as_another_company_names_the_same_months() -> None:
    q2 = find_periods("Q2 FY2023").mentions[0]
    assert mention_text(fiscal_label_for(q2, APPLE, None)) == "Q1 2023"
    assert mention_text(fiscal_label_for(find_periods("Q2 FY2024").mentions[0], NVIDIA, APPLE)) == "Q3 FY2023"
    assert fiscal_label_for(q2, INTEL, None) is None  # a calendar fiscal year: nothing to change
    assert fiscal_label_for(q2, APPLE, None, calendar_words=False) is None  # the thread writes fiscal labels
    assert fiscal_label_for(find_periods("Q2 2023").mentions[0], APPLE, None) is None  # a calendar quarter


@pytest.mark.parametrize(("text", "quarters"), [("and the nine months?", 3), ("how did that compare with the first half", 2),
                                                ("and for the full year?", 4), ("how much of the 9M figure was it?", 3),
                                                ("over those nine months", 3), ("what about ytd", 0)])
def test_year_to_date_named_without_its_year(text: str, quarters: int) -> None:
    found = year_to_date(text)
    assert found is not None and found.quarters == quarters


@pytest.mark.parametrize("text", ["the first nine months of 2023", "six months ended June 30, 2023",
                                  "3M Company's net sales", "$9m of revenue", "the first quarter"])
def test_not_a_year_to_date_without_its_year(text: str) -> None:
    assert year_to_date(text) is None


def test_year_to_date_of_the_conversation_s_period() -> None:
    nine, half, full = year_to_date("the nine months"), year_to_date("the first half"), year_to_date("the full year")
    assert nine and half and full
    assert mention_text(year_to_date_of(find_periods("3Q 2023").mentions[0], nine)) == "the first nine months of 2023"
    assert mention_text(year_to_date_of(find_periods("Q2 FY2024").mentions[0], half)) == "the first half of fiscal 2024"
    assert mention_text(year_to_date_of(find_periods("the first nine months of fiscal '23").mentions[0], full)) == \
        "fiscal 2023"
    assert mention_text(year_to_date_of(find_periods("the quarter ended July 1, 2023").mentions[0], nine)) == \
        "the nine months ended July 1, 2023"
    # written so that the period module reads it back as the same year to date
    back = find_periods("the first nine months of 2023").mentions[0]
    assert (back.year, back.quarter, back.span) == (2023, 3, YEAR_TO_DATE)


def test_fiscal_year_with_an_apostrophe() -> None:
    assert [(m.year, m.fiscal) for m in find_periods("nike revenues fiscal '23?").mentions] == [(2023, True)]


# -- half-years, trailing years, period ends, sequential and comparable periods ----------------------
@pytest.mark.parametrize("text,year,quarter,fiscal,span", [
    ("Intel's D&A for 1H23?", 2023, 2, False, "year to date"),
    ("H1 2023 net income", 2023, 2, False, "year to date"),
    ("H1 FY24 revenue", 2024, 2, True, "year to date"),
    ("capex 2H22", 2022, 4, False, "second half"),
    ("the second half of fiscal 2023", 2023, 4, True, "second half"),
])
def test_half_years_are_read_as_six_months(text: str, year: int, quarter: int, fiscal: bool, span: str) -> None:
    from desktop_rag.core.domain.periods import find_periods

    m = find_periods(text).mentions[0]
    assert (m.year, m.quarter, m.fiscal, m.span) == (year, quarter, fiscal, span)
    # written back as a question writes it, read back the same
    again = find_periods(mention_text(m)).mentions[0]
    assert (again.year, again.quarter, again.span) == (year, quarter, span)


def test_half_years_are_no_words_of_other_periods() -> None:
    from desktop_rag.core.domain.periods import find_periods

    assert [(m.year, m.quarter) for m in find_periods("1H23 vs 1H22").mentions] == [(2023, 2), (2022, 2)]
    assert not find_periods("H1N1 cases").mentions
    assert [(m.year, m.quarter) for m in find_periods("Q2 2023").mentions] == [(2023, 2)]


@pytest.mark.parametrize("text,quarters,years", [
    ("two years back", 0, -2),
    ("a quarter back", -1, 0),
    ("and the comparable quarter", 0, -1),
    ("vs the prior-year period", 0, -1),
    ("same period last year?", 0, -1),
    ("sequentially?", -1, 0),
    ("q/q?", -1, 0),
])
def test_relative_periods_of_the_sell_side(text: str, quarters: int, years: int) -> None:

    shift = relative_period(text)
    assert shift is not None and (shift.quarters, shift.years) == (quarters, years)


def test_sequential_is_a_comparison_and_back_needs_a_count() -> None:

    seq = relative_period("sequentially?")
    assert seq is not None and seq.against
    assert relative_period("ok back to msft") is None
    assert relative_period("the previous period") is None  # which one is not known
    # a sequential change in a named quarter is that quarter's
    assert relative_period("sequential growth in Q2 FY24") is None


def test_a_shifted_half_year_stays_a_half_year() -> None:
    from desktop_rag.core.domain.periods import PeriodShift, find_periods, shift_mention

    h1 = find_periods("1H23").mentions[0]
    moved = shift_mention(h1, PeriodShift(years=-2))
    assert moved is not None and mention_text(moved) == "the first half of 2021"


def test_month_year_named_quarter_with_a_hyphen() -> None:
    from desktop_rag.core.domain.periods import month_quarter

    found = month_quarter("inventory turns at nvidia for the oct-23 qtr?")
    assert found is not None and (found.month, found.year) == (10, 2023)


def test_trailing_twelve_months_and_period_ends() -> None:
    from desktop_rag.core.domain.periods import FiscalCalendar, find_periods, relative_span, relative_span_of

    q2 = find_periods("Q2 2023").mentions[0]
    ltm = relative_span("what about LTM")
    assert ltm is not None and ltm.kind == "trailing"
    out = relative_span_of(q2, ltm)
    assert out is not None and mention_text(out) == "the twelve months ended June 30, 2023"
    h1 = find_periods("1H23").mentions[0]
    qe, ye = relative_span("net cash at quarter end?"), relative_span("how about year-end?")
    assert qe is not None and ye is not None and (qe.kind, ye.kind) == ("quarter_end", "year_end")
    at_qe = relative_span_of(h1, qe)
    assert at_qe is not None and at_qe.date == date(2023, 6, 30)
    at_ye = relative_span_of(h1, ye)
    assert at_ye is not None and at_ye.date == date(2022, 12, 31)
    # a fiscal year ending in September: the year end before the March quarter is September's
    apple = FiscalCalendar(2023, 2, date(2023, 4, 1))
    at_ye = relative_span_of(find_periods("Q2 FY2023").mentions[0], ye, apple)
    assert at_ye is not None and at_ye.date == date(2022, 9, 30)
    # the year end of a year, the quarter end of a quarter: the period as asked
    assert relative_span_of(find_periods("fiscal 2022").mentions[0], ye) is None
    assert relative_span_of(q2, qe) is None
    assert relative_span("year end 2022") is None


# -- spans named by their closing month, the latest period, more shifts (issue #12, held-out-7) ------------
@pytest.mark.parametrize(("text", "expected"), [
    ("cash from ops over the trailing six months to march 2024", "the six months ended March 31, 2024"),
    ("revenue, nine months through Jun-21", "the nine months ended June 30, 2021"),
    ("the 3 months to dec 2020", "the quarter ended December 31, 2020"),
    ("twelve months to April '22", "the twelve months ended April 30, 2022"),
])
def test_a_span_named_by_its_closing_month(text: str, expected: str) -> None:
    found = find_periods(text).mentions
    assert len(found) == 1 and mention_text(found[0]) == expected
    assert [mention_text(m) for m in months_to_month(text)] == [expected]


def test_a_day_after_the_month_is_no_two_digit_year() -> None:
    # "to March 31" names a day, not the year 2031; with its year it is a date read as such
    assert months_to_month("the nine months to March 31") == []
    found = find_periods("the nine months ended March 31, 2024").mentions
    assert found[0].date == date(2024, 3, 31) and found[0].span == YEAR_TO_DATE and found[0].quarter == 3


def test_nine_months_ended_a_date_is_a_year_to_date_not_an_instant() -> None:
    nine = find_periods("for the six months ended December 30, 2022").mentions[0]
    assert mention_text(nine) == "the six months ended December 30, 2022"
    # its "year to date" is that span
    assert year_to_date_of(nine, year_to_date("and ytd?")) == nine


@pytest.mark.parametrize(("text", "years", "quarters"), [
    ("what about the same qtr in the previous FY", -1, 0),
    ("the last FY?", -1, 0),
    ("and the prior fy", -1, 0),
    ("the two-years-earlier figure", -2, 0),
    ("same period a year later", 1, 0),
    ("the quarter a year after", 1, 0),
])
def test_more_relative_periods(text: str, years: int, quarters: int) -> None:
    shift = relative_period(text)
    assert shift is not None and (shift.years, shift.quarters) == (years, quarters)


def test_the_latest_period_of_a_kind_comes_from_the_filer_s_latest_report() -> None:
    words = latest_period("and opex for the newest quarter you have?")
    assert words is not None and words.unit == "quarter" and words.text == "the newest quarter you have"
    assert latest_period("the most recent 10-K on file").unit == "year"  # type: ignore[union-attr]
    assert latest_period("opex in 2022?") is None
    retailer = FiscalCalendar(2024, 2, date(2023, 7, 29))  # fiscal year ends in January
    assert mention_text(latest_period_of(retailer, "quarter")) == "Q2 FY2024"
    assert mention_text(latest_period_of(retailer, "year")) == "fiscal 2023"  # the last whole year
    calendar_filer = FiscalCalendar(2022, 4, date(2022, 12, 31))
    assert mention_text(latest_period_of(calendar_filer, "")) == "fiscal 2022"
    assert mention_text(latest_period_of(FiscalCalendar(2023, 1, date(2023, 3, 31)), "quarter")) == "Q1 2023"


def test_period_spans_read_the_length_of_period_words_name() -> None:
    from desktop_rag.core.domain.periods import filing_spans, period_spans

    assert period_spans("obligations were $17.7 billion for the quarter") == {"quarter"}
    assert period_spans("net sales for the nine months ended June 30") == {"nine months"}
    assert period_spans("revenue for fiscal year 2023 rose year-over-year") == {"year"}
    assert period_spans("sales grew quarter-over-quarter and year to date") == set()
    assert filing_spans("10-K", None) == {"year"}
    assert filing_spans("10-Q", 3) == {"quarter", "nine months"}
    assert filing_spans("8-K", None) == set()


def test_a_word_between_the_span_and_ended_keeps_the_period() -> None:
    for text in ("the quarter that ended April 1, 2023", "Dell's quarter also ended April 1, 2023 - its capex?"):
        found = find_periods(text).mentions
        assert len(found) == 1 and mention_text(found[0]) == "the quarter ended April 1, 2023"


EARNINGS_8K = (
    "FORM 8-K\nDate of report (Date of earliest event reported): May 20, 2022\n"
    "Item 2.02 Results of Operations and Financial Condition.\n"
    "On May 20, 2022, Acme, Inc. issued a press release announcing its financial results for the first quarter ended "
    "April 30, 2022.")
EARNINGS_BODY = ("Exhibit 99.1\nACME, INC. REPORTS FIRST QUARTER 2022 RESULTS\n"
                 "First quarter comparable-store sales decreased 2.0%, compared with the first quarter of 2021.")


def test_an_earnings_release_8k_is_labelled_with_the_quarter_it_reports() -> None:
    got = cover_period(EARNINGS_8K, "8-K", EARNINGS_BODY)
    assert (got.fiscal_year, got.fiscal_quarter, got.period_end, got.annual) == (2022, 1, date(2022, 4, 30), False)
    # the year the release names is the filer's fiscal label; without one, the year its fiscal year ends
    assert released_quarter("Item 2.02 Results of Operations.\nAcme Reports Q3 2023 Results") == ReleasedQuarter(2023, 3, None)
    unnamed = released_quarter("Item 2.02 Results of Operations. Results for the third quarter ended October 29, 2023")
    assert unnamed is not None and (unnamed.fiscal_year, unnamed.fiscal_quarter) == (2024, 3)
    # an 8-K of another item (a shareholder vote, a new officer) reports an event, not a quarter,
    # even when its text speaks of a quarter's results
    vote = cover_period("FORM 8-K\nDate of report (Date of earliest event reported): May 20, 2022\n"
                        "Item 5.07 Submission of Matters to a Vote of Security Holders.",
                        "8-K", "the Company's first quarter 2022 results will be discussed")
    assert (vote.fiscal_year, vote.fiscal_quarter, vote.period_end) == (2022, None, date(2022, 5, 20))


# -- held-out-8 classes, with examples of our own (issue #12) ------------------------------------------------
def test_period_words_alone() -> None:
    assert all(is_period_word(w) for w in ["Sept", "oct", "YTD", "LTM", "Q4", "2h", "FY25", "'21", "2021"])
    assert not any(is_period_word(w) for w in ["Azure", "AWS", "Octane", "quarterly"])


def test_a_year_written_short_and_the_fiscal_year_before() -> None:
    assert [(m.year, m.quarter) for m in find_periods("how about back in '18 and '19?").mentions] == [(2018, None),
                                                                                                   (2019, None)]
    assert find_periods("the '80s").mentions == [] and find_periods("rock 'n' roll").mentions == []
    assert find_periods("fiscal '98").mentions[0].year == 1998
    shift = relative_period("compare to the prior fiscal?")
    assert shift is not None and (shift.years, shift.quarters) == (-1, 0)
    assert relative_period("prior fiscal year")  # still the year before, as before


def test_a_year_named_by_its_closing_month_through_the_filer_s_calendar() -> None:
    found = month_year_end("opex for the fiscal year ending jan 2023")
    assert found is not None and (found.month, found.year) == (1, 2023)
    nvidia = FiscalCalendar(2024, 3, date(2023, 10, 29))  # its fiscal 2023 ended January 29, 2023
    assert month_year_period(found, nvidia) == PeriodMention("", 0, 0, year=2023, fiscal=True)
    plain = month_year_period(found)  # no calendar: the twelve months ended January 31, 2023
    assert plain.date == date(2023, 1, 31) and plain.span == "year"
    assert month_year_end("the year ended January 29, 2023") is None  # a dated year is read by find_periods


def test_a_run_of_periods_and_a_month_of_a_year() -> None:
    run = period_run("how has it moved over the past three quarters")
    assert run is not None and (run.count, run.unit) == (3, "quarter")
    assert run_text(periods_ending(find_periods("Q1 FY2024").mentions[0], run)) == "Q3 FY2023, Q4 FY2023 and Q1 FY2024"
    years = period_run("the last 3 10-Ks")
    assert years is not None and run_text(periods_ending(find_periods("fiscal 2022").mentions[0], years)) == \
        "fiscal 2020, fiscal 2021 and fiscal 2022"
    assert period_run("in the two years since the merger") is None
    assert names_month("the CFO left in sept 2022") and not names_month("sales in march")


def test_column_period_name_compact_and_prose() -> None:
    """One formatter of a statement column's period: compact for formulas and refusals, prose for
    an answer's sentence, and no day claimed when the heading prints none."""
    from desktop_rag.core.domain.periods import column_period_name
    from desktop_rag.core.ingest.statements.model import Period

    quarter = Period("Three Months Ended July 1, 2023", "2023-07-01", 3)
    instant = Period("June 30, 2023", "2023-06-30", 0)
    fiscal = Period("Fiscal 2015", "2015-12-31", 12)
    assert column_period_name(quarter) == "3 months ended 2023-07-01"
    assert column_period_name(instant) == "2023-06-30"
    assert column_period_name(fiscal) == "FY2015"
    assert column_period_name(quarter, prose=True) == "in the three months ended July 1, 2023"
    assert column_period_name(instant, prose=True) == "as of June 30, 2023"
    assert column_period_name(fiscal, prose=True) == "in fiscal 2015"
    assert column_period_name(Period("2015", "2015-12-31", 9), prose=True) == "in 9 months of 2015"
    assert column_period_name(Period("Year Ended Dec. 31, 2022", "2022-12-31", 12), prose=True) == \
        "in the year ended December 31, 2022"
    # the heading's year printed on a line of its own under "Three Months Ended June 30,"
    assert column_period_name(Period("Three Months Ended June 30,", "2023-06-30", 3), prose=True) == \
        "in the three months ended June 30, 2023"


# -- held-out-9 classes (issue #12), with examples of our own ------------------------------------------------
def _read(text: str) -> list[tuple[int | None, int | None, date | None, str, bool]]:
    return [(m.year, m.quarter, m.date, m.span, m.fiscal) for m in find_periods(text).mentions]


def test_a_fiscal_quarter_written_the_sell_side_way() -> None:
    assert _read("cloud growth in FQ3'22?") == [(2022, 3, None, "", True)]
    assert _read("FQ1 2024 margin") == [(2024, 1, None, "", True)]
    assert _read("F4Q21 revenue") == [(2021, 4, None, "", True)]


def test_a_year_end_is_the_fiscal_year_whose_report_holds_it() -> None:
    assert _read("backlog at YE19?") == [(2019, None, None, "", True)]
    assert _read("cash at FYE 2020") == [(2020, None, None, "", True)]
    assert _read("debt at year-end 2018") == [(2018, None, None, "", True)]


def test_days_written_the_us_way_or_without_as_of() -> None:
    assert _read("deposits at 3/31/22") == [(2022, None, date(2022, 3, 31), "", False)]
    assert _read("inventory 9/30/2021 vs 12/31/2020")[0][2] == date(2021, 9, 30)
    assert _read("orders at the same point, Mar 31 2020?") == [(2020, None, date(2020, 3, 31), "", False)]
    assert _read("notes due December 31, 2026")[0][2] is None  # a date of the business, not a period asked
    assert _read("half of it: 1/2") == []


def test_a_span_of_months_to_its_closing_day() -> None:
    assert _read("opex for the nine months to September 30, 2022") == [(2022, 3, date(2022, 9, 30), YEAR_TO_DATE, False)]


def test_a_year_so_far_named_by_its_quarters() -> None:
    assert _read("sales for fiscal '23 so far, i.e. the first two quarters combined") == [(2023, 2, None, YEAR_TO_DATE, True)]
    assert _read("the first three quarters of 2022") == [(2022, 3, None, YEAR_TO_DATE, False)]
    assert _read("revenue 2022 so far") == [(2022, None, None, "", False)]  # how far is the thread's


def test_the_prior_year_equivalent_and_the_first_half_of_the_fiscal_year() -> None:
    assert relative_period("and the prior-year equivalent?") == PeriodShift(years=-1, text="prior-year equivalent")
    assert year_to_date("and the first half of the fiscal year?") is not None
    assert year_to_date("and the first half of the fiscal year?").quarters == 2  # type: ignore[union-attr]


def test_a_year_to_date_shifted_a_year_keeps_its_length() -> None:
    six = find_periods("the six months ended June 30, 2023").mentions[0]
    earlier = shift_mention(six, PeriodShift(years=-1))
    assert earlier is not None and mention_text(earlier) == "the six months ended June 30, 2022"


# -- the grammar analysts type (the follow-up robustness battery, eval/threads_variants.jsonl) ------
@pytest.mark.parametrize(
    ("text", "year", "quarter", "fiscal", "span"),
    [
        # the sell side's year to date with its year
        ("9M23 opex", 2023, 3, False, YEAR_TO_DATE),
        ("9M FY23", 2023, 3, True, YEAR_TO_DATE),
        ("6M'23", 2023, 2, False, YEAR_TO_DATE),
        # a slash between quarter and year
        ("Q3/FY23", 2023, 3, True, ""),
        ("4Q/FY23", 2023, 4, True, ""),
        ("FY24/Q1", 2024, 1, True, ""),
        ("Q2/23", 2023, 2, False, ""),
        # "fiscal" before the quarter, or before the year of "2023 Q3"
        ("fiscal Q3 '23", 2023, 3, True, ""),
        ("fiscal 2023 Q3", 2023, 3, True, ""),
        # a year named as a whole: the words are the period's, no company ("Full-year's revenue")
        ("full-year 2022", 2022, None, False, ""),
        ("CY22", 2022, None, False, ""),
        ("the back half of 2022", 2022, 4, False, "second half"),
    ],
)
def test_period_shorthand(text: str, year: int, quarter: int | None, fiscal: bool, span: str) -> None:
    m = find_periods(text).mentions
    assert len(m) == 1
    assert (m[0].year, m[0].quarter, m[0].fiscal, m[0].span) == (year, quarter, fiscal, span)
    if text.startswith(("full", "CY", "the back")):
        assert m[0].text == text  # the words are the period's


@pytest.mark.parametrize(
    ("text", "day", "span", "quarter"),
    [
        ("the 9M ended Sept 30, 2023", date(2023, 9, 30), YEAR_TO_DATE, 3),
        ("the 26 weeks ended July 30, 2023", date(2023, 7, 30), YEAR_TO_DATE, 2),  # a 52/53-week filer's heading
        ("the 13 weeks ended July 1, 2023", date(2023, 7, 1), "quarter", None),
        ("the 52 weeks ended August 30, 2020", date(2020, 8, 30), "year", None),
        ("the six months ended 6/30/23", date(2023, 6, 30), YEAR_TO_DATE, 2),  # a day written the US way
        ("the FY ended 5/31/19", date(2019, 5, 31), "year", None),
    ],
)
def test_spans_ended_however_their_length_is_written(text: str, day: date, span: str, quarter: int | None) -> None:
    m = find_periods(text).mentions
    assert len(m) == 1 and (m[0].date, m[0].span, m[0].quarter) == (day, span, quarter)


def test_bare_nine_months_shorthand_is_the_year_to_date() -> None:
    from desktop_rag.core.domain.periods import year_to_date

    assert year_to_date("9M?") is not None and year_to_date("9M?").quarters == 3  # type: ignore[union-attr]
    assert year_to_date("and 6M") is not None and year_to_date("and 6M").quarters == 2  # type: ignore[union-attr]
    # an amount or a count is no period
    assert year_to_date("$9M of revenue") is None
    assert year_to_date("9M shares repurchased") is None


def test_last_fiscal_year_of_a_quarter_is_the_whole_fiscal_year_before() -> None:
    from desktop_rag.core.domain.periods import relative_period

    q1 = PeriodMention("Q1 FY2024", 0, 9, year=2024, quarter=1, fiscal=True)
    shift = relative_period("last fiscal year?")
    assert shift is not None and shift.whole_year
    assert shift_mention(q1, shift) == PeriodMention("", 0, 0, year=2023, fiscal=True)
    # "the prior year" of a quarter is still that quarter a year earlier
    prior = relative_period("and the prior year?")
    assert prior is not None and not prior.whole_year
    assert shift_mention(q1, prior) == PeriodMention("", 0, 0, year=2023, quarter=1, fiscal=True)


def test_a_message_of_only_a_month_and_year_names_that_quarter() -> None:
    from desktop_rag.core.domain.periods import month_year_alone

    for text in ("Mar-23?", "and March '23?", "what about Mar 2023"):
        found = month_year_alone(text)
        assert found is not None and (found.month, found.year) == (3, 2023)
    assert month_year_alone("who did they name as CEO in aug 2022") is None  # a month in a sentence
    assert month_year_alone("may 23") is None  # a day, not a year


@pytest.mark.parametrize(
    ("text", "year", "quarter", "fiscal", "span"),
    [
        ("Q1 CY23", 2023, 1, False, ""),  # a calendar quarter said to be one
        ("1Q CY2023", 2023, 1, False, ""),
        ("fiscal 2Q23", 2023, 2, True, ""),
        ("Q1-Q3 2023", 2023, 3, False, YEAR_TO_DATE),  # the quarters from the first: the year to date
        ("1Q-3Q23", 2023, 3, False, YEAR_TO_DATE),
        ("FYE May-21", 2021, None, True, ""),  # a fiscal year end with its closing month
    ],
)
def test_period_shorthand_written_after_the_first_fixes(text: str, year: int, quarter: int | None, fiscal: bool,
                                                        span: str) -> None:
    m = find_periods(text).mentions
    assert len(m) == 1 and m[0].text == text
    assert (m[0].year, m[0].quarter, m[0].fiscal, m[0].span) == (year, quarter, fiscal, span)


def test_relative_shorthand_py_and_fiscal_years_back() -> None:
    from desktop_rag.core.domain.periods import relative_period, year_to_date

    py = relative_period("and the PY quarter?")
    assert py is not None and (py.quarters, py.years) == (0, -1)
    back = relative_period("and two fiscal years back?")
    assert back is not None and (back.quarters, back.years) == (0, -2)
    half = year_to_date("and the half year?")
    assert half is not None and half.quarters == 2


def test_a_quarter_of_a_year_named_relative_to_the_threads() -> None:
    from desktop_rag.core.domain.periods import quarter_without_year, relative_period

    for text, quarter, years in (("and Q2 last year?", 2, -1), ("and last year's Q2?", 2, -1),
                                 ("Q1 of the prior year", 1, -1), ("this year's Q1", 1, 0),
                                 ("the second quarter of last year", 2, -1)):
        found = quarter_without_year(text)
        assert found is not None and (found.quarter, found.years) == (quarter, years), text
        assert relative_period(text) is None, text  # no shift of the thread's quarter a year back
    assert relative_period("and same time last year?") is not None  # the same period a year earlier


@pytest.mark.parametrize(
    ("text", "year", "quarter", "span"),
    [
        ("the second quarter of '23", 2023, 2, ""),
        ("2022 full year", 2022, None, ""),
        ("first half 22", 2022, 2, YEAR_TO_DATE),
        ("second half 22", 2022, 4, "second half"),
        ("3Q23 YTD", 2023, 3, YEAR_TO_DATE),  # a quarter with "YTD" beside it is its year to date
        ("YTD Q3 2023", 2023, 3, YEAR_TO_DATE),
    ],
)
def test_more_period_shorthand(text: str, year: int, quarter: int | None, span: str) -> None:
    m = find_periods(text).mentions
    assert len(m) == 1 and (m[0].year, m[0].quarter, m[0].span) == (year, quarter, span)
    assert m[0].end == len(text)  # all the words are the period's


def test_second_half_and_quarter_ytd_of_the_threads_year() -> None:
    from desktop_rag.core.domain.periods import SECOND_HALF, quarter_without_year, year_to_date, year_to_date_of

    q3 = PeriodMention("Q3 2023", 0, 7, year=2023, quarter=3)
    for text in ("and the back half?", "the second half?", "H2?"):
        found = year_to_date(text)
        assert found is not None and found.second_half, text
        assert year_to_date_of(q3, found) == PeriodMention("", 0, 0, year=2023, quarter=4, span=SECOND_HALF)
    ytd = year_to_date("and Q3 YTD?")
    assert ytd is not None and ytd.quarters == 3 and quarter_without_year("and Q3 YTD?") is None
    assert year_to_date("the nine months YTD") is not None and year_to_date("the nine months YTD").text == \
        "the nine months YTD"  # type: ignore[union-attr]


def test_counts_and_lengths_written_other_ways() -> None:
    from desktop_rag.core.domain.periods import relative_period, year_ago_before, year_to_date

    found = find_periods("and over the first 9 months of FY24?").mentions
    assert len(found) == 1 and (found[0].year, found[0].quarter, found[0].fiscal, found[0].span) == (
        2024, 3, True, YEAR_TO_DATE)
    later = relative_period("and five years later?")
    assert later is not None and later.years == 5
    nine = year_to_date("give me the nine-month number")
    assert nine is not None and nine.quarters == 3
    text = "and the year-ago June quarter?"
    assert year_ago_before(text, text.index("June")) == text.index("year-ago")
    assert year_ago_before("and the June quarter?", 8) == -1


def test_years_that_name_a_report() -> None:
    from desktop_rag.core.domain.periods import names_a_report

    def named(text: str) -> list[str]:
        return [m.text for m in find_periods(text).mentions if names_a_report(text, m)]

    assert named("the class action described in the 2020 10-K") == ["2020"]
    assert named("according to American Water's 2022 annual report") == ["2022"]
    assert named("per its Q3 2022 10-Q, what cost was recorded?") == ["Q3 2022"]
    assert named("What was revenue in 2021?") == []


@pytest.mark.parametrize(
    ("text", "year", "quarter", "fiscal"),
    [
        ("and NA for the quarter a year before Q3 '23", 2022, 3, False),
        ("the quarter two quarters before Q1 FY2024", 2023, 3, True),
    ],
)
def test_a_shift_from_the_period_written_after_it(text: str, year: int, quarter: int, fiscal: bool) -> None:
    found = shifted_named_period(text)
    assert found is not None and (found.period.year, found.period.quarter, found.period.fiscal) == (year, quarter, fiscal)
    assert text[found.start:found.end].startswith("the quarter") and text[found.end - 3:found.end] in ("'23", "024")


def test_a_shift_from_the_thread_s_period_is_no_named_shift() -> None:
    assert shifted_named_period("and a year before that quarter?") is None
    assert shifted_named_period("the quarter before, Q3 2023 was asked") is None


def test_fiscal_ytd_of_a_dated_quarter_through_the_filer_s_calendar() -> None:
    quarter = find_periods("the quarter ended October 30, 2022").mentions[0]
    ytd = year_to_date("opex and net income, fiscal YTD")
    assert ytd is not None and ytd.text == "fiscal YTD"
    # a January fiscal year end: the quarter ended in October is its third
    found = year_to_date_of(quarter, ytd, FiscalCalendar(2024, 2, date(2023, 7, 30)))
    assert found is not None and mention_text(found) == "the nine months ended October 30, 2022"
    assert year_to_date_of(quarter, ytd) is None  # no calendar: how far into its year is not known


@pytest.mark.parametrize(("text", "quarters", "words"),
                         [("the 9 mo to Sept 30?", 3, "the 9 mo to Sept 30"), ("6 mths to June 30", 2, "6 mths to June 30"),
                          ("and the 9 mos", 3, "the 9 mos")])
def test_a_year_to_date_in_shorthand_or_to_a_day_without_its_year(text: str, quarters: int, words: str) -> None:
    found = year_to_date(text)
    assert found is not None and (found.quarters, found.text) == (quarters, words)
    # with its year it is a dated span, read by find_periods
    assert year_to_date("the nine months ended Sept 30, 2023") is None


# -- releases of results: their own quarter and its end ------------------------------------------

@pytest.mark.parametrize(
    ("release", "expected"),
    [
        # the fiscal year it names, the end its prose gives (a retailer's twelve-week quarter)
        ("Acme Wholesale Corporation Reports First Quarter\nFiscal Year 2023 Operating Results\n"
         "today announced its operating results for the first quarter (twelve weeks) of fiscal 2023, ended\n"
         "November 20, 2022.\n12 Weeks Ended November 20, 2022", (2023, 1, date(2022, 11, 20))),
        # a fiscal year named a year after the calendar year the quarter ends in
        ("Acme Announces Strong First Quarter Fiscal 2024 Results\nresults for its first quarter fiscal 2024 ended "
         "April 30, 2023.\nThree Months Ended April 30, 2023 Three Months Ended April 30, 2022\n"
         "Full Year FY24 revenue guidance; fiscal year ended January 31, 2024", (2024, 1, date(2023, 4, 30))),
        # the end from its statements' columns (a 52/53-week quarter)
        ("Acme Reports First Quarter 2023 Financial Results\nOther, net for the quarters ended March 26, 2023 and "
         "March 27, 2022 include net gains", (2023, 1, date(2023, 3, 26))),
        # "second-quarter" hyphenated; the prior year's quarter is named too
        ("Acme Corporation Reports Second-Quarter Results\nrecorded second quarter 2023 income compared with the "
         "second quarter of 2022. Three Months Ended June 30, 2023 quarter ended June 30, 2023", (2023, 2, date(2023, 6, 30))),
    ],
)
def test_release_period_is_its_quarter_and_that_quarters_end(release: str, expected: tuple[int, int, date]) -> None:
    from desktop_rag.core.domain.periods import release_period

    got = release_period(release)
    assert got is not None and (got.fiscal_year, got.fiscal_quarter, got.period_end) == expected
    cover = cover_period(release, "earnings")
    assert (cover.fiscal_year, cover.fiscal_quarter, cover.period_end) == expected


def test_an_event_8k_is_dated_not_a_quarter() -> None:
    # only Item 2.02 furnishes results: "results of operations and financial condition" in an
    # 8-K's other items is risk language
    restructuring = ("FORM 8-K\nJanuary 4, 2023\nDate of Report (date of earliest event reported)\n"
                     "Item 2.05 Costs Associated with Exit or Disposal Activities\nThe Plan may affect our results "
                     "of operations and financial condition. Fourth quarter of fiscal 2023 results will include charges.")
    got = cover_period(restructuring, "8-K")
    assert (got.period_end, got.fiscal_year, got.fiscal_quarter) == (date(2023, 1, 4), 2023, None)
    assert released_quarter(restructuring) is None


def test_a_prose_mention_of_another_quarters_report_is_no_footer() -> None:
    cover = ("FORM 10-Q\nFor the quarterly period ended October 1, 2022\n"
             "The Risk Factors section in our 2021 Form 10-K, as updated by our Q1 2022 Form 10-Q, remains current in "
             "all material respects.\n")
    got = cover_period(cover, "10-Q")
    assert (got.fiscal_year, got.fiscal_quarter) == (2022, 3)
    footer = cover.replace("October 1, 2022", "April 1, 2023") + "Acme Inc. | Q2 2023 Form 10-Q | 4\n"
    assert (cover_period(footer, "10-Q").fiscal_year, cover_period(footer, "10-Q").fiscal_quarter) == (2023, 2)


def test_the_month_a_fiscal_year_ends_from_what_a_filing_says_of_itself() -> None:
    from desktop_rag.core.domain.periods import fiscal_year_end_month_of

    assert fiscal_year_end_month_of(2024, 2, "2023-07-31") == 1  # a January year end
    assert fiscal_year_end_month_of(2023, 1, "2022-12-31") == 9  # a September year end
    assert fiscal_year_end_month_of(2023, 1, "2022-11-20") == 8  # 52/53 weeks ending around Sept 1
    assert fiscal_year_end_month_of(2022, None, "2022-06-30") == 6
    assert fiscal_year_end_month_of(2023, 2, "2023-06-30") == 12
    assert fiscal_year_end_month_of(None, 2, "2023-06-30") is None
    assert fiscal_year_end_month_of(2021, 2, "2023-06-30") is None  # the three disagree


@pytest.mark.parametrize(("text", "years"), [
    ("combined capital expenditures for 2014 through 2016", {2014, 2016}),
    ("net income from fiscal 2016 until 2018", {2016, 2018}),
    ("the credit facility runs through 2026", set()),  # a date of the business, no period asked
])
def test_the_end_of_a_range_of_years_is_a_period_asked(text: str, years: set[int]) -> None:
    assert find_periods(text).years == years
