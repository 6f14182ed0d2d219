"""``kahuna arena AGENT AGENT [AGENT…]``: play agents against each other and print how strong each is.

Prints, per pairing, wins/losses/draws with the score rate, its 95 % interval and the Elo
difference; with more than two agents also an Elo ladder; then each agent's time per turn.
With ``--json`` the last line is the machine-readable tally described in ``docs/ai.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from kahuna.ai.eval.arena import GameOutcome, PairingTally, run_tasks, schedule, unique_labels
from kahuna.ai.eval.stats import elo_difference, elo_ladder, percentile, score_rate
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.clock import ClockError, TimeControl
from kahuna.progress import Progress
from kahuna.rules import Variant


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "arena",
        help="play AI agents against each other and report win rates, Elo and time per turn",
        description="Play every pair of agents N games (each deal twice, seats swapped) and report "
        "wins/losses/draws, the score rate with a 95 % interval and the Elo difference; with more "
        "than two agents a round robin and an Elo ladder. Agent specs: random, greedy, easy, medium, "
        "hard, expert, ismcts:iterations=2000, ismcts:seconds=1, ...",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs (at least two)")
    p.add_argument("--games", type=int, default=20, help="games per pairing (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents' choices (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="games played at once in worker processes (0: all cores)")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the tallies")
    p.add_argument("--records", metavar="DIR", help="write every game as a kahuna-record/1 file into DIR")
    p.add_argument(
        "--clock",
        metavar="CLOCK",
        help="play on a clock, e.g. 1+0 (minutes + seconds per turn): each agent switches to quick play "
        "when short of time and a level thinking by time (grandmaster) spends its share of the clock, as on "
        "the server; a seat whose time runs out loses; timeouts are listed",
    )
    p.add_argument(
        "--variant",
        nargs="+",
        default=[],
        metavar="NAME",
        help="play with optional rules: no_build_at_enemy_stone, replace_on_remove",
    )
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"kahuna arena: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    specs: list[str] = list(args.agents)
    if len(specs) < 2:
        return _fail("name at least two agents")
    if args.games <= 0:
        return _fail("--games must be positive")
    if args.jobs < 0:
        return _fail("--jobs must be 0 (all cores) or more")
    for spec in specs:
        try:
            agent = make_agent(spec)
        except SpecError as exc:
            return _fail(str(exc))
        close = getattr(agent, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:
                print(f"kahuna arena: note: {spec} failed to close: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:
        variant = tuple(Variant.from_names(args.variant).names)
    except ValueError as exc:
        return _fail(str(exc))
    records = Path(args.records) if args.records else None
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _fail(f"cannot create {records}: {exc.strerror}")
    jobs = args.jobs or os.cpu_count() or 1
    labels = unique_labels(specs)
    if args.clock is not None:
        try:
            TimeControl.parse(args.clock)
        except ClockError as exc:
            return _fail(f"--clock: {exc}")
    tasks = schedule(specs, args.games, args.seed, records is not None, variant, args.clock)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    tallies = [PairingTally((labels[i], labels[j])) for i, j in pairs]
    turn_times: dict[str, list[float]] = {label: [] for label in labels}
    with Progress(len(tasks), "games") as bar:
        for outcome in run_tasks(tasks, jobs):
            _count(outcome, tallies, turn_times)
            if records is not None:
                _write_record(records, outcome)
            bar.advance()
    _print_report(labels, pairs, tallies, turn_times)
    if args.json:
        print(json.dumps(_summary(args.games, tallies)))
    return 0


def _count(outcome: GameOutcome, tallies: list[PairingTally], turn_times: dict[str, list[float]]) -> None:
    tally = tallies[outcome.task.pairing]
    tally.add(outcome)
    first = outcome.first_seat
    turn_times[tally.labels[0]].extend(outcome.result.turn_seconds[first])
    turn_times[tally.labels[1]].extend(outcome.result.turn_seconds[1 - first])


def _write_record(directory: Path, outcome: GameOutcome) -> None:
    task = outcome.task
    assert outcome.result.record is not None
    name = f"pairing{task.pairing + 1:02d}-game{task.game + 1:04d}.json"
    (directory / name).write_text(outcome.result.record + "\n", encoding="utf-8")


def _print_report(
    labels: list[str],
    pairs: list[tuple[int, int]],
    tallies: list[PairingTally],
    turn_times: dict[str, list[float]],
) -> None:
    width = max(len(label) for label in labels)
    for tally in tallies:
        a, b = tally.labels
        print(f"\n{a} vs {b}: {tally.games} games ({len(tally.deal_scores)} deals, each with seats swapped)")
        print(f"  {'agent':<{width}}  wins losses draws   score  95% interval*     Elo diff")
        low, high = tally.interval()
        rows = ((a, tally.wins, tally.losses, low, high), (b, tally.losses, tally.wins, 1 - high, 1 - low))
        for label, won, lost, lo, hi in rows:
            rate = score_rate(won, lost, tally.draws)
            print(
                f"  {label:<{width}}  {won:4d} {lost:6d} {tally.draws:5d}  {rate:6.1%}  "
                f"[{lo:6.1%}, {hi:6.1%}]  {elo_difference(rate):+8.0f}"
            )
        for line in tally.forfeits:
            print(f"  forfeit, {line}")
        for line in tally.timeouts:
            print(f"  timeout, {line}")
        for line in tally.notes:
            print(f"  note, {line}")
    print("\n* over deals: the two seat-swapped games of a deal count as one pair (docs/ai.md)")
    if len(labels) > 2:
        results = {pair: (t.wins, t.losses, t.draws) for pair, t in zip(pairs, tallies, strict=True)}
        ladder = elo_ladder(len(labels), results)
        print(f"\nElo ladder (round robin, {labels[0]} = 0)")
        for rank, index in enumerate(sorted(range(len(labels)), key=lambda k: -ladder[k]), start=1):
            print(f"  {rank:2d}. {labels[index]:<{width}}  {ladder[index]:+7.0f}")
    print("\ntime per turn (seconds)")
    print(f"  {'agent':<{width}}   median      p99      max  turns")
    for label in labels:
        times = turn_times[label]
        print(
            f"  {label:<{width}}  {percentile(times, 0.5):7.3f}  {percentile(times, 0.99):7.3f}  "
            f"{max(times, default=0.0):7.3f}  {len(times):5d}"
        )


def _summary(games: int, tallies: list[PairingTally]) -> dict[str, object]:
    """The ``--json`` line: one tally for two agents, one per pairing under ``pairings`` otherwise."""

    def one(tally: PairingTally) -> dict[str, object]:
        a, b = tally.labels
        low, high = tally.interval()
        return {
            "games": tally.games,
            "deals": len(tally.deal_scores),
            "agents": {
                a: {
                    "wins": tally.wins,
                    "losses": tally.losses,
                    "draws": tally.draws,
                    "interval95": _rounded(low, high),
                },
                b: {
                    "wins": tally.losses,
                    "losses": tally.wins,
                    "draws": tally.draws,
                    "interval95": _rounded(1 - high, 1 - low),
                },
            },
            "timeouts": len(tally.timeouts),
        }

    if len(tallies) == 1:
        return one(tallies[0])
    return {"games": games, "pairings": [one(t) for t in tallies]}


def _rounded(low: float, high: float) -> list[float]:
    return [round(low, 4), round(high, 4)]
