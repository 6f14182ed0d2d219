"""What ``kahuna admin`` reads and changes in the database directly: accounts, closing one, a
password-reset mail, counts, the roles of an account.

It opens the server's database beside a running server (SQLite in WAL mode with a busy timeout,
PostgreSQL as any client) and changes it only through the same store functions as the server: a
closed account is what ``DELETE /api/me`` leaves (``accounts.store.delete_account``); a reset mail
is queued as the server queues one (``mail.mailer.queue_link_mail``) and sent by the server's or a
worker's mail sender.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Connection, Engine, create_engine, func, or_, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from kahuna.server.accounts.passwords import username_key
from kahuna.server.accounts.store import delete_account
from kahuna.server.db import migrations
from kahuna.server.db.schema import account_emails, accounts, games
from kahuna.server.db.store import database_url
from kahuna.server.mail import addresses, templates
from kahuna.server.mail.mailer import RESET_PATH, RESET_SECONDS, queue_link_mail
from kahuna.server.moderation import roles


class AdminError(Exception):
    """What went wrong, said at the terminal; nothing was changed."""


@dataclass(frozen=True)
class AccountRow:
    id: int
    username: str
    created: str
    is_bot: bool
    closed: str | None
    email: str | None


def find_accounts(conn: Connection, needle: str | None, limit: int) -> list[AccountRow]:
    """Accounts, newest first; with ``needle``, those whose username or verified e-mail address
    holds it (case-insensitive)."""
    query = (
        select(accounts.c.id, accounts.c.username, accounts.c.created, accounts.c.is_bot, accounts.c.deleted,
               account_emails.c.email)
        .outerjoin(account_emails, account_emails.c.account_id == accounts.c.id)
        .order_by(accounts.c.id.desc())
        .limit(limit)
    )  # fmt: skip
    if needle:
        pattern = "%" + needle.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = query.where(
            or_(
                accounts.c.username_key.like(pattern, escape="\\"),
                account_emails.c.email_key.like(pattern, escape="\\"),
            )
        )
    return [AccountRow(r.id, r.username, r.created, bool(r.is_bot), r.deleted, r.email) for r in conn.execute(query)]


def _account(conn: Connection, username: str) -> tuple[int, str]:
    row = conn.execute(
        select(accounts.c.id, accounts.c.username, accounts.c.deleted).where(
            accounts.c.username_key == username_key(username)
        )
    ).first()
    if row is None:
        raise AdminError(f"no account named {username!r}")
    if row.deleted is not None:
        raise AdminError(f"the account {row.username!r} was closed on {row.deleted}")
    return int(row.id), str(row.username)


def close_account(conn: Connection, username: str) -> int:
    """Close (delete) an account as its owner would; the number of game seats it held."""
    account_id, _name = _account(conn, username)
    return len(delete_account(conn, account_id))


def change_role(conn: Connection, username: str, role: str, task: str) -> str:
    """``grant`` or ``revoke`` (``task``) the ``role`` of an account; what was done."""
    account_id, name = _account(conn, username)
    if task == "grant":
        if not roles.grant(conn, account_id, role):
            raise AdminError(f"{name!r} is {role} already")
        return f"{name!r} is {role} now"
    if not roles.revoke(conn, account_id, role):
        raise AdminError(f"{name!r} is not {role}")
    return f"{name!r} is no longer {role}"


def queue_reset(conn: Connection, username: str, public_url: str, mail_from: str | None) -> str:
    """Queue a password-reset mail to the account's verified address; that address."""
    account_id, name = _account(conn, username)
    stored = addresses.address_of(conn, account_id)
    if stored["email"] is None:
        raise AdminError(f"the account {name!r} has no verified e-mail address")
    parts = urlsplit(public_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AdminError(f"--public-url {public_url!r} is not http(s)://HOST/")
    domain = (mail_from or "").rstrip(">").rpartition("@")[2] or parts.hostname
    lang = templates.language(stored["lang"])
    address = str(stored["email"])
    queue_link_mail(
        conn, "reset", (account_id, name), address, lang, RESET_PATH, RESET_SECONDS, public_url.rstrip("/"), domain
    )
    return address


def open_database(db: str) -> Engine:
    """An engine on the server's existing database, which must be at this version's newest schema
    revision (``kahuna admin`` neither creates nor migrates a database)."""
    url = make_url(database_url(db))
    if url.get_backend_name() == "sqlite":
        if not url.database or not Path(url.database).is_file():
            raise AdminError(f"no database at {url.database}")
        engine = create_engine(url, connect_args={"timeout": 5})
    else:
        engine = create_engine(url)
    try:
        with engine.connect() as conn:
            revision = migrations.current(conn)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise AdminError(f"cannot open the database: {str(exc).splitlines()[0]}") from None
    if revision not in migrations.heads():
        engine.dispose()
        raise AdminError(
            f"the database is at revision {revision}, not this version's {' '.join(migrations.heads())}: "
            "start this version's kahuna serve on it first"
        )
    return engine


def counts(engine: Engine) -> dict[str, Any]:
    """Accounts (people, bots, closed), games by status, and the database's size in bytes."""
    with engine.connect() as conn:
        alive = select(accounts.c.is_bot, func.count()).where(accounts.c.deleted.is_(None)).group_by(accounts.c.is_bot)
        people: dict[bool, int] = {bool(bot): int(n) for bot, n in conn.execute(alive).all()}
        closed = conn.execute(select(func.count()).where(accounts.c.deleted.is_not(None))).scalar_one()
        grouped = select(games.c.status, func.count()).group_by(games.c.status)
        by_status: dict[str, int] = {str(status): int(n) for status, n in conn.execute(grouped).all()}
        if engine.dialect.name == "postgresql":
            size = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
        else:
            path = Path(engine.url.database or "")
            size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())
    return {
        "accounts": int(people.get(False, 0)),
        "bots": int(people.get(True, 0)),
        "closed_accounts": int(closed),
        "games": dict(sorted(by_status.items())),
        "database_bytes": size,
    }
