"""core/index/pdf_reader.py: a PDF read in a helper process gives what ingest reads in process,
and every citation names its page as the filing prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.domain.page_labels import cited_page
from desktop_rag.core.index.library import IngestReport, Library
from desktop_rag.core.index.pdf_reader import ProcessPdfReader, read_pdf
from desktop_rag.core.ingest.pdf import PdfError, extract_document, open_pdf
from desktop_rag.settings import Settings
from tests.conftest import APPLE_PAGES, write_pdf


def numbered(path: Path, pages: list[str], front: int) -> Path:
    """``pages`` with a printed page number at the foot of each page after ``front`` pages
    (a cover and a contents page make the printed number two less than the PDF's)."""
    return write_pdf(path, [t + (f"\n\n\n{i + 1 - front}" if i >= front else "") for i, t in enumerate(pages)])


def test_a_helper_process_reads_what_ingest_reads_in_process(tmp_path: Path, sample_pdf: Path) -> None:
    reader = ProcessPdfReader()
    try:
        apart = reader.read(sample_pdf)
        pdf = open_pdf(sample_pdf)
        try:
            assert [p.text for p in apart.pages] == [p.text for p in extract_document(pdf)]
        finally:
            pdf.close()
        here = read_pdf(sample_pdf)
        assert [s.to_json() for s in apart.statements] == [s.to_json() for s in here.statements]
        assert apart.statements, "the bundled 10-Q has statements"
        # why a file cannot be added survives the trip between processes
        bad = tmp_path / "notes.pdf"
        bad.write_text("not a pdf")
        with pytest.raises(PdfError) as err:
            reader.read(bad)
        assert err.value.kind == "not_pdf"
    finally:
        reader.close()


def test_a_library_reading_in_helper_processes_stores_what_it_stores_reading_in_process(
        tmp_path: Path, sample_pdf: Path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    stored = []
    for apart in (False, True):
        lib = Library(tmp_path / f"data{apart}", Settings(), fake_embedder)
        if apart:
            lib.pdf_reader = ProcessPdfReader()
        try:
            report = IngestReport()
            for _ in lib.ingest([sample_pdf], report=report):
                pass
            assert report.added and not report.failed
            [doc] = lib.documents()
            stored.append((lib.store.page_texts(doc.doc_id), lib.store.load_statements(doc.doc_id), doc.chunk_count))
            assert lib.page_label(doc.doc_id, 4) == "1"  # the income statement's page prints "1"
        finally:
            lib.close()
    assert stored[0] == stored[1]


@pytest.mark.parametrize("apart", [False, True])
def test_an_answer_names_the_page_its_filing_prints(tmp_path: Path, fake_embedder, apart: bool) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.answer.engine import AnswerEngine

    pages = ["Apple Inc.\nCover page", "Table of contents\nItem 1 Financial Statements 1", *APPLE_PAGES[1:]]
    pdf = numbered(tmp_path / "src" / "2023 Q3 AAPL.pdf", [APPLE_PAGES[0], *pages[1:]], front=2)
    lib = Library(tmp_path / "data", Settings(), fake_embedder)
    if apart:
        lib.pdf_reader = ProcessPdfReader()
    try:
        report = IngestReport()
        for _ in lib.ingest([pdf], report=report):
            pass
        assert report.added and not report.failed
        [doc] = lib.documents()
        assert lib.page_label(doc.doc_id, 3) == "1" and lib.page_label(doc.doc_id, 1) == ""
        answer = AnswerEngine(lib, lib.settings).ask("What were Apple's total net sales in Q3 2023?")
        cites = [*answer.citations, *(answer.calculation.inputs if answer.calculation else [])]
        assert cites and all(c.page == 3 and c.page_label == "1" for c in cites)
        assert {cited_page(c) for c in cites} == {"p. 1 (PDF 3)"}
        assert "page 3" not in answer.answer and ("p. 1 (PDF 3)" in answer.answer or not answer.computed)
    finally:
        lib.close()


def test_stale_statements_are_read_again_in_the_helper_process(tmp_path: Path, sample_pdf: Path,
                                                               fake_embedder) -> None:  # type: ignore[no-untyped-def]
    """Statements stored by another version of the statement reader are read again from the
    PDF, cell boxes included, in the helper process (not on the thread that asked)."""
    from desktop_rag.core.ingest.statements.model import EXTRACTOR_VERSION

    lib = Library(tmp_path / "data", Settings(), fake_embedder)
    lib.pdf_reader = ProcessPdfReader()
    try:
        for _ in lib.ingest([sample_pdf]):
            pass
        [doc] = lib.documents()
        fresh = [s.to_json() for s in lib.statements(doc.doc_id)]
        assert fresh and any(c.get("bbox") for s in fresh for r in s["rows"] for c in r["cells"])
        lib.store.save_statements(doc.doc_id, EXTRACTOR_VERSION - 1, [])
        assert [s.to_json() for s in lib.statements(doc.doc_id)] == fresh
        assert lib.store.load_statements(doc.doc_id)[0] == EXTRACTOR_VERSION  # type: ignore[index]
    finally:
        lib.close()
