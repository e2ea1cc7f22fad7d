"""Extraction at ingest and the stored statements of each document.

Statements live in the index's SQLite (``statements`` table, one JSON list per document,
tagged with ``EXTRACTOR_VERSION``). A document extracted by an older extractor (or
ingested before statements existed) is re-extracted on first use: from its PDF when the
file is still where it was ingested from and unchanged (cell boxes available), otherwise
from the stored page texts (spans only). Nothing is re-embedded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf

from desktop_rag.core.domain.types import Document
from desktop_rag.core.index.backends.base import LibraryStore
from desktop_rag.core.ingest.pdf import PageText, PdfError, extract_page, file_sha256, open_pdf
from desktop_rag.core.ingest.statements.model import EXTRACTOR_VERSION, Statement
from desktop_rag.core.ingest.statements.table_reader import candidate_pages, extract_statements

log = logging.getLogger(__name__)


def extract_from_pdf(pdf: pymupdf.Document | None, pages: list[PageText]) -> list[Statement]:
    """Statements of a document whose canonical page texts are ``pages``. Candidate pages
    are re-read with character boxes from ``pdf`` (cheap: a handful of pages); a page whose
    text would differ from the stored text keeps the stored text, without boxes."""
    chosen: list[PageText] = []
    for i in candidate_pages([p.text for p in pages]):
        page = pages[i]
        if pdf is not None and page.boxes is None:
            try:
                boxed = extract_page(pdf[i], with_boxes=True)
                if boxed.text == page.text:
                    page = boxed
            except Exception as exc:  # a broken content stream: keep the text-only page
                log.debug("no boxes for page %d: %s", i + 1, exc)
        chosen.append(page)
    try:
        return extract_statements(chosen)
    except Exception:  # extraction must never break an ingest
        log.exception("statement extraction failed")
        return []


def to_rows(statements: list[Statement]) -> list[dict[str, Any]]:
    """Statements as stored (JSON-able, with their pages)."""
    return [s.to_json() | {"pages": s.pages} for s in statements]


def save(store: LibraryStore, doc_id: str, statements: list[Statement]) -> None:
    store.save_statements(doc_id, EXTRACTOR_VERSION, to_rows(statements))


def extract_at(path: Path | None, pages: list[PageText]) -> list[Statement]:
    """``extract_from_pdf`` with the PDF at ``path`` (None, or a file that cannot be opened:
    from the page texts alone, without cell boxes)."""
    pdf = None
    try:
        pdf = open_pdf(path) if path is not None else None
    except (OSError, PdfError):
        pdf = None
    try:
        return extract_from_pdf(pdf, pages)
    finally:
        if pdf is not None:
            pdf.close()


Extract = Callable[[Path | None, list[PageText]], list[Statement]]


def statements_for(store: LibraryStore, doc: Document, extract: Extract = extract_at) -> list[Statement]:
    """The document's statements, (re-)extracting them when missing or stale (``extract``:
    in this process, or a library's PDF reader's helper process)."""
    stored = store.load_statements(doc.doc_id)
    if stored is not None and stored[0] == EXTRACTOR_VERSION:
        return [Statement.from_json(d) for d in stored[1]]
    texts = store.page_texts(doc.doc_id)
    pages = [PageText(i + 1, t) for i, t in enumerate(texts)]
    path: Path | None = Path(doc.path)
    try:
        if not (path is not None and path.is_file() and file_sha256(path) == doc.doc_id):
            path = None  # moved or changed: the stored texts alone
    except OSError:
        path = None
    statements = extract(path, pages)
    if store.can_write():  # a team reader extracts for itself without storing
        save(store, doc.doc_id, statements)
    return statements
