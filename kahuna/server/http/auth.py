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

**Throttling.** Every password check goes through ``accounts.throttle.LoginThrottle`` (per account
and per client address, taken before the check), in ``accounts.service.Accounts``.

**Wiring.** The :class:`Authenticator` is built once at assembly with the accounts' service and
given to every router that asks who is signed in. Its account dependencies are its own (a route
declares ``account: Account = auth.account``), so that no dependency is bound to the app afterwards:
FastAPI analyses every dependency of every route again on every request while the app holds any
``dependency_overrides`` (docs/scaling.md, *The HTTP side of a request*).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fastapi import Depends, Request, WebSocket
from starlette.requests import HTTPConnection

from kahuna.server.accounts.service import Accounts
from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected

if TYPE_CHECKING:
    from kahuna.server.games.live import LiveGame

SESSION_COOKIE = "session"
CSRF_COOKIE = "csrf"
CSRF_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def csrf_of(session_id: str) -> str:
    """The CSRF value that goes with a session (the ``csrf`` cookie): a hash, so it reveals nothing."""
    mac = hashlib.sha256(b"kahuna-csrf:" + session_id.encode("utf-8", "surrogatepass")).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def is_https(connection: HTTPConnection) -> bool:
    """Whether the client reached us over TLS (uvicorn applies ``X-Forwarded-Proto`` from a proxy on loopback)."""
    return connection.url.scheme in ("https", "wss")


# ------------------------------------------------------------------ who is asking


class Authenticator:
    """Resolves the account of a request or WebSocket (one per app, built at assembly)."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.maybe_account: Any = Depends(self.optional_account)
        """A route's ``account: Account | None = auth.maybe_account``: the signed-in account, or
        ``None`` for a guest."""
        self.account: Any = Depends(self.require_account)
        """A route's ``account: Account = auth.account``: the signed-in account (``401
        unauthorized`` for a guest)."""
        self.session_account: Any = Depends(self.require_session)
        """A route's ``account: Account = auth.session_account``: a signed-in browser session's."""

    async def held_seats(self, game: LiveGame, tokens: Iterable[str], account: Account | None) -> set[int]:
        """The seats of ``game`` a request speaks for: those of the seat tokens it shows and, when it
        is signed in, its account's (hints and analyses accept either)."""
        held = {seat for token in tokens if (seat := game.seat_of_token(token)) is not None}
        if account is not None:
            held.update(await self.accounts.seats_in_game(account, game.game_id))
        return held

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
            account = await self.accounts.of_token(bearer, "play" if request.method in UNSAFE_METHODS else "read")
        else:
            session_id = request.cookies.get(SESSION_COOKIE, "")
            account = await self.accounts.of_session(session_id)
            if account is not None and request.method in UNSAFE_METHODS:
                echoed = request.headers.get(CSRF_HEADER, "")
                if not hmac.compare_digest(echoed.encode(), csrf_of(session_id).encode()):
                    raise Rejected("csrf", "send the csrf cookie's value in the X-CSRF-Token header (or sign out)", 403)
        request.state.account = account
        return account

    async def optional_account(self, request: Request) -> Account | None:
        """FastAPI dependency (:attr:`maybe_account`): the signed-in account, or ``None`` for a
        guest (401 for a bad Bearer token, 403 ``csrf`` for a cookie-authenticated change without
        the CSRF header)."""
        return await self.of_request(request)

    async def require_account(self, request: Request) -> Account:
        """FastAPI dependency (:attr:`account`): the signed-in account; ``401 unauthorized`` for a guest."""
        account = await self.of_request(request)
        if account is None:
            raise Rejected("unauthorized", "sign in first (session cookie or Authorization: Bearer)", 401)
        return account

    async def require_session(self, request: Request) -> Account:
        """FastAPI dependency (:attr:`session_account`): the account of a signed-in browser session
        (the session cookie, CSRF checked for changes); ``403 session_required`` for a Bearer token,
        ``401`` for a guest. Managing tokens, sessions and the account goes through it."""
        account = await self.require_account(request)
        if request.state.by_token:
            raise Rejected("session_required", "this needs a signed-in session (the web page), not an API token", 403)
        return account

    async def of_websocket(self, websocket: WebSocket) -> Account | None:
        """The account of a WebSocket handshake: Bearer (scope ``play``), or the session cookie from
        this origin only."""
        bearer = _bearer(websocket)
        if bearer is not None:
            return await self.accounts.of_token(bearer, "play")
        origin = websocket.headers.get("origin")
        if origin is not None and origin.partition("://")[2] != websocket.headers.get("host"):
            return None  # another site's page: its cookie must not act (cross-site WebSocket hijacking)
        return await self.accounts.of_session(websocket.cookies.get(SESSION_COOKIE, ""))


def _bearer(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer`` header; other schemes (a proxy's Basic
    authentication) are not this server's business and leave the request a guest's or the cookie's."""
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None
