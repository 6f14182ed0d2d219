"""The options of an agent spec (``NAME:key=value,key=value``) and the error a bad spec raises.

The bottom of :mod:`kahuna.ai`: every agent factory reads its options with :func:`parse_options`
and refuses bad ones with :class:`SpecError`, and none of them needs the registry for it.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", int, float, bool, str)


class SpecError(ValueError):
    """An agent spec that names no agent or has bad options."""


def parse_options(text: str, allowed: dict[str, type]) -> dict[str, object]:
    """``"iterations=200,seconds=1.5"`` → typed values, checking names against ``allowed``."""
    out: dict[str, object] = {}
    if not text:
        return out
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            raise SpecError(f"bad option {part!r} (options: {names}; write key=value)")
        kind = allowed[key]
        try:
            out[key] = kind(value.strip()) if kind is not bool else value.strip().lower() in ("1", "true", "yes")
        except ValueError:
            raise SpecError(f"option {key} needs a value of type {kind.__name__}, not {value!r}") from None
    return out


def option(options: dict[str, object], key: str, default: T) -> T:
    """A parsed option, or ``default`` when absent (its type is the one declared to :func:`parse_options`)."""
    value = options.get(key, default)
    assert isinstance(value, type(default))
    return value
