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

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from kahuna.server.accounts import notifications
from kahuna.server.accounts.store import Account
from kahuna.server.http.auth import Authenticator
from kahuna.server.mail import notification_settings, unsubscribe

UnsubscribeToken = Annotated[str, Path(min_length=1, max_length=unsubscribe.MAX_TOKEN)]


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


def router(settings: notification_settings.NotificationSettings, auth: Authenticator) -> APIRouter:
    api = APIRouter(tags=["notifications"])

    @api.get("/api/me/notifications", response_model=NotificationSettings)
    async def my_settings(account: Account = auth.account) -> Any:
        """What the account is told of, by kind and channel (everything is on until turned off)."""
        return await settings.of(account)

    @api.put("/api/me/notifications", response_model=NotificationSettings)
    async def change_settings(body: SettingsChange, account: Account = auth.session_account) -> Any:
        """Turn kinds of notification on or off by channel. ``422 unknown_kind`` or ``422
        unknown_channel`` (with the name) if one does not exist: then nothing is changed."""
        return await settings.change(account, body.kinds)

    @api.get("/api/unsubscribe/{token}", response_model=Unsubscribed)
    async def unsubscribe_link(token: UnsubscribeToken) -> Any:
        """What an unsubscribe link turns off, and whether it is still on (``404 token_invalid``)."""
        return await settings.link(token)

    @api.post("/unsubscribe/{token}", response_model=Unsubscribed)
    async def one_click(token: UnsubscribeToken) -> Any:
        """RFC 8058 one-click unsubscribe (the ``List-Unsubscribe`` URL of a notification mail, no
        sign-in): mail of the link's kind is turned off. ``404 token_invalid`` for a link that is
        malformed or forged: nothing changes."""
        return await settings.unsubscribe(token)

    return api
