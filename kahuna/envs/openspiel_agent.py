"""``openspiel-ismcts:simulations=N``: OpenSpiel's own ISMCTS bot playing through ``python_kahuna``.

A reference opponent that we did not write: the search is ``open_spiel.python.algorithms.ismcts``
unchanged (UCT, c = 2, a fresh world sample per simulation, most-visited move). Only the leaf
evaluation is ours: one uniformly random playout to the end of the game, like OpenSpiel's
``RandomRolloutEvaluator`` but run on the referee directly, which is about six times faster than
stepping through pyspiel, and on its compiled twin when that is selected (the same playouts, about
twice as fast again). The bot is given the seat's view only (:func:`state_from_view`).

It lives in ``kahuna.envs`` because it wraps another library's agent; the ``kahuna.agents`` entry
point in ``pyproject.toml`` names :func:`make` so that the agent registry finds it by name.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kahuna.ai.spec import SpecError, parse_options
from kahuna.envs.codec import decode
from kahuna.envs.openspiel import GAME_NAME, KahunaGame, KahunaState, log_from_view, state_from_view
from kahuna.fast import selected_core
from kahuna.fast.state import FastState
from kahuna.rules import Action, GameState, PlayerView, Variant, legal_actions_of
from kahuna.rules.board import LETTERS


class EngineRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """Uniform priors; value = the result of one uniformly random playout (chance included)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.fast = selected_core() == "fast"

    def evaluate(self, state: KahunaState) -> npt.NDArray[np.float64]:
        referee = _playable_copy(state, self.rng)
        winner = self._play_out(referee)
        if winner is None:
            return np.zeros(2)
        return np.array([1.0, -1.0] if winner == 0 else [-1.0, 1.0])

    def _play_out(self, game: GameState) -> int | None:
        """The winner of a uniformly random playout. The compiled twin plays the very same game
        (the same legal actions in the same order, the same draws from the same RNG) in C."""
        if self.fast:
            return FastState.from_state(game).playout(self.rng)
        rng = self.rng
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
        return None if game.outcome is None else game.outcome.winner

    def prior(self, state: KahunaState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def _playable_copy(state: KahunaState, rng: random.Random) -> GameState:
    """The referee state to play out, with future reshuffles drawn from ``rng``."""
    core = state.core
    assert core.game is not None, "the search starts after the deal"
    game = core.game.copy()
    game.rng = rng
    if core.pending is not None:  # mid-reshuffle: finish the order at random
        rest = [c for c, n in enumerate(core.remaining) for _ in range(n)]
        rng.shuffle(rest)
        game.reshuffle_queue = ["".join(LETTERS[c] for c in core.order + rest)]
        game.apply(core.pending)
    return game


class OpenSpielIsmctsAgent:
    """OpenSpiel's ``ISMCTSBot`` with ``simulations`` simulations per decision."""

    def __init__(self, simulations: int = 200, uct_c: float = 2.0) -> None:
        self.simulations = simulations
        self.uct_c = uct_c
        self.name = f"openspiel-ismcts:simulations={simulations}" + (f",c={uct_c:g}" if uct_c != 2.0 else "")
        self._games: dict[Variant, KahunaGame] = {}

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        game = self._game(view.variant)
        root = state_from_view(game, view, rng, log_from_view(view))
        bot = ismcts.ISMCTSBot(
            game,
            EngineRolloutEvaluator(rng),
            self.uct_c,
            self.simulations,
            random_state=np.random.RandomState(rng.getrandbits(32)),
        )
        bot.set_resampler(lambda state, player: state.resample(player, rng))
        return decode(int(bot.step(root)))

    def _game(self, variant: Variant) -> KahunaGame:
        game = self._games.get(variant)
        if game is None:
            params: dict[str, Any] = variant.to_json()
            game = pyspiel.load_game(GAME_NAME, params)
            self._games[variant] = game
        return game


def make(options: str) -> OpenSpielIsmctsAgent:
    """Registry factory for ``openspiel-ismcts:simulations=N,c=C`` (the ``kahuna.agents`` entry point)."""
    opts = parse_options(options, {"simulations": int, "c": float})
    simulations, uct_c = opts.get("simulations", 200), opts.get("c", 2.0)
    assert isinstance(simulations, int) and isinstance(uct_c, float)
    if simulations < 1 or uct_c < 0:
        raise SpecError("openspiel-ismcts needs simulations >= 1 and c >= 0")
    return OpenSpielIsmctsAgent(simulations, uct_c)
