"""An event's chat (issue 51, docs/community.md, *Tournaments*): the lines an event's entrants write
on its page, read by everyone who can see the event.

A line is stored, then published on the event's channel (:func:`event_channel`), which every open
lobby socket watching the event forwards (``http/lobby_socket.py``, the ``watch`` message), so
every instance's pages get it; a page loads the last :data:`SHOWN` lines. The bounds are the game
chat's: :func:`common.names.clean_chat`'s length and the ``chat`` budget per sender (here per
sender and event). A muted account is refused (``muted``); a shadow-muted one's lines are stored
with their ``shadow_mute`` and shown to their author only (published on the author's ``user:``
channel, never the event's). A finished event's chat is read-only (``finished``)."""

from __future__ import annotations

import json
import math
import time
from typing import Any, Protocol

from sqlalchemy import ColumnElement, Connection, and_, or_, select

from kahuna.server.cluster.broker import Broker, user_channel
from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_chat
from kahuna.server.common.protocol import TournamentChat, TournamentChatLine
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db.schema import tournament_chat, tournament_players, tournaments

SHOWN = 100
"""Lines a page loads (the newest)."""


def event_channel(tournament_id: str) -> str:
    """The broker channel of an event's chat lines."""
    return f"tournament:{tournament_id}"


class Standing(Protocol):
    async def chat_standing(self, account_id: int) -> tuple[float | None, int | None]: ...


class EventChat:
    """``budget``: the game chat's limiter (``chat_per_minute``, ``chat_burst``); ``moderation``:
    who says whether an account is muted (``Moderation.chat_standing``)."""

    def __init__(self, writer: Any, broker: Broker, budget: Limiter, moderation: Standing) -> None:
        self.writer = writer
        self.broker = broker
        self.budget = budget
        self.moderation = moderation

    async def lines(self, tournament_id: str, viewer: int | None) -> list[TournamentChatLine]:
        """The newest :data:`SHOWN` lines, oldest first (a shadow-muted line only for its author)."""

        def read(conn: Connection) -> list[TournamentChatLine]:
            if conn.execute(select(tournaments.c.id).where(tournaments.c.id == tournament_id)).first() is None:
                raise Rejected("not_found", "no such tournament", 404)
            seen: ColumnElement[bool] = tournament_chat.c.shadow.is_(None)
            if viewer is not None:
                seen = or_(seen, tournament_chat.c.account_id == viewer)
            rows = conn.execute(
                select(tournament_chat)
                .where(and_(tournament_chat.c.tournament_id == tournament_id, seen))
                .order_by(tournament_chat.c.id.desc())
                .limit(SHOWN)
            ).all()
            return [_line(row.id, row.username, row.text, row.at) for row in reversed(rows)]

        out: list[TournamentChatLine] = await self.writer.read(read)
        return out

    async def post(self, tournament_id: str, account_id: int, text: str) -> TournamentChatLine:
        """Store and publish a line of ``account_id``'s; ``Rejected`` stores nothing."""
        try:
            clean = clean_chat(text)
        except ValueError as exc:
            raise Rejected("invalid", str(exc), 422) from None

        def check(conn: Connection) -> tuple[str | None, str | None]:
            status = conn.execute(select(tournaments.c.status).where(tournaments.c.id == tournament_id)).scalar()
            entrant = conn.execute(
                select(tournament_players.c.username).where(
                    tournament_players.c.tournament_id == tournament_id,
                    tournament_players.c.account_id == account_id,
                )
            ).scalar()
            return status, entrant

        status, username = await self.writer.read(check)
        if status is None:
            raise Rejected("not_found", "no such tournament", 404)
        if status == "finished":
            raise Rejected("finished", "this tournament is over: its chat is read-only", 409)
        if username is None:
            raise Rejected("not_entrant", "only the tournament's players write in its chat", 403)
        left, shadow = await self.moderation.chat_standing(account_id)
        if left is not None:
            words = f"a moderator muted you in chat for {math.ceil(left / 60)} more minutes"
            raise Rejected("muted", words, 403, seconds_left=math.ceil(left))
        wait = await self.budget.take(f"tournament:{tournament_id}:{account_id}")
        if wait:
            raise Rejected("rate_limited", "too many chat lines", 429, retry_after=round(wait, 3))
        row = {
            "tournament_id": tournament_id,
            "account_id": account_id,
            "username": username,
            "text": clean,
            "at": time.time(),
            "shadow": shadow,
        }

        def write(conn: Connection) -> int:
            key = conn.execute(tournament_chat.insert().values(**row)).inserted_primary_key
            assert key is not None
            return int(key[0])

        shown = _line(await self.writer.transact(write), username, clean, row["at"])
        message = json.dumps(TournamentChat(type="tournament_chat", tournament_id=tournament_id, line=shown))
        channel = event_channel(tournament_id) if shadow is None else user_channel(account_id)
        await self.broker.publish(channel, message)
        return shown


def _line(line_id: int, username: str, text: str, at: float) -> TournamentChatLine:
    return TournamentChatLine(line_id=line_id, username=username, text=text, at=at)
