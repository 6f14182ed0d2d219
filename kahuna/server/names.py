"""Player names: shown to the other seat and to spectators, so they must read as what they are.

A name is normalised (NFC) and trimmed; control, format (bidi overrides, zero-width characters),
separator, surrogate, private-use and unassigned characters are refused, since they can reorder
or hide what others read; its length is bounded in graphemes (what a reader counts as
characters) and, against stacks of combining marks, in code points.
"""

from __future__ import annotations

import unicodedata

import regex

MAX_GRAPHEMES = 40
MAX_CODE_POINTS = 120
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


def clean_name(text: str) -> str:
    """The name as stored and shown; ``ValueError`` says what is wrong with it."""
    name = unicodedata.normalize("NFC", text).strip()
    for char in name:
        what = REFUSED_CATEGORIES.get(unicodedata.category(char))
        if what is not None:
            raise ValueError(f"a name may not contain {what} (U+{ord(char):04X})")
    if not name:
        raise ValueError("a name needs at least one visible character")
    if len(name) > MAX_CODE_POINTS or len(_GRAPHEME.findall(name)) > MAX_GRAPHEMES:
        raise ValueError(f"a name has at most {MAX_GRAPHEMES} characters")
    return name


MAX_CHAT_GRAPHEMES = 300
MAX_CHAT_CODE_POINTS = 900


def clean_chat(text: str) -> str:
    """A chat line as stored and shown (plain text, one line); ``ValueError`` says what is wrong.

    The same characters as in names are refused (they could reorder or hide what others read);
    at most :data:`MAX_CHAT_GRAPHEMES` characters.
    """
    line = unicodedata.normalize("NFC", text).strip()
    for char in line:
        what = REFUSED_CATEGORIES.get(unicodedata.category(char))
        if what is not None:
            raise ValueError(f"a chat line may not contain {what} (U+{ord(char):04X})")
    if not line:
        raise ValueError("a chat line needs at least one visible character")
    if len(line) > MAX_CHAT_CODE_POINTS or len(_GRAPHEME.findall(line)) > MAX_CHAT_GRAPHEMES:
        raise ValueError(f"a chat line has at most {MAX_CHAT_GRAPHEMES} characters")
    return line
