"""``kahuna bench engine``: how fast the referee plays complete random games on one core."""

from __future__ import annotations

import argparse
import json
import random
import time

from kahuna.progress import Progress
from kahuna.rules import GameState


def play_random_games(games: int, seed: int, progress: Progress | None = None) -> tuple[int, float]:
    """Play ``games`` games choosing every action uniformly among the legal ones.

    Returns the number of actions applied and the seconds spent.
    """
    actions = 0
    start = time.perf_counter()
    for game in range(games):
        rng = random.Random(seed * 1_000_003 + game)
        state = GameState.new(rng)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            actions += 1
        if progress is not None:
            progress.advance()
    return actions, time.perf_counter() - start


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "engine",
        help="play N uniformly random complete games and report games/s and actions/s",
        description="Play N complete games in which every action is drawn uniformly from the legal "
        "actions (one core), and report games/s and actions/s.",
    )
    p.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and choices (default 0)")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.games <= 0:
        raise SystemExit("kahuna bench engine: --games must be positive")
    with Progress(args.games, "games") as bar:
        actions, seconds = play_random_games(args.games, args.seed, bar)
    games_per_s = args.games / seconds
    actions_per_s = actions / seconds
    print(f"{args.games} games, {actions} actions in {seconds:.2f} s")
    print(f"{games_per_s:,.0f} games/s, {actions_per_s:,.0f} actions/s, {actions / args.games:.1f} actions/game")
    if args.json:
        print(
            json.dumps(
                {
                    "games": args.games,
                    "seconds": round(seconds, 4),
                    "games_per_s": round(games_per_s, 1),
                    "actions_per_s": round(actions_per_s, 1),
                }
            )
        )
    return 0
