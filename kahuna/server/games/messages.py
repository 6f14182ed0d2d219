"""The game socket's messages (their types: ``common/protocol.py``), built for one recipient from
the referee's state.

Everything a recipient gets is derived from its player view and from events redacted for it, and
nothing else (no game id, token or time stamp), so two games that differ only in cards hidden from
a recipient give it byte-identical messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, overload

import orjson

from kahuna.rules import Event, GameState, shown_token, view_json, view_of, view_patch
from kahuna.rules.actions import DISCARD, END, PASS, TAKE_DECK, TAKE_DISPLAY
from kahuna.rules.foresight import close_islands, consequences
from kahuna.server.common.errors import Rejected
from kahuna.server.common.protocol import PONG as PONG  # the game socket's answer to ping, sent as it is
from kahuna.server.common.protocol import (
    Ack,
    Chat,
    ChatHidden,
    ClockNow,
    DeltaUpdate,
    Error,
    Foreseen,
    PatchUpdate,
    Presence,
    Rematch,
    RematchOffered,
    Sync,
    TakebackDeclined,
    TakebackOffered,
    Update,
)

WAITING, PLAYING, OVER = "waiting", "playing", "over"


def status_of(state: GameState, seats_filled: bool) -> str:
    if state.is_over:
        return OVER
    return PLAYING if seats_filled else WAITING


def legal_for(state: GameState, recipient: int | None, status: str) -> list[str]:
    """The legal tokens if ``recipient`` is the seat to move in a game being played, else none."""
    if status != PLAYING or recipient is None or recipient != state.to_move:
        return []
    return [a.token for a in state.legal_actions()]


def why_not_for(state: GameState, recipient: int | None, status: str) -> dict[str, dict[str, str | int]]:
    """For the seat to move: the refusals (reason code and parameters) of the actions the browser
    shows as buttons — declining or ending the turn, drawing from the deck or a display card, and
    discarding each card of the hand — when they are not legal, so that every disabled button can
    say why without the client knowing any rule. Only public information and the recipient's own
    hand go into them."""
    if status != PLAYING or recipient is None or recipient != state.to_move:
        return {}
    display, hand = state.display, state.hands[recipient]
    shown = [take for take, n in zip(TAKE_DISPLAY, display, strict=True) if n]
    held = [discard for discard, n in zip(DISCARD, hand, strict=True) if n]
    out: dict[str, dict[str, str | int]] = {}
    for action in (PASS, END, TAKE_DECK, *shown, *held):
        reason = state.why_illegal(action)
        if reason is not None:
            out[action.token] = reason.to_json()
    return out


def can_take_back(state: GameState, recipient: int | None, status: str, allowed: bool) -> bool:
    """Whether ``recipient`` may ask to take back its last action now: a game that allows it, the
    recipient's own turn, and an action of this turn before it (nothing drawn yet: a draw ends the
    turn), so that a take-back never changes what anyone knows of hidden cards."""
    if not allowed or status != PLAYING or recipient is None or recipient != state.to_move or not state.history:
        return False
    actor, action = state.history[-1]
    return actor == recipient and not action.ends_turn


def sync(
    state: GameState,
    recipient: int | None,
    status: str,
    players: Sequence[str | None],
    kinds: Sequence[str],
    version: int | None = None,
    takebacks: bool = False,
    *,
    chat: list[dict[str, Any]],
    rematch: str | None = None,
    rematch_of: str | None = None,
    rated: bool = False,
    casual_reason: str | None = None,
    tournament: bool = False,
) -> Sync:
    """``version``: the game's log version (actions and take-backs), when it differs from the number
    of actions; ``takebacks``: whether the game allows take-backs (casual games); ``chat``: the
    lines the recipient may read; the rest as the game's summary has them."""
    view = view_of(state, recipient)
    return Sync(
        type="sync",
        version=view.version if version is None else version,
        seat=recipient,
        status=status,
        players=list(players),
        kinds=list(kinds),
        view=view.to_json(),
        legal=legal_for(state, recipient, status),
        why_not=why_not_for(state, recipient, status),
        can_take_back=can_take_back(state, recipient, status, takebacks),
        termination=None if state.termination is None else state.termination.to_json(),
        chat=chat,
        rematch=rematch,
        rematch_of=rematch_of,
        rated=rated,
        casual_reason=casual_reason,
        tournament=tournament,
    )


@overload
def update(
    state: GameState,
    seat_acted: int,
    events: Sequence[Event],
    recipient: int | None,
    status: str,
    version: int | None = None,
    takebacks: bool = False,
    *,
    view: dict[str, Any] | None = None,
    before: None = None,
    protocol: Literal[1] = 1,
) -> Update: ...


@overload
def update(
    state: GameState,
    seat_acted: int,
    events: Sequence[Event],
    recipient: int | None,
    status: str,
    version: int | None = None,
    takebacks: bool = False,
    *,
    view: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
    before: dict[str, Any] | Callable[[], dict[str, Any]] | None,
    protocol: int,
    prior: GameState | None = None,
) -> Update | DeltaUpdate | PatchUpdate: ...


def update(
    state: GameState,
    seat_acted: int,
    events: Sequence[Event],
    recipient: int | None,
    status: str,
    version: int | None = None,
    takebacks: bool = False,
    *,
    view: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
    before: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
    protocol: int = 1,
    prior: GameState | None = None,
) -> Update | DeltaUpdate | PatchUpdate:
    """The update for the action just applied to ``state`` (its last history entry) in ``protocol``;
    ``version`` and ``takebacks`` as for :func:`sync`. ``view``: the recipient's view of ``state``
    as JSON, if the caller has it already (for protocols 2 and 3 it may lack ``history``, which they
    never send). Protocol 1 carries that whole view. Protocols 2 and 3
    need ``before``, the recipient's view before the action as JSON, so that an update costs what
    changed rather than the whole game so far (docs/protocol.md, *Protocol 2* and *Protocol 3*):
    2 carries the view's :func:`changes`, 3 only what the action's events do not say of them
    (:mod:`kahuna.rules.view_patch`), and no ``seat_acted`` when it is the seat that was to move.
    ``view`` and ``before`` may be given as functions that build them: protocol 3 given ``prior``,
    the state before the action, calls them only when the states alone do not tell the patch
    (:func:`view_patch.from_states`), so that most of its updates build no view at all."""

    def shown() -> dict[str, Any]:
        if view is None:
            return view_json(state, recipient, history=protocol == 1)
        return view() if callable(view) else view

    def prior_view() -> dict[str, Any]:
        assert before is not None
        return before() if callable(before) else before

    action = shown_token(state, recipient, -1)
    number = len(state.history) if version is None else version
    seen = [e.seen_by(recipient).to_json() for e in events]
    legal = legal_for(state, recipient, status)
    why_not = why_not_for(state, recipient, status)
    result = None if state.outcome is None else state.outcome.to_json()
    may_take_back = can_take_back(state, recipient, status, takebacks)
    if protocol == 1:
        return Update(
            type="update",
            version=number,
            seat_acted=seat_acted,
            action=action,
            events=seen,
            view=shown(),
            legal=legal,
            why_not=why_not,
            status=status,
            result=result,
            can_take_back=may_take_back,
        )
    out: DeltaUpdate | PatchUpdate
    if protocol == 2:
        out = DeltaUpdate(
            type="update",
            version=number,
            seat_acted=seat_acted,
            action=action,
            events=seen,
            changed=changes(prior_view(), shown()),
        )
    else:
        out = PatchUpdate(type="update", version=number, action=action, events=seen)
        was_to_move = prior_view()["to_move"] if prior is None else prior.to_move
        if seat_acted != was_to_move:
            out["seat_acted"] = seat_acted
        patch = None if prior is None else view_patch.from_states(prior, state, recipient, seen)
        if patch is None:
            patch = view_patch.patch(view_patch.expected(prior_view(), seen), shown())
        if patch:
            out["patch"] = patch
    if legal != DEFAULTS["legal"]:
        out["legal"] = legal
    if why_not != DEFAULTS["why_not"]:
        out["why_not"] = why_not
    if status != DEFAULTS["status"]:
        out["status"] = status
    if result != DEFAULTS["result"]:
        out["result"] = result
    if may_take_back != DEFAULTS["can_take_back"]:
        out["can_take_back"] = may_take_back
    return out


PROTOCOLS = (1, 2, 3)
"""The versions of the game protocol this server speaks: 1 (every ``update`` carries the whole
view; a ``hello`` that names none), 2 (an ``update`` carries what changed: :func:`changes`) and 3
(only what its events do not say: :mod:`kahuna.rules.view_patch`). 2 stays for the clients that
still ask for it (a browser tab opened before 3 existed)."""

DEFAULTS: dict[str, Any] = {"legal": [], "why_not": {}, "status": PLAYING, "result": None, "can_take_back": False}
"""Protocols 2 and 3 leave out each of these fields of an ``update`` when it has this value (most updates:
the seat not to move has no legal actions), and the client puts it back."""

MERGED = ("bridges", "stones", "unseen")
"""Protocol 2: the view's maps whose changes list only the keys whose value changed (the other keys
keep theirs)."""


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What protocol 2's ``changed`` holds: each field of the view ``after`` whose value differs
    from ``before``'s with its new value — for the maps of :data:`MERGED` only their changed keys —
    and never ``history``, which grows by the update's ``action``. A client applies it by setting
    each field (merging those maps) and appending ``action`` to ``history``; both views are the
    same recipient's, so nothing reaches it that its own view does not show."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before[key]
        if key == "history" or value == old:
            continue
        if key in MERGED:
            out[key] = {name: item for name, item in value.items() if old[name] != item}
        else:
            out[key] = value
    return out


def foreseen(state: GameState, recipient: int | None, status: str, version: int) -> Foreseen:
    """What the referee foresees from ``recipient``'s view (``kahuna.rules.foresight``): for the seat
    to move in a game being played, its legal actions that cause more than themselves, each with
    those events; for everyone, the islands one bridge would change."""
    view = view_of(state, recipient)
    actions = consequences(view) if status == PLAYING else {}
    return Foreseen(
        type="foreseen",
        version=version,
        actions={token: [e.to_json() for e in events] for token, events in actions.items()},
        close=[c.to_json() for c in close_islands(view)],
    )


def ack(msg_id: str | None, version: int) -> Ack:
    return Ack(type="ack", id=msg_id, version=version)


def error(code: str, message: str, msg_id: str | None = None, *, retry_after: float | None = None) -> Error:
    """``retry_after``: the seconds a rate-limited client waits before it sends again."""
    out = Error(type="error", code=code, message=message, id=msg_id)
    if retry_after is not None:
        out["retry_after"] = retry_after
    return out


def refusal(exc: Rejected, msg_id: str | None = None) -> Error:
    """The ``error`` of a refused request, with the field its refusal adds: an illegal action's
    ``reason``, a rate limit's ``retry_after``, a full chat's ``room``, a mute's ``seconds_left``."""
    extra = exc.extra
    out = error(exc.code, exc.message, msg_id, retry_after=extra.get("retry_after"))
    if "reason" in extra:
        out["reason"] = extra["reason"]
    if "room" in extra:
        out["room"] = extra["room"]
    if "seconds_left" in extra:
        out["seconds_left"] = extra["seconds_left"]
    return out


def presence(online: Sequence[bool], left_at: Sequence[float | None], now: float, claim_after: float) -> Presence:
    """Who is connected; ``away``: for how many seconds each seat has had no connection (``null``:
    connected); ``claim_after``: the seconds after which the opponent of a seat gone from a
    real-time game may claim the win or a draw (``claim_victory``, ``claim_draw``)."""
    away = [None if at is None else round(max(0.0, now - at), 1) for at in left_at]
    return Presence(type="presence", online=list(online), away=away, claim_after=claim_after)


def with_clock(text: str, clock: dict[str, Any] | None) -> str:
    """An encoded ``sync`` or ``update`` with the clock of a timed game as it is now (an untimed
    game's messages have no ``clock``): the rest is computed once, the clock at every sending.
    Updates rebuilt from the record for a catch-up carry no clock; the ``clock`` message that
    follows them does."""
    if clock is None:
        return text
    assert text.endswith("}")
    return f'{text[:-1]},"clock":{encode(clock)}}}'


def clock(clock: dict[str, Any]) -> ClockNow:
    """The clock alone, after a catch-up (whose updates carry the clock of their time)."""
    return ClockNow(type="clock", clock=clock)


PLAYERS_ROOM, SPECTATORS_ROOM = "players", "spectators"


def chat_room(seat: int | None) -> str:
    """Where ``seat`` chats: the players' room for a seat, the spectators' room for a spectator."""
    return SPECTATORS_ROOM if seat is None else PLAYERS_ROOM


def chat_line(line: Mapping[str, Any]) -> Chat:
    """A new chat line, from the line as the game keeps it (``{"line_id", "room", "seat", "text", "at"}``)."""
    return Chat(
        type="chat", line_id=line["line_id"], room=line["room"], seat=line["seat"], text=line["text"], at=line["at"]
    )


def chat_hidden(line_id: int) -> ChatHidden:
    """A moderator hid a chat line (the client drops it)."""
    return ChatHidden(type="chat_hidden", line_id=line_id)


MAX_TAKEBACKS = 20
"""Take-backs one game may hold: each is two entries of its log, and against an AI (which accepts
at once) a play-and-take-back loop stored 60 entries a second, unbounded (issue 45)."""

MAX_DECLINED_TAKEBACKS = 3
"""Take-back requests of one seat the other may decline before that seat may ask no more in the
game: with a request refused while the seat's own is pending, a seat's requests reach the others
at most once per action plus this many times (issue 45: 1,199 in 20 s before)."""


def takeback_offered(seat: int, version: int) -> TakebackOffered:
    """``seat`` asks to take back its last action, at ``version`` (an action played since voids it)."""
    return TakebackOffered(type="takeback_offered", seat=seat, version=version)


def takeback_declined(seat: int) -> TakebackDeclined:
    """``seat`` declined the other seat's take-back request."""
    return TakebackDeclined(type="takeback_declined", seat=seat)


def rematch_offered(seat: int) -> RematchOffered:
    return RematchOffered(type="rematch_offered", seat=seat)


def rematch(game_id: str, seat: int | None, token: str | None) -> Rematch:
    """The agreed rematch: its id, and for a seat its new seat link (sent to that seat only)."""
    out = Rematch(type="rematch", game_id=game_id, spectator_url=f"/watch/{game_id}")
    if seat is not None and token is not None:
        out["seat"] = seat
        out["seat_url"] = f"/play/{game_id}#{token}"
    return out


def encode(message: Mapping[str, Any]) -> str:
    """Compact, deterministic JSON text.

    orjson writes the same text as ``json.dumps(separators=(",", ":"), ensure_ascii=False)`` for
    every message the server builds, several times faster: encoding is a large part of what an
    action costs (docs/scaling.md, the profile). Text it refuses (a lone surrogate) falls back to
    the standard library, which escapes it."""
    try:
        return orjson.dumps(message).decode()
    except orjson.JSONEncodeError:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
