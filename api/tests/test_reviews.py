"""Review reads: recorded over the API (a token with the review permission) and in the admin
(staff), refused without the permission or for an item the version does not declare, shown on the
entry's page, in its document, on its leaderboard and in the CSV, and kept through a
re-measurement; an entry built into another module shows none of the old module's reads."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from engine.tests import wat
from scoring.attempts import score
from scoring.carry import carry_forward
from scoring.models import ReviewRead, Submission, SubmitterName
from scoring.recording import submit
from scoring.tests.helpers import adder_answers
from tests.operators import make_token

pytestmark = pytest.mark.django_db

ITEMS = '''
[[review_item]]
slug = "tight-loop"
question = "Is the inner loop free of allocations?"
scale = ["tight", "loose"]

[[review_item]]
slug = "no-unsafe"
question = "Does it avoid unsafe code?"
'''


@pytest.fixture
def entry(catalog, tmp_path):
    """adder v1, declaring two review items (its other `[[review_item]]`, with no slug, is kept as
    given and cannot be read), and a scored entry on it."""
    catalog.append(ITEMS)
    assert import_catalog(catalog.root).ok
    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    module = tmp_path / "adder.wasm"
    module.write_bytes(wat.lookup(adder_answers(catalog)))
    return score(submit(version, version.default_variant(), "alice", wasm_file=module))


def review_token(username: str = "reader") -> str:
    out = io.StringIO()
    call_command("api_token", "create", username, "--review", stdout=out, stderr=io.StringIO())
    return out.getvalue().splitlines()[-1]


def read(client, token: str, pk: int, **body):
    return client.post(f"/api/v1/submissions/{pk}/reviews/", json.dumps(body), content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {token}")


def test_a_review_token_records_reads_and_the_entry_shows_them(client, entry):
    token = review_token()
    answer = read(client, token, entry.pk, item="tight-loop", verdict="tight", text="one pass,\nno allocation")
    assert answer.status_code == 201, answer.content
    assert {key: answer.json()[key] for key in ("item", "question", "verdict", "text", "reviewer")} == {
        "item": "tight-loop", "question": "Is the inner loop free of allocations?", "verdict": "tight",
        "text": "one pass,\nno allocation", "reviewer": "reader"}
    assert read(client, token, entry.pk, item="no-unsafe", verdict="pass").status_code == 201
    reads = client.get(f"/api/v1/submissions/{entry.pk}/").json()["reviews"]
    assert [(row["item"], row["verdict"]) for row in reads] == [("tight-loop", "tight"), ("no-unsafe", "pass")]
    page = client.get(f"/submissions/{entry.pk}/").content.decode()
    assert "Review reads" in page and "Is the inner loop free of allocations?" in page
    assert "one pass,<br>no allocation" in page and "reader" in page
    board = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    assert board["results"][0]["reviews"] == {"tight-loop": "tight", "no-unsafe": "pass"}
    column = client.get("/cases/adder/leaderboard/", {"version": "v1", "review": "tight-loop"}).content.decode()
    assert '<th scope="col" class="wide-only">Review <code>tight-loop</code></th>' in column
    assert "Review column, <code>tight-loop</code>: Is the inner loop free of allocations?" in column
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(
        "/api/v1/cases/adder/leaderboard.csv", {"version": "v1"}).streaming_content).decode())))
    assert (rows[0]["review:tight-loop"], rows[0]["review:no-unsafe"]) == ("tight", "pass")
    case_page = client.get("/cases/adder/v1/").content.decode()
    assert "Review items" in case_page and "Does it avoid unsafe code?" in case_page


@pytest.mark.parametrize("body, status, code", [
    ({"item": "fast", "verdict": "pass"}, 422, "unknown_item"),
    ({"item": "tight-loop", "verdict": "pass"}, 422, "bad_verdict"),  # not on this item's scale
    ({"item": "no-unsafe", "verdict": "pass", "text": "a \u202e turn"}, 422, "bad_text"),
    ({"item": "no-unsafe", "verdict": "pass", "text": "x" * 2001}, 400, "bad_field"),
    ({"item": "no-unsafe"}, 400, "bad_field"),
])
def test_a_read_the_version_does_not_allow_is_refused_and_nothing_is_stored(client, entry, body, status, code):
    answer = read(client, review_token(), entry.pk, **body)
    assert answer.status_code == status and answer["Content-Type"] == "application/problem+json", answer.content
    assert answer.json()["code"] == code
    assert not ReviewRead.objects.exists()


def test_without_the_review_permission_a_token_records_nothing(client, entry):
    answer = read(client, make_token("submitter"), entry.pk, item="no-unsafe", verdict="pass")
    assert (answer.status_code, answer.json()["code"]) == (403, "no_permission")
    answer = client.post(f"/api/v1/submissions/{entry.pk}/reviews/", json.dumps({"item": "no-unsafe",
                                                                                  "verdict": "pass"}),
                         content_type="application/json")
    assert answer.status_code == 401
    assert read(client, review_token(), 999_999, item="no-unsafe", verdict="pass").status_code == 404
    assert not ReviewRead.objects.exists()


def test_no_account_reads_its_own_entry_nor_one_of_a_retired_version(client, entry, admin_client):
    """A review token may also send entries: it never certifies its own. A retired version's board
    is frozen: only staff, in the admin, may still record a read there."""
    token = review_token("both")
    Submission.objects.filter(pk=entry.pk).update(operator=User.objects.get(username="both"))
    answer = read(client, token, entry.pk, item="no-unsafe", verdict="pass")
    assert (answer.status_code, answer.json()["code"]) == (403, "own_entry"), answer.content
    # Nor a copy carried forward to the next version (a carried entry has no operator of its own).
    entry.refresh_from_db()
    [carried] = carry_forward(CaseVersion.objects.get(case__slug="adder", version="v2"), source=entry.version)
    copy = Submission.objects.get(carried_from=entry)
    assert copy.operator_id is None and copy.pk != entry.pk, carried
    answer = read(client, token, copy.pk, item="no-unsafe", verdict="pass")
    assert (answer.status_code, answer.json()["code"]) == (403, "own_entry"), answer.content
    Submission.objects.filter(pk=entry.pk).update(operator=None)
    # Nor one sent from the shell under a name staff later gave the account.
    name, _ = SubmitterName.objects.get_or_create(name="alice")
    SubmitterName.objects.filter(pk=name.pk).update(owner=User.objects.get(username="both"))
    answer = read(client, token, entry.pk, item="no-unsafe", verdict="pass")
    assert (answer.status_code, answer.json()["code"]) == (403, "own_entry"), answer.content
    SubmitterName.objects.filter(pk=name.pk).update(owner=None)
    CaseVersion.objects.filter(pk=entry.version_id).update(retired_at=timezone.now())
    answer = read(client, review_token(), entry.pk, item="no-unsafe", verdict="pass")
    assert (answer.status_code, answer.json()["code"]) == (409, "version_retired"), answer.content
    assert "its board is frozen" in answer.json()["detail"]
    assert not ReviewRead.objects.exists()
    page = admin_client.post("/admin/scoring/reviewread/add/", {"submission": entry.pk, "item": "no-unsafe",
                                                                 "verdict": "pass", "text": ""})
    assert page.status_code == 302 and ReviewRead.objects.get().reviewer_name == "admin"


def test_staff_record_a_read_in_the_admin(admin_client, entry):
    page = admin_client.post("/admin/scoring/reviewread/add/", {
        "submission": entry.pk, "item": "tight-loop", "verdict": "loose", "text": "allocates per value"})
    assert page.status_code == 302, page.content.decode()[-2000:]
    found = ReviewRead.objects.get()
    assert (found.reviewer_name, found.verdict, found.module_digest) == ("admin", "loose", entry.module_digest)
    refused = admin_client.post("/admin/scoring/reviewread/add/", {
        "submission": entry.pk, "item": "tight-loop", "verdict": "pass"})
    assert refused.status_code == 200 and "the verdict must be one of: tight, loose" in refused.content.decode()
    assert ReviewRead.objects.count() == 1


def test_a_read_stays_through_a_re_measurement_and_stays_with_its_module(client, entry, settings):
    token = review_token()
    assert read(client, token, entry.pk, item="no-unsafe", verdict="pass").status_code == 201
    call_command("verify", "--submission", str(entry.pk), stdout=io.StringIO(), stderr=io.StringIO())
    entry.refresh_from_db()
    assert entry.verification == "identical"
    assert [row["verdict"] for row in client.get(f"/api/v1/submissions/{entry.pk}/").json()["reviews"]] == ["pass"]
    Submission.objects.filter(pk=entry.pk).update(module_digest="0" * 64)  # built again into another module
    assert client.get(f"/api/v1/submissions/{entry.pk}/").json()["reviews"] == []
