"""Every location the app reads or writes, resolved in one place.

Precedence for each location: explicit argument > environment variable > default.
Defaults are next to the code in a source checkout and next to the executable in a
PyInstaller bundle (read-only resources come from the bundle's ``_MEIPASS``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

from desktop_rag import APP_NAME
from desktop_rag.settings import write_text_atomic

# The default models' names in the models folder (made at set-up by ``desktop_rag.models_setup``).
DEFAULT_GGUF = "gemma-3-270m-q4_k_m.gguf"
DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"
# The static embedder distilled from DEFAULT_EMBEDDER at set-up (256 dimensions, ~15 MB).
STATIC_EMBEDDER = "all-MiniLM-L6-v2-static256"
ENV_HOME = "DESKTOP_RAG_HOME"  # data dir: index, settings, history, logs
ENV_MODELS = "DESKTOP_RAG_MODELS"  # folder scanned for .gguf files
ENV_CORPUS = "DESKTOP_RAG_CORPUS"  # bundled default corpus ingested on first run


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def app_root() -> Path:
    """Folder holding models/, corpus/ and resources/ (the checkout or the bundle)."""
    if is_frozen():
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    return Path(__file__).resolve().parent.parent


def _pick(arg: str | os.PathLike[str] | None, env: str, default: Path) -> Path:
    if arg:
        return Path(arg).expanduser().resolve()
    if os.environ.get(env):
        return Path(os.environ[env]).expanduser().resolve()
    return default


PORTABLE_FLAG = "portable"  # a file of this name beside a bundle's executable: portable mode


def portable_data_dir() -> Path | None:
    """``data/`` beside the executable of a bundle in portable mode (run from a USB stick,
    nothing written to the user's profile); None otherwise. Never inside the bundle itself."""
    if is_frozen():
        exe_dir = Path(sys.executable).resolve().parent
        if (exe_dir / PORTABLE_FLAG).exists():
            return exe_dir / "data"
    return None


def data_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    """User data: the library index, settings, conversations, logs."""
    path = _pick(arg, ENV_HOME, portable_data_dir() or Path(user_data_dir(APP_NAME, appauthor=False)))
    path.mkdir(parents=True, exist_ok=True)
    return path


def embedder_cache_dir(data: Path) -> Path:
    """Where files derived from a model (the embedder's int8 ONNX graph) are made on first
    use when the models folder holds none: inside the data dir, which the app can always
    write (a bundle's models/ may be read-only)."""
    return data / "cache"


def models_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    """GGUF files and the embedder. In a bundle, a ``models/`` folder next to the executable
    (where users drop extra GGUFs) wins over the models shipped inside the bundle."""
    default = app_root() / "models"
    if is_frozen() and (Path(sys.executable).parent / "models").is_dir():
        default = Path(sys.executable).parent / "models"
    return _pick(arg, ENV_MODELS, default)


def model_dirs(arg: str | os.PathLike[str] | None = None) -> list[Path]:
    """Folders searched for models, first match wins: the chosen/user folder, then the models
    shipped with the app (so a user's extra GGUF never hides the bundled embedder)."""
    chosen, shipped = models_dir(arg), app_root() / "models"
    return [chosen] if chosen == shipped else [chosen, shipped]


def corpus_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    return _pick(arg, ENV_CORPUS, app_root() / "corpus")


def resources_dir() -> Path:
    return app_root() / "resources"


def set_offline_env() -> None:
    """Never let Hugging Face libraries reach the network: everything is local."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


# -- the data folder chosen in Settings -----------------------------------------------------
LOCATION_FILE = "location.json"  # in the user's config folder: a data folder chosen in Settings


def location_file() -> Path:
    return Path(user_config_dir(APP_NAME, appauthor=False)) / LOCATION_FILE


def saved_data_dir() -> str | None:
    """The data folder chosen in Settings, if any (used when neither --data-dir nor
    DESKTOP_RAG_HOME says otherwise)."""
    try:
        value = json.loads(location_file().read_text("utf-8")).get("data_dir")
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value else None


def save_data_dir(folder: Path) -> None:
    write_text_atomic(location_file(), json.dumps({"data_dir": str(folder)}, indent=2))


def choose_data_dir(arg: str | None) -> str | None:
    """--data-dir > DESKTOP_RAG_HOME > the folder chosen in Settings > the platform default."""
    if arg or os.environ.get(ENV_HOME):
        return arg
    return saved_data_dir()
