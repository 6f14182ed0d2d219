"""The terminal itself: whole-screen redraws, a prompt, pauses; nothing about the game.

On a terminal a frame clears the screen first (which is also what hides a hand between
hot-seat turns); into a pipe or file, frames are simply written one after another.
"""

from __future__ import annotations

import select
import shutil
import sys
import time
from typing import TextIO

from kahuna.tui.style import Style, wants_colour

CLEAR = "\x1b[H\x1b[2J\x1b[3J"


class Terminal:
    def __init__(self, no_color: bool = False, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.is_tty = self.out.isatty()
        self.style = Style(wants_colour(self.out, no_color))

    def size(self) -> tuple[int, int]:
        """Columns and rows (80×24 when unknown), never below what the layout needs."""
        cols, rows = shutil.get_terminal_size((80, 24))
        return max(cols, 80), max(rows, 24)

    def show(self, lines: list[str]) -> None:
        """Replace the screen with ``lines``."""
        if self.is_tty:
            self.out.write(CLEAR)
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def error(self, text: str) -> None:
        """A one-line complaint about the command line or a file, on standard error."""
        print(text, file=sys.stderr)

    def ask(self, prompt: str, timeout: float | None = None) -> str:
        """One line of input; ``EOFError`` on end of input, ``KeyboardInterrupt`` on Ctrl-C, and
        ``TimeoutError`` when ``timeout`` seconds pass with no complete line (a clock ran out)."""
        if timeout is None:
            self.out.flush()
            return input(prompt)
        self.out.write(prompt)
        self.out.flush()
        ready, _, _ = select.select([sys.stdin], [], [], max(0.0, timeout))
        if not ready:
            self.out.write("\n")
            raise TimeoutError
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)
