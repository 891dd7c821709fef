"""The public case pages (docs/reading.md): list, filters, a case version, experimental visibility, XSS."""

from __future__ import annotations

import pytest

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from catalog.tests.payloads import XSS_PAYLOADS
from tests.factories import make_cases

pytestmark = pytest.mark.django_db


def test_the_home_page_and_case_list_show_every_public_case(client, imported):
    for url in ("/", "/cases/"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.templates[0].name == "catalog/case_list.html"
        # adder's latest version, with its summary, tags and difficulty.
        assert b"Adder" in response.content
        assert b"Add up a list of integers." in response.content
        assert b"arithmetic" in response.content and b"difficulty-easy" in response.content
        assert b"v10" in response.content


def test_the_list_filters_by_difficulty_tag_and_name(client, imported):
    make_cases(3, prefix="other", tags=("graphs",))
    assert b"Adder" in client.get("/cases/", {"difficulty": "easy"}).content
    assert b"Adder" not in client.get("/cases/", {"difficulty": "hard"}).content
    by_tag = client.get("/cases/", {"tag": "graphs"}).content
    assert b"Bulk case 00000" in by_tag and b"Adder" not in by_tag
    by_name = client.get("/cases/", {"q": "add"}).content
    assert b"Adder" in by_name and b"Bulk case" not in by_name


def test_a_malformed_filter_is_a_400_with_the_reason(client, imported):
    response = client.get("/cases/", {"difficulty": "impossible"})
    assert response.status_code == 400
    assert b"Select a valid choice" in response.content


def test_the_list_paginates(client, db):
    make_cases(30)
    first = client.get("/cases/")
    assert first.content.count(b'class="card"') == 24
    assert b"Page 1 of 2" in first.content
    second = client.get("/cases/", {"page": 2})
    assert second.content.count(b'class="card"') == 6
    # One spelling per page (so every page has one cache entry): anything else is refused.
    for bad in ("banana", "0", "-1", "01", " 2", "\u0662"):
        refused = client.get("/cases/", {"page": bad})
        assert refused.status_code == 400 and b"page must be a whole number" in refused.content, bad
    assert client.get("/cases/", {"page": 3}).status_code == 404


def test_a_case_page_shows_everything_spec_8_lists(client, imported):
    response = client.get("/cases/adder/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Adder" in html and "Add up a list of integers." in html
    assert "arithmetic" in html and "wasm" in html and "difficulty-easy" in html
    # Markdown rendered (a table), description and changelog.
    assert "<table>" in html and "<strong>numbers</strong>" in html
    assert "First version." in html
    # Versions, natural order, the shown one marked.
    versions = html[html.index('<ul class="versions">'):]
    assert versions.index(">v10<") < versions.index(">v2<") < versions.index(">v1<")
    assert '<strong aria-current="page">v10</strong>' in html
    # Variants and their specs; sandbox limits in readable units; input counts.
    assert "Long lists" in html and "specs/long-lists.md" in html
    assert "1,000,000" in html and "1 MiB" in html
    assert "1 smoke, 2 stress" in html


def test_any_version_has_its_own_page(client, imported):
    html = client.get("/cases/adder/v2/").content.decode()
    assert '<strong aria-current="page">v2</strong>' in html
    assert "not the latest version" in html


@pytest.mark.parametrize("url", ["/cases/nope/", "/cases/adder/v99/", "/cases/adder/../v1/", "/cases/ADDER/"])
def test_unknown_cases_and_versions_are_404_in_the_sites_style(client, imported, url):
    response = client.get(url)
    assert response.status_code == 404
    assert b"Fuelboard" in response.content


# --- experimental cases ---------------------------------------------------------------------------


def test_experimental_cases_are_hidden_by_default(client, imported, settings):
    settings.CATALOG_SHOW_EXPERIMENTAL = False
    assert CaseVersion.objects.filter(case__slug="counter", experimental=True).exists()
    assert b"Counter" not in client.get("/cases/").content
    assert b"Counter" not in client.get("/cases/", {"q": "count"}).content
    assert client.get("/cases/counter/").status_code == 404
    assert client.get("/cases/counter/1.0/").status_code == 404
    assert client.get("/cases/counter/leaderboard/").status_code == 404
    assert client.get("/api/v1/cases/counter/").status_code == 404
    assert client.get("/api/v1/cases/counter/leaderboard/").status_code == 404
    assert b"counter" not in client.get("/api/v1/cases/").content


def test_experimental_cases_show_marked_when_enabled(client, imported, settings):
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    listing = client.get("/cases/").content.decode()
    assert "Counter" in listing and 'class="badge experimental"' in listing
    page = client.get("/cases/counter/")
    assert page.status_code == 200 and b"experimental" in page.content
    assert client.get("/cases/counter/leaderboard/").status_code == 200
    assert b"counter" in client.get("/api/v1/cases/").content


def test_an_experimental_new_version_hides_only_itself(client, imported, settings):
    import shutil

    shutil.copytree(imported.root / "performance/easy/adder/v10", imported.root / "performance/easy/adder/v11")
    imported.edit('slug = "adder"', 'slug = "adder"\nexperimental = true', label="performance/easy/adder/v11")
    assert import_catalog(imported.root).ok
    settings.CATALOG_SHOW_EXPERIMENTAL = False
    assert '<strong aria-current="page">v10</strong>' in client.get("/cases/adder/").content.decode()
    assert client.get("/cases/adder/v11/").status_code == 404
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert '<strong aria-current="page">v11</strong>' in client.get("/cases/adder/").content.decode()


# --- sanitising author Markdown ------------------------------------------------------------------


@pytest.mark.parametrize("document", ["description.md", "changelog.md"])
def test_description_and_changelog_are_sanitised(client, catalog, document):
    catalog.write(document, "# Title\n\nSafe **text**.\n\n" + "\n\n".join(XSS_PAYLOADS) + "\n",
                  label="performance/easy/adder/v10")
    assert import_catalog(catalog.root).ok
    html = client.get("/cases/adder/").content.decode().lower()
    main = html[html.index("<main"):html.index("</main>")]
    for forbidden in ("<script", "onerror", "onload", "onclick", "javascript:", "style=", "<iframe", "<style", "<form",
                      "<input"):
        assert forbidden not in main, forbidden
    assert "safe <strong>text</strong>" in main


def test_a_link_whose_address_is_dropped_keeps_no_rel():
    """`rel` is only allowed beside an `href` (the Nu HTML Checker's one error on such a page)."""
    from lib.markup import render_markdown

    html = render_markdown('[x](javascript:alert(1) "t") and [y](https://example.org/)')
    assert '<a title="t">x</a>' in html
    assert '<a href="https://example.org/" rel="nofollow noopener noreferrer">y</a>' in html


def test_an_authors_image_without_a_text_alternative_is_taken_as_decoration(client, catalog):
    """An <img> without alt is invalid HTML and unread by a screen reader: it gets alt="", and an
    image that has one keeps it."""
    catalog.write("description.md", '<img src="https://example.org/a.png"> ![](https://example.org/b.png) '
                  '![a chart](https://example.org/c.png)\n', label="performance/easy/adder/v10")
    assert import_catalog(catalog.root).ok
    html = client.get("/cases/adder/").content.decode()
    assert '<img alt="" src="https://example.org/a.png">' in html
    assert '<img alt="" src="https://example.org/b.png">' in html
    assert '<img alt="a chart" src="https://example.org/c.png">' in html


def test_the_500_page_is_in_the_sites_style_and_needs_no_context(rf):
    from django.views.defaults import server_error

    response = server_error(rf.get("/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content and b"/static/css/site.css" in response.content


def test_static_files_are_served_without_debug_or_a_cdn(client, settings):
    assert settings.DEBUG is False
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert b"--accent" in b"".join(response.streaming_content)
    html = client.get("/cases/").content.decode()
    assert "https://" not in html.split("<body>")[0]  # nothing in <head> comes from elsewhere
