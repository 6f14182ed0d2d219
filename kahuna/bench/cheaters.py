"""The players of the fair-play trial (docs/fair-play.md): honest AI levels, and cheaters that take
``master``'s move always, one decision in three, or only where their own move would cost most.

A cheater plays its own level (:data:`OWN_LEVEL`) except where it copies ``master``: the kinds
differ only in when they copy. ``critical`` asks master at every decision and copies only where
master values its own move at least :data:`CRITICAL_STAKE` win chance above the cheater's own, a
cheater who keeps the engine for the moments that decide the game.
"""

from __future__ import annotations

import random

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVEL_SPECS
from kahuna.ai.registry import make_agent
from kahuna.ai.review.screening import root_stats
from kahuna.rules import Action, PlayerView, action_at, legal_actions_of

HONEST: tuple[str, ...] = ("easy", "medium", "hard", "expert")
CHEATING: tuple[str, ...] = ("always", "one_in_three", "critical")
KINDS: tuple[str, ...] = HONEST + CHEATING
OWN_LEVEL = "medium"
"""What a cheater plays where it does not copy the engine."""
CRITICAL_STAKE = 0.10
"""Win chance the engine's move must gain over the cheater's own for ``critical`` to copy it."""


class Cheater:
    """Plays ``own`` and copies ``master`` by ``kind``'s rule."""

    def __init__(self, kind: str) -> None:
        assert kind in CHEATING
        self.kind = kind
        self.name = kind
        self.own = make_agent(OWN_LEVEL)
        self.master = make_agent("master")

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        if self.kind == "always":
            return self.master.choose(view, rng)
        if self.kind == "one_in_three":
            copy = rng.random() < 1 / 3
            return self.master.choose(view, rng) if copy else self.own.choose(view, rng)
        own = self.own.choose(view, rng)
        config = self.master.config  # type: ignore[attr-defined]
        stats = root_stats(view, self.master.net, config, rng.getrandbits(64))  # type: ignore[attr-defined]
        best = max(stats, key=lambda i: (stats[i][0], -i))
        mine = stats[own.index][1] if own.index in stats else min(v for _, v in stats.values())
        return action_at(best) if stats[best][1] - mine >= CRITICAL_STAKE else own


def player(kind: str) -> Agent:
    """The agent that plays an account of ``kind``."""
    if kind in HONEST:
        return make_agent(kind)
    if kind in CHEATING:
        return Cheater(kind)
    raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")


__all__ = ["CHEATING", "HONEST", "KINDS", "LEVEL_SPECS", "Cheater", "player"]
