"""evaluation/robustness.py: the perturbed forms of a question."""

from __future__ import annotations

import random

from desktop_rag.evaluation.robustness import FILLERS, perturbations


def test_forms_keep_the_question_and_add_one_ordinary_thing() -> None:
    q = "What was Adobe's total revenue for fiscal 2015?"
    forms = perturbations(q, random.Random("fb-001"))
    assert [k for k, _ in forms] == ["word", "word", "word", "frame", "frame", "slip"]
    for kind, form in forms:
        if kind == "word":
            extra = set(form.split()) - set(q.split())
            assert len(extra) == 1 and extra <= set(FILLERS)
        elif kind == "frame":
            assert q in form and form != q
        else:
            assert len(form) == len(q) and sum(a != b for a, b in zip(form, q)) == 2  # two letters swapped
    assert forms == perturbations(q, random.Random("fb-001"))  # the same forms every run
