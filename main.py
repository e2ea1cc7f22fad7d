"""desktop_rag launcher: no arguments opens the desktop app; a command runs the CLI."""

import sys

if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-psn"):  # -psn: macOS Finder launch
        from desktop_rag.cli import main
    else:
        from desktop_rag.gui.app import main
    sys.exit(main())
