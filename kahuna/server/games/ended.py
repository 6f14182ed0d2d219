"""The one hook that sees every game's end: on the board, by resignation, by timeout or abort.

The engine runs each subscriber inside the transaction that stores the end, so what a subscriber
writes (a rating change, a tournament's standing, a notification to send) is committed with the
end or not at all, and exactly once however many instances race to end the game (the loser's
transaction is rolled back: ``db/claims.py``). Subscribers are given when the engine is built
(``kahuna/server/wiring.py``); a room that must learn of ends subscribes there and the game core
does not change. A subscriber runs in the database writer's thread: it writes rows, quickly, and
does nothing else; work outside the database (mail, push) reads what it wrote, later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import Connection

from kahuna.rules import GameState


@dataclass(frozen=True)
class GameEnded:
    """A game that has just ended; ``state.outcome`` says how (``reason``, ``winner``)."""

    game_id: str
    state: GameState
    """The final state: its outcome, history and termination (if it ended off the board)."""
    at: str
    """When it ended, as the database writes time stamps."""
    kinds: tuple[str, str]
    names: tuple[str | None, str | None]


EndSubscriber = Callable[[Connection, GameEnded], object]
"""Called with the ending transaction's connection; raising fails the end (nothing is stored)."""


class EndHooks:
    """The subscribers of game ends, in the order they were given."""

    def __init__(self, subscribers: Iterable[EndSubscriber] = ()) -> None:
        self._subscribers = tuple(subscribers)

    def run(self, conn: Connection, ended: GameEnded) -> None:
        for subscriber in self._subscribers:
            subscriber(conn, ended)
