"""Fewer bytes a finished game (issue 50): an archived game's record moves from a row of
``archived_games`` into its ``games`` row (``games.archive``: no row, key or index of its own; when
it was folded, which nothing read, is no longer kept); the seats' token digests are kept as their
32 bytes rather than 64 hex digits (``schema.games.Digest``: half the bytes in the row and in the
primary key's index); ``ix_games_invite`` leaves out the games that have no invite and, on
PostgreSQL, ``ix_games_status`` the finished games. The records written from now on are
``kahuna-archive/2`` (``db/archive_format.py``), which also hold the ``variant`` and ``deal`` that
archiving empties in the ``games`` row; going back puts those back, writes the records as ``/1``
again and moves them back to ``archived_games`` (stamped with the time of the downgrade).

Unlike 0015, this rewrites every row of ``seats``, and of ``games`` for the archived games (a
statement each on PostgreSQL, which holds the table's lock meanwhile).

Revision ID: 0019
Revises: 0018 (sanctions; the archive's own table came with 0015)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

TO_BYTES = """
CASE WHEN token ~ '^[0-9a-f]{64}$' THEN decode(token, 'hex')
     WHEN octet_length(token) = 32 THEN convert_to(token, 'UTF8') || '\\x00'::bytea
     ELSE convert_to(token, 'UTF8') END
"""
"""``schema.games.digest_bytes`` in SQL."""
TO_TEXT = """
CASE WHEN length(token) = 32 THEN encode(token, 'hex')
     WHEN length(token) = 33 AND get_byte(token, 32) = 0 THEN convert_from(substring(token FROM 1 FOR 32), 'UTF8')
     ELSE convert_from(token, 'UTF8') END
"""
"""``schema.games.digest_text`` in SQL."""


def upgrade() -> None:
    op.add_column("games", sa.Column("archive", sa.LargeBinary))
    op.execute(
        "UPDATE games SET archive = (SELECT record FROM archived_games WHERE archived_games.game_id = games.id) "
        "WHERE id IN (SELECT game_id FROM archived_games)"
    )
    op.drop_table("archived_games")
    _tokens(to_bytes=True)
    op.drop_index("ix_games_invite", table_name="games")
    op.create_index(
        "ix_games_invite",
        "games",
        ["invite"],
        postgresql_where=sa.text("invite IS NOT NULL"),
        sqlite_where=sa.text("invite IS NOT NULL"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("ix_games_status", table_name="games")
        op.create_index("ix_games_status", "games", ["status"], postgresql_where=sa.text("status <> 'over'"))


def downgrade() -> None:
    """The digests as text and the full indexes again, and every ``kahuna-archive/2`` record
    written as ``/1``, which the code before 0019 reads, its variant and deal back in the ``games`` row."""
    from kahuna.server.db.archive_format import MARK2, pack_v1, unpack
    from kahuna.server.db.store import now

    conn = op.get_bind()
    archived_games = op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("archived", sa.String(32), nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )
    assert archived_games is not None
    at = now()
    found = conn.execute(sa.text("SELECT id, archive FROM games WHERE archive IS NOT NULL")).all()
    for game_id, record in found:
        record = bytes(record)
        if record[:1] == MARK2:
            rows = unpack(record)
            record = pack_v1(rows)
            if rows.variant is not None and rows.deal is not None:
                conn.execute(
                    sa.text("UPDATE games SET variant = :variant, deal = :deal WHERE id = :game_id"),
                    {"variant": rows.variant, "deal": rows.deal, "game_id": game_id},
                )
        conn.execute(archived_games.insert().values(game_id=game_id, archived=at, record=record))
    for name, column in (("ix_games_status", "status"), ("ix_games_invite", "invite")):
        op.drop_index(name, table_name="games")
        op.create_index(name, "games", [column])
    _tokens(to_bytes=False)
    # Not a batch copy of ``games``: SQLite would refuse to drop the table the seats refer to.
    op.execute("ALTER TABLE games DROP COLUMN archive")  # SQLite 3.35 or later


def _tokens(to_bytes: bool) -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        new_type = "bytea" if to_bytes else "varchar(64)"
        conn.execute(
            sa.text(f"ALTER TABLE seats ALTER COLUMN token TYPE {new_type} USING {TO_BYTES if to_bytes else TO_TEXT}")
        )
        return
    from kahuna.server.db.schema.games import digest_bytes, digest_text

    # SQLite: a column's type is only its affinity, and neither BLOB nor TEXT affinity converts a
    # value; the values are rewritten here, the declared type by the table's copy below.
    seats = sa.table("seats", sa.column("token"))
    for (token,) in conn.execute(sa.select(seats.c.token)).all():
        new = digest_bytes(token) if to_bytes else digest_text(bytes(token))
        conn.execute(sa.update(seats).where(seats.c.token == token).values(token=new))
    with op.batch_alter_table("seats") as batch:
        batch.alter_column(
            "token",
            type_=sa.LargeBinary if to_bytes else sa.String(64),
            existing_type=sa.String(64) if to_bytes else sa.LargeBinary,
            existing_nullable=False,
        )
