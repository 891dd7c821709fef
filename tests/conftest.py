"""Fixtures of the browser tests: Debian's Chromium through Playwright, on a live server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import served

# Playwright's sync API runs an event loop in this thread; the ORM calls the test makes are
# still synchronous and run between browser steps.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]


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
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def site_template(tmp_path_factory):
    """The bundled catalog imported and its examples scored, once per run (tests/served.py)."""
    template = served.prepare(tmp_path_factory.mktemp("served-site"))
    yield template
    template.drop()


@pytest.fixture(scope="session")
def shared_site(site_template):
    site = served.serve(site_template)
    yield site
    site.stop()


@pytest.fixture
def site(shared_site) -> str:
    """The URL of the served bundled catalog, shared by the tests that only read it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return shared_site.url


@pytest.fixture
def own_site(site_template):
    """A served bundled catalog of this test's own, for a test that changes what it shows."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    site = served.serve(site_template)
    yield site
    site.stop()


