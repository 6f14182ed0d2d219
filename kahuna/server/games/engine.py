"""The game engine: the one place that changes a game held in memory.

A change is applied to a copy of the state, committed to the database (with any reshuffle order
it drew), and only then made current, acknowledged, replicated and broadcast: a rejected or failed
change leaves the game exactly as it was, and no acknowledged change can be lost. One action flows

    referee (a copy of the state) → store (the writer's transaction) → replication → broadcast
    (each connection's own view) → AI scheduling (if an AI seat is to move now)

and an end off the board (resignation, timeout, abort) the same way, with the :mod:`ended` hook
run inside its transaction. What differs between processes (how changes are replicated, how AI
moves are scheduled) is given at construction (``games/ports.py``); what a client asks for is
checked by one module per request (``playing``, ``ending``, ``chat``, ``rematch``, ``takeback``, ``joining``,
``connections``) before it reaches the engine. Every method here expects the game's lock held.
"""

from __future__ import annotations

import random
import time
from typing import TypeVar

from sqlalchemy import Connection

from kahuna.rules import Action, Event, GameState, IllegalActionError, Reason, Termination
from kahuna.server.common import logs
from kahuna.server.common.draws import random_seed
from kahuna.server.common.errors import Rejected
from kahuna.server.db import store
from kahuna.server.db.claims import claim_clock_start, claim_end
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Conflict, Writer, lock_unfinished
from kahuna.server.games import messages
from kahuna.server.games.deadlines import Deadlines
from kahuna.server.games.ended import EndHooks, GameEnded
from kahuna.server.games.live import Client, LiveGame, rebuild
from kahuna.server.games.ports import AiTurns, NoNotices, Notices, Replication
from kahuna.server.games.seats import send_rematch

T = TypeVar("T")


def illegal(reason: Reason) -> Rejected:
    """The refusal of an illegal action, with its machine-readable reason (docs/protocol.md)."""
    return Rejected("illegal", reason.message, reason=reason.to_json())


def overtaken(game: LiveGame) -> Rejected:
    """The refusal of a change that another instance's change beat to the database."""
    return Rejected("stale_version", f"another action came first; the game is at version {game.version}")


class GameEngine:
    def __init__(
        self,
        writer: Writer,
        replication: Replication,
        ai_turns: AiTurns,
        ended: EndHooks,
        deadlines: Deadlines,
        notices: Notices | None = None,
    ) -> None:
        self.writer = writer
        self.replication = replication
        self.ai_turns = ai_turns
        self.ended = ended
        self.deadlines = deadlines
        self.notices: Notices = notices or NoNotices()
        self.left_claim_seconds = 30.0
        """Given to every game held (``--limit left_claim_seconds``, ``games/ending.claim``)."""

    # ----------------------------------------------------------------- entering and leaving memory

    def enter(self, game: LiveGame) -> None:
        """``game`` is now held here: follow other processes' changes, track its clock, and start
        the AI's turn if it is due (nobody may be computing it: the process that was died)."""
        game.left_claim_seconds = self.left_claim_seconds
        self.replication.follow(game, self)
        self.deadlines.track(game)
        self.schedule_ai(game)

    def leave(self, game: LiveGame) -> None:
        """``game`` left memory (its record is in the database)."""
        self.replication.unfollow(game.game_id)

    def schedule_ai(self, game: LiveGame) -> None:
        self.ai_turns.schedule(game, self)

    # ----------------------------------------------------------------- actions

    async def apply(
        self, game: LiveGame, seat: int, action: Action, actor: Client | None = None, msg_id: str | None = None
    ) -> None:
        """Commit ``seat``'s ``action``, then make it current and broadcast it; ``actor`` (the
        connection that sent it) gets the ``ack`` once it is committed."""
        start = time.perf_counter()
        before = game.state
        after = before.copy()
        try:
            events = after.apply(action)
        except IllegalActionError as exc:
            raise illegal(exc.reason) from None
        clock = None if game.clock is None else game.clock.copy()
        if clock is not None and (after.is_over or action.ends_turn):
            if after.is_over:
                clock.stop(time.time())
            else:
                clock.turn_ended(seat, time.time())
        else:
            clock = game.clock
        row = ActionRow(
            game_id=game.game_id,
            seq=game.version,
            seat=seat,
            token=action.token,
            new_reshuffles=tuple(enumerate(after.reshuffles))[len(before.reshuffles) :],
            status=messages.status_of(after, True),
            result=None if after.outcome is None else after.outcome.to_json(),
            at=store.now(),
            clock=None if clock is None or clock is game.clock else clock.to_store(),
        )
        try:
            if after.is_over:  # the last action: the end's subscribers write in its transaction
                ended = GameEnded(game.game_id, after, row.at, _pair(game.kinds), _pair(game.names))
                await self.writer.write(lambda conn: self._store_last_action(conn, row, ended))
            else:
                await self.writer.write(row)
        except Conflict:  # another instance stored an action at this version first
            await self.refresh(game)
            raise overtaken(game) from None
        except Exception:
            raise Rejected("server_error", "the server could not store the action; nothing changed") from None
        self.replication.action_stored(game, row)
        game.state = after
        game.clock = clock
        game.updated = row.at
        game.takeback_offer = None  # asked before this action: it no longer applies
        self.deadlines.track(game)
        if actor is not None:
            actor.send(messages.ack(msg_id, game.version))
        game.broadcast_update(seat, events, before)
        shown = action.public_token
        ms = round((time.perf_counter() - start) * 1000, 2)
        logs.event("action", game_id=game.game_id, version=game.version, seat=seat, action=shown, ms=ms)
        if after.is_over:
            logs.event("game_over", game_id=game.game_id, result=row.result, version=game.version)
        self.notices.turn(game, seat)
        self.schedule_ai(game)

    def _store_last_action(self, conn: Connection, row: ActionRow, ended: GameEnded) -> None:
        """The action that ends the game, with the end's subscribers: the game's row is locked
        first (as an end off the board does), so another instance's action or end of the same
        version either waits for this one and then loses, or wins and this one sees it."""
        lock_unfinished(conn, [row.game_id])
        store.insert_actions(conn, [row])
        self.ended.run(conn, ended)

    async def play_ai(self, game: LiveGame, seat: int, version: int, action: Action) -> bool:
        """An AI seat's chosen action, if the game is still where the agent saw it (an illegal
        choice is logged and replaced by a random legal action)."""
        async with game.lock:
            if game.version != version:
                return False
            if game.state.why_illegal(action) is not None:
                logs.event("ai_error", game_id=game.game_id, seat=seat, error="illegal action")
                action = random.Random(random_seed()).choice(game.state.legal_actions())
            await self.apply(game, seat, action)
        return True

    async def take_back(self, game: LiveGame, seat: int) -> None:
        """Take back ``seat``'s last action (``games/takeback.py`` checked it may): a log entry of
        its own, stored first, then the game as it was before that action is current and sent to
        everyone as a ``sync`` at the next version."""
        before = game.state
        after = GameState.from_deal(game.deal, before.variant, list(before.reshuffles))
        for _actor, action in before.history[:-1]:
            after.apply(action)
        assert after.reshuffles == before.reshuffles  # a card play draws nothing
        after.rng = before.rng
        row = ActionRow(
            game_id=game.game_id, seq=game.version, seat=seat, token=store.TAKEBACK, new_reshuffles=(),
            status=messages.PLAYING, result=None, at=store.now(),
        )  # fmt: skip
        try:
            await self.writer.write(row)
        except Conflict:  # another instance stored something at this version first
            await self.refresh(game)
            raise overtaken(game) from None
        except Exception:
            raise Rejected("server_error", "the server could not store the take-back; nothing changed") from None
        self.replication.changed(game)
        game.state = after
        game.takebacks += 1
        game.takeback_offer = None
        game.updated = row.at
        game.broadcast_sync()
        logs.event("takeback", game_id=game.game_id, seat=seat, version=game.version)

    def ask_takeback(self, game: LiveGame, seat: int) -> None:
        """``seat`` asks to take back its last action (``games/takeback.py`` checked it may): the
        request stands at this version (memory only) and goes to every connection and instance."""
        game.takeback_offer = (seat, game.version)
        game.send_takeback_offer()
        self.replication.takeback_asked(game)
        logs.event("takeback_offered", game_id=game.game_id, seat=seat, version=game.version)

    def void_takeback(self, game: LiveGame) -> None:
        """The standing request was asked at an older version: it no longer applies."""
        game.takeback_offer = None

    def decline_takeback(self, game: LiveGame, seat: int) -> None:
        """``seat`` declines the other seat's standing request, which counts against the asker."""
        game.takeback_offer = None
        game.takeback_declines[1 - seat] += 1
        game.send_takeback_declined(seat)
        self.replication.takeback_asked(game, declined_by=seat)

    # ----------------------------------------------------------------- the end off the board

    async def time_out_now(self, game: LiveGame) -> None:
        """End ``game`` by timeout if its running clock has run out (starting first a clock that
        waited for the players past its grace, dated when the grace ended)."""
        clock = game.clock
        if clock is None or game.state.is_over:
            return
        if clock.waiting:
            assert clock.starts_by is not None
            if time.time() < clock.starts_by:
                self.deadlines.track(game)
                return
            await self.start_clock(game, clock.starts_by)
            clock = game.clock
            assert clock is not None
        seat = clock.flagged(time.time())
        deadline = clock.deadline()
        if seat is None or deadline is None:
            self.deadlines.track(game)
            return
        await self.end(game, Termination("timeout", seat), deadline)

    async def players_here(self, game: LiveGame) -> None:
        """Both players are connected (to this instance or another): a clock that waited for them
        starts now. Takes the game's lock."""
        async with game.lock:
            clock = game.clock
            if clock is not None and clock.waiting and not game.state.is_over and all(game.online()):
                await self.start_clock(game, time.time())

    async def start_clock(self, game: LiveGame, moment: float) -> None:
        """Start the clock that waited for the players (both are there, or the grace is over) at
        ``moment``: the clock of the seat to move runs. Stored first, then sent to everyone."""
        assert game.clock is not None and game.clock.waiting
        clock = game.clock.copy()
        clock.start(game.state.to_move, moment)
        version, stored = game.version, clock.to_store()
        try:
            await self.writer.write(lambda conn: claim_clock_start(conn, game.game_id, version, stored))
        except Conflict:  # another instance started it (or stored a turn) first: take what it stored
            await self.refresh(game)
            return
        self.replication.changed(game)
        game.clock = clock
        self.deadlines.track(game)
        game.broadcast_clock()
        self.notices.turn(game, None)  # the clock of the seat to move runs now
        logs.event("clock_started", game_id=game.game_id, version=version, late_s=round(time.time() - moment, 3))

    async def end(self, game: LiveGame, termination: Termination, moment: float) -> None:
        """End ``game`` off the board at ``moment``: stored first (with the end's subscribers), then
        made current and sent to everyone as a ``sync``."""
        after = game.state.copy()
        after.terminate(termination)
        clock = None if game.clock is None else game.clock.copy()
        if clock is not None:
            clock.stop(moment)
        assert after.outcome is not None
        result = after.outcome.to_json()
        at = store.iso(moment)
        stored_clock = None if clock is None else clock.to_store()
        ended = GameEnded(game.game_id, after, at, _pair(game.kinds), _pair(game.names))
        version = game.version

        def write(conn: Connection) -> None:
            claim_end(conn, game.game_id, version)  # once, whichever instance fires it
            store.end_game(conn, game.game_id, result, termination.to_json(), at, stored_clock)
            self.ended.run(conn, ended)

        try:
            await self.writer.write(write)
        except Conflict:  # another instance ended the game or stored an action first
            await self.refresh(game)
            if game.state.is_over:
                raise Rejected("game_over", "the game is over") from None
            raise overtaken(game) from None
        except Exception:
            raise Rejected("server_error", "the server could not store the end of the game; nothing changed") from None
        self.replication.changed(game)
        game.state = after
        game.clock = clock
        game.updated = at
        self.deadlines.track(game)
        game.broadcast_sync()
        late = round(time.time() - moment, 3)
        logs.event("game_over", game_id=game.game_id, result=result, version=game.version, late_s=late)

    # ----------------------------------------------------------------- changes made elsewhere

    async def refresh(self, game: LiveGame) -> None:
        """Catch ``game`` up with the database after another instance changed it: rebuilt from the
        record, then a ``sync`` to each of its connections here."""
        stored = await self.writer.read(lambda conn: store.load_game(conn, game.game_id))
        if stored is None:
            return
        had_rematch = game.rematch
        before = game.version
        game.adopt(rebuild(stored))
        logs.event("game_refreshed", game_id=game.game_id, version=game.version, behind=game.version - before)
        self.deadlines.track(game)
        game.broadcast_sync()
        if had_rematch is None and game.rematch is not None:  # agreed through another instance
            game.rematch_offer = None
            for client in game.clients:
                send_rematch(game, client)
        self.schedule_ai(game)

    def applied_elsewhere(self, game: LiveGame, seat: int, events: list[Event], before: GameState) -> None:
        """Another instance stored ``seat``'s action, now applied to ``game`` here (it was at
        ``before``): tell this instance's connections, as for an action played here."""
        self.deadlines.track(game)
        game.broadcast_update(seat, events, before)
        self.notices.turn(game, seat)
        self.schedule_ai(game)


def _pair(values: list[T]) -> tuple[T, T]:
    return values[0], values[1]
