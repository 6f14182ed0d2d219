"""Puzzles in Chromium (issue 52, kahuna/web/js/puzzles.js): the puzzle of the day on the game
page's own board and hand, solved by typed notation (right so far after each action, then right,
the themes, a guest's answer not rated, the solution on request, the hand after the turn), and
failed (an illegal typed action refused with the referee's reason in words and counting nothing,
then wrong, the position the miss reached, the solution and its position on request); at 1280×800
and on a phone (390×844), one page load per case, each saved as a screenshot. And a profile's
puzzle answers on a server upgraded from a release whose set held a puzzle more: the answer to that
retired puzzle says so, in each of the five languages, the other answer does not."""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import cast

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect
from sqlalchemy import select, update

from kahuna.ai.puzzles.puzzle import Puzzle
from kahuna.ai.puzzles.shipped import read_set
from kahuna.rules import ALL_ACTIONS, Kind, legal_actions_of, view_of
from kahuna.rules.board import LETTERS
from kahuna.server.db.schema import accounts, puzzle_attempts
from kahuna.server.db.store import open_engine
from kahuna.server.puzzles import store

sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)
watched = cast(Callable[[BrowserContext, list[str]], Page], importlib.import_module("web_watched").watched)
"""A page whose console errors and uncaught exceptions are collected (``web_watched.py``)."""

OpenPage = Callable[..., Page]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

READY = """() => {
  const g = document.querySelector(".game");
  return !!g && g.dataset.turn === "mine" && g.dataset.busy === "false";
}"""


# The one error the failed page expects: the referee's refusal of the illegal action is a 422,
# which Chromium logs as a console error; the test counts it, and any other error fails it.
UNPROCESSABLE = "Failed to load resource: the server responded with a status of 422"

HEAR_VERDICT = """() => {
  window.__heard = [];
  const region = document.querySelector("[data-testid=puzzle-verdict][aria-live]");
  const hear = () => region.textContent && window.__heard.push(region.textContent);
  new MutationObserver(hear).observe(region, { childList: true, characterData: true, subtree: true });
}"""

HAND = """(want) => {
  const cards = [...document.querySelectorAll("[data-testid=hand] [data-card]")].map((c) => c.dataset.card);
  return cards.sort().join("") === want;
}"""


def hand_after(puzzle: Puzzle, actions: list[str]) -> str:
    """The seat's hand after ``actions`` from the puzzle's position, as sorted card letters."""
    state = puzzle.game_state()
    for token in actions:
        state.apply(token)
    hand = view_of(state, puzzle.seat).hand or ()
    return "".join(LETTERS[c] * n for c, n in enumerate(hand))


def play(page: Page, token: str) -> None:
    page.wait_for_function(READY)
    page.locator("#notation").fill(token)
    page.locator("#notation").press("Enter")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_puzzle_solved_and_one_failed(
    server: str,
    open_page: OpenPage,
    new_context: Callable[..., BrowserContext],
    shot: Callable[[Page, str], Path],
    size: str,
) -> None:
    width, height = SIZES[size]
    daily = httpx.get(f"{server}/api/puzzles/daily", timeout=10).json()
    puzzle = {p.puzzle_id: p for p in read_set()[0]}[daily["puzzle_id"]]
    solution = list(puzzle.solutions[0])
    print("daily puzzle", puzzle.puzzle_id, "solution", solution, "themes", puzzle.themes)

    page = open_page("/puzzles?daily", width=width, height=height, reduced_motion=True)
    expect(page.get_by_test_id("puzzle-task")).to_contain_text(f"Rating {daily['rating']}")
    expect(page.get_by_test_id("hand")).to_be_visible()  # the game page's hand
    first = 0
    if size == "desktop":  # the screen-reader mode, in this page load: its lists are the puzzle's legal actions
        page.locator("#reader-mode").check()
        reader = page.get_by_test_id("reader")
        buttons = reader.locator("button.reader-act")
        expect(buttons).to_have_count(len(daily["legal"]))
        assert sorted(buttons.evaluate_all("els => els.map((e) => e.dataset.token)")) == sorted(daily["legal"])
        # the referee's consequences, sent with the puzzle, read beside the actions that cause any
        expect(reader).to_have_attribute("data-foreseen", "yes")
        foreseen = daily["foreseen"]["actions"]
        for token in foreseen:
            said = reader.locator(f'button.reader-act[data-token="{token}"]').inner_text()
            print("foreseen:", said)
            assert " — " in said, said
        page.evaluate(HEAR_VERDICT)
        page.wait_for_function(READY)
        chosen = reader.locator(f'button.reader-act[data-token="{solution[0]}"]')
        print("read:", chosen.inner_text())
        chosen.focus()  # chosen by keyboard
        page.keyboard.press("Enter")
        first = 1
        if len(solution) > 1:
            expect(page.get_by_test_id("puzzle-verdict")).to_have_text("Right so far (1): go on.")
    for n, token in enumerate(solution[first:-1], start=first + 1):
        play(page, token)
        expect(page.get_by_test_id("puzzle-verdict")).to_have_text(f"Right so far ({n}): go on.")
    if first < len(solution):
        play(page, solution[-1])
    expect(page.get_by_test_id("puzzle-verdict")).to_have_text("Right!")
    if size == "desktop":  # each verdict was said in the same live region
        heard = page.evaluate("() => window.__heard")
        print("the live region said:", heard)
        assert heard[-1] == "Right!" and ("Right so far (1): go on." in heard) == (len(solution) > 1)
    page.wait_for_function(HAND, arg=hand_after(puzzle, solution))  # the board went on to after the turn
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
    errors: list[str] = []
    failed = watched(new_context(width=width, height=height, reduced_motion=True), errors)
    failed.goto(f"{server}/puzzles?daily")
    hand = puzzle.view().hand or ()
    missing = next(c for c in range(12) if hand[c] == 0)
    illegal = next(a.token for a in ALL_ACTIONS if a.kind is Kind.BUILD and a.card == missing)
    play(failed, illegal)  # the referee's reason, in words; nothing counted
    expect(failed.get_by_test_id("message")).to_have_text(re.compile(r"^You hold no [A-Z]+ card\.$"))
    expect(failed.get_by_test_id("puzzle-verdict")).to_have_text("")
    print("refused", illegal, "console:", errors)
    failed.evaluate(HEAR_VERDICT)
    play(failed, wrong)
    expect(failed.get_by_test_id("puzzle-verdict")).to_have_text("Wrong: that is not the best turn.")
    assert failed.evaluate("() => window.__heard") == ["Wrong: that is not the best turn."]  # said in its live region
    failed.wait_for_function(HAND, arg=hand_after(puzzle, [wrong]))  # where the miss led
    expect(failed.get_by_test_id("puzzle-board")).to_have_text("The board shows the position your answer reached.")
    missed = failed.locator(".log-list li").first.inner_text()
    failed.get_by_test_id("show-solution").click()
    expect(failed.get_by_test_id("puzzle-solution")).to_contain_text(solution[0])
    expect(failed.get_by_test_id("puzzle-board")).to_have_text("The board shows the position after the solution.")
    failed.wait_for_function(HAND, arg=hand_after(puzzle, solution))
    expect(failed.locator(".log-list li").first).not_to_have_text(missed)  # the log follows the board
    expect(failed.get_by_test_id("next-puzzle")).to_be_visible()
    shot(failed, f"puzzle-failed-{size}")
    failed.get_by_test_id("board-toggle").click()
    failed.wait_for_function(HAND, arg=hand_after(puzzle, [wrong]))
    assert len(errors) == 1 and errors[0].startswith(UNPROCESSABLE), errors


# The retired mark in the languages other than English: the words the page must show (lang/*.js).
RETIRED = {
    "de": "Ausgemustert: nicht mehr in der Rätselsammlung und wird nicht mehr angeboten.",
    "nl": "Uit roulatie: niet meer in de puzzelverzameling en wordt niet meer aangeboden.",
    "da": "Udgået: ikke længere i opgavesamlingen og tilbydes ikke mere.",
    "es": "Retirado: ya no está en la colección de problemas y no se ofrece más.",
}


def test_a_profile_marks_the_answer_to_a_retired_puzzle(
    site: tuple[str, str], new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    """The database an older release filled (its set held one puzzle more, which this account
    answered, and one still shipped): the profile's first request for the history loads this
    release's set, which retires that puzzle, and its answer says so; the other's does not."""
    base, db = site
    shipped = read_set()[0]
    gone = dataclasses.replace(shipped[0], puzzle_id="0000000000aa", rating=4000)
    kept = shipped[0].puzzle_id
    engine = open_engine(db)
    with engine.begin() as conn:
        assert store.load(conn, [*shipped, gone]) == len(shipped) + 1  # before this server loaded its set
    errors: list[str] = []
    page = watched(new_context(reduced_motion=True), errors)
    page.goto(base + "/signup")
    sign_up(page, "Old_solver")
    with engine.begin() as conn:
        player = conn.execute(select(accounts.c.id).where(accounts.c.username == "Old_solver")).scalar_one()
        store.record(conn, player, kept, True)
        store.record(conn, player, gone.puzzle_id, False)
        # ``record`` stamps each answer with the clock; the history orders by it, so fix the order
        conn.execute(update(puzzle_attempts).where(puzzle_attempts.c.puzzle_id == kept).values(at=1.0))
    engine.dispose()

    page.goto(base + "/users/Old_solver")
    history = page.get_by_test_id("puzzle-history")
    answers = history.locator("li")
    expect(answers).to_have_count(2)
    retired = answers.nth(0)  # the newest answer
    expect(retired.get_by_test_id("puzzle-retired")).to_have_text(
        "Retired: no longer in the puzzle set, and not offered any more."
    )
    expect(retired).to_have_attribute("data-puzzle", gone.puzzle_id)
    expect(retired.get_by_role("link")).to_have_count(0)  # nothing to open: the words say why it will not come
    expect(answers.nth(1)).to_have_attribute("data-puzzle", kept)
    expect(answers.nth(1).get_by_test_id("puzzle-retired")).to_have_count(0)
    print("history:", answers.all_inner_texts())
    shot(page, "puzzle-history-retired")
    for code, words in RETIRED.items():
        page.evaluate("code => localStorage.setItem('kahuna.lang', code)", code)
        page.reload()
        expect(page.locator("html")).to_have_attribute("lang", code)
        expect(history.get_by_test_id("puzzle-retired")).to_have_text(words)
        expect(history.get_by_test_id("puzzle-retired")).to_have_count(1)
    assert not errors, errors
