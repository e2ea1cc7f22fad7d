"""cli.py's ask keeps a thread as the window does (the core conversation session) and its JSON
carries how each message was read and answered. A fake workspace: the point is the thread,
not retrieval or the model."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from desktop_rag import cli
from desktop_rag.core.conversation.history import HistoryStore
from desktop_rag.core.conversation.memory import MemoryStore
from desktop_rag.core.domain.types import Answer, Evidence
from tests.unit.core.conversation.test_session import APPLE, INTEL, FakeEngine


class FakeStore:
    """The store's page reader the conversation derives company terms from."""

    def page_texts(self, doc_id: str) -> list[str]:
        return []


class FakeLibrary:
    on_server = False
    store = FakeStore()

    def mismatch(self) -> list[str]:
        return []

    def documents(self) -> list:
        return [APPLE, INTEL]


class EvidenceEngine(FakeEngine):
    """Like the real engine with a model: the evidence event comes before the answer."""

    def ask(self, question: str, standalone: str | None = None, doc_scope: object = None,
            on_event: object = None) -> Answer:
        from desktop_rag.core.answer.engine import AnswerEvent

        self.evidence_listener = on_event
        ans = super().ask(question, standalone, doc_scope)
        ev = Evidence("Research and development 7,442 6,797", list(ans.citations), ms=180.0)
        if callable(on_event):
            on_event(AnswerEvent("evidence", text=ev.text, evidence=ev))
            print("(model answering)")  # what the analyst waits for while the evidence is on screen
            on_event(AnswerEvent("answer", answer=ans))
        ans.evidence = ev
        return ans


class FakeWorkspace:
    def __init__(self, folder: Path) -> None:
        self.library = FakeLibrary()
        self.history = HistoryStore(folder / "history.sqlite")
        self.memory = MemoryStore(folder / "history.sqlite")
        self.engine = EvidenceEngine()

    def load_model(self, name: str | None = None) -> None:
        return None

    def close(self) -> None:
        self.history.close()
        self.memory.close()


def _ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stdin: str, *args: str) -> tuple[FakeWorkspace, str]:
    ws = FakeWorkspace(tmp_path)
    monkeypatch.setattr(cli, "_workspace", lambda ns: ws)
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    ns = argparse.Namespace(json="--json" in args, thread="--thread" in args, style="", model=None,
                            question=[a for a in args if not a.startswith("--")])
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert cli.cmd_ask(ns) == 0
    return ws, out.getvalue()


THREAD = ("What was Apple's research and development expense in Q3 2023?\nAnd the quarter before?\n"
          "Summarise what we found so far\n")


def test_ask_json_thread_carries_the_standalone_route_and_notes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ws, out = _ask(monkeypatch, tmp_path, THREAD, "--json", "--thread", "-")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["standalone"] for r in rows[:2]] == ["What was Apple's research and development expense in Q3 2023?",
                                                   "What was Apple's research and development expense in Q2 2023?"]
    assert rows[1]["route"] == {"kind": "retrieve", "task": "", "reason": "asks for something new from the filings"}
    assert rows[2]["route"]["kind"] == "conversation" and rows[2]["route"]["task"] == "summary"
    assert all(isinstance(r["attempts"], list) and r["notes"] for r in rows)
    assert len(ws.engine.asked) == 2  # the summary came from the thread: no third search
    # the thread is stored as the window stores it: one conversation, the searched questions kept
    history = HistoryStore(tmp_path / "history.sqlite")
    [conv] = history.conversations()
    assert [m.standalone for m in history.messages(conv.conv_id)][1] == rows[1]["standalone"]
    history.close()


def test_ask_without_thread_asks_each_question_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ws, out = _ask(monkeypatch, tmp_path, THREAD, "--json", "-")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[1]["standalone"] == "And the quarter before?" and rows[1]["route"] is None
    assert len(ws.engine.asked) == 3


def test_interactive_ask_keeps_the_thread_and_its_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stdin = THREAD + ":style bullets\nWhat was Intel's research and development expense in Q2 2023?\n:memory\n:clear\n:memory\n"
    _ws, out = _ask(monkeypatch, tmp_path, stdin)
    assert "(searched: What was Apple's research and development expense in Q2 2023?)" in out
    assert "(route: conversation (summary) — asks about what was already said)" in out
    assert "A: - R&D was $4,080 million." in out  # the style chosen with :style
    memory, cleared = out.split("(memory cleared)")
    assert "- What was Intel's research and development expense in Q2 2023? — " in memory
    assert "(nothing established yet)" in cleared




def test_ask_prints_the_evidence_before_the_answer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _, text = _ask(monkeypatch, tmp_path, "", "What was Apple's R&D in Q3 2023?")
    assert text.index("Evidence (0.2 s;") < text.index("(model answering)") < text.index("A: R&D was $7,442 million.")
    assert '[E1] 2023 Q3 AAPL.pdf, p. 4: "Research and development 7,442 6,797"' in text


def test_ask_json_keeps_one_object_per_question_with_the_evidence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ws, out = _ask(monkeypatch, tmp_path, "", "--json", "What was Apple's R&D in Q3 2023?")
    [row] = [json.loads(line) for line in out.splitlines()]
    assert ws.engine.evidence_listener is None  # nothing printed beside the JSON
    assert row["answer"] == "R&D was $7,442 million." and row["citations"]
    assert row["evidence"] == {"text": "Research and development 7,442 6,797", "ms": 180.0,
                               "citations": [{"doc": "2023 Q3 AAPL.pdf", "page": 4,
                                              "quote": "Research and development 7,442 6,797"}]}


def test_threaded_ask_passes_the_evidence_through_the_conversation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _, out = _ask(monkeypatch, tmp_path, THREAD, "--thread", "-")
    assert out.count("Evidence (0.2 s;") == 2  # the summary is from the thread: no search, no evidence


@pytest.mark.parametrize("url", ["postgresql://bob@127.0.0.1:1/research?sslmode=disable&password=s3cr3t",
                                 "postgresql://bob@127.0.0.1:1/research?PASSWORD=s3cr3t",
                                 "postgresql://bob:s3cr3t@127.0.0.1:1/research"])
def test_a_password_in_library_is_refused_with_where_passwords_go(
        url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Refused before any connection (port 1 is never tried), exit 2; the message says where
    the password goes and never repeats it."""
    assert cli.main(["--data-dir", str(tmp_path), "--library", url, "docs"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "~/.pgpass" in err and "PGPASSWORD" in err and "service file" in err
    assert "s3cr3t" not in err and "Cannot reach" not in err


def test_a_location_that_is_no_server_url_is_not_echoed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--data-dir", str(tmp_path), "--library", "host=db password=s3cr3t", "docs"]) == 2
    err = capsys.readouterr().err
    assert "postgresql://" in err and "s3cr3t" not in err


class UnreachableOnceEngine(EvidenceEngine):
    """The team server stays away for the first question (the store's one reconnect failed)."""

    def ask(self, question: str, standalone: str | None = None, doc_scope: object = None,
            on_event: object = None) -> Answer:
        from desktop_rag.core.index.backends import LibraryUnavailable

        if not getattr(self, "failed", False):
            self.failed = True
            raise LibraryUnavailable("Cannot reach the team library at postgresql://bob@db/research: refused")
        return super().ask(question, standalone, doc_scope, on_event)


def test_an_interactive_ask_keeps_going_when_the_server_stays_away(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Interactive: the message, then the next question is answered. Questions given as
    arguments or on stdin (scripts) stop at it instead, with exit code 3."""
    ws = FakeWorkspace(tmp_path)
    ws.engine = UnreachableOnceEngine()
    monkeypatch.setattr(cli, "_workspace", lambda ns: ws)
    monkeypatch.setattr("sys.stdin", io.StringIO("What was Apple's R&D in Q3 2023?\nWhat was Apple's R&D in Q3 2023?\n"))
    ns = argparse.Namespace(json=False, thread=False, style="", model=None, question=[])
    assert cli.cmd_ask(ns) == 0
    captured = capsys.readouterr()
    assert "Cannot reach the team library" in captured.err and captured.out.count("A: ") == 1

    from desktop_rag.core.index.backends import LibraryUnavailable

    ws = FakeWorkspace(tmp_path / "script")
    ws.engine = UnreachableOnceEngine()
    monkeypatch.setattr("sys.stdin", io.StringIO("What was Apple's R&D in Q3 2023?\n"))
    with pytest.raises(LibraryUnavailable):  # main() turns it into exit code 3
        cli.cmd_ask(argparse.Namespace(json=True, thread=False, style="", model=None, question=["-"]))
