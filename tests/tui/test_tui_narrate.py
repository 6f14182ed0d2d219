"""Events in words: a claim with its returned bridges and lost stone in one sentence, hidden cards
staying hidden, whole recorded games."""

from __future__ import annotations

from pathlib import Path

from kahuna.narrate import narrate, narrate_for, outcome_words
from kahuna.rules import GameRecord
from kahuna.rules.board import LETTERS, LINE_INDEX
from kahuna.rules.events import (
    BridgeBuilt,
    BridgeRemoved,
    BridgeReturned,
    CardDiscarded,
    CardTaken,
    DisplayRefilled,
    GameOver,
    IslandClaimed,
    StoneLost,
)

EXAMPLES = Path(__file__).parent.parent / "rules" / "examples"


def isl(letter: str) -> int:
    return LETTERS.index(letter)


def test_a_claim_with_returned_bridges_and_a_lost_stone() -> None:
    events = [
        BridgeBuilt(1, isl("E"), LINE_INDEX["EJ"]),
        IslandClaimed(1, isl("J")),
        BridgeReturned(0, LINE_INDEX["JK"]),
        StoneLost(0, isl("K")),
        BridgeReturned(0, LINE_INDEX["GJ"]),
    ]
    assert narrate(events) == (
        "White builds ELAI–JOJO and claims JOJO; Black's bridges JOJO–KAHU and JOJO–GOLA return; Black loses KAHU."
    )


def test_removal_and_the_end_of_the_game() -> None:
    events = [
        BridgeRemoved(0, 1, LINE_INDEX["EJ"], (isl("E"), isl("E"))),
        StoneLost(1, isl("J")),
        GameOver(0, "no-bridges"),
    ]
    assert narrate(events) == (
        "Black removes White's bridge ELAI–JOJO with ELAI and ELAI; White loses JOJO. "
        "Black wins at once: White has no bridge left on the board."
    )


def test_hidden_cards_are_named_only_for_their_owner() -> None:
    draw = [CardTaken(0, isl("K"), from_display=False)]
    discard = [CardDiscarded(1, isl("A"))]
    assert narrate_for(draw, 0) == "Black draws KAHU from the deck."
    assert narrate_for(draw, 1) == "Black draws from the deck."
    assert narrate_for(draw, None) == "Black draws from the deck."
    assert narrate_for(discard, 1) == "White discards ALOA face down."
    assert narrate_for(discard, 0) == "White discards a card face down."
    taken = [CardTaken(1, isl("C"), from_display=True), DisplayRefilled(isl("L"))]
    assert narrate_for(taken, 0) == "White takes COCO from the display; LALE turns up."


def test_every_action_of_every_example_game_is_told() -> None:
    for path in sorted(EXAMPLES.glob("*.record.json")):
        record = GameRecord.loads(path.read_text())
        state = record.start()
        for token in record.actions:
            text = narrate_for(state.apply(token), None)
            assert text.endswith(".") and "Event" not in text, (path.name, token, text)
        assert state.is_over
        assert text.split(". ")[-1].rstrip(".").startswith(("White wins", "Black wins", "The game is a draw"))


def test_games_ended_off_the_board_are_told_as_such() -> None:
    assert outcome_words(1, "resign") == "Black resigned: White wins"
    assert outcome_words(0, "timeout") == "White ran out of time: Black wins"
    assert outcome_words(None, "aborted") == "The game was aborted: nobody wins"
