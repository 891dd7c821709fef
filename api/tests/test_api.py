"""The JSON API, v1 (docs/api.md): the pages' data with the same visibility rules, one list format,
problem documents for every error, read-only methods, CORS, and a schema generated from the code."""

from __future__ import annotations

import gzip
import json

import pytest

from catalog.models import CaseVersion
from engine.sandbox import WASMTIME_VERSION

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


def test_the_case_list(client, imported):
    document = client.get("/api/v1/cases/").json()
    assert set(document) == {"count", "next", "previous", "results"}
    assert [case["slug"] for case in document["results"]] == ["adder"]
    adder = document["results"][0]
    assert adder == {
        "slug": "adder", "name": "Adder", "summary": "Add up a list of integers.", "difficulty": "easy",
        "tags": ["arithmetic", "wasm"], "experimental": False, "latest_version": "v10", "best_fuel": None,
        "entries": 0, "changed_at": adder["changed_at"], "first_published_at": adder["first_published_at"],
        "url": "http://127.0.0.1:8000/cases/adder/", "api_url": "http://127.0.0.1:8000/api/v1/cases/adder/",
    }
    assert adder["changed_at"].startswith(str(CaseVersion.objects.get(case__slug="adder",
                                                                      version="v10").imported_at.date()))


def test_the_case_list_filters_like_the_page(client, imported, settings):
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert [case["slug"] for case in client.get("/api/v1/cases/",
                                                {"difficulty": "medium"}).json()["results"]] == ["counter"]
    assert [case["slug"] for case in client.get("/api/v1/cases/", {"tag": "arithmetic"}).json()["results"]] == ["adder"]
    bad = client.get("/api/v1/cases/", {"difficulty": "x"})
    assert bad.status_code == 400 and bad["Content-Type"] == PROBLEM
    assert list(bad.json()["errors"]) == ["difficulty"]
    for parameter in ("q", "tag"):  # the schema's rule (a pattern), in the words of every other refusal
        nul = client.get("/api/v1/cases/", {parameter: "a\x00b"})
        assert nul.status_code == 400 and nul.json() == {
            "type": "about:blank", "title": "Bad Request", "status": 400, "detail": f"invalid parameter: {parameter}",
            "code": "bad_field", "errors": {parameter: ["must be one line of text, without control characters"]}}
        assert client.get("/api/v1/standings/" if parameter == "tag" else "/api/v1/cases/",
                          {parameter: "a\x7fb"}).json()["errors"] == nul.json()["errors"]


def test_a_case(client, imported):
    document = client.get("/api/v1/cases/adder/").json()
    assert (document["version"], document["versions"]) == ("v10", ["v10", "v2", "v1"])
    assert document["variants"] == [
        {"slug": "base", "name": "Base", "default": True, "specs": [],
         "kit_url": "http://127.0.0.1:8000/cases/adder/v10/kit/base.zip"},
        {"slug": "long-lists", "name": "Long lists", "default": False, "specs": ["specs/long-lists.md"],
         "kit_url": "http://127.0.0.1:8000/cases/adder/v10/kit/long-lists.zip"},
    ]
    assert document["sandbox"] == {"fuel_limit": 1_000_000, "max_memory_bytes": 1_048_576}
    assert document["inputs"] == {"smoke": 1, "stress": 2}
    assert document["contract"] == {"entry": "solve", "input": "schemas/input.json", "output": "schemas/output.json"}
    assert document["leaderboard_url"] == "http://127.0.0.1:8000/api/v1/cases/adder/leaderboard/?version=v10"
    assert client.get("/api/v1/cases/adder/", {"version": "v2"}).json()["version"] == "v2"
    assert client.get(document["variants"][0]["kit_url"])["Content-Type"] == "application/zip"


def test_every_error_is_a_problem_document(client, imported):
    for url in ("/api/v1/cases/nope/", "/api/v1/cases/adder/?version=v9",
                "/api/v1/cases/adder/leaderboard/?variant=zzz",
                "/api/v1/no/such/path/", "/api/v1/submissions/1/compare/999999/", "/api/v1/cases/?page=2"):
        response = client.get(url)
        assert response.status_code == 404 and response["Content-Type"] == PROBLEM, url
        document = response.json()
        assert document["type"] == "about:blank" and document["title"] == "Not Found" and document["status"] == 404
        assert document["detail"]


@pytest.mark.parametrize("query, refused", [
    ({"page": "0"}, "page"), ({"page": "x"}, "page"), ({"page": "-1"}, "page"), ({"page_size": "0"}, "page_size"),
    ({"page_size": "201"}, "page_size"), ({"page_size": "many"}, "page_size"), ({"all": "perhaps"}, "all"),
    ({"model": "a\nb"}, "model"),
])
def test_a_bad_parameter_is_a_400_naming_it(client, imported, query, refused):
    response = client.get("/api/v1/cases/adder/leaderboard/", query)
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM
    document = response.json()
    assert (document["status"], document["title"]) == (400, "Bad Request")
    assert list(document["errors"]) == [refused] and refused in document["detail"]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_only_reading_methods_are_allowed(client, imported, method):
    for url in ("/api/v1/cases/", "/api/v1/cases/adder/", "/api/v1/openapi.json", "/api/v1/nope/"):
        response = getattr(client, method)(url, data="{}", content_type="application/json")
        assert response.status_code == 405 and response["Allow"] == "GET, HEAD, OPTIONS", url
        assert response["Content-Type"] == PROBLEM and response.json()["status"] == 405


def test_head_and_options(client, imported):
    head = client.head("/api/v1/cases/")
    assert head.status_code == 200 and head.content == b"" and head["ETag"] == client.get("/api/v1/cases/")["ETag"]
    options = client.options("/api/v1/cases/adder/")
    assert options.status_code == 204 and options["Allow"] == "GET, HEAD, OPTIONS"
    assert client.options("/api/v1/nope/").status_code == 404


def test_any_origin_may_read_without_credentials(client, imported):
    response = client.get("/api/v1/cases/", HTTP_ORIGIN="https://elsewhere.example")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    preflight = client.options("/api/v1/cases/", HTTP_ORIGIN="https://elsewhere.example",
                               HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 200 and preflight["Access-Control-Allow-Origin"] == "*"
    assert preflight["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    assert "Access-Control-Allow-Origin" not in client.get("/cases/", HTTP_ORIGIN="https://elsewhere.example")


def test_the_first_urls_moved_permanently(client, imported):
    for old, new in (("/api/cases/", "/api/v1/cases/"), ("/api/cases/adder/leaderboard/?version=v1&all=1",
                                                         "/api/v1/cases/adder/leaderboard/?version=v1&all=1"),
                     ("/api/standings/", "/api/v1/standings/"), ("/api/submissions/3/", "/api/v1/submissions/3/")):
        response = client.get(old)
        assert response.status_code == 301 and response["Location"] == new
    assert client.get("/api/v1").status_code == 301  # the trailing slash, not /api/v1/v1


def test_lists_are_paginated_the_same_way(client, db):
    from tests.factories import make_cases, make_submissions

    versions = make_cases(60)
    make_submissions(versions[0], 120)
    first = client.get("/api/v1/cases/").json()
    assert (first["count"], len(first["results"]), first["previous"]) == (60, 50, None)
    assert first["next"] == "http://127.0.0.1:8000/api/v1/cases/?page=2"
    second = client.get(first["next"]).json()
    assert len(second["results"]) == 10 and second["next"] is None and second["previous"] == "http://127.0.0.1:8000/api/v1/cases/"
    small = client.get("/api/v1/cases/", {"page_size": "7", "page": "2", "tag": "bulk", "junk": "1"}).json()
    assert len(small["results"]) == 7 and small["results"][0]["slug"] == "bulk-00007"
    assert small["next"] == "http://127.0.0.1:8000/api/v1/cases/?page=3&page_size=7&tag=bulk"
    board_url = f"/api/v1/cases/{versions[0].case.slug}/leaderboard/"
    for query in ({}, {"all": "1"}):
        board = client.get(board_url, query).json()
        assert len(board["results"]) == 50 and board["count"] == 120
    assert client.get(board_url, {"all": "true"}).json()["next"].endswith("?all=1&page=2")
    assert client.get(board_url, {"page": "9"}).status_code == 404


def test_two_spellings_of_a_value_share_one_cached_document(client, db, settings, django_assert_num_queries):
    from tests.factories import make_cases, make_submissions

    settings.PAGE_CACHE_SECONDS = 300
    (version,) = make_cases(1)
    make_submissions(version, 60)
    url = f"/api/v1/cases/{version.case.slug}/leaderboard/"
    first = client.get(url, {"all": "1", "page": "2"})
    with django_assert_num_queries(1):  # the generations only
        again = client.get(url, {"all": "true", "page": "02", "page_size": "50", "junk": "x"})
    assert again.content == first.content


def test_the_rows_say_what_the_pages_show(client, board):
    document = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    alice = document["results"][0]
    assert (alice["name"], alice["rank"], alice["group"], alice["variant"], alice["status"]) == (
        "alice", 1, "ranked", "base", "scored")
    assert (alice["passed_inputs"], alice["inputs"], alice["current_engine"]) == (3, 3, True)
    assert alice["engine"].startswith(f"{WASMTIME_VERSION} (") and alice["carried_from"] is None
    assert alice["url"] == f"http://127.0.0.1:8000/submissions/{alice['submission']}/"
    carol = document["results"][2]
    assert (carol["rank"], carol["group"], carol["passed"]) == (None, "unranked", False)
    assert carol["passed_inputs"] < carol["inputs"]
    submission = client.get(alice["api_url"]).json()
    assert (submission["message"], submission["overshoot"], submission["job"]) == ("", 0, "done")
    assert submission["created_at"] and submission["scored_at"] and submission["engine"] == alice["engine"]


def test_json_is_compressed_for_anonymous_readers(client, board):
    response = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}, HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.content))["count"] == 3


def test_the_schema_is_generated_from_the_code(client, imported):
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    assert set(paths) == {"/api/v1/", "/api/v1/cases/", "/api/v1/cases/{slug}/", "/api/v1/cases/{slug}/leaderboard/",
                          "/api/v1/submissions/{pk}/", "/api/v1/submissions/{a}/compare/{b}/", "/api/v1/standings/",
                          "/api/v1/cases/{slug}/history/", "/api/v1/schemas/run-record.json",
                          "/api/v1/cases/{slug}/leaderboard.csv", "/api/v1/standings.csv",
                          "/api/v1/submissions/", "/api/v1/submissions/{pk}/detail", "/api/v1/operator/submissions/",
                          "/api/v1/agents/", "/api/v1/agents.csv", "/api/v1/submissions/{pk}/reviews/"}
    assert {path: set(item) for path, item in paths.items() if set(item) != {"get"}} == {
        "/api/v1/submissions/": {"post"}, "/api/v1/submissions/{pk}/reviews/": {"post"}}
    # A request line longer than the front reads is a 414 problem document on every operation.
    assert all(set(operation["responses"]["414"]["content"]) == {PROBLEM}
               for item in paths.values() for operation in item.values())
    operation = paths["/api/v1/cases/{slug}/leaderboard/"]["get"]
    page_size = next(parameter for parameter in operation["parameters"] if parameter["name"] == "page_size")
    assert (page_size["schema"]["minimum"], page_size["schema"]["maximum"]) == (1, 200)
    assert set(operation["responses"]["404"]["content"]) == {PROBLEM}
    # One media type per operation's answer (a generated client parses each as its schema says).
    for path, item in paths.items():
        for operation in item.values():
            answer = operation["responses"].get("200") or operation["responses"]["201"]
            assert len(answer["content"]) == 1, path
    assert set(paths["/api/v1/cases/{slug}/leaderboard.csv"]["get"]["responses"]["200"]["content"]) == {"text/csv"}
    assert set(paths["/api/v1/standings.csv"]["get"]["responses"]["200"]["content"]) == {"text/csv"}
    row = schema["components"]["schemas"]["LeaderboardRow"]["properties"]
    operation = paths["/api/v1/cases/{slug}/leaderboard/"]["get"]
    assert {"variant", "status", "engine", "current_engine", "passed_inputs", "inputs"} <= set(row)


def test_the_documentation_page_is_the_schema_read_aloud(client, imported):
    response = client.get("/api/v1/docs")
    page = response.content.decode()
    assert response.status_code == 200
    for operation in ("GET /api/v1/cases/", "GET /api/v1/cases/{slug}/leaderboard/", "GET /api/v1/standings/",
                      "GET /api/v1/submissions/{a}/compare/{b}/"):
        assert operation in page
    assert 'id="schema-leaderboardrow"' in page and "current_engine" in page and "application/problem+json" in page
    assert "<script" not in page and "https://" not in page.split("<body", 1)[1].replace("https://www.rfc-editor", "")
    assert "unsafe-inline" not in response["Content-Security-Policy"]


def test_the_remembered_count_follows_an_import(client, imported):
    import shutil

    from catalog.importer import import_catalog

    assert client.get("/api/v1/cases/").json()["count"] == 1
    new = imported.root / "performance/easy/adder2/v1"
    shutil.copytree(imported.root / "performance/easy/adder/v1", new)
    manifest = new / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('slug = "adder"', 'slug = "adder2"'))
    assert import_catalog(imported.root).ok
    assert client.get("/api/v1/cases/").json()["count"] == 2


@pytest.mark.parametrize("url", ["/api/v1/cases/adder/leaderboard/?version=%00", "/api/v1/cases/%00/leaderboard/",
                                 "/cases/adder/leaderboard/?version=%00", "/cases/%00/leaderboard/"])
def test_a_nul_byte_never_reaches_the_cache_generations(client, imported, settings, url):
    # PostgreSQL refuses NUL in text: a name no version could have must not be looked up at all.
    settings.PAGE_CACHE_SECONDS = 300
    assert client.get(url).status_code == 404


def test_the_schema_is_built_once_per_process():
    from api.main import api

    assert api.get_openapi_schema(path_prefix="/api/v1/") is api.get_openapi_schema(path_prefix="/api/v1/")
