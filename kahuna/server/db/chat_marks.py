"""What moderators did to a game's chat lines, read with the game (``store.load_game``;
docs/moderation.md, *Sanctions*): the lines hidden by a ``hide_line`` not undone, and the lines
written under a ``shadow_mute`` (shown to their author's seat only)."""

from __future__ import annotations

from sqlalchemy import Connection, select

from kahuna.server.db.schema import sanctions, shadow_lines


def hidden_lines(conn: Connection, game_id: str) -> set[int]:
    """The game's chat lines hidden by a moderator (``hide_line`` sanctions not undone)."""
    query = select(sanctions.c.line_id).where(
        sanctions.c.game_id == game_id, sanctions.c.kind == "hide_line", sanctions.c.undone.is_(None)
    )
    return {int(line_id) for line_id in conn.execute(query).scalars()}


def shadowed_lines(conn: Connection, game_id: str) -> set[int]:
    """The game's chat lines written under a ``shadow_mute``."""
    query = select(shadow_lines.c.line_id).where(shadow_lines.c.game_id == game_id)
    return {int(line_id) for line_id in conn.execute(query).scalars()}
