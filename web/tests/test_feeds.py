"""robots.txt, the sitemap, the Atom feed of new versions, and canonical links."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from catalog.models import CaseVersion

pytestmark = pytest.mark.django_db

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"


def test_robots_names_the_sitemap_and_keeps_crawlers_out_of_the_admin(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain"
    assert response.content.decode().splitlines() == [
        "User-agent: *", "Disallow: /admin/", "Sitemap: http://127.0.0.1:8000/sitemap.xml"]


def test_the_sitemap_lists_every_shown_version_and_the_pages(client, imported, settings):
    root = ElementTree.fromstring(client.get("/sitemap.xml").content)
    locations = [element.text for element in root.iter(f"{SITEMAP}loc")]
    assert locations[:3] == ["http://127.0.0.1:8000/cases/", "http://127.0.0.1:8000/standings/",
                             "http://127.0.0.1:8000/about/"]
    assert sorted(locations[3:]) == sorted(f"http://127.0.0.1:8000/cases/adder/{version}/" for version in ("v1", "v2",
                                                                                                           "v10"))
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert "http://127.0.0.1:8000/cases/counter/1.0/" in client.get("/sitemap.xml").content.decode()


def test_the_feed_lists_the_newest_versions(client, imported):
    from datetime import timedelta

    CaseVersion.objects.filter(version="v2").update(summary="<b>bold</b> & more")
    first = CaseVersion.objects.get(version="v1").imported_at
    for offset, name in enumerate(("v1", "v2", "v10")):  # published in this order
        CaseVersion.objects.filter(version=name).update(imported_at=first + timedelta(hours=offset))
    feed = ElementTree.fromstring(client.get("/feeds/versions.atom").content)
    entries = feed.findall(f"{ATOM}entry")
    assert [entry.find(f"{ATOM}title").text for entry in entries] == ["Adder v10", "Adder v2", "Adder v1"]
    assert entries[0].find(f"{ATOM}link").get("href") == "http://127.0.0.1:8000/cases/adder/v10/"
    assert {category.get("term") for category in entries[0].findall(f"{ATOM}category")} == {"easy", "arithmetic",
                                                                                            "wasm"}
    assert entries[1].find(f"{ATOM}summary").text == "<b>bold</b> & more"  # text, escaped by the XML


def test_pages_shown_at_two_urls_name_one_canonical(client, imported):
    assert '<link rel="canonical" href="http://127.0.0.1:8000/cases/">' in client.get("/").content.decode()
    assert '<link rel="canonical" href="http://127.0.0.1:8000/cases/?tag=wasm">' in client.get(
        "/cases/", {"tag": "wasm", "junk": "1"}).content.decode()
    for url in ("/cases/adder/", "/cases/adder/v10/"):
        canonical = '<link rel="canonical" href="http://127.0.0.1:8000/cases/adder/v10/">'
        assert canonical in client.get(url).content.decode()
    assert 'type="application/atom+xml"' in client.get("/").content.decode()
