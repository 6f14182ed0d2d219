"""Two browsers play each other through an invite link; a reload mid-game restores the view; the
opponent's turn is marked on the board, live and "since you left"; a spectator watches."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""


MY_TURN = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.turn === 'mine' && g.dataset.busy === 'false';
}"""


def board_state(page: Page) -> dict[str, list[str]]:
    """What the board, the hand and the log (its numbered entries) show, to compare two renderings."""
    bridges = page.eval_on_selector_all(".board .bridge", "els => els.map(e => e.dataset.line + e.dataset.owner)")
    hand = page.eval_on_selector_all(".hand-row .card", "els => els.map(e => e.dataset.card || '?')")
    log = page.eval_on_selector_all(".log-list li", "els => els.map(e => e.value)")
    return {"bridges": sorted(bridges), "hand": hand, "log": log}


def build_with_first_card(page: Page) -> str:
    """Click hand cards until one lights up lines, build on the first; returns the line built."""
    cards = page.locator(".hand-row button.card")
    for i in range(cards.count()):
        cards.nth(i).click()
        pick = page.locator(".pick.build").first
        if pick.count():
            line = pick.get_attribute("data-line") or ""
            pick.click()
            expect(page.locator(f'.board .bridge[data-line="{line}"]')).to_have_count(1)
            page.wait_for_function(MY_TURN)  # the build's animation is over
            return line
        cards.nth(i).click()
    raise AssertionError("no card could build")


def test_two_browsers_through_an_invite_link(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    alice = open_page("/")
    shot(alice, "lobby-1280x800")
    alice.get_by_label("Against a friend").check()
    alice.locator("#seat").select_option("first")
    alice.locator("#name").fill("Alice")
    alice.locator("#start").click()
    invite = alice.locator("#link-invite")
    expect(invite).to_be_visible()
    invite_url = invite.input_value()
    assert "/join/" in invite_url
    expect(alice.locator("#start")).to_be_disabled()  # the game exists: no second one by mistake
    expect(alice.locator("#name")).to_be_disabled()
    alice.locator("#go-to-table").click()
    alice.wait_for_url("**/play/**")
    expect(alice.locator(".banner")).to_contain_text("Waiting for your opponent")
    expect(alice.locator(".share #link-invite")).to_have_value(invite_url)

    bob = open_page("/" + invite_url.split("/", 3)[3], width=390, height=844)
    expect(bob.locator("h1")).to_have_text("Join a game")
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")

    alice.wait_for_function(MY_TURN)
    expect(alice.locator(".player.seat1 .player-name")).to_have_text("Bob")
    line = build_with_first_card(alice)
    alice.locator('.draw[data-token="d?"]').click()

    bob.wait_for_function(MY_TURN)
    expect(bob.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
    expect(bob.locator(".log-list")).to_contain_text("Black builds")
    # Alice's new bridge is marked on Bob's board until Bob moves.
    expect(bob.locator(f'[data-testid="last-move"][data-line="{line}"][data-kind="built"]')).to_have_count(1)
    bob.locator('.draw-row button.card.draw[aria-disabled="false"]').first.click()
    alice.wait_for_function(MY_TURN)
    shot(bob, "game-vs-friend-390x844")
    shot(alice, "game-vs-friend-1280x800")

    game_url = alice.url
    before = board_state(alice)
    alice.reload()
    alice.wait_for_function(MY_TURN)
    assert alice.url == game_url
    assert board_state(alice) == before

    alice.goto(game_url.split("/play/")[0] + "/")
    resume = alice.locator(".my-game-link", has_text="Resume")
    expect(resume).to_have_count(1)
    expect(alice.locator(".my-game-state")).to_contain_text("your turn")
    resume.click()
    alice.wait_for_function(MY_TURN)
    assert board_state(alice)["bridges"] == before["bridges"]

    # Bob leaves; Alice plays a whole turn; back at the table Bob sees it marked and listed.
    bob_url = bob.url
    bob.goto(bob_url.split("/play/")[0] + "/")
    second = build_with_first_card(alice)
    alice.locator('.draw[data-token="d?"]').click()
    alice.wait_for_function("() => document.querySelector('.game').dataset.turn === 'theirs'")
    bob.goto(bob_url)
    bob.wait_for_function(MY_TURN)
    since = bob.locator('[data-testid="since-you-left"]')
    expect(since).to_be_visible()
    expect(since.locator("li")).to_have_count(2)
    expect(since).to_contain_text("Black builds")
    expect(bob.locator(f'[data-testid="last-move"][data-line="{second}"][data-kind="built"]')).to_have_count(1)
    since.locator("li button").first.click()  # step by step: the first action alone is marked
    expect(bob.locator('[data-testid="last-move"]')).to_have_count(1)
    shot(bob, "since-you-left-390x844")
    bob.locator("#since-close").click()
    expect(since).to_have_count(0)

    watcher = open_page("/watch/" + game_url.split("/play/")[1].split("#")[0])
    expect(watcher.locator(f'.board .bridge[data-line="{line}"]')).to_have_count(1)
    expect(watcher.locator(".hand-area")).to_be_hidden()
    expect(watcher.locator(".notation")).to_be_hidden()
    expect(watcher.locator(".banner .watching")).to_have_text("Watching")
    watcher.locator('.draw[data-token="d?"]').click(force=True)  # a spectator's click is answered, not ignored
    expect(watcher.locator('[data-testid="message"]')).to_have_text("Spectators cannot play.")


def test_a_seat_link_opened_in_another_browser_makes_the_game_this_browsers(
    post: Callable[[str, dict[str, Any]], dict[str, Any]],
    open_page: OpenPage,
    new_context: Callable[..., BrowserContext],
) -> None:
    """The game is then in this browser's "my games", and its replay offers the analysis."""
    game = post("/api/games", {"opponent": "human", "seat": "first", "name": "Ann"})
    post(game["invite_url"].replace("/join/", "/api/join/"), {"name": "Ben"})
    page = open_page(f"/play/{game['game_id']}#{game['token']}", new_context())
    page.wait_for_function(MY_TURN)
    page.goto(page.url.split("/play/")[0] + "/")
    resume = page.locator(".my-game-link", has_text="Resume")
    expect(resume).to_have_count(1)
    resume.click()
    page.wait_for_function(MY_TURN)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign-confirm").click()
    expect(page.locator(".game")).to_have_attribute("data-turn", "over")
    page.locator(".summary a", has_text="Watch the replay").click()
    expect(page.locator("#analysis-ask")).to_be_visible()


def test_guests_without_a_name_are_told_apart(open_page: OpenPage, new_context: Callable[..., BrowserContext]) -> None:
    """Each browser's guest has a name of its own; hot-seat's seats are Player 1 and 2."""
    host = new_context()
    host.add_init_script("localStorage.setItem('kahuna.guest', '1234')")
    alice = open_page("/", host)
    expect(alice.locator("#name")).to_have_attribute("placeholder", "Guest 1234")
    alice.get_by_label("Against a friend").check()
    alice.locator("#seat").select_option("first")
    alice.locator("#start").click()
    invite_url = alice.locator("#link-invite").input_value()
    guest = new_context()
    guest.add_init_script("localStorage.setItem('kahuna.guest', '5678')")
    bob = open_page("/" + invite_url.split("/", 3)[3], guest)
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    expect(bob.locator(".player.seat0 .player-name")).to_have_text("Guest 1234")
    expect(bob.locator(".player.seat1 .player-name")).to_have_text("Guest 5678")
    # A browser with no number yet draws one and keeps it.
    fresh = open_page("/", new_context())
    placeholder = fresh.locator("#name").get_attribute("placeholder") or ""
    number = fresh.evaluate("() => localStorage.getItem('kahuna.guest')")
    assert placeholder == f"Guest {number}" and len(number) == 4, placeholder
    fresh.get_by_label("Hot-seat").check()
    fresh.locator("#start").click()
    fresh.wait_for_url("**/play/**")
    names = fresh.locator(".player .player-name")
    expect(names).to_have_count(2)
    assert sorted(names.all_inner_texts()) == ["Player 1", "Player 2"]


def test_a_spectator_who_comes_in_the_middle_of_a_turn_keeps_that_turns_marks(
    create: Callable[..., dict[str, Any]], open_page: OpenPage
) -> None:
    """A view taken between two actions of a turn marks the turn so far, and the turn's next action
    adds to those marks rather than clearing them (the page once took every view for a turn's end:
    a phone that loaded during the AI's turn marked two of its three bridges). On the empty board of
    a first turn every card in the hand can build, so two builds hold for every deal."""
    game = create(opponent="hotseat", seat="first")
    both = open_page(f"/play/{game['game_id']}#{','.join(game['tokens'])}", reduced_motion=True)
    both.locator(".reveal").click()  # hot-seat: the seat to move asks for its hand first
    both.wait_for_function(MY_TURN)
    first = build_with_first_card(both)
    watcher = open_page(f"/watch/{game['game_id']}")
    marks = watcher.locator('[data-testid="last-move"][data-kind="built"]')
    expect(marks).to_have_count(1)
    second = build_with_first_card(both)
    expect(watcher.locator(f'.board .bridge[data-line="{second}"]')).to_have_count(1)
    expect(marks).to_have_count(2)
    assert {marks.nth(i).get_attribute("data-line") for i in range(2)} == {first, second}
