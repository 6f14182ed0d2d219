"""Seeks, quick-pairing entries and challenges: offers of a game, stored so that every instance
sees them and accepts each one at most once.

A row of ``seeks`` is an open offer (``kind``: ``seek`` listed in the lobby, ``pool`` waiting for
quick pairing, ``challenge`` addressed to one account). Its owner holds a secret token, which will
be its seat token in the game (only the digest is stored): the owner alone can cancel the offer,
keep it alive and read its seat once it is accepted, whether it has an account or not. An offer
lives while its owner is present: each sign of life (the lobby WebSocket's heartbeat, a poll of
``GET /api/seeks/<id>``) moves ``alive_until`` on; an offer past it is gone.

Accepting is one conditional ``UPDATE ... WHERE status = 'open'`` in the transaction that creates
the game: two acceptors on two instances cannot both win it (the database serializes the rows).

A row that cannot be read (its ``clock`` or ``variant`` is not the JSON it should be) is
:class:`Damaged`: the lists leave it out and name it in the ``damaged`` set they are given, so that
the lobby quarantines it as the service quarantines a damaged game, and every other offer is served.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, or_, select, update

from kahuna.server.community.relations import Someone
from kahuna.server.db.schema import accounts, seeks

OPEN, ACCEPTED, CANCELLED, EXPIRED, DECLINED = "open", "accepted", "cancelled", "expired", "declined"


@dataclass(frozen=True)
class Seek:
    seek_id: str
    kind: str
    status: str
    owner_account: int | None
    owner_name: str
    owner_client: str
    owner_address: str | None
    owner_browser: str | None
    target_account: int | None
    clock: dict[str, Any] | None
    variant: tuple[str, ...]
    rated: bool
    rating: int | None
    token: str
    created: float
    alive_until: float
    game_id: str | None
    seat: int | None

    def blocker(self) -> Someone:
        """Its owner as blocks see it (a guest's: by its browser)."""
        return Someone(self.owner_account, self.owner_browser)

    @property
    def address(self) -> str:
        """The address the offer came from (an older row has only its client)."""
        return self.owner_address or self.owner_client

    def public(self) -> dict[str, Any]:
        """What anyone may see of it (the lobby's list and events)."""
        return {
            "seek_id": self.seek_id,
            "kind": self.kind,
            "status": self.status,
            "username": self.owner_name,
            "account": self.owner_account is not None,
            "rating": self.rating,
            "clock": self.clock,
            "variant": list(self.variant),
            "rated": self.rated,
        }

    def same_terms(self, other: Seek) -> bool:
        """Whether two quick-pairing entries want the same game (clock, variant, rated)."""
        return (self.clock, sorted(self.variant), self.rated) == (other.clock, sorted(other.variant), other.rated)


class Damaged(Exception):
    """A seek row that cannot be read."""

    def __init__(self, seek_id: str, error: str) -> None:
        super().__init__(f"seek {seek_id!r} cannot be read ({error})")
        self.seek_id = seek_id
        self.error = error


def _seek(row: Any) -> Seek:
    """The seek of a row; :class:`Damaged` if it cannot be read."""
    try:
        clock = None if row["clock"] is None else json.loads(row["clock"])
        variant = json.loads(row["variant"])
        if not (clock is None or isinstance(clock, dict)) or not isinstance(variant, list):
            raise TypeError("clock or variant of the wrong type")
        return Seek(
            seek_id=row["id"],
            kind=row["kind"],
            status=row["status"],
            owner_account=row["owner_account"],
            owner_name=row["owner_name"],
            owner_client=row["owner_client"],
            owner_address=row["owner_address"],
            owner_browser=row["owner_browser"],
            target_account=row["target_account"],
            clock=clock,
            variant=tuple(str(name) for name in variant),
            rated=bool(row["rated"]),
            rating=row["rating"],
            token=row["token"],
            created=float(row["created"]),
            alive_until=float(row["alive_until"]),
            game_id=row["game_id"],
            seat=row["seat"],
        )
    except (ValueError, TypeError) as exc:
        raise Damaged(str(row["id"]), type(exc).__name__) from None


def _readable(rows: Any, damaged: set[str]) -> list[Seek]:
    """The seeks of the rows that can be read; the ids of the others go into ``damaged``."""
    out = []
    for row in rows:
        try:
            out.append(_seek(row))
        except Damaged as exc:
            damaged.add(exc.seek_id)
    return out


def insert(conn: Connection, seek: Seek) -> None:
    conn.execute(
        seeks.insert().values(
            id=seek.seek_id,
            kind=seek.kind,
            status=seek.status,
            owner_account=seek.owner_account,
            owner_name=seek.owner_name,
            owner_client=seek.owner_client,
            owner_address=seek.owner_address,
            owner_browser=seek.owner_browser,
            target_account=seek.target_account,
            clock=None if seek.clock is None else json.dumps(seek.clock, sort_keys=True),
            variant=json.dumps(sorted(seek.variant)),
            rated=seek.rated,
            rating=seek.rating,
            token=seek.token,
            created=seek.created,
            alive_until=seek.alive_until,
        )
    )


def load(conn: Connection, seek_id: str) -> Seek | None:
    """The seek ``seek_id`` (``None``: no such seek; :class:`Damaged`: it cannot be read)."""
    row = conn.execute(select(seeks).where(seeks.c.id == seek_id)).mappings().first()
    return None if row is None else _seek(row)


def _owner_active() -> Any:
    """The condition that an offer's owner is a guest or an account that has not been deleted (a
    deleted account's offers are never listed, accepted or paired)."""
    deleted = select(accounts.c.id).where(accounts.c.deleted.is_not(None))
    return or_(seeks.c.owner_account.is_(None), seeks.c.owner_account.not_in(deleted.scalar_subquery()))


def _open(kind: str, now: float, *conditions: Any) -> Any:
    """The query of the open offers of ``kind`` whose owner is present, oldest first."""
    present = (seeks.c.kind == kind, seeks.c.status == OPEN, seeks.c.alive_until > now, _owner_active())
    return select(seeks).where(*present, *conditions).order_by(seeks.c.created)


def open_seeks(
    conn: Connection, kind: str, now: float, limit: int, damaged: set[str], newest: bool = False
) -> list[Seek]:
    """Open offers of ``kind`` whose owner is present, oldest first (``newest``: the newest
    ``limit``, still oldest first); the ids of damaged rows go into ``damaged``."""
    query = _open(kind, now)
    if newest:
        query = query.order_by(None).order_by(seeks.c.created.desc())
    found = _readable(conn.execute(query.limit(limit)).mappings(), damaged)
    return sorted(found, key=lambda seek: seek.created)


def challenges_for(conn: Connection, account_id: int, now: float, damaged: set[str]) -> list[Seek]:
    query = _open("challenge", now, seeks.c.target_account == account_id)
    return _readable(conn.execute(query).mappings(), damaged)


def open_at_address(conn: Connection, kind: str, address: str, now: float, damaged: set[str]) -> list[Seek]:
    """The open offers of ``kind`` made from ``address``, oldest first."""
    query = _open(kind, now, seeks.c.owner_address == address)
    return _readable(conn.execute(query).mappings(), damaged)


def count_open(conn: Connection, owner_client: str, now: float) -> int:
    query = select(func.count()).where(
        seeks.c.owner_client == owner_client, seeks.c.status == OPEN, seeks.c.alive_until > now
    )
    return int(conn.execute(query).scalar() or 0)


def claim(conn: Connection, seek_ids: list[str], game_id: str, seats: list[int], now: float) -> bool:
    """Mark the open offers ``seek_ids`` accepted into ``game_id`` (their owners in ``seats``), all
    or none: ``False`` (and nothing changed) if any of them was no longer open."""
    claimed = 0
    for seek_id, seat in zip(seek_ids, seats, strict=True):
        done = conn.execute(
            update(seeks)
            .where(seeks.c.id == seek_id, seeks.c.status == OPEN, seeks.c.alive_until > now, _owner_active())
            .values(status=ACCEPTED, game_id=game_id, seat=seat)
        )
        claimed += done.rowcount
    if claimed == len(seek_ids):
        return True
    if claimed:
        conn.execute(
            update(seeks)
            .where(seeks.c.id.in_(seek_ids), seeks.c.game_id == game_id)
            .values(status=OPEN, game_id=None, seat=None)
        )
    return False


def close(conn: Connection, seek_id: str, status: str) -> bool:
    """Cancel, decline or expire an open offer; ``False`` if it was no longer open."""
    done = conn.execute(update(seeks).where(seeks.c.id == seek_id, seeks.c.status == OPEN).values(status=status))
    return bool(done.rowcount == 1)


def withdraw_all(conn: Connection, account_id: int) -> list[str]:
    """Cancel every open offer an account made (it is being deleted); the ids of those cancelled."""
    owned = list(
        conn.execute(select(seeks.c.id).where(seeks.c.owner_account == account_id, seeks.c.status == OPEN)).scalars()
    )
    return [seek_id for seek_id in owned if close(conn, seek_id, CANCELLED)]


def keep_alive(conn: Connection, seek_id: str, until: float) -> None:
    conn.execute(update(seeks).where(seeks.c.id == seek_id, seeks.c.status == OPEN).values(alive_until=until))


def lapsing(conn: Connection, now: float) -> list[str]:
    """The open offers whose owner stopped showing signs of life (a read: most of the time, none)."""
    return list(conn.execute(select(seeks.c.id).where(seeks.c.status == OPEN, seeks.c.alive_until <= now)).scalars())


def lapsed(conn: Connection, now: float, ids: list[str] | None = None) -> list[str]:
    """Expire the open offers (among ``ids``, if given) whose owner stopped showing signs of life;
    the ids of those this call expired (another instance may expire some first)."""
    due = (seeks.c.status == OPEN, seeks.c.alive_until <= now)
    expired = []
    for seek_id in lapsing(conn, now) if ids is None else ids:
        if conn.execute(update(seeks).where(seeks.c.id == seek_id, *due).values(status=EXPIRED)).rowcount == 1:
            expired.append(seek_id)
    return expired
