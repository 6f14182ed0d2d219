"""A sanctioned player's notice and appeal in Chromium (issue 48, docs/moderation.md, *Notices and
appeals*), on a server of its own: a player whose browser speaks German is warned by a moderator;
on the next page the notice says in German what was done and why; the player appeals from it and
acknowledges it, and it is not shown again; the account page lists the sanction with its appeal.
On /mod the moderator who warned sees the appeal and is refused the decision in words (another
moderator exists); the other moderator overturns it, and the player's account page says so (on a
phone too, no wider than the window)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

from kahuna.cli import main

sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)
moderation = importlib.import_module("test_web_moderation")
call = cast(Callable[..., dict[str, Any]], moderation.call)
watched = cast(Callable[[BrowserContext, list[str]], Page], moderation.watched)

# The one answer the page expects and words (the warning moderator's decision: 403), which
# Chromium logs as a console error: the test counts it, and any other error fails it.
FORBIDDEN = "Failed to load resource: the server responded with a status of 403 (Forbidden)"


def test_a_warned_player_sees_the_notice_in_its_language_and_appeals_and_another_moderator_decides(
    site: tuple[str, str], new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    base, db = site
    errors: list[str] = []
    pat = watched(new_context(locale="de-DE"), errors)
    mia, ned = watched(new_context(), errors), watched(new_context(), errors)
    for page, name in ((pat, "Pat_appeal"), (mia, "Mia_appeal"), (ned, "Ned_appeal")):
        page.goto(base + "/signup")
        sign_up(page, name)
    for name in ("Mia_appeal", "Ned_appeal"):
        assert main(["admin", "grant", name, "moderator", "--db", db]) == 0
    expect(pat.get_by_test_id("sanction-notice")).to_have_count(0)

    warning = {"username": "Pat_appeal", "kind": "warn", "reason": "insults in the lobby chat"}
    call(mia, "POST", "/api/mod/sanctions", warning)

    pat.goto(base + "/rules")  # the next visit, of any page
    notice = pat.get_by_test_id("sanction-notice")
    expect(notice).to_be_visible()
    expect(notice.get_by_role("heading")).to_have_text("Eine Nachricht der Moderatoren")
    expect(notice).to_contain_text("Ein Moderator hat dich verwarnt.")
    expect(notice.locator(".sanction-reason")).to_have_text("Grund: insults in the lobby chat")
    expect(notice).not_to_contain_text("Mia_appeal")  # never who sanctioned
    notice.get_by_role("button", name="Einspruch erheben").click()
    note = notice.get_by_label("Warum sollte ein Moderator es noch einmal prüfen?")
    expect(note).to_be_focused()
    note.fill("I quoted the other player.")
    expect(notice.locator(".hint")).to_have_text("26 von 500 Zeichen")
    shot(pat, "sanction-notice")
    notice.get_by_role("button", name="Einspruch senden").click()
    expect(notice.get_by_test_id("appeal-status")).to_have_text("Dein Einspruch ging an die Moderatoren.")
    notice.get_by_role("button", name="Verstanden").click()
    expect(notice).to_have_count(0)

    pat.goto(base + "/")  # acknowledged: not shown again
    expect(pat.get_by_test_id("account-link")).to_contain_text("Pat_appeal")
    expect(pat.get_by_test_id("sanction-notice")).to_have_count(0)
    assert call(pat, "GET", "/api/me")["body"]["notices"] == 0
    pat.goto(base + "/account")
    mine = pat.get_by_test_id("my-sanctions").locator("li")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Ein Moderator hat dich verwarnt.")
    expect(mine.get_by_test_id("sanction-standing")).to_contain_text("Einspruch erhoben")

    mia.goto(base + "/mod")
    mia.get_by_role("tab", name="Appeals").click()
    expect(mia.locator("#mod-panel-appeals")).to_have_attribute("aria-busy", "false")  # drawn again
    appeal = mia.locator(".mod-appeal", has_text="Pat_appeal")
    expect(appeal.locator(".mod-note")).to_have_text("I quoted the other player.")
    expect(appeal).to_contain_text("warning · by Mia_appeal")
    expect(appeal.locator(".mod-sanction-reason")).to_have_text("Reason given: insults in the lobby chat")
    appeal.get_by_label("Reason").fill("I stand by it")
    shot(mia, "moderation-appeals")
    appeal.get_by_role("button", name="Overturn and undo").click()
    expect(mia.get_by_test_id("mod-status")).to_have_text("Another moderator decides the appeal of your own sanction.")

    ned.goto(base + "/mod")
    ned.get_by_role("tab", name="Appeals").click()
    expect(ned.locator("#mod-panel-appeals")).to_have_attribute("aria-busy", "false")  # drawn again
    appeal = ned.locator(".mod-appeal", has_text="Pat_appeal")
    appeal.get_by_label("Reason").fill("a quote, not an insult")
    appeal.get_by_role("button", name="Overturn and undo").click()
    expect(ned.get_by_test_id("mod-status")).to_have_text("Done.")
    expect(ned.get_by_test_id("mod-no-appeals")).to_have_text("No open appeals.")
    ned.get_by_role("tab", name="Log").click()
    expect(ned.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")  # drawn again
    expect(ned.get_by_test_id("mod-log").locator("tr", has_text="appeal decided")).to_contain_text("overturned")

    pat.reload()
    expect(pat.get_by_test_id("my-sanctions").get_by_test_id("sanction-standing")).to_have_text(
        "Deinem Einspruch wurde stattgegeben, die Sanktion ist aufgehoben: a quote, not an insult"
    )
    pat.set_viewport_size({"width": 390, "height": 844})  # on a phone: the list no wider than the page
    expect(pat.get_by_test_id("my-sanctions").locator("li")).to_have_count(1)
    assert pat.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == [FORBIDDEN]
