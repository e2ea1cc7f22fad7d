"""desktop_rag/paths.py: explicit argument > environment variable > default, for every location."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from platformdirs import user_data_dir

from desktop_rag import APP_NAME, paths

REPO = Path(__file__).resolve().parents[2]


def test_data_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_dir = tmp_path / "from-env"
    arg_dir = tmp_path / "from-arg"
    monkeypatch.setenv(paths.ENV_HOME, str(env_dir))
    assert paths.data_dir(arg_dir) == arg_dir.resolve()
    assert paths.data_dir(str(arg_dir)) == arg_dir.resolve()
    assert paths.data_dir() == env_dir.resolve()
    assert paths.data_dir("") == env_dir.resolve()  # empty argument = not given
    monkeypatch.delenv(paths.ENV_HOME)
    default = paths.data_dir()
    assert default == Path(user_data_dir(APP_NAME, appauthor=False))
    assert tmp_path in default.parents  # conftest points the platform dirs into tmp
    for p in (arg_dir, env_dir, default):
        assert p.is_dir(), "data_dir creates the folder"


def test_data_dir_expands_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.data_dir("~/rag-data") == (tmp_path / "rag-data").resolve()


def test_models_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert os.environ.get(paths.ENV_MODELS) is None  # conftest clears it
    assert paths.models_dir() == REPO / "models"
    monkeypatch.setenv(paths.ENV_MODELS, str(tmp_path / "env-models"))
    assert paths.models_dir() == (tmp_path / "env-models").resolve()
    assert paths.models_dir(tmp_path / "arg-models") == (tmp_path / "arg-models").resolve()
    assert not (tmp_path / "env-models").exists(), "models_dir never creates folders"


def test_corpus_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert paths.corpus_dir() == REPO / "corpus"
    monkeypatch.setenv(paths.ENV_CORPUS, str(tmp_path / "c"))
    assert paths.corpus_dir() == (tmp_path / "c").resolve()
    assert paths.corpus_dir(tmp_path / "d") == (tmp_path / "d").resolve()


def test_source_checkout_roots() -> None:
    assert not paths.is_frozen()
    assert paths.app_root() == REPO
    assert paths.resources_dir() == REPO / "resources"


def test_frozen_bundle_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = tmp_path / "_MEI123"
    exe = tmp_path / "dist" / "desktop_rag"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert paths.is_frozen()
    assert paths.app_root() == bundle
    assert paths.resources_dir() == bundle / "resources"
    assert paths.corpus_dir() == bundle / "corpus"
    assert paths.models_dir() == bundle / "models"  # the models shipped inside the bundle
    (exe.parent / "models").mkdir(parents=True)
    assert paths.models_dir() == exe.parent / "models"  # a user's folder next to the executable wins
    assert paths.model_dirs() == [exe.parent / "models", bundle / "models"]  # ... the shipped ones still count
    assert paths.data_dir() != exe.parent / "data"  # the platform folder (DESKTOP_RAG_HOME in tests)
    (exe.parent / paths.PORTABLE_FLAG).write_text("")
    monkeypatch.delenv(paths.ENV_HOME)
    assert paths.data_dir() == exe.parent / "data"  # portable mode: beside the executable, never in the bundle
    monkeypatch.setenv(paths.ENV_MODELS, str(tmp_path / "m"))
    assert paths.models_dir() == (tmp_path / "m").resolve()


def test_set_offline_env_does_not_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    for name in ("HF_HUB_DISABLE_TELEMETRY", "TOKENIZERS_PARALLELISM"):
        monkeypatch.delenv(name, raising=False)
    paths.set_offline_env()
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "0"  # an explicit choice is kept
    assert os.environ["HF_HUB_DISABLE_TELEMETRY"] == "1"
    assert os.environ["TOKENIZERS_PARALLELISM"] == "false"
