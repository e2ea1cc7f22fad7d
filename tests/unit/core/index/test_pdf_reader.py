"""core/index/pdf_reader.py: a PDF read in a helper process gives what ingest reads in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.core.index.pdf_reader import ProcessPdfReader, read_pdf
from desktop_rag.core.ingest.pdf import PdfError, extract_document, open_pdf


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
    from desktop_rag.core.index.library import IngestReport, Library
    from desktop_rag.settings import Settings

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
