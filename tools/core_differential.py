"""The differential test of the compiled core against the referee: random games through both.

Every game is dealt from ``random.Random(2 * seed)`` (each core then draws its reshuffles from its own
copy of that generator) and played by uniformly random choices; before
every action both cores must list the same legal actions in the same order, and after it both
must hold the same state (every field of :mod:`kahuna.fast.layout`, hidden cards included). The
referee is the truth: a difference is a bug of the compiled core.

``python tools/core_differential.py --games 100000`` is the long run (docs/engine.md); tests/fast
plays the same games and also takes its positions (:func:`running_states`) from here.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kahuna.fast.layout import fields_of
from kahuna.fast.state import FastState
from kahuna.rules import GameState, Variant

VARIANTS: tuple[tuple[str, ...], ...] = ((), ("no_build_at_enemy_stone",), ("replace_on_remove",),
                                         ("no_build_at_enemy_stone", "replace_on_remove"))  # fmt: skip
"""Every combination of the optional rules."""


def running_states(count: int, seed: int) -> list[GameState]:
    """``count`` positions of unfinished games, each reached by uniformly random choices after a
    random number of actions, in every variant in turn: what the search twin tests (tests/fast)
    compare the compiled searches on, early, late and in the final turns."""
    states: list[GameState] = []
    rng = random.Random(seed)
    game = 0
    while len(states) < count:
        state = GameState.new(random.Random(seed + game), Variant.from_names(list(VARIANTS[game % 4])))
        stop = rng.randrange(0, 260)
        steps = 0
        while not state.is_over and steps < stop:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            steps += 1
        if not state.is_over:
            states.append(state)
        game += 1
    return states


@dataclass
class Tally:
    """What a differential run compared."""

    games: int = 0
    actions: int = 0
    by_variant: dict[str, int] = field(default_factory=dict)


class Mismatch(AssertionError):
    """The compiled core and the referee disagree (the message says where)."""


def play_both(
    seed: int, variant: Variant, tally: Tally, check: Callable[[GameState, FastState], None] | None = None
) -> None:
    """One random game through both cores, compared before and after every action; ``check`` is
    called on both before every action too (tests compare more there)."""
    deal_rng = random.Random(2 * seed)
    rng = random.Random(2 * seed + 1)  # the choices
    ref = GameState.new(deal_rng, variant)
    fast = FastState.from_state(ref)
    fast.rng = random.Random()
    fast.rng.setstate(deal_rng.getstate())  # the same reshuffles, each core drawing its own
    step = 0
    while True:
        legal = ref.legal_actions()
        fast_legal = fast.legal_indices()
        if bytes(a.index for a in legal) != fast_legal:
            raise Mismatch(f"seed {seed} {variant.names} step {step}: legal actions differ")
        if check is not None:
            check(ref, fast)
        if not legal:
            break
        action = legal[rng.randrange(len(legal))]
        ref.apply(action)
        fast.apply(action)
        if fields_of(ref) != fast.fields():
            raise Mismatch(f"seed {seed} {variant.names} step {step}: state differs after {action.token}")
        step += 1
    tally.games += 1
    tally.actions += step
    name = "+".join(variant.names) or "standard"
    tally.by_variant[name] = tally.by_variant.get(name, 0) + 1


def run(games: int, seed: int = 0) -> Tally:
    """``games`` games spread evenly over the variants."""
    tally = Tally()
    for game in range(games):
        variant = Variant.from_names(list(VARIANTS[game % len(VARIANTS)]))
        play_both(seed * 1_000_003 + game, variant, tally)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/core_differential.py",
        description="Play random games through the referee and the compiled core and compare them "
        "after every action (all variants in turn).",
    )
    parser.add_argument("--games", type=int, default=100_000, help="number of games (default 100000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        tally = run(args.games, args.seed)
    except Mismatch as exc:
        print(f"MISMATCH: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "games": tally.games,
                "actions": tally.actions,
                "by_variant": tally.by_variant,
                "seconds": round(seconds, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
