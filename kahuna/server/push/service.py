"""Web Push as the HTTP API uses it: the server's key and the devices' subscriptions, built once
by ``assembly.py``."""

from __future__ import annotations

import time

from kahuna.server.common import logs
from kahuna.server.common.config import Limits, PushSettings
from kahuna.server.common.errors import Rejected
from kahuna.server.db.writer import Writer
from kahuna.server.push import subscriptions
from kahuna.server.push.vapid import VapidKey


class WebPush:
    """The devices' side of Web Push (what ``/api/push/key`` and ``/api/me/push`` ask); the pushes
    themselves are the notifier's push channel (``push/channel.py``)."""

    def __init__(self, writer: Writer, settings: PushSettings, limits: Limits, key: VapidKey) -> None:
        self.writer = writer
        self.settings = settings
        self.devices_per_account = limits.push_devices_per_account
        self.key = key

    async def subscribe(self, account_id: int, endpoint: str, p256dh: str, auth: str) -> None:
        """Store the device (``Rejected`` 422 ``invalid_endpoint``, ``invalid_keys``, ``too_many_devices``)."""
        subscriptions.check(endpoint, p256dh, auth, self.settings.insecure_hosts)
        now, most = time.time(), self.devices_per_account
        found = await self.writer.transact(
            lambda conn: subscriptions.subscribe(conn, account_id, endpoint, p256dh, auth, now, most)
        )
        if found is None:
            raise Rejected("too_many_devices", f"{most} devices get notifications already: turn one off first", 422)
        logs.event("push_subscribed", account_id=account_id, subscription_id=found)

    async def unsubscribe(self, account_id: int, endpoint: str) -> bool:
        removed = await self.writer.transact(lambda conn: subscriptions.unsubscribe(conn, account_id, endpoint))
        if removed:
            logs.event("push_unsubscribed", account_id=account_id)
        return removed

    async def devices(self, account_id: int) -> int:
        return len(await self.writer.read(lambda conn: subscriptions.of_account(conn, account_id)))
