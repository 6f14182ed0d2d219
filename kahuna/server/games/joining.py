"""Taking the free seat of a friend's game with its invite (``POST /api/join/{invite}``).

A signed-in player's seat is its account's: bound to it, and named in the game's paired row (one is
started, casual, if the creator was a guest), so that the game is on the player's profile."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection

from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import digest, new_secret
from kahuna.server.db import paired, store
from kahuna.server.db.claims import claim_seat
from kahuna.server.db.writer import Conflict
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.factory import pool_of, start_clock
from kahuna.server.games.registry import GameRegistry
from kahuna.server.games.seats import seat_links


async def join(
    registry: GameRegistry,
    engine: GameEngine,
    invite: str,
    name: str,
    first_move_grace: float,
    account: int | None = None,
) -> dict[str, Any]:
    """Take the invited seat as ``name``: its seat links (409 ``taken`` once it is taken).
    ``account``: the signed-in player's (``name`` is then its username)."""
    game = await registry.of_invite(invite)
    if game is None:
        raise Rejected("not_found", "no game has this invite", 404)
    async with game.lock:
        free = [s for s in (0, 1) if game.names[s] is None]
        if not free:
            raise Rejected("taken", "this invite has already been used", 409)
        seat = free[0]
        token = new_secret()
        token_digest = digest(token)
        when = store.now()
        clock = None if game.clock is None else game.clock.copy()
        if clock is not None:
            start_clock(clock, time.time(), first_move_grace)  # both seats are taken now

        def write(conn: Connection) -> None:
            claim_seat(conn, game.game_id, seat)  # free on every instance, not only here
            store.insert_seat(conn, game.game_id, seat, token_digest, name, when)
            if account is not None:
                store.bind_seat_accounts(conn, game.game_id, [account if s == seat else None for s in (0, 1)])
                pool = pool_of(None if game.clock is None else game.clock.control)
                paired.set_game_account(conn, game.game_id, seat, account, pool)
            if clock is not None:
                store.save_clock(conn, game.game_id, clock.to_store())

        try:
            await engine.writer.write(write)
        except Conflict:  # another instance gave the seat away first
            await engine.refresh(game)
            raise Rejected("taken", "this invite has already been used", 409) from None
        engine.joined(game, seat, token_digest, name, when, clock)
    return seat_links(game.game_id, seat, token)
