"""Puzzles in Chromium (issue 52, kahuna/web/js/puzzles.js): the puzzle of the day on the game
page's own board and hand, solved by typed notation (right so far after each action, then right,
the themes, a guest's answer not rated, the solution on request), and failed (wrong, the solution);
at 1280×800 and on a phone (390×844), one page load per case, each saved as a screenshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from kahuna.ai.puzzles.shipped import read_set
from kahuna.rules import legal_actions_of

OpenPage = Callable[..., Page]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

READY = """() => {
  const g = document.querySelector(".game");
  return !!g && g.dataset.turn === "mine" && g.dataset.busy === "false";
}"""


def play(page: Page, token: str) -> None:
    page.wait_for_function(READY)
    page.locator("#notation").fill(token)
    page.locator("#notation").press("Enter")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_puzzle_solved_and_one_failed(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path], size: str
) -> None:
    width, height = SIZES[size]
    daily = httpx.get(f"{server}/api/puzzles/daily", timeout=10).json()
    puzzle = {p.puzzle_id: p for p in read_set()[0]}[daily["puzzle_id"]]
    solution = list(puzzle.solutions[0])
    print("daily puzzle", puzzle.puzzle_id, "solution", solution, "themes", puzzle.themes)

    page = open_page("/puzzles?daily", width=width, height=height, reduced_motion=True)
    expect(page.get_by_test_id("puzzle-task")).to_contain_text(f"Rating {daily['rating']}")
    expect(page.get_by_test_id("hand")).to_be_visible()  # the game page's hand
    for n, token in enumerate(solution[:-1], start=1):
        play(page, token)
        expect(page.get_by_test_id("puzzle-verdict")).to_have_text(f"Right so far ({n}): go on.")
    play(page, solution[-1])
    expect(page.get_by_test_id("puzzle-verdict")).to_have_text("Right!")
    expect(page.get_by_test_id("puzzle-rating")).to_have_text("Not rated (a guest, or answered before).")
    expect(page.get_by_test_id("puzzle-themes")).to_contain_text("Themes: ")
    page.get_by_test_id("show-solution").click()
    expect(page.get_by_test_id("puzzle-solution")).to_contain_text(solution[0])
    wide = page.evaluate("document.documentElement.scrollWidth")
    print("page width", wide, "of", width)
    assert wide <= width  # nothing sticks out sideways, on a phone neither
    shot(page, f"puzzle-solved-{size}")

    wrong = next(
        a.token for a in legal_actions_of(puzzle.view()) if all(a.token != turn[0] for turn in puzzle.solutions)
    )
    failed = open_page("/puzzles?daily", width=width, height=height, reduced_motion=True)
    play(failed, wrong)
    expect(failed.get_by_test_id("puzzle-verdict")).to_have_text("Wrong: that is not the best turn.")
    failed.get_by_test_id("show-solution").click()
    expect(failed.get_by_test_id("puzzle-solution")).to_contain_text(solution[0])
    expect(failed.get_by_test_id("next-puzzle")).to_be_visible()
    shot(failed, f"puzzle-failed-{size}")
