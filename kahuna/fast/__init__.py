"""The optional compiled core: Kahuna's rules and the ISMCTS inner loop in C, for speed.

``kahuna.fast._core`` is a C extension built by ``pip install`` when a compiler is present
(``setup.py``, ``optional=True``); without it everything runs on the pure-Python referee as
before. The Python referee (:mod:`kahuna.rules`) stays the single source of truth for everything a
player sees; the compiled core serves search, benchmarks, replays on request and research
environments, and ``tests/fast`` proves it equal to the referee (docs/engine.md).

Which core is used is chosen by ``KAHUNA_CORE``: ``python`` (never the extension), ``fast``
(the extension, an error if it is missing) or unset/``auto`` (the extension when it is built).
"""

from __future__ import annotations

import os
from types import ModuleType

from kahuna.rules.board import CONTROL, DEGREE, LINES

CORES = ("python", "fast")


class CoreUnavailableError(RuntimeError):
    """``KAHUNA_CORE=fast`` (or ``--core fast``) was asked for but the extension is not built."""


def _load() -> ModuleType | None:
    try:
        from kahuna.fast import _core  # type: ignore[attr-defined]
    except ImportError:
        return None
    _core.configure([end for line in LINES for end in line], list(CONTROL), list(DEGREE))
    return _core  # type: ignore[no-any-return]


_CORE = _load()


def available() -> bool:
    """Whether the compiled core is built and importable."""
    return _CORE is not None


def core_module() -> ModuleType:
    """The compiled module; :class:`CoreUnavailableError` when it is not built."""
    if _CORE is None:
        raise CoreUnavailableError(
            "the compiled core (kahuna.fast._core) is not built: install a C compiler and run "
            "pip install -e . again, or use the python core"
        )
    return _CORE


def selected_core(requested: str | None = None) -> str:
    """``"python"`` or ``"fast"``: ``requested`` (a --core option) or else ``KAHUNA_CORE``.

    ``auto`` or nothing picks the fast core when it is built; asking for ``fast`` without the
    extension raises :class:`CoreUnavailableError`; an unknown name raises ``ValueError``.
    """
    name = (requested or os.environ.get("KAHUNA_CORE", "") or "auto").strip().lower()
    if name == "auto":
        return "fast" if available() else "python"
    if name not in CORES:
        raise ValueError(f"unknown core {name!r} (cores: python, fast, auto)")
    if name == "fast":
        core_module()
    return name


__all__ = ["CORES", "CoreUnavailableError", "available", "core_module", "selected_core"]
