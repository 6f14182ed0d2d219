"""The cost of ``GET /api/games/live``'s query at N running lobby games (issue 29's closing note).

Fills a throwaway SQLite file (the schema of the migrations) with ``--games`` running lobby games
between ``2 × games`` accounts with ratings, each with a clock and ``--actions`` stored actions,
plus as many finished games, and ``--others`` running games not made in the lobby (by invite link:
no ``game_accounts`` row; every other one unlisted), then times ``live_games(conn, limit)``
``--runs`` times.

    python tools/live_games_cost.py --games 1000 --others 1000 --limit 50 --runs 30
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from kahuna.server.community.live_games import live_games
from kahuna.server.db import schema
from kahuna.server.db.migrations import migrate
from kahuna.server.db.store import open_engine

CONTROL = json.dumps({"initial": 300, "increment": 3})


def fill(url: str, games: int, actions: int, seed: int, others: int = 0) -> None:
    rng = random.Random(seed)
    engine = open_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        people = [
            {
                "id": i + 1,
                "username": f"p{i}",
                "username_key": f"p{i}",
                "created": "2026-01-01T00:00:00Z",
                "is_bot": False,
            }
            for i in range(2 * games)
        ]
        conn.execute(schema.accounts.insert(), people)
        conn.execute(
            schema.ratings.insert(),
            [
                {"account_id": p["id"], "pool": "realtime", "rating": rng.uniform(900, 2200), "deviation": 80.0,
                 "volatility": 0.06, "games": 30}
                for p in people
            ],
        )  # fmt: skip
        for status in ("playing", "over"):
            for g in range(games):
                game_id = f"{status[0]}{g:07d}"
                stamp = f"2026-01-01T00:{g // 60 % 60:02d}:{g % 60:02d}Z"
                conn.execute(
                    schema.games.insert().values(
                        id=game_id, created=stamp, updated=stamp, variant="{}", deal="A" * 24, kind0="human",
                        kind1="human", name0=f"p{2 * g}", name1=f"p{2 * g + 1}", status=status,
                    )
                )  # fmt: skip
                conn.execute(
                    schema.game_accounts.insert().values(
                        game_id=game_id, account0=2 * g + 1, account1=2 * g + 2, rated=rng.random() < 0.7,
                        pool="realtime",
                    )
                )  # fmt: skip
                conn.execute(
                    schema.clocks.insert().values(
                        game_id=game_id, control=CONTROL, remaining0=200.0, remaining1=180.0, running=g % 2,
                        since=time.time(),
                    )
                )  # fmt: skip
                conn.execute(
                    schema.actions.insert(),
                    [
                        {"game_id": game_id, "seq": s, "seat": s % 2, "token": "end", "at": stamp}
                        for s in range(actions)
                    ],
                )
        for g in range(others):
            game_id = f"x{g:07d}"
            stamp = f"2026-01-01T01:{g // 60 % 60:02d}:{g % 60:02d}Z"
            conn.execute(
                schema.games.insert().values(
                    id=game_id, created=stamp, updated=stamp, variant="{}", deal="A" * 24, kind0="human",
                    kind1="human", name0="host", name1="friend", status="playing", unlisted=g % 2 == 0,
                )
            )  # fmt: skip
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=60)
    parser.add_argument("--others", type=int, default=0)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'live.db'}"
        fill(url, args.games, args.actions, args.seed, args.others)
        engine = open_engine(url)
        times = []
        with engine.connect() as conn:
            for _ in range(args.runs):
                start = time.perf_counter()
                listed = live_games(conn, args.limit)
                times.append(time.perf_counter() - start)
        engine.dispose()
    assert len(listed) == min(args.limit, args.games + args.others // 2)
    print(
        json.dumps(
            {
                "games": args.games,
                "others": args.others,
                "limit": args.limit,
                "runs": args.runs,
                "median_ms": round(statistics.median(times) * 1000, 2),
                "max_ms": round(max(times) * 1000, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
