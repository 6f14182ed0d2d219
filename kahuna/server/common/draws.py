"""The server's draws: deals, reshuffles, first seats and the seeds of the AI's choices.

In production every draw comes from ``secrets``: nobody can compute the next deal or seat from the
ones they have seen. The test suite runs ``kahuna serve --test-seed N`` instead (a hidden option,
docs/testing.md), which makes every draw of this process come from one ``random.Random(N)``: the
same requests in the same order get the same deals, seats and AI seeds on every run, so a test
that depends on a draw fails (or passes) every time rather than by chance. The seed is set once,
before the server is built, and never in production.
"""

from __future__ import annotations

import random
import secrets

_seeded: random.Random | None = None


def seed_for_tests(seed: int) -> None:
    """Draw everything from ``random.Random(seed)`` from now on (``kahuna serve --test-seed``)."""
    global _seeded
    _seeded = random.Random(seed)


def seeded() -> bool:
    """Whether the draws are the test suite's (``--test-seed``) rather than unpredictable."""
    return _seeded is not None


def random_seed() -> int:
    """A seed of a deal, a reshuffle or an AI choice: unpredictable, unless seeded for tests."""
    return secrets.randbits(128) if _seeded is None else _seeded.getrandbits(128)


def first_seat() -> int:
    """The seat (0 or 1) of the party drawn to be Black: a fair coin, unless seeded for tests."""
    return secrets.randbelow(2) if _seeded is None else _seeded.randrange(2)
