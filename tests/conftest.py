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


def settling(page):
    """`page`, whose clicks return once the page they lead to has loaded.

    Playwright's click returns when a navigation it started has committed, before the new
    document is parsed, and `locator.count()` does not wait: on a busy machine a count right
    after a click read the old page, or an empty one. A click that does not navigate (a
    `<summary>`) finds the page loaded already."""
    click = page.click

    def click_and_settle(selector: str, **options):
        click(selector, **options)
        page.wait_for_load_state("load")

    page.click = click_and_settle
    return page


@pytest.fixture
def page(browser):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    yield settling(context.new_page())
    context.close()


@pytest.fixture(scope="session")
def site_template(tmp_path_factory):
    """The bundled catalog imported and its examples scored, once per run (tests/served.py).

    Once per run, not once per test process: every test that uses it is in the xdist group
    "served-site", which pytest-xdist's --dist loadgroup runs in one process. A second process
    preparing it means the grouping broke (as it does with pytest 9.2, whose node ids xdist
    3.8 can no longer suffix), and the suite pays for every build twice: say so."""
    import os

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:  # the workers' base folders share a parent: the run's
        claim = tmp_path_factory.getbasetemp().parent / "served-site-prepared-by"
        try:
            with open(claim, "x") as taken:
                taken.write(worker)
        except FileExistsError:
            pytest.fail(f"the served site was prepared by {claim.read_text()} already: the tests of the "
                        "xdist group 'served-site' are split across processes (is --dist loadgroup grouping?)")
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


