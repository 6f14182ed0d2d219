"""E-mail in the browser (Chromium) against a real server that mails through a real SMTP server
(aiosmtpd): the account page's address and its verification link, and the password reset from the
sign-in page to the new password, in each of the five languages with the words of that language's
own table; and the notification settings on the account page and the page of a reminder's
unsubscribe link (a server whose reminder thresholds are seconds: the test waits for the mail)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from email.message import EmailMessage
from pathlib import Path
from typing import cast

import httpx
import pytest
from mail_harness import MailServer, link_token, smtp
from playwright.sync_api import BrowserContext, Page, expect

__all__ = ["smtp"]  # the module-scoped mail server fixture, shared from tests/server/mail_harness.py

PASSWORD = "tide-pool-basalt"
_matrix = importlib.import_module("web_matrix")  # which languages make test checks
LOCALES = {"en": "en-GB", "de": "de-DE", "nl": "nl-NL", "es": "es-ES", "da": "da-DK"}
RESET_SUBJECTS = {
    "en": "Kahuna: choose a new password",
    "de": "Kahuna: Wähle ein neues Passwort",
    "nl": "Kahuna: kies een nieuw wachtwoord",
    "es": "Kahuna: elige una contraseña nueva",
    "da": "Kahuna: vælg en ny adgangskode",
}
SHOTS = Path("/work/shots/mail")


web_serving = cast(Callable[..., AbstractContextManager[str]], importlib.import_module("web_serving").serving)


def nth_link(smtp: MailServer, address: str, count: int) -> tuple[str, EmailMessage]:
    """The link of the ``count``-th mail to ``address``, once it arrived, and the mail."""
    mail = smtp.inbox.wait(address, count)[count - 1]
    return link_token(mail)[0], mail


def serving(data: Path, smtp: MailServer, *extra: str) -> AbstractContextManager[str]:
    """``kahuna serve`` on SQLite in ``data`` mailing through ``smtp`` (``extra``: more arguments,
    e.g. ``--limit``); its base URL while it runs."""
    return web_serving(data, "--smtp", f"smtp://127.0.0.1:{smtp.port}", "--limit", "logins_burst=200", *extra)


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory, smtp: MailServer) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("kahuna-web-mail"), smtp) as base:
        yield base


def table(page: Page, language: str) -> dict[str, str]:
    words: dict[str, str] = page.evaluate(f"async () => (await import('/static/js/lang/{language}.js')).default")
    return words


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def sign_in(page: Page, base: str, username: str, password: str = PASSWORD) -> None:
    page.goto(base + "/signin")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#signin-submit")
    page.wait_for_url(base + "/")


def verified_account(base: str, smtp: MailServer, username: str, address: str, language: str) -> None:
    """An account that verified ``address`` (over HTTP: the browser part is the other test's), set
    while the page was in ``language``."""
    with httpx.Client(base_url=base, timeout=10) as http:
        assert http.post("/api/accounts", json={"username": username, "password": PASSWORD}).status_code == 201
        assert http.post("/api/session", json={"username": username, "password": PASSWORD}).status_code == 200
        headers = {"X-CSRF-Token": http.cookies["csrf"]}
        assert http.put("/api/me/email", json={"email": address, "lang": language}, headers=headers).status_code == 202
        link, _ = nth_link(smtp, address, 1)
        assert http.post("/api/email/verify", json={"token": link.split("#", 1)[1]}).status_code == 204


def test_the_account_page_sets_and_verifies_the_address(
    mail_server: str, smtp: MailServer, new_context: Callable[..., BrowserContext]
) -> None:
    httpx.post(f"{mail_server}/api/accounts", json={"username": "webmail", "password": PASSWORD})
    page = new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, mail_server, "webmail")
    page.goto(mail_server + "/account")
    words = table(page, "en")
    expect(page.get_by_test_id("email-state")).to_have_text(words["mail.email_none"])
    page.fill("#email-address", "not-an-address@x")
    page.click("#email-save")  # the browser's own check stops it first: nothing is sent
    page.fill("#email-address", "webmail@example.org")
    page.click("#email-save")
    expect(page.get_by_test_id("email-status")).to_have_text(
        words["mail.email_sent"].replace("{email}", "webmail@example.org")
    )
    # "We mailed a link" is a notice, not a refusal: not in the error's red (issue 51)
    expect(page.get_by_test_id("email-status")).to_have_class(re.compile(r"\bok\b"))
    expect(page.get_by_test_id("email-state")).to_have_text(
        words["mail.email_pending"].replace("{email}", "webmail@example.org")
    )
    shoot(page, "account-email-pending")
    link, mail = nth_link(smtp, "webmail@example.org", 1)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "mail-verify-en.eml").write_bytes(mail.as_bytes())
    page.goto(link)
    expect(page.get_by_test_id("verify-status")).to_have_text(words["mail.verified"])
    assert page.evaluate("location.hash") == ""  # the token left the address bar
    shoot(page, "verify-email")
    page.goto("about:blank")
    page.goto(link)  # the link again: used
    expect(page.get_by_test_id("verify-status")).to_have_text(words["mail.token_used"])
    page.goto(mail_server + "/account")
    expect(page.get_by_test_id("email-state")).to_have_text(
        words["mail.email_verified"].replace("{email}", "webmail@example.org")
    )
    shoot(page, "account-email-verified")
    assert errors == []


@pytest.mark.parametrize("language", _matrix.languages())
def test_a_forgotten_password_is_reset_by_mail(
    language: str, mail_server: str, smtp: MailServer, new_context: Callable[..., BrowserContext]
) -> None:
    username, address = f"forgot-{language}", f"forgot-{language}@example.org"
    verified_account(mail_server, smtp, username, address, language)
    page = new_context(locale=LOCALES[language]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(mail_server + "/signin")
    words = table(page, language)
    page.get_by_role("link", name=words["mail.forgot"]).click()
    page.wait_for_url(mail_server + "/password-reset")
    expect(page.locator("h1")).to_have_text(words["mail.reset_title"])
    page.fill("#reset-email", address)
    page.click("#reset-send")
    expect(page.get_by_test_id("reset-status")).to_have_text(words["mail.reset_sent"])
    shoot(page, f"reset-asked-{language}")
    link, mail = nth_link(smtp, address, 2)
    assert mail["Content-Language"] == language  # the account's language (the page's when the address was set)
    assert mail["Subject"] == RESET_SUBJECTS[language]
    SHOTS.mkdir(parents=True, exist_ok=True)  # each mail as received, for the closing note
    (SHOTS / f"mail-reset-{language}.eml").write_bytes(mail.as_bytes())
    page.goto(link)
    expect(page.locator("h1")).to_have_text(words["mail.reset_choose"])
    assert page.evaluate("location.hash") == ""
    page.fill("#reset-password", "kahuna2026")
    page.click("#reset-save")
    expect(page.get_by_test_id("reset-status")).to_contain_text(words["account.why.password_guessable"][:20])
    page.fill("#reset-password", "lagoon-ember-tern")
    page.click("#reset-save")
    expect(page.get_by_test_id("reset-status")).to_have_text(words["mail.reset_done"])
    shoot(page, f"reset-done-{language}")
    page.click("#reset-sign-in")
    sign_in(page, mail_server, username, "lagoon-ember-tern")
    assert errors == []


# ----------------------------------------------------------------- notifications (docs/accounts.md)


TURN_SUBJECTS = {
    "en": "Kahuna: it is your turn",
    "de": "Kahuna: Du bist am Zug",
    "nl": "Kahuna: je bent aan zet",
    "es": "Kahuna: es tu turno",
    "da": "Kahuna: det er din tur",
}


@pytest.fixture(scope="module")
def notify_server(tmp_path_factory: pytest.TempPathFactory, smtp: MailServer) -> Iterator[str]:
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


@pytest.mark.parametrize("language", _matrix.languages())
def test_settings_panel_and_the_unsubscribe_page(
    language: str, notify_server: str, smtp: MailServer, new_context: Callable[..., BrowserContext]
) -> None:
    username, address = f"notify-{language}", f"notify-{language}@example.org"
    verified_account(notify_server, smtp, username, address, language)
    page = new_context(locale=LOCALES[language]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, notify_server, username)
    page.goto(notify_server + "/account")
    words = table(page, language)
    expect(page.locator("#notify-title")).to_have_text(words["notify.title"])
    for kind in ("your_turn", "deadline", "challenge", "tournament"):
        expect(page.locator(f"#notify-{kind}")).to_have_text(words[f"notify.kind_{kind}"])
        expect(page.locator(f"#notify-{kind}-mail")).to_be_checked()
    expect(page.locator("#notify-your_turn-push")).to_have_count(1)  # the server pushes too
    page.uncheck("#notify-challenge-mail")
    expect(page.get_by_test_id("notify-status")).to_have_text(words["notify.saved"])
    page.reload()
    expect(page.locator("#notify-challenge-mail")).not_to_be_checked()
    expect(page.locator("#notify-deadline-mail")).to_be_checked()
    shoot(page, f"notify-settings-{language}")

    # a reminder mail's unsubscribe link, opened in the browser: it asks first
    game_id = correspondence_game(notify_server, username, f"rival-{language}")
    mail = smtp.inbox.wait(address, 2)[1]
    assert mail["Subject"] == TURN_SUBJECTS[language]
    assert mail["Content-Language"] == language
    text = mail.get_body(("plain",))
    assert text is not None and f"{notify_server}/play/{game_id}" in str(text.get_content())
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
    page.goto(notify_server + "/account")
    expect(page.locator("#notify-your_turn-mail")).not_to_be_checked()
    assert errors == []
