"""The HTTP API of notification settings and of the one-click unsubscribe links (docs/accounts.md,
*Notifications*). The settings are ``accounts/notifications.py``'s, the links ``mail/unsubscribe.py``'s.

``GET /api/me/notifications`` answers a session or a token with ``read``; changing them is the
account's business, so ``PUT`` needs the signed-in session (like ``/api/me/email``).
``POST /unsubscribe/<token>`` is the URL of a notification mail's ``List-Unsubscribe`` header: a
mail client posts ``List-Unsubscribe=One-Click`` to it (RFC 8058) and the kind is off, without
signing in; a browser that opens the link gets the page (``GET``), which shows what the link turns
off and posts only when asked (a mail scanner that opens every link turns nothing off).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from sqlalchemy import Connection

from kahuna.server.accounts import notifications
from kahuna.server.accounts.store import Account
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.db.writer import Writer
from kahuna.server.http.auth import require_account, require_session
from kahuna.server.mail import unsubscribe

UnsubscribeToken = Annotated[str, Path(min_length=1, max_length=unsubscribe.MAX_TOKEN)]


def bad_token() -> Rejected:
    return Rejected("token_invalid", "this unsubscribe link is not valid", 404)


class NotificationSettings(BaseModel):
    kinds: dict[str, dict[str, bool]] = Field(
        description="every kind (your_turn, deadline, challenge, tournament) and channel (mail, push): on or off"
    )
    channels: list[str] = Field(
        description="the channels this server can use now (mail once --smtp is set); a setting of another "
        "channel is kept but sends nothing"
    )


class SettingsChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kinds: dict[str, dict[str, StrictBool]] = Field(
        max_length=len(notifications.KINDS) + 4,
        description="the kinds and channels to turn on (true) or off (false); the others stay as they are",
    )


class Unsubscribed(BaseModel):
    kind: str = Field(description="the kind of mail the link turns off")
    mail: bool = Field(description="whether mail of that kind is still on")


def router(writer: Writer, channels: list[str]) -> APIRouter:
    """``channels``: what this server can send now (``mail`` with ``--smtp``; ``push`` is another
    room's to add)."""
    api = APIRouter(tags=["notifications"])

    async def settings_of(account: Account) -> dict[str, Any]:
        kinds = await writer.read(lambda conn: notifications.settings_of(conn, account.id))
        return {"kinds": kinds, "channels": channels}

    @api.get("/api/me/notifications", response_model=NotificationSettings)
    async def my_settings(account: Annotated[Account, Depends(require_account)]) -> Any:
        """What the account is told of, by kind and channel (everything is on until turned off)."""
        return await settings_of(account)

    @api.put("/api/me/notifications", response_model=NotificationSettings)
    async def change_settings(body: SettingsChange, account: Annotated[Account, Depends(require_session)]) -> Any:
        """Turn kinds of notification on or off by channel. ``422 unknown_kind`` or ``422
        unknown_channel`` (with the name) if one does not exist: then nothing is changed."""
        try:
            notifications.check_change(body.kinds)
        except notifications.UnknownSetting as exc:
            words = f"no such notification {exc.code[8:]}: {exc.name[:20]!r}"
            raise Rejected(exc.code, words, 422, name=exc.name[:20]) from None
        await writer.write(lambda conn: notifications.change(conn, account.id, body.kinds))
        logs.event("notifications_changed", account_id=account.id)
        return await settings_of(account)

    @api.get("/api/unsubscribe/{token}", response_model=Unsubscribed)
    async def unsubscribe_link(token: UnsubscribeToken) -> Any:
        """What an unsubscribe link turns off, and whether it is still on (``404 token_invalid``)."""

        def look(conn: Connection) -> dict[str, Any] | None:
            try:
                account_id, kind = unsubscribe.check(conn, token)
            except unsubscribe.BadToken:
                return None
            return {"kind": kind, "mail": notifications.wants(conn, account_id, kind, "mail")}

        found = await writer.read(look)
        if found is None:
            raise bad_token()
        return found

    @api.post("/unsubscribe/{token}", response_model=Unsubscribed)
    async def one_click(token: UnsubscribeToken) -> Any:
        """RFC 8058 one-click unsubscribe (the ``List-Unsubscribe`` URL of a notification mail, no
        sign-in): mail of the link's kind is turned off. ``404 token_invalid`` for a link that is
        malformed or forged: nothing changes."""

        def use(conn: Connection) -> tuple[int, str] | None:
            try:
                return unsubscribe.use(conn, token)
            except unsubscribe.BadToken:  # returned, not raised: the writer turns errors into its own
                return None

        used = await writer.transact(use)
        if used is None:
            raise bad_token()
        logs.event("unsubscribed", account_id=used[0], notice_kind=used[1])
        return {"kind": used[1], "mail": False}

    return api
