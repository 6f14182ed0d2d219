"""What the referee foresees for a connection (the WebSocket's ``foresee`` message, issue 53): the
consequences of the seat's legal actions and the islands one bridge would change, for the
browser's screen-reader mode to read beside each action and island.

Asked for, never pushed: only clients that read them pay for them, and a connection gets one
answer per version of the game (the legal actions are at most a few dozen; each is tried once on
a copy). Computed from the connection's own view (``kahuna.rules.foresight``), so it tells
nothing that view does not.
"""

from __future__ import annotations

from kahuna.server.common.errors import Rejected
from kahuna.server.common.protocol import Foreseen
from kahuna.server.games import messages
from kahuna.server.games.live import Client, LiveGame


def foresee(game: LiveGame, client: Client, version: int) -> Foreseen:
    """The ``foreseen`` message for ``client`` at the game's current ``version``; ``Rejected`` with
    ``stale_version`` for any other version, ``already_sent`` when this connection had it."""
    if version != game.version:
        raise Rejected("stale_version", f"you are at version {version}, the game is at version {game.version}")
    if client.foreseen == version:
        raise Rejected("already_sent", f"this connection was sent what version {version} foresees")
    client.foreseen = version
    return messages.foreseen(game.state, client.seat, game.status, version)
