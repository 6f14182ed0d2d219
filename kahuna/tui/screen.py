"""One screen of the game, composed from a player view: header, map, side panel, words, prompt.

Everything shown comes from a :class:`~kahuna.rules.PlayerView` (plus, for replays of finished
games, hands the record reveals), so a screen can never show a card its viewer may not know.
The layout fits 80×24 and gives the map any extra room.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from kahuna.rules import Phase, PlayerView
from kahuna.rules.board import BRIDGES_PER_PLAYER, NAMES, NUM_ISLANDS, SEAT_NAMES, STONES_PER_PLAYER
from kahuna.tui.board import MIN_HEIGHT, draw_board
from kahuna.tui.style import BRIDGE_GLYPHS, FREE_GLYPH, STONE_GLYPHS, Style

PANEL_WIDTH = 30
WORDS_ROWS = 5
"""Rows under the map for the last turn's events and messages before the map has to shrink."""
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")


def visible_len(text: str) -> int:
    return len(_ESCAPES.sub("", text))


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - visible_len(text))


def card_names(counts: tuple[int, ...] | list[int]) -> str:
    """``ALOA ELAI ELAI``: a card multiset by island names, in letter order."""
    return " ".join(NAMES[c] for c in range(NUM_ISLANDS) for _ in range(counts[c])) or "none"


@dataclass
class Frame:
    """What to show: the view and the words around it."""

    view: PlayerView
    title: str = "KAHUNA"
    words: list[str] = field(default_factory=list)
    """Sentences about the last turn(s), oldest first."""
    message: list[str] = field(default_factory=list)
    """Answers to the user: errors, the legal actions, notices."""
    hands: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    """Both hands, only when the whole game is public (replays of a record)."""


def header(view: PlayerView) -> str:
    """Round, points and whose turn, in one short line (the full outcome is told in words)."""
    if view.phase is Phase.OVER and view.outcome is not None:
        winner = view.outcome.winner
        state = "game over: a draw" if winner is None else f"game over: {SEAT_NAMES[winner]} wins"
    else:
        mover = SEAT_NAMES[view.to_move or 0]
        if view.phase is Phase.FINAL:
            state = f"last turns, no drawing · {mover} to move"
        else:
            state = f"{mover} to move" + (" · may not pass" if view.declined else "")
    totals = ", ".join(f"{SEAT_NAMES[s]} {sum(view.points[s])}" for s in (0, 1))
    return f"Round {view.round}/3 · points {totals} · {state}"


def panel(frame: Frame, style: Style) -> list[str]:
    """The side panel: hands, display, deck, the opponent's known cards, counts and points."""
    view = frame.view
    out: list[str] = []
    width = PANEL_WIDTH

    def wrapped(label: str, text: str) -> None:
        out.extend(textwrap.wrap(f"{label}{text}", width, subsequent_indent="  "))

    seats = (0, 1) if view.seat is None else (view.seat, 1 - view.seat)
    for seat in seats:
        name = style.seat(seat, SEAT_NAMES[seat])
        if seat == view.seat and view.hand is not None:
            out.append(f"Your hand ({name}):")
            out.extend(textwrap.wrap(card_names(view.hand), width, initial_indent="  ", subsequent_indent="  "))
        elif frame.hands is not None:
            out.append(f"{name}'s hand:")
            out.extend(textwrap.wrap(card_names(frame.hands[seat]), width, initial_indent="  ", subsequent_indent="  "))
        else:
            out.append(f"{name} holds {view.hand_sizes[seat]} card{'s' if view.hand_sizes[seat] != 1 else ''}")
            if any(view.known[seat]):
                wrapped("  known: ", card_names(view.known[seat]))
    wrapped("Display: ", card_names(view.display) if any(view.display) else "empty")
    out.append(f"Deck: {view.deck_size} card{'s' if view.deck_size != 1 else ''}")
    out.append("")
    out.append(" " * 10 + "".join(" " * 2 + style.seat(s, f"{SEAT_NAMES[s]:>7}") for s in (0, 1)))
    stones = [STONES_PER_PLAYER - view.supply_stones[s] for s in (0, 1)]
    bridges = [BRIDGES_PER_PLAYER - view.supply_bridges[s] for s in (0, 1)]
    out.append(f"{'stones':<10}  {stones[0]:>7}  {stones[1]:>7}")
    out.append(f"{'bridges':<10}  {bridges[0]:>7}  {bridges[1]:>7}")
    out.append(f"{'in supply':<10}  {_supply(view, 0):>7}  {_supply(view, 1):>7}")
    out.append(f"{'points':<10}  {_points(view, 0):>7}  {_points(view, 1):>7}")
    legend = (f"{BRIDGE_GLYPHS[s]}{STONE_GLYPHS[s]} {SEAT_NAMES[s]}" for s in (0, 1))
    out.append(" ".join([*legend, f"{FREE_GLYPH} free"]))
    return out


def _supply(view: PlayerView, seat: int) -> str:
    return f"{view.supply_bridges[seat]}b {view.supply_stones[seat]}s"


def _points(view: PlayerView, seat: int) -> str:
    return "+".join(str(p) for p in view.points[seat])


def _latest_words(texts: list[str], rows: int, width: int) -> list[str]:
    """As many of the newest texts as fit in ``rows`` lines, whole, oldest first (the newest cut if it must be)."""
    out: list[str] = []
    for text in reversed(texts):
        lines = textwrap.wrap(text, width)
        if out and len(out) + len(lines) > rows:
            break
        out = lines + out
    if len(out) > rows:
        out = [*out[: rows - 1], out[rows - 1][: width - 1] + "…"] if rows > 0 else []
    return out


def render(frame: Frame, width: int, height: int, style: Style) -> list[str]:
    """The screen as ``height - 1`` lines; the caller prints them and then the prompt on the last row."""
    side = panel(frame, style)
    top_rows = max(MIN_HEIGHT, len(side))
    room = max(WORDS_ROWS, height - 2 - top_rows)
    message = [line for text in frame.message for line in (textwrap.wrap(text, width - 1) or [""])]
    if len(message) > room:
        message = [*message[: room - 1], "… (more than fits: make the terminal taller)"]
    # The last turn stays readable beside a long answer: the map gives up a few rows for it.
    words = _latest_words(frame.words, max(WORDS_ROWS - len(message), min(3, room - len(message))), width - 1)
    bottom = words + message
    board_height = max(top_rows, height - 2 - max(WORDS_ROWS, len(bottom)))
    board_width = width - PANEL_WIDTH - 1
    board = draw_board(frame.view.bridges, frame.view.stones, board_width, board_height, style)
    lines = [style("title", pad(frame.title, 7)) + " " + header(frame.view)[: width - 9]]
    for i in range(board_height):
        left = board[i] if i < len(board) else " " * board_width
        right = side[i] if i < len(side) else ""
        lines.append(pad(left, board_width) + " " + right)
    lines.extend(bottom)
    lines.extend([""] * max(0, WORDS_ROWS - len(bottom)))
    return lines
