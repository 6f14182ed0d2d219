"""Kahuna as a PettingZoo AEC environment: ``kahuna.envs.pettingzoo.env(**options)``.

Agents ``"black_0"`` (seat 0, Black, moves first) and ``"white_1"`` (seat 1, White). A turn is
several actions, so the same agent is often selected several times in a row: always follow
``env.agent_selection``.
Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[243]}`` made from the
agent's player view only (layout: ``docs/research.md``); the mask is all zeros for an agent that
is not to move. Rewards come at the end: +1 win, −1 loss, 0 draw. ``reset(seed=s)`` makes the deal
and every reshuffle reproducible. The standard wrappers make an illegal action lose the game.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from kahuna.envs.codec import NUM_ACTIONS, decode, mask_of
from kahuna.envs.observation import OBS_SIZE, encode_view
from kahuna.rules import GameState, Variant, view_of

AGENTS = ("black_0", "white_1")
"""Agent names by seat."""


def env(**options: Any) -> AECEnv:
    """The environment with PettingZoo's usual wrappers (illegal action: −1 and the game ends)."""
    wrapped: AECEnv = raw_env(**options)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]  # (lower-case name: PettingZoo's convention)
    """The unwrapped environment. ``variants``: names of optional rules (``docs/RULES.md``)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "kahuna_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, variants: tuple[str, ...] | list[str] = (), render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.variant = Variant.from_names(list(variants))
        self.possible_agents = list(AGENTS)
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: observation for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seeder: random.Random | None = None
        self.state = GameState.new(random.Random(0), self.variant)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._seeder is None:
            self._seeder = random.Random(seed)
        self.state = GameState.new(random.Random(self._seeder.getrandbits(64)), self.variant)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.state.to_move]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = AGENTS.index(agent)
        to_move = not self.state.is_over and self.state.to_move == seat
        mask = mask_of(self.state.legal_actions()) if to_move else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": encode_view(view_of(self.state, seat)), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self.state.apply(decode(int(action)))
        if self.state.is_over:
            assert self.state.outcome is not None
            winner = self.state.outcome.winner
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = 0.0 if winner is None else (1.0 if winner == seat else -1.0)
            self.terminations = dict.fromkeys(AGENTS, True)
        else:
            self.agent_selection = AGENTS[self.state.to_move]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the spectator's view (nothing hidden) as indented JSON."""
        if self.render_mode != "ansi":
            return None
        return json.dumps(view_of(self.state, None).to_json(), indent=1)

    def close(self) -> None:
        """Nothing to release."""
