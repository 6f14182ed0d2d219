"""The day's limit of rated games between two people when two instances start their games at the
same moment (PostgreSQL): the games are counted one after the other, so no more than three are
rated."""

from __future__ import annotations

import asyncio

import pytest
from scale_harness import database, pg_url
from sqlalchemy import Engine, func, select
from test_pg_end_race import _instance, _until_waiting

from kahuna.clock import TimeControl
from kahuna.server.accounts.store import insert_account
from kahuna.server.db import schema
from kahuna.server.games.factory import Player, Terms
from kahuna.server.games.live import LiveGame
from kahuna.server.games.service import GameService

__all__ = ["database", "pg_url"]

pytestmark = pytest.mark.pg


def _rated(alice: int, bob: int, n: int) -> Terms:
    """A rated game of Alice and Bob (seat token digests of its own: each seat's is unique)."""
    players = (Player("alice", token=f"{n:064d}", account=alice), Player("bob", token=f"{n + 100:064d}", account=bob))
    return Terms(players, clock=TimeControl.from_json({"initial": 300, "increment": 3}, 60), rated=True, paired=True)


async def _start(service: GameService, terms: Terms) -> LiveGame:
    game = await service.factory.start(terms)
    assert game is not None
    return game


def test_two_instances_starting_the_pairs_third_and_fourth_rated_games_at_once_rate_only_one(
    database: Engine,
) -> None:
    with database.begin() as conn:
        alice, bob = insert_account(conn, "alice", None), insert_account(conn, "bob", None)
    assert alice is not None and bob is not None

    async def scenario() -> list[LiveGame]:
        a, b = _instance(database), _instance(database)
        try:
            for n in range(2):  # two rated games of the pair already today
                assert (await _start(a, _rated(alice.id, bob.id, n))).rated
            with database.connect() as holder, database.connect() as watch:
                held = holder.begin()  # holds Alice's row: both starts reach the count, then wait
                holder.execute(select(schema.accounts).where(schema.accounts.c.id == alice.id).with_for_update())
                third = asyncio.create_task(_start(a, _rated(alice.id, bob.id, 2)))
                fourth = asyncio.create_task(_start(b, _rated(alice.id, bob.id, 3)))
                await _until_waiting(watch, 2)
                await asyncio.to_thread(held.commit)
                return [await third, await fourth]
        finally:
            await a.writer.close()
            await b.writer.close()

    started = asyncio.run(scenario())
    assert sorted((game.rated, game.casual_reason) for game in started) == [(False, "pair_limit"), (True, None)]
    with database.connect() as conn:
        rated = conn.execute(select(func.count()).where(schema.game_accounts.c.rated.is_(True))).scalar()
    assert rated == 3
