"""Fewer bytes a finished game, again (issue 50: 9.2 times fewer after archiving, where 10 was the
aim). Two changes, both such that the code before runs on the schema after (docs/deploy.md, *A
migration must work with the version before it*):

- On PostgreSQL ``rating_history`` loses its primary key's index (on ``id``, 64 bytes a game):
  nothing looks a row up by ``id``. The column stays, numbered by its sequence as before (a
  profile's graph and the moderators' history are ordered by it, and the code before inserts
  without it and reads it back); the rows are found by account and by game through their own
  indexes. SQLite keeps the key: there ``id`` is the row's own number and costs nothing.
- The seats of archived games keep 16 bytes of their token's digest
  (``schema.games.short_digest``, 74 bytes a game), as ``db/archive.py`` does from now on for
  each game it folds: a look-up by token looks for both forms. The short form is ASCII text, which
  the code before reads as a digest matching no token: during an upgrade an instance of the
  release before finds no archived game by its seat token ("my games", binding a seat at sign-in),
  and takes a seat token in an archived game for a spectator; it fails on nothing.

Going back puts the key back; the short digests stay short (the rest of the digest is not kept
anywhere), so with the code before 0024 an archived game is found by its accounts, not by the
seat tokens a browser holds.

Revision ID: 0024
Revises: 0023 (tournament chat)
"""

from __future__ import annotations

import base64

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

ARCHIVED_WHOLE = "length(token) = 32 AND game_id IN (SELECT id FROM games WHERE archive IS NOT NULL)"
"""The seats of archived games that hold a whole digest (32 bytes: a hex SHA-256, r0019)."""
SHORT_PG = "convert_to(translate(rtrim(encode(substring(token FROM 1 FOR 16), 'base64'), '='), '+/', '-_'), 'UTF8')"
"""``schema.games.short_digest`` of a stored whole digest, in SQL."""


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        op.drop_constraint("rating_history_pkey", "rating_history", type_="primary")
        op.execute(f"UPDATE seats SET token = {SHORT_PG} WHERE {ARCHIVED_WHOLE}")
        return
    seats = sa.table("seats", sa.column("token", sa.LargeBinary))
    for (token,) in conn.execute(sa.text(f"SELECT token FROM seats WHERE {ARCHIVED_WHOLE}")).all():
        short = base64.urlsafe_b64encode(bytes(token)[:16]).rstrip(b"=")
        conn.execute(sa.update(seats).where(seats.c.token == bytes(token)).values(token=short))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.create_primary_key("rating_history_pkey", "rating_history", ["id"])
