"""The end race between two instances, decided by PostgreSQL: a game's last action stored by one
instance while the other stores another action at the same version. The loser must be told
``stale_version`` (its action came second), never ``server_error``.

Each instance is a real :class:`GameService` with its own database writer (the thread and
connection a ``kahuna serve`` has), on one PostgreSQL database; only replication and AI turns are
left out (nothing here needs them).
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from scale_harness import database, pg_url
from sqlalchemy import Connection, Engine, select, text
from stored_games import stored_game

from kahuna.rules import Action, GameState
from kahuna.server.accounts.store import insert_account
from kahuna.server.common.errors import Rejected
from kahuna.server.db import schema, store
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Writer, insert_unfinished
from kahuna.server.games.live import LiveGame
from kahuna.server.games.ports import AiMoves, SingleInstance
from kahuna.server.games.service import GameService
from kahuna.server.wiring import end_hooks

__all__ = ["database", "pg_url"]

pytestmark = [pytest.mark.pg, pytest.mark.long]  # two instances: make test-all (docs/testing.md, *Markers*)


class NoAiTurns:
    """Both seats are people here: no AI turn is ever due."""

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        return

    def thinking(self, game: LiveGame) -> bool:
        return False

    async def close(self) -> None:
        return


@dataclass(frozen=True)
class LastMove:
    """A game one action before its end: the action that ends it and one that does not."""

    game_id: str
    seat: int
    version: int
    ending: Action
    other: Action


def _near_the_end(seed: int) -> tuple[GameState, list[ActionRow], Action, Action]:
    """Random play (``seed``) up to the first position where one legal action ends the game and
    another does not; the rows of the actions so far, as the engine stores them."""
    rng = random.Random(seed)
    state = GameState.new(rng)
    rows: list[ActionRow] = []
    while True:
        legal = state.legal_actions()
        outcomes = []
        for action in legal:
            after = state.copy()
            after.apply(action)
            outcomes.append(after.is_over)
        if any(outcomes) and not all(outcomes):
            ending = legal[outcomes.index(True)]
            other = legal[outcomes.index(False)]
            return state, rows, ending, other
        before = state.copy()
        action = rng.choice(legal)
        seat = state.to_move
        state.apply(action)
        assert not state.is_over
        fresh = tuple(enumerate(state.reshuffles))[len(before.reshuffles) :]
        rows.append(ActionRow("", len(rows), seat, action.token, fresh, "playing", None, "2026-01-01T00:00:01Z"))


def _store_game(engine: Engine, game_id: str, seed: int) -> LastMove:
    state, rows, ending, other = _near_the_end(seed)
    assert state.deal is not None
    with engine.begin() as conn:
        store.insert_game(conn, stored_game(game_id, state.deal))
        store.insert_actions(conn, [ActionRow(game_id, *_fields(row)) for row in rows])
    return LastMove(game_id, state.to_move, len(rows), ending, other)


def _fields(row: ActionRow) -> tuple[Any, ...]:
    return row.seq, row.seat, row.token, row.new_reshuffles, row.status, row.result, row.at, row.clock


def _instance(engine: Engine) -> GameService:
    """One instance's game service: its own writer (thread and connection) on the shared database."""
    writer = Writer(engine)
    writer.start()
    return GameService(writer, SingleInstance(), NoAiTurns(), end_hooks())


async def _answer(service: GameService, game: LiveGame, seat: int, action: Action, version: int) -> str:
    """What a client would be told: ``ack``, or the error's code."""
    try:
        await service.act(game, seat, action, version)
    except Rejected as exc:
        return exc.code
    return "ack"


def _lock_waits(conn: Connection) -> int:
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    waiting = int(conn.execute(text(query)).scalar() or 0)
    conn.rollback()  # the statistics are a snapshot per transaction: the next look needs a new one
    return waiting


async def _until_waiting(watch: Connection, transactions: int = 1) -> None:
    """Until ``transactions`` transactions of this database wait for a lock (the event the race needs)."""
    for _ in range(2000):
        if await asyncio.to_thread(_lock_waits, watch) >= transactions:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("no transaction waited for a lock")


def test_the_last_action_meeting_another_instance_s_action_is_answered_stale_version(database: Engine) -> None:
    """Instance B's writer has inserted an action at version v, share-locking the game's row
    (``insert_unfinished``), when instance A stores the last action at version v; B then commits.
    The two transactions must not deadlock (PostgreSQL would fail one of them after
    ``deadlock_timeout``, a ``server_error`` for its player): A's player is told ``stale_version``
    and A catches up with B's action."""
    move = _store_game(database, "lastrace0001", seed=1)

    async def scenario() -> tuple[str, int]:
        a = _instance(database)
        try:
            game = await a.get(move.game_id)
            assert game is not None and game.version == move.version
            with database.connect() as b_conn, database.connect() as watch:
                b_tx = b_conn.begin()
                other = ActionRow(move.game_id, move.version, move.seat, move.other.token, (), "playing", None, "x")
                insert_unfinished(b_conn, [other])  # B's batch
                last = asyncio.create_task(_answer(a, game, move.seat, move.ending, move.version))
                await _until_waiting(watch)  # A's transaction waits for B's share lock
                await asyncio.to_thread(b_tx.commit)
                answer = await last
            return answer, game.version
        finally:
            await a.writer.close()

    answer, version = asyncio.run(scenario())
    assert answer == "stale_version"
    assert version == move.version + 1  # A caught up with B's action


@pytest.mark.slow
def test_many_end_races_between_two_instances_are_never_a_server_error(database: Engine) -> None:
    """Forty races as they happen: the last action through instance A and another action at the
    same version through instance B, sent at the same moment. Exactly one is stored; the other is
    told ``stale_version``."""
    races = 40
    moves = [_store_game(database, f"endrace{n:05d}", seed=100 + n) for n in range(races)]
    answers: dict[str, int] = {}
    lock = threading.Lock()

    async def scenario() -> None:
        a, b = _instance(database), _instance(database)
        try:
            for move in moves:
                on_a, on_b = await a.get(move.game_id), await b.get(move.game_id)
                assert on_a is not None and on_b is not None
                pair = await asyncio.gather(
                    _answer(a, on_a, move.seat, move.ending, move.version),
                    _answer(b, on_b, move.seat, move.other, move.version),
                )
                assert sorted(pair).count("ack") == 1 or "server_error" in pair, pair
                with lock:
                    for answer in pair:
                        answers[answer] = answers.get(answer, 0) + 1
        finally:
            await a.writer.close()
            await b.writer.close()

    asyncio.run(scenario())
    print(f"\n{races} end races: {answers}")
    assert answers.get("server_error", 0) == 0, answers
    assert answers == {"ack": races, "stale_version": races}


def _both_finished_a_turn(seed: int) -> tuple[str, list[ActionRow]]:
    """Random play (``seed``) until both seats have finished a turn (a game that rates): the deal
    and the rows."""
    rng = random.Random(seed)
    state = GameState.new(rng)
    rows: list[ActionRow] = []
    while {seat for seat, action in state.history if action.ends_turn} != {0, 1}:
        before, seat, action = state.copy(), state.to_move, rng.choice(state.legal_actions())
        state.apply(action)
        fresh = tuple(enumerate(state.reshuffles))[len(before.reshuffles) :]
        rows.append(ActionRow("", len(rows), seat, action.token, fresh, "playing", None, "2026-01-01T00:00:01Z"))
    assert state.deal is not None
    return state.deal, rows


def _rated_game(conn: Connection, game_id: str, seat_accounts: tuple[int, int], seed: int) -> None:
    deal, rows = _both_finished_a_turn(seed)
    store.insert_game(conn, stored_game(game_id, deal))
    store.insert_actions(conn, [ActionRow(game_id, *_fields(row)) for row in rows])
    store.insert_game_accounts(conn, game_id, seat_accounts, True, "realtime")


def test_two_games_of_the_same_two_people_resigned_at_once_on_two_instances_both_end(database: Engine) -> None:
    """Alice is Black in one game and White in the other, both against Bob, both rated; each is
    resigned through its own instance at the same moment. Each end updates both players' ratings
    in its transaction; locking them in seat order (Alice then Bob in one, Bob then Alice in the
    other) would deadlock and answer one resignation ``server_error``. The test holds Alice's rating
    row until both ends wait for a lock, so that they meet in that order every time; both games
    must end, each rated once for each player."""
    with database.begin() as conn:
        alice, bob = insert_account(conn, "alice", None), insert_account(conn, "bob", None)
        assert alice is not None and bob is not None
        for account in (alice, bob):
            conn.execute(
                schema.ratings.insert().values(
                    account_id=account.id, pool="realtime", rating=1500.0, deviation=200.0, volatility=0.06, games=1
                )
            )
        _rated_game(conn, "ratedrace001", (alice.id, bob.id), seed=5)
        _rated_game(conn, "ratedrace002", (bob.id, alice.id), seed=6)

    async def scenario() -> list[str]:
        a, b = _instance(database), _instance(database)
        try:
            first, second = await a.get("ratedrace001"), await b.get("ratedrace002")
            assert first is not None and second is not None
            with database.connect() as holder, database.connect() as watch:
                held = holder.begin()
                holder.execute(
                    select(schema.ratings)
                    .where(schema.ratings.c.account_id == alice.id)
                    .with_for_update()
                )  # fmt: skip
                on_a = asyncio.create_task(_resigned(a, first, seat=1))  # Bob resigns; locks Alice's row first
                await _until_waiting(watch, 1)
                on_b = asyncio.create_task(_resigned(b, second, seat=1))  # Alice resigns; Bob's row first
                await _until_waiting(watch, 2)
                await asyncio.to_thread(held.commit)
                return [await on_a, await on_b]
        finally:
            await a.writer.close()
            await b.writer.close()

    answers = asyncio.run(scenario())
    assert answers == ["ended", "ended"], answers
    with database.connect() as conn:
        rated = conn.execute(select(schema.rating_history.c.game_id)).scalars().all()
    assert sorted(rated) == ["ratedrace001", "ratedrace001", "ratedrace002", "ratedrace002"]


async def _resigned(service: GameService, game: LiveGame, seat: int) -> str:
    try:
        await service.resign(game, seat)
    except Rejected as exc:
        return exc.code
    return "ended"
