"""Guests' aborted and abandoned games are deleted after the age (``db/guests.py``); games with an
account, guests' games that ended normally, timed games and recent games are kept."""

from __future__ import annotations

import json
from pathlib import Path

from finished_games import rows_of, write_finished
from sqlalchemy import Connection, Engine, update
from stored_games import stored_game
from test_archive import admin_archive

from kahuna.server.accounts.store import insert_account
from kahuna.server.db import guests, schema, store

CUT = "2026-02-01T00:00:00Z"
ABORT = {"winner": None, "reason": "aborted", "termination": {"reason": "aborted", "seat": 0}}


def _abort(conn: Connection, game_id: str, at: str) -> None:
    conn.execute(update(schema.games).where(schema.games.c.id == game_id).values(result=json.dumps(ABORT)))
    conn.execute(update(schema.games).where(schema.games.c.id == game_id).values(updated=at))


def seed(engine: Engine) -> None:
    """Guests' games to delete (``gone-*``) and games to keep (``kept-*``)."""
    with engine.begin() as conn:
        alice = insert_account(conn, "alice", None)
        assert alice is not None
        write_finished(conn, "gone-aborted", seed=1)
        _abort(conn, "gone-aborted", "2026-01-03T00:00:00Z")
        store.insert_game(conn, stored_game("gone-abandoned", "ABCDEFGHIJKLABCDEFGHIJKL", status="waiting"))
        write_finished(conn, "kept-finished-guest", seed=2)  # ended normally: archived, not deleted
        write_finished(conn, "kept-account", seed=3, accounts=(alice.id, None))
        _abort(conn, "kept-account", "2026-01-03T00:00:00Z")
        write_finished(conn, "kept-recent", seed=4, day=2)
        _abort(conn, "kept-recent", "2026-02-05T00:00:00Z")
        timed = stored_game("kept-timed", "ABCDEFGHIJKLABCDEFGHIJKL", clock={
            "control": {"initial": 300, "increment": 5}, "remaining": [300.0, 300.0], "running": None,
            "since": None, "starts_by": 1_767_225_600.0})  # fmt: skip
        store.insert_game(conn, timed)
        store.insert_game(conn, stored_game("kept-touched", "ABCDEFGHIJKLABCDEFGHIJKL"))  # an action after the cut
        row = store.ActionRow("kept-touched", 0, 0, "dA", (), "playing", None, "2026-02-02T00:00:00Z")
        store.insert_actions(conn, [row])


def remaining(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(conn.execute(schema.games.select().with_only_columns(schema.games.c.id)).scalars())


def check_deletes_only_guests_old_aborted_and_abandoned_games(engine: Engine) -> None:
    seed(engine)
    with engine.begin() as conn:
        due = guests.due(conn, CUT)
        assert sorted(due) == ["gone-abandoned", "gone-aborted"]
        assert guests.delete_games(conn, due, CUT) == 2
    assert remaining(engine) == {"kept-finished-guest", "kept-account", "kept-recent", "kept-timed", "kept-touched"}
    with engine.connect() as conn:
        for table in ("seats", "actions", "reshuffles", "clocks", "chat"):
            assert rows_of(conn, table, ["gone-aborted", "gone-abandoned"]) == 0, table
        assert guests.due(conn, CUT) == []


def test_guests_old_aborted_and_abandoned_games_are_deleted(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    check_deletes_only_guests_old_aborted_and_abandoned_games(engine)
    engine.dispose()


def test_the_admin_command_deletes_them_before_archiving(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'k.db'}"
    engine = store.open_engine(db)
    seed(engine)
    out = admin_archive(db, "--older-than", "0", "--delete-guest-games-after", "0")
    assert out.startswith("kahuna admin archive: archived 2 finished games, deleted 4 guests' games in "), out
    assert remaining(engine) == {"kept-finished-guest", "kept-account", "kept-timed"}
    engine.dispose()
