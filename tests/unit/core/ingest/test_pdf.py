"""core/ingest/pdf.py: canonical page text, character folding, quote -> rectangles, clear failures."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pymupdf
import pytest

from desktop_rag.core.ingest.pdf import (
    PageText,
    PdfError,
    check_text_layer,
    extract_document,
    extract_page,
    file_sha256,
    fold_char,
    fold_text,
    garbled_share,
    is_image_only,
    match_form,
    open_pdf,
)
from tests.conftest import REPO_ROOT

# A minimal PDF whose page tree has no kids: pymupdf refuses to save zero pages.
ZERO_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
    b"trailer\n<< /Root 1 0 R >>\n%%EOF\n"
)


# -- folding ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("year\u2013over\u2013year", "year-over-year"),  # en dash
        ("2023\u20142022", "2023-2022"),  # em dash
        ("\u2212265", "-265"),  # minus sign
        ("\u201cquoted\u201d and \u2018single\u2019", "\"quoted\" and 'single'"),
        ("net\u00a0sales", "net sales"),  # no-break space
        ("\ufb01nancial", "financial"),  # fi ligature (NFKC)
        ("co\u00adoperation", "cooperation"),  # soft hyphen disappears
        ("  many   spaces\n\tand lines  ", "many spaces and lines"),
    ],
)
def test_fold_text_variants(raw: str, folded: str) -> None:
    assert fold_text(raw) == folded


def test_fold_char_keeps_the_pages_own_characters() -> None:
    assert fold_char("a") == "a"
    assert fold_char("\ufb03") == "ffi"  # ligatures expand
    assert fold_char("\u00a0") == " "
    assert fold_char("\u00ad") == ""
    # typographic characters stay verbatim in the page text; only matching folds them
    for c in "\u2014\u2013\u2212\u2019\u201c\u201d":
        assert fold_char(c) == c


def test_match_form_folds_typography_one_for_one() -> None:
    text = "Apple\u2019s \u201cnet sales\u201d\n\u2212265 \u2013 2023\u20142022"
    out = match_form(text)
    assert out == "Apple's \"net sales\" -265 - 2023-2022"
    assert len(out) == len(text)


def test_find_matches_straight_quotes_and_shows_the_curly_original() -> None:
    page = PageText(1, "The Company\u2019s \u201ccore\u201d business grew \u2013 again.")
    quote = "Company's \"core\" business grew - again"
    start = page.find(quote)
    assert start == 4
    assert page.text[start:start + len(fold_text(quote))] == "Company\u2019s \u201ccore\u201d business grew \u2013 again"


def test_match_form_is_length_preserving() -> None:
    text = "Net sales\n81,797 82,959\nTotal"
    out = match_form(text)
    assert len(out) == len(text)
    assert "\n" not in out
    assert out.find("sales 81,797") == text.replace("\n", " ").find("sales 81,797")


def test_page_find_tolerates_dash_and_whitespace_variants() -> None:
    page = PageText(1, "Other income/(expense), net (265) (10)\nyear-over-year growth")
    assert page.find("Other  income/(expense),\nnet (265)") == 0
    assert page.find("(10) year\u2013over\u2013year") == page.text.index("(10)")
    assert page.find("not on this page") == -1
    assert page.find("   ") == -1  # empty after folding


# -- canonical text of a real filing -------------------------------------------------------
@pytest.fixture(scope="module")
def sample_pages(sample_pdf: Path) -> list[PageText]:
    doc = open_pdf(sample_pdf)
    try:
        return extract_document(doc)
    finally:
        doc.close()


def test_empty_password_encrypted_filing_opens(sample_pdf: Path) -> None:
    raw = pymupdf.open(sample_pdf)
    try:
        assert raw.is_encrypted or raw.metadata.get("encryption"), "fixture should be an encrypted filing"
    finally:
        raw.close()
    doc = open_pdf(sample_pdf)
    try:
        assert doc.page_count == 29
        assert not doc.needs_pass
    finally:
        doc.close()


def test_table_rows_are_joined_left_to_right(sample_pages: list[PageText]) -> None:
    income = sample_pages[3].text  # page 4: condensed consolidated statements of operations
    assert "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS" in income
    lines = income.split("\n")
    assert "Total net sales 81,797 82,959 293,787 304,182" in lines
    assert "Research and development 7,442 6,797 22,608 19,490" in lines


def test_canonical_text_rules(sample_pages: list[PageText]) -> None:
    for page in sample_pages:
        text = page.text
        assert "  " not in text, f"double space on page {page.number}"
        assert "\n\n" not in text
        assert not any(c in text for c in "\u00a0\u00ad\u200b"), page.number  # invisible/odd spaces go
        for line in text.split("\n"):
            assert line == line.strip(), f"untrimmed line on page {page.number}: {line!r}"
    assert [p.number for p in sample_pages] == list(range(1, 30))
    # the filing's own curly apostrophes are kept, so a shown quote is verbatim
    assert any("\u2019" in p.text for p in sample_pages)


def test_extraction_is_deterministic_and_boxes_align(sample_pdf: Path, sample_pages: list[PageText]) -> None:
    doc = open_pdf(sample_pdf)
    try:
        boxed = extract_page(doc[3], with_boxes=True)
    finally:
        doc.close()
    assert boxed.text == sample_pages[3].text
    assert boxed.boxes is not None
    assert len(boxed.boxes) == len(boxed.text)
    start = boxed.find("Total net sales 81,797")
    rects = boxed.rects_for(start, start + len("Total net sales 81,797"))
    assert len(rects) == 1
    x0, y0, x1, y1 = rects[0]
    assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792


def test_rects_for_needs_boxes() -> None:
    with pytest.raises(ValueError):
        PageText(1, "abc").rects_for(0, 2)


def test_quote_wrapping_two_lines_gives_two_rects(tmp_path: Path) -> None:
    path = tmp_path / "wrap.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 100), "The Company believes its balances of cash", fontsize=11)
    page.insert_text((50, 120), "will be sufficient to satisfy its requirements.", fontsize=11)
    doc.save(path)
    doc.close()
    pdf = open_pdf(path)
    try:
        pt = extract_page(pdf[0], with_boxes=True)
    finally:
        pdf.close()
    assert pt.text == "The Company believes its balances of cash\nwill be sufficient to satisfy its requirements."
    quote = "balances of cash will be sufficient"
    start = pt.find(quote)
    assert start > 0
    rects = pt.rects_for(start, start + len(fold_text(quote)))
    assert len(rects) == 2
    assert rects[0][3] <= rects[1][1] + 1  # first line above the second


def test_rotated_margin_text_is_not_part_of_the_page_text(tmp_path: Path) -> None:
    path = tmp_path / "stamp.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 100), "Body text of the filing", fontsize=11)
    page.insert_text((580, 700), "MARGIN STAMP", fontsize=8, rotate=90)
    doc.save(path)
    doc.close()
    pdf = open_pdf(path)
    try:
        assert extract_page(pdf[0]).text == "Body text of the filing"
    finally:
        pdf.close()


def test_file_sha256(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    data = b"abc" * 1_000_000  # spans several read blocks
    f.write_bytes(data)
    assert file_sha256(f) == hashlib.sha256(data).hexdigest()


# -- failures with reasons ---------------------------------------------------------------------
def _kind(path: Path) -> str:
    """The PdfError kind raised by open + extract + image check (what ingest does)."""
    try:
        doc = open_pdf(path)
    except PdfError as exc:
        return exc.kind
    try:
        pages = extract_document(doc)
        return "image_only" if is_image_only(pages, doc) else "ok"
    except PdfError as exc:
        return exc.kind
    finally:
        doc.close()


def test_password_protected(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((50, 60), "Confidential figures for the quarter", fontsize=11)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="o")
    doc.close()
    with pytest.raises(PdfError) as info:
        open_pdf(path)
    assert info.value.kind == "encrypted"
    assert "password" in str(info.value)


def test_truncated_real_filing_is_damaged(tmp_path: Path, sample_pdf: Path) -> None:
    data = sample_pdf.read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: int(len(data) * 0.4)])
    # mupdf "repairs" this into 29 empty pages; it must not be reported as a scan.
    assert _kind(path) == "corrupt"


def test_random_bytes_after_header_is_damaged(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(rng.randrange(256) for _ in range(4000)))
    assert _kind(path) == "corrupt"
    with pytest.raises(PdfError, match="damaged"):
        open_pdf(path)


def test_zero_pages(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(ZERO_PAGE_PDF)
    with pytest.raises(PdfError, match="no pages") as info:
        open_pdf(path)
    assert info.value.kind == "empty"


def test_image_only(tmp_path: Path, sample_pdf: Path) -> None:
    src = pymupdf.open(sample_pdf)
    pix = src[3].get_pixmap(dpi=40)
    out = pymupdf.open()
    page = out.new_page(width=src[3].rect.width, height=src[3].rect.height)
    page.insert_image(page.rect, pixmap=pix)
    path = tmp_path / "scan.pdf"
    out.save(path)
    out.close()
    src.close()
    assert _kind(path) == "image_only"
    assert "OCR" in PdfError("image_only").args[0]


# the first lines of an earnings release whose Type 3 fonts carry no character map, as the
# text layer gives them (the real words are "Revenues", "Company-operated sales" ...)
_SCRAMBLED = ("!\"!! #$ %&$' ( )$* +,-./,0-12,03 4./0-.5 0/6.-7 %8$9 %9$: +,-./,0-12,03 ;.<.324=.,-03 "
              "1>.,7.5 0/6.-7 ?@AB CD$E FG?H 9:;< =>?@ 7$8* 3,4-5 (6)7 /,0-12 ;.<.3 +,-./ 0/6. 1>.,7 ")
_READABLE = ("Revenues from franchised restaurants 14,105.8 13,085.4 10,726.1 Company-operated sales "
             "8,748.3 9,787.4 8,139.2 Total revenues $ 23,182.6 $ 23,222.9 (in millions, except per "
             "share data) Operating income increased 12% (14% in constant currencies) due to stronger sales. ")


def test_a_text_layer_that_is_not_words_is_refused_with_its_reason() -> None:
    """Scrambled glyph codes are neither words nor figures; statements and prose are."""
    assert garbled_share(_SCRAMBLED * 2) > 0.5
    assert garbled_share(_READABLE * 2) < 0.1
    scrambled = [PageText(i, _SCRAMBLED * 2) for i in range(1, 9)] + [PageText(9, _READABLE * 2)]
    with pytest.raises(PdfError) as info:
        check_text_layer(scrambled, None)  # type: ignore[arg-type]
    assert info.value.kind == "garbled" and "OCR" in str(info.value) and "8 of 9 pages" in str(info.value)
    # a few scrambled pages (a logo page, a chart) among readable ones are kept
    mostly = [PageText(i, _READABLE * 2) for i in range(1, 9)] + [PageText(9, _SCRAMBLED * 2)]
    check_text_layer(mostly, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("content", [b"just a text file\n", "zip"])
def test_not_a_pdf(tmp_path: Path, content: bytes | str) -> None:
    path = tmp_path / "renamed.pdf"
    if content == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("word/document.xml", "<w:document/>")
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
    with pytest.raises(PdfError, match="not a PDF") as info:
        open_pdf(path)
    assert info.value.kind == "not_pdf"


def test_unreadable_paths(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match="cannot read") as info:
        open_pdf(tmp_path / "missing.pdf")
    assert info.value.kind == "unreadable"
    folder = tmp_path / "x.pdf"
    folder.mkdir()
    with pytest.raises(PdfError, match="cannot read"):
        open_pdf(folder)


def test_text_pdf_is_not_image_only(make_pdf) -> None:
    path = make_pdf("ok.pdf", ["Revenue grew in the quarter because of strong demand for services."])
    assert _kind(path) == "ok"


# -- reading order: two-column prose vs tables ------------------------------------------------
LEFT_COLUMN = [
    "The following is the discussion and analysis by management of",
    "the financial condition and results of operations of the",
    "company for the first quarter of the year, which should",
    "be read together with the annual report on the form for",
    "the prior year and the notes to the financial statements.",
    "For management reporting purposes, activities are organized",
]
RIGHT_COLUMN = [
    "into four major reportable business segments, as well as a",
    "corporate segment that holds treasury and other activities",
    "of the firm and its subsidiaries in the United States and",
    "abroad, which are described in the note on business segments",
    "and in the glossary of terms used throughout this report on",
    "the form for the quarter ended on the last day of March.",
]


def _two_column_pdf(path: Path, left: list[str], right: list[str], x_right: float = 320) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((50, 60), "MANAGEMENT DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS", fontsize=9)
    y = 90.0
    for a, b in zip(left, right, strict=True):
        page.insert_text((50, y), a, fontsize=9)
        page.insert_text((x_right, y), b, fontsize=9)
        y += 14
    page.insert_text((300, 760), "7", fontsize=9)
    doc.save(path)
    doc.close()
    return path


def _page_text(path: Path) -> str:
    pdf = open_pdf(path)
    try:
        return extract_page(pdf[0], with_boxes=True).text
    finally:
        pdf.close()


def test_two_column_prose_is_read_column_by_column(tmp_path: Path) -> None:
    text = _page_text(_two_column_pdf(tmp_path / "cols.pdf", LEFT_COLUMN, RIGHT_COLUMN))
    lines = text.split("\n")
    assert lines[1:13] == LEFT_COLUMN + RIGHT_COLUMN  # the title first, then left, then right
    flat = match_form(text)
    assert "activities are organized into four major reportable business segments" in flat


def test_table_with_figures_beside_labels_stays_row_by_row(tmp_path: Path) -> None:
    labels = ["Net revenue of the consumer banking segment", "Noninterest expense of the segment",
              "Provision for credit losses of the segment", "Net income of the segment overall"]
    figures = ["32,266 29,224 (12) %", "18,749 17,667 6", "1,101 (2,285) NM", "8,649 11,948 (28)"]
    text = _page_text(_two_column_pdf(tmp_path / "table.pdf", labels, figures))
    for a, b in zip(labels, figures, strict=True):
        assert f"{a} {b}" in text.split("\n")


def test_two_column_table_of_names_stays_row_by_row(tmp_path: Path) -> None:
    names = ["Costco Wholesale Membership, Inc.", "Costco Wholesale Canada Ltd.", "Costco Insurance Agency, Inc.",
             "PriceCostco International, Inc.", "Costco Wholesale Japan, Ltd."]
    places = ["California Corporation Of The United States", "Canadian Federal Corporation Of Canada",
              "Washington State Corporation Of America", "Nevada State Corporation Of America",
              "Japan Corporation Of The Far East"]
    text = _page_text(_two_column_pdf(tmp_path / "names.pdf", names, places))
    for a, b in zip(names, places, strict=True):
        assert f"{a} {b}" in text.split("\n")


FINANCEBENCH_PDFS = REPO_ROOT.parent / "shared" / "data" / "financebench-dev" / "pdfs"


def test_real_bank_10q_two_column_page_reads_in_column_order() -> None:
    path = FINANCEBENCH_PDFS / "JPMORGAN_2021Q1_10Q.pdf"
    if not path.is_file():
        pytest.skip(f"financebench-dev filings not found at {FINANCEBENCH_PDFS}")
    pdf = open_pdf(path)
    try:
        page = extract_page(pdf[3], with_boxes=True)  # page 4: MD&A introduction, two columns
    finally:
        pdf.close()
    flat = match_form(page.text)
    assert ("the Firm's activities are organized into four major reportable business segments, "
            "as well as a Corporate segment") in flat
    assert "(\"MD&A\") of JPMorgan Chase & Co." in flat
    # never a left-column line glued to the right-column line on the same baseline
    assert not any("financial condition and results of operations" in ln and "Chase Bank" in ln
                   for ln in page.text.split("\n"))
    quote = "organized into four major reportable business segments"
    start = page.find(quote)
    assert len(page.rects_for(start, start + len(quote))) == 2  # wraps over two lines of one column



@pytest.mark.parametrize("name", ["2023 Q3 AAPL.pdf", "2023 Q2 NVDA.pdf"])
def test_text_read_by_spans_is_the_text_read_by_characters(name: str) -> None:
    # Ingest reads pages span by span (fast); the viewer and the statement cells read them
    # character by character (with boxes). A quote stored at ingest must be the viewer's text.
    from tests.conftest import CORPUS_DIR

    pdf = open_pdf(CORPUS_DIR / name)
    try:
        for page in pdf:
            fast, boxed = extract_page(page), extract_page(page, with_boxes=True)
            assert fast.boxes is None and boxed.boxes is not None
            assert fast.text == boxed.text, f"page {page.number + 1} of {name}"
    finally:
        pdf.close()


def test_text_read_by_spans_folds_and_joins_like_the_character_reading(tmp_path: Path) -> None:
    # leading, trailing and repeated white space, a non-breaking space, a line of two spans
    # in two fonts, and rows of two lines each
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "  Net\u00a0 sales \ufb01nal\u00ad ", fontname="helv")
    page.insert_text((200, 100), "1,234", fontname="cour")
    page.insert_text((230, 100), "\u200b  ", fontname="helv")
    page.insert_text((72, 130), "Total  assets", fontname="helv")
    page.insert_text((150, 130), "(56)", fontname="tibo")
    path = tmp_path / "spans.pdf"
    doc.save(path)
    pdf = open_pdf(path)
    try:
        fast, boxed = extract_page(pdf[0]), extract_page(pdf[0], with_boxes=True)
    finally:
        pdf.close()
    assert fast.text == boxed.text
    assert "Total assets (56)" in fast.text
