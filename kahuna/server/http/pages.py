"""The browser's pages (one ``index.html`` for every page route), its static files and the board.

The pages are the static web interface of ``kahuna/web`` (no build step); the board the referee
plays on is served from ``kahuna/rules/board.json`` itself, so the browser never holds a copy.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from kahuna.server.common.errors import Rejected

KAHUNA_DIR = Path(__file__).resolve().parents[2]
WEB_DIR = KAHUNA_DIR / "web"
BOARD_JSON = KAHUNA_DIR / "rules" / "board.json"
"""The board the referee plays on, served to the browser as ``/static/board.json`` (one file, no copy)."""
PAGE_ROUTES = (
    "/",
    "/play/{game_id}",
    "/join/{invite}",
    "/watch/{game_id}",
    "/replay/{game_id}",
    "/rules",
    "/signup",
    "/signin",
    "/account",
    "/email/verify",
    "/password-reset",
    "/lobby",
    "/users/{username}",
    "/leaderboard",
    "/following",
    "/tournaments",
    "/tournaments/{tournament_id}",
)


def add_pages(app: FastAPI) -> None:
    """The page routes, the board and the static files (after every API route: they match last)."""

    @app.get("/static/board.json", include_in_schema=False)
    async def board() -> FileResponse:
        return FileResponse(BOARD_JSON, media_type="application/json", headers={"Cache-Control": "no-cache"})

    async def page() -> FileResponse:
        index = WEB_DIR / "index.html"
        if not index.is_file():
            raise Rejected("not_found", "the web interface is not installed", 404)
        # no-referrer: a /join/<invite> page must not pass its invite on to anyone it links to
        return FileResponse(index, headers={"Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"})

    for route in PAGE_ROUTES:
        app.add_api_route(route, page, methods=["GET"], include_in_schema=False)
    if WEB_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
