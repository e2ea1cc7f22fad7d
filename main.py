"""desktop_rag launcher: a command (ingest, search, ask, …) runs the CLI; anything else
(no arguments, or only --data-dir/--models-dir) opens the desktop app."""

import sys

CLI_COMMANDS = {"ingest", "search", "ask", "docs", "remove", "statements", "reindex", "models", "finetune", "eval", "bench", "team", "library"}

if __name__ == "__main__":
    import multiprocessing

    # the window reads PDFs in helper processes; a bundled app starts them through itself
    multiprocessing.freeze_support()
    args = sys.argv[1:]
    if any(a in CLI_COMMANDS for a in args) or any(a in ("-h", "--help", "--version") for a in args):
        from desktop_rag.cli import main
    else:
        from desktop_rag.gui.app import main
    sys.exit(main())
