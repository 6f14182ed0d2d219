"""``kahuna train DIR``: train the policy/value network by self-play (needs the ``train`` extra).

The flags set a new run's settings; a directory that already holds a run continues it with its
own settings (only ``--generations`` may be raised). ``--minutes`` stops cleanly after that long,
and so does Ctrl-C: run the same command again to continue. ``docs/ai.md`` describes the method.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kahuna.ai.training.loop import TrainConfig

DEFAULTS_DOC = "(default %(default)s)"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "train",
        help="train the policy/value network by self-play (needs the train extra: pip install 'kahuna[train]')",
        description="Generations of self-play with the network-guided ISMCTS, training on the visit "
        "counts and results, and an arena gate; resumable (run the same command again). Writes "
        "DIR/best.npz (the weights: use as net:weights=DIR/best.npz), DIR/log.jsonl and DIR/elo.png.",
    )
    p.add_argument("dir", metavar="DIR", help="the run's directory (created, or continued)")
    p.add_argument("--seed", type=int, default=0, help=f"seed of every game and of training {DEFAULTS_DOC}")
    p.add_argument("--generations", type=int, default=10, help=f"generations to reach {DEFAULTS_DOC}")
    p.add_argument(
        "--teacher-games",
        type=int,
        default=200,
        help=f"generation 0: games of the heuristic ISMCTS to learn from first, 0 for none {DEFAULTS_DOC}",
    )
    p.add_argument(
        "--teacher-iterations", type=int, default=1500, help=f"iterations of the teacher's search {DEFAULTS_DOC}"
    )
    p.add_argument("--games", type=int, default=100, help=f"self-play games per generation {DEFAULTS_DOC}")
    p.add_argument(
        "--iterations", type=int, default=100, help=f"network-guided search iterations per decision {DEFAULTS_DOC}"
    )
    p.add_argument("--c-puct", type=float, default=1.5, help=f"PUCT exploration constant {DEFAULTS_DOC}")
    p.add_argument(
        "--mix",
        type=float,
        default=0.0,
        help=f"λ: a leaf's value is (1-λ)·network + λ·heuristic playout, in every network search {DEFAULTS_DOC}",
    )
    p.add_argument("--playout", type=int, default=2, help=f"turns of that playout {DEFAULTS_DOC}")
    p.add_argument(
        "--heuristic",
        default="",
        metavar="NAME",
        help="heuristic weights closing that playout: a shipped name (ismcts-tuned) or a JSON file "
        "(default: the defaults)",
    )
    p.add_argument(
        "--explore", type=int, default=12, help=f"decisions per game drawn in proportion to visits {DEFAULTS_DOC}"
    )
    p.add_argument("--buffer", type=int, default=100_000, help=f"newest positions trained on {DEFAULTS_DOC}")
    p.add_argument("--epochs", type=int, default=4, help=f"passes over the buffer per generation {DEFAULTS_DOC}")
    p.add_argument("--batch", type=int, default=256, help=f"positions per training step {DEFAULTS_DOC}")
    p.add_argument("--lr", type=float, default=1e-3, help=f"Adam's learning rate {DEFAULTS_DOC}")
    p.add_argument(
        "--value-weight",
        type=float,
        default=1.0,
        help=f"weight of the value loss beside the policy loss (below 1: the value head memorises slower) "
        f"{DEFAULTS_DOC}",
    )
    p.add_argument("--hidden", type=int, default=128, help=f"units per hidden layer {DEFAULTS_DOC}")
    p.add_argument(
        "--gate-games", type=int, default=200, help=f"games of the candidate against the best network {DEFAULTS_DOC}"
    )
    p.add_argument("--gate", type=float, default=0.55, help=f"score the candidate needs to replace it {DEFAULTS_DOC}")
    p.add_argument("--reference", default="hard", help=f"fixed agent each new best network plays {DEFAULTS_DOC}")
    p.add_argument("--reference-games", type=int, default=20, help=f"games against the reference {DEFAULTS_DOC}")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help=f"games played at once, one worker process each; the results do not depend on it {DEFAULTS_DOC}",
    )
    p.add_argument(
        "--minutes", type=float, help="stop cleanly after this many minutes (continue with the same command)"
    )
    p.add_argument(
        "--calibrate",
        type=int,
        default=0,
        metavar="GAMES",
        help="then play GAMES held-out self-play games with the best network and write its value head's "
        "predicted-against-observed win rates to DIR/calibration.json (--minutes 0: calibrate only)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from kahuna.ai.training.loop import Run, TrainConfig
    except ImportError as exc:
        print(f"kahuna train: needs the train extra (pip install 'kahuna[train]'): {exc}", file=sys.stderr)
        return 2
    positive = ("generations", "games", "iterations", "epochs", "batch", "hidden", "gate_games")
    bad = [name for name in (*positive, "jobs") if getattr(args, name) < 1]
    bad += [n for n in ("teacher_games", "reference_games", "explore", "playout") if getattr(args, n) < 0]
    bad += [n for n in ("mix", "value_weight") if not 0 <= getattr(args, n) <= 1]
    if bad or not 0 < args.gate <= 1 or args.lr <= 0 or args.buffer < 1 or args.teacher_iterations < 1:
        print(
            f"kahuna train: bad settings {', '.join(bad) or '(gate, lr, buffer or teacher iterations)'}",
            file=sys.stderr,
        )
        return 2
    config = TrainConfig(
        seed=args.seed,
        generations=args.generations,
        teacher_games=args.teacher_games,
        teacher_iterations=args.teacher_iterations,
        games=args.games,
        iterations=args.iterations,
        c_puct=args.c_puct,
        mix=args.mix,
        playout=args.playout,
        heuristic=args.heuristic,
        explore=args.explore,
        buffer=args.buffer,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        value_weight=args.value_weight,
        hidden=args.hidden,
        gate_games=args.gate_games,
        gate=args.gate,
        reference=args.reference,
        reference_games=args.reference_games,
    )
    try:
        config.search()
    except ValueError as exc:
        print(f"kahuna train: {exc}", file=sys.stderr)
        return 2
    run_ = Run(Path(args.dir), config, progress=None, jobs=args.jobs)
    finished = run_.run(minutes=args.minutes)
    for entry in run_.log_entries():
        print(_describe(entry))
    if args.calibrate > 0 and (run_.dir / "best.npz").is_file():
        _calibrate(run_.dir, run_.config, args.calibrate)
    if not finished:
        where = f"generation {run_.state['generation']} ({run_.state['stage']})"
        print(f"stopped at {where}; run the same command to continue")
    return 0


def _calibrate(directory: Path, config: TrainConfig, games: int) -> None:
    from kahuna.ai.agents.net import Network
    from kahuna.ai.training.calibrate import value_calibration

    net = Network.load(directory / "best.npz")
    table = value_calibration(net, games, config.seed, config.search(), config.explore)
    (directory / "calibration.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(
        f"value head on {table['positions']} positions of {games} held-out games: Brier {table['brier']}, "
        f"expected calibration error {table['ece']}"
    )
    for row in table["bins"]:
        low, high = row["interval95"]
        print(
            f"  predicted {row['estimate']:.2f}  observed {row['observed']:.2f} [{low:.2f}, {high:.2f}]  n={row['n']}"
        )


def _describe(entry: dict[str, object]) -> str:
    parts = [f"generation {entry['generation']}"]
    if "gate_score" in entry:
        verdict = "accepted" if entry.get("accepted") else "rejected"
        parts.append(f"gate {entry['gate_score']:.1%} over {entry['gate_games']} games, {verdict}")
    parts.append(f"Elo {entry.get('elo', 0.0):+.0f}")
    reference = entry.get("reference")
    if isinstance(reference, dict):
        low, high = reference["reference_interval95"]
        parts.append(
            f"vs {reference['agent']} {reference['reference_score']:.1%} [{low:.1%}, {high:.1%}] "
            f"({reference['reference_elo']:+.0f} Elo)"
        )
    return ", ".join(parts)
