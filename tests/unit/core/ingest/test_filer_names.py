"""Names as analysts type them, on every filer of ``../shared/data`` (all three sets).

A library holding the 117 shared filings (their identities as ingest reads them) is asked
questions that name a filer the ways analysts do: its legal name, the short name its filings
print, its trading symbol, initials in use, names written together or spelled with dots, a
former name. Each must resolve to that filer's filings (``identity.named_documents``, what a
question's plan filters by) and to no other filer's, and leave no name of the question
unknown (``HybridRetriever.missing_company``, which refuses a company the library lacks).
Ordinary words, and the symbols of a filer's notes and preferred series, name no filer.

Not derivable by a rule and so not listed: "Coke" (Coca-Cola's filings print it only as a
brand: "Diet Coke", "Coke Zero Sugar"), "lockheed" in lower case (its filings print
"Lockheed" only with "Martin"; the capitalised "Lockheed" is derived from the name). Known
and not asserted: a question that opens with "Foot" names Foot Locker (the capitalised first
word of a name is one of its names: "Lockheed", "Foot"), and "COST" typed in capitals is
Costco's symbol.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from desktop_rag.core.domain.types import DocumentMeta
from desktop_rag.core.ingest.identity import company_aliases, named_documents

from .conftest import FILINGS

pytestmark = pytest.mark.slow  # the shared filings' identities (read once per session)

# filer -> the registrant names its filings carry (a renamed filer has several) and the names an
# analyst types for it
FILERS: dict[str, tuple[set[str], list[str]]] = {
    "Apple": ({"Apple Inc."}, ["Apple", "apple", "AAPL", "aapl", "Apple Inc."]),
    "Amazon": ({"Amazon.com, Inc."}, ["Amazon", "amazon", "AMZN", "Amazon.com"]),
    "Intel": ({"Intel Corporation"}, ["Intel", "intel", "INTC", "Intel Corp."]),
    "Microsoft": ({"Microsoft Corporation"}, ["Microsoft", "microsoft", "MSFT", "msft", "Microsoft Corp"]),
    "NVIDIA": ({"NVIDIA Corporation"}, ["NVIDIA", "Nvidia", "nvidia", "NVDA", "nvda"]),
    "Adobe": ({"Adobe Systems Incorporated", "Adobe Inc."}, ["Adobe", "adobe", "ADBE", "Adobe Systems"]),
    "AMD": ({"Advanced Micro Devices, Inc."}, ["AMD", "amd", "Advanced Micro Devices", "advanced micro devices"]),
    "American Water Works": ({"American Water Works Company, Inc."},
                             ["American Water Works", "American Water", "american water", "AWK"]),
    "Coca-Cola": ({"The Coca-Cola Company"}, ["Coca-Cola", "Coca Cola", "coca-cola", "coca cola", "KO", "CocaCola"]),
    "Corning": ({"Corning Incorporated"}, ["Corning", "corning", "GLW"]),
    "Costco": ({"Costco Wholesale Corporation"}, ["Costco", "costco", "COST", "Costco Wholesale"]),
    "Foot Locker": ({"Foot Locker, Inc."}, ["Foot Locker", "foot locker", "FootLocker", "FL"]),
    "JPMorgan": ({"JPMorgan Chase & Co."},
                 ["JPMorgan", "jpmorgan", "JPMorgan Chase", "JP Morgan", "J.P. Morgan", "JPM", "jpm", "JPMorgan Chase & Co."]),
    "Kraft Heinz": ({"The Kraft Heinz Company"}, ["Kraft Heinz", "kraft heinz", "Kraft", "KraftHeinz", "KHC"]),
    "Lockheed Martin": ({"Lockheed Martin Corporation"}, ["Lockheed Martin", "lockheed martin", "Lockheed", "LMT"]),
    "Netflix": ({"Netflix, Inc."}, ["Netflix", "netflix", "NFLX"]),
    "Nike": ({"NIKE, Inc."}, ["Nike", "NIKE", "nike", "NKE"]),
    "Walmart": ({"Walmart Inc."}, ["Walmart", "walmart", "WMT"]),
    "eBay": ({"eBay Inc."}, ["eBay", "ebay", "EBAY"]),
    "FedEx": ({"FedEx Corporation"}, ["FedEx", "Fedex", "fedex", "FDX"]),
    "McDonald's": ({"McDonald's Corporation"}, ["McDonald's", "McDonald’s", "McDonalds", "mcdonalds", "MCD"]),
    "Oracle": ({"Oracle Corporation"}, ["Oracle", "oracle", "ORCL", "orcl"]),
    "PayPal": ({"PayPal Holdings, Inc."}, ["PayPal", "Paypal", "paypal", "PYPL"]),
    "PG&E": ({"PG&E Corporation"}, ["PG&E", "pg&e", "PGE", "PCG", "pcg", "Pacific Gas and Electric"]),
    "Salesforce": ({"salesforce.com, inc.", "Salesforce, Inc."}, ["Salesforce", "salesforce", "Salesforce.com", "CRM"]),
}

# Words of analysts' questions that name no filer: common words (some of them words of the
# filers' names), in lower case as typed inside a question
ORDINARY = """foot cost costs water works gas electric general american micro devices systems wholesale chase martin
locker pacific stock common shares notes units series preferred class exchange market advanced holdings company
corporation incorporated revenue sales income profit margin growth cash flow debt equity assets liabilities inventory
dividend dividends buyback capex guidance outlook quarter year annual fiscal segment segments region customers
employees stores restaurants cloud software hardware chips devices payments marketplace delivery freight fuel
energy utility utilities power wildfire insurance loans deposits credit card interest rates bank banking trading
advertising subscribers streaming content brand brands beverage beverages food foods snacks shoes apparel footwear
retail wholesale membership warehouse pharmacy health defense aircraft missiles space contracts backlog orders
supply chain inflation tariffs taxes tax litigation lawsuit settlement acquisition merger divestiture restructuring
layoffs severance impairment goodwill depreciation amortization lease leases pension rent wages salaries bonus
share price market cap valuation rating outlook risk risks factors competition competitors pricing demand supply
the a an and or of for in on at by with from to what which how why when where who was were is are did does do
has have had rose fell increased decreased grew declined changed compare compared versus against total net gross
operating adjusted diluted basic per average ending beginning first second third fourth last next prior current
please show tell give list explain describe calculate compute round percent million billion thousand""".split()
# Finance abbreviations analysts type in capitals; the symbols of notes, preferred series and ETNs
ABBREVIATIONS = """PE PD PG PH PI PA PB PC PR EPS ROE ROA ROIC FCF EBIT EBITDA CAGR YOY QOQ GAAP COGS DSO DPO NII NIM AUM
ARPU LTM TTM FX OCI ETN ETF MLP US USA CEO CFO IPO ESG AI EU UK AMJ EBAYL PCGU WMT26 KO24 GLW31""".split()


def _filer_of(company: str) -> str:
    return next(f for f, (companies, _) in FILERS.items() if company in companies)


@pytest.fixture(scope="module")
def library(shared_identities: dict[str, DocumentMeta]) -> SimpleNamespace:
    metas = dict(shared_identities)
    names_of = {k: frozenset(company_aliases(m)) for k, m in metas.items()}
    return SimpleNamespace(metas=metas, names_of=names_of)


def _named_filers(library: SimpleNamespace, question: str) -> set[str]:
    return {_filer_of(library.metas[d].company) for d in named_documents(question, library.names_of, library.metas)}


def _missing_company(library: SimpleNamespace, question: str) -> str:
    """What the question plan reports as a company the library lacks: a name of the question
    that is none of the library's names and, here, no word of the library either."""
    from desktop_rag.core.retrieve.hybrid import HybridRetriever
    from desktop_rag.settings import RetrievalSettings

    lib: Any = SimpleNamespace(docs={k: SimpleNamespace(meta=m) for k, m in library.metas.items()},
                               lexical=SimpleNamespace(has_term=lambda term: False))
    return HybridRetriever(lib, RetrievalSettings()).missing_company(question)


def test_every_shared_filing_belongs_to_a_filer_of_the_table(shared_identities: dict[str, DocumentMeta]) -> None:
    assert {_filer_of(m.company) for m in shared_identities.values()} == set(FILERS)
    assert len(shared_identities) == len(FILINGS)


@pytest.mark.parametrize(("filer", "name"), [(f, n) for f, (_, names) in FILERS.items() for n in names])
def test_a_filer_is_found_by_the_names_analysts_type(library: SimpleNamespace, filer: str, name: str) -> None:
    possessive = name if name.endswith(("'s", "’s")) else f"{name}'s"
    for question in (f"What was {possessive} revenue in 2022?", f"{name} revenue 2022",
                     f"How much cash did {name} return to shareholders last quarter?"):
        assert _named_filers(library, question) == {filer}, question
        assert _missing_company(library, question) == "", question


def test_a_filer_is_all_of_its_filings_under_every_name(library: SimpleNamespace) -> None:
    # a renamed filer is one filer: its former name's filings are found by its present names
    for filer, (companies, names) in FILERS.items():
        own = {k for k, m in library.metas.items() if m.company in companies}
        for name in names:
            assert named_documents(f"{name} revenue", library.names_of, library.metas) == own, (filer, name)


@pytest.mark.parametrize("word", ORDINARY)
def test_ordinary_words_name_no_filer(library: SimpleNamespace, word: str) -> None:
    for question in (f"What was the {word} in 2022?", f"how did the {word} change", f"{word} and margins"):
        assert _named_filers(library, question) == set(), question


@pytest.mark.parametrize("word", ABBREVIATIONS)
def test_abbreviations_and_other_securities_name_no_filer(library: SimpleNamespace, word: str) -> None:
    assert _named_filers(library, f"What is the {word} for 2022?") == set()


def test_no_name_belongs_to_two_filers(library: SimpleNamespace) -> None:
    owners: dict[str, set[str]] = {}
    for key, names in library.names_of.items():
        for n in names:
            owners.setdefault(n.lower(), set()).add(_filer_of(library.metas[key].company))
    assert {n: f for n, f in owners.items() if len(f) > 1} == {}
