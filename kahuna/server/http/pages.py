"""The browser's pages (one ``index.html`` for every page route), its static files and the board,
and what makes it an installable web app: the manifest and the service worker.

The pages are the static web interface of ``kahuna/web`` (no build step); the board the referee
plays on is served from ``kahuna/rules/board.json`` itself, so the browser never holds a copy.

The service worker is served from ``/sw.js`` (its scope is every page) with two values filled in
(:func:`service_worker`): the digest of every static file, so that a deploy that changes any of
them is a new worker whose install replaces the cache, and the list of files it caches.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
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
    "/watch",
    "/watch/{game_id}",
    "/tv",
    "/replay/{game_id}",
    "/rules",
    "/puzzles",
    "/signup",
    "/signin",
    "/account",
    "/mod",
    "/email/verify",
    "/password-reset",
    "/unsubscribe/{token}",
    "/lobby",
    "/users/{username}",
    "/leaderboard",
    "/following",
    "/tournaments",
    "/tournaments/{tournament_id}",
)


SERVICE_WORKER = WEB_DIR / "sw.js"
MANIFEST = WEB_DIR / "manifest.webmanifest"
NOT_CACHED = {SERVICE_WORKER, MANIFEST}
"""Files of ``kahuna/web`` that are not static files of the shell (served at the root, by their own routes)."""


@functools.cache
def service_worker() -> bytes:
    """``/sw.js``: the worker with its version (a digest of every file it caches) and file list."""
    files = sorted(p for p in WEB_DIR.rglob("*") if p.is_file() and p not in NOT_CACHED)
    digest = hashlib.sha256()
    for path in [*files, BOARD_JSON, MANIFEST, SERVICE_WORKER]:
        digest.update(str(path.relative_to(KAHUNA_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    shell = ["/", "/manifest.webmanifest", "/static/board.json"]
    shell += ["/static/" + p.relative_to(WEB_DIR).as_posix() for p in files]
    text = SERVICE_WORKER.read_text(encoding="utf-8")
    text = text.replace("__KAHUNA_VERSION__", digest.hexdigest()[:16]).replace("__KAHUNA_SHELL__", json.dumps(shell))
    return text.encode()


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

    @app.get("/sw.js", include_in_schema=False)
    async def worker() -> Response:
        if not SERVICE_WORKER.is_file():
            raise Rejected("not_found", "the web interface is not installed", 404)
        return Response(service_worker(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> FileResponse:
        if not MANIFEST.is_file():
            raise Rejected("not_found", "the web interface is not installed", 404)
        return FileResponse(MANIFEST, media_type="application/manifest+json", headers={"Cache-Control": "no-cache"})

    for route in PAGE_ROUTES:
        app.add_api_route(route, page, methods=["GET"], include_in_schema=False)
    if WEB_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
