"""The devices an account subscribed for Web Push: checked, stored, counted and removed.

A subscription is what the browser's ``pushManager.subscribe`` returns: the push service's
``endpoint`` URL and the browser's keys (``p256dh``, its P-256 public key, and ``auth``, a 16-byte
secret), both base64url. The server will POST to the endpoint, so it is checked before it is
stored: ``https://`` on a host name (no address literal in any spelling, no ``localhost``, no
``.internal`` name, a trailing dot ignored, no user or password, the default port; the sender
checks the addresses the name resolves to again, ``push/addresses.py``), or ``http://`` on one of
the hosts the operator allowed (tests). The keys must decode to a point on the curve and 16 bytes,
or nothing could be encrypted for the device.

An endpoint belongs to one device, so it is stored once: subscribing it again (the same browser,
maybe signed in to another account now) moves it to the account that posted it.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Connection, delete, func, select, update

from kahuna.server.common.errors import Rejected
from kahuna.server.db.schema import push_queue, push_subscriptions
from kahuna.server.push.addresses import literal

MAX_ENDPOINT = 1024


@dataclass(frozen=True)
class Subscription:
    id: int
    account_id: int
    endpoint: str
    p256dh: str
    auth: str


def _b64url(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def check(endpoint: str, p256dh: str, auth: str, insecure_hosts: tuple[str, ...]) -> None:
    """``Rejected`` (422) with the reason if the subscription cannot be pushed to."""
    if len(endpoint) > MAX_ENDPOINT:
        raise Rejected("invalid_endpoint", f"the endpoint is longer than {MAX_ENDPOINT} characters", 422)
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        raise Rejected("invalid_endpoint", "the endpoint is not a URL", 422) from None
    host = (parts.hostname or "").lower()
    if parts.scheme == "http" and host in insecure_hosts:
        pass
    elif parts.scheme != "https":
        raise Rejected("invalid_endpoint", "a push endpoint must be an https:// URL", 422)
    elif not _public_name(host) or port not in (None, 443):
        raise Rejected("invalid_endpoint", "a push endpoint must be on a public host name, port 443", 422)
    if parts.username is not None or parts.password is not None or parts.fragment:
        raise Rejected("invalid_endpoint", "a push endpoint has no user, password or fragment", 422)
    try:
        point = _b64url(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise Rejected("invalid_keys", "keys.p256dh is not a P-256 public key (base64url)", 422) from None
    try:
        secret = _b64url(auth)
    except ValueError:
        raise Rejected("invalid_keys", "keys.auth is not base64url", 422) from None
    if len(secret) != 16:
        raise Rejected("invalid_keys", "keys.auth is not a 16-byte secret", 422)


def _public_name(host: str) -> bool:
    """A DNS name that is not this machine (an address literal, in whatever spelling, could be
    anything on the network; the sender checks what a name resolves to again when it sends)."""
    host = host.removesuffix(".")
    if not host or "." not in host or host.endswith((".localhost", ".local", ".internal")):
        return False
    top = host.rsplit(".", 1)[1]
    return literal(host) is None and not top.isdigit() and not top.startswith("0x")


def subscribe(
    conn: Connection, account_id: int, endpoint: str, p256dh: str, auth: str, now: float, most: int
) -> int | None:
    """Store the device for the account (moved to it if another account had it); its id, or
    ``None`` if the account has ``most`` devices already (returned, not raised: the writer turns
    what a transaction raises into its own error)."""
    found = conn.execute(select(push_subscriptions.c.id).where(push_subscriptions.c.endpoint == endpoint)).first()
    if found is not None:
        conn.execute(
            update(push_subscriptions)
            .where(push_subscriptions.c.id == found.id)
            .values(account_id=account_id, p256dh=p256dh, auth=auth)
        )
        return int(found.id)
    count = conn.execute(
        select(func.count()).select_from(push_subscriptions).where(push_subscriptions.c.account_id == account_id)
    ).scalar_one()
    if count >= most:
        return None
    new = conn.execute(
        push_subscriptions.insert().values(
            account_id=account_id, endpoint=endpoint, p256dh=p256dh, auth=auth, created=now
        )
    ).inserted_primary_key
    assert new is not None
    return int(new[0])


def remove(conn: Connection, subscription_id: int) -> None:
    """Forget the device, and what was queued for it."""
    conn.execute(delete(push_subscriptions).where(push_subscriptions.c.id == subscription_id))
    conn.execute(delete(push_queue).where(push_queue.c.subscription_id == subscription_id))


def unsubscribe(conn: Connection, account_id: int, endpoint: str) -> bool:
    """Forget the account's device with ``endpoint``; whether it had it."""
    found = conn.execute(
        select(push_subscriptions.c.id).where(
            push_subscriptions.c.endpoint == endpoint, push_subscriptions.c.account_id == account_id
        )
    ).first()
    if found is None:
        return False
    remove(conn, int(found.id))
    return True


def has_devices(conn: Connection, account_id: int) -> bool:
    found = select(push_subscriptions.c.id).where(push_subscriptions.c.account_id == account_id).limit(1)
    return conn.execute(found).first() is not None


def of_account(conn: Connection, account_id: int) -> list[Subscription]:
    rows = conn.execute(
        select(push_subscriptions)
        .where(push_subscriptions.c.account_id == account_id)
        .order_by(push_subscriptions.c.id)
    )
    return [Subscription(r.id, r.account_id, r.endpoint, r.p256dh, r.auth) for r in rows]


def get(conn: Connection, subscription_id: int) -> Subscription | None:
    r = conn.execute(select(push_subscriptions).where(push_subscriptions.c.id == subscription_id)).first()
    return None if r is None else Subscription(r.id, r.account_id, r.endpoint, r.p256dh, r.auth)
