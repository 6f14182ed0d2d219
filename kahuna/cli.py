"""The ``kahuna`` command. Each subcommand lives in its own module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module with add_parser(sub) and run(args), one-line help)
    "replay": ("kahuna.replay", "replay a game record (kahuna-record/1), optionally with a trace"),
    "play": ("kahuna.tui.play", "play in the terminal against the AI or hot-seat"),
    "puzzle": ("kahuna.tui.puzzle", "solve a puzzle in the terminal: find the best turn"),
    "show": ("kahuna.tui.show", "step through a recorded game in the terminal"),
    "arena": ("kahuna.ai.commands.arena", "play AI agents against each other: win rates, Elo, time per turn"),
    "analyse": ("kahuna.ai.commands.analyse", "analyse a finished game: win chances, best moves, blunders"),
    "puzzles": (
        "kahuna.server.puzzles.command",
        "make puzzles from self-play or a server's games; read a set's figures",
    ),
    "tune": ("kahuna.ai.commands.tune", "tune the heuristic's weights by SPSA self-play and measure them"),
    "train": ("kahuna.ai.commands.train", "train the policy/value network by self-play (needs the train extra)"),
    "serve": ("kahuna.server.serve", "run the game server (web UI, API, WebSocket play) and print the URL"),
    "admin": ("kahuna.server.admin.command", "run a server: back up and restore its database, accounts, counts"),
    "bot": ("kahuna.bot.cli", "play on a server as an online bot (a bot account's token, any agent spec)"),
    "worker": (
        "kahuna.server.run_worker",
        "play the AI moves queued by kahuna serve --broker (any number of workers)",
    ),
}
"""Subcommands whose module defines ``add_parser(subparsers)`` adding exactly that command."""

BENCHES: dict[str, str] = {
    "engine": "kahuna.bench.engine",
    "server": "kahuna.bench.server",
    "timeouts": "kahuna.bench.timeouts",
    "lobby": "kahuna.bench.lobby",
}
"""``kahuna bench NAME``: modules that define ``add_parser(subparsers)`` for that benchmark."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kahuna",
        description="Kahuna, the two-player island game: referee, AI opponents, terminal and web play.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if only is None or only == name:
            importlib.import_module(module).add_parser(sub)
        else:
            sub.add_parser(name, help=help_text)
    bench_help = "benchmarks that print figures: " + ", ".join(BENCHES)
    if only in (None, "bench"):
        bench = sub.add_parser("bench", help=bench_help, description="Benchmarks that print figures.")
        bench_sub = bench.add_subparsers(dest="bench", metavar="BENCH", required=True)
        for module in BENCHES.values():
            importlib.import_module(module).add_parser(bench_sub)
    else:
        sub.add_parser("bench", help=bench_help)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    only = first if first in COMMANDS or first == "bench" else None
    parser = build_parser(only)
    args = parser.parse_args(argv)
    args.argv = argv  # the command line as given: kahuna serve parses it again over its --config file
    if not hasattr(args, "func"):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
