"""Accounts: who a person (or a bot) is across games and browsers, and the secrets that prove it.

Tables (in ``db/schema/``, created by migration ``0002``):

- ``accounts``: the username as chosen, its *key* (``passwords.username_key``: unique, so that
  names differing only in case or ASCII look-alikes are one name), the Argon2id hash of the
  password (none for a bot), when it was created and, once deleted, when.
- ``sessions``: one row per signed-in browser, keyed by the SHA-256 of the random session id that
  only the browser's cookie holds, with its expiry and the browser's ``User-Agent`` (so that the
  account's owner can tell its sessions apart in the list).
- ``api_tokens``: personal API tokens for programs, keyed by their SHA-256, with their scopes; the
  token itself is shown once, when it is created.
- ``seats.account_id`` (a column of the games' ``seats``): the account a seat belongs to, set when a signed-in
  player creates or joins a game, adopts the seat tokens its browser holds, or is paired by the lobby.

A deleted account keeps its row (its username stays taken, so nobody can pose as the deleted
player in old games and profiles), loses its password, sessions, tokens and e-mail address, and its names in
games become ``DELETED_NAME``. Every function here is synchronous and runs in the writer's or a
reader's thread with a ``Connection``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    delete,
    func,
    select,
    update,
)

from kahuna.server.accounts.passwords import check_username, username_key
from kahuna.server.db import schema
from kahuna.server.db.schema import MAX_USER_AGENT, accounts, api_tokens, sessions
from kahuna.server.db.schema.games import digest_forms

SESSION_SECONDS = 30 * 24 * 3600
"""How long a sign-in lasts (fixed from sign-in, not renewed by use)."""
MAX_TOKENS = 20
"""Personal API tokens an account may hold at once."""
SCOPES = {
    "read": "read the account, its games and ratings (GET requests)",
    "play": "play, seek, challenge and accept games as the account (every request a game needs, reads too)",
}
"""What a personal API token may do. Managing tokens, sessions and the account is no scope: it needs
the password and a signed-in browser session, never a token."""
SESSION_HANDLE = 16
"""Hex digits of a session's digest shown in the list of sessions and used to end one."""
DELETED_NAME = "(deleted player)"
"""What a deleted account's seats are called in its games (the browser shows it in its language)."""


@dataclass(frozen=True)
class Account:
    """A signed-in account, as the API and the other modules see it."""

    id: int
    username: str
    is_bot: bool


def _account(row: Any) -> Account:
    return Account(id=row.id, username=row.username, is_bot=bool(row.is_bot))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ------------------------------------------------------------------ accounts


def insert_account(conn: Connection, username: str, password_hash: str | None, is_bot: bool = False) -> Account | None:
    """A new account, or ``None`` when its username (by key) is taken, by a deleted account too."""
    key = username_key(check_username(username))
    if username_taken(conn, username):
        return None
    new_id = conn.execute(
        accounts.insert().values(
            username=username, username_key=key, password=password_hash, created=_now(), is_bot=is_bot
        )
    ).inserted_primary_key
    assert new_id is not None
    return Account(id=int(new_id[0]), username=username, is_bot=is_bot)


def username_taken(conn: Connection, username: str) -> bool:
    """Whether an account (a deleted one too) holds ``username``'s key."""
    key = username_key(username)
    return conn.execute(select(accounts.c.id).where(accounts.c.username_key == key)).first() is not None


def ensure_bot_account(conn: Connection, username: str) -> Account:
    """The bot account ``username`` (created without a password if it does not exist yet).

    Bots sign in with personal API tokens only. ``ValueError`` if the name belongs to a person."""
    key = username_key(check_username(username))
    row = conn.execute(select(accounts).where(accounts.c.username_key == key)).first()
    if row is not None:
        if not row.is_bot or row.deleted is not None:
            raise ValueError(f"the username {username!r} belongs to an account that is not an active bot")
        return _account(row)
    account = insert_account(conn, username, None, is_bot=True)
    assert account is not None
    return account


def credentials(conn: Connection, username: str) -> tuple[Account, str | None] | None:
    """The active account called ``username`` (by key) and its password hash; ``None`` if none."""
    row = conn.execute(
        select(accounts).where(accounts.c.username_key == username_key(username), accounts.c.deleted.is_(None))
    ).first()
    return None if row is None else (_account(row), row.password)


def account_by_name(conn: Connection, username: str) -> Account | None:
    """The active account called ``username`` (by key), for profiles and challenges."""
    found = credentials(conn, username)
    return None if found is None else found[0]


def accounts_named(conn: Connection, names: list[str]) -> dict[int, str]:
    """The active accounts among ``names`` (compared by key): id → the name as asked."""
    asked = {username_key(name): name for name in names}
    rows = conn.execute(
        select(accounts.c.id, accounts.c.username_key).where(
            accounts.c.username_key.in_(list(asked)), accounts.c.deleted.is_(None)
        )
    )
    return {row.id: asked[row.username_key] for row in rows}


def account_info(conn: Connection, account_id: int) -> dict[str, Any]:
    row = conn.execute(
        select(accounts.c.username, accounts.c.created, accounts.c.is_bot).where(accounts.c.id == account_id)
    ).one()
    return {"username": row.username, "created": row.created, "is_bot": bool(row.is_bot)}


def delete_account(conn: Connection, account_id: int) -> list[tuple[str, int]]:
    """Delete an account: no password, sessions or tokens any more, no place in a tournament; its
    names in games become ``DELETED_NAME``. Returns the ``(game id, seat)`` of its seats, to rename games in memory."""
    conn.execute(update(accounts).where(accounts.c.id == account_id).values(deleted=_now(), password=None))
    conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
    conn.execute(delete(api_tokens).where(api_tokens.c.account_id == account_id))
    # its e-mail address, the links mailed to it and the mail not sent yet are forgotten too
    conn.execute(delete(schema.account_emails).where(schema.account_emails.c.account_id == account_id))
    conn.execute(delete(schema.mail_tokens).where(schema.mail_tokens.c.account_id == account_id))
    conn.execute(
        delete(schema.mail_queue).where(
            schema.mail_queue.c.account_id == account_id, schema.mail_queue.c.status == "queued"
        )
    )
    # its devices get no more notifications
    for (device,) in conn.execute(
        select(schema.push_subscriptions.c.id).where(schema.push_subscriptions.c.account_id == account_id)
    ).all():
        conn.execute(delete(schema.push_queue).where(schema.push_queue.c.subscription_id == device))
    conn.execute(delete(schema.push_subscriptions).where(schema.push_subscriptions.c.account_id == account_id))
    leave_tournaments(conn, account_id)
    held = [
        (g, s)
        for g, s in conn.execute(
            select(schema.seats.c.game_id, schema.seats.c.seat).where(schema.seats.c.account_id == account_id)
        )
    ]
    for game_id, seat in held:
        conn.execute(update(schema.games).where(schema.games.c.id == game_id).values({f"name{seat}": DELETED_NAME}))
    return held


def leave_tournaments(conn: Connection, account_id: int, rated_only: bool = False) -> None:
    """The account leaves the tournaments it is in (never paired again; deleted, or closed by a
    moderator), or only the rated ones (marked by a moderator); their versions move, so a pairing
    computed before is not written."""
    players, tournaments = schema.tournament_players, schema.tournaments
    query = select(players.c.tournament_id).where(players.c.account_id == account_id, players.c.active.is_(True))
    if rated_only:
        query = query.join(tournaments, tournaments.c.id == players.c.tournament_id).where(
            tournaments.c.rated.is_(True)
        )
    events = [tid for (tid,) in conn.execute(query)]
    if events:
        leaving = (players.c.account_id == account_id) & players.c.tournament_id.in_(events)
        conn.execute(update(players).where(leaving).values(active=False))
        conn.execute(update(tournaments).where(tournaments.c.id.in_(events)).values(version=tournaments.c.version + 1))


# ------------------------------------------------------------------ sessions


def insert_session(conn: Connection, session_digest: str, account_id: int, now: float, user_agent: str) -> None:
    """A new session (the account's expired ones are dropped on the way)."""
    conn.execute(delete(sessions).where(and_(sessions.c.account_id == account_id, sessions.c.expires < now)))
    conn.execute(
        sessions.insert().values(
            id=session_digest,
            account_id=account_id,
            created=_now(),
            expires=now + SESSION_SECONDS,
            user_agent=user_agent[:MAX_USER_AGENT] or None,
        )
    )


def delete_session(conn: Connection, session_digest: str) -> None:
    conn.execute(delete(sessions).where(sessions.c.id == session_digest))


def account_of_session(conn: Connection, session_digest: str, now: float) -> Account | None:
    row = conn.execute(
        select(accounts)
        .join(sessions, sessions.c.account_id == accounts.c.id)
        .where(sessions.c.id == session_digest, sessions.c.expires > now, accounts.c.deleted.is_(None))
    ).first()
    return None if row is None else _account(row)


def sessions_of(conn: Connection, account_id: int, current_digest: str, now: float) -> list[dict[str, Any]]:
    """The account's live sessions, newest first; ``id`` is a handle (the start of the digest), never
    the session id."""
    rows = conn.execute(
        select(sessions.c.id, sessions.c.created, sessions.c.expires, sessions.c.user_agent)
        .where(sessions.c.account_id == account_id, sessions.c.expires > now)
        .order_by(sessions.c.created.desc(), sessions.c.id)
    )
    return [
        {
            "id": row.id[:SESSION_HANDLE],
            "created": row.created,
            "expires": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.expires)),
            "user_agent": row.user_agent,
            "current": row.id == current_digest,
        }
        for row in rows
    ]


def end_session(conn: Connection, account_id: int, handle: str) -> bool:
    """End the account's session whose handle is ``handle``; ``False`` if it has none such."""
    digests = conn.execute(select(sessions.c.id).where(sessions.c.account_id == account_id)).scalars()
    chosen = [d for d in digests if len(handle) == SESSION_HANDLE and d.startswith(handle)]
    for session_digest in chosen:
        delete_session(conn, session_digest)
    return bool(chosen)


def end_sessions(conn: Connection, account_id: int, keep: str | None = None) -> int:
    """End every session of the account but ``keep`` (a digest); how many were ended."""
    query = delete(sessions).where(sessions.c.account_id == account_id)
    if keep is not None:
        query = query.where(sessions.c.id != keep)
    return int(conn.execute(query).rowcount)


def set_password(conn: Connection, account_id: int, password_hash: str, keep_session: str | None) -> dict[str, int]:
    """A new password: every other session ends (every one if ``keep_session`` is ``None``: a reset
    by mail), every token is revoked (whoever held the old password may hold them) and every reset
    link not yet used stops working (it may sit in a mailbox the owner no longer trusts). How many
    of each."""
    conn.execute(update(accounts).where(accounts.c.id == account_id).values(password=password_hash))
    void_reset_links(conn, account_id)
    ended = end_sessions(conn, account_id, keep=keep_session)
    revoked = conn.execute(delete(api_tokens).where(api_tokens.c.account_id == account_id)).rowcount
    return {"signed_out": ended, "revoked_tokens": int(revoked)}


def void_reset_links(conn: Connection, account_id: int) -> None:
    """The account's password-reset links not yet used stop working (``token_unknown``)."""
    conn.execute(
        delete(schema.mail_tokens).where(
            schema.mail_tokens.c.account_id == account_id,
            schema.mail_tokens.c.kind == "reset",
            schema.mail_tokens.c.used.is_(None),
        )
    )


# ------------------------------------------------------------------ personal API tokens


def insert_token(
    conn: Connection, account_id: int, token_digest: str, name: str, scopes: list[str]
) -> dict[str, Any] | None:
    """A new token's listing, or ``None`` when the account already holds ``MAX_TOKENS``."""
    held = conn.execute(
        select(func.count()).select_from(api_tokens).where(api_tokens.c.account_id == account_id)
    ).scalar()
    if (held or 0) >= MAX_TOKENS:
        return None
    created = _now()
    kept = " ".join(scope for scope in SCOPES if scope in scopes)
    new_id = conn.execute(
        api_tokens.insert().values(digest=token_digest, account_id=account_id, name=name, created=created, scopes=kept)
    ).inserted_primary_key
    assert new_id is not None
    return {"id": int(new_id[0]), "name": name, "created": created, "last_used": None, "scopes": kept.split()}


def tokens_of(conn: Connection, account_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(api_tokens.c.id, api_tokens.c.name, api_tokens.c.created, api_tokens.c.last_used, api_tokens.c.scopes)
        .where(api_tokens.c.account_id == account_id)
        .order_by(api_tokens.c.id)
    ).mappings()
    return [{**row, "scopes": row["scopes"].split()} for row in rows]


def delete_token(conn: Connection, account_id: int, token_id: int) -> bool:
    """Revoke one of the account's tokens; ``False`` if it has no such token."""
    gone = conn.execute(delete(api_tokens).where(api_tokens.c.id == token_id, api_tokens.c.account_id == account_id))
    return gone.rowcount > 0


@dataclass(frozen=True)
class TokenHolder:
    """Who a Bearer token speaks for and what it may do."""

    account: Account
    token_id: int
    scopes: frozenset[str]


def account_of_token(conn: Connection, token_digest: str) -> TokenHolder | None:
    """The active account of a token, the token's id and its scopes."""
    row = conn.execute(
        select(accounts, api_tokens.c.id.label("token_id"), api_tokens.c.scopes)
        .join(api_tokens, api_tokens.c.account_id == accounts.c.id)
        .where(api_tokens.c.digest == token_digest, accounts.c.deleted.is_(None))
    ).first()
    return None if row is None else TokenHolder(_account(row), row.token_id, frozenset(row.scopes.split()))


def touch_token(conn: Connection, token_id: int) -> None:
    conn.execute(update(api_tokens).where(api_tokens.c.id == token_id).values(last_used=_now()))


# ------------------------------------------------------------------ seats


def adopt_seats(conn: Connection, account_id: int, token_digests: list[str]) -> int:
    """Bind the seats of these token digests to the account, unless bound to an account already
    (an archived game's seat by its short digest, ``schema.games.short_digest``); returns how many
    were bound now."""
    if not token_digests:
        return 0
    forms = sorted({form for token in token_digests for form in digest_forms(token)})
    bound = conn.execute(
        update(schema.seats)
        .where(schema.seats.c.token.in_(forms), schema.seats.c.account_id.is_(None))
        .values(account_id=account_id)
    )
    return bound.rowcount


def seats_of_account(conn: Connection, account_id: int, limit: int) -> list[tuple[str, int]]:
    """``(game id, seat)`` of the account's seats, the most recently created games first."""
    rows = conn.execute(
        select(schema.seats.c.game_id, schema.seats.c.seat)
        .join(schema.games, schema.games.c.id == schema.seats.c.game_id)
        .where(schema.seats.c.account_id == account_id)
        .order_by(schema.games.c.created.desc(), schema.seats.c.seat)
        .limit(limit)
    )
    return [(game_id, seat) for game_id, seat in rows]


def seats_in_game(conn: Connection, account_id: int, game_id: str) -> list[int]:
    """The seats of ``game_id`` bound to the account (two in a hot-seat game)."""
    rows = conn.execute(
        select(schema.seats.c.seat).where(schema.seats.c.game_id == game_id, schema.seats.c.account_id == account_id)
    )
    return sorted(seat for (seat,) in rows)


def game_players(conn: Connection, game_id: str) -> dict[int, int]:
    """The accounts seated in ``game_id``: seat → account, from the seats bound to accounts and,
    for a lobby game, its players' accounts (an AI level's bot included)."""
    return games_players(conn, [game_id]).get(game_id, {})


def games_players(conn: Connection, game_ids: list[str]) -> dict[str, dict[int, int]]:
    """:func:`game_players` of many games in two queries (a game with no account seated is left
    out): the ``hello``s of a thousand connections opened at once read their seats' accounts in a
    few batches instead of a thousand reads (:class:`~kahuna.server.db.batched.BatchedReader`)."""
    found: dict[str, dict[int, int]] = {}
    lobby = conn.execute(
        select(schema.game_accounts.c.game_id, schema.game_accounts.c.account0, schema.game_accounts.c.account1).where(
            schema.game_accounts.c.game_id.in_(game_ids)
        )
    )
    for game_id, *accounts_by_seat in lobby:
        seated = {seat: account for seat, account in enumerate(accounts_by_seat) if account is not None}
        if seated:
            found[game_id] = seated
    bound = conn.execute(
        select(schema.seats.c.game_id, schema.seats.c.seat, schema.seats.c.account_id).where(
            schema.seats.c.game_id.in_(game_ids), schema.seats.c.account_id.is_not(None)
        )
    )
    for game_id, seat, account in bound:
        found.setdefault(game_id, {}).setdefault(seat, account)
    return found


def carry_seats_over(conn: Connection, old_game_id: str, new_game_id: str) -> None:
    """A rematch: old seat ``s`` plays new seat ``1 - s``, so its account does too."""
    held = conn.execute(
        select(schema.seats.c.seat, schema.seats.c.account_id).where(
            schema.seats.c.game_id == old_game_id, schema.seats.c.account_id.is_not(None)
        )
    ).all()
    for seat, account_id in held:
        conn.execute(
            update(schema.seats)
            .where(schema.seats.c.game_id == new_game_id, schema.seats.c.seat == 1 - seat)
            .values(account_id=account_id)
        )
