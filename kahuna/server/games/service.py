"""The games of a server: create, join, play, watch, resume. The one place that changes a game.

An action is applied to a copy of the state, committed to the database (with any reshuffle order
it drew), and only then made current, acknowledged and broadcast: a rejected or failed action
leaves the game exactly as it was, and no acknowledged action can be lost.

Games live in memory only while they are used: one nobody has touched for ``idle_game_seconds``
leaves memory and is loaded from the database again when asked for. A game whose stored record
cannot be loaded is quarantined (logged once with its id, answered ``410 damaged``) and every other
game is served as usual.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from kahuna.ai import timed
from kahuna.ai.registry import make_agent
from kahuna.clock import MIN_INITIAL, Clock, ClockError, TimeControl
from kahuna.rules import (
    Action,
    Event,
    GameState,
    IllegalActionError,
    KahunaError,
    PlayerView,
    Reason,
    Termination,
    Variant,
    parse,
    view_of,
)
from kahuna.rules.board import SEAT_NAMES
from kahuna.server.accounts import store as accounts
from kahuna.server.cluster.jobs import Job, Submitter
from kahuna.server.cluster.replication import Cluster, claim_end, claim_seat
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_chat
from kahuna.server.common.tokens import digest, new_game_id, new_secret, random_seed
from kahuna.server.community import ratings
from kahuna.server.db import store
from kahuna.server.db.store import ActionRow, StoredGame
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.games import ai_pool as ai_seats
from kahuna.server.games import messages
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.live import AI_PREFIX, HUMAN, Client, LiveGame, rebuild
from kahuna.server.games.tutorial import TUTOR_NAME, TUTORIAL_DEAL

DealProvider = Callable[[], str]
"""Tests only: deals for new games (24 letters), so that two games can differ only in hidden cards."""

AI_RETRY_SECONDS = 1.0
SWEEP_EVERY = 5.0
"""Seconds between two looks for idle games to drop from memory."""


def illegal(reason: Reason) -> Rejected:
    """The refusal of an illegal action, with its machine-readable reason (docs/protocol.md)."""
    return Rejected("illegal", reason.message, reason=reason.to_json())


@dataclass(frozen=True)
class NewGame:
    opponent: str
    level: str
    variant: tuple[str, ...]
    seat: str
    name: str
    clock: dict[str, Any] | None = None
    """The time control as sent (``kahuna.clock.TimeControl.from_json``); ``None``: untimed."""


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso(epoch: float) -> str:
    """A moment (seconds since the epoch) as the database's time stamps write it."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rematch_token(old_token: str, new_game_id: str) -> str:
    """A player's seat token in the rematch, derived from their seat token of the old game: only
    its holder can obtain it (by presenting the old token), whenever they come back, even after a
    restart, and the server stores neither token, only digests."""
    mac = hmac.new(old_token.encode(), b"kahuna-rematch:" + new_game_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def _turn_finished(state: GameState) -> bool:
    """Whether either player has finished a turn (after that a game can no longer be aborted)."""
    return any(action.ends_turn for _, action in state.history)


def seat_links(game_id: str, seat: int, token: str) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seat": seat,
        "token": token,
        "seat_url": f"/play/{game_id}#{token}",
        "spectator_url": f"/watch/{game_id}",
    }


def _valid_game_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in game_id)


class GameService:
    def __init__(
        self,
        writer: Writer,
        ai: AiPool,
        deal_provider: DealProvider | None = None,
        idle_game_seconds: float = 300.0,
        clock_min_seconds: int = MIN_INITIAL,
        chat_lines_per_game: int = 500,
    ) -> None:
        self.writer = writer
        self.ai = ai
        self.deal_provider = deal_provider
        self.idle_game_seconds = idle_game_seconds
        self.clock_min_seconds = clock_min_seconds
        self.chat_lines_per_game = chat_lines_per_game
        self.deadlines: dict[str, float] = {}
        """When the running clock of each timed game runs out (seconds since the epoch), for games
        in memory or not: the deadline loop ends the game then, exactly once."""
        self._deadlines_changed = asyncio.Event()
        self._deadline_task: asyncio.Task[None] | None = None
        self.games: dict[str, LiveGame] = {}
        self.invites: dict[str, str] = {}
        self.damaged: set[str] = set()
        """Ids of games whose stored record cannot be loaded (quarantined until restart)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.cluster: Cluster | None = None
        """Set with ``kahuna serve --broker``: the other instances that serve the same games
        (``kahuna.server.cluster.replication``); ``None`` in the embedded default."""
        self.ai_jobs: Submitter | None = None
        """Set with ``kahuna serve --broker`` (unless ``--local-ai``): AI moves are queued for
        ``kahuna worker`` processes (``kahuna.server.cluster.jobs``) rather than computed here."""

    # ----------------------------------------------------------------- life cycle

    async def resume(self) -> int:
        """Rebuild every unfinished game from its record and restart pending AI turns; start the
        sweeper that drops idle games from memory. Damaged games are quarantined, not fatal."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        self._deadline_task = asyncio.get_running_loop().create_task(self._deadline_loop())
        if self.cluster is not None and self.ai_jobs is not None:
            # Several instances, AI moves in workers: games load when asked for; only the clocks'
            # deadlines are needed now (an instance holds the games it serves, not all of them).
            return await self.cluster.watch_deadlines()
        try:
            ids = await self.writer.read(store.unfinished_game_ids)
        except Exception as exc:  # a damaged index: serve what can be loaded, game by game
            logs.event("resume_failed", error=type(exc).__name__)
            return 0
        resumed = 0
        for game_id in ids:
            try:
                game = await self.get(game_id)
            except Rejected:
                continue
            if game is not None:
                resumed += 1
                self.schedule_ai(game)
        return resumed

    def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._deadline_task is not None:
            self._deadline_task.cancel()
        for game in self.games.values():
            if game.ai_task is not None:
                game.ai_task.cancel()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(min(SWEEP_EVERY, self.idle_game_seconds))
            self.evict_idle()

    def evict_idle(self) -> int:
        """Drop the games nobody uses from memory (their record is in the database)."""
        now_ = time.monotonic()
        idle = [game for game in self.games.values() if game.idle(now_, self.idle_game_seconds)]
        for game in idle:
            del self.games[game.game_id]
            if self.cluster is not None:
                self.cluster.unfollow(game.game_id)
            if game.invite is not None:
                self.invites.pop(game.invite, None)
        if idle:
            logs.event("games_evicted", count=len(idle), in_memory=len(self.games))
        return len(idle)

    # ----------------------------------------------------------------- lookup

    async def get(self, game_id: str) -> LiveGame | None:
        """The game, from memory or rebuilt from the database; ``Rejected`` (410) if it is damaged."""
        game = self.games.get(game_id)
        if game is None and _valid_game_id(game_id):
            game = await self._load(game_id)
        if game is not None:
            game.used = time.monotonic()
        return game

    async def _load(self, game_id: str) -> LiveGame | None:
        if game_id in self.damaged:
            raise _damaged(game_id)
        try:
            stored = await self.writer.read(lambda conn: store.load_game(conn, game_id))
            if stored is None:
                return None
            rebuilt = rebuild(stored)
        except Exception as exc:  # a damaged row or page must cost this game only, not the server
            self.damaged.add(game_id)
            logs.event("game_quarantined", game_id=game_id, error=type(exc).__name__)
            raise _damaged(game_id) from None
        game = self.games.get(game_id)  # loaded by a concurrent request meanwhile
        if game is None:
            game = self.games[game_id] = rebuilt
            game.owner = game_id
            if game.invite is not None:
                self.invites[game.invite] = game_id
            self._watch(game)
            # An AI move may be due that nobody is computing: the instance that queued it (or was
            # thinking) died first. Queued again here (a job still queued is not queued twice).
            self.schedule_ai(game)
        return game

    async def my_games(self, tokens: list[str]) -> list[dict[str, Any]]:
        by_digest = {digest(t): t for t in tokens}
        rows = await self.writer.read(lambda conn: store.seats_of_tokens(conn, list(by_digest)))
        out = []
        for token_digest, game_id, seat in rows:
            try:
                game = await self.get(game_id)
            except Rejected:  # damaged: left out, as an unknown token is
                continue
            if game is not None:
                out.append({"game_id": game_id, "seat": seat, "token": by_digest[token_digest], **game.summary()})
        out.sort(key=lambda g: str(g["updated"]), reverse=True)
        return out

    # ----------------------------------------------------------------- creating and joining

    async def create(self, spec: NewGame, owner: str = "") -> dict[str, Any]:
        try:
            variant = Variant.from_names(spec.variant)
        except KahunaError as exc:
            raise Rejected("invalid", str(exc), 422) from None
        if spec.opponent == "ai" and not ai_seats.available(spec.level):
            raise Rejected("invalid", f"AI level {spec.level!r} is not available on this server", 422)
        try:
            control = TimeControl.from_json(spec.clock, self.clock_min_seconds)
        except ClockError as exc:
            raise Rejected("invalid", f"clock: {exc}", 422) from None
        tutorial = spec.opponent == "tutorial"  # hot-seat on the tutorial's deal; the player is Black
        seat = 0 if tutorial else {"first": 0, "second": 1}.get(spec.seat, secrets.randbelow(2))
        other = 1 - seat
        tokens: list[str | None] = [None, None]
        tokens[seat] = new_secret()
        kinds = [HUMAN, HUMAN]
        names: list[str | None] = [None, None]
        names[seat] = spec.name
        invite = None
        if spec.opponent == "ai":
            kinds[other] = AI_PREFIX + spec.level
            names[other] = f"Kahuna AI ({spec.level})"
        elif spec.opponent == "hotseat" or tutorial:
            tokens[other] = new_secret()
            # The panels already say Black/White; a second name that differs from the first reads best.
            names[other] = TUTOR_NAME if tutorial else "Player 2" if spec.name != "Player 2" else "Player 1"
        else:
            invite = new_secret()
        game_id = new_game_id()
        when = now()
        clock = None if control is None else Clock.new(control)
        if clock is not None and all(n is not None for n in names):
            clock.start(0, time.time())  # both seats are taken: seat 0's clock starts
        stored = StoredGame(
            game_id=game_id,
            created=when,
            updated=when,
            variant=variant.to_json(),
            deal=TUTORIAL_DEAL if tutorial else self._deal(),
            kinds=kinds,
            names=names,
            invite=None if invite is None else digest(invite),
            seat_tokens=[None if t is None else digest(t) for t in tokens],
            status=messages.PLAYING if all(n is not None for n in names) else messages.WAITING,
            reshuffles=[],
            actions=[],
            clock=None if clock is None else clock.to_store(),
        )
        await self.writer.write(lambda conn: store.insert_game(conn, stored))
        game = rebuild(stored)
        game.owner = owner or game_id
        self.games[game_id] = game
        if stored.invite is not None:
            self.invites[stored.invite] = game_id
        clock_shown = None if control is None else control.to_json()
        logs.event(
            "game_created", game_id=game_id, kinds=kinds, variant=variant.names, status=game.status, clock=clock_shown
        )
        self._watch(game)
        self.schedule_ai(game)
        token = tokens[seat]
        assert token is not None
        out = seat_links(game_id, seat, token)
        out["invite_url"] = None if invite is None else f"/join/{invite}"
        out["tokens"] = tokens if spec.opponent == "hotseat" or tutorial else None
        return out

    def register(self, stored: StoredGame, owner: str) -> LiveGame:
        """Serve a game that another module (the lobby) has just stored with both seats taken."""
        game = rebuild(stored)
        game.owner = owner or stored.game_id
        self.games[stored.game_id] = game
        logs.event("game_created", game_id=stored.game_id, kinds=stored.kinds, variant=stored.variant, lobby=True)
        self._watch(game)
        self.schedule_ai(game)
        return game

    def deal(self) -> str:
        """A new game's deal (24 letters): random, or the test's choice."""
        return self._deal()

    def _deal(self) -> str:
        if self.deal_provider is not None:
            return self.deal_provider()
        deal = GameState.new(random.Random(random_seed())).deal
        assert deal is not None
        return deal

    async def join(self, invite: str, name: str) -> dict[str, Any]:
        invite_digest = digest(invite)
        game_id = self.invites.get(invite_digest)
        if game_id is None:
            game_id = await self.writer.read(lambda conn: store.game_id_of_invite(conn, invite_digest))
        game = None if game_id is None else await self.get(game_id)
        if game is None:
            raise Rejected("not_found", "no game has this invite", 404)
        async with game.lock:
            free = [s for s in (0, 1) if game.names[s] is None]
            if not free:
                raise Rejected("taken", "this invite has already been used", 409)
            seat = free[0]
            token = new_secret()
            token_digest = digest(token)
            when = now()
            clock = None if game.clock is None else game.clock.copy()
            if clock is not None:
                clock.start(0, time.time())  # both seats are taken now: seat 0's clock starts

            def write(conn: Connection) -> None:
                claim_seat(conn, game.game_id, seat)  # free on every instance, not only here
                store.insert_seat(conn, game.game_id, seat, token_digest, name, when)
                if clock is not None:
                    store.save_clock(conn, game.game_id, clock.to_store())

            try:
                await self.writer.write(write)
            except Conflict:  # another instance gave the seat away first
                await self.refresh(game)
                raise Rejected("taken", "this invite has already been used", 409) from None
            if self.cluster is not None:
                self.cluster.changed(game)
            game.seat_tokens[seat] = token_digest
            game.names[seat] = name
            game.updated = when
            game.clock = clock
            self._watch(game)
            logs.event("game_joined", game_id=game.game_id, seat=seat)
            game.broadcast_sync()
        return seat_links(game.game_id, seat, token)

    # ----------------------------------------------------------------- playing

    async def act(
        self,
        game: LiveGame,
        seat: int | None,
        action: Action,
        version: int,
        actor: Client | None = None,
        msg_id: str | None = None,
    ) -> None:
        """Play ``action`` for ``seat`` if the protocol allows it, else raise ``Rejected``.

        ``actor`` (the connection that sent it) gets the ``ack`` once the action is committed.
        """
        if seat is None:
            raise Rejected("forbidden", "spectators cannot play")
        async with game.lock:
            if game.clock is not None and not game.state.is_over and game.clock.flagged(time.time()) is not None:
                await self._time_out_now(game)  # the deadline has passed, the timer not yet fired
            if game.state.is_over:
                raise Rejected("game_over", "the game is over")
            if version != game.version:
                raise Rejected("stale_version", f"you are at version {version}, the game is at version {game.version}")
            if game.status == messages.WAITING:
                raise Rejected("not_your_turn", "the game is waiting for its invited opponent")
            if game.state.to_move != seat:
                raise Rejected("not_your_turn", f"it is {SEAT_NAMES[game.state.to_move]}'s turn")
            await self._apply(game, seat, action, actor, msg_id)

    async def _apply(
        self, game: LiveGame, seat: int, action: Action, actor: Client | None = None, msg_id: str | None = None
    ) -> None:
        """Commit, then make current and broadcast (the caller holds the game's lock)."""
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
            seq=len(before.history),
            seat=seat,
            token=action.token,
            new_reshuffles=tuple(enumerate(after.reshuffles))[len(before.reshuffles) :],
            status=messages.status_of(after, True),
            result=None if after.outcome is None else after.outcome.to_json(),
            at=now(),
            clock=None if clock is None or clock is game.clock else clock.to_store(),
        )
        try:
            if after.is_over:  # the last action: the ratings of a rated game change in its transaction
                await self.writer.write(lambda conn: _store_last_action(conn, row, after))
            else:
                await self.writer.write(row)
        except Conflict:  # another instance stored an action at this version first
            await self.refresh(game)
            raise _overtaken(game) from None
        except Exception:
            raise Rejected("server_error", "the server could not store the action; nothing changed") from None
        if self.cluster is not None:
            self.cluster.action_stored(game, row)
        game.state = after
        game.clock = clock
        game.updated = row.at
        self._watch(game)
        if actor is not None:
            actor.send(messages.ack(msg_id, game.version))
        game.broadcast_update(seat, events)
        shown = action.public_token
        ms = round((time.perf_counter() - start) * 1000, 2)
        logs.event("action", game_id=game.game_id, version=game.version, seat=seat, action=shown, ms=ms)
        if after.is_over:
            logs.event("game_over", game_id=game.game_id, result=row.result, version=game.version)
        self.schedule_ai(game)

    # ----------------------------------------------------------------- clocks and the end off the board

    def _watch(self, game: LiveGame) -> None:
        """Keep the deadline loop up to date with ``game``'s clock (call after any change, and when
        a game enters memory: with several instances, it then starts following the others' news)."""
        if self.cluster is not None:
            self.cluster.follow(game)
        deadline = None if game.clock is None or game.state.is_over else game.clock.deadline()
        if deadline is None:
            if self.deadlines.pop(game.game_id, None) is None:
                return
        elif self.deadlines.get(game.game_id) == deadline:
            return
        else:
            self.deadlines[game.game_id] = deadline
        self._deadlines_changed.set()

    def add_deadlines(self, found: dict[str, float]) -> None:
        """Deadlines read from the database (set by any instance): the earlier of the known and the
        found one is kept (firing early only looks at the clock and waits again)."""
        changed = False
        for game_id, deadline in found.items():
            if deadline < self.deadlines.get(game_id, math.inf):
                self.deadlines[game_id] = deadline
                changed = True
        if changed:
            self._deadlines_changed.set()

    async def _deadline_loop(self) -> None:
        """Sleep until the earliest deadline (or a change), then end that game by timeout: decided
        here, by the server, whether anybody is connected or not; a deadline that passed while the
        server was down fires at start, dated when it passed."""
        while True:
            self._deadlines_changed.clear()
            due = min(self.deadlines.items(), key=lambda item: item[1], default=None)
            wait = None if due is None else due[1] - time.time()
            if wait is None or wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._deadlines_changed.wait(), wait)
                continue
            assert due is not None
            game_id = due[0]
            self.deadlines.pop(game_id, None)  # put back by _watch if that clock still runs
            try:
                game = await self.get(game_id)
                if game is not None:
                    async with game.lock:
                        await self._time_out_now(game)
            except Rejected as exc:
                if exc.code == "server_error":  # the database refused: try again soon
                    logs.event("timeout_error", game_id=game_id, error=exc.code)
                    self.deadlines.setdefault(game_id, time.time() + AI_RETRY_SECONDS)
                # else another instance ended the game (or moved) first: caught up, _watch knows
            except Exception as exc:  # a damaged game or a failed write: logged, tried again soon
                logs.event("timeout_error", game_id=game_id, error=type(exc).__name__)
                self.deadlines.setdefault(game_id, time.time() + AI_RETRY_SECONDS)

    async def _time_out_now(self, game: LiveGame) -> None:
        """End ``game`` by timeout if its running clock has run out (the caller holds the lock)."""
        clock = game.clock
        if clock is None or game.state.is_over:
            return
        seat = clock.flagged(time.time())
        deadline = clock.deadline()
        if seat is None or deadline is None:
            self._watch(game)
            return
        await self._end(game, Termination("timeout", seat), deadline)

    async def _end(self, game: LiveGame, termination: Termination, moment: float) -> None:
        """End ``game`` off the board at ``moment``: stored first, then made current and sent to
        everyone as a ``sync`` (the caller holds the game's lock)."""
        after = game.state.copy()
        after.terminate(termination)
        clock = None if game.clock is None else game.clock.copy()
        if clock is not None:
            clock.stop(moment)
        assert after.outcome is not None
        result = after.outcome.to_json()
        at = iso(moment)
        stored_clock = None if clock is None else clock.to_store()

        def write(conn: Connection) -> None:
            claim_end(conn, game.game_id, game.version)  # once, whichever instance fires it
            store.end_game(conn, game.game_id, result, termination.to_json(), at, stored_clock)
            ratings.rate_game(conn, game.game_id, after, at)

        try:
            await self.writer.write(write)
        except Conflict:  # another instance ended the game or stored an action first
            await self.refresh(game)
            if game.state.is_over:
                raise Rejected("game_over", "the game is over") from None
            raise _overtaken(game) from None
        except Exception:
            raise Rejected("server_error", "the server could not store the end of the game; nothing changed") from None
        if self.cluster is not None:
            self.cluster.changed(game)
        game.state = after
        game.clock = clock
        game.updated = at
        self._watch(game)
        game.broadcast_sync()
        late = round(time.time() - moment, 3)
        logs.event("game_over", game_id=game.game_id, result=result, version=game.version, late_s=late)

    async def resign(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` gives up, on its own turn or the opponent's: the opponent wins."""
        if seat is None:
            raise Rejected("forbidden", "spectators cannot resign")
        async with game.lock:
            await self._time_out_now(game)
            if game.state.is_over:
                raise Rejected("game_over", "the game is over")
            if game.status != messages.PLAYING:
                raise Rejected("not_started", "the game has not begun: abort it instead")
            await self._end(game, Termination("resign", seat), time.time())

    async def abort(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` calls the game off before either player has finished a turn: nobody wins."""
        if seat is None:
            raise Rejected("forbidden", "spectators cannot abort")
        async with game.lock:
            await self._time_out_now(game)
            if game.state.is_over:
                raise Rejected("game_over", "the game is over")
            if _turn_finished(game.state):
                raise Rejected("too_late", "a game can be aborted only before either player has finished a turn")
            await self._end(game, Termination("aborted", seat), time.time())

    # ----------------------------------------------------------------- rematch and chat

    async def rematch(self, game: LiveGame, client: Client) -> None:
        """Offer a rematch, or accept the other seat's offer (an AI accepts at once): a new game
        with the same settings and the seats swapped, linked from both games."""
        seat = client.seat
        if seat is None:
            raise Rejected("forbidden", "spectators cannot offer a rematch")
        async with game.lock:
            if not game.state.is_over:
                raise Rejected("not_over", "a rematch can be offered once the game is over")
            if game.rematch is not None:  # agreed already: this seat's link again
                client.send(messages.rematch(game.rematch, 1 - seat, self._rematch_token(client, game.rematch)))
                return
            other = 1 - seat
            offer = game.rematch_offer
            if game.ai_spec(other) is None and (offer is None or offer[0] == seat):
                # The rematch's id and the offering seat's new token are fixed now, so that the
                # other seat may accept through any instance (which never sees this seat's token).
                new_id = new_game_id() if offer is None else offer[1]
                game.rematch_offer = (seat, new_id, self._rematch_digest(client, new_id))
                game.send_rematch_offer()
                if self.cluster is not None:
                    self.cluster.rematch_offered(game)
                return
            new_id = new_game_id() if offer is None else offer[1]
            digests: list[str | None] = [None, None]
            digests[1 - seat] = self._rematch_digest(client, new_id)  # old seat s plays seat 1 - s
            if offer is not None and offer[0] == other:
                digests[seat] = offer[2]
            await self._start_rematch(game, new_id, digests)

    def _rematch_token(self, client: Client, new_game_id: str) -> str | None:
        """The fragment of the client's seat link in the rematch: its new token, or ``seat:N`` for a
        seat played as its account's (the new seat is the account's too: ``carry_seats_over``)."""
        if client.token is not None:
            return rematch_token(client.token, new_game_id)
        if client.by_account and client.seat is not None:
            return f"seat:{1 - client.seat}"
        return None

    def _rematch_digest(self, client: Client, new_game_id: str) -> str | None:
        """The digest of the client's seat token in the rematch. An account's seat played without a
        token gets the digest of a random token nobody keeps: the seat is its account's alone."""
        if client.token is not None:
            return digest(rematch_token(client.token, new_game_id))
        if client.by_account:
            return digest(new_secret())
        return None

    async def _start_rematch(self, game: LiveGame, game_id: str, digests: list[str | None]) -> None:
        """Create the rematch ``game_id``: old seat ``s`` plays seat ``1 - s``, whose seat-token
        digest is ``digests[1 - s]``; the lock of ``game`` is held."""
        kinds = [game.kinds[1], game.kinds[0]]
        names = [game.names[1], game.names[0]]
        if any(kinds[s] == HUMAN and digests[s] is None for s in (0, 1)):
            raise Rejected("forbidden", "both players must be present with their seat links")
        clock = None if game.clock is None else Clock.new(game.clock.control)
        if clock is not None:
            clock.start(0, time.time())
        when = now()
        stored = StoredGame(
            game_id=game_id,
            created=when,
            updated=when,
            variant=game.state.variant.to_json(),
            deal=self._deal(),
            kinds=kinds,
            names=names,
            invite=None,
            seat_tokens=digests,
            status=messages.PLAYING,
            reshuffles=[],
            actions=[],
            clock=None if clock is None else clock.to_store(),
            rematch_of=game.game_id,
        )

        def write(conn: Connection) -> None:
            store.insert_game(conn, stored)
            accounts.carry_seats_over(conn, game.game_id, game_id)  # the players' accounts keep their games

        try:
            await self.writer.write(write)
        except Conflict:  # the players agreed on another instance at the same moment
            await self.refresh(game)
            raise Rejected("stale_version", "the rematch was agreed meanwhile") from None
        if self.cluster is not None:
            self.cluster.changed(game)
        new = rebuild(stored)
        new.owner = game.owner
        self.games[game_id] = new
        game.rematch, game.rematch_offer = game_id, None
        logs.event("rematch", game_id=game.game_id, rematch=game_id)
        for client in game.clients:
            seat = None if client.seat is None else 1 - client.seat
            client.send(messages.rematch(game_id, seat, self._rematch_token(client, game_id)))
        self._watch(new)
        self.schedule_ai(new)

    async def chat(self, game: LiveGame, client: Client, text: str) -> None:
        """A chat line from ``client``: seats talk in the players' room, spectators in theirs."""
        try:
            clean = clean_chat(text)
        except ValueError as exc:
            raise Rejected("invalid", str(exc)) from None
        async with game.lock:
            if len(game.chat) >= self.chat_lines_per_game:
                raise Rejected("chat_full", f"this game's chat is full ({self.chat_lines_per_game} lines)")
            line = {"room": messages.chat_room(client.seat), "seat": client.seat, "text": clean, "at": now()}
            seq = len(game.chat)
            try:
                await self.writer.write(lambda conn: store.insert_chat(conn, game.game_id, seq, line))
            except Conflict:  # another instance stored a line with this number: catch up, send again
                await self.refresh(game)
                raise Rejected("stale_version", "another chat line came first; send yours again") from None
            if self.cluster is not None:
                self.cluster.chat_stored(game, seq, line)
            game.chat.append(line)
            game.send_chat(line)

    # ----------------------------------------------------------------- AI seats

    def schedule_ai(self, game: LiveGame) -> None:
        """Start the AI's turn if an AI seat is to move and none is thinking yet; with a job queue
        (``kahuna serve --broker``), queue the move for a ``kahuna worker`` instead."""
        if game.status != messages.PLAYING or game.ai_spec(game.state.to_move) is None:
            return
        if self.ai_jobs is not None:
            version = game.version
            job = Job("ai", game.game_id, version)
            self.ai_jobs.submit(job, lambda: game.version == version and game.status == messages.PLAYING)
            return
        if game.ai_task is not None and not game.ai_task.done():
            return
        game.ai_task = asyncio.get_running_loop().create_task(self._ai_turns(game))

    async def _ai_turns(self, game: LiveGame) -> None:
        """Play the AI seat's actions while it is to move (a turn is several actions)."""
        while game.status == messages.PLAYING:
            seat = game.state.to_move
            spec = game.ai_spec(seat)
            if spec is None:
                return
            try:
                if not await self.ai_move(game, seat, spec):
                    return
            except Exception as exc:  # e.g. the database refused the move: try again shortly
                logs.event("ai_error", game_id=game.game_id, seat=seat, error=type(exc).__name__)
                await asyncio.sleep(AI_RETRY_SECONDS)

    async def ai_move(self, game: LiveGame, seat: int, spec: str) -> bool:
        """Choose and play one action of the AI ``seat`` (here, or in ``kahuna worker``); ``False``
        if the game moved on while the agent thought. Raises if the action could not be stored."""
        view = view_of(game.state, seat)
        clock = game.clock
        if clock is not None and timed.short_of_time(clock.left(seat, time.time()), clock.control):
            action = await asyncio.to_thread(_quick_action, view)  # short of time: no queue
        else:
            action = await self._ai_action(game, spec, view.to_json())
        async with game.lock:
            if game.version != view.version:
                return False
            if game.state.why_illegal(action) is not None:
                logs.event("ai_error", game_id=game.game_id, seat=seat, error="illegal action")
                action = random.Random(random_seed()).choice(game.state.legal_actions())
            await self._apply(game, seat, action)
        return True

    async def _ai_action(self, game: LiveGame, spec: str, view_json: dict[str, Any]) -> Action:
        """The agent's choice; a uniformly random legal action if the agent fails (logged)."""
        start = time.perf_counter()
        try:
            token = await self.ai.choose(spec, view_json, random_seed(), game.owner)
            action = parse(token)
        except Exception as exc:
            logs.event("ai_error", game_id=game.game_id, spec=spec, error=type(exc).__name__)
            return random.Random(random_seed()).choice(game.state.legal_actions())
        ms = round((time.perf_counter() - start) * 1000, 1)
        logs.event("ai_move", game_id=game.game_id, spec=spec, ms=ms)
        return action

    # ----------------------------------------------------------------- connections

    async def hello(self, game: LiveGame, client: Client, version: int | None) -> None:
        """Answer a ``hello``: catch the client up, then register it for live updates."""
        async with game.lock:
            await self._time_out_now(game)
            for text in await game.catch_up(client.seat, version):
                client.send_text(text)
            clock = game.clock_json()
            if clock is not None:  # caught-up updates carry the clock of their time
                client.send(messages.clock(clock))
            if game.rematch is not None:
                seat = None if client.seat is None else 1 - client.seat
                client.send(messages.rematch(game.rematch, seat, self._rematch_token(client, game.rematch)))
            elif game.rematch_offer is not None:
                client.send(messages.rematch_offered(game.rematch_offer[0]))
            client.answered_at = client.queued
            newly_online = client.seat is not None and not game.online()[client.seat]
            game.clients.add(client)
            if self.cluster is not None:
                self.cluster.presence(game)
        if newly_online:
            game.broadcast_presence()
        else:
            client.send(messages.presence(game.online()))

    def leave(self, game: LiveGame, client: Client) -> None:
        if client not in game.clients:
            return
        game.clients.discard(client)
        if self.cluster is not None:
            self.cluster.presence(game)
        if client.seat is not None and not game.online()[client.seat]:
            game.broadcast_presence()

    # ----------------------------------------------------------------- several instances

    async def refresh(self, game: LiveGame) -> None:
        """Catch ``game`` up with the database after another instance changed it (the caller holds
        its lock): rebuilt from the record, then a ``sync`` to each of its connections here."""
        stored = await self.writer.read(lambda conn: store.load_game(conn, game.game_id))
        if stored is None:
            return
        had_rematch = game.rematch
        before = game.version
        game.adopt(rebuild(stored))
        logs.event("game_refreshed", game_id=game.game_id, version=game.version, behind=game.version - before)
        self._watch(game)
        game.broadcast_sync()
        if had_rematch is None and game.rematch is not None:  # agreed through another instance
            game.rematch_offer = None
            for client in game.clients:
                seat = None if client.seat is None else 1 - client.seat
                client.send(messages.rematch(game.rematch, seat, self._rematch_token(client, game.rematch)))
        self.schedule_ai(game)

    def applied_elsewhere(self, game: LiveGame, seat: int, events: list[Event]) -> None:
        """Another instance stored ``seat``'s action, now applied to ``game`` here: tell this
        instance's connections, as for an action played here (the caller holds the lock)."""
        self._watch(game)
        game.broadcast_update(seat, events)
        self.schedule_ai(game)


def _store_last_action(conn: Connection, row: ActionRow, after: GameState) -> None:
    """The action that ended the game on the board, and the rating change it makes (if rated)."""
    store.insert_actions(conn, [row])
    ratings.rate_game(conn, row.game_id, after, row.at)


def _quick_action(view: PlayerView) -> Action:
    """The quick level's choice, computed in a thread rather than queued behind other games' AI
    turns: a seat short of time cannot wait (``kahuna/ai/timed.py``)."""
    return make_agent(timed.QUICK_LEVEL).choose(view, random.Random(random_seed()))


def _overtaken(game: LiveGame) -> Rejected:
    """The refusal of a change that another instance's change beat to the database."""
    return Rejected("stale_version", f"another action came first; the game is at version {game.version}")


def _damaged(game_id: str) -> Rejected:
    return Rejected("damaged", f"game {game_id!r} cannot be loaded: its stored record is damaged", 410)
