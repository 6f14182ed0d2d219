"""Which cases of a browser test's matrix ``make test`` runs, and which only ``make test-all``.

Several modules check one point at every window size and in every language. ``make test`` runs
each such point at the desktop (1280×800) and the phone (390×844), and in English (the reference
table) and German (the longest words); the laptop size between them (1366×768) and the other
languages carry the marker ``long``, so ``make test-all`` runs them and the two together still run
every case. Where a test takes a size and a language, ``make test`` runs every language once, at
the two sizes in turn. The browser tests are most of ``make test``'s time (docs/testing.md).
"""

from __future__ import annotations

from typing import Any

import pytest

DESKTOP = (1280, 800)
LAPTOP = (1366, 768)
PHONE = (390, 844)
SIZES = [DESKTOP, LAPTOP, PHONE]
LANGUAGES = ["en", "de", "nl", "es", "da"]
QUICK_SIZES = (DESKTOP, PHONE)
QUICK_LANGUAGES = ("en", "de")


def size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _case(values: tuple[Any, ...], case_id: str, quick: bool) -> Any:
    return pytest.param(*values, id=case_id, marks=() if quick else (pytest.mark.long,))


def sizes() -> list[Any]:
    """The three window sizes as ``(width, height)`` cases; the laptop's in make test-all only."""
    return [_case(size, size_id(size), size in QUICK_SIZES) for size in SIZES]


def languages() -> list[Any]:
    """The five languages as cases; English and German in make test, the others in make test-all."""
    return [_case((code,), code, code in QUICK_LANGUAGES) for code in LANGUAGES]


def sizes_and_languages() -> list[Any]:
    """Every ``(width, height, language)``: make test runs each language once, at the desktop and
    the phone in turn (English at the desktop, German on the phone, ...); make test-all the rest."""
    quick = {(QUICK_SIZES[n % len(QUICK_SIZES)], code) for n, code in enumerate(LANGUAGES)}
    return [
        _case((*size, code), f"{size_id(size)}-{code}", (size, code) in quick) for size in SIZES for code in LANGUAGES
    ]
