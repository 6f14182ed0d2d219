"""The FastAPI application: the one place that wires the server's rooms together.

``create_app`` opens the database, builds the game service with what the mode needs (the embedded
default: one process, nothing replicated, AI turns in a local pool; with ``--broker``: Redis
replication, shared rate limits and AI turns queued for ``kahuna worker``, unless ``--local-ai``),
the lobby and the analyses on top of it, and includes one router per area. Its lifespan starts them
in order and stops them in reverse.

The interactive API pages (Swagger UI) are not served: they load scripts from a CDN onto the
origin whose pages keep seat tokens. The OpenAPI description is at ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

from fastapi import FastAPI
from sqlalchemy import Connection

from kahuna.ai.levels import LEVELS
from kahuna.ai.review.analysis import Budget
from kahuna.server.accounts.store import games_players
from kahuna.server.cluster.broker import Broker, LocalBroker
from kahuna.server.cluster.presence import LocalShare, Presence, Share
from kahuna.server.common import logs
from kahuna.server.common.config import PushSettings, Settings
from kahuna.server.common.ratelimit import LimiterFactory, Quotas, counted, memory_limiter
from kahuna.server.community import bots
from kahuna.server.community.event_chat import EventChat
from kahuna.server.community.lobby import Lobby
from kahuna.server.community.tournaments import Tournaments
from kahuna.server.db import migrations
from kahuna.server.db.batched import BatchedReader
from kahuna.server.db.housekeeping import Ages, Housekeeping
from kahuna.server.db.store import check_writable, open_engine
from kahuna.server.db.writer import Writer
from kahuna.server.fairplay.figures import Thresholds
from kahuna.server.fairplay.screener import Screener
from kahuna.server.fairplay.verdict import ensure_reporter
from kahuna.server.games import ai_pool as ai_seats
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.ai_turns import LocalAiTurns
from kahuna.server.games.analysis import AnalysisJobs, AnalysisRunner, LocalAnalyses
from kahuna.server.games.factory import DealProvider
from kahuna.server.games.ports import AiTurns, Replication, SingleInstance
from kahuna.server.games.service import GameService
from kahuna.server.http import (
    accounts,
    analysis,
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
from kahuna.server.http.auth import Authenticator, LoginThrottle
from kahuna.server.http.draining import Drain
from kahuna.server.http.errors import add_error_handlers
from kahuna.server.http.guard import Guard
from kahuna.server.http.measured import Measured
from kahuna.server.http.pages import add_pages
from kahuna.server.mail.mailer import Budgets, Mailer
from kahuna.server.mail.reminders import Reminders, Timing
from kahuna.server.moderation.closing import Enforcement
from kahuna.server.moderation.service import Moderation, ReportBudgets
from kahuna.server.ops.readiness import NotReady, Readiness
from kahuna.server.push.service import WebPush
from kahuna.server.puzzles.service import Puzzles
from kahuna.server.wiring import end_hooks


async def _nothing_to_connect() -> None:
    return


@dataclass(frozen=True)
class Mode:
    """What differs between the embedded server and an instance of several (``--broker``)."""

    broker: Broker
    """Lobby events and, clustered, game changes between instances."""
    replication: Replication
    ai_turns: AiTurns
    limiters: LimiterFactory
    """Rate limits of this process, or shared by every instance in Redis."""
    analyses: AnalysisRunner
    """Where post-game analyses are computed: here, or by ``kahuna worker``."""
    connect: Callable[[], Awaitable[None]]
    """Reach the broker before any game is served."""
    resume: Callable[[GameService], Awaitable[int]]
    """What this instance takes on at start: every unfinished game, or only the clocks' deadlines."""
    sends_mail: bool
    """Whether this process sends the queued mail, or leaves it to ``kahuna worker --smtp``."""
    presence: Share
    """Where the instances' presence snapshots meet (who is online): this process, or Redis."""
    ping: Callable[[], Awaitable[None]] = _nothing_to_connect
    """Raise unless the broker answers now (``/readyz``); nothing to reach in one process."""


def _embedded(writer: Writer, ai_pool: AiPool, budget: Budget) -> Mode:
    """One process: nothing to replicate, AI turns in this process's pool, every game resumed here."""
    return Mode(
        LocalBroker(),
        SingleInstance(),
        LocalAiTurns(ai_pool),
        memory_limiter,
        LocalAnalyses(writer, ai_pool, budget),
        _nothing_to_connect,
        GameService.resume_all,
        sends_mail=True,
        presence=LocalShare(),
    )


def _clustered(settings: Settings, writer: Writer, ai_pool: AiPool, budget: Budget) -> Mode:
    """One instance of several sharing the database and Redis (imported here: the Redis client is
    the ``redis`` extra)."""
    from kahuna.server.cluster.ai_jobs import QueuedAiTurns
    from kahuna.server.cluster.analysis_jobs import QueuedAnalyses
    from kahuna.server.cluster.jobs import JobQueue, Submitter
    from kahuna.server.cluster.redis_broker import RedisBroker
    from kahuna.server.cluster.redis_limits import redis_limiters
    from kahuna.server.cluster.redis_presence import RedisShare
    from kahuna.server.cluster.replication import RedisReplication

    assert settings.broker_url is not None
    broker = RedisBroker(settings.broker_url)
    limiters: LimiterFactory = redis_limiters(broker.client)  # a client meets the same budgets on every instance
    replication = RedisReplication(broker, writer)
    share = RedisShare(broker.client, broker.instance, settings.db_url)

    async def ping() -> None:
        await broker.client.ping()

    if settings.local_ai:
        ai_turns: AiTurns = LocalAiTurns(ai_pool)
        local = LocalAnalyses(writer, ai_pool, budget)
        # no worker needed: this instance sends mail too
        resume_all = GameService.resume_all
        return Mode(broker, replication, ai_turns, limiters, local, broker.start, resume_all, True, share, ping)
    queue = JobQueue.from_url(settings.broker_url)
    ai_turns = QueuedAiTurns(Submitter(queue))
    queued = QueuedAnalyses(queue, budget)
    resume = GameService.watch_stored_deadlines
    # the workers send the mail
    return Mode(broker, replication, ai_turns, limiters, queued, broker.start, resume, False, share, ping)


def _readiness(writer: Writer, mode: Mode, ai_pool: AiPool, drain: Drain) -> Readiness:
    """What ``/readyz`` checks: the database answers at the newest schema, the broker answers, the
    AI pool is up, and the instance is not going away (a balancer that probes it stops sending
    players to an instance being replaced)."""

    def at_head(conn: Connection) -> None:
        revision, newest = migrations.current(conn), migrations.heads()
        if revision not in newest:
            raise NotReady(f"the database is at revision {revision}, not {' '.join(newest)}")

    async def database() -> None:
        await writer.read(at_head)

    async def ai() -> None:
        if not ai_pool.up:
            raise NotReady("the AI pool is not started")

    async def staying() -> None:
        if drain.draining:
            raise NotReady("the instance is going away")

    return Readiness({"database": database, "broker": mode.ping, "ai_pool": ai, "serving": staying})


def create_app(settings: Settings, deal_provider: DealProvider | None = None) -> FastAPI:
    """The server app. ``deal_provider`` is for tests only (games with chosen deals); HTTP cannot reach it."""
    database = open_engine(settings.db_url)
    check_writable(database)
    writer = Writer(database)
    ai_pool = AiPool(settings.ai_workers, settings.ai_long_workers)
    limits = settings.limits
    budget = Budget(iterations=limits.analysis_iterations)  # per decision and graph point, the same for every game
    if settings.broker_url is None:
        mode = _embedded(writer, ai_pool, budget)
    else:
        mode = _clustered(settings, writer, ai_pool, budget)
    mode = replace(mode, limiters=counted(mode.limiters))  # every budget's refusals in the metrics
    # with a broker, ``kahuna worker`` sends the queued pushes (unless this instance plays AI moves itself)
    push = WebPush(
        writer,
        settings.push or PushSettings(),
        limits,
        send=settings.broker_url is None or settings.local_ai,
    )
    service = GameService(
        writer,
        mode.replication,
        mode.ai_turns,
        end_hooks(),
        deal_provider,
        idle_game_seconds=limits.idle_game_seconds,
        clock_min_seconds=limits.clock_min_seconds,
        chat_lines_per_game=limits.chat_lines_per_game,
        spectator_chat_lines_per_game=limits.spectator_chat_lines_per_game,
        first_move_grace=limits.first_move_grace,
        notices=push.notices,
        left_claim_seconds=limits.left_claim_seconds,
    )
    upkeep = Housekeeping(
        writer,
        Ages(settings.archive_after_days, settings.guest_games_after_days),
        lambda: list(service.registry.games),  # the games in memory are left alone
    )
    analyses = AnalysisJobs(writer, mode.analyses, limits.analyses_per_hour, limits.analyses_burst, mode.limiters)
    the_lobby = Lobby(writer, service.factory, mode.broker, limits.clock_min_seconds, push.notices)
    presence = Presence(mode.presence)
    events = Tournaments(
        writer,
        service.factory,
        mode.broker,
        limits.clock_min_seconds,
        push.notices,
        per_account=limits.tournaments_per_account,
        upcoming_per_address=limits.upcoming_tournaments_per_address,
    )
    bot_levels = [level for level in LEVELS if ai_seats.available(level)]
    thresholds = Thresholds(
        limits.fair_play_window, limits.fair_play_match, limits.fair_play_z, limits.fair_play_min_games
    )
    screener = Screener(writer, ai_pool, thresholds, limits.fair_play_iterations)
    the_puzzles = Puzzles(
        writer, mode.limiters("puzzle_attempts", limits.puzzle_attempts_per_minute / 60, limits.puzzle_attempts_burst)
    )
    mailer = Mailer(
        writer,
        settings.mail,
        Budgets(
            mode.limiters("mail_address", limits.mails_per_address_per_hour / 3600, limits.mails_per_address_burst),
            mode.limiters("mail_account", limits.mails_per_account_per_hour / 3600, limits.mails_per_account_burst),
        ),
        limits.mail_retry_seconds,
        send_here=mode.sends_mail,
    )
    reminders = None
    if settings.mail is not None:
        reminders = Reminders(
            writer,
            settings.mail,
            Budgets(
                mode.limiters(
                    "notice_address",
                    limits.notice_mails_per_address_per_hour / 3600,
                    limits.notice_mails_per_address_burst,
                ),
                mode.limiters(
                    "notice_account",
                    limits.notice_mails_per_account_per_hour / 3600,
                    limits.notice_mails_per_account_burst,
                ),
            ),
            Timing.of(limits),
            service.registry.correspondence_seats,
            mailer.wake,
        )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        """Start the parts in order (each step safe when instances start at once on one database);
        stop them in reverse, also after a start-up that failed half-way."""
        try:
            writer.start()
            await mode.connect()  # Redis must answer before any game is served
            await ai_pool.warm_up()
            service.start()
            resumed = await mode.resume(service)
            await writer.write(lambda conn: bots.ensure_level_bots(conn, bot_levels))
            await writer.transact(ensure_reporter)
            the_lobby.start()
            events.start()  # resumes every running tournament: pairs what is due, starts unstarted boards
            mailer.start()  # sends what the queue held when the server stopped
            if reminders is not None:
                reminders.start()
            push.start()
            presence.start()
            upkeep.start()
            screener.start()
            logs.event("started", resumed_games=resumed, ai_workers=settings.ai_workers)
            yield
        finally:
            await screener.stop()
            await upkeep.stop()
            await presence.stop()
            await push.stop()
            if reminders is not None:
                await reminders.stop()
            await mailer.stop()
            await events.stop()
            await service.stop()
            await the_lobby.stop()
            await analyses.stop()
            ai_pool.close()
            await mode.broker.close()
            await writer.close()
            database.dispose()

    app = FastAPI(
        title="Kahuna server",
        description="Play Kahuna against the AI or a friend; the WebSocket protocol is in docs/protocol.md.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.broker = mode.broker
    auth = app.state.auth = Authenticator(
        writer,
        LoginThrottle(
            mode.limiters("login_failures", limits.login_failures_per_hour / 3600, limits.login_failures_burst),
            mode.limiters(
                "client_login_failures",
                limits.client_login_failures_per_hour / 3600,
                limits.client_login_failures_burst,
            ),
        ),
    )
    quotas = Quotas(limits, mode.limiters)
    # The sockets first: a route is found by trying each in turn, and a thousand players connecting
    # at once each paid for trying every HTTP router before the game's socket (180 µs a connection).
    drain = app.state.drain = Drain()  # the WebSockets, closed going away when told to stop (serve.py)
    app.include_router(health.router(_readiness(writer, mode, ai_pool, drain)))
    app.include_router(lobby_socket.router(the_lobby, presence, drain))  # /ws/lobby before /ws/{game_id}
    chat_budget = mode.limiters("chat", limits.chat_per_minute / 60, limits.chat_burst)
    players = BatchedReader(writer, games_players, dict)  # every hello asks for its seat's account
    report_budgets = ReportBudgets(
        mode.limiters("reports_account", limits.reports_per_account_per_hour / 3600, limits.reports_per_account_burst),
        mode.limiters("reports_address", limits.reports_per_address_per_hour / 3600, limits.reports_per_address_burst),
    )
    moderators = Moderation(writer, report_budgets, service, Enforcement(service, the_lobby.withdraw_all, mode.broker))
    app.include_router(
        game_socket.router(service, settings.max_frame, limits, chat_budget, presence, players, drain, moderators)
    )
    app.include_router(live_games.router(writer))  # /api/games/live before /api/games/{game_id}
    app.include_router(games.router(service))
    app.include_router(game_ratings.router(writer))
    app.include_router(accounts.router(auth, service, the_lobby.withdraw_all, quotas.signups))
    app.include_router(mail_api.router(mailer))
    app.include_router(notifications.router(writer, ["push"] if settings.mail is None else ["mail", "push"]))
    app.include_router(push_api.router(push))
    app.include_router(analysis.router(service, analyses))
    app.include_router(lobby.router(the_lobby))
    app.include_router(challenges.router(the_lobby))
    app.include_router(tournaments.router(events))
    app.include_router(event_chat.router(EventChat(writer, mode.broker, chat_budget, moderators)))
    app.include_router(profiles.router(writer, presence))
    app.include_router(relations.router(writer, presence, limits))
    app.include_router(moderation.router(moderators))
    app.include_router(puzzles_api.router(the_puzzles))
    app.include_router(renames.router(moderators))
    app.include_router(hints.router(service, ai_pool, limits.hints_per_minute, limits.hints_burst, mode.limiters))
    add_error_handlers(app)
    add_pages(app)
    app.add_middleware(Guard, max_body=settings.max_body, body_timeout=limits.body_timeout, quotas=quotas)
    app.add_middleware(Measured)  # outermost: the Guard's refusals are counted too
    return app
