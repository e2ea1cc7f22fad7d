"""Retrieval and answer quality per labelled data set, side by side (``main.py eval``).

Data sets (``devsets.py``): ``sec10q`` (``eval/devset.jsonl`` on the 20 sec10q 10-Qs) and
``financebench-dev`` (the 35 upstream FinanceBench questions plus the project's labels on
those 32 filings, when present). Each set has its own library, cached in
``$DESKTOP_RAG_EVAL_CACHE/<set>`` (default ``<data-dir>/eval/<set>``) and reused: only
missing filings are ingested, and an index built with other embedder/chunking settings is
re-indexed (and the run says so).

Retrieval: Precision/Recall/F1@k (k = 1, 5, 10), MRR and hit@k, at page and document
level, for several retrieval variants on the same index and questions:

- ``dense-plain``  raw question embedding, exact cosine over every chunk, no filters
                   (the plain MiniLM baseline);
- ``bm25-plain``   BM25 over every chunk, no filters;
- ``dense``/``bm25``/``hybrid`` the pipeline (metadata filters, shorthand expansion,
                   aliases; hybrid adds fusion and MMR);
- ``hybrid-nofilter``/``hybrid-nommr``/``hybrid-noboost`` ablations of the default pipeline;
plus the recall of the hnswlib graph against exact brute-force top-k.

Answers (the full pipeline, slow) and the trust measures: quotes exact (substring of the
cited page's canonical text) and verbatim (the page's own characters), out-of-corpus
refusals, false refusals, citations of an evidence page and of another company,
correctness against the labelled answer, metric answers within the asked rounding and
wrong figures presented as computed. Statement cells (``eval/statement_cells.jsonl``) are
scored against ``main.py statements`` when this build has it.

The scoring functions are pure (``metrics.py``) and unit-tested on hand-made cases.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from desktop_rag.evaluation.devsets import (
    SETS,
    EvalSet,
    custom_set,
    load_set,
    load_statement_cells,
    sec10q_pdfs,
    spread,
)
from desktop_rag.evaluation.metrics import (
    ann_recall,
    answer_correct,
    cites_other_company,
    company_keys,
    faithfulness,
    first_rank,
    flatten_statements,
    key_facts_covered,
    mean_metrics,
    metric_match,
    quote_exact,
    quote_verbatim,
    retrieval_metrics,
    retry_record,
    score_statement_cells,
    summarise_answers,
    verified_by,
)
from desktop_rag.evaluation.report import short as _short
from desktop_rag.evaluation.report import table
from desktop_rag.evaluation.timing import TimedGenerator

ENV_EVAL_CACHE = "DESKTOP_RAG_EVAL_CACHE"

# -- settings overrides -------------------------------------------------------------------------


def apply_overrides(settings: Any, pairs: Iterable[str]) -> dict[str, Any]:
    """``section.key=value`` strings applied in place to a Settings object."""
    done: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair or "." not in pair.split("=", 1)[0]:
            raise ValueError(f"--set wants section.key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        section_name, field = key.strip().split(".", 1)
        section = getattr(settings, section_name, None)
        if section is None or not hasattr(section, field):
            raise ValueError(f"unknown setting {key!r}")
        cur = getattr(section, field)
        if isinstance(cur, bool):
            val: Any = value.strip().lower() in ("1", "true", "yes", "on")
        else:
            val = type(cur)(value)
        setattr(section, field, val)
        done[key] = val
    return done


def override_workspace(ws: Any, pairs: Iterable[str]) -> dict[str, Any]:
    """``apply_overrides`` on a workspace's settings for this run only (nothing saved); an
    embedding override also swaps the workspace's embedder, so the set's library is re-indexed
    with it (``prepare_library``) rather than searched with the vectors of the model it names."""
    embedding = dataclasses.replace(ws.settings.embedding)
    done = apply_overrides(ws.settings, pairs)
    if ws.settings.embedding != embedding:
        ws.set_embedder(ws.settings.embedding.model, remember=False)
    return done


# -- retrieval variants -----------------------------------------------------------------------

VARIANTS: dict[str, str] = {
    "dense-plain": "raw question, exact cosine over all chunks, no filters (plain MiniLM baseline)",
    "bm25-plain": "BM25 over all chunks, no filters",
    "dense": "pipeline dense: filters + shorthand expansion",
    "bm25": "pipeline BM25: filters + aliases",
    "hybrid": "default pipeline: filters, aliases, fusion, MMR",
    "hybrid-nofilter": "default pipeline without metadata filters",
    "hybrid-nommr": "default pipeline without MMR (mmr_lambda=1)",
    "hybrid-noboost": "default pipeline without the statement boost (statement_boost=0)",
}
# the default run: the pipeline and the two plain baselines (``--variants all`` for the ablations)
DEFAULT_VARIANTS = ["hybrid", "dense-plain", "bm25-plain"]


def _searcher(ws: Any, variant: str) -> Callable[[str, int], list[Any]]:
    """A function question -> hits for one variant."""
    import numpy as np

    from desktop_rag.core.domain.types import Hit
    from desktop_rag.core.retrieve.hybrid import HybridRetriever

    lib = ws.library
    base = ws.settings.retrieval
    if variant == "dense-plain":
        def dense_plain(q: str, k: int) -> list[Any]:
            qv = lib.embedder.encode_query(q)
            ids, vectors = lib.all_vectors()
            sims = vectors @ qv
            top = np.argsort(-sims)[:k]
            lib.prefetch(ids[top].tolist())
            out = []
            for r in top:
                ch = lib.chunks[int(ids[r])]
                out.append(Hit(ch, lib.docs[ch.doc_id], float(sims[r]), float(sims[r])))
            return out
        return dense_plain
    if variant == "bm25-plain":
        r = HybridRetriever(lib, dataclasses.replace(base, use_filters=False))
        return lambda q, k: r.search(q, k, mode="bm25")
    if variant in ("dense", "bm25", "hybrid", "exact"):
        r = HybridRetriever(lib, base)
        return lambda q, k: r.search(q, k, mode=variant)  # type: ignore[arg-type]
    if variant == "hybrid-nofilter":
        r = HybridRetriever(lib, dataclasses.replace(base, use_filters=False))
        return lambda q, k: r.search(q, k, mode="hybrid")
    if variant == "hybrid-noboost":
        if not hasattr(base, "statement_boost"):
            raise ValueError("hybrid-noboost: this build has no statement_boost setting")
        r = HybridRetriever(lib, dataclasses.replace(base, statement_boost=0.0))
        return lambda q, k: r.search(q, k, mode="hybrid")
    if variant == "hybrid-nommr":
        r = HybridRetriever(lib, dataclasses.replace(base, mmr_lambda=1.0))
        return lambda q, k: r.search(q, k, mode="hybrid")
    raise ValueError(f"unknown variant {variant!r} (choose from {', '.join(VARIANTS)}, exact)")


def top_pages(pages: list[tuple[str, int]], n: int = 5) -> list[str]:
    """The first n distinct pages of a ranked hit list, each with the rank of its first hit
    (several chunks of one page are one page to the analyst)."""
    out: dict[tuple[str, int], int] = {}
    for rank, key in enumerate(pages, 1):
        if key not in out:
            out[key] = rank
        if len(out) == n:
            break
    return [f"{d} p.{p} (#{r})" for (d, p), r in out.items()]


def evaluate_retrieval(ws: Any, items: list[dict[str, Any]], variants: list[str], k: int = 10) -> dict[str, Any]:
    results: dict[str, Any] = {}
    per_q: dict[str, dict[str, Any]] = {}
    for v in variants:
        search = _searcher(ws, v)
        page_rows, doc_rows, times = [], [], []
        for it in items:
            t0 = time.perf_counter()
            hits = search(it["question"], k)
            times.append((time.perf_counter() - t0) * 1000)
            pages = [(h.doc.file_name, h.chunk.page) for h in hits]
            docs = [h.doc.file_name for h in hits]
            rel_pages = {(it["doc"], p) for p in it["pages"]}
            pm, dm = retrieval_metrics(pages, rel_pages), retrieval_metrics(docs, {it["doc"]})
            page_rows.append(pm)
            doc_rows.append(dm)
            per_q.setdefault(it["id"], {})[v] = {"rank": first_rank(pages, rel_pages),
                                                 "doc_rank": first_rank(docs, {it["doc"]}),
                                                 "top": top_pages(pages),
                                                 "metrics": {m: pm[m] for m in ("hit@1", "hit@10", "MRR")}}
        times.sort()
        results[v] = {"page": mean_metrics(page_rows), "doc": mean_metrics(doc_rows), "n": len(items),
                      "ms_mean": sum(times) / max(1, len(times)),
                      "ms_p95": times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)] if times else 0.0}
    return {"variants": results, "per_question": per_q}


def evaluate_ann(ws: Any, questions: list[str], k: int = 10) -> dict[str, Any]:
    """hnswlib vs exact brute force on the whole library, unfiltered."""
    import numpy as np

    lib = ws.library
    lib.refresh()
    if len(lib.chunk_ids) == 0:
        return {}
    from desktop_rag.core.domain.terms import expand_shorthand

    recalls, t_ann, t_exact = [], [], []
    ids, vectors = lib.all_vectors()  # a team library's are read from the server, for this baseline only
    for q in questions:
        qv = lib.embedder.encode_query(expand_shorthand(q))
        t0 = time.perf_counter()
        exact = ids[np.argsort(-(vectors @ qv))[:k]].tolist()
        t1 = time.perf_counter()
        ann = [c for c, _ in lib.dense_search(qv, k)]  # hnswlib, or pgvector on a team library
        t2 = time.perf_counter()
        recalls.append(ann_recall(ann, exact, k))
        t_exact.append((t1 - t0) * 1000)
        t_ann.append((t2 - t1) * 1000)
    n = max(1, len(recalls))
    return {f"recall@{k}": sum(recalls) / n, "perfect_share": sum(r == 1.0 for r in recalls) / n,
            "min_recall": min(recalls) if recalls else None, "n": len(recalls), "chunks": len(lib.chunk_ids),
            "ef_search": ws.settings.retrieval.hnsw_ef_search,
            "exact_ms_mean": sum(t_exact) / n, "ann_ms_mean": sum(t_ann) / n}


def evaluate_gate(ws: Any, answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]]) -> dict[str, Any]:
    """The context gate alone (retrieval-only refusals), on every question."""
    engine = ws.engine
    r = engine.retriever
    def refused(q: str) -> tuple[bool, str, bool]:
        """(gate refuses, its reason, the pipeline refuses before any generation: a statement
        calculation that cannot fit the company decides first, as in ask, then the gate)."""
        plan = r.plan(q)
        g = r.gate(plan, r.search(plan))
        computed = engine._computed_answer(q, q, plan, time.perf_counter()) if engine._retriable(plan) else None
        before = computed.not_in_corpus if computed is not None else not g.passed
        return (not g.passed), g.reason, before
    ooc = [(it, *refused(it["question"])) for it in unanswerable]
    ans = [(it, *refused(it["question"])) for it in answerable]
    return {
        "refusal_rate_ooc": sum(x[1] for x in ooc) / max(1, len(ooc)), "n_ooc": len(ooc),
        "false_refusal_rate": sum(x[1] for x in ans) / max(1, len(ans)), "n_answerable": len(ans),
        "refusal_rate_ooc_before_generation": sum(x[3] for x in ooc) / max(1, len(ooc)),
        "false_refusal_rate_before_generation": sum(x[3] for x in ans) / max(1, len(ans)),
        "missed_ooc": [{"id": it["id"], "question": it["question"]} for it, ref, _, _ in ooc if not ref],
        "false_refusals": [{"id": it["id"], "question": it["question"], "reason": why} for it, ref, why, _ in ans if ref],
    }


def evaluate_answers(ws: Any, answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]],
                     log: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Every question through the full pipeline (``engine.ask``), scored per answer."""
    from desktop_rag.evaluation.pages import RawPages

    lib = ws.library
    docs = lib.documents()
    keys_by_file = {d.file_name: company_keys(d.meta.company, d.meta.ticker) for d in docs}
    path_by_id = {d.doc_id: d.path for d in docs}
    raw_pages = RawPages()
    timed = None
    if ws.engine.generator is not None and not isinstance(ws.engine.generator, TimedGenerator):
        # measures the first *model* token (the pipeline's own timing counts the prefilled
        # '{"answer": "' that is yielded before any prompt evaluation when the grammar is off)
        timed = ws.engine.generator = TimedGenerator(ws.engine.generator)
    rows: list[dict[str, Any]] = []
    todo = [(it, True) for it in answerable] + [(it, False) for it in unanswerable]
    for n, (it, is_ans) in enumerate(todo, 1):
        if timed is not None:
            timed.reset()
        t0 = time.perf_counter()
        ans = ws.engine.ask(it["question"])
        first_call = timed.first if timed is not None else {}
        times = first_call.get("times")
        first_token_ms = (times[0] - t0) * 1000 if times else 0.0
        as_json = ans.to_json()
        computed = bool(getattr(ans, "computed", False) or as_json.get("computed"))
        calculation = getattr(ans, "calculation", None) or as_json.get("calculation")
        citations = []
        for c in ans.citations:
            raw = raw_pages.text(path_by_id[c.doc_id], c.page) if c.doc_id in path_by_id else None
            citations.append({"doc": c.doc, "page": c.page, "quote": c.quote,
                              "exact": quote_exact(c.quote, lib.page_text(c.doc_id, c.page) or ""),
                              "verbatim": None if raw is None else quote_verbatim(c.quote, raw)})
        row: dict[str, Any] = {
            "id": it["id"], "question": it["question"], "answerable": is_ans, "category": it.get("category"),
            "answer": ans.answer, "not_in_corpus": ans.not_in_corpus, "extractive": ans.extractive,
            "citations": citations, "computed": computed, "calculation": calculation,
            "total_ms": ans.timings_ms.get("total", 0.0), "first_token_ms": first_token_ms, "notes": ans.notes,
            # the first attempt's prompt: all its tokens, and those evaluated after the cached prefix
            "prompt_tokens": first_call.get("prompt_tokens"), "new_prompt_tokens": first_call.get("new_prompt_tokens"),
            "model_calls": len(timed.calls) if timed is not None else 0,
        }
        row["first_failed"], row["attempt"], _ = retry_record(ans.notes, ans.timings_ms)
        row["verified_by"] = verified_by(ans.notes)
        if timed is not None:  # the model's time on retries: every generation after the first
            row["retry_ms"] = sum((c["times"][-1] - c["t_call"]) * 1000 for c in timed.calls[1:] if c.get("times"))
        if is_ans:
            row["expected"] = it["answer"]
            row["expected_where"] = f"{it['doc']} p.{','.join(map(str, it['pages']))}"
            row["correct"] = (not ans.not_in_corpus) and answer_correct(ans.answer, it["answer"], it["answer_type"])
            rel = {(it["doc"], p) for p in it["pages"]}
            row["cited_right_page"] = any((c.doc, c.page) in rel for c in ans.citations)
            labelled = keys_by_file.get(it["doc"], set())
            row["cites_other_company"] = (cites_other_company([keys_by_file.get(c.doc, set()) for c in ans.citations],
                                                              labelled) if labelled else None)
            if it.get("category") == "metric" and it.get("value") is not None:
                row["metric_match"] = (not ans.not_in_corpus) and metric_match(
                    ans.answer, float(it["value"]), it.get("unit") or "", it.get("decimals"))
            if not ans.not_in_corpus:
                row["faithfulness"] = faithfulness(ans.answer, [c.quote for c in ans.citations], it["question"])
            if it.get("key_facts") and it.get("answer_type") == "text":
                shown = "\n".join([ans.answer, *(c.quote for c in ans.citations)]) if not ans.not_in_corpus else ""
                row["key_facts_total"] = len(it["key_facts"])
                row["key_facts_covered"] = key_facts_covered(shown, it["key_facts"])
        row["shape"] = it.get("shape")
        rows.append(row)
        log(f"  [{n}/{len(todo)}] {it['id']}: "
            + ("refused" if ans.not_in_corpus else ("extractive" if ans.extractive else "generated"))
            + (f", {'correct' if row.get('correct') else 'wrong'}" if is_ans else "")
            + f" ({row['total_ms'] / 1000:.1f} s)")
    return summarise_answers(rows)


# -- statement cells -----------------------------------------------------------------------------


def statements_available() -> bool:
    """Whether this build can extract statements (``desktop_rag.core.ingest.statements``)."""
    try:
        return importlib.util.find_spec("desktop_rag.core.ingest.statements") is not None
    except (ImportError, ValueError):
        return False


def extract_statements(lib_dir: Path, models_dir: Any, doc: str, location: str | None = None) -> dict[str, Any] | None:
    """What ``main.py statements DOC --json`` prints, read from the set's library in process,
    or None; ``location``: a team library's URL (the data dir then holds no filing)."""
    from desktop_rag.core.workspace import Workspace

    try:
        with Workspace(lib_dir, models_dir or None, library=location or None) as ws:
            matches = ws.documents_matching(doc)
            if len(matches) != 1:
                return None
            statements = ws.library.statements(matches[0].doc_id)
            # as the command prints it: what JSON keeps of the statements
            return json.loads(json.dumps({"doc": matches[0].file_name, "statements": [s.to_json() for s in statements]}))
    except Exception:  # a crash of the extractor on one filing is a miss, not the end of the run
        return None


def evaluate_cells(lib_dir: Path, models_dir: Any, cells_path: Path, docs: set[str],
                   log: Callable[[str], None], location: str | None = None) -> dict[str, Any] | None:
    """Score the labelled cells of the filings in ``docs`` (the set's library, on a team server
    given its ``location``); None if none."""
    labels = [lab for lab in load_statement_cells(cells_path) if lab["doc"] in docs]
    if not labels:
        return None
    extracted: dict[str, list[dict[str, Any]]] = {}
    errors = []
    for doc in sorted({lab["doc"] for lab in labels}):
        payload = extract_statements(lib_dir, models_dir, doc, location)
        if payload is None:
            errors.append(doc)
        extracted[doc] = flatten_statements(doc, payload) if payload else []
    res = score_statement_cells(labels, extracted)
    log(f"  statement cells: {res['exact_right_rate'] or 0:.0%} of {res['n']} exactly right"
        + (f" ({len(errors)} filing(s) failed to extract)" if errors else ""))
    return res | {"extract_errors": errors}


# -- the library of a set ------------------------------------------------------------------------


def library_dir(data_dir: Any, set_name: str, explicit: str | None = None) -> Path:
    """Where a set's library lives: ``--library`` > ``$DESKTOP_RAG_EVAL_CACHE/<set>`` >
    ``<data-dir>/eval/<set>``."""
    from desktop_rag.paths import data_dir as resolve_data_dir

    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get(ENV_EVAL_CACHE)
    root = Path(env).expanduser().resolve() if env else resolve_data_dir(data_dir) / "eval"
    return root / set_name


def ingest_order(files: list[Path], questions_per_file: dict[str, int]) -> list[Path]:
    """Filings with the most labelled questions per page first, so that an interrupted first
    ingest (thousands of pages) already covers as many questions as it can."""
    def pages(p: Path) -> int:
        try:
            import pymupdf

            with pymupdf.open(p) as doc:
                return max(1, doc.page_count)
        except Exception:
            return 1_000_000
    return sorted(files, key=lambda p: (-questions_per_file.get(p.name, 0) / pages(p), p.name))


def ensure_corpus(ws: Any, corpus: Path, log: Callable[[str], None],
                  questions_per_file: dict[str, int] | None = None, only: list[str] | None = None) -> int:
    """Ingest the corpus PDFs the library does not hold yet (by file name; of ``only`` when
    given); returns how many."""
    from desktop_rag.core.index.library import IngestReport, collect_pdfs

    have = {d.file_name for d in ws.library.documents()}
    missing = [p for p in collect_pdfs([corpus]) if p.name not in have and (only is None or p.name in only)]
    if not missing:
        return 0
    if questions_per_file:
        missing = ingest_order(missing, questions_per_file)
    log(f"ingesting {len(missing)} file(s) from {corpus} ...")
    report = IngestReport()
    for ev in ws.library.ingest(missing, report=report):
        if ev.kind in ("done_file", "failed"):
            log(f"  [{ev.index}/{ev.total}] {ev.file}: {ev.message}")
    log(f"  {report.pages} pages in {report.seconds:.0f} s")
    return len(missing)


def prepare_library(ws: Any, es: EvalSet, log: Callable[[str], None], allow_mismatch: bool = False,
                    ingest: bool = True) -> list[str]:
    """Make the set's cached library current: re-index when the manifest no longer matches
    (embedder/chunking changed), then ingest the filings it lacks. Returns notes for the report."""
    notes = []
    problems = ws.library.mismatch()
    if problems and allow_mismatch:
        notes.append("index built with other settings, evaluated as it is: " + "; ".join(problems))
        log(f"eval[{es.name}]: WARNING: {notes[-1]}")
        return notes
    if problems:
        log(f"eval[{es.name}]: the cached index was built with other settings ({'; '.join(problems)}): re-indexing")
        t0 = time.perf_counter()
        for ev in ws.library.reindex():
            if ev.kind == "file":
                log(f"  re-index [{ev.index}/{ev.total}] {ev.file}")
        notes.append(f"re-indexed ({'; '.join(problems)}) in {time.perf_counter() - t0:.0f} s")
    if not ingest:
        return notes
    if es.corpus.is_dir():
        per_file: dict[str, int] = {}
        for it in es.items:
            if it.get("doc"):
                per_file[it["doc"]] = per_file.get(it["doc"], 0) + 1
        added = ensure_corpus(ws, es.corpus, lambda m: log(f"eval[{es.name}]: {m}"), per_file, es.files)
        if added:
            notes.append(f"ingested {added} new filing(s)")
    else:
        notes.append(f"corpus folder not found: {es.corpus} (set DESKTOP_RAG_SHARED)")
        log(f"eval[{es.name}]: {notes[-1]}")
    return notes


# -- one set -------------------------------------------------------------------------------------


def _category_retrieval(items: list[dict[str, Any]], per_q: dict[str, Any], variant: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for cat in sorted({it.get("category") or "" for it in items}):
        rows = [per_q[it["id"]][variant]["metrics"] for it in items
                if (it.get("category") or "") == cat and variant in per_q.get(it["id"], {})]
        if rows:
            out[cat] = {"n": len(rows), **mean_metrics(rows)}
    return out


def evaluate_set(ws: Any, es: EvalSet, ns: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    t0 = time.perf_counter()
    names = {d.file_name for d in ws.library.documents()}
    answerable = [it for it in es.answerable if it.get("doc") in names]
    skipped = len(es.answerable) - len(answerable)
    if skipped:
        log(f"eval[{es.name}]: {skipped} answerable question(s) skipped: their filing is not in the library")
        es.notes.append(f"{skipped} answerable question(s) skipped: their filing is not in the library")
    # a must-refuse question tied to a filing (a metric that does not fit that company) only
    # tests something when that filing is in the library
    unanswerable = [it for it in es.unanswerable if not it.get("doc") or it["doc"] in names]
    if ns.limit:
        answerable = spread(answerable, ns.limit)
        unanswerable = spread(unanswerable, max(1, ns.limit // 4))
    variants = [v.strip() for v in (ns.variants or ",".join(DEFAULT_VARIANTS)).split(",") if v.strip()]
    if variants == ["all"]:
        variants = list(VARIANTS)
    retrievable = [it for it in answerable if it.get("pages")]
    log(f"eval[{es.name}]: {len(answerable)} answerable + {len(unanswerable)} must-refuse questions, "
        f"{len(names)} documents, {len(ws.library.chunk_ids)} chunks")
    ret = evaluate_retrieval(ws, retrievable, variants)
    ann = evaluate_ann(ws, [it["question"] for it in answerable + unanswerable][:200])
    gate = evaluate_gate(ws, answerable, unanswerable)
    answers = None
    if not ns.no_answers:
        try:
            ws.load_model()
        except (FileNotFoundError, ValueError) as exc:
            log(f"eval[{es.name}]: cannot load the language model ({exc}); skipping answers")
        else:
            ans_items, ooc_items = answerable, unanswerable
            if ns.answers is not None:
                n_ans = min(ns.answers, len(answerable))
                n_ooc = min(len(unanswerable),
                            max(1, round(n_ans * len(unanswerable) / max(1, len(answerable))))) if n_ans else 0
                ans_items, ooc_items = spread(answerable, n_ans), spread(unanswerable, n_ooc)
            log(f"eval[{es.name}]: answering {len(ans_items)} answerable + {len(ooc_items)} must-refuse questions ...")
            answers = evaluate_answers(ws, ans_items, ooc_items, log)
    cells = None
    if es.cells_path is not None and not ns.no_cells:
        n_cells = sum(lab["doc"] in names for lab in load_statement_cells(es.cells_path))
        if n_cells and statements_available():
            log(f"eval[{es.name}]: scoring {n_cells} statement cells from {es.cells_path.name} ...")
            cells = evaluate_cells(ws.data_dir, ns.models_dir, es.cells_path, names, log, ws.library_location or None)
        elif n_cells:
            cells = {"skipped": "this build has no statement extractor (desktop_rag.core.ingest.statements)"}
    res = build_result(ws, es, answerable, unanswerable, retrievable, ret, ann, gate, answers, cells)
    res["skipped_no_filing"] = skipped
    res["seconds"] = round(time.perf_counter() - t0, 1)
    return res


def retrieval_failures(items: list[dict[str, Any]], per_q: dict[str, Any], variant: str = "hybrid") -> list[dict[str, Any]]:
    out = []
    for it in items:
        r = per_q.get(it["id"], {}).get(variant)
        if r is None or r["rank"] is not None:
            continue
        out.append({"id": it["id"], "question": it["question"], "category": it.get("category"),
                    "tags": it.get("tags", []), "expected": f"{it['doc']} p.{','.join(map(str, it['pages']))}",
                    "doc_found_rank": r["doc_rank"], "got": r["top"],
                    "other_variants_hit": sorted(v for v, x in per_q[it["id"]].items() if x["rank"] is not None)})
    return out


def tag_breakdown(items: list[dict[str, Any]], per_q: dict[str, Any], variants: list[str]) -> dict[str, dict[str, float]]:
    by_tag: dict[str, list[dict[str, Any]]] = {}
    for it in items:
        for t in it.get("tags", []):
            by_tag.setdefault(t, []).append(it)
    out = {}
    for t, its in sorted(by_tag.items()):
        if len(its) < 4 or t in ("qna-adapted",):
            continue
        out[t] = {"n": len(its), **{v: sum(per_q[i["id"]][v]["rank"] is not None for i in its) / len(its)
                                     for v in variants}}
    return out


def build_result(ws: Any, es: EvalSet, answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]],
                 retrievable: list[dict[str, Any]], ret: dict[str, Any], ann: dict[str, Any], gate: dict[str, Any],
                 answers: dict[str, Any] | None, cells: dict[str, Any] | None) -> dict[str, Any]:
    variants = ret["variants"]
    per_q = ret["per_question"]
    main_variant = "hybrid" if "hybrid" in variants else next(iter(variants), None)
    hv = variants.get("hybrid", {}).get("page", {}).get("hit@10")
    targets = []
    if hv is not None:
        for base in ("dense-plain", "bm25-plain", "dense", "bm25"):
            if base in variants:
                bv = variants[base]["page"]["hit@10"]
                targets.append({"name": f"hybrid page-hit@10 > {base}", "target": f"> {bv:.3f}",
                                "actual": round(hv, 3), "pass": hv > bv})
    if answers and answers.get("refusal_rate_ooc") is not None:
        targets.append({"name": "refusal on must-refuse (answers)", "target": ">= 0.90",
                        "actual": round(answers["refusal_rate_ooc"], 3), "pass": answers["refusal_rate_ooc"] >= 0.9})
    elif gate["n_ooc"]:
        targets.append({"name": "refusal on must-refuse (gate)", "target": ">= 0.90",
                        "actual": round(gate["refusal_rate_ooc"], 3), "pass": gate["refusal_rate_ooc"] >= 0.9})
    if answers and answers.get("quotes_exact_rate") is not None:
        targets.append({"name": "shown quotes exact", "target": "1.000",
                        "actual": round(answers["quotes_exact_rate"], 3), "pass": answers["quotes_exact_rate"] == 1.0})
    if answers and answers.get("cites_other_company_rate") is not None:
        targets.append({"name": "answers citing another company", "target": "0.000",
                        "actual": round(answers["cites_other_company_rate"], 3),
                        "pass": answers["cites_other_company_rate"] == 0.0})
    if answers and answers.get("wrong_computed_rate") is not None:
        targets.append({"name": "wrong figures presented as computed", "target": "0.000",
                        "actual": round(answers["wrong_computed_rate"], 3), "pass": answers["wrong_computed_rate"] == 0.0})
    lib = ws.library
    failures: dict[str, Any] = {"retrieval": retrieval_failures(retrievable, per_q, main_variant) if main_variant else []}
    if answers:
        failures["answers"] = [
            {k: r.get(k) for k in ("id", "question", "category", "answer", "expected", "expected_where",
                                   "not_in_corpus", "extractive", "computed", "notes")}
            | {"cited": [f"{c['doc']} p.{c['page']}" for c in r["citations"]],
               "why": _answer_failure_reasons(r)}
            for r in answers["rows"] if _answer_failure_reasons(r)
        ]
    by_cat: dict[str, Any] = {}
    if main_variant:
        by_cat = {c: {"retrieval": d} for c, d in _category_retrieval(retrievable, per_q, main_variant).items()}
    for cat in sorted({it.get("category") or "" for it in answerable + unanswerable}):
        its = [it for it in answerable + unanswerable if (it.get("category") or "") == cat]
        entry = by_cat.setdefault(cat, {})
        entry["n"] = len(its)
        refused = {x["id"] for x in gate["false_refusals"]} | (
            {it["id"] for it in unanswerable} - {x["id"] for x in gate["missed_ooc"]})
        entry["gate_refusal"] = sum(it["id"] in refused for it in its) / len(its)
        if answers and cat in answers["by_category"]:
            entry["answers"] = answers["by_category"][cat]
    return {
        "set": es.name,
        "sources": es.sources,
        "notes": list(es.notes),
        "library": {"dir": str(ws.data_dir), "documents": len(lib.docs), "chunks": len(lib.chunk_ids)},
        "settings": {"retrieval": dataclasses.asdict(ws.settings.retrieval)},
        "n_answerable": len(answerable), "n_ooc": len(unanswerable), "n_retrievable": len(retrievable),
        "retrieval": {v: {"page": {k: round(x, 4) for k, x in d["page"].items()},
                          "doc": {k: round(x, 4) for k, x in d["doc"].items()},
                          "n": d["n"], "ms_mean": round(d["ms_mean"], 1), "ms_p95": round(d["ms_p95"], 1)}
                      for v, d in variants.items()},
        "ann": ann,
        "gate": gate,
        "answers": answers,
        "cells": cells,
        "by_category": by_cat,
        "by_tag": tag_breakdown(retrievable, per_q, list(variants)),
        "targets": targets,
        "failures": failures,
        "per_question": per_q,
    }


def _answer_failure_reasons(r: dict[str, Any]) -> list[str]:
    why = []
    if r["answerable"] and r["not_in_corpus"]:
        why.append("refused")
    elif r["answerable"] and not r.get("correct"):
        why.append("wrong")
    if not r["answerable"] and not r["not_in_corpus"]:
        why.append("answered a must-refuse question")
    if any(not c["exact"] for c in r["citations"]):
        why.append("quote not exact")
    if r.get("cites_other_company"):
        why.append("cites another company")
    if r.get("computed") and r.get("metric_match") is False:
        why.append("wrong figure presented as computed")
    return why


# -- command ----------------------------------------------------------------------------------


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def resolve_sets(ns: argparse.Namespace) -> list[EvalSet]:
    """The data sets this run evaluates (``--devset`` = one labelled file of your own)."""
    if ns.devset:
        corpus = Path(ns.corpus) if ns.corpus and ns.corpus.lower() != "none" else sec10q_pdfs()
        return [custom_set(Path(ns.devset), corpus)]
    names = list(SETS) if ns.set in (None, "all") else [ns.set]
    sets = [load_set(n) for n in names]
    if ns.corpus and ns.corpus.lower() != "none":
        if len(sets) != 1:
            raise ValueError("--corpus needs one --set")
        sets[0].corpus = Path(ns.corpus)
    return sets


def run(ns: argparse.Namespace) -> int:
    from desktop_rag.core.workspace import Workspace

    t_start = time.perf_counter()
    setting_overrides = list(ns.overrides)
    if ns.set and "=" in ns.set:  # the old meaning of --set (a settings override)
        setting_overrides.append(ns.set)
        ns.set = None
    if ns.devset and not Path(ns.devset).is_file():
        _log(f"eval: dev set not found: {ns.devset}")
        return 2
    try:
        sets = resolve_sets(ns)
    except ValueError as exc:
        _log(f"eval: {exc}")
        return 2
    if ns.library and len(sets) != 1:
        _log("eval: --library needs one --set")
        return 2
    results: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for es in sets:
        lib_dir = library_dir(ns.data_dir, es.name, ns.library)
        # with --library URL (before the command) the set's library is that team library
        ws = Workspace(lib_dir, ns.models_dir, library=getattr(ns, "library_location", None))
        try:
            try:
                overrides = override_workspace(ws, setting_overrides)
            except (ValueError, TypeError, FileNotFoundError) as exc:
                _log(f"eval: {exc}")
                return 2
            for v in [v.strip() for v in (ns.variants or "").split(",") if v.strip() and v.strip() != "all"]:
                try:
                    _searcher(ws, v)
                except ValueError as exc:
                    _log(f"eval: {exc}")
                    return 2
            _log(f"eval[{es.name}]: library {ws.library.store.location or lib_dir}")
            notes = prepare_library(ws, es, _log, ns.allow_mismatch, ingest=(ns.corpus or "").lower() != "none")
            if not ws.library.documents():
                _log(f"eval[{es.name}]: the library is empty: skipped")
                results[es.name] = {"set": es.name, "error": "empty library", "notes": es.notes + notes}
                continue
            res = evaluate_set(ws, es, ns, _log)
            res["notes"] = res["notes"] + notes
            results[es.name] = res
        finally:
            ws.close()
    result = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "overrides": overrides,
              "sets": results, "seconds": round(time.perf_counter() - t_start, 1)}
    print(render(result, show_failures=ns.failures))
    if ns.json_path:
        Path(ns.json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(ns.json_path).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str), "utf-8")
        _log(f"eval: results written to {ns.json_path}")
    return 0 if results and all("error" not in r for r in results.values()) else 1


# -- report ------------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def _pct_of(x: float | None, n: int | None) -> str:
    return "-" if x is None else f"{x:.0%} of {n}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


_ANSWER_ROWS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("questions answered (answerable + must-refuse)", lambda a: f"{a['n_answerable']} + {a['n_ooc']}"),
    ("correct (all answerable)", lambda a: _pct(a["correct_rate"])),
    ("correct: generated / extractive",
     lambda a: f"{_pct(a['correct_rate_generated'])} / {_pct(a['correct_rate_extractive'])}"),
    ("answer cites an evidence page (answered)", lambda a: _pct(a["cited_right_page_rate"])),
    ("answer cites another company (answered)", lambda a: _pct(a["cites_other_company_rate"])),
    ("refusal on must-refuse questions", lambda a: _pct_of(a["refusal_rate_ooc"], a["n_ooc"])),
    ("false refusal on answerable", lambda a: _pct(a["false_refusal_rate"])),
    ("quotes exact (canonical page text)", lambda a: _pct_of(a["quotes_exact_rate"], a["n_quotes"])),
    ("quotes verbatim (page's own characters)",
     lambda a: _pct_of(a["quotes_verbatim_rate"], a["n_quotes_verbatim_checked"])),
    ("metric: within the asked rounding", lambda a: _pct_of(a["metric_match_rate"], a["n_metric"])),
    ("metric: presented as computed", lambda a: _pct(a["computed_rate"])),
    ("metric: wrong figure presented as computed", lambda a: _pct(a["wrong_computed_rate"])),
    ("extractive fallback (of answered)", lambda a: _pct(a["extractive_rate"])),
    ("prose: key facts covered / answers with half of them / with none",
     lambda a: "-" if not a.get("n_prose") else
     f"{_pct(a['key_facts_rate'])} / {_pct(a['prose_half_rate'])} / {_pct(a['prose_none_rate'])} of {a['n_prose']}"),
    ("retries: first attempt failed -> verified by a retry",
     lambda a: f"{a['converted_by_retry']} of {a['first_attempt_failed']}"
               + ("" if a["retry_conversion"] is None else f" ({a['retry_conversion']:.0%})")),
    ("retries: converted by", lambda a: ", ".join(f"{k} {v}" for k, v in sorted(a.get("converted_how", {}).items())) or "-"),
    ("retries: model time per question retried",
     lambda a: "-" if a.get("retry_ms_mean") is None else f"{a['retry_ms_mean'] / 1000:.1f} s"),
    ("retries: must-refuse answered after a retry", lambda a: str(a["retry_regressions"])),
    ("faithfulness (all / generated)",
     lambda a: f"{_pct(a['faithfulness_mean'])} / {_pct(a['faithfulness_generated_mean'])}"),
    ("mean answer time / first token",
     lambda a: f"{(a['total_ms_mean'] or 0) / 1000:.1f} s / "
               + ("-" if a["first_token_ms_mean"] is None else f"{a['first_token_ms_mean'] / 1000:.1f} s")),
    ("new prompt tokens (first attempt, after the cached prefix)",
     lambda a: "-" if a.get("new_prompt_tokens_mean") is None else f"{a['new_prompt_tokens_mean']:.0f}"),
]


def render(res: dict[str, Any], show_failures: bool = False) -> str:
    sets = res["sets"]
    ok = {n: r for n, r in sets.items() if "error" not in r}
    names = list(ok)
    out = []
    for n, r in sets.items():
        if "error" in r:
            out.append(f"{n}: {r['error']}")
            continue
        out.append(f"{n}: {r['n_answerable']} answerable ({r['n_retrievable']} with labelled pages) + "
                   f"{r['n_ooc']} must-refuse questions; library {r['library']['documents']} docs / "
                   f"{r['library']['chunks']} chunks ({r['library']['dir']})")
        out += [f"  note: {x}" for x in r.get("notes", [])]
    if res.get("overrides"):
        out.append(f"overrides: {res['overrides']}")
    if not names:
        return "\n".join(out)

    variants: list[str] = []
    for r in ok.values():
        variants += [v for v in r["retrieval"] if v not in variants]
    main_v = "hybrid" if "hybrid" in variants else (variants[0] if variants else None)
    rows: list[list[Any]] = []
    if main_v:
        for level, keys in (("page", ("hit@1", "hit@5", "hit@10", "MRR", "R@10")), ("doc", ("hit@1", "hit@10", "MRR"))):
            for k in keys:
                rows.append([f"{main_v} {level} {k}"] + [ok[n]["retrieval"].get(main_v, {}).get(level, {}).get(k)
                                                          for n in names])
        for v in variants:
            if v != main_v:
                rows.append([f"{v} page hit@10"] + [ok[n]["retrieval"].get(v, {}).get("page", {}).get("hit@10")
                                                    for n in names])
        rows.append([f"{main_v} ms per search"] + [ok[n]["retrieval"].get(main_v, {}).get("ms_mean") for n in names])
    out += ["", "Retrieval (k=10 hits per answerable question with labelled pages)",
            table(["measure", *names], rows)]
    out += ["", "Context gate alone (retrieval only, every question)",
            table(["measure", *names], [
                ["refuses must-refuse"] + [_pct_of(ok[n]["gate"]["refusal_rate_ooc"], ok[n]["gate"]["n_ooc"])
                                           for n in names],
                ["falsely refuses answerable"] + [_pct_of(ok[n]["gate"]["false_refusal_rate"],
                                                          ok[n]["gate"]["n_answerable"]) for n in names],
                ["before generation (calculator, then gate): refuses must-refuse"]
                + [_pct(ok[n]["gate"].get("refusal_rate_ooc_before_generation")) for n in names],
                ["before generation: falsely refuses answerable"]
                + [_pct(ok[n]["gate"].get("false_refusal_rate_before_generation")) for n in names],
                ["hnswlib recall@10 vs exact"] + [_num((ok[n]["ann"] or {}).get("recall@10")) for n in names],
            ])]
    if any(ok[n].get("answers") for n in names):
        out += ["", "Answers (full pipeline) and trust measures",
                table(["measure", *names], [[label] + [f(ok[n]["answers"]) if ok[n].get("answers") else "-"
                                                       for n in names] for label, f in _ANSWER_ROWS])]
    if any(ok[n].get("cells") for n in names):
        crow = []
        for n in names:
            c = ok[n].get("cells")
            if not c:
                crow.append("-")
            elif "skipped" in c:
                crow.append("not scored")
            else:
                crow.append(f"{_pct(c['exact_right_rate'])} of {c['n']} (found {_pct(c['found_rate'])})")
        out += ["", "Statement cells (eval/statement_cells.jsonl vs main.py statements)",
                table(["measure", *names], [["cells exactly right", *crow]])]
        for n in names:
            c = ok[n].get("cells") or {}
            if "skipped" in c:
                out.append(f"  {n}: {c['skipped']}")
    out += ["", "By category: n, page hit@1 / hit@10 / MRR (retrieval), correct or refused (answers; gate if no answers)",
            _category_table(ok, names)]
    shapes = sorted({sh for n in names for sh in ((ok[n].get("answers") or {}).get("by_shape") or {})})
    if shapes:
        def shape_cell(n: str, sh: str) -> str:
            a = ((ok[n].get("answers") or {}).get("by_shape") or {}).get(sh)
            if not a or not a["n_answerable"]:
                return "-"
            facts = f", key facts {_pct(a['key_facts_rate'])}, none {_pct(a['prose_none_rate'])}" if a.get("n_prose") else ""
            return f"{a['n_answerable']}: correct {_pct(a['correct_rate'])}{facts}"
        out += ["", "By shape of answer asked (labelled sets that give one: the blind pool batches)",
                table(["shape", *names], [[sh] + [shape_cell(n, sh) for n in names] for sh in shapes])]
    targets = sorted({t["name"] for n in names for t in ok[n]["targets"]})
    if targets:
        def cell(n: str, name: str) -> str:
            t = next((t for t in ok[n]["targets"] if t["name"] == name), None)
            return "-" if t is None else f"{t['actual']} {'PASS' if t['pass'] else 'MISS'} ({t['target']})"
        out += ["", "Targets", table(["target", *names], [[name] + [cell(n, name) for n in names] for name in targets])]
    for n in names:
        fails = ok[n]["failures"]
        out += ["", f"{n} failures: {len(fails['retrieval'])} {main_v} page misses@10"
                + (f", {len(fails.get('answers', []))} answer failures" if "answers" in fails else "")
                + ("" if show_failures else " (--failures to list)")]
        if show_failures:
            out += _failure_lines(ok[n])
    out.append(f"(eval took {res['seconds']:.0f} s)")
    return "\n".join(out)


def _category_table(ok: dict[str, Any], names: list[str]) -> str:
    cats: list[str] = []
    for n in names:
        cats += [c for c in ok[n]["by_category"] if c not in cats]
    cats.sort(key=lambda c: (c.startswith("refuse"), c))
    headers = ["category"]
    for n in names:
        headers += [f"{n} n", "hit@1", "hit@10", "MRR", "answer"]
    rows = []
    for c in cats:
        row: list[Any] = [c or "(none)"]
        for n in names:
            d = ok[n]["by_category"].get(c)
            if not d:
                row += ["", "", "", "", ""]
                continue
            r = d.get("retrieval") or {}
            a = d.get("answers")
            if c.startswith("refuse"):
                ans = f"refused {_pct(a['refusal_rate_ooc'])}" if a else f"gate {_pct(d['gate_refusal'])}"
            else:
                ans = f"correct {_pct(a['correct_rate'])}" if a else f"gate-refused {_pct(d['gate_refusal'])}"
            row += [d["n"], r.get("hit@1"), r.get("hit@10"), r.get("MRR"), ans]
        rows.append(row)
    return table(headers, rows, floatfmt="{:.2f}")


def _failure_lines(r: dict[str, Any]) -> list[str]:
    out = []
    fails = r["failures"]
    for f in fails["retrieval"]:
        out.append(f"  {f['id']} [{f['category']}] {_short(f['question'], 80)}\n      want {f['expected']}; "
                   f"top pages: {', '.join(f['got'])}"
                   + (f"; hit by {','.join(f['other_variants_hit'])}" if f["other_variants_hit"] else ""))
    for f in fails.get("answers", []):
        what = "REFUSED" if f["not_in_corpus"] else ("extractive: " if f["extractive"] else "") + _short(f["answer"] or "", 80)
        top = r["per_question"].get(f["id"], {}).get("hybrid", {}).get("top", [])
        out.append(f"  {f['id']} [{f['category']}] {', '.join(f['why'])}: {_short(f['question'], 80)}\n"
                   f"      got {what} [{', '.join(f['cited'])}]"
                   + (f"\n      want {_short(f['expected'] or '', 60)} ({f['expected_where']})" if f.get("expected") else "")
                   + (f"\n      top pages: {', '.join(top)}" if top else ""))
    for f in r["gate"]["missed_ooc"]:
        out.append(f"  {f['id']} gate let through: {_short(f['question'], 80)}")
    return out
