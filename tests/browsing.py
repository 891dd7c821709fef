"""Debian's Chromium driven through Playwright, as the browser tests drive it: where it is, how it is
started, and a page whose clicks wait for what they lead to."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


SCREENSHOTS = ROOT / "docs" / "screenshots"


CHROMIUM = "/usr/bin/chromium"


# A page each accessibility checker must fault (an image with no text alternative): checked beside
# the site's pages, it shows the checker's run can fail.
MISSING_ALT_PAGE = ('<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main>'
                    '<img src="x.png"></main></body></html>')


CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]


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
