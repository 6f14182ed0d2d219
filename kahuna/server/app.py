"""The FastAPI application: the routers of ``http/`` mounted on what :func:`assembly.server` built.

Each router is given its area's service; sign-in (``http.auth``) and the drain of the sockets are
the HTTP layer's own parts, made here. The app's lifespan is the assembly's (its parts started in
order on one exit stack, stopped in reverse).

The interactive API pages (Swagger UI) are not served: they load scripts from a CDN onto the
origin whose pages keep seat tokens. The OpenAPI description is at ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from kahuna.server import assembly
from kahuna.server.common.config import Settings
from kahuna.server.games.factory import DealProvider
from kahuna.server.http import (
    accounts,
    analysis,
    auth,
    challenges,
    event_chat,
    game_ratings,
    game_socket,
    games,
    health,
    hints,
    live_games,
    lobby,
    lobby_socket,
    moderation,
    notifications,
    profiles,
    relations,
    renames,
    tournaments,
)
from kahuna.server.http import mail as mail_api
from kahuna.server.http import push as push_api
from kahuna.server.http import puzzles as puzzles_api
from kahuna.server.http.draining import Drain
from kahuna.server.http.errors import add_error_handlers
from kahuna.server.http.guard import Guard
from kahuna.server.http.measured import Measured
from kahuna.server.http.pages import add_pages
from kahuna.server.ops.readiness import NotReady, Readiness


def create_app(settings: Settings, deal_provider: DealProvider | None = None, drain: Drain | None = None) -> FastAPI:
    """The server app. ``drain``: its sockets, closed going away when the caller tells it to
    (``serve.py``, on SIGTERM; a drain of its own if none is given). ``deal_provider`` is for tests
    only (games with chosen deals); HTTP cannot reach it."""
    built = assembly.server(settings, deal_provider)
    drain = drain or Drain()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with built.running():
            yield

    app = FastAPI(
        title="Kahuna server",
        description="Play Kahuna against the AI or a friend; the WebSocket protocol is in docs/protocol.md.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    signing_in = auth.Authenticator(built.accounts)
    limits = settings.limits

    async def staying() -> None:  # a balancer that probes /readyz stops sending players to an instance going away
        if drain.draining:
            raise NotReady("the instance is going away")

    # The sockets first: a route is found by trying each in turn, and a thousand players connecting
    # at once each paid for trying every HTTP router before the game's socket (180 µs a connection).
    app.include_router(health.router(Readiness({**built.checks, "serving": staying})))
    app.include_router(lobby_socket.router(built.lobby, built.presence, signing_in, drain))  # before /ws/{game_id}
    app.include_router(
        game_socket.router(
            built.service,
            settings.max_frame,
            limits,
            built.chat_budget,
            built.presence,
            signing_in,
            drain,
            built.moderation,
        )
    )
    app.include_router(live_games.router(built.live))  # /api/games/live before /api/games/{game_id}
    app.include_router(games.router(built.service, signing_in))
    app.include_router(game_ratings.router(built.game_ratings))
    app.include_router(accounts.router(signing_in, built.service, built.lobby.withdraw_all))
    app.include_router(mail_api.router(built.mailer, signing_in))
    app.include_router(notifications.router(built.notification_settings, signing_in))
    app.include_router(push_api.router(built.push, signing_in))
    app.include_router(analysis.router(built.service, built.analyses, signing_in))
    app.include_router(lobby.router(built.lobby, signing_in))
    app.include_router(challenges.router(built.lobby, signing_in))
    app.include_router(tournaments.router(built.events, signing_in))
    app.include_router(event_chat.router(built.event_chat, signing_in))
    app.include_router(profiles.router(built.players))
    app.include_router(relations.router(built.social, signing_in))
    app.include_router(moderation.router(built.moderation, signing_in))
    app.include_router(puzzles_api.router(built.puzzles, signing_in))
    app.include_router(renames.router(built.moderation, signing_in))
    app.include_router(
        hints.router(
            built.service, built.ai_pool, signing_in, limits.hints_per_minute, limits.hints_burst, built.limiters
        )
    )
    add_error_handlers(app)
    add_pages(app)
    app.add_middleware(Guard, max_body=settings.max_body, body_timeout=limits.body_timeout, quotas=built.quotas)
    app.add_middleware(Measured)  # outermost: the Guard's refusals are counted too
    return app
