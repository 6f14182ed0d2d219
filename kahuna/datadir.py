"""Where Kahuna keeps its files on this machine: one directory for the server's database and the
terminal game's saved records, so that one setting moves both."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$KAHUNA_DATA``, else ``$XDG_DATA_HOME/kahuna``, else ``~/.local/share/kahuna``."""
    explicit = os.environ.get("KAHUNA_DATA")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "kahuna"
