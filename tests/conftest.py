"""Fixtures of the browser tests: Debian's Chromium through Playwright, on a live server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browsing import CHROMIUM, CHROMIUM_ARGS, settling

# Playwright's sync API runs an event loop in this thread; the ORM calls the test makes are
# still synchronous and run between browser steps.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is installed by `make test` (Debian package chromium)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    yield settling(context.new_page())
    context.close()
