"""What a live game's room sends: each change rendered once per kind of recipient (never more than
that recipient may see) and queued to the room's connections.

The engine calls these after it made a change current; the connections' module calls them for a
``hello``. They read the game (:class:`~kahuna.server.games.live.LiveGame`) and write only its room
(:class:`~kahuna.server.games.room.Room`): its connections' queues and its caches. What a
reconnecting client or a replay request asks for is computed once and kept there, and what has
to be computed by replaying the record runs in a worker thread: a request costs what it sends,
and no flood of requests holds up the event loop that every other game shares.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from kahuna.rules import Event, GameState, public_json, shown_history
from kahuna.rules import view_json as rules_view_json
from kahuna.server.common.protocol import Presence
from kahuna.server.games import messages
from kahuna.server.games.catch_up import MAX_CATCH_UP, RecentUpdates, encode_updates
from kahuna.server.games.client import Client
from kahuna.server.games.live import LiveGame
from kahuna.server.games.replays import replay_steps


def sync_text(game: LiveGame, seat: int | None) -> str:
    """The encoded ``sync`` for ``seat``, computed once per version, status, chat and rematch;
    the clock, which changes every moment, is added as it is now."""
    key = (game.version, game.status, len(game.chat), game.rematch)
    cached = game.room.syncs.get(seat)
    if cached is None or cached[0] != key:
        sync = messages.sync(
            game.state,
            seat,
            game.status,
            game.names,
            game.kinds,
            game.version,
            game.allows_takebacks,
            chat=game.chat_for(seat),
            rematch=game.rematch,
            rematch_of=game.rematch_of,
            rated=game.rated,
            casual_reason=game.casual_reason,
            tournament=game.tournament,
        )
        game.room.syncs[seat] = cached = (key, messages.encode(sync))
    return messages.with_clock(cached[1], game.clock_json())


def view_json(game: LiveGame, state: GameState, seat: int | None) -> dict[str, Any]:
    """``seat``'s view of ``state`` as JSON without its ``history`` (never to be changed: it is
    shared; protocols 2 and 3 never send the history, and protocol 1 adds it: :func:`whole_view`).
    The last two per kind of recipient are kept, each with the state it is of (a current state is
    never changed in place, only replaced), so that the view after an action is the next update's
    view before it: a protocol-2 or -3 update computes one view, as a protocol-1 update does. The
    views of one state share what every recipient sees alike (``rules.public_json``), computed once,
    and each is built from the one before it, taking over the parts an action left as they were."""
    kept = game.room.views.get(seat)
    if kept is None:
        kept = game.room.views[seat] = []
    for held, shown in kept:
        if held is state:
            return shown
    public = game.room.public
    if public is None or public[0] is not state:  # built from the previous one where it still holds
        public = game.room.public = (state, public_json(state, public))
    shown = rules_view_json(state, seat, history=False, public=public[1], previous=kept[-1] if kept else None)
    if len(kept) > 1:
        del kept[0]
    kept.append((state, shown))
    return shown


def whole_view(game: LiveGame, state: GameState, seat: int | None) -> dict[str, Any]:
    """``seat``'s whole view of ``state`` as JSON, ``history`` included (protocol 1's updates)."""
    return {**view_json(game, state, seat), "history": shown_history(state, seat)}


def update(game: LiveGame, seat_acted: int, events: list[Event], before: GameState) -> None:
    """The update of the action that took ``before`` to the current state, redacted and encoded
    once per kind of recipient and protocol: protocols 2 and 3 carry what changed in that
    recipient's own view (``messages.update``), never anything computed from the whole state.
    Protocol 3 builds the views only for the few actions whose patch the two states do not tell."""
    texts: dict[tuple[int | None, int], str] = {}
    state, status, clock = game.state, game.status, game.clock_json()
    version, takebacks = game.version, game.allows_takebacks

    def encoded(seat: int | None, protocol: int) -> str:
        text = texts.get((seat, protocol))
        if text is None:
            if protocol == 3:  # the views only if the two states do not tell the patch
                message = messages.update(
                    state, seat_acted, events, seat, status, version, takebacks,
                    view=lambda: view_json(game, state, seat), before=lambda: view_json(game, before, seat),
                    protocol=3, prior=before,
                )  # fmt: skip
            elif protocol == 2:
                prior, shown = view_json(game, before, seat), view_json(game, state, seat)
                message = messages.update(
                    state, seat_acted, events, seat, status, version, takebacks, view=shown, before=prior, protocol=2
                )
            else:
                message = messages.update(
                    state, seat_acted, events, seat, status, version, takebacks, view=whole_view(game, state, seat)
                )
            text = texts[seat, protocol] = messages.encode(message)
        return text

    clocked: dict[tuple[int | None, int], str] = {}
    for client in game.room.clients:
        key = (client.seat, client.protocol)
        if key not in clocked:
            clocked[key] = messages.with_clock(encoded(*key), clock)
        client.send_text(clocked[key])
    for key, recent in list(game.room.recent.items()):
        recent.add(version, encoded(*key))


def sync(game: LiveGame) -> None:
    """Each connection's ``sync``: the game changed other than by an action (an end off the board,
    a take-back, a join, a reload)."""
    for client in game.room.clients:
        client.send_text(sync_text(game, client.seat))


def chat(game: LiveGame, line: dict[str, Any], author: Client | None = None) -> None:
    """A new chat line to everyone who may read it (a shadow-muted spectator's to ``author`` only)."""
    text = messages.encode(messages.chat_line(line))
    if line["line_id"] in game.shadow_lines and line["seat"] is None:
        if author is not None:
            author.send_text(text)
        return
    for client in game.room.clients:
        if not game.shown(line, client.seat):
            continue
        if line["room"] == messages.chat_room(client.seat) or (client.seat is not None and game.state.is_over):
            client.send_text(text)


def chat_hidden(game: LiveGame, line_id: int) -> None:
    """Each connection drops a line a moderator hid."""
    game.room.send_all(messages.encode(messages.chat_hidden(line_id)))


def rematch_offer(game: LiveGame) -> None:
    """The pending rematch offer to every connection."""
    assert game.rematch_offer is not None
    game.room.send_all(messages.encode(messages.rematch_offered(game.rematch_offer[0])))


def takeback_offer(game: LiveGame) -> None:
    """The pending take-back request to every connection."""
    assert game.takeback_offer is not None
    game.room.send_all(messages.encode(messages.takeback_offered(*game.takeback_offer)))


def takeback_declined(game: LiveGame, seat: int) -> None:
    """``seat`` declined the other seat's take-back request: to every connection."""
    game.room.send_all(messages.encode(messages.takeback_declined(seat)))


def clock(game: LiveGame) -> None:
    """The clock as it is now to every connection (it started without an action)."""
    shown = game.clock_json()
    if shown is not None:
        game.room.send_all(messages.encode(messages.clock(shown)))


def presence_message(game: LiveGame, now: float | None = None) -> Presence:
    """The ``presence`` message as this instance sees it now."""
    return game.room.presence(game.online(), time.time() if now is None else now)


def presence(game: LiveGame) -> None:
    game.room.send_all(messages.encode(presence_message(game)))


async def catch_up(game: LiveGame, seat: int | None, since: int | None, protocol: int = 1) -> list[str]:
    """What a client last at version ``since`` needs: the missed updates in its ``protocol`` (a
    protocol-2 or -3 client has the view of version ``since``, to which they apply in order), or a
    sync (the caller holds the lock, so no update is applied meanwhile)."""
    current = game.version
    ended_off_board = game.state.termination is not None  # the record's updates do not show it
    if since is None or not 0 <= since < current or current - since > MAX_CATCH_UP:
        return [sync_text(game, seat)]
    if ended_off_board or game.takebacks:  # a log with take-backs: its state, not its steps
        return [sync_text(game, seat)]
    recent = game.room.recent.get((seat, protocol))
    texts = None if recent is None else recent.since(since, current)
    if texts is None:
        start = max(0, current - MAX_CATCH_UP)
        snapshot = (game.deal, game.state.variant, list(game.state.reshuffles), list(game.state.history))
        encoded = await asyncio.to_thread(encode_updates, *snapshot, seat, start, game.allows_takebacks, protocol)
        game.room.recent[seat, protocol] = recent = RecentUpdates(encoded, current)
        texts = recent.since(since, current)
        assert texts is not None
    return texts


async def replay_json(game: LiveGame) -> bytes:
    """A finished game's replay steps as JSON, computed once (in a worker thread)."""
    if game.room.replay is None:
        snapshot = (game.deal, game.state.variant, list(game.state.reshuffles), list(game.state.history))
        game.room.replay = await asyncio.to_thread(replay_steps, *snapshot)
    return game.room.replay
