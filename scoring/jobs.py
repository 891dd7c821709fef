"""Scoring jobs on the Django Tasks API, and recovery of jobs whose worker died.

`enqueue_scoring` queues the submission's current attempt once the surrounding transaction
commits. With the immediate backend (the default) the job runs right there; with the database
backend, `manage.py db_worker` processes on any number of machines pick jobs up. A worker
killed mid-job leaves its attempt `running` with a heartbeat that stops moving;
`requeue_stale_jobs` (run it from cron, or beside the workers) starts a new attempt for it. The
old attempt can never store results once a new one exists.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from scoring import boards
from scoring.models import Submission
from scoring.service import Superseded, score

logger = logging.getLogger(__name__)


class WorkerLost(Exception):
    """Recorded on a database-backend job whose worker stopped responding."""


@task()
def score_submission_job(submission_id: int, attempt: int) -> str:
    """Score one attempt of a submission. Returns the final status, or "superseded"."""
    submission = Submission.objects.select_related("version__case", "variant").filter(pk=submission_id).first()
    if submission is None or submission.attempt != attempt:
        return "superseded"
    try:
        return score(submission).status
    except Superseded:
        logger.info("submission %s attempt %s was superseded; its results were discarded", submission_id, attempt)
        return "superseded"


@task()
def refresh_standings_job() -> float:
    """Recompute the catalog-wide standings (scoring/standings.py). Returns seconds."""
    from scoring.standings import refresh

    return refresh()


@task()
def refresh_agents_job() -> float:
    """Recompute the agents matrix (scoring/agents/). Returns seconds."""
    from scoring.agents import refresh

    return refresh()


@task()
def verify_submission_job(verification_id: int) -> str:
    """Measure a stored entry again, on whichever worker takes this (scoring/verification.py).
    Returns the outcome."""
    from scoring.verification import run_verification

    return run_verification(verification_id).outcome


def enqueue_scoring(submission: Submission) -> None:
    """Queue the submission's current attempt when the current transaction commits."""
    submission_id, attempt = submission.pk, submission.attempt

    def send() -> None:
        result = score_submission_job.enqueue(submission_id, attempt)
        Submission.objects.filter(pk=submission_id, attempt=attempt).update(job_id=str(result.id)[:64])

    transaction.on_commit(send)


def new_attempt(submission: Submission, message: str = "", *, enqueue: bool = True) -> Submission:
    """Make a fresh attempt current (the old one can no longer write) and queue it (or, with
    `enqueue` False, leave it to the caller to score or queue)."""
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        current.attempt += 1
        current.status = Submission.State.PENDING
        current.message = message
        current.heartbeat_at = None
        current.job_id = ""
        # A re-measurement's mark speaks of the results this attempt replaces.
        current.verification, current.verified_at, current.verification_message = "", None, ""
        current.save(update_fields=["attempt", "status", "message", "heartbeat_at", "job_id", "verification",
                                    "verified_at", "verification_message"])
        boards.update_boards([current.pk])  # it leaves the leaderboards until scored again
        if enqueue:
            enqueue_scoring(current)
    return current


def _mark_job_lost(job_id: str) -> None:
    """Show the abandoned job as failed in the database backend's own table, when there is one."""
    if not job_id or settings.TASKS_BACKEND != "database":
        return
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(id=job_id, status="RUNNING").update(
        status="FAILED", finished_at=timezone.now(), exception_class_path="scoring.jobs.WorkerLost",
        traceback="the worker running this job stopped sending heartbeats; a new attempt was queued",
    )


def stale_submissions(stale_after: float | None = None):
    """Running attempts whose heartbeat stopped, and queued ones that never got a job."""
    return Submission.objects.stale(stale_after).defer("source")


def requeue_stale(stale_after: float | None = None) -> list[tuple[Submission, str]]:
    """Start a new attempt for every stale submission (or give up after too many attempts)."""
    handled = []
    for submission in stale_submissions(stale_after):
        _mark_job_lost(submission.job_id)
        if submission.out_of_attempts:
            with transaction.atomic():
                updated = Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).update(
                    status=Submission.State.ERROR,
                    message=f"gave up after {submission.attempts_used} attempts: the scorer stopped responding each time",
                )
                boards.update_boards([submission.pk])
            if updated:
                handled.append((submission, "failed"))
            continue
        fresh = new_attempt(submission, message=f"requeued: attempt {submission.attempt + 1} stopped responding")
        handled.append((fresh, "requeued"))
    return handled
