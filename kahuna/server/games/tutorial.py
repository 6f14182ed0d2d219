"""The tutorial's game: a hot-seat game on a fixed deal, so that its script always works.

The browser holds both seats: it plays White's scripted moves and lets the player (Black) play
only the move each lesson teaches (``kahuna/web/js/tutorial.js``, which holds the script). The
deal is chosen so that the script builds, draws, fills the hand to the 5-card limit, claims with
a sweep that sets off a cascade and removes with two cards; ``tests/web/test_web_tutorial.py``
replays the script on this deal with the referee.
"""

from __future__ import annotations

TUTORIAL_DEAL = "AKEHDLDGIJBHCAEFGKLIJBCF"
"""Black's hand ALOA KAHU ELAI, White's HUNA DUDA LALE, the display DUDA GOLA IFFI, then the deck."""

TUTOR_NAME = "Tutor"
"""The name of White, whose moves the tutorial plays."""
