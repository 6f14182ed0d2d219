"""Drive ``kahuna play`` / ``kahuna show`` through a pseudo-terminal, as a person would."""

from __future__ import annotations

import os
import random
import re
import signal
import sys
from pathlib import Path

import pexpect

from kahuna.rules.board import LETTERS, NAMES

PROMPT = r"\n(Black|White)> "
TOKEN = re.compile(r"^(?:[A-L]>[A-L]|x[A-L]{2}:[A-L]{2}\+?|-[A-L]|d[A-L?]|pass|end)$")
ISLAND_NAMES = dict(zip(LETTERS, NAMES, strict=True))


def interruptible() -> None:
    """Give a child Ctrl-C back: a suite started in the background by a shell without job control
    (``make test &``) inherits SIGINT ignored, and a child that ignores it cannot show what a
    person's Ctrl-C does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(args: list[str], home: Path, timeout: float = 20) -> pexpect.spawn:
    env = dict(os.environ, NO_COLOR="1", XDG_DATA_HOME=str(home), TERM="xterm", COLUMNS="80", LINES="24")
    env.pop("KAHUNA_DATA", None)  # saved games go under ``home``, whatever the caller's setting
    return pexpect.spawn(
        sys.executable,
        ["-m", "kahuna", *args],
        env=env,
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=timeout,
        preexec_fn=interruptible,
    )


def legal_tokens(child: pexpect.spawn) -> list[str]:
    """Ask ``legal`` at a prompt and read the tokens it lists."""
    child.sendline("legal")
    child.expect(PROMPT)
    listing = child.before.split("You can now:")[-1]
    return [w for line in listing.splitlines() for w in line.split(":", 1)[-1].split() if TOKEN.match(w)]


def friendly(token: str, rng: random.Random) -> str:
    """The token itself or one of the word forms the game accepts for it."""
    if rng.random() < 0.5:
        return token
    if ">" in token:
        a, b = token.split(">")
        return f"{ISLAND_NAMES[a].lower()} {ISLAND_NAMES[b].lower()}" if rng.random() < 0.5 else f"{a} {b}"
    if token.startswith("x"):
        return f"remove {token[1:3]} with {token[4]} {token[5]}"
    if token.startswith("-"):
        return f"discard {token[1]}"
    if token == "d?":
        return "draw"
    if token.startswith("d"):
        return f"draw {token[1]}"
    return token


def choose(tokens: list[str], plays_this_turn: int, rng: random.Random) -> str:
    """A simple player: a few builds or removals, then take a card (or end, or make room)."""
    plays = [t for t in tokens if ">" in t or t.startswith("x")]
    if plays and plays_this_turn < 3 and rng.random() < 0.7:
        return rng.choice(plays)
    ends = [t for t in tokens if t.startswith("d")] or [t for t in tokens if t == "end"]
    if ends:
        return rng.choice(ends)
    discards = [t for t in tokens if t.startswith("-")]
    if discards and "pass" not in tokens:
        return rng.choice(discards)
    return "pass" if "pass" in tokens else rng.choice(tokens)
