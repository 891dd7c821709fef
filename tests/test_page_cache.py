"""Cached pages are served only while the data they show is unchanged."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.importer import import_catalog
from scoring.attempts import score
from scoring.recording import submit
from sitecache.models import CATALOG, Generation
from tests.hostile import CACHE_BYPASS_URLS

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 60


def queries(client, url: str, **extra) -> tuple[int, bytes]:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, **extra)
    assert response.status_code == 200
    return len(context.captured_queries), response.content


@pytest.mark.parametrize("url", ["/cases/", "/cases/adder/", "/cases/adder/leaderboard/", "/api/v1/cases/",
                                 "/api/v1/cases/adder/leaderboard/"])
def test_a_repeated_page_costs_one_query(client, imported, url):
    first, content = queries(client, url)
    again, cached = queries(client, url)
    assert first > 1 and again == 1  # the generation check
    assert cached == content


def test_a_new_score_shows_at_once(client, adder_v1, correct_wasm):
    url = "/cases/adder/leaderboard/?version=v1"
    assert b"No submissions yet." in client.get(url).content
    score(submit(adder_v1, adder_v1.default_variant(), "newcomer", wasm_file=correct_wasm))
    assert b"newcomer" in client.get(url).content


def test_hiding_a_submission_shows_at_once(client, admin_client, adder_v1, correct_wasm):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "hideme", wasm_file=correct_wasm))
    url = "/cases/adder/leaderboard/?version=v1"
    assert b"hideme" in client.get(url).content
    admin_client.post("/admin/scoring/submission/", {"action": "hide_from_leaderboards",
                                                     "_selected_action": [submission.pk]})
    assert b"hideme" not in client.get(url).content


def test_an_import_shows_at_once(client, imported):
    import shutil

    (before,) = Generation.current([CATALOG])
    assert b"v11" not in client.get("/cases/adder/").content
    shutil.copytree(imported.root / "performance/easy/adder/v10", imported.root / "performance/easy/adder/v11")
    imported.write("changelog.md", "# v11\n", label="performance/easy/adder/v11")
    assert import_catalog(imported.root).ok
    assert Generation.current([CATALOG]) == (before + 1,)
    assert b"v11" in client.get("/cases/adder/").content


def test_the_experimental_setting_is_part_of_the_key(client, imported, settings):
    settings.CATALOG_SHOW_EXPERIMENTAL = False
    assert b"Counter" not in client.get("/cases/").content
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert b"Counter" in client.get("/cases/").content


def test_signed_in_users_are_never_served_from_the_cache(admin_client, client, imported):
    client.get("/cases/")
    assert b"Admin</a>" in admin_client.get("/cases/").content
    assert b"Admin</a>" not in client.get("/cases/").content


# --- the key holds what a page reads, nothing else (issue: the cache could be bypassed) -------------


def test_unknown_parameters_cannot_make_a_page_miss_the_cache(client, imported):
    first, content = queries(client, "/cases/adder/leaderboard/?junk=first")
    for url in CACHE_BYPASS_URLS:
        again, cached = queries(client, url)
        assert again == 1, url  # the generation check: served from the one entry
        assert cached == content


def test_parameters_a_page_reads_still_make_distinct_entries(client, imported):
    queries(client, "/cases/adder/leaderboard/")
    assert queries(client, "/cases/adder/leaderboard/?version=v1")[0] > 1
    assert queries(client, "/cases/adder/leaderboard/?all=1")[0] > 1


def test_links_on_a_cached_page_carry_only_the_parameters_it_reads(client, adder_v1):
    from tests.factories import make_submissions

    make_submissions(adder_v1, 55)
    content = client.get("/cases/adder/leaderboard/?version=v1&junk=%3Cevil%3E&all=1").content
    assert b'href="?all=1&amp;version=v1&amp;page=2"' in content
    assert b"junk" not in content and b"evil" not in content


def test_refused_parameter_values_are_never_cached(client, imported):
    from django.core.cache import cache

    cache.clear()
    for value in ("0", "banana", "99"):
        assert client.get(f"/cases/adder/leaderboard/?page={value}").status_code in (400, 404)
    assert not cache._cache  # nothing was stored for them


def test_deleting_a_submission_in_the_admin_shows_at_once(client, admin_client, adder_v1, correct_wasm):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "deleteme", wasm_file=correct_wasm))
    url = "/cases/adder/leaderboard/?version=v1"
    assert b"deleteme" in client.get(url).content
    response = admin_client.post("/admin/scoring/submission/", {
        "action": "delete_selected", "_selected_action": [submission.pk], "post": "yes",
    })
    assert response.status_code == 302
    assert b"deleteme" not in client.get(url).content


def test_deleting_a_case_version_shows_at_once(client, imported):
    from catalog.models import CaseVersion

    assert b"v10" in client.get("/cases/adder/").content
    CaseVersion.objects.get(case__slug="adder", version="v10").delete()
    assert b"v10" not in client.get("/cases/adder/").content


def test_a_value_that_looks_like_two_parameters_cannot_poison_the_cache(client, imported):
    """`?q=Adder%26tag%3Darithmetic` is one search for an odd name, not `?q=Adder&tag=arithmetic`."""
    client.get("/cases/", {"q": "Adder&tag=arithmetic"})
    assert b"Adder" in client.get("/cases/?q=Adder&tag=arithmetic").content


def test_absolute_links_come_from_the_site_url_whatever_host_or_scheme_a_request_names(client, imported, settings):
    from tests.factories import make_cases

    make_cases(60)
    settings.SITE_URL = "https://fuel.example.org"
    for extra in ({}, {"secure": True}, {"HTTP_HOST": "127.0.0.1:9999"}, {"HTTP_HOST": "LOCALHOST"}):
        assert client.get("/api/v1/cases/", **extra).json()["next"] == "https://fuel.example.org/api/v1/cases/?page=2"
    assert '<link rel="canonical" href="https://fuel.example.org/cases/">' in client.get(
        "/", HTTP_HOST="localhost:1").content.decode()


def test_the_host_a_client_names_cannot_make_new_cache_entries(client, imported):
    """A port, a case or another allowed name in the Host header is the same page, served from
    the one entry (it used to be a new entry per Host, at a visitor's will)."""
    first, content = queries(client, "/api/v1/cases/adder/leaderboard/")
    for host in ("127.0.0.1:8000", "127.0.0.1:1", "localhost", "LOCALHOST:65535"):
        again, cached = queries(client, "/api/v1/cases/adder/leaderboard/", HTTP_HOST=host)
        assert again == 1 and cached == content, host


def test_head_is_served_from_the_get_entry_and_fills_it(client, imported):
    queries(client, "/cases/adder/leaderboard/")
    with CaptureQueriesContext(connection) as context:
        assert client.head("/cases/adder/leaderboard/").status_code == 200
    assert len(context.captured_queries) == 1
    with CaptureQueriesContext(connection) as context:
        assert client.head("/cases/adder/").status_code == 200  # not cached yet: rendered and kept
    assert len(context.captured_queries) > 1
    assert queries(client, "/cases/adder/")[0] == 1


def test_options_on_a_page_answers_allow_without_rendering_it(client, imported):
    with CaptureQueriesContext(connection) as context:
        response = client.options("/cases/adder/leaderboard/")
    assert (response.status_code, response["Allow"], response.content) == (204, "GET, HEAD, OPTIONS", b"")
    assert len(context.captured_queries) == 0
    assert client.options("/no/such/page/").status_code == 404


# --- a write empties only the pages that show what it changed -----------------------------------


def test_a_score_on_one_version_leaves_other_versions_pages_and_the_case_list_cached(client, adder_v1, correct_wasm):
    others = ["/cases/adder/leaderboard/?version=v2", "/cases/adder/v2/", "/cases/adder/leaderboard/",
              "/cases/adder/", "/cases/", "/api/v1/cases/"]
    for url in others:
        queries(client, url)
    mine = "/cases/adder/leaderboard/?version=v1"
    queries(client, mine)
    score(submit(adder_v1, adder_v1.default_variant(), "scoped", wasm_file=correct_wasm))
    for url in others:  # v1 is not the latest: not even the case list's best fuel moved
        assert queries(client, url)[0] == 1, url
    count, content = queries(client, mine)
    assert count > 1 and b"scoped" in content


def test_a_new_best_or_entry_on_a_latest_version_refreshes_the_case_list_but_a_worse_score_does_not(
        client, imported, correct_wasm, tmp_path):
    from catalog.models import CaseVersion
    from engine.tests import wat
    from scoring.tests.helpers import adder_answers

    latest = CaseVersion.objects.get(case__slug="adder", version="v10")
    queries(client, "/cases/")
    score(submit(latest, latest.default_variant(), "first", wasm_file=correct_wasm))
    count, content = queries(client, "/cases/")
    assert count > 1  # the best fuel it shows changed
    slower = tmp_path / "slower.wasm"
    slower.write_bytes(wat.lookup(adder_answers(imported), iterations=500))
    score(submit(latest, latest.default_variant(), "second", wasm_file=slower))
    assert queries(client, "/cases/")[0] > 1  # same best, but one more entry: the list shows the count
    score(submit(latest, latest.default_variant(), "second", wasm_file=slower))
    assert queries(client, "/cases/")[0] == 1  # same best, same entries: still cached
    assert queries(client, "/cases/adder/leaderboard/")[0] > 1  # its own board did change


def test_the_case_page_is_keyed_by_the_version_it_shows_not_by_a_parameter_it_ignores(client, imported):
    """/cases/<slug>/ shows the latest version whatever `?version=` says: the parameter is not in
    its key, so a version's results cannot stand in for the latest's (a stale page once followed)."""
    queries(client, "/cases/adder/")
    assert queries(client, "/cases/adder/?version=v1")[0] == 1


@pytest.mark.parametrize("url", ["/cases/?q=", "/cases/?tag=", "/api/v1/cases/?q=", "/api/v1/cases/?tag=",
                                 "/cases/adder/leaderboard/?model=", "/api/v1/cases/adder/leaderboard/?model="])
def test_values_a_client_varies_at_will_are_rendered_but_never_stored(client, imported, url):
    """A search, a tag no case carries, a model no entry names: any value could come, so none
    takes a place in the page cache (a client could otherwise fill it and push real pages out)."""
    from django.core.cache import cache

    cache.clear()
    for value in ("zq1", "zq2", "zq3"):
        assert client.get(url + value).status_code == 200
    assert not [key for key in cache._cache if key.startswith(":1:page:")]
    queries(client, "/cases/?tag=arithmetic")  # a tag a case carries: the page is kept
    assert queries(client, "/cases/?tag=arithmetic")[0] == 1
