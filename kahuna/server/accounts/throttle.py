"""The budgets of password checks (signing in, deleting the account, changing the password, making
a token): per account (its username key) and per client address.

Every check takes an attempt from two token buckets (``ratelimit.Limiter``) *before* the password
is checked. When either is empty the answer is ``429`` with ``Retry-After`` and no password is
checked; a right password gives its attempts back. Taking before checking is what makes the budget
hold when guesses arrive at once: a check in flight has already paid, so twenty guesses sent
together cost twenty attempts, not one look at a bucket that is not empty yet. The buckets sit
behind that small async interface, so that several instances share them in Redis (``kahuna serve
--broker``) instead of each keeping its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Limiter


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
