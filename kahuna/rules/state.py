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

PLAY, FINAL, OVER = "play", "final", "over"
NOBODY = -1
"""Owner value of a free line or an island without a stone."""

_ISLANDS = range(NUM_ISLANDS)
# Module-level names for the kinds: cheaper than attribute look-ups on the enum in the hot paths.
_BUILD, _REMOVE, _DISCARD, _END = Kind.BUILD, Kind.REMOVE, Kind.DISCARD, Kind.END
_TAKE_DISPLAY, _TAKE_DECK, _PASS = Kind.TAKE_DISPLAY, Kind.TAKE_DECK, Kind.PASS
_BUILDS = tuple(tuple((line, acts.BUILD[c][line]) for _, line in NEIGHBOURS[c]) for c in _ISLANDS)
"""``_BUILDS[card]``: ``(line, build action)`` for the card's lines, in token order."""
_ROUND_POINTS = (1, 2, 3)
"""Points for the leader in stones when a round's last card is taken. Round 3's 3 points are
provisional: the final scoring replaces them by the difference (as the reference traces show)."""


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
    """How a game ended: ``winner`` is a seat or ``None`` for a draw; ``reason`` as in NOTATION.md."""

    winner: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason}


def _counts(text: object) -> list[int]:
    if not isinstance(text, str):
        raise RecordError("card multisets are strings of island letters")
    counts = [0] * NUM_ISLANDS
    for c in _order_to_cards(text, "cards"):
        counts[c] += 1
    return counts


def _order_to_cards(order: str, what: str) -> list[int]:
    bad = [ch for ch in order if ch not in LETTERS]
    if bad:
        raise RecordError(f"{what} {order!r} holds {bad[0]!r}, which is not an island letter")
    return [LETTERS.index(ch) for ch in order]


class GameState:
    """A whole game of Kahuna as the referee sees it (every card included).

    Create one with :meth:`new` (random deal) or :meth:`from_deal`; ask :meth:`legal_actions`;
    change it only with :meth:`apply`, which validates, returns the events and leaves the state
    untouched when it raises. :meth:`to_json` gives the state format of NOTATION.md.
    """

    __slots__ = (
        "_legal",
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
    phase: str
    to_move: int
    bridges: list[int]
    """Owner seat of each line, or ``NOBODY``."""
    stones: list[int]
    """Owner seat of the stone on each island, or ``NOBODY``."""
    counts: list[list[int]]
    """``counts[seat][island]``: the seat's bridges on the island's lines (kept incrementally)."""
    supply_bridges: list[int]
    supply_stones: list[int]
    hands: list[list[int]]
    """``hands[seat][card]``: how many cards of each island the seat holds."""
    hand_size: list[int]
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
    _legal: list[Action] | None
    """The last answer of :meth:`legal_actions` until the next change: an action found in it
    needs no further validation in :meth:`apply` (the usual pattern of players and search)."""

    # ----------------------------------------------------------------- creation

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
        self = cls.__new__(cls)
        self.variant = variant or Variant()
        self.round = 1
        self.phase = PLAY
        self.to_move = 0
        self.bridges = [NOBODY] * NUM_LINES
        self.stones = [NOBODY] * NUM_ISLANDS
        self.counts = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        self.supply_bridges = [BRIDGES_PER_PLAYER, BRIDGES_PER_PLAYER]
        self.supply_stones = [STONES_PER_PLAYER, STONES_PER_PLAYER]
        self.hands = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        start = HAND_SIZE_AT_START
        for seat in (0, 1):
            for c in cards[seat * start : (seat + 1) * start]:
                self.hands[seat][c] += 1
        self.hand_size = [start, start]
        self.display = [0] * NUM_ISLANDS
        for c in cards[2 * start : 2 * start + DISPLAY_SIZE]:
            self.display[c] += 1
        self.deck = cards[2 * start + DISPLAY_SIZE :][::-1]
        self.discard_up = [0] * NUM_ISLANDS
        self.discard_down = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        self.declined = False
        self.final_turns = 0
        self.points = [[0] * ROUNDS, [0] * ROUNDS]
        self.outcome = None
        self.known = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        self.history = []
        self.deal = deal
        self.reshuffles = []
        if not isinstance(reshuffles, list | tuple) or not all(isinstance(r, str) for r in reshuffles):
            raise RecordError("'reshuffles' must be a list of strings")
        self.reshuffle_queue = list(reshuffles)
        self.rng = None
        self._legal = None
        return self

    @classmethod
    def from_json(cls, data: object, variant: Variant | None = None) -> GameState:
        """A state from the omniscient state format of NOTATION.md (``RecordError`` if malformed).

        Used for hand-built positions (tests, puzzles, analysis). The result has no history and
        no record; reshuffles draw from ``state.rng``, which the caller sets if it needs one.
        """
        if not isinstance(data, dict):
            raise RecordError("a state must be a JSON object")
        try:
            self = cls.from_deal(LETTERS + LETTERS, variant)
            self.deal = None
            self.round = int(data["round"])
            self.phase = str(data["phase"])
            if self.phase not in (PLAY, FINAL, OVER) or not 1 <= self.round <= ROUNDS:
                raise RecordError(f"bad round/phase {self.round}/{self.phase!r}")
            to_move = data["to_move"]
            self.to_move = 0 if to_move is None else int(to_move)
            bridges = data["bridges"]
            self.bridges = [NOBODY if bridges[n] is None else int(bridges[n]) for n in LINE_NAMES]
            stones = data["stones"]
            self.stones = [NOBODY if stones[x] is None else int(stones[x]) for x in LETTERS]
            self.supply_bridges = [int(data["supply"][s]["bridges"]) for s in (0, 1)]
            self.supply_stones = [int(data["supply"][s]["stones"]) for s in (0, 1)]
            self.hands = [_counts(data["hands"][s]) for s in (0, 1)]
            self.hand_size = [sum(h) for h in self.hands]
            self.display = _counts(data["display"])
            self.deck = _order_to_cards(str(data["deck"]), "deck")[::-1]
            self.discard_up = _counts(data["discard"])
            self.discard_down = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
            self.declined = bool(data["declined"])
            self.final_turns = int(data["final_turns"])
            self.points = [[int(p) for p in data["points"][s]] for s in (0, 1)]
            result = data["result"]
            self.outcome = None if result is None else Outcome(result["winner"], str(result["reason"]))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"malformed state: {exc!r}") from None
        self.counts = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
        for line, owner in enumerate(self.bridges):
            if owner not in (NOBODY, 0, 1) or any(o not in (NOBODY, 0, 1) for o in self.stones):
                raise RecordError("owners must be 0, 1 or null")
            if owner != NOBODY:
                for island in LINES[line]:
                    self.counts[owner][island] += 1
        problem = self.invariant_violation()
        if problem:
            raise RecordError(f"inconsistent state: {problem}")
        return self

    def invariant_violation(self) -> str | None:
        """What is impossible about this state (for property tests and input checks), or ``None``."""
        if self.card_total() != NUM_CARDS:
            return f"{self.card_total()} cards instead of {NUM_CARDS}"
        all_cards = [
            self.hands[0][c] + self.hands[1][c] + self.display[c] + self.discard_pile()[c] + self.deck.count(c)
            for c in range(NUM_ISLANDS)
        ]
        if any(n != CARDS_PER_ISLAND for n in all_cards):
            return "every island must have exactly two cards"
        for seat in (0, 1):
            on_board = self.bridges.count(seat)
            if on_board + self.supply_bridges[seat] != BRIDGES_PER_PLAYER:
                return f"seat {seat}: bridges on board and in supply do not make {BRIDGES_PER_PLAYER}"
            if self.stones.count(seat) + self.supply_stones[seat] != STONES_PER_PLAYER:
                return f"seat {seat}: stones on board and in supply do not make {STONES_PER_PLAYER}"
            if self.hand_size[seat] > HAND_LIMIT:
                return f"seat {seat} holds more than {HAND_LIMIT} cards"
            for island in range(NUM_ISLANDS):
                if self.stones[island] == seat and self.counts[seat][island] < CONTROL[island]:
                    return f"seat {seat} has a stone on {LETTERS[island]} without a majority"
        return None

    def copy(self) -> GameState:
        """An independent copy (the RNG object is shared: search may draw from it)."""
        new = GameState.__new__(GameState)
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
        new._legal = self._legal
        return new

    # ----------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

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
        if self._legal is not None:
            return self._legal[:]
        if self.phase == OVER:
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
        if self.phase == PLAY:
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
        self._legal = out
        return out[:]

    def why_illegal(self, action: Action) -> str | None:
        """Why ``action`` may not be applied now, in words; ``None`` when it is legal."""
        if self.phase == OVER:
            return "the game is over"
        seat = self.to_move
        hand = self.hands[seat]
        kind = action.kind
        if kind is Kind.BUILD:
            line = LINE_NAMES[action.line]
            if not hand[action.card]:
                return f"you hold no {LETTERS[action.card]} card"
            if not self.supply_bridges[seat]:
                return "you have no bridge left in your supply"
            if self.bridges[action.line] != NOBODY:
                return f"line {line} is occupied"
            if not self._may_build_on(action.line, seat):
                return f"line {line} touches an opposing stone (variant no_build_at_enemy_stone)"
            return None
        if kind is Kind.REMOVE:
            line = LINE_NAMES[action.line]
            owner = self.bridges[action.line]
            if owner == NOBODY:
                return f"line {line} has no bridge to remove"
            if owner == seat:
                return f"the bridge on {line} is your own"
            need = [0] * NUM_ISLANDS
            for c in action.cards:
                need[c] += 1
            for c in set(action.cards):
                if hand[c] < need[c]:
                    n = need[c]
                    return f"you hold {'no' if not hand[c] else 'only one'} {LETTERS[c]} card" + (
                        "" if n == 1 else f" (the removal needs {n})"
                    )
            if action.replace:
                if not self.variant.replace_on_remove:
                    return "removal with replacement ('+') is only allowed with variant replace_on_remove"
                if not self.supply_bridges[seat]:
                    return "you have no bridge left in your supply to put on the freed line"
                if not self._may_replace(action.line, seat):
                    return f"line {line} would touch an opposing stone (variant no_build_at_enemy_stone)"
            return None
        if kind is Kind.DISCARD:
            return None if hand[action.card] else f"you hold no {LETTERS[action.card]} card"
        if kind is Kind.END:
            return None if self.phase == FINAL else "'end' is only for the two last turns after round 3"
        if self.phase == FINAL:
            return "in the last turns after round 3 nobody draws: end the turn with 'end'"
        if kind is Kind.PASS:
            return "you may not decline: your opponent declined last turn" if self.declined else None
        if self.hand_size[seat] >= HAND_LIMIT:
            return f"you hold {HAND_LIMIT} cards: discard one before taking a card"
        if kind is Kind.TAKE_DECK:
            return None if self.deck else "the deck is empty"
        return None if self.display[action.card] else f"no {LETTERS[action.card]} card in the display"

    def is_legal(self, action: Action) -> bool:
        return self.why_illegal(action) is None

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action | str) -> list[Event]:
        """Apply one action (object or token) for the seat to move and return its events in order.

        Raises ``NotationError`` for an unknown token, ``IllegalActionError`` (with the reason)
        for an illegal action, and ``RecordError`` when a reshuffle is due but no order is queued
        and the state has no RNG; in every case the state is unchanged.
        """
        if isinstance(action, str):
            action = acts.parse(action)
        if self._legal is None or action not in self._legal:
            reason = self.why_illegal(action)
            if reason is not None:
                raise IllegalActionError(reason)
        kind = action.kind
        order = self._next_order() if kind is _TAKE_DISPLAY and self.needs_reshuffle(action) else None
        events: list[Event] = []
        seat = self.to_move
        self._legal = None
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
        if self.round >= 2 and self.phase != OVER:
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
        stones = (self.stones_on_board(0), self.stones_on_board(1))
        gained = [0, 0]
        if stones[0] != stones[1]:
            leader = 0 if stones[0] > stones[1] else 1
            gained[leader] = _ROUND_POINTS[self.round - 1]
            self.points[leader][self.round - 1] = gained[leader]
        events.append(RoundScored(self.round, stones, (gained[0], gained[1])))
        if self.round == ROUNDS:
            self.phase = FINAL
            self.final_turns = 2
            events.append(FinalTurnsBegan(self.to_move))
            return
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

    def _finish(self, winner: int | None, reason: str, events: list[Event]) -> None:
        self.phase = OVER
        self.final_turns = 0
        self.declined = False
        self.outcome = Outcome(winner, reason)
        events.append(GameOver(winner, reason))

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict[str, Any]:
        """The omniscient state document of NOTATION.md (every hidden card included)."""
        return {
            "round": self.round,
            "phase": self.phase,
            "to_move": None if self.phase == OVER else self.to_move,
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


__all__ = ["FINAL", "NOBODY", "OVER", "PLAY", "GameState", "Outcome", "Variant"]
