"""The database layer without a server: group commit, failure isolation, and rebuilding by replay."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from sqlalchemy import Connection, text
from stored_games import stored_game

from kahuna.rules import GameState
from kahuna.server.db import store
from kahuna.server.db.store import ActionRow, StoredGame
from kahuna.server.db.writer import Writer
from kahuna.server.games.live import rebuild


def _game(game_id: str, deal: str) -> StoredGame:
    return stored_game(game_id, deal, seat_tokens=["d0-" + game_id, "d1-" + game_id])


def test_concurrent_writes_are_committed_and_a_bad_one_fails_alone(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    rng = random.Random(11)
    state = GameState.new(rng)
    assert state.deal is not None
    played: list[ActionRow] = []
    while not state.is_over:  # a whole game, with its reshuffles, as the service would store it
        before = len(state.reshuffles)
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        seat = state.to_move
        state.apply(action)
        new = tuple(enumerate(state.reshuffles))[before:]
        result = None if state.outcome is None else state.outcome.to_json()
        status = "over" if state.is_over else "playing"
        played.append(ActionRow("g1", len(played), seat, action.token, new, status, result, "2026-11-29T10:00:01Z"))

    def broken(conn: Connection) -> None:
        conn.execute(text("INSERT INTO no_such_table VALUES (1)"))

    async def scenario() -> list[BaseException | None]:
        writer = Writer(engine)
        writer.start()
        await writer.write(lambda conn: store.insert_game(conn, _game("g1", state.deal or "")))
        writes = [writer.write(row) for row in played]
        outcomes = await asyncio.gather(*writes, writer.write(broken), return_exceptions=True)
        await writer.close()
        return list(outcomes)

    outcomes = asyncio.run(scenario())
    assert outcomes[:-1] == [None] * len(played)
    assert isinstance(outcomes[-1], RuntimeError)
    with engine.connect() as conn:
        stored = store.load_game(conn, "g1")
        assert store.unfinished_game_ids(conn) == []
        assert store.seats_of_tokens(conn, ["d1-g1", "unknown"]) == [("d1-g1", "g1", 1)]
    assert stored is not None and stored.status == "over"
    assert stored.actions == [a.token for _, a in state.history]
    assert stored.reshuffles == state.reshuffles
    rebuilt = rebuild(stored)
    assert rebuilt.state.to_json() == state.to_json()
    assert rebuilt.state.rng is not None


def test_a_record_that_does_not_replay_is_refused(tmp_path: Path) -> None:
    deal = GameState.new(random.Random(12)).deal or ""
    broken = _game("g2", deal)
    broken.actions = ["end"]  # not legal as the first action
    with pytest.raises(ValueError):
        rebuild(broken)


def test_a_game_rebuilt_from_the_database_keeps_its_ai_pool_owner(tmp_path: Path) -> None:
    """A tournament's AI board counts against the event's creator in the AI pool, after a restart
    too (issue 45: a rebuilt game was its own owner); a game stored without one is its own."""
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    deal = GameState.new(random.Random(13)).deal or ""
    with engine.begin() as conn:
        store.insert_game(conn, stored_game("owned", deal, owner="tournament-creator:7"))
        store.insert_game(conn, stored_game("plain", deal))
    owners = {}
    with engine.connect() as conn:
        for game_id in ("owned", "plain"):
            stored = store.load_game(conn, game_id)
            assert stored is not None
            owners[game_id] = rebuild(stored).owner
    assert owners == {"owned": "tournament-creator:7", "plain": "plain"}
