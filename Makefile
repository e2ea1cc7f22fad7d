# The two commands of the README. Both set everything up on a fresh machine first.
#   make run    install (once), then open the desktop app on the bundled corpus
#   make test   install (once, with test tools), then run the whole test suite
PY := .venv/bin/python

.PHONY: run test lint setup setup-dev bench eval

setup:
	bash tools/bootstrap.sh

setup-dev:
	bash tools/bootstrap.sh --dev

run: setup
	$(PY) main.py

test: setup-dev
	$(PY) -m ruff check desktop_rag tests main.py
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

lint: setup-dev
	$(PY) -m ruff check desktop_rag tests main.py

eval: setup
	$(PY) main.py eval

bench: setup
	$(PY) main.py bench
