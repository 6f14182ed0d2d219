"""The Alembic revisions on PostgreSQL: a fresh database migrated to the newest one has exactly the
tables the code declares, opening it again (a second instance starting) changes nothing, and 0028
closes the open reports of the accounts the server runs (``test_migrations.py``'s check)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from scale_harness import pg_url
from test_migrations import check_reports_of_server_accounts

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


def test_migration_0028_on_postgresql(pg_url: str) -> None:
    check_reports_of_server_accounts(pg_url)
