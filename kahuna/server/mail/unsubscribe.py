"""The one-click unsubscribe links of notification mails (RFC 8058), which work without signing in.

A link's token is ``ACCOUNT.KIND.SIGNATURE``: the HMAC-SHA256 of the account and the kind under a
secret of that account (``notification_settings.secret``, 32 random bytes made with its first
notification mail, never shown). So a token cannot be forged or turned to another account or
kind, is the same in every mail of that kind (using it twice is harmless: the kind is off), and
needs no table of its own. Transactional mails (verification, password reset) carry none.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from sqlalchemy import Connection, select, update

from kahuna.server.accounts import notifications
from kahuna.server.db.schema import notification_settings

PATH = "/unsubscribe/"
MAX_TOKEN = 80
_TOKEN = re.compile(r"^([1-9][0-9]{0,11})\.([a-z_]{1,16})\.([A-Za-z0-9_-]{43})$")


class BadToken(Exception):
    """A token that is malformed, forged or for an account that is gone (``token_invalid``)."""


def _signature(secret: str, account_id: int, kind: str) -> str:
    mac = hmac.new(secret.encode(), f"{account_id}:{kind}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _secret(conn: Connection, account_id: int) -> str | None:
    row = conn.execute(
        select(notification_settings.c.secret).where(notification_settings.c.account_id == account_id)
    ).first()
    return None if row is None else row.secret


def token(conn: Connection, account_id: int, kind: str) -> str:
    """The unsubscribe token of the account's mails of ``kind`` (its secret made if needed)."""
    notifications.check(kind, "mail")
    secret = _secret(conn, account_id)
    if secret is None:
        secret = secrets.token_hex(32)
        if conn.execute(
            select(notification_settings.c.account_id).where(notification_settings.c.account_id == account_id)
        ).first():
            conn.execute(
                update(notification_settings)
                .where(notification_settings.c.account_id == account_id)
                .values(secret=secret)
            )
        else:
            conn.execute(notification_settings.insert().values(account_id=account_id, off="", secret=secret))
    return f"{account_id}.{kind}.{_signature(secret, account_id, kind)}"


def check(conn: Connection, text: str) -> tuple[int, str]:
    """The account and kind of a valid token (``BadToken`` otherwise)."""
    found = _TOKEN.fullmatch(text)
    if found is None or found.group(2) not in notifications.KINDS:
        raise BadToken()
    account_id, kind, signature = int(found.group(1)), found.group(2), found.group(3)
    secret = _secret(conn, account_id)
    if secret is None or not hmac.compare_digest(_signature(secret, account_id, kind), signature):
        raise BadToken()
    return account_id, kind


def use(conn: Connection, text: str) -> tuple[int, str]:
    """Turn the token's kind of mail off for its account; its account and kind (``BadToken``)."""
    account_id, kind = check(conn, text)
    notifications.turn_off(conn, account_id, kind, "mail")
    return account_id, kind
