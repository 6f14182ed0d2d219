"""What the HTTP API asks of the puzzles (``http/puzzles.py``), built once by ``app.py``.

A client gets a puzzle as the seat's view and its legal actions, never the position's hidden cards
nor the accepted turns; its answer is checked here by the referee (:func:`kahuna.ai.puzzles.puzzle.check`):

* an action that is not legal is refused ``422 illegal`` with the referee's reason: nothing counts;
* actions that stay on an accepted turn without closing it are *right so far* (``correct`` null):
  nothing counts, and the answer adds the seat's ``view`` after them, its ``legal`` actions and the
  last action's ``events`` so that the client goes on (the browser asks after each action);
* a miss, or an accepted turn closed, is the answer: the solution is sent, with the seat's ``view``
  after the answer's actions (up to the miss) and the last one's ``events``, and its view after the
  solution (``solution_view``), so that a client shows both positions without knowing a rule; a
  signed-in account's first answer to the puzzle moves its puzzle rating and the puzzle's
  (Glicko-2); a guest's, and any later answer, moves nothing.

Every answer is budgeted per client address (``Limits.puzzle_attempts_*``). The daily puzzle is
a function of the date (UTC) and the shipped set alone (the stored puzzles not retired), the same on
every instance and in the terminal. A retired puzzle (one a set before held) is never offered, but
an answer to it (a page opened before the upgrade) is checked and counted as any other, and the
histories mark it (``retired``).
"""

from __future__ import annotations

import asyncio
import datetime
import random
from collections.abc import Callable
from typing import Any

from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.puzzles.shipped import read_set
from kahuna.rules import PlayerView, legal_actions_of, view_of
from kahuna.rules.foresight import close_islands, consequences
from kahuna.server.accounts.store import Account, account_by_name
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.puzzles import store

MAX_ACTIONS = 12
"""An answer holds at most this many actions (a turn is at most five card plays and a draw)."""
HISTORY = 50
"""A profile shows this many of the account's latest answers."""


def utc_day() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def shown(row: store.Row) -> dict[str, Any]:
    """A puzzle as a client sees it before answering: the seat's view only."""
    view = row.puzzle.view()
    return {
        "puzzle_id": row.puzzle.puzzle_id,
        "view": view.to_json(),
        "legal": [a.token for a in legal_actions_of(view)],
        "rating": round(row.rating),
        "themes": list(row.puzzle.themes),
        "foreseen": foreseen(view),
    }


def foreseen(view: PlayerView) -> dict[str, Any]:
    """What the referee foresees from the seat's own view, as a game's ``foreseen`` message carries
    it (docs/protocol.md): each legal action that causes more than itself with those events, and
    the islands one bridge would change. The screen-reader mode's lists read it; a client could
    work it out with the referee from the view it already has, so it tells nothing hidden."""
    return {
        "actions": {token: [e.to_json() for e in events] for token, events in consequences(view).items()},
        "close": [c.to_json() for c in close_islands(view)],
    }


class Puzzles:
    def __init__(
        self,
        writer: Writer,
        budget: Limiter,
        shipped: Callable[[], list[Puzzle]] = lambda: read_set()[0],
        today: Callable[[], str] = utc_day,
    ) -> None:
        self.writer = writer
        self.budget = budget
        self.shipped = shipped
        self.today = today
        self._loaded = False
        self._loading = asyncio.Lock()

    async def load(self) -> int:
        """Store the shipped puzzles the database lacks and retire those the set no longer holds
        (:func:`store.load`), once per process, at the first request that needs them (a server
        nobody asks for a puzzle spends nothing on them); instances may do it at once."""
        async with self._loading:
            if self._loaded:
                return 0
            puzzles = self.shipped()
            added = 0
            for _ in range(2):
                try:
                    added = await self.writer.transact(lambda conn: store.load(conn, puzzles))
                    break
                except Conflict:  # another instance stored them in the same moment: once more against
                    continue  # its rows (of another release, perhaps: this set retires or restores some)
            self._loaded = True
            return added

    async def daily(self) -> dict[str, Any]:
        await self.load()
        row = await self.writer.read(lambda conn: store.daily(conn, self.today()))
        if row is None:
            raise Rejected("not_found", "no puzzles are stored", 404)
        return shown(row)

    async def next(self, account: Account | None, above: float | None) -> dict[str, Any]:
        """A puzzle near the player's puzzle rating it has not answered (above ``above``: streaks)."""
        await self.load()
        account_id = None if account is None else account.id

        def choose(conn: Any) -> store.Row | None:
            rating = store.player_rating(conn, account_id).rating
            ids = store.nearest(conn, account_id, rating, above)
            return store.by_id(conn, random.choice(ids)) if ids else None

        row = await self.writer.read(choose)
        if row is None:
            raise Rejected("not_found", "no puzzle is left to play here", 404)
        return shown(row)

    async def attempt(
        self, puzzle_id: str, actions: list[str], account: Account | None, address: str
    ) -> dict[str, Any]:
        wait = await self.budget.take(address)
        if wait:
            raise Rejected("rate_limited", f"too many answers: try again in {wait:.0f} s", 429, retry_after=wait)
        if len(actions) > MAX_ACTIONS:
            raise Rejected("too_long", f"an answer holds at most {MAX_ACTIONS} actions", 422)
        await self.load()
        row = await self.writer.read(lambda conn: store.by_id(conn, puzzle_id))
        if row is None:
            raise Rejected("not_found", "no such puzzle", 404)
        verdict = check(row.puzzle, actions)
        if verdict.status == "refused":
            assert verdict.reason is not None
            if verdict.reason["code"] == "malformed":  # no action at all: the game socket's error too
                raise Rejected("malformed", f"{verdict.reason['token']!r} is not an action", 422, step=verdict.step)
            raise Rejected("illegal", "that action is not legal here", 422, reason=verdict.reason, step=verdict.step)
        if verdict.status == "open":
            return {"correct": None, "solution": None, "rating": None, **self._after(row.puzzle, actions)}
        correct = verdict.status == "correct"
        rating = None
        if account is not None and not account.is_bot:
            account_id = account.id
            try:
                counted = await self.writer.transact(lambda conn: store.record(conn, account_id, puzzle_id, correct))
            except Conflict:  # the same answer counted through another instance in the same moment
                counted = store.Counted(None, None)
            if counted.before is not None and counted.after is not None:
                rating = {"before": round(counted.before), "after": round(counted.after)}
        solution = list(row.puzzle.solutions[0])
        reached = self._after(row.puzzle, actions[: verdict.step + 1])
        return {
            "correct": correct,
            "solution": solution,
            "rating": rating,
            "view": reached["view"],
            "events": reached["events"],
            "solution_view": self._after(row.puzzle, solution)["view"],
        }

    @staticmethod
    def _after(puzzle: Puzzle, actions: list[str]) -> dict[str, Any]:
        """The seat's view after its own actions, its legal actions and the last action's events as
        the seat sees them: what the board needs to go on (right so far) or to show where the
        answer, or the solution, leads."""
        state = puzzle.game_state()
        events = []
        for token in actions:
            events = state.apply(token)
        view = view_of(state, puzzle.seat)
        to_move = view.to_move == puzzle.seat
        return {
            "view": view.to_json(),
            "legal": [a.token for a in legal_actions_of(view)] if to_move else [],
            "events": [e.seen_by(puzzle.seat).to_json() for e in events],
            "foreseen": foreseen(view) if to_move else None,
        }

    async def history(self, username: str) -> dict[str, Any]:
        """An account's puzzle rating and its latest counted answers (a profile's), each marked
        ``retired`` when the shipped set no longer holds its puzzle. The set is loaded first, as for
        any puzzle request: on a server just upgraded, the mark must not wait for someone to ask for
        a puzzle."""
        await self.load()

        def read(conn: Any) -> dict[str, Any] | None:
            account = account_by_name(conn, username)
            if account is None:
                return None
            rating = store.player_rating(conn, account.id)
            answers = store.history(conn, account.id, HISTORY)
            return {"username": account.username, "rating": round(rating.rating), "answers": answers}

        found = await self.writer.read(read)
        if found is None:
            raise Rejected("not_found", "no such player", 404)
        return found
