"""Plain data passed between the core, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from desktop_rag.core.domain.question import QuestionIntent

ChunkKind = Literal["text", "table"]


@dataclass
class DocumentMeta:
    """What an analyst filters by. Detected at ingest, editable afterwards."""

    company: str = ""
    ticker: str = ""
    form_type: str = ""  # 10-K, 10-Q, 8-K, earnings, transcript, or ""
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None  # 1-4; None for annual reports
    period_end: str = ""  # ISO date of the period end, when printed on the cover
    # Extra names for the company (other tickers, the file name's, the analyst's own); the
    # names derived from ``company`` and ``ticker`` are always known (domain/companies.py).
    aliases: list[str] = field(default_factory=list)

    def period_label(self) -> str:
        if self.fiscal_year and self.fiscal_quarter:
            return f"Q{self.fiscal_quarter} FY{self.fiscal_year}"
        if self.fiscal_year:
            return f"FY{self.fiscal_year}"
        return ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Document:
    doc_id: str  # sha256 of the file content (dedupe key)
    file_name: str
    path: str  # where it was ingested from (may since have moved)
    pages: int
    meta: DocumentMeta
    chunk_count: int = 0
    added_at: str = ""
    meta_edited: bool = False


@dataclass
class Chunk:
    """A passage of one page. ``text`` is exactly ``page_text[char_start:char_end]``."""

    chunk_id: int
    doc_id: str
    ordinal: int  # position within the document, for neighbour expansion
    page: int  # 1-based
    char_start: int
    char_end: int
    text: str
    kind: ChunkKind = "text"
    section: str = ""  # nearest heading above the passage

    @property
    def key(self) -> str:
        """Stable, human-readable id used in prompts and JSON output."""
        return f"{self.doc_id[:8]}:p{self.page}:{self.ordinal}"


@dataclass
class Hit:
    chunk: Chunk
    doc: Document
    score: float  # final hybrid score
    cosine: float = 0.0
    bm25: float = 0.0
    expanded: bool = False  # added by neighbour expansion, not ranked itself


@dataclass
class Filters:
    """What the retriever's metadata filters decided for a question. Empty fields were not
    applied. Dict-style access (``plan.filters.get("statements")``, ``"period" in ...``)
    stays for callers written against the earlier dict."""

    scope: int | None = None  # documents in the analyst's scope
    company: list[str] = field(default_factory=list)  # library companies the question names
    missing_company: str = ""  # a name the question uses that no library company answers to
    business: str = ""  # a name no filer bears, printed at length by one company's filings only
    form: list[str] = field(default_factory=list)
    period: list[str] = field(default_factory=list)  # periods named and found
    period_comparative: list[str] = field(default_factory=list)  # files stating them as prior periods
    period_relaxed: list[str] = field(default_factory=list)  # periods named that no document covers
    latest: list[str] = field(default_factory=list)  # files chosen for "latest ..."
    statements: list[str] = field(default_factory=list)  # statement kinds to favour ("balance", ...)

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None)
        return value if value not in (None, "", []) else default

    def __getitem__(self, key: str) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        if not hasattr(self, key):
            raise KeyError(key)
        setattr(self, key, value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __bool__(self) -> bool:
        return bool(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", [])}


@dataclass
class QueryPlan:
    """What the retriever understood of a question."""

    original: str
    cleaned: str  # question text used for embedding
    bm25_terms: list[str]
    content_terms: list[str]  # non-stopword terms used by the context gate
    doc_ids: list[str] | None = None  # restriction from metadata filters; None = all
    filters: Filters = field(default_factory=Filters)
    query_vector: Any = None  # the embedding of ``cleaned``, cached by the retriever
    asked: str = ""  # what is asked, without the analyst's instructions (core/domain/question.py)
    instructions: Any = None  # core.domain.question.Instructions: statements to read, units, rounding
    intent: QuestionIntent | None = None  # the one reading of the question (core/domain/question.py)


@dataclass
class Citation:
    doc_id: str
    doc: str  # file name
    page: int  # 1-based
    quote: str  # exact substring of the page text
    char_start: int = -1  # offset of the quote in the page text
    chunk_id: int = -1
    # the number the page prints ("72" on PDF page 74), "" when unknown or none; a citation is
    # named by domain.page_labels.cited_page ("p. 72 (PDF 74)")
    page_label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"doc": self.doc, "page": self.page, "quote": self.quote} | (
            {"page_label": self.page_label} if self.page_label else {})

    def record(self) -> dict[str, Any]:
        """As the conversation file keeps it (history, memory)."""
        return {"doc_id": self.doc_id, "doc": self.doc, "page": self.page, "quote": self.quote,
                "char_start": self.char_start, "chunk_id": self.chunk_id, "page_label": self.page_label}

    @staticmethod
    def from_record(d: dict[str, Any]) -> Citation:
        return Citation(d["doc_id"], d["doc"], d["page"], d["quote"], d.get("char_start", -1),
                        d.get("chunk_id", -1), d.get("page_label", "") or "")


@dataclass
class CalculationInput:
    """One statement cell a computed answer used, with where it is printed."""

    label: str  # row label as printed
    period: str  # "FY2015", "3 months ended 2023-07-01", "2023-07-01"
    value: float  # in the statement's scale
    unit: str  # "thousands" | "millions" | "billions" | "units" (the statement's scale)
    doc: str  # file name
    page: int  # 1-based
    quote: str  # the row's exact page text
    doc_id: str = ""
    char_start: int = -1  # the row in the page text
    cell_start: int = -1  # the cell in the page text (for highlighting exactly the cell)
    cell_end: int = -1
    bbox: tuple[float, float, float, float] | None = None  # the cell's box on the page
    page_label: str = ""  # the number the page prints (see Citation.page_label)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "period": self.period, "value": self.value, "unit": self.unit,
                "doc": self.doc, "page": self.page, "quote": self.quote,
                "cell": [self.cell_start, self.cell_end], "bbox": list(self.bbox) if self.bbox else None} | (
            {"page_label": self.page_label} if self.page_label else {})


@dataclass
class Calculation:
    """A figure or metric computed by code from statement cells (core/calculate)."""

    metric: str  # "Current ratio", or the line item's concept ("Capital expenditures")
    formula: str  # "total current assets / total current liabilities"; "" for a line item
    inputs: list[CalculationInput]
    result: float  # rounded as asked
    unit: str  # percent | ratio | times | days | usd_millions | usd_billions | usd_thousands | usd

    def to_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "formula": self.formula, "inputs": [i.to_json() for i in self.inputs],
                "result": self.result, "unit": self.unit}


@dataclass
class Evidence:
    """What the passages that passed the context gate say, shown before the model's answer:
    the extractive answer's exact quotes, of the asked company's filings only. It is evidence,
    never the answer: the verified (or extractive) answer replaces or complements it."""

    text: str  # the quotes joined (a table row's figure with unit and period), as extract gives them
    citations: list[Citation]
    ms: float = 0.0  # from Enter until it was ready

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": [c.to_json() for c in self.citations], "ms": round(self.ms, 1)}


@dataclass
class Answer:
    query: str
    answer: str
    citations: list[Citation]
    not_in_corpus: bool = False
    extractive: bool = False
    model: str = ""
    standalone_query: str = ""  # the follow-up rewritten to stand alone
    hits: list[Hit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # why a fallback happened, for the curious
    cancelled: bool = False
    calculation: Calculation | None = None  # set when code computed the figure from statements
    computed: bool = False
    evidence: Evidence | None = None  # what was shown before generation (None: nothing was)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "answer": self.answer,
            "not_in_corpus": self.not_in_corpus,
            "extractive": self.extractive,
            "citations": [c.to_json() for c in self.citations],
            "model": self.model,
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "calculation": self.calculation.to_json() if self.calculation else None,
            "computed": self.computed,
            "evidence": self.evidence.to_json() if self.evidence else None,
        }
