"""Random and malformed URLs, slugs, versions and query parameters answer 4xx, never 500."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.importer import import_catalog
from catalog.tests.trees import VALID_CATALOG
from tests.hostile import NASTY_URLS, RANDOM_REQUESTS

pytestmark = pytest.mark.django_db

PREFIXES = ["/", "/cases/", "/cases/adder/", "/cases/adder/leaderboard/", "/cases/{s}/", "/cases/adder/{s}/",
            "/cases/{s}/leaderboard/", "/submissions/{s}/", "/api/v1/cases/", "/api/v1/cases/{s}/",
            "/api/v1/cases/{s}/leaderboard/", "/api/v1/submissions/{s}/", "/admin/", "/admin/{s}/", "/static/{s}",
            "/standings/", "/api/v1/standings/", "/submissions/{s}/compare/1/", "/api/v1/submissions/1/compare/{s}/",
            "/api/{s}/", "/api/cases/{s}/leaderboard/", "/api/v1/{s}/", "/api/v1/docs"]
PARAMETERS = ["q", "tag", "difficulty", "page", "version", "variant", "all", "format"]
nasty_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "0", "-1", "99999999999999999999999", "9" * 400, "\x00", "%00", "..", "../..", "v1",
                     "leaderboard", "base", "NaN", "1e9", "' OR 1=1 --", "<script>", "%", "\u202e", "a" * 5000]),
)


@pytest.fixture
def catalog_loaded(db):
    assert import_catalog(VALID_CATALOG).ok


@settings(max_examples=RANDOM_REQUESTS, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                              HealthCheck.too_slow])
@given(prefix=st.sampled_from(PREFIXES), segment=nasty_text,
       params=st.dictionaries(st.sampled_from(PARAMETERS), nasty_text, max_size=4))
def test_no_url_or_parameter_makes_a_server_error(client, catalog_loaded, prefix, segment, params):
    path = prefix.format(s=quote(segment, safe=""))
    url = path + ("?" + urlencode(params) if params else "")
    response = client.get(url)
    assert response.status_code < 500, (url, response.status_code)


@pytest.mark.parametrize("url", NASTY_URLS)
def test_known_nasty_requests(client, catalog_loaded, url):
    assert client.get(url).status_code in (200, 400, 404), url
