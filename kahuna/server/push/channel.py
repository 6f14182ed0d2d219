"""The push channel of the notifier (``notify/notifier.py``): a notice queued as a push to every
device of its account (``push/queue.py``), for the outbox given at assembly to send.

Before a notice is queued the account is asked: it must have a device, and want pushes of the kind
(:class:`PushPreferences`; :class:`AccountSettings` reads the ``push`` channel of its notification
settings, ``GET``/``PUT /api/me/notifications``). An account is pushed at most ``budget`` notices an
hour, whoever causes them (a stranger's challenge-and-cancel loop cannot ring a phone all day):
more are dropped (``push_over_budget``).

What a push says: its ``kind``, the game's id and the opponent's name, and the page to open.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from kahuna.server.accounts import notifications
from kahuna.server.accounts.notifications import KINDS, Notice
from kahuna.server.common import logs
from kahuna.server.common.outbox import Outbox
from kahuna.server.db.writer import Writer
from kahuna.server.push import queue, subscriptions

TTL = {"your_turn": 24 * 3600.0, "deadline": 3600.0, "challenge": 600.0, "tournament": 600.0}
"""How long a push is worth delivering: a push service holds it this long for a device that is off."""


class PushPreferences(Protocol):
    """Whether an account wants pushes of a kind. Called in a worker thread (it may read the
    database with a connection of its own), once per notice and account."""

    def wants(self, account_id: int, kind: str) -> bool: ...


class AccountSettings:
    """The account's notification settings (``accounts/notifications.py``), their ``push`` channel."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def wants(self, account_id: int, kind: str) -> bool:
        with self.writer.engine.connect() as conn:
            return notifications.wants(conn, account_id, kind, "push")


def payload(notice: Notice) -> dict[str, Any]:
    """A push's words: a game's id, the opponent's name and the page to open."""
    game = {} if notice.seat is None else {"game": notice.subject}
    return {"kind": notice.kind, **game, "opponent": notice.other, "url": notice.path}


class PushChannel:
    """Queues the notices as pushes."""

    kinds_now: tuple[str, ...] = KINDS
    """Every kind is pushed as it happens."""

    def __init__(self, writer: Writer, preferences: PushPreferences, outbox: Outbox, budget: int = 20) -> None:
        """``budget``: notices one account may be pushed in an hour (``pushes_per_account_per_hour``)."""
        self.writer = writer
        self.preferences = preferences
        self.outbox = outbox
        self.budget = budget

    def start(self) -> None:
        """Nothing runs here: the outbox is a part of its own."""

    async def stop(self) -> None:
        """Nothing runs here: the outbox is a part of its own."""

    async def deliver(self, notice: Notice) -> None:
        account_id, kind = notice.account_id, notice.kind
        if not await self.writer.read(lambda conn: subscriptions.has_devices(conn, account_id)):
            return  # most accounts: nothing to ask, nothing to write
        if not await asyncio.to_thread(self.preferences.wants, account_id, kind):
            logs.event("push_not_wanted", push_kind=kind, account_id=account_id)
            return
        now, budget, words = time.time(), self.budget, payload(notice)
        added = await self.writer.transact(
            lambda conn: queue.enqueue(conn, account_id, notice.key, words, now, TTL[kind], budget)
        )
        if added is None:
            logs.event("push_over_budget", push_kind=kind, account_id=account_id)
        elif added:
            logs.event("push_queued", push_kind=kind, account_id=account_id, devices=added)
            self.outbox.wake()
