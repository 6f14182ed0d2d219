"""A vectorised batch of Kahuna games for reinforcement learning: many games, one step call.

``VectorKahuna(num_envs, seed)`` holds ``num_envs`` games. Each :meth:`~VectorKahuna.step` takes
one action code per game (:mod:`kahuna.envs.codec`) for the seat to move in that game, and returns
for every game the observation of the seat to move next (:mod:`kahuna.envs.observation`, from its
own view: never a hidden card), its legal-action mask, which seat that is, the rewards of both
seats (+1/−1 at a win, 0 otherwise) and whether the game just ended. A finished game is dealt
anew at once (auto-reset), so the arrays always describe running games.

On the compiled core (``core="fast"``, the default when it is built) the whole step runs in C,
writing into preallocated numpy arrays; ``core="python"`` runs the same games on the referee (one
``random.Random(seed)`` deals every game and draws every reshuffle, in game order, on both cores),
which is how tests/fast proves the two equal. Illegal actions raise ``ValueError`` before any
game moves. ``kahuna bench engine --vector N`` reports steps/s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kahuna.envs.codec import NUM_ACTIONS, legal_indices
from kahuna.envs.observation import OBS_SIZE, encode_view
from kahuna.fast import core_module, selected_core
from kahuna.rules import GameState, Variant, action_at, view_of

MAX_ENVS = 65_536
"""The most games one batch holds (memory is about 0.4 KB per game)."""


@dataclass
class Batch:
    """The arrays of one step; they are overwritten by the next call (copy what you keep)."""

    obs: npt.NDArray[np.float32]
    """``(num_envs, OBS_SIZE)``: each game's observation for its seat to move."""
    mask: npt.NDArray[np.int8]
    """``(num_envs, NUM_ACTIONS)``: 1 at each legal action code."""
    to_move: npt.NDArray[np.int8]
    """``(num_envs,)``: the seat (0 or 1) whose observation and mask these are."""
    rewards: npt.NDArray[np.float32]
    """``(num_envs, 2)``: each seat's reward for the step (non-zero only when a game ended)."""
    dones: npt.NDArray[np.int8]
    """``(num_envs,)``: 1 where the game ended with this step (and was dealt anew)."""


class VectorKahuna:
    """``num_envs`` games stepped together (see the module docstring)."""

    def __init__(self, num_envs: int, seed: int = 0, variant: Variant | None = None, core: str | None = None) -> None:
        if not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be 1..{MAX_ENVS}")
        if not 0 <= seed < 2**64:
            raise ValueError("seed must be in 0..2**64-1")
        self.num_envs = num_envs
        self.seed = seed
        self.variant = variant or Variant()
        self.core = selected_core(core)
        n = num_envs
        self._out = Batch(
            obs=np.zeros((n, OBS_SIZE), dtype=np.float32),
            mask=np.zeros((n, NUM_ACTIONS), dtype=np.int8),
            to_move=np.zeros(n, dtype=np.int8),
            rewards=np.zeros((n, 2), dtype=np.float32),
            dones=np.zeros(n, dtype=np.int8),
        )
        self._actions = np.zeros(n, dtype=np.int16)
        self._batch: Any = None
        self._games: list[GameState] = []
        self._rng = random.Random(seed)
        self.reset()

    def reset(self) -> Batch:
        """Deal every game anew from the seed; the observations and masks of the first movers."""
        out = self._out
        out.rewards[:] = 0
        out.dones[:] = 0
        if self.core == "fast":
            v = self.variant
            batch = core_module().Batch(self.num_envs, self.seed, v.no_build_at_enemy_stone, v.replace_on_remove)
            batch.observe(out.obs, out.mask, out.to_move)
            self._batch = batch
        else:
            self._rng = random.Random(self.seed)
            self._games = [GameState.new(self._rng, self.variant) for _ in range(self.num_envs)]
            for i in range(self.num_envs):
                self._observe(i)
        return out

    def step(self, actions: npt.ArrayLike) -> Batch:
        """Apply one action code per game; ``ValueError`` (nothing applied) if one is illegal."""
        codes = np.asarray(actions)
        if codes.shape != (self.num_envs,) or not np.issubdtype(codes.dtype, np.integer):
            raise ValueError(f"step takes {self.num_envs} integer action codes")
        if codes.min() < 0 or codes.max() >= NUM_ACTIONS:
            raise ValueError(f"action codes are 0..{NUM_ACTIONS - 1}")
        self._actions[:] = codes
        out = self._out
        if self.core == "fast":
            self._batch.step(self._actions, out.obs, out.mask, out.to_move, out.rewards, out.dones)
            return out
        for i in range(self.num_envs):
            if not out.mask[i, int(self._actions[i])]:
                raise ValueError(f"game {i}: action {int(self._actions[i])} is not legal")
        for i, game in enumerate(self._games):
            game.apply(action_at(int(self._actions[i])))
            out.rewards[i] = 0.0
            out.dones[i] = int(game.is_over)
            if game.outcome is not None:
                winner = game.outcome.winner
                if winner is not None:
                    out.rewards[i, winner] = 1.0
                    out.rewards[i, 1 - winner] = -1.0
                self._games[i] = GameState.new(self._rng, self.variant)
            self._observe(i)
        return out

    def _observe(self, i: int) -> None:
        game = self._games[i]
        out = self._out
        out.obs[i] = encode_view(view_of(game, game.to_move))
        out.mask[i] = 0
        out.mask[i, legal_indices(game)] = 1
        out.to_move[i] = game.to_move

    def random_actions(self, rng: np.random.Generator) -> npt.NDArray[np.int16]:
        """One uniformly random legal action code per game (for baselines and benchmarks)."""
        scores = rng.random(self._out.mask.shape) * self._out.mask
        codes: npt.NDArray[np.int16] = np.argmax(scores, axis=1).astype(np.int16)
        return codes


__all__ = ["MAX_ENVS", "Batch", "VectorKahuna"]
