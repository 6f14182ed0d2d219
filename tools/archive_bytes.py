"""The bytes a finished game costs on PostgreSQL before and after ``kahuna admin archive`` (issue 50).

Fills the empty PostgreSQL database given with ``--db`` with ``--games`` finished lobby games as
the server stores them (through ``db/store.py``): each played to its end by two greedy AIs
(``kahuna.ai.agents.greedy``, about 120 actions a game), between two of 50 accounts (seats with
their token digests and accounts, a ``game_accounts`` row, two ``rating_history`` rows), a 5+3
clock rewritten after every action, 0 to 3 chat lines. Then ``VACUUM FULL`` and the sum of
``pg_total_relation_size`` (rows, indexes, TOAST) of every table a game has rows in, divided by the
number of games; then ``kahuna admin archive --older-than 0`` as a user runs it, ``VACUUM FULL``
and the same sum again.

    createdb -h 127.0.0.1 -U postgres kahuna_bytes
    python tools/archive_bytes.py --db postgresql://postgres@127.0.0.1:5432/kahuna_bytes --games 1000
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import Connection, Engine, text

from kahuna.ai.agents.greedy import GreedyAgent
from kahuna.rules import GameState, view_of
from kahuna.server.common.tokens import digest
from kahuna.server.db import schema, store

ACCOUNTS = 50
GAME_TABLES = (
    "games", "seats", "actions", "reshuffles", "clocks", "chat", "rematches", "analyses", "game_accounts",
    "rating_history", "seat_seen", "tournament_games",
)  # fmt: skip
"""Every table that holds rows of a game (an archived game's record is in its ``games`` row since
migration 0019; before, in ``archived_games``, which is counted when it exists)."""
DAY = 86_400


def play(seed: int) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(rng)
    agent = GreedyAgent()
    while not state.is_over:
        state.apply(agent.choose(view_of(state, state.to_move), rng))
    return state


def stamp(epoch: float) -> str:
    return store.iso(epoch)


def write_game(conn: Connection, number: int, state: GameState, rng: random.Random) -> None:
    game_id = f"g{number:07d}"
    start = 1_767_225_600.0 + number * 600  # from 1 January 2026, one every ten minutes
    accounts = rng.sample(range(1, ACCOUNTS + 1), 2)
    control = {"initial": 300, "increment": 3}
    clock = {"control": control, "remaining": [300.0, 300.0], "running": None, "since": None, "starts_by": None}
    tokens: list[str | None] = [digest(f"{game_id}/{seat}/{rng.random()}") for seat in (0, 1)]
    stored = store.StoredGame(
        game_id, stamp(start), stamp(start), state.variant.to_json(), state.deal or "", ["human", "human"],
        [f"p{accounts[0]}", f"p{accounts[1]}"], None, tokens, "playing", [], [], clock=clock,
    )  # fmt: skip
    store.insert_game(conn, stored)
    store.bind_seat_accounts(conn, game_id, accounts)
    store.insert_game_accounts(conn, game_id, (accounts[0], accounts[1]), rated=True, pool="realtime")
    history = list(state.history)
    rows = []
    remaining = [300.0, 300.0]
    for seq, (seat, action) in enumerate(history):
        last = seq == len(history) - 1
        moment = start + 4 * seq + rng.random() * 3
        remaining[seat] = round(remaining[seat] - rng.random() * 4 + 1.5, 3)
        running = None if last else 1 - seat
        after = {**clock, "remaining": list(remaining), "running": running, "since": None if last else moment}
        reshuffled = tuple(enumerate(state.reshuffles)) if last else ()
        result = state.outcome.to_json() if last and state.outcome is not None else None
        rows.append(
            store.ActionRow(game_id, seq, seat, action.token, reshuffled, "over" if last else "playing", result,
                            stamp(moment), after)
        )  # fmt: skip
    store.insert_actions(conn, rows)
    for seq in range(rng.randrange(4)):
        line = {"room": "players", "seat": seq % 2, "text": rng.choice(["gg", "hi!", "good luck", "well played"]),
                "at": stamp(start + 30 * seq)}  # fmt: skip
        store.insert_chat(conn, game_id, seq, line)
    for seat, account in enumerate(accounts):
        before = 1500 + rng.uniform(-200, 200)
        conn.execute(
            schema.rating_history.insert().values(
                account_id=account, pool="realtime", game_id=game_id, before=before,
                after=before + (-1) ** seat * 8.5, deviation=80.0, at=stamp(start + 4 * len(history)),
            )
        )  # fmt: skip


def fill(engine: Engine, games: int, seed: int) -> None:
    rng = random.Random(seed)
    with engine.begin() as conn:
        for account in range(1, ACCOUNTS + 1):
            conn.execute(
                schema.accounts.insert().values(
                    id=account, username=f"p{account}", username_key=f"p{account}", created=stamp(1.7e9), is_bot=False
                )
            )
    for number in range(games):
        state = play(seed * 1_000_003 + number)
        with engine.begin() as conn:
            write_game(conn, number, state, rng)


def measure(engine: Engine) -> dict[str, int]:
    """Each game table's size (rows, indexes, TOAST) after ``VACUUM FULL``."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM FULL ANALYZE"))
        tables = [
            *GAME_TABLES,
            *conn.execute(text("SELECT 'archived_games' WHERE to_regclass('archived_games') IS NOT NULL")).scalars(),
        ]
        return {
            table: int(conn.execute(text("SELECT pg_total_relation_size(:t)"), {"t": table}).scalar() or 0)
            for table in tables
        }


def show(label: str, sizes: dict[str, int], games: int) -> int:
    total = sum(sizes.values())
    parts = ", ".join(f"{table} {size:,}" for table, size in sizes.items() if size)
    print(f"{label}: {total:,} bytes, {total / games:,.0f} bytes a game ({parts})")
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--db", required=True, metavar="URL", help="an empty PostgreSQL database")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    engine = store.open_engine(args.db)
    began = time.perf_counter()
    fill(engine, args.games, args.seed)
    with engine.connect() as conn:
        actions = int(conn.execute(text("SELECT count(*) FROM actions")).scalar() or 0)
    print(f"{args.games:,} finished games, {actions / args.games:.1f} actions a game, "
          f"written in {time.perf_counter() - began:.0f} s")  # fmt: skip
    before = show("before", measure(engine), args.games)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kahuna", "admin", "archive", "--older-than", "0", "--db", args.db],
        cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, check=True,
    )  # fmt: skip
    print(done.stdout.strip(), f"(wall {time.perf_counter() - began:.1f} s)")
    after = show("after", measure(engine), args.games)
    print(f"{before / after:.2f} times fewer bytes")
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
