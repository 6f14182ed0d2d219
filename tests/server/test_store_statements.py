"""The statements of the writer's hot path that are built once (``store.save_clock``, the lock of a
group commit) write and check what a statement built for each call did: the parameters of one call
never leak into the next, and each touches only its own game."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from stored_games import stored_game

from kahuna.server.db import store
from kahuna.server.db.store import StoredGame
from kahuna.server.db.writer import Conflict, lock_unfinished


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


@pytest.mark.parametrize("exclusive", [False, True])
def test_the_lock_of_a_commit_refuses_exactly_the_batches_with_a_game_over(tmp_path: Path, exclusive: bool) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with engine.begin() as conn:
        store.insert_game(conn, _game("g1"))
        store.insert_game(conn, _game("g2"))
        store.insert_game(conn, replace(_game("g3"), status="over"))
    with engine.begin() as conn:
        lock_unfinished(conn, ["g1", "g2", "g1"], exclusive=exclusive)  # two actions of g1 in one batch
        with pytest.raises(Conflict):
            lock_unfinished(conn, ["g1", "g3"], exclusive=exclusive)
        with pytest.raises(Conflict):
            lock_unfinished(conn, ["g4"], exclusive=exclusive)  # a game that is not stored
        lock_unfinished(conn, ["g2"], exclusive=exclusive)
