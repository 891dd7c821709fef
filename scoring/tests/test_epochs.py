"""Epochs in one process (scoring/epochs/): what is refused and why, the report, the switch from
the admin, and the pages that read a board as an earlier engine counted it.

Here the site's current epoch is recorded as an older release than the one this process runs, so
this process stands for a candidate host whose engine counts exactly as the entries were scored:
nothing moves, and every page and refusal can be checked. A candidate that really counts
differently, on a host of its own, is tests/test_epochs.py.
"""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from scoring import epochs
from scoring.models import Epoch, EpochMeasurement, Submission

OLD = ("49.0.0", "0123456789ab")


@pytest.fixture
def older_site(board):
    """The board's entries, and the site's epoch recorded as an older engine than this process's
    (which measured the entries, as far as they say)."""
    from scoring.boards.rebuilding import rebuild

    Epoch.objects.all().delete()
    Submission.objects.update(wasmtime_version=OLD[0], engine_digest=OLD[1])
    rebuild()
    return Epoch.objects.create(wasmtime_version=OLD[0], engine_digest=OLD[1], state=Epoch.State.CURRENT,
                                switched_at=timezone.now())


def measured_candidate() -> Epoch:
    candidate, queued = epochs.prepare(enqueue=False)
    for measurement_id in queued:
        epochs.run_measurement(measurement_id)
    return candidate


def test_the_site_records_its_epoch_when_it_migrates(db):
    epoch = epochs.current_epoch()
    assert epoch is not None and epoch.engine == (WASMTIME_VERSION, ENGINE_DIGEST)
    with pytest.raises(epochs.EpochError, match="runs the site's own engine"):
        epochs.prepare()
    with pytest.raises(epochs.EpochError, match="no candidate epoch"):
        epochs.switch()
    with pytest.raises(epochs.EpochError, match="no candidate epoch to drop"):
        epochs.drop()


def test_a_candidate_is_measured_reported_and_switched_to_once_nothing_is_waiting(older_site, board):
    candidate, queued = epochs.prepare(enqueue=False)
    assert candidate.engine == epochs.THIS_ENGINE and len(queued) == len(board)
    assert epochs.prepare(enqueue=False)[1] == []  # queued already: nothing twice
    report = epochs.report(candidate)
    assert not report["complete"] and report["counts"]["waiting"] == len(board)
    with pytest.raises(epochs.EpochError, match=f"{len(board)} measurements of the candidate are still queued"):
        epochs.switch()

    for measurement_id in queued:
        assert epochs.run_measurement(measurement_id).outcome == "measured"
    report = epochs.report(candidate)
    assert report["complete"] and report["counts"]["flagged"] == 0 and report["boards_changed"] == 0
    alice = next(entry for entry in report["entries"] if entry["id"] == board["alice-2"].pk)
    assert alice["candidate"] == {"status": "scored", "passed": True, "total_fuel": board["alice-2"].total_fuel,
                                  "module_identical": True}

    # Scored again after it was measured: prepared again, it is queued again, and the switch waits.
    Submission.objects.filter(pk=board["carol"].pk).update(attempt=5)
    assert epochs.report(candidate)["counts"]["scored_again"] == 1
    [again] = epochs.prepare(enqueue=False)[1]
    with pytest.raises(epochs.EpochError, match="1 measurement of the candidate is still queued"):
        epochs.switch()
    epochs.run_measurement(again)
    assert epochs.switch().state == "current"


def test_an_entry_finished_after_the_candidate_was_prepared_never_holds_the_switch_back(older_site, board):
    """Its figures stay as counted before, and its board marks it so."""
    candidate = measured_candidate()
    late = Submission.objects.get(pk=board["bob"].pk)
    Submission.objects.filter(pk=late.pk).update(wasmtime_version=OLD[0], engine_digest=OLD[1])
    late_measurement = candidate.measurements.get(submission=late)
    late_measurement.delete()  # as an entry scored after `prepare` has no measurement
    report = epochs.report(candidate)
    assert report["complete"] and report["counts"]["not_queued"] == 1 and report["counts"]["kept_as_before"] == 1
    switched = epochs.switch()
    assert "kept as counted before (marked †)" in switched.summary
    late.refresh_from_db()
    assert (late.wasmtime_version, late.total_fuel) == (OLD[0], board["bob"].total_fuel)


def test_an_entry_that_rebuilds_to_another_module_is_flagged_and_keeps_its_own_figures(older_site, board):
    bob = board["bob"]
    Submission.objects.filter(pk=bob.pk).update(module_digest="f" * 64)
    candidate = measured_candidate()
    entry = next(entry for entry in epochs.report(candidate)["entries"] if entry["id"] == bob.pk)
    assert entry["flags"] == ["not_rebuilt_identically"] and entry["candidate"]["module_identical"] is False
    Submission.objects.filter(pk=bob.pk).update(total_fuel=12345, wasmtime_version=OLD[0], engine_digest=OLD[1])
    epochs.switch()
    bob.refresh_from_db()
    assert (bob.total_fuel, bob.wasmtime_version) == (12345, OLD[0])  # as the old engine counted it
    # The candidate's figures of another module are no figures it counted: gone with the switch.
    assert not EpochMeasurement.objects.filter(epoch=candidate, submission=bob).exists()
    assert EpochMeasurement.objects.filter(epoch=candidate, submission=board["alice-2"]).exists()
    alice = Submission.objects.get(pk=board["alice-2"].pk)
    assert (alice.wasmtime_version, alice.engine_digest) == epochs.THIS_ENGINE


def test_staff_read_the_report_and_switch_from_the_admin(client, older_site, board, django_user_model):
    candidate = measured_candidate()
    django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    client.login(username="viewer", password="pw")
    assert client.get(f"/admin/scoring/epoch/{candidate.pk}/report/").status_code == 403  # no view permission
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    listed = client.get("/admin/scoring/epoch/")
    assert listed.status_code == 200 and f"/admin/scoring/epoch/{candidate.pk}/report/".encode() in listed.content
    page = client.get(f"/admin/scoring/epoch/{candidate.pk}/report/")
    assert page.status_code == 200 and b"every entry measured the same" in page.content
    assert f"Switch the site to {candidate}".encode() in page.content
    document = client.get(f"/admin/scoring/epoch/{candidate.pk}/report.json").json()
    assert document["complete"] and document["counts"]["entries"] == len(board)
    assert client.get(f"/admin/scoring/epoch/{candidate.pk}/switch/").status_code == 302  # a GET switches nothing
    assert Epoch.objects.get(pk=candidate.pk).state == "candidate"

    done = client.post(f"/admin/scoring/epoch/{candidate.pk}/switch/")
    assert done.status_code == 302
    said = [str(message) for message in get_messages(done.wsgi_request)]
    assert any(message.startswith(f"The site now counts fuel with {candidate}") for message in said), said
    assert Epoch.objects.get(pk=candidate.pk).state == "current"
    assert Epoch.objects.get(pk=older_site.pk).state == "past"
    # The old engine's figures of every entry are kept, input by input.
    kept = EpochMeasurement.objects.filter(epoch=older_site)
    assert kept.count() == len(board)
    alice = kept.get(submission=board["alice-2"])
    assert alice.total_fuel == board["alice-2"].total_fuel
    assert [row["fuel"] for row in alice.inputs] == list(board["alice-2"].results.order_by("position")
                                                         .values_list("fuel", flat=True))
    # Switched once: the report of what is now the current epoch is gone with its candidacy.
    assert client.get(f"/admin/scoring/epoch/{candidate.pk}/report/").status_code == 404


def test_staff_drop_a_candidate_from_the_admin(client, older_site, board, django_user_model):
    candidate = measured_candidate()
    django_user_model.objects.create_superuser("staff", "s@example.com", "pw")
    client.login(username="staff", password="pw")
    done = client.post("/admin/scoring/epoch/", {"action": "drop_candidate", "_selected_action": [older_site.pk]})
    assert "only a candidate epoch can be dropped" in " ".join(str(m) for m in get_messages(done.wsgi_request))
    done = client.post("/admin/scoring/epoch/", {"action": "drop_candidate", "_selected_action": [candidate.pk]})
    assert done.status_code == 302
    assert Epoch.objects.get(pk=candidate.pk).state == "dropped" and not candidate.measurements.exists()


def test_a_board_can_be_read_as_an_earlier_engine_counted_it(client, older_site, board):
    epochs.switch(measured_candidate())
    leaderboard = client.get("/cases/adder/leaderboard/?version=v1").content.decode()
    counted = f"/cases/adder/v1/counted-by/{older_site.pk}/"
    assert counted in leaderboard and f"wasmtime {OLD[0]}" in leaderboard
    page = client.get(counted)
    assert page.status_code == 200
    body = page.content.decode()
    assert f"as counted by wasmtime {OLD[0]}" in body
    assert body.index(">alice<") < body.index(">bob<") < body.index(">carol<")
    assert f"{board['alice-2'].total_fuel:,}" in body and "not passed" in body
    changes = client.get("/changes/").content.decode()
    assert f"Fuel is counted by wasmtime {WASMTIME_VERSION}" in changes and "0 boards reordered" in changes
    feed = client.get("/feeds/changes.atom")
    assert feed.status_code == 200 and f"wasmtime {WASMTIME_VERSION}".encode() in feed.content
    # Nothing else is a board as counted by an epoch: not a candidate, not one that measured nothing here.
    assert client.get("/cases/adder/v2/counted-by/{}/".format(older_site.pk)).status_code == 404
    assert client.get("/cases/adder/v1/counted-by/999999/").status_code == 404
    candidate = Epoch.objects.create(wasmtime_version="99.0.0", engine_digest="x", state=Epoch.State.CANDIDATE)
    assert client.get(f"/cases/adder/v1/counted-by/{candidate.pk}/").status_code == 404
    current = epochs.current_epoch()  # its rows are what its candidate measured, not what every board shows
    assert client.get(f"/cases/adder/v1/counted-by/{current.pk}/").status_code == 404


def test_a_worker_on_another_engine_than_the_sites_does_not_start(older_site, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "epoch"]}}
    with pytest.raises(CommandError, match=f"the site counts fuel with wasmtime {OLD[0]}"):
        call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload")
    # A candidate host's workers take only the epoch queue: they may start (tests/test_epochs.py runs
    # them; the worker itself closes this process's connections, so it is not run in here).
    epochs.refuse_other_engine(scoring=False)


def test_the_command_says_what_it_did_and_refuses_in_one_line(older_site, board, capsys):
    call_command("epoch", "status")
    assert f"the site counts with: wasmtime {OLD[0]}" in capsys.readouterr().out
    with pytest.raises(CommandError, match="there is no candidate epoch"):
        call_command("epoch", "report")
    call_command("epoch", "prepare", "--here")
    out = capsys.readouterr().out
    assert f"[1/{len(board)}]" in out and f"{len(board)} entries measured here" in out
    call_command("epoch", "report")
    assert (f"{len(board)} of {len(board)} entries measured, 0 flagged, 0 board(s) reordered, 0 kept as counted "
            "before") in capsys.readouterr().out
    call_command("epoch", "drop")
    assert "dropped the candidate" in capsys.readouterr().out
    assert not EpochMeasurement.objects.exists() and epochs.candidate_epoch() is None


def test_an_entry_is_scored_only_on_the_sites_engine_and_labelled_by_the_one_that_measured_it(
        older_site, board, adder_v1, correct_wasm):
    from scoring.attempts import OtherEngine, score
    from scoring.recording import submit

    entry = submit(adder_v1, adder_v1.default_variant(), "dave", wasm_file=correct_wasm)
    with pytest.raises(OtherEngine, match=f"the site counts fuel with wasmtime {OLD[0]}"):
        score(entry)
    entry.refresh_from_db()
    assert (entry.status, entry.message, entry.attempt) == ("pending", "waiting for a worker on the site's engine", 0)
    assert entry.sandbox_waits == 0  # no lack of sandboxes: never given up on for it
    from django.conf import settings as django_settings

    from scoring.jobs import score_submission_job

    Submission.objects.filter(pk=entry.pk).update(sandbox_waits=django_settings.SCORING_SANDBOX_MAX_WAITS)
    assert score_submission_job.call(entry.pk, entry.attempt) == "waiting_for_sandbox"
    entry.refresh_from_db()
    assert entry.status == "pending"

    # On the site's engine it is scored, and says which engine measured it, whatever recorded it.
    Epoch.objects.filter(pk=older_site.pk).update(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST)
    Submission.objects.filter(pk=entry.pk).update(wasmtime_version=OLD[0], engine_digest=OLD[1])
    entry.refresh_from_db()
    scored = score(entry)
    scored.refresh_from_db()
    assert scored.status == "scored" and (scored.wasmtime_version, scored.engine_digest) == epochs.THIS_ENGINE


def test_an_entry_waiting_to_be_measured_names_the_sites_engine_not_the_recording_processs(
        older_site, adder_v1, correct_wasm, client):
    """A web host on another release than the site's (before or after a switch) records entries:
    until a worker on the site's engine measures one, it is the site's engine's to count."""
    from scoring.recording import submit

    epochs.forget_site_engine()  # this process reads the site's engine, as a web host does
    entry = submit(adder_v1, adder_v1.default_variant(), "erin", wasm_file=correct_wasm)
    assert (entry.wasmtime_version, entry.engine_digest) == OLD != epochs.THIS_ENGINE
    document = client.get(f"/api/v1/submissions/{entry.pk}/").json()
    assert (document["status"], document["wasmtime"]) == ("pending", OLD[0])


def test_an_attempt_that_ends_after_the_site_switched_engines_goes_back_to_the_queue(
        older_site, board, adder_v1, correct_wasm, monkeypatch):
    """The switch commits while a worker on the old engine scores: its result is never stored on a
    board the new engine counts (nor its attempt spent); a worker on the site's engine scores it."""
    from scoring import attempts
    from scoring.attempts import OtherEngine, score
    from scoring.recording import submit

    Epoch.objects.filter(pk=older_site.pk).update(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST)
    entry = submit(adder_v1, adder_v1.default_variant(), "dave", wasm_file=correct_wasm)
    measured = attempts.measure

    def switched_meanwhile(*args, **kwargs):
        done = measured(*args, **kwargs)
        Epoch.objects.filter(pk=older_site.pk).update(wasmtime_version=OLD[0], engine_digest=OLD[1])
        return done

    monkeypatch.setattr(attempts, "measure", switched_meanwhile)
    with pytest.raises(OtherEngine, match=f"the site moved to wasmtime {OLD[0]}"):
        score(entry)
    entry.refresh_from_db()
    assert (entry.status, entry.attempt, entry.total_fuel) == ("pending", 0, None)
    assert not entry.results.exists()


def test_an_entry_kept_as_an_earlier_engine_counted_it_is_not_credited_to_the_next(client, older_site, board):
    """Carol's figures are an engine's before the current one (kept, marked †, at an earlier switch):
    leaving the current epoch keeps only what its own engine measured."""
    earlier = ("48.0.0", "fedcba987654")
    Submission.objects.filter(pk=board["carol"].pk).update(wasmtime_version=earlier[0], engine_digest=earlier[1])
    epochs.switch(measured_candidate())
    kept = set(EpochMeasurement.objects.filter(epoch=older_site).values_list("submission_id", flat=True))
    assert kept == {board[name].pk for name in ("alice-1", "alice-2", "bob")}
    body = client.get(f"/cases/adder/v1/counted-by/{older_site.pk}/").content.decode()
    assert ">alice<" in body and ">carol<" not in body


def test_pages_and_kits_name_the_engine_the_site_counts_with_not_this_processs(client, older_site, board):
    """A web host on the next release's pins before the switch: every figure is still counted by the
    site's engine, so nothing is marked, and the kit's meter pins that engine."""
    import io
    import json
    import zipfile

    epochs.forget_site_engine()
    page = client.get("/cases/adder/leaderboard/?version=v1").content.decode()
    assert f"Fuel is counted by wasmtime {OLD[0]}" in page and "†" not in page
    rows = client.get("/api/v1/cases/adder/leaderboard/?version=v1").json()["results"]
    assert rows and all(row["current_engine"] for row in rows)
    assert f"wasmtime {OLD[0]}" in client.get("/about/").content.decode()
    version = board["bob"].version
    kit = client.get(f"/cases/adder/v1/kit/{version.default_variant().slug}.zip")
    with zipfile.ZipFile(io.BytesIO(kit.content)) as archive:
        assert f"wasmtime=={OLD[0]}\n" in archive.read("meter/requirements.txt").decode()
        contract = json.loads(archive.read("meter/contract.json"))
    assert (contract["wasmtime"], contract["config_digest"]) == OLD


def test_a_retired_board_stays_counted_by_the_engine_of_its_day(client, older_site, board):
    from scoring.retiring import retire

    version = board["bob"].version
    retire([("adder", "v1"), ("adder", "v2"), ("adder", "v10"), ("counter", "1.0")])
    epochs.switch(measured_candidate())  # retired boards are not measured again
    epochs.forget_site_engine()
    assert epochs.site_engine() == epochs.THIS_ENGINE
    version.refresh_from_db()
    assert epochs.board_engine(version) == OLD
    # Retired before the site recorded any epoch: counted by the first it recorded.
    version.retired_at = older_site.switched_at - timezone.timedelta(days=400)
    assert epochs.board_engine(version) == OLD
    page = client.get("/cases/adder/leaderboard/?version=v1").content.decode()
    assert f"Fuel is counted by wasmtime {OLD[0]}" in page and "†" not in page
    kit = client.get(f"/cases/adder/v1/kit/{version.default_variant().slug}.zip")
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(kit.content)) as archive:
        assert f"wasmtime=={OLD[0]}\n" in archive.read("meter/requirements.txt").decode()


def test_a_measurement_whose_host_died_is_named_and_queued_again(older_site, board, settings, capsys):
    settings.SCORING_STALE_SECONDS = 60
    candidate, queued = epochs.prepare(enqueue=False)
    lost = EpochMeasurement.objects.get(pk=queued[0])
    long_ago = timezone.now() - timezone.timedelta(minutes=5)
    EpochMeasurement.objects.filter(pk=lost.pk).update(outcome="running", host="candidate-7", claimed_at=long_ago,
                                                       heartbeat_at=long_ago)
    busy = EpochMeasurement.objects.get(pk=queued[1])
    EpochMeasurement.objects.filter(pk=busy.pk).update(outcome="running", host="candidate-8", claimed_at=long_ago,
                                                       heartbeat_at=timezone.now())
    call_command("epoch", "status")
    out = capsys.readouterr().out
    assert f"running: #{lost.submission_id} on candidate-7" in out and "stopped responding" in out
    assert f"running: #{busy.submission_id} on candidate-8" in out
    assert out.count("stopped responding") == 1
    with pytest.raises(epochs.EpochError, match="requeue_stale_jobs"):
        epochs.switch()
    call_command("requeue_stale_jobs")  # the immediate backend: it would run here, on the site's engine
    assert "measurement of submission" not in capsys.readouterr().out
    assert EpochMeasurement.objects.get(pk=lost.pk).outcome == "running"
    settings.TASKS_BACKEND = "database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "epoch"]}}
    call_command("requeue_stale_jobs")
    assert f"measurement of submission #{lost.submission_id}" in capsys.readouterr().out
    lost.refresh_from_db()
    busy.refresh_from_db()
    assert (lost.outcome, lost.claimed_at, busy.outcome) == ("pending", None, "running")
    assert epochs.run_measurement(lost.pk).outcome == "measured"


def test_a_dropped_candidates_jobs_go_with_it(older_site, board, settings, django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    settings.TASKS_BACKEND = "database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "epoch"]}}
    with pytest.raises(CommandError, match="TASKS_BACKEND is 'immediate'"):
        with override_backend(settings, "immediate"):
            call_command("epoch", "prepare")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("epoch", "prepare")
    [running, *_] = EpochMeasurement.objects.order_by("pk").values_list("pk", flat=True)
    assert DBTaskResult.objects.filter(queue_name=epochs.QUEUE, status="READY").count() == len(board)
    epochs.drop()
    assert not DBTaskResult.objects.filter(queue_name=epochs.QUEUE, status="READY").exists()
    assert epochs.run_measurement(running) is None  # a job already running ends quietly


class override_backend:
    def __init__(self, settings, name):
        self.settings, self.name = settings, name

    def __enter__(self):
        self.before, self.settings.TASKS_BACKEND = self.settings.TASKS_BACKEND, self.name

    def __exit__(self, *exc):
        self.settings.TASKS_BACKEND = self.before


def test_entries_tied_as_an_earlier_engine_counted_them_share_their_place(client, older_site, board):
    Submission.objects.filter(pk=board["bob"].pk).update(total_fuel=board["alice-2"].total_fuel, passed=True,
                                                         status="scored")
    epochs.switch(measured_candidate())
    body = client.get(f"/cases/adder/v1/counted-by/{older_site.pk}/").content.decode()
    assert body.count("=1<span") == 2, body


def test_an_entry_another_engine_counted_is_never_re_measured_as_not_reproduced(older_site, board):
    from scoring.models import Verification
    from scoring.verification import run_verification

    verification = Verification.objects.create(submission=board["alice-2"])
    run_verification(verification.pk)
    verification.refresh_from_db()
    assert verification.outcome == "failed"
    assert verification.message == (f"not re-measured: wasmtime {OLD[0]} counted it and this worker runs "
                                    f"{WASMTIME_VERSION}")


def test_a_page_kept_in_the_cache_is_not_served_once_the_site_counts_with_another_engine(client, older_site, board,
                                                                                       settings):
    settings.PAGE_CACHE_SECONDS = 300
    epochs.forget_site_engine()
    assert f"counted by wasmtime {OLD[0]}" in client.get("/cases/").content.decode()
    Epoch.objects.filter(pk=older_site.pk).update(wasmtime_version="50.0.0")  # as a switch made elsewhere
    assert f"counted by wasmtime {OLD[0]}" in client.get("/cases/").content.decode()  # read again within 10 s
    epochs.forget_site_engine()
    assert "counted by wasmtime 50.0.0" in client.get("/cases/").content.decode()


def test_a_switch_takes_away_marks_it_makes_untrue_and_counts_only_what_it_measured(older_site, board):
    """Figures a switch gives an entry were never re-measured: the entry's "re-measured
    identically" goes. The changes say how many entries the candidate measured, apart from those
    kept as counted before."""
    fast = board["alice-2"]
    Submission.objects.filter(pk=fast.pk).update(verification="identical", verified_at=timezone.now(),
                                                 verification_message="re-measured identically")
    candidate = measured_candidate()
    kept = candidate.measurements.exclude(submission=fast).first()
    EpochMeasurement.objects.filter(pk=kept.pk).update(outcome=EpochMeasurement.Outcome.FAILED)
    shown = candidate.measurements.count()
    switched = epochs.switch()
    fast.refresh_from_db()
    assert (fast.verification, fast.verified_at, fast.verification_message) == ("", None, "")
    assert switched.summary.startswith(f"{shown - 1} entries measured again: ")
    assert switched.summary.endswith("; 1 kept as counted before (marked †)")


def test_a_candidates_job_taken_by_a_host_on_another_engine_waits_for_one_on_the_candidates(older_site, board,
                                                                                              settings, monkeypatch):
    """A worker host on another engine (one left running after an earlier switch) takes a job of
    the candidate's queue: the measurement is left waiting, queued again for later, and says why."""
    from django_tasks_db.models import DBTaskResult

    from scoring.epochs import candidates

    settings.TASKS_BACKEND = "database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "epoch"]}}
    candidate, queued = epochs.prepare(enqueue=False)
    monkeypatch.setattr(candidates, "THIS_ENGINE", OLD)  # this process stands for a host on the old engine
    assert candidates.measure_for_epoch_job.call(queued[0]) == candidates.WAITING_FOR_HOST
    waiting = EpochMeasurement.objects.get(pk=queued[0])
    assert waiting.outcome == "pending"
    assert f"runs wasmtime {OLD[0]}" in waiting.message and "candidate's engine" in waiting.message
    job = DBTaskResult.objects.get(id=waiting.job_id)
    assert (job.queue_name, job.status, job.args_kwargs["args"]) == (epochs.QUEUE, "READY", [queued[0]])
    assert job.run_after > timezone.now()  # later: a host on the candidate's engine may take it first
    monkeypatch.setattr(candidates, "THIS_ENGINE", candidate.engine)
    assert candidates.measure_for_epoch_job.call(queued[0]) == "measured"
