"""Where the server keeps its data and how it is configured."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def data_dir() -> Path:
    """``$KAHUNA_DATA``, else ``$XDG_DATA_HOME/kahuna``, else ``~/.local/share/kahuna``."""
    explicit = os.environ.get("KAHUNA_DATA")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "kahuna"


def default_db_url() -> str:
    """The embedded SQLite database under :func:`data_dir` (the directory is created if needed)."""
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'kahuna.db'}"


@dataclass(frozen=True)
class Settings:
    """What ``create_app`` needs; ``kahuna serve`` fills it from the command line."""

    db_url: str
    ai_workers: int = 1
    max_body: int = 64 * 1024
    """Largest HTTP request body accepted (bytes)."""
    max_frame: int = 4 * 1024
    """Largest WebSocket text frame answered normally (bytes); bigger ones get a ``malformed`` error."""
