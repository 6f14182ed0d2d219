"""Where the server keeps its data, how it is configured, and the limits that bound each client."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kahuna.clock import MIN_INITIAL
from kahuna.datadir import data_dir


def default_db_url() -> str:
    """The embedded SQLite database under :func:`kahuna.datadir.data_dir`, the directory the
    terminal game saves in too (created if needed)."""
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'kahuna.db'}"


@dataclass(frozen=True)
class Limits:
    """What one client (one IP address, or one connection) may cost the server.

    Every field can be set with ``kahuna serve --limit NAME=VALUE``; docs/server.md lists them with
    the reasons for their defaults. Rates are token buckets: ``*_burst`` requests at once, then
    ``*_per_minute`` (or ``*_per_second``) on average.
    """

    games_per_minute: float = 20
    games_burst: int = 60
    """Game creation per IP address (an honest player creates a few games an hour)."""
    joins_per_minute: float = 30
    joins_burst: int = 30
    """Invite redemptions per IP address (wrong invites included)."""
    reads_per_second: float = 20
    reads_burst: int = 100
    """Other API requests per IP address (summaries, my games, records, replays)."""
    replays_per_minute: float = 60
    replays_burst: int = 20
    """Replays and full records per IP address: the biggest answers."""
    messages_per_second: float = 50
    messages_burst: int = 200
    """WebSocket messages per connection (a browser sends one per click and a ping every 25 s; bots
    and tests play faster)."""
    max_connections: int = 2000
    """Open TCP connections in all (HTTP and WebSocket); more are closed at once."""
    max_connections_per_ip: int = 100
    """Open TCP connections per IP address."""
    header_timeout: float = 10.0
    """Seconds a client has to send a request's headers (silent or trickling connections are closed)."""
    body_timeout: float = 10.0
    """Seconds a client has to send a request's body once its headers are in."""
    hello_timeout: float = 10.0
    """Seconds a WebSocket has to send its first ``hello``."""
    ws_idle_timeout: float = 120.0
    """Seconds a WebSocket may stay silent (the browser pings every 25 s)."""
    idle_game_seconds: float = 300.0
    """A game nobody has used for this long (no connection, no AI turn) leaves memory; it is
    loaded from the database again when asked for."""
    left_claim_seconds: float = 30.0
    """Seconds a player of a real-time game must have had no connection before the opponent may
    claim the win or call it a draw (``claim_victory``, ``claim_draw``; lichess waits about as long)."""
    clock_min_seconds: int = MIN_INITIAL
    """The smallest real-time clock a game may be created with (``kahuna.clock.MIN_INITIAL``):
    every AI level finishes a game on it without running out (``kahuna/ai/timed.py``)."""
    first_move_grace: float = 30.0
    """Seconds a new real-time game's clock waits for both players to be there before it starts
    anyway (lichess gives 30 s for a first move in most time controls): a player taken to a
    rematch, paired in the lobby or joining by invite loses no time loading the page, and one who
    never comes holds the clock up no longer than this. Hot-seat, the tutorial, untimed and
    correspondence games do not wait (``games/factory.py``)."""
    chat_per_minute: float = 10
    chat_burst: int = 5
    """Chat lines per sender and game (a flood is refused with ``rate_limited``). The sender is a
    seat (all its connections together) or a spectator: its account if it signed in, else its
    address; so reconnecting never refills the budget."""
    chat_lines_per_game: int = 500
    """Chat lines the players' room of a game keeps; more are refused (``chat_full``)."""
    spectator_chat_lines_per_game: int = 200
    """Chat lines the spectators' room of a game keeps; more are refused (``chat_full``). The
    players' room has its own budget, so spectators can never silence the players."""
    puzzle_attempts_per_minute: float = 30
    puzzle_attempts_burst: int = 20
    """Puzzle answers per IP address (each one replays the accepted turns through the referee; the
    browser asks after every action of a turn): docs/puzzles.md."""
    analyses_per_hour: float = 6
    analyses_burst: int = 3
    """Post-game analyses started per IP address (each costs a worker tens of seconds; a cached
    one is free): docs/analysis.md."""
    analysis_iterations: int = 300
    """Search iterations per decision and per graph point of a post-game analysis (the same for
    every game, so that the analyses of two games compare)."""
    hints_per_minute: float = 10
    hints_burst: int = 5
    """Hints per IP address (each is an expert's search in a worker): docs/analysis.md."""
    signups_per_hour: float = 10
    signups_burst: int = 5
    """Accounts created per IP address (refused sign-ups do not count): docs/accounts.md."""
    logins_per_minute: float = 30
    logins_burst: int = 20
    """Requests per IP address that check, judge or hash a password, right or wrong: sign-up,
    sign-in, password change, deleting the account, making a token (never signing out)."""
    login_failures_per_hour: float = 12
    login_failures_burst: int = 5
    """Password checks per account (by username), taken before the check and given back when the
    password is right: then ``429`` with ``Retry-After``."""
    client_login_failures_per_hour: float = 60
    client_login_failures_burst: int = 20
    """Password checks per IP address, whatever the username, as per account."""

    mails_per_address_per_hour: float = 6
    mails_per_address_burst: int = 3
    """Mails to one mailbox (``mail/addresses.py::mailbox_key``) asked for by one party: verification
    mails by one account, reset mails by one client address; more are not sent (docs/accounts.md,
    *E-mail*). Kept per asking party so that nobody spends another's budget or can read it."""
    mails_per_account_per_hour: float = 10
    mails_per_account_burst: int = 5
    """Verification mails one account asks for, whatever the address."""
    notice_mails_per_address_per_hour: float = 12
    notice_mails_per_address_burst: int = 6
    """Notification mails (turn, deadline, challenge, tournament) to one address: more are dropped,
    not delayed (docs/accounts.md, *Notifications*). Apart from the budgets above, so that
    notifications never use up a password reset."""
    notice_mails_per_account_per_hour: float = 12
    notice_mails_per_account_burst: int = 6
    """Notification mails for one account, whatever the address."""
    your_turn_after_seconds: float = 3600
    """A correspondence player is mailed that it is their turn once the turn is this old and their
    seat has had no connection for as long."""
    deadline_warning_seconds: float = 86400
    """A correspondence player is warned when less than this is left of their turn (and half of it
    has passed)."""
    tournament_notice_seconds: float = 900
    """A tournament's players are mailed this long before it starts."""
    notice_scan_seconds: float = 30
    """Seconds between two looks for notifications that are due (each instance)."""
    notices_per_scan: int = 200
    """Notifications of each kind one look decides at most (the rest wait for the next)."""
    mail_retry_seconds: float = 30
    """The wait before the second attempt at a mail the mail server did not take; doubled after each
    failure, up to an hour."""
    push_devices_per_account: int = 10
    """Devices (browsers) one account may subscribe for Web Push; one more is refused
    (``422 too_many_devices``) until one is removed (docs/accounts.md, *Notifications*)."""
    push_clock_low_fraction: float = 0.2
    push_clock_low_min_seconds: float = 120
    """A player away from a game whose clock runs gets a push (``deadline``) when the time left for
    the turn falls to this fraction of what it was when the turn began; turns that began with less
    than ``push_clock_low_min_seconds`` get none (in a fast game the player is at the board)."""
    push_retry_seconds: float = 30
    """The wait before the second attempt at a push the push service did not take; doubled after
    each failure, up to an hour."""
    pushes_per_account_per_hour: int = 20
    """Notices pushed to one account in an hour, whatever caused them (a challenge-and-cancel loop
    included); more are dropped (``push_over_budget`` in the log)."""

    follows_per_account: int = 500
    """Accounts one account may follow (``too_many_follows`` beyond): docs/community.md."""
    blocks_per_account: int = 1000
    """Accounts one account may block (``too_many_blocks`` beyond)."""
    reports_per_account_per_hour: float = 10
    reports_per_account_burst: int = 5
    """Reports one account may make (``429 rate_limited`` beyond): docs/moderation.md."""
    reports_per_address_per_hour: float = 20
    reports_per_address_burst: int = 10
    """Reports made from one IP address, whatever the accounts."""
    fair_play_window: int = 40
    """A player's last screened rated games its fair-play figures add up: docs/fair-play.md."""
    fair_play_match: float = 0.38
    """The lower end of a player's match rate (its decisions that were the AI's first choice) at
    which an automatic ``cheating`` report is filed: calibrated in docs/fair-play.md."""
    fair_play_z: float = 3.0
    """Standard errors of the match rate's interval (the lower end is what is compared)."""
    fair_play_min_games: int = 3
    """Screened rated games before a player may be reported at all."""
    fair_play_iterations: int = 400
    """The judge's search iterations per decision of a screened game (its CPU per game)."""
    tournaments_per_account: int = 3
    """Tournaments one account may have created and not yet finished (``too_many_tournaments``)."""
    upcoming_tournaments_per_address: int = 6
    """Tournaments created from one IP address that have not started (``too_many_tournaments``):
    17 accounts from 4 addresses filled the 50 listed upcoming events before (issue 45)."""

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def replace(self, assignments: list[str]) -> Limits:
        """These limits with ``NAME=VALUE`` assignments applied; ``ValueError`` names a bad one."""
        types = {f.name: f.type for f in dataclasses.fields(self)}
        changes: dict[str, float | int] = {}
        for assignment in assignments:
            name, sep, text = assignment.partition("=")
            if not sep or name not in types:
                raise ValueError(f"unknown limit {name!r} (limits: {', '.join(types)})")
            try:
                value: float | int = int(text) if types[name] == "int" else float(text)
            except ValueError:
                raise ValueError(f"limit {name} needs a number, not {text!r}") from None
            if value <= 0:
                raise ValueError(f"limit {name} must be positive")
            changes[name] = value
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Settings:
    """What ``create_app`` needs; ``kahuna serve`` fills it from the command line."""

    db_url: str
    ai_workers: int = 1
    ai_long_workers: int = 1
    """Processes of the AI pool's long lane: the moves of levels that think by time (``grandmaster``),
    each on every core (``games/ai_pool.py``, docs/scaling.md)."""
    broker_url: str | None = None
    """``redis://HOST:PORT/N``: the broker that joins this instance to the others serving the same
    database (``kahuna.server.cluster.replication``); ``None``: one process, in-process messaging."""
    local_ai: bool = False
    """With a broker: compute AI moves in this instance's own pool anyway, rather than queue them for
    ``kahuna worker`` processes (``kahuna.server.cluster.jobs``)."""
    max_body: int = 64 * 1024
    """Largest HTTP request body accepted (bytes)."""
    max_frame: int = 4 * 1024
    """Largest WebSocket text frame answered normally (bytes); bigger ones get a ``malformed`` error."""
    limits: Limits = field(default_factory=Limits)
    mail: MailSettings | None = None
    """How to send mail (``--smtp``); ``None``: e-mail is off."""
    push: PushSettings | None = None
    """Web Push (``--vapid-key``, ``--vapid-subject``); ``None``: the key in the data directory, made
    on first start."""
    archive_after_days: float = 30.0
    """``--archive-after``: a finished game's action rows are folded into its archive record this
    many days after it ended (``db/archive.py``); 0: never."""
    guest_games_after_days: float = 7.0
    """``--delete-guest-games-after``: a guest's aborted or abandoned game is deleted this many days
    after it was last touched (``db/guests.py``); 0: never."""


@dataclass(frozen=True)
class MailSettings:
    """The mail server and how the server's mails look (``kahuna serve --smtp``)."""

    host: str
    port: int
    security: str
    """``plain``, ``starttls`` (required: no mail goes out if the server does not offer it) or ``tls``."""
    username: str | None
    password: str | None
    mail_from: str
    public_url: str
    """The address the links in mails start with (``https://kahuna.example``), never taken from a
    request's ``Host`` header (which anyone can set)."""


@dataclass(frozen=True)
class PushSettings:
    """Web Push (``kahuna serve --vapid-key``): the server's key and which endpoints it pushes to."""

    key_path: str | None = None
    """The VAPID private key (PEM); ``None``: ``vapid.pem`` in the data directory, made if missing."""
    subject: str = "mailto:admin@localhost"
    """How a push service reaches the server's operator (``mailto:`` or ``https:``), in every push."""
    insecure_hosts: tuple[str, ...] = ()
    """Hosts whose ``http://`` endpoints are accepted (tests: a push service on 127.0.0.1). Every
    other endpoint must be ``https://`` on a public host name (``push/subscriptions.py``)."""
