"""Re-measuring stored entries (`manage.py verify`): the same source measured again, compared with
what was stored input by input, and the mark shown wherever the entry is."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from scoring import attempts, building, recording
from scoring.models import Result, Submission, Verification
from scoring.verification import request, run_verification

pytestmark = pytest.mark.django_db


def verify(*arguments: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("verify", *arguments, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_entry_measured_again_unchanged_is_marked_reproduced_everywhere(client, board):
    fast = board["alice-2"]
    before = list(Result.objects.filter(submission=fast).values_list("position", "status", "fuel", "answer_digest"))
    out, _ = verify("adder", "--version", "v1", "--top", "1")
    assert f"#{fast.pk} alice on adder v1" in out and "→ re-measured identically" in out
    verification = Verification.objects.get(submission=fast)
    assert (verification.outcome, verification.inputs, verification.fuel_differs) == ("identical", 3, 0)
    assert verification.module_identical is None  # a module was sent: there is no build to reproduce
    assert verification.host and verification.wasmtime_version and verification.finished_at
    # Nothing of the entry's results moved; only its mark.
    assert list(Result.objects.filter(submission=fast).values_list("position", "status", "fuel",
                                                                   "answer_digest")) == before
    fast.refresh_from_db()
    assert (fast.verification, fast.verification_message) == ("identical", "re-measured identically")
    assert "re-measured identically" in client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    page = client.get(f"/submissions/{fast.pk}/").content.decode()
    assert "Re-measured identically on" in page and "Staff only" not in page
    assert client.get(f"/api/v1/submissions/{fast.pk}/").json()["verification"]["outcome"] == "identical"
    rows = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()["results"]
    assert [row["verification"] for row in rows][:2] == ["identical", None]
    download = b"".join(client.get("/cases/adder/leaderboard/", {"format": "csv",
                                                                 "version": "v1"}).streaming_content).decode()
    assert download.splitlines()[0].endswith(',"verification","shared_rank","speedup"')
    assert download.splitlines()[1].endswith(',"identical","1",""')  # first, no reference: no speedup


def test_a_fuel_figure_altered_in_the_database_is_found_not_reproduced(client, admin_client, board):
    fast = board["alice-2"]
    Result.objects.filter(submission=fast, position=2).update(fuel=12345)  # the record says less than it used
    with pytest.raises(CommandError, match=f"1 of 1 entries were not reproduced: #{fast.pk}"):
        verify("--submission", str(fast.pk))
    verification = Verification.objects.get(submission=fast)
    assert verification.outcome == "different" and verification.fuel_differs == 1
    assert verification.message == "not reproduced: fuel differs on 1 input"
    assert "fuel 12345 →" in verification.detail
    assert Result.objects.get(submission=fast, position=2).fuel == 12345  # it measures; it never rewrites
    fast.refresh_from_db()
    assert not fast.excluded and fast.verification == "different"  # public, not excluded by itself
    assert "not reproduced: fuel differs on 1 input" in client.get(f"/submissions/{fast.pk}/").content.decode()
    assert "not reproduced" in client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    listed = admin_client.get("/admin/scoring/verification/", {"outcome__exact": "different"}).content.decode()
    assert "not reproduced: fuel differs on 1 input" in listed
    staff = admin_client.get(f"/submissions/{fast.pk}/").content.decode()
    assert "Staff only:</strong> measured on" in staff


def test_another_answer_with_the_same_fuel_is_not_reproduced_either(board):
    slow = board["bob"]
    Result.objects.filter(submission=slow, position=0).update(answer_digest=hashlib.sha256(b"another").hexdigest())
    verification = run_verification(request([slow.pk], enqueue=False)[0].pk)
    assert (verification.outcome, verification.answer_differs, verification.fuel_differs) == ("different", 1, 0)
    assert verification.message == "not reproduced: the answer differs on 1 input"


def test_answers_are_digested_when_scored(board):
    """What a re-measurement compares: the SHA-256 of each answer the module returned."""
    digests = dict(Result.objects.filter(submission=board["alice-2"]).values_list("position", "answer_digest"))
    assert len(digests) == 3 and all(len(digest) == 64 for digest in digests.values())
    wrong = Result.objects.get(submission=board["carol"], status="wrong_answer")
    assert wrong.answer_digest == hashlib.sha256(b'{"sum": 1}').hexdigest()


def test_top_k_takes_each_boards_best_and_enqueue_leaves_it_to_the_workers(board, django_capture_on_commit_callbacks):
    out, err = io.StringIO(), io.StringIO()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        call_command("verify", "adder", "--version", "v1", "--top", "2", "--enqueue", "--json", stdout=out, stderr=err)
    document = json.loads(out.getvalue())
    # adder's board: alice (her better entry) and bob, ranked in that order.
    assert [item["submission"] for item in document["verifications"]] == [board["alice-2"].pk, board["bob"].pk]
    assert {item["outcome"] for item in document["verifications"]} == {"pending"}
    assert "queued 2 re-measurement(s)" in err.getvalue() and len(callbacks) == 2
    for callback in callbacks:  # the immediate backend runs each job as it is queued
        callback()
    assert set(Verification.objects.values_list("outcome", flat=True)) == {"identical"}


def test_the_command_refuses_what_names_nothing(board):
    with pytest.raises(CommandError, match="no case with slug `nope`"):
        verify("nope")
    with pytest.raises(CommandError, match="no submission #999999"):
        verify("--submission", "999999")
    with pytest.raises(CommandError, match="--top must be 1 or more"):
        verify("--top", "0")
    Submission.objects.filter(pk=board["bob"].pk).update(status=Submission.State.RUNNING)
    with pytest.raises(CommandError, match=f"#{board['bob'].pk} not scored yet"):
        verify("--submission", str(board["bob"].pk))
    assert not Verification.objects.exists()


def test_a_new_record_is_queued_for_re_measurement_when_the_setting_asks(adder_v1, correct_wasm, settings,
                                                                           django_capture_on_commit_callbacks):
    settings.VERIFY_NEW_RECORDS = True
    with django_capture_on_commit_callbacks(execute=True):
        first = attempts.score(recording.submit(adder_v1, adder_v1.default_variant(), "rec", wasm_file=correct_wasm))
    assert list(Verification.objects.values_list("submission_id", "outcome")) == [(first.pk, "identical")]
    settings.VERIFY_NEW_RECORDS = False
    with django_capture_on_commit_callbacks(execute=True):
        attempts.score(recording.submit(adder_v1, adder_v1.default_variant(), "off", wasm_file=correct_wasm))
    assert Verification.objects.count() == 1  # no new record (the same fuel), and the setting is off


@pytest.mark.slow
def test_a_source_is_rebuilt_for_real_and_measured_identically(tmp_path, db, monkeypatch):
    """The bundled example built in the sandbox, scored, then built again from the stored source
    (not the build kept for the test run) and measured again: the same on every input, and
    whether the build reproduced the module byte for byte is recorded."""
    from scoring.examples import score_examples

    root = Path(__file__).resolve().parents[2]
    case = "performance/easy/range-sums/v2"
    shutil.copytree(root / "test-cases" / case, tmp_path / "catalog" / case)
    shutil.copytree(root / "solutions/range-sums/accepted/fast", tmp_path / "examples/range-sums/accepted/fast")
    assert import_catalog(tmp_path / "catalog").ok
    (run,) = score_examples(tmp_path / "examples")
    assert run.submission.passed
    built = []
    real = building.build_source.real

    def build_again(source, version, **options):
        built.append(hashlib.sha256(source).hexdigest())
        return real(source, version, **options)

    monkeypatch.setattr(building, "build_source", build_again)
    verification = run_verification(request([run.submission.pk], enqueue=False)[0].pk)
    assert built == [run.submission.source_digest]  # built again, from the stored source
    assert verification.outcome == "identical", verification.detail
    assert verification.inputs == CaseVersion.objects.get().smoke_count + CaseVersion.objects.get().stress_count
    assert verification.module_identical is not None and verification.module_digest
    assert verification.module_identical == (verification.module_digest == run.submission.module_digest)


def test_a_rebuild_that_fails_takes_the_entrys_mark_away_in_public(client, adder_v1, correct_wasm, tmp_path, settings):
    """The mark shows the latest re-measurement that was made: a stored source that no longer
    builds is not reproduced, whatever an earlier one found."""
    folder = tmp_path / "entry"
    folder.mkdir()
    shutil.copy(correct_wasm, folder / "solution.wasm")
    entry = attempts.score(recording.submit(adder_v1, adder_v1.default_variant(), "rebuilt", folder=folder))
    assert entry.passed and entry.build_confinement == "confined"
    assert run_verification(request([entry.pk], enqueue=False)[0].pk).outcome == "identical"
    settings.SCORING_MAX_MODULE_BYTES = 64  # the rebuild now fails: its module is over the limit
    assert run_verification(request([entry.pk], enqueue=False)[0].pk).outcome == "different"
    entry.refresh_from_db()
    assert (entry.verification, entry.verification_message) == ("different", "not reproduced: the rebuild failed")
    page = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert "not reproduced" in page and "re-measured identically" not in page
    assert client.get(f"/api/v1/submissions/{entry.pk}/").json()["verification"]["outcome"] == "different"


@pytest.mark.parametrize("recorded, said", [({"release": "1.63.0"}, "rustc 1.63.0"),
                                            ({}, "a compiler the site did not record")])
def test_an_entry_built_by_another_compiler_is_not_called_a_mismatch(adder_v1, correct_wasm, tmp_path, recorded, said):
    """Another compiler gives another module, whose fuel says nothing of the entry's: the
    re-measurement says that is why, and leaves no public mark."""
    from engine.toolchain import installed

    folder = tmp_path / "entry"
    folder.mkdir()
    shutil.copy(correct_wasm, folder / "solution.wasm")
    entry = attempts.score(recording.submit(adder_v1, adder_v1.default_variant(), "older", folder=folder))
    assert entry.toolchain == installed().as_dict()  # recorded beside its module
    Submission.objects.filter(pk=entry.pk).update(toolchain=recorded, module_digest="f" * 64)  # built elsewhere, once
    verification = run_verification(request([entry.pk], enqueue=False)[0].pk)
    assert verification.outcome == "failed"
    assert verification.message == (f"not re-measured: it was built by {said} and the site now builds with "
                                     f"{installed().rustc}, which gives another module")
    entry.refresh_from_db()
    assert entry.verification == ""


def test_a_re_measurement_that_could_not_be_made_changes_no_public_mark(client, board, monkeypatch):
    """A worker without its sandbox, or any failure of the scorer, is staff's to see: the entry
    keeps its mark (here, none) and no page calls it not reproduced."""
    fast = board["alice-2"]

    def broken(*args, **kwargs):
        raise OSError("bwrap: the sandbox is not available")

    monkeypatch.setattr("scoring.verification.measure", broken)
    verification = run_verification(request([fast.pk], enqueue=False)[0].pk)
    assert verification.outcome == "failed" and "OSError" in verification.detail
    fast.refresh_from_db()
    assert fast.verification == ""
    assert "not reproduced" not in client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert client.get(f"/api/v1/submissions/{fast.pk}/").json()["verification"] is None


def test_an_entry_scored_again_keeps_no_mark_of_the_results_it_replaced(board):
    from scoring.jobs import new_attempt

    fast = board["alice-2"]
    run_verification(request([fast.pk], enqueue=False)[0].pk)
    fast.refresh_from_db()
    assert fast.verification == "identical"
    # Queued, then scored again before a worker took it: the measurement is of other results.
    queued = request([fast.pk], enqueue=False)[0]
    new_attempt(fast, enqueue=False)
    fast.refresh_from_db()
    assert (fast.verification, fast.verification_message) == ("", "")
    assert run_verification(queued.pk).outcome == "failed"
    assert request([fast.pk], enqueue=False) == []  # not scored yet: nothing to measure
    fast.refresh_from_db()
    assert fast.verification == ""


def test_a_job_delivered_twice_measures_once(board, monkeypatch):
    from scoring import verification as module

    calls = []
    real = module.measure
    monkeypatch.setattr(module, "measure", lambda *args: calls.append(1) or real(*args))
    made = request([board["alice-2"].pk], enqueue=False)[0]
    assert run_verification(made.pk).outcome == "identical"
    assert run_verification(made.pk).outcome == "identical" and len(calls) == 1


def test_a_refusal_quoting_a_nul_is_stored_as_a_score_stores_it(adder_v1, tmp_path):
    """A module's own words (an import name holding NUL) reach the re-measurement's detail as
    they reach a score's: escaped, so PostgreSQL takes them."""
    import wasmtime

    wasm = tmp_path / "nul.wasm"
    wasm.write_bytes(wasmtime.wat2wasm('(module (import "a\\00b" "f" (func)))'))
    entry = attempts.score(recording.submit(adder_v1, adder_v1.default_variant(), "nul", wasm_file=wasm))
    assert entry.status == "invalid_module"
    verification = run_verification(request([entry.pk], enqueue=False)[0].pk)
    assert verification.outcome == "identical" and "\0" not in verification.detail + verification.message


def test_a_re_measurement_the_site_moved_to_another_engine_meanwhile_publishes_nothing(board, monkeypatch):
    """A switch that gives the entry another engine's figures while it is measured again: the
    measurement and what it was compared with say nothing of them, so no mark is published."""
    from scoring import verification as module

    fast = board["alice-2"]
    real = module.compare

    def switched_meanwhile(submission, measured, verification):
        Submission.objects.filter(pk=submission.pk).update(wasmtime_version="47.0.1", engine_digest="0123456789ab")
        return real(submission, measured, verification)

    monkeypatch.setattr(module, "compare", switched_meanwhile)
    done = run_verification(request([fast.pk], enqueue=False)[0].pk)
    assert (done.outcome, done.message) == ("failed", "not re-measured: the site moved the entry to another "
                                                      "engine meanwhile")
    fast.refresh_from_db()
    assert (fast.verification, fast.verified_at) == ("", None)
