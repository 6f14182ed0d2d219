"""``kahuna puzzle``: solve a puzzle of the shipped set in the terminal (docs/puzzles.md).

The screen is the terminal game's (the map, the panel with the seat's hand and the display) for
the puzzle's seat; actions are typed as in ``kahuna play`` (``E J``, ``draw E``, ``pass``, or
notation) and read by the same interpreter, so the referee's reason answers an illegal one (it
counts nothing). After each action the referee's check of the attempt says right so far, right or
wrong; the answer shows the solution and the themes. ``--daily`` is the puzzle of the day (the
server's, when it holds the shipped set), ``--id`` one puzzle, else one chosen by ``--seed``.
Exit 0 when solved, 1 when missed, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import datetime
import random
from pathlib import Path

from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.puzzles.shipped import daily_index, read_set
from kahuna.rules import view_of
from kahuna.tui.commands import grouped, interpret
from kahuna.tui.screen import Frame, render
from kahuna.tui.terminal import Terminal

HELP = "Find the best turn: your cards, then the draw or decline that ends it. Type legal, help or quit."


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "puzzle",
        help="solve a puzzle in the terminal: find the best turn",
        description="Solve a puzzle of the shipped set (or of --file): a seat's view at a moment of a "
        "real game; find its best turn. Each action is checked by the referee.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--daily", action="store_true", help="the puzzle of the day (UTC)")
    which.add_argument("--id", help="one puzzle by its id")
    p.add_argument("--seed", type=int, default=None, help="choose the puzzle with this seed (default: any)")
    p.add_argument("--file", help="a puzzle set (default: the shipped set)")
    p.add_argument("--no-color", action="store_true", help="no colours")
    p.set_defaults(func=run)


def choose(puzzles: list[Puzzle], args: argparse.Namespace) -> Puzzle | None:
    ordered = sorted(puzzles, key=lambda p: p.puzzle_id)
    if not ordered:
        return None
    if args.id is not None:
        return next((p for p in ordered if p.puzzle_id == args.id), None)
    if args.daily:
        day = datetime.datetime.now(datetime.UTC).date().isoformat()
        return ordered[daily_index(day, len(ordered))]
    return random.Random(args.seed).choice(ordered)


def run(args: argparse.Namespace) -> int:
    terminal = Terminal(args.no_color)
    try:
        puzzles, _ = read_set(Path(args.file) if args.file else None)
    except (OSError, ValueError, KeyError) as exc:
        terminal.error(f"kahuna puzzle: cannot read the set: {exc}")
        return 2
    puzzle = choose(puzzles, args)
    if puzzle is None:
        terminal.error(f"kahuna puzzle: no puzzle {args.id!r}" if args.id else "kahuna puzzle: the set is empty")
        return 2
    return solve(puzzle, terminal)


def solve(puzzle: Puzzle, terminal: Terminal) -> int:
    """The puzzle's loop: 0 when solved, 1 when missed or left."""
    state = puzzle.game_state()
    actions: list[str] = []
    message = [f"Puzzle {puzzle.puzzle_id} · rating {puzzle.rating}. {HELP}"]
    while True:
        view = view_of(state, puzzle.seat)
        width, height = terminal.size()
        terminal.show(render(Frame(view, title="PUZZLE", message=message), width, height, terminal.style))
        try:
            text = terminal.ask("your action> ")
        except (EOFError, KeyboardInterrupt):
            terminal.say("")
            return 1
        legal = state.legal_actions()
        parsed = interpret(text, legal, state.why_illegal)
        if parsed.command == "quit":
            return 1
        if parsed.command is not None:
            message = ["Legal now: " + " · ".join(grouped(legal)) if parsed.command == "legal" else HELP]
            continue
        if parsed.action is None:
            message = [parsed.error or HELP]  # the referee's reason for an illegal action: nothing counted
            continue
        actions.append(parsed.action.token)
        verdict = check(puzzle, actions)
        if verdict.status == "open":
            state.apply(parsed.action)
            message = [f"Right so far ({len(actions)}): go on."]
            continue
        words = "Right!" if verdict.status == "correct" else "Wrong: that is not the best turn."
        terminal.say(words)
        terminal.say("Solution: " + " ".join(puzzle.solutions[0]) + " · themes: " + ", ".join(puzzle.themes))
        return 0 if verdict.status == "correct" else 1
