"""core/conversation/session.py: a thread read, routed, styled, stored and remembered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore
from desktop_rag.core.conversation.session import ConversationSession
from desktop_rag.core.domain.types import Answer, Citation, Document, DocumentMeta

APPLE = Document("a" * 64, "2023 Q3 AAPL.pdf", "/x", 30, DocumentMeta(company="Apple Inc.", ticker="AAPL",
                                                                       form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))
INTEL = Document("i" * 64, "2023 Q3 INTC.pdf", "/y", 60, DocumentMeta(company="Intel Corporation", ticker="INTC",
                                                                        form_type="10-Q", fiscal_year=2023, fiscal_quarter=3))


class FakeEngine:
    """Answers every question with one figure cited from the filing of the company asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def ask(self, question: str, standalone: str | None = None, doc_scope: Any = None) -> Answer:
        q = standalone or question
        self.asked.append(q)
        doc = INTEL if "Intel" in q else APPLE
        figure = "4,080" if doc is INTEL else "7,442"
        cite = Citation(doc.doc_id, doc.file_name, 4, f"Research and development {figure} 6,797")
        return Answer(question, f"R&D was ${figure} million.", [cite], standalone_query=q)


def test_thread(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    engine = FakeEngine()
    first = s.ask(engine, "What was Apple's research and development expense in Q3 2023?")
    assert any(n.startswith("route: retrieve") for n in first.notes)
    second = s.ask(engine, "And the quarter before?")
    assert second.standalone_query == "What was Apple's research and development expense in Q2 2023?"
    # a comparison with a company not answered yet retrieves it and sets the stored answer beside it
    third = s.ask(engine, "How does that compare with Intel?")
    assert engine.asked[-1] == "What was Intel's research and development expense in Q2 2023?"
    assert any(n.startswith("route: both") for n in third.notes)
    assert {c.doc for c in third.citations} == {"2023 Q3 AAPL.pdf", "2023 Q3 INTC.pdf"}
    # recalled from the thread: no new retrieval, only stored citations
    n_asked = len(engine.asked)
    recall = s.ask(engine, "What did you say about Intel?")
    assert len(engine.asked) == n_asked
    stored = {(c.doc, c.quote) for m in hist.messages(s.conv_id)[:-1] for c in m.answer.citations}
    assert recall.citations and {(c.doc, c.quote) for c in recall.citations} <= stored
    # a style asked once is kept for the conversation; it only re-lays verified text
    short = s.ask(engine, "Make that a table.")
    assert "| Research and development |" in short.answer  # the last answer's cited rows, as printed
    assert mem.style(s.conv_id) == "table"
    later = s.ask(engine, "What was Apple's research and development expense in Q1 2023?")
    assert "| Research and development |" in later.answer
    assert mem.memory(s.conv_id)  # older turns are summarised into cited facts
    s.clear_memory()
    assert mem.memory(s.conv_id) == []
    hist.close()
    mem.close()


def test_scope_to_one_filing(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    turn = s.prepare("What was total revenue for the quarter?", [INTEL.doc_id])
    assert turn.standalone == "What was total revenue for the quarter (Intel Corporation, Q3 FY2023)?"
    hist.close()
    mem.close()


def test_routed_message_is_read_as_written_and_an_edit_is_searched_as_written(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    engine = FakeEngine()
    s.ask(engine, "What was Apple's research and development expense in Q3 2023?")
    summary = s.prepare("Summarise what we found so far")
    assert summary.route.kind == "conversation" and summary.standalone == "Summarise what we found so far"
    # the analyst's edit of a follow-up is searched as written, never routed to the thread
    edited = s.prepare("And the quarter before?", standalone="What was Intel's R&D in Q2 2023?")
    assert edited.standalone == "What was Intel's R&D in Q2 2023?" and edited.route.kind == "retrieve"
    answer = s.run(engine, edited)
    assert engine.asked[-1] == "What was Intel's R&D in Q2 2023?"
    assert "route: retrieve — the analyst edited the searched question" in answer.notes
    stored = hist.messages(s.conv_id)[-1]
    assert stored.question == "And the quarter before?" and stored.standalone == "What was Intel's R&D in Q2 2023?"
    hist.close()
    mem.close()


PAGES = {
    "a" * 64: ["Products and Services\nWearables, Home and Accessories\nWearables, Home and Accessories 8,284 8,806\n"
               "Research and development 7,442 6,797"],
    "i" * 64: ["Operating segments\nClient Computing Group\nClient Computing Group 8,890 7,330\n"
               "Research and development 4,080 4,302"],
}


def test_a_segment_only_one_company_prints_names_that_company(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL], page_texts=PAGES.__getitem__)
    turn = s.prepare("What was Client Computing Group revenue in Q3 2023?")
    assert turn.standalone == "What was Client Computing Group revenue in Q3 2023 (Intel)?"
    # a lower-case word is read as the common word it may be, and shared words name nobody
    assert s.prepare("research and development in Q3 2023?").standalone == "research and development in Q3 2023?"
    without = ConversationSession(hist, mem, [APPLE, INTEL])
    assert without.prepare("What was Client Computing Group revenue in Q3 2023?").standalone.endswith("2023?")


def test_asking_what_was_said_is_answered_from_the_conversation(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    engine = FakeEngine()
    s.ask(engine, "What was Apple's research and development expense in Q3 2023?")
    s.ask(engine, "Same for Intel")
    asked = len(engine.asked)
    ans = s.ask(engine, "what did you tell me about the chipmaker?")  # no stored word matches
    assert len(engine.asked) == asked  # no retrieval: the filings cannot say what was said
    assert ans.answer.startswith("Nothing said earlier") and "7,442" in ans.answer and "4,080" in ans.answer
    assert {c.doc for c in ans.citations} == {APPLE.file_name, INTEL.file_name}


def test_a_bare_segment_the_thread_company_prints_is_no_new_company(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL], page_texts=PAGES.__getitem__)
    engine = FakeEngine()
    s.ask(engine, "Intel research and development in Q3 2023")
    # "Wearables, Home and Accessories" is Apple's, not Intel's: there it would name a company
    # the library lacks; "Client Computing Group" is the thread company's own segment
    turn = s.prepare("Client Computing Group?")
    assert turn.standalone == "Client Computing Group research and development (Intel, Q3 2023)?"


COKE = Document("c" * 64, "COCACOLA_2017_10K.pdf", "/c", 90, DocumentMeta(company="The Coca-Cola Company", ticker="KO",
                                                                            form_type="10-K", fiscal_year=2017))
KRAFT = Document("k" * 64, "KRAFTHEINZ_2019_10K.pdf", "/k", 90, DocumentMeta(company="The Kraft Heinz Company",
                                                                               ticker="KHC", form_type="10-K",
                                                                               fiscal_year=2019))
BEVERAGE_PAGES = {
    "c" * 64: ["“Trademark Coca-Cola” means beverages bearing the trademark Coca-Cola or any trademark that includes "
               "Coca-Cola or Coke (that is, Coca-Cola, Diet Coke and Coca-Cola Zero Sugar).\nNet operating revenues "
               "35,410 41,863"],
    "k" * 64: ["Our trademarks are material to our business.\nNet sales 24,977 26,268"],
}


class BeverageEngine:
    def ask(self, question: str, standalone: str | None = None, doc_scope: Any = None) -> Answer:
        q = standalone or question
        doc = COKE if "Coca-Cola" in q else KRAFT
        figure = "35,410" if doc is COKE else "24,977"
        return Answer(question, f"Revenue was ${figure} million.",
                      [Citation(doc.doc_id, doc.file_name, 3, f"revenues {figure}")], standalone_query=q)


def test_a_filer_s_own_trademark_names_it_however_typed(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [COKE, KRAFT], page_texts=BEVERAGE_PAGES.__getitem__)
    assert s.prepare("what were coke's net operating revenues in 2017?").standalone.endswith("(Coca-Cola)?")
    engine = BeverageEngine()
    s.ask(engine, "What were Coca-Cola's net operating revenues in 2017?")
    s.ask(engine, "same question for Kraft Heinz, 2019")
    recall = s.ask(engine, "what did you tell me about coke?")
    # the Coca-Cola answer, not "nothing said uses those words"
    assert not recall.answer.startswith("Nothing said") and "35,410" in recall.answer and "24,977" not in recall.answer
    hist.close()
    mem.close()


def test_the_thread_s_company_and_calendar_reach_the_rewrite_and_the_router(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    apple = Document("a" * 64, "2023 Q2 AAPL.pdf", "/x", 30, DocumentMeta(
        company="Apple Inc.", ticker="AAPL", form_type="10-Q", fiscal_year=2023, fiscal_quarter=2, period_end="2023-04-01"))
    intel = Document("i" * 64, "2023 Q1 INTC.pdf", "/y", 60, DocumentMeta(
        company="Intel Corporation", ticker="INTC", form_type="10-Q", fiscal_year=2023, fiscal_quarter=1,
        period_end="2023-04-01"))
    s = ConversationSession(hist, mem, [apple, intel])
    engine = FakeEngine()
    s.ask(engine, "What was Intel's research and development expense in Q1 2023?")
    # Apple's quarter ending in March is its Q2 FY2023 (from its filing's cover)
    turn = s.prepare("And Apple's for the March quarter?")
    assert turn.standalone == "What was Apple's research and development expense in Q2 FY2023?"
    s.ask(engine, "And Apple's for the March quarter?")
    s.ask(engine, "What did you say about Intel?")  # answered from the conversation, names Intel
    back = s.prepare("And Q3 2023?")
    assert back.standalone == "What was Intel's research and development expense in Q3 2023?"
    # a comparison with a company the library lacks (an unknown capitalised name) searches it too
    assert s.prepare("How does that stack up vs Samsung?").route.kind == "both"


def test_a_scope_of_two_companies_reads_the_one_the_message_names(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    scope = [APPLE.doc_id, INTEL.doc_id]
    first = s.prepare("What was Intel's R&D for the quarter?", scope)
    assert INTEL.meta.period_label() in first.standalone
    s.run(FakeEngine(), first, scope)
    # the other company's own scoped filing names its period, not the first company's quarter
    second = s.prepare("and apple's", scope)
    assert "apple" in second.standalone.lower() and APPLE.meta.period_label() in second.standalone


class ScriptedEngine:
    """Answers each question with the next scripted answer, cited from the Apple filing."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def ask(self, question: str, standalone: str | None = None, doc_scope: Any = None) -> Answer:
        self.asked.append(standalone or question)
        text = self.answers.pop(0)
        return Answer(question, text, [Citation(APPLE.doc_id, APPLE.file_name, 5, text)], standalone_query=standalone)


def test_arithmetic_on_earlier_answers_is_computed_from_them(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    engine = ScriptedEngine(["Free cash flow was $3,676 million in Q3 2023.", "Free cash flow was $3,137 million in Q3 2022.",
                             "Apple expects revenue of $34.5 billion to $34.7 billion for fiscal 2024."])
    s.ask(engine, "What was Apple's free cash flow in Q3 2023?")
    s.ask(engine, "and the same quarter a year earlier?")
    growth = s.ask(engine, "what's the growth rate between the two?")
    assert len(engine.asked) == 2  # nothing searched
    assert "+$539 million (+17.2%)" in growth.answer
    total = s.ask(engine, "so total?")
    assert "Total: $6,813 million" in total.answer
    s.ask(engine, "What is Apple's revenue guidance for fiscal 2024?")
    mid = s.ask(engine, "midpoint of that range?")
    assert "$34.6 billion" in mid.answer and len(engine.asked) == 3
    stored = {(c.doc, c.quote) for m in hist.messages(s.conv_id)[:-1] for c in m.answer.citations}
    assert mid.citations and {(c.doc, c.quote) for c in mid.citations} <= stored
    hist.close()
    mem.close()


def test_a_change_or_a_ratio_of_answers_given_is_computed_from_their_figures(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    engine = ScriptedEngine(["Apple's effective tax rate was 24.1% in Q3 2023.",
                             "Net income was $19,442 million in Q3 2023, down from $19,881 million in Q3 2022.",
                             "Apple had about 161,000 full-time employees.", "Intel had approximately 124,800 employees."])
    s.ask(engine, "What was Apple's effective tax rate in Q3 2023?")
    s.ask(engine, "What did that do to the bottom line?")
    fell = s.ask(engine, "By what percentage did it fall?")
    # the change within the latest answer, not between it and the tax rate before it
    assert len(engine.asked) == 2 and "-$439 million (-2.2%)" in fell.answer
    s.ask(engine, "How many employees did Apple have in Q3 2023?")
    s.ask(engine, "and Intel?")
    times = s.ask(engine, "Roughly how many times bigger is Apple's workforce?")
    assert len(engine.asked) == 4 and "Ratio: 161,000 / 124,800 = 1.29" in times.answer
    hist.close()
    mem.close()


def test_a_thread_without_periods_is_about_the_cited_filing_s_period(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    hist, mem = HistoryStore(path), MemoryStore(path)
    s = ConversationSession(hist, mem, [APPLE, INTEL])
    s.ask(ScriptedEngine(["Apple paid $1.2 billion for the acquisition."]), "What did Apple pay for the acquisition?")
    # the follow-up searches the filing that answered, by its period
    assert s.prepare("how was it financed?").standalone == "how was it financed (Apple, Q3 FY2023)?"
    hist.close()
    mem.close()
