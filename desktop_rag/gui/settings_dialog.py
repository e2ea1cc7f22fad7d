"""Settings dialog generated from the typed ``Settings`` dataclasses: each field's type picks
the editor, its ``metadata`` gives the range and the explanation shown under it.

Model file and embedder are chosen elsewhere (model picker, embedder menu), so they are
not repeated here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.settings import Settings

# (settings group, tab title, note)
TABS = [
    ("retrieval", "Retrieval", "How passages are found and when the library is judged to have no answer."),
    ("generation", "Generation", "The local language model. Thread and context changes reload the model."),
    ("chunking", "Indexing", "How documents are cut into passages. Changing these re-indexes the library."),
    ("embedding", "Embedding", "Batch size used while embedding passages."),
]
HIDDEN = {("generation", "model_file"), ("embedding", "model")}

LABELS = {
    "top_k": "Passages returned (top k)", "alpha": "Hybrid weight (alpha)", "mmr_lambda": "MMR lambda",
    "gate_min_terms": "Gate: min. matching terms", "gate_min_cosine": "Gate: min. cosine",
    "gate_min_bm25": "Gate: min. BM25 score", "hnsw_ef_search": "HNSW ef (search)",
    "max_tokens": "Max. tokens", "threads": "CPU threads", "use_grammar": "JSON grammar",
    "use_filters": "Metadata filters",
}


def _label(name: str) -> str:
    return LABELS.get(name, name.replace("_", " ").capitalize())


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.editors: dict[tuple[str, str], QWidget] = {}
        self.tabs = QTabWidget()
        for group, title, note in TABS:
            self.tabs.addTab(self._tab(group, note), title)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.reset_btn = QPushButton("Reset to defaults")
        buttons.addButton(self.reset_btn, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.reset_btn.clicked.connect(self.reset_to_defaults)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(buttons)
        self.resize(600, 600)

    def _tab(self, group: str, note: str) -> QWidget:
        section = getattr(self.settings, group)
        inner = QWidget()
        form = QFormLayout(inner)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(4)
        head = QLabel(note)
        head.setObjectName("Muted")
        head.setWordWrap(True)
        form.addRow(head)
        for f in dataclasses.fields(section):
            if (group, f.name) in HIDDEN:
                continue
            editor = self._editor(f, getattr(section, f.name))
            editor.setToolTip(f.metadata.get("doc", ""))
            self.editors[(group, f.name)] = editor
            form.addRow(_label(f.name), editor)
            doc = QLabel(f.metadata.get("doc", ""))
            doc.setObjectName("Hint")
            doc.setWordWrap(True)
            form.addRow("", doc)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        return scroll

    def _editor(self, f: dataclasses.Field, value: Any) -> QWidget:
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        if isinstance(value, bool):
            w: QWidget = QCheckBox()
            w.setChecked(value)
        elif isinstance(value, int):
            w = QSpinBox()
            w.setRange(int(lo if lo is not None else -(2**31)), int(hi if hi is not None else 2**31 - 1))
            w.setValue(value)
            if f.name == "threads":
                w.setSpecialValueText("auto (physical cores)")
        elif isinstance(value, float):
            w = QDoubleSpinBox()
            w.setDecimals(2)
            w.setRange(float(lo if lo is not None else -1e9), float(hi if hi is not None else 1e9))
            w.setSingleStep(0.05 if (hi or 0) <= 1.0 else 0.5)
            w.setValue(value)
        else:
            w = QLineEdit(str(value))
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return w

    # -- values ---------------------------------------------------------------------------------
    @staticmethod
    def _read(w: QWidget) -> Any:
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QSpinBox | QDoubleSpinBox):
            return w.value()
        return w.text().strip()  # type: ignore[attr-defined]

    @staticmethod
    def _write(w: QWidget, value: Any) -> None:
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QSpinBox | QDoubleSpinBox):
            w.setValue(value)
        else:
            w.setText(str(value))  # type: ignore[attr-defined]

    def values(self) -> dict[tuple[str, str], Any]:
        return {key: self._read(w) for key, w in self.editors.items()}

    def reset_to_defaults(self) -> None:
        defaults = Settings()
        for (group, name), w in self.editors.items():
            self._write(w, getattr(getattr(defaults, group), name))

    def apply(self) -> set[str]:
        """Write the edited values into ``settings`` in place (the core holds references to
        the section objects). Returns the names of the groups that changed."""
        changed: set[str] = set()
        for (group, name), value in self.values().items():
            section = getattr(self.settings, group)
            if getattr(section, name) != value:
                setattr(section, name, type(getattr(section, name))(value))
                changed.add(group)
        return changed
