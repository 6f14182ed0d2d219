"""The tutorial: its script works on its deal with the referee, and a newcomer can follow it by clicks."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from kahuna.rules import GameState
from kahuna.server.games.tutorial import TUTORIAL_DEAL

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""

SCRIPT_JS = Path(__file__).resolve().parents[2] / "kahuna" / "web" / "js" / "tutorial.js"


def script_tokens() -> list[str]:
    """The tokens of the tutorial's script, in order, as tutorial.js holds them."""
    block = SCRIPT_JS.read_text(encoding="utf-8").split("export const SCRIPT = [")[1].split("];")[0]
    return re.findall(r'token: "([^"]+)"', block)


def test_the_script_plays_on_the_tutorial_deal_with_the_referee() -> None:
    state = GameState.from_deal(TUTORIAL_DEAL)
    events: list[list[dict[str, Any]]] = []
    tokens = script_tokens()
    assert len(tokens) == 16
    for k, token in enumerate(tokens):
        if k == 10:  # the 5-card lesson: Black holds 5 and may not draw before discarding
            assert state.to_move == 0 and "d?" not in [a.token for a in state.legal_actions()]
        events.append([e.to_json() for e in state.apply(token)])
    kinds = [[e["type"] for e in step] for step in events]
    assert "island_claimed" in kinds[6]  # White claims HUNA
    assert kinds[13] == ["bridge_built", "island_claimed", "bridge_returned", "stone_lost"]  # sweep, cascade
    assert kinds[14] == ["bridge_removed"]
    assert events[1][0] == {"type": "card_taken", "seat": 0, "card": "D", "from_display": True}


IDLE = """v => {
  const g = document.querySelector('.game');
  return g && g.dataset.version === String(v) && g.dataset.turn === 'mine' && g.dataset.busy === 'false';
}"""


def test_the_tutorial_by_clicks(open_page: OpenPage, shot: Callable[[Page, str], Path]) -> None:
    page = open_page("/rules", reduced_motion=True)
    # Count the notes the page synthesises (sounds are Web Audio oscillators).
    page.context.add_init_script(
        "window.__notes = 0; const make = AudioContext.prototype.createOscillator;"
        " AudioContext.prototype.createOscillator = function () { window.__notes++; return make.call(this); };"
    )
    page.locator("#tutorial-start").click()  # reachable from the rules page (and the lobby)
    page.wait_for_url(re.compile(r"/play/[^?]+\?tutorial#"))
    lesson = page.locator('[data-testid="tutorial"]')
    message = page.locator('[data-testid="message"]')

    def at(version: int, title: str) -> None:
        page.wait_for_function(IDLE, arg=version)
        expect(lesson.locator("h2")).to_have_text(title)

    def card(letter: str) -> None:
        page.locator(f'.hand-row button.card[data-card="{letter}"]').first.click()

    at(0, "Tutorial · lesson 1 of 9")
    expect(page.locator(".player.seat1 .player-name")).to_have_text("Tutor")
    shot(page, "tutorial-1-build-1280x800")
    card("E")  # a legal build, but not this lesson's: only the lesson's move lights up
    expect(page.locator(".pick.build")).to_have_count(0)
    card("E")
    card("A")
    expect(page.locator(".pick.build")).to_have_count(1)
    page.locator('.pick.build[data-line="AB"]').click()

    at(1, "Tutorial · lesson 2 of 9")
    assert page.evaluate("window.__notes") == 0  # sounds are off by default
    page.locator("#sounds").check()  # one toggle; it plays the "your turn" sound to show it works
    assert page.evaluate("window.__notes") == 2
    page.locator('.draw[data-token="d?"]').click(force=True)
    # A move the referee allows but the lesson does not is refused in the lesson's terms.
    expect(message).to_have_text("Not in this lesson: it asks for this move — Black takes DUDA from the display.")
    expect(page.locator("#why-pass")).to_have_text(
        "Not in this lesson: it asks for this move — Black takes DUDA from the display."
    )
    page.locator('.draw[data-token="dD"]').click()

    at(5, "Tutorial · lesson 3 of 9")  # White built twice and drew: its moves are marked
    expect(page.locator('[data-testid="last-move"][data-kind="built"]')).to_have_count(2)
    assert page.evaluate("window.__notes") >= 4  # a sound for each of White's bridges
    page.locator('.draw[data-token="d?"]').click()
    at(8, "Tutorial · lesson 4 of 9")
    expect(page.locator('[data-testid="last-move"][data-kind="claimed"][data-island="H"]')).to_have_count(1)
    page.locator('.draw[data-token="d?"]').click()

    at(10, "Tutorial · lesson 5 of 9")
    page.locator('.draw[data-token="d?"]').click(force=True)
    expect(message).to_have_text("You hold 5 cards: discard one before taking a card.")
    shot(page, "tutorial-5-limit-1280x800")
    card("K")
    page.locator(".act-discard").click()
    at(11, "Tutorial · lesson 6 of 9")
    page.locator('.draw[data-token="d?"]').click()

    at(13, "Tutorial · lesson 7 of 9")
    # In screen-reader mode (issue 53) the lesson's build is read with what the referee foresees it
    # causes, and is played from the list by keyboard.
    page.locator("#reader-mode").check()
    build = page.locator('[data-testid="reader"] button.reader-act[data-token="A>D"]')
    expect(build).to_have_text(
        "Black builds ALOA–DUDA with ALOA — wins the majority on ALOA, "
        "White's bridge ALOA–HUNA returned, White's stone on HUNA lost."
    )
    build.focus()
    page.keyboard.press("Enter")
    at(14, "Tutorial · lesson 8 of 9")
    page.locator("#reader-mode").uncheck()
    for kind, where in (("claimed", 'data-island="A"'), ("removed", 'data-line="AH"'), ("lost", 'data-island="H"')):
        expect(page.locator(f'[data-testid="last-move"][data-kind="{kind}"][{where}]')).to_have_count(1)
    # The ghost of White's swept bridge and lost stone are White's colour, not red.
    ghost = page.locator('[data-testid="last-move"][data-kind="removed"][data-line="AH"]')
    expect(ghost).to_have_attribute("data-seat", "1")
    assert ghost.evaluate("el => getComputedStyle(el).stroke") == "rgb(251, 251, 246)"
    lost = page.locator('[data-testid="last-move"][data-kind="lost"][data-island="H"]')
    assert lost.evaluate("el => getComputedStyle(el).stroke") == "rgb(251, 251, 246)"
    shot(page, "tutorial-8-cascade-1280x800")
    card("D")
    card("H")
    page.locator('.pick.remove[data-line="DH"]').click()
    at(15, "Tutorial · lesson 9 of 9")
    page.locator('.draw[data-token="d?"]').click()
    page.wait_for_function("() => document.querySelector('.game').dataset.version === '16'")
    expect(lesson.locator("h2")).to_have_text("Tutorial complete")
    expect(lesson.locator("#tutorial-play")).to_have_attribute("href", "/")
    # No game is left waiting for White's move: the tutor ends it.
    expect(page.locator(".game")).to_have_attribute("data-turn", "over")
    expect(page.locator(".banner")).to_have_text("Tutorial complete")
    expect(page.locator(".summary")).to_have_count(0)
    shot(page, "tutorial-done-1280x800")


def test_the_tutorial_on_a_phone_keeps_the_lesson_the_board_and_the_hand_in_view(
    open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/rules", width=390, height=844, reduced_motion=True)
    page.locator("#tutorial-start").click()
    page.wait_for_function(IDLE, arg=0)
    in_view = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight && r.width > 0; }"""
    page.locator('.hand-row button.card[data-card="A"]').first.dispatch_event("click")  # a tap, no scrolling
    expect(page.locator('.pick.build[data-line="AB"]')).to_have_count(1)
    assert page.evaluate("() => scrollY") == 0
    for selector in ('[data-testid="tutorial"] .tutorial-text', ".board", '[data-testid="hand"] .hand-row'):
        assert page.evaluate(in_view, selector), f"{selector} is not in view"
    shot(page, "tutorial-1-build-390x844")
