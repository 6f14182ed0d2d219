"""Who is asking: the session cookie or a personal API token, CSRF protection, and sign-in throttling.

A request is authenticated by ``Authorization: Bearer <token>`` (a personal API token, for
programs) or by the ``session`` cookie (browsers). A wrong Bearer token is refused (``401``) so that
a program learns of it; a cookie that names no live session is ignored (the request is a guest's).

**Scopes.** A token does what its scopes allow (``accounts.SCOPES``): ``read`` only ``GET``
requests, ``play`` every request a game needs and the WebSockets; anything else is ``403
insufficient_scope``. Managing tokens, sessions and the account itself is no token's business
(:func:`require_session`: ``403 session_required``), so a token can never make another token, and
revoking one leaves nothing it made behind.

**CSRF.** Browsers attach cookies to requests that other sites make, so a state-changing request
(POST, PUT, PATCH, DELETE) authenticated by the cookie must also carry the ``X-CSRF-Token`` header
with the value of the ``csrf`` cookie, which only this origin's scripts can read. The ``csrf``
value is derived from the session id (a hash of it), so a cookie planted from elsewhere cannot
match. Bearer requests need none (a browser never adds that header on its own), and neither do
guests' requests without a session cookie: guest play stays exactly as before. The WebSocket
accepts the cookie only from a page of this origin (``Origin`` equal to ``Host``).

**Throttling.** Every password check (signing in, deleting the account, changing the password,
making a token) takes an attempt from two token buckets (``ratelimit.Limiter``) *before* the
password is checked: one per account (its username key) and one per client address. When either is
empty the answer is ``429`` with ``Retry-After`` and no password is checked; a right password gives
its attempts back. Taking before checking is what makes the budget hold when guesses arrive at once:
a check in flight has already paid, so twenty guesses sent together cost twenty attempts, not one
look at a bucket that is not empty yet. The buckets sit behind that small async interface, so that
several instances share them in Redis (``kahuna serve --broker``) instead of each keeping its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from fastapi import Request, WebSocket
from starlette.requests import HTTPConnection

from kahuna.server.accounts import store as db
from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import MAX_KEYS, Limiter
from kahuna.server.common.tokens import digest
from kahuna.server.db.writer import Writer

if TYPE_CHECKING:
    from kahuna.server.games.live import LiveGame

SESSION_COOKIE = "session"
CSRF_COOKIE = "csrf"
CSRF_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
TOKEN_PREFIX = "kahuna_"
"""Personal API tokens start with this, so that secret scanners can recognise a leaked one."""
SATISFIES = {"read": frozenset({"read", "play"}), "play": frozenset({"play"})}
"""The token scopes that allow what a request needs (``play`` includes reading)."""
TOUCH_EVERY = 60.0
"""Seconds between two writes of a token's ``last_used`` (not one write per request)."""


def csrf_of(session_id: str) -> str:
    """The CSRF value that goes with a session (the ``csrf`` cookie): a hash, so it reveals nothing."""
    mac = hashlib.sha256(b"kahuna-csrf:" + session_id.encode("utf-8", "surrogatepass")).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def is_https(connection: HTTPConnection) -> bool:
    """Whether the client reached us over TLS (uvicorn applies ``X-Forwarded-Proto`` from a proxy on loopback)."""
    return connection.url.scheme in ("https", "wss")


# ------------------------------------------------------------------ throttling


class LoginThrottle:
    """The two budgets of password checks: per account (its username key) and per client address."""

    def __init__(self, per_account: Limiter, per_client: Limiter) -> None:
        self.per_account = per_account
        self.per_client = per_client

    async def checked(self, account_key: str, client: str, check: Callable[[], Awaitable[bool]]) -> bool:
        """``check()`` (a password check) once an attempt is taken from both budgets; ``Rejected``
        (429, ``retry_after``) without checking when either is spent. A right password (``True``)
        gives both attempts back; a wrong one, or a check that fails, keeps them spent."""
        wait = await self.per_account.take(account_key)
        if not wait:
            wait = await self.per_client.take(client)
            if wait:  # the address is spent: the account's attempt was not used
                await self.per_account.refund(account_key)
        if wait:
            raise Rejected(
                "rate_limited", f"too many failed password checks: try again in {wait:.0f} s", 429, retry_after=wait
            )
        right = await check()
        if right:
            await self.per_account.refund(account_key)
            await self.per_client.refund(client)
        return right


# ------------------------------------------------------------------ who is asking


class Authenticator:
    """Resolves the account of a request or WebSocket (one per app, at ``app.state.auth``)."""

    def __init__(self, writer: Writer, throttle: LoginThrottle) -> None:
        self.writer = writer
        self.throttle = throttle
        self._touched: dict[int, float] = {}

    async def of_bearer(self, token: str, needed: str) -> Account:
        """The account of a Bearer token that has the scope ``needed``; ``Rejected``: 401 if it
        names none, 403 ``insufficient_scope`` if it may not do this."""
        if not token or len(token) > 128:
            raise Rejected("unauthorized", "use Authorization: Bearer <personal API token>", 401)
        holder = await self.writer.read(lambda conn: db.account_of_token(conn, digest(token)))
        if holder is None:
            raise Rejected("unauthorized", "this token is not valid (revoked, or its account was deleted)", 401)
        if not holder.scopes & SATISFIES[needed]:
            raise Rejected("insufficient_scope", f"this token's scopes do not include {needed!r}", 403)
        now = time.monotonic()
        if now - self._touched.get(holder.token_id, -math.inf) >= TOUCH_EVERY:
            self._touched[holder.token_id] = now
            if len(self._touched) > MAX_KEYS:
                self._touched.clear()
            await self.writer.write(lambda conn: db.touch_token(conn, holder.token_id))
        return holder.account

    async def adopt(self, account: Account, tokens: list[str]) -> int:
        """Bind the seats of these seat tokens to the account (not those of another account);
        returns how many became the account's now."""
        digests = sorted({digest(token) for token in tokens})
        if not digests:
            return 0
        adopted: list[int] = []
        await self.writer.write(lambda conn: adopted.append(db.adopt_seats(conn, account.id, digests)))
        return adopted[-1]

    async def seats_in_game(self, account: Account, game_id: str) -> list[int]:
        """The seats of ``game_id`` that belong to the account."""
        return await self.writer.read(lambda conn: db.seats_in_game(conn, account.id, game_id))

    async def held_seats(self, game: LiveGame, tokens: Iterable[str], account: Account | None) -> set[int]:
        """The seats of ``game`` a request speaks for: those of the seat tokens it shows and, when it
        is signed in, its account's (hints and analyses accept either)."""
        held = {seat for token in tokens if (seat := game.seat_of_token(token)) is not None}
        if account is not None:
            held.update(await self.seats_in_game(account, game.game_id))
        return held

    async def of_session(self, session_id: str) -> Account | None:
        if not session_id or len(session_id) > 128:
            return None
        moment = time.time()
        return await self.writer.read(lambda conn: db.account_of_session(conn, digest(session_id), moment))

    async def of_request(self, request: Request) -> Account | None:
        """The request's account (``None``: a guest); enforces CSRF on cookie-authenticated changes.

        Cached on the request, so that several dependencies cost one lookup."""
        if hasattr(request.state, "account"):
            cached: Account | None = request.state.account
            return cached
        bearer = _bearer(request)
        account: Account | None
        request.state.by_token = bearer is not None
        if bearer is not None:
            account = await self.of_bearer(bearer, "play" if request.method in UNSAFE_METHODS else "read")
        else:
            session_id = request.cookies.get(SESSION_COOKIE, "")
            account = await self.of_session(session_id)
            if account is not None and request.method in UNSAFE_METHODS:
                echoed = request.headers.get(CSRF_HEADER, "")
                if not hmac.compare_digest(echoed.encode(), csrf_of(session_id).encode()):
                    raise Rejected("csrf", "send the csrf cookie's value in the X-CSRF-Token header (or sign out)", 403)
        request.state.account = account
        return account

    async def of_websocket(self, websocket: WebSocket) -> Account | None:
        """The account of a WebSocket handshake: Bearer (scope ``play``), or the session cookie from
        this origin only."""
        bearer = _bearer(websocket)
        if bearer is not None:
            return await self.of_bearer(bearer, "play")
        origin = websocket.headers.get("origin")
        if origin is not None and origin.partition("://")[2] != websocket.headers.get("host"):
            return None  # another site's page: its cookie must not act (cross-site WebSocket hijacking)
        return await self.of_session(websocket.cookies.get(SESSION_COOKIE, ""))


def _bearer(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer`` header; other schemes (a proxy's Basic
    authentication) are not this server's business and leave the request a guest's or the cookie's."""
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _authenticator(connection: HTTPConnection) -> Authenticator:
    auth: Authenticator = connection.app.state.auth
    return auth


async def optional_account(request: Request) -> Account | None:
    """FastAPI dependency: the signed-in account, or ``None`` for a guest (401 for a bad Bearer
    token, 403 ``csrf`` for a cookie-authenticated change without the CSRF header)."""
    return await _authenticator(request).of_request(request)


async def require_account(request: Request) -> Account:
    """FastAPI dependency: the signed-in account; ``401 unauthorized`` for a guest."""
    account = await optional_account(request)
    if account is None:
        raise Rejected("unauthorized", "sign in first (session cookie or Authorization: Bearer)", 401)
    return account


async def websocket_account(websocket: WebSocket) -> Account | None:
    """The account of a WebSocket's handshake (``None``: a guest); ``Rejected`` for a bad Bearer token."""
    return await _authenticator(websocket).of_websocket(websocket)


async def require_session(request: Request) -> Account:
    """FastAPI dependency: the account of a signed-in browser session (the session cookie, CSRF
    checked for changes); ``403 session_required`` for a Bearer token, ``401`` for a guest. Managing
    tokens, sessions and the account goes through it."""
    account = await require_account(request)
    if request.state.by_token:
        raise Rejected("session_required", "this needs a signed-in session (the web page), not an API token", 403)
    return account
