"""Retiring a version (`manage.py retire`, docs/retiring.md): its board is frozen, and what it held
out — its inputs and expected answers, and each entry's module — is published; a current
version's never is."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import CaseVersion
from scoring.models import Submission
from scoring.recording import ScoringError, submit
from tests.operators import make_token, post

pytestmark = pytest.mark.django_db

# adder v1, v2 and v10 and the experimental counter 1.0 hold out some of the same files: what one
# publishes the others hold out, so they are retired together or not at all.
TOGETHER = ("adder", "v1", "v2", "v10", "--with", "counter/1.0")


def retire(*arguments: str) -> str:
    out = io.StringIO()
    call_command("retire", *arguments, stdout=out)
    return out.getvalue()


def test_a_current_version_publishes_nothing_it_holds_out(client, board, adder_v1):
    entry = board["alice-2"]
    assert client.get("/cases/adder/v1/held-out.zip").status_code == 404
    assert client.get(f"/submissions/{entry.pk}/module.wasm").status_code == 404
    document = client.get(f"/api/v1/submissions/{entry.pk}/").json()
    assert document["module_sha256"] == entry.module_digest and document["module_url"] is None
    detail = client.get("/api/v1/cases/adder/", {"version": "v1"}).json()
    assert (detail["retired_at"], detail["held_out_url"]) == (None, None)
    # Every current version, by every address the site has.
    for version in CaseVersion.objects.all():
        assert client.get(f"/cases/{version.case.slug}/{version.version}/held-out.zip").status_code == 404


def test_retiring_freezes_the_board_and_publishes_the_data_and_the_modules(client, board, adder_v1, tmp_path):
    said = retire(*TOGETHER)
    assert said.startswith("retired adder v1 on ") and "its board is frozen" in said
    assert "retired adder v10 on " in said and "retired counter 1.0 on " in said
    assert "http://testserver/cases/adder/v1/held-out.zip" in said or "/cases/adder/v1/held-out.zip" in said
    adder_v1.refresh_from_db()
    assert adder_v1.retired_at is not None

    # The data: every held-out input and answer, as stored, listed in the manifest's order.
    response = client.get("/cases/adder/v1/held-out.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    content = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        stored = list(adder_v1.held_out_inputs.order_by("position"))
        assert [item["input"] for item in manifest["inputs"]] == [item.input_path for item in stored]
        for listed, item in zip(manifest["inputs"], stored):
            assert archive.read(item.input_path) == bytes(item.input_bytes)
            assert archive.read(item.expected_path) == bytes(item.expected_bytes)
            assert listed["input_sha256"] == hashlib.sha256(bytes(item.input_bytes)).hexdigest()
            assert (listed["kind"], listed["ceiling"]) == (item.kind, item.ceiling)
        assert sorted(archive.namelist()) == sorted(["manifest.json", *(item.input_path for item in stored),
                                                     *(item.expected_path for item in stored)])
    again = client.get("/cases/adder/v1/held-out.zip")
    assert b"".join(again.streaming_content) == content and again["ETag"] == response["ETag"]

    # Each entry's module, the one it ran; the API says where.
    for entry in board.values():
        module = client.get(f"/submissions/{entry.pk}/module.wasm")
        assert module.status_code == 200 and module["Content-Type"] == "application/wasm"
        assert hashlib.sha256(module.content).hexdigest() == entry.module_digest
        document = client.get(f"/api/v1/submissions/{entry.pk}/").json()
        assert document["module_url"].endswith(f"/submissions/{entry.pk}/module.wasm")
    detail = client.get("/api/v1/cases/adder/", {"version": "v1"}).json()
    assert detail["retired_at"] and detail["held_out_url"].endswith("/cases/adder/v1/held-out.zip")
    page = client.get("/cases/adder/v1/").content.decode()
    assert "Retired on" in page and 'href="/cases/adder/v1/held-out.zip"' in page
    entry_page = client.get(f"/submissions/{board['alice-2'].pk}/").content.decode()
    assert f'href="/submissions/{board["alice-2"].pk}/module.wasm"' in entry_page

    # Frozen: no entry is taken, from the shell or over the API; nothing is stored.
    count = Submission.objects.count()
    module = tmp_path / "again.wasm"
    module.write_bytes(bytes(client.get(f"/submissions/{board['alice-2'].pk}/module.wasm").content))
    with pytest.raises(ScoringError) as refused:
        submit(adder_v1, adder_v1.default_variant(), "dave", wasm_file=module)
    assert refused.value.code == "version_retired" and "was retired on" in refused.value.message
    answer = post(client, make_token(), case="adder", version="v1", name="erin", wasm=module.read_bytes())
    assert answer.status_code == 409 and answer.json()["code"] == "version_retired", answer.content
    assert Submission.objects.count() == count

    # Retiring it again changes nothing.
    first = adder_v1.retired_at
    assert "already: nothing changed" in retire("adder", "v1")  # alone: retired already, nothing to publish
    adder_v1.refresh_from_db()
    assert adder_v1.retired_at == first


def test_a_hidden_entrys_module_stays_unpublished(client, board, adder_v1):
    hidden = board["carol"]
    Submission.objects.filter(pk=hidden.pk).update(hidden=True)
    retire(*TOGETHER)
    assert client.get(f"/submissions/{hidden.pk}/module.wasm").status_code == 404
    assert client.get(f"/submissions/{board['bob'].pk}/module.wasm").status_code == 200


def test_a_published_module_is_revalidated_so_hiding_its_entry_withdraws_it_from_caches(client, board, adder_v1):
    """Staff may hide an entry after its module was published: a cache asks the site each time
    (a copy it holds costs a 304), so the module is gone from every cache once it is hidden."""
    retire(*TOGETHER)
    url = f"/submissions/{board['bob'].pk}/module.wasm"
    first = client.get(url)
    assert first.status_code == 200 and first["Cache-Control"] == "public, no-cache", first["Cache-Control"]
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and (again["ETag"], again["Cache-Control"]) == (first["ETag"], "public, no-cache")
    failed = client.get(url, HTTP_IF_MATCH='"another"')  # a failed precondition: nothing a cache keeps
    assert failed.status_code == 412 and not failed.has_header("Cache-Control"), failed.headers
    Submission.objects.filter(pk=board["bob"].pk).update(hidden=True)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 404
    # The held-out data is for good once published (a retirement is never undone): kept an hour.
    assert client.get("/cases/adder/v1/held-out.zip")["Cache-Control"] == "public, max-age=3600"


def test_a_version_with_an_entry_still_to_be_scored_is_not_retired(adder_v1, correct_wasm):
    submit(adder_v1, adder_v1.default_variant(), "alice", wasm_file=correct_wasm)  # recorded, not scored
    with pytest.raises(CommandError, match="1 entry is of adder v1 still to be scored"):
        retire(*TOGETHER)
    adder_v1.refresh_from_db()
    assert adder_v1.retired_at is None


def test_an_unknown_version_is_refused(imported):
    with pytest.raises(CommandError, match="no version v9 of a case adder"):
        retire("adder", "v9")
    with pytest.raises(CommandError, match="no version v1 of a case nope"):
        retire("nope", "v1")


def test_the_json_says_what_was_published(board, adder_v1):
    [out, *others] = json.loads(retire(*TOGETHER, "--json"))["versions"]
    assert (out["case"], out["version"], out["already"]) == ("adder", "v1", False)
    assert out["entries"] == out["modules"] == len({entry.pk for entry in board.values()})
    assert out["held_out_url"].endswith("/cases/adder/v1/held-out.zip")
    assert [(other["case"], other["version"]) for other in others] == [("adder", "v2"), ("adder", "v10"),
                                                                        ("counter", "1.0")]


def test_a_version_sharing_held_out_files_with_a_current_one_is_not_retired_alone(client, board, adder_v1):
    """What retiring adder v1 would publish, v2, v10 and counter 1.0 hold out: refused, naming
    them all, and nothing is published."""
    with pytest.raises(CommandError, match="adder v2, adder v10, counter 1.0 hold out some of the same inputs"):
        retire("adder", "v1")
    with pytest.raises(CommandError, match="counter 1.0 holds out some of the same inputs"):
        retire("adder", "v1", "v2", "v10")
    assert not CaseVersion.objects.filter(retired_at__isnull=False).exists()
    assert client.get("/cases/adder/v1/held-out.zip").status_code == 404


def test_nothing_of_a_frozen_board_is_scored_again_or_carried_to_it(client, board, adder_v1, django_user_model):
    from scoring.carry import CarryRefused, carry_forward
    from scoring.jobs import new_attempt

    retire(*TOGETHER)
    entry = board["alice-2"]
    before = list(Submission.objects.order_by("pk").values_list("pk", "status", "attempt", "total_fuel"))
    assert new_attempt(entry, message="again") is None
    with pytest.raises(CarryRefused, match="is retired"):
        carry_forward(adder_v1)
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    done = client.post("/admin/scoring/submission/", {"action": "rescore", "_selected_action": [entry.pk]})
    assert [str(said) for said in get_messages(done.wsgi_request)] == [
        "0 submission(s) queued for scoring. 1 of a retired version left as they are."]
    assert list(Submission.objects.order_by("pk").values_list("pk", "status", "attempt", "total_fuel")) == before


def adder_v3(imported) -> CaseVersion:
    """A new adder v3 that holds out files of its own: v1 and its sharers retire without it."""
    from catalog.importer import import_catalog

    shutil.copytree(imported.root / "performance/easy/adder/v10", imported.root / "performance/easy/adder/v3")
    for rel, numbers in (("smoke/one", [8]), ("cases/small", [2, 3, 4]), ("cases/large", [5, 5, 5, 5])):
        imported.write(f"{rel}.json", json.dumps({"numbers": numbers}) + "\n", label="performance/easy/adder/v3")
        imported.write(f"{rel}.out", json.dumps({"sum": sum(numbers)}) + "\n", label="performance/easy/adder/v3")
    assert import_catalog(imported.root).ok
    return CaseVersion.objects.get(case__slug="adder", version="v3")


def test_a_built_entrys_module_sent_as_it_is_to_a_current_version_stays_unpublished(client, board, imported,
                                                                                    tmp_path):
    """bob's entry stands for one built from a source (its source is not its module); his module,
    sent as it is to v3 and not yet scored, competes there: it stays unpublished."""
    bob = board["bob"]
    Submission.objects.filter(pk=bob.pk).update(source_kind="submission", source_digest="0" * 64)
    v3 = adder_v3(imported)
    submit(v3, v3.default_variant(), "trent", wasm_file=write(tmp_path / "bob.wasm", bob))
    retire(*TOGETHER)
    assert client.get(f"/submissions/{bob.pk}/module.wasm").status_code == 404
    assert client.get(f"/submissions/{board['alice-2'].pk}/module.wasm").status_code == 200


def test_a_module_an_entry_of_a_current_version_runs_too_stays_unpublished(client, board, adder_v1, imported,
                                                                           tmp_path):
    """A new adder v3 holds out other files, so v1 and its sharers retire without it; an entry of
    v3 that ran alice's module keeps that module unpublished (it competes there)."""
    from scoring.attempts import score

    v3 = adder_v3(imported)
    entry = board["alice-2"]
    other = score(submit(v3, v3.default_variant(), "mallory", wasm_file=write(tmp_path / "alice.wasm", entry)))
    assert other.module_digest == entry.module_digest
    # carol's module sent to v3 too, not built yet: its source tells it is the same.
    waiting = submit(v3, v3.default_variant(), "trent", wasm_file=write(tmp_path / "carol.wasm", board["carol"]))
    assert not waiting.module_digest
    retire(*TOGETHER)
    assert client.get(f"/submissions/{entry.pk}/module.wasm").status_code == 404
    assert client.get(f"/submissions/{board['carol'].pk}/module.wasm").status_code == 404
    assert client.get(f"/api/v1/submissions/{entry.pk}/").json()["module_url"] is None
    assert client.get(f"/submissions/{board['bob'].pk}/module.wasm").status_code == 200
    assert client.get("/cases/adder/v3/held-out.zip").status_code == 404


def write(path, entry):
    from scoring.models import StoredModule

    path.write_bytes(bytes(StoredModule.objects.get(digest=entry.module_digest).content))
    return path


def test_staff_retire_from_the_admin_after_saying_yes(client, board, adder_v1, django_user_model):
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    url = "/admin/catalog/caseversion/"
    together = [version.pk for version in CaseVersion.objects.all() if (version.case.slug, version.version) in
                {("adder", "v1"), ("adder", "v2"), ("adder", "v10"), ("counter", "1.0")}]
    asked = client.post(url, {"action": "retire_versions", "_selected_action": together})
    assert asked.status_code == 200 and b"cannot be undone" in asked.content
    adder_v1.refresh_from_db()
    assert adder_v1.retired_at is None  # asking retires nothing
    done = client.post(url, {"action": "retire_versions", "_selected_action": together, "confirmed": "yes"})
    assert done.status_code == 302
    said = [str(said) for said in get_messages(done.wsgi_request)]
    assert "adder v1: retired; its held-out data and 4 of 4 entries' modules are published" in said, said
    assert len(said) == 4
    adder_v1.refresh_from_db()
    assert adder_v1.retired_at is not None
    assert client.get("/cases/adder/v1/held-out.zip").status_code == 200
