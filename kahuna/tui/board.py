"""The archipelago as text: islands where the printed board has them, every line drawn between them.

Island positions come from ``board.json``'s layout (fractions of the printed board), scaled to
the room given, so a bigger terminal gets a bigger map. A line is a straight run of characters
between two island names: ``·`` free, ``#`` a Black bridge, ``o`` a White bridge; a stone is
``●`` (Black) or ``○`` (White) before the island's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from kahuna.rules.board import LAYOUT, LINES, NAMES, NUM_ISLANDS
from kahuna.rules.state import NOBODY
from kahuna.tui.style import BRIDGE_GLYPHS, FREE_GLYPH, SEAT_STYLES, STONE_GLYPHS, Style

MIN_WIDTH = 40
MIN_HEIGHT = 11
LABEL_WIDTH = 5
"""A stone glyph (or a space) and the four letters of the island's name."""


@dataclass(frozen=True)
class Cell:
    char: str = " "
    style: str | None = None


def island_cells(width: int, height: int) -> list[tuple[int, int]]:
    """``(row, column)`` of each island's label start in a ``width`` × ``height`` box."""
    xs = [x for x, _ in LAYOUT]
    ys = [y for _, y in LAYOUT]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    cols = width - LABEL_WIDTH
    rows = height - 1
    return [(round((y - y0) / (y1 - y0) * rows), round((x - x0) / (x1 - x0) * cols)) for x, y in LAYOUT]


def _path(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells of a straight line from ``a`` to ``b`` (Bresenham), both ends included."""
    (r0, c0), (r1, c1) = a, b
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr, sc = (1 if r1 > r0 else -1), (1 if c1 > c0 else -1)
    err = dc - dr
    out = [(r0, c0)]
    while (r0, c0) != (r1, c1):
        e2 = 2 * err
        if e2 > -dr:
            err -= dr
            c0 += sc
        if e2 < dc:
            err += dc
            r0 += sr
        out.append((r0, c0))
    return out


def draw_board(bridges: tuple[int, ...], stones: tuple[int, ...], width: int, height: int, style: Style) -> list[str]:
    """The map as ``height`` lines of ``width`` visible characters (plus escape codes if coloured)."""
    width, height = max(width, MIN_WIDTH), max(height, MIN_HEIGHT)
    grid = [[Cell() for _ in range(width)] for _ in range(height)]
    starts = island_cells(width, height)
    centres = [(r, c + 3) for r, c in starts]
    taken = {(r, c + k) for r, c in starts for k in range(LABEL_WIDTH)}
    # Free lines first: where lines leave an island close together, a bridge stays visible.
    for line in sorted(range(len(LINES)), key=lambda li: bridges[li] != NOBODY):
        a, b = LINES[line]
        owner = bridges[line]
        glyph, tone = (FREE_GLYPH, "free") if owner == NOBODY else (BRIDGE_GLYPHS[owner], SEAT_STYLES[owner])
        for r, c in _path(centres[a], centres[b]):
            if (r, c) not in taken:
                grid[r][c] = Cell(glyph, tone)
    for island in range(NUM_ISLANDS):
        r, c = starts[island]
        owner = stones[island]
        name_style = "bold" if owner == NOBODY else SEAT_STYLES[owner]
        grid[r][c] = Cell(" ") if owner == NOBODY else Cell(STONE_GLYPHS[owner], name_style)
        for k, ch in enumerate(NAMES[island]):
            grid[r][c + 1 + k] = Cell(ch, name_style)
    return [_render(row, style) for row in grid]


def _render(row: list[Cell], style: Style) -> str:
    """One row, with runs of the same style wrapped once."""
    out: list[str] = []
    run: list[str] = []
    current: str | None = None
    for cell in row:
        if cell.style != current and run:
            out.append(style(current, "".join(run)) if current else "".join(run))
            run = []
        current = cell.style
        run.append(cell.char)
    if run:
        out.append(style(current, "".join(run)) if current else "".join(run))
    return "".join(out)
