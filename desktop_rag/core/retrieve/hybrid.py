"""Hybrid retrieval: metadata filters from the question, dense (hnswlib) + BM25
candidates fused by ``alpha*minmax(cos) + (1-alpha)*minmax(bm25)``, MMR diversity,
neighbour expansion for context, and the context gate that says "Not in corpus"."""

from __future__ import annotations

import functools
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

# the calculator's readings of a question (private there: one home for each rule)
from desktop_rag.core.calculate.calculator import _EXPLAIN, _names_a_part, _qualified, calculate
from desktop_rag.core.calculate.concepts import find, named_in
from desktop_rag.core.calculate.metrics import metric_in
from desktop_rag.core.domain.companies import (
    abbreviates,
    is_question_word,
    names_in,
    near_spelling,
    proper_names,
    spelled_out_names,
    subject_names,
)
from desktop_rag.core.domain.numbers import CURRENCY_CODES
from desktop_rag.core.domain.page_types import DOWNWEIGHTED, page_type
from desktop_rag.core.domain.periods import MONTH_NAMES, QuestionPeriods, find_periods
from desktop_rag.core.domain.question import (
    PEOPLE_WORDS,
    asked_concept,
    computed_words,
    concept_gloss,
    counted_noun,
    defines_its_concept,
    printed_count,
    read_question,
)
from desktop_rag.core.domain.terms import (
    ALIAS_WORDS,
    QUESTION_NOISE,
    STATEMENT_TITLES,
    content_terms,
    correct_slips,
    expand_shorthand,
    statement_intent,
    tokenize,
    word_root,
)
from desktop_rag.core.domain.types import Document, Hit, QueryPlan
from desktop_rag.core.index.library import Library, embedding_text
from desktop_rag.core.ingest.chunking import is_page_furniture, is_table_row
from desktop_rag.core.ingest.identity import (
    company_aliases,
    document_covers,
    held_period_label,
    named_documents,
    period_match,
)
from desktop_rag.core.ingest.statements.model import Statement
from desktop_rag.settings import RetrievalSettings

SearchMode = Literal["hybrid", "dense", "bm25", "exact"]

_FORM = re.compile(r"\b(10-?k|10-?q|8-?k)\b", re.I)
_CAPWORD = re.compile(r"(?<![\w-])([A-Z][a-zA-Z&.]{2,})(?:'s|’s)?\b")
_PERIOD_TOKEN = re.compile(r"^(?:q[1-4]|fy\d{4}|(?:19|20)\d\d|\d{1,2})$")
# A computed figure is looked for in the filings of one company (or the analyst's scope): a
# handful of documents, not a whole library.
_MAX_CALCULATION_DOCS = 12
# Dense search is exact (brute force) over at most this many chunks of a filter's documents,
# or of a whole library this small; the HNSW graph otherwise.
EXACT_FILTERED = 60000
EXACT_UNFILTERED = 2000


def _date_matches(doc: Document, periods: QuestionPeriods, prior_years: bool = False) -> bool:
    """The document's period ends on a date the question names (within a week: 52/53-week
    years); ``prior_years``: or an annual report's comparative year ends on it."""
    from datetime import date

    try:
        end = date.fromisoformat(doc.meta.period_end) if doc.meta.period_end else None
    except ValueError:
        return False
    if end is None:
        return False
    ends = [end]
    if prior_years and doc.meta.form_type in ("10-K", "20-F"):
        ends += [end.replace(year=end.year - k, day=min(end.day, 28)) for k in (1, 2)]
    return any(abs((e - d).days) <= 7 for e in ends for d in periods.dates)


def _defined_in(word: str, plan: QueryPlan) -> bool:
    """An abbreviation the question itself spells out ("days payable outstanding (DPO)") or
    defines ("DPO is defined as ...") is no unknown name."""
    if re.search(rf"\(\s*{re.escape(word)}\s*\)|\b{re.escape(word)}\s*=", plan.original):
        return True  # "(DPO)", "where DSO = 365 * ..."
    defined = getattr(plan.instructions, "definitions", {}) or {}
    return any(word.lower() in term.lower().split() for term in defined)


def _years_text(years: list[int]) -> str:
    return ", ".join(f"FY{y}" for y in years)


def minmax(scores: dict[int, float]) -> dict[int, float]:
    """Scale to [0, 1]; a constant list (incl. a single item) maps to 1.0."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(dense: dict[int, float], lexical: dict[int, float], alpha: float) -> dict[int, float]:
    """alpha*minmax(dense) + (1-alpha)*minmax(lexical); missing from a list = 0 there."""
    d, b = minmax(dense), minmax(lexical)
    return {k: alpha * d.get(k, 0.0) + (1 - alpha) * b.get(k, 0.0) for k in set(d) | set(b)}


@functools.cache
def _blas_pools() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def _one_blas_thread() -> AbstractContextManager[Any]:
    """numpy's BLAS on one thread for a small product: the candidates' similarity matrix
    (~300 x 384) took 23 ms with OpenBLAS's two threads on this shared 2-core machine at load
    ~5 (their spin-waits collapse when the other core is busy) and 3 ms with one."""
    limiter: AbstractContextManager[Any] = _blas_pools().limit(limits=1)
    return limiter


def mmr(
    ranked: list[int], relevance: dict[int, float], vectors: dict[int, np.ndarray], lam: float, k: int
) -> list[int]:
    """Maximal marginal relevance: lam*rel - (1-lam)*max cosine to already chosen."""
    chosen: list[int] = []
    pool = list(ranked)
    if not pool:
        return chosen
    mat = np.stack([vectors[c] for c in pool])
    with _one_blas_thread():
        sims = mat @ mat.T
    idx = {c: i for i, c in enumerate(pool)}
    best_sim = np.full(len(pool), -np.inf)
    remaining = set(range(len(pool)))
    rel = np.array([relevance[c] for c in pool])
    while remaining and len(chosen) < k:
        redundancy = best_sim if chosen else np.zeros(len(pool))
        score = lam * rel - (1 - lam) * redundancy
        i = max(remaining, key=lambda j: (score[j], -j))
        chosen.append(pool[i])
        remaining.discard(i)
        best_sim = np.maximum(best_sim, sims[idx[pool[i]]])
    return chosen


@dataclass
class GateResult:
    passed: bool
    reason: str = ""


class HybridRetriever:
    def __init__(self, library: Library, settings: RetrievalSettings) -> None:
        self.library = library
        self.settings = settings
        self._page_type_cache: dict[tuple[str, int], str] = {}
        self._statement_page_cache: dict[str, dict[int, set[str]]] = {}
        self._statements_cache: dict[str, list[Statement]] = {}
        # the library's documents (the dict of one load) -> doc_id -> its company aliases
        self._aliases_of: tuple[dict[str, Document] | None, dict[str, frozenset[str]]] = (None, {})
        self._vocab: tuple[tuple[int, int] | None, frozenset[str]] = (None, frozenset())

    # -- understanding the question -------------------------------------------------
    def plan(self, question: str, doc_scope: list[str] | None = None) -> QueryPlan:
        lib = self.library
        lib.refresh()
        q = question.strip()
        intent = read_question(q)
        # instructions (persona, units, rounding, sources) are no evidence; a slip of the
        # keyboard in a word ("slaes") is the word the filings print
        asked = self.corrected(intent.asked)
        plan = QueryPlan(original=q, cleaned=expand_shorthand(asked), bm25_terms=tokenize(asked),
                         content_terms=content_terms(asked), asked=asked, instructions=intent.instructions,
                         intent=intent)
        docs = [d for d in lib.docs.values() if doc_scope is None or d.doc_id in doc_scope]
        if doc_scope is not None:
            plan.filters.scope = len(docs)
        if not self.settings.use_filters:
            plan.doc_ids = [d.doc_id for d in docs] if doc_scope is not None else None
            return plan

        # Names anywhere in the question count, the persona's too ("You are an analyst
        # looking at Walmart."); a company is all filings of the same registrant, whichever
        # of them printed the ticker the question uses.
        names_of = {d.doc_id: self._aliases(d) for d in docs}
        taken = {a for names in names_of.values() for a in names}
        for token in dict.fromkeys(re.findall(r"\b[A-Z]{3,5}\b", q)):
            # "MCD" for McDonald's, whose earnings release never prints its symbol: a symbol
            # written from one library company's name (and no other's) names that company
            if token in taken or token.lower() in taken or expand_shorthand(token) != token or metric_in(token):
                continue  # a name already, or the analyst's shorthand for a measure ("EPS", "ROE")
            owners = {d.meta.company for d in docs if d.meta.company and abbreviates(token, d.meta.company)}
            if len(owners) == 1:
                names_of = {d.doc_id: names_of[d.doc_id] | {token} if d.meta.company in owners else names_of[d.doc_id]
                            for d in docs}
        metas = {d.doc_id: d.meta for d in docs}
        named = named_documents(q, names_of, metas)
        if named:
            docs = [d for d in docs if d.doc_id in named]
            plan.filters.company = sorted({d.meta.company or d.meta.ticker for d in docs})
            # "UPS (United Parcel Service) capital expenditures ... compared with FedEx": a second
            # company the question is about, of which the library holds no filing
            absent = self.absent_subject(asked)
            if absent and not named_documents(absent, names_of, metas) and not self.business_owner(absent, docs):
                plan.filters.missing_company = absent
        else:
            missing = self.missing_company(asked)
            owner = self.business_owner(missing, docs) if missing else ""
            if owner:
                # "StubHub's revenue" over a library holding eBay's 10-K: a business the question
                # names alone is read in its owner's filings, and the evidence must name it
                docs = [d for d in docs if d.meta.company == owner]
                plan.filters.company = [owner]
                plan.filters.business = missing
            elif missing:
                plan.filters.missing_company = missing

        forms = {f.upper().replace("10Q", "10-Q").replace("10K", "10-K").replace("8K", "8-K")
                 for f in _FORM.findall(asked)}
        if forms:
            narrowed = [d for d in docs if d.meta.form_type in forms]
            if narrowed:
                docs = narrowed
                plan.filters.form = sorted(forms)

        periods = find_periods(asked)
        quarters = periods.quarters
        # a date's year stands for the period only when no quarter is named ("the quarter
        # ending January 28, 2024" is that quarter, not every report of 2024)
        years = periods.years | ({d.year for d in periods.dates} if not quarters else set())
        if quarters or years:
            # "FY2024", "fiscal 2023": the filer's own label; otherwise the analyst's file name,
            # then the calendar period, then the fiscal label (the best rank found wins)
            fiscal_only = all(m.fiscal for m in periods.mentions if not m.date)
            ranks = {d.doc_id: (-1 if _date_matches(d, periods)
                                else period_match(d, quarters, periods.years, fiscal_only)) for d in docs}
            best: dict[str, int] = {}  # per company, so "Apple and Intel in Q3 2023" keeps both
            for d in docs:
                r = ranks[d.doc_id]
                if r is not None:
                    key = d.meta.company or d.file_name
                    best[key] = min(best.get(key, r), r)
            own = [d for d in docs if ranks[d.doc_id] is not None
                   and ranks[d.doc_id] == best[d.meta.company or d.file_name]]
            if periods.dates and not own and not quarters:
                # "as of December 31, 2021": the balance sheet of the next year's 10-K compares it
                own = [d for d in docs if _date_matches(d, periods, prior_years=True)]
            compared = [] if own else [d for d in docs if document_covers(d, quarters, years, comparative=True)]
            if not own and not compared and quarters and not years:
                # a quarter of a year whose annual report is in the library: a 10-K prints its
                # quarters' dividends and quarterly data
                own = [d for d in docs if d.meta.form_type == "10-K" and d.meta.fiscal_year in {y for y, _ in quarters}]
            if not own and not compared and intent.forward:
                # an outlook for a later period is in the latest filing, which states it
                own = _latest_per_company(docs)
            if own or compared:
                docs = own or compared
                plan.filters.period = periods.labels()
                if compared:
                    plan.filters.period_comparative = sorted(d.file_name for d in docs)
            else:
                plan.filters.period_relaxed = periods.labels()
        elif periods.latest and docs:
            docs = _latest_per_company(docs)
            plan.filters.latest = sorted(d.file_name for d in docs)

        if named or forms or plan.filters.period or doc_scope is not None or plan.filters.latest:
            plan.doc_ids = [d.doc_id for d in docs]
        # Words the filter has already used (company names, periods) sit in every header of
        # the matching documents and only add noise to BM25.
        used: set[str] = set()
        if plan.filters.company:
            used.update(tokenize(" ".join(a for d in docs for a in company_aliases(d.meta))))
        if plan.filters.period or plan.filters.latest:
            used.update(t for t in plan.bm25_terms if _PERIOD_TOKEN.match(t))
        kept = [t for t in plan.bm25_terms if t not in used and t not in QUESTION_NOISE]
        plan.bm25_terms = kept or plan.bm25_terms
        if self.settings.word_forms:
            # the filing's words for the analyst's: "acquire" is printed "acquisitions", "acquired"
            printed = [f for t in plan.bm25_terms if not _PERIOD_TOKEN.match(t)
                       for f in lib.lexical.word_forms(t, self.settings.word_forms)]
            plan.bm25_terms = plan.bm25_terms + [f for f in dict.fromkeys(printed)
                                                 if f not in plan.bm25_terms and f not in used]
        # A statement the analyst names ("using the balance sheet") wins over the one the
        # line items suggest.
        named_statements = [k for k in intent.instructions.statements if k in STATEMENT_TITLES]
        # A cause, list, description or outlook is told in the filing's prose: a line item it
        # names ("why did net income fall") points to no statement to favour
        plan.filters.statements = sorted(set(named_statements) or (
            set() if intent.prose else statement_intent(plan.bm25_terms)))
        return plan

    def corrected(self, text: str) -> str:
        """``text`` with its slips of the keyboard corrected towards the library's words."""
        return correct_slips(text, self._vocabulary(), near_spelling, self._a_word)

    def _a_word(self, word: str) -> bool:
        """A word the embedder's vocabulary holds whole ("slipped", "declined"): a word of the
        language, never a slip of the keyboard, whether or not the library prints it."""
        cost = getattr(self.library.embedder, "word_cost", None)
        try:
            return cost is not None and cost(word) == 1 and cost(word + "zq") > 1
        except Exception:  # no tokenizer for this embedder: every word may be a slip, as before
            return False

    def _vocabulary(self) -> frozenset[str]:
        """The library's indexed terms, as a set kept until the index changes."""
        lexical = self.library.lexical
        key = (id(lexical), len(lexical.ids))
        if self._vocab[0] != key:
            self._vocab = (key, frozenset(lexical.terms()))
        return self._vocab[1]

    def _aliases(self, doc: Document) -> frozenset[str]:
        """``company_aliases`` of a document, once per loaded state of the library (a question
        asks them of every filing: a large library's planning was mostly this)."""
        docs = self.library.docs
        if self._aliases_of[0] is not docs:
            self._aliases_of = (docs, {})
        memo = self._aliases_of[1]
        names = memo.get(doc.doc_id)
        if names is None:
            names = memo[doc.doc_id] = frozenset(company_aliases(doc.meta))
        return names

    # -- search -----------------------------------------------------------------------
    def _allowed_rows(self, plan: QueryPlan) -> np.ndarray | None:
        return self.library.allowed_rows(plan.doc_ids)

    def dense_candidates(self, plan: QueryPlan, k: int, exact: bool = False) -> dict[int, float]:
        lib = self.library
        if not len(lib.chunk_ids):
            return {}
        qv = self.query_vector(plan)
        mask = self._allowed_rows(plan)
        n_allowed = len(lib.chunk_ids) if mask is None else int(mask.sum())
        if exact or (n_allowed <= EXACT_FILTERED and (mask is not None or n_allowed <= EXACT_UNFILTERED)):
            # Brute force is exact and, for a filtered or small set, faster than the graph: a
            # filtered graph search calls a Python filter per visited node (measured at 100k
            # chunks with a third allowed: ~6x slower than unfiltered, recall 0.69), while
            # 60k rows x 384 dims is one matrix-vector product of a few ms.
            rows = np.arange(len(lib.chunk_ids)) if mask is None else np.flatnonzero(mask)
            if len(lib.embedded) == len(lib.chunk_ids) and not lib.embedded.all():
                rows = rows[lib.embedded[rows]]  # chunks still being embedded: BM25 finds them
            # Indexing copies the rows: for a large share of the library one product over
            # all of it and a pick is cheaper than the copy.
            sims = (lib.vectors @ qv)[rows] if 4 * len(rows) > len(lib.chunk_ids) else lib.vectors[rows] @ qv
            # the k best, ties in chunk order (as the team library's exact search orders them)
            sel = np.arange(len(rows))
            if len(rows) > k > 0:
                sel = np.flatnonzero(sims >= np.partition(sims, len(sims) - k)[len(sims) - k])
            top = rows[sel[np.lexsort((sel, -sims[sel]))][:k]]
            return {int(lib.chunk_ids[r]): float(lib.vectors[r] @ qv) for r in top}
        # the graph: hnswlib here, pgvector's HNSW index (filter in SQL) on a team library
        return dict(lib.dense_search(qv, k, plan.doc_ids))

    def _exact_is_cheap(self, plan: QueryPlan) -> bool:
        """Search a small library, or a filter's documents, exactly rather than through the
        graph (as ``dense_candidates`` does on this computer; on a team library in the server,
        up to the rows its layout scans quickly: ``PostgresStore.exact_scan_rows``)."""
        lib = self.library
        if plan.doc_ids is None:
            return len(lib.chunk_ids) <= EXACT_UNFILTERED
        limit = getattr(lib.store, "exact_scan_rows", EXACT_UNFILTERED)
        return sum(len(lib.doc_chunks.get(d, ())) for d in plan.doc_ids) <= limit

    def query_vector(self, plan: QueryPlan) -> np.ndarray:
        """The question's embedding, computed once per plan."""
        if plan.query_vector is None:
            plan.query_vector = self.library.embedder.encode_query(plan.cleaned)
        return plan.query_vector

    def bm25_candidates(self, plan: QueryPlan, k: int) -> dict[int, float]:
        return dict(self.library.lexical_search(plan.bm25_terms, k, plan.doc_ids))

    def search(
        self, question: str | QueryPlan, k: int | None = None, mode: SearchMode = "hybrid",
        doc_scope: list[str] | None = None,
    ) -> list[Hit]:
        cfg = self.settings
        k = k or cfg.top_k
        plan = question if isinstance(question, QueryPlan) else self.plan(question, doc_scope)
        lib = self.library
        n = max(cfg.candidates, k)
        cosines: dict[int, float] = {}
        dense: dict[int, float]
        if lib.on_server:
            # a team library: the dense query in the server while BM25 runs here, then the
            # lexical candidates' chunks and cosines (no chunk text or vector is kept on the desktop)
            no_dense = not len(lib.chunk_ids) or (plan.doc_ids is not None and not plan.doc_ids)
            if mode == "bm25" or (mode == "hybrid" and no_dense):
                dense = {}
                lexical = self.bm25_candidates(plan, n)
                if mode == "bm25":
                    lib.prefetch(sorted(lexical, key=lambda c: -lexical[c])[:k])
            elif no_dense:
                dense, lexical = {}, {}
            else:
                exact = mode == "exact" or self._exact_is_cheap(plan)
                if mode == "hybrid":
                    dense, lexical, cosines, types = lib.hybrid_candidates(
                        self.query_vector(plan), n, plan.doc_ids, lambda: self.bm25_candidates(plan, n), exact)
                else:
                    lexical = {}
                    dense, cosines, types = lib.search_candidates(self.query_vector(plan), n, plan.doc_ids, [], exact)
                self._page_type_cache.update(types)  # typed when stored: nothing to type here
        else:
            dense = self.dense_candidates(plan, n, exact=(mode == "exact")) if mode != "bm25" else {}
            lexical = self.bm25_candidates(plan, n) if mode in ("hybrid", "bm25") else {}
        if mode in ("dense", "exact"):
            ranked = sorted(dense, key=lambda c: -dense[c])[:k]
            scores = dense
        elif mode == "bm25":
            ranked = sorted(lexical, key=lambda c: -lexical[c])[:k]
            scores = lexical
        else:
            scores = fuse(dense, lexical, cfg.alpha)
            self._drop_furniture(scores)
            self._boost_statements(plan, scores)
            self._weigh_page_types(scores)
            if plan.intent is not None and plan.intent.prose:
                self._weigh_tables(scores)
            if cfg.page_ranking:
                ranked, scores = self._rank_pages(scores, k)
            else:
                order = sorted(scores, key=lambda c: -scores[c])
                ranked = (mmr(order, scores, lib.vectors_of(order), cfg.mmr_lambda, k) if cfg.mmr_lambda < 1.0
                          else order[:k])
            if plan.intent is None or not plan.intent.prose:
                ranked = self._pin_statement_evidence(plan, ranked, scores, k)
        # Fill in the cosine of BM25-only candidates so the gate and UI see real numbers.
        hits = []
        for c in ranked:
            cos = dense.get(c)
            if cos is None and mode != "bm25":
                cos = cosines[c] if c in cosines else float(lib.vectors_of([c])[c] @ self.query_vector(plan))
            chunk = lib.chunks[c]
            hits.append(Hit(chunk, lib.docs[chunk.doc_id], float(scores[c]), cos or 0.0, lexical.get(c, 0.0)))
        return hits

    def _drop_furniture(self, scores: dict[int, float]) -> None:
        """A chunk made only of running headers/footers ("Apple Inc. | Q3 2023 Form 10-Q | 1")
        is never evidence; being short and naming the company, it would otherwise win BM25's
        length normalisation and stand for its page."""
        for cid in list(scores):
            lines = [ln for ln in self.library.chunks[cid].text.split("\n") if ln.strip()]
            if lines and all(is_page_furniture(ln) for ln in lines):
                del scores[cid]

    def _weigh_tables(self, scores: dict[int, float]) -> None:
        """For a question answered by prose (causes, lists, descriptions, outlooks), a chunk
        that is mostly table rows loses ``prose_table_penalty``: a statement's "Net income" row
        names the measure and explains nothing."""
        penalty = self.settings.prose_table_penalty
        if not penalty:
            return
        for cid in scores:
            lines = [ln for ln in self.library.chunks[cid].text.split("\n") if ln.strip()]
            if lines and sum(is_table_row(ln) for ln in lines) > 0.6 * len(lines):
                scores[cid] -= penalty

    def _boost_statements(self, plan: QueryPlan, scores: dict[int, float]) -> None:
        """Line-item questions ("capex", "EPS") favour the primary statement that reports
        the item; such tables are long and lose on BM25 length normalisation otherwise.
        A chunk belongs to the statement when its section heading names it or (with
        ``statement_pages``) its page carries that statement as extracted by core/ingest/statements."""
        kinds = set(plan.filters.statements)
        wanted = [STATEMENT_TITLES[s] for s in kinds if s in STATEMENT_TITLES]
        if not kinds or not self.settings.statement_boost:
            return
        if self.settings.statement_pages:
            self._load_statement_pages({self.library.chunks[c].doc_id for c in scores})
        for cid in scores:
            chunk = self.library.chunks[cid]
            section = chunk.section
            on_page = self.settings.statement_pages and self._statement_pages(chunk.doc_id).get(chunk.page, set()) & kinds
            if on_page or (section and any(rx.search(section) for rx in wanted)):
                scores[cid] += self.settings.statement_boost

    def statements(self, doc_id: str) -> list[Statement]:
        """The document's extracted statements, cached (doc ids are content hashes); none
        when the statement reader fails (that must never break search)."""
        cached = self._statements_cache.get(doc_id)
        if cached is None:
            try:
                cached = self.library.statements(doc_id)
            except Exception:
                cached = []
            self._statements_cache[doc_id] = cached
        return cached

    def statement_evidence(self, plan: QueryPlan) -> list[int]:
        """Chunks holding the statement rows a line-item or metric question is computed from,
        one per page, in the order the computation reads them: "Walmart's FY2020 return on
        assets" -> the income statement's net income row, then the balance sheet's total assets
        row, for the asked period. The calculator (core/calculate) decides, exactly as it does
        for the computed answer, so retrieval and answer agree on the evidence. Empty when the
        question is no statement figure, no company is named (or scoped), or an input is missing."""
        cfg = self.settings
        lib = self.library
        if not cfg.statement_evidence or not plan.doc_ids or not (plan.filters.company or plan.filters.scope):
            return []
        if len(plan.doc_ids) > _MAX_CALCULATION_DOCS:
            return []
        docs = [lib.docs[d] for d in plan.doc_ids if d in lib.docs]
        ins = plan.instructions
        scale = ins.scale if ins is not None and ins.scale in ("thousands", "millions", "billions") else ""
        try:
            out = calculate(plan.original, docs, self.statements, lib.page_text, scale,
                            ins.decimals if ins is not None else None)
        except Exception:  # the calculator must never break search
            return []
        if out is None or out.calculation is None:
            return self._trend_row(plan, docs)
        chunks: list[int] = []
        pages: set[tuple[str, int]] = set()
        for ci in out.calculation.inputs:
            if (ci.doc_id, ci.page) in pages:
                continue
            cid = self._chunk_at(ci.doc_id, ci.page, ci.char_start)
            if cid is not None:
                pages.add((ci.doc_id, ci.page))
                chunks.append(cid)
        return chunks

    def _trend_row(self, plan: QueryPlan, docs: list[Document]) -> list[int]:
        """A line item asked over several years ("How did Nike's diluted EPS evolve over fiscal
        2021-2023?") is no single figure the calculator computes, but its statement row, in the
        filing whose columns cover the most of the years asked, is the evidence: that row's
        chunk. The calculator's own readings decide what is a line item (its concept table) and
        what is not (an explanation, or a part of the company: a segment, region or product)."""
        asked = plan.asked or plan.original
        years = find_periods(asked).years
        concepts = named_in(asked)
        if len(years) < 2 or not concepts or _EXPLAIN.search(asked):
            return []
        concept = concepts[0]
        best: tuple[int, int] | None = None  # (years covered, chunk)
        for doc in docs:
            words = set(re.findall(r"[a-z0-9&]+", f"{doc.meta.company} {doc.meta.ticker}".lower()))
            words |= {a.lower() for alias in doc.meta.aliases for a in re.findall(r"[A-Za-z0-9&]+", alias)}
            if _names_a_part(asked, words) or _qualified(asked, concept.words, words):
                return []
            statements = self.statements(doc.doc_id)
            found = find(concept, statements, asked)
            if found is None:
                continue
            covered = len(years & {int(c.period_end[:4]) for c in found.row.cells if c.value is not None and c.period_end})
            cid = self._chunk_at(doc.doc_id, found.row.page, found.row.span[0])
            if cid is not None and covered and (best is None or covered > best[0]):
                best = (covered, cid)
        return [best[1]] if best else []

    def _chunk_at(self, doc_id: str, page: int, offset: int) -> int | None:
        """The chunk of a page holding character ``offset`` (else the page's first chunk)."""
        lib = self.library
        lib.prefetch(lib.doc_chunks.get(doc_id, ()))
        on_page = [c for c in lib.doc_chunks.get(doc_id, ()) if lib.chunks[c].page == page]
        for c in on_page:
            if lib.chunks[c].char_start <= offset < lib.chunks[c].char_end:
                return c
        return on_page[0] if on_page else None

    def _pin_statement_evidence(self, plan: QueryPlan, ranked: list[int], scores: dict[int, float],
                                k: int) -> list[int]:
        """The statement rows a figure is computed from lead the hits (see
        ``statement_evidence``); the rest keep their order, other chunks of a pinned page
        dropped when pages are ranked."""
        evidence = self.statement_evidence(plan)
        if not evidence:
            return ranked
        lib = self.library
        top = max((scores[c] for c in ranked), default=0.0)
        for i, c in enumerate(evidence):
            scores[c] = top + 0.01 * (len(evidence) - i)
        pinned = {(lib.chunks[c].doc_id, lib.chunks[c].page) for c in evidence}
        rest = [c for c in ranked if c not in evidence
                and not (self.settings.page_ranking and (lib.chunks[c].doc_id, lib.chunks[c].page) in pinned)]
        return (evidence + rest)[:k]

    def _statement_pages(self, doc_id: str) -> dict[int, set[str]]:
        """page -> statement kinds printed on it, from the document's extracted statements."""
        if doc_id not in self._statement_page_cache:
            self._load_statement_pages({doc_id})
        return self._statement_page_cache[doc_id]

    def _load_statement_pages(self, doc_ids: set[str]) -> None:
        """Cache the statement page maps of documents not seen yet, read at once (the stored
        maps: on a team library one round trip, no statement parsed; measured before at ~40 ms
        a filing, most of a filtered search at 100k chunks). Doc ids are content hashes: a
        document's map changes only with the statement reader. None when reading fails (that
        must never break search)."""
        missing = sorted(d for d in doc_ids if d not in self._statement_page_cache)
        if not missing:
            return
        try:
            maps = self.library.statement_pages(missing)
        except Exception:
            maps = {}
        for doc_id in missing:
            self._statement_page_cache[doc_id] = {page: set(kinds) for page, kinds in maps.get(doc_id, {}).items()}

    def page_type(self, doc_id: str, page: int) -> str:
        """domain.page_types of a library page, cached (doc ids are content hashes)."""
        key = (doc_id, page)
        kind = self._page_type_cache.get(key)
        if kind is None:
            kind = page_type(self.library.page_text(doc_id, page))
            self._page_type_cache[key] = kind
        return kind

    def _type_pages(self, pages: set[tuple[str, int]]) -> None:
        """Type the pages not typed yet, their texts read at once (on a team library one
        round trip for all, not one per page: measured 8 of 11 s of 30 hybrid searches)."""
        missing = sorted(p for p in pages if p not in self._page_type_cache)
        if len(missing) > 1:
            texts = self.library.page_texts_at(missing)
            for key in missing:
                self._page_type_cache[key] = page_type(texts.get(key, ""))

    def _weigh_page_types(self, scores: dict[int, float]) -> None:
        """Tables of contents, exhibit indexes, covers and signature pages name every
        topic and answer none: their chunks lose ``page_type_penalty``."""
        penalty = self.settings.page_type_penalty
        if not penalty:
            return
        self._type_pages({(self.library.chunks[c].doc_id, self.library.chunks[c].page) for c in scores})
        for cid in scores:
            chunk = self.library.chunks[cid]
            if self.page_type(chunk.doc_id, chunk.page) in DOWNWEIGHTED:
                scores[cid] -= penalty

    def _rank_pages(self, scores: dict[int, float], k: int) -> tuple[list[int], dict[int, float]]:
        """Pages ranked by their best chunk's score plus ``page_hits_bonus`` times the next
        two chunks of the page (a page that several passages match is likelier the answer);
        each page is represented by its best chunk, so k hits are k distinct pages. Returns
        the chunk ids and their page scores."""
        by_page: dict[tuple[str, int], list[int]] = {}
        for cid in sorted(scores, key=lambda c: -scores[c]):
            chunk = self.library.chunks[cid]
            by_page.setdefault((chunk.doc_id, chunk.page), []).append(cid)
        bonus = self.settings.page_hits_bonus
        page_score = {
            page: scores[cids[0]] + bonus * sum(max(0.0, scores[c]) for c in cids[1:3])
            for page, cids in by_page.items()
        }
        order = sorted(by_page, key=lambda p: -page_score[p])[:k]
        ranked = [by_page[p][0] for p in order]
        return ranked, {by_page[p][0]: page_score[p] for p in order}

    def expand(self, hits: list[Hit], limit: int) -> list[Hit]:
        """Context passages: the first ``limit`` hits, each followed by its neighbours on
        the same page (tables and prose around a figure), without duplicates."""
        lib = self.library
        out: list[Hit] = []
        seen: set[int] = set()
        if self.settings.neighbours:  # a team library reads them in one round trip
            lib.prefetch([n for h in hits[:limit] for n in lib.neighbours(h.chunk.chunk_id, self.settings.neighbours)])
        for h in hits[:limit]:
            group = [h.chunk.chunk_id]
            if self.settings.neighbours:
                group += [n for n in lib.neighbours(h.chunk.chunk_id, self.settings.neighbours)
                          if lib.chunks[n].page == h.chunk.page]
            for cid in sorted(group, key=lambda c: lib.chunks[c].ordinal):
                if cid in seen:
                    continue
                seen.add(cid)
                if cid == h.chunk.chunk_id:
                    out.append(h)
                else:
                    ch = lib.chunks[cid]
                    out.append(Hit(ch, lib.docs[ch.doc_id], 0.0, expanded=True))
        return out

    # -- context gate -------------------------------------------------------------------
    def gate(self, plan: QueryPlan, hits: list[Hit]) -> GateResult:
        """Refuse when the library lacks the company, the period, or any passage about what
        is asked; the reason is a sentence for the analyst."""
        cfg = self.settings
        asked = plan.asked or plan.original
        # (with a company found: a second company asked about that the library lacks)
        missing = plan.filters.missing_company
        if missing:
            return GateResult(False, f"The library has no filing of {missing}.")
        if plan.filters.period_relaxed:
            lib_docs = self.library.docs
            scope = [lib_docs[d] for d in plan.doc_ids] if plan.doc_ids is not None else list(lib_docs.values())
            companies = sorted({d.meta.company or d.file_name for d in scope})
            if plan.filters.company or len(companies) == 1:
                have = sorted({held_period_label(d.meta) or d.file_name for d in scope})
                who = " and ".join(plan.filters.company or companies)
                asked_periods = ", ".join(_period_words(p) for p in plan.filters.period_relaxed)
                return GateResult(False, f"No filing of {who} covers {asked_periods} (the library has {', '.join(have)}).")
        concept_refusal = self.concept_refusal(plan)
        if concept_refusal:
            return GateResult(False, concept_refusal)
        if not hits:
            return GateResult(False, "No passage of the library matches the question.")
        business = plan.filters.business
        if business and not any(names_business(h.chunk.text, business) for h in hits):
            owner = " and ".join(plan.filters.company)
            return GateResult(False, f"No passage of {owner}'s filings found for the question mentions {business}.")
        # a company named: its own filings must print the name ("Texas" printed by another filer only)
        scoped = plan.doc_ids if plan.filters.company else None
        unknown = [w for w in self.unknown_entities(asked, scoped) if not _defined_in(w, plan)]
        if unknown:
            where = f"any filing of {' or '.join(plan.filters.company)}" if scoped is not None else \
                "any document of the library"
            return GateResult(False, f"{', '.join(unknown)} does not occur in {where.rstrip('.')}.")
        if metric_in(asked) or defines_its_concept(plan.original) or (
                plan.instructions is not None and plan.instructions.definitions):
            # a metric is computed from statement figures: its name and the words of its
            # definition need not meet in one passage (the company and period are checked above)
            return GateResult(True)
        # Counting the question's words in the passages is no reason to refuse: an ordinary word
        # of the question ("late", "really", a verb) that no passage prints says nothing about
        # whether the filing answers. Off unless set (``gate_min_terms``, ``gate_min_coverage``).
        terms = self.evidence_terms(plan, hits)
        if cfg.gate_min_terms or cfg.gate_min_coverage:
            context_tokens: set[str] = set()
            for h in hits[: cfg.context_chunks + 2]:
                context_tokens.update(tokenize(embedding_text(h.chunk, h.doc)))
            present = [t for t in terms if t in context_tokens]
            if len(present) < min(cfg.gate_min_terms, len(terms)):
                return GateResult(False, self._absent_reason(plan, [t for t in terms if t not in context_tokens]))
            best_cover = max(len(set(terms) & set(tokenize(embedding_text(h.chunk, h.doc))))
                             for h in hits[: cfg.context_chunks])
            if terms and best_cover / len(terms) < cfg.gate_min_coverage:
                return GateResult(False, f"No passage covers the question (the best has {best_cover} of its "
                                         f"{len(terms)} key terms).")
        # Nothing retrieved is relevant: the best passage is far from the question by both
        # measures (thresholds set on the labelled sets' answerable and must-refuse questions).
        best_cos = max(h.cosine for h in hits)
        best_bm25 = max(h.bm25 for h in hits)
        if best_cos < cfg.gate_min_cosine and best_bm25 < cfg.gate_min_bm25:
            return GateResult(False, f"The passages found are too far from the question (cosine {best_cos:.2f}, bm25 {best_bm25:.1f}).")
        return GateResult(True)

    def concept_terms(self, concept: str, plan: QueryPlan) -> list[str]:
        """Evidence terms of an asked concept: not question noise, periods, or the names of
        the companies in scope (those the filters used)."""
        lib = self.library
        scope = plan.doc_ids if plan.doc_ids is not None else []
        names = {t for d in scope if d in lib.docs for t in tokenize(" ".join(company_aliases(lib.docs[d].meta)))}
        tokens = tokenize(concept)
        computed = computed_words(plan.asked or plan.original)
        # "terms of the LinkedIn deal Microsoft announced": the company starts a relative clause
        cut = next((i for i, t in enumerate(tokens) if i and t in names), len(tokens))
        return [t for t in dict.fromkeys(tokens[:cut])
                if len(t) > 1 and t not in QUESTION_NOISE and t not in computed and t not in names
                and not _PERIOD_TOKEN.match(t)]

    def concept_refusal(self, plan: QueryPlan) -> str:
        """Why the filings in scope cannot answer: the asked concept ("Apple Vision Pro
        headsets", "active AWS customers") has a word that none of them uses in any form, or
        its words never meet on one page. Empty when the concept is found (or the question
        has no plain concept: then the passage checks decide)."""
        asked = plan.asked or plan.original
        if not self.settings.gate_concept or metric_in(asked) or defines_its_concept(plan.original) or (
                plan.instructions is not None and plan.instructions.definitions):
            return ""  # a metric is computed from printed figures: its name need not be printed
        concept = asked_concept(asked)
        parts = [p.strip() for p in re.split(r"\s+and\s+", concept) if p.strip()] if concept else []
        if len(parts) > 1:
            # "monthly churn rate and total hours viewed": two things asked; the filings lack
            # the question's concept only when they lack each (one found is answered)
            reasons = [self._refusal_for(p, plan, asked) for p in parts]
            return reasons[0] if all(reasons) else ""
        return self._refusal_for(concept, plan, asked)

    def _refusal_for(self, concept: str, plan: QueryPlan, asked: str) -> str:
        """``concept_refusal`` of one asked thing."""
        terms = self.concept_terms(concept, plan) if concept else []
        if not terms:
            return ""
        lib = self.library
        mask = self._allowed_rows(plan)

        def pages(term: str) -> set[tuple[str, int]]:
            found = lib.lexical.rows_with_root(word_root(term))
            rows = found[mask[found]] if mask is not None else found
            return lib.pages_of_rows(rows)

        # pages, not passages: a table's row label and its column heading may sit in two chunks
        found = {t: pages(t) for t in terms}
        for t in [t for t in terms if not found[t]]:
            # a slip of the keyboard ("reveune") is the word the filings print
            near = self._near_term(t)
            if near:
                found[t] = pages(near)
        for t in [t for t in terms if not found[t] and t in PEOPLE_WORDS]:
            # "headcount" of a filing that counts "people" or "employees": one thing, its words
            found[t] = set().union(*(pages(w) for w in PEOPLE_WORDS))
        absent = [t for t in terms if not found[t]]
        # only the asked thing itself (the phrase's head: its last word that is no adverb,
        # "employees basically") and the names the question capitalises are reasons: a
        # modifier or an ordinary word of the phrase ("really total revenue", "status of")
        # that no filing prints, or prints on other pages, says nothing about the answer
        named = set(tokenize(" ".join(re.findall(r"\b[A-Z][\w&'-]*", concept))))
        # a first name or short form ("Chris") of a name whose other word is printed is no reason
        named -= {t for m in re.finditer(r"\b[A-Z][\w&'-]*", concept) for t in tokenize(m.group(0))
                  if any(found.get(n) for other in name_neighbours(concept, m) for n in tokenize(other))}
        head = next((t for i, t in reversed(list(enumerate(terms))) if not (len(t) > 4 and t.endswith("ly"))
                     # "hours viewed", "shares repurchased": a participle after the noun qualifies it
                     and not (i > 0 and len(t) > 4 and t.endswith("ed"))), terms[-1])
        # "sales per gross square foot": the unit a rate is per is a thing of its own; each of
        # its words must be printed ("Foot" of a company's name is not the unit's)
        per = re.search(r"\bper\s+(.+)$", concept, re.I)
        per_terms = set(self.concept_terms(per.group(1), plan)) if per else set()
        if absent and len(absent) < len(terms):
            absent = [t for t in absent if t == head or t in named or t in per_terms]
        if absent and plan.intent is not None and plan.intent.prose:
            # a cause, a list, a description asked ("What rationale did the CEO give for the
            # workforce reduction?"): the analyst's word for what is said is no thing a filing
            # must print; only a name it never prints ("Vision Pro") says the filings lack it
            absent = [t for t in absent if t in named]
            if not absent:
                return ""
        terms = [t for t in terms if t == head or t in named] if not absent else terms
        together = not absent and (len(terms) < 2 or bool(set.intersection(*(found[t] for t in terms))))
        if together:
            # "headcount" is a count asked, however the question is worded ("what was its headcount")
            noun = counted_noun(asked) or ("headcount" if "headcount" in terms else "")
            if noun and not self._count_printed(plan, noun):
                where = f"filings of {' and '.join(plan.filters.company)}" if plan.filters.company else "library's filings"
                return f"The {where} give no number of {concept}."
            return ""
        gloss = concept_gloss(asked)
        gloss_terms = self.concept_terms(gloss, plan) if gloss else []
        if gloss_terms and all(pages(t) for t in gloss_terms):
            return ""  # "capex (purchases related to property and equipment)": the filing's own words
        where = f"filings of {' and '.join(plan.filters.company)}" if plan.filters.company else "library's filings"
        if absent:
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z&'-]*", concept) if set(tokenize(w)) & set(absent)]
            return f"The {where} do not mention {' '.join(dict.fromkeys(words)) or ', '.join(absent)}."
        return f"No page of the {where} mentions {concept}."

    def _near_term(self, term: str) -> str:
        """A term of the library one keyboard slip from ``term`` (5 letters or more), else ""."""
        if len(term) < 5 or not term.isalpha():
            return ""
        near = [v for v in self.library.lexical.terms() if abs(len(v) - len(term)) <= 1 and v.isalpha()]
        if not near_spelling(term, near):
            return ""
        return next(v for v in near if near_spelling(term, [v]))

    def _count_printed(self, plan: QueryPlan, noun: str) -> bool:
        """Does a page in scope print a count of ``noun``: "815 warehouses", "Paid memberships
        at end of period 27,438", or a table heading "Votes For" above rows of figures? Only
        checked for a scope of a few filings (a company's); otherwise assumed."""
        lib = self.library
        if plan.doc_ids is None or len(plan.doc_ids) > 6:
            return True
        printed = printed_count(noun)
        return any(printed.search(lib.page_text(doc_id, page))
                   for doc_id in plan.doc_ids if doc_id in lib.docs
                   for page in range(1, lib.docs[doc_id].pages + 1))

    def _absent_reason(self, plan: QueryPlan, absent: list[str]) -> str:
        """"The filings of Costco do not mention app downloads." when the terms occur in none
        of the documents in scope; otherwise that the passages found do not answer."""
        lib = self.library
        scope = plan.doc_ids if plan.doc_ids is not None else list(lib.docs)
        printed: set[str] = set()
        lib.prefetch([c for doc_id in scope for c in lib.doc_chunks.get(doc_id, ())])
        for doc_id in scope:
            for cid in lib.doc_chunks.get(doc_id, ()):
                printed.update(tokenize(lib.chunks[cid].text))
        seen = {word_root(t) for t in printed}
        # "do not mention" only when no form of the word occurs: a 10-K that says "repurchased"
        # does mention the analyst's "repurchasing"
        nowhere = [t for t in absent if word_root(t) not in seen]
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z&'-]+", plan.asked or plan.original)
                 if any(t in nowhere for t in tokenize(w))]
        if nowhere and words:
            who = " and ".join(plan.filters.company) or "the library"
            return f"The filings of {who} do not mention {' '.join(dict.fromkeys(words))}."
        return f"The passages found do not answer the question ({', '.join(absent)} not found with it)."

    @classmethod
    def evidence_terms(cls, plan: QueryPlan, hits: list[Hit]) -> list[str]:
        """The question's terms that a passage must carry to be evidence, in the question's
        order: not the company or period (``filter_terms``) and not words of computation or
        trend ("ratio", "drove"): filings print the figures and their own verbs."""
        ignore = cls.filter_terms(plan, hits)
        computed = computed_words(plan.asked or plan.original)
        return [t for t in plan.content_terms if t not in ignore and t not in computed]

    @staticmethod
    def filter_terms(plan: QueryPlan, hits: list[Hit]) -> set[str]:
        """Question terms that name the company or the period: every passage of the
        matching filings shares them, so they are no evidence of an answer."""
        company = {w for h in hits for w in tokenize(" ".join(company_aliases(h.doc.meta)))}
        # the words of the periods it names: "june" of "at June 30, 2022" is a date, not what
        # was asked (every page of the quarter's filing prints it)
        dated = {t for m in find_periods(plan.asked or plan.original).mentions for t in tokenize(m.text)}
        return company | {t for t in plan.content_terms if _PERIOD_TOKEN.match(t) or t in dated}

    def absent_subject(self, question: str) -> str:
        """A company the question introduces with the words its initials stand for
        (``spelled_out_names``: "UPS (United Parcel Service)") that names no library company,
        else "". A possessive or a subject beside a library company's name is no such company:
        "Benioff's letter", "Turkey's removal", "what did Epic Games allege" are told of in the
        company's filings."""
        return self._no_library_company(spelled_out_names(question), self._company_names())

    def _company_names(self) -> set[str]:
        """Every name a library company answers to (``company_aliases`` of each filing)."""
        return {a for d in self.library.docs.values() for a in company_aliases(d.meta)}

    @staticmethod
    def _no_library_company(names: list[str], company_names: set[str]) -> str:
        """The first of ``names`` that no library company answers to, else ""."""
        return next((name for name in names
                     if not names_in(name, company_names) and not names_in(name.lower(), company_names)), "")

    def missing_company(self, question: str) -> str:
        """A proper name in the question that names no library company and occurs nowhere in
        the library: "What was Boeing's revenue?" over a library without Boeing."""
        lib = self.library
        all_names = self._company_names()
        subject = self._no_library_company(subject_names(question), all_names)
        if subject:
            return subject  # the question is about a company the library holds no filing of
        for name in proper_names(question):
            if names_in(name, all_names):
                continue
            toks = [t for t in tokenize(name) if not _PERIOD_TOKEN.match(t)]
            if toks and not all(lib.lexical.has_term(t) for t in toks):
                return name
        return ""

    def business_owner(self, name: str, docs: list[Document]) -> str:
        """The one library company whose filings print ``name`` at length (on at least
        ``_BUSINESS_PAGES`` of its pages) while no other company's print it more than in
        passing: a segment, a subsidiary or a brand the analyst names alone ("StubHub" in
        eBay's 10-K, "LinkedIn" in Microsoft's). A competitor or a customer named in a risk
        factor is printed on a few pages, or by several filers, and stays absent."""
        lib = self.library
        tokens = [t for t in tokenize(name) if not _PERIOD_TOKEN.match(t)]
        if not tokens:
            return ""
        rows: np.ndarray | None = None
        for token in tokens:
            held = lib.lexical.rows_with_term(token)
            rows = held if rows is None else np.intersect1d(rows, held)
        if rows is None or not len(rows):
            return ""
        in_scope = {d.doc_id: d.meta.company for d in docs}
        pages: dict[str, set[tuple[str, int]]] = {}
        for doc_id, page in lib.pages_of_rows(rows):  # (no chunk read: a team library's too)
            if in_scope.get(doc_id):
                pages.setdefault(in_scope[doc_id], set()).add((doc_id, page))
        if not pages:
            return ""
        counts = sorted(((len(p), company) for company, p in pages.items()), reverse=True)
        top, owner = counts[0]
        others = sum(n for n, _ in counts[1:])
        return owner if top >= _BUSINESS_PAGES and others * 9 <= top else ""

    def unknown_entities(self, question: str, doc_ids: list[str] | None = None) -> list[str]:
        """Capitalised names in the question that occur nowhere in the library (or, given
        ``doc_ids``, in none of those filings: "Walmart U.S. stores in Texas" is not answered
        by another filer's page that prints Texas): a question about Tesla cannot be answered
        from Apple's filings, however similar the words."""
        lex = self.library.lexical
        mask = self.library.allowed_rows(doc_ids)

        def printed(term: str, word: str) -> bool:
            # an abbreviation ("CEO", "USD", "MD&A", "CAGR") is the analyst's vocabulary, printed
            # by one filer or another: only a name's own words are looked for in the company's filings
            if mask is None or word.isupper() or is_question_word(word):
                return lex.has_term(term)
            return bool(mask[lex.rows_with_term(term)].any())

        out = []
        first = question.lstrip()[:1] and question.lstrip().split()[0]
        for m in _CAPWORD.finditer(question):
            word = m.group(1).rstrip(".")
            if m.start() == question.find(first) or re.search(r"[.?!:]\s*$", question[:m.start()]):
                continue  # a sentence-initial capital says nothing ("... 2023? Percent, one decimal place.")
            toks = [t for t in tokenize(word) if not _PERIOD_TOKEN.match(t)]
            if word.lower() in ALIAS_WORDS:
                continue  # a word of a finance phrase ("Research", "Development"): indexed as its alias
            if _is_month(word):
                continue  # "Jan 2023 8-K": a month as analysts shorten it, printed in full by the filing
            if word.upper() in _ANALYST_CODES:
                continue  # "Answer in USD millions": a unit or a period code of the analyst's, no name
            if toks and not any(printed(t, word) for t in toks) and not any(
                    printed(t, other) for other in name_neighbours(question, m) for t in tokenize(other)):
                out.append(word)
        return out


def names_business(text: str, business: str) -> bool:
    """``text`` prints every word of the business's name."""
    words = set(tokenize(text))
    return all(t in words for t in tokenize(business) if not _PERIOD_TOKEN.match(t))


# pages of one company's filings that print a name for it to be that company's business
_BUSINESS_PAGES = 5


# currency codes and the analyst's shorthand for units and spans: how the answer is wanted,
# never a name the filings must print
_ANALYST_CODES = CURRENCY_CODES | frozenset(
    "INR KRW BRL MXN HKD SGD SEK NOK DKK MM MN BN TTM LTM NTM YTD QTD MTD YOY QOQ MOM CY FY H1 H2 BPS PP".split())


def _is_month(word: str) -> bool:
    """A month's name or its abbreviation ("Jan", "Sept")."""
    return word.lower().rstrip(".") in _MONTH_WORDS


_MONTH_WORDS = frozenset([*MONTH_NAMES, *(m[:3] for m in MONTH_NAMES), "sept"])


def name_neighbours(text: str, match: re.Match[str]) -> list[str]:
    """The capitalised words right before and after a capitalised word ("Joe Erlinger"): one
    name. A first name or a short form the filings never print ("Joe" for "Joseph", "Chris" for
    "Christopher") is no unknown subject when the rest of its name is printed."""
    before = re.search(r"([A-Z][\w&'-]+)(?:'s|’s)?[ \t]+$", text[:match.start()])
    after = re.match(r"[ \t]+([A-Z][\w&'-]+)", text[match.end():])
    return [g.group(1) for g in (before, after) if g]


def _latest_per_company(docs: list[Document]) -> list[Document]:
    """Each company's latest filing among ``docs``."""
    by_company: dict[str, list[Document]] = {}
    for d in docs:
        by_company.setdefault(d.meta.company or d.meta.ticker or d.file_name, []).append(d)
    return [max(ds, key=lambda d: (d.meta.period_end, d.meta.fiscal_year or 0, d.meta.fiscal_quarter or 0))
            for ds in by_company.values()]


def _period_words(label: str) -> str:
    """"FY2021" -> "fiscal 2021", "Q2 2023" -> "Q2 2023", ISO dates as written dates."""
    m = re.fullmatch(r"FY(\d{4})", label)
    if m:
        return f"fiscal {m.group(1)}"
    return label
