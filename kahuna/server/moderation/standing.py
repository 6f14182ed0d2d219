"""What the rooms above the accounts keep about an account, as the accounts' service asks it in its
transactions (``accounts.service.Standing``, given at assembly): a moderator's close, blocked
sign-ups and rename (``account_sanctions``, ``chat_sanctions``), the browsers and addresses it
signed in from (``community.relations`` for blocks, ``account_sanctions`` for moderators), and what
``GET /api/me`` shows of its roles, sanction notices and ratings."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from kahuna.server.accounts.store import Account
from kahuna.server.community import ratings, relations
from kahuna.server.moderation import account_sanctions, appeals, chat_sanctions, roles


class ModeratedStanding:
    """:class:`kahuna.server.accounts.service.Standing` of a server with moderation."""

    def renamed_credentials(self, conn: Connection, username: str) -> tuple[Account, str | None] | None:
        return chat_sanctions.renamed_credentials(conn, username)

    def signups_blocked(self, conn: Connection, browser: str, address: str) -> bool:
        return account_sanctions.signups_blocked(conn, browser, address)

    def closed(self, conn: Connection, account_id: int) -> bool:
        return account_sanctions.closed(conn, account_id)

    def remember(self, conn: Connection, browser: str, address: str, account_id: int, moment: float) -> None:
        relations.remember_browser(conn, browser, account_id, moment)  # a block outlives signing out
        account_sanctions.remember_address(conn, address, account_id, moment)  # for moderators only

    def shown_to_itself(self, conn: Connection, account_id: int) -> dict[str, Any]:
        held = roles.roles_of(conn, account_id)
        return {
            "moderates": roles.moderates(held),
            "admin": roles.ADMIN in held,
            "notices": appeals.unseen(conn, account_id),
            "must_rename": chat_sanctions.must_rename(conn, account_id),
            "ratings": ratings.ratings_of(conn, account_id),
        }
