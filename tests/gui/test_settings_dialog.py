"""The settings dialog is generated from the typed Settings, persists, and resets."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.settings import Settings

pytestmark = pytest.mark.gui


def test_generated_editors_cover_the_knobs_with_ranges(qtbot) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    dlg = SettingsDialog(s)
    qtbot.addWidget(dlg)
    for key in [("retrieval", "top_k"), ("retrieval", "alpha"), ("retrieval", "mmr_lambda"),
                ("retrieval", "gate_min_terms"), ("retrieval", "gate_min_cosine"), ("retrieval", "gate_min_bm25"),
                ("generation", "max_tokens"), ("generation", "threads")]:
        assert key in dlg.editors, key
    top_k = dlg.editors[("retrieval", "top_k")]
    assert isinstance(top_k, QSpinBox) and (top_k.minimum(), top_k.maximum()) == (1, 50)
    alpha = dlg.editors[("retrieval", "alpha")]
    assert isinstance(alpha, QDoubleSpinBox) and alpha.maximum() == 1.0
    assert ("generation", "model_file") not in dlg.editors  # chosen with the model picker


def test_apply_persist_and_reset(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    retrieval = s.retrieval  # the core keeps references to sections: they must be edited in place
    dlg = SettingsDialog(s)
    qtbot.addWidget(dlg)
    dlg.editors[("retrieval", "top_k")].setValue(7)  # type: ignore[attr-defined]
    dlg.editors[("retrieval", "alpha")].setValue(0.8)  # type: ignore[attr-defined]
    dlg.editors[("generation", "max_tokens")].setValue(96)  # type: ignore[attr-defined]
    changed = dlg.apply()
    assert changed == {"retrieval", "generation"}
    assert s.retrieval is retrieval and retrieval.top_k == 7 and retrieval.alpha == pytest.approx(0.8)
    s.save(tmp_path)
    again = Settings.load(tmp_path)
    assert again.retrieval.top_k == 7 and again.generation.max_tokens == 96

    dlg.reset_to_defaults()
    assert dlg.editors[("retrieval", "top_k")].value() == Settings().retrieval.top_k  # type: ignore[attr-defined]
    dlg.apply()
    assert s.retrieval.top_k == Settings().retrieval.top_k
