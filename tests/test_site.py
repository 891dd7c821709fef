"""Small site-wide endpoints."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_the_health_view_is_trivial(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/health/")
    assert (response.status_code, response.content) == (200, b"ok\n")


def test_the_icon_is_found_where_browsers_look_for_it(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/img/favicon.svg"
