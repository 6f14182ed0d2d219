"""Every table of the server's database, in one place: the schema that the migrations create.

SQLAlchemy Core tables on one :data:`metadata`, grouped by the room that writes them: the games'
records (the store), accounts, and the community (offers and ratings). A module that reads or
writes a table imports it from here; the migrations in ``db/migrations/versions`` create and change
them (``tests/server/test_migrations.py`` checks that the two agree), so a schema change is a new
revision plus its edit here.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

metadata = MetaData()

MAX_USER_AGENT = 200
"""Characters of a browser's ``User-Agent`` kept with its session."""

# ------------------------------------------------------------------ games: each game's record


games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", String(32), nullable=False),
    Column("updated", String(32), nullable=False),
    Column("variant", Text, nullable=False),
    Column("deal", String(24), nullable=False),
    Column("kind0", String(32), nullable=False),
    Column("kind1", String(32), nullable=False),
    Column("name0", String(64)),
    Column("name1", String(64)),
    Column("invite", String(64), index=True),
    Column("status", String(16), nullable=False, index=True),
    Column("result", Text),
    Column("unlisted", Boolean, nullable=False, server_default=false()),
    Column("owner", String(80)),
)
"""One row per game; ``invite`` is the digest of the invite code (human games only). ``updated``
and ``status`` are written when a player joins and when the game ends, not on every action (the
last action's time is the game's time). ``unlisted``: kept off the live list and the Watch page
(``community/live_games.py``). ``owner``: whose turn the game's AI moves take in the AI pool
(``games/ai_pool.py``: the digest of the creating address, a tournament's creator), kept so that a
game rebuilt after a restart still counts against whoever made it; ``NULL``: the game itself."""


seats = Table(
    "seats",
    metadata,
    Column("token", String(64), primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("account_id", Integer, index=True),
)
"""The digest of each seat token, for ``my-games`` and for binding a token to its seat; the id of
the account the seat belongs to (``accounts.id``, see ``accounts/store.py``), if any."""


actions = Table(
    "actions",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("token", String(16), nullable=False),
    Column("at", String(32), nullable=False),
)


reshuffles = Table(
    "reshuffles",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("cards", String(24), nullable=False),
)


clocks = Table(
    "clocks",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("control", Text, nullable=False),
    Column("remaining0", Float, nullable=False),
    Column("remaining1", Float, nullable=False),
    Column("running", Integer),
    Column("since", Float),
    Column("starts_by", Float),
)
"""The clock of a timed game (``kahuna.clock.Clock``), rewritten with every action that ends a turn
or the game: the deadline ``since + remaining[running]`` (seconds since the epoch) survives a restart,
and so does ``starts_by``, when a clock still waiting for its players starts at the latest."""


chat = Table(
    "chat",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("room", String(16), nullable=False),
    Column("seat", Integer),
    Column("text", Text, nullable=False),
    Column("at", String(32), nullable=False),
)
"""Chat lines of a game: ``room`` ``players`` (the two seats) or ``spectators``."""


rematches = Table(
    "rematches",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("new_game_id", String(32), ForeignKey("games.id"), nullable=False, unique=True),
)
"""A finished game and the rematch its players agreed on (same settings, seats swapped)."""


analyses = Table(
    "analyses",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("result", Text, nullable=False),
    Column("at", String(32), nullable=False),
)
"""The post-game analysis of a finished game (``kahuna.server.games.analysis``), computed once."""


archived_games = Table(
    "archived_games",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("archived", String(32), nullable=False),
    Column("record", LargeBinary, nullable=False),
)
"""A finished game's per-action rows (``actions``, ``reshuffles``, ``clocks``, ``chat``) folded into
one compressed ``kahuna-archive/1`` record once it is old (``db/archive.py``), written once and
never again; ``store.load_game`` reads it in their place. ``archived``: when it was folded."""


# ------------------------------------------------------------------ accounts


accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),
    Column("password", String(200)),
    Column("created", String(32), nullable=False),
    Column("deleted", String(32)),
    Column("is_bot", Boolean, nullable=False),
)


sessions = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", String(32), nullable=False),
    Column("expires", Float, nullable=False),
    Column("user_agent", String(MAX_USER_AGENT)),
)
"""``id`` is the SHA-256 of the session id; ``expires`` is seconds since the epoch."""


api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("digest", String(64), nullable=False, unique=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("name", String(40), nullable=False),
    Column("created", String(32), nullable=False),
    Column("last_used", String(32)),
    Column("scopes", String(32), nullable=False, server_default="read play"),
)
"""``scopes``: the token's scopes (``accounts.store.SCOPES``), separated by spaces (tokens made before
scopes existed could do everything a program can: they have ``read play``)."""


# ------------------------------------------------------------------ community: offers and ratings


seeks = Table(
    "seeks",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("owner_account", Integer),
    Column("owner_name", String(64), nullable=False),
    Column("owner_client", String(64), nullable=False),
    Column("owner_address", String(64)),
    Column("owner_browser", String(64)),
    Column("target_account", Integer, index=True),
    Column("clock", Text),
    Column("variant", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating", Integer),
    Column("token", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("alive_until", Float, nullable=False),
    Column("game_id", String(32)),
    Column("seat", Integer),
)
"""``token`` is the digest of the owner's seat token in the game to come; ``owner_client`` bounds
the open offers per client (an account id or an address); ``owner_address`` the address it came
from (offers listed per address are bounded: ``lobby.LISTED_PER_ADDRESS``); ``owner_browser`` the
digest of the ``browser`` cookie of the guest that made it (it may not accept its own offer);
``rating`` is the owner's rating in the seek's pool when it was made (``None``: a guest, or an
untimed seek); ``seat`` the owner's seat once accepted; times are seconds since the epoch."""


game_accounts = Table(
    "game_accounts",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("account0", Integer, index=True),
    Column("account1", Integer, index=True),
    Column("rated", Boolean, nullable=False),
    Column("pool", String(16)),
    Column("rated_at", String(32)),
    Column("casual_reason", String(16)),
)
"""The accounts of the seats of a lobby game (``None``: a guest), and whether and when it was rated;
``casual_reason``: why a game asked for as rated was started casual (``pair_limit``:
``games/rated_pairs.py``)."""


ratings = Table(
    "ratings",
    metadata,
    Column("account_id", Integer, primary_key=True),
    Column("pool", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
)
"""An account's Glicko-2 rating in one pool; no row: never rated there (1500, 350, 0.06)."""


rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, nullable=False, index=True),
    Column("pool", String(16), nullable=False),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False, index=True),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("at", String(32), nullable=False),
)
"""One row per account and rated game: the rating before and after it (and the deviation after).
Indexed by game too: a profile's statistics join each game's rows (``community/player_games.py``)."""


# ------------------------------------------------------------------ community: tournaments


tournaments = Table(
    "tournaments",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("name", String(64), nullable=False),
    Column("creator", Integer, nullable=False),
    Column("creator_name", String(20), nullable=False),
    Column("clock", Text, nullable=False),
    Column("rounds", Integer),
    Column("minutes", Integer),
    Column("rated", Boolean, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("starts_at", Float),
    Column("started", Float),
    Column("ends_at", Float),
    Column("finished", Float),
    Column("round", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("creator_address", String(64)),
)
"""A Swiss (``rounds``) or Arena (``minutes``) event; ``status`` ``created``, ``running`` or
``finished``; times are seconds since the epoch (``ends_at``: an arena's end). ``round`` is the Swiss
round last paired; ``version`` moves with every change that a pairing depends on (a join, a leave,
a result, a pairing), and a pairing is written only if it has not moved since it was read: so
exactly one instance pairs each round, and never from stale standings. ``creator_address``: the
address it was created from (upcoming events are bounded per address; ``NULL`` before r0013)."""


tournament_players = Table(
    "tournament_players",
    metadata,
    Column("tournament_id", String(32), ForeignKey("tournaments.id"), primary_key=True),
    Column("account_id", Integer, primary_key=True),
    Column("username", String(20), nullable=False),
    Column("joined", Float, nullable=False),
    Column("active", Boolean, nullable=False),
    Column("berserk", Boolean, nullable=False),
    Column("ai_level", String(16)),
)
"""Who joined; ``active`` false once they left (a Swiss player who left is not paired again, an
Arena player is paired again after joining again); ``berserk``: an Arena player's choice to halve
their clock in their next games for a bonus point; ``ai_level``: an AI level's bot account the
creator invited, whose seats the server's AI plays."""


tournament_games = Table(
    "tournament_games",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("tournament_id", String(32), ForeignKey("tournaments.id"), nullable=False, index=True),
    Column("round", Integer, nullable=False),
    Column("account0", Integer, nullable=False),
    Column("account1", Integer),
    Column("game_id", String(32), index=True),
    Column("berserk0", Boolean, nullable=False),
    Column("berserk1", Boolean, nullable=False),
    Column("paired", Float, nullable=False),
    Column("started", Float),
    Column("result", String(8)),
    Column("ended", Float),
)
"""One board: the accounts at seat 0 and seat 1 (``account1`` ``None``: a Swiss bye, whose result is
``bye`` at once) and its game (``game_id``, chosen when paired; ``started`` once the game factory
stored it, so that any instance starts a board paired by one that died before starting it). The
result (``0``/``1``: the winning seat, ``draw``, ``none``: aborted) is written by the end hook in
the transaction that stores the game's end. ``round``: the Swiss round, or the Arena's pairing."""


# ------------------------------------------------------------------ mail: addresses, mail tokens, the queue


account_emails = Table(
    "account_emails",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("email", String(254)),
    Column("email_key", String(254), index=True),
    Column("pending", String(254)),
    Column("lang", String(8)),
)
"""An account's e-mail address: ``email`` once verified (``email_key``: the same in lower case, to
find it for a password reset), ``pending`` the address asked for and not verified yet; ``lang`` the
language the account's mails are written in (the page's language when the address was set)."""


mail_tokens = Table(
    "mail_tokens",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("email", String(254), nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Float),
)
"""The single-use tokens of mailed links (``kind`` ``verify`` or ``reset``): only their SHA-256;
``used`` once used (kept until they expire, so that a used link is told apart from an unknown one)."""


mail_queue = Table(
    "mail_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", Integer, index=True),
    Column("recipient", String(254), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("subject", Text, nullable=False),
    Column("body", Text),
    Column("message_id", String(200), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("due", Float, nullable=False, index=True),
    Column("attempts", Integer, nullable=False),
    Column("claimed_until", Float),
    Column("status", String(16), nullable=False, index=True),
    Column("done", Float),
    Column("error", String(200)),
    Column("list_unsubscribe", String(400)),
)
"""Mail to send (``mail/queue.py``): ``status`` ``queued`` until ``sent``, ``failed`` (the mail server
refused it for good) or ``expired`` (its link expired before a mail server took it); ``due`` the
next attempt (seconds since the epoch), ``claimed_until`` the lease of the sender that is sending
it. ``body`` holds the link until the mail is sent and is erased then. ``list_unsubscribe``: the
one-click unsubscribe URL of a notification (``None``: a transactional mail)."""


# ------------------------------------------------------------------ notifications


notification_settings = Table(
    "notification_settings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("off", String(400), nullable=False),
    Column("secret", String(64)),
)
"""What an account turned off (``accounts/notifications.py``): ``off`` holds ``kind:channel`` pairs
separated by spaces (no row, or a pair not listed: on). ``secret`` signs the account's unsubscribe
links (``mail/unsubscribe.py``), made with the first one."""


notices = Table(
    "notices",
    metadata,
    Column("kind", String(16), primary_key=True),
    Column("subject", String(40), primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("account_id", Integer, primary_key=True),
    Column("status", String(16), nullable=False),
    Column("at", Float, nullable=False, index=True),
)
"""Each notification decided once (``mail/reminders.py``): its key is the kind, what it is about
(a game, a challenge, a tournament), the step (a game's ply; 0 otherwise) and the account; the
instance whose insert wins queues the mail, the others' inserts fail. ``status`` ``queued``, or
``dropped`` (over the account's or address's budget)."""


seat_seen = Table(
    "seat_seen",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("seen", Float, nullable=False),
)
"""When a seat of a correspondence game last had a connection (on any instance), written by each
instance's reminder loop for the seats connected to it: a turn reminder waits until the seat has
been away for ``--limit your_turn_after_seconds``."""


# ------------------------------------------------------------------ web push


push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("endpoint", String(1024), nullable=False, unique=True),
    Column("p256dh", String(100), nullable=False),
    Column("auth", String(40), nullable=False),
    Column("created", Float, nullable=False),
)
"""The devices (browsers) that subscribed an account for Web Push (``push/subscriptions.py``): the
push service's ``endpoint`` and the browser's keys (base64url) that encrypt what is sent to it."""


push_queue = Table(
    "push_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("subscription_id", Integer, nullable=False, index=True),
    Column("notice", String(120), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("due", Float, nullable=False, index=True),
    Column("attempts", Integer, nullable=False),
    Column("claimed_until", Float),
    Column("status", String(16), nullable=False, index=True),
    Column("done", Float),
    UniqueConstraint("subscription_id", "notice", name="uq_push_queue_notice"),
)
"""Pushes to send (``push/queue.py``), one per subscription: ``notice`` names what it tells
(``your_turn:GAME:VERSION``), so that two instances that both see a turn queue it once; ``status``
``queued`` until ``sent``, ``gone`` (the subscription was removed) or ``expired``; ``due`` and
``claimed_until`` as in the mail queue (``db/leases.py``)."""


# ------------------------------------------------------------------ follows and blocks


follows = Table(
    "follows",
    metadata,
    Column("follower", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("followed", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("created", Float, nullable=False),
    Index("ix_follows_followed", "followed", "created"),
)
"""``follower`` follows ``followed`` (public: profiles list both sides); ``created`` in seconds
since the epoch. At most ``relations.MAX_FOLLOWS`` rows per follower."""


blocks = Table(
    "blocks",
    metadata,
    Column("blocker", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("blocked", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("created", Float, nullable=False),
    Index("ix_blocks_blocked", "blocked"),
)
"""``blocker`` blocks ``blocked`` (private: only the blocker lists it): no challenge either way, no
chat from ``blocked`` in the blocker's games, no follow of the blocker. At most
``relations.MAX_BLOCKS`` rows per blocker."""


browser_accounts = Table(
    "browser_accounts",
    metadata,
    Column("browser", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("seen", Float, nullable=False),
)
"""The accounts that signed in on a browser: ``browser`` is the digest of its ``browser`` cookie,
``seen`` the last sign-in (seconds since the epoch). A guest taking a seat from that browser is
refused where one of those accounts would be (a block either way), so that signing out does not
undo a block (``relations.refuse_blocked``)."""
