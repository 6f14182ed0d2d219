"""A browser page that collects what went wrong on it, for the tests that end by asserting none did
(or exactly the refusal they provoked)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page


def watched(context: BrowserContext, errors: list[str]) -> Page:
    """A page of ``context`` whose console errors and uncaught exceptions go to ``errors``."""
    page = context.new_page()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    return page


def pump_until(page: Page, condition: Callable[[], bool], what: str, seconds: float = 15) -> None:
    """Let ``page`` run until ``condition()`` holds, looked at every 50 ms, at most ``seconds``.

    For what the test sees only through Playwright's events (WebSocket frames, routes): they are
    dispatched to Python only while Playwright waits, so the test waits in Playwright between looks.
    """
    for _ in range(int(seconds * 20)):
        if condition():
            return
        page.wait_for_timeout(50)  # the pause between two looks, no part of what is checked
    raise AssertionError(f"waited {seconds} s for {what}")
