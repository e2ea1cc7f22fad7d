"""Qt (PySide6) desktop window; background work goes through ``workers``."""
