"""desktop_rag: an offline research assistant for financial filings."""

__version__ = "0.1.0"
APP_NAME = "desktop_rag"
APP_TITLE = "Desktop RAG — Filings Research"
