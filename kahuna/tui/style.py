"""Colour, or none: every piece of the screen is readable from its glyphs alone.

Colour only reinforces what the characters already say (``#`` Black, ``o`` White, ``·`` free),
so ``NO_COLOR``, ``--no-color`` and a non-terminal output simply switch it off.
"""

from __future__ import annotations

import os
from typing import TextIO

RESET = "\x1b[0m"
CODES: dict[str, str] = {
    "black": "\x1b[30;47m",  # black on light grey: visible on dark and light terminals
    "white": "\x1b[1;97;100m",  # bright white on dark grey
    "free": "\x1b[2m",
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "warn": "\x1b[1;33m",
    "title": "\x1b[1;36m",
}

SEAT_STYLES: tuple[str, str] = ("black", "white")
BRIDGE_GLYPHS: tuple[str, str] = ("#", "o")
"""Bridge characters of Black and White; a free line is drawn with ``FREE_GLYPH``."""
FREE_GLYPH = "·"
STONE_GLYPHS: tuple[str, str] = ("●", "○")


def wants_colour(stream: TextIO, no_color_flag: bool) -> bool:
    """Colour only on a terminal, and never when the user or ``NO_COLOR`` says no."""
    if no_color_flag or os.environ.get("NO_COLOR", "") != "":
        return False
    return stream.isatty()


class Style:
    """Wraps text in escape codes when colour is on; otherwise returns it unchanged."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, name: str, text: str) -> str:
        if not self.colour or not text:
            return text
        return CODES[name] + text + RESET

    def seat(self, seat: int, text: str) -> str:
        return self(SEAT_STYLES[seat], text)
