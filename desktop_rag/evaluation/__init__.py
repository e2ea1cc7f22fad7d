"""Measurement of the product, kept out of the product core: ``main.py eval`` (quality on
labelled data sets) and ``main.py bench`` (speed and memory). ``desktop_rag.core`` never
imports this package; the CLI imports it only when one of those commands runs."""
