"""Every message the server sends, declared once: on a game's socket, on the lobby's socket, and
between instances (replication). docs/protocol.md, *Every message, field by field*, lists the same
types with the same fields, and ``tests/server/test_protocol_messages.py`` checks both ways: each
type here against its row there, and every message a real server sends in real games against the
rows.

The types are ``TypedDict``\\ s: a message is the plain ``dict`` it always was, built by calling its
type (``Ack(type="ack", id=..., version=...)``), so mypy checks every field where it is built and
nothing is added to the send path (orjson encodes a ``dict``; no object is converted first). The
keys come in the order they are given, which is the order on the wire.

It lives in ``common/`` because every room that speaks to a client or to another instance builds
some of these (``games``, ``cluster``, ``community``, ``moderation``, ``http``), and none of those
rooms may import the others sideways. Deliberately no ``from __future__ import annotations``: the
test reads each type's ``__required_keys__`` and ``__optional_keys__``, which Python 3.11 computes
wrongly from string annotations.
"""

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast

Json = Any
"""A value whose shape belongs to another part (a player view, an event, a seek as the lobby
shows it): the protocol fixes the message's fields, the value's owner its content."""

# ----------------------------------------------------------------- the game's socket /ws/<game_id>


class Sync(TypedDict):
    """The whole state for one recipient: after ``hello``, a reload, a take-back or an end off the
    board. ``clock`` only in a timed game (added to the encoded text as it is at each sending)."""

    type: Literal["sync"]
    version: int
    seat: int | None
    status: str
    players: list[str | None]
    kinds: list[str]
    view: dict[str, Json]
    legal: list[str]
    why_not: dict[str, dict[str, Json]]
    can_take_back: bool
    termination: dict[str, Json] | None
    chat: list[dict[str, Json]]
    rematch: str | None
    rematch_of: str | None
    rated: bool
    casual_reason: str | None
    tournament: bool
    clock: NotRequired[dict[str, Json]]


class Update(TypedDict):
    """Protocol 1's update: one per applied action, with the recipient's whole new view."""

    type: Literal["update"]
    version: int
    seat_acted: int
    action: str
    events: list[dict[str, Json]]
    view: dict[str, Json]
    legal: list[str]
    why_not: dict[str, dict[str, Json]]
    status: str
    result: dict[str, Json] | None
    can_take_back: bool
    clock: NotRequired[dict[str, Json]]


class DeltaUpdate(TypedDict):
    """Protocol 2's update: what changed in the recipient's view instead of the view; the fields
    that have their usual value are left out (``games.messages.DEFAULTS``)."""

    type: Literal["update"]
    version: int
    seat_acted: int
    action: str
    events: list[dict[str, Json]]
    changed: dict[str, Json]
    legal: NotRequired[list[str]]
    why_not: NotRequired[dict[str, dict[str, Json]]]
    status: NotRequired[str]
    result: NotRequired[dict[str, Json] | None]
    can_take_back: NotRequired[bool]
    clock: NotRequired[dict[str, Json]]


class PatchUpdate(TypedDict):
    """Protocol 3's update: of the recipient's view only what the action's events do not say
    (``kahuna.rules.view_patch``); ``seat_acted`` only when it is not the seat that was to move, and
    the fields of :class:`DeltaUpdate` left out as there."""

    type: Literal["update"]
    version: int
    seat_acted: NotRequired[int]
    action: str
    events: list[dict[str, Json]]
    patch: NotRequired[dict[str, Json]]
    legal: NotRequired[list[str]]
    why_not: NotRequired[dict[str, dict[str, Json]]]
    status: NotRequired[str]
    result: NotRequired[dict[str, Json] | None]
    can_take_back: NotRequired[bool]
    clock: NotRequired[dict[str, Json]]


class Foreseen(TypedDict):
    """The answer to ``foresee``: what the referee foresees from the recipient's view."""

    type: Literal["foreseen"]
    version: int
    actions: dict[str, list[dict[str, Json]]]
    close: list[dict[str, Json]]


class Ack(TypedDict):
    type: Literal["ack"]
    id: str | None
    version: int


class Error(TypedDict):
    """A refused message on a game's socket; the optional fields are what some refusals add."""

    type: Literal["error"]
    code: str
    message: str
    id: str | None
    reason: NotRequired[dict[str, Json]]
    retry_after: NotRequired[float]
    room: NotRequired[str]
    seconds_left: NotRequired[int]


class Presence(TypedDict):
    type: Literal["presence"]
    online: list[bool]
    away: list[float | None]
    claim_after: float


class ClockNow(TypedDict):
    """The clock alone: when it starts without an action, and after a catch-up."""

    type: Literal["clock"]
    clock: dict[str, Json]


class Chat(TypedDict):
    """A new chat line (plain text)."""

    type: Literal["chat"]
    line_id: int
    room: str
    seat: int | None
    text: str
    at: str


class ChatHidden(TypedDict):
    type: Literal["chat_hidden"]
    line_id: int


class TakebackOffered(TypedDict):
    type: Literal["takeback_offered"]
    seat: int
    version: int


class TakebackDeclined(TypedDict):
    type: Literal["takeback_declined"]
    seat: int


class RematchOffered(TypedDict):
    type: Literal["rematch_offered"]
    seat: int


class Rematch(TypedDict):
    """The agreed rematch; a seat's own connection also gets its seat and seat link."""

    type: Literal["rematch"]
    game_id: str
    spectator_url: str
    seat: NotRequired[int]
    seat_url: NotRequired[str]


class Pong(TypedDict):
    """The answer to ``ping``, on either socket."""

    type: Literal["pong"]


GameMessage = (
    Sync
    | Update
    | DeltaUpdate
    | PatchUpdate
    | Foreseen
    | Ack
    | Error
    | Presence
    | ClockNow
    | Chat
    | ChatHidden
    | TakebackOffered
    | TakebackDeclined
    | RematchOffered
    | Rematch
    | Pong
)
GAME_SOCKET: tuple[type, ...] = GameMessage.__args__
"""The messages of a game's socket, for the test that compares them with docs/protocol.md."""

PONG = Pong(type="pong")

# ----------------------------------------------------------------- the lobby's socket /ws/lobby
# Published through the broker (channels ``lobby``, ``user:<id>``, ``seek:<id>``,
# ``tournament:<id>``) by the room that sees the change, and passed on by each lobby connection.


class SeekPage(TypedDict):
    """One page of the open seeks, as ``GET /api/seeks`` answers it and ``seeks`` carries it."""

    seeks: list[dict[str, Json]]
    page: int
    pages: int
    total: int


class Seeks(SeekPage):
    type: Literal["seeks"]


class Challenges(TypedDict):
    type: Literal["challenges"]
    username: str
    challenges: list[dict[str, Json]]


class SeekAdded(TypedDict):
    type: Literal["seek_added"]
    seek: dict[str, Json]


class SeekRemoved(TypedDict):
    type: Literal["seek_removed"]
    seek_id: str
    reason: str


class Challenge(TypedDict):
    type: Literal["challenge"]
    challenge: dict[str, Json]


class Accepted(TypedDict):
    """An offer the connection owns was accepted. Published without the seat token (the broker
    never carries one): the owner's connection adds its seat links. Answering ``own`` (or after the
    broker may have lost events) it is the offer's status read back, which also has the offer's
    public fields (``kind`` … ``variant``); ``casual_reason`` is missing only then, for a game whose
    row is gone."""

    type: Literal["accepted"]
    seek_id: str
    kind: NotRequired[str]
    status: NotRequired[str]
    username: NotRequired[str]
    account: NotRequired[bool]
    rating: NotRequired[Json]
    clock: NotRequired[Json]
    variant: NotRequired[list[str]]
    game_id: str
    seat: int
    rated: bool
    casual_reason: NotRequired[str | None]
    token: NotRequired[str]
    seat_url: NotRequired[str]
    spectator_url: NotRequired[str]


def accepted(fields: Mapping[str, Any]) -> Accepted:
    """``accepted`` from an offer's status read back (``Lobby.status``: its public fields, seat
    links and how the game counts, in that order); the keys are :class:`Accepted`'s."""
    return cast(Accepted, {"type": "accepted", **fields})


class Declined(TypedDict):
    type: Literal["declined"]
    seek_id: str


class AccountClosed(TypedDict):
    type: Literal["account_closed"]


class TournamentChatLine(TypedDict):
    line_id: int
    username: str
    text: str
    at: float


class TournamentChat(TypedDict):
    type: Literal["tournament_chat"]
    tournament_id: str
    line: TournamentChatLine


class TournamentGame(TypedDict):
    type: Literal["tournament_game"]
    tournament_id: str
    game_id: str
    seat: int
    seat_url: str


class Owned(TypedDict):
    type: Literal["owned"]
    seek_id: str
    alive_seconds: float


class LobbyError(TypedDict):
    """A refused lobby message (or a wrong token at connection, then closed with 4401)."""

    type: Literal["error"]
    code: str
    message: str


LobbyMessage = (
    Seeks
    | Challenges
    | SeekAdded
    | SeekRemoved
    | Challenge
    | Accepted
    | Declined
    | AccountClosed
    | TournamentChat
    | TournamentGame
    | Owned
    | Pong
    | LobbyError
)
LOBBY_SOCKET: tuple[type, ...] = LobbyMessage.__args__

# ----------------------------------------------------------------- between instances (game:<id>)
# Each is published as ``{"i": <instance>, **message}`` (``cluster/replication.py``): the sender's
# name first, so that its own subscriptions skip it. Short keys: every action crosses Redis once.


class ActionStored(TypedDict):
    """An action stored at ``seq``, with the reshuffle orders it drew and the clock after it."""

    k: Literal["a"]
    seq: int
    seat: int
    tok: str
    rs: list[Json]
    clk: dict[str, Json] | None
    at: str


class ChatStored(TypedDict):
    """A chat line stored at ``seq``; ``sh``: shown to its author's seat only (a shadow mute)."""

    k: Literal["c"]
    seq: int
    line: dict[str, Json]
    sh: NotRequired[int]


class LineHidden(TypedDict):
    k: Literal["h"]
    line: int
    hidden: bool


class Reload(TypedDict):
    """Seats, the end or a rematch changed: the others reload the game from the database."""

    k: Literal["r"]


class RematchAsked(TypedDict):
    """A rematch offer: the new game's id and the digest of the offering seat's new token."""

    k: Literal["o"]
    seat: int
    gid: str
    dig: str | None


class TakebackAsked(TypedDict):
    """A take-back request (``offer``: seat and version), or its decline (``declined_by``)."""

    k: Literal["t"]
    offer: list[int] | None
    declined_by: int | None


class Who(TypedDict):
    """A game entered this instance's memory: the others say who is connected to them."""

    k: Literal["w"]


class SeatsHere(TypedDict):
    """Which seats have a connection to this instance."""

    k: Literal["p"]
    on: list[bool]


Replicated = ActionStored | ChatStored | LineHidden | Reload | RematchAsked | TakebackAsked | Who | SeatsHere
REPLICATION: tuple[type, ...] = Replicated.__args__
