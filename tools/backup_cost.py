"""The time and size of ``kahuna admin backup`` (and ``restore``) for a database of N finished games.

Fills a new database (a throwaway SQLite file, or the empty PostgreSQL database given with
``--db``) with ``--games`` finished games through the store (``store.insert_game`` and
``store.insert_actions``, as the server writes them, without playing): random games to their end
by the referee, ``--templates`` of them, each inserted again under new ids. Then runs ``kahuna
admin backup`` and ``kahuna admin restore`` (into ``--restore-db``, or a new SQLite file) as a user
would and prints their wall time and the backup's size.

    python tools/backup_cost.py --games 10000
    python tools/backup_cost.py --games 10000 --db postgresql://postgres@127.0.0.1:5432/EMPTY \\
        --restore-db postgresql://postgres@127.0.0.1:5432/EMPTY2
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kahuna.rules import GameState
from kahuna.server.db import store
from kahuna.server.db.store import ActionRow, StoredGame, open_engine


@dataclass(frozen=True)
class Template:
    deal: str
    seats: list[int]
    tokens: list[str]
    reshuffles: list[str]
    result: dict[str, object]


def random_game(rng: random.Random) -> Template:
    """A game played to its end by random legal actions."""
    state = GameState.new(rng)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    assert state.deal is not None and state.outcome is not None
    return Template(
        state.deal,
        [seat for seat, _ in state.history],
        [action.token for _, action in state.history],
        list(state.reshuffles),
        state.outcome.to_json(),
    )


def fill(url: str, games: int, templates: int, seed: int) -> int:
    """Insert ``games`` finished games; the number of actions inserted."""
    rng = random.Random(seed)
    made = [random_game(rng) for _ in range(templates)]
    engine = open_engine(url)
    actions = 0
    stamp = "2026-01-01T00:00:00Z"
    for start in range(0, games, 500):
        with engine.begin() as conn:
            rows: list[ActionRow] = []
            for g in range(start, min(games, start + 500)):
                t = made[g % templates]
                game_id = f"bk{g:08d}"
                store.insert_game(
                    conn,
                    StoredGame(game_id, stamp, stamp, {}, t.deal, ["human", "human"], ["A", "B"], None,
                               [None, None], "playing", [], []),
                )  # fmt: skip
                drawn = 0
                for seq, (seat, token) in enumerate(zip(t.seats, t.tokens, strict=True)):
                    last = seq == len(t.tokens) - 1
                    # the reshuffle orders go with the first actions, as many as the game drew
                    new = ((drawn, t.reshuffles[drawn]),) if drawn < len(t.reshuffles) else ()
                    drawn += len(new)
                    rows.append(
                        ActionRow(game_id, seq, seat, token, new, "over" if last else "playing",
                                  t.result if last else None, stamp)
                    )  # fmt: skip
            store.insert_actions(conn, rows)
            actions += len(rows)
    engine.dispose()
    return actions


def timed(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kahuna", "admin", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--templates", type=int, default=50, help="distinct random games (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", metavar="URL", help="an empty database to fill (default: a new SQLite file)")
    parser.add_argument("--restore-db", metavar="URL", help="an empty database to restore into (default: SQLite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{Path(tmp) / 'games.db'}"
        start = time.perf_counter()
        actions = fill(db, args.games, args.templates, args.seed)
        filled = time.perf_counter() - start
        backup = Path(tmp) / "games.backup"
        took = timed("backup", str(backup), "--db", db)
        size = backup.stat().st_size
        restored = timed("restore", str(backup), "--db", args.restore_db or f"sqlite:///{Path(tmp) / 'restored.db'}")
        print(f"{args.games:,} finished games, {actions:,} actions (filled in {filled:.1f} s)")
        print(
            f"backup: {took:.1f} s, {size:,} bytes ({size / args.games:,.0f} bytes a game); restore: {restored:.1f} s"
        )


if __name__ == "__main__":
    main()
