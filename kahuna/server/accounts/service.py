"""What the accounts API and sign-in ask (``http/accounts.py``, ``http/auth.py``), built once at
assembly: who a session or a personal API token is, signing up and in, sessions, passwords, tokens,
the seats an account holds, and deleting it (docs/accounts.md).

Every password is checked, judged and hashed in the passwords' own pool
(``passwords.in_password_pool``), and every check goes through the one throttle
(``throttle.LoginThrottle``), whatever the request. What other rooms keep about an account (a
moderator's close or blocked sign-ups, a moderator's rename, where it signed in from, its roles and
ratings) is read and written in the same transactions through a :class:`Standing`, given at
assembly (``moderation/standing.py``): this room stays below them.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection

from kahuna.server.accounts import store as db
from kahuna.server.accounts.passwords import (
    Refused,
    check_new_username,
    check_password,
    hash_password,
    in_password_pool,
    refused,
    username_key,
    verify_password,
)
from kahuna.server.accounts.store import Account
from kahuna.server.accounts.throttle import LoginThrottle
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import MAX_KEYS, Limiter
from kahuna.server.common.tokens import digest
from kahuna.server.db.batched import BatchedReader
from kahuna.server.db.writer import Writer

T = TypeVar("T")
TOKEN_PREFIX = "kahuna_"
"""Personal API tokens start with this, so that secret scanners can recognise a leaked one."""
SATISFIES = {"read": frozenset({"read", "play"}), "play": frozenset({"play"})}
"""The token scopes that allow what a request needs (``play`` includes reading)."""
TOUCH_EVERY = 60.0
"""Seconds between two writes of a token's ``last_used`` (not one write per request)."""


class Standing(Protocol):
    """What other rooms keep about an account, in the accounts' transactions."""

    def renamed_credentials(self, conn: Connection, username: str) -> tuple[Account, str | None] | None:
        """An account renamed by a moderator, by its old name, while it must choose a new one."""
        ...

    def signups_blocked(self, conn: Connection, browser: str, address: str) -> bool:
        """Whether a moderator blocked sign-ups from this browser or address (digests)."""
        ...

    def closed(self, conn: Connection, account_id: int) -> bool:
        """Whether a moderator closed the account."""
        ...

    def remember(self, conn: Connection, browser: str, address: str, account_id: int, moment: float) -> None:
        """The account signed up or in from this browser and address (digests)."""
        ...

    def shown_to_itself(self, conn: Connection, account_id: int) -> dict[str, Any]:
        """What ``GET /api/me`` adds to the account's own row (roles, notices, ratings)."""
        ...


class Accounts:
    """Accounts, their sessions, passwords and tokens."""

    def __init__(self, writer: Writer, throttle: LoginThrottle, standing: Standing, signups: Limiter) -> None:
        self.writer = writer
        self.throttle = throttle
        self.standing = standing
        self.signups = signups
        """The per-address budget of accounts created."""
        self._touched: dict[int, float] = {}
        self._seated = BatchedReader(writer, db.games_players, dict)
        """The accounts seated in games: every ``hello`` asks for its seat's, read in batches."""

    async def _write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in the writer's transaction and return what it returned."""
        out: list[T] = []
        await self.writer.write(lambda conn: out.append(fn(conn)))
        return out[-1]

    # ------------------------------------------------------------------ who is asking

    async def of_token(self, token: str, needed: str) -> Account:
        """The account of a personal API token that has the scope ``needed``; ``Rejected``: 401 if
        it names none, 403 ``insufficient_scope`` if it may not do this."""
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

    async def of_session(self, session_id: str) -> Account | None:
        """The account of a live session (``None``: no such session, or over)."""
        if not session_id or len(session_id) > 128:
            return None
        moment = time.time()
        return await self.writer.read(lambda conn: db.account_of_session(conn, digest(session_id), moment))

    async def adopt(self, account: Account, tokens: list[str]) -> int:
        """Bind the seats of these seat tokens to the account (not those of another account);
        returns how many became the account's now."""
        digests = sorted({digest(token) for token in tokens})
        if not digests:
            return 0
        return await self._write(lambda conn: db.adopt_seats(conn, account.id, digests))

    async def seats_in_game(self, account: Account, game_id: str) -> list[int]:
        """The seats of ``game_id`` that belong to the account."""
        return await self.writer.read(lambda conn: db.seats_in_game(conn, account.id, game_id))

    async def seated(self, game_id: str, seat: int) -> int | None:
        """The account seated at ``seat`` of ``game_id`` (``None``: a guest's seat)."""
        return (await self._seated.get(game_id)).get(seat)

    async def seats(self, account: Account, limit: int) -> list[tuple[str, int]]:
        """``(game id, seat)`` of the account's seats, the most recently created games first."""
        return await self.writer.read(lambda conn: db.seats_of_account(conn, account.id, limit))

    # ------------------------------------------------------------------ passwords

    async def password_checked(self, username: str, password: str, address: str) -> Account | None:
        """The active account ``username`` if ``password`` is its password, through the throttle."""
        standing = self.standing
        found = await self.writer.read(
            lambda conn: db.credentials(conn, username) or standing.renamed_credentials(conn, username)
        )
        stored = None if found is None else found[1]

        async def check() -> bool:
            return await in_password_pool(lambda: verify_password(stored, password)) and found is not None

        right = await self.throttle.checked(username_key(username), address, check)
        return found[0] if right and found is not None else None

    async def _checked(self, account: Account, password: str, address: str, wrong: str = "wrong password") -> None:
        if await self.password_checked(account.username, password, address) is None:
            raise Rejected("unauthorized", wrong, 401)

    @staticmethod
    async def judged(password: str, username: str) -> str:
        """The password if it may be used (``Rejected`` 422 with the reason), judged in the pool."""
        try:
            return await in_password_pool(lambda: check_password(password, username))
        except Refused as exc:
            raise refused(exc) from None

    # ------------------------------------------------------------------ signing up and in

    async def sign_up(self, username: str, password: str, browser: str, address: str) -> Account:
        """A new account (``browser`` and ``address``: digests). 409 ``taken``, 422 ``invalid``,
        429 when the address created enough accounts lately, 403 ``signups_blocked``."""
        if await self.writer.read(lambda conn: self.standing.signups_blocked(conn, browser, digest(address))):
            raise Rejected("signups_blocked", "a moderator blocked sign-ups from this browser or address", 403)
        try:
            username = check_new_username(username)
        except Refused as exc:
            raise refused(exc) from None
        taken = Rejected("taken", "this username is taken (names are compared without regard to case)", 409)
        if await self.writer.read(lambda conn: db.username_taken(conn, username)):
            raise taken
        password = await self.judged(password, username)
        wait = await self.signups.take(address)
        if wait:
            raise Rejected(
                "rate_limited", f"enough accounts from this address: try again in {wait:.0f} s", 429, retry_after=wait
            )
        hashed = await in_password_pool(lambda: hash_password(password))
        moment = time.time()

        def create(conn: Connection) -> Account | None:
            made = db.insert_account(conn, username, hashed)
            if made is not None:  # where it was made, for moderators only (blocked sign-ups, alternates)
                self.standing.remember(conn, browser, digest(address), made.id, moment)
            return made

        try:
            account = await self._write(create)
        except RuntimeError:  # the unique key, if another instance took the name a moment ago
            if not await self.writer.read(lambda conn: db.username_taken(conn, username)):
                raise
            account = None
        if account is None:
            await self.signups.refund(address)  # no account was created
            raise taken
        logs.event("account_created", account_id=account.id)
        return account

    async def sign_in(
        self, username: str, password: str, address: str, browser: str, previous: str | None, user_agent: str
    ) -> tuple[Account, str]:
        """A new session of the account (its id, for the cookie): 401 when wrong, 429 after repeated
        failures, 403 ``account_closed``. ``previous``: the session this browser had, ended."""
        account = await self.password_checked(username, password, address)
        if account is None:
            logs.event("sign_in_failed")
            raise Rejected("unauthorized", "wrong username or password", 401)
        session_id = secrets.token_urlsafe(32)
        moment = time.time()

        def store_session(conn: Connection) -> bool:
            if self.standing.closed(conn, account.id):  # in the transaction: no session outlives a close
                return False
            if previous:  # whatever session this browser had is over: a fixed id never becomes valid
                db.delete_session(conn, digest(previous))
            db.insert_session(conn, digest(session_id), account.id, moment, user_agent)
            self.standing.remember(conn, browser, digest(address), account.id, moment)  # a block outlives signing out
            return True

        if not await self._write(store_session):
            raise Rejected("account_closed", "a moderator closed this account", 403)
        return account, session_id

    async def sign_out(self, session_id: str) -> None:
        await self.writer.write(lambda conn: db.delete_session(conn, digest(session_id)))

    # ------------------------------------------------------------------ the account's own

    async def sessions(self, account: Account, current: str) -> list[dict[str, Any]]:
        """The account's live sessions, newest first (``current``: this request's session id)."""
        moment = time.time()
        return await self.writer.read(lambda conn: db.sessions_of(conn, account.id, digest(current), moment))

    async def end_session(self, account: Account, handle: str) -> None:
        """End one of the account's sessions by its handle; 404 ``not_found``."""
        if not await self._write(lambda conn: db.end_session(conn, account.id, handle)):
            raise Rejected("not_found", "no such session", 404)
        logs.event("session_ended", account_id=account.id)

    async def end_sessions(self, account: Account) -> int:
        """End every session of the account; how many."""
        ended = await self._write(lambda conn: db.end_sessions(conn, account.id))
        logs.event("signed_out_everywhere", account_id=account.id, sessions=ended)
        return ended

    async def change_password(
        self, account: Account, password: str, new_password: str, address: str, keep: str
    ) -> dict[str, int]:
        """A new password (the current one checked: 401, 429; the new one judged: 422); every
        session but ``keep`` (this request's) ends and every token is revoked."""
        await self._checked(account, password, address)
        judged = await self.judged(new_password, account.username)
        hashed = await in_password_pool(lambda: hash_password(judged))
        changed = await self._write(lambda conn: db.set_password(conn, account.id, hashed, digest(keep)))
        logs.event("password_changed", account_id=account.id, **changed)
        return changed

    async def shown_to_itself(self, account: Account) -> dict[str, Any]:
        """The account's own row with what other rooms add to it (``GET /api/me``)."""
        return await self.writer.read(
            lambda conn: {**db.account_info(conn, account.id), **self.standing.shown_to_itself(conn, account.id)}
        )

    async def delete(self, account: Account, password: str, address: str) -> list[tuple[str, int]]:
        """Delete the account (its password checked: 401, 429); the ``(game id, seat)`` of its
        seats, whose names become ``DELETED_NAME``."""
        await self._checked(account, password, address)
        return await self._write(lambda conn: db.delete_account(conn, account.id))

    # ------------------------------------------------------------------ personal API tokens

    async def create_token(
        self, account: Account, password: str, address: str, name: str, scopes: list[str]
    ) -> dict[str, Any]:
        """A new token with its secret (shown once, stored hashed); the password checked (401, 429);
        409 ``too_many_tokens`` beyond ``MAX_TOKENS``."""
        await self._checked(account, password, address)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        listing = await self._write(lambda conn: db.insert_token(conn, account.id, digest(token), name, scopes))
        if listing is None:
            raise Rejected("too_many_tokens", f"an account holds at most {db.MAX_TOKENS} tokens; revoke one", 409)
        logs.event("token_created", account_id=account.id, token_id=listing["id"], scopes=listing["scopes"])
        return {**listing, "token": token}

    async def tokens(self, account: Account) -> list[dict[str, Any]]:
        return await self.writer.read(lambda conn: db.tokens_of(conn, account.id))

    async def revoke_token(self, account: Account, token_id: int) -> None:
        """Revoke a token at once; 404 ``not_found``."""
        if not await self._write(lambda conn: db.delete_token(conn, account.id, token_id)):
            raise Rejected("not_found", "no such token", 404)
        logs.event("token_revoked", account_id=account.id, token_id=token_id)
