"""Finding people and games (issue 29) on PostgreSQL: the live list, the search and the export
run the same queries as on SQLite (``tests/server/test_social.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scale_harness import pg_url
from server_harness import Server
from test_social import check_live_games, found, jsonl

from kahuna.rules.record import GameRecord

__all__ = ["pg_url"]

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def test_live_games_search_and_export_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    server = Server(tmp_path)
    server.db = pg_url
    server.start()
    try:
        ids = check_live_games(server)
        assert found(server, "LIVE") == ["livea", "liveb", "livec"]
        assert found(server, "1ive_") == []  # "1" reads as "l"; "_" is no wildcard on PostgreSQL either
        assert found(server, "1iveb") == ["liveb"]
        records = jsonl(server, "livea")
        assert [record["meta"]["game_id"] for record in records] == [ids["over"]]
        summary = server.get(f"/api/games/{ids['over']}").json()
        replayed = GameRecord.from_json(records[0]).replay()
        assert replayed.outcome is not None and replayed.outcome.to_json() == summary["result"]
    finally:
        server.stop()
