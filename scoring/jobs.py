"""Scoring jobs on the Django Tasks API: a fair queue, sandbox waits, and recovery of jobs whose
worker died.

`enqueue_scoring` queues the submission's current attempt once the surrounding transaction
commits. With the immediate backend (the default) the job runs right there; with the database
backend, `manage.py db_worker` processes on any number of machines pick jobs up.

A fair queue: the task queue takes jobs first in, first out, so an operator who sends many
entries at once would hold every worker. An operator's entry therefore waits for its turn in the
site's own table (`queued_at` NULL) while SCORING_OPERATOR_JOBS of theirs are queued or running;
each job that ends hands the queue the operator's next one (`dispatch`). Other operators' entries,
and entries from the shell, go into the queue as they come, so they pass the waiting ones.

A job whose build could not be given a sandbox (SandboxUnavailable: a launcher restarting, the
machine out of processes for a moment) spends no attempt and writes no `error`: it goes back to
the queue with a back-off, the entry says so to staff, and the worker that met it waits as long
before it takes another job, so a worker whose sandbox is broken cannot take every job there is.

A worker killed mid-job leaves its attempt `running` with a heartbeat that stops moving;
`requeue_stale_jobs` (run it from cron, or beside the workers) starts a new attempt for it. The
old attempt can never store results once a new one exists.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from engine.builds import SandboxUnavailable
from scoring.agents.computing import refresh_agents_job as refresh_agents_job  # (below)
from scoring.attempts import OtherEngine, Superseded, score
from scoring.boards.updates import update_boards
from scoring.locking import lock_entries, lock_operator
from scoring.models import Submission
from scoring.queue import in_flight
from scoring.recording import is_retired
from scoring.standings.computing import refresh_standings_job as refresh_standings_job  # (below)
from scoring.verification import verify_submission_job as verify_submission_job  # (below)

# Tasks queued before they moved beside their work are found here by their old path: the three
# imported `as` themselves are re-exported for that (scoring.jobs.refresh_agents_job, …).

logger = logging.getLogger(__name__)


class WorkerLost(Exception):
    """Recorded on a database-backend job whose worker stopped responding."""


WAITING_FOR_SANDBOX = "waiting_for_sandbox"

# When this worker process may take its next job (after a job met no sandbox): time.monotonic().
_paused_until = 0.0


def worker_pause() -> float:
    """Seconds this worker should wait before it takes another job (0: none)."""
    return max(0.0, _paused_until - time.monotonic())


@task()
def score_submission_job(submission_id: int, attempt: int) -> str:
    """Score one attempt of a submission. Returns the final status, "superseded", or
    "waiting_for_sandbox" (the job went back to the queue)."""
    submission = Submission.objects.select_related("version__case", "variant").filter(pk=submission_id).first()
    if submission is None or submission.attempt != attempt:
        return "superseded"
    try:
        return score(submission).status
    except Superseded:
        logger.info("submission %s attempt %s was superseded; its results were discarded", submission_id, attempt)
        return "superseded"
    except OtherEngine:
        _retry_later(submission, other_engine=True)
        return WAITING_FOR_SANDBOX
    except SandboxUnavailable:
        _retry_later(submission)
        return WAITING_FOR_SANDBOX
    finally:
        if submission.operator_id is not None:
            dispatch(submission.operator_id)


# Fresh jobs have priority 0; the queue takes higher priorities first.
RETRY_PRIORITY = -1


def sandbox_retry_seconds(waits: int) -> float:
    """How long an attempt waits after its `waits`-th time without a sandbox: doubling, capped."""
    return min(settings.SCORING_SANDBOX_RETRY_MAX_SECONDS,
               settings.SCORING_SANDBOX_RETRY_SECONDS * 2 ** min(max(waits - 1, 0), 30))


def _retry_later(submission: Submission, *, other_engine: bool = False) -> None:
    """The attempt (left pending by `score`) goes back to the queue after its back-off, behind
    fresh jobs, and this worker waits as long; after SCORING_SANDBOX_MAX_WAITS waits it ends in
    `error` instead. Taken by a worker on another engine than the site's, it is queued again at
    once, never given up on, and that worker waits the longest back-off before it takes another
    job (so the site's own take it). With the immediate backend there is no queue: it stays
    pending, and `requeue_stale_jobs` queues it again."""
    global _paused_until
    if other_engine:
        delay, pause = settings.SCORING_SANDBOX_RETRY_SECONDS, settings.SCORING_SANDBOX_RETRY_MAX_SECONDS
    else:
        waits = Submission.objects.filter(pk=submission.pk).values_list("sandbox_waits", flat=True).first() or 1
        if waits >= settings.SCORING_SANDBOX_MAX_WAITS:
            Submission.objects.filter(pk=submission.pk, attempt=submission.attempt,
                                      status=Submission.State.PENDING).update(
                status=Submission.State.ERROR, job_id="",
                message=f"no build sandbox could be had ({waits} tries); staff can score it again")
            return
        delay = pause = sandbox_retry_seconds(waits)
    if settings.TASKS_BACKEND == "immediate":
        return
    result = score_submission_job.using(run_after=timezone.now() + timedelta(seconds=delay),
                                        priority=RETRY_PRIORITY).enqueue(submission.pk, submission.attempt)
    Submission.objects.filter(pk=submission.pk, attempt=submission.attempt, status=Submission.State.PENDING).update(
        job_id=str(result.id)[:64])
    _paused_until = max(_paused_until, time.monotonic() + pause)




def _queue(submission_id: int, attempt: int) -> None:
    """Hand the attempt to the task queue (when the current transaction commits)."""
    Submission.objects.filter(pk=submission_id, attempt=attempt).update(queued_at=timezone.now())

    def send() -> None:
        result = score_submission_job.enqueue(submission_id, attempt)
        Submission.objects.filter(pk=submission_id, attempt=attempt).update(job_id=str(result.id)[:64])

    transaction.on_commit(send)


def enqueue_scoring(submission: Submission) -> None:
    """Queue the submission's current attempt when the current transaction commits: at once, or,
    for an operator's entry, when its turn comes (`dispatch`)."""
    if submission.operator_id is None:
        _queue(submission.pk, submission.attempt)
        return
    Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).update(queued_at=None)
    operator_id = submission.operator_id
    transaction.on_commit(lambda: dispatch(operator_id))


def dispatch(operator_id: int) -> int:
    """Hand the queue as many of the operator's waiting entries, oldest first, as their share
    (SCORING_OPERATOR_JOBS) allows. Returns how many. Safe to call at any time, from anywhere:
    the operator's row is locked while it counts."""
    with transaction.atomic():
        lock_operator(operator_id)  # then its entries, changed below: the house's order
        free = settings.SCORING_OPERATOR_JOBS - in_flight(operator_id).count()
        if free <= 0:
            return 0
        waiting = list(Submission.objects.filter(operator_id=operator_id, status=Submission.State.PENDING,
                                                 queued_at__isnull=True)
                       .order_by("submitted_at", "pk").values_list("pk", "attempt")[:free])
        for submission_id, attempt in waiting:
            _queue(submission_id, attempt)
    return len(waiting)


def dispatch_waiting() -> int:
    """`dispatch` for every operator with an entry waiting for its turn (a job that ended without
    handing on, say in a worker killed at that moment, is made good here). Returns how many were queued."""
    operators = (Submission.objects.filter(status=Submission.State.PENDING, queued_at__isnull=True,
                                           operator__isnull=False).values_list("operator_id", flat=True).distinct())
    return sum(dispatch(operator_id) for operator_id in list(operators))


def new_attempt(submission: Submission, message: str = "", *, enqueue: bool = True,
                only_if=None) -> Submission | None:
    """Make a fresh attempt current (the old one can no longer write) and queue it (or, with
    `enqueue` False, leave it to the caller to score or queue).

    `only_if`: a queryset of entries in the state the caller found this one in (stale, say). Under
    the entry's lock it must still be there at the attempt the caller saw, or nothing changes and
    None is returned: two callers that found it stale at the same moment give it one new attempt.
    None too, and nothing changes, for an entry of a retired version (its board is frozen)."""
    with transaction.atomic():
        lock_entries([submission.pk])
        if only_if is not None and not only_if.filter(pk=submission.pk, attempt=submission.attempt).exists():
            return None
        current = Submission.objects.get(pk=submission.pk)
        if is_retired(current.version_id):
            return None  # a retired version's board is frozen: nothing of it is scored again
        current.attempt += 1
        current.status = Submission.State.PENDING
        current.message = message
        current.heartbeat_at = None
        current.job_id = ""
        current.queued_at = None
        current.sandbox_waits = 0
        # A re-measurement's mark speaks of the results this attempt replaces.
        current.verification, current.verified_at, current.verification_message = "", None, ""
        current.save(update_fields=["attempt", "status", "message", "heartbeat_at", "job_id", "queued_at",
                                    "sandbox_waits", "verification", "verified_at", "verification_message"])
        update_boards([current.pk])  # it leaves the leaderboards until scored again
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


def _requeue(submission: Submission, stale_after: float | None) -> tuple[Submission, str] | None:
    """A new attempt for one stale entry, or its end after too many; None if, under its lock, it
    is stale no more (another caller requeued it, or its scorer spoke again)."""
    still = Submission.objects.stale(stale_after)
    if submission.out_of_attempts:
        with transaction.atomic():
            lock_entries([submission.pk])
            if not still.filter(pk=submission.pk, attempt=submission.attempt).exists():
                return None
            Submission.objects.filter(pk=submission.pk).update(
                status=Submission.State.ERROR,
                message=f"gave up after {submission.attempts_used} attempts: the scorer stopped responding each time",
            )
            update_boards([submission.pk])
        _mark_job_lost(submission.job_id)
        return submission, "failed"
    fresh = new_attempt(submission, message=f"requeued: attempt {submission.attempt + 1} stopped responding",
                        only_if=still)
    if fresh is None:
        return None
    _mark_job_lost(submission.job_id)
    return fresh, "requeued"


def stale_submissions(stale_after: float | None = None):
    """Running attempts whose heartbeat stopped, and queued ones that never got a job."""
    return Submission.objects.stale(stale_after).defer("source")


def requeue_stale(stale_after: float | None = None) -> list[tuple[Submission, str]]:
    """Start a new attempt for every stale submission (or give up after too many attempts).
    Returns (entry, "requeued" | "failed" | "error") for each one handled: one entry's error
    (logged) does not stop the others."""
    handled = []
    for submission in stale_submissions(stale_after):
        try:
            outcome = _requeue(submission, stale_after)
        except Exception:
            logger.exception("requeueing stale submission %s failed", submission.pk)
            outcome = (submission, "error")
        if outcome is not None:
            handled.append(outcome)
    dispatch_waiting()
    return handled
