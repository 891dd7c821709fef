"""ETags and 304s, a short public Cache-Control, and gzip that never touches a visitor's secrets."""

from __future__ import annotations

import gzip

import pytest

pytestmark = pytest.mark.django_db

PUBLIC = ["/cases/", "/cases/adder/", "/cases/adder/leaderboard/", "/standings/", "/about/", "/api/v1/cases/",
          "/api/v1/cases/adder/leaderboard/", "/api/v1/standings/"]


@pytest.mark.parametrize("url", PUBLIC)
def test_public_pages_revalidate_with_their_etag(client, imported, url):
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"]
    assert first["Cache-Control"] == "public, max-age=30"
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize("url", PUBLIC)
def test_public_pages_and_json_are_compressed(client, imported, url):
    plain = client.get(url)
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    from django.middleware.gzip import GZipMiddleware
    from django.utils.text import compress_string

    # Django pads a packed body with up to max_random_bytes of filler (against BREACH) and sends the
    # plain body whenever the padded one is no shorter, so near that edge either outcome is right.
    padding = GZipMiddleware.max_random_bytes
    smallest = len(compress_string(plain.content))
    if len(plain.content) < 200 or smallest >= len(plain.content):
        # not worth it (Django's rule: short, or no shorter packed): sent as is
        assert "Content-Encoding" not in packed and packed.content == plain.content
        return
    if "Content-Encoding" not in packed:
        assert smallest + padding >= len(plain.content), "a body that packs well was sent plain"
        assert packed.content == plain.content
        return
    assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed["Vary"]
    assert gzip.decompress(packed.content) == plain.content
    assert len(packed.content) < len(plain.content)


def test_nothing_carrying_a_csrf_token_or_a_session_is_compressed(client, imported, django_user_model):
    login = client.get("/admin/login/", HTTP_ACCEPT_ENCODING="gzip")
    assert b"csrfmiddlewaretoken" in login.content and "Content-Encoding" not in login
    assert "public" not in login.get("Cache-Control", "")
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    for url in ("/cases/", "/admin/", "/api/v1/cases/", "/admin/catalog/caseversion/import/"):
        response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200 and "Content-Encoding" not in response, url
        assert "public" not in response.get("Cache-Control", ""), url


def test_a_kit_keeps_its_strong_etag_and_is_not_compressed_again(client, imported):
    response = client.get("/cases/adder/v1/kit/base.zip", HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in response and not response["ETag"].startswith("W/")
    assert response["Cache-Control"] == "public, max-age=3600"


def test_errors_are_not_cached_publicly(client, imported):
    for url in ("/cases/nope/", "/cases/?difficulty=extreme"):
        response = client.get(url)
        assert response.status_code in (400, 404) and "public" not in response.get("Cache-Control", "")


def test_a_response_that_sets_a_cookie_is_never_public(client, imported):
    client.cookies["sessionid"] = "stale-or-forged"
    response = client.get("/cases/")
    assert response.status_code == 200
    assert "sessionid" in response.cookies  # the session framework answers a bad session by clearing it
    assert "public" not in response.get("Cache-Control", "")


def test_what_a_signed_in_user_sees_is_private(client, imported, django_user_model):
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    response = client.get("/cases/adder/")
    assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]
