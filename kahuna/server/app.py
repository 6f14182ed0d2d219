"""The FastAPI application: API, WebSocket, web pages, and the start-up that resumes every game.

The interactive API pages (Swagger UI) are not served: they load scripts from a CDN onto the
origin whose pages keep seat tokens. The OpenAPI description is at ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from kahuna.ai.levels import LEVELS
from kahuna.server import account_api, analysis, api, challenges, hints, lobby_api, logs, profiles, ws
from kahuna.server import ai as ai_seats
from kahuna.server.ai import AiPool
from kahuna.server.auth import Authenticator, LoginThrottle
from kahuna.server.broker import Broker, LocalBroker
from kahuna.server.cluster import Cluster
from kahuna.server.config import Settings
from kahuna.server.guard import BodyRefused, Guard, loggable_path
from kahuna.server.lobby import Lobby
from kahuna.server.ratelimit import LimiterFactory, Quotas, memory_limiter
from kahuna.server.service import DealProvider, GameService, Rejected
from kahuna.server.store import check_writable, open_engine
from kahuna.server.writer import Writer

if TYPE_CHECKING:
    from kahuna.server.jobs import Submitter
    from kahuna.server.redis_broker import RedisBroker

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
BOARD_JSON = Path(__file__).resolve().parent.parent / "rules" / "board.json"
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
    "/lobby",
    "/users/{username}",
    "/leaderboard",
)

_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


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
        await writer.write(lambda conn: challenges.ensure_level_bots(conn, bot_levels))
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
    quotas = Quotas(limits, limiters)
    app.include_router(account_api.router(auth, service, lobby.withdraw_all, quotas.signups))
    app.include_router(analysis.router(service, analyses))
    app.include_router(lobby_api.router(lobby))
    app.include_router(challenges.router(lobby))
    app.include_router(profiles.router(writer))
    app.include_router(hints.router(service, ai_pool, limits.hints_per_minute, limits.hints_burst, limiters))
    app.add_exception_handler(Rejected, api.rejected_response)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _server_error)

    @app.websocket("/ws/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        await lobby_api.lobby_socket(websocket, lobby)

    @app.websocket("/ws/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await ws.play(websocket, service, game_id, settings.max_frame, limits)

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
    app.add_middleware(Guard, max_body=settings.max_body, body_timeout=limits.body_timeout, quotas=quotas)
    return app


def _redis_broker(url: str) -> RedisBroker:
    """The broker of ``--broker`` (imported here: the Redis client is the ``redis`` extra)."""
    from kahuna.server.redis_broker import RedisBroker

    return RedisBroker(url)


def _job_submitter(url: str) -> Submitter:
    """AI moves queued for ``kahuna worker`` on the Redis of ``--broker`` (``kahuna.server.jobs``)."""
    from kahuna.server.jobs import JobQueue, Submitter

    return Submitter(JobQueue.from_url(url))


def _redis_limiters(broker: RedisBroker) -> LimiterFactory:
    from kahuna.server.redis_limits import redis_limiters

    factory: LimiterFactory = redis_limiters(broker.client)
    return factory


def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request", "type": ""}
    if first.get("type") == "json_invalid":
        return JSONResponse({"error": "bad_request", "message": "the body is not valid JSON"}, status_code=400)
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return JSONResponse({"error": "invalid", "message": message}, status_code=422)


def _server_error(request: Request, exc: Exception) -> JSONResponse:
    logs.event("server_error", path=loggable_path(request.url.path), error=type(exc).__name__)
    return JSONResponse({"error": "server_error", "message": "the server failed on this request"}, status_code=500)


def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    if isinstance(exc.__cause__, BodyRefused):
        refused = exc.__cause__
        return JSONResponse({"error": refused.code, "message": refused.message}, status_code=refused.status)
    code = _HTTP_CODES.get(exc.status_code, "error")
    return JSONResponse({"error": code, "message": str(exc.detail)}, status_code=exc.status_code)
