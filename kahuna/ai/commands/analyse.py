"""``kahuna analyse RECORD``: judge every decision of a finished game from the mover's own view.

Prints one line per action (the class, the mover's win chance before it, with the action played
and with the best action found) and a summary per seat; with ``--json`` the last line is
``{"moves": [...], "summary": {...}}`` as docs/analysis.md describes. ``--calibrate DIR`` instead
measures how well the estimates match the results of the games in DIR (:mod:`kahuna.ai.eval.calibration`).
Exit 2 for a record that cannot be read or replayed; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from kahuna.ai.review.analysis import DEFAULT_ITERATIONS, Budget, MoveAnalysis, analyse, decisions, summary
from kahuna.ai.review.wingraph import GRAPH_BUDGET, win_graph
from kahuna.progress import Progress
from kahuna.rules import GameRecord, KahunaError
from kahuna.rules.board import SEAT_NAMES

MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 600.0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "analyse",
        help="analyse a finished game: every decision's win chance, the best move found, blunders",
        description="Search every decision of a game record from the acting player's own view (hidden "
        "cards are sampled, never read from the record) and class each one best, inaccuracy, mistake "
        "or blunder by the win probability it lost to the best action found; forced steps are not "
        "searched. With --calibrate DIR, measure instead how often positions estimated at p are won, "
        "over the records in DIR (docs/analysis.md).",
    )
    p.add_argument("record", nargs="?", help="record file (kahuna-record/1), or - for standard input")
    amount = p.add_mutually_exclusive_group()
    amount.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_ITERATIONS,
        metavar="ITERATIONS",
        help=f"search iterations per decision (default {DEFAULT_ITERATIONS})",
    )
    amount.add_argument(
        "--seconds", type=float, default=0.0, metavar="S", help="search each decision S seconds instead"
    )
    p.add_argument("--jobs", type=int, default=1, help="decisions searched at once in worker processes (0: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the searches (default 0)")
    p.add_argument("--json", action="store_true", help="end with one JSON line: moves and summary")
    p.add_argument(
        "--graph",
        action="store_true",
        help="also estimate Black's chance at the start of every turn from the spectator's view "
        f'({GRAPH_BUDGET.iterations} iterations per turn; the JSON line gets a "graph" list)',
    )
    p.add_argument("--calibrate", metavar="DIR", help="calibration over the records in DIR instead of one analysis")
    p.add_argument("--positions", type=int, default=6, help="with --calibrate: decisions sampled per game (default 6)")
    p.add_argument("--svg", metavar="FILE", help="with --calibrate: write the reliability diagram as SVG")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"kahuna analyse: {message}", file=sys.stderr)
    return 2


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.budget <= MAX_ITERATIONS:
        return _fail(f"--budget must be between 1 and {MAX_ITERATIONS}")
    if not 0 <= args.seconds <= MAX_SECONDS:
        return _fail(f"--seconds must be between 0 and {MAX_SECONDS:g}")
    if args.jobs < 0:
        return _fail("--jobs must be 0 (all cores) or more")
    jobs = args.jobs or os.cpu_count() or 1
    budget = Budget(iterations=args.budget, seconds=args.seconds)
    if args.calibrate is not None:
        from kahuna.ai.eval.calibration import run_calibration

        return run_calibration(args.calibrate, budget, args.seed, jobs, args.positions, args.svg, args.json)
    if args.record is None:
        return _fail("name a record file (or - for standard input), or --calibrate DIR")
    try:
        record = GameRecord.loads(_read(args.record))
        total = len(decisions(record))  # also replays the record once: a bad one fails before any search
    except OSError as exc:
        return _fail(f"cannot read {args.record}: {exc.strerror}")
    except UnicodeDecodeError:
        return _fail(f"{args.record} is not UTF-8 text")
    except KahunaError as exc:
        return _fail(f"bad record: {exc}")
    names = list(SEAT_NAMES)
    if record.players and len(record.players) == 2:
        names = [f"{seat} ({player})" for seat, player in zip(SEAT_NAMES, record.players, strict=True)]
    with Progress(total, "decisions") as bar:
        moves = analyse(record, budget, seed=args.seed, jobs=jobs, on_move=lambda m: bar.advance(note=m.played))
    print(f"{'step':>4} {'turn':>4}  {'seat':<6} {'played':<8} {'class':<10} {'before':>6} {'played':>6} {'best':>6}")
    for move in moves:
        print(_line(move))
    totals = summary(moves, record.players)
    for seat in ("0", "1"):
        s = totals[seat]
        counts = ", ".join(f"{s[c]} {c}" for c in ("best", "inaccuracy", "mistake", "blunder"))
        print(
            f"{names[int(seat)]}: {s['actions']} actions, {s['forced']} forced; "
            f"{counts}; mean loss {s['mean_loss']:.3f}"
        )
    out: dict[str, Any] = {"moves": [m.to_json() for m in moves], "summary": totals}
    if args.graph:
        graph = win_graph(record, GRAPH_BUDGET, seed=args.seed)
        print("Black's chance by turn: " + " ".join(f"{p.black:.2f}" for p in graph))
        out["graph"] = [p.to_json() for p in graph]
    if args.json:
        print(json.dumps(out))
    return 0


def _line(move: MoveAnalysis) -> str:
    head = f"{move.step:>4} {move.turn:>4}  {SEAT_NAMES[move.seat]:<6} {move.played:<8} {move.cls:<10}"
    j = move.judgement
    if j is None:
        return head
    tail = f" {j.win_before:6.2f} {j.win_played:6.2f} {j.win_best:6.2f}"
    if j.best.token != move.played:
        tail += f"  best {j.best.token}"
    return head + tail
