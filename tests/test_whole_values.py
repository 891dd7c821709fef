"""Every name pattern matches the whole value (docs/writing-cases.md): a trailing newline is refused everywhere.

Python's `$` also matches before a final newline, so `slug = "x\\n"` used to validate, import,
and then break every page that reverses a URL with that slug (500s on /, /cases/, the sitemap,
the feeds and the API).
"""

from __future__ import annotations

import io

import pytest

from catalog.manifest import SLUG_PATTERN, VERSION_PATTERN
from catalog.models import CaseVersion, UnknownTarget, resolve_target
from catalog.tests.archives import IMPORT_URL, new_version_folder, tar_folder
from lib.paging import BadPage, parse_page
from scoring.recording import ScoringError, check_name

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("pattern, value", [(SLUG_PATTERN, "adder"), (VERSION_PATTERN, "v1.2-rc")])
def test_the_name_patterns_refuse_a_trailing_newline(pattern, value):
    assert pattern.fullmatch(value)
    for bad in (f"{value}\n", f"{value}\r\n", f"\n{value}"):
        assert not pattern.fullmatch(bad)


def test_page_numbers_and_names_refuse_a_trailing_newline():
    assert parse_page("2") == 2
    with pytest.raises(BadPage):
        parse_page("2\n")
    with pytest.raises(ScoringError):
        check_name("alice\n")


def test_lookups_by_a_name_with_a_newline_find_nothing(imported, client):
    assert CaseVersion.objects.public_version("adder\n") is None
    assert CaseVersion.objects.public_version("adder", "v1\n") is None
    with pytest.raises(UnknownTarget):
        resolve_target("adder\n")
    for url in ("/cases/adder%0A/", "/cases/adder/v1%0A/", "/cases/adder/leaderboard/?version=v1%0A",
                "/api/v1/cases/adder%0A/", "/feeds/cases/adder%0A/records/"):
        assert client.get(url).status_code == 404, url
    assert client.get("/cases/adder/leaderboard/?page=2%0A").status_code == 400


def test_a_slug_with_a_newline_is_refused_and_the_site_stays_up(imported, client):
    from catalog.importer import import_catalog

    imported.edit('slug = "counter"', 'slug = "counter\\n"', label="performance/medium/counter/1.0")
    outcome = import_catalog(imported.root)
    assert not outcome.ok
    for url in ("/", "/cases/", "/sitemap.xml", "/feeds/versions.atom", "/api/v1/cases/"):
        assert client.get(url).status_code == 200, url


def test_an_uploaded_variant_slug_with_a_newline_is_refused(admin_client, imported, tmp_path):
    folder = new_version_folder(imported, tmp_path)
    (folder / "variants" / "long-lists.toml").write_text('slug = "base\\n"\n')
    archive = io.BytesIO(tar_folder(folder, "v20"))
    archive.name = "v20.tar.gz"
    response = admin_client.post(IMPORT_URL, {"archive": archive, "version": ""})
    assert response.status_code == 400 and "variants/long-lists.toml: slug: `base\n` must match" in \
        response.content.decode()
    assert not CaseVersion.objects.filter(case__slug="adder", version="v20").exists()
