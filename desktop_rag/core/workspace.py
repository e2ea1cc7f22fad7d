"""The application service the CLI and the GUI both call: it wires the core together
(settings, library, retrieval, the loaded model, the conversation store, all under one data
dir) and is the one place that swaps its parts (embedder, model) or changes the library
(remove, metadata). Use it as a context manager, or call ``close()``."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from types import TracebackType

from desktop_rag.core.answer.engine import AnswerEngine
from desktop_rag.core.answer.generate import LlamaGenerator, ModelInfo, inspect_model, list_models
from desktop_rag.core.conversation.database import ConversationDatabase
from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore
from desktop_rag.core.domain.company_terms import short_name
from desktop_rag.core.domain.page_labels import describe_page
from desktop_rag.core.domain.types import CalculationInput, Citation, Document, DocumentMeta
from desktop_rag.core.index.embedder import Embedder
from desktop_rag.core.index.library import Library
from desktop_rag.core.index.pdf_reader import ProcessPdfReader
from desktop_rag.core.ingest.statements.model import EXTRACTOR_VERSION as STATEMENTS_VERSION
from desktop_rag.core.ingest.statements.model import Statement
from desktop_rag.paths import DEFAULT_GGUF, embedder_cache_dir, model_dirs, set_offline_env
from desktop_rag.paths import data_dir as resolve_data_dir
from desktop_rag.paths import models_dir as resolve_models_dir
from desktop_rag.settings import Settings

log = logging.getLogger(__name__)

_REVENUE_LINE = re.compile(r"^(?:total\s+)?(?:net\s+)?(?:revenues?|sales|net sales)(?:,\s*net)?$", re.I)


class Workspace:
    def __init__(
        self, data_dir: str | Path | None = None, models_dir: str | Path | None = None,
        settings: Settings | None = None, library: str | None = None,
    ) -> None:
        """``library``: where the library lives ("" this computer, or a team server's
        ``postgresql://`` URL); None = the "Library location" setting."""
        set_offline_env()
        self.data_dir = resolve_data_dir(data_dir)
        self.models_dir = resolve_models_dir(models_dir)
        self.settings = settings or Settings.load(self.data_dir)
        self.embedder = self._embedder(self.settings.embedding.model)
        self.library_location = self.settings.library.location if library is None else library
        self.library = Library(self.data_dir, self.settings, self.embedder, location=self.library_location)
        self.engine = AnswerEngine(self.library, self.settings)
        # conversations and feedback, and each one's memory of established facts and answer
        # style: one file, one connection
        self.conversation_db = ConversationDatabase(self.data_dir / "history.sqlite")
        self.history = HistoryStore(self.conversation_db)
        self.memory = MemoryStore(self.conversation_db)
        self._model_lock = threading.Lock()

    def close(self) -> None:
        if self.engine.generator is not None:
            self.engine.generator.close()
        self.library.close()
        self.history.close()
        self.memory.close()
        self.conversation_db.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _embedder(self, name_or_path: str) -> Embedder:
        e = self.settings.embedding
        return Embedder(name_or_path, self.models_dir, e.batch_size, e.backend, embedder_cache_dir(self.data_dir))

    # -- library ----------------------------------------------------------------------
    def documents_matching(self, key: str) -> list[Document]:
        """The documents a user's key names: an id prefix or the exact file name, else a
        file-name prefix in any case ("NIKE_2021")."""
        docs = self.library.store.documents()
        matches = [d for d in docs if d.doc_id.startswith(key) or d.file_name == key]
        if not matches:
            matches = [d for d in docs if d.file_name.lower().startswith(key.lower())]
        return matches

    def read_pdfs_in_helper_processes(self) -> None:
        """Read added PDFs (and their printed page numbers) in helper processes: PyMuPDF
        holds the interpreter lock for up to a second per page, which a window's thread must
        never wait for (core/index/pdf_reader)."""
        if self.library.pdf_reader.in_process:
            old, self.library.pdf_reader = self.library.pdf_reader, ProcessPdfReader()
            old.close()

    def suggested_questions(self, docs: list[Document], limit: int = 3) -> list[str]:
        """Example questions about the library's own filings, for a new conversation: the
        companies added last first, each in the period its filing covers and about the revenue
        line its income statement prints ("total net sales", "revenue"): the figure, what drove
        it, and a margin. Stored statements are read, never extracted (a stale or missing one
        gives the plain word "revenue")."""
        picked: list[Document] = []
        for d in sorted(docs, key=lambda d: (d.added_at, d.file_name), reverse=True):
            if d.meta.company and all(p.meta.company != d.meta.company for p in picked):
                picked.append(d)
        if not picked:
            return []
        out = []
        for i in range(min(limit, 3)):
            d = picked[i % len(picked)]
            name, m = short_name(d.meta.company), d.meta
            period = (f"Q{m.fiscal_quarter} {m.fiscal_year}" if m.fiscal_quarter and m.fiscal_year
                      else f"fiscal {m.fiscal_year}" if m.fiscal_year else "its latest period")
            line = self._revenue_line(d.doc_id)
            verb = "were" if line.endswith("sales") else "was"
            out.append([f"What {verb} {name}'s {line} in {period}?", f"What drove {name}'s {line} in {period}?",
                        f"What was {name}'s operating margin in {period}?"][i])
        return out

    def _revenue_line(self, doc_id: str) -> str:
        stored = self.library.store.load_statements(doc_id)
        if stored is None or stored[0] != STATEMENTS_VERSION:
            return "revenue"
        for data in stored[1]:
            st = Statement.from_json(data)
            if st.kind != "income":
                continue
            labels = [r.label for r in st.rows if r.unit == "currency" and _REVENUE_LINE.search(r.label)]
            best = next((x for x in labels if x.lower().startswith("total")), labels[0] if labels else "")
            if best:
                return re.sub(r"\brevenues\b", "revenue", " ".join(best.lower().split()))
        return "revenue"

    def page_name(self, cited: Citation | CalculationInput) -> str:
        """A cited page as every front end names it ("p. 72 (PDF 74)"), reading the number the
        page prints when the citation does not carry it (one stored before citations did)."""
        label = cited.page_label
        if not label and cited.doc_id:
            label = self.library.page_label(cited.doc_id, cited.page)
        return describe_page(label, cited.page)

    def remove(self, doc_id: str) -> bool:
        """Remove a document (its pages, passages, vectors, statements). False if unknown."""
        return self.library.remove(doc_id)

    def update_meta(self, doc_id: str, meta: DocumentMeta) -> None:
        """An analyst's correction of a document's metadata (its passages are re-embedded)."""
        self.library.update_meta(doc_id, meta)

    def redetect_meta(self, doc_id: str) -> DocumentMeta:
        """Metadata detected again from the document's text, replacing an earlier edit."""
        return self.library.redetect_meta(doc_id)

    def set_embedder(self, name_or_path: str, remember: bool = True) -> Embedder:
        """Switch the embedding model and remember it in the settings (``remember=False``: for
        this session only, as an evaluation's override). The model is loaded first, so a folder
        that is not a model fails before anything changes. The library's vectors are then
        another model's: run ``library.reindex()`` next."""
        new = self._embedder(name_or_path)
        new.load()
        self.embedder = new
        self.library.embedder = new  # retrieval embeds queries through the library's embedder
        self.settings.embedding.model = name_or_path
        if remember:
            self.save_settings()
        return new

    # -- models ---------------------------------------------------------------------
    def available_models(self) -> list[Path]:
        """GGUFs in the models folder, then those shipped with the app (a name once)."""
        found: dict[str, Path] = {}
        for folder in model_dirs(self.models_dir):
            for p in list_models(folder):
                found.setdefault(p.name, p)
        return list(found.values())

    def model_path(self, name: str | None = None) -> Path:
        """The GGUF to use: explicit > settings > bundled Gemma > first one found."""
        name = name or self.settings.generation.model_file
        if name:
            p = Path(name)
            if p.is_file():
                return p
            for folder in model_dirs(self.models_dir):
                if (folder / name).is_file():
                    return folder / name
            raise FileNotFoundError(f"model '{name}' not found in {self.models_dir}")
        for folder in model_dirs(self.models_dir):
            if (folder / DEFAULT_GGUF).is_file():
                return folder / DEFAULT_GGUF
        found = self.available_models()
        if not found:
            raise FileNotFoundError(f"no .gguf model in {self.models_dir} (run tools/bootstrap.sh)")
        return found[0]

    def model_info(self, path: Path) -> ModelInfo:
        return inspect_model(path)

    def load_model(self, name: str | None = None) -> LlamaGenerator:
        with self._model_lock:
            path = self.model_path(name)
            current = self.engine.generator
            if current is not None and current.path == path:
                return current
            gen = LlamaGenerator(path, self.settings.generation)
            self.engine.generator = gen
            if current is not None:
                current.close()
            log.info("loaded model %s", path)
            return gen

    def reload_model(self, name: str | None = None) -> LlamaGenerator:
        """Load the model again (new thread count or context size). The current one is
        closed first: two copies of a GGUF need not fit in memory."""
        with self._model_lock:
            current, self.engine.generator = self.engine.generator, None
            if current is not None:
                current.close()
        return self.load_model(name)

    def save_settings(self) -> None:
        self.settings.save(self.data_dir)
