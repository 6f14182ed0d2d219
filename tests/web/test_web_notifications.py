"""Notifications in the browser (Chromium) against a real server mailing through a real SMTP server
(aiosmtpd): the account page's settings panel, and the page of a reminder's unsubscribe link, in
each of the five languages with the words of that language's own table (docs/accounts.md,
*Notifications*). The reminder thresholds are seconds here; the test waits for the mail."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect
from test_web_mail import LOCALES, PASSWORD, Inbox, serving, shoot, sign_in, smtp, table, verified_account

__all__ = ["smtp"]

TURN_SUBJECTS = {
    "en": "Kahuna: it is your turn",
    "de": "Kahuna: Du bist am Zug",
    "nl": "Kahuna: je bent aan zet",
    "es": "Kahuna: es tu turno",
    "da": "Kahuna: det er din tur",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, smtp: Inbox) -> Iterator[str]:
    fast = ("--limit", "notice_scan_seconds=0.1", "--limit", "your_turn_after_seconds=1")
    with serving(tmp_path_factory.mktemp("kahuna-web-notify"), smtp, *fast) as base:
        yield base


def correspondence_game(base: str, first: str, second: str) -> str:
    """A one-day correspondence game in which ``first`` (seat 0) is to move."""
    with httpx.Client(base_url=base, timeout=10) as one, httpx.Client(base_url=base, timeout=10) as two:
        for http, name in ((one, first), (two, second)):
            http.post("/api/accounts", json={"username": name, "password": PASSWORD})
            assert http.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
        made = one.post(
            "/api/games",
            json={"opponent": "human", "seat": "first", "clock": {"days": 1}, "name": first},
            headers={"X-CSRF-Token": one.cookies["csrf"]},
        )
        assert made.status_code == 201, made.text
        invite = made.json()["invite_url"].rsplit("/", 1)[1]
        joined = two.post(f"/api/join/{invite}", json={"name": second}, headers={"X-CSRF-Token": two.cookies["csrf"]})
        assert joined.status_code == 200, joined.text
        return str(made.json()["game_id"])


@pytest.mark.parametrize("language", list(LOCALES))
def test_settings_panel_and_the_unsubscribe_page(
    language: str, server: str, smtp: Inbox, new_context: Callable[..., BrowserContext]
) -> None:
    username, address = f"notify-{language}", f"notify-{language}@example.org"
    verified_account(server, smtp, username, address, language)
    page = new_context(locale=LOCALES[language]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, server, username)
    page.goto(server + "/account")
    words = table(page, language)
    expect(page.locator("#notify-title")).to_have_text(words["notify.title"])
    for kind in ("your_turn", "deadline", "challenge", "tournament"):
        expect(page.locator(f"#notify-{kind}")).to_have_text(words[f"notify.kind_{kind}"])
        expect(page.locator(f"#notify-{kind}-mail")).to_be_checked()
    expect(page.locator("#notify-your_turn-push")).to_have_count(0)  # no push on this server
    page.uncheck("#notify-challenge-mail")
    expect(page.get_by_test_id("notify-status")).to_have_text(words["notify.saved"])
    page.reload()
    expect(page.locator("#notify-challenge-mail")).not_to_be_checked()
    expect(page.locator("#notify-deadline-mail")).to_be_checked()
    shoot(page, f"notify-settings-{language}")

    # a reminder mail's unsubscribe link, opened in the browser: it asks first
    game_id = correspondence_game(server, username, f"rival-{language}")
    mail = smtp.mail(address, 2)
    assert mail["Subject"] == TURN_SUBJECTS[language]
    assert mail["Content-Language"] == language
    text = mail.get_body(("plain",))
    assert text is not None and f"{server}/play/{game_id}" in str(text.get_content())
    stop = str(mail["List-Unsubscribe"]).strip("<>")
    page.goto(stop)
    kind = words["notify.kind_your_turn"]
    expect(page.get_by_test_id("unsubscribe-status")).to_have_text(words["notify.confirm"].replace("{kind}", kind))
    shoot(page, f"unsubscribe-ask-{language}")
    page.click("#unsubscribe")
    expect(page.get_by_test_id("unsubscribe-status")).to_have_text(words["notify.stopped"].replace("{kind}", kind))
    page.reload()
    expect(page.get_by_test_id("unsubscribe-status")).to_have_text(words["notify.already_off"].replace("{kind}", kind))
    page.goto(stop[:-3] + "xyz")  # forged
    expect(page.get_by_test_id("unsubscribe-status")).to_have_text(words["notify.token_invalid"])
    page.goto(server + "/account")
    expect(page.locator("#notify-your_turn-mail")).not_to_be_checked()
    assert errors == []
