"""The ``kahuna admin`` command line: one subcommand per task, each with its own ``--help``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kahuna.server.common.config import default_db_url

if TYPE_CHECKING:
    from sqlalchemy import Connection

ROLE_NAMES = ("moderator", "admin")
"""``moderation.roles.ROLES`` (tests/server/test_moderation_roles.py checks they agree), named here so
that building the parser does not load the database's schema."""
DB_HELP = "the server's database URL (default: SQLite in the data directory, as kahuna serve)"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "admin",
        help="run a server: back up and restore its database, find and close accounts, reset mails, counts, "
        "archive old games, grant and revoke roles",
        description="Tasks for the person who runs a Kahuna server (docs/deploy.md).",
    )
    tasks = p.add_subparsers(dest="task", metavar="TASK", required=True)
    b = tasks.add_parser(
        "backup",
        help="write a backup of the database to FILE, while the server runs",
        description="Write a backup of the database to FILE (a new file): SQLite through its online backup "
        "API, PostgreSQL through pg_dump --format=custom. Consistent while games are played: every action "
        "acknowledged before it started is in it.",
    )
    b.add_argument("file", metavar="FILE", type=Path, help="the backup to write (must not exist)")
    b.add_argument("--db", metavar="URL", help=DB_HELP)
    b.set_defaults(func=_backup)
    r = tasks.add_parser(
        "restore",
        help="restore a backup FILE into a new database",
        description="Restore a backup made by kahuna admin backup into a new database: a SQLite file that "
        "does not exist yet, or an empty PostgreSQL database (createdb NAME). Start kahuna serve on it "
        "afterwards: the games resume.",
    )
    r.add_argument("file", metavar="FILE", type=Path, help="the backup to restore")
    r.add_argument("--db", metavar="URL", required=True, help="the new database's URL")
    r.set_defaults(func=_restore)
    a = tasks.add_parser(
        "accounts",
        help="list accounts, newest first, or find them by name or e-mail address",
        description="List accounts, newest first: id, username, created, bot, closed, verified e-mail address.",
    )
    a.add_argument("--find", metavar="TEXT", help="only those whose username or e-mail address holds TEXT")
    a.add_argument("--limit", type=int, default=50, metavar="N", help="at most N (default 50)")
    a.add_argument("--db", metavar="URL", help=DB_HELP)
    a.set_defaults(func=_accounts)
    c = tasks.add_parser(
        "close",
        help="close an account (as its owner deleting it), with --yes",
        description="Close an account as DELETE /api/me does: its password, sessions, API tokens, e-mail "
        "address and queued mail are removed, its games stay and show a deleted player, its username stays "
        "taken. Cannot be undone. Games a running server holds in memory show the new name once reloaded.",
    )
    c.add_argument("username", metavar="USERNAME")
    c.add_argument("--yes", action="store_true", help="really close it (required: it cannot be undone)")
    c.add_argument("--db", metavar="URL", help=DB_HELP)
    c.set_defaults(func=_close)
    p_reset = tasks.add_parser(
        "reset-password",
        help="queue a password-reset mail to an account's verified address",
        description="Queue a password-reset mail (a link valid for an hour) to the account's verified e-mail "
        "address, as the sign-in page's 'forgot password' does; the server's mail sender (kahuna serve "
        "--smtp, or kahuna worker --smtp) sends it.",
    )
    p_reset.add_argument("username", metavar="USERNAME")
    p_reset.add_argument(
        "--public-url", metavar="URL", required=True, help="the address players open, as kahuna serve --public-url"
    )
    p_reset.add_argument("--mail-from", metavar="ADDRESS", help="the server's --mail-from (for the Message-ID)")
    p_reset.add_argument("--db", metavar="URL", help=DB_HELP)
    p_reset.set_defaults(func=_reset)
    n = tasks.add_parser(
        "counts",
        help="accounts, games by status, the database's size",
        description="Count accounts (people, bots, closed) and games by status, and give the database's size.",
    )
    n.add_argument("--json", action="store_true", help="print one JSON object")
    n.add_argument("--db", metavar="URL", help=DB_HELP)
    n.set_defaults(func=_counts)
    for task, what in (("grant", "give an account the role ROLE"), ("revoke", "take the role ROLE from an account")):
        g = tasks.add_parser(
            task,
            help=f"{what}: moderator or admin",
            description=f"{what[0].upper()}{what[1:]} (docs/moderation.md): a "
            "moderator sees the reports and sanctions players, an admin may do the same and no moderator may "
            "sanction it. It holds at once on every instance; the moderation log records it.",
        )
        g.add_argument("username", metavar="USERNAME")
        g.add_argument("role", metavar="ROLE", choices=ROLE_NAMES, help="moderator or admin")
        g.add_argument("--db", metavar="URL", help=DB_HELP)
        g.set_defaults(func=_grant)
    v = tasks.add_parser(
        "archive",
        help="fold old finished games into compressed archive records; delete guests' old aborted games",
        description="Replace the action, reshuffle, clock and chat rows of every finished game that ended more "
        "than DAYS ago with one compressed archive record (replay, analysis, records, exports and profiles read "
        "it as before), in batches of one transaction each, while the server runs; the server does the same by "
        "itself (kahuna serve --archive-after). With --delete-guest-games-after, guests' aborted games and "
        "untimed games left unfinished are deleted first (docs/deploy.md).",
    )
    v.add_argument(
        "--older-than", type=float, default=30.0, metavar="DAYS", help="days since the game ended (default 30)"
    )
    v.add_argument(
        "--delete-guest-games-after",
        type=float,
        metavar="DAYS",
        help="also delete guests' aborted and abandoned games untouched for DAYS (default: delete none)",
    )
    v.add_argument("--batch", type=int, default=100, metavar="N", help="games per transaction (default 100)")
    v.add_argument("--db", metavar="URL", help=DB_HELP)
    v.set_defaults(func=_archive)


def _backup(args: argparse.Namespace) -> int:
    from kahuna.server.admin.backup import BackupError, backup

    db = args.db or default_db_url()
    start = time.perf_counter()
    try:
        backup(db, args.file)
    except BackupError as exc:
        print(f"kahuna admin backup: {exc}", file=sys.stderr)
        return 1
    size = args.file.stat().st_size
    print(f"kahuna admin backup: wrote {args.file} ({size:,} bytes) in {time.perf_counter() - start:.1f} s")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from kahuna.server.admin.backup import BackupError, restore

    start = time.perf_counter()
    try:
        restore(args.file, args.db)
    except BackupError as exc:
        print(f"kahuna admin restore: {exc}", file=sys.stderr)
        return 1
    print(f"kahuna admin restore: restored {args.file} in {time.perf_counter() - start:.1f} s")
    return 0


def _accounts(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts

    if args.limit < 1:
        print("kahuna admin accounts: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        engine = accounts.open_database(args.db or default_db_url())
    except accounts.AdminError as exc:
        print(f"kahuna admin accounts: {exc}", file=sys.stderr)
        return 1
    try:
        with engine.connect() as conn:
            rows = accounts.find_accounts(conn, args.find, args.limit)
    finally:
        engine.dispose()
    print(f"{'id':>6}  {'username':20}  {'created':20}  {'kind':6}  {'closed':20}  e-mail")
    for row in rows:
        kind = "bot" if row.is_bot else "person"
        print(f"{row.id:>6}  {row.username:20}  {row.created:20}  {kind:6}  {row.closed or '-':20}  {row.email or '-'}")
    return 0


def _close(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts

    if not args.yes:
        print("kahuna admin close: closing an account cannot be undone: add --yes", file=sys.stderr)
        return 2

    def close(conn: Connection) -> str:
        seats = accounts.close_account(conn, args.username)
        return f"closed {args.username!r} (it held {seats} game seats)"

    return _change("close", args.db, close)


def _reset(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts

    def reset(conn: Connection) -> str:
        address = accounts.queue_reset(conn, args.username, args.public_url, args.mail_from)
        return f"queued a reset mail for {args.username!r} to {address}"

    return _change("reset-password", args.db, reset)


def _grant(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts

    return _change(args.task, args.db, lambda conn: accounts.change_role(conn, args.username, args.role, args.task))


def _change(task: str, db: str | None, fn: Callable[[Connection], str]) -> int:
    """Run ``fn`` in one transaction; say what it did (its answer), or why nothing changed."""
    from kahuna.server.admin import accounts

    try:
        engine = accounts.open_database(db or default_db_url())
    except accounts.AdminError as exc:
        print(f"kahuna admin {task}: {exc}", file=sys.stderr)
        return 1
    try:
        with engine.begin() as conn:
            done = fn(conn)
    except accounts.AdminError as exc:
        print(f"kahuna admin {task}: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    print(f"kahuna admin {task}: {done}")
    return 0


def _archive(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts
    from kahuna.server.admin.archive import run, terminal_progress

    guests = args.delete_guest_games_after
    if args.older_than < 0 or (guests is not None and guests < 0) or args.batch < 1:
        print("kahuna admin archive: DAYS must be 0 or more and --batch at least 1", file=sys.stderr)
        return 2
    try:
        engine = accounts.open_database(args.db or default_db_url())
    except accounts.AdminError as exc:
        print(f"kahuna admin archive: {exc}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    try:
        done = run(engine, args.older_than, guests, args.batch, terminal_progress)
    finally:
        engine.dispose()
    deleted = "" if guests is None else f", deleted {done.deleted:,} guests' games"
    print(
        f"kahuna admin archive: archived {done.archived:,} finished games{deleted} "
        f"in {time.perf_counter() - start:.1f} s"
    )
    return 0


def _counts(args: argparse.Namespace) -> int:
    from kahuna.server.admin import accounts

    try:
        engine = accounts.open_database(args.db or default_db_url())
    except accounts.AdminError as exc:
        print(f"kahuna admin counts: {exc}", file=sys.stderr)
        return 1
    try:
        found = accounts.counts(engine)
    finally:
        engine.dispose()
    if args.json:
        print(json.dumps(found))
        return 0
    print(f"accounts: {found['accounts']} people, {found['bots']} bots, {found['closed_accounts']} closed")
    print("games: " + (", ".join(f"{n} {status}" for status, n in found["games"].items()) or "none"))
    print(f"database: {found['database_bytes']:,} bytes")
    return 0
