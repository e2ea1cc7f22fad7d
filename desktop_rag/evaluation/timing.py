"""Measurement helpers shared by ``eval`` and ``bench``: model-token timing and peak memory."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any


def peak_rss_mb(children: bool = False) -> float:
    """Peak resident memory of this process (or its waited-for children), in MB.
    ``resource`` is Unix-only: imported here so nothing else depends on it. Windows: the
    process's peak working set (psapi); children's peak is not available there (nan)."""
    try:
        import resource
    except ImportError:
        return float("nan") if children or sys.platform != "win32" else _windows_peak_mb()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss
    return ru / (2**20 if sys.platform == "darwin" else 1024)  # bytes on macOS, KiB on Linux


def _windows_peak_mb() -> float:
    import ctypes
    from ctypes import wintypes

    class Counters(ctypes.Structure):  # PROCESS_MEMORY_COUNTERS
        _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD)] + [
            (name, ctypes.c_size_t) for name in (
                "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage", "QuotaPagedPoolUsage",
                "QuotaPeakNonPagedPoolUsage", "QuotaNonPagedPoolUsage", "PagefileUsage", "PeakPagefileUsage")]

    counters = Counters()
    counters.cb = ctypes.sizeof(Counters)
    windll = ctypes.windll  # type: ignore[attr-defined]
    ok = windll.psapi.GetProcessMemoryInfo(windll.kernel32.GetCurrentProcess(), ctypes.byref(counters), counters.cb)
    return counters.PeakWorkingSetSize / 2**20 if ok else float("nan")


class TimedGenerator:
    """Wraps the LlamaGenerator the engine uses and records when model tokens arrive."""

    def __init__(self, gen: Any) -> None:
        self._gen = gen
        self.last: dict[str, Any] = {}
        # every model call since reset(): an answer whose first attempt fails verification is
        # retried, and its first token is the first call's, not the last retry's
        self.calls: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.last, self.calls = {}, []

    @property
    def first(self) -> dict[str, Any]:
        return self.calls[0] if self.calls else {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gen, name)

    def stream(self, prompt: Any, cancel: Any = None, max_tokens: int | None = None,
               use_grammar: bool | None = None, answer_grammar: str = "") -> Iterator[str]:
        from desktop_rag.core.answer.generate import ANSWER_PREFIX

        grammar_on = self._gen.settings.use_grammar if use_grammar is None else use_grammar
        counts = self._gen.prompt_tokens(prompt, use_grammar) if hasattr(self._gen, "prompt_tokens") else None
        t0 = time.perf_counter()
        self.last = {"prompt": prompt}
        times: list[float] = []
        text: list[str] = []
        first = True
        extra = {"answer_grammar": answer_grammar} if answer_grammar else {}  # only generators that take it
        for piece in self._gen.stream(prompt, cancel, max_tokens, use_grammar, **extra):
            synthetic = (not grammar_on and isinstance(prompt, str)) and (
                (first and piece == ANSWER_PREFIX) or piece == '", "citations": []}')
            first = False
            if not synthetic:
                times.append(time.perf_counter())
                text.append(piece)
            yield piece
        self.last = {"prompt": prompt, "t_call": t0, "times": times, "text": "".join(text)}
        if counts is not None:  # the tokens prompt evaluation had to process (after the cached prefix)
            self.last["prompt_tokens"], self.last["new_prompt_tokens"] = counts[0], counts[0] - counts[1]
        self.calls.append(self.last)
