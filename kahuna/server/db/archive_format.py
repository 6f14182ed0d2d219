"""The ``kahuna-archive/1`` record: a finished game's per-action rows as one compressed value.

What it holds is exactly what the rows ``actions``, ``reshuffles``, ``clocks`` and ``chat`` of the
game held, column by column, so that ``store.load_game`` gives the same :class:`StoredGame` for an
archived game as before archiving, and so that the rows can be written back exactly (migration
0015's downgrade does). The ``games`` row, the seats and every row other rooms read
(``game_accounts``, ``rating_history``, ``tournament_games``, ``rematches``, ``analyses``) stay
where they are: the game's ``kahuna-record/1`` is this plus its ``games`` row, as
``community/exports.record_of`` builds it.

The actions are kept as three columns (seat, token, time) rather than a list of rows: each
column's values are alike, which is what zlib compresses best (docs/scaling.md, "Storage").
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

FORMAT = "kahuna-archive/1"


class ArchiveError(Exception):
    """A stored archive that cannot be read back (a damaged row, an unknown format)."""


@dataclass
class ArchivedRows:
    """One game's per-action rows, as the tables held them."""

    reshuffles: list[str] = field(default_factory=list)
    """``reshuffles.cards`` in ``idx`` order."""
    actions: list[tuple[int, str, str]] = field(default_factory=list)
    """``(seat, token, at)`` of each ``actions`` row in ``seq`` order."""
    clock: dict[str, Any] | None = None
    """The ``clocks`` row's columns but ``game_id`` (``control`` as its stored JSON text); ``None``:
    an untimed game."""
    chat: list[tuple[str, int | None, str, str]] = field(default_factory=list)
    """``(room, seat, text, at)`` of each ``chat`` row in ``seq`` order."""


def pack(rows: ArchivedRows) -> bytes:
    """The rows as one ``kahuna-archive/1`` value (compact JSON, zlib at its highest level: the
    value is written once and read rarely)."""
    data = {
        "format": FORMAT,
        "reshuffles": rows.reshuffles,
        "seats": [seat for seat, _, _ in rows.actions],
        "tokens": [token for _, token, _ in rows.actions],
        "at": [at for _, _, at in rows.actions],
        "clock": rows.clock,
        "chat": [list(line) for line in rows.chat],
    }
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)


def unpack(value: bytes) -> ArchivedRows:
    """The rows of a value :func:`pack` made; :class:`ArchiveError` if it is not one."""
    try:
        data = json.loads(zlib.decompress(value))
    except (zlib.error, ValueError) as exc:
        raise ArchiveError(f"not a {FORMAT} record: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(f"not a {FORMAT} record")
    try:
        actions = list(zip(data["seats"], data["tokens"], data["at"], strict=True))
        chat = [(room, seat, text, at) for room, seat, text, at in data["chat"]]
        return ArchivedRows(list(data["reshuffles"]), actions, data["clock"], chat)
    except (KeyError, TypeError, ValueError) as exc:
        raise ArchiveError(f"a damaged {FORMAT} record: {exc}") from None
