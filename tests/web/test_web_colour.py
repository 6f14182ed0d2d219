"""The two seats told apart without colour vision (issue 53): on the board Black's bridges and stones
bear a filled diamond and White's an open ring (shape), and the two seats' sticks and stones stay
far apart in lightness under Chromium's simulations of protanopia, deuteranopia and achromatopsia
(CDP ``Emulation.setEmulatedVisionDeficiency``): the pixels of each seat's stone and stick are read
back from the simulated screenshot and their contrast must be at least 3:1 (WCAG 1.4.11, non-text
contrast). The screenshots are kept as ``artifacts/screenshots/a11y-<deficiency>.png``.
"""

from __future__ import annotations

import base64
import importlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import Page, expect

OpenPage = Callable[..., Page]
DEFICIENCIES = ("none", "protanopia", "deuteranopia", "achromatopsia")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

_replay = importlib.import_module("test_web_replay")
finish_game = cast(Callable[[str, dict[str, Any], random.Random], int], _replay.finish_game)

BOTH_SEATS = """() => [0, 1].every((seat) =>
  document.querySelector(`.board .stone.seat${seat}`) && document.querySelector(`.board .bridge.seat${seat}`))"""

# A point inside each seat's first stone (its disc, clear of the mark in the middle) and on each
# seat's first stick (a quarter along it, clear of the mark), in CSS pixels from the board's corner.
SAMPLE_POINTS = """() => {
  const board = document.querySelector(".board");
  const box = board.getBoundingClientRect();
  const at = (el, x, y) => {
    const p = new DOMPoint(x, y).matrixTransform(el.getScreenCTM());
    return [Math.round(p.x - box.left), Math.round(p.y - box.top)];
  };
  const points = {};
  for (const seat of [0, 1]) {
    const disc = board.querySelector(`.stone.seat${seat} .disc`);
    points[`stone${seat}`] = at(disc, disc.cx.baseVal.value + 10, disc.cy.baseVal.value);
    const stick = board.querySelector(`.bridge.seat${seat} .stick`);
    const [x1, y1, x2, y2] = ["x1", "y1", "x2", "y2"].map((k) => stick[k].baseVal.value);
    points[`stick${seat}`] = at(stick, x1 + (x2 - x1) / 4, y1 + (y2 - y1) / 4);
  }
  return points;
}"""

# The colours of a PNG's pixels at the points given: the image decoded by the browser itself.
PIXELS = """async ([png, points]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  [canvas.width, canvas.height] = [img.width, img.height];
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const colours = {};
  for (const [name, [x, y]] of Object.entries(points)) {
    colours[name] = [...context.getImageData(x, y, 1, 1).data.slice(0, 3)];
  }
  return colours;
}"""

SHAPES = """() => [0, 1].map((seat) => {
  const marks = document.querySelectorAll(`.board .bridge.seat${seat} .mark, .board .stone.seat${seat} .mark`);
  return [...new Set([...marks].map((m) => m.tagName))];
})"""


def luminance(rgb: list[int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else float(((v + 0.055) / 1.055) ** 2.4)

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[int], b: list[int]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_seats_differ_by_shape_and_by_lightness_under_three_colour_blindnesses(
    server: str, post: Callable[[str, dict[str, Any]], dict[str, Any]], open_page: OpenPage
) -> None:
    game = post("/api/games", {"opponent": "hotseat", "seat": "first", "name": "Ada"})
    finish_game(server, game, random.Random(53))
    page = open_page(f"/replay/{game['game_id']}", width=1280, height=800, reduced_motion=True)
    page.wait_for_selector(".replay-step")
    page.keyboard.press("End")
    expect(page.locator(".summary table")).to_be_visible()
    # the last step with a stone and a bridge of each seat (the end has them on almost every deal)
    for _ in range(200):
        if page.evaluate(BOTH_SEATS):
            break
        page.keyboard.press("ArrowLeft")
    assert page.evaluate(BOTH_SEATS), "no step of the game had a stone and a bridge of each seat"
    assert page.evaluate(SHAPES) == [["rect"], ["circle"]]  # Black's diamond, White's ring, on every piece
    points = page.evaluate(SAMPLE_POINTS)
    decoder = page.context.new_page()
    cdp = page.context.new_cdp_session(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen: dict[str, dict[str, float]] = {}
    for deficiency in DEFICIENCIES:
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
        png = page.locator(".board").screenshot()
        (SCREENSHOTS / f"a11y-{deficiency}.png").write_bytes(png)
        colours = decoder.evaluate(PIXELS, [base64.b64encode(png).decode(), points])
        seen[deficiency] = {
            kind: round(contrast(colours[f"{kind}0"], colours[f"{kind}1"]), 1) for kind in ("stone", "stick")
        }
    cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    print("contrast between the seats' stones and sticks:", seen)
    assert all(ratio >= 3 for ratios in seen.values() for ratio in ratios.values()), seen
