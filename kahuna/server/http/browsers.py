"""The ``browser`` cookie: a random id a browser gets with its first offer or sign-in (HttpOnly,
for the API's requests only).

It tells one browser from another where no account does: a guest cannot accept its own offer,
while two browsers behind one address can play each other (``community/lobby.py``); and a browser
remembers the accounts that signed in on it, so that a player blocked by an offer's owner who signs
out is still recognised there (``community/relations.refuse_blocked``). A player who clears the
cookie or changes browser is a new guest: what any guest is.
"""

from __future__ import annotations

import secrets

from fastapi import Request, Response

from kahuna.server.http.auth import is_https

BROWSER_COOKIE = "browser"
BROWSER_SECONDS = 365 * 24 * 3600


def browser_id(request: Request, response: Response) -> str:
    """The request's ``browser`` cookie, set first if it has none (a new random id)."""
    browser = request.cookies.get(BROWSER_COOKIE, "")
    if not 20 <= len(browser) <= 64:
        browser = secrets.token_urlsafe(24)
        response.set_cookie(
            BROWSER_COOKIE,
            browser,
            max_age=BROWSER_SECONDS,
            path="/api/",
            secure=is_https(request),
            httponly=True,
            samesite="lax",
        )
    return browser
