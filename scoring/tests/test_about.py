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


def test_the_about_page_explains_trials_the_interval_and_measuring_again(client, settings, db):
    page = client.get("/about/").content.decode()
    assert 'id="agents"' in page and 'id="verification"' in page
    assert "with 3 of 4 trials passing it is 30%–95%" in page  # the Wilson interval, computed
    assert "Staff choose which entries are measured again" in page
    settings.VERIFY_NEW_RECORDS = True
    assert "Every new record is measured again as it is set" in client.get("/about/").content.decode()


def test_the_about_page_defines_ties_speedups_fast_p_and_the_solved_share(client, db):
    page = client.get("/about/").content.decode()
    assert 'id="speedup"' in page and "48,000 ÷ 12,000 = <strong>4×</strong>" in page
    assert "p = 0.5, 0.8, 1, 1.5, 2, 5, 10" in page and "the geometric mean of the speedups" in page
    assert "KernelBench asks for more than p" in page and "This is AlgoTune's score" in page
    assert "the harmonic mean, over every case with a reference" in page
    assert "“=2” on each" in page and "<code>shared_rank</code>" in page
    assert "a case the agent never tried is an unsolved case" in page
    assert "one trial on one case, solved, is 100%" in page
