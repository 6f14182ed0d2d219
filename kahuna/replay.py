"""``kahuna replay RECORD [--trace] [--core python|fast]``: replay a record and print states as
NOTATION.md says, on the referee or on the compiled core (kahuna.fast), which must print the same.

Exit status 0, 1 for an illegal action (step, token and reason on standard error), 2 for a
malformed record; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Protocol

from kahuna.rules import Action, GameRecord, RecordError, ReplayError
from kahuna.rules.actions import tokens


class _Traced(Protocol):
    def legal_actions(self) -> list[Action]: ...
    def to_json(self) -> dict[str, Any]: ...


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "replay",
        help="replay a kahuna-record/1 file and print the final state (or a trace)",
        description="Replay a game record and print the final state as one JSON line. With --trace, "
        "print one line per action before it is applied ({step, legal, state}) and then {final}. "
        "Exit 1: illegal action; exit 2: malformed record.",
    )
    p.add_argument("record", help="record file, or - for standard input")
    p.add_argument("--trace", action="store_true", help="print the legal actions and state before every action")
    p.add_argument(
        "--core",
        choices=("python", "fast", "auto"),
        default=None,
        help="python (the referee), fast (the compiled core) or auto; default: KAHUNA_CORE, else python",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kahuna.fast import selected_core

    try:
        # The referee unless the compiled core is asked for by --core or KAHUNA_CORE.
        core = selected_core(args.core) if args.core or os.environ.get("KAHUNA_CORE") else "python"
    except (RuntimeError, ValueError) as exc:
        print(f"kahuna replay: {exc}", file=sys.stderr)
        return 2
    try:
        record = GameRecord.loads(_read(args.record))
    except OSError as exc:
        print(f"kahuna replay: cannot read {args.record}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"kahuna replay: {args.record} is not UTF-8 text", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"kahuna replay: malformed record: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout

    def trace(step: int, state: _Traced) -> None:
        out.write(json.dumps({"step": step, "legal": tokens(state.legal_actions()), "state": state.to_json()}) + "\n")

    try:
        final: _Traced
        if core == "fast":
            from kahuna.fast.state import FastState

            final = record.replay_with(FastState.start_of, trace if args.trace else None)
        else:
            final = record.replay(trace if args.trace else None)
    except ReplayError as exc:
        out.flush()
        print(f"kahuna replay: illegal action at step {exc.step}: {exc.token!r}: {exc.message}", file=sys.stderr)
        return 1
    except RecordError as exc:
        out.flush()
        print(f"kahuna replay: malformed record: {exc}", file=sys.stderr)
        return 2
    out.write(json.dumps({"final": final.to_json()} if args.trace else final.to_json()) + "\n")
    return 0
