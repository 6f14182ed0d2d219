"""What is worth a push, and to whom: a player's turn while no tab of theirs is open on the game, a
challenge, a tournament game starting, a clock running low.

The rooms that see these moments (the game engine, the lobby, the tournaments) call this object;
each call returns at once and queues the push in a task of its own (``push/queue.py``), so a move
never waits for the database write of a notice, let alone for a push service. Tasks under way are
bounded (:data:`MAX_PENDING`): past that a notice is dropped and logged, never queued in memory.

Before a notice is queued the account's wish is asked: :class:`PushPreferences` ``wants(account_id,
kind)``, given at construction (:class:`AllOn` by default: every kind is wanted).

What a push says: its ``kind``, the game's id and the opponent's name, and the page to open. Never
a card, a hand or a move: the push service and the lock screen are outside the game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy import Connection, select

from kahuna.server.common import logs
from kahuna.server.db.schema import seats
from kahuna.server.db.writer import Writer
from kahuna.server.games.live import LiveGame
from kahuna.server.push import queue

KINDS = ("your_turn", "deadline", "challenge", "tournament")
"""The kinds of notification (the same names as the account's notification settings)."""
MAX_PENDING = 256
"""Notices being queued at once in this process; more are dropped."""
TTL = {"your_turn": 24 * 3600.0, "deadline": 3600.0, "challenge": 600.0, "tournament": 600.0}
"""How long a push is worth delivering: a push service holds it this long for a device that is off."""


class PushPreferences(Protocol):
    """Whether an account wants pushes of a kind. Called in a worker thread (it may read the
    database with a connection of its own), once per notice and account."""

    def wants(self, account_id: int, kind: str) -> bool: ...


class AllOn:
    """Every account wants every kind (no settings are stored)."""

    def wants(self, account_id: int, kind: str) -> bool:
        return True


def _seat_accounts(conn: Connection, game_id: str) -> dict[int, int]:
    """The accounts of the game's seats (seat → account id), for seats that have one."""
    rows = conn.execute(
        select(seats.c.seat, seats.c.account_id).where(seats.c.game_id == game_id, seats.c.account_id.is_not(None))
    )
    return {int(r.seat): int(r.account_id) for r in rows}


class PushNotices:
    """Queues the pushes of the moments the rooms report."""

    def __init__(
        self, writer: Writer, preferences: PushPreferences | None = None, wake: Callable[[], None] | None = None
    ) -> None:
        self.writer = writer
        self.preferences: PushPreferences = preferences or AllOn()
        self._wake = wake
        self._pending: set[asyncio.Task[None]] = set()

    # ----------------------------------------------------------------- what the rooms report

    def turn(self, game: LiveGame) -> None:
        """``game`` changed (an action here or elsewhere): if a human seat is to move and has no
        open connection anywhere, it gets a ``your_turn`` push (once per turn: the notice is
        ``your_turn:GAME:VERSION``). Lock held; returns at once."""
        state = game.state
        if state.is_over or game.ai_spec(state.to_move) is not None or game.online()[state.to_move]:
            return
        seat, game_id, version = state.to_move, game.game_id, game.version
        opponent = game.names[1 - seat]
        self._spawn(self._turn(game_id, seat, version, opponent))

    def clock_low(self, game: LiveGame, seat: int) -> None:
        """``seat``'s clock is running low (``deadline``): pushed if that seat has no open connection."""
        if game.state.is_over or game.ai_spec(seat) is not None or game.online()[seat]:
            return
        game_id, version, opponent = game.game_id, game.version, game.names[1 - seat]

        async def run() -> None:
            accounts = await self.writer.read(lambda conn: _seat_accounts(conn, game_id))
            account = accounts.get(seat)
            if account is not None and accounts.get(1 - seat) != account:
                payload = _game_payload("deadline", game_id, seat, opponent)
                await self._queue(account, "deadline", f"deadline:{game_id}:{version}", payload)

        self._spawn(run())

    def challenge(self, account_id: int, challenge_id: str, challenger: str) -> None:
        """``challenger`` challenged the account (``challenge``)."""
        payload = {"kind": "challenge", "opponent": challenger, "url": "/lobby"}
        self._spawn(self._queue(account_id, "challenge", f"challenge:{challenge_id}", payload))

    def tournament_game(self, account_id: int, game_id: str, seat: int, opponent: str | None, url: str) -> None:
        """A tournament game of the account's starts (``tournament``)."""
        payload = {**_game_payload("tournament", game_id, seat, opponent), "url": url}
        self._spawn(self._queue(account_id, "tournament", f"tournament:{game_id}", payload))

    # ----------------------------------------------------------------- queuing

    async def drain(self) -> None:
        """Wait for the notices being queued (stopping)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def _spawn(self, work: Any) -> None:
        if len(self._pending) >= MAX_PENDING:
            work.close()
            logs.event("push_notice_dropped", pending=len(self._pending))
            return
        task = asyncio.get_running_loop().create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _turn(self, game_id: str, seat: int, version: int, opponent: str | None) -> None:
        accounts = await self.writer.read(lambda conn: _seat_accounts(conn, game_id))
        account = accounts.get(seat)
        if account is None or accounts.get(1 - seat) == account:  # a guest, or one account on both seats
            return
        payload = _game_payload("your_turn", game_id, seat, opponent)
        await self._queue(account, "your_turn", f"your_turn:{game_id}:{version}", payload)

    async def _queue(self, account_id: int, kind: str, notice: str, payload: dict[str, Any]) -> None:
        try:
            if not await asyncio.to_thread(self.preferences.wants, account_id, kind):
                logs.event("push_not_wanted", push_kind=kind, account_id=account_id)
                return
            now = time.time()
            added = await self.writer.transact(
                lambda conn: queue.enqueue(conn, account_id, notice, payload, now, TTL[kind])
            )
        except Exception as exc:  # a notice is never worth failing what caused it
            logs.event("push_notice_error", push_kind=kind, error=type(exc).__name__)
            return
        if added:
            logs.event("push_queued", push_kind=kind, account_id=account_id, devices=added)
            if self._wake is not None:
                self._wake()


def _game_payload(kind: str, game_id: str, seat: int, opponent: str | None) -> dict[str, Any]:
    """A game's push: its id, the opponent's name and the page that opens the account's seat."""
    return {"kind": kind, "game": game_id, "opponent": opponent, "url": f"/play/{game_id}#seat:{seat}"}
