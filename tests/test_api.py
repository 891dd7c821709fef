"""The JSON API (SPEC §8) mirrors the pages, with the same visibility rules."""

from __future__ import annotations

import pytest

from catalog.models import CaseVersion


pytestmark = pytest.mark.django_db



def test_the_case_list(client, imported):
    document = client.get("/api/cases/").json()
    assert [case["slug"] for case in document["cases"]] == ["adder"]
    adder = document["cases"][0]
    assert adder == {
        "slug": "adder", "name": "Adder", "summary": "Add up a list of integers.", "difficulty": "easy",
        "tags": ["arithmetic", "wasm"], "experimental": False, "latest_version": "v10", "best_fuel": None,
        "entries": 0, "changed_at": adder["changed_at"], "url": "/cases/adder/", "api_url": "/api/cases/adder/",
    }
    assert adder["changed_at"].startswith(str(CaseVersion.objects.get(case__slug="adder", version="v10").imported_at.date()))


def test_the_case_list_filters_like_the_page(client, imported, settings):
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert [case["slug"] for case in client.get("/api/cases/", {"difficulty": "medium"}).json()["cases"]] == ["counter"]
    assert [case["slug"] for case in client.get("/api/cases/", {"tag": "arithmetic"}).json()["cases"]] == ["adder"]
    bad = client.get("/api/cases/", {"difficulty": "x"})
    assert bad.status_code == 400 and bad.json()["error"] == "invalid filter"


def test_a_case(client, imported):
    document = client.get("/api/cases/adder/").json()
    assert (document["version"], document["versions"]) == ("v10", ["v10", "v2", "v1"])
    assert document["variants"] == [
        {"slug": "base", "name": "Base", "default": True, "specs": []},
        {"slug": "long-lists", "name": "Long lists", "default": False, "specs": ["specs/long-lists.md"]},
    ]
    assert document["sandbox"] == {"fuel_limit": 1_000_000, "max_memory_bytes": 1_048_576}
    assert document["inputs"] == {"smoke": 1, "stress": 2}
    assert document["contract"] == {"entry": "solve", "input": "schemas/input.json", "output": "schemas/output.json"}
    assert client.get("/api/cases/adder/", {"version": "v2"}).json()["version"] == "v2"


def test_unknown_things_are_json_404s(client, imported):
    for url in ("/api/cases/nope/", "/api/cases/adder/?version=v9", "/api/cases/adder/leaderboard/?variant=zzz"):
        response = client.get(url)
        assert response.status_code == 404 and response["Content-Type"] == "application/json"
        assert "error" in response.json()


def test_lists_are_paginated_so_no_response_grows_without_bound(client, db):
    from tests.factories import make_cases, make_submissions

    versions = make_cases(60)
    make_submissions(versions[0], 120)
    first = client.get("/api/cases/").json()
    assert (first["count"], first["page"], first["pages"], len(first["cases"])) == (60, 1, 2, 50)
    assert first["next"] == "http://testserver/api/cases/?page=2" and first["previous"] is None
    second = client.get(first["next"]).json()
    assert len(second["cases"]) == 10 and second["next"] is None
    board_url = f"/api/cases/{versions[0].case.slug}/leaderboard/"
    for query in ({}, {"all": "1"}):
        board = client.get(board_url, query).json()
        assert len(board["entries"]) == 50 and board["count"] == 120 and board["pages"] == 3
    assert client.get(board_url, {"page": "x"}).status_code == 400
    assert client.get(board_url, {"page": "9"}).status_code == 404


def test_the_remembered_count_follows_an_import(client, imported):
    import shutil

    from catalog.importer import import_catalog

    assert client.get("/api/cases/").json()["count"] == 1
    new = imported.root / "performance/easy/adder2/v1"
    shutil.copytree(imported.root / "performance/easy/adder/v1", new)
    manifest = new / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('slug = "adder"', 'slug = "adder2"'))
    assert import_catalog(imported.root).ok
    assert client.get("/api/cases/").json()["count"] == 2
