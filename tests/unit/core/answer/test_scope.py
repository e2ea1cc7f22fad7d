"""core/answer/scope.py: the parts a filing names and the stretches of its pages under a part's
heading; a segment's sentence ranks below the company's when the company is asked."""

from __future__ import annotations

from desktop_rag.core.answer.scope import FilingParts
from desktop_rag.core.answer.verify import Passage, best_units
from desktop_rag.core.domain.terms import tokenize
from desktop_rag.core.domain.types import Chunk, Document, DocumentMeta, Hit

OVERVIEW = """EXECUTIVE OVERVIEW
The Firm is managed on a line of business basis. There are four major reportable business segments \u2013
Consumer Banking, Investment Bank, Commercial Banking and Wealth Management. In addition, there is a Corporate segment.
The results of the Corporate segment include treasury activities.
Net interest income was $20.7 billion, up 49%, driven by higher rates.
"""
CONSUMER = """CONSUMER BANKING
Quarterly results
Net interest income was $12.8 billion, up 54%, driven by deposit margin expansion.
"""
CONSUMER_CONTINUED = """Selected metrics
Average deposits were down 3%.
"""
NOTES = """Note 5 \u2013 Derivative instruments
Corporate
Notional amounts are shown below.
"""
AFTER_NOTES = """Notional amount of derivative contracts
The following table summarizes the notional amounts.
"""
RETAIL = """Results of Operations
Net sales increased 7.6% to $152.3 billion.
Club Stores Segment
Net sales for the Club Stores segment increased 3.1%.
"""
RETAIL_NEXT = """Net sales were negatively impacted by lower fuel sales.
Liquidity and Capital Resources
Cash flows from operating activities were $4.6 billion.
"""


def test_parts_are_read_from_the_filings_own_words() -> None:
    parts = FilingParts.read([(1, OVERVIEW), (2, CONSUMER), (3, CONSUMER_CONTINUED)])
    assert {"consumer banking", "investment bank", "commercial banking", "wealth management", "corporate"} <= set(
        parts.names.values())
    # an all-caps section heading holds over pages; its Title Case subheadings stay inside it
    assert parts.spans[2] == [(0, len(CONSUMER), "consumer banking")]
    assert parts.spans[3] == [(0, len(CONSUMER_CONTINUED), "consumer banking")]
    assert 1 not in parts.spans


def test_a_title_case_part_heading_runs_on_one_page_at_most() -> None:
    parts = FilingParts.read([(1, OVERVIEW), (7, NOTES), (8, AFTER_NOTES), (9, AFTER_NOTES)])
    assert 7 in parts.spans and 8 in parts.spans and 9 not in parts.spans


def test_a_segment_heading_names_its_part_and_ends_at_the_next_heading() -> None:
    parts = FilingParts.read([(22, RETAIL), (23, RETAIL_NEXT)])
    assert "club stores" in parts.names
    start = RETAIL.index("Club Stores Segment")
    assert parts.spans[22] == [(start, len(RETAIL), "club stores")]
    end = RETAIL_NEXT.index("Liquidity")
    assert parts.spans[23] == [(0, end, "club stores")]


def test_what_the_question_asks_decides_what_is_out_of_scope() -> None:
    parts = FilingParts.read([(1, OVERVIEW), (2, CONSUMER)])
    assert parts.asked("What drove the firm's net interest income in Q1 2023?") == set()
    assert parts.off_scope(2, set()) == ((0, len(CONSUMER)),)
    assert parts.asked("What drove net interest income in Consumer Banking?") == {"consumer banking"}
    assert parts.off_scope(2, {"consumer banking"}) == ()
    # the parts in general: nothing is out of scope
    assert parts.asked("Which segment grew fastest?") is None
    assert parts.off_scope(2, None) == ()


def _passage(page: int, text: str, off: tuple[tuple[int, int], ...]) -> Passage:
    doc = Document("d" * 64, "BANK_2023Q1_10Q.pdf", "x", 3, DocumentMeta(company="Example Bank", form_type="10-Q"))
    return Passage(Hit(Chunk(page, doc.doc_id, page, page, 0, len(text), text), doc, 1.0), 0, len(text), text, text, off)


def test_a_segments_sentence_ranks_below_the_companys() -> None:
    parts = FilingParts.read([(1, OVERVIEW), (2, CONSUMER)])
    asked = parts.asked("What drove net interest income growth?")
    passages = [_passage(2, CONSUMER, parts.off_scope(2, asked)), _passage(1, OVERVIEW, parts.off_scope(1, asked))]
    terms = set(tokenize("net interest income growth drove"))
    best = best_units(passages, terms, [], 3, want_numbers=False)
    _, p, a, b = best[0]
    assert p.text[a:b].startswith("Net interest income was $20.7 billion")
    # without the scope, the segment's sentence (retrieved first) leads
    plain = [_passage(2, CONSUMER, ()), _passage(1, OVERVIEW, ())]
    _, p, a, b = best_units(plain, terms, [], 3, want_numbers=False)[0]
    assert "Net interest income was $12.8 billion" in p.text[a:b]


def test_no_parts_named_means_no_spans() -> None:
    parts = FilingParts.read([(1, "MANAGEMENT'S DISCUSSION\nRevenue grew 5% due to higher volumes.\n")])
    assert parts.names == {} and parts.spans == {}


def test_parts_listed_with_semicolons_and_a_part_section_through_its_table_heading() -> None:
    """"segments for the NIKE Brand are: North America; Europe, Middle East & Africa (EMEA);
    Greater China; and Asia Pacific & Latin America (APLA), and include ...": four names (commas
    inside them). Under "GREATER CHINA", the table's capitalised column heading ("% CHANGE",
    "EXCLUDING") and "FISCAL 2022 COMPARED TO FISCAL 2021" are no sections of their own."""
    overview = ("The Company's reportable operating segments for the NIKE Brand are: North\nAmerica; Europe, Middle East "
                "& Africa (EMEA); Greater China; and Asia Pacific & Latin America (APLA), and include results for the "
                "NIKE and Jordan brands.\n")
    segment = ("GREATER CHINA\n% CHANGE\nEXCLUDING\nCURRENCY\n(Dollars in millions) FISCAL 2022 FISCAL 2021\n"
               "TOTAL REVENUES $ 7,547 $ 8,290\nFISCAL 2022 COMPARED TO FISCAL 2021\nGross margin decreased "
               "approximately 390 basis points, reflecting higher inventory obsolescence reserves.\n")
    parts = FilingParts.read([(4, overview), (41, segment)])
    assert {"north america", "europe, middle east & africa", "greater china", "asia pacific & latin america"} <= set(
        parts.names.values())
    assert parts.spans[41] == [(0, len(segment), "greater china")]
