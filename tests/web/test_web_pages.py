"""The board drawing, the languages, the rules page, hot-seat play by keyboard, and explanations of illegal actions."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from kahuna.rules.board import board_data

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""


def test_served_board_json_is_the_rules_board(server: str) -> None:
    with urllib.request.urlopen(server + "/static/board.json", timeout=10) as response:
        assert json.loads(response.read()) == board_data()


def test_board_has_twelve_distinct_islands_and_every_line(open_page: OpenPage) -> None:
    page = open_page("/watch/none")  # an unknown game still draws the board before the server answers
    expect(page.locator(".board .island")).to_have_count(12)
    shapes = page.eval_on_selector_all(".board .island .beach", "els => els.map(e => e.getAttribute('d'))")
    assert len(set(shapes)) == 12
    lines = page.eval_on_selector_all(".board .route-group", "els => els.map(e => e.dataset.line).sort()")
    assert lines == sorted(board_data()["lines"])
    names = page.eval_on_selector_all(".board .island-name", "els => els.map(e => e.textContent)")
    assert sorted(names) == sorted(i["name"] for i in board_data()["islands"])
    expect(page.locator(".message")).to_have_text("This game does not exist.")


def test_every_language_has_every_key(open_page: OpenPage) -> None:
    page = open_page("/rules")
    tables = page.evaluate(
        """async () => {
          const { LANGUAGES } = await import('/static/js/i18n.js');
          const out = {};
          for (const [code, table] of Object.entries(LANGUAGES)) {
            const entries = Object.entries(table).map(([k, v]) => [k, typeof v === 'string' ? v : v.length]);
            out[code] = Object.fromEntries(entries);
          }
          return out;
        }"""
    )
    assert sorted(tables) == ["da", "de", "en", "es", "nl"]
    english = tables["en"]
    for code, table in tables.items():
        assert set(table) == set(english), f"{code}: keys differ from English"
        for key, text in table.items():
            assert text, f"{code}: {key} is empty"
            if isinstance(text, str):
                placeholders = sorted(part.split("}")[0] for part in text.split("{")[1:])
                expected = sorted(part.split("}")[0] for part in english[key].split("{")[1:])
                assert set(placeholders) == set(expected), f"{code}: {key} placeholders {placeholders} != {expected}"
            else:
                assert text == english[key], f"{code}: {key} has {text} sections, English {english[key]}"


def test_rules_page_follows_the_browser_language_and_the_picker(
    open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/rules", width=390, height=844, locale="de-DE")
    expect(page.locator("h1")).to_have_text("So spielt man Kahuna")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator(".islands-table tbody tr")).to_have_count(12)
    shot(page, "rules-de-390x844")
    page.locator("#language").select_option("es")
    expect(page.locator("h1")).to_have_text("Cómo se juega a Kahuna")
    page.reload()
    expect(page.locator("h1")).to_have_text("Cómo se juega a Kahuna")
    page.locator("#language").select_option("nl")
    expect(page.locator("nav a").first).to_have_text("Spelen")
    page.locator("#language").select_option("da")
    expect(page.locator("h1")).to_have_text("Sådan spilles Kahuna")


def test_hotseat_by_keyboard_with_explained_mistakes(open_page: OpenPage, shot: Callable[[Page, str], Path]) -> None:
    page = open_page("/")
    page.get_by_label("Hot-seat").check()
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.querySelector('.game')?.dataset.turn === 'mine'")
    expect(page.locator(".banner")).to_contain_text("Black to move")

    notation = page.locator("#notation")
    notation.fill("Z>Q")
    notation.press("Enter")
    expect(page.locator(".message")).to_contain_text("is not an action")
    notation.fill("end")
    notation.press("Enter")
    expect(page.locator(".message")).to_contain_text("only for the last turns")
    page.locator(".act-discard").click(force=True)  # aria-disabled, yet clickable: it explains itself
    expect(page.locator(".message")).to_have_text("Select one card to discard.")

    # Keyboard only: focus a card, Space selects it; Tab reaches the lit lines, Enter builds.
    reveal = page.locator(".reveal")
    if reveal.count():
        reveal.focus()
        page.keyboard.press("Enter")
    built = False
    cards = page.locator(".hand-row button.card")
    for i in range(cards.count()):
        cards.nth(i).focus()
        page.keyboard.press("Space")
        expect(cards.nth(i)).to_have_attribute("aria-pressed", "true")
        pick = page.locator(".pick.build").first
        expect(page.locator(".choice-pick.build")).to_have_count(page.locator(".pick.build").count())
        if pick.count():
            line = pick.get_attribute("data-line")
            pick.focus()
            page.keyboard.press("Enter")
            expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
            built = True
            break
        page.keyboard.press("Space")
    assert built
    expect(page.locator(".log-list")).to_contain_text("Black builds")
    page.wait_for_function("() => document.querySelector('.game').dataset.busy === 'false'")
    page.locator('.draw[data-token="d?"]').focus()
    page.keyboard.press("Enter")

    # White's turn on the same device: the hand stays hidden until White asks for it.
    expect(page.locator(".banner")).to_contain_text("White to move")
    expect(page.locator(".hand-row .card.back").first).to_be_visible()
    page.locator(".reveal").click()
    expect(page.locator(".hand-row button.card").first).to_be_visible()
    page.keyboard.press("/")  # the shortcut to the notation field; the spelling is tidied up
    expect(notation).to_be_focused()
    page.keyboard.type("D?")
    page.keyboard.press("Enter")
    expect(page.locator(".message")).to_be_empty()
    expect(page.locator(".banner")).to_contain_text("Black to move")
    shot(page, "hotseat-1280x800")

    page.locator("#language").select_option("de")
    expect(page.locator(".banner")).to_contain_text("Schwarz ist am Zug")
    expect(page.locator(".log-list")).to_contain_text("Schwarz baut")
    expect(page.locator("#notation-label")).to_have_text("Aktion eintippen")
