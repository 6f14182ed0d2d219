"""The proof of a puzzle: its best turn holds whatever the hidden cards are.

The solver sees only its own view, so a turn is a solution only if it is best in (nearly) every
world the view allows. The proof samples :attr:`ProofConfig.worlds` determinizations of the
view (:func:`kahuna.rules.determinize`: the opponent's hand, the face-down discards and the deck)
and, in each, searches the position with the opponent's hand *fixed* to that world's (the network
search of ``master``, run by the compiled core as the fair-play screening runs it,
:func:`kahuna.ai.review.screening.root_stats`; only the deck order is still sampled inside).

Per world, an action is *reasonable* when it got at least :attr:`ProofConfig.share` of the root's
visits and its mean value (the mover's win chance) is within :attr:`ProofConfig.margin` of the
most visited action's. Per step of the turn:

* the *accepted* actions are those reasonable in at least :attr:`ProofConfig.quorum` of the worlds;
* the step is *clear* when, in at least :attr:`ProofConfig.agreement` of the worlds, no action
  outside the accepted ones is reasonable (every other action is beaten by the margin).

A puzzle is proved when its first step is clear, accepts at most :attr:`ProofConfig.max_first`
actions out of at least :attr:`ProofConfig.min_legal` legal ones, and every step of every accepted
turn is clear too (the turn's card plays then its draw, decline or ``end``); the accepted turns
are the paths through the accepted actions. The same worlds follow the turn as it is played.
The time per candidate is bounded (:attr:`ProofConfig.seconds`); a proof out of time fails.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass

from kahuna.ai.agents.netsearch import NetSearchConfig
from kahuna.ai.review.screening import RootStats, judge_heuristic, judge_network, root_stats
from kahuna.rules import GameState, PlayerView, action_at, determinize, legal_actions_of, view_of


@dataclass(frozen=True)
class ProofConfig:
    """What a proof spends and how sharp a solution must be."""

    worlds: int = 16
    iterations: int = 3000
    margin: float = 0.10
    share: float = 0.03
    quorum: float = 0.25
    agreement: float = 0.9
    max_first: int = 2
    min_legal: int = 3
    max_turns: int = 6
    """At most this many accepted turns (more: the puzzle is not sharp enough and fails)."""
    seconds: float = 20.0

    def search(self) -> NetSearchConfig:
        return NetSearchConfig(
            iterations=self.iterations, c_puct=1.0, mix=0.0, heuristic=judge_heuristic(), stop=False, share=0.0
        )


class OutOfTime(Exception):
    """A proof ran past its time: the candidate is dropped."""


@dataclass(frozen=True)
class Step:
    """One step of the turn as the worlds judged it."""

    accepted: tuple[int, ...]
    """Accepted action indices, the best (highest mean over the worlds) first."""
    clear: bool
    agreement: float
    best_value: float
    runner_up: float
    """The best mean over the worlds among the actions not accepted (0 when none was visited)."""


@dataclass(frozen=True)
class Proof:
    """A proved puzzle's accepted turns (the best first) and its figures."""

    turns: tuple[tuple[str, ...], ...]
    first: Step
    worlds: int
    seconds: float


def world_view(view: PlayerView, world: GameState) -> PlayerView:
    """``view`` with the opponent's hand known as ``world`` deals it (what the search then fixes)."""
    assert view.seat is not None
    other = 1 - view.seat
    known = [list(view.known[0]), list(view.known[1])]
    known[other] = list(world.hands[other])
    return dataclasses.replace(view, known=(tuple(known[0]), tuple(known[1])))


def judge_step(view: PlayerView, worlds: list[GameState], config: ProofConfig, seed: int) -> Step:
    """Search ``view`` once per world and class its actions (see the module's docstring)."""
    search = config.search()
    stats: list[RootStats] = [
        root_stats(world_view(view, world), judge_network(), search, seed + i) for i, world in enumerate(worlds)
    ]
    counts: dict[int, int] = {}
    sums: dict[int, float] = {}
    reasonable: list[set[int]] = []
    for found in stats:
        total = sum(n for n, _ in found.values()) or 1
        first = max(found, key=lambda i: (found[i][0], -i))
        top = found[first][1]
        good = {i for i, (n, v) in found.items() if n >= config.share * total and v >= top - config.margin}
        reasonable.append(good)
        for i in good:
            counts[i] = counts.get(i, 0) + 1
        for i, (_, v) in found.items():
            sums[i] = sums.get(i, 0.0) + v
    n = len(worlds)
    mean = {i: s / n for i, s in sums.items()}
    accepted = sorted((i for i, c in counts.items() if c >= config.quorum * n), key=lambda i: (-mean[i], i))
    agree = sum(good <= set(accepted) for good in reasonable) / n
    others = [mean[i] for i in mean if i not in accepted]
    return Step(
        accepted=tuple(accepted),
        clear=bool(accepted) and agree >= config.agreement,
        agreement=agree,
        best_value=mean[accepted[0]] if accepted else 0.0,
        runner_up=max(others) if others else 0.0,
    )


def prove(view: PlayerView, seed: int, config: ProofConfig | None = None) -> Proof | None:
    """The accepted turns from ``view`` (the mover's own), or ``None`` when it is no puzzle."""
    config = config or ProofConfig()
    assert view.seat is not None and view.seat == view.to_move
    if len(legal_actions_of(view)) < config.min_legal:
        return None
    start = time.perf_counter()
    rng = random.Random(seed)
    worlds = [determinize(view, rng) for _ in range(config.worlds)]
    try:
        first = judge_step(view, worlds, config, seed)
        if not first.clear or len(first.accepted) > config.max_first:
            return None
        turns = _turns(view, worlds, first, config, seed, start)
    except OutOfTime:
        return None
    if not turns:
        return None
    return Proof(tuple(turns), first, config.worlds, time.perf_counter() - start)


def _turns(
    view: PlayerView, worlds: list[GameState], step: Step, config: ProofConfig, seed: int, start: float
) -> list[tuple[str, ...]] | None:
    """Every accepted turn from a clear ``step`` (``None`` if a later step is unclear or too many)."""
    out: list[tuple[str, ...]] = []
    for index in step.accepted:
        action = action_at(index)
        if action.ends_turn:
            out.append((action.token,))
        else:
            if time.perf_counter() - start > config.seconds:
                raise OutOfTime
            after = [w.copy() for w in worlds]
            for w in after:
                w.apply_unchecked(action)  # legal in every world: legality depends on the view alone
            next_view = view_of(after[0], view.seat)
            next_step = judge_step(next_view, after, config, seed + 7919 * (len(out) + 1))
            if not next_step.clear:
                return None
            rest = _turns(next_view, after, next_step, config, seed + 104729, start)
            if rest is None:
                return None
            out.extend((action.token, *tail) for tail in rest)
        if len(out) > config.max_turns:
            return None
    return out
