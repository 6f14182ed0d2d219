"""The cost of a profile (``GET /api/users/<name>``: its statistics and recent games) for a player
with N finished rated games (issue 29).

Fills a throwaway SQLite file (the schema of the migrations) with one player's ``--games`` finished
rated lobby games against 50 opponents, each game with both players' rating changes, then times
``profiles.profile`` ``--runs`` times with a scan each time (``median_ms``) and ``--runs`` times
with the scan kept (``kept_median_ms``: the player's games unchanged, ``player_games.PlayedCache``).
The statistics read at most the player's ``player_games.SCAN_LIMIT`` (10,000) newest games, so
beyond that the time stops growing.

    python tools/profile_stats_cost.py --games 10000 --runs 10
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from kahuna.server.accounts.passwords import username_key
from kahuna.server.community.player_games import PlayedCache
from kahuna.server.community.profiles import profile
from kahuna.server.db import schema
from kahuna.server.db.migrations import migrate
from kahuna.server.db.store import open_engine

OPPONENTS = 50


def fill(url: str, games: int, seed: int) -> None:
    rng = random.Random(seed)
    engine = open_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        people = [
            {"id": i + 1, "username": f"p{i}", "username_key": username_key(f"p{i}"), "created": "2026-01-01T00:00:00Z",
             "is_bot": False}
            for i in range(OPPONENTS + 1)
        ]  # fmt: skip
        conn.execute(schema.accounts.insert(), people)
        game_rows, pair_rows, history = [], [], []
        for g in range(games):
            game_id = f"g{g:07d}"
            seat = g % 2
            opponent = 2 + rng.randrange(OPPONENTS)
            winner = rng.choice([0, 1, None])
            stamp = f"2026-01-{1 + g // 86400 % 28:02d}T{g // 3600 % 24:02d}:{g // 60 % 60:02d}:{g % 60:02d}Z"
            result = json.dumps({"winner": winner, "reason": "points"})
            players = (1, opponent) if seat == 0 else (opponent, 1)
            game_rows.append(
                {"id": game_id, "created": stamp, "updated": stamp, "variant": "{}", "deal": "A" * 24,
                 "kind0": "human", "kind1": "human", "name0": f"p{players[0] - 1}", "name1": f"p{players[1] - 1}",
                 "status": "over", "result": result}
            )  # fmt: skip
            pair_rows.append(
                {"game_id": game_id, "account0": players[0], "account1": players[1], "rated": True, "pool": "realtime"}
            )
            for account in players:
                before = rng.uniform(1200, 1900)
                history.append(
                    {"account_id": account, "pool": "realtime", "game_id": game_id, "before": before,
                     "after": before + rng.uniform(-15, 15), "deviation": 60.0, "at": stamp}
                )  # fmt: skip
        conn.execute(schema.games.insert(), game_rows)
        conn.execute(schema.game_accounts.insert(), pair_rows)
        conn.execute(schema.rating_history.insert(), history)
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'profile.db'}"
        fill(url, args.games, args.seed)
        engine = open_engine(url)
        times, kept_times = [], []
        kept = PlayedCache()
        with engine.connect() as conn:
            for _ in range(args.runs):
                start = time.perf_counter()
                found = profile(conn, "p0", (), PlayedCache())
                times.append(time.perf_counter() - start)
            profile(conn, "p0", (), kept)
            for _ in range(args.runs):
                start = time.perf_counter()
                profile(conn, "p0", (), kept)
                kept_times.append(time.perf_counter() - start)
        engine.dispose()
    assert found is not None and found["stats"]["scanned"] == min(args.games, 10_000)
    print(
        json.dumps(
            {
                "games": args.games,
                "runs": args.runs,
                "scanned": found["stats"]["scanned"],
                "median_ms": round(statistics.median(times) * 1000, 1),
                "kept_median_ms": round(statistics.median(kept_times) * 1000, 1),
                "max_ms": round(max(times) * 1000, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
