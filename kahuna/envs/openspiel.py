"""Kahuna as an OpenSpiel game: importing this module registers ``python_kahuna`` with pyspiel.

``pyspiel.load_game("python_kahuna")`` (parameters ``no_build_at_enemy_stone`` and
``replace_on_remove``, both false by default). Chance is explicit, card by card: the game opens
with 24 chance nodes that deal the cards top first (hand of player 0, hand of player 1, display,
deck; an outcome is an island 0–11, weighted by how many of its cards are left), and an action
that ends round 1 or 2 is followed by one chance node per card of the reshuffled discard pile
(top first) before it takes effect. Player actions use the project's codec (``kahuna.envs.codec``).

Information state (player p): p's player view as JSON (the fields of :class:`PlayerView` but the
variant and the history, cards as 12 counts) plus p's record of every action, with what
p saw of it (``d?=E``: p drew an E; ``dA+K``: the display was refilled with a K; ``/BFK``: the new
display after a reshuffle; the other seat's face-down discards as ``-?``); during the deal, the
cards p has seen so far. The
observation tensor is the fixed-size encoding of ``kahuna.envs.observation`` (no history).
``resample_from_infostate`` samples the hidden cards with :func:`kahuna.rules.determinize`, so
OpenSpiel's ``ISMCTSBot`` can search it; a resampled state has an empty ``history()``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from kahuna.envs.codec import NUM_ACTIONS, decode, legal_indices
from kahuna.envs.observation import OBS_SIZE, OFFSETS, encode_view
from kahuna.rules import Action, Event, GameState, Kind, PlayerView, Variant, determinize, parse, view_of
from kahuna.rules.board import CARDS_PER_ISLAND, DISPLAY_SIZE, HAND_SIZE_AT_START, LETTERS, NUM_CARDS, NUM_ISLANDS
from kahuna.rules.events import CardTaken, DisplayRefilled, Reshuffled

GAME_NAME = "python_kahuna"
HIDDEN = "-?"
Entry = tuple[int, str, str | None]
"""A logged action: (seat, what both seats saw, what only that seat saw or ``None`` if nothing more)."""
MAX_GAME_LENGTH = 300
"""A bound on player actions: ≤ 66 draws, as many passes plus 3, ≤ 72 card plays, 2 ends (random play: ~150)."""

_PARAMETERS = {"no_build_at_enemy_stone": False, "replace_on_remove": False}
_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Kahuna (Python, kahuna.envs.openspiel)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)
_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_ISLANDS,
    num_players=2,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=MAX_GAME_LENGTH,
)


class KahunaGame(pyspiel.Game):  # type: ignore[misc]
    """The game object pyspiel creates from ``load_game("python_kahuna(...)")``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        super().__init__(_GAME_TYPE, _GAME_INFO, params)
        self.variant = Variant(bool(params["no_build_at_enemy_stone"]), bool(params["replace_on_remove"]))

    def new_initial_state(self) -> KahunaState:
        return KahunaState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> KahunaObserver:
        if params:
            raise ValueError(f"python_kahuna observers take no parameters, got {params}")
        return KahunaObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Core:
    """Everything a state holds, copied by hand: pyspiel clones a state by deep-copying its
    attributes, and :meth:`GameState.copy` is far cheaper than a generic deep copy."""

    __slots__ = ("deal", "game", "info", "log", "order", "pending", "remaining")

    def __init__(self) -> None:
        self.deal: list[int] = []
        """Cards dealt so far by the opening chance nodes."""
        self.game: GameState | None = None
        """The referee's state once the 24 cards are dealt."""
        self.log: list[Entry] = []
        """Every action applied, as its seat saw it and as the other seat saw it."""
        self.pending: Action | None = None
        """A round-ending action waiting for its reshuffle order."""
        self.order: list[int] = []
        """The reshuffle order chosen so far, top first."""
        self.remaining: list[int] = [CARDS_PER_ISLAND] * NUM_ISLANDS
        """Counts of the cards the current chance node draws from."""
        self.info: dict[tuple[int, bool], str] = {}
        """Information state strings made since the last action: OpenSpiel's ISMCTS asks for the
        same one several times per visit, and building it is most of a simulation's cost."""

    def __deepcopy__(self, memo: dict[int, object]) -> _Core:
        new = _Core()
        new.deal = self.deal[:]
        new.game = None if self.game is None else self.game.copy()
        new.log = self.log[:]
        new.pending = self.pending
        new.order = self.order[:]
        new.remaining = self.remaining[:]
        new.info = self.info.copy()
        return new


class KahunaState(pyspiel.State):  # type: ignore[misc]
    """One position: dealing, waiting for a reshuffle, or a seat to move."""

    def __init__(self, game: KahunaGame) -> None:
        super().__init__(game)
        self.variant = game.variant
        self.core = _Core()

    # ------------------------------------------------------------ pyspiel API

    def current_player(self) -> int:
        game = self.core.game
        if game is not None and game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if game is None or self.core.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        return game.to_move

    def _legal_actions(self, player: int) -> list[int]:
        assert self.core.game is not None
        return legal_indices(self.core.game)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        remaining = self.core.remaining
        total = sum(remaining)
        return [(c, n / total) for c, n in enumerate(remaining) if n]

    def _apply_action(self, action: int) -> None:
        core = self.core
        core.info.clear()
        if core.game is None:
            self._deal_card(int(action))
        elif core.pending is not None:
            self._reshuffle_card(int(action))
        else:
            self._play(decode(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {LETTERS[action]}"
        return decode(action).token

    def is_terminal(self) -> bool:
        game = self.core.game
        return game is not None and game.is_over

    def returns(self) -> list[float]:
        game = self.core.game
        if game is None or game.outcome is None or game.outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if game.outcome.winner == 0 else [-1.0, 1.0]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> KahunaState:
        """A state ``player_id`` cannot tell from this one, hidden cards sampled uniformly."""
        return self.resample(player_id, random.Random(int(probability_sampler() * 2**53)))

    def __str__(self) -> str:
        core = self.core
        if core.game is None:
            return "dealt " + "".join(LETTERS[c] for c in core.deal)
        text = json.dumps(core.game.to_json(), sort_keys=True)
        if core.pending is not None:
            text += f" pending {core.pending.token} order {''.join(LETTERS[c] for c in core.order)}"
        return text

    # ------------------------------------------------------------ Kahuna side

    @property
    def game_state(self) -> GameState | None:
        """The referee's state (omniscient), ``None`` while dealing."""
        return self.core.game

    def resample(self, player: int, rng: random.Random) -> KahunaState:
        """Like :meth:`resample_from_infostate`, with a Python RNG (reproducible search)."""
        core = self.core
        if core.game is None or core.pending is not None or core.game.is_over:
            raise pyspiel.SpielError("python_kahuna resamples only where a player is to move")
        log = [(seat, public, private if seat == player else None) for seat, public, private in core.log]
        return state_from_view(self.get_game(), view_of(core.game, player), rng, log)

    def infostate(self, player: int, with_history: bool) -> str:
        """What ``player`` knows, as one string (the history only for the information state)."""
        key = (player, with_history)
        text = self.core.info.get(key)
        if text is None:
            text = self.core.info[key] = self._infostate(player, with_history)
        return text

    def _infostate(self, player: int, with_history: bool) -> str:
        core = self.core
        if core.game is None:
            hand = core.deal[player * HAND_SIZE_AT_START : (player + 1) * HAND_SIZE_AT_START]
            display = core.deal[2 * HAND_SIZE_AT_START : 2 * HAND_SIZE_AT_START + DISPLAY_SIZE]
            letters = "".join(LETTERS[c] for c in sorted(hand)) + "|" + "".join(LETTERS[c] for c in display)
            return f"dealing {len(core.deal)} {letters}"
        view = view_of(core.game, player)
        # The view's fields as they are (cards as 12 counts), not its documented JSON: this string
        # is made a few times per simulation of a search, and to_json with sorted keys made the
        # bot spend about a fifth more CPU (docs/research.md).
        data: dict[str, Any] = {
            "seat": view.seat,
            "round": view.round,
            "phase": view.phase.value,
            "to_move": view.to_move,
            "bridges": view.bridges,
            "stones": view.stones,
            "supply_bridges": view.supply_bridges,
            "supply_stones": view.supply_stones,
            "hand": view.hand,
            "hand_sizes": view.hand_sizes,
            "known": view.known,
            "display": view.display,
            "deck_size": view.deck_size,
            "discard_face_up": view.discard_face_up,
            "face_down_counts": view.face_down_counts,
            "own_face_down": view.own_face_down,
            "declined": view.declined,
            "final_turns": view.final_turns,
            "points": view.points,
            "result": None if view.outcome is None else view.outcome.to_json(),
        }
        data["history"] = (
            [private if seat == player and private else public for seat, public, private in core.log]
            if with_history
            else len(core.log)
        )
        if core.pending is not None:
            data["pending"] = core.pending.token
            data["reshuffle_shown"] = "".join(LETTERS[c] for c in core.order[:DISPLAY_SIZE])
        return json.dumps(data, separators=(",", ":"))

    def _deal_card(self, card: int) -> None:
        core = self.core
        if not core.remaining[card]:
            raise pyspiel.SpielError(f"no {LETTERS[card]} card is left to deal")
        core.remaining[card] -= 1
        core.deal.append(card)
        if len(core.deal) == NUM_CARDS:
            core.game = GameState.from_deal("".join(LETTERS[c] for c in core.deal), self.variant)

    def _play(self, action: Action) -> None:
        core = self.core
        game = core.game
        assert game is not None
        reason = game.why_illegal(action)
        if reason is not None:
            raise pyspiel.SpielError(f"illegal action {action.token}: {reason}")
        if game.needs_reshuffle(action):
            core.pending = action
            core.order = []
            core.remaining = game.discard_pile()
            if sum(core.remaining) == 0:
                self._finish_reshuffle()
            return
        core.log.append(_entry(game.to_move, action, game.apply(action)))

    def _reshuffle_card(self, card: int) -> None:
        core = self.core
        if not core.remaining[card]:
            raise pyspiel.SpielError(f"no {LETTERS[card]} card is left in the discard pile")
        core.remaining[card] -= 1
        core.order.append(card)
        if not any(core.remaining):
            self._finish_reshuffle()

    def _finish_reshuffle(self) -> None:
        core = self.core
        assert core.game is not None and core.pending is not None
        core.game.reshuffle_queue = ["".join(LETTERS[c] for c in core.order)]
        seat = core.game.to_move
        core.log.append(_entry(seat, core.pending, core.game.apply(core.pending)))
        core.pending = None
        core.order = []


def _entry(seat: int, action: Action, events: list[Event]) -> Entry:
    """How an applied action is logged: its token, with the cards it showed to both or to ``seat``."""
    if action.kind is Kind.DISCARD:
        return seat, HIDDEN, action.token
    public, private = action.token, None
    for event in events:
        if isinstance(event, CardTaken) and not event.from_display and event.card is not None:
            private = f"{public}={LETTERS[event.card]}"
        elif isinstance(event, DisplayRefilled):
            public += f"+{LETTERS[event.card]}"
        elif isinstance(event, Reshuffled):
            public += f"/{event.display}"
    return seat, public, private


def state_from_view(game: KahunaGame, view: PlayerView, rng: random.Random, log: list[Entry]) -> KahunaState:
    """A state of ``game`` in which ``view.seat`` sees ``view`` (hidden cards sampled with ``rng``)
    and ``log`` as the history: where an agent that is handed only a view starts its search."""
    state = KahunaState(game)
    sampled = determinize(view, rng)
    sampled.rng = None
    state.core.deal = [0] * NUM_CARDS
    state.core.game = sampled
    state.core.log = log
    return state


def log_from_view(view: PlayerView) -> list[Entry]:
    """The log of a view's history, as far as the view tells it (no drawn cards, no refills).

    Seat 0 starts and a seat acts until an action ends its turn.
    """
    seat = 0
    log: list[Entry] = []
    for token in view.history:
        if token.startswith("-"):
            log.append((seat, HIDDEN, None if token == HIDDEN else token))
            continue
        log.append((seat, token, None))
        if parse(token).ends_turn:
            seat = 1 - seat
    return log


class KahunaObserver:
    """pyspiel's observer interface: the information state (``perfect_recall``) or the observation."""

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("python_kahuna observes one player's information (public and private)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = 0 if self.perfect_recall else OBS_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KahunaState, player: int) -> None:
        if self.perfect_recall:
            return
        core = state.core
        if core.game is not None:
            self.tensor[:] = encode_view(view_of(core.game, player))
            return
        # While dealing: the cards of the player's hand and the display seen so far.
        self.tensor.fill(0.0)
        hand = core.deal[player * HAND_SIZE_AT_START : (player + 1) * HAND_SIZE_AT_START]
        display = core.deal[2 * HAND_SIZE_AT_START : 2 * HAND_SIZE_AT_START + DISPLAY_SIZE]
        for block, cards in (("my_hand", hand), ("display", display)):
            start = OFFSETS[block].start
            for c in cards:
                self.tensor[start + c] += 1.0 / CARDS_PER_ISLAND
        self.tensor[OFFSETS["seat"].start] = float(player)

    def string_from(self, state: KahunaState, player: int) -> str:
        return state.infostate(player, with_history=self.perfect_recall)


pyspiel.register_game(_GAME_TYPE, KahunaGame)
