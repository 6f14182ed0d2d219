"""Moderation in Chromium (issue 48, docs/moderation.md), on a server of its own (its database is
where ``kahuna admin grant`` makes a moderator): a player reports the opponent's chat line from the
report dialog (Escape closes it; a second report while the first is open is refused in words) and
sees it under "My reports" as open; a moderator opens /mod from the header's link, sees the report
with the line, mutes the player in chat; the muted player's next line is refused in words with
the minutes left, the reporter's report is "acted on"; the moderator undoes the mute from the log
and the player is heard again; a report from a profile reaches the queue, seen on a phone. A
player and a guest opening /mod see "Page not found". An admin makes a player a moderator from
/mod's "Moderators" tab (the new moderator's /mod opens at once, without that tab) and revokes it
(logged; the player's /mod is "Page not found" again). A player reports the opponent from the
game's "Report opponent" (no chat line): in My reports, and in the queue with the game's replay.
A player a moderator renamed once its game was over is reported from that game's page, still open
and showing the name the game was played under: the report reaches the renamed account.
Neither "Report opponent" nor a line's "Report" is offered against a guest or the AI, and both are
once a signed-in friend takes the invitation's seat while the page is open. The profiles of the
accounts the server runs (its own, an AI level's) offer no "Report this player", nor a lobby game
against an AI level's account "Report opponent"."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

from kahuna.cli import main

watched = cast(Callable[[BrowserContext, list[str]], Page], importlib.import_module("web_watched").watched)
"""A page whose console errors and uncaught exceptions are collected (``web_watched.py``)."""

sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)

CLOCK = {"initial": 300, "increment": 3}
# The answers the page expects and words (a second report: 409; /mod for a player or a guest:
# 404), which Chromium logs as console errors: the test counts them, and any other error fails it.
CONFLICT = "Failed to load resource: the server responded with a status of 409 (Conflict)"
NOT_FOUND = "Failed to load resource: the server responded with a status of 404 (Not Found)"

CALL = """async ([method, path, body, headers]) => {
  const found = document.cookie.split("; ").find((c) => c.startsWith("csrf="));
  const csrf = found ? decodeURIComponent(found.slice(5)) : "";
  const answer = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, ...headers },
    body: body === null ? undefined : JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.json().catch(() => null) };
}"""


def call(page: Page, method: str, path: str, body: dict[str, Any] | None = None, **headers: str) -> dict[str, Any]:
    """The page's own request to the API (its session cookie and CSRF header): status and body."""
    answer: dict[str, Any] = page.evaluate(CALL, [method, path, body, headers])
    assert answer["status"] < 400, answer
    return answer


def say(page: Page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def test_a_reported_chat_line_is_muted_by_a_moderator_from_the_queue(
    site: tuple[str, str], new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    base, db = site
    errors: list[str] = []
    ann, bob, mia = (watched(new_context(), errors) for _ in range(3))
    for page, name in ((ann, "Ann_mod"), (bob, "Bob_mod"), (mia, "Mia_mod")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Mia_mod", "moderator", "--db", db]) == 0

    # A casual lobby game between the two (the seats are drawn: either may be Black).
    seek = call(ann, "POST", "/api/seeks", {"clock": CLOCK})["body"]
    taken = call(bob, "POST", f"/api/seeks/{seek['seek_id']}/accept", {})["body"]
    own = call(ann, "GET", f"/api/seeks/{seek['seek_id']}", None, **{"X-Seek-Token": seek["token"]})["body"]
    ann.goto(base + own["seat_url"])
    bob.goto(base + taken["seat_url"])
    say(bob, "good luck")
    say(bob, "you will lose, idiot")
    line = ann.get_by_test_id("chat-lines").locator("li", has_text="you will lose, idiot")
    expect(line).to_be_visible()
    # Only the opponent's lines can be reported: Bob's own page offers no "Report".
    expect(bob.get_by_test_id("chat-lines").locator("li", has_text="idiot")).to_be_visible()
    expect(bob.get_by_test_id("chat-report")).to_have_count(0)

    report = line.get_by_test_id("chat-report")
    report.click()
    dialog = ann.get_by_role("dialog", name="Report Bob_mod")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("report-line")).to_have_text("you will lose, idiot")
    expect(ann.locator("#report-reason")).to_be_focused()
    ann.keyboard.press("Escape")  # closes it, the focus back on the button
    expect(dialog).to_have_count(0)
    expect(report).to_be_focused()

    report.press("Enter")  # by keyboard this time
    expect(dialog).to_be_visible()
    dialog.get_by_label("Reason").select_option("abuse")
    dialog.get_by_label("Note for the moderators (optional)").fill("insult")
    expect(dialog.locator("#report-count")).to_have_text("6 of 500 characters")
    shot(ann, "moderation-report-dialog")
    dialog.get_by_role("button", name="Send report").click()
    expect(dialog.get_by_test_id("report-status")).to_have_text("Thank you: your report was sent to the moderators.")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)

    report.click()  # again, while the first is open: refused in words, in the dialog
    dialog.get_by_label("Reason").select_option("spam")
    dialog.get_by_role("button", name="Send report").click()
    expect(dialog.get_by_test_id("report-status")).to_have_text(
        "You reported this player already; your report is still open."
    )
    say(bob, "still there?")  # the chat drawn again under the dialog: its button is a new one
    expect(ann.get_by_test_id("chat-lines")).to_contain_text("still there?")
    ann.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(ann.locator("#chat-input")).to_be_focused()

    account = watched(ann.context, errors)
    account.goto(base + "/account")
    mine = account.get_by_test_id("my-reports").locator("li")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Bob_mod · Abuse or insults · open")

    mia.goto(base + "/")
    mia.get_by_test_id("mod-link").click()
    mia.wait_for_url(base + "/mod")
    group = mia.locator(".mod-target[data-target='Bob_mod']")
    expect(group).to_contain_text("reports: 1")
    expect(group).to_contain_text("reported by Ann_mod")
    expect(group.locator(".mod-note")).to_have_text("insult")
    expect(group.get_by_test_id("mod-history")).to_contain_text("reports in all: 1")
    expect(group.locator(".mod-lines li.reported")).to_have_text("Bob_mod: you will lose, idiot")
    expect(group.locator(".mod-lines li")).to_have_count(2)
    expect(group.get_by_role("link", name="The game's replay")).to_have_attribute("href", f"/replay/{taken['game_id']}")
    group.get_by_label("Reason").fill("insults in chat")
    group.get_by_label("Minutes").fill("10")
    shot(mia, "moderation-queue")
    group.get_by_role("button", name="Mute in chat").click()
    expect(mia.get_by_test_id("mod-status")).to_have_text("Done.")
    expect(mia.get_by_test_id("mod-empty")).to_have_text("No open reports.")

    say(bob, "sorry")
    expect(bob.get_by_test_id("message")).to_have_text("A moderator muted you in chat: 10 more minutes.")
    account.reload()
    expect(account.get_by_test_id("my-reports")).to_contain_text("Bob_mod · Abuse or insults · acted on")

    mia.get_by_role("tab", name="Log").click()
    expect(mia.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")  # drawn again
    entry = mia.get_by_test_id("mod-log").locator("tr", has_text="insults in chat")
    expect(entry).to_contain_text("Mia_mod")
    expect(entry).to_contain_text("chat mute · 10 min")
    shot(mia, "moderation-log")
    entry.get_by_role("button", name="Undo").click()
    expect(mia.get_by_test_id("mod-log").locator("tr", has_text="sanction undone")).to_have_count(1)
    expect(entry.get_by_role("button", name="Undo")).to_have_count(0)

    say(bob, "sorry, really")
    expect(ann.get_by_test_id("chat-lines")).to_contain_text("sorry, really")
    expect(ann.get_by_test_id("chat-lines").locator("li")).to_have_count(4)  # "sorry" was never heard

    # From the profile, the player alone (no game): allowed again, the first report being acted on.
    ann.goto(base + "/users/Bob_mod")
    ann.locator("#report-player").click()
    dialog.get_by_label("Reason").select_option("offensive_name")
    expect(dialog.get_by_test_id("report-line")).to_have_count(0)
    dialog.get_by_role("button", name="Send report").click()
    expect(dialog.get_by_test_id("report-status")).to_have_text("Thank you: your report was sent to the moderators.")
    account.reload()
    expect(account.get_by_test_id("my-reports").locator("li").first).to_contain_text("Bob_mod · Offensive name · open")

    # The profile's report in the queue, on a phone: no chat lines, no game, the page no wider.
    mia.set_viewport_size({"width": 390, "height": 844})
    mia.get_by_role("tab", name="Open reports").click()
    expect(mia.locator("#mod-panel-queue")).to_have_attribute("aria-busy", "false")  # drawn again
    report_item = mia.locator(".mod-target[data-target='Bob_mod']").locator(".mod-report")
    expect(report_item).to_contain_text("Offensive name")
    history = mia.locator(".mod-target[data-target='Bob_mod']").get_by_test_id("mod-history")
    expect(history).to_contain_text("reports in all: 2")  # the acted on and the open one
    expect(history).to_contain_text("sanctions: chat mute (undone)")
    expect(report_item.locator(".mod-lines")).to_have_count(0)
    expect(report_item.get_by_role("link", name="The game's replay")).to_have_count(0)
    assert mia.evaluate("document.documentElement.scrollWidth") <= 390
    mia.get_by_role("tab", name="Log").click()
    expect(mia.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")  # drawn again
    expect(mia.get_by_test_id("mod-log")).to_be_visible()
    assert mia.evaluate("document.documentElement.scrollWidth") <= 390

    bob.goto(base + "/mod")  # a player: the page of a page that does not exist
    expect(bob.get_by_test_id("mod-not-found")).to_have_text("Page not found.")
    expect(bob.get_by_test_id("mod-link")).to_be_hidden()
    assert errors == [CONFLICT, NOT_FOUND]


def test_a_guest_opening_mod_sees_not_found(site: tuple[str, str], new_context: Callable[..., BrowserContext]) -> None:
    base, _ = site
    errors: list[str] = []
    page = watched(new_context(locale="de-DE"), errors)
    page.goto(base + "/mod")
    expect(page.get_by_test_id("mod-not-found")).to_have_text("Seite nicht gefunden.")
    assert errors == [NOT_FOUND]


def test_an_admin_makes_a_player_a_moderator_and_revokes_it(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    base, db = site
    errors: list[str] = []
    ada, kim = (watched(new_context(), errors) for _ in range(2))
    for page, name in ((ada, "Ada_mod"), (kim, "Kim_mod")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Ada_mod", "admin", "--db", db]) == 0

    ada.goto(base + "/mod")
    ada.get_by_role("tab", name="Moderators").click()
    expect(ada.locator("#mod-panel-moderators")).to_have_attribute("aria-busy", "false")  # drawn again
    ada.get_by_label("Player", exact=True).fill("Kim_mod")
    ada.get_by_role("button", name="Make moderator").click()
    expect(ada.get_by_test_id("mod-status")).to_have_text("Done.")
    listed = ada.get_by_test_id("mod-moderators").locator("li", has_text="Kim_mod")
    expect(listed).to_be_visible()
    kim.goto(base + "/mod")  # a moderator at once, without the admin's tab
    expect(kim.get_by_role("tab", name="Open reports")).to_be_visible()
    expect(kim.get_by_role("tab", name="Moderators")).to_have_count(0)

    listed.get_by_role("button", name="Revoke").click()
    expect(listed).to_have_count(0)
    ada.get_by_role("tab", name="Log").click()
    expect(ada.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")  # drawn again
    expect(ada.get_by_test_id("mod-log").locator("tr", has_text="role revoked")).to_contain_text("Ada_mod")
    kim.goto(base + "/mod")
    expect(kim.get_by_test_id("mod-not-found")).to_have_text("Page not found.")
    assert errors == [NOT_FOUND]


def test_a_player_reports_the_opponent_from_the_game(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    base, db = site
    errors: list[str] = []
    cy, di, mo = (watched(new_context(), errors) for _ in range(3))
    for page, name in ((cy, "Cy_game"), (di, "Di_game"), (mo, "Mo_game")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Mo_game", "moderator", "--db", db]) == 0
    seek = call(cy, "POST", "/api/seeks", {"clock": CLOCK})["body"]
    taken = call(di, "POST", f"/api/seeks/{seek['seek_id']}/accept", {})["body"]
    own = call(cy, "GET", f"/api/seeks/{seek['seek_id']}", None, **{"X-Seek-Token": seek["token"]})["body"]
    cy.goto(base + own["seat_url"])
    di.goto(base + taken["seat_url"])
    expect(di.get_by_test_id("report-opponent")).to_be_visible()  # each player may report the other

    button = cy.get_by_role("button", name="Report opponent")
    button.click()
    dialog = cy.get_by_role("dialog", name="Report Di_game")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("report-line")).to_have_count(0)  # the game, no chat line
    dialog.get_by_label("Reason").select_option("cheating")
    dialog.get_by_label("Note for the moderators (optional)").fill("moves too fast")
    dialog.get_by_role("button", name="Send report").click()
    expect(dialog.get_by_test_id("report-status")).to_have_text("Thank you: your report was sent to the moderators.")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)
    expect(button).to_be_focused()

    cy.goto(base + "/account")
    expect(cy.get_by_test_id("my-reports").locator("li")).to_contain_text("Di_game · Cheating · open")

    mo.goto(base + "/mod")
    group = mo.locator(".mod-target[data-target='Di_game']")
    expect(group).to_contain_text("reported by Cy_game")
    expect(group.locator(".mod-note")).to_have_text("moves too fast")
    expect(group.locator(".mod-lines")).to_have_count(0)
    expect(group.get_by_role("link", name="The game's replay")).to_have_attribute("href", f"/replay/{taken['game_id']}")
    history = group.get_by_test_id("mod-history")  # the player's past, read for this request
    expect(history).to_contain_text("reports in all: 1")
    expect(history).to_contain_text("no sanctions")
    expect(history).to_contain_text("no finished games")  # the game is still being played
    assert errors == []


def test_a_player_renamed_after_the_game_is_reported_from_its_page(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    """The page, open all along on the finished game, learns the new name a moderator gave the
    player (a ``sync``): its players and its report dialog's title say it, and the report, which
    names the opponent by its seat, reaches the renamed account."""
    base, db = site
    errors: list[str] = []
    jo, ro, mo = (watched(new_context(), errors) for _ in range(3))
    for page, name in ((jo, "Jo_ren"), (ro, "Ro_ren"), (mo, "Mo_ren")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Mo_ren", "moderator", "--db", db]) == 0
    seek = call(jo, "POST", "/api/seeks", {"clock": CLOCK})["body"]
    taken = call(ro, "POST", f"/api/seeks/{seek['seek_id']}/accept", {})["body"]
    own = call(jo, "GET", f"/api/seeks/{seek['seek_id']}", None, **{"X-Seek-Token": seek["token"]})["body"]
    jo.goto(base + own["seat_url"])
    ro.goto(base + taken["seat_url"])
    say(ro, "you play like a fool")
    line = jo.locator(".chat-line", has_text="you play like a fool")
    expect(line).to_be_visible()
    ro.get_by_test_id("resign").click()
    ro.get_by_test_id("resign-confirm").click()
    expect(jo.locator(".game")).to_have_attribute("data-turn", "over")

    body = {"username": "Ro_ren", "kind": "rename", "reason": "offensive name"}
    neutral = f"renamed-{call(mo, 'POST', '/api/mod/sanctions', body)['body']['sanction_id']}"
    expect(jo.locator(".players-box .player-name", has_text=neutral)).to_have_count(1)  # Jo's page, open all along
    line.get_by_test_id("chat-report").click()
    dialog = jo.get_by_test_id("report-dialog")
    expect(dialog).to_have_accessible_name(f"Report {neutral}")
    dialog.get_by_label("Reason").select_option("abuse")
    dialog.get_by_role("button", name="Send report").click()
    expect(dialog.get_by_test_id("report-status")).to_have_text("Thank you: your report was sent to the moderators.")
    dialog.get_by_role("button", name="Close").click()

    jo.goto(base + "/account")
    expect(jo.get_by_test_id("my-reports").locator("li")).to_contain_text(f"{neutral} · Abuse or insults · open")
    mo.goto(base + "/mod")
    group = mo.locator(f".mod-target[data-target='{neutral}']")
    expect(group).to_contain_text("reported by Jo_ren")
    expect(group.locator(".mod-lines li.reported")).to_have_text(f"{neutral}: you play like a fool")
    assert errors == []


def test_reports_are_offered_against_an_account_not_a_guest_or_the_ai(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    base, _ = site
    errors: list[str] = []
    ed, fa, gil = (watched(new_context(), errors) for _ in range(3))
    for page, name in ((ed, "Ed_rep"), (fa, "Fa_rep")):
        page.goto(base + "/signup")
        sign_up(page, name)
    by_link = {"opponent": "human", "seat": "first"}

    # A guest took the invitation and spoke: it has no account to report.
    made = call(ed, "POST", "/api/games", by_link)["body"]
    gil.goto(base + made["invite_url"])
    gil.locator("#name").fill("Gil")
    gil.locator("#join").click()
    gil.wait_for_url("**/play/**")
    say(gil, "hello from a guest")
    ed.goto(base + made["seat_url"])
    # Ed's account is known and the guest's line drawn: the page has decided by now.
    expect(ed.get_by_test_id("account-link")).to_have_text("Ed_rep")
    expect(ed.locator(".chat-line", has_text="hello from a guest")).to_be_visible()
    expect(ed.get_by_test_id("report-opponent")).to_be_hidden()
    expect(ed.get_by_test_id("chat-report")).to_have_count(0)

    # A signed-in friend takes the seat while Ed's page waits for it: both are offered then.
    made = call(ed, "POST", "/api/games", by_link)["body"]
    ed.goto(base + made["seat_url"])
    expect(ed.locator(".banner")).to_contain_text("Waiting for your opponent")
    joined = call(fa, "POST", "/api/join/" + made["invite_url"].rsplit("/", 1)[1], {"name": "ignored"})["body"]
    fa.goto(base + joined["seat_url"])
    say(fa, "hello from an account")
    expect(ed.get_by_test_id("report-opponent")).to_be_visible()
    line = ed.locator(".chat-line", has_text="hello from an account")
    expect(line.get_by_test_id("chat-report")).to_have_count(1)

    # The AI: no chat, nothing to report.
    made = call(ed, "POST", "/api/games", {"opponent": "ai", "seat": "first"})["body"]
    ed.goto(base + made["seat_url"])
    expect(ed.get_by_test_id("account-link")).to_have_text("Ed_rep")
    expect(ed.locator(".player.seat1 .player-name")).to_contain_text("Kahuna AI")
    expect(ed.get_by_test_id("report-opponent")).to_be_hidden()
    assert errors == []


def test_the_accounts_the_server_runs_are_offered_no_report(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    """The site's own account and an AI level's profile offer no "Report this player" (a person's
    does), and a lobby game against an AI level's account no "Report opponent": the server refuses
    such reports (``server_account``), nobody being there to act on them."""
    base, _ = site
    errors: list[str] = []
    hal, ivo = (watched(new_context(), errors) for _ in range(2))
    for page, name in ((hal, "Hal_rep"), (ivo, "Ivo_rep")):
        page.goto(base + "/signup")
        sign_up(page, name)
    hal.goto(base + "/users/Ivo_rep")
    expect(hal.locator("#report-player")).to_be_visible()
    hal.goto(base + "/users/ai-easy")
    expect(hal.locator("#challenge-link")).to_be_visible()  # the profile is drawn, without the report
    expect(hal.locator("#report-player")).to_have_count(0)
    hal.goto(base + "/users/kahuna")
    expect(hal.get_by_test_id("profile-name")).to_contain_text("kahuna")
    expect(hal.locator("#report-player")).to_have_count(0)

    # A challenge to the level's account: the AI's seat has an account, and still nothing to report.
    made = call(hal, "POST", "/api/challenges", {"opponent": "ai-easy", "clock": CLOCK, "rated": False})["body"]
    hal.goto(base + made["seat_url"])
    expect(hal.get_by_test_id("rating-1")).to_be_visible()  # the seats' accounts are known: decided
    expect(hal.get_by_test_id("report-opponent")).to_be_hidden()
    expect(hal.get_by_test_id("chat-report")).to_have_count(0)
    assert errors == []
