"""Tournaments: Swiss and Arena events whose games are ordinary games started by the game factory.

Everything lives in the database (``tournament_rows.py``), so that every instance sees the same
events and a restarted server resumes them: each instance runs :meth:`Tournaments.run`, a loop
that every :data:`TICK` seconds looks at the running events (and those due to start) and does what
is due, racing the other instances through claims so that each step happens once:

- an event due at ``starts_at`` starts (``created`` → ``running``, a conditional update);
- a Swiss round whose games have all ended is followed by the next round's pairing
  (:func:`swiss.pair_round`; two players one of whom blocks the other, and two AI levels, count
  as having met),
  written with a claim on the event's version; after the last round, or when no round can be
  paired, the event is finished. A person whose game in another event still runs (an Arena's
  begun before the Swiss started) sits the round out, or the round waits if no round can be
  paired without them: one clock at a time;
- an Arena pairs its waiting players (:func:`arena.pair_waiting`, never a blocked pair; a person
  whose game in another event runs waits for its end, and a person active in a running Swiss is
  not paired until the Swiss ends: one clock at a time) until its end time;
  after it, it pairs nobody and finishes once its last running game has ended (those games count);
- each board paired is started by :meth:`GameFactory.start` with a claim on the board in the
  game's own transaction: a board paired by an instance that died before starting its game is
  started by the next pass of any instance.

Results reach the boards through the games' end hook (``tournament_rows.record_result``, wired in
``wiring.py``). A player learns its game at once on ``/ws/lobby`` (``tournament_game`` on its
``user:<id>`` channel) and by ``GET /api/tournaments/<id>/me``. Each seat belongs to its player's
account (its token is a random one nobody keeps): the player plays it signed in (``seat:N``), so
no secret travels or is stored.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from kahuna.clock import ClockError, TimeControl
from kahuna.server.accounts import store as accounts
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.broker import Broker, user_channel
from kahuna.server.common import logs, protocol
from kahuna.server.common.errors import Rejected
from kahuna.server.common.periodic import Periodic
from kahuna.server.common.tokens import digest, new_game_id, new_secret
from kahuna.server.community import arena, rating_marks, relations, swiss
from kahuna.server.community import tournament_rows as rows
from kahuna.server.community import tournament_views as views
from kahuna.server.community.bots import level_of
from kahuna.server.community.tournament_rows import ARENA, CREATED, FINISHED, RUNNING, SWISS, Board, Event
from kahuna.server.db.writer import Writer
from kahuna.server.games.factory import GameFactory, Player, Terms
from kahuna.server.games.live import AI_PREFIX
from kahuna.server.games.ports import Notices

TICK = 1.0
"""Seconds between two passes of the loop (an Arena pairs a finished player within one)."""
MAX_ROUNDS = 20
MAX_MINUTES = 24 * 60
"""An Arena lasts at most a day."""
MAX_PLAYERS = 200
"""Players of one event. The matching is cubic in them: 200 players' rounds were paired in 0.2 to
1.8 s, 100 players' in 0.05 to 0.5 s (docs/community.md, load average 12); it runs in a thread."""
MAX_AHEAD_DAYS = 30
"""An event starts at most this far ahead."""


@dataclass(frozen=True)
class NewEvent:
    kind: str
    name: str
    clock: dict[str, int]
    rounds: int | None
    minutes: int | None
    rated: bool
    starts_at: float | None
    join: bool = False  # the creator plays in it (joined in the event's own transaction)


class Tournaments:
    def __init__(
        self,
        writer: Writer,
        factory: GameFactory,
        broker: Broker,
        clock_min_seconds: int,
        notices: Notices,
        *,
        per_account: int,
        upcoming_per_address: int,
    ) -> None:
        self.writer = writer
        self.factory = factory
        self.broker = broker
        self.clock_min_seconds = clock_min_seconds
        self.per_account = per_account
        """Events one account may have created and not finished (``Limits.tournaments_per_account``)."""
        self.upcoming_per_address = upcoming_per_address
        """Events created from one address not yet started (``Limits.upcoming_tournaments_per_address``):
        without it a few addresses with many accounts filled the listed upcoming events."""
        self.notices = notices
        """Who notifies the players of a starting game (``notify/notifier.py``)."""
        self._loop = Periodic(self.tick, TICK, "tournament_error", first_at_once=True)

    # ----------------------------------------------------------------- life cycle

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def tick(self) -> None:
        moment = time.time()
        for event in await self.writer.read(lambda conn: rows.to_do(conn, moment)):
            if event.status == CREATED:
                await self._begin(event)
            else:
                await self._advance(event)

    # ----------------------------------------------------------------- requests

    async def create(self, new: NewEvent, account: Account, address: str | None = None) -> str:
        """Check and store a new event, created from ``address``: its id."""
        try:
            control = TimeControl.from_json(new.clock, self.clock_min_seconds)
        except ClockError as exc:
            raise Rejected("invalid", f"clock: {exc}", 422) from None
        if control is None or control.correspondence:
            raise Rejected("invalid", "a tournament needs a real-time clock: initial and increment in seconds", 422)
        if new.kind == SWISS and (new.rounds is None or not 1 <= new.rounds <= MAX_ROUNDS):
            raise Rejected("invalid", f"a Swiss tournament has 1 to {MAX_ROUNDS} rounds", 422)
        if new.kind == ARENA and (new.minutes is None or not 1 <= new.minutes <= MAX_MINUTES):
            raise Rejected("invalid", f"an Arena lasts 1 to {MAX_MINUTES} minutes", 422)
        if (new.kind == SWISS and new.minutes is not None) or (new.kind == ARENA and new.rounds is not None):
            raise Rejected("invalid", "a Swiss has rounds, an Arena minutes", 422)
        if new.join and new.rated:  # a marked account plays casual events only
            await rating_marks.refuse_marked(self.writer, account.id)
        moment = time.time()
        if new.starts_at is not None and not moment - 60 <= new.starts_at <= moment + MAX_AHEAD_DAYS * 86400:
            raise Rejected("invalid", f"starts_at must be within {MAX_AHEAD_DAYS} days from now", 422)
        event = Event(
            new_game_id(),
            new.kind,
            new.name,
            account.id,
            account.username,
            new.clock,
            new.rounds,
            new.minutes,
            new.rated,
            CREATED,
            moment,
            new.starts_at,
            None,
            None,
            None,
            0,
            0,
        )

        def write(conn: Connection) -> Rejected | None:
            if rows.open_by(conn, account.id) >= self.per_account:
                return Rejected("too_many_tournaments", f"at most {self.per_account} unfinished tournaments each", 429)
            if address is not None and rows.upcoming_from(conn, address) >= self.upcoming_per_address:
                reason = f"at most {self.upcoming_per_address} tournaments not yet started from one address"
                return Rejected("too_many_tournaments", reason, 429)
            rows.insert(conn, event, address, creator_joins=new.join)
            return None

        refused = await self.writer.transact(write)
        if refused is not None:
            raise refused
        logs.event("tournament_created", tournament_id=event.tournament_id, format=new.kind, rated=new.rated)
        return event.tournament_id

    async def join(self, tournament_id: str, account: Account | None, ai_level: str | None = None) -> None:
        event = await self._load(tournament_id)
        if account is None:
            if event.rated:
                raise Rejected("unauthorized", "a rated tournament needs an account: sign in", 401)
            raise Rejected("unauthorized", "joining a tournament needs an account: sign in", 401)
        if event.status == FINISHED or (event.ends_at is not None and time.time() >= event.ends_at):
            raise Rejected("finished", "this tournament is over", 409)
        if event.kind == SWISS and event.status == RUNNING:
            raise Rejected("started", "this Swiss tournament has started: players join before it starts", 409)
        if event.rated:  # a marked account plays casual events only
            await rating_marks.refuse_marked(self.writer, account.id)

        def write(conn: Connection) -> str:
            if rows.count_entrants(conn, tournament_id) >= MAX_PLAYERS:
                return "full"
            return rows.join(conn, tournament_id, account.id, account.username, time.time(), ai_level)

        outcome = await self.writer.transact(write)
        if outcome == "full":
            raise Rejected("full", f"this tournament has its {MAX_PLAYERS} players", 409)
        if outcome == "already" and ai_level is not None:  # the creator's invitation of it, sent again
            raise Rejected("already_invited", f"{account.username} already plays in this tournament", 409)
        if outcome == "already":
            raise Rejected("already_joined", "you have already joined this tournament", 409)

    async def invite(self, tournament_id: str, account: Account, username: str) -> None:
        """The creator invites an AI level's bot account (``ai-easy`` …): it joins at once and the
        server's AI plays its games; once (409 ``already_invited`` while it plays in the event)."""
        event = await self._load(tournament_id)
        if event.creator != account.id:
            raise Rejected("forbidden", "only the tournament's creator can invite", 403)
        guest = await self.writer.read(lambda conn: accounts.account_by_name(conn, username))
        level = None if guest is None else level_of(guest)
        if guest is None or level is None:
            raise Rejected("not_found", f"no AI level {username!r}: invite ai-easy, ai-medium …", 404)
        await self.join(tournament_id, guest, level)

    async def leave(self, tournament_id: str, account: Account, username: str | None = None) -> None:
        """Leave (a Swiss player is not paired again; an Arena player may join again). Only oneself:
        ``username`` naming anyone else is refused."""
        event = await self._load(tournament_id)
        if username is not None and username.casefold() != account.username.casefold():
            raise Rejected("forbidden", "you can only withdraw yourself from a tournament", 403)
        if event.status == FINISHED:
            raise Rejected("finished", "this tournament is over", 409)
        if not await self.writer.transact(lambda conn: rows.leave(conn, tournament_id, account.id)):
            raise Rejected("not_joined", "you are not playing in this tournament", 409)

    async def start_now(self, tournament_id: str, account: Account) -> None:
        event = await self._load(tournament_id)
        if event.creator != account.id:
            raise Rejected("forbidden", "only the tournament's creator can start it", 403)
        if event.status != CREATED:
            raise Rejected("started", "this tournament has already started", 409)
        players = await self.writer.read(lambda conn: rows.entrants(conn, tournament_id))
        if sum(1 for p in players if p.active) < 2:
            raise Rejected("too_few_players", "a tournament needs at least two players", 409)
        if not _people(players):
            raise Rejected("too_few_players", "a tournament needs a person among its players, not only AI levels", 409)
        if not await self._begin(event):
            raise Rejected("started", "this tournament has already started", 409)

    async def berserk(self, tournament_id: str, account: Account, on: bool) -> None:
        event = await self._load(tournament_id)
        if event.kind != ARENA:
            raise Rejected("invalid", "berserk is an Arena's", 422)
        if not await self.writer.transact(lambda conn: rows.set_berserk(conn, tournament_id, account.id, on)):
            raise Rejected("not_joined", "you are not playing in this tournament", 409)

    async def listing(self) -> dict[str, Any]:
        found = await self.writer.read(rows.listing)
        upcoming = {"upcoming": CREATED, "running": RUNNING, "finished": FINISHED}
        return {key: [views.summary(e) for e in found[status]] for key, status in upcoming.items()}

    async def get(self, tournament_id: str) -> dict[str, Any]:
        event, players, boards = await self.writer.read(lambda conn: rows.snapshot(conn, tournament_id))
        if event is None:
            raise Rejected("not_found", f"no tournament {tournament_id!r}", 404)
        names = {p.account_id: p.username for p in players}
        out = views.summary(event)
        out["players"] = [{"username": p.username, "active": p.active} for p in players]
        out["standings"] = views.standings(event, players, boards)
        out["rounds"] = views.rounds(event, boards, names)
        return out

    async def me(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """The account's running game in the event (``game_id`` ``None``: none now), and its entry."""

        event, players, boards = await self.writer.read(lambda conn: rows.snapshot(conn, tournament_id))
        if event is None:
            raise Rejected("not_found", f"no tournament {tournament_id!r}", 404)
        entry = next((p for p in players if p.account_id == account.id), None)
        out: dict[str, Any] = {
            "status": event.status,
            "joined": entry is not None and entry.active,
            "berserk": entry is not None and entry.berserk,
            "game_id": None,
            "seat": None,
            "seat_url": None,
        }
        for board in reversed(boards):
            if account.id in board.accounts and board.result is None and board.started is not None:
                assert board.game_id is not None
                seat = board.accounts.index(account.id)
                out.update(game_id=board.game_id, seat=seat, seat_url=views.seat_url(board.game_id, seat))
                break
        return out

    # ----------------------------------------------------------------- what the loop does

    async def _begin(self, event: Event) -> bool:
        """Start the event (once, whichever instance or request gets there first)."""
        moment = time.time()
        ends_at = None if event.minutes is None else moment + 60 * event.minutes
        if not await self.writer.transact(lambda conn: rows.claim_start(conn, event.tournament_id, moment, ends_at)):
            return False
        logs.event("tournament_started", tournament_id=event.tournament_id, format=event.kind)
        started = await self.writer.read(lambda conn: rows.load(conn, event.tournament_id))
        if started is not None:
            await self._advance(started)
        return True

    async def _advance(self, event: Event) -> None:
        """Start boards left unstarted, then pair what is due (or finish)."""
        tid = event.tournament_id

        current, players, boards = await self.writer.read(lambda conn: rows.snapshot(conn, tid))
        if current is None or current.status != RUNNING:
            return
        for board in boards:
            if board.game_id is not None and board.started is None:
                await self._start_board(current, board, players)
        if current.kind == SWISS:
            await self._next_round(current, players, boards)
        else:
            await self._pair_arena(current, players, boards)

    async def _next_round(self, event: Event, players: list[rows.Entrant], boards: list[Board]) -> None:
        if any(b.result is None for b in boards):
            return  # the round is still being played
        active = [p.account_id for p in players if p.active]
        pairing = None
        busy: set[int] = set()
        if event.round < (event.rounds or 0) and len(active) >= 2 and _people(players):
            played = [b.played for b in boards]
            people = [p.account_id for p in players if p.active and p.ai_level is None]

            def read(conn: Connection) -> tuple[set[int], set[frozenset[int]]]:
                return rows.playing_elsewhere(conn, event.tournament_id, people), relations.blocked_pairs(conn, active)

            busy, blocked = await self.writer.read(read)  # still in another event's game: sits this round out
            active = [a for a in active if a not in busy]
            # Two AI levels never meet (as in an Arena): their game would be the server's compute
            # spent on nobody; if no round can be paired without it, the event ends there.
            machines = [p.account_id for p in players if p.active and p.ai_level is not None]
            apart = blocked | {frozenset(pair) for pair in itertools.combinations(machines, 2)}
            pairing = await asyncio.to_thread(swiss.pair_round, active, played, apart) if len(active) >= 2 else None
        moment = time.time()
        if pairing is None and busy:
            return  # no round without those who sit out: wait for their other games to end
        if pairing is None:
            if await self._finish(event, moment):
                logs.event("tournament_finished", tournament_id=event.tournament_id, rounds=event.round)
            return
        number = event.round + 1
        new = [
            _with_game(Board("", event.tournament_id, number, (first, second), None, (False, False), moment))
            if second is not None
            else Board(
                f"{event.tournament_id}:{number}:bye",
                event.tournament_id,
                number,
                (first, None),
                None,
                (False, False),
                moment,
                None,
                swiss.BYE,
                moment,
            )
            for first, second in pairing
        ]
        await self._write_pairing(event, new, round=number)

    async def _pair_arena(self, event: Event, players: list[rows.Entrant], boards: list[Board]) -> None:
        moment = time.time()
        assert event.ends_at is not None
        if moment >= event.ends_at:  # no new game; the running ones still count
            if all(b.result is not None for b in boards) and await self._finish(event, moment):
                logs.event("tournament_finished", tournament_id=event.tournament_id, games=len(boards))
            return
        busy = {a for b in boards if b.result is None for a in b.accounts}
        waiting = [p.account_id for p in players if p.active and p.account_id not in busy]
        if len(waiting) < 2:
            return
        machines = {p.account_id for p in players if p.ai_level is not None}
        people = {a for a in waiting if a not in machines}  # an AI level plays any number of clocks

        def read(conn: Connection) -> tuple[set[int], set[frozenset[int]]]:
            tid = event.tournament_id
            elsewhere = rows.playing_elsewhere(conn, tid, people) | rows.in_running_swiss(conn, tid, people)
            return elsewhere, relations.blocked_pairs(conn, waiting)

        elsewhere, apart = await self.writer.read(read)
        waiting = [a for a in waiting if a not in elsewhere]
        if len(waiting) < 2:
            return
        games = views.arena_games(boards)
        order = [s.player for s in arena.standings([p.account_id for p in players], games)]
        pairs = await asyncio.to_thread(arena.pair_waiting, waiting, games, order, apart)
        pairs = [(a, b) for a, b in pairs if not (a in machines and b in machines)]  # no AI against AI
        if not pairs:
            return
        berserk = {p.account_id: p.berserk for p in players}
        number = max((b.round for b in boards), default=0) + 1
        new = [
            _with_game(Board("", event.tournament_id, number, (a, b), None, (berserk[a], berserk[b]), moment))
            for a, b in pairs
        ]
        await self._write_pairing(event, new)

    async def _finish(self, event: Event, moment: float) -> bool:
        return bool(
            await self.writer.transact(lambda conn: rows.finish(conn, event.tournament_id, event.version, moment))
        )

    async def _write_pairing(self, event: Event, new: list[Board], **values: Any) -> None:
        """Write the boards if the event has not changed since they were computed; start their games."""
        tid = event.tournament_id

        def write(conn: Connection) -> bool:
            if not rows.claim_version(conn, tid, event.version, **values):
                return False
            rows.insert_boards(conn, tid, new)
            return True

        if not await self.writer.transact(write):
            return  # another instance paired, or something changed: the next pass computes again
        logs.event("tournament_paired", tournament_id=tid, boards=len(new), **values)
        players = await self.writer.read(lambda conn: rows.entrants(conn, tid))
        for board in new:
            if board.game_id is not None:
                await self._start_board(event, board, players)

    async def _start_board(self, event: Event, board: Board, players: list[rows.Entrant]) -> None:
        """Start a board's game (once: the claim on the board is in the game's transaction) and tell
        both players."""
        entrants = {p.account_id: p for p in players}
        first, second = board.accounts
        assert second is not None and board.game_id is not None
        seats = tuple(_player(entrants[account]) for account in (first, second))
        terms = Terms(
            (seats[0], seats[1]),
            clock=TimeControl.from_json(event.clock, self.clock_min_seconds),
            rated=event.rated,
            paired=True,
            game_id=board.game_id,
            tournament=event.tournament_id,
            berserk=board.berserk,
            owner=f"tournament-creator:{event.creator}",  # its AI seats' moves count against the creator
        )
        moment = time.time()
        game = await self.factory.start(terms, lambda conn, _game_id: rows.claim_board(conn, board.board_id, moment))
        if game is None:
            return  # started by another instance
        for seat, account in enumerate((first, second)):
            if entrants[account].ai_level is not None:
                continue
            message = protocol.TournamentGame(
                type="tournament_game",
                tournament_id=event.tournament_id,
                game_id=board.game_id,
                seat=seat,
                seat_url=views.seat_url(board.game_id, seat),
            )
            await self.broker.publish(user_channel(account), json.dumps(message))
            opponent = entrants[(first, second)[1 - seat]].username
            url = f"/play/{board.game_id}?tournament={event.tournament_id}#seat:{seat}"
            self.notices.tournament_game(account, board.game_id, seat, opponent, url)

    # ----------------------------------------------------------------- views

    async def _load(self, tournament_id: str) -> Event:
        event = await self.writer.read(lambda conn: rows.load(conn, tournament_id))
        if event is None:
            raise Rejected("not_found", f"no tournament {tournament_id!r}", 404)
        return event


def _people(players: list[rows.Entrant]) -> bool:
    """Whether a person (not an AI level the server plays) is among the active players: an event
    of AI levels alone would be the server playing itself, for free, for as long as it lasts."""
    return any(p.active and p.ai_level is None for p in players)


def _player(entrant: rows.Entrant) -> Player:
    """A board's seat: its account's (a random token nobody keeps: played signed in), or the
    server's AI for an invited AI level."""
    if entrant.ai_level is not None:
        return Player(entrant.username, AI_PREFIX + entrant.ai_level, None, entrant.account_id)
    return Player(entrant.username, token=digest(new_secret()), account=entrant.account_id)


def _with_game(board: Board) -> Board:
    """A board whose game id is chosen now (its id is the game's id)."""
    game_id = new_game_id()
    return Board(
        game_id,
        board.tournament_id,
        board.round,
        board.accounts,
        game_id,
        board.berserk,
        board.paired,
        None,
        None,
        None,
    )
