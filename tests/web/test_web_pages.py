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


LAYOUT_PROBLEMS = """() => {
  const svg = document.querySelector('.board');
  const vb = svg.viewBox.baseVal;
  const islands = [...svg.querySelectorAll('.island')].map(g => {
    const box = g.querySelector('.beach').getBBox();
    return { letter: g.dataset.island, x: box.x + box.width / 2, y: box.y + box.height / 2,
             r: Math.min(box.width, box.height) / 2 };
  });
  const at = Object.fromEntries(islands.map(i => [i.letter, i]));
  const segments = [...svg.querySelectorAll('.route')].map(l => ({
    line: l.parentNode.dataset.line,
    a: [l.x1.baseVal.value, l.y1.baseVal.value], b: [l.x2.baseVal.value, l.y2.baseVal.value] }));
  const distance = ([px, py], { a: [ax, ay], b: [bx, by] }) => {
    const [dx, dy] = [bx - ax, by - ay];
    const k = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - ax - k * dx, py - ay - k * dy);
  };
  const problems = [];
  for (const seg of segments)
    for (const i of islands)
      if (!seg.line.includes(i.letter) && distance([i.x, i.y], seg) < i.r + 8)
        problems.push(`line ${seg.line} passes over ${i.letter}`);
  for (const text of svg.querySelectorAll('.island-name')) {
    const box = text.getBBox();
    const corners = [[box.x, box.y], [box.x + box.width, box.y + box.height]];
    if (corners.some(([x, y]) => x < vb.x || y < vb.y || x > vb.x + vb.width || y > vb.y + vb.height))
      problems.push(`${text.textContent} is cut off`);
    for (const seg of segments) {
      // A name is crossed if the segment passes through its box (sampled along the segment).
      for (let k = 0.08; k <= 0.92; k += 0.02) {
        const [x, y] = [seg.a[0] + k * (seg.b[0] - seg.a[0]), seg.a[1] + k * (seg.b[1] - seg.a[1])];
        if (x > box.x && x < box.x + box.width && y > box.y && y < box.y + box.height) {
          problems.push(`line ${seg.line} crosses the name ${text.textContent}`);
          break;
        }
      }
    }
  }
  return problems;
}"""


# Names that a bridge would touch: the smallest distance (drawing units) between each name's box
# and the lines, where they run over the sea (outside every island's beach), is at least half a
# bridge's width (its sticks are 14 units wide); and names cut off by the drawing's edge.
NAMES_ON_BRIDGES = """() => {
  const svg = document.querySelector('.board');
  const vb = svg.viewBox.baseVal;
  const beaches = [...svg.querySelectorAll('.island .beach')].map(b => b.getBBox());
  const onLand = (x, y) => beaches.some(b => x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height);
  const routes = [...svg.querySelectorAll('.route')].map(l => ({ line: l.parentNode.dataset.line,
    a: [l.x1.baseVal.value, l.y1.baseVal.value], b: [l.x2.baseVal.value, l.y2.baseVal.value] }));
  const problems = [];
  for (const text of svg.querySelectorAll('.island-name')) {
    const box = text.getBBox();
    if (box.x < vb.x || box.y < vb.y || box.x + box.width > vb.x + vb.width || box.y + box.height > vb.y + vb.height)
      problems.push(`${text.textContent} is cut off`);
    for (const { line, a, b } of routes) {
      for (let k = 0; k <= 1; k += 0.005) {
        const [x, y] = [a[0] + k * (b[0] - a[0]), a[1] + k * (b[1] - a[1])];
        if (onLand(x, y)) continue;
        const dx = Math.max(box.x - x, 0, x - box.x - box.width), dy = Math.max(box.y - y, 0, y - box.y - box.height);
        if (Math.hypot(dx, dy) < 7) { problems.push(`${text.textContent} on ${line}`); break; }
      }
    }
  }
  return problems;
}"""


def test_no_bridge_runs_over_an_island_name_on_a_phone(open_page: OpenPage) -> None:
    """On a phone the island names are drawn larger, and no bridge runs over one of them."""
    page = open_page("/watch/none", width=390, height=844)
    expect(page.locator(".board .island-name")).to_have_count(12)
    problems = page.evaluate(NAMES_ON_BRIDGES)
    assert problems == [], problems


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
    # 4: every line reads unambiguously: none passes over a third island, no name sits on a line,
    # and every island and name is inside the drawing.
    problems = page.evaluate(LAYOUT_PROBLEMS)
    assert problems == [], problems


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
    # Board diagrams of building, claiming with the sweep, the cascade and removing, with captions.
    expect(page.locator(".diagram")).to_have_count(4)
    expect(page.locator(".diagram figcaption").nth(2)).to_contain_text("HUNA")
    expect(page.locator('.diagram [data-testid="last-move"][data-kind="lost"]')).to_have_count(1)
    shot(page, "rules-de-390x844")
    page.locator("#language").select_option("es")
    expect(page.locator("h1")).to_have_text("Cómo se juega a Kahuna")
    page.reload()
    expect(page.locator("h1")).to_have_text("Cómo se juega a Kahuna")
    page.locator("#language").select_option("nl")
    expect(page.locator("nav a").first).to_have_text("Spelen")
    page.locator("#language").select_option("da")
    expect(page.locator("h1")).to_have_text("Sådan spilles Kahuna")
    background = "() => getComputedStyle(document.documentElement).backgroundColor"
    assert page.evaluate(background) == "rgb(246, 240, 226)"
    page.emulate_media(color_scheme="dark")  # the dark theme follows the system setting
    assert page.evaluate(background) == "rgb(18, 25, 29)"
    shot(page, "rules-dark-390x844")


def test_hotseat_by_keyboard_with_explained_mistakes(open_page: OpenPage, shot: Callable[[Page, str], Path]) -> None:
    page = open_page("/")
    page.get_by_label("Hot-seat").check()
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.querySelector('.game')?.dataset.turn === 'mine'")
    expect(page.locator(".banner")).to_contain_text("Black to move")
    # The very first turn starts behind the hand-over curtain too; Black asks for it.
    curtain = page.get_by_test_id("curtain")
    expect(curtain).to_contain_text("Hand the device to Player")
    expect(page.locator('[data-testid="hand"] button.card')).to_have_count(0)
    expect(page.locator(".notation")).to_be_hidden()
    curtain.locator(".reveal").focus()
    page.keyboard.press("Enter")
    expect(curtain).to_have_count(0)
    expect(page.locator('[data-testid="hand"] button.card').first).to_be_focused()
    # No chat with oneself, no "notify me" when both seats are here.
    expect(page.get_by_test_id("chat")).to_be_hidden()
    expect(page.get_by_test_id("notify-me")).to_be_hidden()

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
    built = False
    cards = page.locator(".hand-row button.card")
    # The hand is one Tab stop: the arrow keys move between its cards.
    assert cards.evaluate_all("els => els.map(e => e.tabIndex)") == [0, -1, -1]
    cards.first.focus()
    page.keyboard.press("ArrowRight")
    expect(cards.nth(1)).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(cards.first).to_be_focused()
    for i in range(cards.count()):
        cards.nth(i).focus()
        page.keyboard.press("Space")
        expect(cards.nth(i)).to_have_attribute("aria-pressed", "true")
        pick = page.locator(".pick.build").first
        expect(page.locator(".choice-pick.build")).to_have_count(page.locator(".pick.build").count())
        if pick.count():
            # One Tab from the selected card to its first line in words, and the
            # line that button names lights up on the board as it is focused.
            page.keyboard.press("Tab")
            first = page.locator(".choice-pick.build").first
            expect(first).to_be_focused()
            named = first.get_attribute("data-line")
            expect(page.locator(f'.board .pick.lit[data-line="{named}"]')).to_have_count(1)
            expect(page.locator(".board .pick.lit")).to_have_count(1)
            line = pick.get_attribute("data-line")
            pick.focus()
            page.keyboard.press("Enter")
            expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
            # 7: the lit line is gone, yet keyboard focus stays in the game on a sensible control.
            page.wait_for_function("() => document.querySelector('.game').dataset.busy === 'false'")
            focused = page.evaluate(
                "() => { const a = document.activeElement;"
                " return a && a.closest('.game') ? (a.dataset.card ? 'card' : a.dataset.token || a.id) : null; }"
            )
            assert focused in ("card", "d?", "banner") or str(focused).startswith("d"), focused
            built = True
            break
        page.keyboard.press("Space")
    assert built
    expect(page.locator(".log-list")).to_contain_text("Black builds")
    page.wait_for_function("() => document.querySelector('.game').dataset.busy === 'false'")
    page.locator('.draw[data-token="d?"]').focus()
    page.keyboard.press("Enter")

    # White's turn on the same device: the hand stays hidden until White asks for it, and so does
    # everything that belongs to one seat (5): tracker, known cards, log, actions, notation.
    expect(page.locator(".banner")).to_contain_text("White to move")
    expect(page.locator(".hand-row .card.back").first).to_be_visible()
    expect(page.locator(".tracker")).to_have_count(0)
    expect(page.locator(".opponent-hand .known")).to_have_count(0)
    expect(page.locator(".log")).to_be_hidden()
    expect(page.locator(".notation")).to_be_hidden()
    expect(page.locator(".actions .btn")).to_have_count(0)
    # 6: card backs carry no island letter.
    backs = page.locator('[data-testid="card-back"]')
    assert backs.count() >= 6  # White's hidden hand and Black's hand in the players panel
    assert all(not text.strip() for text in backs.all_inner_texts())
    shot(page, "hotseat-handover-1280x800")
    page.locator(".reveal").click()
    expect(page.locator(".hand-row button.card").first).to_be_visible()
    expect(page.locator(".tracker")).to_be_visible()
    page.keyboard.press("/")  # the shortcut to the notation field; the spelling is tidied up
    expect(notation).to_be_focused()
    page.keyboard.type("d/")  # 11: a second "/" selects the field's text instead of typing
    expect(notation).to_have_value("d")
    page.keyboard.press("Escape")  # 11: Escape leaves the field for the game
    expect(notation).not_to_be_focused()
    page.keyboard.press("/")
    expect(notation).to_be_focused()
    page.keyboard.type("D?")
    page.keyboard.press("Enter")
    expect(page.locator(".message")).to_be_empty()
    expect(page.locator(".banner")).to_contain_text("Black to move")
    shot(page, "hotseat-1280x800")

    # In the dark theme Black's ◆ is dark on a light disc (a black disc vanishes there).
    page.emulate_media(color_scheme="dark")
    mark = page.locator(".banner .seat-mark.seat0")
    assert mark.evaluate("el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]") == [
        "rgb(20, 20, 20)",
        "rgb(230, 233, 234)",
    ]
    page.emulate_media(color_scheme="light")

    page.locator("#language").select_option("de")
    expect(page.locator(".banner")).to_contain_text("Schwarz ist am Zug")
    expect(page.locator(".log-list")).to_contain_text("Schwarz baut")
    expect(page.locator("#notation-label")).to_have_text("Aktion eintippen")
