"""A browser page that collects what went wrong on it, for the tests that end by asserting none did
(or exactly the refusal they provoked)."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page


def watched(context: BrowserContext, errors: list[str]) -> Page:
    """A page of ``context`` whose console errors and uncaught exceptions go to ``errors``."""
    page = context.new_page()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    return page
