"""The Alembic revisions on PostgreSQL: a fresh database migrated to the newest one has exactly the
tables the code declares, and opening it again (a second instance starting) changes nothing."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from scale_harness import pg_url

from kahuna.server.db import migrations, schema, store

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_every_revision_runs_on_a_fresh_postgresql_database(pg_url: str) -> None:
    engine = store.open_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert migrations.current(conn) == migrations.heads()[0]
            assert compare_metadata(MigrationContext.configure(conn), schema.metadata) == []
        store.open_engine(pg_url).dispose()  # another instance opening it: already at the head
        with engine.connect() as conn:
            assert migrations.current(conn) == migrations.heads()[0]
    finally:
        engine.dispose()
