"""The HTTP API of accounts (docs/accounts.md): sign up, sign in and out, the signed-in account,
its sessions and password, personal API tokens with scopes, adopting the games a browser holds, and
deleting an account.

Passwords are checked, judged and hashed in a small thread pool of their own (two at a time: an
Argon2id hash takes 64 MiB and tens of milliseconds), never on the event loop. Every check of a
password goes through the one throttle (``auth.LoginThrottle``), whatever the endpoint.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Path, Request, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from sqlalchemy import Connection

from kahuna.server.accounts import store as db
from kahuna.server.accounts.passwords import (
    MAX_PASSWORD,
    Refused,
    check_new_username,
    check_password,
    hash_password,
    username_key,
    verify_password,
)
from kahuna.server.accounts.store import DELETED_NAME, Account
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_name
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.common.tokens import digest
from kahuna.server.community import ratings, relations
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    TOKEN_PREFIX,
    Authenticator,
    csrf_of,
    is_https,
    require_account,
    require_session,
)
from kahuna.server.http.browsers import browser_id
from kahuna.server.http.common import Secret, client_ip
from kahuna.server.moderation import account_sanctions, appeals, chat_sanctions, roles

T = TypeVar("T")
_HASHING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kahuna-argon2")
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


async def in_password_pool(fn: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(_HASHING, fn)


def refused(exc: Refused) -> Rejected:
    """A refused username or password: 422 ``invalid`` with the English message and the ``reason``
    (code and parameters) that the browser words in its language."""
    return Rejected("invalid", str(exc), 422, reason=exc.reason())


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
    signups: Limiter,
) -> APIRouter:
    """The accounts API; ``withdraw_offers(account_id)`` cancels a deleted account's lobby offers;
    ``signups`` is the per-address budget of accounts created."""
    api = APIRouter(prefix="/api", tags=["accounts"])
    writer = auth.writer

    async def write(fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in the writer's transaction and return what it returned."""
        out: list[T] = []
        await writer.write(lambda conn: out.append(fn(conn)))
        return out[-1]

    async def password_checked(username: str, password: str, request: Request) -> Account | None:
        """The active account ``username`` if ``password`` is its password, through the throttle."""
        found = await writer.read(
            lambda conn: db.credentials(conn, username) or chat_sanctions.renamed_credentials(conn, username)
        )
        stored = None if found is None else found[1]

        async def check() -> bool:
            return await in_password_pool(lambda: verify_password(stored, password)) and found is not None

        right = await auth.throttle.checked(username_key(username), client_ip(request), check)
        return found[0] if right and found is not None else None

    async def judged(password: str, username: str) -> str:
        """The password if it may be used (``Rejected`` 422 with the reason), judged in the pool."""
        try:
            return await in_password_pool(lambda: check_password(password, username))
        except Refused as exc:
            raise refused(exc) from None

    @api.post("/accounts", status_code=201)
    async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, str]:
        """Create an account (409 ``taken`` when the name is taken without regard to case and
        look-alikes; 422 ``invalid`` with the reason; 429 when the address created enough accounts
        lately: only accounts created count; 403 ``signups_blocked`` from a browser or address a
        moderator blocked). Sign in afterwards with ``POST /api/session``."""
        browser, address_digest = digest(browser_id(request, response)), digest(client_ip(request))
        if await writer.read(lambda conn: account_sanctions.signups_blocked(conn, browser, address_digest)):
            raise Rejected("signups_blocked", "a moderator blocked sign-ups from this browser or address", 403)
        try:
            username = check_new_username(body.username)
        except Refused as exc:
            raise refused(exc) from None
        taken = Rejected("taken", "this username is taken (names are compared without regard to case)", 409)
        if await writer.read(lambda conn: db.username_taken(conn, username)):
            raise taken
        password = await judged(body.password, username)
        address = client_ip(request)
        wait = await signups.take(address)
        if wait:
            raise Rejected(
                "rate_limited", f"enough accounts from this address: try again in {wait:.0f} s", 429, retry_after=wait
            )
        hashed = await in_password_pool(lambda: hash_password(password))
        moment = time.time()

        def create(conn: Connection) -> Account | None:
            made = db.insert_account(conn, username, hashed)
            if made is not None:  # where it was made, for moderators only (blocked sign-ups, alternates)
                relations.remember_browser(conn, browser, made.id, moment)
                account_sanctions.remember_address(conn, address_digest, made.id, moment)
            return made

        try:
            account = await write(create)
        except RuntimeError:  # the unique key, if another instance took the name a moment ago
            if not await writer.read(lambda conn: db.username_taken(conn, username)):
                raise
            account = None
        if account is None:
            await signups.refund(address)  # no account was created
            raise taken
        logs.event("account_created", account_id=account.id)
        return {"username": account.username}

    @api.post("/session")
    async def sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
        """Sign in: a new session cookie (and ``csrf`` cookie) every time; adopts the seats of
        ``tokens``. 401 when wrong, 429 with ``Retry-After`` after repeated failures, 403
        ``account_closed`` when a moderator closed the account."""
        account = await password_checked(body.username, body.password, request)
        if account is None:
            logs.event("sign_in_failed")
            raise Rejected("unauthorized", "wrong username or password", 401)
        session_id = secrets.token_urlsafe(32)
        previous = request.cookies.get(SESSION_COOKIE)
        moment = time.time()
        user_agent = request.headers.get("user-agent", "")
        browser = digest(browser_id(request, response))
        address = digest(client_ip(request))

        def store_session(conn: Connection) -> bool:
            if account_sanctions.closed(conn, account.id):  # in the transaction: no session outlives a close
                return False
            if previous:  # whatever session this browser had is over: a fixed id never becomes valid
                db.delete_session(conn, digest(previous))
            db.insert_session(conn, digest(session_id), account.id, moment, user_agent)
            relations.remember_browser(conn, browser, account.id, moment)  # a block outlives signing out
            account_sanctions.remember_address(conn, address, account.id, moment)  # for moderators only
            return True

        if not await write(store_session):
            raise Rejected("account_closed", "a moderator closed this account", 403)
        _set_session_cookies(response, request, session_id)
        adopted = await auth.adopt(account, body.tokens)
        logs.event("signed_in", account_id=account.id, adopted=adopted)
        return {"username": account.username, "adopted": adopted}

    @api.delete("/session", status_code=204)
    async def sign_out(request: Request, response: Response) -> None:
        """Sign out: the session ends on the server and both cookies are cleared. Never rate
        limited (a neighbour's failed sign-ins must not keep anyone signed in)."""
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id and await auth.of_request(request) is not None:  # CSRF-checked
            await writer.write(lambda conn: db.delete_session(conn, digest(session_id)))
        _clear_session_cookies(response, request)

    @api.get("/sessions", response_model=list[SessionListing])
    async def list_sessions(request: Request, account: Annotated[Account, Depends(require_session)]) -> Any:
        """The account's signed-in sessions (browsers), newest first; ``current`` is this one."""
        current, moment = digest(request.cookies.get(SESSION_COOKIE, "")), time.time()
        return await writer.read(lambda conn: db.sessions_of(conn, account.id, current, moment))

    @api.delete("/sessions/{session_id}", status_code=204)
    async def end_session(
        session_id: Annotated[str, Path(min_length=1, max_length=db.SESSION_HANDLE)],
        account: Annotated[Account, Depends(require_session)],
    ) -> None:
        """Sign one of the account's sessions out (404 if it has no such session)."""
        if not await write(lambda conn: db.end_session(conn, account.id, session_id)):
            raise Rejected("not_found", "no such session", 404)
        logs.event("session_ended", account_id=account.id)

    @api.delete("/sessions", response_model=SignedOut)
    async def sign_out_everywhere(
        request: Request, response: Response, account: Annotated[Account, Depends(require_session)]
    ) -> dict[str, int]:
        """Sign out everywhere: every session of the account ends, this one too (tokens stay:
        revoke them one by one, or change the password)."""
        ended = await write(lambda conn: db.end_sessions(conn, account.id))
        _clear_session_cookies(response, request)
        logs.event("signed_out_everywhere", account_id=account.id, sessions=ended)
        return {"signed_out": ended}

    @api.post("/me/password", response_model=PasswordChanged)
    async def change_password(
        body: PasswordChange, request: Request, account: Annotated[Account, Depends(require_session)]
    ) -> dict[str, int]:
        """Change the password (the current one again: 401 if wrong, 429 when the throttle says so;
        422 with the reason if the new one may not be used). Every other session is signed out and
        every token revoked; this session stays."""
        if await password_checked(account.username, body.password, request) is None:
            raise Rejected("unauthorized", "wrong password", 401)
        password = await judged(body.new_password, account.username)
        hashed = await in_password_pool(lambda: hash_password(password))
        keep = digest(request.cookies.get(SESSION_COOKIE, ""))
        changed = await write(lambda conn: db.set_password(conn, account.id, hashed, keep))
        logs.event("password_changed", account_id=account.id, **changed)
        return changed

    @api.get("/me", response_model=Me)
    async def me(account: Annotated[Account, Depends(require_account)]) -> dict[str, Any]:
        """The signed-in account and its ratings (401 for a guest)."""

        def read(conn: Connection) -> dict[str, Any]:
            info = db.account_info(conn, account.id)
            held = roles.roles_of(conn, account.id)
            return {
                **info,
                "moderates": roles.moderates(held),
                "admin": roles.ADMIN in held,
                "notices": appeals.unseen(conn, account.id),
                "must_rename": chat_sanctions.must_rename(conn, account.id),
                "ratings": ratings.ratings_of(conn, account.id),
            }

        return await writer.read(read)

    @api.delete("/me", status_code=204)
    async def delete_me(
        body: PasswordOnly, request: Request, response: Response, account: Annotated[Account, Depends(require_session)]
    ) -> None:
        """Delete the account (its password again: 401 if wrong, 429 when the throttle says so):
        sessions and tokens are revoked, its games stay and show a deleted player, its username
        stays taken."""
        if await password_checked(account.username, body.password, request) is None:
            raise Rejected("unauthorized", "wrong password", 401)
        held = await write(lambda conn: db.delete_account(conn, account.id))
        for game_id, seat in held:
            service.rename_seat(game_id, seat, DELETED_NAME)
        await withdraw_offers(account.id)
        _clear_session_cookies(response, request)
        logs.event("account_deleted", account_id=account.id, seats=len(held))

    @api.get("/me/games", response_model=list[AccountGame])
    async def my_account_games(account: Annotated[Account, Depends(require_account)]) -> list[dict[str, Any]]:
        """The account's games on any browser, newest first (one entry per seat; no seat tokens:
        a seat of the account is played by saying ``hello`` with ``"seat"`` on a signed-in WebSocket)."""
        held = await writer.read(lambda conn: db.seats_of_account(conn, account.id, MY_GAMES_LIMIT))
        out = []
        for game_id, seat in held:
            try:
                game = await service.get(game_id)
            except Rejected:  # damaged: left out
                continue
            if game is not None:
                out.append({"seat": seat, **game.summary()})
        return out

    @api.post("/me/games/adopt")
    async def adopt_games(body: SeatTokens, account: Annotated[Account, Depends(require_account)]) -> dict[str, int]:
        """Make the seats of these seat tokens the account's (seats of another account stay theirs)."""
        return {"adopted": await auth.adopt(account, body.tokens)}

    @api.post("/tokens", status_code=201, response_model=CreatedToken)
    async def create_token(
        body: NewToken, request: Request, account: Annotated[Account, Depends(require_session)]
    ) -> dict[str, Any]:
        """A personal API token for programs (``Authorization: Bearer``) with the scopes asked for:
        shown once, stored hashed. Needs the password (401 if wrong) and a signed-in session."""
        if await password_checked(account.username, body.password, request) is None:
            raise Rejected("unauthorized", "wrong password", 401)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        scopes: list[str] = list(body.scopes)
        listing = await write(lambda conn: db.insert_token(conn, account.id, digest(token), body.name, scopes))
        if listing is None:
            raise Rejected("too_many_tokens", f"an account holds at most {db.MAX_TOKENS} tokens; revoke one", 409)
        logs.event("token_created", account_id=account.id, token_id=listing["id"], scopes=listing["scopes"])
        return {**listing, "token": token}

    @api.get("/tokens", response_model=list[TokenListing])
    async def list_tokens(account: Annotated[Account, Depends(require_session)]) -> list[dict[str, Any]]:
        """The account's tokens without their secrets."""
        return await writer.read(lambda conn: db.tokens_of(conn, account.id))

    @api.delete("/tokens/{token_id}", status_code=204)
    async def revoke_token(
        token_id: Annotated[int, Path(ge=1, le=2**62)], account: Annotated[Account, Depends(require_session)]
    ) -> None:
        """Revoke a token at once (404 if the account has no such token)."""
        if not await write(lambda conn: db.delete_token(conn, account.id, token_id)):
            raise Rejected("not_found", "no such token", 404)
        logs.event("token_revoked", account_id=account.id, token_id=token_id)

    return api
