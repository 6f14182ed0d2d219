"""``kahuna admin archive --older-than DAYS``: the server's archiving pass, by hand, on a database
a server may be using at the same time (``db/archive.py``, ``db/guests.py``).

Why a command besides the server's own pass: after an upgrade, or with ``--archive-after 0``, an
operator folds a large backlog at a time of their choosing and sees it progress. Each batch is one
transaction of its own, so stopping it (Ctrl-C) loses at most the batch in flight, which is rolled
back, and running it again goes on where it stopped. A game a running server holds in memory
cannot be seen from here; a finished game is not written again, and if its chat gets a line in the
moment it is folded, the server refuses that line (``games/chat.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from sqlalchemy import Engine

from kahuna.server.db import archive, guests
from kahuna.server.db.housekeeping import cut_off

BAR = 30
"""Characters of the progress bar."""


@dataclass(frozen=True)
class Done:
    """What a run did."""

    archived: int
    deleted: int
    due: int
    """Finished games old enough to archive when the run started."""


class Progress:
    """A progress bar on a terminal (``\\r`` redrawn in place) when the run takes more than one
    batch, nothing elsewhere (a log file)."""

    def __init__(self, total: int, batch: int, out: TextIO) -> None:
        self.total = total
        self.out = out
        self.shown = out.isatty() and total > batch

    def __call__(self, done: int) -> None:
        if not self.shown:
            return
        filled = BAR * done // max(self.total, 1)
        self.out.write(f"\rarchiving [{'#' * filled}{' ' * (BAR - filled)}] {done:,}/{self.total:,}")
        if done >= self.total:
            self.out.write("\n")
        self.out.flush()


def run(
    engine: Engine,
    older_than_days: float,
    guest_games_after_days: float | None,
    batch: int = archive.BATCH,
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
) -> Done:
    """Delete guests' old aborted and abandoned games (if ``guest_games_after_days`` is given), then
    archive every finished game that ended more than ``older_than_days`` ago, ``batch`` games per
    transaction; ``progress(total, batch)`` makes the callback told how many are archived after
    each batch."""
    deleted = 0
    if guest_games_after_days is not None:
        before = cut_off(guest_games_after_days)
        while True:
            with engine.begin() as conn:
                gone = guests.delete_games(conn, guests.due(conn, before, batch), before)
            if not gone:
                break
            deleted += gone
    ended_before = cut_off(older_than_days)
    with engine.connect() as conn:
        due = archive.count_due(conn, ended_before)
    tell = progress(due, batch) if progress is not None else None
    archived = 0
    while True:
        with engine.begin() as conn:
            folded = archive.archive_games(conn, archive.due(conn, ended_before, batch))
        if not folded:
            break
        archived += folded
        if tell is not None:
            tell(min(archived, due))
    return Done(archived, deleted, due)


def terminal_progress(total: int, batch: int) -> Callable[[int], None]:
    """The progress bar of ``kahuna admin archive`` on standard error."""
    return Progress(total, batch, sys.stderr)
