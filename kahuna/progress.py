"""A small progress bar on standard error for long runs (bench, arena), silent when asked."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress(total, "games") as bar: bar.advance()`` draws ``[####    ] 12/50 games 3.1/s``.

    It redraws at most ten times a second and only on a terminal, unless ``force`` is set;
    figures that matter are printed by the caller, never by the bar.
    """

    def __init__(self, total: int, unit: str, *, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.total = max(total, 0)
        self.unit = unit
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._start = time.perf_counter()
        self._last = 0.0

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self._draw(force=True)
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, n: int = 1, note: str = "") -> None:
        self.done += n
        self._draw(note=note)

    def _draw(self, force: bool = False, note: str = "") -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = width if not self.total else width * self.done // self.total
        rate = self.done / (now - self._start) if now > self._start else 0.0
        line = f"\r[{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total} {self.unit} {rate:.1f}/s {note}"
        self.stream.write(line[:120])
        self.stream.flush()
