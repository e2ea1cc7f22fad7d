"""Settings for people first: a General page (theme, font size, default model, answer
style — the same control as Style under the chat —, data folder) and, under Advanced, the pipeline's knobs generated from the typed
``Settings`` dataclasses (each field's type picks the editor, its ``metadata`` gives the
range and the explanation shown under it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.core.conversation.styles import STANDARD, STYLES
from desktop_rag.core.index.backends.base import PasswordInUrl, is_server_location
from desktop_rag.gui import style
from desktop_rag.gui.chat_pane import STYLE_LABELS
from desktop_rag.settings import Settings, url_secrets, without_secrets

# (settings group, tab title, note)
TABS = [
    ("retrieval", "Retrieval", "How passages are found and when the library is judged to have no answer."),
    ("generation", "Generation", "The local language model. Thread and context changes reload the model."),
    ("chunking", "Indexing", "How documents are cut into passages. Changing these re-indexes the library."),
    ("embedding", "Embedding", "Batch size used while embedding passages."),
    ("library", "Library location",
     "This computer (leave the connection string empty) or a team server: postgresql://you@host:5432/db. "
     "The password comes from PGPASSWORD, ~/.pgpass or a service file, never from here. Used from the next start."),
]
# Chosen on the General page (model) or elsewhere (embedder menu).
HIDDEN = {("generation", "model_file"), ("embedding", "model")}

THEME_NAMES = {"system": "Same as the system", "light": "Light", "dark": "Dark"}

LABELS = {
    "location": "Team server (connection string)", "connect_timeout_s": "Connect timeout (s)",
    "statement_timeout_s": "Query timeout (s)", "write_timeout_s": "Commit timeout (s)",
    "top_k": "Passages returned (top k)", "alpha": "Hybrid weight (alpha)", "mmr_lambda": "MMR lambda",
    "gate_min_terms": "Gate: min. matching terms", "gate_min_cosine": "Gate: min. cosine",
    "gate_min_bm25": "Gate: min. BM25 score", "hnsw_ef_search": "HNSW ef (search)",
    "max_tokens": "Max. tokens", "threads": "CPU threads", "use_grammar": "JSON grammar",
    "use_filters": "Metadata filters", "server_hnsw_m": "Server HNSW m",
    "server_hnsw_ef_construction": "Server HNSW ef (build)", "server_hnsw_ef_search": "Server HNSW ef (search)",
    "server_hnsw_halfvec": "Server HNSW half precision", "max_answer_words": "Max. answer words",
}


def _label(name: str) -> str:
    return LABELS.get(name, name.replace("_", " ").capitalize())


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None, *, prefs: dict[str, Any] | None = None,
                 models: list[tuple[str, str]] | None = None, data_dir: Path | None = None,
                 answer_style: str = STANDARD) -> None:
        """``prefs``: the window's preferences (theme, font_pt); ``models``: (label, file)
        of the installed GGUF models; ``data_dir``: where the library lives now;
        ``answer_style``: the style the chat's Style box shows now (core.conversation.styles)."""
        self.current_style = answer_style
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.prefs = dict(prefs or {})
        self.data_dir = data_dir
        self.new_data_dir: Path | None = None
        self.editors: dict[tuple[str, str], QWidget] = {}
        self.tabs = QTabWidget()
        self.tabs.addTab(self._general(models or []), "General")
        self.advanced = QTabWidget()
        self.advanced.setDocumentMode(True)
        for group, title, note in TABS:
            self.advanced.addTab(self._tab(group, note), title)
        adv = QWidget()
        al = QVBoxLayout(adv)
        warn = QLabel("For tuning retrieval and generation. The defaults were measured on real filings; "
                      "Reset to defaults restores them.")
        warn.setObjectName("Hint")
        warn.setWordWrap(True)
        al.addWidget(warn)
        al.addWidget(self.advanced, 1)
        self.tabs.addTab(adv, "Advanced")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.reset_btn = QPushButton("Reset to defaults")
        buttons.addButton(self.reset_btn, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.reset_btn.clicked.connect(self.reset_to_defaults)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(buttons)
        self.resize(620, 600)

    # -- the General page ---------------------------------------------------------------------
    def _general(self, models: list[tuple[str, str]]) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(10)

        self.theme = QComboBox()
        for key, name in THEME_NAMES.items():
            self.theme.addItem(name, key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(self.prefs.get("theme", "light"))))
        form.addRow("Theme", self.theme)

        self.font_size = QSpinBox()
        self.font_size.setRange(*style.FONT_SIZES)
        self.font_size.setSuffix(" pt")
        self.font_size.setValue(int(self.prefs.get("font_pt", style.DEFAULT_FONT_PT)))
        form.addRow("Text size", self.font_size)

        self.model = QComboBox()
        self.model.addItem("The bundled model (Gemma 3 270M)", "")
        for label, file in models:
            self.model.addItem(label, file)
        current = self.settings.generation.model_file
        idx = self.model.findData(current)
        if idx < 0 and current:
            self.model.addItem(Path(current).name, current)
            idx = self.model.count() - 1
        self.model.setCurrentIndex(max(idx, 0))
        form.addRow("Default model", self.model)

        # One control with the Style box under the chat: the same list, the same value.
        self.answer_style = QComboBox()
        for name in STYLES:
            self.answer_style.addItem(STYLE_LABELS[name], name)
        self.answer_style.setCurrentIndex(max(0, self.answer_style.findData(self.current_style)))
        form.addRow("Answer style", self.answer_style)
        hint = QLabel("How answers are laid out: as generated, concise, detailed (with the quoted evidence), "
                      "bullet points or a table. The same choice as Style under the chat: it applies to the "
                      "open conversation and to new ones; each conversation keeps its own. The verified "
                      "figures and quotes are the same in every style.")
        hint.setObjectName("Hint")
        hint.setWordWrap(True)
        form.addRow("", hint)

        self.data_path = QLineEdit(str(self.data_dir) if self.data_dir else "")
        self.data_path.setReadOnly(True)
        open_btn = QPushButton("Open")
        open_btn.setToolTip("Show the folder in the file manager")
        open_btn.clicked.connect(self._open_data_dir)
        change_btn = QPushButton("Change…")
        change_btn.clicked.connect(self._choose_data_dir)
        row = QHBoxLayout()
        row.addWidget(self.data_path, 1)
        row.addWidget(open_btn)
        row.addWidget(change_btn)
        form.addRow("Data folder", row)
        self.data_note = QLabel("The library, conversations and settings live here. "
                                "A new folder starts with an empty library; it is used from the next start.")
        self.data_note.setObjectName("Hint")
        self.data_note.setWordWrap(True)
        form.addRow("", self.data_note)
        return page

    def _open_data_dir(self) -> None:
        if self.data_dir:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.data_dir)))

    def _choose_data_dir(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose the data folder", str(self.data_dir or Path.home()))
        if folder:
            self.set_data_dir(Path(folder))

    def set_data_dir(self, folder: Path) -> None:
        self.new_data_dir = None if self.data_dir and folder == self.data_dir else folder
        self.data_path.setText(str(folder))

    def preferences(self) -> dict[str, Any]:
        return {"theme": self.theme.currentData(), "font_pt": self.font_size.value()}

    def chosen_style(self) -> str:
        return str(self.answer_style.currentData() or STANDARD)

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
            if (group, f.name) == ("library", "location"):
                self.location_error = QLabel("")
                self.location_error.setObjectName("Error")
                self.location_error.setWordWrap(True)
                self.location_error.hide()
                form.addRow("", self.location_error)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        return scroll

    def _editor(self, f: dataclasses.Field, value: Any) -> QWidget:
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        if isinstance(value, bool):
            box = QCheckBox()
            box.setChecked(value)
            w: QWidget = box
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

    def location_problem(self) -> str:
        """Why the library location cannot be saved ("" = it can): a connection string that is
        not a team server's, or one carrying a password (never saved, never shown again)."""
        location = str(self._read(self.editors[("library", "location")]))
        if location and not is_server_location(location):
            return "A team server's connection string starts with postgresql:// (leave it empty for this computer)."
        secrets = url_secrets(location)
        return str(PasswordInUrl(secrets)) if secrets else ""

    def accept(self) -> None:
        """Save, unless the library location cannot be saved: then the dialog stays open, says
        why under the field, and the password typed into it is taken out of the field."""
        problem = self.location_problem()
        if problem:
            editor = self.editors[("library", "location")]
            if url_secrets(editor.text()):  # type: ignore[attr-defined]
                editor.setText(without_secrets(editor.text()))  # type: ignore[attr-defined]
            self.location_error.setText(problem)
            self.location_error.show()
            self.advanced.setCurrentIndex([group for group, _, _ in TABS].index("library"))
            self.tabs.setCurrentIndex(1)
            editor.setFocus()
            return
        super().accept()

    def values(self) -> dict[tuple[str, str], Any]:
        return {key: self._read(w) for key, w in self.editors.items()}

    def reset_to_defaults(self) -> None:
        defaults = Settings()
        for (group, name), w in self.editors.items():
            self._write(w, getattr(getattr(defaults, group), name))
        self.answer_style.setCurrentIndex(max(0, self.answer_style.findData(STANDARD)))
        self.theme.setCurrentIndex(self.theme.findData("light"))
        self.font_size.setValue(style.DEFAULT_FONT_PT)

    def apply(self) -> set[str]:
        """Write the edited values into ``settings`` in place (the core holds references to
        the section objects). Returns the names of the groups that changed."""
        changed: set[str] = set()
        values = self.values()
        values[("generation", "model_file")] = str(self.model.currentData() or "")
        for (group, name), value in values.items():
            section = getattr(self.settings, group)
            if getattr(section, name) != value:
                setattr(section, name, type(getattr(section, name))(value))
                changed.add(group)
        return changed
