"""A game whose AI turn is being computed in this process stays in memory, however long nobody has
used it: the registry asks the AI's scheduler (``AiTurns.thinking``), which holds the turn's task,
before it drops an idle game (the game itself holds no task: the engine alone writes it)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from stored_games import stored_game

from kahuna.rules import GameState
from kahuna.server.db import store
from kahuna.server.db.writer import Writer
from kahuna.server.games.ended import EndHooks
from kahuna.server.games.live import LiveGame, rebuild
from kahuna.server.games.ports import AiMoves, SingleInstance
from kahuna.server.games.service import GameService


class ThinkingOn:
    """AI turns that are under way in the games named (computed nowhere: the scheduler's answer is
    what the registry reads)."""

    def __init__(self, *game_ids: str) -> None:
        self.game_ids = set(game_ids)

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        return

    def thinking(self, game: LiveGame) -> bool:
        return game.game_id in self.game_ids

    async def close(self) -> None:
        return


def test_an_idle_game_whose_ai_is_thinking_stays_in_memory(tmp_path: Path) -> None:
    deal = GameState.new(random.Random(5)).deal
    assert deal is not None

    async def scenario() -> list[str]:
        writer = Writer(store.open_engine(f"sqlite:///{tmp_path / 'k.db'}"))
        writer.start()
        # idle_game_seconds below zero: every game nobody holds counts as unused for long enough
        service = GameService(writer, SingleInstance(), ThinkingOn("thinking"), EndHooks(), idle_game_seconds=-1.0)
        try:
            for game_id in ("thinking", "waiting"):
                service.games[game_id] = rebuild(stored_game(game_id, deal))
            assert service.registry.evict_idle() == 1
            return sorted(service.games)
        finally:
            await writer.close()

    assert asyncio.run(scenario()) == ["thinking"]
