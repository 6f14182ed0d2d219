"""A finished game's replay (``GET /api/games/<id>/replay``): every step as a spectator saw it,
rebuilt once from the record in a worker thread (``outgoing.replay_json``)."""

from __future__ import annotations

import json
from typing import Any

from kahuna.rules import Action, GameState, Variant, view_of
from kahuna.rules.board import cards_to_str
from kahuna.rules.foresight import close_islands
from kahuna.server.games import messages


def replay_steps(deal: str, variant: Variant, reshuffles: list[str], history: list[tuple[int, Action]]) -> bytes:
    """The steps of a finished game as a spectator saw them, as JSON (see ``GET .../replay``), with
    both hands at every step (once the game is over its record is public, cards included) and the
    islands one bridge would change then (``close``, as ``foreseen`` has them: the screen-reader
    mode reads them)."""
    replay = GameState.from_deal(deal, variant, reshuffles)

    def public() -> dict[str, Any]:
        hands = [cards_to_str(replay.hands[0]), cards_to_str(replay.hands[1])]
        return {"hands": hands, "close": [c.to_json() for c in close_islands(view_of(replay, None))]}

    start = view_of(replay, None).to_json()
    steps: list[dict[str, Any]] = [
        {"version": 0, "seat_acted": None, "action": None, "events": [], "view": start, **public()}
    ]
    for actor, action in history:
        events = replay.apply(action)
        update = messages.update(replay, actor, events, None, messages.status_of(replay, True))
        step = {key: update[key] for key in ("version", "seat_acted", "action", "events", "view")}
        steps.append({**step, **public()})
    return json.dumps(steps, separators=(",", ":"), ensure_ascii=False).encode()
