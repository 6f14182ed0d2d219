"""Calibrate the fair-play threshold without a server: games of known honesty screened in this
process, then accounts drawn from them (docs/fair-play.md).

``python tools/fair_play_calibrate.py --games G --seed S --out FILE`` plays G games in this process
between kinds of ``kahuna.bench.cheaters`` drawn at random (any two kinds, each pair as likely),
screens each with the server's judge (``kahuna.ai.review.screening.screen_game``, the same code and
budget as the server) and appends one JSON line per player and game to FILE (its kind, its
``figures``, the screening's CPU-seconds).

``python tools/fair_play_calibrate.py --from FILE --accounts A --match M --z Z`` then makes A
accounts of each kind, each a sequence of that kind's screened games drawn with replacement
(200 games for an honest kind, 30 for a cheating one), applies the server's rule after every game
(``fairplay/figures.py``: from the ``--min-games``-th game on, the last 40 games, the lower end of
the match rate's interval at Z standard errors against M) and prints the share of accounts
flagged, by kind, and when. A bootstrap: as good as the games it draws from, which is why the
thresholds are chosen on one seed's games and checked on another's, and on the real server
(``tools/fair_play_trial.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from kahuna.ai.eval.match import play_game
from kahuna.ai.review.screening import screen_game
from kahuna.bench.cheaters import HONEST, KINDS, player
from kahuna.rules import GameState
from kahuna.server.fairplay.figures import wilson

WINDOW = 40


def play(games: int, seed: int, out: str) -> None:
    rng = random.Random(seed)
    pairs = [(a, b) for a in KINDS for b in KINDS if a <= b]
    with open(out, "a") as sink:
        for index in range(games):
            kinds = rng.choice(pairs)
            rngs = (random.Random(f"{seed}:{index}:0"), random.Random(f"{seed}:{index}:1"))
            deal = GameState.new(random.Random(f"{seed}:{index}:deal"))
            result = play_game((player(kinds[0]), player(kinds[1])), deal, rngs, keep_record=True)
            assert result.record is not None
            start = time.process_time()
            by_seat, _ = screen_game(json.loads(result.record), None, seed * 100_000 + index)
            cpu = time.process_time() - start
            for seat in (0, 1):
                line = {"kind": kinds[seat], "seed": seed, "game": index, "figures": by_seat[str(seat)], "cpu": cpu}
                sink.write(json.dumps(line) + "\n")
            sink.flush()


def first_flag(games: list[tuple[int, int]], match: float, z: float, min_games: int) -> int | None:
    """After how many games the server's rule would report an account playing ``games``."""
    for end in range(min_games, len(games) + 1):
        window = games[max(0, end - WINDOW) : end]
        choices, matched = sum(c for c, _ in window), sum(m for _, m in window)
        if choices and wilson(matched, choices, z)[0] >= match:
            return end
    return None


def bootstrap(path: str, accounts: int, match: float, z: float, min_games: int, seed: int) -> dict[str, Any]:
    pool: dict[str, list[tuple[int, int]]] = defaultdict(list)
    cpu = []
    with open(path) as source:
        for line in source:
            row = json.loads(line)
            pool[row["kind"]].append((row["figures"]["choices"], row["figures"]["matched"]))
            cpu.append(row["cpu"])
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for kind in KINDS:
        games = pool[kind]
        length = 200 if kind in HONEST else 30
        flags = [first_flag([rng.choice(games) for _ in range(length)], match, z, min_games) for _ in range(accounts)]
        flagged = sorted(f for f in flags if f is not None)
        choices, matched = sum(c for c, _ in games), sum(m for _, m in games)
        out[kind] = {
            "screened_games": len(games),
            "match_rate": round(matched / choices, 4) if choices else None,
            "accounts": accounts,
            "games_each": length,
            "flagged": len(flagged),
            "median_games_to_flag": statistics.median(flagged) if flagged else None,
            "max_games_to_flag": flagged[-1] if flagged else None,
        }
    ordered = sorted(cpu)
    return {"kinds": out, "cpu_median": statistics.median(ordered), "cpu_p99": ordered[int(0.99 * (len(ordered) - 1))]}


def main() -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="play and screen games into this file")
    p.add_argument("--from", dest="source", help="draw accounts from this file's screened games")
    p.add_argument("--accounts", type=int, default=400)
    p.add_argument("--match", type=float, default=0.38)
    p.add_argument("--z", type=float, default=3.0)
    p.add_argument("--min-games", type=int, default=3)
    args = p.parse_args()
    if args.out:
        play(args.games, args.seed, args.out)
    if args.source:
        print(json.dumps(bootstrap(args.source, args.accounts, args.match, args.z, args.min_games, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
