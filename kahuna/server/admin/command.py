"""The ``kahuna admin`` command line: one subcommand per task, each with its own ``--help``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kahuna.server.common.config import default_db_url

DB_HELP = "the server's database URL (default: SQLite in the data directory, as kahuna serve)"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "admin",
        help="run a server: back up and restore its database, find and close accounts, counts",
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
