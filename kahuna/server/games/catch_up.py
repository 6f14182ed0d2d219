"""What a reconnecting client missed: the recent updates kept per kind of recipient and protocol,
and the updates rebuilt from a game's record when they are not kept (docs/protocol.md, catch-up).
Apart from :mod:`kahuna.server.games.live` so that the live game holds its state, not the encoding
of its past."""

from __future__ import annotations

from collections import deque
from typing import Any

from kahuna.rules import Action, GameState, Variant, view_json
from kahuna.server.games import messages

MAX_CATCH_UP = 64
"""A reconnecting client further behind than this gets a ``sync`` instead of the missed updates
(also the number of recent updates kept per kind of recipient once one has been asked for)."""


class RecentUpdates:
    """The last :data:`MAX_CATCH_UP` encoded updates for one kind of recipient and protocol, newest last."""

    def __init__(self, texts: list[str], last: int) -> None:
        self.texts: deque[str] = deque(texts[-MAX_CATCH_UP:], maxlen=MAX_CATCH_UP)
        self.last = last
        """The version of the newest update held."""

    def add(self, version: int, text: str) -> None:
        if version != self.last + 1:
            self.texts.clear()
        self.texts.append(text)
        self.last = version

    def since(self, since: int, current: int) -> list[str] | None:
        """The updates of versions ``since + 1 .. current``, if all of them are held."""
        first = self.last - len(self.texts) + 1
        if self.last != current or since + 1 < first:
            return None
        return list(self.texts)[since + 1 - first :]


def encode_updates(
    deal: str,
    variant: Variant,
    reshuffles: list[str],
    history: list[tuple[int, Action]],
    recipient: int | None,
    since: int,
    takebacks: bool = False,
    protocol: int = 1,
) -> list[str]:
    """The encoded updates of versions ``since + 1 ..`` as ``recipient`` got them in ``protocol``
    (replays the record; runs in a worker thread on a snapshot of the game, never on the live
    state). Only for a game with nothing taken back, whose versions are its actions' numbers."""
    replay = GameState.from_deal(deal, variant, reshuffles)
    out = []
    prior: dict[str, Any] | None = None
    """Protocols 2 and 3: the recipient's view before the action (its update carries what changed;
    neither sends the history, so their views are built without it)."""
    for index, (actor, action) in enumerate(history):
        if protocol > 1 and index == since:
            prior = view_json(replay, recipient, history=False)
        events = replay.apply(action)
        if index >= since:
            status = messages.status_of(replay, True)
            shown = view_json(replay, recipient, history=protocol == 1)
            update = messages.update(
                replay,
                actor,
                events,
                recipient,
                status,
                takebacks=takebacks,
                view=shown,
                before=prior,
                protocol=protocol,
            )
            out.append(messages.encode(update))
            if protocol > 1:
                prior = shown
    return out
