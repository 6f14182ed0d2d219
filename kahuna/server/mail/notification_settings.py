"""What the notification settings and unsubscribe links API asks (``http/notifications.py``),
built once at assembly with the channels this server can use now.

The settings are ``accounts/notifications.py``'s (what is off, by kind and channel), the links
``unsubscribe.py``'s (signed per account and kind; one use turns mail of that kind off).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from kahuna.server.accounts import notifications
from kahuna.server.accounts.store import Account
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.db.writer import Writer
from kahuna.server.mail import unsubscribe


def bad_token() -> Rejected:
    return Rejected("token_invalid", "this unsubscribe link is not valid", 404)


class NotificationSettings:
    """An account's notification settings, and the one-click unsubscribe links of its mails."""

    def __init__(self, writer: Writer, channels: list[str]) -> None:
        self.writer = writer
        self.channels = channels
        """What this server can send now (``mail`` with ``--smtp``, ``push``)."""

    async def of(self, account: Account) -> dict[str, Any]:
        """What ``account`` is told of, by kind and channel, and the channels in use."""
        kinds = await self.writer.read(lambda conn: notifications.settings_of(conn, account.id))
        return {"kinds": kinds, "channels": self.channels}

    async def change(self, account: Account, kinds: dict[str, dict[str, bool]]) -> dict[str, Any]:
        """Turn kinds on or off by channel; ``422 unknown_kind`` or ``unknown_channel`` (with the
        name) changes nothing. The settings after the change."""
        try:
            notifications.check_change(kinds)
        except notifications.UnknownSetting as exc:
            words = f"no such notification {exc.code[8:]}: {exc.name[:20]!r}"
            raise Rejected(exc.code, words, 422, name=exc.name[:20]) from None
        await self.writer.write(lambda conn: notifications.change(conn, account.id, kinds))
        logs.event("notifications_changed", account_id=account.id)
        return await self.of(account)

    async def link(self, token: str) -> dict[str, Any]:
        """What an unsubscribe link turns off and whether it is still on; ``404 token_invalid``."""

        def look(conn: Connection) -> dict[str, Any] | None:
            try:
                account_id, kind = unsubscribe.check(conn, token)
            except unsubscribe.BadToken:
                return None
            return {"kind": kind, "mail": notifications.wants(conn, account_id, kind, "mail")}

        found = await self.writer.read(look)
        if found is None:
            raise bad_token()
        return found

    async def unsubscribe(self, token: str) -> dict[str, Any]:
        """Use an unsubscribe link: mail of its kind is off. ``404 token_invalid`` for a link that
        is malformed or forged: nothing changes."""

        def use(conn: Connection) -> tuple[int, str] | None:
            try:
                return unsubscribe.use(conn, token)
            except unsubscribe.BadToken:  # returned, not raised: the writer turns errors into its own
                return None

        used = await self.writer.transact(use)
        if used is None:
            raise bad_token()
        logs.event("unsubscribed", account_id=used[0], notice_kind=used[1])
        return {"kind": used[1], "mail": False}
