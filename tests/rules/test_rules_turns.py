"""Drawing, declining, the hand limit, rounds, scoring, tie-breaks, the early end and variants."""

from __future__ import annotations

import random

import pytest
from positions import event_types, position, tokens

from kahuna.rules import GameRecord, GameState, IllegalActionError, NotationError, RecordError, Termination, Variant


def test_taking_from_display_refills_from_deck_and_ends_turn() -> None:
    s = position(hands=("E", "K"), display="ABC", deck="DF")
    events = s.apply("dB")
    t = s.to_json()
    assert t["hands"][0] == "BE" and t["display"] == "ACD" and t["deck"] == "F"
    assert s.to_move == 1
    assert event_types(events) == ["card_taken", "display_refilled"]
    assert s.known[0][1] == 1  # taken face up: public


def test_deck_draw_is_hidden_from_the_opponent() -> None:
    s = position(hands=("E", "K"), display="ABC", deck="DF")
    (event,) = s.apply("d?")
    assert event.to_json()["card"] == "D"
    assert event.seen_by(1).to_json()["card"] is None
    assert event.seen_by(None).to_json()["card"] is None
    assert event.seen_by(0).to_json()["card"] == "D"


def test_decline_then_opponent_may_not_decline() -> None:
    s = position(hands=("E", "K"), display="ABC", deck="DF")
    s.apply("pass")
    assert s.declined and "pass" not in tokens(s)
    before = s.to_json()
    with pytest.raises(IllegalActionError, match="you may not decline: your opponent declined last turn"):
        s.apply("pass")
    assert s.to_json() == before
    s.apply("d?")
    assert not s.declined and "pass" in tokens(s)


def test_five_cards_after_a_decline_must_discard_before_drawing() -> None:
    s = position(hands=("E", "ABCDK"), display="FGH", deck="IJ", to_move=0)
    s.apply("pass")
    legal = tokens(s)
    assert legal == ["-A", "-B", "-C", "-D", "-K"] + [t for t in legal if ">" in t or t.startswith("x")]
    assert not any(t.startswith("d") for t in legal) and "pass" not in legal
    with pytest.raises(IllegalActionError, match="discard one before taking"):
        s.apply("d?")
    s.apply("-K")
    assert "d?" in tokens(s) and "dF" in tokens(s)
    assert s.to_json()["discard"].count("K") == 2  # the other K was already in the pile


def test_discard_is_face_down_and_forgets_known_cards() -> None:
    s = position(hands=("E", "K"), display="ABC", deck="DF")
    s.apply("dA")  # Black is known to hold A
    s.apply("d?")
    assert s.known[0][0] == 1
    s.apply("-E")  # a face-down discard: it could have been the A
    assert s.known[0][0] == 0
    (event,) = s.apply("-A")
    assert event.seen_by(1).to_json() == {"type": "card_discarded", "seat": 0, "card": None}


def test_round_end_scores_and_reshuffles() -> None:
    s = position(bridges={"AB": 0, "AD": 0}, stones={"A": 0}, hands=("E", "K"), display="C", deck="", to_move=1)
    s.reshuffle_queue = ["".join(sorted(s.to_json()["discard"]))]
    events = s.apply("dC")
    t = s.to_json()
    assert t["round"] == 2 and t["points"] == [[1, 0, 0], [0, 0, 0]]
    assert len(t["display"]) == 3 and len(t["deck"]) == len(s.reshuffles[0]) - 3
    assert t["discard"] == "" and s.to_move == 0
    assert event_types(events)[:2] == ["card_taken", "round_scored"]
    assert "reshuffled" in event_types(events)


def test_early_end_at_the_start_of_round_two() -> None:
    s = position(bridges={"AB": 0}, hands=("E", "K"), display="C", deck="", to_move=1)
    s.reshuffle_queue = [s.to_json()["discard"]]
    events = s.apply("dC")
    assert s.is_over and s.outcome is not None
    assert (s.outcome.winner, s.outcome.reason) == (0, "no-bridges")
    assert event_types(events)[-1] == "game_over"
    assert s.legal_actions() == []


def test_no_early_end_in_round_one_and_when_both_have_none() -> None:
    s = position(bridges={"AB": 1}, hands=("AB", ""), display="CDE", deck="FG")
    s.apply("xAB:AB")  # round 1: nobody has a bridge, nothing happens
    assert not s.is_over
    s2 = position(bridges={"AB": 1}, hands=("ABC", ""), display="DEF", deck="GH", round=2)
    s2.apply("xAB:AB")  # round 2, both without bridges: not an early end
    assert not s2.is_over
    s2.apply("C>F")  # now Black has one and White none: the game ends at once
    assert s2.outcome is not None and (s2.outcome.winner, s2.outcome.reason) == (0, "no-bridges")


def test_missing_reshuffle_order_is_a_record_error_and_changes_nothing() -> None:
    s = position(bridges={"AB": 0}, hands=("E", "K"), display="C", deck="", to_move=1)
    before = s.to_json()
    with pytest.raises(RecordError, match="reshuffle order is needed for round 2"):
        s.apply("dC")
    assert s.to_json() == before
    s.reshuffle_queue = ["ABC"]
    with pytest.raises(RecordError, match="not an ordering of the discard pile"):
        s.apply("dC")
    assert s.to_json() == before


def _final(bridges: dict[str, int], stones: dict[str, int], points: list[list[int]]) -> GameState:
    s = position(bridges=bridges, stones=stones, hands=("", ""), round=3, phase="final", final_turns=2, points=points)
    assert tokens(s) == ["end"]
    return s


def test_final_turns_without_drawing_then_final_scoring_difference() -> None:
    s = _final({"AB": 0, "AD": 0, "EJ": 1}, {"A": 0}, [[0, 2, 0], [1, 0, 0]])
    s.apply("end")
    assert s.to_move == 1 and s.final_turns == 1
    events = s.apply("end")
    assert s.outcome is not None and (s.outcome.winner, s.outcome.reason) == (0, "points")
    assert s.points == [[0, 2, 1], [1, 0, 0]]  # round 3 is scored once: the stone difference
    assert event_types(events) == ["turn_ended", "round_scored", "game_over"]


def test_no_points_when_round_three_ends_only_at_the_final_scoring() -> None:
    """Taking round 3's last card scores nothing (all four sources): the last turns begin, and
    an early end during them leaves round 3 unscored."""
    s = position(
        bridges={"AB": 0, "AD": 0, "EJ": 1}, stones={"A": 0}, hands=("E", "K"), display="C", deck="",
        round=3, points=[[0, 2, 0], [1, 0, 0]],
    )  # fmt: skip
    events = s.apply("dC")
    assert event_types(events) == ["card_taken", "final_turns_began"]
    assert s.phase == "final" and s.points == [[0, 2, 0], [1, 0, 0]]
    s.apply("end")  # White's last turn (no cards), then Black's
    events = s.apply("end")
    assert [e.to_json() for e in events if e.to_json()["type"] == "round_scored"] == [
        {"type": "round_scored", "round": 3, "stones": [1, 0], "points": [1, 0], "final": True}
    ]


def test_early_end_in_the_last_turns_gives_no_round_three_points() -> None:
    s = position(
        bridges={"AB": 0, "EJ": 1}, hands=("EJ", ""), display="C", deck="", round=3, points=[[0, 0, 0], [1, 0, 0]]
    )
    s.apply("dC")  # Black takes round 3's last card: the last turns begin with White's
    s.apply("end")
    s.apply("xEJ:EJ")  # Black removes White's only bridge: the game ends early
    assert s.outcome is not None and s.outcome.reason == "no-bridges"
    assert s.points == [[0, 0, 0], [1, 0, 0]] and s.to_json()["points"][0][2] == 0


def test_tie_break_final_scoring() -> None:
    s = _final({"AB": 0, "AD": 0, "EJ": 1}, {"A": 0}, [[0, 0, 0], [0, 2, 0]])
    s.apply("end")
    s.apply("end")
    assert s.points == [[0, 0, 1], [0, 2, 0]]  # totals 1 and 2: White on points
    assert s.outcome is not None and s.outcome.reason == "points" and s.outcome.winner == 1
    s = _final({"AB": 0, "AD": 0, "AH": 0, "DH": 0, "DE": 0, "EJ": 1}, {"A": 0, "D": 0}, [[0, 0, 0], [0, 2, 0]])
    s.apply("end")
    s.apply("end")
    assert s.points == [[0, 0, 2], [0, 2, 0]]
    assert s.outcome is not None and (s.outcome.winner, s.outcome.reason) == (0, "final-scoring")


def test_tie_break_bridges_and_draw() -> None:
    s = _final({"AB": 0, "EJ": 1, "KL": 1}, {}, [[0, 0, 0], [0, 0, 0]])
    s.apply("end")
    s.apply("end")
    assert s.outcome is not None and (s.outcome.winner, s.outcome.reason) == (1, "bridges")
    s = _final({"AB": 0, "EJ": 1}, {}, [[0, 0, 0], [0, 0, 0]])
    s.apply("end")
    s.apply("end")
    assert s.outcome is not None and (s.outcome.winner, s.outcome.reason) == (None, "draw")
    assert s.to_json()["result"] == {"winner": None, "reason": "draw"}


def test_end_only_in_final_turns_and_no_drawing_there() -> None:
    s = position(hands=("E", "K"), display="ABC", deck="DF")
    with pytest.raises(IllegalActionError, match="'end' is only for the two last turns"):
        s.apply("end")
    f = _final({"AB": 0}, {}, [[0, 0, 0], [0, 0, 0]])
    with pytest.raises(IllegalActionError, match="nobody draws"):
        f.apply("pass")


def test_variant_no_build_at_enemy_stone() -> None:
    v = Variant(no_build_at_enemy_stone=True)
    s = position(bridges={"AB": 1, "AD": 1}, stones={"A": 1}, hands=("H", ""), display="CEF", deck="GI", variant=v)
    assert "H>A" not in tokens(s) and "H>D" in tokens(s)
    with pytest.raises(IllegalActionError, match="opposing stone"):
        s.apply("H>A")
    plain = position(bridges={"AB": 1, "AD": 1}, stones={"A": 1}, hands=("H", ""), display="CEF", deck="GI")
    assert "H>A" in tokens(plain)


def test_variant_replace_on_remove_claims_and_obeys_first_variant_after_removal() -> None:
    v = Variant(replace_on_remove=True)
    s = position(bridges={"AB": 1, "AD": 0}, hands=("AB", ""), display="CEF", deck="GI", variant=v)
    assert "xAB:AB+" in tokens(s) and "xAB:AB" in tokens(s)
    events = s.apply("xAB:AB+")
    assert s.to_json()["bridges"]["AB"] == 0 and s.to_json()["stones"]["A"] == 0
    assert event_types(events) == ["bridge_removed", "bridge_built", "island_claimed"]
    assert events[1].to_json()["card"] is None
    both = Variant(no_build_at_enemy_stone=True, replace_on_remove=True)
    # White's stone on A rests on AB and AD (2 of 3): removing AB costs it, so '+' is allowed.
    s2 = position(bridges={"AB": 1, "AD": 1}, stones={"A": 1}, hands=("AB", ""), display="CEF", deck="GI", variant=both)
    assert "xAB:AB+" in tokens(s2)
    # With AB, AD, AH all White the stone survives the removal: '+' is not allowed.
    s3 = position(
        bridges={"AB": 1, "AD": 1, "AH": 1}, stones={"A": 1}, hands=("AB", ""), display="CEF", deck="GI", variant=both
    )
    assert "xAB:AB" in tokens(s3) and "xAB:AB+" not in tokens(s3)
    plain = position(bridges={"AB": 1}, hands=("AB", ""), display="CEF", deck="GI")
    with pytest.raises(IllegalActionError, match="only allowed with variant replace_on_remove"):
        plain.apply("xAB:AB+")


def test_bad_input_gets_clear_errors_and_changes_nothing() -> None:
    s = GameState.new(random.Random(4))
    before = s.to_json()
    for bad, error, text in [
        ("A>C", NotationError, "no line between A and C"),
        ("Z>A", NotationError, "capital letters"),
        ("xEJ:KK", NotationError, "is written xEJ:XY"),
        ("", NotationError, "empty"),
        ("draw", NotationError, "not an action"),
        ("end", IllegalActionError, "only for the two last turns"),
    ]:
        with pytest.raises(error, match=text):
            s.apply(bad)
        assert s.to_json() == before
    for action in s.legal_actions():
        assert isinstance(action.token, str)
    missing = next(c for c in "ABCDEFGHIJKL" if c not in before["hands"][0])
    with pytest.raises(IllegalActionError, match=f"you hold no {missing} card"):
        s.apply(f"-{missing}")
    assert s.to_json() == before
    assert issubclass(IllegalActionError, ValueError) and issubclass(NotationError, ValueError)


@pytest.mark.parametrize(
    ("reason", "seat", "winner"),
    [("resign", 0, 1), ("timeout", 1, 0), ("aborted", 1, None), ("left", 0, 1), ("left-draw", 1, None)],
)  # fmt: skip
def test_a_record_termination_ends_the_game_off_the_board(reason: str, seat: int, winner: int | None) -> None:
    state = GameState.new(random.Random(11))
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    before = state.to_json()
    events = state.terminate(Termination(reason, seat))
    assert [e.to_json() for e in events] == [{"type": "game_over", "winner": winner, "reason": reason}]
    after = state.to_json()
    assert after["result"] == {"winner": winner, "reason": reason} and after["to_move"] is None
    assert after["phase"] == "over" and after["points"] == before["points"] and after["hands"] == before["hands"]
    record = GameRecord.of(state)
    assert record.to_json()["termination"] == {"reason": reason, "seat": seat}
    again = GameRecord.loads(record.dumps()).replay()
    assert again.to_json() == after and again.termination == Termination(reason, seat)
    assert GameState.from_json(state.to_json(complete=True)).to_json(complete=True) == state.to_json(complete=True)
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.terminate(Termination("resign", 1 - seat))


@pytest.mark.parametrize(
    "termination",
    [{"reason": "surrender", "seat": 0}, {"reason": "resign", "seat": 2}, {"reason": "resign", "seat": True},
     {"reason": "resign"}, "resign", {"reason": "resign", "seat": 0, "extra": 1}],
)  # fmt: skip
def test_malformed_terminations_are_record_errors(termination: object) -> None:
    data = GameRecord.of(GameState.new(random.Random(3))).to_json()
    data["termination"] = termination
    with pytest.raises(RecordError):
        GameRecord.from_json(data)


def test_a_termination_after_the_game_ended_on_the_board_is_malformed() -> None:
    state = GameState.new(random.Random(5))
    while not state.is_over:
        state.apply(state.legal_actions()[-1])
    data = GameRecord.of(state).to_json()
    data["termination"] = {"reason": "resign", "seat": 0}
    with pytest.raises(RecordError, match="already ended"):
        GameRecord.from_json(data).replay()
