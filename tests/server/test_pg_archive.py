"""Issue 50's archive and guest-game deletion on PostgreSQL: ``kahuna admin archive`` folds the
finished games, and the stored game, its record, the JSON-lines export and the profile statistics
read the same before and after; a game being played is left alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from alembic import command
from finished_games import archived_of, rows_of, seat_token
from scale_harness import pg_url
from sqlalchemy import Engine
from sqlalchemy import text as sql
from test_archive import FINISHED, PER_ACTION, admin_archive, check_seats_of_archived_games, seed_games, short_seats
from test_guest_games import check_deletes_only_guests_old_aborted_and_abandoned_games

from kahuna.server.common.tokens import digest
from kahuna.server.community.exports import finished_games_page, record_of
from kahuna.server.community.player_games import PlayedCache
from kahuna.server.community.profiles import profile
from kahuna.server.db import archive, migrations, store
from kahuna.server.db.archive_format import MARK2
from kahuna.server.db.schema.games import short_digest

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg

GAMES = [*FINISHED, "guest", "running"]


def _answers(engine: Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        loaded = {game_id: store.load_game(conn, game_id) for game_id in GAMES}
        records = {game_id: json.dumps(record_of(stored)) for game_id, stored in loaded.items() if stored is not None}
        export = [json.dumps(finished_games_page(conn, account, None).records) for account in (1, 2)]
        profiles = json.dumps([profile(conn, name, (), PlayedCache()) for name in ("alice", "bob")])
    for stored in loaded.values():
        assert stored is not None
        if stored.archived:  # its seats keep short digests (r0024): the short form of each, either way
            assert all(token is None or len(token) == 22 for token in stored.seat_tokens)
        stored.archived = False
        stored.seat_tokens = short_seats(stored)
    return {"loaded": loaded, "records": records, "export": export, "profiles": profiles}


def test_archiving_on_postgresql_changes_no_answer(pg_url: str) -> None:
    engine = store.open_engine(pg_url)
    seed_games(engine)
    before = _answers(engine)
    out = admin_archive(pg_url, "--older-than", "0", "--batch", "3")
    assert out.startswith("kahuna admin archive: archived 7 finished games in "), out
    with engine.connect() as conn:
        for table in PER_ACTION:
            assert rows_of(conn, table, [*FINISHED, "guest"]) == 0, table
        assert archived_of(conn, GAMES) == 7
        assert store.load_game(conn, "running") is not None
    assert _answers(engine) == before
    engine.dispose()


def test_guest_games_are_deleted_on_postgresql(pg_url: str) -> None:
    engine = store.open_engine(pg_url)
    check_deletes_only_guests_old_aborted_and_abandoned_games(engine)
    engine.dispose()


def test_going_back_and_up_again_on_postgresql(pg_url: str) -> None:
    """Migration 0019 both ways on PostgreSQL with archived games: down to 0018 the records are
    ``kahuna-archive/1`` rows of ``archived_games`` and the seats' digests hex text again, up again
    every answer is the same, and down to 0014 the per-action rows are back."""
    engine = store.open_engine(pg_url)
    seed_games(engine)
    with engine.connect() as conn:
        rows = {game_id: store.per_action_rows(conn, game_id) for game_id in FINISHED}
    before = _answers(engine)
    with engine.begin() as conn:
        assert archive.archive_games(conn, [*FINISHED, "guest"]) == 7
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0018")
    with engine.connect() as conn:
        records = conn.execute(sql("SELECT record FROM archived_games")).scalars().all()
        assert len(records) == 7 and all(bytes(record[:1]) != MARK2 for record in records)
        digests = conn.execute(sql("SELECT token FROM seats WHERE game_id = 'done0' ORDER BY seat")).scalars().all()
        assert digests == [short_digest(digest(seat_token("done0", seat))) for seat in (0, 1)]  # short since 0024
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    assert _answers(engine) == before
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0014")
    with engine.connect() as conn:
        assert {game_id: store.per_action_rows(conn, game_id) for game_id in FINISHED} == rows
    engine.dispose()


def test_migration_0024_on_postgresql(pg_url: str) -> None:
    engine = store.open_engine(pg_url)
    check_seats_of_archived_games(engine)
    engine.dispose()
