"""Statements are extracted at ingest, stored beside the chunks, and re-extracted (without
re-embedding) when the extractor version changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_rag.core.index import statement_store


def test_ingest_stores_statements(build_library: Callable[..., object]) -> None:
    lib = build_library()
    apple = next(d for d in lib.documents() if d.file_name == "2023 Q3 AAPL.pdf")
    [income] = lib.statements(apple.doc_id)
    assert income.kind == "income" and income.page == 2
    assert [(p.end, p.months) for p in income.periods] == [("2023-07-01", 3), ("2022-06-25", 3)]
    sales = next(r for r in income.rows if r.label == "Total net sales")
    assert [c.value for c in sales.cells] == [81797, 82959]
    assert sales.cells[0].bbox is not None  # read with boxes at ingest
    assert lib.store.manifest()["extractor_version"] == statement_store.EXTRACTOR_VERSION
    nvidia = next(d for d in lib.documents() if d.file_name == "2023 Q2 NVDA.pdf")
    assert lib.statements(nvidia.doc_id) == []  # rows without a statement title are not a statement


def test_new_extractor_version_re_extracts_without_reembedding(
    build_library: Callable[..., object], monkeypatch: pytest.MonkeyPatch,
) -> None:
    lib = build_library()
    apple = next(d for d in lib.documents() if d.file_name == "2023 Q3 AAPL.pdf")
    calls = lib.embedder.calls
    monkeypatch.setattr(statement_store, "EXTRACTOR_VERSION", 999)
    [income] = lib.statements(apple.doc_id)
    assert income.kind == "income"
    assert lib.store.load_statements(apple.doc_id)[0] == 999
    assert lib.embedder.calls == calls


def test_removing_a_document_removes_its_statements(build_library: Callable[..., object]) -> None:
    lib = build_library()
    apple = next(d for d in lib.documents() if d.file_name == "2023 Q3 AAPL.pdf")
    assert lib.store.load_statements(apple.doc_id) is not None
    lib.remove(apple.doc_id)
    assert lib.store.load_statements(apple.doc_id) is None


def test_statement_page_map_from_the_stored_statements(build_library: Callable[..., object]) -> None:
    """Search reads which pages carry which statement from the stored rows (``page_kinds``,
    no Statement built): the same pages as the statements' own (title, continuation, rows)."""
    from desktop_rag.core.ingest.statements.model import page_kinds

    lib = build_library()
    docs = {d.file_name: d.doc_id for d in lib.documents()}
    apple, nvidia = docs["2023 Q3 AAPL.pdf"], docs["2023 Q2 NVDA.pdf"]
    expected: dict[int, set[str]] = {}
    for st in lib.statements(apple):
        for page in {st.page, *st.pages, *(r.page for r in st.rows)}:
            expected.setdefault(page, set()).add(st.kind)
    got = lib.statement_pages([apple, nvidia])
    assert expected and {p: set(k) for p, k in got[apple].items()} == expected
    assert got[nvidia] == {}
    assert page_kinds([{"kind": "balance", "page": 3, "pages": [3, 4], "rows": [{"page": 5}]},
                       {"kind": "income", "page": 5, "rows": []}]) == {3: ["balance"], 4: ["balance"],
                                                                        5: ["balance", "income"]}


def test_statements_follow_the_searchable_commit(
    build_library: Callable[..., object], make_pdf: Callable[..., object],
) -> None:
    """The filing is searchable before its statements are read with character boxes; they are
    stored before its embeddings start, and a question in between extracts the same ones."""
    from tests.conftest import APPLE_PAGES

    lib = build_library({})
    first = build_library({"2023 Q3 AAPL.pdf": APPLE_PAGES})  # the same filing, ingested whole
    apple = next(d for d in first.documents() if d.file_name == "2023 Q3 AAPL.pdf")
    whole = first.store.load_statements(apple.doc_id)
    events = lib.ingest([make_pdf("2023 Q3 AAPL.pdf", APPLE_PAGES)])
    ev = next(e for e in events if e.kind == "searchable")
    assert lib.store.load_statements(ev.doc_id) is None  # committed without them
    after = next(events)  # the next step (embedding) comes once they are stored
    assert after.kind != "searchable" and lib.store.load_statements(ev.doc_id) == whole
    for _ in events:
        pass
    assert [s.to_json() for s in lib.statements(ev.doc_id)] == [s.to_json() for s in first.statements(apple.doc_id)]

    between = build_library({})
    events = between.ingest([make_pdf("2023 Q3 AAPL.pdf", APPLE_PAGES)])
    ev = next(e for e in events if e.kind == "searchable")
    asked = [s.to_json() for s in between.statements(ev.doc_id)]  # extracted on demand, boxes and all
    assert asked == [s.to_json() for s in first.statements(apple.doc_id)]
    for _ in events:
        pass
    assert between.store.load_statements(ev.doc_id) == whole
