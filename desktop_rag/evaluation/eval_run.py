"""Retrieval and answer evaluation on the labelled dev set (``main.py eval``).

Retrieval: Precision/Recall/F1@k (k = 1, 5, 10), MRR and hit@k, at page and document
level, for several retrieval variants side by side on the same index and questions:

- ``dense-plain``  raw question embedding, exact cosine over every chunk, no filters
                   (the plain MiniLM baseline);
- ``bm25-plain``   BM25 over every chunk, no filters;
- ``dense``/``bm25``/``hybrid`` the pipeline (metadata filters, shorthand expansion,
                   aliases; hybrid adds fusion and MMR);
- ``hybrid-nofilter``/``hybrid-nommr`` ablations of the default pipeline;
plus the recall of the hnswlib graph against exact brute-force top-k.

Answers (optional, slow): exactness of quotes, refusal on out-of-corpus questions,
false refusals, extractive-fallback rate, correctness against the labelled answer and
faithfulness of the answer to its quotes.

The metric functions are pure (``metrics.py``) and unit-tested on hand-made cases.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from desktop_rag.evaluation.devsets import default_corpus, load_devset, spread
from desktop_rag.evaluation.metrics import (
    ann_recall,
    answer_correct,
    faithfulness,
    first_rank,
    mean_metrics,
    quote_exact,
    retrieval_metrics,
    summarise_answers,
)
from desktop_rag.evaluation.report import short as _short
from desktop_rag.evaluation.report import table
from desktop_rag.evaluation.timing import TimedGenerator

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
DEFAULT_VARIANTS = list(VARIANTS)


def _searcher(ws: Any, variant: str) -> Callable[[str, int], list[Any]]:
    """A function question -> hits for one variant."""
    import numpy as np

    from desktop_rag.core.retrieve import HybridRetriever
    from desktop_rag.core.types import Hit

    lib = ws.library
    base = ws.settings.retrieval
    if variant == "dense-plain":
        def dense_plain(q: str, k: int) -> list[Any]:
            qv = lib.embedder.encode_query(q)
            sims = lib.vectors @ qv
            top = np.argsort(-sims)[:k]
            out = []
            for r in top:
                ch = lib.chunks[int(lib.chunk_ids[r])]
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
                                                 "top": [f"{d} p.{p}" for d, p in pages[:3]]}
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
    from desktop_rag.core.lexical import expand_shorthand

    recalls, t_ann, t_exact = [], [], []
    for q in questions:
        qv = lib.embedder.encode_query(expand_shorthand(q))
        t0 = time.perf_counter()
        exact = lib.chunk_ids[np.argsort(-(lib.vectors @ qv))[:k]].tolist()
        t1 = time.perf_counter()
        ann = [c for c, _ in lib.dense.search(qv, k)]
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
    r = ws.engine.retriever
    def refused(q: str) -> tuple[bool, str]:
        plan = r.plan(q)
        g = r.gate(plan, r.search(plan))
        return (not g.passed), g.reason
    ooc = [(it, *refused(it["question"])) for it in unanswerable]
    ans = [(it, *refused(it["question"])) for it in answerable]
    return {
        "refusal_rate_ooc": sum(x[1] for x in ooc) / max(1, len(ooc)), "n_ooc": len(ooc),
        "false_refusal_rate": sum(x[1] for x in ans) / max(1, len(ans)), "n_answerable": len(ans),
        "missed_ooc": [{"id": it["id"], "question": it["question"]} for it, ref, _ in ooc if not ref],
        "false_refusals": [{"id": it["id"], "question": it["question"], "reason": why} for it, ref, why in ans if ref],
    }


def evaluate_answers(ws: Any, answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]],
                     log: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    lib = ws.library
    timed = None
    if ws.engine.generator is not None and not isinstance(ws.engine.generator, TimedGenerator):
        # measures the first *model* token (the pipeline's own timing counts the prefilled
        # '{"answer": "' that is yielded before any prompt evaluation when the grammar is off)
        timed = ws.engine.generator = TimedGenerator(ws.engine.generator)
    rows: list[dict[str, Any]] = []
    todo = [(it, True) for it in answerable] + [(it, False) for it in unanswerable]
    for n, (it, is_ans) in enumerate(todo, 1):
        if timed is not None:
            timed.last = {}
        t0 = time.perf_counter()
        ans = ws.engine.ask(it["question"])
        times = timed.last.get("times") if timed is not None else None
        first_token_ms = (times[0] - t0) * 1000 if times else 0.0
        quotes_ok = [quote_exact(c.quote, lib.page_text(c.doc_id, c.page)) for c in ans.citations]
        row: dict[str, Any] = {
            "id": it["id"], "question": it["question"], "answerable": is_ans, "answer": ans.answer,
            "not_in_corpus": ans.not_in_corpus, "extractive": ans.extractive,
            "citations": [{"doc": c.doc, "page": c.page, "quote": c.quote, "exact": ok}
                          for c, ok in zip(ans.citations, quotes_ok, strict=True)],
            "total_ms": ans.timings_ms.get("total", 0.0), "first_token_ms": first_token_ms,
            "notes": ans.notes,
        }
        if is_ans:
            row["expected"] = it["answer"]
            row["expected_where"] = f"{it['doc']} p.{','.join(map(str, it['pages']))}"
            row["correct"] = (not ans.not_in_corpus) and answer_correct(ans.answer, it["answer"], it["answer_type"])
            rel = {(it["doc"], p) for p in it["pages"]}
            row["cited_right_page"] = any((c.doc, c.page) in rel for c in ans.citations)
            if not ans.not_in_corpus:
                row["faithfulness"] = faithfulness(ans.answer, [c.quote for c in ans.citations], it["question"])
        rows.append(row)
        log(f"  [{n}/{len(todo)}] {it['id']}: "
            + ("refused" if ans.not_in_corpus else ("extractive" if ans.extractive else "generated"))
            + (f", {'correct' if row.get('correct') else 'wrong'}" if is_ans else "")
            + f" ({row['total_ms'] / 1000:.1f} s)")
    return summarise_answers(rows)


# -- corpus -------------------------------------------------------------------------------------


def ensure_corpus(ws: Any, corpus: Path, log: Callable[[str], None]) -> None:
    """Ingest the corpus PDFs the library does not hold yet (by file name)."""
    from desktop_rag.core.library import IngestReport, collect_pdfs

    have = {d.file_name for d in ws.library.documents()}
    missing = [p for p in collect_pdfs([corpus]) if p.name not in have]
    if not missing:
        return
    log(f"ingesting {len(missing)} file(s) from {corpus} ...")
    report = IngestReport()
    for ev in ws.library.ingest(missing, report=report):
        if ev.kind in ("done_file", "failed"):
            log(f"  [{ev.index}/{ev.total}] {ev.file}: {ev.message}")
    log(f"  {report.pages} pages in {report.seconds:.0f} s")


# -- command --------------------------------------------------------------------------------------


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(ns: argparse.Namespace) -> int:
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.paths import app_root

    t_start = time.perf_counter()
    devset_path = Path(ns.devset) if ns.devset else app_root() / "eval" / "devset.jsonl"
    if not devset_path.is_file():
        _log(f"eval: dev set not found: {devset_path}")
        return 2
    items = load_devset(devset_path)
    ws = Workspace(ns.data_dir, ns.models_dir)
    try:
        try:
            overrides = apply_overrides(ws.settings, ns.overrides)
        except (ValueError, TypeError) as exc:
            _log(f"eval: {exc}")
            return 2
        problems = ws.library.mismatch()
        if problems and ns.allow_mismatch:
            _log("eval: WARNING: index built with other settings (evaluated as it is): " + "; ".join(problems))
        elif problems:
            _log("eval: the index was built with different settings: " + "; ".join(problems))
            return 2
        if (ns.corpus or "").lower() != "none":
            corpus = Path(ns.corpus) if ns.corpus else default_corpus()
            if corpus.is_dir() and problems:
                _log("eval: not ingesting into a mismatched index")
            elif corpus.is_dir():
                ensure_corpus(ws, corpus, _log)
            elif ns.corpus:
                _log(f"eval: corpus folder not found: {corpus}")
                return 2
        docs = ws.library.documents()
        if not docs:
            _log("eval: the library is empty (give --corpus DIR)")
            return 2
        names = {d.file_name for d in docs}
        answerable = [it for it in items if it.get("answerable")]
        unanswerable = [it for it in items if not it.get("answerable")]
        skipped = [it for it in answerable if it["doc"] not in names]
        answerable = [it for it in answerable if it["doc"] in names]
        if skipped:
            _log(f"eval: {len(skipped)} answerable question(s) skipped: their filing is not in the library")
        if ns.limit:
            answerable = answerable[: ns.limit]
            unanswerable = unanswerable[: max(1, ns.limit // 4)]
        variants = [v.strip() for v in (ns.variants or ",".join(DEFAULT_VARIANTS)).split(",") if v.strip()]
        try:
            for v in variants:
                _searcher(ws, v)
        except ValueError as exc:
            _log(f"eval: {exc}")
            return 2
        _log(f"eval: {len(answerable)} answerable + {len(unanswerable)} out-of-corpus questions, "
             f"{len(docs)} documents, {len(ws.library.chunk_ids)} chunks")

        ret = evaluate_retrieval(ws, answerable, variants)
        ann = evaluate_ann(ws, [it["question"] for it in answerable + unanswerable])
        gate = evaluate_gate(ws, answerable, unanswerable)
        answers = None
        if not ns.no_answers and ns.answers > 0:
            try:
                ws.load_model()
            except (FileNotFoundError, ValueError) as exc:
                _log(f"eval: cannot load the language model ({exc}); skipping answers")
            else:
                n_ans = min(ns.answers, len(answerable))
                n_ooc = min(len(unanswerable), max(1, round(n_ans * len(unanswerable) / max(1, len(answerable)))))
                _log(f"eval: answering {n_ans} answerable + {n_ooc} out-of-corpus questions ...")
                answers = evaluate_answers(ws, spread(answerable, n_ans), spread(unanswerable, n_ooc), _log)
        result = build_result(ws, devset_path, answerable, unanswerable, ret, ann, gate, answers, overrides)
        result["seconds"] = round(time.perf_counter() - t_start, 1)
        print(render(result, show_failures=ns.failures))
        if ns.json_path:
            Path(ns.json_path).parent.mkdir(parents=True, exist_ok=True)
            Path(ns.json_path).write_text(json.dumps(result, indent=1, ensure_ascii=False), "utf-8")
            _log(f"eval: results written to {ns.json_path}")
        return 0
    finally:
        ws.close()


def retrieval_failures(items: list[dict[str, Any]], per_q: dict[str, Any], variant: str = "hybrid") -> list[dict[str, Any]]:
    out = []
    for it in items:
        r = per_q.get(it["id"], {}).get(variant)
        if r is None or r["rank"] is not None:
            continue
        out.append({"id": it["id"], "question": it["question"], "tags": it.get("tags", []),
                    "expected": f"{it['doc']} p.{','.join(map(str, it['pages']))}",
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


def build_result(ws: Any, devset_path: Path, answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]],
                 ret: dict[str, Any], ann: dict[str, Any], gate: dict[str, Any], answers: dict[str, Any] | None,
                 overrides: dict[str, Any]) -> dict[str, Any]:
    variants = ret["variants"]
    per_q = ret["per_question"]
    hv = variants.get("hybrid", {}).get("page", {}).get("hit@10")
    targets = []
    if hv is not None:
        for base in ("dense-plain", "bm25-plain", "dense", "bm25"):
            if base in variants:
                bv = variants[base]["page"]["hit@10"]
                targets.append({"name": f"hybrid page-hit@10 > {base}", "target": f"> {bv:.3f}",
                                "actual": round(hv, 3), "pass": hv > bv})
    if answers and answers.get("refusal_rate_ooc") is not None:
        targets.append({"name": "refusal on out-of-corpus (answers)", "target": ">= 0.90",
                        "actual": round(answers["refusal_rate_ooc"], 3), "pass": answers["refusal_rate_ooc"] >= 0.9})
    elif gate["n_ooc"]:
        targets.append({"name": "refusal on out-of-corpus (gate)", "target": ">= 0.90",
                        "actual": round(gate["refusal_rate_ooc"], 3), "pass": gate["refusal_rate_ooc"] >= 0.9})
    if answers and answers.get("quotes_exact_rate") is not None:
        targets.append({"name": "shown quotes exact", "target": "1.000",
                        "actual": round(answers["quotes_exact_rate"], 3), "pass": answers["quotes_exact_rate"] == 1.0})
    lib = ws.library
    failures = {"retrieval": retrieval_failures(answerable, per_q, "hybrid" if "hybrid" in variants else next(iter(variants)))}
    if answers:
        failures["answers"] = [
            {k: r.get(k) for k in ("id", "question", "answer", "expected", "expected_where", "not_in_corpus",
                                   "extractive", "notes")} | {"cited": [f"{c['doc']} p.{c['page']}" for c in r["citations"]]}
            for r in answers["rows"]
            if (r["answerable"] and not r["correct"]) or (not r["answerable"] and not r["not_in_corpus"])
            or any(not c["exact"] for c in r["citations"])
        ]
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "devset": str(devset_path),
        "library": {"documents": len(lib.docs), "chunks": len(lib.chunk_ids)},
        "settings": {"retrieval": dataclasses.asdict(ws.settings.retrieval)},
        "overrides": overrides,
        "n_answerable": len(answerable), "n_ooc": len(unanswerable),
        "retrieval": {v: {"page": {k: round(x, 4) for k, x in d["page"].items()},
                          "doc": {k: round(x, 4) for k, x in d["doc"].items()},
                          "n": d["n"], "ms_mean": round(d["ms_mean"], 1), "ms_p95": round(d["ms_p95"], 1)}
                      for v, d in variants.items()},
        "ann": ann,
        "gate": gate,
        "answers": answers,
        "by_tag": tag_breakdown(answerable, per_q, list(variants)),
        "targets": targets,
        "failures": failures,
        "per_question": per_q,
    }


_COLS = ["P@1", "P@5", "P@10", "R@1", "R@5", "R@10", "F1@5", "F1@10", "MRR", "hit@1", "hit@5", "hit@10"]


def render(res: dict[str, Any], show_failures: bool = False) -> str:
    out = [f"Dev set: {res['n_answerable']} answerable + {res['n_ooc']} out-of-corpus questions; "
           f"library {res['library']['documents']} docs / {res['library']['chunks']} chunks"
           + (f"; overrides {res['overrides']}" if res["overrides"] else "")]
    for level in ("page", "doc"):
        rows = [[v] + [d[level].get(c) for c in _COLS] + ([d["ms_mean"]] if level == "page" else [])
                for v, d in res["retrieval"].items()]
        out += ["", f"Retrieval, {level} level (k=10 hits per question)",
                table(["variant"] + _COLS + (["ms"] if level == "page" else []), rows)]
    ann = res["ann"]
    if ann:
        out += ["", f"ANN vs exact: hnswlib recall@10 {ann['recall@10']:.3f} (perfect on {ann['perfect_share']:.0%} "
                    f"of {ann['n']} queries, ef={ann['ef_search']}, {ann['chunks']} chunks); "
                    f"{ann['ann_ms_mean']:.2f} ms vs exact {ann['exact_ms_mean']:.2f} ms"]
    g = res["gate"]
    out += [f"Context gate (retrieval only, all questions): refuses {g['refusal_rate_ooc']:.0%} of {g['n_ooc']} "
            f"out-of-corpus, falsely refuses {g['false_refusal_rate']:.0%} of {g['n_answerable']} answerable"]
    bt = res.get("by_tag") or {}
    if bt:
        vs = [v for v in ("dense-plain", "bm25-plain", "dense", "bm25", "hybrid") if v in res["retrieval"]]
        out += ["", "page-hit@10 by tag", table(["tag", "n", *vs], [[t, d["n"], *(d[v] for v in vs)] for t, d in bt.items()],
                                                 floatfmt="{:.2f}")]
    a = res.get("answers")
    if a:
        def pct(x: float | None) -> str:
            return "-" if x is None else f"{x:.0%}"
        out += ["", f"Answers ({a['n_answerable']} answerable + {a['n_ooc']} out-of-corpus, full pipeline)",
                table(["metric", "value"], [
                    ["quotes exact substring of cited page", f"{pct(a['quotes_exact_rate'])} of {a['n_quotes']}"],
                    ["refusal on out-of-corpus", pct(a["refusal_rate_ooc"])],
                    ["false refusal on answerable", pct(a["false_refusal_rate"])],
                    ["extractive fallback (of answered)", pct(a["extractive_rate"])],
                    ["correct (all answerable)", pct(a["correct_rate"])],
                    ["correct: generated / extractive",
                     f"{pct(a['correct_rate_generated'])} / {pct(a['correct_rate_extractive'])}"],
                    ["cites a labelled page", pct(a["cited_right_page_rate"])],
                    ["faithfulness (all / generated)",
                     f"{pct(a['faithfulness_mean'])} / {pct(a['faithfulness_generated_mean'])}"],
                    ["mean answer time / first token",
                     f"{(a['total_ms_mean'] or 0) / 1000:.1f} s / "
                     + ("-" if a["first_token_ms_mean"] is None else f"{a['first_token_ms_mean'] / 1000:.1f} s")],
                ])]
    if res["targets"]:
        out += ["", "Targets", table(["target", "goal", "actual", "result"],
                                     [[t["name"], t["target"], t["actual"], "PASS" if t["pass"] else "MISS"]
                                      for t in res["targets"]])]
    fails = res["failures"]
    out += ["", f"Failures: {len(fails['retrieval'])} hybrid page misses@10"
            + (f", {len(fails.get('answers', []))} answer failures" if "answers" in fails else "")
            + ("" if show_failures else " (--failures to list)")]
    if show_failures:
        for f in fails["retrieval"]:
            out.append(f"  {f['id']} {_short(f['question'], 80)}\n      want {f['expected']}; got {', '.join(f['got'])}"
                       + (f"; hit by {','.join(f['other_variants_hit'])}" if f["other_variants_hit"] else ""))
        for f in fails.get("answers", []):
            what = "REFUSED" if f["not_in_corpus"] else ("extractive: " if f["extractive"] else "") + _short(f["answer"] or "", 80)
            out.append(f"  {f['id']} {_short(f['question'], 80)}\n      got {what} [{', '.join(f['cited'])}]"
                       + (f"\n      want {_short(f['expected'] or '', 60)} ({f['expected_where']})" if f.get("expected") else ""))
        for f in res["gate"]["missed_ooc"]:
            out.append(f"  {f['id']} gate let through: {_short(f['question'], 80)}")
    return "\n".join(out)
