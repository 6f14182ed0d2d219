"""The installable web app in Chromium: the manifest and the service worker pass Chromium's own
installability checks, the game's shell loads from the worker's cache with the network off, a push
that reaches the worker is shown as a notification in the page's language (the game and the
opponent, nothing else), the account page's control asks for the permission first, and a game's
"Notify me" is offered only where it applies. All in the full Chromium (``full_chromium``): the
headless shell the other browser tests use has no notifications."""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from typing import Any, cast

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

pytestmark = pytest.mark.full_chromium

create_game = cast(Callable[..., dict[str, Any]], importlib.import_module("web_serving").create_game)
MINE = cast(str, importlib.import_module("test_web_fit").MINE)

PASSWORD = "coral-reef-lantern"


def until(page: Page, script: str, what: str, timeout: float = 20) -> Any:
    """Evaluate ``script`` (it may return a promise) until its value is truthy; that value.
    (``wait_for_function`` takes a promise for a truthy answer.)"""
    deadline = time.monotonic() + timeout
    while not (value := page.evaluate(script)):
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        page.wait_for_timeout(50)  # the pause between two looks, no part of what is checked
    return value


def controlled(page: Page) -> None:
    """Wait until the service worker is active and controls this page (reloading once if needed)."""
    until(page, "navigator.serviceWorker.ready.then(Boolean)", "the service worker")
    if not page.evaluate("Boolean(navigator.serviceWorker.controller)"):
        page.reload()
    page.wait_for_function("Boolean(navigator.serviceWorker.controller)")


def errors_of(page: Page) -> list[str]:
    """Uncaught exceptions of ``page`` (console errors are expected offline: failed requests)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def test_chromium_finds_the_app_installable(server: str, profile: BrowserContext) -> None:
    page = profile.new_page()
    errors = errors_of(page)
    page.goto(server + "/")
    controlled(page)
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert manifest["url"] == server + "/manifest.webmanifest"
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    assert page.evaluate("document.querySelector('meta[name=theme-color]').content") == "#17566f"
    for icon in json.loads(httpx.get(server + "/manifest.webmanifest").text)["icons"]:
        answer = httpx.get(server + icon["src"])
        assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
    assert errors == []


def test_the_shell_loads_from_the_cache_when_the_network_is_gone(
    server: str, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context()
    page = context.new_page()
    errors = errors_of(page)
    page.goto(server + "/")
    controlled(page)
    page.wait_for_selector("#main h1, #main h2")
    context.set_offline(True)
    try:
        page.goto(server + "/rules")  # a page never opened online: the one index.html, from the cache
        page.wait_for_selector("#main h1")
        assert page.locator("header.top .brand").is_visible()
        assert "Kahuna" in page.title()
        cached = page.evaluate("caches.keys()")
        assert [name for name in cached if name.startswith("kahuna-shell-")], cached
        # what the API answers is never cached: offline, it fails rather than answering stale
        refused = page.evaluate("fetch('/api/levels').then(() => 'answered', () => 'failed')")
        assert refused == "failed"
    finally:
        context.set_offline(False)
    assert errors == []


def test_a_push_is_shown_in_the_pages_language_and_names_only_the_game_and_the_opponent(
    server: str, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context(locale="de-DE")
    context.grant_permissions(["notifications"], origin=server)
    page = context.new_page()
    errors = errors_of(page)
    page.goto(server + "/")
    controlled(page)
    texts = "caches.open('kahuna-texts').then((c) => c.match('/__kahuna/push-texts')).then(Boolean)"
    until(page, texts, "the page to hand the worker its texts")
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, str]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")  # announces the registrations there are
    ids: list[str] = []
    deadline = time.monotonic() + 15
    while not ids:  # the announcement arrives as an event: look until it has
        assert time.monotonic() < deadline, "waited 15 s for the worker's registration"
        page.wait_for_timeout(50)  # events are dispatched while Playwright waits
        ids = [r["registrationId"] for r in registrations if r["scopeURL"] == server + "/"]
    payload = {"kind": "your_turn", "game": "G4meId", "opponent": "Ann", "url": "/play/G4meId#seat:1"}
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": server + "/", "registrationId": ids[0], "data": json.dumps(payload)},
    )
    shown = until(
        page,
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((n) => n.length > 0 &&"
        " n.map((x) => ({title: x.title, body: x.body, tag: x.tag, data: x.data})))",
        "the notification",
    )
    assert shown == [
        {
            "title": "Kahuna",
            "body": "Du bist am Zug gegen Ann.",
            "tag": "kahuna-G4meId",
            "data": {"url": "/play/G4meId#seat:1"},
        }
    ]
    assert errors == []


def test_the_account_pages_control_asks_for_the_permission_first(
    server: str, new_context: Callable[..., BrowserContext]
) -> None:
    username = "webpush1"
    assert httpx.post(f"{server}/api/accounts", json={"username": username, "password": PASSWORD}).status_code == 201
    context = new_context()
    page = context.new_page()
    errors = errors_of(page)
    page.goto(server + "/signin")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#signin-submit")
    page.wait_for_url(server + "/")
    page.goto(server + "/account")
    controlled(page)
    page.wait_for_selector("#push-enable")
    assert page.locator("#push-title").text_content() == "Notifications on this device"
    assert page.locator("#push-state").inner_text() == "This device gets no notifications."
    page.evaluate("Notification.requestPermission = async () => 'denied'")  # the user says no
    page.click("#push-enable")
    page.wait_for_function("document.querySelector('#push-state').textContent.includes('blocked')")
    assert page.locator("#push-disable").is_hidden()
    assert errors == []


def test_notify_me_is_offered_against_a_person_until_the_game_ends_and_never_in_hotseat(
    server: str, open_page: Callable[..., Page], new_context: Callable[..., BrowserContext]
) -> None:
    """ "Notify me" asks the browser's permission for a game whose turns come while one is away:
    against a person before the browser was asked; not once the game is over, nor in hot-seat."""
    person = create_game(server, opponent="human", seat="first", name="Ann")
    ben = new_context()
    joined = ben.request.post(server + person["invite_url"].replace("/join/", "/api/join/"), data={"name": "Ben"})
    assert joined.ok, joined.text()
    ann = open_page(f"/play/{person['game_id']}#{person['token']}")
    ann.wait_for_function(MINE)
    expect(ann.get_by_test_id("notify-me")).to_be_visible()  # the browser has not been asked yet
    ann.get_by_test_id("resign").click()
    ann.get_by_test_id("resign-confirm").click()
    expect(ann.locator(".game")).to_have_attribute("data-turn", "over")
    expect(ann.get_by_test_id("notify-me")).to_be_hidden()

    hotseat = create_game(server, opponent="hotseat", seat="first")
    both = open_page(f"/play/{hotseat['game_id']}#{','.join(hotseat['tokens'])}")
    both.wait_for_function(MINE)
    expect(both.get_by_test_id("notify-me")).to_be_hidden()
