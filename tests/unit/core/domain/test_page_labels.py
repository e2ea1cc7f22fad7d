"""Printed page labels: footer/header numbers checked against neighbouring pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from desktop_rag.core.domain.page_labels import PageLabels, describe_page, label_from_lines
from tests.conftest import write_pdf


@pytest.mark.parametrize(("lines", "label"), [
    (["7"], "7"),
    (["Apple Inc. | Q3 2023 Form 10-Q | 12"], "12"),
    (["Page 7"], "7"),
    (["7 of 116"], "7"),
    (["- 14 -"], "14"),
    (["F-3"], "F-3"),
    (["ii"], "ii"),
    (["l"], ""),  # a lone letter is not a roman page number
    (["Total net sales 81,797"], ""),
    (["2023"], ""),  # a year, not a page
    (["", "Net income", "31"], "31"),
])
def test_label_from_lines(lines: list[str], label: str) -> None:
    assert label_from_lines(lines) == label


def filing(path: Path, pages: int, front: int, skip: set[int] = frozenset()) -> Path:  # type: ignore[assignment]
    texts = []
    for i in range(pages):
        body = [f"Page body {i + 1}", "Revenue grew.", *(["Risk Factors 22"] if i == 1 else [])]
        if i >= front and i not in skip:
            body += ["", "", f"{i + 1 - front}"]
        texts.append("\n".join(body))
    return write_pdf(path, texts)


def test_labels_follow_the_printed_numbers_not_the_pdf_index(tmp_path: Path) -> None:
    doc = pymupdf.open(filing(tmp_path / "f.pdf", pages=10, front=3, skip={6}))
    labels = PageLabels(doc)
    got = [labels.label(n) for n in range(1, 11)]
    # Contents page's "22" rejected; page 7 prints nothing but sits between 3 and 5.
    assert got == ["", "", "", "1", "2", "3", "4", "5", "6", "7"]
    assert labels.describe(10) == "p. 7 (PDF 10)"
    assert describe_page("", 2) == "p. 2" and describe_page("2", 2) == "p. 2"
    doc.close()
