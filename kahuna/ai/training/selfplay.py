"""Self-play games as training data, and the replay buffer that keeps the most recent of them.

A searching agent plays both seats. At every decision with more than one legal action it records
the observation of the mover's own view, the legal-action mask, and the root visit counts of its
search normalised to a distribution (the policy target); when the game ends each position gets
the result from its mover's side (1 a win, 0 a loss, ½ a draw: the value target). For variety
the first ``explore`` decisions of a game are drawn in proportion to the visits, later ones are
the most visited action.

Two searches make data: the network's own (:func:`kahuna.ai.agents.netsearch.search`) and, to start
generation 0 from something better than noise, the heuristic ISMCTS (compiled when built) as a
teacher. Every game is fixed by its seed, so a resumed run makes the same games.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kahuna.ai.agents.fast_ismcts import ismcts_agent
from kahuna.ai.agents.features import OBS_SIZE, encode_view
from kahuna.ai.agents.ismcts import SearchConfig
from kahuna.ai.agents.net import Network
from kahuna.ai.agents.netsearch import NetSearchConfig
from kahuna.ai.agents.netsearch import search as net_search
from kahuna.rules import NUM_ACTIONS, GameState, PlayerView, action_at, legal_actions_of, view_of

Search = Callable[[PlayerView, random.Random], dict[int, int]]
"""A search: root visits per action index for a view (drawing its randomness from the RNG)."""


@dataclass
class Positions:
    """Training positions as arrays (one row each)."""

    obs: npt.NDArray[np.float32]
    mask: npt.NDArray[np.uint8]
    policy: npt.NDArray[np.float32]
    value: npt.NDArray[np.float32]

    @classmethod
    def empty(cls) -> Positions:
        return cls(
            np.zeros((0, OBS_SIZE), np.float32),
            np.zeros((0, NUM_ACTIONS), np.uint8),
            np.zeros((0, NUM_ACTIONS), np.float32),
            np.zeros(0, np.float32),
        )

    def __len__(self) -> int:
        return len(self.value)

    def save(self, path: Path) -> None:
        """Write atomically (a crash leaves the old file or the new one, never half of one)."""
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, obs=self.obs, mask=self.mask, policy=self.policy, value=self.value)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["obs"], data["mask"], data["policy"], data["value"])

    @classmethod
    def concat(cls, parts: list[Positions]) -> Positions:
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
        )


def teacher_search(iterations: int) -> Search:
    """The heuristic ISMCTS (the ``expert`` search at 1,500 iterations), compiled when built."""
    config = SearchConfig(iterations=iterations)
    run = ismcts_agent(config, 1, "teacher").search_function

    def search(view: PlayerView, rng: random.Random) -> dict[int, int]:
        return run(view, config, rng.getrandbits(64))[0]

    return search


def network_search(net: Network, config: NetSearchConfig) -> Search:
    """The network-guided ISMCTS (:mod:`kahuna.ai.agents.netsearch`) with ``net``."""

    def search(view: PlayerView, rng: random.Random) -> dict[int, int]:
        return net_search(view, net, config, random.Random(rng.getrandbits(64)))

    return search


def play(search: Search, seed: str, explore: int) -> tuple[Positions, int | None]:
    """One self-play game from the deal and choices that ``seed`` fixes; its positions and winner."""
    state = GameState.new(random.Random(f"{seed}:deal"))
    rng = random.Random(f"{seed}:play")
    obs: list[npt.NDArray[np.float32]] = []
    masks: list[npt.NDArray[np.uint8]] = []
    policies: list[npt.NDArray[np.float32]] = []
    movers: list[int] = []
    decisions = 0
    while not state.is_over:
        mover = state.to_move
        view = view_of(state, mover)
        legal = legal_actions_of(view)
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        visits = search(view, rng)
        target = np.zeros(NUM_ACTIONS, np.float32)
        for index, n in visits.items():
            target[index] = n
        target /= target.sum()
        mask = np.zeros(NUM_ACTIONS, np.uint8)
        for action in legal:
            mask[action.index] = 1
        obs.append(encode_view(view))
        masks.append(mask)
        policies.append(target)
        movers.append(mover)
        if decisions < explore:
            indices = sorted(visits)
            index = rng.choices(indices, weights=[visits[i] for i in indices])[0]
        else:
            index = max(visits, key=lambda i: (visits[i], -i))
        decisions += 1
        state.apply(action_at(index))
    assert state.outcome is not None
    winner = state.outcome.winner
    values = [0.5 if winner is None else float(winner == m) for m in movers]
    if not obs:
        return Positions.empty(), winner
    positions = Positions(np.stack(obs), np.stack(masks), np.stack(policies), np.array(values, np.float32))
    return positions, winner
