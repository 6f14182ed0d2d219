"""Schema migrations (Alembic): every database, new or from an older release, is brought to the
newest schema when the server opens it.

The revisions live in ``versions/``, one file per schema change, chained by ``down_revision``; they
run on SQLite and PostgreSQL alike (SQLite column changes go through ``op.batch_alter_table``).
A database created before migrations existed has the baseline's tables but no ``alembic_version``:
it is stamped as the baseline, then upgraded like any other. On PostgreSQL an advisory lock keeps
two instances that start at once from migrating the same database twice (:func:`hold_startup_lock`).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

BASELINE = "0001"
"""The revision that equals the schema of the releases before migrations (games, seats, actions,
reshuffles, clocks, chat, rematches, analyses)."""

_LOCK_KEY = 0x4B41_4855
"""The PostgreSQL advisory lock held while migrating and while creating bot accounts ("KAHU")."""


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for this package's revisions, bound to ``connection`` if given."""
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).resolve().parent))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def heads() -> tuple[str, ...]:
    """The newest revisions: exactly one, unless two changes were chained after the same revision."""
    return tuple(ScriptDirectory.from_config(config()).get_heads())


def current(connection: Connection) -> str | None:
    """The revision a database is at (``None``: never migrated)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def hold_startup_lock(conn: Connection) -> None:
    """Hold the start-up lock until ``conn``'s transaction ends, so that of several instances starting
    at once on one database, one at a time does what is done once (migrating, creating the AI levels'
    bot accounts) and the others then find it done. A PostgreSQL advisory lock; SQLite has one
    writer at a time anyway."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})


def migrate(engine: Engine) -> None:
    """Bring the database to the newest revision (a database at the newest one is only read)."""
    with engine.begin() as conn:
        hold_startup_lock(conn)
        cfg = config(conn)
        if current(conn) is None and inspect(conn).has_table("games"):
            command.stamp(cfg, BASELINE)
        if current(conn) not in heads():
            command.upgrade(cfg, "head")
