"""Which games a rename reloads (``chat_sanctions.showing``), on a real SQLite database: the games
the account plays now, and its finished games among those the instance holds, looked for a few
hundred held ids a query, so every held one is found however many are held."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import insert

from kahuna.server.db import schema, store
from kahuna.server.db.migrations import migrate
from kahuna.server.moderation.chat_sanctions import HELD_PER_QUERY, showing

RENAMED, OTHER = 7, 8


def _game(game_id: str, status: str, accounts: tuple[int, int]) -> tuple[dict[str, object], dict[str, object]]:
    stamp = "2026-01-02T00:00:00Z"
    row: dict[str, object] = {
        "id": game_id,
        "created": stamp,
        "updated": stamp,
        "variant": "[]",
        "deal": "d",
        "kind0": "human",
        "kind1": "human",
        "status": status,
    }
    return row, {"game_id": game_id, "account0": accounts[0], "account1": accounts[1], "rated": False}


def test_every_held_finished_game_of_the_account_is_found_past_the_first_query(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    migrate(engine)
    finished = [f"over{n:04d}" for n in range(2 * HELD_PER_QUERY + 100)]
    others = [f"else{n:04d}" for n in range(50)]
    rows = [
        _game(game_id, "over", (RENAMED, OTHER) if n % 2 else (OTHER, RENAMED)) for n, game_id in enumerate(finished)
    ]
    rows += [_game(game_id, "over", (OTHER, OTHER)) for game_id in others]
    rows += [_game("playing1", "playing", (RENAMED, OTHER)), _game("playing2", "playing", (OTHER, OTHER))]
    with engine.begin() as conn:
        conn.execute(insert(schema.games), [game for game, _ in rows])
        conn.execute(insert(schema.game_accounts), [seats for _, seats in rows])
    held = set(finished[::2]) | set(others) | {"playing2"}  # more ids than one query takes
    with engine.connect() as conn:
        found = showing(conn, RENAMED, held)
    assert len(held) > HELD_PER_QUERY
    assert sorted(found) == sorted(["playing1", *finished[::2]])
