"""The games of a server, as the HTTP layer and the lobby use them: one object, built with what
differs between modes and with the rooms that hear of every end.

It holds the parts and hands each request to the module that checks it; the parts are:

- the :class:`~kahuna.server.games.engine.GameEngine`, the one place that changes a game;
- the :class:`~kahuna.server.games.registry.GameRegistry` of games in memory (load, evict, quarantine);
- the :class:`~kahuna.server.games.factory.GameFactory`, the one way a game starts;
- the deadlines of timed games and the loop that ends those whose clock ran out.

A new kind of request is a new module beside ``playing``, ``ending``, ``chat``, ``rematch``, ``takeback``,
``foresight``, ``joining`` and ``connections``, and one line here; a new room that must see games start or end
uses the factory or subscribes to the end hook (``ended.py``) and changes nothing here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from kahuna.clock import MIN_INITIAL
from kahuna.rules import Action
from kahuna.server.common.protocol import Foreseen
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db.writer import Writer
from kahuna.server.games import chat as chatting
from kahuna.server.games import connections, creating, ending, foresight, joining, playing
from kahuna.server.games import rematch as rematches
from kahuna.server.games import takeback as takebacks
from kahuna.server.games.client import Reply
from kahuna.server.games.creating import NewGame
from kahuna.server.games.deadlines import Deadlines, StoredDeadlines
from kahuna.server.games.ended import EndHooks
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.factory import FIRST_MOVE_GRACE, DealProvider, GameFactory
from kahuna.server.games.live import Client, LiveGame
from kahuna.server.games.ports import AiTurns, Notices, Replication
from kahuna.server.games.registry import GameRegistry
from kahuna.server.games.timeouts import end_timed_out_games


class GameService:
    def __init__(
        self,
        writer: Writer,
        replication: Replication,
        ai_turns: AiTurns,
        ended: EndHooks,
        deal_provider: DealProvider | None = None,
        idle_game_seconds: float = 300.0,
        clock_min_seconds: int = MIN_INITIAL,
        chat_lines_per_game: int = 500,
        spectator_chat_lines_per_game: int = 200,
        first_move_grace: float = FIRST_MOVE_GRACE,
        notices: Notices | None = None,
        left_claim_seconds: float = 30.0,
    ) -> None:
        self.writer = writer
        self.clock_min_seconds = clock_min_seconds
        self.chat_lines = chatting.RoomSizes(chat_lines_per_game, spectator_chat_lines_per_game)
        self.deadlines = Deadlines()
        self.engine = GameEngine(writer, replication, ai_turns, ended, self.deadlines, notices)
        self.registry = GameRegistry(writer, self.engine, idle_game_seconds, left_claim_seconds)
        self.factory = GameFactory(writer, self.registry, deal_provider, first_move_grace)
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping: list[Callable[[], None]] = []

    @property
    def games(self) -> dict[str, LiveGame]:
        """The games in memory, by id."""
        return self.registry.games

    # ----------------------------------------------------------------- life cycle

    def start(self) -> None:
        """Start dropping idle games from memory and ending games whose clock runs out."""
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self.registry.sweep()),
            loop.create_task(end_timed_out_games(self.deadlines, self.registry, self.engine)),
        ]

    async def resume_all(self) -> int:
        """Load every unfinished game: its clock runs and its pending AI turn restarts here (a
        server whose AI turns are its own). How many were loaded."""
        return await self.registry.resume_all()

    async def watch_stored_deadlines(self) -> int:
        """Load no game; watch the running clocks' deadlines in the database instead (a clustered
        instance whose AI turns are queued for workers: games load when asked for). How many
        deadlines were found."""
        stored = StoredDeadlines(self.writer, self.deadlines)
        found = await stored.start()
        self._stopping.append(stored.stop)
        return found

    async def stop(self) -> None:
        for task in self._tasks:
            await cancel_and_wait(task)
        for stop in self._stopping:
            stop()
        await self.engine.ai_turns.close()
        await self.engine.replication.close()

    # ----------------------------------------------------------------- lookup

    async def get(self, game_id: str) -> LiveGame | None:
        """The game, from memory or rebuilt from the database; ``Rejected`` (410) if it is damaged."""
        return await self.registry.get(game_id)

    async def my_games(self, tokens: list[str]) -> list[dict[str, Any]]:
        return await self.registry.my_games(tokens)

    def rename_seat(self, game_id: str, seat: int, name: str) -> None:
        """A seat's name changed outside the game (its account was deleted)."""
        game = self.registry.games.get(game_id)
        if game is not None:
            self.engine.rename(game, seat, name)

    # ----------------------------------------------------------------- what clients ask for

    async def create(self, spec: NewGame, owner: str = "", account: int | None = None) -> dict[str, Any]:
        return await creating.create(self.factory, spec, owner, self.clock_min_seconds, account)

    async def join(self, invite: str, name: str, account: int | None = None) -> dict[str, Any]:
        return await joining.join(self.registry, self.engine, invite, name, self.factory.first_move_grace, account)

    async def hello(self, game: LiveGame, client: Client, version: int | None) -> None:
        await connections.hello(self.engine, game, client, version)

    def leave(self, game: LiveGame, client: Client) -> None:
        connections.leave(self.engine, game, client)

    async def act(
        self,
        game: LiveGame,
        seat: int | None,
        action: Action,
        version: int,
        reply: Reply | None = None,
    ) -> None:
        await playing.act(self.engine, game, seat, action, version, reply)

    def foresee(self, game: LiveGame, client: Client, version: int) -> Foreseen:
        """What the referee foresees from the connection's view (the screen-reader mode asks)."""
        return foresight.foresee(game, client, version)

    async def resign(self, game: LiveGame, seat: int | None, reply: Reply | None = None) -> None:
        await ending.resign(self.engine, game, seat, reply)

    async def abort(self, game: LiveGame, seat: int | None, reply: Reply | None = None) -> None:
        await ending.abort(self.engine, game, seat, reply)

    async def claim(self, game: LiveGame, seat: int | None, draw: bool, reply: Reply | None = None) -> None:
        """``claim_victory`` (``draw`` false) or ``claim_draw``: the opponent left a real-time game."""
        await ending.claim(self.engine, game, seat, draw, reply)

    async def rematch(self, game: LiveGame, reply: Reply) -> None:
        await rematches.rematch(self.engine, self.factory, game, reply)

    async def takeback(self, game: LiveGame, reply: Reply) -> None:
        await takebacks.takeback(self.engine, game, reply)

    async def decline_takeback(self, game: LiveGame, reply: Reply) -> None:
        await takebacks.decline(self.engine, game, reply)

    async def chat(self, game: LiveGame, reply: Reply, text: str, shadow: int | None = None) -> None:
        await chatting.chat(self.engine, game, reply, text, self.chat_lines, shadow)

    async def hide_line(self, game_id: str, line_id: int, hidden: bool) -> None:
        """A moderator hid (or showed again) a chat line: the game here, if in memory, and the
        other instances follow (``GameEngine.hide_line``)."""
        game = self.registry.games.get(game_id)
        if game is not None:
            async with game.lock:
                self.engine.hide_line(game, line_id, hidden)
        self.engine.replication.line_hidden(game_id, line_id, hidden)

    async def names_changed(self, game_ids: list[str]) -> None:
        """A player of these games was renamed (``moderation``): each reloads here, if in memory,
        and on the other instances, and its connections get a ``sync`` with the new name."""
        for game_id in game_ids:
            game = self.registry.games.get(game_id)
            if game is not None:
                async with game.lock:
                    await self.engine.refresh(game)
            self.engine.replication.reload(game_id)
