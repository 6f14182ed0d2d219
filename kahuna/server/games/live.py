"""A game held in memory while the server runs: the game's own half (its state, clock, chat and
offers) and, in :attr:`LiveGame.room`, the transport's half (its connections, pins, presence and
rendered messages: ``games/room.py``).

The database holds the record; a :class:`LiveGame` is rebuilt from it by replay (:func:`rebuild`).
Who writes what, and why:

- **The engine** (:class:`~kahuna.server.games.engine.GameEngine`) is the only writer of every
  field of a :class:`LiveGame` once it is built, under :attr:`LiveGame.lock`: an action, an end, a
  take-back, a chat line, a join, an offer, and the same made here after another instance stored
  it (``GameEngine.apply_stored`` and its siblings, called by the replication). So a game changes
  in one place, in one order (stored, then current, then acknowledged and sent), whoever asked.
- **The transport** (``http/game_socket.py``, ``games/connections.py``, the registry, the
  replication's presence) writes only the :class:`~kahuna.server.games.room.Room`: who is
  connected, pinned, online, and what was already rendered for them.
- Everyone else reads. ``tests/server/test_live_game_writers.py`` checks it.

What is neither the game's nor its transport's is kept by its owner: the AI's turn being computed
in this process is its scheduler's (``AiTurns.thinking``: ``LocalAiTurns`` holds the task), and the
claim delay is the room's, given when the game is built (:func:`rebuild`'s ``room``).
"""

from __future__ import annotations

import asyncio
import hmac
import random
import time
from dataclasses import dataclass, field
from typing import Any

from kahuna.clock import Clock
from kahuna.rules import GameRecord, GameState, RecordError, Termination, Variant, view_of
from kahuna.server.common.draws import random_seed
from kahuna.server.common.tokens import digest
from kahuna.server.db.schema.games import digest_forms
from kahuna.server.db.store import TAKEBACK, StoredGame
from kahuna.server.games import messages
from kahuna.server.games.client import MAX_BACKLOG as MAX_BACKLOG
from kahuna.server.games.client import Client as Client
from kahuna.server.games.room import Room

HUMAN = "human"
AI_PREFIX = "ai:"


@dataclass(eq=False)
class LiveGame:
    """One game in memory. Its fields are the game's own (what the record holds, and the offers
    that live in memory only), changed by the engine alone, so that every change is stored first
    and made current in one place; :attr:`room` is the transport's (``games/room.py``). Reading is
    free: the request modules check against it, the room renders it, the HTTP API summarises it."""

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
    owner: str = ""
    """Whose turn its AI moves take in the AI pool (``Terms.owner``, stored with the game: a game
    rebuilt after a restart keeps it); ``""`` until set: the game itself."""
    clock: Clock | None = None
    """The game's clock (timed games); ``None`` for an untimed game."""
    chat: list[dict[str, Any]] = field(default_factory=list)
    """Every chat line of the game: ``{"line_id", "room", "seat", "text", "at"}``, ``line_id`` its index."""
    hidden_lines: set[int] = field(default_factory=set)
    """Lines a moderator hid (``hide_line``): sent to nobody, left out of every ``sync``."""
    shadow_lines: set[int] = field(default_factory=set)
    """Lines written under a ``shadow_mute``: shown to their author's seat only (a spectator's to
    its own connection, live only)."""
    rematch: str | None = None
    """The id of the rematch the players agreed on, once they have."""
    rematch_of: str | None = None
    rematch_offer: tuple[int, str, str | None] | None = None
    """A pending rematch offer: the seat that made it, the rematch's game id and the digest of that
    seat's token in it (memory only: an offer does not survive a restart, the agreed rematch does)."""
    rated: bool = False
    """Whether the game counts for ratings."""
    casual_reason: str | None = None
    """Why a game asked for as rated was started casual (``pair_limit``: ``games/rated_pairs.py``);
    the seats are told in every ``sync``, before the first move."""
    tournament: bool = False
    """A tournament's board: no take-backs (whether rated or not), no rematch."""
    archived: bool = False
    """Read from its archive record (``db/archive.py``): never written again, so its chat is closed."""
    takebacks: int = 0
    """Actions taken back so far: each is two entries of the log (the action and the take-back),
    so the game's version (its log's length) is the number of actions plus twice this."""
    takeback_offer: tuple[int, int] | None = None
    """A pending take-back request: the seat that asked and the version it asked at (memory only)."""
    takeback_declines: list[int] = field(default_factory=lambda: [0, 0])
    """Each seat's take-back requests declined so far (memory only, as the request itself): after
    ``messages.MAX_DECLINED_TAKEBACKS`` a seat asks no more in this game."""
    room: Room = field(default_factory=Room)
    """The transport's half: connections, pins, presence, rendered messages (``games/room.py``)."""

    # ----------------------------------------------------------------- seats

    @property
    def status(self) -> str:
        names = self.names
        return messages.status_of(self.state, names[0] is not None and names[1] is not None)

    @property
    def version(self) -> int:
        """The length of the game's log: its actions, and each take-back with the action it took back."""
        return len(self.state.history) + 2 * self.takebacks

    @property
    def allows_takebacks(self) -> bool:
        """Casual games allow take-backs (with the opponent's consent) up to ``messages.MAX_TAKEBACKS``;
        rated and tournament games never."""
        return not self.rated and not self.tournament and self.takebacks < messages.MAX_TAKEBACKS

    def ai_spec(self, seat: int) -> str | None:
        """The agent spec of an AI seat (the level's name), ``None`` for a human seat."""
        kind = self.kinds[seat]
        return kind[len(AI_PREFIX) :] if kind.startswith(AI_PREFIX) else None

    def seat_of_token(self, token: str) -> int | None:
        """The seat the token is for (an archived game's seats hold short digests, r0024)."""
        forms = digest_forms(digest(token))
        for seat, stored in enumerate(self.seat_tokens):
            if stored is not None and any(hmac.compare_digest(stored, form) for form in forms):
                return seat
        return None

    def online(self) -> list[bool]:
        """Which seats are here: an AI seat always, a person's with a connection to any instance."""
        return self.room.online((self.ai_spec(0) is not None, self.ai_spec(1) is not None))

    def idle(self, now: float, after: float) -> bool:
        """Whether the game may leave memory as far as it knows: unused for ``after`` seconds and no
        change under way (the registry also asks the AI's scheduler, ``AiTurns.thinking``)."""
        return self.room.idle(now, after) and not self.lock.locked()

    def clock_json(self) -> dict[str, Any] | None:
        return None if self.clock is None else self.clock.to_json(time.time())

    def chat_for(self, seat: int | None) -> list[dict[str, Any]]:
        """The chat lines ``seat`` may read: the players' room for a seat, the spectators' room for
        a spectator, and both for the players once the game is over (at most the last 100)."""
        rooms = {messages.chat_room(seat)}
        if seat is not None and self.state.is_over:
            rooms.add(messages.chat_room(None))
        return [line for line in self.chat if line["room"] in rooms and self.shown(line, seat)][-100:]

    def shown(self, line: dict[str, Any], seat: int | None) -> bool:
        """Whether ``seat`` may see ``line`` at all: not hidden, and a shadow-muted line only by
        its own seat (a spectator's by nobody after it was sent)."""
        line_id = line["line_id"]
        if line_id in self.hidden_lines:
            return False
        return line_id not in self.shadow_lines or (seat is not None and seat == line["seat"])

    # ----------------------------------------------------------------- records

    @property
    def deal(self) -> str:
        assert self.state.deal is not None
        return self.state.deal

    def full_record(self) -> dict[str, Any]:
        """The ``kahuna-record/1`` of the game, deal included: only once it is over."""
        meta: dict[str, Any] = {
            "game_id": self.game_id, "kinds": list(self.kinds), "created": self.created, "ended": self.updated
        }  # fmt: skip
        if self.clock is not None:
            meta["clock"] = self.clock.control.to_json()
        players = [name or "" for name in self.names]
        return GameRecord.of(self.state, players=players, meta=meta).to_json()

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
            "clock": self.clock_json(),
            "rematch": self.rematch,
            "rematch_of": self.rematch_of,
            "rated": self.rated,
            "casual_reason": self.casual_reason,
        }


def rebuild(stored: StoredGame, room: Room | None = None) -> LiveGame:
    """A game from its record: replay every stored action but those taken back; future reshuffles
    get a fresh secret RNG. ``room`` is the transport's half, built with this server's settings by
    the registry, which holds the game (a fresh default one for a game nobody connects to: a
    worker's, or a reload's, whose room the engine keeps).

    Raises the engine's errors if the stored record does not replay (a corrupt database).
    """
    played, takebacks = as_played(stored.actions)
    record = GameRecord(
        deal=stored.deal,
        actions=played,
        reshuffles=stored.reshuffles,
        variant=Variant.from_json(stored.variant),
    )
    state = record.replay()
    if stored.termination is not None and not state.is_over:
        state.terminate(Termination.from_json(stored.termination))
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
        clock=None if stored.clock is None else Clock.from_store(stored.clock),
        chat=list(stored.chat),
        hidden_lines=set(stored.hidden_lines),
        shadow_lines=set(stored.shadow_lines),
        rematch=stored.rematch,
        rematch_of=stored.rematch_of,
        rated=stored.rated,
        casual_reason=stored.casual_reason,
        tournament=stored.tournament,
        archived=stored.archived,
        takebacks=takebacks,
        owner=stored.owner or stored.game_id,
        room=Room() if room is None else room,
    )


def as_played(log: list[str]) -> tuple[list[str], int]:
    """The actions of a stored log as the game was played (each take-back removes the action
    before it) and how many were taken back."""
    played: list[str] = []
    takebacks = 0
    for token in log:
        if token == TAKEBACK:
            if not played:
                raise RecordError("a take-back with no action before it")
            played.pop()
            takebacks += 1
        else:
            played.append(token)
    return played, takebacks
