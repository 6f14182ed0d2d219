"""Backups that restore: ``kahuna admin backup FILE --db URL`` and ``kahuna admin restore FILE --db URL``.

SQLite goes through its online backup API in one step: the copy is one read transaction, so it is
the database as it was at one instant, every committed (so acknowledged) action in it, while the
server goes on writing beside it (WAL mode: a reader never blocks the writer). The file written is
a plain SQLite database. PostgreSQL goes through ``pg_dump --format=custom`` (one snapshot
transaction as well) and ``pg_restore``; the password, if the URL has one, reaches them in
``PGPASSWORD``, never on a command line others can read.

A restore goes into a new database only (a SQLite file that does not exist or is empty; a
PostgreSQL database with no table): it never mixes a backup with live rows. The server migrates a
backup of an older release when it starts on it, as it does any database.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import URL, make_url

from kahuna.server.db.store import database_url

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
"""The first bytes of a SQLite database and of a ``pg_dump --format=custom`` archive."""


class BackupError(Exception):
    """What went wrong, said to the person at the terminal (no password in it)."""


def _url(db: str) -> URL:
    return make_url(database_url(db))


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("a SQLite URL must name a file: sqlite:///PATH")
    return Path(url.database)


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A URL ``pg_dump``/``pg_restore`` take (the driver dropped), and the environment with the password."""
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    return plain, env


def _run(tool: str, args: list[str], env: dict[str, str]) -> None:
    if shutil.which(tool) is None:
        raise BackupError(f"{tool} is not installed (Debian: apt-get install postgresql-client)")
    done = subprocess.run([tool, *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise BackupError(f"{tool}: {lines[0]}")


def backup(db: str, file: Path) -> None:
    """Write a backup of the database ``db`` to ``file`` (which must not exist)."""
    if file.exists():
        raise BackupError(f"{file} exists: give a new file name")
    url = _url(db)
    partial = file.with_name(file.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        if url.get_backend_name() == "sqlite":
            _backup_sqlite(_sqlite_path(url), partial)
        elif url.get_backend_name() == "postgresql":
            plain, env = _libpq(url)
            _run("pg_dump", ["--format=custom", "--no-owner", "--file", str(partial), "--dbname", plain], env)
        else:
            raise BackupError(f"cannot back up a {url.get_backend_name()} database (SQLite and PostgreSQL only)")
        partial.rename(file)  # a file by this name is always a whole backup
    finally:
        partial.unlink(missing_ok=True)


def _backup_sqlite(path: Path, target: Path) -> None:
    if not path.is_file():
        raise BackupError(f"no database at {path}")
    source = sqlite3.connect(path)
    try:
        source.execute("PRAGMA busy_timeout = 5000")
        if source.execute("SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'").fetchone() is None:
            raise BackupError(f"{path} is not a Kahuna database")
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)  # every page in one step: one read transaction, one instant
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            copy.close()
    finally:
        source.close()


def restore(file: Path, db: str) -> None:
    """Restore the backup ``file`` into the new database ``db``."""
    if not file.is_file():
        raise BackupError(f"no backup at {file}")
    with file.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    url = _url(db)
    kind = url.get_backend_name()
    if kind == "sqlite":
        if not head.startswith(SQLITE_MAGIC):
            raise BackupError(f"{file} is not a backup of a SQLite database")
        _restore_sqlite(file, _sqlite_path(url))
    elif kind == "postgresql":
        if not head.startswith(PG_MAGIC):
            raise BackupError(f"{file} is not a backup of a PostgreSQL database (pg_dump --format=custom)")
        _check_empty(db)
        plain, env = _libpq(url)
        _run(
            "pg_restore",
            ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname", plain, str(file)],
            env,
        )
    else:
        raise BackupError(f"cannot restore into a {kind} database (SQLite and PostgreSQL only)")


def _restore_sqlite(file: Path, path: Path) -> None:
    if path.exists() and path.stat().st_size > 0:
        raise BackupError(f"{path} exists: restore into a new database")
    if not path.parent.is_dir():
        raise BackupError(f"no directory {path.parent}")
    source = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
    try:
        if source.execute("SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'").fetchone() is None:
            raise BackupError(f"{file} is not a backup of a Kahuna database")
        target = sqlite3.connect(path)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


def _check_empty(db: str) -> None:
    engine = create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            tables = inspect(conn).get_table_names()
    except Exception as exc:
        raise BackupError(f"cannot open the database: {str(exc).splitlines()[0]}") from None
    finally:
        engine.dispose()
    if tables:
        raise BackupError("the database has tables: restore into a new, empty database (createdb NAME)")
