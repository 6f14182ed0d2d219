"""A game held in memory while the server runs: its state, its seats and its open connections.

The database holds the record; a :class:`LiveGame` is rebuilt from it by replay (:func:`rebuild`).
Only :class:`~kahuna.server.service.GameService` changes a game, under :attr:`LiveGame.lock`.
"""

from __future__ import annotations

import asyncio
import hmac
import random
from dataclasses import dataclass, field
from typing import Any

from kahuna.rules import Event, GameRecord, GameState, Variant, view_of
from kahuna.server import messages
from kahuna.server.store import StoredGame
from kahuna.server.tokens import digest, random_seed

MAX_CATCH_UP = 256
"""A reconnecting client further behind than this gets a ``sync`` instead of the missed updates."""

HUMAN = "human"
AI_PREFIX = "ai:"


MAX_BACKLOG = 1000
"""Messages queued for a connection that does not read them before it is closed (it may reconnect)."""


class Client:
    """One WebSocket connection: its seat (``None`` = spectator) and its outgoing queue.

    Messages are queued, never awaited, so one slow connection cannot hold up a game; ``None`` in
    the queue tells the sender to stop (the client left, or fell :data:`MAX_BACKLOG` behind).
    """

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.stopped = False

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(messages.encode(message))

    def send_text(self, text: str) -> None:
        if self.stopped:
            return
        if self.outbox.qsize() >= MAX_BACKLOG:
            self.stop()
        else:
            self.outbox.put_nowait(text)

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.outbox.put_nowait(None)


@dataclass(eq=False)
class LiveGame:
    game_id: str
    state: GameState
    kinds: list[str]
    names: list[str | None]
    seat_tokens: list[str | None]
    """Digest of each seat's token; ``None`` for a seat still waiting for its invited player."""
    invite: str | None
    created: str
    updated: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    ai_task: asyncio.Task[None] | None = None

    # ----------------------------------------------------------------- seats

    @property
    def status(self) -> str:
        return messages.status_of(self.state, all(self.names[s] is not None for s in (0, 1)))

    @property
    def version(self) -> int:
        return len(self.state.history)

    def ai_spec(self, seat: int) -> str | None:
        """The agent spec of an AI seat (the level's name), ``None`` for a human seat."""
        kind = self.kinds[seat]
        return kind[len(AI_PREFIX) :] if kind.startswith(AI_PREFIX) else None

    def seat_of_token(self, token: str) -> int | None:
        token_digest = digest(token)
        for seat, stored in enumerate(self.seat_tokens):
            if stored is not None and hmac.compare_digest(stored, token_digest):
                return seat
        return None

    def online(self) -> list[bool]:
        present = {c.seat for c in self.clients}
        return [self.ai_spec(s) is not None or s in present for s in (0, 1)]

    # ----------------------------------------------------------------- messages

    def sync_for(self, seat: int | None) -> dict[str, Any]:
        return messages.sync(self.state, seat, self.status, self.names, self.kinds)

    def broadcast_update(self, seat_acted: int, events: list[Event]) -> None:
        """The update of the action just applied, redacted once per kind of recipient."""
        texts: dict[int | None, str] = {}
        status = self.status
        for client in self.clients:
            if client.seat not in texts:
                texts[client.seat] = messages.encode(
                    messages.update(self.state, seat_acted, events, client.seat, status)
                )
            client.send_text(texts[client.seat])

    def broadcast_sync(self) -> None:
        for client in self.clients:
            client.send(self.sync_for(client.seat))

    def broadcast_presence(self) -> None:
        text = messages.encode(messages.presence(self.online()))
        for client in self.clients:
            client.send_text(text)

    def catch_up(self, seat: int | None, since: int | None) -> list[dict[str, Any]]:
        """What a client last at version ``since`` needs: the missed updates, or a sync."""
        current = self.version
        if since is None or not 0 <= since < current or current - since > MAX_CATCH_UP:
            return [self.sync_for(seat)]
        replay = GameState.from_deal(self.deal, self.state.variant, self.state.reshuffles)
        played = self.state.history
        for _, action in played[:since]:
            replay.apply(action)
        out = []
        for actor, action in played[since:]:
            events = replay.apply(action)
            out.append(messages.update(replay, actor, events, seat, messages.status_of(replay, True)))
        return out

    # ----------------------------------------------------------------- records

    @property
    def deal(self) -> str:
        assert self.state.deal is not None
        return self.state.deal

    def full_record(self) -> dict[str, Any]:
        """The ``kahuna-record/1`` of the game, deal included: only once it is over."""
        meta = {"game_id": self.game_id, "kinds": list(self.kinds), "created": self.created, "ended": self.updated}
        players = [name or "" for name in self.names]
        return GameRecord.of(self.state, players=players, meta=meta).to_json()

    def replay_steps(self) -> list[dict[str, Any]]:
        """The spectator's view before any action and after each one, with what it saw happen."""
        replay = GameState.from_deal(self.deal, self.state.variant, self.state.reshuffles)
        start = view_of(replay, None).to_json()
        steps: list[dict[str, Any]] = [{"version": 0, "seat_acted": None, "action": None, "events": [], "view": start}]
        for actor, action in self.state.history:
            events = replay.apply(action)
            update = messages.update(replay, actor, events, None, messages.status_of(replay, True))
            steps.append({key: update[key] for key in ("version", "seat_acted", "action", "events", "view")})
        return steps

    def public_record(self) -> dict[str, Any]:
        return {
            "format": "kahuna-public-record/1",
            "variant": self.state.variant.to_json(),
            "players": list(self.names),
            "actions": list(view_of(self.state, None).history),
            "version": self.version,
            "status": self.status,
        }

    def summary(self) -> dict[str, Any]:
        state = self.state
        return {
            "game_id": self.game_id,
            "players": list(self.names),
            "kinds": list(self.kinds),
            "variant": state.variant.to_json(),
            "status": self.status,
            "version": self.version,
            "to_move": None if state.is_over else state.to_move,
            "result": None if state.outcome is None else state.outcome.to_json(),
            "created": self.created,
            "updated": self.updated,
        }


def rebuild(stored: StoredGame) -> LiveGame:
    """A game from its record: replay every stored action; future reshuffles get a fresh secret RNG.

    Raises the engine's errors if the stored record does not replay (a corrupt database).
    """
    record = GameRecord(
        deal=stored.deal,
        actions=stored.actions,
        reshuffles=stored.reshuffles,
        variant=Variant.from_json(stored.variant),
    )
    state = record.replay()
    state.rng = random.Random(random_seed())
    return LiveGame(
        game_id=stored.game_id,
        state=state,
        kinds=list(stored.kinds),
        names=list(stored.names),
        seat_tokens=list(stored.seat_tokens),
        invite=stored.invite,
        created=stored.created,
        updated=stored.updated,
    )
