"""Building, claiming, cascades and stone supply on hand-built positions."""

from __future__ import annotations

import pytest
from positions import event_types, position

from kahuna.rules import IllegalActionError
from kahuna.rules.board import LETTERS


def test_build_puts_bridge_and_discards_card_face_up() -> None:
    s = position(hands=("EK", "B"), display="ACD", deck="FG")
    events = s.apply("E>J")
    assert s.to_json()["bridges"]["EJ"] == 0
    assert s.to_json()["hands"][0] == "K"
    assert "E" in s.to_json()["discard"]
    assert s.supply_bridges[0] == 24
    assert event_types(events) == ["bridge_built"]
    assert s.to_move == 0  # card play does not end the turn


def test_one_bridge_claims_both_islands() -> None:
    # ALOA (3 lines, needs 2) and LALE... use A and D: A needs 2 of AB AD AH; D needs 3 of AD BD DE DH.
    s = position(bridges={"AB": 0, "BD": 0, "DE": 0}, hands=("A", ""), display="CFG", deck="HI")
    events = s.apply("A>D")
    assert s.stones[LETTERS.index("A")] == 0
    assert s.stones[LETTERS.index("D")] == 0
    assert event_types(events) == ["bridge_built", "island_claimed", "island_claimed"]
    assert s.supply_stones[0] == 8


def test_claim_returns_all_opposing_bridges_and_costs_two_stones() -> None:
    # White (1) holds BARI with AB BD BF (3 of 5) and GOLA with FG GJ GK (3 of 4); Black holds CF EF.
    s = position(
        bridges={"AB": 1, "BD": 1, "BF": 1, "FG": 1, "GJ": 1, "GK": 1, "CF": 0, "EF": 0},
        stones={"B": 1, "G": 1},
        hands=("F", ""),
        display="ADE",
        deck="HI",
    )
    events = s.apply("F>J")  # Black: CF EF FJ = 3 of 5 on FAAA → claims it, returns BF and FG
    t = s.to_json()
    assert t["stones"]["F"] == 0
    assert t["bridges"]["BF"] is None and t["bridges"]["FG"] is None
    assert t["stones"]["B"] is None and t["stones"]["G"] is None  # both White stones lost
    assert s.supply_stones[1] == 10 and s.supply_bridges[1] == 25 - 4
    assert event_types(events) == [
        "bridge_built",
        "island_claimed",
        "bridge_returned",
        "stone_lost",
        "bridge_returned",
        "stone_lost",
    ]
    assert s.invariant_violation() is None


def test_claim_is_compulsory_and_needs_a_free_island() -> None:
    s = position(bridges={"AB": 1, "AH": 1}, stones={"A": 1}, hands=("D", ""), display="CEF", deck="GI")
    s.apply("D>A")  # Black has 1 of 3 on A; A carries White's stone: nothing is claimed
    assert s.to_json()["stones"]["A"] == 1


def test_no_stone_left_means_no_claim_and_no_removal() -> None:
    stones = {x: 0 for x in "BCEFGHIJKL"}  # ten Black stones on the board
    bridges = {
        # enough Black bridges to justify every stone
        "BC": 0, "BD": 0, "BE": 0, "BF": 0, "CF": 0, "CG": 0, "CK": 0, "EF": 0, "EH": 0, "EI": 0,
        "EJ": 0, "FG": 0, "FJ": 0, "GJ": 0, "GK": 0, "HI": 0, "HL": 0, "IJ": 0, "IK": 0, "IL": 0,
        "JK": 0, "KL": 0, "DE": 0,
        "AH": 1,
    }  # fmt: skip
    s = position(bridges=bridges, stones=stones, hands=("A", ""), display="CEF", deck="GI")
    assert s.supply_stones[0] == 0
    events = s.apply("A>D")
    # Black now holds AD, BD, DE: 3 of DUDA's 4 lines, but all ten Black stones are on the board.
    assert event_types(events) == ["bridge_built"]
    assert s.counts[0][LETTERS.index("D")] == 3
    assert s.to_json()["stones"]["D"] is None
    assert s.to_json()["bridges"]["AH"] == 1


def test_removal_returns_bridge_and_costs_stone() -> None:
    s = position(bridges={"AB": 1, "AD": 1, "EJ": 0}, stones={"A": 1}, hands=("AB", ""), display="CEF", deck="GI")
    events = s.apply("xAB:AB")
    t = s.to_json()
    assert t["bridges"]["AB"] is None
    assert t["stones"]["A"] is None
    assert t["hands"][0] == ""
    assert event_types(events) == ["bridge_removed", "stone_lost"]
    assert s.supply_bridges[1] == 24 and s.supply_stones[1] == 10


def test_removal_card_rules() -> None:
    s = position(bridges={"EJ": 1}, hands=("EK", ""), display="ABC", deck="DF")
    assert "xEJ:EK" not in [a.token for a in s.legal_actions()]
    with pytest.raises(IllegalActionError, match="you hold only one E card"):
        s.apply("xEJ:EE")
    with pytest.raises(IllegalActionError, match="you hold no J card"):
        s.apply("xEJ:JJ")
    s2 = position(bridges={"EJ": 0}, hands=("EE", ""), display="ABC", deck="DF")
    with pytest.raises(IllegalActionError, match="the bridge on EJ is your own"):
        s2.apply("xEJ:EE")
    with pytest.raises(IllegalActionError, match="line EJ is occupied"):
        s2.apply("E>J")


def test_rebuilding_on_a_freed_line_needs_a_further_card() -> None:
    s = position(bridges={"EJ": 1}, hands=("EEJ", ""), display="ABC", deck="DF")
    s.apply("xEJ:EE")
    s.apply("J>E")
    assert s.to_json()["bridges"]["EJ"] == 0
    assert s.hand_size[0] == 0


def test_no_bridge_in_supply_forbids_building() -> None:
    s = position(hands=("E", ""), display="ABC", deck="DF")
    s.supply_bridges[0] = 0  # as if all 25 were on the board
    assert not any(a.token.startswith("E>") for a in s.legal_actions())
    with pytest.raises(IllegalActionError, match="no bridge left"):
        s.apply("E>J")
