"""Pages render in a constant number of queries, whatever the size of the catalog or board."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_cases, make_submissions

pytestmark = pytest.mark.django_db


def queries_for(client, url: str, **params) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, params)
    assert response.status_code == 200, url
    return len(context.captured_queries)


# Pinned: a change that adds a query per row (or any query) shows up here.
# the catalog's generation, its count (remembered until the catalog changes), the page of latest
# versions (with their best fuel), the tags; the count is not read again until an import.
CASE_LIST_QUERIES = 4
# version, the board's summary (count, engines), entries, their shared places (ties), stress
# inputs, results of the page's entries, versions, variants, the latest record steps (the history
# chart), the earlier epochs it can be read as counted by; a later page adds one for the top of
# the board (the bar chart).
LEADERBOARD_QUERIES = 10
# version, versions, variants, held-out inputs (kind, path, runway, ceiling), the contract
# schemas' sizes and then their text, top of the leaderboard and its shared places, and what the
# agents matrix observed of it (its cells)
CASE_PAGE_QUERIES = 9


@pytest.mark.parametrize("url", ["/cases/", "/api/v1/cases/"])
def test_the_case_list_takes_the_same_queries_for_ten_or_a_thousand_cases(client, url):
    make_cases(10)
    few = queries_for(client, url)
    make_cases(990, prefix="more")
    many = queries_for(client, url)
    assert few == many
    if url == "/cases/":
        assert many == CASE_LIST_QUERIES
        assert queries_for(client, url, tag="bulk", difficulty="hard", q="case", page=3) == CASE_LIST_QUERIES
        assert queries_for(client, url, tag="bulk", difficulty="hard", q="case", page=3) == CASE_LIST_QUERIES - 1


def test_the_leaderboard_takes_the_same_queries_for_ten_or_thousands_of_submissions(client):
    version = make_cases(1)[0]
    slug = version.case.slug
    make_submissions(version, 10)
    few = queries_for(client, f"/cases/{slug}/leaderboard/")
    make_submissions(version, 2_490)  # enough for a 40th page of every entry
    many = queries_for(client, f"/cases/{slug}/leaderboard/")
    assert few == many == LEADERBOARD_QUERIES
    # Naming a variant costs one lookup; every option together stays constant.
    assert queries_for(client, f"/cases/{slug}/leaderboard/", all="1", page=40,
                       variant="base") == LEADERBOARD_QUERIES + 2


def test_leaderboard_json_and_case_page_are_constant_too(client):
    version = make_cases(1)[0]
    slug = version.case.slug
    make_submissions(version, 10)
    few_api, few_page = queries_for(client, f"/api/v1/cases/{slug}/leaderboard/"), queries_for(client,
                                                                                               f"/cases/{slug}/")
    make_submissions(version, 2_490, distinct_names=False)
    assert queries_for(client,
                       f"/api/v1/cases/{slug}/leaderboard/") == few_api == 4  # version, summary, entries, shared places
    assert queries_for(client, f"/cases/{slug}/") == few_page == CASE_PAGE_QUERIES
