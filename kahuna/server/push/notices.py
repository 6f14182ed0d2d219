"""What is worth a push, and to whom: a player's turn while no tab of theirs is open on the game, a
challenge, a tournament game starting, a clock running low.

The rooms that see these moments (the game engine, the lobby, the tournaments) call this object;
each call returns at once and queues the push in a task of its own (``push/queue.py``), so a move
never waits for the database write of a notice, let alone for a push service. Tasks under way are
bounded (:data:`MAX_PENDING`): past that a notice is dropped and logged, never queued in memory.
An account is pushed at most ``budget`` notices an hour, whoever causes them (a stranger's
challenge-and-cancel loop cannot ring a phone all day): more are dropped (``push_over_budget``).

Before a notice is queued the account's wish is asked: :class:`PushPreferences` ``wants(account_id,
kind)``, given at construction (:class:`AccountSettings`: the ``push`` channel of the account's
notification settings, ``GET``/``PUT /api/me/notifications``).

A clock running low is noticed here too: after each turn the seat to move gets a timer for the
moment its time falls to ``clock_low_fraction`` of what it had when the turn began (one timer per
game, replaced at every turn; turns that began with less than ``clock_low_min_seconds`` get none:
in a fast game the player is at the board). When it fires, the game must still be at the same
version in the database and the seat still away, or nothing is sent.

What a push says: its ``kind``, the game's id and the opponent's name, and the page to open. Never
a card, a hand or a move: the push service and the lock screen are outside the game.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from sqlalchemy import Connection, func, select

from kahuna.server.accounts import notifications
from kahuna.server.common import logs
from kahuna.server.db.schema import actions, seats
from kahuna.server.db.writer import Writer
from kahuna.server.games.live import LiveGame
from kahuna.server.push import queue, subscriptions

KINDS = ("your_turn", "deadline", "challenge", "tournament")
"""The kinds of notification (the same names as the account's notification settings)."""
MAX_PENDING = 256
"""Notices being queued at once in this process; more are dropped."""
MAX_TIMERS = 10_000
"""Games whose low clock this process watches at once; the games past it get no warning."""
TTL = {"your_turn": 24 * 3600.0, "deadline": 3600.0, "challenge": 600.0, "tournament": 600.0}
"""How long a push is worth delivering: a push service holds it this long for a device that is off."""


class PushPreferences(Protocol):
    """Whether an account wants pushes of a kind. Called in a worker thread (it may read the
    database with a connection of its own), once per notice and account."""

    def wants(self, account_id: int, kind: str) -> bool: ...


class AccountSettings:
    """The account's notification settings (``accounts/notifications.py``), their ``push`` channel."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def wants(self, account_id: int, kind: str) -> bool:
        with self.writer.engine.connect() as conn:
            return notifications.wants(conn, account_id, kind, "push")


def _seat_accounts(conn: Connection, game_id: str) -> dict[int, int]:
    """The accounts of the game's seats (seat → account id), for seats that have one."""
    rows = conn.execute(
        select(seats.c.seat, seats.c.account_id).where(seats.c.game_id == game_id, seats.c.account_id.is_not(None))
    )
    return {int(r.seat): int(r.account_id) for r in rows}


class PushNotices:
    """Queues the pushes of the moments the rooms report."""

    def __init__(
        self,
        writer: Writer,
        preferences: PushPreferences,
        wake: Callable[[], None] | None = None,
        clock_low_fraction: float = 0.2,
        clock_low_min_seconds: float = 120.0,
        budget: int = 20,
    ) -> None:
        """``budget``: notices one account may be pushed in an hour (``pushes_per_account_per_hour``)."""
        self.writer = writer
        self.budget = budget
        self.preferences = preferences
        self._wake = wake
        self.clock_low_fraction = min(1.0, clock_low_fraction)
        self.clock_low_min_seconds = clock_low_min_seconds
        self._pending: set[asyncio.Task[None]] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # ----------------------------------------------------------------- what the rooms report

    def turn(self, game: LiveGame, acted: int | None) -> None:
        """``game`` has an action of seat ``acted`` (here or elsewhere; ``None``: its clock started):
        if that passed the turn to a human seat that has no open connection anywhere, the seat gets
        a ``your_turn`` push (the notice ``your_turn:GAME:VERSION``), and its clock a timer for
        running low. Lock held; returns at once."""
        self._watch_clock(game)
        state = game.state
        if state.is_over or state.to_move == acted:  # an action inside a turn: nothing new to tell
            return
        if game.ai_spec(state.to_move) is not None or game.online()[state.to_move]:
            return
        seat, game_id, version = state.to_move, game.game_id, game.version
        opponent = game.names[1 - seat]
        self._spawn(self._turn(game_id, seat, version, opponent))

    def clock_low(self, game_id: str, seat: int, version: int, opponent: str | None) -> None:
        """``seat``'s clock is running low (``deadline``) in ``game_id`` at ``version`` (the caller
        saw the seat away): pushed if the game is still at that version in the database."""

        async def run() -> None:
            stored, accounts = await self.writer.read(
                lambda conn: (_version(conn, game_id), _seat_accounts(conn, game_id))
            )
            if stored != version:  # moved on through another instance
                return
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

    # ----------------------------------------------------------------- low clocks

    def _watch_clock(self, game: LiveGame) -> None:
        """Replace ``game``'s low-clock timer by one for the seat whose clock runs now, if any."""
        old = self._timers.pop(game.game_id, None)
        if old is not None:
            old.cancel()
        clock = game.clock
        deadline = None if clock is None or game.state.is_over else clock.deadline()
        if clock is None or clock.running is None or deadline is None or game.ai_spec(clock.running) is not None:
            return
        left = deadline - time.time()
        if left < self.clock_low_min_seconds or len(self._timers) >= MAX_TIMERS:
            return
        seat, version, opponent = clock.running, game.version, game.names[1 - clock.running]
        self._timers[game.game_id] = asyncio.get_running_loop().call_later(
            left * (1 - self.clock_low_fraction),
            self._clock_low_due,
            game.game_id,
            weakref.ref(game),  # a game that leaves memory meanwhile is not kept in it for this
            seat,
            version,
            opponent,
        )

    def _clock_low_due(
        self, game_id: str, held: weakref.ref[LiveGame], seat: int, version: int, opponent: str | None
    ) -> None:
        self._timers.pop(game_id, None)
        game = held()  # None: it left memory, so nobody is connected to it here
        if game is not None and (game.version != version or game.state.is_over or game.online()[seat]):
            return
        self.clock_low(game_id, seat, version, opponent)

    # ----------------------------------------------------------------- queuing

    async def drain(self) -> None:
        """Stop the low-clock timers and wait for the notices being queued (stopping)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        if len(self._pending) >= MAX_PENDING:
            work.close()
            logs.event("push_notice_dropped", pending=len(self._pending))
            return
        task = asyncio.get_running_loop().create_task(_guarded(work))
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
        if not await self.writer.read(lambda conn: subscriptions.has_devices(conn, account_id)):
            return  # most accounts: nothing to ask, nothing to write
        if not await asyncio.to_thread(self.preferences.wants, account_id, kind):
            logs.event("push_not_wanted", push_kind=kind, account_id=account_id)
            return
        now, budget = time.time(), self.budget
        added = await self.writer.transact(
            lambda conn: queue.enqueue(conn, account_id, notice, payload, now, TTL[kind], budget)
        )
        if added is None:
            logs.event("push_over_budget", push_kind=kind, account_id=account_id)
        elif added:
            logs.event("push_queued", push_kind=kind, account_id=account_id, devices=added)
            if self._wake is not None:
                self._wake()


async def _guarded(work: Coroutine[Any, Any, None]) -> None:
    """A notice is never worth failing what caused it: an error (the database away) is logged."""
    try:
        await work
    except Exception as exc:
        logs.event("push_notice_error", error=type(exc).__name__)


def _version(conn: Connection, game_id: str) -> int:
    """The game's version as stored (its log's length)."""
    return int(conn.execute(select(func.count()).select_from(actions).where(actions.c.game_id == game_id)).scalar_one())


def _game_payload(kind: str, game_id: str, seat: int, opponent: str | None) -> dict[str, Any]:
    """A game's push: its id, the opponent's name and the page that opens the account's seat."""
    return {"kind": kind, "game": game_id, "opponent": opponent, "url": f"/play/{game_id}#seat:{seat}"}
