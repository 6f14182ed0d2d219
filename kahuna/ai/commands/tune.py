"""``kahuna tune``: tune an agent's heuristic weights by SPSA, then measure them on held-out deals."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kahuna.ai.agents.heuristic import Weights
from kahuna.ai.eval.arena import PairingTally, run_tasks, schedule
from kahuna.ai.eval.stats import elo_difference, score_rate
from kahuna.ai.spec import SpecError
from kahuna.ai.training.tuning import SpsaConfig, spsa, weighted_agents
from kahuna.progress import Progress


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tune",
        help="tune the heuristic's weights by SPSA self-play, then measure them against the start",
        description="SPSA on the heuristic weights of --agent (each step: the agent with two perturbed "
        "weight sets plays itself on --deals deals, seats swapped), written to --out as JSON; then the "
        "arena plays the agent with the tuned weights against the agent as given on held-out deals "
        "(--check-seed) and prints the score, its 95 % interval and the Elo difference. Use the result "
        "as weights=FILE in a greedy or ismcts spec.",
    )
    p.add_argument(
        "--agent",
        default="greedy",
        metavar="SPEC",
        help="the agent whose weights are tuned: a greedy or ismcts spec, e.g. ismcts:iterations=250 "
        "(hard's); its weights= option, if any, is the start (default greedy, i.e. medium's planner "
        "from the default weights). ISMCTS also tunes the leaf squash scale, which greedy ignores",
    )
    p.add_argument("--steps", type=int, default=100, help="SPSA steps (default 100)")
    p.add_argument("--deals", type=int, default=4, help="deals per step, each played twice (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the perturbations and tuning deals (default 0)")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the tuned weights (JSON)")
    p.add_argument("--check-games", type=int, default=200, help="held-out games against the start (default 200)")
    p.add_argument("--check-seed", type=int, default=1000, help="arena seed of the held-out games (default 1000)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes for the held-out games (default 1)")
    p.add_argument(
        "--log", metavar="FILE", help="append each step's weights to FILE as JSON lines (to follow a long run)"
    )
    p.set_defaults(func=run)


def with_weights(spec: str, path: Path) -> str:
    """``spec`` with its ``weights=`` option (if any) replaced by ``path``."""
    name, _, options = spec.partition(":")
    kept = [part for part in options.split(",") if part and part.partition("=")[0].strip() != "weights"]
    return f"{name}:{','.join([*kept, f'weights={path}'])}"


def run(args: argparse.Namespace) -> int:
    if args.steps < 1 or args.deals < 1 or args.check_games < 0 or args.jobs < 1:
        print("kahuna tune: --steps, --deals and --jobs must be positive, --check-games not negative", file=sys.stderr)
        return 2
    try:
        base, make, names = weighted_agents(args.agent)
    except SpecError as exc:
        print(f"kahuna tune: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    config = SpsaConfig(steps=args.steps, deals=args.deals, seed=args.seed, names=names)
    with Progress(args.steps, "steps") as bar:

        def step_done(k: int, weights: Weights) -> None:
            bar.advance()
            if args.log:
                with Path(args.log).open("a", encoding="utf-8") as log:
                    log.write(json.dumps({"step": k + 1, "weights": weights.to_json()}) + "\n")

        tuned = spsa(config, base, step_done=step_done, make=make)
    meta = {"steps": args.steps, "deals": args.deals, "seed": args.seed, "agent": args.agent}
    out.write_text(json.dumps({"weights": tuned.to_json(), "tuning": meta}, indent=2) + "\n", encoding="utf-8")
    print("tuned weights:", json.dumps(tuned.to_json()))
    if not args.check_games:
        return 0
    specs = [with_weights(args.agent, out), args.agent]
    tally = PairingTally((specs[0], specs[1]))
    tasks = schedule(specs, args.check_games, args.check_seed, keep_record=False)
    with Progress(len(tasks), "held-out games") as bar:
        for outcome in run_tasks(tasks, args.jobs):
            tally.add(outcome)
            bar.advance()
    rate = score_rate(tally.wins, tally.losses, tally.draws)
    low, high = tally.interval()
    print(
        f"held-out (arena seed {args.check_seed}, {tally.games} games): "
        f"tuned {tally.wins}-{tally.losses}-{tally.draws}, "
        f"{rate:.1%} [{low:.1%}, {high:.1%}], {elo_difference(rate):+.0f} Elo "
        f"[{elo_difference(low):+.0f}, {elo_difference(high):+.0f}]"
    )
    return 0
