"""Player views: what one seat (or a spectator) may know, and determinization from a view.

A :class:`PlayerView` is the only thing that leaves the referee for a seat, a spectator, an AI
or a log line. It follows the *Hidden information* table of RULES.md:

* public: board, stones, supplies, display, hand sizes, deck size, points, the face-up discards,
  the number of face-down discards of each seat, and the action history with the opponent's
  face-down discards written ``-?`` (a deck draw is ``d?`` for everybody anyway);
* private to the seat: its own hand and its own face-down discards;
* derived from public information: ``known`` — for each seat, cards that are certainly in its
  hand because it took them face up from the display and has not played them since. A face-up
  play of such a card removes it; a face-down discard (which may have been any card) lowers every
  known count by one, so ``known`` is always a sound lower bound;
* ``unseen``: per island, how many of its two cards this viewer has not seen in a place it can
  see now (opponent's unknown hand slots, deck, opponent's face-down discards) — the card
  tracker.

:func:`determinize` samples a complete :class:`GameState` consistent with a view: the unseen
cards are dealt uniformly at random (every ordering of the unseen cards equally likely) over the
hidden slots. It is what a fair AI plays on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kahuna.rules.actions import Action
from kahuna.rules.board import (
    CARDS_PER_ISLAND,
    LETTERS,
    LINE_NAMES,
    NUM_ISLANDS,
    cards_to_str,
    str_to_cards,
)
from kahuna.rules.errors import KahunaError, RecordError
from kahuna.rules.state import NOBODY, GameState, Outcome, Phase, Variant


@dataclass(frozen=True)
class PlayerView:
    """Everything ``seat`` may know (``seat`` is ``None`` for a spectator). JSON: :meth:`to_json`."""

    seat: int | None
    variant: Variant
    round: int
    phase: Phase
    to_move: int | None
    bridges: tuple[int, ...]
    stones: tuple[int, ...]
    supply_bridges: tuple[int, int]
    supply_stones: tuple[int, int]
    hand: tuple[int, ...] | None
    """The viewer's hand as 12 counts; ``None`` for a spectator."""
    hand_sizes: tuple[int, int]
    known: tuple[tuple[int, ...], tuple[int, ...]]
    display: tuple[int, ...]
    deck_size: int
    discard_face_up: tuple[int, ...]
    face_down_counts: tuple[int, int]
    own_face_down: tuple[int, ...] | None
    declined: bool
    final_turns: int
    points: tuple[tuple[int, ...], tuple[int, ...]]
    outcome: Outcome | None
    history: tuple[str, ...] = field(default=())

    # ----------------------------------------------------------------- derived

    @property
    def version(self) -> int:
        """The number of actions played: a game's position in its event log."""
        return len(self.history)

    def unseen(self) -> list[int]:
        """Per island, how many of its cards the viewer cannot locate (the card tracker)."""
        return list(self._unseen)

    @cached_property
    def _unseen(self) -> tuple[int, ...]:
        # Computed once per view: search samples many determinizations of the same view.
        seen = [0] * NUM_ISLANDS
        for counts in (self.display, self.discard_face_up, self.hand, self.own_face_down):
            if counts is not None:
                for c in range(NUM_ISLANDS):
                    seen[c] += counts[c]
        for seat in (0, 1):
            if seat != self.seat:
                for c in range(NUM_ISLANDS):
                    seen[c] += self.known[seat][c]
        return tuple(CARDS_PER_ISLAND - seen[c] for c in range(NUM_ISLANDS))

    # ----------------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        """The documented view object (docs/views.md); cards as sorted letters."""
        return {
            "seat": self.seat,
            "variant": self.variant.to_json(),
            "round": self.round,
            "phase": self.phase.value,
            "to_move": self.to_move,
            "bridges": {LINE_NAMES[i]: (None if o == NOBODY else o) for i, o in enumerate(self.bridges)},
            "stones": {LETTERS[i]: (None if o == NOBODY else o) for i, o in enumerate(self.stones)},
            "supply": [{"bridges": self.supply_bridges[s], "stones": self.supply_stones[s]} for s in (0, 1)],
            "hand": None if self.hand is None else cards_to_str(list(self.hand)),
            "hand_sizes": list(self.hand_sizes),
            "known": [cards_to_str(list(k)) for k in self.known],
            "display": cards_to_str(list(self.display)),
            "deck_size": self.deck_size,
            "discard_face_up": cards_to_str(list(self.discard_face_up)),
            "face_down_counts": list(self.face_down_counts),
            "own_face_down": None if self.own_face_down is None else cards_to_str(list(self.own_face_down)),
            "declined": self.declined,
            "final_turns": self.final_turns,
            "points": [list(p) for p in self.points],
            "result": None if self.outcome is None else self.outcome.to_json(),
            "unseen": {LETTERS[c]: n for c, n in enumerate(self.unseen())},
            "history": list(self.history),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayerView:
        """Back from :meth:`to_json` (for external bots and clients); ``RecordError`` if malformed."""
        try:
            result = data["result"]
            hand = data["hand"]
            own_down = data["own_face_down"]
            return cls(
                seat=data["seat"],
                variant=Variant.from_json(data["variant"]),
                round=int(data["round"]),
                phase=Phase(data["phase"]),
                to_move=data["to_move"],
                bridges=tuple(NOBODY if data["bridges"][n] is None else int(data["bridges"][n]) for n in LINE_NAMES),
                stones=tuple(NOBODY if data["stones"][x] is None else int(data["stones"][x]) for x in LETTERS),
                supply_bridges=(int(data["supply"][0]["bridges"]), int(data["supply"][1]["bridges"])),
                supply_stones=(int(data["supply"][0]["stones"]), int(data["supply"][1]["stones"])),
                hand=None if hand is None else tuple(str_to_cards(hand)),
                hand_sizes=(int(data["hand_sizes"][0]), int(data["hand_sizes"][1])),
                known=(tuple(str_to_cards(data["known"][0])), tuple(str_to_cards(data["known"][1]))),
                display=tuple(str_to_cards(data["display"])),
                deck_size=int(data["deck_size"]),
                discard_face_up=tuple(str_to_cards(data["discard_face_up"])),
                face_down_counts=(int(data["face_down_counts"][0]), int(data["face_down_counts"][1])),
                own_face_down=None if own_down is None else tuple(str_to_cards(own_down)),
                declined=bool(data["declined"]),
                final_turns=int(data["final_turns"]),
                points=(tuple(data["points"][0]), tuple(data["points"][1])),
                outcome=None if result is None else Outcome(result["winner"], result["reason"]),
                history=tuple(data["history"]),
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise RecordError(f"malformed player view: {exc!r}") from None


def view_of(state: GameState, seat: int | None) -> PlayerView:
    """What ``seat`` (0, 1, or ``None`` for a spectator) may know of ``state``."""
    if seat not in (0, 1, None):
        raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
    history = tuple(shown_history(state, seat))
    return PlayerView(
        seat=seat,
        variant=state.variant,
        round=state.round,
        phase=state.phase,
        to_move=None if state.phase is Phase.OVER else state.to_move,
        bridges=tuple(state.bridges),
        stones=tuple(state.stones),
        supply_bridges=(state.supply_bridges[0], state.supply_bridges[1]),
        supply_stones=(state.supply_stones[0], state.supply_stones[1]),
        hand=None if seat is None else tuple(state.hands[seat]),
        hand_sizes=(state.hand_size[0], state.hand_size[1]),
        known=(tuple(state.known[0]), tuple(state.known[1])),
        display=tuple(state.display),
        deck_size=len(state.deck),
        discard_face_up=tuple(state.discard_up),
        face_down_counts=(sum(state.discard_down[0]), sum(state.discard_down[1])),
        own_face_down=None if seat is None else tuple(state.discard_down[seat]),
        declined=state.declined,
        final_turns=state.final_turns,
        points=(tuple(state.points[0]), tuple(state.points[1])),
        outcome=state.outcome,
        history=history,
    )


def shown_token(state: GameState, seat: int | None, index: int) -> str:
    """The action at ``index`` of ``state``'s history as ``seat`` sees it: its own in full, the
    other seat's as a spectator sees it (an opponent's face-down discard is ``-?``)."""
    actor, action = state.history[index]
    return action.token if actor == seat else action.public_token


_OWNER_SHOWN = (0, 1, None)
"""An owner as a view shows it, indexed by the owner: seat 0, seat 1, or ``None`` for ``NOBODY`` (-1)."""
assert _OWNER_SHOWN[NOBODY] is None


def shown_history(state: GameState, seat: int | None) -> list[str]:
    """``state``'s history as ``seat`` sees it (each entry as :func:`shown_token` has it)."""
    return [action.token if actor == seat else action.public_token for actor, action in state.history]


Previous = tuple[GameState, dict[str, Any]]
"""A state and the JSON built from it before (:func:`public_json`, :func:`view_json`): the parts
of that JSON whose fields of the state are equal in the new state are taken over, not built again."""


def public_json(state: GameState, previous: Previous | None = None) -> dict[str, Any]:
    """The fields of :func:`view_json` that every viewer of ``state`` sees alike (everything but
    ``seat``, ``hand``, ``own_face_down``, ``unseen`` and ``history``): computed once, they serve each
    recipient's view of one state. ``previous``: another state and its ``public_json``, whose parts
    are taken over where the fields they are built from are equal (an action changes few of them).
    Never to be changed: the views built from it share its values."""
    supply_bridges, supply_stones, outcome = state.supply_bridges, state.supply_stones, state.outcome
    known, down = state.known, state.discard_down
    was, old = (None, {}) if previous is None else previous
    return {
        "variant": old["variant"] if was is not None and was.variant == state.variant else state.variant.to_json(),
        "round": state.round,
        "phase": state.phase.value,
        "to_move": None if state.phase is Phase.OVER else state.to_move,
        "bridges": old["bridges"]
        if was is not None and was.bridges == state.bridges
        else dict(zip(LINE_NAMES, map(_OWNER_SHOWN.__getitem__, state.bridges), strict=True)),
        "stones": old["stones"]
        if was is not None and was.stones == state.stones
        else dict(zip(LETTERS, map(_OWNER_SHOWN.__getitem__, state.stones), strict=True)),
        "supply": old["supply"]
        if was is not None and was.supply_bridges == supply_bridges and was.supply_stones == supply_stones
        else [
            {"bridges": supply_bridges[0], "stones": supply_stones[0]},
            {"bridges": supply_bridges[1], "stones": supply_stones[1]},
        ],
        "hand_sizes": old["hand_sizes"]
        if was is not None and was.hand_size == state.hand_size
        else [state.hand_size[0], state.hand_size[1]],
        "known": old["known"]
        if was is not None and was.known == known
        else [cards_to_str(known[0]), cards_to_str(known[1])],
        "display": old["display"] if was is not None and was.display == state.display else cards_to_str(state.display),
        "deck_size": len(state.deck),
        "discard_face_up": old["discard_face_up"]
        if was is not None and was.discard_up == state.discard_up
        else cards_to_str(state.discard_up),
        "face_down_counts": old["face_down_counts"]
        if was is not None and was.discard_down == down
        else [sum(down[0]), sum(down[1])],
        "declined": state.declined,
        "final_turns": state.final_turns,
        "points": old["points"]
        if was is not None and was.points == state.points
        else [list(state.points[0]), list(state.points[1])],
        "result": None if outcome is None else outcome.to_json(),
    }


def view_json(
    state: GameState,
    seat: int | None,
    *,
    history: bool = True,
    public: dict[str, Any] | None = None,
    previous: Previous | None = None,
) -> dict[str, Any]:
    """``view_of(state, seat).to_json()``, built straight from the state (the server renders a view
    per recipient after every action: no :class:`PlayerView` in between); with ``history=False``
    the same object without its ``history`` key, whose length grows with the game (an update of
    protocol 2 or 3 never sends it). ``public``: :func:`public_json` of ``state``, if the caller has
    it (the view then shares its values); ``previous``: another state and ``seat``'s view of it,
    whose own parts (hand, face-down discards, the card tracker) are taken over where the fields
    they are built from are equal. ``tests/rules/test_rules_views.py`` holds them all equal."""
    if seat not in (0, 1, None):
        raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
    shared = public_json(state) if public is None else public
    hand = None if seat is None else state.hands[seat]
    own_down = None if seat is None else state.discard_down[seat]
    places = seen_places(state, seat)
    was, old = (None, {}) if previous is None else previous
    if was is not None and old["seat"] == seat:
        same_hand = seat is not None and was.hands[seat] == hand
        same_down = seat is not None and was.discard_down[seat] == own_down
        same_unseen = seen_places(was, seat) == places
    else:
        same_hand = same_down = same_unseen = False
    out = {
        "seat": seat,
        "variant": shared["variant"],
        "round": shared["round"],
        "phase": shared["phase"],
        "to_move": shared["to_move"],
        "bridges": shared["bridges"],
        "stones": shared["stones"],
        "supply": shared["supply"],
        "hand": None if hand is None else old["hand"] if same_hand else cards_to_str(hand),
        "hand_sizes": shared["hand_sizes"],
        "known": shared["known"],
        "display": shared["display"],
        "deck_size": shared["deck_size"],
        "discard_face_up": shared["discard_face_up"],
        "face_down_counts": shared["face_down_counts"],
        "own_face_down": None if own_down is None else old["own_face_down"] if same_down else cards_to_str(own_down),
        "declined": shared["declined"],
        "final_turns": shared["final_turns"],
        "points": shared["points"],
        "result": shared["result"],
        "unseen": old["unseen"]
        if same_unseen
        else dict(zip(LETTERS, [CARDS_PER_ISLAND - n for n in map(sum, zip(*places, strict=True))], strict=True)),
    }
    if history:
        out["history"] = shown_history(state, seat)
    return out


def seen_places(state: GameState, seat: int | None) -> tuple[list[int], ...]:
    """The places where ``seat`` locates cards, as card counts: what the view's card tracker
    (``unseen``, as :meth:`PlayerView.unseen` counts it) takes from each island's cards."""
    if seat is None:
        return (state.display, state.discard_up, *state.known)
    return (state.display, state.discard_up, state.hands[seat], state.discard_down[seat], state.known[1 - seat])


def hidden_slots(view: PlayerView) -> tuple[list[int], list[int], int]:
    """For each seat, its hand slots the viewer cannot see, its face-down discards the viewer
    cannot see, and the deck size: the places :func:`determinize` fills."""
    hand_slots = [0, 0]
    down_slots = [0, 0]
    for seat in (0, 1):
        if seat != view.seat:
            hand_slots[seat] = view.hand_sizes[seat] - sum(view.known[seat])
            down_slots[seat] = view.face_down_counts[seat]
    return hand_slots, down_slots, view.deck_size


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A complete state consistent with ``view``, sampled uniformly with ``rng``.

    The cards the viewer has not located (:meth:`PlayerView.unseen`) are shuffled and dealt to
    the hidden slots: each unseen hand slot of the other seat(s), their face-down discards, and
    the deck. The result has no record (``deal`` is ``None``); its future reshuffles draw from
    ``rng``.
    """
    unseen = view.unseen()
    pool = [c for c in range(NUM_ISLANDS) for _ in range(unseen[c])]
    hand_slots, down_slots, deck_size = hidden_slots(view)
    if len(pool) != sum(hand_slots) + sum(down_slots) + deck_size:
        raise RecordError("inconsistent player view: unseen cards do not fill the hidden places")
    rng.shuffle(pool)
    hands = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
    downs = [[0] * NUM_ISLANDS, [0] * NUM_ISLANDS]
    pos = 0
    for seat in (0, 1):
        if seat == view.seat:
            assert view.hand is not None and view.own_face_down is not None
            hands[seat] = list(view.hand)
            downs[seat] = list(view.own_face_down)
            continue
        hands[seat] = list(view.known[seat])
        for c in pool[pos : pos + hand_slots[seat]]:
            hands[seat][c] += 1
        pos += hand_slots[seat]
        for c in pool[pos : pos + down_slots[seat]]:
            downs[seat][c] += 1
        pos += down_slots[seat]
    return GameState(
        variant=view.variant,
        round=view.round,
        phase=view.phase,
        to_move=0 if view.to_move is None else view.to_move,
        bridges=list(view.bridges),
        stones=list(view.stones),
        hands=hands,
        display=list(view.display),
        deck=pool[pos:],
        discard_up=list(view.discard_face_up),
        discard_down=downs,
        declined=view.declined,
        final_turns=view.final_turns,
        points=[list(view.points[0]), list(view.points[1])],
        outcome=view.outcome,
        known=[list(view.known[0]), list(view.known[1])],
        history=[],
        deal=None,
        reshuffles=[],
        reshuffle_queue=[],
        rng=rng,
    )


def legal_actions_of(view: PlayerView) -> list[Action]:
    """The legal actions of the seat to move, computed from its own view alone.

    Legality depends only on public information and the mover's own hand, so any state consistent
    with the view gives the same list; a fixed seed keeps this free of chance.
    """
    if view.seat is None or view.seat != view.to_move:
        raise KahunaError("legal actions are asked of the seat to move")
    return determinize(view, random.Random(0)).legal_actions()
