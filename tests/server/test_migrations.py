"""Schema migrations: one chain of revisions, a fresh database equal to the tables the code uses,
and a database written by the release before migrations upgraded in place with nothing lost."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from server_harness import Server
from sqlalchemy import create_engine, inspect

from kahuna.server.db import migrations, schema, store
from kahuna.server.games.live import rebuild

BEFORE = Path(__file__).parent / "data" / "before-migrations.db"
"""A database written by ``kahuna serve`` at de3b051 (the last release without migrations): 10
games (4 played to the end by ``kahuna bench server``, one against the AI, one timed with both
seats taken), 716 actions."""


def _table_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def test_the_revisions_form_one_chain() -> None:
    assert len(migrations.heads()) == 1


def test_a_fresh_database_has_exactly_the_schema_of_the_code(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.heads()[0]
        differences = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    engine.dispose()
    assert differences == []


def test_opening_a_migrated_database_again_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    store.open_engine(f"sqlite:///{path}").dispose()
    before = path.read_bytes()
    store.open_engine(f"sqlite:///{path}").dispose()
    assert path.read_bytes() == before


def test_a_database_from_before_migrations_is_upgraded_in_place(tmp_path: Path) -> None:
    copy = tmp_path / "kahuna.db"
    shutil.copy(BEFORE, copy)
    counts = _table_counts(copy)
    assert "alembic_version" not in counts and counts["actions"] == 716

    engine = store.open_engine(f"sqlite:///{copy}")
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.heads()[0]
        assert compare_metadata(MigrationContext.configure(conn), schema.metadata) == []
        game_ids = [row[0] for row in conn.exec_driver_sql("SELECT id FROM games")]
        # made when every game by link was private (none from the lobby): they stay off the live list
        assert [row[0] for row in conn.exec_driver_sql("SELECT unlisted FROM games")] == [1] * len(game_ids)
        for game_id in game_ids:
            stored = store.load_game(conn, game_id)
            assert stored is not None
            live = rebuild(stored)
            assert live.version == len(stored.actions)
    engine.dispose()
    after = _table_counts(copy)
    assert {name: after[name] for name in counts} == counts


@pytest.mark.slow
def test_the_server_resumes_the_games_of_an_upgraded_database(tmp_path: Path) -> None:
    shutil.copy(BEFORE, tmp_path / "kahuna.db")
    with sqlite3.connect(tmp_path / "kahuna.db") as conn:
        finished = conn.execute("SELECT id FROM games WHERE status = 'over'").fetchone()[0]
        expected = conn.execute("SELECT count(*) FROM actions WHERE game_id = ?", (finished,)).fetchone()[0]
        unfinished = conn.execute("SELECT count(*) FROM games WHERE status != 'over'").fetchone()[0]
    server = Server(tmp_path).start()
    try:
        record = server.get(f"/api/games/{finished}/record").json()
        assert len(record["actions"]) == expected
        started = [json.loads(line) for line in server.log().splitlines() if '"started"' in line]
        assert started[0]["resumed_games"] == unfinished > 0
        created = server.create(opponent="ai", level="easy")
        assert server.get(f"/api/games/{created['game_id']}").status_code == 200
    finally:
        server.stop()
    engine = create_engine(f"sqlite:///{tmp_path / 'kahuna.db'}")
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()
