"""The games held in memory: found by id or invite, loaded from the database when asked for,
dropped when idle, quarantined when damaged.

Games live in memory only while they are used: one nobody has touched for ``idle_game_seconds``
leaves memory and is loaded from the database again when asked for. A game whose stored record
cannot be loaded is quarantined (logged once with its id, answered ``410 damaged``) and every other
game is served as usual.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import digest
from kahuna.server.db import store
from kahuna.server.db.store import StoredGame
from kahuna.server.db.writer import Writer
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame, rebuild
from kahuna.server.games.room import Room
from kahuna.server.ops import metrics

SWEEP_EVERY = 5.0
"""Seconds between two looks for idle games to drop from memory."""


def _valid_game_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in game_id)


def damaged(game_id: str) -> Rejected:
    return Rejected("damaged", f"game {game_id!r} cannot be loaded: its stored record is damaged", 410)


class GameRegistry:
    def __init__(
        self, writer: Writer, engine: GameEngine, idle_game_seconds: float = 300.0, left_claim_seconds: float = 30.0
    ) -> None:
        self.writer = writer
        self.engine = engine
        self.idle_game_seconds = idle_game_seconds
        self.left_claim_seconds = left_claim_seconds
        """Given to the room of every game held (``--limit left_claim_seconds``, ``games/ending.claim``)."""
        self.games: dict[str, LiveGame] = {}
        self.invites: dict[str, str] = {}
        """Game id by the digest of its invite (games in memory waiting for their invited player)."""
        self.damaged: set[str] = set()
        """Ids of games whose stored record cannot be loaded (quarantined until restart)."""
        metrics.track(metrics.GAMES_HELD, lambda: len(self.games))  # a dict's len is safe from the scrape's thread

    def add(self, stored: StoredGame) -> LiveGame:
        """Hold a game that has just been created (``games/factory.py``), built from its stored row."""
        game = self._rebuild(stored)
        self._hold(game)
        return game

    def _rebuild(self, stored: StoredGame) -> LiveGame:
        """The game of a stored row, with a room of this server's (its claim delay)."""
        return rebuild(stored, Room(left_claim_seconds=self.left_claim_seconds))

    def _hold(self, game: LiveGame) -> None:
        self.games[game.game_id] = game
        if game.invite is not None:
            self.invites[game.invite] = game.game_id
        self.engine.enter(game)

    def correspondence_seats(self) -> list[tuple[str, int]]:
        """The seats of correspondence games held here that have a connection to this instance
        (the reminders of ``mail/reminders.py`` wait until a seat has been away)."""
        return [
            (game.game_id, seat)
            for game in self.games.values()
            if game.clock is not None and game.clock.control.correspondence
            for seat in (0, 1)
            if game.room.local_online()[seat]
        ]

    async def get(self, game_id: str) -> LiveGame | None:
        """The game, from memory or rebuilt from the database; ``Rejected`` (410) if it is damaged."""
        game = self.games.get(game_id)
        if game is None and _valid_game_id(game_id):
            game = await self._load(game_id)
        if game is not None:
            game.room.touch()
        return game

    async def _load(self, game_id: str) -> LiveGame | None:
        if game_id in self.damaged:
            raise damaged(game_id)
        try:
            stored = await self.writer.read(lambda conn: store.load_game(conn, game_id))
            if stored is None:
                return None
            rebuilt = self._rebuild(stored)
        except Exception as exc:  # a damaged row or page must cost this game only, not the server
            self.damaged.add(game_id)
            logs.event("game_quarantined", game_id=game_id, error=type(exc).__name__)
            raise damaged(game_id) from None
        game = self.games.get(game_id)  # loaded by a concurrent request meanwhile
        if game is None:
            self._hold(rebuilt)
            game = rebuilt
        return game

    async def of_invite(self, invite: str) -> LiveGame | None:
        """The game an invite code is for (in memory or in the database)."""
        invite_digest = digest(invite)
        game_id = self.invites.get(invite_digest)
        if game_id is None:
            game_id = await self.writer.read(lambda conn: store.game_id_of_invite(conn, invite_digest))
        return None if game_id is None else await self.get(game_id)

    async def my_games(self, tokens: list[str]) -> list[dict[str, Any]]:
        """The summaries of the games whose seat tokens a browser holds (unknown or damaged: left out)."""
        by_digest = {digest(t): t for t in tokens}
        rows = await self.writer.read(lambda conn: store.seats_of_tokens(conn, list(by_digest)))
        out = []
        for token_digest, game_id, seat in rows:
            try:
                game = await self.get(game_id)
            except Rejected:  # damaged: left out, as an unknown token is
                continue
            if game is not None:
                out.append({"game_id": game_id, "seat": seat, "token": by_digest[token_digest], **game.summary()})
        out.sort(key=lambda g: str(g["updated"]), reverse=True)
        return out

    async def resume_all(self) -> int:
        """Load every unfinished game (which restarts pending AI turns and clocks); damaged games are
        quarantined, not fatal. How many were loaded."""
        try:
            ids = await self.writer.read(store.unfinished_game_ids)
        except Exception as exc:  # a damaged index: serve what can be loaded, game by game
            logs.event("resume_failed", error=type(exc).__name__)
            return 0
        resumed = 0
        for game_id in ids:
            try:
                game = await self.get(game_id)
            except Rejected:
                continue
            if game is not None:
                resumed += 1
        return resumed

    async def sweep(self) -> None:
        """Drop idle games from memory, every :data:`SWEEP_EVERY` seconds (or sooner when games idle sooner)."""
        while True:
            await asyncio.sleep(min(SWEEP_EVERY, self.idle_game_seconds))
            self.evict_idle()

    def evict_idle(self) -> int:
        """Drop the games nobody uses from memory (their record is in the database)."""
        now_ = time.monotonic()
        thinking = self.engine.ai_turns.thinking
        idle = [game for game in self.games.values() if game.idle(now_, self.idle_game_seconds) and not thinking(game)]
        for game in idle:
            del self.games[game.game_id]
            self.engine.leave(game)
            if game.invite is not None:
                self.invites.pop(game.invite, None)
        if idle:
            logs.event("games_evicted", count=len(idle), in_memory=len(self.games))
        return len(idle)
