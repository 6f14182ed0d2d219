"""What each account wants to be told while its tab is closed: kinds of notification by channel.

A notification is one of :data:`KINDS` (your turn in a correspondence game, its deadline coming
near, a challenge addressed to the account, a tournament it joined starting) sent through one of
:data:`CHANNELS` (``mail``; ``push`` once Web Push exists). Everything is on until the account turns
it off, so only what is off is stored (``notification_settings.off``: ``kind:channel`` pairs).

:func:`wants` is what any sender asks before it sends; it runs in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select, update

from kahuna.server.db.schema import notification_settings

KINDS = ("your_turn", "deadline", "challenge", "tournament")
CHANNELS = ("mail", "push")


@dataclass(frozen=True)
class Notice:
    """One notification for one account, as decided once by the notifier (``notify/notifier.py``)
    and handed to each channel (``push/channel.py``, ``mail/channel.py``), which says it in its own
    words. Never a card, a hand or a move: a channel's words leave the server."""

    kind: str
    """One of :data:`KINDS`."""
    account_id: int
    subject: str
    """What it is about: a game's id (``your_turn``, ``deadline``, a tournament's game), a
    challenge's id, a tournament's id (a tournament starting soon)."""
    step: int | None
    """The game's version for ``your_turn`` and ``deadline`` (a later turn is a new notice);
    ``None`` for the others."""
    other: str | None
    """The opponent's, challenger's or tournament's name."""
    path: str
    """The page it opens (relative to the server's public address)."""
    expires: float
    """When it is no longer worth delivering (a deadline passed, a challenge gone)."""
    seat: int | None = None
    """The account's seat in the game it is about, if any."""
    left: float = 0.0
    """Seconds until the deadline or the tournament's start (0 for the others)."""

    @property
    def key(self) -> str:
        """What makes it one notice: ``your_turn:GAME:VERSION``, ``challenge:ID``."""
        return f"{self.kind}:{self.subject}" if self.step is None else f"{self.kind}:{self.subject}:{self.step}"


class UnknownSetting(ValueError):
    """A kind or channel that does not exist; ``code`` is ``unknown_kind`` or ``unknown_channel``."""

    def __init__(self, code: str, name: str) -> None:
        super().__init__(f"{code}: {name}")
        self.code = code
        self.name = name


def _off(conn: Connection, account_id: int) -> set[str] | None:
    """The pairs the account turned off (``None``: it has no row yet)."""
    row = conn.execute(
        select(notification_settings.c.off).where(notification_settings.c.account_id == account_id)
    ).first()
    return None if row is None else set(str(row.off).split())


def wants(conn: Connection, account_id: int, kind: str, channel: str) -> bool:
    """Whether the account wants notifications of ``kind`` by ``channel`` (``UnknownSetting`` for
    a kind or channel that does not exist: a typo in a caller must not read as "off")."""
    check(kind, channel)
    return f"{kind}:{channel}" not in (_off(conn, account_id) or set())


def check(kind: str, channel: str) -> None:
    if kind not in KINDS:
        raise UnknownSetting("unknown_kind", kind)
    if channel not in CHANNELS:
        raise UnknownSetting("unknown_channel", channel)


def check_change(changes: dict[str, dict[str, bool]]) -> None:
    """``UnknownSetting`` for the first kind or channel of ``changes`` that does not exist."""
    for kind, channels in changes.items():
        check(kind, CHANNELS[0])
        for channel in channels:
            check(kind, channel)


def settings_of(conn: Connection, account_id: int) -> dict[str, dict[str, bool]]:
    """Every kind's channels, on or off: ``{kind: {channel: bool}}``."""
    off = _off(conn, account_id) or set()
    return {kind: {channel: f"{kind}:{channel}" not in off for channel in CHANNELS} for kind in KINDS}


def change(conn: Connection, account_id: int, changes: dict[str, dict[str, bool]]) -> None:
    """Turn the named kinds' channels on or off (the others stay as they are). Every name is
    checked before anything is written, so an unknown one changes nothing."""
    check_change(changes)
    stored = _off(conn, account_id)
    off = set(stored or ())
    for kind, channels in changes.items():
        for channel, on in channels.items():
            (off.discard if on else off.add)(f"{kind}:{channel}")
    text = " ".join(sorted(off))
    if stored is None:
        conn.execute(notification_settings.insert().values(account_id=account_id, off=text, secret=None))
    else:
        conn.execute(
            update(notification_settings).where(notification_settings.c.account_id == account_id).values(off=text)
        )


def turn_off(conn: Connection, account_id: int, kind: str, channel: str) -> None:
    change(conn, account_id, {kind: {channel: False}})
