"""Share counts read with the scale they are printed in, on real filings: the cover page's
shares outstanding (plain counts, "4,127 million", "2.47 billion") and the weighted-average
share rows of income statements whose share scale differs from the dollars'."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.calculate.shares import cover_shares, share_rows_scale
from desktop_rag.core.ingest.pdf import extract_page, open_pdf
from desktop_rag.core.ingest.statements.table_reader import extract_statements
from tests.conftest import REPO_ROOT

REPO = REPO_ROOT
SHARED = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()), REPO.parent / "shared")
SEC10Q = SHARED / "sec10q" / "pdfs"
FINANCEBENCH = SHARED / "financebench-dev" / "pdfs"


def _texts(path: Path, n: int = 3) -> list[str]:
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        return [extract_page(pdf[i]).text for i in range(min(n, len(pdf)))]
    finally:
        pdf.close()


@pytest.mark.parametrize(("path", "value", "as_of", "printed"), [
    (REPO / "corpus" / "2023 Q3 AAPL.pdf", 15_634_232_000, "2023-07-21", "15,634,232,000"),
    (SEC10Q / "2023 Q3 INTC.pdf", 4_216_000_000, "2023-10-20", "4,216 million"),
    (SEC10Q / "2023 Q3 NVDA.pdf", 2_470_000_000, "2023-11-17", "2.47 billion"),
    (FINANCEBENCH / "JPMORGAN_2023Q2_10Q.pdf", 2_906_085_273, "2023-06-30", "2,906,085,273"),
    # the answer after the cover's own instruction ("Indicate the number of shares outstanding ...:")
    (FINANCEBENCH / "AMERICANWATERWORKS_2021_10K.pdf", 181_724_991, "2022-02-10", "181,724,991"),
])
def test_cover_shares_outstanding_with_the_scale_printed_beside_them(path: Path, value: int, as_of: str,
                                                                     printed: str) -> None:
    texts = _texts(path)
    found = cover_shares(texts)
    assert found is not None
    assert (found.value, found.as_of, found.text) == (value, as_of, printed)
    page = texts[found.page - 1]
    assert page[found.cell[0]:found.cell[1]] == printed
    assert found.span[0] <= found.cell[0] < found.cell[1] <= found.span[1]
    assert "outstanding" in page[found.span[0]:found.span[1]]


def test_cover_with_share_classes_and_no_clear_sentence_gives_nothing() -> None:
    # "... held by non-affiliates were: Class A $ ... As of July 19, 2019, the number of shares
    # ... outstanding were: Class A ... Class B ... <total>": one run-on sentence mixing market
    # values and counts; no figure rather than a guess
    assert cover_shares(_texts(FINANCEBENCH / "NIKE_2019_10K.pdf")) is None


def test_cover_shares_reads_no_market_value_or_par_value() -> None:
    texts = ["The aggregate market value of the voting stock held by non-affiliates of the registrant was "
             "$1,234,567,890 based on 12,345,678 shares outstanding as of June 30, 2022.",
             "There were 100,000,000 shares of common stock, $0.01 par value, outstanding as of Jan. 31, 2023."]
    found = cover_shares(texts)
    assert found is not None and found.value == 100_000_000 and found.page == 2 and found.as_of == "2023-01-31"


def _income(path: Path, page: int):
    if not path.is_file():
        pytest.skip(f"filing not found at {path}")
    pdf = open_pdf(path)
    try:
        p = extract_page(pdf[page - 1], with_boxes=True)
    finally:
        pdf.close()
    st = next(s for s in extract_statements([p]) if s.kind == "income")
    return st, p.text


@pytest.mark.parametrize(("path", "page", "label", "scale"), [
    # "(In millions, except number of shares, which are reflected in thousands, and per-share amounts)"
    (REPO / "corpus" / "2023 Q3 AAPL.pdf", 4, "Diluted", "thousands"),
    # "(in millions, except per share data)": the counts are in millions like the dollars
    (FINANCEBENCH / "JPMORGAN_2023Q2_10Q.pdf", 96, "Weighted-average diluted shares", "millions"),
])
def test_weighted_average_share_rows_in_the_scale_their_note_gives(path: Path, page: int, label: str, scale: str) -> None:
    st, text = _income(path, page)
    row = next(r for r in st.rows if r.label == label and r.unit == "shares")
    p = st.periods[0]
    assert share_rows_scale(st, row, text, p.end, p.months) == scale


def test_a_share_scale_the_statements_eps_contradicts_is_refused() -> None:
    st, text = _income(REPO / "corpus" / "2023 Q3 AAPL.pdf", 4)
    row = next(r for r in st.rows if r.label == "Basic" and r.unit == "shares")
    p = st.periods[0]
    # the same page with its note saying millions: basic EPS × shares would be a thousand
    # times the net income printed above, so the scale is not taken
    wrong = text.replace("which are reflected in thousands", "which are reflected in millions")
    assert share_rows_scale(st, row, wrong, p.end, p.months) is None
