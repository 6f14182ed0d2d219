"""``kahuna play``: a whole game in the terminal, against an AI or hot-seat, saved as it goes.

The game keeps the referee's state; each person and each AI is shown only its own player view.
The record is written after every action (and so on quit, Ctrl-C and at the end), and
``--resume`` continues it with the same seed-derived randomness.
"""

from __future__ import annotations

import argparse
import random
import time
import zlib
from pathlib import Path

from kahuna.ai.base import Agent, AgentError
from kahuna.ai.levels import LEVELS
from kahuna.ai.registry import make_agent
from kahuna.ai.timed import QUICK_LEVEL, choose_on_clock
from kahuna.clock import Clock, ClockError, TimeControl, format_seconds
from kahuna.narrate import narrate_for
from kahuna.rules import Action, GameState, KahunaError, Termination, Variant, view_of
from kahuna.rules.board import SEAT_NAMES
from kahuna.rules.events import Event
from kahuna.tui import storage
from kahuna.tui.commands import grouped, interpret
from kahuna.tui.screen import Frame, render
from kahuna.tui.storage import Setup
from kahuna.tui.terminal import Terminal
from kahuna.tui.texts import HELP, RULES

HUMAN = "human"
DEFAULT_LEVEL = "medium"
TurnLog = tuple[int, list[Event]]


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "play",
        help="play Kahuna in the terminal, against the AI or a friend on the same keyboard",
        description="Play a game in the terminal. Type actions as tokens (E>J, xEJ:EE, -K, dE, d?, pass, end) "
        "or words (E J, remove EJ with E E, discard K, draw E, draw, pass); help, legal, rules, quit.",
    )
    p.add_argument(
        "--vs",
        metavar="OPPONENT",
        help=f"{', '.join(LEVELS)}, any agent spec, or human (hot-seat); default {DEFAULT_LEVEL}",
    )
    p.add_argument(
        "--seat",
        choices=("first", "second", "random"),
        default=None,
        help=f"first plays {SEAT_NAMES[0]} (default random)",
    )
    p.add_argument("--seed", type=int, help="seed of the deal, the seat draw and the AI (default: random)")
    p.add_argument(
        "--variant",
        nargs="+",
        action="extend",
        default=[],
        metavar="NAME",
        help="no_build_at_enemy_stone, replace_on_remove",
    )
    p.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="where to keep the record (default: a new file under $KAHUNA_DATA, else $XDG_DATA_HOME/kahuna, "
        "else ~/.local/share/kahuna)",
    )
    p.add_argument("--resume", type=Path, metavar="FILE", help="continue the game saved in FILE")
    p.add_argument(
        "--clock",
        metavar="CLOCK",
        help="play on a clock: MINUTES+SECONDS per player and increment per turn (5+3), or DAYS d per turn "
        "(2d); whoever runs out of time loses. The clock pauses while the game is saved and closed",
    )
    p.add_argument("--ai-delay", type=float, default=0.8, metavar="SECONDS", help="pause after each AI action")
    p.add_argument("--no-color", action="store_true", help="no colour (also when NO_COLOR is set or not a terminal)")
    p.set_defaults(func=run)


class UserError(Exception):
    """A problem with the command line or the saved file: one line, no traceback."""


def _opponent(spec: str | None) -> str:
    """The requested opponent, or the default level."""
    return DEFAULT_LEVEL if spec is None else spec


def _agent(spec: str) -> Agent | None:
    if spec == HUMAN:
        return None
    try:
        return make_agent(spec)
    except ValueError as exc:
        raise UserError(f"--vs: {exc}") from None


def _new_game(args: argparse.Namespace) -> tuple[GameState, Setup, list[TurnLog]]:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    try:
        variant = Variant.from_names(args.variant)
    except ValueError as exc:
        raise UserError(f"--variant: {exc}") from None
    opponent = _opponent(args.vs)
    seat: int | None = None
    if opponent != HUMAN:
        choice = args.seat or "random"
        seat = {"first": 0, "second": 1}.get(choice, random.Random(f"kahuna-seat:{seed}").randrange(2))
    try:
        clock = None if args.clock is None else Clock.new(TimeControl.parse(args.clock))
    except ClockError as exc:
        raise UserError(f"--clock: {exc}") from None
    return GameState.new(random.Random(seed), variant), Setup(opponent, seat, seed, clock), []


def _resumed_game(args: argparse.Namespace) -> tuple[GameState, Setup, list[TurnLog]]:
    try:
        record, state, log = storage.load(args.resume)
        saved = Setup.from_meta(record.meta)
    except OSError as exc:
        raise UserError(f"cannot read {args.resume}: {exc.strerror}") from None
    except KahunaError as exc:
        raise UserError(f"cannot resume {args.resume}: {exc}") from None
    if saved is None:  # a record from elsewhere: choose as for a new game, seeded by its deal
        seat = {"first": 0, "second": 1}.get(args.seat or "first", 0)
        opponent = _opponent(args.vs)
        saved = Setup(opponent, None if opponent == HUMAN else seat, zlib.crc32(record.deal.encode()))
    elif args.vs is not None:
        saved.opponent = args.vs
        if args.vs == HUMAN:
            saved.human_seat = None
        elif saved.human_seat is None:
            saved.human_seat = {"second": 1}.get(args.seat or "first", 0)
    return state, saved, log


def run(args: argparse.Namespace) -> int:
    terminal = Terminal(args.no_color)
    try:
        state, setup, log = _resumed_game(args) if args.resume else _new_game(args)
        agent = _agent(setup.opponent)
    except UserError as exc:
        terminal.error(f"kahuna play: {exc}")
        return 2
    path = args.save or args.resume or storage.default_save_path()
    if state.is_over:
        terminal.say(f"That game is over. Watch it with: kahuna show {path}")
        return 0
    if args.resume and args.clock is not None and setup.clock is None:
        terminal.error("kahuna play: --clock: a game cannot be put on a clock once it has begun")
        return 2
    game = Game(state, setup, agent, terminal, path, max(0.0, args.ai_delay))
    for seat, events in log:
        game.remember(seat, events)
    return game.play()


class Game:
    """One game at the keyboard: turns, input, the AI's moves, saving."""

    def __init__(
        self, state: GameState, setup: Setup, agent: Agent | None, terminal: Terminal, path: Path, delay: float
    ) -> None:
        self.state = state
        self.setup = setup
        self.agent = agent
        self.clock = setup.clock
        self.quick = None if agent is None or self.clock is None else make_agent(QUICK_LEVEL)
        self.terminal = terminal
        self.path = path
        self.delay = delay
        self.humans = {0, 1} if agent is None else {setup.human_seat if setup.human_seat is not None else 0}
        self.previous: TurnLog | None = None
        self.current: TurnLog | None = None
        self.message: list[str] = []
        if agent is None:
            self.players = [f"{name} player" for name in SEAT_NAMES]
        else:
            self.players = ["human", "human"]
            self.players[1 - min(self.humans)] = f"AI ({setup.opponent})"

    # ----------------------------------------------------------------- flow

    def play(self) -> int:
        try:
            self.save()
            self.message.insert(0, f"The game is saved to {self.path} after every action. Type help for how to play.")
            if self.clock is not None:
                self.clock.start(self.state.to_move, time.time())
            while not self.state.is_over:
                seat = self.state.to_move
                if seat in self.humans:
                    if not self.human_turn(seat):
                        return self.leave("Game saved")
                else:
                    self.ai_action(seat)
        except EOFError:
            return self.leave("End of input; game saved")
        except KeyboardInterrupt:
            return self.leave("Interrupted; game saved", status=130)
        except AgentError as exc:
            return self.leave(f"The AI failed ({exc}); game saved", status=1)
        self.finish()
        return 0

    def leave(self, what: str, status: int = 0) -> int:
        if self.clock is not None:  # paused: the time left is saved with the game
            self.clock.stop(time.time())
        self.save()
        self.terminal.say(f"\n{what} to {self.path}")
        self.terminal.say(f"Continue with: kahuna play --resume {self.path}")
        return status

    def finish(self) -> None:
        self.save()
        viewer = None if self.agent is None else min(self.humans)
        self.show(viewer, [])
        self.terminal.say(f"Game saved to {self.path}")
        self.terminal.say(f"Watch it again with: kahuna show {self.path}")

    def save(self) -> None:
        storage.save(self.path, self.state, self.players, self.setup)

    # ----------------------------------------------------------------- turns

    def apply(self, action: Action) -> None:
        """Apply for the seat to move, keeping reshuffles reproducible from the seed; on a clock,
        a seat whose time has run out loses instead, and the end of a turn passes the clock on."""
        state = self.state
        seat = state.to_move
        now = time.time()
        if self.clock is not None and self.clock.flagged(now) == seat:
            self.end_off_board(Termination("timeout", seat))
            return
        if state.needs_reshuffle(action):
            state.rng = storage.reshuffle_rng(self.setup.seed, len(state.history))
        self.remember(seat, state.apply(action))
        if self.clock is not None:
            if state.is_over:
                self.clock.stop(now)
            elif action.ends_turn:
                self.clock.turn_ended(seat, now)
        self.save()

    def end_off_board(self, termination: Termination) -> None:
        """Resignation or a timeout: the game ends as it stands."""
        if self.clock is not None:
            self.clock.stop(time.time())
        self.remember(termination.seat, self.state.terminate(termination))
        self.save()

    def seconds_left(self, seat: int) -> float | None:
        return None if self.clock is None else self.clock.left(seat, time.time())

    def remember(self, seat: int, events: list[Event]) -> None:
        """Keep the events of the current and the previous turn, for the words under the map."""
        if self.current is None or self.current[0] != seat:
            self.previous, self.current = self.current, (seat, [])
        self.current[1].extend(events)

    def human_turn(self, seat: int) -> bool:
        """Read and play actions until the turn ends; ``False`` when the player quits.

        ``EOFError`` (end of input) and ``KeyboardInterrupt`` go up to :meth:`play`, which saves.
        """
        if len(self.humans) == 2:
            try:
                self.hand_over(seat)
            except TimeoutError:
                self.end_off_board(Termination("timeout", seat))
                return True
        while self.state.to_move == seat and not self.state.is_over:
            self.show(seat, self.message)
            self.message = []
            try:
                text = self.terminal.ask(f"{SEAT_NAMES[seat]}> ", self.seconds_left(seat))
            except TimeoutError:
                self.end_off_board(Termination("timeout", seat))
                break
            parsed = interpret(text, self.state.legal_actions(), self.state.why_illegal)
            if parsed.action is not None:
                self.apply(parsed.action)
            elif parsed.command == "quit":
                return False
            elif parsed.command == "resign":
                try:
                    answer = self.terminal.ask("Resign this game? Type yes to resign: ", self.seconds_left(seat))
                except TimeoutError:
                    self.end_off_board(Termination("timeout", seat))
                    break
                if answer.strip().lower() == "yes":
                    self.end_off_board(Termination("resign", seat))
                else:
                    self.message = ["You play on."]
            elif parsed.command == "legal":
                self.message = ["You can now:", *grouped(self.state.legal_actions())]
            elif parsed.command == "help":
                self.message = list(HELP)
            elif parsed.command == "rules":
                self.page(RULES)
            else:
                self.message = [parsed.error or ""]
        return True

    def ai_action(self, seat: int) -> None:
        assert self.agent is not None
        if self.current is None or self.current[0] != seat:
            self.show(min(self.humans), [f"{SEAT_NAMES[seat]} ({self.setup.opponent}) is thinking…"])
        view = view_of(self.state, seat)
        rng = storage.agent_rng(self.setup.seed, len(self.state.history))
        if self.quick is not None and self.clock is not None:
            action = choose_on_clock(self.agent, self.quick, view, rng, self.seconds_left(seat), self.clock.control)
        else:
            action = self.agent.choose(view, rng)
        reason = self.state.why_illegal(action)
        if reason is not None:
            raise AgentError(f"{self.agent.name} chose {action.token}: {reason}")
        if self.clock is not None:  # on a clock the pause is the AI's time, not the next player's
            self.terminal.pause(self.delay)
        self.apply(action)
        if not self.state.is_over:
            self.show(min(self.humans), [f"{SEAT_NAMES[seat]} ({self.setup.opponent}) is playing…"])
            if self.clock is None:
                self.terminal.pause(self.delay)

    def hand_over(self, seat: int) -> None:
        """Hot-seat: a blank screen between turns, so nobody sees the other's hand."""
        other = SEAT_NAMES[1 - seat]
        self.terminal.show(
            [
                "",
                f"  Pass the keyboard to {SEAT_NAMES[seat]}.",
                "",
                f"  {other}'s hand is hidden. {SEAT_NAMES[seat]}, press Enter when you are ready.",
            ]
        )
        self.terminal.ask("  > ", self.seconds_left(seat))

    def page(self, lines: list[str]) -> None:
        self.terminal.show(lines)
        self.terminal.ask("Press Enter to go back to the game. ")

    # ----------------------------------------------------------------- screen

    def words(self, viewer: int | None) -> list[str]:
        """The previous turn and the current (or just finished) one, as ``viewer`` may see them."""
        out: list[str] = []
        for log in (self.previous, self.current):
            if log is None or not log[1]:
                continue
            seat, events = log
            if log is self.previous:
                label = "Before"
            elif self.state.is_over or self.state.to_move != seat:
                label = "Last turn"
            else:
                label = "This turn"
            out.append(f"{label} ({SEAT_NAMES[seat]}): {narrate_for(events, viewer)}")
        return out

    def clock_line(self) -> list[str]:
        """``Clock 5+3 · Black 4:52 (running) · White 5:00``, or nothing in an untimed game."""
        if self.clock is None:
            return []
        now = time.time()
        running = self.clock.running
        shown = [
            f"{SEAT_NAMES[s]} {format_seconds(self.clock.left(s, now))}{' (running)' if running == s else ''}"
            for s in (0, 1)
        ]
        return [f"Clock {self.clock.control.describe()} · " + " · ".join(shown)]

    def show(self, viewer: int | None, message: list[str]) -> None:
        cols, rows = self.terminal.size()
        frame = Frame(view_of(self.state, viewer), words=self.words(viewer), message=self.clock_line() + message)
        self.terminal.show(render(frame, cols, rows, self.terminal.style))
