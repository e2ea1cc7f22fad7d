# The two commands of the README. Both set everything up on a fresh machine first.
#   make run    install (once), then open the desktop app on the bundled corpus
#   make test   install (once, with test tools), lint (ruff, import contracts, mypy), then the whole test suite
# Also: make test-slow (only the end-to-end/slow tests), make bundle (one-folder app in dist/ with
# PyInstaller; not part of make test or CI), make bundle-test (runs that bundle headless and offscreen).
PY := .venv/bin/python

.PHONY: run test lint setup setup-dev bench eval test-slow bundle bundle-test

setup:
	bash tools/bootstrap.sh

setup-dev:
	bash tools/bootstrap.sh --dev

run: setup
	$(PY) main.py

test: lint
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

# Style (ruff), the layering contracts (import-linter, [tool.importlinter] in pyproject.toml)
# and types (mypy, [tool.mypy]). A few seconds each once their caches are warm.
lint: setup-dev
	$(PY) -m ruff check desktop_rag tests main.py
	PYTHONPATH=. .venv/bin/lint-imports
	$(PY) -m mypy

eval: setup
	$(PY) main.py eval

bench: setup
	$(PY) main.py bench

test-slow: setup-dev
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -m slow tests/e2e

# One-folder bundle in dist/desktop_rag-<version>/ (gitignored). Packs a portable llama.cpp build
# (GGML_NATIVE=OFF, built once into .cache/bundle-site, put first on PyInstaller's path), not the
# native one of .venv that make run uses: the bundle runs on any AVX2 machine wherever it was built
# (bundle-test fails if it finds AVX-512/VNNI: see pyinstaller.spec).
bundle:
	bash tools/bootstrap.sh --bundle
	$(PY) -m pip install -q "pyinstaller==6.22.3"
	PYTHONPATH=$(CURDIR)/.cache/bundle-site $(PY) -m PyInstaller --noconfirm pyinstaller.spec
	@du -sh dist/*/

bundle-test:
	$(PY) tools/bundle_test.py
