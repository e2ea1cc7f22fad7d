"""End to end through ``python main.py``: the real MiniLM embedder, the bundled Gemma GGUF
and real SEC filings from ``<repo>/../shared/data/sec10q/pdfs``.

One session-scoped ingest of "2023 Q3 AAPL.pdf" (~30-60 s) is shared; tests that change
the library work on a copy of its data dir. Bad inputs are generated inside the tests.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pymupdf
import pytest

from desktop_rag.core.index.backends.sqlite import IndexStore
from desktop_rag.core.ingest.pdf import extract_page, fold_text, match_form

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
SAMPLE = "2023 Q3 AAPL.pdf"
QUESTION = "What was Apple's total net sales in Q3 2023?"
ANSWER_PAGES = {4, 10, 18, 19}  # pages printing Q3 2023 total net sales of 81,797 (eval/devset.jsonl)
INCOME_STATEMENT_PAGE = 4
OUT_OF_CORPUS = "How many vehicles did Tesla deliver in Q3 2023?"
HIT_KEYS = {"doc", "page_start", "page_end", "chunk_id", "score", "text"}
ANSWER_KEYS = {"query", "answer", "not_in_corpus", "extractive", "citations", "model", "timings_ms",
               "calculation", "computed",
               # the exact quotes shown before the model's answer (issue #10), or null
               "evidence",
               # the conversation's reading of the question (issue #12)
               "standalone", "route", "attempts", "verified_attempt", "notes"}

# A minimal PDF whose page tree has no kids (pymupdf refuses to save zero pages).
ZERO_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
    b"trailer\n<< /Root 1 0 R >>\n%%EOF\n"
)


def run_cli(data_dir: Path, *args: str, stdin: str | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_RAG_HOME": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("DESKTOP_RAG_MODELS", None)  # the repo's models/ folder
    env.pop("DESKTOP_RAG_CORPUS", None)
    return subprocess.run(
        [sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir), *args],
        cwd=REPO, input=stdin if stdin is not None else "", capture_output=True, text=True,
        timeout=timeout, env=env,
    )


def _json_lines(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstderr:\n{proc.stderr[-3000:]}"
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return [json.loads(ln) for ln in lines]


@dataclass
class Ingested:
    data_dir: Path
    pdf: Path
    proc: subprocess.CompletedProcess
    pages: list[str]  # canonical page text recomputed independently from the PDF

    def copy_data(self, dest: Path) -> Path:
        shutil.copytree(self.data_dir, dest)
        return dest


def canonical_pages(pdf: Path) -> list[str]:
    doc = pymupdf.open(pdf)
    try:
        if doc.needs_pass:
            assert doc.authenticate("")
        return [extract_page(page).text for page in doc]
    finally:
        doc.close()


@pytest.fixture(scope="session")
def gguf() -> Path:
    path = REPO / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert path.is_file(), f"bundled model missing: {path} (run tools/bootstrap.sh)"
    return path


@pytest.fixture(scope="session")
def ingested(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Ingested:
    src = shared_data / "pdfs" / SAMPLE
    folder = tmp_path_factory.mktemp("filings")
    pdf = folder / SAMPLE
    shutil.copy(src, pdf)
    data_dir = tmp_path_factory.mktemp("ingested") / "data"
    proc = run_cli(data_dir, "ingest", str(pdf))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return Ingested(data_dir, pdf, proc, canonical_pages(pdf))


# -- ingest ---------------------------------------------------------------------------------------------
def test_ingest_adds_the_filing(ingested: Ingested) -> None:
    err = ingested.proc.stderr
    assert f"{SAMPLE}: added (29 pages" in err
    assert "1 added, 0 skipped, 0 failed" in err
    store = IndexStore(ingested.data_dir / "index")
    try:
        [doc] = store.documents()
        assert doc.file_name == SAMPLE and doc.pages == 29 and doc.chunk_count > 29
        assert (doc.meta.ticker, doc.meta.form_type, doc.meta.fiscal_year, doc.meta.fiscal_quarter) == (
            "AAPL", "10-Q", 2023, 3)
        # The stored canonical text is exactly what the extractor gives for the PDF.
        assert store.page_texts(doc.doc_id) == ingested.pages
    finally:
        store.close()
    assert list((ingested.data_dir / "index").glob("dense.*.hnsw"))


def test_reingest_and_renamed_copy_are_noops(ingested: Ingested, tmp_path: Path) -> None:
    data = ingested.copy_data(tmp_path / "data")
    before = IndexStore(data / "index")
    gen = before.generation
    before.close()
    renamed = tmp_path / "Apple third quarter copy.pdf"
    shutil.copy(ingested.pdf, renamed)
    proc = run_cli(data, "ingest", str(ingested.pdf), str(renamed))
    assert proc.returncode == 0, proc.stderr[-3000:]
    skipped = [ln for ln in proc.stderr.splitlines() if "SKIPPED" in ln]
    assert len(skipped) == 2, proc.stderr
    assert SAMPLE in skipped[0] and "already in the library" in skipped[0]
    assert renamed.name in skipped[1] and f"already in the library as {SAMPLE}" in skipped[1]
    assert "0 added, 2 skipped, 0 failed" in proc.stderr
    after = IndexStore(data / "index")
    try:
        assert len(after.documents()) == 1
        assert after.generation == gen  # nothing was written
    finally:
        after.close()


# -- search ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def search_result(ingested: Ingested) -> dict:
    [result] = _json_lines(run_cli(ingested.data_dir, "search", "--json", "--k", "5", QUESTION))
    return result


def test_search_json_contract(search_result: dict, ingested: Ingested) -> None:
    assert set(search_result) == {"query", "hits"}
    assert search_result["query"] == QUESTION
    hits = search_result["hits"]
    assert 1 <= len(hits) <= 5
    for h in hits:
        assert set(h) == HIT_KEYS
        assert h["doc"] == SAMPLE
        assert isinstance(h["page_start"], int) and h["page_start"] == h["page_end"]
        assert 1 <= h["page_start"] <= 29
        assert isinstance(h["chunk_id"], str) and h["chunk_id"]
        assert isinstance(h["score"], float)
        # Page-exact: every passage is a verbatim slice of its page's canonical text.
        assert h["text"] and h["text"] in ingested.pages[h["page_start"] - 1]
    assert len({h["chunk_id"] for h in hits}) == len(hits)


def test_search_finds_the_income_statement(search_result: dict) -> None:
    pages = [h["page_start"] for h in search_result["hits"]]
    assert INCOME_STATEMENT_PAGE in pages, f"hits on pages {pages}"
    assert any("81,797" in h["text"] for h in search_result["hits"])


def test_search_questions_from_stdin(ingested: Ingested) -> None:
    questions = ["What was Apple's total net sales in Q3 2023?", "How much did Apple spend on R&D in Q3 2023?"]
    results = _json_lines(run_cli(ingested.data_dir, "search", "--json", "--k", "3", "-",
                                  stdin="\n".join(questions) + "\n\n"))
    assert [r["query"] for r in results] == questions
    for r in results:
        assert 1 <= len(r["hits"]) <= 3
        assert all(set(h) == HIT_KEYS for h in r["hits"])
    assert any("Research and development" in h["text"] for h in results[1]["hits"])


# -- ask ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ask_results(ingested: Ingested, gguf: Path) -> list[dict]:
    # One process for both questions: the model loads once.
    return _json_lines(run_cli(ingested.data_dir, "ask", "--json", "-", stdin=f"{QUESTION}\n{OUT_OF_CORPUS}\n"))


def test_ask_json_contract(ask_results: list[dict]) -> None:
    assert len(ask_results) == 2
    for r in ask_results:
        assert set(r) == ANSWER_KEYS
        assert isinstance(r["standalone"], str) and r["standalone"]
        assert isinstance(r["notes"], list) and all(isinstance(n, str) for n in r["notes"])
        assert isinstance(r["attempts"], list)
        assert set(r["timings_ms"]) - {"evidence"} == {"retrieve", "first_token", "total"}
        assert ("evidence" in r["timings_ms"]) == (r["evidence"] is not None)
        if r["evidence"] is not None:
            assert set(r["evidence"]) == {"text", "citations", "ms"}
            for c in r["evidence"]["citations"]:
                assert_citation_keys(c)
        assert all(isinstance(v, (int, float)) and v >= 0 for v in r["timings_ms"].values())
        assert isinstance(r["not_in_corpus"], bool) and isinstance(r["extractive"], bool)
        assert r["model"], "the loaded model is named"
        for c in r["citations"]:
            assert_citation_keys(c)


def assert_citation_keys(cited: dict) -> None:
    # the printed page label ("p. 72") is there only when the filing's page carries one
    assert set(cited) - {"page_label"} == {"doc", "page", "quote"}, cited
    assert isinstance(cited.get("page_label", ""), str)


def test_ask_known_answer_cites_exact_quotes(ask_results: list[dict], ingested: Ingested) -> None:
    answer = ask_results[0]
    assert answer["query"] == QUESTION
    assert not answer["not_in_corpus"], answer
    assert answer["answer"] and answer["answer"] != "Not in corpus"
    cites = answer["citations"]
    assert cites, answer
    assert {c["page"] for c in cites} & ANSWER_PAGES, answer
    for c in cites:
        assert c["doc"] == SAMPLE
        page_text = ingested.pages[c["page"] - 1]
        # Every quote is verbatim page text (recomputed from the PDF, not read from the index).
        assert fold_text(c["quote"]) in match_form(page_text), c
    assert any("81,797" in c["quote"] for c in cites), cites
    assert "81,797" in answer["answer"] or "81.8" in answer["answer"], answer["answer"]


def test_ask_out_of_corpus(ask_results: list[dict]) -> None:
    answer = ask_results[1]
    assert answer["query"] == OUT_OF_CORPUS
    assert answer["not_in_corpus"] is True
    assert answer["citations"] == []
    assert answer["extractive"] is False


# -- statements and computed answers --------------------------------------------------------------------------
def test_statements_json(ingested: Ingested) -> None:
    [out] = _json_lines(run_cli(ingested.data_dir, "statements", SAMPLE, "--json"))
    assert out["doc"] == SAMPLE
    kinds = {s["kind"]: s for s in out["statements"]}
    assert {"income", "balance", "cash_flow"} <= set(kinds)
    inc = kinds["income"]
    assert inc["page"] == INCOME_STATEMENT_PAGE and inc["scale"] == "millions"
    assert [(p["end"], p["months"]) for p in inc["periods"]] == [
        ("2023-07-01", 3), ("2022-06-25", 3), ("2023-07-01", 9), ("2022-06-25", 9)]
    sales = next(r for r in inc["rows"] if r["label"] == "Total net sales")
    cell = sales["cells"][0]
    assert (cell["period_end"], cell["months"], cell["text"], cell["value"]) == ("2023-07-01", 3, "81,797", 81797.0)
    assert cell["page"] == 4 and len(cell["bbox"]) == 4
    page = ingested.pages[3]
    assert page[cell["span"][0]:cell["span"][1]] == "81,797"


def test_ask_metric_is_computed_from_cells(ingested: Ingested, gguf: Path) -> None:
    q = "What was Apple's current ratio as of July 1, 2023? Round your answer to two decimal places."
    [ans] = _json_lines(run_cli(ingested.data_dir, "ask", "--json", q))
    assert ans["computed"] is True, ans
    calc = ans["calculation"]
    assert calc["metric"] == "Current ratio" and calc["result"] == 0.98
    assert [i["value"] for i in calc["inputs"]] == [122659.0, 124963.0]
    for i in calc["inputs"]:
        assert i["page"] == 6 and fold_text(i["quote"]) in match_form(ingested.pages[5])
    assert "0.98" in ans["answer"]


# -- docs / remove --------------------------------------------------------------------------------------------
def test_docs_and_remove(ingested: Ingested, tmp_path: Path) -> None:
    data = ingested.copy_data(tmp_path / "data")
    [doc] = _json_lines(run_cli(data, "docs", "--json"))
    assert doc["file"] == SAMPLE and doc["pages"] == 29 and doc["chunks"] > 29
    assert (doc["ticker"], doc["form_type"], doc["fiscal_year"], doc["fiscal_quarter"]) == ("AAPL", "10-Q", 2023, 3)
    assert doc["company"] == "Apple Inc."

    removed = run_cli(data, "remove", doc["doc_id"][:12])
    assert removed.returncode == 0, removed.stderr[-2000:]
    assert f"removed {SAMPLE}" in removed.stderr

    listing = run_cli(data, "docs")
    assert listing.returncode == 0
    assert "0 document(s)" in listing.stdout
    store = IndexStore(data / "index")
    try:
        assert store.documents() == []
        assert list(store.chunk_rows()) == []
    finally:
        store.close()
    # The shared ingest is untouched.
    assert len(IndexStore(ingested.data_dir / "index").documents()) == 1


# -- bad inputs --------------------------------------------------------------------------------------------------
def _excerpt(src: Path, pages: list[int], dest: Path, **save: object) -> Path:
    doc = pymupdf.open(src)
    doc.select(pages)
    doc.save(dest, **save)
    doc.close()
    return dest


def _bad_inputs(folder: Path, real: Path) -> dict[str, str]:
    """Write the broken files; returns file name -> word the reason must contain."""
    expect: dict[str, str] = {}

    locked = pymupdf.open()
    locked.new_page().insert_text((72, 72), "Quarterly figures nobody may read.", fontsize=12)
    locked.save(folder / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="o")
    locked.close()
    expect["locked.pdf"] = "password"

    data = real.read_bytes()
    (folder / "truncated.pdf").write_bytes(data[: int(len(data) * 0.4)])
    expect["truncated.pdf"] = "damaged"

    rng = random.Random(20231)
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.7\n" + bytes(rng.randrange(256) for _ in range(20000)))
    expect["garbage.pdf"] = "damaged"

    (folder / "zero pages.pdf").write_bytes(ZERO_PAGE_PDF)
    expect["zero pages.pdf"] = "no pages"

    src = pymupdf.open(real)
    pix = src[3].get_pixmap(dpi=60)
    scan = pymupdf.open()
    page = scan.new_page(width=src[3].rect.width, height=src[3].rect.height)
    page.insert_image(page.rect, pixmap=pix)
    scan.save(folder / "scanned.pdf")
    scan.close()
    src.close()
    expect["scanned.pdf"] = "OCR"

    (folder / "notes.pdf").write_text("Meeting notes, renamed to .pdf by mistake.\n")
    expect["notes.pdf"] = "not a PDF"
    with zipfile.ZipFile(folder / "report.pdf", "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<w:document/>")
    expect["report.pdf"] = "not a PDF"
    return expect


def test_ingest_folder_with_bad_files(tmp_path: Path, shared_data: Path) -> None:
    real = shared_data / "pdfs" / SAMPLE
    folder = tmp_path / "inbox"
    folder.mkdir()
    expect = _bad_inputs(folder, real)
    # A good file: a two-page excerpt (income statement + revenue note), RC4-encrypted
    # with an empty user password like the SEC originals -> must open and ingest.
    good = _excerpt(real, [3, 9], folder / "2023 Q3 AAPL excerpt.pdf",
                    encryption=pymupdf.PDF_ENCRYPT_RC4_128, owner_pw="owner", user_pw="")
    check = pymupdf.open(good)
    assert check.metadata.get("encryption") and not check.needs_pass
    check.close()
    missing = tmp_path / "nowhere" / "missing.pdf"
    directory = tmp_path / "x.pdf"  # a folder named like a PDF: cannot be read as a file
    directory.mkdir()
    expect["missing.pdf"] = "cannot read"
    expect["x.pdf"] = "cannot read"

    data = tmp_path / "data"
    proc = run_cli(data, "ingest", str(folder), str(missing), str(directory))
    assert proc.returncode != 0
    err = proc.stderr
    assert f"{good.name}: added (2 pages" in err, err
    failed_lines = [ln for ln in err.splitlines() if "FAILED" in ln]
    for name, word in expect.items():
        lines = [ln for ln in failed_lines if name in ln]
        assert lines, f"{name} not reported as failed:\n{err}"
        assert word in lines[0], f"{name}: expected '{word}' in {lines[0]!r}"
    assert f"1 added, 0 skipped, {len(expect)} failed" in err

    store = IndexStore(data / "index")
    try:
        assert [d.file_name for d in store.documents()] == [good.name]
    finally:
        store.close()
    # The index still loads and answers searches.
    [result] = _json_lines(run_cli(data, "search", "--json", "--k", "3", QUESTION))
    assert result["hits"] and all(h["doc"] == good.name for h in result["hits"])
    assert any("81,797" in h["text"] for h in result["hits"])
