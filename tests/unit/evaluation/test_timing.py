from __future__ import annotations

import math
import sys

import pytest

from desktop_rag.evaluation.timing import peak_rss_mb


def test_peak_rss_is_measured_where_resource_exists() -> None:
    if sys.platform == "win32":
        pytest.skip("Unix measurement")
    assert peak_rss_mb() > 10


def test_peak_rss_without_resource_does_not_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "resource", None)  # as on Windows
    assert math.isnan(peak_rss_mb(children=True))
    value = peak_rss_mb()
    assert math.isnan(value) if sys.platform != "win32" else value > 10


class _TwoPieceGenerator:
    """Duck-types LlamaGenerator.stream: one answer string in two pieces."""

    class settings:  # an attribute bag like GenerationSettings
        use_grammar = True

    def stream(self, prompt: object, cancel: object = None, max_tokens: object = None, use_grammar: object = None):  # type: ignore[no-untyped-def]
        yield f"{prompt}-a"
        yield f"{prompt}-b"


def test_a_retried_answer_keeps_its_first_attempts_timing() -> None:
    from desktop_rag.evaluation.timing import TimedGenerator

    timed = TimedGenerator(_TwoPieceGenerator())
    timed.reset()
    assert timed.first == {} and timed.calls == []
    for prompt in ("first", "retry"):  # the engine retried after a failed verification
        assert list(timed.stream(prompt)) == [f"{prompt}-a", f"{prompt}-b"]
    assert [c["prompt"] for c in timed.calls] == ["first", "retry"]
    assert timed.first["prompt"] == "first" and timed.last["prompt"] == "retry"
    assert timed.first["times"][0] < timed.last["times"][0]
    timed.reset()
    assert timed.calls == [] and timed.first == {}


class _CountingGenerator(_TwoPieceGenerator):
    def prompt_tokens(self, prompt: object, use_grammar: object = None) -> tuple[int, int]:
        return 120, 100  # 100 of the prompt's 120 tokens already in the KV cache


def test_the_prompt_tokens_evaluated_after_the_cached_prefix_are_recorded() -> None:
    from desktop_rag.evaluation.timing import TimedGenerator

    timed = TimedGenerator(_CountingGenerator())
    list(timed.stream("q"))
    assert timed.first["prompt_tokens"] == 120 and timed.first["new_prompt_tokens"] == 20
    plain = TimedGenerator(_TwoPieceGenerator())
    list(plain.stream("q"))
    assert "new_prompt_tokens" not in plain.first
