"""The rows of tournaments: events, their players and their boards, and the claims instances race for.

Every change a pairing depends on (a join, a leave, a result, a pairing) moves the event's
``version``; a pairing is written only with :func:`claim_version`, a conditional ``UPDATE`` on the
version it was computed from, in the transaction that writes its boards. So when two instances pair
the same round at once exactly one writes it, and a pairing computed before a result arrived is not
written at all (it is computed again). Each board's game is started once the same way
(:func:`claim_start`, in the game factory's transaction), and its result is written once by the
games' end hook (:func:`record_result`, in the transaction that stores the end).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, func, or_, select, update

from kahuna.server.community.swiss import DRAWN, NO_RESULT, Played
from kahuna.server.db.schema import tournament_games, tournament_players, tournaments
from kahuna.server.games.ended import GameEnded

CREATED, RUNNING, FINISHED = "created", "running", "finished"
SWISS, ARENA = "swiss", "arena"
LISTED = 50
"""Events of each status that the list shows (the newest)."""


@dataclass(frozen=True)
class Event:
    tournament_id: str
    kind: str
    name: str
    creator: int
    creator_name: str
    clock: dict[str, int]
    rounds: int | None
    minutes: int | None
    rated: bool
    status: str
    created: float
    starts_at: float | None
    started: float | None
    ends_at: float | None
    finished: float | None
    round: int
    version: int


@dataclass(frozen=True)
class Entrant:
    account_id: int
    username: str
    joined: float
    active: bool
    berserk: bool
    ai_level: str | None = None
    """An AI level the creator invited: the server's AI plays its seats."""


@dataclass(frozen=True)
class Board:
    board_id: str
    tournament_id: str
    round: int
    accounts: tuple[int, int | None]
    game_id: str | None
    berserk: tuple[bool, bool]
    paired: float
    started: float | None = None
    result: str | None = None
    ended: float | None = None

    @property
    def played(self) -> Played:
        return Played(self.round, self.accounts, self.result)


def _event(row: Any) -> Event:
    return Event(
        row.id,
        row.kind,
        row.name,
        row.creator,
        row.creator_name,
        json.loads(row.clock),
        row.rounds,
        row.minutes,
        bool(row.rated),
        row.status,
        row.created,
        row.starts_at,
        row.started,
        row.ends_at,
        row.finished,
        row.round,
        row.version,
    )


def _board(row: Any) -> Board:
    return Board(
        row.id,
        row.tournament_id,
        row.round,
        (row.account0, row.account1),
        row.game_id,
        (bool(row.berserk0), bool(row.berserk1)),
        row.paired,
        row.started,
        row.result,
        row.ended,
    )


def insert(conn: Connection, event: Event, address: str | None = None, creator_joins: bool = False) -> None:
    """Store a new event, created from ``address`` (with its creator as its first player if
    ``creator_joins``)."""
    conn.execute(
        tournaments.insert().values(
            id=event.tournament_id,
            kind=event.kind,
            name=event.name,
            creator=event.creator,
            creator_name=event.creator_name,
            clock=json.dumps(event.clock),
            rounds=event.rounds,
            minutes=event.minutes,
            rated=event.rated,
            status=event.status,
            created=event.created,
            starts_at=event.starts_at,
            started=None,
            ends_at=None,
            finished=None,
            round=0,
            version=0,
            creator_address=address,
        )
    )
    if creator_joins:
        join(conn, event.tournament_id, event.creator, event.creator_name, event.created)


def load(conn: Connection, tournament_id: str) -> Event | None:
    row = conn.execute(select(tournaments).where(tournaments.c.id == tournament_id)).first()
    return None if row is None else _event(row)


def listing(conn: Connection) -> dict[str, list[Event]]:
    """The newest :data:`LISTED` events of each status."""
    out: dict[str, list[Event]] = {}
    for status in (CREATED, RUNNING, FINISHED):
        query = (
            select(tournaments)
            .where(tournaments.c.status == status)
            .order_by(tournaments.c.created.desc())
            .limit(LISTED)
        )
        out[status] = [_event(row) for row in conn.execute(query)]
    return out


def open_by(conn: Connection, account_id: int) -> int:
    """Events an account created that are not finished."""
    query = (
        select(func.count())
        .select_from(tournaments)
        .where(tournaments.c.creator == account_id, tournaments.c.status != FINISHED)
    )
    return int(conn.execute(query).scalar() or 0)


def upcoming_from(conn: Connection, address: str) -> int:
    """Events created from ``address`` that have not started."""
    where = (tournaments.c.creator_address == address, tournaments.c.status == CREATED)
    return int(conn.execute(select(func.count()).select_from(tournaments).where(*where)).scalar() or 0)


def to_do(conn: Connection, moment: float) -> list[Event]:
    """The events a pass of the loop looks at: running, or due to start."""
    due = and_(tournaments.c.status == CREATED, tournaments.c.starts_at <= moment)
    query = select(tournaments).where((tournaments.c.status == RUNNING) | due).order_by(tournaments.c.created)
    return [_event(row) for row in conn.execute(query)]


def entrants(conn: Connection, tournament_id: str) -> list[Entrant]:
    query = (
        select(tournament_players)
        .where(tournament_players.c.tournament_id == tournament_id)
        .order_by(tournament_players.c.joined, tournament_players.c.account_id)
    )
    return [
        Entrant(r.account_id, r.username, r.joined, bool(r.active), bool(r.berserk), r.ai_level)
        for r in conn.execute(query)
    ]


def playing_elsewhere(conn: Connection, tournament_id: str, account_ids: Collection[int]) -> set[int]:
    """Those of ``account_ids`` with a board of another event not ended: an Arena does not pair
    them meanwhile (one clock at a time, issue 45)."""
    if not account_ids:
        return set()
    g = tournament_games
    query = select(g.c.account0, g.c.account1).where(
        g.c.tournament_id != tournament_id,
        g.c.result.is_(None),
        g.c.game_id.is_not(None),
        or_(g.c.account0.in_(account_ids), g.c.account1.in_(account_ids)),
    )
    return {account for row in conn.execute(query) for account in row if account in account_ids}


def in_running_swiss(conn: Connection, tournament_id: str, account_ids: Collection[int]) -> set[int]:
    """Those of ``account_ids`` active in a running Swiss other than ``tournament_id``: an Arena
    does not pair them, between the Swiss's rounds either, so that its next round finds them free
    (one clock at a time, issue 45)."""
    if not account_ids:
        return set()
    p = tournament_players
    query = (
        select(p.c.account_id)
        .join(tournaments, tournaments.c.id == p.c.tournament_id)
        .where(
            p.c.tournament_id != tournament_id,
            p.c.active.is_(True),
            p.c.account_id.in_(account_ids),
            tournaments.c.kind == SWISS,
            tournaments.c.status == RUNNING,
        )
    )
    return set(conn.execute(query).scalars())


def count_entrants(conn: Connection, tournament_id: str) -> int:
    table = tournament_players
    query = select(func.count()).select_from(table).where(table.c.tournament_id == tournament_id)
    return int(conn.execute(query).scalar() or 0)


def boards(conn: Connection, tournament_id: str) -> list[Board]:
    query = (
        select(tournament_games)
        .where(tournament_games.c.tournament_id == tournament_id)
        .order_by(tournament_games.c.round, tournament_games.c.paired, tournament_games.c.id)
    )
    return [_board(row) for row in conn.execute(query)]


def snapshot(conn: Connection, tournament_id: str) -> tuple[Event | None, list[Entrant], list[Board]]:
    """An event with its players and boards, read in this order: a result written between the
    reads moves the version read first, so a pairing computed from them is refused (``claim_version``)."""
    return load(conn, tournament_id), entrants(conn, tournament_id), boards(conn, tournament_id)


def bump(conn: Connection, tournament_id: str) -> None:
    """Move the version: a pairing computed before this change will not be written."""
    conn.execute(update(tournaments).where(tournaments.c.id == tournament_id).values(version=tournaments.c.version + 1))


def claim_version(conn: Connection, tournament_id: str, version: int, **values: Any) -> bool:
    """Move the version on from ``version`` (and set ``values``) if nobody moved it meanwhile."""
    moved = conn.execute(
        update(tournaments)
        .where(tournaments.c.id == tournament_id, tournaments.c.version == version, tournaments.c.status == RUNNING)
        .values(version=version + 1, **values)
    )
    return moved.rowcount == 1


def claim_start(conn: Connection, tournament_id: str, moment: float, ends_at: float | None) -> bool:
    """``created`` → ``running``, once (by its creator, or by the first loop after ``starts_at``)."""
    started = conn.execute(
        update(tournaments)
        .where(tournaments.c.id == tournament_id, tournaments.c.status == CREATED)
        .values(status=RUNNING, started=moment, ends_at=ends_at, version=tournaments.c.version + 1)
    )
    return started.rowcount == 1


def finish(conn: Connection, tournament_id: str, version: int, moment: float) -> bool:
    return claim_version(conn, tournament_id, version, status=FINISHED, finished=moment)


def join(
    conn: Connection, tournament_id: str, account_id: int, username: str, moment: float, ai_level: str | None = None
) -> str:
    """Enter (or, after leaving, enter again); ``joined``, ``rejoined`` or ``already``."""
    key = and_(tournament_players.c.tournament_id == tournament_id, tournament_players.c.account_id == account_id)
    row = conn.execute(select(tournament_players.c.active).where(key)).first()
    if row is not None and row.active:
        return "already"
    if row is None:
        conn.execute(
            tournament_players.insert().values(
                tournament_id=tournament_id,
                account_id=account_id,
                username=username,
                joined=moment,
                active=True,
                berserk=False,
                ai_level=ai_level,
            )
        )
    else:
        conn.execute(update(tournament_players).where(key).values(active=True))
    bump(conn, tournament_id)
    return "joined" if row is None else "rejoined"


def leave(conn: Connection, tournament_id: str, account_id: int) -> bool:
    key = and_(tournament_players.c.tournament_id == tournament_id, tournament_players.c.account_id == account_id)
    still_in = tournament_players.c.active.is_(True)
    left = conn.execute(update(tournament_players).where(key, still_in).values(active=False))
    if left.rowcount != 1:
        return False
    bump(conn, tournament_id)
    return True


def set_berserk(conn: Connection, tournament_id: str, account_id: int, on: bool) -> bool:
    key = and_(tournament_players.c.tournament_id == tournament_id, tournament_players.c.account_id == account_id)
    return conn.execute(update(tournament_players).where(key).values(berserk=on)).rowcount == 1


def insert_boards(conn: Connection, tournament_id: str, new: list[Board]) -> None:
    for board in new:
        conn.execute(
            tournament_games.insert().values(
                id=board.board_id,
                tournament_id=tournament_id,
                round=board.round,
                account0=board.accounts[0],
                account1=board.accounts[1],
                game_id=board.game_id,
                berserk0=board.berserk[0],
                berserk1=board.berserk[1],
                paired=board.paired,
                started=board.started,
                result=board.result,
                ended=board.ended,
            )
        )


def claim_board(conn: Connection, board_id: str, moment: float) -> bool:
    """Mark a board's game started, once: in the game factory's transaction (``claim``)."""
    claimed = conn.execute(
        update(tournament_games)
        .where(tournament_games.c.id == board_id, tournament_games.c.started.is_(None))
        .values(started=moment)
    )
    return claimed.rowcount == 1


def result_of(ended: GameEnded) -> str:
    """A board's result from its game's outcome (an aborted game: no result, nobody scores)."""
    outcome = ended.state.outcome
    if outcome is None or outcome.reason == "aborted":
        return NO_RESULT
    return DRAWN if outcome.winner is None else str(outcome.winner)


def record_result(conn: Connection, ended: GameEnded) -> bool:
    """The end hook's subscriber: the result of a tournament's game, once, with the game's end. A
    player who lost on time without a single move is withdrawn (not paired again; an Arena player
    may join again), as lichess withdraws absent players: else an absent Arena player would be
    paired, and lose on time, until the end."""
    row = conn.execute(
        select(tournament_games.c.tournament_id, tournament_games.c.account0, tournament_games.c.account1).where(
            tournament_games.c.game_id == ended.game_id, tournament_games.c.result.is_(None)
        )
    ).first()
    if row is None:
        return False
    conn.execute(
        update(tournament_games)
        .where(tournament_games.c.game_id == ended.game_id, tournament_games.c.result.is_(None))
        .values(result=result_of(ended), ended=_epoch(ended.at))
    )
    absent = no_show(ended)
    if absent is not None:
        account = (row.account0, row.account1)[absent]
        if account is not None:
            leave(conn, row.tournament_id, account)
    bump(conn, row.tournament_id)
    return True


def no_show(ended: GameEnded) -> int | None:
    """The seat that lost on time without having acted at all, if any."""
    outcome = ended.state.outcome
    if outcome is None or outcome.reason != "timeout" or outcome.winner is None:
        return None
    loser = 1 - outcome.winner
    return None if any(seat == loser for seat, _ in ended.state.history) else loser


def _epoch(at: str) -> float:
    """A database time stamp (``store.now``) as seconds since the epoch."""
    return datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
