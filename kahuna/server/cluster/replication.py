"""Several server instances serving the same games: one shared database, one broker (Redis).

Any instance may hold any game in memory, and a connection on any instance may act in any game.
The database decides who wins a race, the broker tells the others:

- **One action per version.** An action is stored at the game's next ``seq``; the primary key
  ``(game_id, seq)`` refuses a second one (the writer's :class:`~kahuna.server.db.writer.Conflict`).
  The loser catches its copy of the game up from the database and answers its client as for any
  stale action (``stale_version``); the client has the new state from the catch-up's ``sync``.
- **Fan-out.** A stored action is published on ``game:<id>`` with the reshuffle orders it drew and
  the clock after it; every instance holding that game applies it through the referee (with the
  stored reshuffle order: ``GameEngine.apply_stored``, the engine being the one writer of a
  game here too) and sends each of its own connections the update it may see. An
  instance that finds a gap (a lost message, a Redis restart) reloads the game from the database
  and sends its connections a ``sync``. Chat lines travel the same way; a join, an end off the
  board or an agreed rematch is announced and the others reload the game.
- **Ends exactly once.** Resignations, aborts and timeouts are stored by ``claims.claim_end`` inside
  the ending transaction: only while the game is not over and has exactly the actions the instance
  knows, so when two instances fire the same deadline one stores the timeout and the other catches
  up. A seat is taken by an invite only while it is free (``claims.claim_seat``).
- **Presence.** Each instance announces which seats have a connection to it; a seat is online if
  it has one anywhere. A newly loaded game asks the others (``who``).

Messages carry full action tokens (the database does too); they reach only other instances, which
send their clients player views, never the message.

This module is the clustered instance's :class:`~kahuna.server.games.ports.Replication`
(:class:`RedisReplication`) and the worker's (:class:`Announcer`: it tells, and follows nothing);
the embedded default replicates nothing (``games.ports.SingleInstance``), so an action costs there
what it costs without any of this.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kahuna.server.cluster.broker import Subscription, game_channel
from kahuna.server.common import logs, protocol
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db import store
from kahuna.server.db.batched import BatchedReader
from kahuna.server.db.store import ActionRow
from kahuna.server.db.writer import Writer
from kahuna.server.games import outgoing
from kahuna.server.games.live import LiveGame
from kahuna.server.games.ports import Catchup

SUBSCRIBE_SETTLE = 1.0
"""Seconds after which a new subscription surely reaches Redis (a second look for missed actions)."""
PRESENCE_EVERY = 15.0
"""Seconds between two announcements of an instance's connected seats of a game (a heartbeat)."""
PRESENCE_TTL = 40.0
"""Seconds after which another instance's announcement no longer counts: an instance that died
(``kill -9``) stops counting as its seats' connection."""

if TYPE_CHECKING:  # the Redis client is an optional extra: imported only where a broker is configured
    from kahuna.server.cluster.redis_broker import RedisBroker


class Announcer:
    """Tells the other processes what this one stored, on each game's channel. It is the whole part
    of ``kahuna worker``, which holds no connection and so follows no game and has no presence."""

    def __init__(self, broker: RedisBroker) -> None:
        self.broker = broker
        self.instance = broker.instance
        self.signature = _encode({"i": self.instance})[:-1]
        """How each of this process's messages begins (its name comes first): what its own
        subscriptions skip."""

    def publish(self, game: LiveGame, data: protocol.Replicated) -> None:
        self.publish_to(game.game_id, data)

    def publish_to(self, game_id: str, data: protocol.Replicated) -> None:
        self.broker.post(game_channel(game_id), _encode({"i": self.instance, **data}))

    def action_stored(self, game: LiveGame, row: ActionRow) -> None:
        self.publish(
            game,
            protocol.ActionStored(k="a", seq=row.seq, seat=row.seat, tok=row.token, rs=list(row.new_reshuffles),
                                  clk=row.clock, at=row.at),
        )  # fmt: skip

    def chat_stored(self, game: LiveGame, seq: int, line: dict[str, Any]) -> None:
        message = protocol.ChatStored(k="c", seq=seq, line=line)
        if seq in game.shadow_lines:  # shown to its author's seat only
            message["sh"] = 1
        self.publish(game, message)

    def line_hidden(self, game_id: str, line_id: int, hidden: bool) -> None:
        self.publish_to(game_id, protocol.LineHidden(k="h", line=line_id, hidden=hidden))

    def reload(self, game_id: str) -> None:
        self.publish_to(game_id, protocol.Reload(k="r"))

    def rematch_offered(self, game: LiveGame) -> None:
        """A seat offered a rematch: its id and the digest of the offering seat's new token (never
        a token), so that the other seat may accept through any instance."""
        assert game.rematch_offer is not None
        seat, new_id, new_digest = game.rematch_offer
        self.publish(game, protocol.RematchAsked(k="o", seat=seat, gid=new_id, dig=new_digest))

    def takeback_asked(self, game: LiveGame, declined_by: int | None = None) -> None:
        """A seat asked for a take-back (or ``declined_by`` declined it): the other seat may answer
        through any instance."""
        offer = None if game.takeback_offer is None else list(game.takeback_offer)
        self.publish(game, protocol.TakebackAsked(k="t", offer=offer, declined_by=declined_by))

    def changed(self, game: LiveGame) -> None:
        """Seats, the end or a rematch changed: the others reload the game."""
        self.publish(game, protocol.Reload(k="r"))

    def follow(self, game: LiveGame, engine: Catchup) -> None:
        return

    def unfollow(self, game_id: str) -> None:
        return

    def presence(self, game: LiveGame) -> None:
        return

    async def close(self) -> None:
        return


def _encode(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


@dataclass
class _Followed:
    game: LiveGame
    engine: Catchup
    subscription: Subscription
    task: asyncio.Task[None]


class RedisReplication:
    """A clustered instance's part: follow the games it holds, announce what it stores."""

    def __init__(self, broker: RedisBroker, writer: Writer) -> None:
        self.broker = broker
        self._announcer = Announcer(broker)
        self._follows: dict[str, _Followed] = {}
        self._presence: dict[str, tuple[bool, bool]] = {}
        """What this instance last announced for each game it holds."""
        self._heard: dict[tuple[str, str], float] = {}
        """When each (game, other instance) last announced its seats (monotonic seconds)."""
        self._heartbeat: asyncio.Task[None] | None = None
        self._stopping: set[asyncio.Task[None]] = set()
        """The listeners of games that left memory, being stopped (:meth:`unfollow`)."""
        self._versions = BatchedReader(writer, store.stored_versions, int)
        """How many actions each game has stored, read for many games at once."""
        broker.on_reconnect(self.resync)

    # ----------------------------------------------------------------- following games

    def follow(self, game: LiveGame, engine: Catchup) -> None:
        """Listen for what other instances do to ``game`` (call when it enters memory)."""
        if game.game_id in self._follows:
            return
        if self._heartbeat is None:
            self._heartbeat = asyncio.get_running_loop().create_task(self._presence_loop())
        subscription = self.broker.subscribe(game_channel(game.game_id), skip=self._announcer.signature)
        task = asyncio.get_running_loop().create_task(self._consume(game, engine, subscription))
        self._follows[game.game_id] = _Followed(game, engine, subscription, task)
        self._publish(game, protocol.Who(k="w"))

    def unfollow(self, game_id: str) -> None:
        """Stop listening (the game left memory)."""
        followed = self._follows.pop(game_id, None)
        self._presence.pop(game_id, None)
        for key in [key for key in self._heard if key[0] == game_id]:
            del self._heard[key]
        if followed is not None:
            stopping = asyncio.get_running_loop().create_task(self._stop_following(followed))
            self._stopping.add(stopping)
            stopping.add_done_callback(self._stopping.discard)

    @staticmethod
    async def _stop_following(followed: _Followed) -> None:
        await cancel_and_wait(followed.task)
        await followed.subscription.close()

    async def _consume(self, game: LiveGame, engine: Catchup, subscription: Subscription) -> None:
        # Something may have been stored between loading the game and the subscription taking
        # effect in Redis (it is sent in the background): look now, and once more a moment later.
        asyncio.get_running_loop().create_task(self._catch_up_if_behind(game, engine, 0.0, SUBSCRIBE_SETTLE))
        async for _channel, text in subscription:
            try:
                if subscription.lagged:
                    subscription.lagged = False
                    async with game.lock:
                        await engine.refresh(game)
                await self._handle(game, engine, json.loads(text))
            except Exception as exc:  # one bad message costs a reload, never the game's listener
                logs.event("cluster_error", game_id=game.game_id, error=type(exc).__name__)
                with contextlib.suppress(Exception):
                    async with game.lock:
                        await engine.refresh(game)

    async def _catch_up_if_behind(self, game: LiveGame, engine: Catchup, *delays: float) -> None:
        for delay in delays:
            await asyncio.sleep(delay)
            try:
                stored = await self._versions.get(game.game_id)
                if stored <= game.version:
                    continue
                async with game.lock:
                    # Compared again under the lock: what was read may be an action this instance
                    # was making current meanwhile, or one it applied from the broker. Reloading
                    # then would send each connection a second message of the version it already
                    # has, and a client acting on both is answered ``stale_version`` the second time.
                    if stored > game.version:
                        await engine.refresh(game)
            except Exception as exc:  # the database is away: the next message or look catches up
                logs.event("cluster_error", game_id=game.game_id, error=type(exc).__name__)

    async def _handle(self, game: LiveGame, engine: Catchup, data: dict[str, Any]) -> None:
        kind = data["k"]
        if kind == "p":
            before = game.online()
            self._heard[game.game_id, data["i"]] = time.monotonic()
            game.room.heard(data["i"], (bool(data["on"][0]), bool(data["on"][1])))
            if game.online() != before:
                outgoing.presence(game)
                if all(game.online()):  # the second player is connected to another instance
                    await engine.players_here(game)
            return
        if kind == "w":
            self._publish(game, protocol.SeatsHere(k="p", on=list(game.room.local_online())))
            if game.rematch_offer is not None:
                self.rematch_offered(game)
            if game.takeback_offer is not None:
                self.takeback_asked(game)
            return
        async with game.lock:  # every change goes through the engine under the lock, as an action does
            if kind == "t":
                offer, declined_by = data["offer"], data["declined_by"]
                asked = None if offer is None else (int(offer[0]), int(offer[1]))
                engine.takeback_elsewhere(game, asked, None if declined_by is None else int(declined_by))
                return
            if kind == "o":
                engine.rematch_offered_elsewhere(game, int(data["seat"]), str(data["gid"]), data["dig"])
                return
            if kind == "h":
                engine.hide_line(game, int(data["line"]), bool(data["hidden"]))
                return
            if kind == "a":
                if data["seq"] < game.version:
                    return  # known already (it came in a reload)
                if data["seq"] == game.version and engine.apply_stored(
                    game, int(data["seat"]), data["tok"], data["rs"], data["clk"], data["at"]
                ):
                    return
            elif kind == "c":
                line = {**data["line"], "line_id": data["seq"]}
                if engine.chat_elsewhere(game, line, bool(data.get("sh"))):
                    return
            await engine.refresh(game)

    # ----------------------------------------------------------------- announcing

    def _publish(self, game: LiveGame, data: protocol.Replicated) -> None:
        self._announcer.publish(game, data)

    def action_stored(self, game: LiveGame, row: ActionRow) -> None:
        self._announcer.action_stored(game, row)

    def chat_stored(self, game: LiveGame, seq: int, line: dict[str, Any]) -> None:
        self._announcer.chat_stored(game, seq, line)

    def line_hidden(self, game_id: str, line_id: int, hidden: bool) -> None:
        self._announcer.line_hidden(game_id, line_id, hidden)

    def reload(self, game_id: str) -> None:
        self._announcer.reload(game_id)

    def rematch_offered(self, game: LiveGame) -> None:
        self._announcer.rematch_offered(game)

    def takeback_asked(self, game: LiveGame, declined_by: int | None = None) -> None:
        self._announcer.takeback_asked(game, declined_by)

    def changed(self, game: LiveGame) -> None:
        self._announcer.changed(game)

    def presence(self, game: LiveGame) -> None:
        """Announce this instance's connected seats of ``game`` if they changed."""
        online = game.room.local_online()
        if self._presence.get(game.game_id, (False, False)) != online:
            self._presence[game.game_id] = online
            self._publish(game, protocol.SeatsHere(k="p", on=list(online)))

    async def _presence_loop(self) -> None:
        """Announce this instance's seats of each game it holds again, and forget the seats of an
        instance that has not announced them for :data:`PRESENCE_TTL`."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            now = time.monotonic()
            for game_id, followed in list(self._follows.items()):
                game = followed.game
                if any(game.room.local_online()):
                    self._publish(game, protocol.SeatsHere(k="p", on=list(game.room.local_online())))
                before = game.online()
                for instance in list(game.room.remote_online):
                    if now - self._heard.get((game_id, instance), now) > PRESENCE_TTL:
                        game.room.forget_instance(instance)
                        self._heard.pop((game_id, instance), None)
                if game.online() != before:
                    outgoing.presence(game)

    async def resync(self) -> None:
        """After Redis was away: reload every game held (a ``sync`` to each of its connections) and
        announce presence again, since any message of the meantime may be lost."""
        for game_id, followed in list(self._follows.items()):
            game = followed.game
            try:
                async with game.lock:
                    await followed.engine.refresh(game)
            except Exception as exc:
                logs.event("cluster_error", game_id=game_id, error=type(exc).__name__)
            self._publish(game, protocol.SeatsHere(k="p", on=list(game.room.local_online())))
            self._publish(game, protocol.Who(k="w"))

    async def close(self) -> None:
        """Stop following; tell the others that this instance's connections are gone."""
        if self._heartbeat is not None:
            await cancel_and_wait(self._heartbeat)
        for game_id, followed in list(self._follows.items()):
            if any(self._presence.get(game_id, (False, False))):
                self._publish(followed.game, protocol.SeatsHere(k="p", on=[False, False]))
        await asyncio.sleep(0)  # let the announcements reach the broker's queue
        for game_id in list(self._follows):
            await self._stop_following(self._follows.pop(game_id))
        for stopping in list(self._stopping):
            await stopping
