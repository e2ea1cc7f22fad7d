"""The headless core: ingest, index, retrieve, generate, memory. Never imports Qt."""
