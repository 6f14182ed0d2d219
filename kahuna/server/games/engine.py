"""The game engine: the one place that changes a game held in memory.

A client's request is checked by one module per request (``playing``, ``ending``, ``chat``,
``rematch``, ``takeback``, ``joining``, ``connections``) and then handed here, under the game's
lock; so is every change another instance stored, by the replication (``apply_stored`` and the
``*_elsewhere`` methods): a :class:`~kahuna.server.games.live.LiveGame`'s state, clock, chat and
offers are written by the engine and nobody else (``tests/server/test_live_game_writers.py``).
What changed is then sent by the game's room (``games/outgoing.py``); the room itself, its
connections, pins and presence, is the transport's and never written here.

The engine also owns every acknowledgement: each request comes with its
:class:`~kahuna.server.games.client.Reply`, acknowledged here once its change is committed (an
action's ``ack`` before its ``update``, a request's after what it caused was sent to everyone:
docs/protocol.md), so that an action, a resignation, a chat line and a take-back are acknowledged
the same way, by the same owner.

The engine is one class in two modules, for their size: its moves, its end and its clock
(:class:`~kahuna.server.games.engine_core.EngineCore`), and here what else a game goes through:
entering memory, its take-back and rematch offers, its chat, a joining player, a new name, a
hidden line.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from kahuna.clock import Clock
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.db import store
from kahuna.server.db.schema import shadow_lines
from kahuna.server.db.writer import Conflict
from kahuna.server.games import outgoing
from kahuna.server.games.client import Reply
from kahuna.server.games.engine_core import EngineCore, acknowledge
from kahuna.server.games.live import LiveGame
from kahuna.server.games.seats import send_rematch


class GameEngine(EngineCore):
    # ----------------------------------------------------------------- entering and leaving memory

    def enter(self, game: LiveGame) -> None:
        """``game`` is now held here: follow other processes' changes, track its clock, and start
        the AI's turn if it is due (nobody may be computing it: the process that was died)."""
        self.replication.follow(game, self)
        self.deadlines.track(game)
        self.schedule_ai(game)

    def leave(self, game: LiveGame) -> None:
        """``game`` left memory (its record is in the database)."""
        self.replication.unfollow(game.game_id)

    def answer(self, game: LiveGame, reply: Reply | None) -> None:
        """Acknowledge a request that changed nothing (a rematch agreed already: its link again)."""
        acknowledge(game, reply)

    # ----------------------------------------------------------------- take-backs

    def ask_takeback(self, game: LiveGame, seat: int, reply: Reply | None = None) -> None:
        """``seat`` asks to take back its last action (``games/takeback.py`` checked it may): the
        request stands at this version (memory only) and goes to every connection and instance."""
        game.takeback_offer = (seat, game.version)
        outgoing.takeback_offer(game)
        self.replication.takeback_asked(game)
        acknowledge(game, reply)
        logs.event("takeback_offered", game_id=game.game_id, seat=seat, version=game.version)

    def void_takeback(self, game: LiveGame) -> None:
        """The standing request was asked at an older version: it no longer applies."""
        game.takeback_offer = None

    def decline_takeback(self, game: LiveGame, seat: int, reply: Reply | None = None) -> None:
        """``seat`` declines the other seat's standing request, which counts against the asker."""
        game.takeback_offer = None
        game.takeback_declines[1 - seat] += 1
        outgoing.takeback_declined(game, seat)
        self.replication.takeback_asked(game, declined_by=seat)
        acknowledge(game, reply)

    def takeback_elsewhere(self, game: LiveGame, offer: tuple[int, int] | None, declined_by: int | None) -> None:
        """A seat asked for a take-back through another instance (``offer``: the seat and the
        version), or ``declined_by`` declined the standing one there (the bound holds across
        instances)."""
        if offer is not None and offer[1] == game.version:
            game.takeback_offer = offer
            outgoing.takeback_offer(game)
        elif offer is None and declined_by is not None and game.takeback_offer is not None:
            game.takeback_offer = None
            game.takeback_declines[1 - declined_by] += 1
            outgoing.takeback_declined(game, declined_by)

    # ----------------------------------------------------------------- rematches

    def offer_rematch(self, game: LiveGame, seat: int, new_id: str, digest: str | None, reply: Reply | None) -> None:
        """``seat`` offers a rematch ``new_id`` (its new seat's token digest fixed now, so that the
        other seat may accept through any instance)."""
        game.rematch_offer = (seat, new_id, digest)
        outgoing.rematch_offer(game)
        self.replication.rematch_offered(game)
        acknowledge(game, reply)

    def rematch_offered_elsewhere(self, game: LiveGame, seat: int, new_id: str, digest: str | None) -> None:
        """A seat offered a rematch through another instance."""
        if game.rematch is None:
            game.rematch_offer = (seat, new_id, digest)
            outgoing.rematch_offer(game)

    def rematch_agreed(self, game: LiveGame, new_id: str, reply: Reply | None) -> None:
        """The rematch ``new_id`` was started (``games/rematch.py``): each connection gets its link."""
        self.replication.changed(game)
        game.rematch, game.rematch_offer = new_id, None
        logs.event("rematch", game_id=game.game_id, rematch=new_id)
        for client in game.room.clients:
            send_rematch(game, client)
        acknowledge(game, reply)

    # ----------------------------------------------------------------- chat

    async def chat(self, game: LiveGame, line: dict[str, Any], shadow: int | None, reply: Reply | None) -> None:
        """Store ``line`` (numbered ``line_id``, the next of the game's chat), then send it; under
        ``shadow`` (a shadow mute's id) it is stored with it and shown to its author only."""
        seq = line["line_id"]

        def write(conn: Connection) -> None:
            if store.is_archived(conn, game.game_id):  # archived from outside while in memory
                raise Conflict()
            store.insert_chat(conn, game.game_id, seq, line)
            if shadow is not None:
                conn.execute(shadow_lines.insert().values(game_id=game.game_id, line_id=seq, sanction_id=shadow))

        try:
            await self.writer.write(write)
        except Conflict:  # another instance stored a line with this number (or archived it): catch up
            await self.refresh(game)
            raise Rejected("stale_version", "another chat line came first; send yours again") from None
        if shadow is not None:
            game.shadow_lines.add(seq)
        self.replication.chat_stored(game, seq, line)
        game.chat.append(line)
        outgoing.chat(game, line, None if reply is None else reply.client)
        acknowledge(game, reply)

    def chat_elsewhere(self, game: LiveGame, line: dict[str, Any], shadow: bool) -> bool:
        """Another instance stored ``line``; ``False`` if it is not the next one here (the caller
        reloads the game). A line known already is skipped."""
        seq = line["line_id"]
        if seq < len(game.chat):
            return True
        if seq > len(game.chat):
            return False
        if shadow:
            game.shadow_lines.add(seq)
        game.chat.append(line)
        outgoing.chat(game, line)
        return True

    def hide_line(self, game: LiveGame, line_id: int, hidden: bool) -> None:
        """A moderator hid ``line_id`` (or undid that), here or on another instance: every ``sync``
        from now on follows, and on a hide each connection is told to drop the line."""
        if hidden:
            game.hidden_lines.add(line_id)
        else:
            game.hidden_lines.discard(line_id)
        game.room.forget()
        if hidden:
            outgoing.chat_hidden(game, line_id)

    # ----------------------------------------------------------------- seats and names

    def joined(self, game: LiveGame, seat: int, token_digest: str, name: str, at: str, clock: Clock | None) -> None:
        """The invited player took ``seat`` (``games/joining.py`` stored it): the game is played
        now, and each connection gets a ``sync``."""
        self.replication.changed(game)
        game.seat_tokens[seat] = token_digest
        game.names[seat] = name
        game.updated = at
        game.clock = clock
        self.deadlines.track(game)
        logs.event("game_joined", game_id=game.game_id, seat=seat)
        outgoing.sync(game)

    def rename(self, game: LiveGame, seat: int, name: str) -> None:
        """A seat's name changed outside the game (its account was deleted): every connection gets a
        ``sync`` with the new name (the cached ones predate it), and other instances reload it."""
        game.names[seat] = name
        game.room.forget()
        outgoing.sync(game)
        self.replication.changed(game)
