"""``kahuna bench engine``: how fast each core plays complete random games and searches, on one core.

``--core python`` measures the referee, ``--core fast`` the compiled core (kahuna.fast), ``--core
both`` the two side by side in one run. Both cores play the very same games for the same seed
(the compiled core uses CPython's generator), so the action counts must agree: the output says so.
``--search N`` adds ISMCTS iterations per second, N iterations from each of a fixed set of views;
``--net N`` the same for the network search (:mod:`kahuna.ai.agents.netsearch`, shipped weights) and, on
the compiled core, the CPU time of one network evaluation;
``--vector N`` the steps per second of the vectorised environment (kahuna.envs.vector) with N games,
random legal actions chosen by numpy, observations and masks included.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from kahuna.progress import Progress
from kahuna.rules import GameState, PlayerView, view_of

CHUNK = 500
"""Games per call into the compiled core (the progress bar advances between calls)."""
SEARCH_VIEWS = 8
"""Views the search benchmark searches from (early, middle and late positions of seeded games)."""


def play_random_games(games: int, seed: int, progress: Progress | None = None) -> tuple[int, float]:
    """Play ``games`` games on the referee choosing every action uniformly among the legal ones.

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


def play_random_games_fast(games: int, seed: int, progress: Progress | None = None) -> tuple[int, float]:
    """The same games as :func:`play_random_games`, each played wholly inside the compiled core."""
    from kahuna.fast import core_module

    core = core_module()
    actions = 0
    start = time.perf_counter()
    for first in range(0, games, CHUNK):
        seeds = [seed * 1_000_003 + game for game in range(first, min(games, first + CHUNK))]
        done, _ = core.random_games(seeds, False, False)
        actions += done
        if progress is not None:
            progress.advance(len(seeds))
    return actions, time.perf_counter() - start


def search_views(seed: int) -> list[PlayerView]:
    """Positions to search from: the seat to move after 10, 60 and 110 random actions of seeded games."""
    views: list[PlayerView] = []
    game = 0
    while len(views) < SEARCH_VIEWS:
        rng = random.Random(seed * 7919 + game)
        state = GameState.new(rng)
        stop = (10, 60, 110)[game % 3]
        for _ in range(stop):
            if state.is_over:
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if not state.is_over:
            views.append(view_of(state, state.to_move))
        game += 1
    return views


def search_speed(core: str, iterations: int, seed: int) -> tuple[int, float]:
    """ISMCTS (default settings but ``iterations``) from every view of :func:`search_views`;
    returns the iterations made and the seconds spent."""
    from kahuna.ai.agents.ismcts import SearchConfig
    from kahuna.ai.agents.ismcts import search as python_search

    if core == "fast":
        from kahuna.ai.agents.fast_ismcts import search
    else:
        search = python_search
    config = SearchConfig(iterations=iterations)
    done = 0
    start = time.perf_counter()
    for i, view in enumerate(search_views(seed)):
        done += search(view, config, seed + i)[1]
    return done, time.perf_counter() - start


NET_EVALUATIONS = 5000
"""Forward passes of the compiled network per search view when timing one."""


def net_speed(core: str, iterations: int, seed: int) -> tuple[int, float, float, float | None]:
    """The network search (shipped weights, default settings but ``iterations``) from every view
    of :func:`search_views`: iterations made, seconds and CPU seconds spent, and on the compiled
    core the CPU microseconds of one forward pass with the logits of the position's tree actions."""
    from kahuna.ai.agents.features import encode_view
    from kahuna.ai.agents.ismcts import tree_actions
    from kahuna.ai.agents.net import load_network
    from kahuna.ai.agents.netsearch import NetSearchConfig, compiled_search, python_search
    from kahuna.rules import determinize

    net = load_network("net")
    run = compiled_search if core == "fast" else python_search
    config = NetSearchConfig(iterations=iterations)
    views = search_views(seed)
    start, cpu = time.perf_counter(), time.process_time()
    for i, view in enumerate(views):
        run(view, net, config, seed + i)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    micros = None
    if core == "fast":
        compiled = net.compiled()
        cpu_pass = time.process_time()
        for view in views:
            actions = [a.index for a in tree_actions(determinize(view, random.Random(seed)))]
            compiled.evaluate(encode_view(view), actions, NET_EVALUATIONS)
        micros = (time.process_time() - cpu_pass) / (NET_EVALUATIONS * len(views)) * 1e6
    return iterations * len(views), seconds, cpu, micros


VECTOR_STEPS = 200
"""Steps of the vectorised environment per measurement (after one warm-up step)."""


def vector_speed(core: str, envs: int, seed: int) -> tuple[int, float]:
    """Steps of ``envs`` games at once with random legal actions; returns game-steps and seconds."""
    import numpy as np

    from kahuna.envs.vector import VectorKahuna

    env = VectorKahuna(envs, seed=seed, core=core)
    rng = np.random.default_rng(seed)
    env.step(env.random_actions(rng))
    start = time.perf_counter()
    for _ in range(VECTOR_STEPS):
        env.step(env.random_actions(rng))
    return envs * VECTOR_STEPS, time.perf_counter() - start


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "engine",
        help="play N uniformly random complete games and report games/s and actions/s",
        description="Play N complete games in which every action is drawn uniformly from the legal "
        "actions (one core), and report games/s and actions/s; with --core both, on the referee and "
        "on the compiled core side by side; with --search, ISMCTS iterations/s as well; with --net, the network "
        "search's.",
    )
    p.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and choices (default 0)")
    p.add_argument(
        "--core",
        choices=("python", "fast", "both", "auto"),
        default=None,
        help="python (the referee), fast (the compiled core), both, or auto (default: KAHUNA_CORE, else auto)",
    )
    p.add_argument(
        "--search",
        type=int,
        default=0,
        metavar="N",
        help=f"also measure ISMCTS: N iterations from each of {SEARCH_VIEWS} positions (default 0: no search)",
    )
    p.add_argument(
        "--vector",
        type=int,
        default=0,
        metavar="N",
        help=f"also measure the vectorised environment: {VECTOR_STEPS} steps of N games at once (default 0: no)",
    )
    p.add_argument(
        "--net",
        type=int,
        default=0,
        metavar="N",
        help=f"also measure the network search (shipped weights): N iterations from each of {SEARCH_VIEWS} "
        "positions, and on the compiled core the microseconds of one network evaluation (default 0: no)",
    )
    p.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    p.set_defaults(func=run)


def _cores(requested: str | None) -> list[str]:
    from kahuna.fast import selected_core

    if requested == "both":
        selected_core("fast")  # an error without the extension
        return ["python", "fast"]
    return [selected_core(requested)]


def run(args: argparse.Namespace) -> int:
    if (
        args.games <= 0
        or args.search < 0
        or args.net < 0
        or not 0 <= args.vector <= 65_536
        or not 0 <= args.seed < 2**40
    ):
        raise SystemExit(
            "kahuna bench engine: --games must be positive, --search and --net >= 0, 0 <= --vector <= 65536, "
            "0 <= --seed < 2**40"
        )
    try:
        cores = _cores(args.core)
    except (RuntimeError, ValueError) as exc:
        raise SystemExit(f"kahuna bench engine: {exc}") from None
    figures: dict[str, dict[str, Any]] = {}
    for core in cores:
        play = play_random_games_fast if core == "fast" else play_random_games
        with Progress(args.games, f"games ({core})") as bar:
            cpu = time.process_time()
            actions, seconds = play(args.games, args.seed, bar)
            cpu = time.process_time() - cpu
        games_per_s = args.games / seconds
        actions_per_s = actions / seconds
        print(f"[{core}] {args.games} games, {actions} actions in {seconds:.2f} s")
        per_game = actions / args.games
        print(f"[{core}] {games_per_s:,.0f} games/s, {actions_per_s:,.0f} actions/s, {per_game:.1f} actions/game")
        entry: dict[str, Any] = {
            "games": args.games,
            "actions": actions,
            "seconds": round(seconds, 4),
            "games_per_s": round(games_per_s, 1),
            "actions_per_s": round(actions_per_s, 1),
            "games_per_cpu_s": round(args.games / cpu, 1),
        }
        print(f"[{core}] {args.games / cpu:,.0f} games per CPU-second (this process's CPU time: other load cancels)")
        if args.search:
            cpu = time.process_time()
            done, search_seconds = search_speed(core, args.search, args.seed)
            entry["search_iterations_per_cpu_s"] = round(done / (time.process_time() - cpu), 1)
            entry["search_iterations"] = done
            entry["search_iterations_per_s"] = round(done / search_seconds, 1)
            rate = done / search_seconds
            per_cpu = entry["search_iterations_per_cpu_s"]
            print(f"[{core}] ISMCTS: {done} iterations in {search_seconds:.2f} s", end="")
            print(f", {rate:,.0f} iterations/s, {per_cpu:,.0f} per CPU-second")
        if args.net:
            done, net_seconds, net_cpu, micros = net_speed(core, args.net, args.seed)
            entry["net_iterations"] = done
            entry["net_iterations_per_s"] = round(done / net_seconds, 1)
            entry["net_iterations_per_cpu_s"] = round(done / net_cpu, 1)
            rate, per_cpu = entry["net_iterations_per_s"], entry["net_iterations_per_cpu_s"]
            print(f"[{core}] net search: {done} iterations in {net_seconds:.2f} s", end="")
            print(f", {rate:,.0f} iterations/s, {per_cpu:,.0f} per CPU-second")
            if micros is not None:
                entry["net_evaluation_cpu_us"] = round(micros, 2)
                print(f"[{core}] network: {micros:.2f} µs of CPU per evaluation (forward pass, tree actions' logits)")
        if args.vector:
            steps, vector_seconds = vector_speed(core, args.vector, args.seed)
            entry["vector_envs"] = args.vector
            entry["vector_steps_per_s"] = round(steps / vector_seconds, 1)
            rate = steps / vector_seconds
            print(f"[{core}] vectorised env: {args.vector} games x {VECTOR_STEPS} steps, {rate:,.0f} steps/s")
        figures[core] = entry
    if len(figures) == 2:
        py, fa = figures["python"], figures["fast"]
        same = py["actions"] == fa["actions"]
        print(f"same games on both cores: {'yes' if same else 'NO'} ({py['actions']} vs {fa['actions']} actions)")
        print(f"fast / python: {fa['games_per_s'] / py['games_per_s']:.1f}x games/s", end="")
        print(f" ({fa['games_per_cpu_s'] / py['games_per_cpu_s']:.1f}x per CPU-second)", end="")
        if args.search:
            ratio = fa["search_iterations_per_s"] / py["search_iterations_per_s"]
            cpu_ratio = fa["search_iterations_per_cpu_s"] / py["search_iterations_per_cpu_s"]
            print(f", {ratio:.1f}x ISMCTS iterations/s ({cpu_ratio:.1f}x per CPU-second)", end="")
        if args.net:
            cpu_ratio = fa["net_iterations_per_cpu_s"] / py["net_iterations_per_cpu_s"]
            print(f", {cpu_ratio:.1f}x net search iterations per CPU-second", end="")
        if args.vector:
            print(f", {fa['vector_steps_per_s'] / py['vector_steps_per_s']:.1f}x vectorised env steps/s", end="")
        print()
        if not same:
            return 1
    if args.json:
        out: dict[str, Any] = figures[cores[0]] if len(cores) == 1 else {"cores": figures}
        print(json.dumps(out))
    return 0
