"""Fixtures of the browser tests: Debian's Chromium through Playwright, on a live server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from scoring.examples import score_examples
from scoring.service import score, submit

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


@pytest.fixture
def site(transactional_db, live_server, settings, tmp_path):
    """The bundled catalog with its examples scored, plus a starter that does not pass."""
    settings.SCORING_CACHE_DIR = tmp_path / "cache"
    assert import_catalog(ROOT / "test-cases").ok
    score_examples(ROOT / "examples" / "submissions")
    lattice = CaseVersion.objects.get(case__slug="lattice", version="v1")
    score(submit(lattice, lattice.variants.get(slug="long-belts"), "starter",
                 folder=ROOT / "test-cases/performance/hard/lattice/v1/workspaces/base"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return live_server.url


