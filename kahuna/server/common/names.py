"""Player names: shown to the other seat and to spectators, so they must read as what they are.

A name is normalised (NFC) and trimmed; control, format (bidi overrides, zero-width characters),
separator, surrogate, private-use and unassigned characters are refused, since they can reorder
or hide what others read; its length is bounded in graphemes (what a reader counts as
characters) and in code points, and each character carries at most ``MAX_MARKS`` combining marks:
"a" with 300 accents stacked on it would spill over the lines around it (the "Zalgo" text). Four
is more than real writing stacks (a Tibetan stack or a Devanagari conjunct has up to three, a
keycap emoji two; Vietnamese composes into single code points under NFC).
"""

from __future__ import annotations

import unicodedata

import regex

MAX_GRAPHEMES = 40
MAX_CODE_POINTS = 120
MAX_MARKS = 4
"""Combining marks (Unicode categories Mn, Mc, Me) one character (grapheme) may carry."""
REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
_GRAPHEME = regex.compile(r"\X")


def _clean(text: str, what: str, max_graphemes: int, max_code_points: int) -> str:
    """``text`` normalised (NFC) and trimmed; ``ValueError`` names the first refused character, an
    empty text, or one longer than ``max_graphemes`` (``max_code_points``, against combining marks)."""
    clean = unicodedata.normalize("NFC", text).strip()
    for char in clean:
        refused = REFUSED_CATEGORIES.get(unicodedata.category(char))
        if refused is not None:
            raise ValueError(f"{what} may not contain {refused} (U+{ord(char):04X})")
    if not clean:
        raise ValueError(f"{what} needs at least one visible character")
    graphemes = _GRAPHEME.findall(clean)
    for grapheme in graphemes:
        if sum(unicodedata.category(char).startswith("M") for char in grapheme) > MAX_MARKS:
            raise ValueError(f"{what} may not stack more than {MAX_MARKS} combining marks on one character")
    if len(clean) > max_code_points or len(graphemes) > max_graphemes:
        raise ValueError(f"{what} has at most {max_graphemes} characters")
    return clean


def clean_name(text: str) -> str:
    """The name as stored and shown; ``ValueError`` says what is wrong with it."""
    return _clean(text, "a name", MAX_GRAPHEMES, MAX_CODE_POINTS)


MAX_CHAT_GRAPHEMES = 300
MAX_CHAT_CODE_POINTS = 900


def clean_chat(text: str) -> str:
    """A chat line as stored and shown (plain text); ``ValueError`` says what is wrong. The same
    characters as in names are refused (they could reorder or hide what others read)."""
    return _clean(text, "a chat line", MAX_CHAT_GRAPHEMES, MAX_CHAT_CODE_POINTS)
