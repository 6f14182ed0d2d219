"""The statements of the writer's hot path that are built once (``store.save_clock``, the lock of a
last action, a group commit's rows on PostgreSQL) write and check what a statement built for each
call did: the parameters of one call never leak into the next, and each touches only its own games."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from scale_harness import pg_url
from sqlalchemy import select
from stored_games import stored_game

from kahuna.server.db import store
from kahuna.server.db.schema import actions, reshuffles
from kahuna.server.db.store import ActionRow, StoredGame
from kahuna.server.db.writer import Conflict, insert_unfinished, lock_unfinished

__all__ = ["pg_url"]


def _game(game_id: str, status: str = "playing") -> StoredGame:
    clock = {"control": {"minutes": 5}, "remaining": [300.0, 300.0], "running": None, "since": None, "starts_by": 99.0}
    return stored_game(game_id, status=status, clock=clock)


def test_a_saved_clock_is_the_games_own_and_the_next_save_replaces_it(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with engine.begin() as conn:
        for game_id in ("g1", "g2"):
            store.insert_game(conn, _game(game_id))
    first = {"control": {"minutes": 5}, "remaining": [290.5, 300.0], "running": 1, "since": 1000.25, "starts_by": None}
    second = {**first, "remaining": [290.5, 281.0], "running": 0, "since": 1019.5}
    with engine.begin() as conn:
        store.save_clock(conn, "g1", first)
    with engine.begin() as conn:
        assert (loaded := store.load_game(conn, "g1")) is not None and loaded.clock == first
        store.save_clock(conn, "g1", second)
    with engine.connect() as conn:
        one, two = store.load_game(conn, "g1"), store.load_game(conn, "g2")
    assert one is not None and one.clock == second
    assert two is not None and two.clock == _game("g2").clock


def test_the_lock_of_a_last_action_refuses_exactly_the_games_over(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with engine.begin() as conn:
        store.insert_game(conn, _game("g1"))
        store.insert_game(conn, _game("g2"))
        store.insert_game(conn, replace(_game("g3"), status="over"))
    with engine.begin() as conn:
        lock_unfinished(conn, ["g1", "g2", "g1"])
        with pytest.raises(Conflict):
            lock_unfinished(conn, ["g1", "g3"])
        with pytest.raises(Conflict):
            lock_unfinished(conn, ["g4"])  # a game that is not stored
        lock_unfinished(conn, ["g2"])


def _row(game_id: str, seq: int, reshuffles: tuple[tuple[int, str], ...] = ()) -> ActionRow:
    return ActionRow(game_id, seq, seq % 2, "dA", reshuffles, "playing", None, f"2026-01-01T00:00:0{seq}Z")


@pytest.mark.pg
def test_a_group_commit_of_several_instances_stores_exactly_the_batches_without_a_game_over(pg_url: str) -> None:
    """``insert_unfinished`` (PostgreSQL): a batch is stored whole, with what its rows bring along,
    or, if one of its games is over or not stored, not at all."""
    engine = store.open_engine(pg_url)
    try:
        with engine.begin() as conn:
            for game_id in ("g1", "g2"):
                store.insert_game(conn, _game(game_id))
            store.insert_game(conn, replace(_game("g3"), status="over"))
        with engine.begin() as conn:  # two actions of g1 in one batch, one of them drawing a reshuffle
            insert_unfinished(conn, [_row("g1", 0), _row("g2", 0), _row("g1", 1, ((0, "ABC"),))])
        for batch in ([_row("g2", 1), _row("g3", 0)], [_row("g2", 1), _row("g4", 0)]):  # g4 is not stored
            with pytest.raises(Conflict), engine.begin() as conn:
                insert_unfinished(conn, batch)
        with engine.connect() as conn:
            columns = (actions.c.game_id, actions.c.seq, actions.c.seat, actions.c.token, actions.c.at)
            stored = conn.execute(select(*columns).order_by(actions.c.game_id, actions.c.seq)).all()
            drawn = conn.execute(select(reshuffles.c.game_id, reshuffles.c.idx, reshuffles.c.cards)).all()
        assert [tuple(r) for r in stored] == [
            ("g1", 0, 0, "dA", "2026-01-01T00:00:00Z"),
            ("g1", 1, 1, "dA", "2026-01-01T00:00:01Z"),
            ("g2", 0, 0, "dA", "2026-01-01T00:00:00Z"),
        ]
        assert [tuple(r) for r in drawn] == [("g1", 0, "ABC")]
    finally:
        engine.dispose()
