"""Browser tests: a real ``kahuna serve`` (SQLite in a tmp dir) driven by Debian's Chromium.

Two builds of the same Chromium (one Debian source package, one version): the headless shell
(``chromium-headless-shell``, the old headless mode that Playwright itself uses for headless runs)
drives most tests, and the full browser (``chromium``) the modules marked ``full_chromium``, which
check what only it has: notifications and the Push API (the shell denies the notification
permission and shows no notification), an installed web app. The shell took 41 % less CPU for
make test's browser tests (docs/testing.md).

Every page opened through ``open_page`` records console errors and uncaught exceptions; the
test fails at teardown if there were any. ``shot`` saves screenshots to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
"""The full browser, for the modules marked ``full_chromium`` and for a profile on disk."""
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
"""The headless shell, for every other browser test."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder drives the browser: mark it ``browser`` (``-m "not browser"``)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)


_missing = [path for path in (CHROMIUM, HEADLESS_SHELL) if not os.path.exists(path)]
if _missing:
    # A developer without Chromium still gets the rest of the suite; CI must run these tests.
    if os.environ.get("CI"):
        raise RuntimeError(f"{_missing} missing: .ci/run installs Debian's chromium and chromium-headless-shell")
    pytest.skip(f"{_missing} not installed (apt-get install chromium chromium-headless-shell)", allow_module_level=True)

OpenPage = Callable[..., Page]
# beside this file (pytest puts this folder on sys.path; mypy checks the folder's files one by one)
_web_serving = importlib.import_module("web_serving")
serving = cast(Callable[[Path], AbstractContextManager[str]], _web_serving.serving)
post_json = cast(Callable[[str, str, dict[str, Any]], dict[str, Any]], _web_serving.post_json)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a fresh server with its own database."""
    with serving(tmp_path_factory.mktemp("kahuna-web")) as base:
        yield base


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server of the module's own (its tests grant roles through the database, or need lists no
    other module's games disturb): its base URL and its database URL."""
    data = tmp_path_factory.mktemp(f"kahuna-{request.module.__name__}")
    with serving(data) as base:
        yield base, f"sqlite:///{data / 'k.db'}"


@pytest.fixture(scope="session")
def post(server: str) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """post(path, body) -> the JSON answer of the server's HTTP API (a guest's request)."""

    def send(path: str, body: dict[str, Any]) -> dict[str, Any]:
        return post_json(server, path, body)

    return send


@pytest.fixture(scope="session")
def create(post: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """create(**body) -> the session server's answer to ``POST /api/games`` (a game a guest makes:
    ``game_id``, ``token`` or ``tokens``, the links), as in docs/protocol.md."""

    def make(**body: Any) -> dict[str, Any]:
        return post("/api/games", body)

    return make


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    """Chromium, for one module: the headless shell, or the full browser for a module marked
    ``full_chromium``. Playwright's sync API runs an event loop in this thread while it is open, so
    it must be closed before a module that calls ``asyncio.run`` runs in the same process (with
    ``pytest -n``, a worker runs other folders' modules after a browser module)."""
    build = CHROMIUM if request.node.get_closest_marker("full_chromium") else HEADLESS_SHELL
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=build, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_context(browser: Browser) -> Iterator[Callable[..., BrowserContext]]:
    """new_context(width=1280, height=800, locale="en-GB", reduced_motion=False): a fresh profile (own localStorage)."""
    contexts: list[BrowserContext] = []

    def make(
        width: int = 1280, height: int = 800, locale: str = "en-GB", reduced_motion: bool = False
    ) -> BrowserContext:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale=locale,
            reduced_motion="reduce" if reduced_motion else "no-preference",
        )
        context.set_default_timeout(20000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def profile(browser: Browser, tmp_path: Path) -> Iterator[BrowserContext]:
    """A browser profile on disk, as a person's is (``new_context`` is an incognito one, from which
    Chromium installs no web app)."""
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS
    )
    context.set_default_timeout(20000)
    yield context
    context.close()


@pytest.fixture
def open_page(server: str, new_context: Callable[..., BrowserContext]) -> Iterator[OpenPage]:
    """open_page(path, context=None, **context options) -> Page; the test fails on any JavaScript error."""
    errors: list[str] = []

    def opener(path: str, context: BrowserContext | None = None, **options: object) -> Page:
        page = (context or new_context(**options)).new_page()
        page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.goto(server + path)
        return page

    yield opener
    assert not errors, "JavaScript errors:\n" + "\n".join(errors)


@pytest.fixture
def shot() -> Callable[[Page, str], Path]:
    """shot(page, name): a full-page screenshot kept as a test artefact; prints its path."""

    def take(page: Page, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path

    return take
