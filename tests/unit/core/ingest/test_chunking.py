"""core/ingest/chunking.py: page-exact offsets, no page crossing, whole table rows, sizes, headings."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from desktop_rag.core.ingest.chunking import ChunkSpan, chunk_page, chunk_pages, heading_of, is_table_row, subheading_of
from desktop_rag.core.ingest.pdf import PageText, extract_document, open_pdf
from desktop_rag.settings import ChunkingSettings


def _words(n: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def _line_bounds(text: str) -> tuple[set[int], set[int]]:
    starts = {0} | {i + 1 for i, c in enumerate(text) if c == "\n"}
    ends = {len(text)} | {i for i, c in enumerate(text) if c == "\n"}
    return starts, ends


def _check_invariants(pages: list[PageText], spans: list[ChunkSpan]) -> None:
    by_number = {p.number: p for p in pages}
    for s in spans:
        assert s.page in by_number, s
        text = by_number[s.page].text
        assert 0 <= s.char_start < s.char_end <= len(text), s
        piece = text[s.char_start:s.char_end]
        assert piece == piece.strip(), f"chunk has untrimmed edges: {piece[:40]!r}"
        assert s.kind in ("text", "table")
    # Every word of every page is in some chunk of that page.
    for p in pages:
        covered = [False] * len(p.text)
        for s in spans:
            if s.page == p.number:
                for i in range(s.char_start, s.char_end):
                    covered[i] = True
        lost = "".join(c for c, cov in zip(p.text, covered) if not cov).split()
        assert not lost, f"page {p.number} loses {lost[:10]}"


@pytest.fixture(scope="module")
def real_pages(sample_pdf: Path) -> list[PageText]:
    doc = open_pdf(sample_pdf)
    try:
        return extract_document(doc)
    finally:
        doc.close()


def test_real_filing_chunks_are_page_slices(real_pages: list[PageText]) -> None:
    cfg = ChunkingSettings()
    spans = chunk_pages(real_pages, cfg)
    assert len(spans) > 29
    _check_invariants(real_pages, spans)
    # Chunks come in document order: page by page, offsets increasing within a page.
    keys = [(s.page, s.char_start) for s in spans]
    assert keys == sorted(keys)
    # The income statement (page 4) is a table chunk holding whole rows.
    tables = [s for s in spans if s.page == 4 and s.kind == "table"]
    assert tables
    text4 = real_pages[3].text
    starts, ends = _line_bounds(text4)
    for s in tables:
        assert s.char_start in starts and s.char_end in ends
    assert any("Total net sales 81,797 82,959 293,787 304,182" in text4[s.char_start:s.char_end] for s in tables)


def test_real_filing_table_rows_never_split(real_pages: list[PageText]) -> None:
    cfg = ChunkingSettings(words_per_chunk=60, overlap_words=10, min_chunk_words=5)
    spans = chunk_pages(real_pages, cfg)
    _check_invariants(real_pages, spans)
    for s in spans:
        if s.kind != "table":
            continue
        text = real_pages[s.page - 1].text
        starts, ends = _line_bounds(text)
        assert s.char_start in starts, (s, text[s.char_start - 10:s.char_start + 20])
        assert s.char_end in ends, (s, text[s.char_end - 20:s.char_end + 10])


def test_chunks_never_cross_pages() -> None:
    pages = [PageText(1, _words(70, "a")), PageText(2, _words(70, "b"))]
    cfg = ChunkingSettings(words_per_chunk=50, overlap_words=10, min_chunk_words=5)
    spans = chunk_pages(pages, cfg)
    _check_invariants(pages, spans)
    for s in spans:
        words = pages[s.page - 1].text[s.char_start:s.char_end].split()
        assert {w[0] for w in words} == {"a" if s.page == 1 else "b"}
    assert {s.page for s in spans} == {1, 2}


def test_window_size_and_overlap_respected() -> None:
    text = _words(500)
    cfg = ChunkingSettings(words_per_chunk=100, overlap_words=20, min_chunk_words=10, detect_tables=True)
    spans, _ = chunk_page(PageText(1, text), cfg)
    pieces = [text[s.char_start:s.char_end].split() for s in spans]
    assert all(s.kind == "text" for s in spans)
    assert [len(p) for p in pieces] == [100, 100, 100, 100, 100, 100]
    for prev, nxt in itertools.pairwise(pieces):
        assert prev[-20:] == nxt[:20]  # exactly overlap_words shared
    assert pieces[0][0] == "w0" and pieces[-1][-1] == "w499"


def test_zero_overlap_and_sliver_tail_absorbed() -> None:
    text = _words(205)
    cfg = ChunkingSettings(words_per_chunk=100, overlap_words=0, min_chunk_words=10)
    spans, _ = chunk_page(PageText(1, text), cfg)
    sizes = [len(text[s.char_start:s.char_end].split()) for s in spans]
    # 100 + 100 + a 5-word sliver: the sliver joins the last window instead of standing alone.
    assert sizes == [100, 105]
    assert sum(sizes) == 205


@pytest.mark.parametrize(("n_words", "overlap"), [(60, 300), (300, 45)])
def test_overlap_not_smaller_than_window_keeps_size(n_words: int, overlap: int) -> None:
    # words_per_chunk=40 with the default overlap of 45 is a valid settings combination:
    # the overlap is clamped to size-1, and windows must still respect the size (a stretched
    # last window adds fewer than min_chunk_words).
    text = _words(n_words)
    cfg = ChunkingSettings(words_per_chunk=40, overlap_words=overlap, min_chunk_words=25 if n_words > 100 else 1)
    spans, _ = chunk_page(PageText(1, text), cfg)
    sizes = [len(text[s.char_start:s.char_end].split()) for s in spans]
    assert len(spans) > 1
    assert max(sizes) < cfg.words_per_chunk + cfg.min_chunk_words, sizes
    assert text[spans[-1].char_start:spans[-1].char_end].split()[-1] == f"w{n_words - 1}"


def test_table_rows_kept_whole_when_split() -> None:
    rows = [f"Line item number {i} {1000 + i:,} {2000 + i:,} {3000 + i:,}" for i in range(30)]
    text = "Intro prose about the statement that follows in this report.\n" + "\n".join(rows)
    cfg = ChunkingSettings(words_per_chunk=40, overlap_words=5, min_chunk_words=3)
    spans, _ = chunk_page(PageText(1, text), cfg)
    tables = [s for s in spans if s.kind == "table"]
    assert len(tables) >= 3, "30 rows of 7 words must be split into several table chunks"
    starts, ends = _line_bounds(text)
    seen_rows: list[str] = []
    for s in tables:
        assert s.char_start in starts and s.char_end in ends
        assert len(text[s.char_start:s.char_end].split()) <= 40
        seen_rows += text[s.char_start:s.char_end].split("\n")
    assert [r for r in seen_rows if r in rows] == rows  # every row exactly once, in order


def test_detect_tables_off_gives_prose_only() -> None:
    rows = "\n".join(f"Item {i} {i},000 {i},500" for i in range(1, 8))
    cfg = ChunkingSettings(detect_tables=False)
    spans, _ = chunk_page(PageText(1, rows), cfg)
    assert {s.kind for s in spans} == {"text"}


def test_short_table_run_stays_prose() -> None:
    text = "Revenue 10 20\nCost 5 6\n" + _words(40)
    spans, _ = chunk_page(PageText(1, text), ChunkingSettings())
    assert {s.kind for s in spans} == {"text"}


def test_headings_recorded_and_carried_across_pages() -> None:
    p1 = PageText(1, "Item 2. Management's Discussion and Analysis\n" + _words(40, "m"))
    p2 = PageText(2, "Liquidity and Capital Resources\n" + _words(40, "l"))
    p3 = PageText(3, "CONDENSED CONSOLIDATED BALANCE SHEETS\n" + _words(40, "b"))
    spans = chunk_pages([p1, p2, p3], ChunkingSettings(min_chunk_words=5))
    by_page = {s.page: s.section for s in spans}
    assert by_page[1] == "Item 2. Management's Discussion and Analysis"
    assert by_page[2] == "Item 2. Management's Discussion and Analysis > Liquidity and Capital Resources"
    assert by_page[3] == "CONDENSED CONSOLIDATED BALANCE SHEETS"


def test_continued_table_chunks_are_marked() -> None:
    rows = "\n".join(f"Segment {i} revenue {i},100 {i},200 {i},300" for i in range(1, 30))
    text = "SEGMENT INFORMATION AND GEOGRAPHIC DATA\n" + rows
    spans, _ = chunk_page(PageText(1, text), ChunkingSettings(words_per_chunk=40, min_chunk_words=3))
    tables = [s for s in spans if s.kind == "table"]
    assert tables[0].section == "SEGMENT INFORMATION AND GEOGRAPHIC DATA"
    assert all(s.section.endswith("(continued)") for s in tables[1:])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Total net sales 81,797 82,959 293,787 304,182", True),
        ("Other income/(expense), net (265) (10) (594) (97)", True),
        ("Gross margin percentage 44.5 % 43.3 %", True),
        ("Basic $ 1.27 $ 1.20", True),
        ("The Company repurchased 5 million shares in 2023.", False),
        ("Net sales increased 8 % during the quarter.", False),
    ],
)
def test_is_table_row(line: str, expected: bool) -> None:
    assert is_table_row(line) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Item 1A. Risk Factors", "Item 1A. Risk Factors"),
        ("Note 3 - Financial Instruments", "Note 3 - Financial Instruments"),
        ("PART II - OTHER INFORMATION", "PART II - OTHER INFORMATION"),
        ("CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS (Unaudited)",
         "CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS (Unaudited)"),
        ("The Company believes its cash is sufficient.", None),
        ("NET", None),
    ],
)
def test_heading_of(line: str, expected: str | None) -> None:
    assert heading_of(line) == expected


def test_subheading_of() -> None:
    assert subheading_of("Liquidity and Capital Resources") == "Liquidity and Capital Resources"
    assert subheading_of("Three Months Ended") is None  # a table header, not a heading
    assert subheading_of("Total 2023") is None
    assert subheading_of("the company believes") is None


@pytest.mark.parametrize(
    ("line", "furniture"),
    [
        ("59", True), ("Page 7", True), ("- 12 -", True), ("F-12", True), ("Table of Contents", True),
        ("JPMorgan Chase & Co./2021 Form 10-Q 5", True), ("Apple Inc. | Q3 2022 Form 10-Q | 4", True),
        ("2021", False),  # a column heading, not a page number
        ("Net sales 1,234 5,678", False), ("revenue increased 12", False),
    ],
)
def test_page_furniture(line: str, furniture: bool) -> None:
    from desktop_rag.core.ingest.chunking import is_page_furniture

    assert is_page_furniture(line) is furniture


def test_typographic_minus_and_dash_cells_are_figures() -> None:
    assert is_table_row("Other income (expense) \u2212265 \u22121,204 \u2014")
    assert not is_table_row("Other income (expense) 265 \u2014 \u2014")  # dashes are empty cells
    assert is_table_row("Restructuring charges \u2013 1,204 \u2013 (2,000)")
