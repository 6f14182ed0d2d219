"""Tuning the heuristic's weights by SPSA on game results (``kahuna tune``).

SPSA (simultaneous perturbation stochastic approximation) suits noisy, expensive objectives with
a few parameters: each step perturbs *all* weights at once by ±c (in log space, so a weight keeps
its sign and moves by a factor), plays the two perturbed agents against each other on a few deals
(each deal twice, seats swapped), and moves the weights along the perturbation by the score
difference. Only win/loss results are used, never a hand-made target. The tuned weights are then
measured against the defaults by the arena on *other* seeds (held out), because the tuning games
themselves overfit their deals.

The agent tuned is any greedy or ISMCTS spec (:func:`weighted_agents`): the greedy planner (the
``medium`` level), whose games take milliseconds, by default, or an ISMCTS spec such as ``hard``'s,
whose leaves read the same heuristic through the compiled core's search. ISMCTS also tunes the
squash ``scale`` (the leaf value is the win probability ``1 / (1 + exp(-score / scale))``, so the
scale sets how far a leaf's score moves its value); greedy compares raw scores, so for greedy the
scale stays out of the perturbations, where it would only add noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from kahuna.ai.agents.greedy import GreedyAgent
from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, Weights
from kahuna.ai.base import Agent
from kahuna.ai.eval.match import agent_rng, deal_rng, play_game
from kahuna.ai.spec import SpecError
from kahuna.rules import GameState

ALL_WEIGHTS: tuple[str, ...] = tuple(f.name for f in fields(Weights))
GREEDY_WEIGHTS: tuple[str, ...] = tuple(name for name in ALL_WEIGHTS if name != "scale")
"""The weights that change the greedy planner's play (it never squashes the score)."""

AgentMaker = Callable[[Weights], Agent]
"""A fresh agent playing with the given heuristic weights (one per game, so no state is shared)."""


def greedy_maker(beam: int = 4, depth: int = 5) -> AgentMaker:
    """Greedy planners with these settings (``medium``'s by default)."""
    return lambda weights: GreedyAgent(beam=beam, depth=depth, weights=weights)


def weighted_agents(spec: str) -> tuple[Weights, AgentMaker, tuple[str, ...]]:
    """What tuning needs of an agent spec: its weights (the start), a maker of the same agent with
    other weights, and the names of the weights that change its play.

    Greedy and ISMCTS specs (``fast-ismcts`` too) qualify; a ``weights=`` option sets the start.
    """
    from kahuna.ai.agents.ismcts import IsmctsAgent
    from kahuna.ai.registry import make_agent

    agent = make_agent(spec)
    if isinstance(agent, GreedyAgent):
        greedy = agent
        return (
            greedy.weights,
            lambda w: GreedyAgent(beam=greedy.beam, depth=greedy.depth, noise=greedy.noise, weights=w),
            GREEDY_WEIGHTS,
        )
    if isinstance(agent, IsmctsAgent):
        if agent.workers > 1:
            raise SpecError("kahuna tune plays ISMCTS with one worker (drop workers=)")
        ismcts = agent
        return ismcts.config.weights, lambda w: type(ismcts)(replace(ismcts.config, weights=w)), ALL_WEIGHTS
    raise SpecError(f"kahuna tune tunes greedy and ismcts specs, not {spec!r}")


@dataclass(frozen=True)
class SpsaConfig:
    """Step sizes follow Spall's recommended decay: a_k = a / (k + 1 + A)^0.602, c_k = c / (k + 1)^0.101."""

    steps: int = 100
    deals: int = 4
    """Deals per step, each played twice with the seats swapped."""
    a: float = 0.3
    c: float = 0.25
    """Perturbation, in log-weight units (0.25: each weight ×/÷ 1.28)."""
    big_a: float = 10.0
    seed: int = 0
    names: tuple[str, ...] = GREEDY_WEIGHTS
    """The weights perturbed and moved; the others keep the base's values."""


def _apply(base: Weights, names: tuple[str, ...], theta: list[float]) -> Weights:
    return replace(base, **{n: getattr(base, n) * math.exp(t) for n, t in zip(names, theta, strict=True)})


def match_score(first: Weights, second: Weights, seed: int, deals: int, make: AgentMaker) -> float:
    """``first``'s score rate against ``second`` (agents from ``make``) over ``deals`` seat-swapped deals."""
    total = 0.0
    for deal in range(deals):
        for swapped in (False, True):
            a, b = make(first), make(second)
            agents = (b, a) if swapped else (a, b)
            state = GameState.new(deal_rng(seed, deal))
            rngs = (agent_rng(seed, deal, swapped, 0), agent_rng(seed, deal, swapped, 1))
            winner = play_game(agents, state, rngs).winner
            first_seat = 1 if swapped else 0
            total += 0.5 if winner is None else float(winner == first_seat)
    return total / (2 * deals)


def spsa(
    config: SpsaConfig,
    base: Weights = DEFAULT_WEIGHTS,
    step_done: Callable[[int, Weights], None] | None = None,
    make: AgentMaker | None = None,
) -> Weights:
    """Run SPSA from ``base`` with agents from ``make`` (greedy planners by default);
    ``step_done(k, weights)`` is told after each step (progress, logs)."""
    make = make or greedy_maker()
    rng = random.Random(f"kahuna-spsa:{config.seed}")
    names = config.names
    theta = [0.0] * len(names)
    for k in range(config.steps):
        ak = config.a / (k + 1 + config.big_a) ** 0.602
        ck = config.c / (k + 1) ** 0.101
        delta = [rng.choice((-1.0, 1.0)) for _ in theta]
        plus = _apply(base, names, [t + ck * d for t, d in zip(theta, delta, strict=True)])
        minus = _apply(base, names, [t - ck * d for t, d in zip(theta, delta, strict=True)])
        # Distinct deals at every step (seed space disjoint from the arena's small seeds).
        result = match_score(plus, minus, 1_000_000 + config.seed * 10_000 + k, config.deals, make)
        gradient = (result - 0.5) * 2.0
        theta = [t + ak * gradient / (2.0 * ck * d) for t, d in zip(theta, delta, strict=True)]
        if step_done is not None:
            step_done(k, _apply(base, names, theta))
    return _apply(base, names, theta)
