"""The archive record: a finished game's per-action rows as one compressed value
(``kahuna-archive/2``; :func:`unpack` reads ``kahuna-archive/1`` records too).

What it holds is exactly what the rows ``actions``, ``reshuffles``, ``clocks`` and ``chat`` of the
game held, column by column, so that ``store.load_game`` gives the same :class:`StoredGame` for an
archived game as before archiving, and so that the rows can be written back exactly (migration
0015's downgrade does). The ``games`` row (but its ``variant`` and ``deal`` in ``/2``), the seats
and every row other rooms read
(``game_accounts``, ``rating_history``, ``tournament_games``, ``rematches``, ``analyses``) stay
where they are: the game's ``kahuna-record/1`` is this plus its ``games`` row, as
``community/exports.record_of`` builds it.

The actions are kept as three columns (seat, token, time) rather than a list of rows: each
column's values are alike, which is what zlib compresses best; and their times (whole seconds) as
the first one and the seconds between each and the next, a few digits where a time stamp takes
20 characters: the record of a 120-action game takes about 400 bytes where the three columns took
880 (docs/scaling.md, "Storage"). Times that do not read back exactly that way are kept as written.

``kahuna-archive/2`` (migration 0019) also holds the ``games`` row's ``variant`` and ``deal``,
which archiving empties (a few bytes compressed, 90 in the row), and writes the three columns as
bytes rather than JSON lists:
each token as its index in :data:`TOKENS` (one byte), each seat as whether it differs from the
seat the previous action leaves to move, each gap as a variable-length integer; a raw deflate
stream and its CRC-32 instead of zlib's header and check. About 300 bytes where ``/1`` took 455
(the 1,000 games of ``tools/archive_bytes.py``). A game whose tokens, seats or times do not fit
(a token not in :data:`TOKENS`, a seat but 0 or 1, times kept as written) is written as ``/1``.
"""

from __future__ import annotations

import json
import struct
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

FORMAT2 = "kahuna-archive/2"
MARK2 = b"\x02"
"""The first byte of a ``/2`` record (a ``/1`` record, a zlib stream, begins with ``0x78``)."""
_TOKEN_LIST = """
A>B B>A A>D D>A A>H H>A B>C C>B B>D D>B B>E E>B B>F F>B C>F F>C C>G G>C C>K K>C D>E E>D D>H H>D
E>F F>E E>H H>E E>I I>E E>J J>E F>G G>F F>J J>F G>J J>G G>K K>G H>I I>H H>L L>H I>J J>I I>K K>I
I>L L>I J>K K>J K>L L>K xAB:AA xAB:AB xAB:BB xAD:AA xAD:AD xAD:DD xAH:AA xAH:AH xAH:HH xBC:BB
xBC:BC xBC:CC xBD:BB xBD:BD xBD:DD xBE:BB xBE:BE xBE:EE xBF:BB xBF:BF xBF:FF xCF:CC xCF:CF xCF:FF
xCG:CC xCG:CG xCG:GG xCK:CC xCK:CK xCK:KK xDE:DD xDE:DE xDE:EE xDH:DD xDH:DH xDH:HH xEF:EE xEF:EF
xEF:FF xEH:EE xEH:EH xEH:HH xEI:EE xEI:EI xEI:II xEJ:EE xEJ:EJ xEJ:JJ xFG:FF xFG:FG xFG:GG xFJ:FF
xFJ:FJ xFJ:JJ xGJ:GG xGJ:GJ xGJ:JJ xGK:GG xGK:GK xGK:KK xHI:HH xHI:HI xHI:II xHL:HH xHL:HL xHL:LL
xIJ:II xIJ:IJ xIJ:JJ xIK:II xIK:IK xIK:KK xIL:II xIL:IL xIL:LL xJK:JJ xJK:JK xJK:KK xKL:KK xKL:KL
xKL:LL xAB:AA+ xAB:AB+ xAB:BB+ xAD:AA+ xAD:AD+ xAD:DD+ xAH:AA+ xAH:AH+ xAH:HH+ xBC:BB+ xBC:BC+
xBC:CC+ xBD:BB+ xBD:BD+ xBD:DD+ xBE:BB+ xBE:BE+ xBE:EE+ xBF:BB+ xBF:BF+ xBF:FF+ xCF:CC+ xCF:CF+
xCF:FF+ xCG:CC+ xCG:CG+ xCG:GG+ xCK:CC+ xCK:CK+ xCK:KK+ xDE:DD+ xDE:DE+ xDE:EE+ xDH:DD+ xDH:DH+
xDH:HH+ xEF:EE+ xEF:EF+ xEF:FF+ xEH:EE+ xEH:EH+ xEH:HH+ xEI:EE+ xEI:EI+ xEI:II+ xEJ:EE+ xEJ:EJ+
xEJ:JJ+ xFG:FF+ xFG:FG+ xFG:GG+ xFJ:FF+ xFJ:FJ+ xFJ:JJ+ xGJ:GG+ xGJ:GJ+ xGJ:JJ+ xGK:GG+ xGK:GK+
xGK:KK+ xHI:HH+ xHI:HI+ xHI:II+ xHL:HH+ xHL:HL+ xHL:LL+ xIJ:II+ xIJ:IJ+ xIJ:JJ+ xIK:II+ xIK:IK+
xIK:KK+ xIL:II+ xIL:IL+ xIL:LL+ xJK:JJ+ xJK:JK+ xJK:KK+ xKL:KK+ xKL:KL+ xKL:LL+ -A -B -C -D -E -F
-G -H -I -J -K -L dA dB dC dD dE dF dG dH dI dJ dK dL d? pass end
"""
TOKENS = tuple(_TOKEN_LIST.split())
"""Every action token in the order of the rules' action indices (``kahuna/rules/actions.py``), as
they were when ``/2`` was made: a token's byte in a ``/2`` record is its place here."""
_CODE = {token: code for code, token in enumerate(TOKENS)}
_TURN_ENDS = frozenset(code for code, token in enumerate(TOKENS) if token.startswith("d") or token in ("pass", "end"))
"""The tokens after which the other seat is expected to move (a draw, declining one, ``end``)."""
DICTIONARY2 = (
    b'{"n":118,"variant":"{\\"no_build_at_enemy_stone\\": false, \\"replace_on_remove\\": false}",'
    b'"deal":"","reshuffles":["","'
    b'"],"t0":1767225600,"clock":{"control":"{\\"initial\\": 300, \\"increment\\": 3}","remaining0":,'
    b'"remaining1":,"running":null,"since":null,"starts_by":null},"chat":[["players",0,"gg","2026-01-01T00:00:00Z"],'
    b'["players",1,"'
)
"""The preset dictionary of ``/2``: what the JSON part of every record looks like around its
values (the byte columns have no words to refer back to). Part of the format: it never changes."""


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
    variant: str | None = None
    """The ``games`` row's ``variant`` (its JSON text), which a ``/2`` record holds in its place
    once archived (``db/archive.py`` empties it); ``None``: it is in the ``games`` row (a game not
    archived, a ``/1`` record)."""
    deal: str | None = None
    """The ``games`` row's ``deal``, held like :attr:`variant`."""


def pack(rows: ArchivedRows) -> bytes:
    """The rows as one ``kahuna-archive/2`` value, or ``/1`` if they do not fit ``/2``; compressed
    at the highest level: the value is written once and read rarely."""
    times = _times([at for _, _, at in rows.actions])
    codes = [_CODE.get(token, -1) for _, token, _ in rows.actions]
    if "at" in times or -1 in codes or any(seat not in (0, 1) for seat, _, _ in rows.actions):
        return pack_v1(rows)
    flips, expected = bytearray(), 0
    for (seat, _, _), code in zip(rows.actions, codes, strict=True):
        flips.append(seat ^ expected)
        expected = seat ^ (code in _TURN_ENDS)
    meta = {
        "n": len(codes),
        "variant": rows.variant,
        "deal": rows.deal,
        "reshuffles": rows.reshuffles,
        "t0": times["t0"],
        "clock": rows.clock,
        "chat": [list(line) for line in rows.chat],
    }
    body = json.dumps(meta, separators=(",", ":")).encode() + b"\n" + bytes(codes) + flips
    body += b"".join(_varint(dt) for dt in times["dt"])
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zdict=DICTIONARY2)
    return MARK2 + squeeze.compress(body) + squeeze.flush() + struct.pack("<I", zlib.crc32(body))


def pack_v1(rows: ArchivedRows) -> bytes:
    """The rows as one ``kahuna-archive/1`` value (compact JSON, zlib at its highest level with
    :data:`DICTIONARY`): what :func:`pack` falls back to, and what migration 0019's downgrade
    writes back. It has no place for :attr:`~ArchivedRows.variant` and ``deal``: they stay in the
    ``games`` row (:func:`holds_game_columns`)."""
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


def holds_game_columns(value: bytes) -> bool:
    """Whether a record made by :func:`pack` holds its game's ``variant`` and ``deal`` (a ``/2``
    record), so that the ``games`` row need not."""
    return value[:1] == MARK2


def unpack(value: bytes) -> ArchivedRows:
    """The rows of a value :func:`pack` or :func:`pack_v1` made; :class:`ArchiveError` if it is not one."""
    if value[:1] == MARK2:
        return _unpack2(value)
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


def _unpack2(value: bytes) -> ArchivedRows:
    try:
        expand = zlib.decompressobj(-15, zdict=DICTIONARY2)
        body = expand.decompress(value[1:-4]) + expand.flush()
        if not expand.eof or struct.unpack("<I", value[-4:])[0] != zlib.crc32(body):
            raise ArchiveError(f"a damaged {FORMAT2} record: its check does not match")
        head, _, columns = body.partition(b"\n")
        meta = json.loads(head)
    except (zlib.error, struct.error, ValueError) as exc:
        raise ArchiveError(f"not a {FORMAT2} record: {exc}") from None
    try:
        count = int(meta["n"])
        codes, flips = columns[:count], columns[count : 2 * count]
        gaps = _varints(columns[2 * count :])
        if len(flips) != count or len(gaps) != max(count - 1, 0) or max(flips, default=0) > 1:
            raise ValueError("columns of different lengths")
        seats, expected = [], 0
        for code, flip in zip(codes, flips, strict=True):
            seats.append(expected ^ flip)
            expected = seats[-1] ^ (code in _TURN_ENDS)
        stamps = [_stamp(second) for second in accumulate(gaps, initial=meta["t0"])] if count else []
        actions = list(zip(seats, [TOKENS[code] for code in codes], stamps, strict=True))
        chat = [(room, seat, text, at) for room, seat, text, at in meta["chat"]]
        return ArchivedRows(list(meta["reshuffles"]), actions, meta["clock"], chat, meta["variant"], meta["deal"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ArchiveError(f"a damaged {FORMAT2} record: {exc}") from None


def _varint(number: int) -> bytes:
    """``number`` zigzag-encoded (a gap may be negative), seven bits a byte, low bits first."""
    value = number * 2 if number >= 0 else -number * 2 - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _varints(data: bytes) -> list[int]:
    numbers, value, shift = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            numbers.append(value >> 1 if value % 2 == 0 else -(value + 1) // 2)
            value, shift = 0, 0
    if shift:
        raise ValueError("a gap cut short")
    return numbers


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
