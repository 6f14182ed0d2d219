"""``kahuna serve --db postgresql://…``: games stored in PostgreSQL, played, killed and resumed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from scale_harness import pg_url
from server_harness import Player, Server, play_random, run
from sqlalchemy import create_engine, func, select

from kahuna.rules import GameRecord
from kahuna.server.db import schema, store

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_plain_postgresql_scheme_maps_to_psycopg() -> None:
    assert store.database_url("postgresql://postgres@127.0.0.1/db") == "postgresql+psycopg://postgres@127.0.0.1/db"
    assert store.database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert store.database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_a_game_on_postgresql_survives_sigkill(tmp_path: Path, pg_url: str) -> None:
    first = Server(tmp_path)
    first.db = pg_url
    first.start()
    game = first.create(opponent="hotseat", seat="first")
    played: list[int] = []

    async def half() -> None:
        seats = {s: await Player.join(first, game["game_id"], game["tokens"][s]) for s in (0, 1)}
        await play_random(seats, [], random.Random(3), 25)
        played.append(seats[0].version)

    try:
        run(half())
        assert "database: postgresql://postgres@127.0.0.1:5432/kahuna_test_" in first.log()
    finally:
        first.kill()
    second = Server(tmp_path)
    second.db = pg_url
    second.start()
    try:

        async def rest() -> None:
            seats = {s: await Player.join(second, game["game_id"], game["tokens"][s]) for s in (0, 1)}
            assert seats[0].version == played[0]
            await play_random(seats, [], random.Random(4), None)

        run(rest())
        record = GameRecord.from_json(second.get(f"/api/games/{game['game_id']}/record").json())
        assert record.replay().is_over
    finally:
        second.stop()
    engine = create_engine(store.database_url(pg_url))
    with engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(schema.actions)).scalar()
        status = conn.execute(select(schema.games.c.status)).scalar()
    engine.dispose()
    assert stored == len(record.actions)
    assert status == "over"
