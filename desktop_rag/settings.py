"""The one typed settings object. Every knob of the pipeline lives here, documented.

Settings persist as JSON (``settings.json`` in the data dir). Unknown keys are ignored
and missing keys take their defaults, so old files keep working as knobs are added.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote


def knob(default: Any, doc: str, **kw: Any) -> Any:
    """A settings field with its documentation attached (shown in the settings dialog)."""
    return field(default=default, metadata={"doc": doc, **kw})


@dataclass
class ChunkingSettings:
    words_per_chunk: int = knob(
        180,
        "Words per chunk. Sized to the embedder: all-MiniLM-L6-v2 truncates at 256 word "
        "pieces, and filings average ~1.35 word pieces per word.",
        min=40, max=1000,
    )
    overlap_words: int = knob(45, "Words shared by consecutive chunks of a page (~25 %).", min=0, max=500)
    max_tokens: int = knob(
        0, "Word-piece limit per chunk; 0 = the embedder's max_seq_length minus room for the "
        "chunk header, so no chunk is silently truncated when embedded.", min=0, max=8192,
    )
    min_chunk_words: int = knob(
        25, "A page tail shorter than this is merged into the previous chunk.", min=1, max=200
    )
    detect_tables: bool = knob(
        True, "Emit tables (pymupdf table finder) as their own row-per-line chunks."
    )

    def signature(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class EmbeddingSettings:
    model: str = knob(
        "all-MiniLM-L6-v2",
        "Sentence-transformers model: a folder path, or the name of a model shipped in a "
        "local package (all-MiniLM-L6-v2). Changing it requires a re-index.",
    )
    batch_size: int = knob(32, "Chunks embedded per batch during ingest.", min=1, max=512)
    backend: str = knob(
        "torch",
        "How the model runs: 'torch' (sentence-transformers in full precision) or 'onnx-int8' (an "
        "int8-quantised ONNX export of the same model run by onnxruntime; faster only on CPUs with "
        "VNNI, measured no faster than torch on an AVX2-only CPU; exported on first use, ~25 s). "
        "Vectors differ slightly between the two: changing it requires a re-index.",
        choices=("onnx-int8", "torch"),
    )


@dataclass
class RetrievalSettings:
    candidates: int = knob(50, "Candidates taken from each of dense and BM25 search.", min=5, max=500)
    alpha: float = knob(
        0.55, "Hybrid weight: alpha*minmax(cosine) + (1-alpha)*minmax(bm25).", min=0.0, max=1.0
    )
    mmr_lambda: float = knob(
        0.5, "MMR trade-off: 1.0 = pure relevance, 0.0 = pure diversity.", min=0.0, max=1.0
    )
    top_k: int = knob(10, "Passages returned by search and considered for an answer.", min=1, max=50)
    neighbours: int = knob(
        1, "Neighbour expansion: adjacent chunks of the same page added around top hits.",
        min=0, max=3,
    )
    statement_boost: float = knob(
        0.3, "Score added to chunks of the primary statement (cash flows, operations, balance "
        "sheet) that reports a line item the question names (capex, EPS, inventory…).", min=0.0, max=1.0,
    )
    statement_pages: bool = knob(
        True, "The statement boost also finds the statement's pages from the extracted "
        "statements (core/ingest/statements), not only from chunk section headings.",
    )
    statement_evidence: bool = knob(
        True, "A line-item or metric question computable from the extracted statements puts the "
        "pages of the statement rows it is computed from (for the asked period) first.",
    )
    word_forms: int = knob(
        3, "Other forms of each question word the library indexes added to the keyword search "
        "(\"acquire\" also finds \"acquisitions\", \"acquired\"); 0 searches the words as typed.", min=0, max=8,
    )
    prose_table_penalty: float = knob(
        0.3, "Score taken from chunks made mostly of table rows when the question asks for causes, "
        "a list, a description or an outlook (the filing's prose answers those).", min=0.0, max=1.0,
    )
    page_type_penalty: float = knob(
        0.3, "Score taken from chunks of pages that match many questions and answer none: "
        "table of contents, exhibit index, cover, signatures.", min=0.0, max=1.0,
    )
    page_ranking: bool = knob(
        True, "Rank pages, not chunks: each page's best chunk stands for it (one hit per page, "
        "so ten hits are ten pages) with a bonus for other strong chunks of the same page.",
    )
    page_hits_bonus: float = knob(
        0.15, "Page ranking: weight of a page's second and third best chunk scores.", min=0.0, max=1.0,
    )
    use_filters: bool = knob(
        True, "Restrict candidates to documents matching company/period/form in the question."
    )
    gate_min_terms: int = knob(
        0, "Context gate: distinct non-stopword question terms that must occur in the context "
        "(0: off; counting words is no reason to refuse, see docs/how-answers-are-made.md).",
        min=0, max=10,
    )
    gate_min_coverage: float = knob(
        0.0, "Context gate: share of the question's key terms that one passage must contain (0: off).",
        min=0.0, max=1.0,
    )
    gate_concept: bool = knob(
        True, "Context gate: refuse when a word of the asked concept occurs in no filing in scope, "
        "or its words never meet in one passage.",
    )
    gate_min_cosine: float = knob(
        0.30, "Context gate: best cosine similarity needed (unless BM25 passes).", min=0.0, max=1.0
    )
    gate_min_bm25: float = knob(
        6.0, "Context gate: best raw BM25 score needed (unless cosine passes).", min=0.0, max=100.0
    )
    context_chunks: int = knob(
        4, "Passages put in the generator's prompt (the best after MMR).", min=1, max=10
    )
    context_words: int = knob(
        650, "Word budget for the retrieved passages the answer is checked against and quoted from "
        "(and the prompt's, unless prompt_words is set; prompt time grows with it).",
        min=100, max=4000,
    )
    # Before prompt_evidence_words (used when no evidence quote lies in the passages): 400 cut
    # the new prompt tokens of 13 financebench-dev questions from 1,424 to 889 on average
    prompt_words: int = knob(
        0, "Word budget for the passages put in the model's prompt when it is not built from the "
        "evidence quotes (prompt_evidence_words 0, or no quote found): those holding the evidence "
        "quotes first, then by rank; 0 = the whole context.", min=0, max=4000,
    )
    # Measured 2026-11-23 (README "First token and context budget"), eval --answers 10 per set,
    # same questions: 120 words -> 290 / 323 new prompt tokens (sec10q / financebench-dev) against
    # ~1,570 for whole passages, first token ÷4-6; correct 30 -> 50 % / 60 -> 60 %, evidence pages
    # cited alike, but on sec10q fewer of the model's own answers kept (6 -> 4 of 9; those lost
    # were wrong).
    prompt_evidence_words: int = knob(
        120, "Word budget of page text around the evidence quotes found before generation: the "
        "prompt carries those quotes with the sentences or table rows around them (exact page "
        "text), not whole passages; prompt time, and so the first token, grows with it. "
        "0 = passages chosen by prompt_words.", min=0, max=2000,
    )
    # Defaults measured on the bench's 100k-chunk library (recall@10 vs exact, CPU per query):
    # M=32/efc=200/ef=128 0.32 (0.2 ms); M=64/efc=400/ef=400 0.60 (0.7 ms), ef=1000 0.71 (1.2 ms).
    hnsw_ef_search: int = knob(400, "hnswlib ef at query time (recall vs speed).", min=10, max=4000)
    hnsw_m: int = knob(
        64, "hnswlib M: links per node of the dense graph (recall and memory grow with it). "
        "Changing it rebuilds the graph from the stored embeddings (no re-embedding).", min=4, max=128,
    )
    hnsw_ef_construction: int = knob(
        400, "hnswlib ef_construction: graph build effort (recall vs build time). Changing it "
        "rebuilds the graph from the stored embeddings (no re-embedding).", min=10, max=2000,
    )


@dataclass
class GenerationSettings:
    model_file: str = knob(
        "", "GGUF file in the models folder; empty = the bundled Gemma 3 270M."
    )
    threads: int = knob(0, "CPU threads for llama.cpp; 0 = number of physical cores.", min=0, max=256)
    context_window: int = knob(4096, "llama.cpp context size in tokens.", min=512, max=32768)
    max_tokens: int = knob(160, "Upper bound on generated tokens per answer.", min=16, max=2048)
    max_answer_words: int = knob(35, "Answer length asked of the model.", min=5, max=200)
    max_citations: int = knob(2, "Citations asked of the model.", min=1, max=5)
    max_quote_chars: int = knob(160, "Longest quote the model may cite.", min=20, max=600)
    # Off by default: measured 2026-11-24 (README "Retries that change what the model is asked")
    # it verified 3 of 11 first-attempt failures (sec10q 2 of 7, financebench-dev 1 of 4), all
    # three wrong answers where the extractive fallback quotes the filing; 60 is the tried budget.
    retry_evidence_words: int = knob(
        0, "Self-check: a model answer that fails verification is retried first from the evidence "
        "alone: the sentences or table rows of the asked company's passages that name what was "
        "asked (and hold a figure when one is asked), within this many words; the model restates "
        "the answer from them and the same verifier checks it. 0 = retries only reformulate the query.",
        min=0, max=400,
    )
    retry_table_rows: bool = knob(
        True, "Self-check: a model answer that fails verification is retried first without the model: "
        "the figure of a table row of the asked company's retrieved pages whose label, the heading "
        "above it and the table's heading name what was asked, in the column of the asked period "
        "(cells placed by their printed position; needs the filing's PDF where it was ingested from).",
    )
    retry_copied_figures: bool = knob(
        False, "Self-check: in the retry from the evidence, a grammar lets the model write digits "
        "only as figures printed in the sentences shown (or the question).",
    )
    answer_budget_s: float = knob(
        15.0, "Time budget of one answer, in seconds: the self-check's retries stop once the answer has "
        "taken this long in all, and a generation still running then (a slow machine's first attempt "
        "included) is cut there; the extractive answer is shown instead. 0 = no limit.", min=0.0, max=600.0,
    )
    use_grammar: bool = knob(
        False,
        "Constrain the whole reply with llama.cpp's JSON-schema grammar. Off: the JSON reply is "
        "prefilled up to the answer string and quotes are located by the verifier — measured "
        "~5x faster with the 270M Gemma (grammar sampling scans its 262k-token vocabulary).",
    )


@dataclass
class LibrarySettings:
    location: str = knob(
        "", "Where the library lives: empty = this computer (SQLite + hnswlib); a team server's "
        "connection string postgresql://user@host:5432/db?sslmode=verify-full (no password here: "
        "libpq reads PGPASSWORD, ~/.pgpass or a service file).",
    )
    connect_timeout_s: int = knob(
        5, "Team library: seconds to wait for the server when connecting (and for an unanswered "
        "packet afterwards) before saying it is unreachable.", min=1, max=120,
    )
    statement_timeout_s: int = knob(
        20, "Team library: longest a search or read may run in the server.", min=1, max=600,
    )
    write_timeout_s: int = knob(
        600, "Team library: longest a document's commit may take, waiting for another desktop's "
        "commit included.", min=10, max=7200,
    )
    # The server's pgvector HNSW index has its own parameters: this computer's hnswlib graph
    # needs M=64/ef=400 for recall (see RetrievalSettings), pgvector's does not, and a graph of
    # M=64, ef_construction=400 took 28 min to build at 100k chunks on 2 cores (m=16/64: 143 s).
    # ef_search measured on the bench's synthetic library (README "Team library"), recall@10 vs
    # exact unfiltered/filtered: at 100k chunks 40: 0.983/0.967, 64: 0.987/0.977, 100: 0.990/0.980
    # (server query p95 14 ms), 400: 1.0/0.997; at 300k 100: 0.963/0.953, 400: 0.987/1.0; at 1M
    # 100: 0.880/0.863, 400: 0.957/0.963, 1000: 0.977-0.990 (build to build). Those were m=16,
    # ef_construction=64; with m=24, ef_construction=128 (2026-11-24: built in 61 s at 100k, 956 s
    # at 1M, ~2.6x) recall@10 at 100k is 0.99 at ef_search 64-100 and at 1M 0.987 at 200, 0.993
    # at 400 (filtered 0.99/0.993): a library can grow to 1M chunks on the graph it was made with,
    # ef_search raised, without a rebuild.
    server_hnsw_m: int = knob(
        24, "Team library: pgvector HNSW links per node (m), used when the index is created "
        "(`team init`; an existing index keeps its own).", min=4, max=100,
    )
    server_hnsw_ef_construction: int = knob(
        128, "Team library: pgvector HNSW build effort (ef_construction, at least 2 x m), used "
        "when the index is created.", min=8, max=1000,
    )
    server_hnsw_halfvec: bool = knob(
        False, "Team library: build the server's HNSW index over the vectors cast to half "
        "precision (pgvector halfvec, an expression index: half the size, so a large library's "
        "index fits the server's memory); scores are still the float vectors' cosines. Used when "
        "the index is created.",
    )
    server_hnsw_ef_search: int = knob(
        100, "Team library: pgvector HNSW candidates kept per search (hnsw.ef_search; at least "
        "the candidates asked for). Recall against exact search vs latency: 100 keeps recall@10 "
        ">= 0.98 up to ~100k chunks; a larger library needs more (at 1M chunks 200-400 on the "
        "default index).", min=10, max=1000,
    )


@dataclass
class Settings:
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    library: LibrarySettings = field(default_factory=LibrarySettings)

    FILE_NAME = "settings.json"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        settings = cls()
        if not isinstance(data, dict):
            return settings
        for group in dataclasses.fields(cls):
            values = data.get(group.name)
            if isinstance(values, dict):
                _apply(getattr(settings, group.name), values)
        return settings

    @classmethod
    def load(cls, data_dir: Path) -> Settings:
        path = data_dir / cls.FILE_NAME
        try:
            return cls.from_dict(json.loads(path.read_text("utf-8")))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError, TypeError):
            # A damaged settings file must not stop the app; defaults are always valid.
            return cls()

    def save(self, data_dir: Path) -> None:
        data = self.to_dict()
        # the front ends refuse a library URL with a password; should one have come in anyway
        # (a hand-edited file), it is not written back
        data["library"]["location"] = without_secrets(self.library.location)
        write_text_atomic(data_dir / self.FILE_NAME, json.dumps(data, indent=2))


S = TypeVar("S")


def _apply(section: S, values: dict[str, Any]) -> S:
    for f in dataclasses.fields(section):  # type: ignore[arg-type]
        if f.name not in values:
            continue
        default = getattr(section, f.name)
        try:
            value = type(default)(values[f.name])
        except (TypeError, ValueError):
            continue
        choices = f.metadata.get("choices")
        if choices is not None and value not in choices:
            continue  # an unknown option keeps the default rather than failing later
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        if lo is not None and value < lo:
            value = type(default)(lo)
        if hi is not None and value > hi:
            value = type(default)(hi)
        setattr(section, f.name, value)
    return section


def write_text_atomic(path: Path, text: str) -> None:
    """Write-then-rename, so a crash never leaves a half-written file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# -- a team library's connection string never carries a secret ---------------------------------
# libpq's connection parameters that are secrets: the role's password and a client key's passphrase
SECRET_PARAMETERS = ("password", "sslpassword")
_SECRET_KEYWORD = re.compile(r"(?i)(?:^|\s)(ssl)?password\s*=")


def parameter_name(pair: str) -> str:
    """A URL query pair's name as libpq reads it (percent-decoded), lower case."""
    return unquote(pair.partition("=")[0]).strip().lower()


def url_secrets(url: str) -> list[str]:
    """The secrets a connection string carries, named ([] = none): a password after the user
    name (``postgresql://bob:secret@host/db``), a ``password`` or ``sslpassword`` parameter in
    any case, percent-encoded or not (``?PassWord=...``, ``?%70assword=...``), or either as a
    ``key=value`` pair of a libpq keyword string. Never the secret itself."""
    text = url.strip()
    if "://" not in text:
        return [f"the '{m.group(1) or ''}password' keyword" for m in _SECRET_KEYWORD.finditer(text)]
    netloc, query = _netloc_query(text)
    found = []
    userinfo = netloc.rpartition("@")[0]
    if userinfo.partition(":")[2]:
        found.append("a password after the user name")
    found += [f"the {name!r} parameter" for name in dict.fromkeys(parameter_name(p) for p in query.split("&"))
              if name in SECRET_PARAMETERS]
    return found


def _netloc_query(url: str) -> tuple[str, str]:
    """A URL's user-and-hosts part and its query, split as libpq splits them (several hosts,
    brackets and all: no parser that could refuse the string)."""
    rest = url.partition("://")[2]
    rest, _, query = rest.partition("?")
    return rest.partition("/")[0], query


def without_secrets(url: str) -> str:
    """The connection string with every secret ``url_secrets`` names taken out (the other
    parameters kept as written): what may be shown, printed or saved."""
    text = url.strip()
    if not url_secrets(text):
        return text
    if "://" not in text:  # a keyword string: drop the secret pairs (quoted values included)
        return re.sub(r"(?i)(^|\s)(ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", r"\1", text).strip()
    scheme, _, rest = text.partition("://")
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    netloc = f"{userinfo.partition(':')[0]}@{hosts}" if at and userinfo.partition(":")[0] else hosts
    kept = [p for p in query.split("&") if p and parameter_name(p) not in SECRET_PARAMETERS]
    return f"{scheme}://{netloc}{slash}{path}" + (f"?{'&'.join(kept)}" if kept else "")
