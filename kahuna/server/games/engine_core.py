"""The engine's core: a game's moves, its end and its clock, here or stored by another instance
(the rest of :class:`~kahuna.server.games.engine.GameEngine`, its offers, chat and seats, is
``games/engine.py``; the engine is the one class, in two modules for their size).

A change is applied to a copy of the state, committed to the database (with any reshuffle order
it drew), and only then made current, acknowledged, replicated and broadcast: a rejected or failed
change leaves the game exactly as it was, and no acknowledged change can be lost. One action flows

    referee (a copy of the state) → store (the writer's transaction) → replication → broadcast
    (each connection's own view) → AI scheduling (if an AI seat is to move now)

and an end off the board (resignation, timeout, abort) the same way, with the :mod:`ended` hook
run inside its transaction. An action another instance stored takes the same path from the
referee on (:meth:`EngineCore.apply_stored`), with the reshuffle order that instance drew. What
differs between processes (how changes are replicated, how AI moves are scheduled) is given at
construction (``games/ports.py``). Every method here expects the game's lock held.
"""

from __future__ import annotations

import random
import time
from typing import Any, TypeVar

from sqlalchemy import Connection

from kahuna.clock import Clock
from kahuna.rules import Action, GameState, IllegalActionError, KahunaError, Reason, Termination, parse
from kahuna.server.common import logs
from kahuna.server.common.draws import random_seed
from kahuna.server.common.errors import Rejected
from kahuna.server.db import store
from kahuna.server.db.claims import claim_clock_start, claim_end
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Conflict, Writer, lock_unfinished
from kahuna.server.games import messages, outgoing
from kahuna.server.games.client import Reply
from kahuna.server.games.deadlines import Deadlines
from kahuna.server.games.ended import EndHooks, GameEnded
from kahuna.server.games.live import LiveGame, rebuild
from kahuna.server.games.ports import AiTurns, NoNotices, Notices, Replication
from kahuna.server.games.seats import send_rematch

T = TypeVar("T")


def illegal(reason: Reason) -> Rejected:
    """The refusal of an illegal action, with its machine-readable reason (docs/protocol.md)."""
    return Rejected("illegal", reason.message, reason=reason.to_json())


def overtaken(game: LiveGame) -> Rejected:
    """The refusal of a change that another instance's change beat to the database."""
    return Rejected("stale_version", f"another action came first; the game is at version {game.version}")


class EngineCore:
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

    def schedule_ai(self, game: LiveGame) -> None:
        self.ai_turns.schedule(game, self)

    # ----------------------------------------------------------------- actions

    async def apply(self, game: LiveGame, seat: int, action: Action, reply: Reply | None = None) -> None:
        """Commit ``seat``'s ``action``, then make it current and broadcast it; ``reply`` (the
        connection that sent it) gets its ``ack`` once it is committed, before the ``update``."""
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
        if reply is not None:
            reply.ack(game.version)
        outgoing.update(game, seat, events, before)
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

    async def take_back(self, game: LiveGame, seat: int, reply: Reply | None = None) -> None:
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
        outgoing.sync(game)
        acknowledge(game, reply)
        logs.event("takeback", game_id=game.game_id, seat=seat, version=game.version)

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
        outgoing.clock(game)
        self.notices.turn(game, None)  # the clock of the seat to move runs now
        logs.event("clock_started", game_id=game.game_id, version=version, late_s=round(time.time() - moment, 3))

    async def end(self, game: LiveGame, termination: Termination, moment: float, reply: Reply | None = None) -> None:
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
        outgoing.sync(game)
        acknowledge(game, reply)
        late = round(time.time() - moment, 3)
        logs.event("game_over", game_id=game.game_id, result=result, version=game.version, late_s=late)

    # ----------------------------------------------------------------- changes made elsewhere

    def apply_stored(
        self, game: LiveGame, seat: int, token: str, reshuffles: list[Any], clock: dict[str, Any] | None, at: str
    ) -> bool:
        """Another instance stored ``seat``'s action ``token`` at this game's version (with the
        reshuffle orders it drew and the clock after it): the referee applies it here, then this
        instance's connections are told as for an action played here. ``False`` if it does not
        fit (the caller reloads the game instead)."""
        if game.state.is_over or game.state.to_move != seat:
            return False
        before = game.state
        after = before.copy()
        after.reshuffle_queue = [cards for _, cards in reshuffles]
        try:
            events = after.apply(parse(token))
        except KahunaError:
            return False
        if after.reshuffle_queue:
            return False
        game.state = after
        if clock is not None:
            game.clock = Clock.from_store(clock)
        game.updated = at
        self.deadlines.track(game)
        outgoing.update(game, seat, events, before)
        self.notices.turn(game, seat)
        self.schedule_ai(game)
        return True

    async def refresh(self, game: LiveGame) -> None:
        """Catch ``game`` up with the database after another instance changed it: rebuilt from the
        record, then a ``sync`` to each of its connections here."""
        stored = await self.writer.read(lambda conn: store.load_game(conn, game.game_id))
        if stored is None:
            return
        had_rematch = game.rematch
        before = game.version
        _adopt(game, rebuild(stored))
        logs.event("game_refreshed", game_id=game.game_id, version=game.version, behind=game.version - before)
        self.deadlines.track(game)
        outgoing.sync(game)
        if had_rematch is None and game.rematch is not None:  # agreed through another instance
            game.rematch_offer = None
            for client in game.room.clients:
                send_rematch(game, client)
        self.schedule_ai(game)


def _adopt(game: LiveGame, fresh: LiveGame) -> None:
    """Take the stored state of ``game`` from ``fresh`` (rebuilt from the database after another
    instance changed it), keeping this instance's room, AI task and offers."""
    game.state, game.kinds, game.names = fresh.state, fresh.kinds, fresh.names
    game.seat_tokens, game.invite, game.updated = fresh.seat_tokens, fresh.invite, fresh.updated
    game.clock, game.chat = fresh.clock, fresh.chat
    game.hidden_lines, game.shadow_lines = fresh.hidden_lines, fresh.shadow_lines
    game.rematch, game.rematch_of = fresh.rematch, fresh.rematch_of
    game.rated, game.casual_reason, game.takebacks = fresh.rated, fresh.casual_reason, fresh.takebacks
    game.tournament, game.archived = fresh.tournament, fresh.archived
    if game.takeback_offer is not None and game.takeback_offer[1] != game.version:
        game.takeback_offer = None
    game.room.forget()


def acknowledge(game: LiveGame, reply: Reply | None) -> None:
    """A request's ``ack``, after what it caused was sent to everyone."""
    if reply is not None:
        reply.ack(game.version)


def _pair(values: list[T]) -> tuple[T, T]:
    return values[0], values[1]
