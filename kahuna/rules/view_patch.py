"""Protocol 3's updates (docs/protocol.md, *Protocol 3*): a player view's JSON after an action,
as what the action's events say of it and a patch for the rest.

An update carries the action and its events, which the client needs anyway; most of what they
change in the view (a bridge built, a supply one bridge smaller, a card in the discard pile, a hand
one card larger) follows from them. :func:`expected` does that bookkeeping on the view the client
holds, and the update's ``patch`` (:func:`patch`) carries only what differs from it: the server
computes the patch against the same :func:`expected`, so a bookkeeping rule that does not hold
costs bytes, never a wrong view. For most actions the server does not build the views at all:
:func:`from_states` tells the same patch from the states before and after. Both sides live here
(the server's messages and ``kahuna bot``) and in ``web/js/delta.js`` (the browser), which must
agree with them (``tests/server/test_update_deltas.py`` runs it). Everything is computed from what
the recipient's own view shows and the events as redacted for it, so nothing reaches a recipient
that its own view does not show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kahuna.rules.board import CARDS_PER_ISLAND, LETTERS, cards_to_str
from kahuna.rules.views import seen_places

if TYPE_CHECKING:
    from kahuna.rules.state import GameState

_INDEX = {letter: index for index, letter in enumerate(LETTERS)}


def _added(cards: str, card: str) -> str:
    return "".join(sorted(cards + card))


def _removed(cards: str, card: str) -> str:
    return cards.replace(card, "", 1)


def expected(view: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """``view`` (a view's JSON, left as it was) with the events' plain bookkeeping done: the owners
    of lines and islands, the supplies, the hand sizes and the recipient's own hand, the cards
    known in hands, the display, the deck's size, the face-up discards, the face-down counts, who
    is to move after a draw or a pass, and whether the last seat passed. ``history`` is left as it
    was: the client appends the update's ``action``."""
    me = view["seat"]
    out = dict(view)
    out["bridges"], out["stones"] = dict(view["bridges"]), dict(view["stones"])
    out["supply"] = [dict(supply) for supply in view["supply"]]
    out["hand_sizes"], out["known"] = list(view["hand_sizes"]), list(view["known"])
    out["face_down_counts"] = list(view["face_down_counts"])

    def played(seat: int, card: str) -> None:
        """``seat`` put ``card`` from its hand face up on the discard pile."""
        out["hand_sizes"][seat] -= 1
        out["discard_face_up"] = _added(out["discard_face_up"], card)
        out["known"][seat] = _removed(out["known"][seat], card)
        if seat == me:
            out["hand"] = _removed(out["hand"], card)

    for event in events:
        kind = event["type"]
        if kind == "bridge_built":
            out["bridges"][event["line"]] = event["seat"]
            out["supply"][event["seat"]]["bridges"] -= 1
            if event["card"] is not None:
                played(event["seat"], event["card"])
        elif kind == "bridge_removed":
            out["bridges"][event["line"]] = None
            out["supply"][event["owner"]]["bridges"] += 1
            for card in event["cards"]:
                played(event["seat"], card)
        elif kind == "bridge_returned":
            out["bridges"][event["line"]] = None
            out["supply"][event["owner"]]["bridges"] += 1
        elif kind == "island_claimed":
            out["stones"][event["island"]] = event["seat"]
            out["supply"][event["seat"]]["stones"] -= 1
        elif kind == "stone_lost":
            out["stones"][event["island"]] = None
            out["supply"][event["owner"]]["stones"] += 1
        elif kind == "card_discarded":
            out["hand_sizes"][event["seat"]] -= 1
            out["face_down_counts"][event["seat"]] += 1
            if event["seat"] == me and event["card"] is not None:
                out["hand"] = _removed(out["hand"], event["card"])
                out["own_face_down"] = _added(out["own_face_down"], event["card"])
        elif kind == "card_taken":
            seat, card = event["seat"], event["card"]
            out["hand_sizes"][seat] += 1
            if event["from_display"]:
                out["display"] = _removed(out["display"], card)
                out["known"][seat] = _added(out["known"][seat], card)
            else:
                out["deck_size"] -= 1
            if seat == me and card is not None:
                out["hand"] = _added(out["hand"], card)
            out["to_move"], out["declined"] = 1 - seat, False
        elif kind == "display_refilled":
            out["display"] = _added(out["display"], event["card"])
            out["deck_size"] -= 1
        elif kind == "declined":
            out["to_move"], out["declined"] = 1 - event["seat"], True
    return out


def from_states(
    before: GameState, after: GameState, seat: int | None, events: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """``patch(expected(view before, events), view after)`` for ``seat``, computed from the two
    states without building either view, or ``None`` when the action did more than its events say
    of most fields (a new round, a new phase, the last turns, points, the end, a reshuffle): then
    only the views tell. Otherwise what the events do not say is at most the cards known in hands
    (a card played that was not known to be there) and the card tracker (``unseen``); the rest of
    :func:`expected` holds exactly. It reads only what ``seat``'s view shows. About 96 % of a random
    game's actions take this way (docs/scaling.md); ``tests/rules/test_view_patch.py`` holds it
    equal to the views' patch on whole random games, for both seats and a spectator."""
    if (
        after.round != before.round
        or after.phase is not before.phase
        or after.final_turns != before.final_turns
        or after.points != before.points
        or after.outcome is not None
        or len(after.reshuffles) != len(before.reshuffles)
    ):
        return None
    out: dict[str, Any] = {}
    if _known_after(before.known, events) != after.known:
        out["known"] = [cards_to_str(after.known[0]), cards_to_str(after.known[1])]
    was, now = _seen(before, seat), _seen(after, seat)
    if was != now:
        out["unseen"] = {
            LETTERS[c]: CARDS_PER_ISLAND - n for c, (w, n) in enumerate(zip(was, now, strict=True)) if w != n
        }
    return out


def _known_after(known: list[list[int]], events: list[dict[str, Any]]) -> list[list[int]]:
    """The cards known in each hand as :func:`expected` keeps them, on card counts."""
    out = [list(known[0]), list(known[1])]

    def played(seat: int, card: str) -> None:
        index = _INDEX[card]
        if out[seat][index]:
            out[seat][index] -= 1

    for event in events:
        kind = event["type"]
        if kind == "bridge_built" and event["card"] is not None:
            played(event["seat"], event["card"])
        elif kind == "bridge_removed":
            for card in event["cards"]:
                played(event["seat"], card)
        elif kind == "card_taken" and event["from_display"]:
            out[event["seat"]][_INDEX[event["card"]]] += 1
    return out


def _seen(state: GameState, seat: int | None) -> list[int]:
    """Per island, how many of its cards ``seat`` sees in a place it can locate them (the view's
    ``unseen`` is what is left of each island's cards)."""
    return [sum(counts) for counts in zip(*seen_places(state, seat), strict=True)]


def patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What takes the view ``old`` to the view ``new`` (both of one recipient), but ``history``:
    each field that differs, an object by its keys that differ (the view's objects have fixed
    keys), a list of objects or lists by the indexes that differ (an object of index → patch), any
    other value whole. A value that is the same object in both (views of successive states share
    the parts an action left alone) is not compared."""
    return {
        key: _patch(was, value)
        for key, value in new.items()
        if key != "history" and (was := old[key]) is not value and was != value
    }


def _patch(old: Any, new: Any) -> Any:
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return {key: _patch(old[key], value) for key, value in new.items() if old[key] != value}
    nested = isinstance(new, list) and bool(new) and isinstance(new[0], (dict, list))
    if nested and isinstance(old, list) and len(old) == len(new):
        return {str(i): _patch(was, now) for i, (was, now) in enumerate(zip(old, new, strict=True)) if was != now}
    return new


def patched(value: Any, change: Any) -> Any:
    """``value`` with ``change`` (a :func:`patch` or one of its parts) applied, a new object: an
    object merges into an object key by key, an object into a list index by index, anything else
    replaces the value."""
    if isinstance(change, dict) and isinstance(value, dict):
        return {**value, **{key: patched(value.get(key), part) for key, part in change.items()}}
    if isinstance(change, dict) and isinstance(value, list):
        out = list(value)
        for index, part in change.items():
            out[int(index)] = patched(out[int(index)], part)
        return out
    return change
