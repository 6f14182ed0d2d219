"""The community: offers, lobby games' accounts, ratings, tournaments, follows and blocks."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
)

from kahuna.server.db.schema.base import metadata

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
    Column("kind", String(16), nullable=False, server_default="game"),
)
"""One row per account and rated game: the rating before and after it (and the deviation after).
Indexed by game too: a profile's statistics join each game's rows (``community/player_games.py``).
``id`` orders an account's rows (its profile's graph); on PostgreSQL it is not a primary key since
r0024 (nothing looks a row up by it, and its index took 64 bytes a finished game), only numbered by
its sequence; SQLite keeps the key, its rows' own numbers.
``kind``: ``game``, or ``refund`` (r0021): the points an account marked by a moderator took from
this player in the game ``game_id``, given back (``ratings.refund_opponents``)."""


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


tournament_chat = Table(
    "tournament_chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", String(32), ForeignKey("tournaments.id"), nullable=False),
    Column("account_id", Integer, nullable=False),
    Column("username", String(20), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
    Column("shadow", Integer),
    Index("ix_tournament_chat_event", "tournament_id", "id"),
)
"""An event's chat lines (``community/event_chat.py``), written by its entrants; ``shadow``: the
``shadow_mute`` the line was written under (shown to its author only)."""


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
