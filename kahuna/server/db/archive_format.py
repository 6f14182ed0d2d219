"""The ``kahuna-archive/1`` record: a finished game's per-action rows as one compressed value.

What it holds is exactly what the rows ``actions``, ``reshuffles``, ``clocks`` and ``chat`` of the
game held, column by column, so that ``store.load_game`` gives the same :class:`StoredGame` for an
archived game as before archiving, and so that the rows can be written back exactly (migration
0015's downgrade does). The ``games`` row, the seats and every row other rooms read
(``game_accounts``, ``rating_history``, ``tournament_games``, ``rematches``, ``analyses``) stay
where they are: the game's ``kahuna-record/1`` is this plus its ``games`` row, as
``community/exports.record_of`` builds it.

The actions are kept as three columns (seat, token, time) rather than a list of rows: each
column's values are alike, which is what zlib compresses best; and their times (whole seconds) as
the first one and the seconds between each and the next, a few digits where a time stamp takes
20 characters: the record of a 120-action game takes about 400 bytes where the three columns took
880 (docs/scaling.md, "Storage"). Times that do not read back exactly that way are kept as written.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate, pairwise
from typing import Any

FORMAT = "kahuna-archive/1"
COMMON_TOKENS = """
A>B B>A A>D D>A A>H H>A B>C C>B B>D D>B B>E E>B B>F F>B C>F F>C C>G G>C C>K K>C D>E E>D D>H
H>D E>F F>E E>H H>E E>I I>E E>J J>E F>G G>F F>J J>F G>J J>G G>K K>G H>I I>H H>L L>H I>J J>I
I>K K>I I>L L>I J>K K>J K>L L>K -A -B -C -D -E -F -G -H -I -J -K -L dA dB dC dD dE dF dG dH
dI dJ dK dL d? pass end
"""
"""The commonest action tokens (every one but the removals), as they were when the format was made."""
SKELETON = (
    '{"format":"kahuna-archive/1","reshuffles":[],"seats":[0,1,0,1,1,0,0,1],"tokens":[],"t0":1767225600,'
    '"dt":[5,4,6,5,4,6],"clock":{"control":"{\\"initial\\": 300, \\"increment\\": 3}","remaining0":,'
    '"remaining1":,"running":null,"since":null,"starts_by":null},"chat":[["players",0,"'
)
"""What every record's JSON looks like around its values."""
DICTIONARY = (",".join(f'"{token}"' for token in COMMON_TOKENS.split()) + SKELETON).encode()
"""zlib's preset dictionary for every record: a record of a few hundred bytes has little of its
own to refer back to, and this saves about 180 bytes of a 620-byte record. Part of the format: it
never changes (a new one is a new format)."""


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
    """The rows as one ``kahuna-archive/1`` value (compact JSON, zlib at its highest level with
    :data:`DICTIONARY`: the value is written once and read rarely)."""
    data = {
        "format": FORMAT,
        "reshuffles": rows.reshuffles,
        "seats": [seat for seat, _, _ in rows.actions],
        "tokens": [token for _, token, _ in rows.actions],
        **_times([at for _, _, at in rows.actions]),
        "clock": rows.clock,
        "chat": [list(line) for line in rows.chat],
    }
    squeeze = zlib.compressobj(9, zdict=DICTIONARY)
    return squeeze.compress(json.dumps(data, separators=(",", ":")).encode()) + squeeze.flush()


def unpack(value: bytes) -> ArchivedRows:
    """The rows of a value :func:`pack` made; :class:`ArchiveError` if it is not one."""
    try:
        expand = zlib.decompressobj(zdict=DICTIONARY)
        data = json.loads(expand.decompress(value) + expand.flush())
    except (zlib.error, ValueError) as exc:
        raise ArchiveError(f"not a {FORMAT} record: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(f"not a {FORMAT} record")
    try:
        actions = list(zip(data["seats"], data["tokens"], _stamps(data), strict=True))
        chat = [(room, seat, text, at) for room, seat, text, at in data["chat"]]
        return ArchivedRows(list(data["reshuffles"]), actions, data["clock"], chat)
    except (KeyError, TypeError, ValueError) as exc:
        raise ArchiveError(f"a damaged {FORMAT} record: {exc}") from None


def _stamp(second: int) -> str:
    return datetime.fromtimestamp(second, UTC).replace(tzinfo=None).isoformat() + "Z"


def _times(stamps: list[str]) -> dict[str, Any]:
    """The actions' times as ``t0`` and ``dt`` (seconds), or as written (``at``) if they would not
    read back exactly. (``fromisoformat``, not ``strptime``: a tenth of the time, which the
    writer's thread spends with a batch's transaction open.)"""
    try:
        moments = [datetime.fromisoformat(stamp.removesuffix("Z")) for stamp in stamps]
    except ValueError:
        return {"at": stamps}
    if any(moment.tzinfo is not None for moment in moments):
        return {"at": stamps}
    seconds = [int(moment.replace(tzinfo=UTC).timestamp()) for moment in moments]
    if [_stamp(second) for second in seconds] != stamps:
        return {"at": stamps}
    return {"t0": seconds[0] if seconds else 0, "dt": [b - a for a, b in pairwise(seconds)]}


def _stamps(data: dict[str, Any]) -> list[str]:
    if "at" in data:
        return list(data["at"])
    if not data["tokens"]:
        return []
    return [_stamp(second) for second in accumulate(data["dt"], initial=data["t0"])]
