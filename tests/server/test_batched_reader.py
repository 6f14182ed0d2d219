"""Reads of one game each made in batches (the accounts seated in a game, the actions a game has
stored): the same answers as one read per game, in far fewer reads, as fresh as a read of its own,
and one requester leaving does not strand the others."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from stored_games import stored_game

from kahuna.server.accounts import store as accounts
from kahuna.server.db import store
from kahuna.server.db.batched import MAX_BATCH, BatchedReader
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Writer


def _games(engine: Engine, count: int) -> list[str]:
    """``count`` games: every third with a seat bound to an account, every fifth a lobby game with
    its players' accounts (a lobby row wins over a bound seat), the rest guests' games."""
    game_ids = [f"g{i}" for i in range(count)]
    with engine.begin() as conn:
        alice = accounts.insert_account(conn, "alice", None)
        bob = accounts.insert_account(conn, "bob", None)
        assert alice is not None and bob is not None
        for i, game_id in enumerate(game_ids):
            store.insert_game(conn, stored_game(game_id, seat_tokens=["t0-" + game_id, "t1-" + game_id]))
            if i % 3 == 0:
                store.bind_seat_accounts(conn, game_id, [None, alice.id] if i % 2 else [alice.id, bob.id])
            if i % 5 == 0:
                store.insert_game_accounts(conn, game_id, (bob.id, None), rated=False, pool=None)
    return game_ids


def _count_selects(engine: Engine, *tables: str) -> list[str]:
    selects: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and any(table in statement for table in tables):
            selects.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    return selects


def test_many_requests_at_once_share_reads_and_get_what_one_read_each_gets(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    game_ids = _games(engine, MAX_BATCH + 40)
    with engine.connect() as conn:
        expected = {game_id: accounts.game_players(conn, game_id) for game_id in game_ids}
    assert sum(1 for players in expected.values() if players) > 100  # the test sees seated accounts
    assert {0: expected["g0"][0], 1: expected["g0"][1]} == expected["g0"]  # the lobby row's seat 0, a bound seat 1
    selects = _count_selects(engine, "seats", "game_accounts")

    async def scenario() -> list[dict[int, int]]:
        writer = Writer(engine)
        reader = BatchedReader(writer, accounts.games_players, dict)
        asked = [game_id for game_id in game_ids for _ in range(2)]  # both seats' hellos of every game
        return await asyncio.gather(*(reader.get(game_id) for game_id in asked))

    answers = asyncio.run(scenario())
    assert answers == [expected[game_id] for game_id in game_ids for _ in range(2)]
    # 1,080 requests: two reads of two queries (MAX_BATCH games, then the other 40), not 1,080 reads
    assert len(selects) == 4


def test_a_request_sees_what_was_written_before_it_and_a_cancelled_one_strands_nobody(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    game_ids = _games(engine, 4)

    async def scenario() -> tuple[dict[int, int], dict[int, int], int, list[dict[int, int]]]:
        writer = Writer(engine)
        writer.start()
        reader = BatchedReader(writer, accounts.games_players, dict)
        before = await reader.get("g1")
        carol = await writer.transact(lambda conn: accounts.insert_account(conn, "carol", None))
        assert carol is not None
        assert (
            await writer.transact(lambda conn: accounts.adopt_seats(conn, carol.id, ["t1-g1"])) == 1
        )  # a guest signs in
        after = await reader.get("g1")
        leaving = asyncio.create_task(reader.get("g2"))
        staying = [asyncio.create_task(reader.get(game_id)) for game_id in game_ids]
        await asyncio.sleep(0)  # the requests are made and the read is under way
        leaving.cancel()
        answers = await asyncio.gather(*staying)
        await writer.close()
        return before, after, carol.id, answers

    before, after, carol, answers = asyncio.run(scenario())
    assert before == {} and after == {1: carol}
    with engine.connect() as conn:
        assert answers == [accounts.game_players(conn, game_id) for game_id in game_ids]


def test_the_actions_stored_of_many_games_at_once(tmp_path: Path) -> None:
    """A clustered instance looks how many actions each game entering memory has stored: a
    thousand games entering at once are answered by a few reads, each game as a count of its own."""
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    game_ids = [f"g{i}" for i in range(MAX_BATCH + 40)]
    with engine.begin() as conn:
        for i, game_id in enumerate(game_ids):
            store.insert_game(conn, stored_game(game_id, seat_tokens=["t0-" + game_id, "t1-" + game_id]))
            rows = [
                ActionRow(game_id, seq, seq % 2, "p", (), "playing", None, "2026-12-03T00:00:00Z")
                for seq in range(i % 4)
            ]
            if rows:
                store.insert_actions(conn, rows)
    selects = _count_selects(engine, "actions")

    async def scenario() -> tuple[list[int], int]:
        writer = Writer(engine)
        writer.start()
        reader = BatchedReader(writer, store.stored_versions, int)
        answers = await asyncio.gather(*(reader.get(game_id) for game_id in [*game_ids, "unknown"]))
        reads = len(selects)
        row = ActionRow("g0", 0, 0, "p", (), "playing", None, "2026-12-03T00:00:01Z")
        await writer.transact(lambda conn: store.insert_actions(conn, [row]))
        answers.append(await reader.get("g0"))  # a later request sees what was stored since
        await writer.close()
        return answers, reads

    answers, reads = asyncio.run(scenario())
    assert answers == [i % 4 for i in range(len(game_ids))] + [0, 1]
    assert reads == 2  # 541 games: MAX_BATCH, then the other 41
