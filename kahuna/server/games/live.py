"""A game held in memory while the server runs: its state, its seats and its open connections.

The database holds the record; a :class:`LiveGame` is rebuilt from it by replay (:func:`rebuild`).
Only the engine (:class:`~kahuna.server.games.engine.GameEngine`) changes a game, under :attr:`LiveGame.lock`.

What a reconnecting client or a replay request asks for is computed once and kept (the encoded
``sync`` of each kind of recipient, its recent updates, a finished game's replay), and what has to
be computed by replaying the record runs in a worker thread: a request costs what it sends, and
no flood of requests holds up the event loop that every other game shares.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import time
from dataclasses import dataclass, field
from typing import Any

from kahuna.clock import Clock
from kahuna.rules import Event, GameRecord, GameState, RecordError, Termination, Variant, view_of
from kahuna.server.common.draws import random_seed
from kahuna.server.common.protocol import Presence
from kahuna.server.common.tokens import digest
from kahuna.server.db.schema.games import digest_forms
from kahuna.server.db.store import TAKEBACK, StoredGame
from kahuna.server.games import messages
from kahuna.server.games.catch_up import MAX_CATCH_UP, RecentUpdates, encode_updates
from kahuna.server.games.client import MAX_BACKLOG as MAX_BACKLOG
from kahuna.server.games.client import Client as Client
from kahuna.server.games.replays import replay_steps

HUMAN = "human"
AI_PREFIX = "ai:"


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
    owner: str = ""
    """Whose turn its AI moves take in the AI pool (``Terms.owner``, stored with the game: a game
    rebuilt after a restart keeps it); ``""`` until set: the game itself."""
    pins: int = 0
    """Connections and requests using the game right now: a pinned game is never evicted."""
    used: float = field(default_factory=time.monotonic)
    """When it was last used (monotonic seconds)."""
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
    left_at: list[float | None] = field(default_factory=lambda: [None, None])
    """Since when each seat has had no connection, as this instance saw it (``games/leaving.py``)."""
    left_claim_seconds: float = 30.0
    """How long a seat must have been gone before its opponent may claim (set by the engine)."""
    remote_online: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    """Which seats have a connection on each other server instance (``kahuna.server.cluster.replication``)."""
    _syncs: dict[int | None, tuple[tuple[int, str, int, str | None], str]] = field(default_factory=dict)
    _recent: dict[tuple[int | None, int], RecentUpdates] = field(default_factory=dict)
    """The recent updates per kind of recipient and protocol, once a catch-up asked for them."""
    _views: dict[int | None, list[tuple[GameState, dict[str, Any]]]] = field(default_factory=dict)
    """The last two views computed per kind of recipient, with the state each is of (:meth:`view_json`)."""
    _replay: bytes | None = None

    # ----------------------------------------------------------------- seats

    @property
    def status(self) -> str:
        return messages.status_of(self.state, all(self.names[s] is not None for s in (0, 1)))

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
        present = self.local_online()
        remote = self.remote_online.values()
        return [self.ai_spec(s) is not None or present[s] or any(on[s] for on in remote) for s in (0, 1)]

    def presence(self, now: float | None = None) -> Presence:
        """The ``presence`` message: who is connected, and since when a seat is gone (noted here)."""
        online, at = self.online(), time.time() if now is None else now
        for seat in (0, 1):
            self.left_at[seat] = None if online[seat] else self.left_at[seat] or at
        return messages.presence(online, self.left_at, at, self.left_claim_seconds)

    def local_online(self) -> tuple[bool, bool]:
        """Which seats have a connection to this instance."""
        present = {c.seat for c in self.clients}
        return (0 in present, 1 in present)

    def adopt(self, fresh: LiveGame) -> None:
        """Take the stored state of this game from ``fresh`` (rebuilt from the database after
        another instance changed it), keeping this instance's connections, tasks and offers."""
        self.state, self.kinds, self.names = fresh.state, fresh.kinds, fresh.names
        self.seat_tokens, self.invite, self.updated = fresh.seat_tokens, fresh.invite, fresh.updated
        self.clock, self.chat = fresh.clock, fresh.chat
        self.hidden_lines, self.shadow_lines = fresh.hidden_lines, fresh.shadow_lines
        self.rematch, self.rematch_of = fresh.rematch, fresh.rematch_of
        self.rated, self.casual_reason, self.takebacks = fresh.rated, fresh.casual_reason, fresh.takebacks
        self.tournament, self.archived = fresh.tournament, fresh.archived
        if self.takeback_offer is not None and self.takeback_offer[1] != self.version:
            self.takeback_offer = None
        self._syncs.clear()
        self._recent.clear()
        self._views.clear()
        self._replay = None

    # ----------------------------------------------------------------- messages

    def idle(self, now: float, after: float) -> bool:
        """Whether the game may leave memory: unused for ``after`` seconds and nothing going on."""
        thinking = self.ai_task is not None and not self.ai_task.done()
        return (
            not self.pins and not self.clients and not thinking and not self.lock.locked() and now - self.used > after
        )

    def sync_text(self, seat: int | None) -> str:
        """The encoded ``sync`` for ``seat``, computed once per version, status, chat and rematch;
        the clock, which changes every moment, is added as it is now."""
        key = (self.version, self.status, len(self.chat), self.rematch)
        cached = self._syncs.get(seat)
        if cached is None or cached[0] != key:
            sync = messages.sync(
                self.state,
                seat,
                self.status,
                self.names,
                self.kinds,
                self.version,
                self.allows_takebacks,
                chat=self.chat_for(seat),
                rematch=self.rematch,
                rematch_of=self.rematch_of,
                rated=self.rated,
                casual_reason=self.casual_reason,
                tournament=self.tournament,
            )
            self._syncs[seat] = cached = (key, messages.encode(sync))
        return messages.with_clock(cached[1], self.clock_json())

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

    def send_chat(self, line: dict[str, Any], author: Client | None = None) -> None:
        """A new chat line to everyone who may read it (a shadow-muted spectator's to ``author`` only)."""
        text = messages.encode(messages.chat_line(line))
        if line["line_id"] in self.shadow_lines and line["seat"] is None:
            if author is not None:
                author.send_text(text)
            return
        for client in self.clients:
            if not self.shown(line, client.seat):
                continue
            if line["room"] == messages.chat_room(client.seat) or (client.seat is not None and self.state.is_over):
                client.send_text(text)

    def hide_line(self, line_id: int, hidden: bool) -> None:
        """A moderator hid ``line_id`` (or undid that): every ``sync`` from now on follows, and on a
        hide each connection is told to drop the line (``chat_hidden``)."""
        if hidden:
            self.hidden_lines.add(line_id)
        else:
            self.hidden_lines.discard(line_id)
        self._syncs.clear()
        if hidden:
            text = messages.encode(messages.chat_hidden(line_id))
            for client in self.clients:
                client.send_text(text)

    def view_json(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """``seat``'s view of ``state`` as JSON (never to be changed: it is shared). The last two
        per kind of recipient are kept, each with the state it is of (a current state is never
        changed in place, only replaced), so that the view after an action is the next update's
        view before it: a protocol-2 update computes one view, as a protocol-1 update does."""
        kept = self._views.setdefault(seat, [])
        for held, shown in kept:
            if held is state:
                return shown
        shown = view_of(state, seat).to_json()
        kept.append((state, shown))
        del kept[:-2]
        return shown

    def broadcast_update(self, seat_acted: int, events: list[Event], before: GameState) -> None:
        """The update of the action that took ``before`` to the current state, redacted and encoded
        once per kind of recipient and protocol: protocol 2's carries what changed in that
        recipient's own view (``messages.changes``), never anything computed from the whole state."""
        texts: dict[tuple[int | None, int], str] = {}
        status = self.status
        clock = self.clock_json()
        version, takebacks = self.version, self.allows_takebacks

        def encoded(seat: int | None, protocol: int) -> str:
            text = texts.get((seat, protocol))
            if text is None:
                prior = self.view_json(before, seat) if protocol == 2 else None
                shown = self.view_json(self.state, seat)
                update = messages.update(
                    self.state, seat_acted, events, seat, status, version, takebacks, view=shown, before=prior
                )
                text = texts[seat, protocol] = messages.encode(update)
            return text

        clocked: dict[tuple[int | None, int], str] = {}
        for client in self.clients:
            key = (client.seat, client.protocol)
            if key not in clocked:
                clocked[key] = messages.with_clock(encoded(*key), clock)
            client.send_text(clocked[key])
        for key, recent in list(self._recent.items()):
            recent.add(version, encoded(*key))

    def rename(self, seat: int, name: str) -> None:
        """A seat's name changed outside the game (its account was deleted): every connection gets a
        ``sync`` with the new name (the cached ones predate it)."""
        self.names[seat] = name
        self._syncs.clear()
        self.broadcast_sync()

    def broadcast_sync(self) -> None:
        for client in self.clients:
            client.send_text(self.sync_text(client.seat))

    def send_rematch_offer(self) -> None:
        """The pending rematch offer to every connection."""
        assert self.rematch_offer is not None
        text = messages.encode(messages.rematch_offered(self.rematch_offer[0]))
        for client in self.clients:
            client.send_text(text)

    def send_takeback_offer(self) -> None:
        """The pending take-back request to every connection."""
        assert self.takeback_offer is not None
        text = messages.encode(messages.takeback_offered(*self.takeback_offer))
        for client in self.clients:
            client.send_text(text)

    def send_takeback_declined(self, seat: int) -> None:
        """``seat`` declined the other seat's take-back request: to every connection."""
        text = messages.encode(messages.takeback_declined(seat))
        for client in self.clients:
            client.send_text(text)

    def broadcast_clock(self) -> None:
        """The clock as it is now to every connection (it started without an action)."""
        clock = self.clock_json()
        if clock is None:
            return
        text = messages.encode(messages.clock(clock))
        for client in self.clients:
            client.send_text(text)

    def broadcast_presence(self) -> None:
        text = messages.encode(self.presence())
        for client in self.clients:
            client.send_text(text)

    async def catch_up(self, seat: int | None, since: int | None, protocol: int = 1) -> list[str]:
        """What a client last at version ``since`` needs: the missed updates in its ``protocol`` (a
        protocol-2 client has the view of version ``since``, to which they apply in order), or a
        sync (the caller holds the lock, so no update is applied meanwhile)."""
        current = self.version
        ended_off_board = self.state.termination is not None  # the record's updates do not show it
        if since is None or not 0 <= since < current or current - since > MAX_CATCH_UP:
            return [self.sync_text(seat)]
        if ended_off_board or self.takebacks:  # a log with take-backs: its state, not its steps
            return [self.sync_text(seat)]
        recent = self._recent.get((seat, protocol))
        texts = None if recent is None else recent.since(since, current)
        if texts is None:
            start = max(0, current - MAX_CATCH_UP)
            snapshot = (self.deal, self.state.variant, list(self.state.reshuffles), list(self.state.history))
            encoded = await asyncio.to_thread(encode_updates, *snapshot, seat, start, self.allows_takebacks, protocol)
            self._recent[seat, protocol] = recent = RecentUpdates(encoded, current)
            texts = recent.since(since, current)
            assert texts is not None
        return texts

    async def replay_json(self) -> bytes:
        """A finished game's replay steps as JSON, computed once (in a worker thread)."""
        if self._replay is None:
            snapshot = (self.deal, self.state.variant, list(self.state.reshuffles), list(self.state.history))
            self._replay = await asyncio.to_thread(replay_steps, *snapshot)
        return self._replay

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


def rebuild(stored: StoredGame) -> LiveGame:
    """A game from its record: replay every stored action but those taken back; future reshuffles
    get a fresh secret RNG.

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
