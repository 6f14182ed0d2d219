"""Issue 31, point 8: what the server says reaches the page in its language. The server sends codes
with parameters (a hint's reasons, a refused sign-up's reason, an AI seat's kind) and the page words
them; here in each of the five languages, with the words taken from that language's own table."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]

_matrix = importlib.import_module("web_matrix")  # which languages make test checks
LOCALES = {"en": "en-GB", "de": "de-DE", "nl": "nl-NL", "es": "es-ES", "da": "da-DK"}


def _table(page: Page, language: str) -> dict[str, str]:
    """The page's own words for ``language`` (its lang module, as the page loads it)."""
    table: dict[str, str] = page.evaluate(f"async () => (await import('/static/js/lang/{language}.js')).default")
    return table


def _stem(template: str) -> str:
    """The words of a template before its first parameter (what must show whatever the parameters)."""
    return template.split("{", 1)[0].strip()


def _fits(page: Page) -> None:
    """No language widens the page."""
    width: int = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size
    assert viewport is not None and width <= viewport["width"], width


@pytest.mark.parametrize("language", _matrix.languages())
def test_hint_reasons_and_the_ai_name_are_in_the_page_language(
    create: Callable[..., dict[str, Any]],
    language: str,
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    game = create(opponent="ai", level="easy", seat="first", name="Learner")
    page = open_page(f"/play/{game['game_id']}#{game['token']}", locale=LOCALES[language], reduced_motion=True)
    expect(page.locator("html")).to_have_attribute("lang", language)
    words = _table(page, language)
    ai_name = words["names.ai"].replace("{level}", words["level.easy"])
    expect(page.locator(".player.seat1 .player-name")).to_have_text(ai_name)
    expect(page.locator(".game")).to_have_attribute("data-turn", "mine")
    with page.expect_response(re.compile(r"/hint$")) as answer:
        page.locator("#hint").click()
    hint = answer.value.json()
    message = page.get_by_test_id("message")
    expect(message).to_contain_text(_stem(words["hint.ai"]))
    for part in hint["reasons"]:  # each reason in this language's words
        key = (
            "hint.why.sends_home_one"
            if part["code"] == "sends_home" and part["count"] == 1
            else f"hint.why.{part['code']}"
        )
        expect(message).to_contain_text(_stem(words[key]))
    if language != "en":
        assert hint["why"].split(": ", 1)[1] not in message.inner_text()  # not the server's English line
    _fits(page)
    shot(page, f"texts-hint-{language}")


@pytest.mark.parametrize("language", _matrix.languages())
def test_sign_up_says_the_password_rules_and_refusals_in_the_page_language(
    language: str, server: str, new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    # Not open_page: the refusals this test asks for are 422 answers, which Chromium logs as console
    # errors; any other console error or script error still fails the test.
    page = new_context(locale=LOCALES[language]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 422" not in m.text else None)
    page.goto(server + "/signup")
    words = _table(page, language)
    expect(page.get_by_test_id("password-rules")).to_have_text(words["account.password_rules"])
    error = page.get_by_test_id("account-error")
    refused = _stem(words["account.refused"])
    page.locator("#username").fill("Moderator")  # reserved: it would pass for the site's staff
    page.locator("#password").fill("tide pool lantern gecko")
    page.locator("#signup-submit").click()
    expect(error).to_have_text(f"{refused} {words['account.why.username_reserved']}")
    page.locator("#username").fill(f"Texts_{language}")
    page.locator("#password").fill("aaaaaaaaaa")
    page.locator("#signup-submit").click()
    expect(error).to_have_text(f"{refused} {words['account.why.password_guessable']}")
    _fits(page)
    shot(page, f"texts-signup-{language}")
    assert not errors, errors


@pytest.mark.parametrize("language", ["en", "de"])
def test_default_names_read_in_the_page_language(
    create: Callable[..., dict[str, Any]], language: str, open_page: OpenPage
) -> None:
    """Issue 31, point 13: a German guest's "Gast 4821" reads "Guest 4821" to an English opponent,
    and hot-seat's "Player 2" (the server's name for the second seat) "Spieler 2" in German."""
    hotseat = create(opponent="hotseat", seat="first", name="Spieler 1")  # as a German browser names it
    page = open_page(f"/play/{hotseat['game_id']}#{','.join(hotseat['tokens'])}", locale=LOCALES[language])
    words = _table(page, language)
    for seat in (0, 1):
        expect(page.locator(f".player.seat{seat} .player-name")).to_have_text(
            words["names.player"].replace("{n}", str(seat + 1))
        )
    guest = create(opponent="human", seat="first", name="Gast 4821")
    watcher = open_page(f"/watch/{guest['game_id']}", locale=LOCALES[language])
    expect(watcher.locator(".player.seat0 .player-name")).to_have_text(words["names.guest"].replace("{n}", "4821"))
