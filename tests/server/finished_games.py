"""Finished games of realistic length written straight into a database: played to the end on the
referee with random legal actions (as ``kahuna serve`` stores them: an action row per action, the
reshuffle orders, the clock, chat lines, the accounts of a lobby game), for the archive's tests and
``tools/archive_bytes.py``'s measurement."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import Connection
from stored_games import stored_game

from kahuna.rules import GameState
from kahuna.server.common.tokens import digest
from kahuna.server.db import schema, store

CLOCK = {"control": {"initial": 300, "increment": 5}, "remaining": [300.0, 300.0], "running": None, "since": None}
JANUARY = 1_767_225_600.0
"""1 January 2026 in seconds since the epoch."""


def seat_token(game_id: str, seat: int) -> str:
    """The seat token of a game written here (the database keeps its digest)."""
    return f"{game_id}-seat-{seat}"


def _played(seed: int) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(rng)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    return state


def _stamp(day: int, second: int) -> str:
    return f"2026-01-{day:02d}T{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


def _clock_after(clock: dict[str, Any], seq: int, seat: int, last: bool, day: int) -> dict[str, Any]:
    """The clock after action ``seq`` (``seat``'s): the other seat's runs, none after the last."""
    running = None if last else 1 - seat
    since = None if last else JANUARY + (day - 1) * 86_400 + 7 * seq + 5
    return {**clock, "remaining": [300.0 - seq / 3, 301.5], "running": running, "since": since}


def write_finished(
    conn: Connection,
    game_id: str,
    seed: int,
    *,
    accounts: tuple[int | None, int | None] | None = None,
    timed: bool = True,
    chat: int = 2,
    day: int = 2,
) -> None:
    """A game played to its end on ``day`` of January 2026: seat tokens, the clock (``timed``),
    ``chat`` lines, and with ``accounts`` a ``game_accounts`` row and the seats bound to them."""
    state = _played(seed)
    tokens: list[str | None] = [digest(seat_token(game_id, seat)) for seat in (0, 1)]
    clock = {**CLOCK, "starts_by": None} if timed else None
    start = stored_game(
        game_id, state.deal or "", seat_tokens=tokens, created=_stamp(day, 0), updated=_stamp(day, 0), clock=clock
    )
    store.insert_game(conn, start)
    if accounts is not None:
        store.bind_seat_accounts(conn, game_id, accounts)
        store.insert_game_accounts(conn, game_id, accounts, rated=False, pool=None)
    rows = []
    history = list(state.history)
    for seq, (seat, action) in enumerate(history):
        last = seq == len(history) - 1
        assert state.outcome is not None
        rows.append(
            store.ActionRow(
                game_id=game_id,
                seq=seq,
                seat=seat,
                token=action.token,
                new_reshuffles=tuple(enumerate(state.reshuffles)) if last else (),
                status="over" if last else "playing",
                result=state.outcome.to_json() if last else None,
                at=_stamp(day, 7 * seq + 5),
                clock=None if clock is None else _clock_after(clock, seq, seat, last, day),
            )
        )
    store.insert_actions(conn, rows)
    for seq in range(chat):
        line = {"room": "players", "seat": seq % 2, "text": f"line {seq} of {game_id}", "at": _stamp(day, 9 * seq)}
        store.insert_chat(conn, game_id, seq, line)


def archived_of(conn: Connection, game_ids: list[str]) -> int:
    """How many of the games are archived (their record in ``games.archive``)."""
    games = schema.games
    return len(conn.execute(games.select().where(games.c.id.in_(game_ids), games.c.archive.is_not(None))).all())


def rows_of(conn: Connection, table: str, game_ids: list[str]) -> int:
    """How many rows of ``table`` belong to the games."""
    column = getattr(schema, table).c.game_id
    return len(conn.execute(getattr(schema, table).select().where(column.in_(game_ids))).all())
