"""`/about/`: how scoring works, with every figure read from the code and the settings."""

from __future__ import annotations


def test_the_about_page_takes_its_figures_from_the_code_and_settings(client, settings, db):
    from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION

    page = client.get("/about/").content.decode()
    assert f"wasmtime {WASMTIME_VERSION}" in page and ENGINE_DIGEST in page
    assert "<code>&lt;entry&gt;</code>" in page  # the case names its entry; here, a placeholder
    assert "60 s per input" in page
    settings.SCORING_WALL_SECONDS = 33
    settings.CARRY_FORWARD_TOP = 7
    settings.SCORING_MAX_MODULE_BYTES = 3 << 20
    page = client.get("/about/").content.decode()
    assert "33 s per input" in page and "the best 7 entries" in page and "3 MiB" in page


def test_the_about_page_says_who_may_submit_and_the_quotas(client, settings, db):
    settings.API_SUBMISSIONS_PER_HOUR = 17
    settings.API_SUBMISSIONS_IN_FLIGHT = 3
    page = client.get("/about/").content.decode()
    assert "API token" in page and "POST /api/v1/submissions/" in page
    assert "at most 3 entries being scored at once" in page and "at most 17 an hour" in page
