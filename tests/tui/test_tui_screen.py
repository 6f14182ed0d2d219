"""The screen: fits 80×24, grows with the terminal, reads without colour, shows only the view."""

from __future__ import annotations

import random

from kahuna.rules import GameState, view_of
from kahuna.rules.board import LINE_INDEX, NAMES
from kahuna.tui.board import draw_board
from kahuna.tui.screen import Frame, render, visible_len
from kahuna.tui.style import Style


def midgame(seed: int, actions: int) -> GameState:
    state = GameState.new(random.Random(seed))
    rng = random.Random(seed)
    for _ in range(actions):
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_the_screen_fits_80x24_and_uses_more_room_when_there_is_some() -> None:
    state = midgame(3, 60)
    words = ["Last turn (White): " + "White builds ELAI–JOJO and claims JOJO; " * 3]
    for cols, rows in ((80, 24), (120, 40)):
        for colour in (False, True):
            lines = render(Frame(view_of(state, 0), words=words, message=["one", "two"]), cols, rows, Style(colour))
            assert len(lines) == rows - 1  # the prompt takes the last row
            assert all(visible_len(line) <= cols for line in lines)
            assert ("\x1b[" in "".join(lines)) is colour
    small = render(Frame(view_of(state, 0)), 80, 24, Style(False))
    big = render(Frame(view_of(state, 0)), 120, 40, Style(False))
    assert max(map(len, big)) > max(map(len, small))


def test_every_island_and_line_is_drawn_with_its_owner() -> None:
    state = GameState.from_deal("ABEEJKCDFGGHHIIJKLLABCDF")
    state.apply("E>J")
    lines = draw_board(tuple(state.bridges), tuple(state.stones), 49, 17, Style(False))
    text = "\n".join(lines)
    assert all(text.count(name) == 1 for name in NAMES)
    assert "#" in text and "o" not in text.replace("COCO", "").replace("ALOA", "").replace("GOLA", "")
    assert text.count("·") > 60
    bridges = [-1] * len(LINE_INDEX)
    bridges[LINE_INDEX["EJ"]] = 1
    stones = [-1] * 12
    stones[9] = 1
    white = "\n".join(draw_board(tuple(bridges), tuple(stones), 49, 17, Style(False)))
    assert "○JOJO" in white and "#" not in white


def test_a_player_sees_only_their_own_hand() -> None:
    state = GameState.from_deal("ABEEJKCDFGGHHIIJKLLABCDF")
    black = "\n".join(render(Frame(view_of(state, 0)), 80, 24, Style(False)))
    assert "ALOA BARI ELAI" in black and "JOJO KAHU" not in black and "White holds 3 cards" in black
    spectator = "\n".join(render(Frame(view_of(state, None)), 80, 24, Style(False)))
    assert "ALOA BARI ELAI" not in spectator and "Black holds 3 cards" in spectator
    state.apply("dC")
    white = "\n".join(render(Frame(view_of(state, 1)), 80, 24, Style(False)))
    assert "ELAI JOJO KAHU" in white and "known: COCO" in white


def test_long_words_and_messages_never_push_the_screen_past_its_height() -> None:
    state = midgame(5, 80)
    words = [f"Before (Black): {'Black builds ELAI–JOJO; ' * 12}", f"Last turn (White): {'White passes; ' * 30}"]
    for message in ([], ["short"], [f"line {i}" for i in range(30)]):
        lines = render(Frame(view_of(state, 1), words=words, message=message), 80, 24, Style(False))
        assert len(lines) == 23
        text = "\n".join(lines)
        assert "ALOA" in text and "LALE" in text
    assert "Last turn (White)" in "\n".join(render(Frame(view_of(state, 1), words=words), 80, 24, Style(False)))
