"""The FastAPI application: API, WebSocket, web pages, and the start-up that resumes every game.

The interactive API pages (Swagger UI) are not served: they load scripts from a CDN onto the
origin whose pages keep seat tokens. The OpenAPI description is at ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from kahuna.ai.levels import LEVELS
from kahuna.server.cluster.broker import Broker, LocalBroker
from kahuna.server.cluster.replication import Cluster
from kahuna.server.common import logs
from kahuna.server.common.config import Settings
from kahuna.server.common.ratelimit import LimiterFactory, Quotas, memory_limiter
from kahuna.server.community import bots
from kahuna.server.community.lobby import Lobby
from kahuna.server.db.store import check_writable, open_engine
from kahuna.server.db.writer import Writer
from kahuna.server.games import ai_pool as ai_seats
from kahuna.server.games import analysis
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.service import DealProvider, GameService
from kahuna.server.http import accounts as account_api
from kahuna.server.http import analysis as analysis_api
from kahuna.server.http import challenges, game_socket, hints, lobby_socket
from kahuna.server.http import games as api
from kahuna.server.http import lobby as lobby_api
from kahuna.server.http import profiles as profiles_api
from kahuna.server.http.auth import Authenticator, LoginThrottle
from kahuna.server.http.errors import add_error_handlers
from kahuna.server.http.guard import Guard
from kahuna.server.http.pages import add_pages

if TYPE_CHECKING:
    from kahuna.server.cluster.jobs import Submitter
    from kahuna.server.cluster.redis_broker import RedisBroker


def create_app(settings: Settings, deal_provider: DealProvider | None = None) -> FastAPI:
    """The server app. ``deal_provider`` is for tests only (games with chosen deals); HTTP cannot reach it."""
    engine = open_engine(settings.db_url)
    check_writable(engine)
    writer = Writer(engine)
    ai_pool = AiPool(settings.ai_workers)
    broker: Broker = LocalBroker()
    shared = None if settings.broker_url is None else _redis_broker(settings.broker_url)
    limiters: LimiterFactory = memory_limiter
    if shared is not None:
        broker = shared
        limiters = _redis_limiters(shared)  # a client meets the same budgets on every instance
    limits = settings.limits
    service = GameService(
        writer,
        ai_pool,
        deal_provider,
        idle_game_seconds=limits.idle_game_seconds,
        clock_min_seconds=limits.clock_min_seconds,
        chat_lines_per_game=limits.chat_lines_per_game,
    )
    if shared is not None:
        service.cluster = Cluster(shared, service)
    if settings.broker_url is not None and not settings.local_ai:
        service.ai_jobs = _job_submitter(settings.broker_url)
    analyses = analysis.AnalysisJobs(
        writer, ai_pool, limits.analysis_iterations, limits.analyses_per_hour, limits.analyses_burst, limiters
    )
    if service.ai_jobs is not None:  # analyses go to the workers too
        analyses.queue = service.ai_jobs.queue
    lobby = Lobby(service, broker)
    bot_levels = [level for level in LEVELS if ai_seats.available(level)]

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        writer.start()
        if shared is not None:
            await shared.start()  # Redis must answer before any game is served
        await ai_pool.warm_up()
        resumed = await service.resume()
        await writer.write(lambda conn: bots.ensure_level_bots(conn, bot_levels))
        lobby.start()
        logs.event("started", resumed_games=resumed, ai_workers=settings.ai_workers)
        try:
            yield
        finally:
            service.stop()
            if service.cluster is not None:
                await service.cluster.close()
            if service.ai_jobs is not None:
                await service.ai_jobs.close()
            await lobby.stop()
            analyses.stop()
            ai_pool.close()
            await broker.close()
            await writer.close()
            engine.dispose()

    app = FastAPI(
        title="Kahuna server",
        description="Play Kahuna against the AI or a friend; the WebSocket protocol is in docs/protocol.md.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.broker = broker
    auth = app.state.auth = Authenticator(
        writer,
        LoginThrottle(
            limiters("login_failures", limits.login_failures_per_hour / 3600, limits.login_failures_burst),
            limiters(
                "client_login_failures",
                limits.client_login_failures_per_hour / 3600,
                limits.client_login_failures_burst,
            ),
        ),
    )
    app.include_router(api.router(service))
    app.include_router(account_api.router(auth, service, lobby.withdraw_all))
    app.include_router(analysis_api.router(service, analyses))
    app.include_router(lobby_api.router(lobby))
    app.include_router(challenges.router(lobby))
    app.include_router(profiles_api.router(writer))
    app.include_router(hints.router(service, ai_pool, limits.hints_per_minute, limits.hints_burst, limiters))
    app.include_router(lobby_socket.router(lobby))  # /ws/lobby before /ws/{game_id}
    app.include_router(game_socket.router(service, settings.max_frame, limits))
    add_error_handlers(app)

    add_pages(app)
    quotas = Quotas(limits, limiters)
    app.add_middleware(Guard, max_body=settings.max_body, body_timeout=limits.body_timeout, quotas=quotas)
    return app


def _redis_broker(url: str) -> RedisBroker:
    """The broker of ``--broker`` (imported here: the Redis client is the ``redis`` extra)."""
    from kahuna.server.cluster.redis_broker import RedisBroker

    return RedisBroker(url)


def _job_submitter(url: str) -> Submitter:
    """AI moves queued for ``kahuna worker`` on the Redis of ``--broker`` (``kahuna.server.cluster.jobs``)."""
    from kahuna.server.cluster.jobs import JobQueue, Submitter

    return Submitter(JobQueue.from_url(url))


def _redis_limiters(broker: RedisBroker) -> LimiterFactory:
    from kahuna.server.cluster.redis_limits import redis_limiters

    factory: LimiterFactory = redis_limiters(broker.client)
    return factory
