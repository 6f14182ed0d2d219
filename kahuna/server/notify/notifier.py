"""The notifier: the one place where a moment worth telling a player becomes a notice, decided
once and handed to each channel that says it (``push/channel.py``, ``mail/channel.py``), each
given at assembly with its outbox (sent here, or left queued for ``kahuna worker``).

The rooms that see these moments call it through the games' :class:`~kahuna.server.games.ports.Notices`
port: the game engine (a turn), the lobby (a challenge), the tournaments (a game starting). Each
call returns at once and decides the notice in a task of its own, so a move never waits for the
database write of a notice, let alone for a push service or a mail server. Tasks under way are
bounded (:data:`MAX_PENDING`): past that a notice is dropped and logged, never queued in memory.

What is told as it happens (each channel's ``kinds_now``):

- ``your_turn``: a turn passed to a human seat with no open connection anywhere, to its account
  (the notice ``your_turn:GAME:VERSION``; a guest, or one account on both seats, gets none);
- ``deadline``: a clock running low: after each turn the seat to move gets a timer for the moment
  its time falls to ``clock_low_fraction`` of what it had when the turn began (one timer per game,
  replaced at every turn; turns that began with less than ``clock_low_min_seconds`` get none: in a
  fast game the player is at the board). When it fires, the game must still be at the same
  version in the database and the seat still away, or nothing is told;
- ``challenge``: a challenge to the account;
- ``tournament``: a tournament game of the account's starting.

Push takes all four as they happen; mail takes the challenge, and finds the notices it sends only
after a while (a correspondence turn left an hour, a deadline near, a tournament starting soon)
with its own scan (``mail/reminders.py``).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Coroutine, Sequence
from typing import Any, Protocol

from sqlalchemy import Connection, func, select

from kahuna.server.accounts.notifications import Notice
from kahuna.server.common import logs
from kahuna.server.db.schema import actions, seats
from kahuna.server.db.writer import Writer
from kahuna.server.games.live import LiveGame

MAX_PENDING = 256
"""Notices being decided at once in this process; more are dropped."""
MAX_TIMERS = 10_000
"""Games whose low clock this process watches at once; the games past it get no warning."""
LIFE = {"your_turn": 24 * 3600.0, "deadline": 3600.0, "tournament": 600.0}
"""How long a notice told as it happens is worth delivering, by kind (a challenge: until it lapses)."""


class Channel(Protocol):
    """One way of telling an account: push, mail. Started and stopped with the process."""

    kinds_now: tuple[str, ...]
    """The kinds it is handed as they happen."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def deliver(self, notice: Notice) -> None:
        """Decide ``notice`` for this channel (its settings, budgets and queue)."""
        ...


def _seat_accounts(conn: Connection, game_id: str) -> dict[int, int]:
    """The accounts of the game's seats (seat → account id), for seats that have one."""
    rows = conn.execute(
        select(seats.c.seat, seats.c.account_id).where(seats.c.game_id == game_id, seats.c.account_id.is_not(None))
    )
    return {int(r.seat): int(r.account_id) for r in rows}


def _version(conn: Connection, game_id: str) -> int:
    """The game's version as stored (its log's length)."""
    return int(conn.execute(select(func.count()).select_from(actions).where(actions.c.game_id == game_id)).scalar_one())


class Notifier:
    """Turns the moments the rooms report into notices for its channels."""

    def __init__(
        self,
        writer: Writer,
        channels: Sequence[Channel],
        clock_low_fraction: float = 0.2,
        clock_low_min_seconds: float = 120.0,
    ) -> None:
        self.writer = writer
        self.channels = tuple(channels)
        self.clock_low_fraction = min(1.0, clock_low_fraction)
        self.clock_low_min_seconds = clock_low_min_seconds
        self._pending: set[asyncio.Task[None]] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def start(self) -> None:
        for channel in self.channels:
            channel.start()

    async def stop(self) -> None:
        """Stop the low-clock timers, wait for the notices being decided, then stop the channels."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
        for channel in reversed(self.channels):
            await channel.stop()

    # ----------------------------------------------------------------- what the rooms report

    def turn(self, game: LiveGame, acted: int | None) -> None:
        """``game`` has an action of seat ``acted`` (here or elsewhere; ``None``: its clock started):
        if that passed the turn to a human seat that has no open connection anywhere, the seat is
        told ``your_turn``, and its clock gets a timer for running low. Lock held; returns at once."""
        self._watch_clock(game)
        state = game.state
        if state.is_over or state.to_move == acted:  # an action inside a turn: nothing new to tell
            return
        if game.ai_spec(state.to_move) is not None or game.online()[state.to_move]:
            return
        seat, game_id, version = state.to_move, game.game_id, game.version
        opponent = game.names[1 - seat]
        self._spawn(self._seat_notice("your_turn", game_id, seat, version, opponent, check_version=False))

    def clock_low(self, game_id: str, seat: int, version: int, opponent: str | None) -> None:
        """``seat``'s clock is running low (``deadline``) in ``game_id`` at ``version`` (the caller
        saw the seat away): told if the game is still at that version in the database."""
        self._spawn(self._seat_notice("deadline", game_id, seat, version, opponent, check_version=True))

    def challenge(self, account_id: int, challenge_id: str, challenger: str, expires: float) -> None:
        """``challenger`` challenged the account (``challenge``)."""
        self._tell(Notice("challenge", account_id, challenge_id, None, challenger, "/lobby", expires))

    def tournament_game(self, account_id: int, game_id: str, seat: int, opponent: str | None, url: str) -> None:
        """A tournament game of the account's starts (``tournament``)."""
        lapse = time.time() + LIFE["tournament"]
        self._tell(Notice("tournament", account_id, game_id, None, opponent, url, lapse, seat=seat))

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

    # ----------------------------------------------------------------- deciding

    async def _seat_notice(
        self, kind: str, game_id: str, seat: int, version: int, opponent: str | None, check_version: bool
    ) -> None:
        """Tell the account on ``seat`` of ``game_id`` (none for a guest, or one account on both
        seats); with ``check_version``, only if the game is still at ``version`` as stored (it may
        have moved on through another instance)."""
        stored, accounts = await self.writer.read(
            lambda conn: (_version(conn, game_id) if check_version else version, _seat_accounts(conn, game_id))
        )
        account = accounts.get(seat)
        if stored != version or account is None or accounts.get(1 - seat) == account:
            return
        lapse = time.time() + LIFE[kind]
        notice = Notice(kind, account, game_id, version, opponent, f"/play/{game_id}#seat:{seat}", lapse, seat=seat)
        await self._deliver(notice)

    def _tell(self, notice: Notice) -> None:
        self._spawn(self._deliver(notice))

    async def _deliver(self, notice: Notice) -> None:
        """Hand ``notice`` to every channel that takes its kind as it happens; one channel's error
        (its database away) is logged and spares the others."""
        for channel in self.channels:
            if notice.kind in channel.kinds_now:
                await _guarded(channel.deliver(notice))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        if len(self._pending) >= MAX_PENDING:
            work.close()
            logs.event("notice_dropped", pending=len(self._pending))
            return
        task = asyncio.get_running_loop().create_task(_guarded(work))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


async def _guarded(work: Coroutine[Any, Any, None]) -> None:
    """A notice is never worth failing what caused it: an error (the database away) is logged."""
    try:
        await work
    except Exception as exc:
        logs.event("notice_error", error=type(exc).__name__)
