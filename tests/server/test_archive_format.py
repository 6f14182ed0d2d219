"""The archive record's two formats (``db/archive_format.py``): ``kahuna-archive/2`` gives back
exactly the rows it was made of, falls back to ``/1`` for rows it cannot hold, and a damaged record
is refused rather than read wrong; ``/1`` records are still read."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from kahuna.rules import GameState
from kahuna.rules.actions import ALL_ACTIONS
from kahuna.server.db.archive_format import (
    MARK2,
    TOKENS,
    ArchivedRows,
    ArchiveError,
    holds_game_columns,
    pack,
    pack_v1,
    unpack,
)

CLOCK = {
    "control": '{"initial": 300, "increment": 3}',
    "remaining0": 281.25,
    "remaining1": 0.0,
    "running": None,
    "since": None,
    "starts_by": None,
}


def rows_of(seed: int, gap: int = 5, clock: dict[str, object] | None = None) -> ArchivedRows:
    """A game played to its end with random legal actions, an action every ``gap`` seconds or so."""
    rng = random.Random(seed)
    state = GameState.new(rng)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    second = 1_767_225_600 + seed
    played = []
    for seat, action in state.history:
        second += rng.randrange(gap + 1)
        played.append((seat, action.token, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")))
    chat = [("players", 0, "gg", "2026-01-01T00:00:03Z"), ("spectators", None, "héllo\n", "2026-01-01T00:01:00Z")]
    return ArchivedRows(["".join(sorted("ABCDEFGHIJKL" * 2))[:20]], played, clock, chat)


def test_the_tokens_are_the_rules_action_indices() -> None:
    assert list(TOKENS) == [action.token for action in ALL_ACTIONS]


@pytest.mark.parametrize("seed", range(8))
def test_a_played_game_comes_back_exactly(seed: int) -> None:
    rows = rows_of(seed, gap=[0, 5, 300, 90_000][seed % 4], clock=CLOCK if seed % 2 else None)
    value = pack(rows)
    assert value[:1] == MARK2
    assert unpack(value) == rows
    assert len(value) < len(pack_v1(rows))


def test_an_empty_game_comes_back() -> None:
    rows = ArchivedRows()
    assert pack(rows)[:1] == MARK2 and unpack(pack(rows)) == rows


def test_times_going_back_come_back() -> None:
    rows = rows_of(1)
    rows.actions[5] = (rows.actions[5][0], rows.actions[5][1], "2025-12-31T23:00:00Z")
    assert pack(rows)[:1] == MARK2 and unpack(pack(rows)) == rows


@pytest.mark.parametrize(
    "change",
    [
        lambda rows: rows.actions.__setitem__(0, (0, "x??", rows.actions[0][2])),  # a token no rule knows
        lambda rows: rows.actions.__setitem__(0, (2, rows.actions[0][1], rows.actions[0][2])),  # a third seat
        lambda rows: rows.actions.__setitem__(0, (0, rows.actions[0][1], "2026-01-01T00:00:00.5Z")),  # a fraction
    ],
)
def test_rows_that_do_not_fit_are_written_as_format_1(change: object) -> None:
    rows = rows_of(2)
    change(rows)  # type: ignore[operator]
    value = pack(rows)
    assert value == pack_v1(rows) and unpack(value) == rows


def test_format_1_records_are_still_read() -> None:
    rows = rows_of(3, clock=CLOCK)
    assert unpack(pack_v1(rows)) == rows


def test_a_damaged_record_is_refused() -> None:
    value = pack(rows_of(4))
    for damaged in (value[:-1], value[:20], value[:40] + bytes([value[40] ^ 1]) + value[41:], MARK2, b""):
        with pytest.raises(ArchiveError):
            unpack(damaged)


def test_format_2_holds_the_variant_and_the_deal() -> None:
    rows = rows_of(5, clock=CLOCK)
    rows.variant, rows.deal = '{"no_build_at_enemy_stone": false, "replace_on_remove": true}', "ABCDEFGHIJKL" * 2
    value = pack(rows)
    assert holds_game_columns(value) and unpack(value) == rows
    rows.actions[0] = (0, "x??", rows.actions[0][2])
    value = pack(rows)  # /1: the games row keeps them
    assert not holds_game_columns(value) and unpack(value).variant is None and unpack(value).deal is None
