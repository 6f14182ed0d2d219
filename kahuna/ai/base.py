"""The agent interface: a player view and an RNG in, one legal action out.

An agent never sees a :class:`~kahuna.rules.GameState`: it is handed the acting seat's
:class:`~kahuna.rules.PlayerView` (hidden cards stripped) and a ``random.Random``; the same view
and the same seed must give the same action. A turn is a sequence of such choices (card plays,
then a draw, ``pass`` or ``end``).
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from kahuna.rules import Action, PlayerView, legal_actions_of


class AgentError(RuntimeError):
    """An agent could not produce an action (crashed, timed out, answered nonsense).

    The arena and the server treat it as that agent forfeiting the game; the message says why.
    """


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``choose(view, rng) -> Action``."""

    name: str

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The action to play for ``view.seat``, which must be the seat to move."""
        ...


class RandomAgent:
    """Uniform over the legal actions: a baseline, not a level."""

    name = "random"

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        return legal[rng.randrange(len(legal))]
