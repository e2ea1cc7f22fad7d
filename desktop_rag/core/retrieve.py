"""Hybrid retrieval: metadata filters from the question, dense (hnswlib) + BM25
candidates fused by ``alpha*minmax(cos) + (1-alpha)*minmax(bm25)``, MMR diversity,
neighbour expansion for context, and the context gate that says "Not in corpus"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from desktop_rag.core.lexical import (
    QUESTION_NOISE,
    STATEMENT_TITLES,
    content_terms,
    expand_shorthand,
    statement_intent,
    tokenize,
)
from desktop_rag.core.library import Library, embedding_text
from desktop_rag.core.metadata import KNOWN_COMPANIES, company_aliases, period_labels
from desktop_rag.core.types import Hit, QueryPlan
from desktop_rag.settings import RetrievalSettings

SearchMode = Literal["hybrid", "dense", "bm25", "exact"]

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_Q_PATTERNS = [
    re.compile(r"\bq([1-4])\s*(?:of\s+)?(?:fy|fiscal\s+(?:year\s+)?)?\s*'?(20\d\d|\d\d)\b", re.I),
    re.compile(r"\b(20\d\d)\s*q([1-4])\b", re.I),
    re.compile(r"\b([1-4])q\s*'?(20\d\d|\d\d)\b", re.I),
    re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?(20\d\d)\b", re.I),
]
_FY_PATTERN = re.compile(r"\b(?:fy\s*'?|fiscal\s+(?:year\s+)?)(20\d\d|\d\d)\b", re.I)
_LATEST = re.compile(r"\b(latest|most recent|newest|current|last)\s+(?:quarterly\s+|annual\s+)?(10-?q|10-?k|quarter|report|filing|period)\b", re.I)
_FORM = re.compile(r"\b(10-?k|10-?q|8-?k)\b", re.I)
_CAPWORD = re.compile(r"(?<![\w-])([A-Z][a-zA-Z&.]{2,})(?:'s|’s)?\b")
_PERIOD_TOKEN = re.compile(r"^(?:q[1-4]|fy\d{4}|(?:19|20)\d\d|\d{1,2})$")


def _year(y: str) -> int:
    return int(y) if len(y) == 4 else 2000 + int(y)


def parse_periods(question: str) -> tuple[set[tuple[int, int]], set[int]]:
    """(year, quarter) pairs and fiscal years a question names."""
    quarters: set[tuple[int, int]] = set()
    for i, rx in enumerate(_Q_PATTERNS):
        for m in rx.finditer(question):
            if i == 1:
                quarters.add((int(m.group(1)), int(m.group(2))))
            elif i == 3:
                quarters.add((_year(m.group(2)), _ORD[m.group(1).lower()]))
            else:
                quarters.add((_year(m.group(2)), int(m.group(1))))
    years = {_year(m.group(1)) for m in _FY_PATTERN.finditer(question)}
    return quarters, years


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


def mmr(
    ranked: list[int], relevance: dict[int, float], vectors: dict[int, np.ndarray], lam: float, k: int
) -> list[int]:
    """Maximal marginal relevance: lam*rel - (1-lam)*max cosine to already chosen."""
    chosen: list[int] = []
    pool = list(ranked)
    if not pool:
        return chosen
    mat = np.stack([vectors[c] for c in pool])
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

    # -- understanding the question -------------------------------------------------
    def plan(self, question: str, doc_scope: list[str] | None = None) -> QueryPlan:
        lib = self.library
        lib.refresh()
        q = question.strip()
        low = q.lower()
        plan = QueryPlan(original=q, cleaned=expand_shorthand(q), bm25_terms=tokenize(q), content_terms=content_terms(q))
        docs = [d for d in lib.docs.values() if doc_scope is None or d.doc_id in doc_scope]
        if doc_scope is not None:
            plan.filters["scope"] = len(docs)
        if not self.settings.use_filters:
            plan.doc_ids = [d.doc_id for d in docs] if doc_scope is not None else None
            return plan

        companies = {
            d.doc_id for d in docs
            if any(re.search(rf"(?<![a-z0-9]){re.escape(a)}(?![a-z0-9])", low) for a in company_aliases(d.meta))
        }
        if companies:
            docs = [d for d in docs if d.doc_id in companies]
            plan.filters["company"] = sorted({d.meta.company or d.meta.ticker for d in docs})

        forms = {f.upper().replace("10Q", "10-Q").replace("10K", "10-K").replace("8K", "8-K")
                 for f in _FORM.findall(q)}
        if forms:
            narrowed = [d for d in docs if d.meta.form_type in forms]
            if narrowed:
                docs = narrowed
                plan.filters["form"] = sorted(forms)

        quarters, years = parse_periods(q)
        if quarters or years:
            narrowed = [
                d for d in docs
                if any((y, qq) in quarters or (y in years) for y, qq in period_labels(d.meta))
            ]
            if narrowed:
                docs = narrowed
                plan.filters["period"] = sorted(f"Q{qq} {y}" for y, qq in quarters) + sorted(f"FY{y}" for y in years)
            else:
                plan.filters["period_relaxed"] = "no document matches the period named"
        elif _LATEST.search(q) and docs:
            by_company: dict[str, list] = {}
            for d in docs:
                by_company.setdefault(d.meta.ticker or d.meta.company or d.file_name, []).append(d)
            docs = [max(ds, key=lambda d: (d.meta.fiscal_year or 0, d.meta.fiscal_quarter or 0, d.meta.period_end))
                    for ds in by_company.values()]
            plan.filters["latest"] = sorted(d.file_name for d in docs)

        if companies or forms or quarters or years or doc_scope is not None or "latest" in plan.filters:
            plan.doc_ids = [d.doc_id for d in docs]
        # Words the filter has already used (company names, periods) sit in every header of
        # the matching documents and only add noise to BM25.
        used: set[str] = set()
        if "company" in plan.filters:
            used.update(tokenize(" ".join(a for d in docs for a in company_aliases(d.meta))))
        if "period" in plan.filters or "latest" in plan.filters:
            used.update(t for t in plan.bm25_terms if _PERIOD_TOKEN.match(t))
        kept = [t for t in plan.bm25_terms if t not in used and t not in QUESTION_NOISE]
        plan.bm25_terms = kept or plan.bm25_terms
        plan.filters["statements"] = sorted(statement_intent(plan.bm25_terms))
        return plan

    # -- search -----------------------------------------------------------------------
    def _allowed_rows(self, plan: QueryPlan) -> np.ndarray | None:
        lib = self.library
        if plan.doc_ids is None:
            return None
        mask = np.zeros(len(lib.chunk_ids), dtype=bool)
        for doc_id in plan.doc_ids:
            for cid in lib.doc_chunks.get(doc_id, ()):
                mask[lib.row_of[cid]] = True
        return mask

    def dense_candidates(self, plan: QueryPlan, k: int, exact: bool = False) -> dict[int, float]:
        lib = self.library
        if not len(lib.chunk_ids):
            return {}
        qv = self.query_vector(plan)
        mask = self._allowed_rows(plan)
        n_allowed = len(lib.chunk_ids) if mask is None else int(mask.sum())
        if exact or (n_allowed <= 20000 and (mask is not None or n_allowed <= 2000)):
            # Brute force is exact and, for a filtered or small set, faster than the graph.
            rows = np.arange(len(lib.chunk_ids)) if mask is None else np.flatnonzero(mask)
            sims = lib.vectors[rows] @ qv
            top = rows[np.argsort(-sims)[:k]]
            return {int(lib.chunk_ids[r]): float(lib.vectors[r] @ qv) for r in top}
        allowed = None if mask is None else {int(c) for c in lib.chunk_ids[mask]}
        return dict(lib.dense.search(qv, k, allowed))

    def query_vector(self, plan: QueryPlan) -> np.ndarray:
        """The question's embedding, computed once per plan."""
        if plan.query_vector is None:
            plan.query_vector = self.library.embedder.encode_query(plan.cleaned)
        return plan.query_vector

    def bm25_candidates(self, plan: QueryPlan, k: int) -> dict[int, float]:
        return dict(self.library.lexical.search(plan.bm25_terms, k, self._allowed_rows(plan)))

    def search(
        self, question: str | QueryPlan, k: int | None = None, mode: SearchMode = "hybrid",
        doc_scope: list[str] | None = None,
    ) -> list[Hit]:
        cfg = self.settings
        k = k or cfg.top_k
        plan = question if isinstance(question, QueryPlan) else self.plan(question, doc_scope)
        lib = self.library
        n = max(cfg.candidates, k)
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
            self._boost_statements(plan, scores)
            order = sorted(scores, key=lambda c: -scores[c])
            vecs = {c: lib.vectors[lib.row_of[c]] for c in order}
            ranked = mmr(order, scores, vecs, cfg.mmr_lambda, k) if cfg.mmr_lambda < 1.0 else order[:k]
        # Fill in the cosine of BM25-only candidates so the gate and UI see real numbers.
        hits = []
        for c in ranked:
            cos = dense.get(c)
            if cos is None and mode != "bm25":
                cos = float(lib.vectors[lib.row_of[c]] @ self.query_vector(plan))
            chunk = lib.chunks[c]
            hits.append(Hit(chunk, lib.docs[chunk.doc_id], float(scores[c]), cos or 0.0, lexical.get(c, 0.0)))
        return hits

    def _boost_statements(self, plan: QueryPlan, scores: dict[int, float]) -> None:
        """Line-item questions ("capex", "EPS") favour the primary statement that reports
        the item; such tables are long and lose on BM25 length normalisation otherwise."""
        wanted = [STATEMENT_TITLES[s] for s in plan.filters.get("statements", ())]
        if not wanted or not self.settings.statement_boost:
            return
        for cid in scores:
            section = self.library.chunks[cid].section
            if section and any(rx.search(section) for rx in wanted):
                scores[cid] += self.settings.statement_boost

    def expand(self, hits: list[Hit], limit: int) -> list[Hit]:
        """Context passages: the first ``limit`` hits, each followed by its neighbours on
        the same page (tables and prose around a figure), without duplicates."""
        lib = self.library
        out: list[Hit] = []
        seen: set[int] = set()
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
        cfg = self.settings
        if not hits:
            return GateResult(False, "no passage matched")
        unknown = self.unknown_entities(plan.original)
        if unknown:
            return GateResult(False, f"{', '.join(unknown)} does not occur in any document")
        other = self.other_company(plan)
        if other:
            return GateResult(False, f"the library has no filing of {other}")
        if "period_relaxed" in plan.filters and plan.filters.get("company"):
            return GateResult(False, "no document in the library covers the period asked about")
        # Terms that carry evidence: not periods (every filing has years) and not the
        # company name (that is what the filter already used).
        ignore = self.filter_terms(plan, hits)
        terms = [t for t in plan.content_terms if t not in ignore]
        context_tokens: set[str] = set()
        for h in hits[: cfg.context_chunks + 2]:
            context_tokens.update(tokenize(embedding_text(h.chunk, h.doc)))
        present = [t for t in terms if t in context_tokens]
        need = min(cfg.gate_min_terms, len(terms))
        if len(present) < need:
            return GateResult(False, f"only {len(present)} of the question's key terms occur in the passages")
        # The key terms must meet in one passage, not be scattered over several.
        best_cover = max(len(set(terms) & set(tokenize(embedding_text(h.chunk, h.doc)))) for h in hits[: cfg.context_chunks])
        if terms and best_cover / len(terms) < cfg.gate_min_coverage:
            return GateResult(False, f"no passage covers the question (best {best_cover} of {len(terms)} key terms)")
        best_cos = max(h.cosine for h in hits)
        best_bm25 = max(h.bm25 for h in hits)
        if best_cos < cfg.gate_min_cosine and best_bm25 < cfg.gate_min_bm25:
            return GateResult(False, f"passages too dissimilar (cosine {best_cos:.2f}, bm25 {best_bm25:.1f})")
        return GateResult(True)

    @staticmethod
    def filter_terms(plan: QueryPlan, hits: list[Hit]) -> set[str]:
        """Question terms that name the company or the period: every passage of the
        matching filings shares them, so they are no evidence of an answer."""
        company = {w for h in hits for w in tokenize(" ".join(company_aliases(h.doc.meta)))}
        return company | {t for t in plan.content_terms if _PERIOD_TOKEN.match(t)}

    def other_company(self, plan: QueryPlan) -> str:
        """A well-known company the question asks about ("AMD's revenue") when the library
        holds none of its filings and no library company is named."""
        if "company" in plan.filters:
            return ""
        library_tickers = {d.meta.ticker.upper() for d in self.library.docs.values() if d.meta.ticker}
        for m in re.finditer(r"\b([A-Z][A-Za-z.&]+(?:\s[A-Z][A-Za-z.&]+)?)(?:'s|’s)\b", plan.original):
            name = m.group(1).lower()
            for ticker, (_, *aliases) in KNOWN_COMPANIES.items():
                if (name == ticker.lower() or name in aliases) and ticker not in library_tickers:
                    return m.group(1)
        return ""

    def unknown_entities(self, question: str) -> list[str]:
        """Capitalised names in the question that occur nowhere in the library: a question
        about Tesla cannot be answered from Apple's filings, however similar the words."""
        lex = self.library.lexical
        out = []
        first = question.lstrip()[:1] and question.lstrip().split()[0]
        for m in _CAPWORD.finditer(question):
            word = m.group(1).rstrip(".")
            if m.start() == question.find(first):
                continue  # a sentence-initial capital says nothing
            toks = [t for t in tokenize(word) if not _PERIOD_TOKEN.match(t)]
            if toks and not any(lex.has_term(t) for t in toks):
                out.append(word)
        return out
