"""The HTTP API of Web Push (docs/accounts.md, *Notifications*): the server's public key, and the
account's devices subscribing and unsubscribing. The work is ``push/``'s; this module speaks HTTP."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.http.auth import Authenticator
from kahuna.server.push.service import WebPush
from kahuna.server.push.subscriptions import MAX_ENDPOINT


class PushKey(BaseModel):
    key: str = Field(
        description="the server's VAPID public key, base64url: pushManager.subscribe's applicationServerKey"
    )


class SubscriptionKeys(BaseModel):
    model_config = ConfigDict(extra="ignore")

    p256dh: str = Field(max_length=100, description="the browser's P-256 public key, base64url")
    auth: str = Field(max_length=40, description="the browser's 16-byte auth secret, base64url")


class PushSubscription(BaseModel):
    """What ``PushSubscription.toJSON()`` gives in the browser (``expirationTime`` is ignored)."""

    model_config = ConfigDict(extra="ignore")

    endpoint: str = Field(max_length=MAX_ENDPOINT, description="the push service's URL for this device")
    keys: SubscriptionKeys


class Subscribe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subscription: PushSubscription


class Unsubscribe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(max_length=MAX_ENDPOINT, description="the endpoint of the device to turn off")


class Devices(BaseModel):
    devices: int = Field(description="how many devices of the account get notifications")
    most: int = Field(description="how many may")


def router(push: WebPush, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["push"])

    @api.get("/push/key", response_model=PushKey)
    async def key() -> Any:
        """The server's VAPID public key (no sign-in needed)."""
        return {"key": push.key.public_key}

    @api.get("/me/push", response_model=Devices)
    async def devices(account: Account = auth.session_account) -> Any:
        """How many devices of the account get notifications."""
        return {"devices": await push.devices(account.id), "most": push.devices_per_account}

    @api.post("/me/push", status_code=204)
    async def subscribe(body: Subscribe, account: Account = auth.session_account) -> None:
        """This device gets the account's notifications: ``subscription`` is the browser's push
        subscription. ``422 invalid_endpoint`` (an ``https://`` URL on a public host name),
        ``422 invalid_keys``, ``422 too_many_devices`` (``--limit push_devices_per_account``)."""
        sub = body.subscription
        await push.subscribe(account.id, sub.endpoint, sub.keys.p256dh, sub.keys.auth)

    @api.delete("/me/push", status_code=204)
    async def unsubscribe(body: Unsubscribe, account: Account = auth.session_account) -> None:
        """This device gets no more notifications (``404 not_found`` if the account has no such device)."""
        if not await push.unsubscribe(account.id, body.endpoint):
            raise Rejected("not_found", "this device gets no notifications", 404)

    return api
