"""Puzzles (docs/puzzles.md): the shipped set loaded at start, each puzzle's Glicko-2 rating, the
players' puzzle ratings, and every counted answer (the first answer of an account to a puzzle)."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, String, Table, Text, false

from kahuna.server.db.schema.base import metadata

puzzles = Table(
    "puzzles",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("document", Text, nullable=False),
    Column("themes", String(200), nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False, server_default="0"),
    Column("solved", Integer, nullable=False, server_default="0"),
    Column("retired", Boolean, nullable=False, server_default=false()),
    Index("ix_puzzles_rating", "rating"),
)
"""One puzzle of the shipped set (r0026): ``document`` is :meth:`kahuna.ai.puzzles.puzzle.Puzzle.to_json`
(the complete position and the accepted turns: never sent to a client before it answered);
``rating`` starts at the set's starting rating and moves as accounts answer; ``retired`` (r0027):
the shipped set no longer holds it (never offered, never the daily puzzle; its answers stay)."""

puzzle_ratings = Table(
    "puzzle_ratings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
)
"""An account's puzzle rating; no row: never answered one (1500, 350, 0.06)."""

puzzle_attempts = Table(
    "puzzle_attempts",
    metadata,
    Column("puzzle_id", String(16), ForeignKey("puzzles.id"), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("correct", Boolean, nullable=False),
    Column("at", Float, nullable=False),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Index("ix_puzzle_attempts_account", "account_id", "at"),
)
"""An account's first answer to a puzzle, the one that counted (a later one counts nothing), with
its puzzle rating before and after it."""
