"""What each kind of process builds from the rooms below, and the order its parts start and stop.

Three modes, one function each:

- :func:`server` with no broker, the embedded ``kahuna serve``: one process, nothing replicated,
  AI turns and analyses in its own pool, every unfinished game resumed here, mail and pushes sent
  here;
- :func:`server` with ``--broker``, one instance of several: Redis replication, presence and rate
  limits, AI turns and analyses queued for ``kahuna worker`` (unless ``--local-ai``), only the
  clocks' deadlines watched at start; the workers send the mail and the pushes;
- :func:`worker`, ``kahuna worker``: the same game engine (``wiring.end_hooks``), which announces
  what it stores and queues the next AI move itself, the job loop, and the senders of mail and
  pushes.

Every part that runs is started on one ``AsyncExitStack`` (:func:`_part`): its stop is put on the
stack before its start runs, so the parts stop in the reverse order of their starts, also when a
start fails half-way (what had begun is stopped, the writer last). ``app.py`` mounts the routers on
what :func:`server` built (the HTTP layer's own parts, sign-in and the socket drain, are its);
``run_worker.py`` runs :func:`worker`'s loop. Nothing here speaks HTTP.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from kahuna.ai.levels import LEVELS
from kahuna.ai.review.analysis import Budget
from kahuna.server.accounts.service import Accounts
from kahuna.server.accounts.throttle import LoginThrottle
from kahuna.server.cluster.ai_jobs import NextQueuedByWorker
from kahuna.server.cluster.broker import Broker, LocalBroker
from kahuna.server.cluster.jobs import CLAIM_AFTER, RETRY_FIRST, RETRY_MOST, JobQueue
from kahuna.server.cluster.presence import LocalShare, Presence, Share
from kahuna.server.cluster.replication import Announcer
from kahuna.server.cluster.worker import Worker, sleep_unless
from kahuna.server.common import logs
from kahuna.server.common.config import Limits, MailSettings, PushSettings, Settings
from kahuna.server.common.outbox import LeftQueued, Outbox
from kahuna.server.common.ratelimit import Limiter, LimiterFactory, Quotas, counted, memory_limiter
from kahuna.server.community import bots
from kahuna.server.community.event_chat import EventChat
from kahuna.server.community.game_ratings import GameRatingService
from kahuna.server.community.live_games import LiveList
from kahuna.server.community.lobby import Lobby
from kahuna.server.community.players import Players
from kahuna.server.community.social import Social
from kahuna.server.community.tournaments import Tournaments
from kahuna.server.db import migrations
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
from kahuna.server.games.deadlines import Deadlines
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.factory import DealProvider
from kahuna.server.games.ports import AiTurns, Replication, SingleInstance
from kahuna.server.games.service import GameService
from kahuna.server.mail.channel import MailChannel
from kahuna.server.mail.mailer import Budgets, Mailer
from kahuna.server.mail.notification_settings import NotificationSettings
from kahuna.server.mail.reminders import ConnectedSeats, Timing
from kahuna.server.mail.sender import WORKER_POLL_SECONDS as MAIL_POLL_SECONDS
from kahuna.server.mail.sender import MailSender
from kahuna.server.moderation.closing import Enforcement
from kahuna.server.moderation.service import Moderation, ReportBudgets
from kahuna.server.moderation.standing import ModeratedStanding
from kahuna.server.notify.notifier import Channel, Notifier
from kahuna.server.ops.readiness import Check, NotReady
from kahuna.server.push.channel import AccountSettings, PushChannel
from kahuna.server.push.sender import WORKER_POLL_SECONDS as PUSH_POLL_SECONDS
from kahuna.server.push.sender import PushSender
from kahuna.server.push.service import WebPush
from kahuna.server.push.vapid import VapidKey
from kahuna.server.puzzles.service import Puzzles
from kahuna.server.wiring import end_hooks

if TYPE_CHECKING:  # the Redis client is the ``redis`` extra: imported where an instance or a worker needs it
    from kahuna.server.cluster.redis_broker import RedisBroker


async def _call(fn: Callable[[], object]) -> None:
    """Call ``fn``, and await what it returns if it is awaitable (parts start and stop either way)."""
    result = fn()
    if inspect.isawaitable(result):
        await result


async def _part(stack: AsyncExitStack, start: Callable[[], object], stop: Callable[[], object]) -> None:
    """Start a part with its stop on ``stack`` first: it is stopped in the reverse order of the
    starts, also when its own start or a later one fails (every part's stop is safe unstarted)."""
    stack.push_async_callback(_call, stop)
    await _call(start)


async def _nothing() -> None:
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
    sends: bool
    """Whether this process sends the queued mail and pushes, or leaves them to ``kahuna worker``."""
    presence: Share
    """Where the instances' presence snapshots meet (who is online): this process, or Redis."""
    ping: Callable[[], Awaitable[None]] = _nothing
    """Raise unless the broker answers now (``/readyz``); nothing to reach in one process."""


def _embedded(writer: Writer, ai_pool: AiPool, budget: Budget) -> Mode:
    """One process: nothing to replicate, AI turns in this process's pool, every game resumed here."""
    return Mode(
        LocalBroker(),
        SingleInstance(),
        LocalAiTurns(ai_pool),
        memory_limiter,
        LocalAnalyses(writer, ai_pool, budget),
        _nothing,
        GameService.resume_all,
        sends=True,
        presence=LocalShare(),
    )


def _instance(settings: Settings, writer: Writer, ai_pool: AiPool, budget: Budget) -> Mode:
    """One instance of several sharing the database and Redis (imported here: the Redis client is
    the ``redis`` extra)."""
    from kahuna.server.cluster.ai_jobs import QueuedAiTurns
    from kahuna.server.cluster.analysis_jobs import QueuedAnalyses
    from kahuna.server.cluster.jobs import Submitter
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

    if settings.local_ai:  # no worker needed: this instance plays the AI and sends mail and pushes too
        local = LocalAnalyses(writer, ai_pool, budget)
        resume_all = GameService.resume_all
        return Mode(
            broker, replication, LocalAiTurns(ai_pool), limiters, local, broker.start, resume_all, True, share, ping
        )
    queue = JobQueue.from_url(settings.broker_url)
    queued, resume = QueuedAnalyses(queue, budget), GameService.watch_stored_deadlines
    ai_turns = QueuedAiTurns(Submitter(queue))
    return Mode(broker, replication, ai_turns, limiters, queued, broker.start, resume, False, share, ping)


@dataclass(frozen=True)
class Server:
    """What ``kahuna serve`` built: the services its routers are given, and its life."""

    settings: Settings
    limiters: LimiterFactory
    """Rate limits (in this process, or shared in Redis), every refusal counted in the metrics."""
    quotas: Quotas
    chat_budget: Limiter
    """Chat lines per sender, in games and tournaments alike."""
    service: GameService
    ai_pool: AiPool
    analyses: AnalysisJobs
    lobby: Lobby
    presence: Presence
    events: Tournaments
    event_chat: EventChat
    mailer: Mailer
    notification_settings: NotificationSettings
    push: WebPush
    moderation: Moderation
    accounts: Accounts
    players: Players
    social: Social
    live: LiveList
    game_ratings: GameRatingService
    puzzles: Puzzles
    checks: dict[str, Check]
    """What ``/readyz`` checks of the parts (the HTTP layer adds whether it is going away)."""
    running: Callable[[], AbstractAsyncContextManager[None]] = field(repr=False)
    """Start every part in order; on leaving, stop them in reverse (the app's lifespan)."""


def server(settings: Settings, deal_provider: DealProvider | None = None) -> Server:
    """``kahuna serve``, embedded or one instance of several (``settings.broker_url``).
    ``deal_provider`` is for tests only (games with chosen deals)."""
    database = open_engine(settings.db_url)
    check_writable(database)
    writer = Writer(database)
    ai_pool = AiPool(settings.ai_workers, settings.ai_long_workers)
    limits = settings.limits
    budget = Budget(iterations=limits.analysis_iterations)  # per decision and graph point, the same for every game
    mode = (
        _embedded(writer, ai_pool, budget)
        if settings.broker_url is None
        else _instance(settings, writer, ai_pool, budget)
    )
    limiters = counted(mode.limiters)  # every budget's refusals in the metrics
    push_settings = settings.push or PushSettings()
    key = VapidKey.of(push_settings)
    push_out: Outbox = (
        PushSender(writer, key, limits.push_retry_seconds, insecure_hosts=push_settings.insecure_hosts)
        if mode.sends
        else LeftQueued()
    )
    mail_out: Outbox = (
        MailSender(writer, settings.mail, limits.mail_retry_seconds)
        if mode.sends and settings.mail is not None
        else LeftQueued()
    )
    pushes = PushChannel(writer, AccountSettings(writer), push_out, limits.pushes_per_account_per_hour)
    channels: list[Channel] = [pushes]
    if settings.mail is not None:  # the service is built below: its seats are asked when the scan runs

        def connected() -> list[tuple[str, int]]:
            return service.registry.correspondence_seats()

        channels.append(_mail_channel(writer, settings.mail, limits, limiters, mail_out, connected))
    notifier = Notifier(writer, channels, limits.push_clock_low_fraction, limits.push_clock_low_min_seconds)
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
        notices=notifier,
        left_claim_seconds=limits.left_claim_seconds,
    )
    upkeep = Housekeeping(
        writer,
        Ages(settings.archive_after_days, settings.guest_games_after_days),
        lambda: list(service.registry.games),  # the games in memory are left alone
    )
    analyses = AnalysisJobs(writer, mode.analyses, limits.analyses_per_hour, limits.analyses_burst, limiters)
    lobby = Lobby(writer, service.factory, mode.broker, limits.clock_min_seconds, notifier)
    presence = Presence(mode.presence)
    events = Tournaments(
        writer,
        service.factory,
        mode.broker,
        limits.clock_min_seconds,
        notifier,
        per_account=limits.tournaments_per_account,
        upcoming_per_address=limits.upcoming_tournaments_per_address,
    )
    thresholds = Thresholds(
        limits.fair_play_window, limits.fair_play_match, limits.fair_play_z, limits.fair_play_min_games
    )
    screener = Screener(writer, ai_pool, thresholds, limits.fair_play_iterations)
    mailer = Mailer(
        writer,
        settings.mail,
        Budgets(
            limiters("mail_address", limits.mails_per_address_per_hour / 3600, limits.mails_per_address_burst),
            limiters("mail_account", limits.mails_per_account_per_hour / 3600, limits.mails_per_account_burst),
        ),
        mail_out,
    )
    quotas = Quotas(limits, limiters)
    chat_budget = limiters("chat", limits.chat_per_minute / 60, limits.chat_burst)
    report_budgets = ReportBudgets(
        limiters("reports_account", limits.reports_per_account_per_hour / 3600, limits.reports_per_account_burst),
        limiters("reports_address", limits.reports_per_address_per_hour / 3600, limits.reports_per_address_burst),
    )
    moderation = Moderation(writer, report_budgets, service, Enforcement(service, lobby.withdraw_all, mode.broker))
    throttle = LoginThrottle(
        limiters("login_failures", limits.login_failures_per_hour / 3600, limits.login_failures_burst),
        limiters(
            "client_login_failures", limits.client_login_failures_per_hour / 3600, limits.client_login_failures_burst
        ),
    )
    bot_levels = [level for level in LEVELS if ai_seats.available(level)]

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        """Each step safe when instances start at once on one database."""
        async with AsyncExitStack() as stack:
            await _part(stack, _nothing, database.dispose)
            await _part(stack, writer.start, writer.close)
            await _part(stack, mode.connect, mode.broker.close)  # Redis must answer before any game is served
            await _part(stack, ai_pool.warm_up, ai_pool.close)
            await _part(stack, _nothing, analyses.stop)
            await _part(stack, service.start, service.stop)
            resumed = await mode.resume(service)
            await writer.write(lambda conn: bots.ensure_level_bots(conn, bot_levels))
            await writer.transact(ensure_reporter)
            await _part(stack, lobby.start, lobby.stop)
            await _part(stack, events.start, events.stop)  # resumes every running tournament
            await _part(stack, mail_out.start, mail_out.stop)  # sends what the queue held when the server stopped
            await _part(stack, _nothing, mailer.stop)
            await _part(stack, push_out.start, push_out.stop)
            await _part(stack, notifier.start, notifier.stop)  # stops before the outboxes
            await _part(stack, presence.start, presence.stop)
            await _part(stack, upkeep.start, upkeep.stop)
            await _part(stack, screener.start, screener.stop)
            logs.event("started", resumed_games=resumed, ai_workers=settings.ai_workers)
            yield

    return Server(
        settings,
        limiters,
        quotas,
        chat_budget,
        service,
        ai_pool,
        analyses,
        lobby,
        presence,
        events,
        EventChat(writer, mode.broker, chat_budget, moderation),
        mailer,
        NotificationSettings(writer, ["push"] if settings.mail is None else ["mail", "push"]),
        WebPush(writer, push_settings, limits, key),
        moderation,
        Accounts(writer, throttle, ModeratedStanding(), quotas.signups),
        Players(writer, presence),
        Social(writer, presence, limits.follows_per_account, limits.blocks_per_account),
        LiveList(writer),
        GameRatingService(writer),
        Puzzles(
            writer, limiters("puzzle_attempts", limits.puzzle_attempts_per_minute / 60, limits.puzzle_attempts_burst)
        ),
        _checks(writer, mode, ai_pool),
        running,
    )


def _mail_channel(
    writer: Writer,
    mail: MailSettings,
    limits: Limits,
    limiters: LimiterFactory,
    outbox: Outbox,
    connected: ConnectedSeats,
) -> MailChannel:
    """The notifier's mail channel (with ``--smtp``), with the notices' own budgets and the scan of
    what is due after a while."""
    budgets = Budgets(
        limiters(
            "notice_address", limits.notice_mails_per_address_per_hour / 3600, limits.notice_mails_per_address_burst
        ),
        limiters(
            "notice_account", limits.notice_mails_per_account_per_hour / 3600, limits.notice_mails_per_account_burst
        ),
    )
    return MailChannel(writer, mail, budgets, outbox, Timing.of(limits), connected)


def _checks(writer: Writer, mode: Mode, ai_pool: AiPool) -> dict[str, Check]:
    """What ``/readyz`` checks of the parts: the database answers at the newest schema, the broker
    answers, the AI pool is up."""

    def at_head(conn: Connection) -> None:
        revision, newest = migrations.current(conn), migrations.heads()
        if revision not in newest:
            raise NotReady(f"the database is at revision {revision}, not {' '.join(newest)}")

    async def database() -> None:
        await writer.read(at_head)

    async def ai() -> None:
        if not ai_pool.up:
            raise NotReady("the AI pool is not started")

    return {"database": database, "broker": mode.ping, "ai_pool": ai}


# ---------------------------------------------------------------------------- kahuna worker


@dataclass(frozen=True)
class WorkerSettings:
    db_url: str
    broker_url: str
    consumer: str
    jobs: int = 1
    claim_after: float = CLAIM_AFTER
    mail: MailSettings | None = None
    """The mail server this worker sends the queued mail through (``None``: it sends none)."""
    mail_retry: float = Limits.mail_retry_seconds
    push: PushSettings = field(default_factory=PushSettings)
    """The Web Push key and subject: the worker sends the pushes the instances queue."""


async def worker(settings: WorkerSettings, stop: asyncio.Event) -> None:
    """``kahuna worker``: play the queued jobs until ``stop`` is set (a job being played then is
    finished first), sending the queued mail (with ``--smtp``) and pushes meanwhile. It queues no
    your-turn push itself: it does not know who is connected; the instances that hold the game hear
    of its move and decide."""
    from kahuna.server.cluster.redis_broker import RedisBroker

    database = open_engine(settings.db_url)
    writer = Writer(database)
    pool = AiPool(settings.jobs)
    queue = JobQueue.from_url(settings.broker_url, claim_after=settings.claim_after)
    broker = RedisBroker(settings.broker_url)
    engine = GameEngine(writer, Announcer(broker), NextQueuedByWorker(), end_hooks(), Deadlines())
    key = VapidKey.of(settings.push)
    pushes = PushSender(
        writer, key, Limits().push_retry_seconds, PUSH_POLL_SECONDS, insecure_hosts=settings.push.insecure_hosts
    )
    mails: Outbox = (
        LeftQueued()
        if settings.mail is None
        else MailSender(writer, settings.mail, settings.mail_retry, poll_seconds=MAIL_POLL_SECONDS)
    )
    async with AsyncExitStack() as stack:
        stack.callback(logs.event, "worker_stopped", consumer=settings.consumer)
        await _part(stack, _nothing, database.dispose)
        await _part(stack, writer.start, writer.close)
        await _part(stack, _nothing, queue.close)
        await _part(stack, pushes.start, pushes.stop)  # the instances queue pushes; the workers send them
        await _part(stack, lambda: _start_broker(broker, stop), broker.close)
        await _part(stack, pool.warm_up, pool.close)
        await _part(stack, mails.start, mails.stop)
        print(f"Kahuna worker {settings.consumer}: {settings.jobs} job(s) at once", flush=True)
        logs.event("worker_started", consumer=settings.consumer, jobs=settings.jobs)
        await Worker(engine, pool, queue, settings.consumer, settings.jobs).run(stop)


async def _start_broker(broker: RedisBroker, stop: asyncio.Event) -> None:
    """Start the broker as soon as Redis answers (a worker may start before it)."""
    from redis.exceptions import RedisError

    pause = RETRY_FIRST
    while not stop.is_set():
        try:
            await broker.start()
            return
        except (RedisError, OSError) as exc:
            logs.event("worker_redis_error", error=type(exc).__name__)
            await sleep_unless(stop, pause)
            pause = min(2 * pause, RETRY_MOST)
