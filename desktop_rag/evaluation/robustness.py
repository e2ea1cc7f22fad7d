"""The property test of the gate and the calculator (``main.py eval --robustness``): ordinary
words never turn an answer into a refusal, nor change a computed figure.

Every answerable labelled question of a set is asked as written and in perturbed forms: an
ordinary word inserted between two of its words (an adverb, a filler), a polite or chatty
frame around it, and a one-letter slip of the keyboard in one of its longer lower-case words.
For each form the two decisions taken before any model runs are compared with the original's:
the refusal (the calculator's "cannot compute", then the context gate) and the computed
figure. A flip is a form refused where the original was not, or a computed figure that
changed (or disappeared). Runs on the set's cached library (``eval --set``); no model.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

# Ordinary words that say nothing about what is asked: inserted anywhere between two words.
FILLERS = tuple("""really exactly actually basically just quickly kindly honestly precisely specifically
generally simply currently truly definitely certainly clearly briefly essentially frankly literally
obviously personally seriously basically roughly""".split())
# Frames an analyst puts around a question.
FRAMES = (("Could you tell me: ", ""), ("Quick question - ", ""), ("", " Thanks!"), ("Hi, ", " Thank you."),
          ("I'd like to know this: ", ""), ("", " Please be precise."))
PERTURBATIONS = 6  # forms per question: 3 inserted words, 2 frames, 1 slip


def _words(question: str) -> list[re.Match[str]]:
    return list(re.finditer(r"\S+", question))


def perturbations(question: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, perturbed question) forms of ``question``."""
    out: list[tuple[str, str]] = []
    words = _words(question)
    # between two words of one sentence: never first, last, nor opening a sentence
    inside = [m for i, m in enumerate(words) if 0 < i < len(words) - 1 and not re.search(r"[.?!:]$", words[i - 1].group(0))]
    for _ in range(3):
        if not inside:
            break
        at = rng.choice(inside).start()
        out.append(("word", question[:at] + rng.choice(FILLERS) + " " + question[at:]))
    for before, after in rng.sample(FRAMES, 2):
        out.append(("frame", f"{before}{question}{after}"))
    slippable = [m for m in words if re.fullmatch(r"[a-z]{6,}[,.?]?", m.group(0))]
    if slippable:
        m = rng.choice(slippable)
        word = m.group(0).rstrip(",.?")
        i = rng.randrange(1, len(word) - 2)
        slipped = word[:i] + word[i + 1] + word[i] + word[i + 2:]  # two letters swapped
        out.append(("slip", question[:m.start()] + slipped + question[m.start() + len(word):]))
    return out


def decide(engine: Any, question: str) -> tuple[bool, float | None, str]:
    """(refused, computed figure, reason) of a question before any model runs."""
    computed = engine.statement_answer(question)
    if computed is not None:
        calc = computed.calculation
        return (calc is None), (calc.result if calc is not None else None), computed.answer if calc is None else ""
    retriever = engine.retriever
    plan = retriever.plan(question)
    gate = retriever.gate(plan, retriever.search(plan))
    return (not gate.passed), None, gate.reason


def check_set(engine: Any, questions: list[dict[str, Any]], log: Any = None) -> dict[str, Any]:
    rows = []
    flips = changed = forms = 0
    by_kind: dict[str, list[int]] = {}
    for q in questions:
        rng = random.Random(q["id"])
        refused, value, _ = decide(engine, q["question"])
        if refused:
            continue  # already refused as written: the property is about answers
        for kind, form in perturbations(q["question"], rng):
            forms += 1
            r2, v2, why = decide(engine, form)
            stat = by_kind.setdefault(kind, [0, 0])
            stat[0] += 1
            if r2:
                flips += 1
                stat[1] += 1
                rows.append({"id": q["id"], "kind": kind, "form": form, "refused": why})
            elif value is not None and (v2 is None or abs(v2 - value) > 1e-9 * max(1.0, abs(value))):
                changed += 1
                stat[1] += 1
                rows.append({"id": q["id"], "kind": kind, "form": form, "computed": v2, "was": value})
        if log is not None:
            log(f"robustness: {q['id']} done")
    return {"forms": forms, "refused": flips, "computed_changed": changed,
            "by_kind": {k: {"forms": v[0], "flipped": v[1]} for k, v in by_kind.items()}, "rows": rows}


def run(ns: argparse.Namespace) -> int:
    from desktop_rag.core.answer.engine import AnswerEngine
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.evaluation.devsets import SETS, custom_set, load_set
    from desktop_rag.evaluation.eval_run import library_dir

    if getattr(ns, "devset", None):
        sets = [custom_set(Path(ns.devset), Path(ns.corpus or "."))]
    else:
        names = SETS if getattr(ns, "set", None) in (None, "all") else (ns.set,)
        sets = [load_set(n) for n in names]
    results: dict[str, Any] = {}
    t0 = time.perf_counter()
    for s in sets:
        lib = library_dir(ns.data_dir, s.name, getattr(ns, "library", None))
        if not (lib / "index").exists():
            print(f"robustness: no library for {s.name} at {lib} (run `main.py eval --set {s.name} --no-answers` once)",
                  file=sys.stderr)
            continue
        with Workspace(lib, ns.models_dir) as ws:
            ws.library.refresh()
            engine = AnswerEngine(ws.library, ws.settings, None)
            questions = s.answerable[: ns.limit] if getattr(ns, "limit", None) else s.answerable
            results[s.name] = check_set(engine, questions)
    print(f"robustness ({time.perf_counter() - t0:.0f} s): ordinary words inserted, frames, one-letter slips")
    print(f"{'set':18s} {'forms':>6s} {'refused':>8s} {'computed changed':>17s}  by kind (flipped/forms)")
    for name, r in results.items():
        kinds = ", ".join(f"{k} {v['flipped']}/{v['forms']}" for k, v in sorted(r["by_kind"].items()))
        print(f"{name:18s} {r['forms']:6d} {r['refused']:8d} {r['computed_changed']:17d}  {kinds}")
        for row in r["rows"][:15]:
            print(f"   {row['id']} [{row['kind']}] {row['form'][:110]!r} -> {row.get('refused') or row.get('computed')}")
    if getattr(ns, "json_path", None):
        Path(ns.json_path).write_text(json.dumps(results, indent=1, ensure_ascii=False), "utf-8")
    return 0
