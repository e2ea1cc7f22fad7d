"""desktop_rag/settings.py: defaults, JSON round trip, clamping, unknown keys, damaged files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from desktop_rag.settings import Settings, write_text_atomic


def test_defaults_are_within_their_documented_bounds() -> None:
    s = Settings()
    for group in dataclasses.fields(s):
        section = getattr(s, group.name)
        for f in dataclasses.fields(section):
            assert f.metadata.get("doc"), f"{group.name}.{f.name} has no documentation"
            value = getattr(section, f.name)
            lo, hi = f.metadata.get("min"), f.metadata.get("max")
            if lo is not None:
                assert value >= lo, f.name
            if hi is not None:
                assert value <= hi, f.name


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert Settings.load(tmp_path) == Settings()


def test_save_load_round_trip(tmp_path: Path) -> None:
    s = Settings()
    s.chunking.words_per_chunk = 120
    s.chunking.detect_tables = False
    s.retrieval.alpha = 0.25
    s.generation.model_file = "other.gguf"
    s.save(tmp_path)
    assert json.loads((tmp_path / "settings.json").read_text())["retrieval"]["alpha"] == 0.25
    assert Settings.load(tmp_path) == s
    assert not list(tmp_path.glob(".*.tmp")), "atomic write leaves no temp file"


def test_values_are_clamped_to_bounds(tmp_path: Path) -> None:
    data = {"chunking": {"words_per_chunk": 5, "overlap_words": 10_000},
            "retrieval": {"alpha": 3.5, "mmr_lambda": -1, "top_k": 0},
            "generation": {"max_tokens": 1_000_000}}
    (tmp_path / "settings.json").write_text(json.dumps(data))
    s = Settings.load(tmp_path)
    assert s.chunking.words_per_chunk == 40
    assert s.chunking.overlap_words == 500
    assert s.retrieval.alpha == 1.0 and isinstance(s.retrieval.alpha, float)
    assert s.retrieval.mmr_lambda == 0.0
    assert s.retrieval.top_k == 1
    assert s.generation.max_tokens == 2048


def test_unknown_keys_ignored_and_missing_keys_default(tmp_path: Path) -> None:
    data = {"chunking": {"words_per_chunk": 150, "no_such_knob": 1}, "no_such_group": {"x": 1}}
    (tmp_path / "settings.json").write_text(json.dumps(data))
    s = Settings.load(tmp_path)
    assert s.chunking.words_per_chunk == 150
    assert not hasattr(s.chunking, "no_such_knob")
    assert s.chunking.overlap_words == Settings().chunking.overlap_words
    assert s.retrieval == Settings().retrieval


def test_wrong_types_keep_the_default(tmp_path: Path) -> None:
    data = {"retrieval": {"alpha": "not a number", "top_k": None, "candidates": "80"},
            "chunking": {"words_per_chunk": 99.7}}
    (tmp_path / "settings.json").write_text(json.dumps(data))
    s = Settings.load(tmp_path)
    assert s.retrieval.alpha == Settings().retrieval.alpha
    assert s.retrieval.top_k == Settings().retrieval.top_k
    assert s.retrieval.candidates == 80  # a numeric string is converted
    assert s.chunking.words_per_chunk == 99


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "",
        "\x00\x01binary",
        "[]",  # valid JSON, wrong shape
        "42",
        "null",
        '{"chunking": 5}',  # a group that is not an object
        '{"retrieval": ["alpha", 1]}',
    ],
)
def test_damaged_file_gives_defaults(tmp_path: Path, content: str) -> None:
    (tmp_path / "settings.json").write_text(content)
    assert Settings.load(tmp_path) == Settings()


def test_chunking_signature_tracks_chunking_knobs() -> None:
    a, b = Settings(), Settings()
    assert a.chunking.signature() == b.chunking.signature()
    b.chunking.overlap_words = 10
    assert a.chunking.signature() != b.chunking.signature()
    b.retrieval.alpha = 0.9  # not a chunking knob
    assert Settings().chunking.signature() == Settings().chunking.signature()


def test_write_text_atomic_creates_parents_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "f.json"
    write_text_atomic(target, "one")
    write_text_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


# a team library's connection string: every way a password can ride in one
SECRET_URLS = [
    ("postgresql://bob:s3cr3t@db.firm.local:5432/research", "postgresql://bob@db.firm.local:5432/research"),
    ("postgresql://bob@db/research?sslmode=disable&password=s3cr3t", "postgresql://bob@db/research?sslmode=disable"),
    ("postgresql://bob@db/research?PassWord=s3cr3t&sslmode=verify-full",
     "postgresql://bob@db/research?sslmode=verify-full"),
    ("postgres://bob@db/research?%70assword=s3cr3t", "postgres://bob@db/research"),
    ("postgresql://bob@db/research?sslcert=/c.crt&sslkey=/c.key&SSLPASSWORD=s3cr3t",
     "postgresql://bob@db/research?sslcert=/c.crt&sslkey=/c.key"),
    ("postgresql://:s3cr3t@db/research", "postgresql://db/research"),
    ("postgresql://bob:s3cr3t@h1:5432,h2:5433/research?password=s3cr3t", "postgresql://bob@h1:5432,h2:5433/research"),
    ("host=db dbname=research user=bob password='s3 cr3t'", "host=db dbname=research user=bob"),
]


@pytest.mark.parametrize(("url", "clean"), SECRET_URLS)
def test_every_password_in_a_library_url_is_found_and_taken_out(url: str, clean: str) -> None:
    from desktop_rag.settings import url_secrets, without_secrets

    found = url_secrets(url)
    assert found and not any("s3" in f for f in found)  # named, never repeated
    assert without_secrets(url) == clean
    assert url_secrets(clean) == []


def test_urls_without_a_secret_are_left_as_written() -> None:
    from desktop_rag.settings import url_secrets, without_secrets

    for url in ("postgresql://bob@db:5432/research?sslmode=verify-full&sslrootcert=system",
                "postgresql://bob:@db/research", "postgresql://?service=research", "",
                "postgresql://bob@db/research?passfile=/home/bob/.pgpass"):
        assert url_secrets(url) == [] and without_secrets(url) == url


def test_a_password_never_reaches_the_settings_file(tmp_path: Path) -> None:
    """Should one get into the settings (a hand-edited file), saving writes the URL without it."""
    s = Settings()
    s.library.location = "postgresql://bob@db/research?sslmode=verify-full&Password=s3cr3t"
    s.save(tmp_path)
    text = (tmp_path / "settings.json").read_text()
    assert "s3cr3t" not in text and "assword" not in text
    assert Settings.load(tmp_path).library.location == "postgresql://bob@db/research?sslmode=verify-full"
