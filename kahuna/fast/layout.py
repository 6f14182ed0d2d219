"""The flat field layout shared by the referee's state and the compiled core's ``State``.

One list of small integers holds a whole game (the same numbers as the referee's lists); this
module converts a :class:`~kahuna.rules.GameState` or a :class:`~kahuna.rules.PlayerView` to it and
writes the state document of NOTATION.md from it, so the C side needs no JSON and no strings.
"""

from __future__ import annotations

from typing import Any, Final

from kahuna.rules import GameState, Outcome, PlayerView, Variant
from kahuna.rules.board import LETTERS, LINE_NAMES, LINES, NUM_CARDS, NUM_ISLANDS, NUM_LINES, ROUNDS, cards_to_str
from kahuna.rules.state import TERMINATION_REASONS

LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("round", 1),
    ("phase", 1),
    ("to_move", 1),
    ("declined", 1),
    ("final_turns", 1),
    ("no_build_at_enemy_stone", 1),
    ("replace_on_remove", 1),
    ("winner", 1),
    ("reason", 1),
    ("bridges", NUM_LINES),
    ("stones", NUM_ISLANDS),
    ("supply_bridges", 2),
    ("supply_stones", 2),
    ("hands", 2 * NUM_ISLANDS),
    ("display", NUM_ISLANDS),
    ("deck_len", 1),
    ("deck", NUM_CARDS),
    ("discard_up", NUM_ISLANDS),
    ("discard_down", 2 * NUM_ISLANDS),
    ("points", 2 * ROUNDS),
    ("known", 2 * NUM_ISLANDS),
)
"""``(name, size)`` in order; the C module's ``fields_layout()`` must say the same (checked by tests)."""

OFFSET: Final[dict[str, int]] = {}
_at = 0
for _name, _size in LAYOUT:
    OFFSET[_name] = _at
    _at += _size
SIZE: Final[int] = _at

PHASES: Final[tuple[str, str, str]] = ("play", "final", "over")
REASONS: Final[tuple[str | None, ...]] = (
    None,
    "points",
    "final-scoring",
    "bridges",
    "no-bridges",
    "draw",
    *TERMINATION_REASONS,
)
"""Result reasons by code (0: the game runs), the terminations off the board last."""


def fields_of(state: GameState) -> list[int]:
    """The flat fields of a referee state."""
    outcome = state.outcome
    winner = -1 if outcome is None or outcome.winner is None else outcome.winner
    reason = 0 if outcome is None else REASONS.index(outcome.reason)
    variant = state.variant
    return [
        state.round,
        PHASES.index(state.phase),
        state.to_move,
        int(state.declined),
        state.final_turns,
        int(variant.no_build_at_enemy_stone),
        int(variant.replace_on_remove),
        winner,
        reason,
        *state.bridges,
        *state.stones,
        *state.supply_bridges,
        *state.supply_stones,
        *state.hands[0],
        *state.hands[1],
        *state.display,
        len(state.deck),
        *state.deck,
        *[0] * (NUM_CARDS - len(state.deck)),
        *state.discard_up,
        *state.discard_down[0],
        *state.discard_down[1],
        *state.points[0],
        *state.points[1],
        *state.known[0],
        *state.known[1],
    ]


def view_fields(view: PlayerView) -> tuple[list[int], tuple[int, int], tuple[int, int]]:
    """A seat's view as flat fields with the hidden cards left out, and the hidden hand slots and
    face-down discards per seat: what the compiled search determinizes from."""
    seat = view.seat
    if seat is None or view.hand is None or view.own_face_down is None or view.to_move is None:
        raise ValueError("search needs the view of a seat in a running game")
    other = 1 - seat
    hands = [list(view.hand), list(view.hand)]
    hands[other] = list(view.known[other])
    downs = [list(view.own_face_down), [0] * NUM_ISLANDS]
    if seat == 1:
        downs.reverse()
    hand_slots = [0, 0]
    down_slots = [0, 0]
    hand_slots[other] = view.hand_sizes[other] - sum(view.known[other])
    down_slots[other] = view.face_down_counts[other]
    variant = view.variant
    fields = [
        view.round,
        PHASES.index(view.phase),
        view.to_move,
        int(view.declined),
        view.final_turns,
        int(variant.no_build_at_enemy_stone),
        int(variant.replace_on_remove),
        -1,
        0,
        *view.bridges,
        *view.stones,
        *view.supply_bridges,
        *view.supply_stones,
        *hands[0],
        *hands[1],
        *view.display,
        view.deck_size,
        *[0] * NUM_CARDS,
        *view.discard_face_up,
        *downs[0],
        *downs[1],
        *view.points[0],
        *view.points[1],
        *view.known[0],
        *view.known[1],
    ]
    return fields, (hand_slots[0], hand_slots[1]), (down_slots[0], down_slots[1])


def _part(fields: list[int], name: str, size: int) -> list[int]:
    at = OFFSET[name]
    return fields[at : at + size]


def outcome_of(fields: list[int]) -> Outcome | None:
    """The result the fields hold, or ``None`` while the game runs."""
    reason = REASONS[fields[OFFSET["reason"]]]
    if reason is None:
        return None
    winner = fields[OFFSET["winner"]]
    return Outcome(None if winner < 0 else winner, reason)


def state_json(fields: list[int]) -> dict[str, Any]:
    """The omniscient state document of NOTATION.md, as ``GameState.to_json`` writes it."""
    n = NUM_ISLANDS
    phase = PHASES[fields[OFFSET["phase"]]]
    bridges = _part(fields, "bridges", NUM_LINES)
    stones = _part(fields, "stones", n)
    supply_b = _part(fields, "supply_bridges", 2)
    supply_s = _part(fields, "supply_stones", 2)
    hands = _part(fields, "hands", 2 * n)
    deck = _part(fields, "deck", fields[OFFSET["deck_len"]])
    up = _part(fields, "discard_up", n)
    down = _part(fields, "discard_down", 2 * n)
    points = _part(fields, "points", 2 * ROUNDS)
    outcome = outcome_of(fields)
    return {
        "round": fields[OFFSET["round"]],
        "phase": phase,
        "to_move": None if phase == "over" else fields[OFFSET["to_move"]],
        "bridges": {LINE_NAMES[i]: (None if o < 0 else o) for i, o in enumerate(bridges)},
        "stones": {LETTERS[i]: (None if o < 0 else o) for i, o in enumerate(stones)},
        "supply": [{"bridges": supply_b[s], "stones": supply_s[s]} for s in (0, 1)],
        "hands": [cards_to_str(hands[:n]), cards_to_str(hands[n:])],
        "display": cards_to_str(_part(fields, "display", n)),
        "deck": "".join(LETTERS[c] for c in reversed(deck)),
        "discard": cards_to_str([up[c] + down[c] + down[n + c] for c in range(n)]),
        "declined": bool(fields[OFFSET["declined"]]),
        "final_turns": fields[OFFSET["final_turns"]],
        "points": [points[:ROUNDS], points[ROUNDS:]],
        "result": None if outcome is None else outcome.to_json(),
    }


def referee_state(fields: list[int], variant: Variant) -> GameState:
    """A referee state holding the position of ``fields`` (no history, no record, no RNG)."""
    state = GameState.from_deal(LETTERS + LETTERS, variant)
    n = NUM_ISLANDS
    hands = _part(fields, "hands", 2 * n)
    down = _part(fields, "discard_down", 2 * n)
    points = _part(fields, "points", 2 * ROUNDS)
    known = _part(fields, "known", 2 * n)
    state.round = fields[OFFSET["round"]]
    state.phase = type(state.phase)(PHASES[fields[OFFSET["phase"]]])
    state.to_move = fields[OFFSET["to_move"]]
    state.bridges = _part(fields, "bridges", NUM_LINES)
    state.stones = _part(fields, "stones", n)
    state.counts = [[0] * n, [0] * n]
    for line, owner in enumerate(state.bridges):
        if owner >= 0:
            for island in LINES[line]:
                state.counts[owner][island] += 1
    state.supply_bridges = _part(fields, "supply_bridges", 2)
    state.supply_stones = _part(fields, "supply_stones", 2)
    state.hands = [hands[:n], hands[n:]]
    state.hand_size = [sum(hands[:n]), sum(hands[n:])]
    state.display = _part(fields, "display", n)
    state.deck = _part(fields, "deck", fields[OFFSET["deck_len"]])
    state.discard_up = _part(fields, "discard_up", n)
    state.discard_down = [down[:n], down[n:]]
    state.declined = bool(fields[OFFSET["declined"]])
    state.final_turns = fields[OFFSET["final_turns"]]
    state.points = [points[:ROUNDS], points[ROUNDS:]]
    state.known = [known[:n], known[n:]]
    state.outcome = outcome_of(fields)
    state.deal = None
    return state
