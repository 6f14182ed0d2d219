"""Web Push as the server uses it: the key, the devices' subscriptions, the notices and the sender,
built once by ``app.py`` and stopped with it."""

from __future__ import annotations

import time
from pathlib import Path

from kahuna.server.common import logs
from kahuna.server.common.config import Limits, PushSettings
from kahuna.server.common.errors import Rejected
from kahuna.server.db.writer import Writer
from kahuna.server.push import subscriptions
from kahuna.server.push.notices import AccountSettings, PushNotices
from kahuna.server.push.sender import PushSender
from kahuna.server.push.vapid import VapidKey, default_key_path


class WebPush:
    def __init__(
        self,
        writer: Writer,
        settings: PushSettings,
        limits: Limits,
        send: bool = True,
    ) -> None:
        """``send`` ``False``: this process queues pushes but another (``kahuna worker``) sends them."""
        self.writer = writer
        self.settings = settings
        self.devices_per_account = limits.push_devices_per_account
        path = Path(settings.key_path) if settings.key_path else default_key_path()
        self.key = VapidKey.load_or_create(path, settings.subject)
        self.sender = (
            PushSender(writer, self.key, limits.push_retry_seconds, insecure_hosts=settings.insecure_hosts)
            if send
            else None
        )
        self.notices = PushNotices(
            writer,
            AccountSettings(writer),
            None if self.sender is None else self.sender.wake,
            limits.push_clock_low_fraction,
            limits.push_clock_low_min_seconds,
            limits.pushes_per_account_per_hour,
        )

    def start(self) -> None:
        if self.sender is not None:
            self.sender.start()

    async def stop(self) -> None:
        await self.notices.drain()
        if self.sender is not None:
            await self.sender.stop()

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
