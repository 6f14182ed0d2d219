"""The action codec and the observation encoding."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

# The rl extra: skipped without it, required in CI (tests/envs/conftest.py).
pytest.importorskip("numpy")

import numpy as np

from kahuna.envs.codec import NUM_ACTIONS, decode, encode, legal_indices, mask_of, view_mask
from kahuna.envs.observation import LAYOUT, OBS_SIZE, OFFSETS, encode_view
from kahuna.rules import ALL_ACTIONS, GameState, NotationError, Variant, determinize, view_of

pytestmark = pytest.mark.rl

RESEARCH_DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def positions(seed: int, games: int, variant: Variant | None = None) -> list[GameState]:
    """Every position of a few uniformly random games."""
    out = []
    for g in range(games):
        rng = random.Random(seed * 1000 + g)
        state = GameState.new(random.Random(seed * 1000 + g), variant)
        while not state.is_over:
            out.append(state.copy())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return out


def test_codec_is_the_engine_index_both_ways() -> None:
    assert NUM_ACTIONS == 243
    for i, action in enumerate(ALL_ACTIONS):
        assert encode(action) == encode(action.token) == i
        assert decode(i) is action
    assert encode("E>J") == 2 * 15 + 0  # EJ is line 15; the E card is its first end
    assert encode("xEJ:EJ") == 54 + 3 * 15 + 1
    assert decode(np.int64(242)).token == "end"


@pytest.mark.parametrize("bad", [-1, 243])
def test_decode_out_of_range_is_a_notation_error(bad: int) -> None:
    with pytest.raises(NotationError):
        decode(bad)


def test_masks_from_state_and_from_view_agree() -> None:
    for state in positions(seed=1, games=3, variant=Variant(replace_on_remove=True))[::3]:
        mask = mask_of(state.legal_actions())
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert list(np.flatnonzero(mask)) == legal_indices(state)
        assert np.array_equal(view_mask(view_of(state, state.to_move)), mask)


def test_observation_is_bounded_and_relative_to_the_viewer() -> None:
    for state in positions(seed=2, games=4):
        for seat in (0, 1):
            obs = encode_view(view_of(state, seat))
            assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert obs[OFFSETS["seat"]][0] == seat
            assert obs[OFFSETS["my_bridges"]].sum() == state.bridges_on_board(seat)
            assert obs[OFFSETS["their_bridges"]].sum() == state.bridges_on_board(1 - seat)


def test_observation_depends_on_the_view_only() -> None:
    """Two worlds the viewer cannot tell apart give the same observation."""
    for state in positions(seed=3, games=2)[::5]:
        seat = state.to_move
        view = view_of(state, seat)
        other_world = determinize(view, random.Random(9))
        assert np.array_equal(encode_view(view_of(other_world, seat)), encode_view(view))


def test_spectator_views_are_refused() -> None:
    with pytest.raises(ValueError, match="spectator"):
        encode_view(view_of(GameState.new(random.Random(0)), None))


def test_every_observation_block_is_in_the_documented_table() -> None:
    table = RESEARCH_DOC.read_text(encoding="utf-8")
    for name, length in LAYOUT:
        block = OFFSETS[name]
        where = str(block.start) if length == 1 else f"{block.start}–{block.stop - 1}"
        assert f"| `{name}` | {where} | {length} |" in table, name
