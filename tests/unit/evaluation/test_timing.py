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
