"""A live game's room: who is watching and playing it through this process, and what was already
rendered for them. The transport's half of a game held in memory (the game's own half, its state,
clock, chat and offers, is :class:`~kahuna.server.games.live.LiveGame`, changed by the engine only).

The room holds the open connections (:class:`Client`), the pins that keep the game in memory while
a socket or request uses it, who is online here and on other instances (presence), and the caches
of rendered messages (each kind of recipient's ``sync``, recent updates, views, a replay). Its
writers are the transport's: ``http/game_socket.py`` pins it, ``games/connections.py`` adds and
removes connections, the registry builds it (with the claim delay, a setting) and touches it, the
replication notes the other instances' seats, and :mod:`kahuna.server.games.outgoing` fills the
caches as it renders. The engine never writes here: it tells the room what to send
(``outgoing``), and :meth:`Room.forget` when a change made the cached messages wrong in a way their
keys do not show (a reload, a hidden line, a new name).

A room is lila-ws's split: the game's state in one owner, its transport apart.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kahuna.rules import GameState
from kahuna.server.common.protocol import Presence
from kahuna.server.games import messages
from kahuna.server.games.catch_up import RecentUpdates
from kahuna.server.games.client import Client

SyncKey = tuple[int, str, int, str | None]
"""What a cached ``sync`` was rendered for: version, status, chat lines and rematch."""


@dataclass(eq=False)
class Room:
    clients: set[Client] = field(default_factory=set)
    """The connections that said ``hello``: each gets every change it may see."""
    pins: int = 0
    """Connections and requests using the game right now: a pinned game is never evicted."""
    used: float = field(default_factory=time.monotonic)
    """When it was last used (monotonic seconds)."""
    left_at: list[float | None] = field(default_factory=lambda: [None, None])
    """Since when each seat has had no connection, as this instance saw it (``games/ending.py``)."""
    left_claim_seconds: float = 30.0
    """How long a seat must have been gone before its opponent may claim (``--limit left_claim_seconds``):
    a setting, given when the room is built (the registry builds the room of every game it holds)."""
    remote_online: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    """Which seats have a connection on each other server instance (``kahuna.server.cluster.replication``)."""
    syncs: dict[int | None, tuple[SyncKey, str]] = field(default_factory=dict)
    """The encoded ``sync`` per kind of recipient, with what it was rendered for."""
    recent: dict[tuple[int | None, int], RecentUpdates] = field(default_factory=dict)
    """The recent updates per kind of recipient and protocol, once a catch-up asked for them."""
    views: dict[int | None, list[tuple[GameState, dict[str, Any]]]] = field(default_factory=dict)
    """The last two views computed per kind of recipient (without their history), with the state each is of."""
    public: tuple[GameState, dict[str, Any]] | None = None
    """What every recipient's view of the latest state viewed shows alike, with that state (the views share it)."""
    replay: bytes | None = None
    """A finished game's replay steps as JSON, once asked for."""

    # ----------------------------------------------------------------- the transport's writes

    def pin(self) -> None:
        """A socket or request uses the game: it stays in memory until :meth:`unpin`."""
        self.pins += 1

    def unpin(self) -> None:
        self.pins -= 1
        self.touch()

    def touch(self) -> None:
        self.used = time.monotonic()

    def join(self, client: Client) -> None:
        """``client`` said ``hello``: it gets every change from now on."""
        self.clients.add(client)

    def leave(self, client: Client) -> bool:
        """``client`` is gone; whether it had joined."""
        if client not in self.clients:
            return False
        self.clients.discard(client)
        return True

    def heard(self, instance: str, online: tuple[bool, bool]) -> None:
        """Another instance announced which seats have a connection to it."""
        self.remote_online[instance] = online

    def forget_instance(self, instance: str) -> None:
        """Another instance's announcement is too old to count (``replication.PRESENCE_TTL``)."""
        self.remote_online.pop(instance, None)

    def forget(self) -> None:
        """Drop every rendered message: the game changed in a way their keys do not show."""
        self.syncs.clear()
        self.recent.clear()
        self.views.clear()
        self.public = None
        self.replay = None

    # ----------------------------------------------------------------- reading

    def local_online(self) -> tuple[bool, bool]:
        """Which seats have a connection to this instance."""
        present = {c.seat for c in self.clients}
        return (0 in present, 1 in present)

    def online(self, ai_seats: tuple[bool, bool]) -> list[bool]:
        """Which seats are here: an AI seat always, a person's with a connection anywhere."""
        present = self.local_online()
        remote = self.remote_online.values()
        return [ai_seats[s] or present[s] or any(on[s] for on in remote) for s in (0, 1)]

    def presence(self, online: list[bool], now: float) -> Presence:
        """The ``presence`` message: who is connected, and since when a seat is gone (noted here)."""
        for seat in (0, 1):
            self.left_at[seat] = None if online[seat] else self.left_at[seat] or now
        return messages.presence(online, self.left_at, now, self.left_claim_seconds)

    def idle(self, now: float, after: float) -> bool:
        """Nobody has used the game for ``after`` seconds and nobody is connected."""
        return not self.pins and not self.clients and now - self.used > after

    def send_all(self, text: str) -> None:
        """One encoded message to every connection."""
        for client in self.clients:
            client.send_text(text)
