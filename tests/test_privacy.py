"""Held-out inputs and expected answers are never served (docs/writing-cases.md)."""

from __future__ import annotations

import pytest

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from engine.tests import wat
from scoring.attempts import score
from scoring.recording import submit
from scoring.tests.helpers import adder_answers

pytestmark = pytest.mark.django_db

# Distinctive values that appear nowhere but in the held-out files.
SECRET_INPUT = b'{"numbers": [48151623, 42]}\n'
SECRET_ANSWER = b'{"sum": 48151665}\n'
MARKERS = (b"48151623", b"48151665")


@pytest.fixture
def secret_catalog(catalog, settings, tmp_path):
    settings.SCORING_CACHE_DIR = tmp_path / "cache"
    for version in ("v1", "v2", "v10"):
        label = f"performance/easy/adder/{version}"
        catalog.write("cases/small.json", SECRET_INPUT, label=label)
        catalog.write("cases/small.out", SECRET_ANSWER, label=label)
    assert import_catalog(catalog.root).ok
    version = CaseVersion.objects.get(case__slug="adder", version="v10")
    answers = adder_answers(catalog)
    right = tmp_path / "right.wasm"
    right.write_bytes(wat.lookup(answers))
    wrong = tmp_path / "wrong.wasm"
    wrong.write_bytes(wat.lookup({**answers, len(SECRET_INPUT): b'{"sum": 48151664}'}))
    invalid = tmp_path / "invalid.wasm"
    invalid.write_bytes(wat.lookup({**answers, len(SECRET_INPUT): b'{"sum": "48151665"}'}))
    made = [score(submit(version, version.default_variant(), name, wasm_file=path))
            for name, path in (("right", right), ("wrong", wrong), ("invalid", invalid))]
    assert made[0].passed and not made[1].passed and not made[2].passed
    return made


def urls(submissions) -> list[str]:
    pages = ["/", "/cases/", "/cases/?q=add", "/cases/adder/", "/cases/adder/v10/", "/cases/adder/v1/",
             "/cases/adder/leaderboard/", "/cases/adder/leaderboard/?all=1", "/api/v1/cases/", "/api/v1/cases/adder/",
             "/api/v1/cases/adder/?version=v1", "/api/v1/cases/adder/leaderboard/?all=1"]
    for submission in submissions:
        pages += [f"/submissions/{submission.pk}/", f"/api/v1/submissions/{submission.pk}/"]
    return pages


def test_no_page_or_api_response_contains_held_out_values(client, secret_catalog):
    for url in urls(secret_catalog):
        response = client.get(url)
        assert response.status_code == 200, url
        for marker in MARKERS:
            assert marker not in response.content, (url, marker)


def test_staff_pages_do_not_show_held_out_values_either(admin_client, secret_catalog):
    version = CaseVersion.objects.get(case__slug="adder", version="v10")
    pages = urls(secret_catalog) + [
        "/admin/", "/admin/catalog/caseversion/", f"/admin/catalog/caseversion/{version.pk}/change/",
        "/admin/scoring/submission/", *[f"/admin/scoring/submission/{s.pk}/change/" for s in secret_catalog],
    ]
    for url in pages:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        for marker in MARKERS:
            assert marker not in response.content, (url, marker)
    # Held-out rows have no admin page at all.
    assert admin_client.get("/admin/catalog/heldoutinput/").status_code == 404


def test_the_catalog_folder_is_not_a_static_route(client, secret_catalog):
    for url in ("/static/../test-cases/performance/easy/adder/v10/cases/small.json",
                "/static/test-cases/performance/easy/adder/v10/cases/small.json",
                "/test-cases/performance/easy/adder/v10/cases/small.out"):
        response = client.get(url)
        assert response.status_code == 404, url


# --- what a submission chose is never echoed on a public page ----------------------------------------

CHOSEN = "CHOSENBYTHEMODULE"


def test_names_and_keys_a_module_chose_reach_staff_only(client, admin_client, imported, adder_v1, tmp_path):
    importing = tmp_path / "importing.wasm"
    importing.write_bytes(wat.module(imports=f'(import "env" "{CHOSEN}" (func))'))
    extra_key = tmp_path / "extra.wasm"  # every answer right, plus a key of its own
    answers = {length: answer[:-1] + f', "{CHOSEN}": 2}}'.encode() for length,
               answer in adder_answers(imported).items()}
    extra_key.write_bytes(wat.lookup(answers))
    made = [score(submit(adder_v1, adder_v1.default_variant(), name, wasm_file=path))
            for name, path in (("importer", importing), ("extra", extra_key))]
    assert [submission.status for submission in made] == ["invalid_module", "scored"]
    for submission in made:
        for url in (f"/submissions/{submission.pk}/", f"/api/v1/submissions/{submission.pk}/",
                    "/cases/adder/leaderboard/?version=v1&all=1"):
            assert CHOSEN.encode() not in client.get(url).content, url
    # The import's name is there for staff (the answer's key is named nowhere: the schema check
    # reports the keyword, never the key).
    importer = made[0]
    assert CHOSEN.encode() in admin_client.get(f"/submissions/{importer.pk}/").content
    assert CHOSEN.encode() in admin_client.get(f"/admin/scoring/submission/{importer.pk}/change/").content


def test_text_a_module_chose_is_stored_whatever_characters_it_holds(adder_v1, tmp_path):
    """PostgreSQL refuses NUL in text: a name with one used to make scoring fail as `error`."""
    module = tmp_path / "nul.wasm"
    module.write_bytes(wat.module(imports='(import "env" "a\\00b" (func))'))
    submission = score(submit(adder_v1, adder_v1.default_variant(), "nul", wasm_file=module))
    submission.refresh_from_db()
    assert submission.status == "invalid_module"
    assert "\0" not in submission.detail and "a\\0b" in submission.detail
