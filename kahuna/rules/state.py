"""The referee: :class:`GameState` holds a whole game and is the only code that applies the rules.

The state is kept in flat lists of small integers (bridges per line, stones per island, card
counts per island, bridge counts per seat and island kept up to date incrementally), so that
legal-action generation, application and :meth:`GameState.copy` are cheap enough for search.

Chance is explicit: a new game is dealt from a ``random.Random`` passed in, and every reshuffle
takes its order from a queue given by the caller (a record) or, failing that, from the state's
RNG; the orders used are kept in :attr:`GameState.reshuffles` so that deal + reshuffles +
actions (the record) rebuilds the game exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from itertools import compress
from typing import Any

from kahuna.rules import actions as acts
from kahuna.rules.actions import Action, Kind
from kahuna.rules.board import (
    BRIDGES_PER_PLAYER,
    CARDS_PER_ISLAND,
    CONTROL,
    DISPLAY_SIZE,
    HAND_LIMIT,
    HAND_SIZE_AT_START,
    ISLAND_LINES,
    LETTERS,
    LINE_NAMES,
    LINES,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    ROUND_POINTS,
    ROUNDS,
    STONES_PER_PLAYER,
    cards_to_str,
)
from kahuna.rules.errors import IllegalActionError, RecordError
from kahuna.rules.events import (
    BridgeBuilt,
    BridgeRemoved,
    BridgeReturned,
    CardDiscarded,
    CardTaken,
    Declined,
    DisplayRefilled,
    Event,
    FinalTurnsBegan,
    GameOver,
    IslandClaimed,
    Reshuffled,
    RoundScored,
    StoneLost,
    TurnEnded,
)
from kahuna.rules.reasons import Reason


class Phase(StrEnum):
    """Where a game stands: its rounds (``play``), the two last turns (``final``), or ``over``.

    A ``StrEnum``, so a phase is written as its value in JSON and compares equal to it.
    """

    PLAY = "play"
    FINAL = "final"
    OVER = "over"


_PLAY, _FINAL, _OVER = Phase.PLAY, Phase.FINAL, Phase.OVER
NOBODY = -1
"""Owner value of a free line or an island without a stone."""

_ISLANDS = range(NUM_ISLANDS)
_new_state = object.__new__
# Module-level names for the kinds: cheaper than attribute look-ups on the enum in the hot paths.
_BUILD, _REMOVE, _DISCARD, _END = Kind.BUILD, Kind.REMOVE, Kind.DISCARD, Kind.END
_TAKE_DISPLAY, _TAKE_DECK, _PASS = Kind.TAKE_DISPLAY, Kind.TAKE_DECK, Kind.PASS
_BUILDS = tuple(tuple((line, acts.BUILD[c][line]) for _, line in NEIGHBOURS[c]) for c in _ISLANDS)
"""``_BUILDS[card]``: ``(line, build action)`` for the card's lines, in token order."""


@dataclass(frozen=True, slots=True)
class Variant:
    """The optional rules (both off by default); see RULES.md, *Variants*."""

    no_build_at_enemy_stone: bool = False
    replace_on_remove: bool = False

    @classmethod
    def from_json(cls, data: object) -> Variant:
        """From the record's ``variant`` object; unknown keys or non-booleans are a ``RecordError``."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise RecordError("'variant' must be an object")
        known = {"no_build_at_enemy_stone", "replace_on_remove"}
        for key, value in data.items():
            if key not in known:
                raise RecordError(f"unknown variant {key!r} (known: {', '.join(sorted(known))})")
            if not isinstance(value, bool):
                raise RecordError(f"variant {key!r} must be true or false")
        return cls(**data)

    @classmethod
    def from_names(cls, names: list[str] | tuple[str, ...]) -> Variant:
        """From a list of variant names (command lines, APIs); ``ValueError`` on an unknown one."""
        return cls.from_json({name: True for name in names})

    def to_json(self) -> dict[str, bool]:
        return {
            "no_build_at_enemy_stone": self.no_build_at_enemy_stone,
            "replace_on_remove": self.replace_on_remove,
        }

    @property
    def names(self) -> list[str]:
        """The names of the variants that are on."""
        return [k for k, v in self.to_json().items() if v]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is a seat or ``None`` for a draw or an aborted game; ``reason``
    as in NOTATION.md; ``seat``, for a game ended off the board (:class:`Termination`), the seat
    that resigned, ran out of time or aborted (not part of the ``result`` JSON)."""

    winner: int | None
    reason: str
    seat: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason}

    @classmethod
    def from_json(cls, data: object, termination: object = None) -> Outcome:
        """From a state document's ``result`` (and the complete document's ``termination``);
        ``RecordError`` for an unknown winner or reason, or the two disagreeing."""
        if not isinstance(data, dict) or set(data) != {"winner", "reason"}:
            raise RecordError('\'result\' must be null or {"winner", "reason"}')
        winner, reason = data["winner"], data["reason"]
        if winner not in (0, 1, None) or isinstance(winner, bool) or reason not in OUTCOME_REASONS:
            raise RecordError(f"bad result {data!r} (reasons: {', '.join(OUTCOME_REASONS)})")
        if (winner is None) != (reason in NO_WINNER):
            raise RecordError(f"bad result {data!r}: only a draw or an aborted game has no winner")
        ended = None if termination is None else Termination.from_json(termination)
        if (ended is None) != (reason not in TERMINATION_REASONS) or (
            ended is not None and (ended.reason, ended.winner) != (reason, winner)
        ):
            raise RecordError(f"result {data!r} and termination {termination!r} disagree")
        return cls(winner, reason, None if ended is None else ended.seat)


TERMINATION_REASONS = ("resign", "timeout", "aborted", "left", "left-draw")
"""How a game can end off the board (a record's ``termination``): ``left`` and ``left-draw`` end a
real-time game whose ``seat`` left it (no connection past a grace): the other seat claimed the win,
or called it a draw (the server's ``claim_victory`` and ``claim_draw``, docs/protocol.md)."""
NO_WINNER = ("draw", "aborted", "left-draw")
"""The reasons of a result without a winner."""
OUTCOME_REASONS = ("points", "final-scoring", "bridges", "draw", "no-bridges", *TERMINATION_REASONS)
"""How a game can end (NOTATION.md, *result*)."""


@dataclass(frozen=True, slots=True)
class Termination:
    """A game ended off the board: ``seat`` resigned, ran out of time or left (the other seat wins), or
    aborted the game before it really began (nobody wins), or left a game its opponent called a draw
    (``left-draw``). NOTATION.md, *termination*."""

    reason: str
    seat: int

    def __post_init__(self) -> None:
        if self.reason not in TERMINATION_REASONS:
            raise RecordError(f"unknown termination reason {self.reason!r} (known: {', '.join(TERMINATION_REASONS)})")
        if not isinstance(self.seat, int) or isinstance(self.seat, bool) or self.seat not in (0, 1):
            raise RecordError(f"the termination seat must be 0 or 1, not {self.seat!r}")

    @property
    def winner(self) -> int | None:
        return None if self.reason in NO_WINNER else 1 - self.seat

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "seat": self.seat}

    @classmethod
    def from_json(cls, data: object) -> Termination:
        """From a record's ``termination`` object; ``RecordError`` when malformed."""
        if not isinstance(data, dict) or set(data) != {"reason", "seat"}:
            raise RecordError('\'termination\' must be {"reason": ..., "seat": 0 or 1}')
        return cls(data["reason"], data["seat"])


def _counts(text: object) -> list[int]:
    if not isinstance(text, str):
        raise RecordError("card multisets are strings of island letters")
    return _tally(_order_to_cards(text, "cards"))


def _tally(cards: list[int]) -> list[int]:
    """12 counts of a list of cards."""
    counts = [0] * NUM_ISLANDS
    for c in cards:
        counts[c] += 1
    return counts


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"expected a whole number, not {value!r}")
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise RecordError(f"expected true or false, not {value!r}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise RecordError(f"expected a string, not {value!r}")
    return value


def _owner(value: object) -> int:
    if value is None:
        return NOBODY
    if not isinstance(value, int) or isinstance(value, bool) or value not in (0, 1):
        raise RecordError(f"an owner is 0, 1 or null, not {value!r}")
    return value


_COMPLETE_KEYS = ("variant", "face_down", "known", "history", "deal", "reshuffles", "termination")
"""What :meth:`GameState.to_json` adds with ``complete=True``."""


def _history_from_json(data: object) -> list[tuple[int, Action]]:
    if not isinstance(data, list):
        raise RecordError("'history' must be a list of [seat, token] pairs")
    history: list[tuple[int, Action]] = []
    for entry in data:
        if not isinstance(entry, list) or len(entry) != 2 or entry[0] not in (0, 1) or isinstance(entry[0], bool):
            raise RecordError(f"'history' entries are [seat, token] pairs, not {entry!r}")
        try:
            history.append((int(entry[0]), acts.parse(entry[1])))
        except ValueError as exc:
            raise RecordError(f"'history': {exc}") from None
    return history


def _order_to_cards(order: str, what: str) -> list[int]:
    bad = [ch for ch in order if ch not in LETTERS]
    if bad:
        raise RecordError(f"{what} {order!r} holds {bad[0]!r}, which is not an island letter")
    return [LETTERS.index(ch) for ch in order]


class GameState:
    """A whole game of Kahuna as the referee sees it (every card included).

    Create one with :meth:`new` (random deal), :meth:`from_deal` or :meth:`from_json`; ask
    :meth:`legal_actions`; change it with :meth:`apply`, which validates against the state as it
    is now, returns the events and leaves the state untouched when it raises. Search, which only
    ever applies actions it just took from :meth:`legal_actions`, may use
    :meth:`apply_unchecked` instead; nothing that takes actions from a client does.
    :meth:`to_json` gives the state format of NOTATION.md.

    Every state is built by :meth:`__init__`, which derives the bookkeeping (bridge counts per
    island, supplies, hand sizes) from the primary fields, so no constructor can get them wrong.
    """

    __slots__ = (
        "bridges",
        "counts",
        "deal",
        "deck",
        "declined",
        "discard_down",
        "discard_up",
        "display",
        "final_turns",
        "hand_size",
        "hands",
        "history",
        "known",
        "outcome",
        "phase",
        "points",
        "reshuffle_queue",
        "reshuffles",
        "rng",
        "round",
        "stones",
        "supply_bridges",
        "supply_stones",
        "to_move",
        "variant",
    )  # fmt: skip

    variant: Variant
    round: int
    phase: Phase
    to_move: int
    bridges: list[int]
    """Owner seat of each line, or ``NOBODY``."""
    stones: list[int]
    """Owner seat of the stone on each island, or ``NOBODY``."""
    counts: list[list[int]]
    """``counts[seat][island]``: the seat's bridges on the island's lines (derived, kept incrementally)."""
    supply_bridges: list[int]
    """Derived: ``BRIDGES_PER_PLAYER`` minus the seat's bridges on the board, kept incrementally."""
    supply_stones: list[int]
    """Derived: ``STONES_PER_PLAYER`` minus the seat's stones on the board, kept incrementally."""
    hands: list[list[int]]
    """``hands[seat][card]``: how many cards of each island the seat holds."""
    hand_size: list[int]
    """Derived: the number of cards in each hand, kept incrementally."""
    display: list[int]
    deck: list[int]
    """The deck with its top card *last* (so that drawing is ``pop()``)."""
    discard_up: list[int]
    """Cards played face up this round (builds, removals)."""
    discard_down: list[list[int]]
    """Cards each seat discarded face down this round."""
    declined: bool
    final_turns: int
    points: list[list[int]]
    outcome: Outcome | None
    known: list[list[int]]
    """Cards known from public information to be in each hand (a lower bound); see views.py."""
    history: list[tuple[int, Action]]
    """Every action applied so far with the seat that made it."""
    deal: str | None
    reshuffles: list[str]
    reshuffle_queue: list[str]
    rng: random.Random | None

    # ----------------------------------------------------------------- creation

    def __init__(
        self,
        *,
        variant: Variant,
        round: int,
        phase: Phase,
        to_move: int,
        bridges: list[int],
        stones: list[int],
        hands: list[list[int]],
        display: list[int],
        deck: list[int],
        discard_up: list[int],
        discard_down: list[list[int]],
        declined: bool,
        final_turns: int,
        points: list[list[int]],
        outcome: Outcome | None,
        known: list[list[int]],
        history: list[tuple[int, Action]],
        deal: str | None,
        reshuffles: list[str],
        reshuffle_queue: list[str],
        rng: random.Random | None,
    ) -> None:
        """The one constructor: takes the primary fields (and owns the lists passed in) and
        derives ``counts``, ``supply_bridges``, ``supply_stones`` and ``hand_size`` from them.

        It checks nothing: :meth:`from_json` checks its input with :meth:`invariant_violation`.
        """
        self.variant = variant
        self.round = round
        self.phase = phase
        self.to_move = to_move
        self.bridges = bridges
        self.stones = stones
        counts = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        for line, owner in enumerate(bridges):
            if owner >= 0:
                a, b = LINES[line]
                counts[owner][a] += 1
                counts[owner][b] += 1
        self.counts = counts
        self.supply_bridges = [BRIDGES_PER_PLAYER - bridges.count(0), BRIDGES_PER_PLAYER - bridges.count(1)]
        self.supply_stones = [STONES_PER_PLAYER - stones.count(0), STONES_PER_PLAYER - stones.count(1)]
        self.hands = hands
        self.hand_size = [sum(hands[0]), sum(hands[1])]
        self.display = display
        self.deck = deck
        self.discard_up = discard_up
        self.discard_down = discard_down
        self.declined = declined
        self.final_turns = final_turns
        self.points = points
        self.outcome = outcome
        self.known = known
        self.history = history
        self.deal = deal
        self.reshuffles = reshuffles
        self.reshuffle_queue = reshuffle_queue
        self.rng = rng

    @classmethod
    def new(cls, rng: random.Random, variant: Variant | None = None) -> GameState:
        """A fresh game dealt with ``rng``; later reshuffles draw from the same ``rng``."""
        cards = [c for c in range(NUM_ISLANDS) for _ in range(CARDS_PER_ISLAND)]
        rng.shuffle(cards)
        state = cls.from_deal("".join(LETTERS[c] for c in cards), variant)
        state.rng = rng
        return state

    @classmethod
    def from_deal(
        cls, deal: str, variant: Variant | None = None, reshuffles: list[str] | tuple[str, ...] = ()
    ) -> GameState:
        """The start of the game with a given deal (24 letters, top first) and reshuffle orders."""
        if not isinstance(deal, str):
            raise RecordError("'deal' must be a string of 24 island letters")
        cards = _order_to_cards(deal, "deal")
        if len(cards) != NUM_CARDS or any(cards.count(c) != CARDS_PER_ISLAND for c in range(NUM_ISLANDS)):
            raise RecordError(f"deal {deal!r} must hold every island letter exactly twice")
        if not isinstance(reshuffles, list | tuple) or not all(isinstance(r, str) for r in reshuffles):
            raise RecordError("'reshuffles' must be a list of strings")
        start = HAND_SIZE_AT_START
        return cls(
            variant=variant or Variant(),
            round=1,
            phase=_PLAY,
            to_move=0,
            bridges=[NOBODY] * NUM_LINES,
            stones=[NOBODY] * NUM_ISLANDS,
            hands=[_tally(cards[:start]), _tally(cards[start : 2 * start])],
            display=_tally(cards[2 * start : 2 * start + DISPLAY_SIZE]),
            deck=cards[2 * start + DISPLAY_SIZE :][::-1],
            discard_up=[0] * NUM_ISLANDS,
            discard_down=[[0] * NUM_ISLANDS, [0] * NUM_ISLANDS],
            declined=False,
            final_turns=0,
            points=[[0] * ROUNDS, [0] * ROUNDS],
            outcome=None,
            known=[[0] * NUM_ISLANDS, [0] * NUM_ISLANDS],
            history=[],
            deal=deal,
            reshuffles=[],
            reshuffle_queue=list(reshuffles),
            rng=None,
        )

    def copy(self) -> GameState:
        """An independent copy (the RNG object is shared: search may draw from it).

        The one state not built by :meth:`__init__`: its derived bookkeeping is copied from this
        state's, which :meth:`__init__` derived and every change since kept (the server copies the
        state before each action, and deriving it again was most of the copy's cost);
        ``tests/rules`` hold a copy equal, field for field, to the state rebuilt from its primary
        fields."""
        new = _new_state(GameState)
        new.variant = self.variant
        new.round = self.round
        new.phase = self.phase
        new.to_move = self.to_move
        new.bridges = self.bridges[:]
        new.stones = self.stones[:]
        new.counts = [self.counts[0][:], self.counts[1][:]]
        new.supply_bridges = self.supply_bridges[:]
        new.supply_stones = self.supply_stones[:]
        new.hands = [self.hands[0][:], self.hands[1][:]]
        new.hand_size = self.hand_size[:]
        new.display = self.display[:]
        new.deck = self.deck[:]
        new.discard_up = self.discard_up[:]
        new.discard_down = [self.discard_down[0][:], self.discard_down[1][:]]
        new.declined = self.declined
        new.final_turns = self.final_turns
        new.points = [self.points[0][:], self.points[1][:]]
        new.outcome = self.outcome
        new.known = [self.known[0][:], self.known[1][:]]
        new.history = self.history[:]
        new.deal = self.deal
        new.reshuffles = self.reshuffles[:]
        new.reshuffle_queue = self.reshuffle_queue[:]
        new.rng = self.rng
        return new

    @classmethod
    def from_json(cls, data: object) -> GameState:
        """A state from its complete document, :meth:`to_json` with ``complete=True``.

        The result gives exactly the views of the state that wrote the document, for both seats
        and spectators. The plain state document of NOTATION.md (as in traces) is refused: it does
        not say which discards are face down, which cards are known to be in a hand, or the
        history, all of which the views show. A malformed or impossible document is a
        ``RecordError`` saying what is wrong. Reshuffles of the rebuilt state draw from
        ``state.rng``, which the caller sets if it needs one.
        """
        if not isinstance(data, dict):
            raise RecordError("a state must be a JSON object")
        missing = [key for key in _COMPLETE_KEYS if key not in data]
        if missing:
            raise RecordError(
                f"the state document lacks {', '.join(map(repr, missing))}: without them the views of "
                "a rebuilt state could differ from the original (write it with to_json(complete=True))"
            )
        try:
            phase = Phase(data["phase"])
            variant = Variant.from_json(data["variant"])
            history = _history_from_json(data["history"])
            down = data["face_down"]
            discard = _counts(data["discard"])
            discard_down = [_counts(down[0]), _counts(down[1])]
            discard_up = [discard[c] - discard_down[0][c] - discard_down[1][c] for c in _ISLANDS]
            if min(discard_up) < 0:
                raise RecordError("'face_down' holds cards that are not in 'discard'")
            result = data["result"]
            to_move = data["to_move"]
            reshuffles = data["reshuffles"]
            if not isinstance(reshuffles, list) or not all(isinstance(r, str) for r in reshuffles):
                raise RecordError("'reshuffles' must be a list of strings")
            deal = data["deal"]
            if deal is not None and not isinstance(deal, str):
                raise RecordError("'deal' must be a string or null")
            state = cls(
                variant=variant,
                round=_int(data["round"]),
                phase=phase,
                to_move=0 if to_move is None else _int(to_move),
                bridges=[_owner(data["bridges"][n]) for n in LINE_NAMES],
                stones=[_owner(data["stones"][x]) for x in LETTERS],
                hands=[_counts(data["hands"][0]), _counts(data["hands"][1])],
                display=_counts(data["display"]),
                deck=_order_to_cards(_str(data["deck"]), "deck")[::-1],
                discard_up=discard_up,
                discard_down=discard_down,
                declined=_bool(data["declined"]),
                final_turns=_int(data["final_turns"]),
                points=[[_int(p) for p in data["points"][s]] for s in (0, 1)],
                outcome=None if result is None else Outcome.from_json(result, data["termination"]),
                known=[_counts(data["known"][0]), _counts(data["known"][1])],
                history=history,
                deal=deal,
                reshuffles=list(reshuffles),
                reshuffle_queue=[],
                rng=None,
            )
            supply = [
                {"bridges": _int(data["supply"][s]["bridges"]), "stones": _int(data["supply"][s]["stones"])}
                for s in (0, 1)
            ]
        except RecordError:
            raise
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise RecordError(f"malformed state: {exc!r}") from None
        if to_move is None and phase is not _OVER:
            raise RecordError("'to_move' is null only when the game is over")
        if supply != state.to_json()["supply"]:
            raise RecordError("'supply' does not match the bridges and stones on the board")
        problem = state.invariant_violation()
        if problem:
            raise RecordError(f"inconsistent state: {problem}")
        return state

    def invariant_violation(self) -> str | None:
        """What is impossible about this state, or ``None``: every invariant the referee keeps.

        Used by the property tests after every action and by :meth:`from_json` on its input.
        """
        if self.round not in range(1, ROUNDS + 1) or not isinstance(self.phase, Phase):
            return f"bad round/phase {self.round}/{self.phase!r}"
        if self.to_move not in (0, 1):
            return f"to_move must be 0 or 1, not {self.to_move!r}"
        if any(o not in (NOBODY, 0, 1) for o in self.bridges) or any(o not in (NOBODY, 0, 1) for o in self.stones):
            return "owners must be 0, 1 or nobody"
        piles = (*self.hands, self.display, self.discard_up, *self.discard_down, *self.known)
        if any(len(p) != NUM_ISLANDS or min(p) < 0 for p in piles) or any(c not in _ISLANDS for c in self.deck):
            return "card counts must be 12 non-negative numbers and the deck island indices"
        if self.card_total() != NUM_CARDS:
            return f"{self.card_total()} cards instead of {NUM_CARDS}"
        all_cards = [
            self.hands[0][c] + self.hands[1][c] + self.display[c] + self.discard_pile()[c] + self.deck.count(c)
            for c in range(NUM_ISLANDS)
        ]
        if any(n != CARDS_PER_ISLAND for n in all_cards):
            return "every island must have exactly two cards"
        if self.phase is _PLAY and (not self.deck and not any(self.display)):
            return "a round is running with no card left to take"
        if self.phase is _PLAY and (self.final_turns or self.outcome is not None):
            return "final turns or a result while the rounds are being played"
        if self.phase is _FINAL and (self.round != ROUNDS or self.final_turns not in (1, 2) or self.declined):
            return "the last turns come after round 3 (1 or 2 of them, nobody declines)"
        if self.phase is _FINAL and (self.deck or any(self.display) or self.outcome is not None):
            return "cards to take or a result during the last turns"
        if (self.phase is _OVER) != (self.outcome is not None):
            return "a result exactly when the game is over"
        for seat in (0, 1):
            other = 1 - seat
            if self.supply_bridges[seat] != BRIDGES_PER_PLAYER - self.bridges.count(seat) or not (
                0 <= self.supply_bridges[seat] <= BRIDGES_PER_PLAYER
            ):
                return f"seat {seat}: bridges on board and in supply do not make {BRIDGES_PER_PLAYER}"
            if self.supply_stones[seat] != STONES_PER_PLAYER - self.stones.count(seat) or not (
                0 <= self.supply_stones[seat] <= STONES_PER_PLAYER
            ):
                return f"seat {seat}: stones on board and in supply do not make {STONES_PER_PLAYER}"
            if self.hand_size[seat] != sum(self.hands[seat]):
                return f"seat {seat}: the hand size is not the number of cards in the hand"
            if self.hand_size[seat] > HAND_LIMIT:
                return f"seat {seat} holds more than {HAND_LIMIT} cards"
            if any(self.known[seat][c] > self.hands[seat][c] for c in _ISLANDS):
                return f"seat {seat}: more cards known to be in the hand than it holds"
            recount = [0] * NUM_ISLANDS
            for line, owner in enumerate(self.bridges):
                if owner == seat:
                    for island in LINES[line]:
                        recount[island] += 1
            if recount != self.counts[seat]:
                return f"seat {seat}: the bridge counts per island do not match the board"
            for island in _ISLANDS:
                if self.stones[island] == seat and self.counts[seat][island] < CONTROL[island]:
                    return f"seat {seat} has a stone on {LETTERS[island]} without a majority"
            if len(self.points[seat]) != ROUNDS:
                return f"seat {seat}: points must have {ROUNDS} entries"
            for r, gained in enumerate(self.points[seat][: ROUNDS - 1]):
                scored = r + 1 < self.round or self.phase is not _PLAY
                if gained not in ((0, ROUND_POINTS[r]) if scored else (0,)) or (gained and self.points[other][r]):
                    return f"seat {seat}: {gained} points for round {r + 1}"
            if self.points[seat][ROUNDS - 1] and (self.phase is not _OVER or self.points[other][ROUNDS - 1]):
                return f"seat {seat}: round 3 points before the final scoring"
        return None

    # ----------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    def stones_on_board(self, seat: int) -> int:
        return STONES_PER_PLAYER - self.supply_stones[seat]

    def bridges_on_board(self, seat: int) -> int:
        return BRIDGES_PER_PLAYER - self.supply_bridges[seat]

    def _may_build_on(self, line: int, seat: int) -> bool:
        """``line`` is free and, under the variant, touches no opposing stone."""
        if self.bridges[line] != NOBODY:
            return False
        if self.variant.no_build_at_enemy_stone:
            a, b = LINES[line]
            other = 1 - seat
            if self.stones[a] == other or self.stones[b] == other:
                return False
        return True

    def _may_replace(self, line: int, seat: int) -> bool:
        """The variant's replacing bridge is allowed on ``line`` once the opponent's bridge is gone."""
        if not self.variant.no_build_at_enemy_stone:
            return True
        other = 1 - seat
        for island in LINES[line]:
            # The removal costs the opponent the stone here if they drop below control.
            if self.stones[island] == other and self.counts[other][island] - 1 >= CONTROL[island]:
                return False
        return True

    def legal_actions(self) -> list[Action]:
        """Every legal action, sorted by token (NOTATION.md), each token once."""
        if self.phase is _OVER:
            return []
        seat = self.to_move
        hand = self.hands[seat]
        bridges = self.bridges
        held = list(compress(_ISLANDS, hand))
        # Token order: "-X" < "X>Y" < "d?" < "dX" < "end" < "pass" < "xXY:.." (plain sort order).
        out = list(compress(acts.DISCARD, hand))
        if self.supply_bridges[seat]:
            if self.variant.no_build_at_enemy_stone:
                out += [a for c in held for line, a in _BUILDS[c] if self._may_build_on(line, seat)]
            else:
                out += [a for c in held for line, a in _BUILDS[c] if bridges[line] == NOBODY]
        if self.phase is _PLAY:
            if self.hand_size[seat] < HAND_LIMIT:
                if self.deck:
                    out.append(acts.TAKE_DECK)
                out += compress(acts.TAKE_DISPLAY, self.display)
            if not self.declined:
                out.append(acts.PASS)
        else:
            out.append(acts.END)
        other = 1 - seat
        if self.hand_size[seat] >= 2 and self.supply_bridges[other] < BRIDGES_PER_PLAYER:
            lines = sorted({line for c in held for line in ISLAND_LINES[c] if bridges[line] == other})
            replace = self.variant.replace_on_remove and self.supply_bridges[seat] > 0
            for line in lines:
                a, b = LINES[line]
                na, nb = hand[a], hand[b]
                plain = acts.REMOVE[line]
                extra = acts.REMOVE_REPLACE[line] if replace and self._may_replace(line, seat) else None
                for pair, ok in enumerate((na >= 2, na and nb, nb >= 2)):
                    if ok:
                        out.append(plain[pair])
                        if extra is not None:
                            out.append(extra[pair])
        return out

    def why_illegal(self, action: Action) -> Reason | None:
        """Why ``action`` may not be applied now (a code, parameters and a sentence); ``None`` when
        it is legal. It agrees with :meth:`legal_actions` on every action (a property test)."""
        if self.phase is _OVER:
            return Reason.of("game_over")
        seat = self.to_move
        hand = self.hands[seat]
        kind = action.kind
        if kind is _BUILD:
            if not hand[action.card]:
                return Reason.of("no_card", card=LETTERS[action.card])
            if not self.supply_bridges[seat]:
                return Reason.of("no_bridge_left")
            if self.bridges[action.line] != NOBODY:
                return Reason.of("line_occupied", line=LINE_NAMES[action.line])
            if not self._may_build_on(action.line, seat):
                return Reason.of("enemy_stone", line=LINE_NAMES[action.line])
            return None
        if kind is _REMOVE:
            line = LINE_NAMES[action.line]
            owner = self.bridges[action.line]
            if owner == NOBODY:
                return Reason.of("line_empty", line=line)
            if owner == seat:
                return Reason.of("own_bridge", line=line)
            for c in set(action.cards):
                needed = action.cards.count(c)
                if hand[c] < needed:
                    return Reason.of("cards_missing", card=LETTERS[c], held=hand[c], needed=needed)
            if action.replace:
                if not self.variant.replace_on_remove:
                    return Reason.of("replace_not_allowed")
                if not self.supply_bridges[seat]:
                    return Reason.of("no_bridge_to_replace")
                if not self._may_replace(action.line, seat):
                    return Reason.of("replace_at_enemy_stone", line=line)
            return None
        if kind is _DISCARD:
            return None if hand[action.card] else Reason.of("no_card", card=LETTERS[action.card])
        if kind is _END:
            return None if self.phase is _FINAL else Reason.of("end_only_in_final")
        if self.phase is _FINAL:
            return Reason.of("no_draw_in_final")
        if kind is _PASS:
            return Reason.of("declined_twice") if self.declined else None
        if self.hand_size[seat] >= HAND_LIMIT:
            return Reason.of("hand_full", limit=HAND_LIMIT)
        if kind is _TAKE_DECK:
            return None if self.deck else Reason.of("deck_empty")
        return None if self.display[action.card] else Reason.of("not_in_display", card=LETTERS[action.card])

    def is_legal(self, action: Action) -> bool:
        return self.why_illegal(action) is None

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action | str) -> list[Event]:
        """Apply one action (object or token) for the seat to move and return its events in order.

        The action is checked against the state as it is now, whatever happened to it before.
        Raises ``NotationError`` for an unknown token, ``IllegalActionError`` (with the reason)
        for an illegal action, and ``RecordError`` when a reshuffle is due but no order is queued
        and the state has no RNG; in every case the state is unchanged.
        """
        if isinstance(action, str):
            action = acts.parse(action)
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalActionError(reason)
        return self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> list[Event]:
        """:meth:`apply` without the legality check, for search: only for an action just taken
        from :meth:`legal_actions` of this very state (anything else may corrupt the state).
        Client-facing code (server, terminal, records) always uses :meth:`apply`."""
        kind = action.kind
        order = self._next_order() if kind is _TAKE_DISPLAY and self.needs_reshuffle(action) else None
        events: list[Event] = []
        seat = self.to_move
        self.history.append((seat, action))
        round_before = self.round
        if kind is _BUILD:
            self._play_card(seat, action.card)
            self.discard_up[action.card] += 1
            self._build(seat, action.line, action.card, events)
        elif kind is _REMOVE:
            self._remove(seat, action, events)
        elif kind is _DISCARD:
            self._discard(seat, action.card, events)
            return events
        elif kind is _END:
            self._end_final_turn(seat, events)
            return events
        else:
            self._end_play_turn(seat, action, order, events)
            if self.round == round_before:
                return events
        # Only bridges moving or a new round can bring the early end (checked from round 2 on).
        if self.round >= 2 and self.phase is not _OVER:
            self._check_no_bridges(events)
        return events

    def ends_round(self, action: Action) -> bool:
        """Whether ``action`` takes the last card of the round."""
        return action.kind is Kind.TAKE_DISPLAY and not self.deck and sum(self.display) == 1

    def needs_reshuffle(self, action: Action) -> bool:
        """Whether applying ``action`` starts a new round and so consumes a reshuffle order
        (queued in :attr:`reshuffle_queue`, else drawn from :attr:`rng`): the hook for callers that
        model chance explicitly, such as the OpenSpiel adapter."""
        return self.round < ROUNDS and self.ends_round(action)

    def _play_card(self, seat: int, card: int) -> None:
        """A card leaves the hand face up: public knowledge of that hand shrinks accordingly."""
        self.hands[seat][card] -= 1
        self.hand_size[seat] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1

    def _build(self, seat: int, line: int, card: int | None, events: list[Event]) -> None:
        """Put a bridge on ``line`` (``card`` is ``None`` for the variant's replacing bridge)."""
        self.bridges[line] = seat
        self.supply_bridges[seat] -= 1
        a, b = LINES[line]
        counts = self.counts[seat]
        counts[a] += 1
        counts[b] += 1
        events.append(BridgeBuilt(seat, card, line))
        for island in (a, b):
            if self.stones[island] == NOBODY and counts[island] >= CONTROL[island] and self.supply_stones[seat] > 0:
                self._claim(seat, island, events)

    def _claim(self, seat: int, island: int, events: list[Event]) -> None:
        self.stones[island] = seat
        self.supply_stones[seat] -= 1
        events.append(IslandClaimed(seat, island))
        other = 1 - seat
        for line in ISLAND_LINES[island]:
            if self.bridges[line] == other:
                events.append(BridgeReturned(other, line))
                self._take_bridge_away(other, line, events)

    def _take_bridge_away(self, owner: int, line: int, events: list[Event]) -> None:
        """A bridge returns to ``owner``'s supply; stones that lose their majority follow it."""
        self.bridges[line] = NOBODY
        self.supply_bridges[owner] += 1
        counts = self.counts[owner]
        for island in LINES[line]:
            counts[island] -= 1
            if self.stones[island] == owner and counts[island] < CONTROL[island]:
                self.stones[island] = NOBODY
                self.supply_stones[owner] += 1
                events.append(StoneLost(owner, island))

    def _remove(self, seat: int, action: Action, events: list[Event]) -> None:
        for c in action.cards:
            self._play_card(seat, c)
            self.discard_up[c] += 1
        other = 1 - seat
        events.append(BridgeRemoved(seat, other, action.line, action.cards))
        self._take_bridge_away(other, action.line, events)
        if action.replace:
            self._build(seat, action.line, None, events)

    def _discard(self, seat: int, card: int, events: list[Event]) -> None:
        self.hands[seat][card] -= 1
        self.hand_size[seat] -= 1
        self.discard_down[seat][card] += 1
        # Nobody else learns the card, so every card known to be in this hand may be the one gone.
        known = self.known[seat]
        for c in range(NUM_ISLANDS):
            if known[c]:
                known[c] -= 1
        events.append(CardDiscarded(seat, card))

    def _end_play_turn(self, seat: int, action: Action, order: list[int] | None, events: list[Event]) -> None:
        if action.kind is _PASS:
            self.declined = True
            events.append(Declined(seat))
            self.to_move = 1 - seat
            return
        self.declined = False
        if action.kind is _TAKE_DECK:
            card = self.deck.pop()
            events.append(CardTaken(seat, card, False))
        else:
            card = action.card
            self.display[card] -= 1
            self.known[seat][card] += 1
            events.append(CardTaken(seat, card, True))
            if self.deck:
                top = self.deck.pop()
                self.display[top] += 1
                events.append(DisplayRefilled(top))
        self.hands[seat][card] += 1
        self.hand_size[seat] += 1
        self.to_move = 1 - seat
        if not self.deck and not any(self.display):
            self._end_round(order, events)

    def _end_round(self, order: list[int] | None, events: list[Event]) -> None:
        """The last card of a round was taken: rounds 1 and 2 are scored now; round 3 only at
        the final scoring after the two last turns (RULES.md, *Scoring*)."""
        if self.round == ROUNDS:
            self.phase = _FINAL
            self.final_turns = 2
            events.append(FinalTurnsBegan(self.to_move))
            return
        stones = (self.stones_on_board(0), self.stones_on_board(1))
        gained = [0, 0]
        if stones[0] != stones[1]:
            leader = 0 if stones[0] > stones[1] else 1
            gained[leader] = ROUND_POINTS[self.round - 1]
            self.points[leader][self.round - 1] = gained[leader]
        events.append(RoundScored(self.round, stones, (gained[0], gained[1])))
        assert order is not None  # apply() obtained it before changing anything
        self._reshuffle(order, events)

    def discard_pile(self) -> list[int]:
        """The whole discard pile (face up and face down) as 12 counts: what the next reshuffle orders."""
        up, down0, down1 = self.discard_up, self.discard_down[0], self.discard_down[1]
        return [up[c] + down0[c] + down1[c] for c in range(NUM_ISLANDS)]

    def _next_order(self) -> list[int]:
        """The order of the coming reshuffle: the next queued one (checked) or a shuffle by the RNG.

        Called before the action that ends the round changes anything, so that a bad or missing
        order leaves the state untouched (taking the last card does not change the pile).
        """
        pile = self.discard_pile()
        if self.reshuffle_queue:
            text = self.reshuffle_queue[0]
            order = _order_to_cards(text, f"reshuffle for round {self.round + 1}")
            counts = [0] * NUM_ISLANDS
            for c in order:
                counts[c] += 1
            if counts != pile:
                raise RecordError(
                    f"reshuffle for round {self.round + 1} {text!r} is not an ordering of the "
                    f"discard pile {cards_to_str(pile)!r}"
                )
            return order
        if self.rng is None:
            raise RecordError(f"a reshuffle order is needed for round {self.round + 1}")
        order = [c for c in range(NUM_ISLANDS) for _ in range(pile[c])]
        self.rng.shuffle(order)
        return order

    def _reshuffle(self, order: list[int], events: list[Event]) -> None:
        if self.reshuffle_queue:
            self.reshuffle_queue.pop(0)
        self.reshuffles.append("".join(LETTERS[c] for c in order))
        self.discard_up = [0] * NUM_ISLANDS
        self.discard_down = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        self.display = [0] * NUM_ISLANDS
        for c in order[:DISPLAY_SIZE]:
            self.display[c] += 1
        self.deck = order[DISPLAY_SIZE:][::-1]
        self.round += 1
        events.append(Reshuffled(self.round, cards_to_str(self.display), len(self.deck)))

    def _end_final_turn(self, seat: int, events: list[Event]) -> None:
        events.append(TurnEnded(seat))
        self.final_turns -= 1
        if self.final_turns:
            self.to_move = 1 - seat
            return
        stones = (self.stones_on_board(0), self.stones_on_board(1))
        gained = [0, 0]
        if stones[0] != stones[1]:
            leader = 0 if stones[0] > stones[1] else 1
            gained[leader] = abs(stones[0] - stones[1])
        self.points[0][ROUNDS - 1], self.points[1][ROUNDS - 1] = gained
        events.append(RoundScored(ROUNDS, stones, (gained[0], gained[1]), final=True))
        totals = (sum(self.points[0]), sum(self.points[1]))
        if totals[0] != totals[1]:
            self._finish(0 if totals[0] > totals[1] else 1, "points", events)
        elif gained[0] != gained[1]:
            self._finish(0 if gained[0] else 1, "final-scoring", events)
        else:
            b0, b1 = self.bridges_on_board(0), self.bridges_on_board(1)
            if b0 != b1:
                self._finish(0 if b0 > b1 else 1, "bridges", events)
            else:
                self._finish(None, "draw", events)

    def _check_no_bridges(self, events: list[Event]) -> None:
        b0, b1 = self.bridges_on_board(0), self.bridges_on_board(1)
        if (b0 == 0) != (b1 == 0):
            self._finish(0 if b0 else 1, "no-bridges", events)

    def _finish(self, winner: int | None, reason: str, events: list[Event], seat: int | None = None) -> None:
        self.phase = _OVER
        self.final_turns = 0
        self.declined = False
        self.outcome = Outcome(winner, reason, seat)
        events.append(GameOver(winner, reason))

    def terminate(self, termination: Termination) -> list[Event]:
        """End the game off the board (resignation, timeout, abort): the board, cards and points
        stay as they are. ``IllegalActionError`` (code ``game_over``) if the game is already over."""
        if self.phase is _OVER:
            raise IllegalActionError(Reason.of("game_over"))
        events: list[Event] = []
        self._finish(termination.winner, termination.reason, events, termination.seat)
        return events

    @property
    def termination(self) -> Termination | None:
        """How the game ended off the board, or ``None``."""
        outcome = self.outcome
        if outcome is None or outcome.seat is None:
            return None
        return Termination(outcome.reason, outcome.seat)

    # ----------------------------------------------------------------- output

    def to_json(self, complete: bool = False) -> dict[str, Any]:
        """The omniscient state document of NOTATION.md (every hidden card included).

        With ``complete``, also what the views need and the plain document leaves out (the
        project's extension, docs/NOTATION.md): ``variant``, ``face_down`` (each seat's face-down
        discards), ``known``, ``history`` (``[seat, token]`` pairs), ``deal`` and ``reshuffles``;
        :meth:`from_json` rebuilds exactly this state from it.
        """
        doc: dict[str, Any] = {
            "round": self.round,
            "phase": self.phase.value,
            "to_move": None if self.phase is _OVER else self.to_move,
            "bridges": {LINE_NAMES[i]: (None if o == NOBODY else o) for i, o in enumerate(self.bridges)},
            "stones": {LETTERS[i]: (None if o == NOBODY else o) for i, o in enumerate(self.stones)},
            "supply": [{"bridges": self.supply_bridges[s], "stones": self.supply_stones[s]} for s in (0, 1)],
            "hands": [cards_to_str(self.hands[0]), cards_to_str(self.hands[1])],
            "display": cards_to_str(self.display),
            "deck": "".join(LETTERS[c] for c in reversed(self.deck)),
            "discard": cards_to_str(self.discard_pile()),
            "declined": self.declined,
            "final_turns": self.final_turns,
            "points": [self.points[0][:], self.points[1][:]],
            "result": None if self.outcome is None else self.outcome.to_json(),
        }
        if complete:
            doc["variant"] = self.variant.to_json()
            doc["face_down"] = [cards_to_str(self.discard_down[0]), cards_to_str(self.discard_down[1])]
            doc["known"] = [cards_to_str(self.known[0]), cards_to_str(self.known[1])]
            doc["history"] = [[seat, action.token] for seat, action in self.history]
            doc["deal"] = self.deal
            doc["reshuffles"] = list(self.reshuffles)
            termination = self.termination
            doc["termination"] = None if termination is None else termination.to_json()
        return doc

    def card_total(self) -> int:
        """All cards in hands, display, deck and discard pile: always 24 (an invariant for tests)."""
        return (
            sum(self.hand_size)
            + sum(self.display)
            + len(self.deck)
            + sum(self.discard_up)
            + sum(self.discard_down[0])
            + sum(self.discard_down[1])
        )

    def __repr__(self) -> str:
        return f"<GameState round={self.round} phase={self.phase} to_move={self.to_move} actions={len(self.history)}>"


__all__ = ["NOBODY", "GameState", "Outcome", "Phase", "Termination", "Variant"]
