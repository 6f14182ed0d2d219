"""The games' records: what the store writes and replays (``db/store.py``)."""

from __future__ import annotations

import base64

from sqlalchemy import (
    Boolean,
    Column,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    TypeDecorator,
    false,
)

from kahuna.server.db.schema.base import metadata

SHORT_DIGEST_BYTES = 16
"""How much of a seat token's SHA-256 an archived game's seat keeps (r0024): 128 bits, far beyond
guessing (a token that matches one of a billion archived seats takes some 2^98 tries)."""


def digest_bytes(text: str) -> bytes:
    """A digest as it is stored: the 32 bytes a 64-digit lowercase hex SHA-256 stands for (half the
    bytes of its text, in the row and in the index); any other text (tests use made-up tokens) as
    its UTF-8, with a zero byte after it if that is 32 bytes long too (text never holds one)."""
    if len(text) == 64:
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            pass
        else:
            if raw.hex() == text:
                return raw
    encoded = text.encode()
    return encoded + b"\0" if len(encoded) == 32 else encoded


def digest_text(raw: bytes) -> str:
    """The text :func:`digest_bytes` was given."""
    if len(raw) == 32:
        return raw.hex()
    return (raw[:-1] if len(raw) == 33 and raw[-1] == 0 else raw).decode()


def short_digest(text: str) -> str:
    """What an archived game's seat keeps of a token digest (r0024): the first
    :data:`SHORT_DIGEST_BYTES` bytes of a 64-digit hex SHA-256 as unpadded URL-safe base64, 22
    characters where the digest takes 32 bytes (74 bytes less a game on PostgreSQL, in the row and
    in the primary key's index: docs/scaling.md, "Storage"). ASCII text, so that the code before
    0024, which reads a digest that is not 32 bytes long as UTF-8 text, reads it as a digest that
    matches no token rather than failing. Any other text (tests' made-up digests) is kept whole.
    A short form never equals a full digest (22 characters against 64)."""
    if len(text) != 64:
        return text
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return text
    return base64.urlsafe_b64encode(raw[:SHORT_DIGEST_BYTES]).rstrip(b"=").decode()


def digest_forms(text: str) -> tuple[str, str]:
    """The forms a seat may hold a token digest in: whole (a game not archived) or short."""
    return text, short_digest(text)


class Digest(TypeDecorator[str]):
    """A token digest, read and written as its hex text, stored as :func:`digest_bytes` (r0019)."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> bytes | None:
        return None if value is None else digest_bytes(value)

    def process_result_value(self, value: bytes | None, dialect: Dialect) -> str | None:
        return None if value is None else digest_text(bytes(value))


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
    Column("invite", String(64)),
    Column("status", String(16), nullable=False),
    Column("result", Text),
    Column("unlisted", Boolean, nullable=False, server_default=false()),
    Column("owner", String(80)),
    Column("archive", LargeBinary),
)
"""One row per game; ``invite`` is the digest of the invite code (human games only). ``updated``
and ``status`` are written when a player joins and when the game ends, not on every action (the
last action's time is the game's time). ``unlisted``: kept off the live list and the Watch page
(``community/live_games.py``). ``owner``: whose turn the game's AI moves take in the AI pool
(``games/ai_pool.py``: the digest of the creating address, a tournament's creator), kept so that a
game rebuilt after a restart still counts against whoever made it; ``NULL``: the game itself.
``archive``: a finished game's per-action rows (``actions``, ``reshuffles``, ``clocks``, ``chat``)
folded into one compressed record once it is old (``db/archive.py``, ``db/archive_format.py``),
written once and never again; ``store.load_game`` reads it in their place. ``NULL``: not archived.
(0015 kept it in a table of its own, ``archived_games``, with when it was folded; 0019 moved it
here, where it costs no row, key or index of its own: docs/scaling.md, "Storage".)
The indexes leave out rows no query looks for there (r0019): ``ix_games_invite`` the games with no
invite (a look-up names one) and, on PostgreSQL, ``ix_games_status`` the finished games (the
queries by status look for games not over, which the planner proves ``status = 'playing'`` is; a
query for finished games reads most of the table). SQLite keeps every game in ``ix_games_status``:
it uses a partial index only for a query that repeats its condition word for word."""

Index(
    "ix_games_invite",
    games.c.invite,
    postgresql_where=games.c.invite.is_not(None),
    sqlite_where=games.c.invite.is_not(None),
)
Index(
    "ix_games_status",
    games.c.status,
    postgresql_where=games.c.status != "over",
)


seats = Table(
    "seats",
    metadata,
    Column("token", Digest, primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("account_id", Integer, index=True),
)
"""The digest of each seat token (32 bytes, :class:`Digest`), for ``my-games`` and for binding a
token to its seat; once the game is archived, its :func:`short_digest` (r0024: a look-up by token
looks for both forms, :func:`digest_forms`); the id of the account the seat belongs to
(``accounts.id``, see ``accounts/store.py``), if any."""


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
