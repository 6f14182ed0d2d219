"""The HTTP API of accounts (docs/accounts.md): sign up, sign in and out, the signed-in account,
its sessions and password, personal API tokens with scopes, adopting the games a browser holds, and
deleting an account.

What each request does is ``accounts.service.Accounts``'s (built at assembly): passwords checked,
judged and hashed in a small thread pool of their own, never on the event loop, every check through
the one throttle (``accounts.throttle.LoginThrottle``), whatever the endpoint.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from kahuna.server.accounts import store as db
from kahuna.server.accounts.passwords import MAX_PASSWORD
from kahuna.server.accounts.store import DELETED_NAME, Account
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_name
from kahuna.server.common.tokens import digest
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    Authenticator,
    csrf_of,
    is_https,
)
from kahuna.server.http.browsers import browser_id
from kahuna.server.http.common import Secret, client_ip

MY_GAMES_LIMIT = 200

Username = Annotated[str, StringConstraints(max_length=64)]
Password = Annotated[str, StringConstraints(max_length=4 * MAX_PASSWORD)]


def _token_name(text: str) -> str:
    name = clean_name(text)
    if len(name) > 40:
        raise ValueError("a token's name has at most 40 characters")
    return name


TokenName = Annotated[str, StringConstraints(max_length=160), AfterValidator(_token_name)]


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Username
    password: Password


class SignIn(Credentials):
    tokens: list[Secret] = Field(
        default_factory=list,
        max_length=200,
        description="seat tokens this browser holds: their seats become the account's",
    )


class PasswordOnly(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: Password = Field(description="the account's password, again")


class PasswordChange(PasswordOnly):
    new_password: Password = Field(description="the new password (the same rules as at sign-up)")


Scope = Literal["read", "play"]


class NewToken(PasswordOnly):
    name: TokenName = Field(description="what the token is for (shown in the list)")
    scopes: list[Scope] = Field(
        min_length=1,
        max_length=2,
        description="what the token may do: `read` (GET requests only), `play` (every request a game needs)",
    )


class SeatTokens(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: list[Secret] = Field(max_length=200)


class Me(BaseModel):
    username: str
    created: str
    is_bot: bool
    moderates: bool = Field(description="a moderator or an admin (its role read on this request): the page links /mod")
    admin: bool = Field(description="an admin (its role read on this request): /mod shows the moderators' tab")
    notices: int = Field(description="sanctions on the account whose notice it has not acknowledged yet")
    must_rename: bool = Field(description="a moderator renamed the account: it chooses a name (POST /api/me/name)")
    ratings: dict[str, dict[str, Any]]


class TokenListing(BaseModel):
    id: int
    name: str
    created: str
    last_used: str | None
    scopes: list[str]


class SessionListing(BaseModel):
    id: str = Field(description="the session's handle, to end it with DELETE /api/sessions/<id>")
    created: str
    expires: str
    user_agent: str | None = Field(description="the browser that signed in, as it named itself")
    current: bool = Field(description="whether it is the session of this request")


class SignedOut(BaseModel):
    signed_out: int = Field(description="sessions ended")


class PasswordChanged(SignedOut):
    revoked_tokens: int = Field(description="personal API tokens revoked")


class CreatedToken(TokenListing):
    token: str = Field(description="the secret: shown this once, stored only hashed")


class AccountGame(BaseModel):
    game_id: str
    seat: int
    players: list[str | None]
    kinds: list[str]
    status: str
    version: int
    to_move: int | None
    result: dict[str, Any] | None
    created: str
    updated: str
    clock: dict[str, Any] | None


def _set_session_cookies(response: Response, request: Request, session_id: str) -> None:
    """The session cookie (HttpOnly) and its CSRF companion (readable by this origin's scripts)."""
    secure = is_https(request)
    for name, value, http_only in ((SESSION_COOKIE, session_id, True), (CSRF_COOKIE, csrf_of(session_id), False)):
        response.set_cookie(
            name, value, max_age=db.SESSION_SECONDS, path="/", secure=secure, httponly=http_only, samesite="lax"
        )


def _clear_session_cookies(response: Response, request: Request) -> None:
    secure = is_https(request)
    for name, http_only in ((SESSION_COOKIE, True), (CSRF_COOKIE, False)):
        response.delete_cookie(name, path="/", secure=secure, httponly=http_only, samesite="lax")


def router(
    auth: Authenticator,
    service: GameService,
    withdraw_offers: Callable[[int], Awaitable[None]],
) -> APIRouter:
    """The accounts API (``auth.accounts`` does the work); ``withdraw_offers(account_id)`` cancels
    a deleted account's lobby offers."""
    api = APIRouter(prefix="/api", tags=["accounts"])
    accounts = auth.accounts

    @api.post("/accounts", status_code=201)
    async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, str]:
        """Create an account (409 ``taken`` when the name is taken without regard to case and
        look-alikes; 422 ``invalid`` with the reason; 429 when the address created enough accounts
        lately: only accounts created count; 403 ``signups_blocked`` from a browser or address a
        moderator blocked). Sign in afterwards with ``POST /api/session``."""
        browser = digest(browser_id(request, response))
        account = await accounts.sign_up(body.username, body.password, browser, client_ip(request))
        return {"username": account.username}

    @api.post("/session")
    async def sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
        """Sign in: a new session cookie (and ``csrf`` cookie) every time; adopts the seats of
        ``tokens``. 401 when wrong, 429 with ``Retry-After`` after repeated failures, 403
        ``account_closed`` when a moderator closed the account."""
        account, session_id = await accounts.sign_in(
            body.username,
            body.password,
            client_ip(request),
            digest(browser_id(request, response)),
            request.cookies.get(SESSION_COOKIE),
            request.headers.get("user-agent", ""),
        )
        _set_session_cookies(response, request, session_id)
        adopted = await accounts.adopt(account, body.tokens)
        logs.event("signed_in", account_id=account.id, adopted=adopted)
        return {"username": account.username, "adopted": adopted}

    @api.delete("/session", status_code=204)
    async def sign_out(request: Request, response: Response) -> None:
        """Sign out: the session ends on the server and both cookies are cleared. Never rate
        limited (a neighbour's failed sign-ins must not keep anyone signed in)."""
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id and await auth.of_request(request) is not None:  # CSRF-checked
            await accounts.sign_out(session_id)
        _clear_session_cookies(response, request)

    @api.get("/sessions", response_model=list[SessionListing])
    async def list_sessions(request: Request, account: Account = auth.session_account) -> Any:
        """The account's signed-in sessions (browsers), newest first; ``current`` is this one."""
        return await accounts.sessions(account, request.cookies.get(SESSION_COOKIE, ""))

    @api.delete("/sessions/{session_id}", status_code=204)
    async def end_session(
        session_id: Annotated[str, Path(min_length=1, max_length=db.SESSION_HANDLE)],
        account: Account = auth.session_account,
    ) -> None:
        """Sign one of the account's sessions out (404 if it has no such session)."""
        await accounts.end_session(account, session_id)

    @api.delete("/sessions", response_model=SignedOut)
    async def sign_out_everywhere(
        request: Request, response: Response, account: Account = auth.session_account
    ) -> dict[str, int]:
        """Sign out everywhere: every session of the account ends, this one too (tokens stay:
        revoke them one by one, or change the password)."""
        ended = await accounts.end_sessions(account)
        _clear_session_cookies(response, request)
        return {"signed_out": ended}

    @api.post("/me/password", response_model=PasswordChanged)
    async def change_password(
        body: PasswordChange, request: Request, account: Account = auth.session_account
    ) -> dict[str, int]:
        """Change the password (the current one again: 401 if wrong, 429 when the throttle says so;
        422 with the reason if the new one may not be used). Every other session is signed out and
        every token revoked; this session stays."""
        keep = request.cookies.get(SESSION_COOKIE, "")
        return await accounts.change_password(account, body.password, body.new_password, client_ip(request), keep)

    @api.get("/me", response_model=Me)
    async def me(account: Account = auth.account) -> dict[str, Any]:
        """The signed-in account and its ratings (401 for a guest)."""
        return await accounts.shown_to_itself(account)

    @api.delete("/me", status_code=204)
    async def delete_me(
        body: PasswordOnly, request: Request, response: Response, account: Account = auth.session_account
    ) -> None:
        """Delete the account (its password again: 401 if wrong, 429 when the throttle says so):
        sessions and tokens are revoked, its games stay and show a deleted player, its username
        stays taken."""
        held = await accounts.delete(account, body.password, client_ip(request))
        for game_id, seat in held:
            service.rename_seat(game_id, seat, DELETED_NAME)
        await withdraw_offers(account.id)
        _clear_session_cookies(response, request)
        logs.event("account_deleted", account_id=account.id, seats=len(held))

    @api.get("/me/games", response_model=list[AccountGame])
    async def my_account_games(account: Account = auth.account) -> list[dict[str, Any]]:
        """The account's games on any browser, newest first (one entry per seat; no seat tokens:
        a seat of the account is played by saying ``hello`` with ``"seat"`` on a signed-in WebSocket)."""
        out = []
        for game_id, seat in await accounts.seats(account, MY_GAMES_LIMIT):
            try:
                game = await service.get(game_id)
            except Rejected:  # damaged: left out
                continue
            if game is not None:
                out.append({"seat": seat, **game.summary()})
        return out

    @api.post("/me/games/adopt")
    async def adopt_games(body: SeatTokens, account: Account = auth.account) -> dict[str, int]:
        """Make the seats of these seat tokens the account's (seats of another account stay theirs)."""
        return {"adopted": await accounts.adopt(account, body.tokens)}

    @api.post("/tokens", status_code=201, response_model=CreatedToken)
    async def create_token(body: NewToken, request: Request, account: Account = auth.session_account) -> dict[str, Any]:
        """A personal API token for programs (``Authorization: Bearer``) with the scopes asked for:
        shown once, stored hashed. Needs the password (401 if wrong) and a signed-in session."""
        return await accounts.create_token(account, body.password, client_ip(request), body.name, list(body.scopes))

    @api.get("/tokens", response_model=list[TokenListing])
    async def list_tokens(account: Account = auth.session_account) -> list[dict[str, Any]]:
        """The account's tokens without their secrets."""
        return await accounts.tokens(account)

    @api.delete("/tokens/{token_id}", status_code=204)
    async def revoke_token(
        token_id: Annotated[int, Path(ge=1, le=2**62)], account: Account = auth.session_account
    ) -> None:
        """Revoke a token at once (404 if the account has no such token)."""
        await accounts.revoke_token(account, token_id)

    return api
