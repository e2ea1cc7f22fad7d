"""Reading a PDF for the library: its canonical page texts, whether it has a text layer, its
statements (at ingest, and again for a stored document when the statement reader changed), and
the page numbers it prints (for citations: ``domain.page_labels``).

PyMuPDF holds Python's interpreter lock for the whole of each call, and one dense page of a
10-K takes up to a second to read. A front end that must stay responsive while a filing is
added (the window) therefore reads in helper processes (``ProcessPdfReader``): the ingest
thread waits on a pipe, which releases the lock, and the window's thread keeps running. The
command line reads in its own process (``PdfReader``), as it always did.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf

from desktop_rag.core.domain.page_labels import PageLabels
from desktop_rag.core.index import statement_store
from desktop_rag.core.ingest.pdf import PageText, PdfError, check_text_layer, extract_document, open_pdf
from desktop_rag.core.ingest.statements.model import Statement

log = logging.getLogger(__name__)


@dataclass
class ReadPdf:
    """What ingest needs of a PDF besides its bytes' hash."""

    pages: list[PageText]  # canonical page texts, no character boxes
    statements: list[Statement]  # the primary statements read from it (core/ingest/statements)


def read_pdf(path: Path) -> ReadPdf:
    """The page texts and statements of ``path``; PdfError when it cannot be ingested."""
    pdf = open_pdf(Path(path))
    try:
        pages = extract_document(pdf)
        check_text_layer(pages, pdf)
        return ReadPdf(pages, statement_store.extract_from_pdf(pdf, pages))
    finally:
        pdf.close()


class _Labels:
    """Printed page labels of the last few PDFs asked about (each kept open with its
    ``PageLabels``, which reads a page and its neighbours once)."""

    KEPT = 8

    def __init__(self) -> None:
        self._open: OrderedDict[str, tuple[pymupdf.Document, PageLabels]] = OrderedDict()
        self._lock = threading.Lock()

    def label(self, path: str, page: int) -> str:
        with self._lock:
            entry = self._open.get(path)
            if entry is None:
                try:
                    pdf = open_pdf(Path(path))
                except (PdfError, OSError):
                    return ""
                entry = (pdf, PageLabels(pdf))
                self._open[path] = entry
                while len(self._open) > self.KEPT:
                    self._open.popitem(last=False)[1][0].close()
            self._open.move_to_end(path)
            pdf, labels = entry
            if not 1 <= page <= pdf.page_count:
                return ""
            return labels.label(page)

    def close(self) -> None:
        with self._lock:
            for pdf, _labels in self._open.values():
                pdf.close()
            self._open.clear()


_CHILD_LABELS = _Labels()  # a helper process's own (each process opens its own files)


def statements_of(path: Path | None, pages: list[PageText]) -> list[Statement]:
    """A stored document's statements read again (another extractor version), in a helper
    process: the candidate pages are re-read with character boxes from ``path``."""
    return statement_store.extract_at(path, pages)


def page_label_of(path: str, page: int) -> str:
    """The label ``page`` of ``path`` prints ("72", "F-3"), "" when none (helper processes)."""
    return _CHILD_LABELS.label(path, page)


def _exit_with_parent(parent: int) -> None:
    """(In a helper process, at its start.) Exit when the process that started it is gone: a
    window that crashed or was killed must not leave its helpers behind."""

    def watch() -> None:
        while True:
            time.sleep(2.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="desktop_rag-parent-watch", daemon=True).start()


class PdfReader:
    """Reads in this process (the command line, tests)."""

    in_process = True

    def __init__(self) -> None:
        self._labels = _Labels()

    def read(self, path: Path) -> ReadPdf:
        return read_pdf(path)

    def page_label(self, path: Path, page: int) -> str:
        return self._labels.label(str(path), page)

    def statements(self, path: Path | None, pages: list[PageText]) -> list[Statement]:
        return statements_of(path, pages)

    def close(self) -> None:
        self._labels.close()


class ProcessPdfReader(PdfReader):
    """Reads in helper processes (started on first use, "spawn": no copy of this process's
    threads or open files). A PDF that crashes its helper fails alone, as a damaged file; the
    next read starts a new helper."""

    in_process = False
    WORKERS = 2  # a filing read beside a citation's page label, never one waiting for the other

    def __init__(self) -> None:
        super().__init__()
        self._pool: ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._closed = False

    def _submit(self, fn: Any, *args: Any) -> Future[Any]:
        with self._pool_lock:
            if self._closed:
                raise RuntimeError("the PDF reader is closed")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.WORKERS, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_exit_with_parent, initargs=(os.getpid(),))
            return self._pool.submit(fn, *args)

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return self._submit(fn, *args).result()
        except BrokenProcessPool as exc:
            log.warning("the PDF reader's helper process stopped (%s): starting a new one", exc)
            with self._pool_lock:
                broken, self._pool = self._pool, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            raise PdfError("corrupt", "reading it stopped the PDF reader") from exc

    def read(self, path: Path) -> ReadPdf:
        out: ReadPdf = self._call(read_pdf, Path(path))
        return out

    def page_label(self, path: Path, page: int) -> str:
        try:
            return str(self._call(page_label_of, str(path), page))
        except PdfError:
            return ""

    def statements(self, path: Path | None, pages: list[PageText]) -> list[Statement]:
        try:
            out: list[Statement] = self._call(statements_of, path, pages)
        except PdfError:  # the file broke its helper: the stored texts alone, here
            out = statement_store.extract_at(None, pages)
        return out

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        super().close()
