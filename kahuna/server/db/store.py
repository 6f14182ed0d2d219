"""The store of game records: each game's record (deal, reshuffle orders, one row per action), its
seats, clock, chat and rematch, read and written in the tables of ``db/schema/``.

SQLAlchemy Core over any URL; SQLite (the default) runs in WAL mode with ``synchronous=FULL`` so
that a committed action survives a crash of the process or of the machine. Every function here
is synchronous and is called from a worker thread, never from the event loop.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, case, create_engine, event, func, select, update
from sqlalchemy.engine.url import make_url

from kahuna.server.db.archive_format import ArchivedRows, unpack
from kahuna.server.db.chat_marks import hidden_lines, shadowed_lines
from kahuna.server.db.schema import (
    actions,
    chat,
    clocks,
    game_accounts,
    games,
    rematches,
    reshuffles,
    seats,
    tournament_games,
)
from kahuna.server.db.schema.games import digest_forms

_last_stamp: tuple[int, str] = (-1, "")
"""The second :func:`now` last wrote, and how (every action is stamped: formatting it once a second
rather than once an action is most of the cost of a stamp)."""


def now() -> str:
    """The moment as the database's time stamps write it."""
    global _last_stamp
    second = int(time.time())
    if second != _last_stamp[0]:
        _last_stamp = (second, iso(second))
    return _last_stamp[1]


def iso(epoch: float) -> str:
    """A moment (seconds since the epoch) as the database's time stamps write it."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class StoredGame:
    """A game as read back from the database: enough to rebuild it by replay."""

    game_id: str
    created: str
    updated: str
    variant: dict[str, bool]
    deal: str
    kinds: list[str]
    names: list[str | None]
    invite: str | None
    seat_tokens: list[str | None]
    status: str
    reshuffles: list[str]
    actions: list[str]
    clock: dict[str, Any] | None = None
    """``Clock.to_store()`` of a timed game."""
    termination: dict[str, Any] | None = None
    """How the game ended off the board (``{"reason", "seat"}``), kept in the ``result`` column."""
    chat: list[dict[str, Any]] = field(default_factory=list)
    rematch: str | None = None
    rematch_of: str | None = None
    rated: bool = False
    """Whether it counts for ratings (a lobby game between two accounts); a rated game has no
    take-backs."""
    casual_reason: str | None = None
    """Why a game asked for as rated was started casual (``games/rated_pairs.py``)."""
    tournament: bool = False
    """A tournament's board (a ``tournament_games`` row names it): no take-backs, no rematch."""
    unlisted: bool = False
    """Kept off the live list (written at creation; the live game never needs it)."""
    owner: str | None = None
    """Whose turn its AI moves take in the AI pool (``Terms.owner``); ``None``: the game itself."""
    archived: bool = False
    """Read from its archive record (``db/archive.py``): a finished game that is never written again."""
    hidden_lines: set[int] = field(default_factory=set)
    """The chat lines a moderator hid (a ``hide_line`` not undone): shown to nobody."""
    shadow_lines: set[int] = field(default_factory=set)
    """The chat lines written under a ``shadow_mute``: shown to their author's seat only."""


TAKEBACK = "takeback"
"""The token of a log entry that takes back the action before it (``games/takeback.py``): the log
only grows, so versions stay monotonic, and a replay skips both (``games/live.rebuild``)."""


def database_url(url: str) -> str:
    """``url`` with PostgreSQL's plain schemes (``postgresql://``, ``postgres://``) mapped to the
    driver the project installs (psycopg 3, the ``postgres`` extra); other URLs as they are."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def open_engine(url: str) -> Engine:
    """An engine for ``url`` with the tables created; SQLite gets WAL and a busy timeout.

    PostgreSQL connections are checked before use (``pool_pre_ping``): a database that restarted
    costs one failed request per stale connection at most, not a stream of errors.
    """
    url = database_url(url)
    is_sqlite = make_url(url).get_backend_name() == "sqlite"
    if is_sqlite:
        engine = create_engine(url, connect_args={"check_same_thread": False})
    else:
        engine = create_engine(url, pool_pre_ping=True)
    if is_sqlite:

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            # Checkpoints run in the writer's background thread (writer.py), not inside a commit
            # that players are waiting for: a checkpoint fsyncs the whole database file.
            cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

    from kahuna.server.db.migrations import migrate

    migrate(engine)
    return engine


def check_writable(engine: Engine) -> None:
    """Raise (a SQLAlchemy error) now if the database cannot be written, rather than at the first move."""
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":  # rewrites the header page: needs a writable file and directory
            version = int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0)
            conn.exec_driver_sql(f"PRAGMA user_version = {version}")
        else:
            conn.execute(update(games).where(games.c.id == "").values(status="over"))


# ------------------------------------------------------------------ writes (inside one transaction)


def insert_game(conn: Connection, game: StoredGame) -> None:
    conn.execute(
        games.insert().values(
            id=game.game_id,
            created=game.created,
            updated=game.updated,
            variant=json.dumps(game.variant),
            deal=game.deal,
            kind0=game.kinds[0],
            kind1=game.kinds[1],
            name0=game.names[0],
            name1=game.names[1],
            invite=game.invite,
            status=game.status,
            unlisted=game.unlisted,
            owner=game.owner,
        )
    )
    for seat, token in enumerate(game.seat_tokens):
        if token is not None:
            conn.execute(seats.insert().values(token=token, game_id=game.game_id, seat=seat))
    if game.clock is not None:
        conn.execute(clocks.insert().values(game_id=game.game_id, **_clock_columns(game.clock)))
    if game.rematch_of is not None:
        conn.execute(rematches.insert().values(game_id=game.rematch_of, new_game_id=game.game_id))


def is_unlisted(conn: Connection, game_id: str) -> bool:
    """Whether a stored game is kept off the live list (``False`` for no such game)."""
    return bool(conn.execute(select(games.c.unlisted).where(games.c.id == game_id)).scalar())


def bind_seat_accounts(conn: Connection, game_id: str, accounts: Sequence[int | None]) -> None:
    """The account each seat of a new game belongs to (``None``: none, or a seat without a token)."""
    for seat, account in enumerate(accounts):
        if account is not None:
            conn.execute(
                update(seats).where(seats.c.game_id == game_id, seats.c.seat == seat).values(account_id=account)
            )


def insert_game_accounts(
    conn: Connection,
    game_id: str,
    accounts: tuple[int | None, int | None],
    rated: bool,
    pool: str | None,
    casual_reason: str | None = None,
) -> None:
    """The accounts of a paired game's seats (``None``: a guest) and whether it counts for ratings
    (``casual_reason``: why a game asked for as rated does not)."""
    conn.execute(
        game_accounts.insert().values(
            game_id=game_id,
            account0=accounts[0],
            account1=accounts[1],
            rated=rated,
            pool=pool,
            casual_reason=casual_reason,
        )
    )


def _clock_columns(clock: dict[str, Any]) -> dict[str, Any]:
    return {
        "control": json.dumps(clock["control"]),
        "remaining0": clock["remaining"][0],
        "remaining1": clock["remaining"][1],
        "running": clock["running"],
        "since": clock["since"],
        "starts_by": clock.get("starts_by"),
    }


def save_clock(conn: Connection, game_id: str, clock: dict[str, Any]) -> None:
    conn.execute(_SAVE_CLOCK, {"clock_of": game_id, **_clock_columns(clock)})


_SAVE_CLOCK = update(clocks).where(clocks.c.game_id == bindparam("clock_of"))
"""Built once, as it runs with every action that ends a turn of a timed game (in the writer's
thread): the columns it sets are the parameters' names (:func:`_clock_columns`)."""


def end_game(
    conn: Connection, game_id: str, result: dict[str, Any], termination: dict[str, Any], at: str,
    clock: dict[str, Any] | None,
) -> None:  # fmt: skip
    """A game ended off the board (resignation, timeout, abort): its result, with how it ended."""
    stored = {**result, "termination": termination}
    ended = {"status": "over", "updated": at, "result": json.dumps(stored)}
    conn.execute(update(games).where(games.c.id == game_id).values(ended))
    if clock is not None:
        save_clock(conn, game_id, clock)


def insert_chat(conn: Connection, game_id: str, seq: int, line: dict[str, Any]) -> None:
    """Store the line numbered ``seq`` (its ``line_id``) of ``game_id``."""
    values = {key: line[key] for key in ("room", "seat", "text", "at")}
    conn.execute(chat.insert().values(game_id=game_id, seq=seq, **values))


def insert_seat(conn: Connection, game_id: str, seat: int, token: str, name: str, when: str) -> None:
    """The invited player takes ``seat``: its token and name; the game starts."""
    conn.execute(seats.insert().values(token=token, game_id=game_id, seat=seat))
    conn.execute(
        update(games).where(games.c.id == game_id).values({f"name{seat}": name, "status": "playing", "updated": when})
    )


@dataclass(frozen=True)
class ActionRow:
    """One applied action with the reshuffle orders it drew (if it ended a round) and the game's new status."""

    game_id: str
    seq: int
    seat: int
    token: str
    new_reshuffles: tuple[tuple[int, str], ...]
    status: str
    result: dict[str, Any] | None
    at: str
    clock: dict[str, Any] | None = None
    """The game's clock after the action, when the action ended a turn or the game."""


def insert_actions(conn: Connection, rows: list[ActionRow]) -> None:
    """Several games' actions in one statement (the rows of a group commit), then what some of them
    bring along (:func:`insert_action_extras`).

    The action rows go to the driver's ``executemany`` as the statement compiled once per dialect
    (:func:`_action_insert`): through Core's ``execute`` a row cost the writer's thread 35-46 µs of
    Python in batches of 4, this way 22-32 µs, and that Python holds the lock the event loop needs
    (docs/scaling.md). It is still SQLAlchemy's connection and transaction, with its errors and its
    handling of a lost connection. A database several instances write inserts its rows with their
    games' locks instead (``writer.insert_unfinished``)."""
    sql, named = _action_insert(conn)
    values = [(r.game_id, r.seq, r.seat, r.token, r.at) for r in rows]
    if named:
        conn.exec_driver_sql(sql, [dict(zip(_ACTION_COLUMNS, value, strict=True)) for value in values])
    else:
        conn.exec_driver_sql(sql, values)
    insert_action_extras(conn, rows)


def insert_action_extras(conn: Connection, rows: list[ActionRow]) -> None:
    """What stored actions bring along: the reshuffle orders they drew, the end of the game, the
    clock after a turn."""
    for row in rows:
        for idx, cards in row.new_reshuffles:
            conn.execute(reshuffles.insert().values(game_id=row.game_id, idx=idx, cards=cards))
        if row.result is not None:
            conn.execute(
                update(games)
                .where(games.c.id == row.game_id)
                .values(status=row.status, updated=row.at, result=json.dumps(row.result))
            )
        if row.clock is not None:
            save_clock(conn, row.game_id, row.clock)


_ACTION_COLUMNS = ("game_id", "seq", "seat", "token", "at")
_action_inserts: dict[tuple[str, str, str], tuple[str, bool]] = {}


def _action_insert(conn: Connection) -> tuple[str, bool]:
    """The ``INSERT`` of an action row in the driver's parameter style, and whether it takes its
    parameters by name (else by position, in :data:`_ACTION_COLUMNS` order)."""
    dialect = conn.dialect
    key = (dialect.name, dialect.driver, dialect.paramstyle)
    cached = _action_inserts.get(key)
    if cached is None:
        compiled = actions.insert().values(dict.fromkeys(_ACTION_COLUMNS)).compile(dialect=dialect)
        if compiled.positional and tuple(compiled.positiontup or ()) != _ACTION_COLUMNS:
            raise RuntimeError(f"unexpected parameter order: {compiled.positiontup}")
        cached = _action_inserts[key] = (compiled.string, not compiled.positional)
    return cached


# ------------------------------------------------------------------ reads


def load_game(conn: Connection, game_id: str) -> StoredGame | None:
    """The stored game, from its per-action rows or, once archived, from its archive record: the
    same :class:`StoredGame` either way (``tests/server/test_archive.py``).

    A finished game's record is looked for again after its rows are read: each statement sees what
    was committed when it began (PostgreSQL's read committed; SQLite outside a write), so an
    archiving pass committed in between would leave rows already deleted (the game would come back
    without its actions, and be quarantined as damaged)."""
    row = conn.execute(select(games).where(games.c.id == game_id)).mappings().first()
    if row is None:
        return None
    tokens: list[str | None] = [None, None]
    for token, seat in conn.execute(select(seats.c.token, seats.c.seat).where(seats.c.game_id == game_id)):
        tokens[seat] = token
    folded = None if row["archive"] is None else unpack(row["archive"])
    rows = folded if folded is not None else per_action_rows(conn, game_id)
    if folded is None and row["status"] == "over":  # archived since the row was read?
        again = conn.execute(select(games.c.archive).where(games.c.id == game_id)).scalar()
        if again is not None:
            rows = folded = unpack(again)
    after = conn.execute(select(rematches.c.new_game_id).where(rematches.c.game_id == game_id)).scalar()
    before = conn.execute(select(rematches.c.game_id).where(rematches.c.new_game_id == game_id)).scalar()
    counts = how_it_counts(conn, game_id)
    result = json.loads(row["result"]) if row["result"] else None
    return StoredGame(
        game_id=row["id"],
        created=row["created"],
        updated=max(row["updated"], rows.actions[-1][2]) if rows.actions else row["updated"],
        variant=json.loads(row["variant"] if folded is None or folded.variant is None else folded.variant),
        deal=row["deal"] if folded is None or folded.deal is None else folded.deal,
        kinds=[row["kind0"], row["kind1"]],
        names=[row["name0"], row["name1"]],
        invite=row["invite"],
        seat_tokens=tokens,
        status=row["status"],
        reshuffles=rows.reshuffles,
        actions=[token for _, token, _ in rows.actions],
        clock=None if rows.clock is None else _clock_of_row(rows.clock),
        termination=None if not isinstance(result, dict) else result.get("termination"),
        chat=[
            {"line_id": seq, "room": room, "seat": seat, "text": text, "at": at}
            for seq, (room, seat, text, at) in enumerate(rows.chat)
        ],
        rematch=after,
        rematch_of=before,
        rated=counts is not None and counts[0],
        casual_reason=None if counts is None else counts[1],
        tournament=in_tournament(conn, game_id),
        owner=row["owner"],
        archived=folded is not None,
        hidden_lines=hidden_lines(conn, game_id),
        shadow_lines=shadowed_lines(conn, game_id),
    )


def per_action_rows(conn: Connection, game_id: str) -> ArchivedRows:
    """A game's rows in ``reshuffles``, ``actions``, ``clocks`` and ``chat``, as an archive holds them."""
    shuffles = conn.execute(
        select(reshuffles.c.cards).where(reshuffles.c.game_id == game_id).order_by(reshuffles.c.idx)
    ).scalars()
    played = conn.execute(
        select(actions.c.seat, actions.c.token, actions.c.at)
        .where(actions.c.game_id == game_id)
        .order_by(actions.c.seq)
    ).all()
    timed = conn.execute(select(clocks).where(clocks.c.game_id == game_id)).mappings().first()
    lines = conn.execute(
        select(chat.c.room, chat.c.seat, chat.c.text, chat.c.at).where(chat.c.game_id == game_id).order_by(chat.c.seq)
    ).all()
    clock = None if timed is None else {key: value for key, value in timed.items() if key != "game_id"}
    return ArchivedRows(
        list(shuffles), [(s, t, a) for s, t, a in played], clock, [(r, s, t, a) for r, s, t, a in lines]
    )


def archived_rows(conn: Connection, game_id: str) -> ArchivedRows | None:
    """The rows an archived game's record holds (``None``: the game is not archived)."""
    value = conn.execute(select(games.c.archive).where(games.c.id == game_id)).scalar()
    return None if value is None else unpack(value)


def is_archived(conn: Connection, game_id: str) -> bool:
    """Whether the game is archived, its ``games`` row share-locked until the transaction ends
    (PostgreSQL): an archiving pass, which locks the row for update, cannot fold the game's rows
    between this answer and a write that relies on it (a chat line)."""
    found = conn.execute(
        select(games.c.archive.is_not(None)).where(games.c.id == game_id).with_for_update(read=True)
    ).scalar()
    return bool(found)


def how_it_counts(conn: Connection, game_id: str) -> tuple[bool, str | None] | None:
    """Whether a lobby game is rated, and why not if it was asked for as rated (``None``: no
    lobby game)."""
    row = conn.execute(
        select(game_accounts.c.rated, game_accounts.c.casual_reason).where(game_accounts.c.game_id == game_id)
    ).first()
    return None if row is None else (bool(row.rated), row.casual_reason)


def in_tournament(conn: Connection, game_id: str) -> bool:
    """Whether the game is a tournament's board."""
    found = conn.execute(select(tournament_games.c.id).where(tournament_games.c.game_id == game_id).limit(1))
    return found.first() is not None


def _clock_of_row(row: Any) -> dict[str, Any]:
    return {
        "control": json.loads(row["control"]),
        "remaining": [row["remaining0"], row["remaining1"]],
        "running": row["running"],
        "since": row["since"],
        "starts_by": row["starts_by"],
    }


def unfinished_game_ids(conn: Connection) -> list[str]:
    return list(conn.execute(select(games.c.id).where(games.c.status != "over").order_by(games.c.created)).scalars())


def game_id_of_invite(conn: Connection, invite: str) -> str | None:
    return conn.execute(select(games.c.id).where(games.c.invite == invite)).scalar()


def seats_of_tokens(conn: Connection, tokens: list[str]) -> list[tuple[str, str, int]]:
    """``(token digest, game id, seat)`` for each digest that names a seat, whole or, in an
    archived game, short (``schema.games.short_digest``): the digest given either way."""
    if not tokens:
        return []
    asked = {form: token for token in tokens for form in digest_forms(token)}
    rows = conn.execute(select(seats.c.token, seats.c.game_id, seats.c.seat).where(seats.c.token.in_(list(asked))))
    return [(asked[token], game_id, seat) for token, game_id, seat in rows]


def due_deadlines(conn: Connection, before: float) -> dict[str, float]:
    """When the running clock of each game being played runs out, or its clock waiting for the
    players starts at the latest, for those that do before ``before`` (seconds since the epoch;
    ``math.inf``: all)."""
    running = clocks.c.since + case((clocks.c.running == 0, clocks.c.remaining0), else_=clocks.c.remaining1)
    deadline = case((clocks.c.running.is_(None), clocks.c.starts_by), else_=running)
    query = (
        select(clocks.c.game_id, deadline)
        .join(games, games.c.id == clocks.c.game_id)
        .where(
            games.c.status == "playing",
            ((clocks.c.running.is_not(None)) & (clocks.c.since.is_not(None))) | clocks.c.starts_by.is_not(None),
        )
    )
    if not math.isinf(before):
        query = query.where(deadline < before)
    return {game_id: float(at) for game_id, at in conn.execute(query)}


def stored_versions(conn: Connection, game_ids: list[str]) -> dict[str, int]:
    """How many actions of each game are stored, in one query (a game with none is left out): a
    clustered instance looks for actions it missed in each game entering memory, and a thousand
    games enter at once when their players reconnect after a restart
    (:class:`~kahuna.server.db.batched.BatchedReader`)."""
    query = select(actions.c.game_id, func.count()).where(actions.c.game_id.in_(game_ids)).group_by(actions.c.game_id)
    return {game_id: int(count) for game_id, count in conn.execute(query)}
