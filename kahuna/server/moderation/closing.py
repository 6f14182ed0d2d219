"""What a ``close`` (and a rating mark) does outside the database, after its transaction is
committed (``account_sanctions``, docs/moderation.md): the account's open offers are withdrawn, and
on a close its running games end through the games' one end path (a resignation, or an abort before
the game began: ``GameService.resign``, ``abort``, whose end hook rates the game and records a
tournament's result), the connections of its seats are closed, and its lobby connections are told
``account_closed`` (on its ``user:`` channel, so on every instance) and closed (4403)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import Connection, select

from kahuna.server.cluster.broker import Broker, user_channel
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.protocol import AccountClosed
from kahuna.server.db.schema import games, seats
from kahuna.server.db.writer import Writer
from kahuna.server.games import messages
from kahuna.server.games.service import GameService


def running_seats(conn: Connection, account_id: int) -> list[tuple[str, int]]:
    """The ``(game id, seat)`` of the account's seats in games not over."""
    rows = conn.execute(
        select(seats.c.game_id, seats.c.seat)
        .join(games, games.c.id == seats.c.game_id)
        .where(seats.c.account_id == account_id, games.c.status != messages.OVER)
        .order_by(seats.c.game_id, seats.c.seat)
    )
    return [(row.game_id, row.seat) for row in rows]


@dataclass(frozen=True)
class Enforcement:
    """The collaborators a sanction needs beyond the database, given by ``app.py``."""

    service: GameService
    withdraw_offers: Callable[[int], Awaitable[None]]
    broker: Broker
    """Tells the account's lobby connections, on every instance, that it was closed."""

    async def unlisted(self, account_id: int) -> None:
        """A marked or closed account's open offers are withdrawn (a rated one could be accepted)."""
        await self.withdraw_offers(account_id)

    async def closed(self, writer: Writer, account_id: int) -> int:
        """End the closed account's running games as it would by resigning; the games ended."""
        await self.withdraw_offers(account_id)
        await self.broker.publish(user_channel(account_id), json.dumps(AccountClosed(type="account_closed")))
        ended = 0
        for game_id, seat in await writer.read(lambda conn: running_seats(conn, account_id)):
            try:
                game = await self.service.get(game_id)
            except Rejected:  # damaged: nothing to end
                continue
            if game is None:
                continue
            try:
                if game.status == messages.PLAYING:
                    await self.service.resign(game, seat)
                else:
                    await self.service.abort(game, seat)
                ended += 1
            except Rejected as exc:  # over meanwhile, or too late to abort and not begun
                logs.event("close_game_left", game_id=game_id, error=exc.code)
            for client in list(game.room.clients):
                if client.seat == seat:
                    client.stop()
        return ended
