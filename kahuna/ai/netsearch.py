"""ISMCTS guided by the policy/value network: the network's agent, and the search of self-play.

The search is the single-observer ISMCTS of :mod:`kahuna.ai.ismcts` (every iteration samples a
world consistent with the agent's view and walks one shared tree among the actions legal in that
world), with the AlphaZero changes: a new node is not played out but judged by the network (the
win probability of the seat to move, from *that seat's* view of the sampled world, so the
network never sees a card its seat could not see there), and children are chosen by PUCT, where
the network's policy is the prior: ``Q + c · P · √N / (1 + n)``. A child not yet visited is
valued at its parent's network value (first-play urgency). The root's view is the agent's own,
identical in every world, so its priors depend on nothing hidden.

The most visited root action is played; self-play also reads the visit counts as the policy
target (:mod:`kahuna.ai.training.selfplay`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from kahuna.ai.features import encode_view
from kahuna.ai.ismcts import tree_actions
from kahuna.ai.net import Network
from kahuna.rules import Action, GameState, PlayerView, action_at, determinize, legal_actions_of, view_of


@dataclass(frozen=True)
class NetSearchConfig:
    iterations: int = 200
    c_puct: float = 1.5


class _Node:
    """Statistics of the action that led here, from the side of the seat that chose it, and, once
    the node has been judged, the network's priors and value for the seat to move here."""

    __slots__ = ("children", "priors", "reward", "value", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.priors: np.ndarray | None = None
        self.value = 0.5


def _judge(node: _Node, state: GameState, net: Network) -> float:
    """Evaluate a new node with the network; returns the mover's win probability."""
    mover = state.to_move
    logits, value = net.evaluate(encode_view(view_of(state, mover)))
    legal = [a.index for a in tree_actions(state)]
    top = float(logits[legal].max())
    exps = np.exp(logits - top)
    node.priors = exps / float(exps[legal].sum())
    node.value = value
    return value


def search(view: PlayerView, net: Network, config: NetSearchConfig, rng: random.Random) -> dict[int, int]:
    """Root visits per action index after ``config.iterations`` iterations."""
    root = _Node()
    c = config.c_puct
    for _ in range(config.iterations):
        state = determinize(view, rng)
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            if state.is_over:
                assert state.outcome is not None
                winner = state.outcome.winner
                result = 0.5 if winner is None else float(winner == 0)
                break
            mover = state.to_move
            if node.priors is None:
                value = _judge(node, state, net)
                result = value if mover == 0 else 1.0 - value
                break
            priors = node.priors
            scale = c * math.sqrt(node.visits + 1)
            first_play = node.value
            best_value = -1.0
            best: Action | None = None
            best_child: _Node | None = None
            for action in tree_actions(state):
                child = node.children.get(action.index)
                if child is None or not child.visits:
                    q = first_play
                    n = 0
                else:
                    q = child.reward / child.visits
                    n = child.visits
                u = q + scale * float(priors[action.index]) / (1 + n)
                if u > best_value:
                    best_value, best, best_child = u, action, child
            assert best is not None
            if best_child is None:
                best_child = node.children[best.index] = _Node()
            node.visits += 1
            state.apply_unchecked(best)
            path.append((best_child, mover))
            node = best_child
        node.visits += 1
        for child, chooser in path:
            child.reward += result if chooser == 0 else 1.0 - result
    visits = {index: child.visits for index, child in root.children.items() if child.visits}
    if not visits and root.priors is not None:
        # One iteration only judges the root: play the network's policy alone.
        priors = root.priors
        legal = [a.index for a in legal_actions_of(view)]
        visits = {max(legal, key=lambda i: (float(priors[i]), -i)): 1}
    return visits


class NetAgent:
    """Plays the most visited action of a network-guided ISMCTS (see the module docstring)."""

    def __init__(self, net: Network, config: NetSearchConfig, name: str = "net") -> None:
        self.net = net
        self.config = config
        self.name = name

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        visits = search(view, self.net, self.config, random.Random(rng.getrandbits(64)))
        best = max(visits, key=lambda i: (visits[i], -i))
        return action_at(best)
