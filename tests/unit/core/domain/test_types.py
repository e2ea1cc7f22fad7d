"""core/domain/types.py: labels, stable keys and the JSON shape of an answer."""

from __future__ import annotations

import json

from desktop_rag.core.domain.types import Answer, Chunk, Citation, DocumentMeta, Evidence


def test_period_label() -> None:
    assert DocumentMeta(fiscal_year=2023, fiscal_quarter=3).period_label() == "Q3 FY2023"
    assert DocumentMeta(fiscal_year=2024).period_label() == "FY2024"
    assert DocumentMeta().period_label() == ""
    assert DocumentMeta(ticker="AAPL").to_dict()["ticker"] == "AAPL"


def test_chunk_key_is_stable_and_readable() -> None:
    c = Chunk(17, "7b9b5483aa" + "0" * 54, 27, 10, 0, 5, "hello")
    assert c.key == "7b9b5483:p10:27"
    assert c.kind == "text" and c.section == ""


def test_answer_to_json_contract() -> None:
    cites = [Citation("d" * 64, "2023 Q3 AAPL.pdf", 4, "Total net sales 81,797", 120, 3)]
    ans = Answer(query="q", answer="a", citations=cites, extractive=True, model="m",
                 timings_ms={"retrieve": 1.234, "first_token": 2.0, "total": 10.06}, notes=["x"])
    data = ans.to_json()
    assert data == {
        "query": "q", "answer": "a", "not_in_corpus": False, "extractive": True,
        "citations": [{"doc": "2023 Q3 AAPL.pdf", "page": 4, "quote": "Total net sales 81,797"}],
        "model": "m", "timings_ms": {"retrieve": 1.2, "first_token": 2.0, "total": 10.1},
        "calculation": None, "computed": False, "evidence": None,
    }
    json.dumps(data)  # serialisable as is
    # the evidence shown before generation, when there was some: its text, exact quotes, when
    ans.evidence = Evidence("Total net sales 81,797", cites[:1], ms=212.34)
    assert ans.to_json()["evidence"] == {"text": "Total net sales 81,797", "ms": 212.3, "citations": [
        {"doc": "2023 Q3 AAPL.pdf", "page": 4, "quote": "Total net sales 81,797"}]}
