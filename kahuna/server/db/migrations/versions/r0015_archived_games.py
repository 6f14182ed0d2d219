"""Issue 50's archive of finished games: ``archived_games``, one compressed record per old finished
game, which replaces its rows in ``actions``, ``reshuffles``, ``clocks`` and ``chat``
(``db/archive.py``).

Only a table is added: no row is rewritten here. Games are archived later, in small batches, by
the server's periodic pass or ``kahuna admin archive``, so upgrading a large database is as quick
as upgrading an empty one and never holds a lock on the games being played.

Revision ID: 0015
Revises: 0014 (game_owner_and_browsers)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("archived", sa.String(32), nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    """Write every archived game's rows back into their tables (nothing is lost going back), then
    drop the table."""
    from kahuna.server.db.archive_format import unpack

    conn = op.get_bind()
    actions = sa.table("actions", *(sa.column(c) for c in ("game_id", "seq", "seat", "token", "at")))
    reshuffles = sa.table("reshuffles", *(sa.column(c) for c in ("game_id", "idx", "cards")))
    chat = sa.table("chat", *(sa.column(c) for c in ("game_id", "seq", "room", "seat", "text", "at")))
    clock_columns = ("control", "remaining0", "remaining1", "running", "since", "starts_by")
    clocks = sa.table("clocks", *(sa.column(c) for c in ("game_id", *clock_columns)))
    for game_id, record in conn.execute(sa.text("SELECT game_id, record FROM archived_games")).all():
        rows = unpack(record)
        played = [
            {"game_id": game_id, "seq": seq, "seat": seat, "token": token, "at": at}
            for seq, (seat, token, at) in enumerate(rows.actions)
        ]
        if played:
            conn.execute(actions.insert(), played)
        for idx, cards in enumerate(rows.reshuffles):
            conn.execute(reshuffles.insert().values(game_id=game_id, idx=idx, cards=cards))
        for seq, (room, seat, text, at) in enumerate(rows.chat):
            conn.execute(chat.insert().values(game_id=game_id, seq=seq, room=room, seat=seat, text=text, at=at))
        if rows.clock is not None:
            conn.execute(clocks.insert().values(game_id=game_id, **rows.clock))
    op.drop_table("archived_games")
