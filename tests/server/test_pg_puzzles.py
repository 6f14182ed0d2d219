"""Puzzles' rows on PostgreSQL (``test_puzzles.py`` runs the same on SQLite): loading the shipped
set twice, the daily puzzle, an answer counted once, the nearest unanswered puzzles, the history,
the puzzles a smaller set retires, and migration 0027 both ways;
and a server's finished games read, never written, as ``kahuna puzzles generate --db`` reads them."""

from __future__ import annotations

import pytest
from finished_games import write_finished
from scale_harness import pg_url
from sqlalchemy import update
from sqlalchemy.exc import DBAPIError
from test_puzzles import migration_round, store_round

from kahuna.server.db.schema import games
from kahuna.server.db.store import open_engine
from kahuna.server.puzzles.finished import finished_count, finished_games, open_read_only

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_the_store_on_postgresql(pg_url: str) -> None:
    store_round(pg_url)


def test_migration_0027_on_postgresql(pg_url: str) -> None:
    migration_round(pg_url)


def test_a_servers_finished_games_read_only_on_postgresql(pg_url: str) -> None:
    """``generate --db``'s source on PostgreSQL: the finished game's record, and no write possible."""
    engine = open_engine(pg_url)
    with engine.begin() as conn:
        write_finished(conn, "pg-done", 3, chat=0)
    engine.dispose()
    source = open_read_only(pg_url)
    try:
        found = [f for f in finished_games(source) if f.game_id == "pg-done"]
        assert len(found) == 1 and found[0].record is not None and found[0].record.replay().is_over
        assert finished_count(source) >= 1
        with pytest.raises(DBAPIError, match="read-only"), source.begin() as conn:
            conn.execute(update(games).where(games.c.id == "pg-done").values(status="playing"))
        print("read", len(found[0].record.actions), "actions of pg-done; a write refused")
    finally:
        source.dispose()
