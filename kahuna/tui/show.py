"""``kahuna show RECORD``: step through a recorded game, the board after each action in words.

A record holds every card, so by default both hands are shown; ``--seat`` shows the game as one
player saw it instead (that player's view only).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from kahuna.narrate import narrate_for
from kahuna.rules import GameState, KahunaError, view_of
from kahuna.rules.board import SEAT_NAMES
from kahuna.rules.events import Event
from kahuna.tui import storage
from kahuna.tui.screen import Frame, render
from kahuna.tui.terminal import Terminal

KEYS = "Enter/n next · p previous · N jump to action N · s start · e end · t next turn · q quit"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "show",
        help="step through a recorded game in the terminal",
        description=f"Step through a game record action by action. Keys: {KEYS}.",
    )
    p.add_argument("record", type=Path, help="a kahuna-record/1 file")
    p.add_argument("--seat", choices=("black", "white"), help="show only what this player saw (default: all cards)")
    p.add_argument("--at", type=int, metavar="N", help="print the position after N actions and exit")
    p.add_argument("--no-color", action="store_true", help="no colour (also when NO_COLOR is set or not a terminal)")
    p.set_defaults(func=run)


@dataclass
class Step:
    """The position after an action, with who played it and what happened."""

    state: GameState
    seat: int | None
    token: str
    events: list[Event]


def steps_of(start: GameState, log: list[tuple[int, list[Event]]], tokens: list[str]) -> list[Step]:
    """The start position and the position after each action, replayed from ``start``."""
    out = [Step(start.copy(), None, "", [])]
    state = start
    for (seat, events), token in zip(log, tokens, strict=True):
        state.apply(token)
        out.append(Step(state.copy(), seat, token, events))
    return out


def run(args: argparse.Namespace) -> int:
    terminal = Terminal(args.no_color)
    try:
        record, _, log = storage.load(args.record)
    except OSError as exc:
        terminal.error(f"kahuna show: cannot read {args.record}: {exc.strerror}")
        return 2
    except KahunaError as exc:
        terminal.error(f"kahuna show: {args.record}: {exc}")
        return 2
    steps = steps_of(record.start(), log, [str(t) for t in record.actions])
    viewer = None if args.seat is None else ("black", "white").index(args.seat)
    viewer_player = Viewer(steps, viewer, terminal)
    if args.at is not None:
        if not 0 <= args.at < len(steps):
            terminal.error(f"kahuna show: --at must be between 0 and {len(steps) - 1}")
            return 2
        viewer_player.draw(args.at, [], prompt_row=False)
        return 0
    viewer_player.loop()
    return 0


class Viewer:
    def __init__(self, steps: list[Step], seat: int | None, terminal: Terminal) -> None:
        self.steps = steps
        self.seat = seat
        self.terminal = terminal

    def draw(self, index: int, message: list[str], prompt_row: bool = True) -> None:
        step = self.steps[index]
        last = len(self.steps) - 1
        words = []
        if index > 1:
            before = self.steps[index - 1]
            words.append(f"Action {index - 1}: {before.token} — {narrate_for(before.events, self.seat)}")
        if index == 0:
            words.append(f"Start of the game ({last} actions). {SEAT_NAMES[0]} moves first.")
        else:
            words.append(f"Action {index}/{last}: {step.token} — {narrate_for(step.events, self.seat)}")
        state = step.state
        hands = None if self.seat is not None else (tuple(state.hands[0]), tuple(state.hands[1]))
        frame = Frame(view_of(state, self.seat), title="REPLAY", words=words, message=message, hands=hands)
        cols, rows = self.terminal.size()
        self.terminal.show(render(frame, cols, rows if prompt_row else rows + 1, self.terminal.style))

    def loop(self) -> None:
        index, last = 0, len(self.steps) - 1
        message = [KEYS]
        while True:
            self.draw(index, message)
            message = []
            try:
                key = self.terminal.ask("show> ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.terminal.say("")
                return
            if key in ("", "n", "next"):
                index = min(last, index + 1)
                if index == last:
                    message = ["End of the game."]
            elif key in ("p", "b", "prev", "previous", "back"):
                index = max(0, index - 1)
            elif key in ("s", "start"):
                index = 0
            elif key in ("e", "end"):
                index = last
            elif key in ("t", "turn"):
                index = self.next_turn(index)
            elif key in ("q", "quit", "exit"):
                return
            elif key.isdigit() and int(key) <= last:
                index = int(key)
            else:
                message = [f"{key!r}? {KEYS} (actions 0–{last})"]

    def next_turn(self, index: int) -> int:
        """The position after the next action that ends a turn."""
        for i in range(index + 1, len(self.steps)):
            token = self.steps[i].token
            if token.startswith("d") or token in ("pass", "end"):
                return i
        return len(self.steps) - 1
