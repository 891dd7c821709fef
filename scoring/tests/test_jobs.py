"""Scoring jobs: the Tasks API, attempts that cannot double-count, and recovering lost jobs."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from engine.progress import ScoringProgress
from scoring.attempts import Superseded, score
from scoring.jobs import enqueue_scoring, new_attempt, requeue_stale
from scoring.models import Result, Submission
from scoring.recording import submit

pytestmark = pytest.mark.django_db


def test_the_immediate_backend_runs_an_enqueued_job_in_process(adder_v1, correct_wasm,
                                                               django_capture_on_commit_callbacks):
    submission = submit(adder_v1, adder_v1.default_variant(), "queued", wasm_file=correct_wasm)
    assert submission.job_state == "queued"
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_scoring(submission)
    submission.refresh_from_db()
    assert (submission.status, submission.passed, submission.job_state) == ("scored", True, "done")
    assert submission.job_id
    assert submission.results.count() == 3


def test_a_superseded_attempt_stores_nothing(adder_v1, correct_wasm):
    """If a new attempt takes over while an old one is still running, the old one's results are discarded."""
    submission = submit(adder_v1, adder_v1.default_variant(), "slowpoke", wasm_file=correct_wasm)

    class TakeOver(ScoringProgress):
        def running(self, inputs):  # the old attempt is running: staff (or the recovery) starts a new one
            Submission.objects.filter(pk=submission.pk).update(attempt=1, status=Submission.State.PENDING)

    with pytest.raises(Superseded):
        score(submission, progress=TakeOver())
    submission.refresh_from_db()
    assert (submission.status, submission.attempt) == ("pending", 1)
    assert Result.objects.filter(submission=submission).count() == 0


def test_a_finished_submission_is_not_scored_again_by_an_old_job(adder_v1, correct_wasm):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "done", wasm_file=correct_wasm))
    with pytest.raises(Superseded):
        score(submission)
    assert Result.objects.filter(submission=submission).count() == 3


def test_a_running_attempt_with_a_stale_heartbeat_is_requeued_and_scored(adder_v1, correct_wasm,
                                                                         django_capture_on_commit_callbacks):
    submission = submit(adder_v1, adder_v1.default_variant(), "orphan", wasm_file=correct_wasm)
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.State.RUNNING, heartbeat_at=timezone.now() - timedelta(minutes=5), job_id="lost-job"
    )
    fresh = submit(adder_v1, adder_v1.default_variant(), "alive", wasm_file=correct_wasm)
    Submission.objects.filter(pk=fresh.pk).update(status=Submission.State.RUNNING, heartbeat_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        handled = requeue_stale(stale_after=60)
    assert [(item.pk, action) for item, action in handled] == [(submission.pk, "requeued")]
    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.passed) == ("scored", 1, True)
    assert Submission.objects.get(pk=fresh.pk).status == "running"  # its heartbeat is fresh


def test_after_too_many_attempts_the_submission_is_marked_failed(adder_v1, correct_wasm, settings):
    settings.SCORING_MAX_ATTEMPTS = 2
    submission = submit(adder_v1, adder_v1.default_variant(), "poison", wasm_file=correct_wasm)
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.State.RUNNING, attempt=1, heartbeat_at=timezone.now() - timedelta(minutes=5)
    )
    assert [action for _, action in requeue_stale(stale_after=60)] == ["failed"]
    submission.refresh_from_db()
    assert (submission.status, submission.job_state) == ("error", "failed")
    assert "gave up after 2 attempts" in submission.message


def test_the_requeue_command_reports_what_it_did(adder_v1, correct_wasm, django_capture_on_commit_callbacks):
    submission = submit(adder_v1, adder_v1.default_variant(), "orphan", wasm_file=correct_wasm)
    Submission.objects.filter(pk=submission.pk).update(status="running",
                                                       heartbeat_at=timezone.now() - timedelta(hours=1))
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("requeue_stale_jobs", "--stale-after", "30", stdout=out)
    assert f"requeued  submission #{submission.pk} (orphan), attempt 1" in out.getvalue()


def test_one_entry_that_cannot_be_requeued_does_not_stop_the_others(adder_v1, correct_wasm, monkeypatch,
                                                                    django_capture_on_commit_callbacks):
    """The queue's own table refuses one entry's lost job: that entry is named and the command
    exits 1, and every other stale entry gets its new attempt."""
    import scoring.jobs

    stale = []
    for name in ("first", "poisoned", "last"):
        entry = submit(adder_v1, adder_v1.default_variant(), name, wasm_file=correct_wasm)
        Submission.objects.filter(pk=entry.pk).update(status="running", job_id=f"job-{name}",
                                                      heartbeat_at=timezone.now() - timedelta(hours=1))
        stale.append(entry)
    marked = scoring.jobs._mark_job_lost

    def the_queue_refuses(job_id):
        if job_id == "job-poisoned":
            raise RuntimeError("the queue's table is unreachable")
        marked(job_id)

    monkeypatch.setattr(scoring.jobs, "_mark_job_lost", the_queue_refuses)
    out, err = io.StringIO(), io.StringIO()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(CommandError, match="1 stale job"):
        call_command("requeue_stale_jobs", "--stale-after", "30", stdout=out, stderr=err)
    assert f"submission #{stale[1].pk} (poisoned)" in err.getvalue()
    for entry in (stale[0], stale[2]):
        assert f"requeued  submission #{entry.pk}" in out.getvalue()
        entry.refresh_from_db()
        assert (entry.attempt, entry.status) == (1, "scored")


def test_two_requeues_of_one_stale_entry_give_it_one_new_attempt(adder_v1, correct_wasm):
    """Each re-checks under the entry's lock that it is still stale at the attempt it saw."""
    entry = submit(adder_v1, adder_v1.default_variant(), "twice", wasm_file=correct_wasm)
    Submission.objects.filter(pk=entry.pk).update(status="running", heartbeat_at=timezone.now() - timedelta(hours=1))
    seen = Submission.objects.get(pk=entry.pk)  # what both found stale
    assert new_attempt(seen, enqueue=False, only_if=Submission.objects.stale(60)) is not None
    assert new_attempt(seen, enqueue=False, only_if=Submission.objects.stale(60)) is None
    assert Submission.objects.get(pk=entry.pk).attempt == 1


def test_score_enqueue_goes_through_the_task_queue(adder_v1, correct_wasm, django_capture_on_commit_callbacks):
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("score", "adder", "--version", "v1", "--wasm", str(correct_wasm), "--name", "q", "--enqueue",
                     "--json", stdout=out, stderr=io.StringIO())
    submission = Submission.objects.get(name="q")
    assert submission.job_id and submission.status == "scored"
    assert json.loads(out.getvalue())["submission"] == submission.pk


def test_job_state_shows_on_the_page_and_in_the_api(client, adder_v1, correct_wasm):
    submission = submit(adder_v1, adder_v1.default_variant(), "waiting", wasm_file=correct_wasm)
    assert 'class="status status-queued"' in client.get(f"/submissions/{submission.pk}/").content.decode()
    assert client.get(f"/api/v1/submissions/{submission.pk}/").json()["job"] == "queued"
    Submission.objects.filter(pk=submission.pk).update(status="running")
    assert client.get(f"/api/v1/submissions/{submission.pk}/").json()["job"] == "running"
    Submission.objects.filter(pk=submission.pk).update(status="error")
    assert client.get(f"/api/v1/submissions/{submission.pk}/").json()["job"] == "failed"


def test_staff_can_rescore_from_the_admin(admin_client, adder_v1, correct_wasm, django_capture_on_commit_callbacks):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "again", wasm_file=correct_wasm))
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post("/admin/scoring/submission/", {"action": "rescore", "_selected_action": [submission.pk]})
    submission.refresh_from_db()
    assert (submission.attempt, submission.status, submission.message) == (1, "scored", "")
    assert Result.objects.filter(submission=submission).count() == 3  # replaced, not added


def test_a_new_attempt_resets_the_job(adder_v1, correct_wasm):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "x", wasm_file=correct_wasm))
    fresh = new_attempt(submission, message="because")
    assert (fresh.attempt, fresh.status, fresh.job_id, fresh.message) == (1, "pending", "", "because")


def test_jobs_queued_before_their_tasks_moved_beside_their_work_still_run():
    """A queue row names its task by path: rows written when the tasks lived in scoring.jobs find
    them there still."""
    from django.utils.module_loading import import_string

    from scoring.agents.computing import refresh_agents_job
    from scoring.standings.computing import refresh_standings_job
    from scoring.verification import verify_submission_job

    for task in (refresh_standings_job, refresh_agents_job, verify_submission_job):
        assert import_string(f"scoring.jobs.{task.name}") is task


def test_an_admin_save_writes_only_what_staff_decide(admin_client, adder_v1, correct_wasm, monkeypatch):
    """The change form reads the entry before its lock is taken; a worker that moves it on in
    between (a new attempt, scored) keeps what it wrote when staff hide the entry."""
    from scoring import admin as scoring_admin
    from scoring.tests.helpers import admin_change

    submission = submit(adder_v1, adder_v1.default_variant(), "moving", wasm_file=correct_wasm)
    locking = scoring_admin.lock_entries

    def worker_finishes_first(pks):
        Submission.objects.filter(pk=submission.pk).update(status="scored", attempt=3, message="done")
        return locking(pks)

    monkeypatch.setattr(scoring_admin, "lock_entries", worker_finishes_first)
    admin_change(admin_client, f"/admin/scoring/submission/{submission.pk}/change/", hidden="on")
    submission.refresh_from_db()
    assert (submission.hidden, submission.status, submission.attempt, submission.message) == (True, "scored", 3, "done")
