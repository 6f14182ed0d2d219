"""Kahuna as a single-agent Gymnasium environment: one seat learns, a built-in agent plays the other.

``KahunaEnv(opponent="random")`` (any agent spec of ``kahuna.ai.registry``: ``random``, ``greedy``,
a level…). The learner's seat is drawn at each reset unless ``seat`` is given; the opponent's moves
are played inside :meth:`KahunaEnv.step`, so every observation asks the learner to act. Observation:
the learner's player view as ``float32[OBS_SIZE]`` (``docs/research.md``); the legal-action mask is
in ``info["action_mask"]`` and :meth:`KahunaEnv.action_masks` (the name maskable-PPO code expects).
Reward +1/−1/0 at the end. An illegal action ends the episode at once with −1 and
``info["illegal_action"]``, so that unmasked algorithms and the env checker can run.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from kahuna.ai.base import Agent
from kahuna.ai.registry import make_agent
from kahuna.envs.codec import NUM_ACTIONS, decode, mask_of
from kahuna.envs.observation import OBS_SIZE, encode_view
from kahuna.rules import GameState, Variant, view_of

Observation = npt.NDArray[np.float32]
ENV_ID = "kahuna/Kahuna-v0"
"""``gymnasium.make(ENV_ID, opponent="greedy")`` works once this module is imported."""


class KahunaEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of Kahuna against ``opponent`` (an agent spec); ``seat`` 0 (Black), 1 (White) or random."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(self, opponent: str = "random", seat: int | None = None, variants: tuple[str, ...] = ()) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0 (Black), 1 (White) or None (random), not {seat!r}")
        self.opponent: Agent = make_agent(opponent)
        self.fixed_seat = seat
        self.variant = Variant.from_names(list(variants))
        self.observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.seat = 0
        self.state = GameState.new(random.Random(0), self.variant)
        self._opponent_rng = random.Random(0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self.close()  # an agent holding a process (an external bot) plays one game per process
        draw = self.np_random.integers
        self.seat = int(draw(2)) if self.fixed_seat is None else self.fixed_seat
        self.state = GameState.new(random.Random(int(draw(2**63))), self.variant)
        self._opponent_rng = random.Random(int(draw(2**63)))
        self._let_opponent_play()
        return self._observation(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.state.is_over:
            raise RuntimeError("the game is over: call reset()")
        chosen = decode(int(action))
        if not self.state.is_legal(chosen):
            info = self._info()
            info["illegal_action"] = f"{chosen.token}: {self.state.why_illegal(chosen)}"
            return self._observation(), -1.0, True, False, info
        self.state.apply(chosen)
        self._let_opponent_play()
        return self._observation(), self._reward(), self.state.is_over, False, self._info()

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The learner's legal actions (all zeros once the game is over)."""
        if self.state.is_over:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return mask_of(self.state.legal_actions())

    def close(self) -> None:
        """Stops the opponent's resources (an external bot's process, worker processes), if any."""
        closer = getattr(self.opponent, "close", None)
        if callable(closer):
            closer()

    def _let_opponent_play(self) -> None:
        state = self.state
        other = 1 - self.seat
        while not state.is_over and state.to_move == other:
            state.apply(self.opponent.choose(view_of(state, other), self._opponent_rng))

    def _observation(self) -> Observation:
        return encode_view(view_of(self.state, self.seat))

    def _reward(self) -> float:
        outcome = self.state.outcome
        if outcome is None or outcome.winner is None:
            return 0.0
        return 1.0 if outcome.winner == self.seat else -1.0

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="kahuna.envs.gymnasium:KahunaEnv")
