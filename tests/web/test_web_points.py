"""Issue 31's points 7 and 10 to 17 at 1280×800, 1366×768 and 390×844, in the five languages where
the point is words (English, German, Dutch, Spanish, Danish), each case with a screenshot kept as a
test artefact and no page wider than its window (make test runs the cases ``web_matrix.py`` names,
make test-all the rest).

The other tests check each of these points at one size and one or a few languages; the layout
points are test_web_fit.py's. The words expected are the language's own, read from its table
(kahuna/web/js/lang/*.js, as the page loads it). A language is chosen with the page's picker where
one page can show all five (a game is not replayed per language); where the point is what a
browser of that language starts with (a guest's default names, a rated seek's link) the browser's
locale chooses it.

The module runs its own server: hints are limited per address (ten a minute), and the games made
here need no other module's.
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

OpenPage = Callable[..., Page]
Shot = Callable[[Page, str], Path]
Sized = Callable[[int, int], BrowserContext]

# The other browser tests' helpers, beside this file (pytest puts this folder on sys.path; mypy
# checks the test folders as packages, where a plain-name import of a sibling would not resolve).
_fit = importlib.import_module("test_web_fit")
_texts = importlib.import_module("test_web_server_texts")
_matrix = importlib.import_module("web_matrix")
LANGUAGES = cast(list[str], _matrix.LANGUAGES)
LOCALES = cast(dict[str, str], _texts.LOCALES)
sized = _fit.sized  # the fixture: a context of a window's size (a phone's a touch screen)
no_wider_than_window = cast(Callable[[Page], None], _texts._fits)
select_building_card = cast(Callable[[Page], str], _fit.select_building_card)
MINE = cast(str, _fit.MINE)
words_of = cast(Callable[[Page, str], dict[str, str]], _texts._table)
stem = cast(Callable[[str], str], _texts._stem)
create_game = cast(Callable[..., dict[str, Any]], importlib.import_module("web_serving").create_game)
finish_game = cast(
    Callable[[str, dict[str, Any], random.Random], int], importlib.import_module("test_web_replay").finish_game
)
sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)
TUTORIAL_IDLE = cast(str, importlib.import_module("test_web_tutorial").IDLE)
serving = cast(Callable[[Path], AbstractContextManager[str]], importlib.import_module("web_serving").serving)

PHONE = cast(tuple[int, int], _matrix.PHONE)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's own server (overrides the session's: see the module)."""
    with serving(tmp_path_factory.mktemp("kahuna-points")) as base:
        yield base


def choose(page: Page, code: str) -> dict[str, str]:
    """Switch the page to a language with its picker; returns that language's words."""
    page.locator("#language").select_option(code)
    expect(page.locator("html")).to_have_attribute("lang", code)
    return words_of(page, code)


def checked(page: Page, shot: Shot, name: str) -> None:
    """Every case's end: the page is no wider than its window, and a screenshot."""
    no_wider_than_window(page)
    shot(page, f"points-{name}")


def joined_game(server: str, ben: BrowserContext) -> dict[str, Any]:
    """A game between two people: Ann's, the first seat, is returned; Ben joined by the link in
    his own browser ``ben``."""
    game = create_game(server, opponent="human", seat="first", name="Ann")
    answer = ben.request.post(server + game["invite_url"].replace("/join/", "/api/join/"), data={"name": "Ben"})
    assert answer.ok, answer.text()
    return game


@pytest.fixture(scope="module")
def analysed(server: str, browser: Browser) -> dict[str, Any]:
    """A hot-seat game played to its end whose analysis a player has asked for (the replay's graph)."""
    game = create_game(server, opponent="hotseat", name="Replayer")
    game["last"] = finish_game(server, game, random.Random(5))
    context = browser.new_context()
    try:
        ask = f"{server}/api/games/{game['game_id']}/analysis"
        answer = context.request.post(ask, data={"token": game["tokens"][0]})
        assert answer.ok, answer.text()
    finally:
        context.close()
    return game


@pytest.fixture(scope="module")
def rated_seek(server: str, browser: Browser) -> Iterator[str]:
    """A rated seek in the lobby, kept alive by its owner's open lobby page; yields the owner's name."""
    context = browser.new_context()
    context.set_default_timeout(20000)
    page = context.new_page()
    page.goto(server + "/signup")
    sign_up(page, "Points_rater")
    page.goto(server + "/lobby")
    expect(page.locator("#seek-rated")).to_be_checked()
    page.locator("#new-seek").click()
    expect(page.get_by_test_id("seek-status")).not_to_be_empty()
    yield "Points_rater"
    context.close()


# ---------------------------------------------------------------------------------------- point 7


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_7_a_seat_link_makes_the_game_this_browsers(
    server: str,
    open_page: OpenPage,
    new_context: Callable[..., BrowserContext],
    sized: Sized,
    shot: Shot,
    width: int,
    height: int,
) -> None:
    """A seat link opened in a browser that did not make the game: the game is in its "my games",
    and once over its replay offers the analysis (in each language)."""
    game = joined_game(server, new_context())
    page = open_page(f"/play/{game['game_id']}#{game['token']}", sized(width, height))
    page.wait_for_function(MINE)
    page.goto(server + "/")
    resume = page.locator(".my-game-link", has_text="Resume")
    expect(resume).to_have_count(1)
    checked(page, shot, f"7-my-games-{width}x{height}")
    resume.click()
    page.wait_for_function(MINE)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign-confirm").click()
    expect(page.locator(".game")).to_have_attribute("data-turn", "over")
    page.locator(".summary a", has_text="Watch the replay").click()
    page.wait_for_url(f"**/replay/{game['game_id']}")
    for code in LANGUAGES:
        words = choose(page, code)
        expect(page.locator("#analysis-ask")).to_have_text(words["analysis.ask"])
        checked(page, shot, f"7-replay-analyse-{code}-{width}x{height}")


# --------------------------------------------------------------------------------------- point 10


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_10_the_hint_is_shown_on_the_board(
    server: str, open_page: OpenPage, sized: Sized, shot: Shot, width: int, height: int
) -> None:
    """The hint's cards are selected and its move proposed on the board (a build's line lit)."""
    game = create_game(server, opponent="ai", level="easy", seat="first", name="Learner")
    page = open_page(f"/play/{game['game_id']}#{game['token']}", sized(width, height))
    page.wait_for_function(MINE)
    with page.expect_response(re.compile(r"/hint$")) as answer:
        page.locator("#hint").click()
    token: str = answer.value.json()["action"]
    words = words_of(page, "en")
    expect(page.get_by_test_id("message")).to_contain_text(stem(words["hint.ai"]))
    expect(page.get_by_test_id("confirm")).to_be_visible()
    expect(page.locator(f'.proposed[data-token="{token}"]').first).to_be_visible()
    used = (
        token[0] if ">" in token else token[1] if token.startswith("-") else token.split(":")[1] if ":" in token else ""
    )
    selected = page.locator('[data-testid="hand"] button.card[aria-pressed="true"]')
    expect(selected).to_have_count(len(used))
    assert sorted(selected.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(used)
    if ">" in token:
        line = "".join(sorted(token[0] + token[2]))
        expect(page.locator(f'.board .pick.build.proposed[data-line="{line}"]')).to_be_visible()
    checked(page, shot, f"10-hint-{width}x{height}")


# --------------------------------------------------------------------------------------- point 12


@pytest.mark.parametrize(("width", "height", "language"), _matrix.sizes_and_languages())
def test_12_guests_see_rated_seeks_as_needing_an_account(
    open_page: OpenPage, rated_seek: str, shot: Shot, width: int, height: int, language: str
) -> None:
    page = open_page("/lobby", width=width, height=height, locale=LOCALES[language])
    expect(page.locator("html")).to_have_attribute("lang", language)
    words = words_of(page, language)
    rated = page.locator(".seek", has_text=rated_seek)
    link = rated.locator("a.needs-account")
    expect(link).to_have_text(words["seeks.needs_account"])
    expect(link).to_have_attribute("href", "/signin")
    expect(rated.get_by_role("button")).to_have_count(0)
    checked(page, shot, f"12-rated-seek-{language}-{width}x{height}")


# --------------------------------------------------------------------------------------- point 13


@pytest.mark.parametrize(("width", "height", "language"), _matrix.sizes_and_languages())
def test_13_a_guest_and_hotseat_have_default_names_in_the_browsers_language(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Shot, width: int, height: int, language: str
) -> None:
    """The name field offers the guest's own name; a hot-seat game started so seats Player 1 and 2
    (the starting seat is drawn: either may be Black)."""
    context = new_context(width=width, height=height, locale=LOCALES[language])
    context.add_init_script("localStorage.setItem('kahuna.guest', '1234')")
    page = open_page("/", context)
    words = words_of(page, language)
    expect(page.locator("#name")).to_have_attribute("placeholder", words["names.guest"].replace("{n}", "1234"))
    page.locator('input[name="opponent"][value="hotseat"]').check()
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    names = page.locator(".player .player-name")
    expect(names).to_have_count(2)
    player = words["names.player"]
    # the first seat is drawn: either may be Player 1
    assert sorted(names.all_inner_texts()) == [player.replace("{n}", "1"), player.replace("{n}", "2")]
    checked(page, shot, f"13-hotseat-names-{language}-{width}x{height}")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_13_two_guests_without_a_name_are_told_apart_in_every_language(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Shot, width: int, height: int
) -> None:
    host = new_context(width=width, height=height)
    host.add_init_script("localStorage.setItem('kahuna.guest', '1234')")
    alice = open_page("/", host)
    alice.locator('input[name="opponent"][value="human"]').check()
    alice.locator("#seat").select_option("first")
    alice.locator("#start").click()
    invite = alice.locator("#link-invite").input_value()
    guest = new_context(width=width, height=height)
    guest.add_init_script("localStorage.setItem('kahuna.guest', '5678')")
    bob = open_page("/" + invite.split("/", 3)[3], guest)
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    for code in LANGUAGES:
        guest_name = choose(bob, code)["names.guest"]
        expect(bob.locator(".player.seat0 .player-name")).to_have_text(guest_name.replace("{n}", "1234"))
        expect(bob.locator(".player.seat1 .player-name")).to_have_text(guest_name.replace("{n}", "5678"))
        checked(bob, shot, f"13-guest-names-{code}-{width}x{height}")


# --------------------------------------------------------------------------------------- point 14


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_14_chat_and_mute_only_where_they_apply(
    server: str,
    open_page: OpenPage,
    new_context: Callable[..., BrowserContext],
    sized: Sized,
    shot: Shot,
    width: int,
    height: int,
) -> None:
    """Against a person: the chat and its mute. Against the AI and in hot-seat: no chat, no mute.
    (Where "Notify me" is offered is checked in the full Chromium: ``test_web_app.py``.)"""
    context = sized(width, height)
    person = joined_game(server, new_context())
    ann = open_page(f"/play/{person['game_id']}#{person['token']}", context)
    ann.wait_for_function(MINE)
    expect(ann.get_by_test_id("chat")).to_be_visible()
    expect(ann.locator("#chat-mute")).to_be_visible()
    checked(ann, shot, f"14-vs-person-{width}x{height}")
    ann.get_by_test_id("resign").click()
    ann.get_by_test_id("resign-confirm").click()
    expect(ann.locator(".game")).to_have_attribute("data-turn", "over")
    checked(ann, shot, f"14-finished-{width}x{height}")

    ai = create_game(server, opponent="ai", level="easy", seat="first", name="Solo")
    page = open_page(f"/play/{ai['game_id']}#{ai['token']}", context)
    page.wait_for_function(MINE)
    expect(page.get_by_test_id("chat")).to_be_hidden()
    expect(page.locator("#chat-mute")).to_be_hidden()
    checked(page, shot, f"14-vs-ai-{width}x{height}")

    hotseat = create_game(server, opponent="hotseat", seat="first")
    both = open_page(f"/play/{hotseat['game_id']}#{','.join(hotseat['tokens'])}", context)
    both.wait_for_function(MINE)
    expect(both.get_by_test_id("chat")).to_be_hidden()
    expect(both.locator("#chat-mute")).to_be_hidden()
    checked(both, shot, f"14-hotseat-{width}x{height}")


# --------------------------------------------------------------------------------------- point 15


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_15_replay_keys_step_and_the_graph_has_axes(
    server: str, analysed: dict[str, Any], open_page: OpenPage, sized: Sized, shot: Shot, width: int, height: int
) -> None:
    last = int(analysed["last"])
    page = open_page(f"/replay/{analysed['game_id']}", sized(width, height))
    expect(page.locator("#analysis-graph")).to_be_visible(timeout=60000)  # the first case waits for it
    step = page.locator(".replay-step")
    for code in LANGUAGES:
        words = choose(page, code)

        def at(k: int, words: dict[str, str] = words) -> None:
            expect(step).to_contain_text(words["replay.step"].replace("{k}", str(k)).replace("{n}", str(last)))

        page.locator("h1").click()  # focus on nothing in particular: the keys work wherever it is
        page.keyboard.press("Home")
        at(0)
        page.keyboard.press("ArrowRight")
        at(1)
        page.keyboard.press("End")
        at(last)
        page.keyboard.press("ArrowLeft")
        at(last - 1)
        labels = page.locator("#analysis-graph .graph-label").evaluate_all("els => els.map(e => e.textContent)")
        percents = {label.replace("\u00a0", " ") for label in labels if "%" in label}
        assert percents >= {"0 %", "50 %", "100 %"} and "0" in labels, (code, labels)  # Black's chances; actions
        checked(page, shot, f"15-replay-{code}-{width}x{height}")


# --------------------------------------------------------------------------------------- point 16


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_16_focusing_a_lines_button_lights_it_on_the_board(
    server: str, open_page: OpenPage, sized: Sized, shot: Shot, width: int, height: int
) -> None:
    game = create_game(server, opponent="hotseat", seat="first")
    page = open_page(f"/play/{game['game_id']}#{','.join(game['tokens'])}", sized(width, height))
    page.wait_for_function(MINE)
    page.get_by_test_id("curtain").locator(".reveal").focus()
    page.keyboard.press("Enter")
    cards = page.locator('[data-testid="hand"] button.card')
    expect(cards.first).to_be_focused()
    for i in range(cards.count()):
        cards.nth(i).focus()
        page.keyboard.press("Space")
        expect(cards.nth(i)).to_have_attribute("aria-pressed", "true")
        if page.locator(".board .pick.build").count():
            break
        page.keyboard.press("Space")
    else:
        raise AssertionError("no card of the hand can build")
    buttons = page.locator(".choice-pick.build")
    expect(buttons).to_have_count(page.locator(".board .pick.build").count())
    for k in range(min(buttons.count(), 2)):  # the next button's line takes over
        page.keyboard.press("Tab")
        expect(buttons.nth(k)).to_be_focused()
        named = buttons.nth(k).get_attribute("data-line")
        expect(page.locator(f'.board .pick.lit[data-line="{named}"]')).to_have_count(1)
        expect(page.locator(".board .pick.lit")).to_have_count(1)
        checked(page, shot, f"16-lit-line-{k}-{width}x{height}")


# --------------------------------------------------------------------------------------- point 17


@pytest.mark.parametrize("language", _matrix.languages())
def test_17_the_phones_confirm_prompt_speaks_of_taps(
    server: str, open_page: OpenPage, sized: Sized, shot: Shot, language: str
) -> None:
    width, height = PHONE
    game = create_game(server, opponent="ai", level="easy", seat="first", name="Tapper")
    page = open_page(f"/play/{game['game_id']}#{game['token']}", sized(width, height))
    page.wait_for_function(MINE)
    words = choose(page, language)
    expect(page.locator("#confirm-moves")).to_be_checked()  # on by default on a touch screen
    select_building_card(page)
    page.locator(".board .pick.build").first.dispatch_event("click")  # a tap
    expect(page.get_by_test_id("confirm")).to_be_visible()
    expect(page.locator("#action-hint")).to_have_text(words["hint.confirm_touch"])
    checked(page, shot, f"17-confirm-taps-{language}-{width}x{height}")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_17_the_tutorial_refuses_in_the_lessons_terms(
    server: str, open_page: OpenPage, sized: Sized, shot: Shot, width: int, height: int
) -> None:
    """A move the referee allows but the lesson does not is refused by naming the lesson's move."""
    page = open_page("/rules", sized(width, height))
    page.locator("#tutorial-start").click()
    page.wait_for_function(TUTORIAL_IDLE, arg=0)
    message = page.get_by_test_id("message")
    for code in LANGUAGES:
        words = choose(page, code)
        page.locator('.draw[data-token="d?"]').dispatch_event("click")  # legal, not lesson 1's build
        expect(message).to_contain_text(stem(words["tutorial.not_this"]))
        checked(page, shot, f"17-tutorial-refusal-{code}-{width}x{height}")
