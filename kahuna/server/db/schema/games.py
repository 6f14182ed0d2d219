"""The games' records: what the store writes and replays (``db/store.py``)."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    false,
)

from kahuna.server.db.schema.base import metadata

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
