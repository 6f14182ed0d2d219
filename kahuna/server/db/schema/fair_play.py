"""Fair play (docs/fair-play.md): the rated games between people waiting to be screened, each
claimed by one screener at a time, and the figures each player's screening found."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table, Text

from kahuna.server.db.schema.base import metadata

fair_play_games = Table(
    "fair_play_games",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("queued", Float, nullable=False),
    Column("claimed_by", String(64)),
    Column("claimed_until", Float),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("screened", Float),
    Index("ix_fair_play_games_status", "status", "queued"),
)
"""A finished rated game between two people (r0025), ``pending`` from its end (the end hook writes
the row in the ending transaction) until its figures are stored (``done``), or ``failed`` after
:data:`kahuna.server.fairplay.queue.MAX_ATTEMPTS` claims. A screener claims it by a conditional
update (``claimed_by`` an instance's name, until ``claimed_until``, seconds since the epoch): one
claim at a time, taken over by another only once it lapsed (its screener killed)."""


fair_play_figures = Table(
    "fair_play_figures",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Column("figures", Text, nullable=False),
    Column("suspicion", Float, nullable=False),
    Index("ix_fair_play_figures_account", "account_id", "at"),
)
"""One player's figures in one screened game (``kahuna.ai.review.screening.figures`` as JSON),
and how suspicious the game alone is (the lower bound of its match rate, for sorting)."""
