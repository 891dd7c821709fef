"""Entries over HTTP (`POST /api/v1/submissions/`): operators' tokens, every refusal with its code
and nothing stored, names that belong to operators, quotas, idempotency, status and detail."""

from __future__ import annotations

import io
import json
import tarfile
import threading
import zipfile
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from engine.tests import wat
from scoring.models import ApiToken, IdempotentRequest, Submission, SubmitterName
from scoring.tests.helpers import adder_answers
from tests.operators import URL, make_token, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(imported) -> str:
    return make_token()


@pytest.fixture
def module(imported) -> bytes:
    return wat.lookup(adder_answers(imported))


def stored() -> tuple[int, int, int]:
    return Submission.objects.count(), SubmitterName.objects.count(), IdempotentRequest.objects.count()


@pytest.mark.django_db(transaction=True)  # the immediate backend scores when the request commits
def test_a_module_is_taken_scored_and_answered_with_its_place(client, token, module):
    response = post(client, token, case="adder", version="v1", name="alice", wasm=module,
                    meta=json.dumps({"model": "m-1", "cost_usd": "0.42"}))
    assert response.status_code == 202, response.content
    document = response.json()
    assert response["Location"] == f"/api/v1/submissions/{document['submission']}/"
    assert (document["status"], document["passed"], document["run"]["model"]) == ("scored", True, "m-1")
    entry = Submission.objects.get(pk=document["submission"])
    assert (entry.operator.username, entry.model, entry.source_kind) == ("op1", "m-1", "wasm")
    assert SubmitterName.objects.get(name="alice").owner.username == "op1"
    polled = client.get(response["Location"])
    assert polled.status_code == 200 and polled.json()["status"] == "scored"
    assert client.get(response["Location"], HTTP_IF_NONE_MATCH=polled["ETag"]).status_code == 304


def test_the_same_entry_again_is_the_first_and_stores_nothing(client, token, module):
    first = post(client, token, case="adder", version="v1", name="alice", wasm=module).json()
    before = stored()
    again = post(client, token, case="adder", version="v1", name="alice", wasm=module)
    assert again.status_code == 200 and again.json()["submission"] == first["submission"]
    assert stored() == before


def test_an_idempotency_key_gets_the_first_answer_and_refuses_another_body(client, token, module):
    first = post(client, token, headers={"Idempotency-Key": "run-7"}, case="adder", version="v1", name="alice",
                 wasm=module)
    again = post(client, token, headers={"Idempotency-Key": "run-7"}, case="adder", version="v1", name="alice",
                 wasm=module)
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["submission"] == first.json()["submission"]
    before = stored()
    other = post(client, token, headers={"Idempotency-Key": "run-7"}, case="adder", version="v1", name="bob",
                 wasm=module)
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")
    assert stored() == before


def tar_gz(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sub/zeros.bin", bytes(300 << 20))
    return buffer.getvalue()


def test_a_source_archive_is_unpacked_with_the_import_rules_and_packed_as_score_packs_it(client, token, module,
                                                                                           imported, tmp_path):
    """The folder inside the archive (or its top) is the submission folder; its digest is the
    digest `score --submission` gives that folder, so a sweep and an upload are one entry."""
    from engine.builds import pack_folder

    folder = tmp_path / "entry"
    folder.mkdir()
    (folder / "solution.wasm").write_bytes(module)
    response = post(client, token, case="adder", version="v1", name="alice",
                    source=tar_gz({"entry/solution.wasm": module}))
    assert response.status_code == 202, response.json()
    entry = Submission.objects.get(pk=response.json()["submission"])
    assert bytes(entry.source) == pack_folder(folder, max_bytes=10**7)
    assert entry.source_kind == "submission"


REFUSED = [
    # (id, how the request is broken, status, code)
    ("no-token", dict(token=None), 401, "bad_token"),
    ("bad-token", dict(token="fbt_000000000000_" + "x" * 43), 401, "bad_token"),
    ("malformed-token", dict(token="not a token"), 401, "bad_token"),
    ("unknown-case", dict(case="nope"), 404, "unknown_version"),
    ("unknown-version", dict(version="v99"), 404, "unknown_version"),
    ("unknown-variant", dict(variant="nope"), 404, "unknown_variant"),
    ("both-files", dict(source=b"x"), 422, "one_source"),
    ("no-file", dict(wasm=None), 422, "one_source"),
    ("not-a-module", dict(wasm=b"MZ\x90\x00 not wasm"), 422, "bad_module"),
    ("bad-name", dict(name="alice\u202e"), 422, "bad_name"),
    ("invisible-operator", dict(name="alice\u206a"), 422, "bad_name"),  # a deprecated format character
    ("shorthand-format", dict(name="alice\U0001bca0"), 422, "bad_name"),  # Default_Ignorable
    ("mark-at-the-start", dict(name="\u0301alice"), 422, "bad_name"),
    ("mark-after-a-space", dict(name="ali \u0301ce"), 422, "bad_name"),
    ("empty-name", dict(name="  "), 422, "bad_name"),
    ("record-not-json", dict(record=b"{nope"), 422, "record_unreadable"),
    ("record-not-a-record", dict(record=b'{"format": "run-record/1"}'), 422, "record_invalid"),
    ("meta-not-an-object", dict(meta="[1]"), 422, "record_invalid"),
    ("meta-bad-field", dict(meta=json.dumps({"url": "javascript:alert(1)"})), 422, "record_invalid"),
    ("archive-escapes", dict(wasm=None, source=tar_gz({"../../etc/evil": b"x"})), 422, "archive_bad_name"),
    ("archive-link", dict(wasm=None, source=tar_gz({"a": b"x"}, {"b": "/etc/passwd"})), 422, "archive_bad_link"),
    ("archive-bomb", dict(wasm=None, source=zip_bomb()), 413, "archive_too_large"),
    ("not-an-archive", dict(wasm=None, source=b"plain text"), 422, "archive_bad_archive"),
]


@pytest.mark.parametrize("change, status, code", [item[1:] for item in REFUSED], ids=[item[0] for item in REFUSED])
def test_every_refusal_says_why_with_a_code_and_stores_nothing(client, token, module, settings, change, status,
                                                                 code):
    settings.SCORING_MAX_UNPACKED_BYTES = 64 << 20
    fields = {"case": "adder", "version": "v1", "name": "alice", "wasm": module, **change}
    used = fields.pop("token", token)
    before = stored()
    response = post(client, used, **{key: value for key, value in fields.items() if value is not None})
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == code
    if status == 401:
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert stored() == before


def test_a_body_over_the_limit_is_refused_before_it_is_read(client, token, settings):
    settings.API_UPLOAD_MAX_BYTES = 10_000
    before = stored()
    response = post(client, token, case="adder", name="alice", wasm=b"\0asm\x01\x00\x00\x00" + bytes(20_000))
    assert (response.status_code, response.json()["code"]) == (413, "too_large")
    assert stored() == before


def test_other_methods_and_a_session_do_not_write(client, admin_client, module):
    assert client.put(URL).status_code == 405 and "POST" in client.put(URL)["Allow"]
    # A staff session is not a token: the submissions API reads no cookie.
    response = admin_client.post(URL, {"case": "adder", "name": "x"})
    assert (response.status_code, response.json()["code"]) == (401, "bad_token")


def test_a_name_belongs_to_the_operator_who_used_it_first(client, token, module, imported):
    assert post(client, token, case="adder", version="v1", name="alice", wasm=module).status_code == 202
    other = make_token("op2")
    before = stored()
    response = post(client, other, case="adder", version="v1", name="alice", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_taken")
    assert stored() == before


def test_a_name_used_from_the_shell_belongs_to_nobody_until_staff_give_it(client, token, module, correct_wasm,
                                                                           adder_v1, admin_client):
    from scoring.attempts import score
    from scoring.recording import submit

    score(submit(adder_v1, adder_v1.default_variant(), "shell-name", wasm_file=correct_wasm))
    response = post(client, token, case="adder", version="v1", name="shell-name", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_unassigned")
    from django.contrib.auth.models import User

    name = SubmitterName.objects.get(name="shell-name")
    admin_client.post(f"/admin/scoring/submittername/{name.pk}/change/",
                      {"name": "shell-name", "owner": User.objects.get(username="op1").pk})
    assert SubmitterName.objects.get(name="shell-name").owner.username == "op1"
    assert post(client, token, case="adder", version="v1", name="shell-name", wasm=module).status_code == 200


@pytest.mark.parametrize("lookalike", ["Al Ice", "al  ice", "AL ICE ", "ａｌ ｉｃｅ"])
def test_names_that_look_alike_are_one_name(client, token, module, lookalike):
    assert post(client, token, case="adder", version="v1", name="al ice", wasm=module).status_code == 202
    before = stored()
    response = post(client, make_token("op2"), case="adder", version="v1", name=lookalike, wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_taken")
    assert stored()[:2] == before[:2]
    # Its owner may write it another way: it is the same name.
    assert post(client, token, case="adder", version="v1", name=lookalike, wasm=module).status_code == 202
    assert SubmitterName.objects.count() == 1


# With "io", "alice", "ace" and "bob" taken, each of these renders like one of them (UTS #39 section
# 5.4's marks, uncommon letters, other spaces) or is not text at all.
MARKED = ["i\u0307o", "ali\u0307ce", "al\u0335ice", "a\u0338lice", "ali\u0323ce", "alice\u20dd", "alice\u0301",
          "a\u0307ce", "b\u0331ob", "a\ua781ice", "al\u00a0ice", "al\u3000ice", "AL\u2002ICE", "al\u064bice",
          "al\u05b4ice", "alice\ufffd", "e\u0301\u0301", "bo\u0308\u0308b"]


@pytest.mark.parametrize("marked", MARKED)
def test_a_name_that_passes_for_another_by_its_marks_is_refused_with_a_problem_document(client, token, module, marked):
    for name in ("io", "alice", "ace", "bob"):
        assert post(client, token, case="adder", version="v1", name=name, wasm=module).status_code == 202
    before = stored()
    response = post(client, make_token("op2"), case="adder", version="v1", name=marked, wasm=module)
    assert response["Content-Type"] == "application/problem+json"
    assert (response.status_code, response.json()["code"]) in ((422, "bad_name"), (403, "name_taken")), response.json()
    assert stored()[:2] == before[:2]


@pytest.mark.parametrize("name", ["Jos\u00e9", "Jose\u0301", "Zo\u00eb", "Ren\u00e9e", "नमस्ते", "ภาษาไทย", "Nguyễn",
                                  "عَلِيّ", "ａｌｉｃｅ"])
def test_real_names_that_need_marks_are_taken(client, token, module, name):
    assert post(client, token, case="adder", version="v1", name=name, wasm=module).status_code == 202


def test_a_name_field_that_is_not_utf8_is_refused(client, token, module):
    """A form field's bytes that are not UTF-8 become U+FFFD: refused, not stored as a name."""
    boundary = "b0undary"
    body = b"".join([
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"case\"\r\n\r\nadder\r\n".encode(),
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"version\"\r\n\r\nv1\r\n".encode(),
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n".encode(), b"ali\xffce\r\n",
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"wasm\"; filename=\"m.wasm\"\r\n"
        "Content-Type: application/wasm\r\n\r\n".encode(), module, f"\r\n--{boundary}--\r\n".encode()])
    before = stored()
    response = client.post(URL, body, content_type=f"multipart/form-data; boundary={boundary}",
                           HTTP_AUTHORIZATION=f"Bearer {token}")
    assert (response.status_code, response.json()["code"]) == (422, "bad_name"), response.json()
    assert "U+FFFD" in response.json()["detail"] and stored() == before


def test_a_decomposed_accent_is_the_composed_name(client, token, module):
    assert post(client, token, case="adder", version="v1", name="ren\u00e9", wasm=module).status_code == 202
    response = post(client, make_token("op2"), case="adder", version="v1", name="rene\u0301", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_taken")


@pytest.mark.parametrize("first, twin", [("ace", "\u0430\u0441\u0435"),  # all Cyrillic
                                         ("alice", "aIice"),  # a capital I for the l
                                         ("mary", "rnary"),  # r and n for the m
                                         ("bob", "b0b")])
def test_a_name_that_can_be_taken_for_another_operators_is_refused(client, token, module, first, twin):
    """Names are held apart by their UTS #39 confusable skeletons (ICU's spoof checker)."""
    assert post(client, token, case="adder", version="v1", name=first, wasm=module).status_code == 202
    before = stored()
    response = post(client, make_token("op2"), case="adder", version="v1", name=twin, wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_taken")
    assert "looks like a name that belongs to another operator" in response.json()["detail"]
    assert stored()[:2] == before[:2]
    # Its owner is told to use the name they have (two look-alike names on one board help no reader).
    response = post(client, token, case="adder", version="v1", name=twin, wasm=module)
    assert (response.status_code, response.json()["code"]) == (422, "bad_name")
    assert f"looks like your name {first!r}" in response.json()["detail"]


def test_a_look_alike_of_a_shell_name_is_staffs_to_give(client, token, module, correct_wasm, adder_v1):
    from scoring.attempts import score
    from scoring.recording import submit

    score(submit(adder_v1, adder_v1.default_variant(), "bob", wasm_file=correct_wasm))
    response = post(client, token, case="adder", version="v1", name="b0b", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "name_unassigned")
    # From the shell, a look-alike is stored (staff's own), and the first name keeps the look.
    score(submit(adder_v1, adder_v1.default_variant(), "B0B", wasm_file=correct_wasm))
    assert post(client, token, case="adder", version="v1", name="bOb", wasm=module).json()["code"] == "name_unassigned"


def test_the_same_entry_with_other_run_fields_is_refused_naming_them(client, token, module):
    """Answering 200 with the entry as it stands would let a harness believe its run was recorded."""
    first = post(client, token, case="adder", version="v1", name="alice", wasm=module,
                 meta=json.dumps({"model": "m-1", "harness": "h"}))
    assert first.status_code == 202
    before = stored()
    again = post(client, token, case="adder", version="v1", name="alice", wasm=module,
                 meta=json.dumps({"model": "m-2", "harness": "h", "notes": "trial 2"}))
    assert (again.status_code, again.json()["code"]) == (409, "run_differs")
    assert "stored with other run fields (model, notes)" in again.json()["detail"]
    assert stored() == before
    same = post(client, token, case="adder", version="v1", name="alice", wasm=module,
                meta=json.dumps({"model": "m-1", "harness": "h"}))
    assert same.status_code == 200 and same.json()["submission"] == first.json()["submission"]


@pytest.mark.parametrize("mixed", ["\u0430lice", "\u03b1lice", "pa\u0443pal"])
def test_a_name_mixing_scripts_is_refused(client, token, module, mixed):
    before = stored()
    response = post(client, token, case="adder", version="v1", name=mixed, wasm=module)
    assert (response.status_code, response.json()["code"]) == (422, "bad_name")
    assert "mixes letters of" in response.json()["detail"] and stored() == before


@pytest.mark.parametrize("name", ["山田 Taro", "김 Kim", "さくら sakura", "Ωμέγα", "Пётр"])
def test_names_in_one_script_or_written_together_are_taken(client, token, module, name):
    assert post(client, token, case="adder", version="v1", name=name, wasm=module).status_code == 202


def test_the_shell_and_the_migration_key_names_the_same_way(imported, adder_v1, correct_wasm):
    from scoring.recording import submit

    submit(adder_v1, adder_v1.default_variant(), "Shell Name", wasm_file=correct_wasm)
    submit(adder_v1, adder_v1.default_variant(), "shell  name", wasm_file=correct_wasm)
    assert list(SubmitterName.objects.values_list("name", "key")) == [("Shell Name", "shell name")]


def test_a_refused_request_takes_no_name(client, token, imported, settings):
    settings.API_SUBMISSIONS_IN_FLIGHT = 1
    answers = adder_answers(imported)
    assert post(client, token, case="adder", name="alice", version="v1", wasm=wat.lookup(answers)).status_code == 202
    Submission.objects.update(status=Submission.State.PENDING)
    response = post(client, token, case="adder", name="bob", version="v1", wasm=wat.lookup(answers, iterations=5))
    assert (response.status_code, response.json()["code"]) == (429, "too_many_in_flight")
    assert not SubmitterName.objects.filter(name="bob").exists()
    # The quotas come before the upload is unpacked: a damaged archive is not even read.
    response = post(client, token, case="adder", name="bob", version="v1", source=b"not an archive")
    assert (response.status_code, response.json()["code"]) == (429, "too_many_in_flight")


def test_each_token_has_so_many_requests_an_hour_whatever_their_answer(client, token, module, settings):
    settings.API_REQUESTS_PER_HOUR = 2
    for _ in range(2):
        assert post(client, token, case="adder", name="alice", wasm=b"not a module").json()["code"] == "bad_module"
    before = stored()
    response = post(client, token, case="adder", version="v1", name="alice", wasm=module)
    assert (response.status_code, response.json()["code"]) == (429, "too_many_requests")
    assert 3500 < int(response["Retry-After"]) <= 3601 and stored() == before
    ApiToken.objects.update(window_started_at=ApiToken.objects.get().window_started_at - timedelta(hours=1))
    assert post(client, token, case="adder", version="v1", name="alice", wasm=module).status_code == 202


def test_an_idempotency_key_is_remembered_a_day(client, token, imported):
    answers = adder_answers(imported)
    key = {"Idempotency-Key": "run-1"}
    assert post(client, token, headers=key, case="adder", version="v1", name="a",
                wasm=wat.lookup(answers)).status_code == 202
    IdempotentRequest.objects.update(created_at=timezone.now() - timedelta(hours=25))
    again = post(client, token, headers=key, case="adder", version="v1", name="a", wasm=wat.lookup(answers,
                                                                                                   iterations=3))
    assert again.status_code == 202  # a new request: the old answer was forgotten (and its row removed)
    assert IdempotentRequest.objects.count() == 1


def test_answers_to_a_token_are_private_and_vary_by_authorization(client, token, module):
    answers = [post(client, token, case="adder", version="v1", name="alice", wasm=module)]
    pk = answers[0].json()["submission"]
    for path in (f"{URL}{pk}/detail", "/api/v1/operator/submissions/", f"{URL}{pk}/", "/api/v1/cases/"):
        answers.append(client.get(path, HTTP_AUTHORIZATION=f"Bearer {token}"))
    for answer in answers:
        assert answer.status_code in (200, 202)
        assert {"private", "no-store"} <= {part.strip() for part in answer["Cache-Control"].split(",")}
        assert "public" not in answer["Cache-Control"] and "Authorization" in answer["Vary"]
        assert "Content-Encoding" not in answer
    assert "public" in client.get("/api/v1/cases/")["Cache-Control"]  # without credentials: as before


def test_staff_accounts_get_no_token_and_a_staff_token_does_not_write(client, token, module):
    from django.contrib.auth.models import User

    User.objects.create_user("boss", is_staff=True)
    with pytest.raises(CommandError, match="staff account"):
        make_token("boss")
    User.objects.filter(username="op1").update(is_staff=True)  # made staff after its token
    response = post(client, token, case="adder", version="v1", name="alice", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "staff_account")


def test_a_revoked_token_and_an_account_without_the_right_are_refused(client, token, module):
    from django.contrib.auth.models import Permission, User

    call_command("api_token", "revoke", ApiToken.objects.get().key_id, stdout=io.StringIO())
    assert post(client, token, case="adder", name="a", wasm=module).json()["code"] == "bad_token"
    fresh = make_token("op1")
    User.objects.get(username="op1").user_permissions.remove(Permission.objects.get(codename="submit_entry"))
    response = post(client, fresh, case="adder", name="a", wasm=module)
    assert (response.status_code, response.json()["code"]) == (403, "no_permission")


def test_quotas_answer_429_with_retry_after(client, token, imported, settings):
    settings.API_SUBMISSIONS_PER_HOUR = 2
    answers = adder_answers(imported)
    for iterations in (0, 10):
        assert post(client, token, case="adder", name="alice", version="v1",
                    wasm=wat.lookup(answers, iterations=iterations)).status_code == 202
    before = stored()
    response = post(client, token, case="adder", name="alice", version="v1", wasm=wat.lookup(answers, iterations=20))
    assert (response.status_code, response.json()["code"]) == (429, "too_many_per_hour")
    assert 3000 < int(response["Retry-After"]) <= 3601
    assert stored() == before
    settings.API_SUBMISSIONS_PER_HOUR = 60
    settings.API_SUBMISSIONS_IN_FLIGHT = 1
    Submission.objects.filter(name="alice").update(status=Submission.State.PENDING)
    response = post(client, token, case="adder", name="alice", version="v1", wasm=wat.lookup(answers, iterations=20))
    assert (response.status_code, response.json()["code"], response["Retry-After"]) == (429, "too_many_in_flight", "30")


def test_only_the_operator_reads_an_entrys_detail_and_lists_their_own(client, token, imported):
    broken = wat.module("unreachable")
    entry = post(client, token, case="adder", version="v1", name="alice", wasm=broken).json()
    detail = client.get(f"{URL}{entry['submission']}/detail", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert detail.status_code == 200 and "build_log" in detail.json() and "detail" in detail.json()["results"][0]
    other = make_token("op2")
    refused = client.get(f"{URL}{entry['submission']}/detail", HTTP_AUTHORIZATION=f"Bearer {other}")
    assert (refused.status_code, refused.json()["code"]) == (403, "not_yours")
    assert client.get(f"{URL}{entry['submission']}/detail").status_code == 401
    mine = client.get("/api/v1/operator/submissions/", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert [row["submission"] for row in mine["results"]] == [entry["submission"]]
    assert client.get("/api/v1/operator/submissions/", HTTP_AUTHORIZATION=f"Bearer {other}").json()["count"] == 0


def test_the_token_command_prints_the_token_last_lists_and_revokes(imported):
    token = make_token("harness", label="cluster A")
    assert token.startswith("fbt_") and len(token) > 50
    made = ApiToken.objects.get()
    assert made.digest != token and token.split("_", 2)[2] not in made.digest  # only a digest is kept
    listed = io.StringIO()
    call_command("api_token", "list", stdout=listed)
    assert made.key_id in listed.getvalue() and "cluster A" in listed.getvalue() and token not in listed.getvalue()
    from django.contrib.auth.models import User

    account = User.objects.get(username="harness")
    assert not account.is_staff and not account.has_usable_password() and account.has_perm("scoring.submit_entry")
    with pytest.raises(CommandError, match="no token"):
        call_command("api_token", "revoke", "nope", stdout=io.StringIO())


@pytest.mark.slow
def test_two_identical_requests_at_the_same_moment_make_one_entry(own_site):
    """Concurrent clients against a real server (gunicorn's workers, the suite's database: SQLite
    or PostgreSQL): the check and the write happen under the board's lock."""
    import requests

    token = own_site.manage("api_token", "create", "op1").splitlines()[-1]
    module = (own_site.folder / "fast.wasm")
    module.write_bytes(wat.module(wat.ECHO))
    answers = []
    start = threading.Barrier(4)

    def send():
        start.wait()
        with module.open("rb") as stream:
            answers.append(requests.post(f"{own_site.url}{URL}", data={"case": "range-sums", "name": "twin"},
                                         files={"wasm": stream}, headers={"Authorization": f"Bearer {token}"},
                                         timeout=120).status_code)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200, 200, 200, 202]
    rows = own_site.json("/api/v1/cases/range-sums/leaderboard/?all=1&page_size=200")["results"]
    assert [row["name"] for row in rows].count("twin") == 1


@pytest.mark.slow
def test_one_key_sent_twice_at_once_with_two_bodies_stores_one_answer(own_site):
    """The key is taken in the claim's transaction: the request that comes second is rolled back
    whole and refused, never left as an entry no answer names."""
    import requests

    token = own_site.manage("api_token", "create", "op1").splitlines()[-1]
    modules = [own_site.folder / f"{index}.wasm" for index in range(2)]
    for index, path in enumerate(modules):
        path.write_bytes(wat.module(wat.ECHO, data=bytes([index + 1])))  # two bodies
    answers = {}
    start = threading.Barrier(2)

    def send(index):
        start.wait()
        with modules[index].open("rb") as stream:
            answers[index] = requests.post(f"{own_site.url}{URL}", data={"case": "range-sums", "name": "keyed"},
                                           files={"wasm": stream}, timeout=120,
                                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"})

    threads = [threading.Thread(target=send, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer.status_code for answer in answers.values()) == [202, 422]
    mine = requests.get(f"{own_site.url}/api/v1/operator/submissions/", headers={"Authorization": f"Bearer {token}"},
                        timeout=30).json()
    assert mine["count"] == 1


@pytest.mark.slow
def test_quotas_hold_for_requests_at_once_on_two_boards(site_template):
    """An operator's quota counts entries on every board, and each board has its own lock: the
    operator's own lock makes two requests at once on two cases count each other."""
    import requests

    from tests import served

    site = served.serve(site_template, API_SUBMISSIONS_PER_HOUR="1")
    try:
        token = site.manage("api_token", "create", "op1").splitlines()[-1]
        module = site.folder / "echo.wasm"
        module.write_bytes(wat.module(wat.ECHO))
        answers = []
        start = threading.Barrier(2)

        def send(case):
            start.wait()
            with module.open("rb") as stream:
                answers.append(requests.post(f"{site.url}{URL}", data={"case": case, "name": "quota"},
                                             files={"wasm": stream}, headers={"Authorization": f"Bearer {token}"},
                                             timeout=120).status_code)

        threads = [threading.Thread(target=send, args=(case,)) for case in ("range-sums", "lattice")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(answers) == [202, 429]
    finally:
        site.stop()


def test_the_upload_permit_admits_a_live_token_or_an_importing_staff_session(client, admin_client, token):
    """What nginx asks before it reads a large body (config/permits.py)."""
    submit, archive = "/upload-permit/submit/", "/upload-permit/import/"
    assert client.get(submit, HTTP_X_ORIGINAL_METHOD="POST").status_code == 401
    assert client.get(submit, HTTP_X_ORIGINAL_METHOD="POST", HTTP_AUTHORIZATION="Bearer fbt_x_y").status_code == 401
    assert client.get(submit, HTTP_X_ORIGINAL_METHOD="POST", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 204
    assert client.get(submit, HTTP_X_ORIGINAL_METHOD="OPTIONS").status_code == 204  # no body to read
    call_command("api_token", "revoke", ApiToken.objects.get().key_id, stdout=io.StringIO())
    assert client.get(submit, HTTP_X_ORIGINAL_METHOD="POST", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 401
    assert client.get(archive, HTTP_X_ORIGINAL_METHOD="POST").status_code == 403
    assert admin_client.get(archive, HTTP_X_ORIGINAL_METHOD="POST").status_code == 204
    assert client.get(archive, HTTP_X_ORIGINAL_METHOD="GET").status_code == 204  # the form, or the login page
    from django.contrib.auth.models import User

    User.objects.create_user("helper", password="pw-for-the-test", is_staff=True)
    staff = Client()
    staff.login(username="helper", password="pw-for-the-test")
    assert staff.get(archive, HTTP_X_ORIGINAL_METHOD="POST").status_code == 403  # staff without the right


def test_the_traps_on_an_operators_path_answer_what_to_do(client, token, module, tmp_path):
    """A JSON body, a record with no `case` beside it, a case not open to entries, an empty name,
    where the compiler's message is: each answered with what the operation takes."""
    sent = client.post(URL, json.dumps({"case": "adder", "name": "alice"}), content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {token}")
    assert (sent.status_code, sent.json()["code"]) == (415, "form_expected")
    assert "this operation takes multipart/form-data" in sent.json()["detail"]
    assert "application/json" in sent.json()["detail"]
    # The record names the case: `case` may be left out.
    record = tmp_path / "record.json"
    call_command("seed_run", "adder", str(tmp_path / "run"), "--version", "v1", "--record", str(record),
                 stdout=io.StringIO())
    taken = post(client, token, name="alice", wasm=module, record=record.read_bytes())
    assert taken.status_code == 202, taken.content
    assert (taken.json()["case"], taken.json()["version"]) == ("adder", "v1")
    assert taken.json()["detail_url"].endswith(f"/api/v1/submissions/{taken.json()['submission']}/detail")
    before = stored()
    nothing = post(client, token, name="bob", wasm=module)
    assert (nothing.status_code, nothing.json()["code"]) == (422, "no_case")
    assert "send a run record that names it" in nothing.json()["detail"]
    unknown = post(client, token, case="adder", version="v9", name="bob", wasm=module)
    assert unknown.status_code == 404 and unknown.json()["detail"] == (
        "version v9 of the case adder is not open to entries: no such case or version is published here")
    empty = post(client, token, case="adder", name="", wasm=module)
    assert empty.status_code in (400, 422) and "name" in json.dumps(empty.json())
    assert stored() == before


def test_every_operation_documents_the_fronts_429_and_agents_json_sends_csv_on(client, imported):
    schema = client.get("/api/v1/openapi.json").json()
    operations = [operation for item in schema["paths"].values() for operation in item.values()]
    assert operations and all("429" in operation["responses"] for operation in operations)
    moved = client.get("/api/v1/agents/", {"format": "csv", "tag": "x"})
    assert moved.status_code == 301 and moved["Location"].endswith("/api/v1/agents.csv?tag=x")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # the immediate backend builds and scores when the request commits
def test_current_rust_is_built_and_its_compiler_named_in_the_api_and_on_the_page(client, bundled):
    """A source as any current Rust writes it (edition 2024, `let … else`, a Cargo.lock of
    version 4) is built and scored; the compiler its build ran with is recorded beside the
    module and shown."""
    from pathlib import Path

    from engine.builds import pack_folder
    from engine.toolchain import RUST_RELEASE

    folder = Path(__file__).resolve().parent / "data" / "edition-2024"
    assert "version = 4" in (folder / "Cargo.lock").read_text()
    token = make_token()
    response = post(client, token, case="range-sums", name="current-rust",
                    source=pack_folder(folder, max_bytes=10 << 20))
    assert response.status_code == 202, response.json()
    document = client.get(f"/api/v1/submissions/{response.json()['submission']}/").json()
    assert (document["status"], document["passed"]) == ("scored", True), document
    compiler = document["compiler"]
    assert compiler["rustc"].startswith(f"rustc {RUST_RELEASE} (") and compiler["release"] == RUST_RELEASE
    assert len(compiler["commit"]) == 40 and compiler["cargo"].startswith(f"cargo {RUST_RELEASE}")
    page = client.get(f"/submissions/{document['submission']}/").content.decode()
    assert f"<dt>Compiler</dt><dd>{compiler['rustc']}" in page
