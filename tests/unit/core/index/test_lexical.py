"""core/domain/terms.py: finance alias normalisation, tokenisation and the BM25 index."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_rag.core.domain.terms import content_terms, expand_shorthand, normalise, tokenize, word_root
from desktop_rag.core.index.lexical import LexicalIndex

ALIAS_PAIRS = [
    ("R&D", "research and development"),
    ("r & d", "Research & Development"),
    ("capex", "purchases of property and equipment"),
    ("capital expenditures", "payments for acquisition of property, plant and equipment"),
    ("FY2024", "fiscal 2024"),
    ("fy2024", "fiscal year 2024"),
    ("FY24", "Fiscal Year 2024"),
    ("EPS", "earnings per share"),
    ("eps", "net income per share"),
    ("Q3", "third quarter"),
    ("3Q", "Third Quarter"),
    ("YoY", "year over year"),
    ("y/y", "year-over-year"),
    ("yoy", "year\u2013over\u2013year"),  # en dashes from a PDF
    ("SG&A", "selling, general and administrative"),
    ("sg&a", "Selling, General, and Administrative"),
    ("COGS", "cost of sales"),
    ("cogs", "cost of goods sold"),
    ("opex", "operating expenses"),
    ("OpEx", "total operating expenses"),
    ("net sales", "revenue"),
    ("81,797", "81797"),
]


@pytest.mark.parametrize(("short", "long"), ALIAS_PAIRS)
def test_aliases_normalise_both_ways(short: str, long: str) -> None:
    a, b = tokenize(short), tokenize(long)
    assert a == b, (short, a, long, b)
    assert a, "an alias must not vanish"
    # Inside a sentence too, and in either direction of a search.
    assert tokenize(f"The {short} grew") == tokenize(f"The {long} grew")


def test_alias_longest_match_wins() -> None:
    # "total operating expenses" is one opex token, not "total" + "operating" + "expenses".
    assert tokenize("Total operating expenses 13,415") == ["opex", "13415"]
    assert tokenize("Total net sales") == ["revenue"]


def test_aliases_respect_word_boundaries() -> None:
    assert "eps" not in tokenize("steps taken")
    assert "ai" not in tokenize("said again")
    assert "rnd" not in tokenize("brand")


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("Q3 2023", ["q3", "2023"]),
        ("Q3'23", ["q3", "2023"]),
        ("q3fy23", ["q3", "2023"]),
        ("third quarter of 2023", ["q3", "2023"]),
    ],
)
def test_period_forms(question: str, tokens: list[str]) -> None:
    assert tokenize(question) == tokens


def test_tokenize_drops_stopwords_and_folds_plurals() -> None:
    assert tokenize("The risks of the companies") == ["risk", "company"]
    assert tokenize("business analysis status") == ["business", "analysis", "status"]
    assert normalise("81,797 and 1,234,567") == "81797 and 1234567"


def test_content_terms_drop_question_noise_and_duplicates() -> None:
    terms = content_terms("What was the total R&D spending of the company in fiscal 2023? R&D!")
    assert terms == ["rnd", "expense", "fy2023"]  # "spending" folds into "expense" like "expenditure"


def test_expand_shorthand_for_the_embedder() -> None:
    out = expand_shorthand("capex and R&D in Q3 FY23, yoy")
    assert "capital expenditures" in out
    assert "research and development" in out
    assert "third quarter" in out
    assert "fiscal 2023" in out
    assert "year over year" in out
    assert expand_shorthand("Apple net sales") == "Apple net sales"  # nothing to expand


# -- LexicalIndex ----------------------------------------------------------------------------
DOCS = {
    10: "Research and development expense was 7,442 million in the third quarter",
    11: "Purchases of property and equipment were 8,796",
    12: "Selling, general and administrative expense 5,973",
    13: "",  # an empty chunk must not break BM25
    14: "The Company believes its cash will be sufficient",
}


@pytest.fixture
def index() -> LexicalIndex:
    return LexicalIndex(list(DOCS), [tokenize(t) for t in DOCS.values()])


def test_search_finds_alias_and_ranks(index: LexicalIndex) -> None:
    hits = index.search(tokenize("R&D in Q3"), k=5)
    assert hits[0][0] == 10
    assert all(score > 0 for _, score in hits)
    assert index.search(tokenize("capex"), k=5)[0][0] == 11
    assert index.search(tokenize("SG&A"), k=5)[0][0] == 12


def test_search_unknown_terms_and_empty_index(index: LexicalIndex) -> None:
    assert index.search(["zzzz"], k=5) == []
    assert LexicalIndex([], []).search(["rnd"], k=5) == []
    assert len(index) == 5
    assert index.has_term("rnd") and not index.has_term("zzzz")


def test_search_respects_allowed_mask(index: LexicalIndex) -> None:
    allowed = np.array([False, True, True, True, True])  # row 0 (chunk 10) excluded
    hits = index.search(tokenize("research and development expense"), k=5, allowed=allowed)
    assert 10 not in [cid for cid, _ in hits]
    assert [cid for cid, _ in hits] == [12]  # shares "expense"
    none = np.zeros(5, dtype=bool)
    assert index.search(tokenize("expense"), k=5, allowed=none) == []


def test_search_k_limits_results(index: LexicalIndex) -> None:
    assert len(index.search(tokenize("expense capex company"), k=1)) == 1


def test_buy_back_and_expenditure_fold_onto_filing_words() -> None:
    assert "buyback" in tokenize("How much stock did Apple buy back?")
    assert "buyback" in tokenize("Repurchases of common stock (56,547)")
    assert "buyback" in tokenize("How much did Walmart spend repurchasing its own shares in fiscal 2020?")
    assert "buyback" in tokenize("Purchase of Company stock (5,717) (7,410)")
    assert "buyback" not in tokenize("Securities sold under repurchase agreements 1,234")
    assert tokenize("R&D expenditure") == tokenize("research and development expense")


# -- equality with rank-bm25 (the definition of the scores) ---------------------------------
@pytest.fixture(scope="module")
def filing_texts(request: pytest.FixtureRequest) -> list[str]:
    """The chunk texts of a real bundled filing."""
    from desktop_rag.core.ingest.chunking import chunk_pages
    from desktop_rag.core.ingest.pdf import extract_document, open_pdf
    from desktop_rag.settings import ChunkingSettings

    path = request.getfixturevalue("sample_pdf")
    pdf = open_pdf(path)
    try:
        pages = extract_document(pdf)
    finally:
        pdf.close()
    return [pages[s.page - 1].text[s.char_start:s.char_end] for s in chunk_pages(pages, ChunkingSettings())]


@pytest.fixture(scope="module")
def filing_tokens(filing_texts: list[str]) -> list[list[str]]:
    """BM25 tokens of the chunks of a real bundled filing (plus an empty chunk)."""
    tokens = [tokenize(t) for t in filing_texts]
    assert len(tokens) > 100
    return [*tokens, []]


QUERIES = [
    "R&D expense in the third quarter",
    "iPhone net sales Greater China",
    "capex purchases of property and equipment",
    "total net sales revenue products services",  # frequent terms: idf floored to epsilon
    "the company 2023",  # "2023" is in most chunks
    "zzzz unknown words only",
    "risk factors foreign currency exchange rates hedging",
]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25(filing_tokens: list[list[str]], query: str) -> None:
    from rank_bm25 import BM25Okapi

    reference = BM25Okapi([t or [LexicalIndex.EMPTY_TOKEN] for t in filing_tokens])
    index = LexicalIndex(list(range(100, 100 + len(filing_tokens))), filing_tokens)
    terms = tokenize(query)
    terms += terms[:1]  # a repeated term counts twice in rank-bm25; so here
    np.testing.assert_allclose(index.scores(terms), reference.get_scores(terms), rtol=0, atol=1e-6)
    assert index.idf.keys() == reference.idf.keys()
    np.testing.assert_allclose(list(index.idf.values()), list(reference.idf.values()), rtol=0, atol=1e-9)


def _reference_search(filing_tokens: list[list[str]], terms: list[str], k: int,
                      allowed: np.ndarray | None) -> list[tuple[int, float]]:
    """The former search: rank-bm25 scores of the chunks sharing a term, allowed rows only."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([t or [LexicalIndex.EMPTY_TOKEN] for t in filing_tokens])
    terms = list(dict.fromkeys(terms))
    rows = [r for r, freqs in enumerate(bm25.doc_freqs) if any(t in freqs for t in terms)]
    if allowed is not None:
        rows = [r for r in rows if allowed[r]]
    scores = bm25.get_batch_scores(terms, rows)
    ranked = sorted(zip(rows, scores, strict=True), key=lambda rs: (-rs[1], rs[0]))
    return [(100 + r, s) for r, s in ranked if s > 0][:k]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("restricted", [False, True])
def test_search_equals_rank_bm25_with_and_without_restriction(
    filing_tokens: list[list[str]], query: str, restricted: bool
) -> None:
    n = len(filing_tokens)
    allowed = (np.arange(n) % 3 != 0) if restricted else None  # every third chunk excluded
    index = LexicalIndex(list(range(100, 100 + n)), filing_tokens)
    terms = tokenize(query)
    got = index.search(terms, k=10, allowed=allowed)
    want = _reference_search(filing_tokens, terms, 10, allowed)
    assert [c for c, _ in got] == [c for c, _ in want]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=0, atol=1e-6)
    if restricted:
        assert all((c - 100) % 3 != 0 for c, _ in got)


def test_search_ties_at_the_cut_are_deterministic() -> None:
    others = [["c", "d"]] * 4  # "a" in 3 of 7 chunks: a positive idf
    index = LexicalIndex(list(range(7, 14)), [["a", "b"], ["a", "b"], ["a", "b"], *others])
    assert [c for c, _ in index.search(["a"], k=2)] == [7, 8]


def test_alias_matching_equals_the_plain_longest_first_alternation(filing_texts: list[str]) -> None:
    """The first-letter grouping of the alias regex is an optimisation only: the same
    replacements as one plain alternation of all phrases, longest first."""
    import re

    from desktop_rag.core.domain import terms

    phrases = sorted(((p, c) for c, ps in terms.FINANCE_ALIASES.items() for p in ps), key=lambda pc: -len(pc[0]))
    plain = re.compile("|".join(rf"(?<![a-z0-9])(?P<a{i}>{p})(?![a-z0-9])" for i, (p, _) in enumerate(phrases)))
    texts = [t.lower() for t in filing_texts] + [
        "purchases of property, plant and equipment and r & d; cost of revenues year-over-year",
        "net cash provided by operating activities, sg&a, 10-q, quarter over quarter, revenues",
    ]
    def replace(m: re.Match[str]) -> str:
        return " " + phrases[int(m.lastgroup[1:])][1] + " "  # type: ignore[index]

    for text in texts:
        assert terms._ALIAS_RE.sub(replace, text) == plain.sub(replace, text)


def test_word_root_joins_the_forms_of_a_word() -> None:
    assert word_root("authorization") == word_root("authorized") == "authoriz"
    assert word_root("downloaded") == word_root("download") == "download"
    assert word_root("headset") == "headset"
    assert word_root("discrete") != word_root("discretionary")


def test_rows_with_root_finds_every_form() -> None:
    idx = LexicalIndex([10, 11, 12], [["authorized", "share"], ["authorization"], ["headset"]])
    assert idx.rows_with_root("authoriz").tolist() == [0, 1]
    assert idx.rows_with_root("headset").tolist() == [2]
    assert idx.rows_with_root("churn").tolist() == []


def test_append_and_remove_equal_an_index_built_afresh(filing_tokens: list[list[str]]) -> None:
    """A filing added or removed on a team library updates the desktop's index in place
    (LexicalIndex.append / remove_rows): the scores, idf and results are those of an index
    built over the rows left, and those equal rank-bm25's."""
    from rank_bm25 import BM25Okapi

    n = len(filing_tokens)
    ids = list(range(100, 100 + n))
    third = n // 3
    index = LexicalIndex(ids[:third], filing_tokens[:third])
    index.append(ids[third:2 * third], filing_tokens[third:2 * third])
    index.append([], [])
    index.append(ids[2 * third:], filing_tokens[2 * third:])
    fresh = LexicalIndex(ids, filing_tokens)
    for query in QUERIES:
        terms = tokenize(query)
        np.testing.assert_array_equal(index.scores(terms), fresh.scores(terms))  # float for float
        assert index.search(terms, 10) == fresh.search(terms, 10)
    assert index.idf == fresh.idf

    # remove the middle third: as if it had never been added
    index.remove_rows(np.arange(third, 2 * third))
    left = filing_tokens[:third] + filing_tokens[2 * third:]
    left_ids = ids[:third] + ids[2 * third:]
    reference = BM25Okapi([t or [LexicalIndex.EMPTY_TOKEN] for t in left])
    rebuilt = LexicalIndex(left_ids, left)
    assert index.ids.tolist() == left_ids
    for query in QUERIES:
        terms = tokenize(query)
        np.testing.assert_allclose(index.scores(terms), reference.get_scores(terms), rtol=1e-12, atol=1e-12)
        got, want = index.search(terms, 10), rebuilt.search(terms, 10)
        assert [c for c, _ in got] == [c for c, _ in want]
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-12)
    assert index.idf.keys() == reference.idf.keys()
    gone = next(t for part in filing_tokens[third:2 * third] for t in part if t not in reference.idf)
    assert not index.has_term(gone) and fresh.has_term(gone)

    index.remove_rows(np.arange(len(index)))
    assert len(index) == 0 and index.search(["revenue"], 5) == []
    index.append([7, 8, 9], [["revenue", "capex"], ["debt"], ["lease"]])
    assert [c for c, _ in index.search(["revenue"], 5)] == [7]


def test_an_analysts_degree_words_are_no_evidence_terms() -> None:
    from desktop_rag.core.domain.terms import content_terms

    # "main risks": a filing says "risks", rarely "main"; the gate refused Nike's 10-K on it
    terms = content_terms("What were the main risks of relying on key contract manufacturers?")
    assert "main" not in terms and "key" not in terms and "manufacturer" in " ".join(terms)


def test_warm_builds_the_lookups_ahead_and_they_follow_changes() -> None:
    cold = LexicalIndex(list(DOCS), [tokenize(t) for t in DOCS.values()])
    warm = LexicalIndex(list(DOCS), [tokenize(t) for t in DOCS.values()])
    warm.warm()
    root = word_root("expenses")
    assert warm.rows_with_root(root).tolist() == cold.rows_with_root(root).tolist() == [0, 2]
    assert warm.idf == cold.idf
    warm.append([15], [tokenize("Other expenses rose")])  # the lookups are rebuilt, not stale
    assert warm.rows_with_root(root).tolist() == [0, 2, 5]
    assert "rose" in warm.idf


def test_a_verb_and_its_noun_are_one_word_family() -> None:
    from desktop_rag.core.domain.terms import root_family

    assert word_root("acquisition") in root_family(word_root("acquire"))
    assert word_root("reduction") in root_family(word_root("reduce"))
    assert word_root("description") in root_family(word_root("describe"))
    assert root_family(word_root("revenue")) == {word_root("revenue")}


def test_the_indexed_forms_of_a_question_word_commonest_first() -> None:
    texts = ["We completed two acquisitions in 2016.", "The acquisitions closed in May.",
             "eBay acquired Ticketbis.", "Revenue grew."]
    index = LexicalIndex(list(range(len(texts))), [tokenize(t) for t in texts])
    assert index.word_forms("acquire") == ["acquisition", "acquired"]
    # the filings print "acquisition" more often than "acquired": the word as typed stands
    assert index.word_forms("acquisition") == []
    assert index.word_forms("grow") == []  # a short word: its forms are not searched
    assert index.word_forms("revenue") == []
