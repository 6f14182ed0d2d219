"""The races between instances, decided by PostgreSQL: an action and an end of the same game
committed at the same moment from two connections — exactly one of them is stored, in either order."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from scale_harness import pg_url
from server_harness import wait_for
from sqlalchemy import Connection, Engine, func, select, text
from stored_games import stored_game

from kahuna.server.db import schema, store
from kahuna.server.db.claims import claim_end
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Conflict, insert_unfinished

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg

DEAL = "ABCDEFGHIJKLABCDEFGHIJKL"


def _new_game(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:
        store.insert_game(conn, stored_game(game_id, DEAL))


def _act(conn: Connection, game_id: str) -> None:
    insert_unfinished(conn, [ActionRow(game_id, 0, 0, "dA", (), "playing", None, "2026-01-01T00:00:01Z")])


def _end(conn: Connection, game_id: str) -> None:
    claim_end(conn, game_id, 0)
    store.end_game(conn, game_id, {"winner": 1}, {"reason": "resign", "seat": 0}, "2026-01-01T00:00:01Z", None)


def _race(engine: Engine, game_id: str, first: Callable[[Connection, str], None], second: Callable[..., None]) -> str:
    """Run ``first`` in a transaction left open, start ``second`` in another thread (it must wait
    for the first's row lock), commit the first; what became of the second."""
    outcome: list[str] = []

    def run_second() -> None:
        try:
            with engine.begin() as conn:
                second(conn, game_id)
            outcome.append("stored")
        except Conflict:
            outcome.append("conflict")

    with engine.begin() as conn:
        first(conn, game_id)
        holder = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        thread = threading.Thread(target=run_second)
        thread.start()
        wait_for(lambda: _blocked_by(engine, holder), "the second transaction to wait for the first's lock")
        assert thread.is_alive() and not outcome
    thread.join(10)
    return outcome[0]


def _blocked_by(engine: Engine, holder: int) -> bool:
    """Whether a session of PostgreSQL waits for a lock that the session ``holder`` holds."""
    with engine.connect() as conn:
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE :holder = ANY(pg_blocking_pids(pid))"
        return bool(conn.execute(text(waiting), {"holder": holder}).scalar_one())


def test_an_action_and_an_end_at_the_same_moment_cannot_both_be_stored(pg_url: str) -> None:
    engine = store.open_engine(pg_url)
    try:
        _new_game(engine, "action-first")
        assert _race(engine, "action-first", _act, _end) == "conflict"  # the end saw the action
        _new_game(engine, "end-first")
        assert _race(engine, "end-first", _end, _act) == "conflict"  # the action saw the game over
        with engine.connect() as conn:
            by_game = select(schema.actions.c.game_id, func.count()).group_by(schema.actions.c.game_id)
            stored: dict[str, int] = {game_id: n for game_id, n in conn.execute(by_game)}
            statuses = select(schema.games.c.id, schema.games.c.status)
            status: dict[str, str] = {game_id: s for game_id, s in conn.execute(statuses)}
        assert stored == {"action-first": 1}
        assert status == {"action-first": "playing", "end-first": "over"}
    finally:
        engine.dispose()
