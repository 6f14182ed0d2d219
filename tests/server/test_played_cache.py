"""The cache of players' scanned games behind profiles and games lists (issue 45, point 5): read
again without a scan while the player's games are as they were, scanned again once one starts or
ends. On a real SQLite file, through the store's own writes."""

from __future__ import annotations

from pathlib import Path

from stored_games import stored_game

from kahuna.server.accounts import store as accounts
from kahuna.server.community.player_games import PlayedCache
from kahuna.server.db import store

RESIGNED = {"reason": "resigned", "seat": 1}


def test_a_scan_is_kept_until_a_game_of_the_player_starts_or_ends(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with engine.begin() as conn:
        ana = accounts.insert_account(conn, "Ana", None)
        bo = accounts.insert_account(conn, "Bo", None)
        assert ana is not None and bo is not None
        store.insert_game(conn, stored_game("first"))
        store.insert_game_accounts(conn, "first", (ana.id, bo.id), False, None)
        store.end_game(conn, "first", {"winner": 0}, RESIGNED, "2026-01-01T00:00:00Z", None)
    cache = PlayedCache(size=1)
    with engine.connect() as conn:
        first = cache.played(conn, ana.id)
        assert cache.played(conn, ana.id) is first  # unchanged: the kept scan
    with engine.begin() as conn:
        store.insert_game(conn, stored_game("second"))
        store.insert_game_accounts(conn, "second", (bo.id, ana.id), False, None)
    with engine.connect() as conn:
        started = cache.played(conn, ana.id)
    assert [(g.game_id, g.result) for g in started] == [("second", None), ("first", "win")]
    with engine.begin() as conn:
        store.end_game(conn, "second", {"winner": 1}, RESIGNED, "2026-01-02T00:00:00Z", None)
    with engine.connect() as conn:
        ended = cache.played(conn, ana.id)
        assert [(g.game_id, g.result) for g in ended] == [("second", "win"), ("first", "win")]
        assert cache.played(conn, bo.id) is not cache.played(conn, ana.id)  # one player kept (size 1)
