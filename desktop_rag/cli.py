"""Command line: everything the app does, headless.

    python main.py [--data-dir DIR] ingest PATH...
    python main.py [--data-dir DIR] search [--k K] [--json] QUESTION... | -
    python main.py [--data-dir DIR] ask [--json] [--thread] [--style S] [QUESTION... | -]
    python main.py [--data-dir DIR] docs | remove DOC | statements DOC [--json] | reindex | models | finetune
    python main.py [--data-dir DIR] eval [...] | bench [...]
    python main.py team init URL [--admin-url URL] [--reader NAME] [--editor NAME] | library push URL | library pull URL
    python main.py --library postgresql://user@host/db COMMAND ...   (a team library)

Exit codes: 0 done, 1 some files failed, 2 a usage error (or a password in a URL), and on a
team library 3 the server cannot be reached, 4 it refused the login, 5 the role may not do that.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from desktop_rag import __version__

if TYPE_CHECKING:  # the session imports the core (torch): kept lazy at run time
    from desktop_rag.core.answer.engine import AnswerEvent
    from desktop_rag.core.conversation.session import ConversationSession
    from desktop_rag.core.domain.types import Evidence


# a team library's failures, each its own code (a script can tell them apart)
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3  # the server cannot be reached (or stopped answering)
EXIT_LOGIN_FAILED = 4  # it refused the login (password, role, certificate)
EXIT_PERMISSION_DENIED = 5  # the role may not do that (a reader adding, no grant at all, team init by an editor)


def _questions(args: list[str]) -> Iterator[str]:
    if args == ["-"]:
        for line in sys.stdin:
            if line.strip():
                yield line.strip()
    elif args:
        yield " ".join(args)


def _err(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


_told: set[str] = set()


def _warn_once(msg: str) -> None:
    """A warning said once a run however often it comes up (a team server whose identity this
    desktop does not check: the library opened again, the superuser's and the owner's logins)."""
    if msg and msg not in _told:
        _told.add(msg)
        _err(msg)


def _workspace(ns: argparse.Namespace):  # -> Workspace (imports torch: keep lazy)
    from desktop_rag.core.workspace import Workspace

    ws = Workspace(ns.data_dir, ns.models_dir, library=getattr(ns, "library_location", None))
    _warn_once(ws.library.store.identity_notice)
    return ws


def _check_index(ws) -> bool:
    problems = ws.library.mismatch()
    if problems and ws.library.on_server:
        _err(f"This desktop cannot use the team library at {ws.library.store.location}: it was built with "
             "other settings (" + "; ".join(problems) + ").")
        _err("Use the team's embedder and chunking settings on this desktop (nothing was written).")
        return False
    if problems:
        _err("The index was built with different settings: " + "; ".join(problems))
        _err("Run `python main.py reindex` to rebuild it (documents are kept).")
        return False
    return True


def cmd_ingest(ns: argparse.Namespace) -> int:
    from desktop_rag.core.index.library import IngestReport

    with _workspace(ns) as ws:
        if not _check_index(ws):
            return 2
        report = IngestReport()
        tty = sys.stderr.isatty()
        for ev in ws.library.ingest(ns.paths, report=report):
            prefix = f"[{ev.index}/{ev.total}] {ev.file}"
            if ev.kind == "step":
                if tty:
                    detail = f" {ev.done}/{ev.todo}" if ev.todo and ev.step == "embed" else ""
                    print(f"\r{prefix}: {ev.step}{detail}\033[K", end="", file=sys.stderr, flush=True)
            elif ev.kind == "done_file":
                _err(f"{chr(13) if tty else ''}{prefix}: added ({ev.message})\033[K" if tty else f"{prefix}: added ({ev.message})")
            elif ev.kind in ("failed", "skipped"):
                _err(f"{chr(13) if tty else ''}{prefix}: {ev.kind.upper()}: {ev.message}" + ("\033[K" if tty else ""))
            elif ev.kind == "finished":
                rate = report.pages / report.seconds if report.seconds else 0.0
                _err(f"{ev.message} — {report.pages} pages, {report.chunks} chunks in {report.seconds:.1f} s ({rate:.1f} pages/s)")
        if report.failed:
            _err(f"{len(report.failed)} file(s) failed:")
            for path, why in report.failed:
                _err(f"  {path}: {why}")
        return 1 if report.failed else 0


def _hit_json(h) -> dict:
    return {"doc": h.doc.file_name, "page_start": h.chunk.page, "page_end": h.chunk.page,
            "chunk_id": h.chunk.key, "score": round(h.score, 4), "text": h.chunk.text}


def cmd_search(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        if not _check_index(ws):
            return 2
        questions = list(_questions(ns.question))
        if not questions:
            _err("search: give a question, or - to read questions from stdin")
            return 2
        ws.library.refresh()
        if ws.library.pending_embeddings:
            _err(f"note: {ws.library.pending_embeddings} passages are not embedded yet (an interrupted ingest; "
                 "the next ingest completes them): they are found by keywords only")
        for q in questions:
            hits = ws.engine.retriever.search(q, k=ns.k, mode=ns.mode)
            if ns.json:
                print(json.dumps({"query": q, "hits": [_hit_json(h) for h in hits]}, ensure_ascii=False), flush=True)
            else:
                print(f"Q: {q}")
                for i, h in enumerate(hits, 1):
                    snippet = " ".join(h.chunk.text.split())[:160]
                    print(f"  {i:2d}. {h.doc.file_name} p.{h.chunk.page} [{h.score:.3f}] {snippet}")
                print(flush=True)
        return 0


def format_answer(ans) -> str:
    from desktop_rag.core.domain.page_labels import cited_page

    badge = ""
    if ans.not_in_corpus:
        badge = " [Not in corpus]"
    elif ans.extractive:
        badge = " [extractive: quoted from the filing]"
    lines = [f"A: {ans.answer}{badge}"]
    for i, c in enumerate(ans.citations, 1):
        lines.append(f"  [{i}] {c.doc}, {cited_page(c)}: \"{c.quote}\"")
    t = ans.timings_ms
    lines.append(f"  ({ans.model or 'no model'}; retrieve {t.get('retrieve', 0):.0f} ms, total {t.get('total', 0):.0f} ms)")
    return "\n".join(lines)


def format_evidence(ev: Evidence) -> str:
    """The verified evidence printed before the model's answer: labelled evidence, never the answer."""
    from desktop_rag.core.domain.page_labels import cited_page

    lines = [f"Evidence ({ev.ms / 1000:.1f} s; exact quotes from the filing, the answer follows):"]
    if ev.citations and not ev.text.startswith(ev.citations[0].quote):
        lines.append(f"  {ev.text}")  # the quoted row's figure with its unit and period
    for i, c in enumerate(ev.citations, 1):
        lines.append(f"  [E{i}] {c.doc}, {cited_page(c)}: \"{c.quote}\"")
    return "\n".join(lines)


def _print_evidence(ev: AnswerEvent) -> None:
    if ev.kind == "evidence" and ev.evidence is not None:
        print(format_evidence(ev.evidence), flush=True)


def cmd_ask(ns: argparse.Namespace) -> int:
    ws = _workspace(ns)
    if not _check_index(ws):
        return 2
    if not ws.library.documents():
        _err("The library is empty: add filings first with `python main.py ingest PATH...`.")
    try:
        ws.load_model(ns.model)
    except (FileNotFoundError, ValueError) as exc:
        _err(f"cannot load the language model: {exc}")
        return 2
    # questions on stdin (-) are read one at a time, each answered before the next is read: a
    # script may wait for an answer before it asks again
    interactive = not ns.question
    questions: Iterable[str] = _prompt_loop() if interactive else _questions(ns.question)
    # An interactive session (or --thread) is one conversation, kept exactly as the window
    # keeps it (core/conversation's session): follow-ups stand alone, are routed, styled and
    # remembered. Without --thread, questions given as arguments or on stdin are each asked alone.
    from desktop_rag.core.conversation.session import ConversationSession, conversation_json
    from desktop_rag.core.index.backends import LibraryUnavailable

    threaded = interactive or ns.thread
    session = ConversationSession(ws.history, ws.memory, ws.library.documents(),
                                  page_texts=ws.library.store.page_texts) if threaded else None
    if session is not None and ns.style:
        session.set_style(ns.style)
    for q in questions:
        if session is not None and interactive and q.startswith(":"):
            _session_command(session, q)
            continue
        # text mode shows the evidence as soon as it is found (seconds before the model's answer);
        # --json prints one object per question, the evidence in it
        on_event = None if ns.json else _print_evidence
        try:
            ans = (session.ask(ws.engine, q, on_event=on_event) if session is not None
                   else ws.engine.ask(q, on_event=on_event))
        except LibraryUnavailable as exc:
            if not interactive:
                raise
            _err(str(exc))  # the server stayed away (a restart is retried by itself): ask again later
            continue
        standalone = ans.standalone_query or q
        if ns.json:
            print(json.dumps({**ans.to_json(), **conversation_json(ans)}, ensure_ascii=False), flush=True)
        else:
            if standalone != q:
                print(f"(searched: {standalone})")
            print(format_answer(ans), flush=True)
            if session is not None:
                # how the message was routed and which attempt was verified (issue #12)
                for note in ans.notes:
                    if note.startswith(("route:", "attempt", "style:")):
                        print(f"  ({note})")
                print()
    ws.close()
    return 0


def _session_command(session: ConversationSession, command: str) -> None:
    """Interactive commands: `:memory` shows what the thread established, `:clear` forgets
    it, `:style NAME` lays out the next answers in that style."""
    from desktop_rag.core.conversation.memory import memory_text
    from desktop_rag.core.conversation.styles import STYLE_NAMES

    word, _, arg = command[1:].strip().partition(" ")
    if word == "memory":
        facts = session.known_facts()
        print(memory_text(facts) if facts else "(nothing established yet)")
    elif word == "clear":
        session.clear_memory()
        print("(memory cleared)")
    elif word == "style" and arg.strip() in STYLE_NAMES:
        session.set_style(arg.strip())
        print(f"(style: {STYLE_NAMES[arg.strip()]})")
    else:
        print("commands: :memory, :clear, :style " + "|".join(STYLE_NAMES))


def _prompt_loop() -> Iterator[str]:
    _err("Ask about your filings (type `exit` to quit; :memory, :clear, :style NAME).")
    while True:
        try:
            q = input("? ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if q.lower() in {"exit", "quit", ":q"}:
            return
        if q:
            yield q


def cmd_docs(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        docs = ws.library.documents()
        if ns.json:
            for d in docs:
                print(json.dumps({"doc_id": d.doc_id, "file": d.file_name, "pages": d.pages, "chunks": d.chunk_count,
                                  **d.meta.to_dict()}))
        else:
            for d in docs:
                m = d.meta
                print(f"{d.doc_id[:12]}  {d.file_name:<28} {m.company[:28]:<28} {m.form_type:<6} {m.period_label():<10} "
                      f"{d.pages:>4} p {d.chunk_count:>5} chunks")
            print(f"{len(docs)} document(s)")
        return 0


def cmd_remove(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        matches = [d for d in ws.library.documents() if d.doc_id.startswith(ns.doc) or d.file_name == ns.doc]
        if len(matches) != 1:
            _err(f"remove: {'no' if not matches else 'more than one'} document matches '{ns.doc}'")
            return 2
        ws.remove(matches[0].doc_id)
        _err(f"removed {matches[0].file_name}")
        return 0


def _one_doc(ws, key: str, command: str):
    matches = ws.documents_matching(key)
    if len(matches) != 1:
        _err(f"{command}: {'no' if not matches else 'more than one'} document matches '{key}'")
        return None
    return matches[0]


def cmd_statements(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        doc = _one_doc(ws, ns.doc, "statements")
        if doc is None:
            return 2
        statements = ws.library.statements(doc.doc_id)
        if ns.json:
            print(json.dumps({"doc": doc.file_name, "statements": [s.to_json() for s in statements]}, ensure_ascii=False))
        else:
            for s in statements:
                pages = ", ".join(str(p) for p in s.pages)
                print(f"{s.title} ({s.kind}; page {pages}; in {s.scale})")
                print("  " + " | ".join(f"{p.label} [{p.end}, {p.months or 'instant'}{'m' if p.months else ''}]" for p in s.periods))
                for r in s.rows:
                    label = f"{r.parent} > {r.label}" if r.parent else r.label
                    cells = " | ".join(c.text for c in r.cells)
                    print(f"  {label[:70]:<70} {cells}")
                print()
            if not statements:
                _err(f"no primary statements found in {doc.file_name}")
        return 0


def cmd_reindex(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        for ev in ws.library.reindex():
            if ev.kind in ("file", "finished"):
                _err(f"[{ev.index}/{ev.total}] {ev.file} {ev.message}".strip())
        return 0


def cmd_models(ns: argparse.Namespace) -> int:
    with _workspace(ns) as ws:
        current = None
        try:
            current = ws.model_path()
        except FileNotFoundError:
            pass
        for p in ws.available_models():
            info = ws.model_info(p)
            print(f"{'*' if p == current else ' '} {p.name:<40} {info.label}")
        print(f"embedder: {ws.embedder.path}")
        return 0


def cmd_finetune(ns: argparse.Namespace) -> int:
    from desktop_rag.core.finetune import finetune_from_feedback

    with _workspace(ns) as ws:
        result = finetune_from_feedback(ws, epochs=ns.epochs, log=_err)
    if result.ok and not ns.no_reindex:
        _err(f"tuned embedder saved to {result.model_dir}; re-indexing the library with it")
        with _workspace(ns) as ws:  # opened again: the settings now name the tuned embedder
            for ev in ws.library.reindex():
                if ev.kind == "finished":
                    _err(ev.message)
    else:
        _err(result.message)
    return 0 if result.ok else 1


def cmd_team_init(ns: argparse.Namespace) -> int:
    """Create the schema, the vector extension and the reader/editor roles of a team library,
    with this desktop's embedder and chunking as its manifest (docs/team-library-setup.md)."""
    from desktop_rag.core.index.backends import PasswordInUrl
    from desktop_rag.core.index.backends.postgres import init_team_library
    from desktop_rag.core.index.embedder import Embedder
    from desktop_rag.core.index.library import library_manifest
    from desktop_rag.paths import data_dir, embedder_cache_dir, models_dir
    from desktop_rag.settings import Settings

    data = data_dir(ns.data_dir)
    settings = Settings.load(data)
    e = settings.embedding
    embedder = Embedder(e.model, models_dir(ns.models_dir), e.batch_size, e.backend, embedder_cache_dir(data))
    try:
        print(init_team_library(ns.url, settings, library_manifest(settings, embedder), admin_url=ns.admin_url,
                                readers=ns.readers, editors=ns.editors, notify=_warn_once))
    except PasswordInUrl:
        raise
    except ValueError as exc:
        _err(f"team init: {exc}")
        return 2
    return 0


def cmd_library(ns: argparse.Namespace) -> int:
    """Copy this computer's library to a team server (push) or the server's to this
    computer (pull), vectors included: nothing is re-embedded."""
    from desktop_rag.core.index.backends.copy import copy_library
    from desktop_rag.core.index.backends.postgres import PostgresStore
    from desktop_rag.core.index.backends.sqlite import IndexStore
    from desktop_rag.paths import data_dir
    from desktop_rag.settings import Settings

    folder = data_dir(ns.data_dir)
    settings = Settings.load(folder)
    server = PostgresStore(ns.url, settings, local_dir=folder / "index")  # remembers where pushed files are
    _warn_once(server.identity_notice)
    local = IndexStore(folder / "index")
    source, target = (local, server) if ns.library_command == "push" else (server, local)
    try:
        report = copy_library(source, target, log=_err)
    except ValueError as exc:
        _err(f"library {ns.library_command}: {exc}")
        return 2
    finally:
        server.close()
        local.close()
    for name, why in report.skipped:
        _err(f"  skipped {name}: {why}")
    where = server.location
    _err(f"{len(report.added)} document(s), {report.chunks} chunks copied "
         f"{'to' if ns.library_command == 'push' else 'from'} {where}; {len(report.skipped)} skipped")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="desktop_rag", description="Offline research assistant for financial filings.")
    p.add_argument("--version", action="version", version=__version__)
    p.add_argument("--data-dir", help="index, settings and history (default: platform user-data dir; env DESKTOP_RAG_HOME)")
    p.add_argument("--models-dir", help="folder with .gguf and embedder models (env DESKTOP_RAG_MODELS)")
    p.add_argument("--library", dest="library_location", default=None, metavar="URL",
                   help="a team library on PostgreSQL (postgresql://user@host:5432/db?sslmode=verify-full; the "
                        "password from PGPASSWORD, ~/.pgpass or a service file); default: the 'Library location' "
                        "setting, else this computer's library in the data dir")
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command")

    s = sub.add_parser("ingest", help="add PDF files or folders to the library")
    s.add_argument("paths", nargs="+")
    s.set_defaults(func=cmd_ingest)

    s = sub.add_parser("search", help="retrieve passages for a question")
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--json", action="store_true")
    s.add_argument("--mode", choices=["hybrid", "dense", "bm25", "exact"], default="hybrid")
    s.add_argument("question", nargs="*")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("ask", help="answer a question with exact quotes")
    s.add_argument("--json", action="store_true")
    s.add_argument("--model", help="GGUF file name in the models folder")
    s.add_argument("--thread", action="store_true",
                   help="ask the questions (one per stdin line) as one conversation, as the interactive ask does")
    s.add_argument("--style", choices=["standard", "concise", "detailed", "bullets", "table"], default="",
                   help="the conversation's answer style (interactive or --thread)")
    s.add_argument("question", nargs="*")
    s.set_defaults(func=cmd_ask)

    s = sub.add_parser("docs", help="list the library")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_docs)
    s = sub.add_parser("remove", help="remove a document (id prefix or file name)")
    s.add_argument("doc")
    s.set_defaults(func=cmd_remove)
    s = sub.add_parser("statements", help="the financial statements extracted from a document")
    s.add_argument("doc", help="document id prefix or file name")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_statements)
    sub.add_parser("reindex", help="rebuild chunks and embeddings from stored text").set_defaults(func=cmd_reindex)
    sub.add_parser("models", help="list GGUF models").set_defaults(func=cmd_models)
    s = sub.add_parser("finetune", help="fine-tune the embedder on thumbs up/down feedback")
    s.add_argument("--epochs", type=int, default=1)
    s.add_argument("--no-reindex", action="store_true", help="only train and select the model")
    s.set_defaults(func=cmd_finetune)

    team = sub.add_parser("team", help="set up a team library on a PostgreSQL server").add_subparsers(
        dest="team_command", required=True)
    s = team.add_parser("init", help="set up (or upgrade) a team library and grant people its roles "
                                     "(docs/team-library-setup.md)")
    s.add_argument("url", help="postgresql://OWNER@host:5432/db?sslmode=verify-full: the library's owner, who runs "
                               "team init (no password in it)")
    s.add_argument("--admin-url", default=None, metavar="URL",
                   help="a superuser's connection string on the same server (postgresql://postgres@host:5432/postgres): "
                        "first creates the database for OWNER, the vector extension and the two roles")
    s.add_argument("--reader", dest="readers", action="append", default=[], metavar="NAME",
                   help="grant the login role NAME the reader role (search, ask); repeatable")
    s.add_argument("--editor", dest="editors", action="append", default=[], metavar="NAME",
                   help="grant the login role NAME the editor role (ingest, remove, edit); repeatable")
    s.set_defaults(func=cmd_team_init)

    lib = sub.add_parser("library", help="copy between this computer's library and a team library").add_subparsers(
        dest="library_command", required=True)
    for name, what in (("push", "copy this computer's library to the team library (no re-embedding)"),
                       ("pull", "copy the team library to this computer, for work away from the network")):
        s = lib.add_parser(name, help=what)
        s.add_argument("url", help="postgresql://user@host:5432/db")
        s.set_defaults(func=cmd_library)

    _add_eval_arguments(sub.add_parser("eval", help="retrieval and answer quality on a labelled dev set"))
    _add_bench_arguments(sub.add_parser("bench", help="speed and memory benchmark"))
    return p


# eval and bench live in desktop_rag.evaluation, imported only when one of them runs: the
# product commands never load measurement code (nor its Unix-only dependencies).


def cmd_eval(ns: argparse.Namespace) -> int:
    if ns.robustness:
        from desktop_rag.evaluation import robustness

        return robustness.run(ns)
    if ns.threads:
        from desktop_rag.evaluation import threads

        return threads.run(ns)
    from desktop_rag.evaluation import eval_run

    return eval_run.run(ns)


def cmd_bench(ns: argparse.Namespace) -> int:
    from desktop_rag.evaluation import bench_run

    return bench_run.run(ns)


def _add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="set", default=None, metavar="SET",
                   help="data set: sec10q, financebench-dev, a blind pool batch kept as a regression set "
                        "(pool_p1, pool_p2, ...: eval/pool_sets.json) or all (default all); each has its own "
                        "cached library in $DESKTOP_RAG_EVAL_CACHE/<set> or <data-dir>/eval/<set>")
    p.add_argument("--limit", type=int, default=0,
                   help="per set, only N answerable (and N/4 must-refuse) questions, spread over the set")
    p.add_argument("--no-answers", action="store_true", help="retrieval only (no language model)")
    p.add_argument("--answers", type=int, default=None,
                   help="per set, run only N answerable questions (spread, plus as many must-refuse in proportion) "
                        "through the full answer pipeline (default: all)")
    p.add_argument("--json", dest="json_path", help="write all results to this JSON file")
    p.add_argument("--failures", action="store_true",
                   help="list failing questions per set with the top pages retrieved")
    p.add_argument("--variants", default=None,
                   help="retrieval variants, comma separated (default hybrid,dense-plain,bm25-plain; 'all' for "
                        "the ablations too; an unknown name lists the choices)")
    p.add_argument("--override", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a setting for this run, e.g. --override retrieval.alpha=0.7 (repeatable)")
    p.add_argument("--no-cells", action="store_true", help="do not score statement cells")
    p.add_argument("--devset", default=None,
                   help="a labelled file of your own (dev-set schema) instead of the named sets")
    p.add_argument("--corpus", default=None,
                   help="folder of the filings for --devset or a single --set (default: the set's own; "
                        "'none' = do not ingest)")
    p.add_argument("--library", default=None, help="library folder to evaluate (one set only; default: the cache)")
    p.add_argument("--allow-mismatch", action="store_true",
                   help="evaluate an index built with other chunking/embedder settings as it is (no re-index)")
    p.add_argument("--threads", action="store_true",
                   help="multi-turn threads (eval/threads.jsonl): follow-up resolution, routing, memory; fast, "
                        "no index nor model unless --threads-answers (--limit = number of threads)")
    p.add_argument("--threads-file", default=None, help="threads file (default eval/threads.jsonl)")
    p.add_argument("--robustness", action="store_true",
                   help="the property test: ordinary words, frames and one-letter slips added to every answerable "
                        "question must not turn it into a refusal nor change a computed figure (no model)")
    p.add_argument("--threads-answers", action="store_true",
                   help="answer the threads with the language model on <data-dir>/eval/threads (retries measured)")
    p.set_defaults(func=cmd_eval)


def _add_bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="CI size: 1 file, sizes 200,1k, few queries")
    p.add_argument("--sizes", default=None, help="synthetic corpus sizes (default 1k,10k,100k; --quick 200,1k)")
    p.add_argument("--corpus", default=None, help="folder of real filings for the ingest benchmark "
                   "(default the sec10q dev-set filings, else the bundled corpus)")
    p.add_argument("--ingest-files", type=int, default=None, help="filings to ingest (default 2; --quick 1)")
    p.add_argument("--queries", type=int, default=None, help="search queries per size (default 50; --quick 10)")
    p.add_argument("--gen-questions", type=int, default=None, help="questions for the generation benchmark (default 2)")
    p.add_argument("--answer-questions", type=int, default=None,
                   help="labelled questions answered as shipped for the answer-time rows (default 35; --quick 3)")
    p.add_argument("--gen-max-tokens", type=int, default=None,
                   help="cap on generated tokens per answer (default: the setting, 160; --quick 24)")
    p.add_argument("--ef-construction", type=int, default=None,
                   help="hnswlib ef_construction of the synthetic indexes (default: the setting)")
    p.add_argument("--devset", default=None, help="questions used as queries (default eval/devset.jsonl)")
    p.add_argument("--recall-library", default=None, metavar="DIR",
                   help="data dir of a real ingested library whose own hnsw graph gets the recall check "
                        "(default: the bench's library)")
    p.add_argument("--skip", default="",
                   help="sections to skip: ingest,search,recall,first,generation,answers,cold,team,memory,window; "
                        "team-live: the team library's live updates only")
    p.add_argument("--ef-sweep", default=None, metavar="LIST",
                   help="ef_search values of the team library's recall sweep (default 40,64,100,200,400; the "
                        "setting's is always measured)")
    p.add_argument("--memory-size", default=None,
                   help="chunks of the on-disk synthetic library the memory section measures the app with "
                        "(default 100k; --quick 200); written once under <data-dir>/bench/ and reused")
    p.add_argument("--library", dest="library_location", default=argparse.SUPPRESS, metavar="URL",
                   help="also measure a team library: an EMPTY PostgreSQL team library (postgresql://...) that the "
                        "bench fills once with the largest synthetic size and reuses on later runs")
    p.add_argument("--json", dest="json_path", help="write the results as JSON")
    p.set_defaults(func=cmd_bench)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if ns.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(ns, "func", None):
        parser.print_help()
        return 2
    from desktop_rag.core.index.backends import (
        LibraryLoginFailed,
        LibraryPermissionDenied,
        LibraryUnavailable,
        PasswordInUrl,
        is_server_location,
    )

    location = getattr(ns, "library_location", None)
    if location and not is_server_location(location):  # not echoed: it may hold a secret
        _err("--library: expected a postgresql:// URL (use --data-dir for a library on this computer)")
        return 2
    try:
        return int(ns.func(ns) or 0)
    except PasswordInUrl as exc:
        _err(f"{'--library' if location else 'The Library location setting (settings.json)'}: {exc}")
        return EXIT_USAGE
    except LibraryLoginFailed as exc:
        _err(str(exc))
        return EXIT_LOGIN_FAILED
    except LibraryUnavailable as exc:
        _err(str(exc))
        return EXIT_UNREACHABLE
    except LibraryPermissionDenied as exc:
        _err(str(exc))
        return EXIT_PERMISSION_DENIED
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
