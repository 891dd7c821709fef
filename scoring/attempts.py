"""Scoring one attempt of a submission: started, kept alive by a heartbeat, measured, and finished —
results and the final status stored in one transaction, and only by the current attempt (a new
attempt supersedes an old one, which then stores nothing)."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from engine.builds import SandboxUnavailable
from engine.evaluate import Evaluation
from engine.progress import ScoringProgress
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from lib.text import storable
from scoring import building
from scoring.boards.updates import update_boards
from scoring.epochs.engines import THIS_ENGINE, label, other_site_engine
from scoring.heartbeats import heartbeat
from scoring.locking import lock_entries
from scoring.measuring import measure, result_fields, sample_inputs
from scoring.models import Result, StoredModule, Submission

logger = logging.getLogger(__name__)


class Superseded(Exception):
    """This attempt is no longer the submission's current one; its results must not be stored."""


class OtherEngine(SandboxUnavailable):
    """This process runs another engine than the one the site counts with (scoring/epochs/): the
    attempt goes back to the queue, as one without a sandbox does, for a worker on the site's engine."""


# The columns a scoring attempt writes besides its outcome's fields.
SCORING_OWNS = ("build_log", "build_confinement", "toolchain", "module_digest", "module_size", "sample_results",
               "wasmtime_version", "engine_digest",
                "status", "scored_at")


def _finish(submission: Submission, status: str, *, results: list[Result] = (), **fields) -> Submission:
    """Store the outcome in one transaction, if this attempt is still the current one."""
    with transaction.atomic():
        lock_entries([submission.pk])  # its board first, then the entry (lib/locking.py)
        current = Submission.objects.only("attempt", "status").get(pk=submission.pk)
        if current.attempt != submission.attempt or current.status != Submission.State.RUNNING:
            raise Superseded(f"submission {submission.pk} attempt {submission.attempt} was superseded")
        epoch = other_site_engine()  # the site switched engines while this attempt ran: not stored
        if epoch is not None:
            raise OtherEngine(f"the site moved to {label(epoch.engine)} while this worker, on {label(THIS_ENGINE)}, "
                              f"scored it")
        Result.objects.filter(submission=submission).delete()
        for result in results:
            result.message, result.detail = storable(result.message), storable(result.detail)
        Result.objects.bulk_create(results)
        for name, value in fields.items():
            setattr(submission, name, storable(value) if name in ("message", "detail") else value)
        submission.build_log = storable(submission.build_log)
        submission.status = status
        submission.scored_at = timezone.now()
        # Only what scoring owns: what staff changed meanwhile (hidden, excluded, the reference,
        # a note) stays as they left it.
        submission.save(update_fields=[*fields, *SCORING_OWNS])
        update_boards([submission.pk])
    return submission


def _start(submission: Submission) -> None:
    """Mark this attempt running; Superseded if another attempt has taken over. What it waited
    for (a build sandbox, a worker on the site's engine) is over: its message goes."""
    started = Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).exclude(
        status__in=Submission.FINAL_STATES
    ).update(status=Submission.State.RUNNING, heartbeat_at=timezone.now(), message="", detail="")
    if not started:
        raise Superseded(f"submission {submission.pk} attempt {submission.attempt} is not current")
    submission.status, submission.message, submission.detail = Submission.State.RUNNING, "", ""


def _heartbeat(submission: Submission):
    """Refresh `heartbeat_at` while scoring runs, so a dead scorer can be told from a slow one."""
    return heartbeat(Submission.objects.filter(pk=submission.pk, attempt=submission.attempt),
                     f"submission {submission.pk}")


def score(submission: Submission, *, progress: ScoringProgress | None = None) -> Submission:
    """Build (if needed), check and run the module, and store every result.

    Results are written in one transaction with the final status, and only if this attempt is
    still the submission's current one, so a scorer that dies midway leaves no half-written
    results and a scorer that was given up on cannot double-count. If the scorer itself fails,
    the submission is marked `error` (its source is kept) and the error re-raised. If its build
    cannot be given a sandbox, the attempt goes back to `pending` (no attempt spent, nothing
    written but the wait, for staff) and SandboxUnavailable is re-raised: the caller queues it
    again (scoring/jobs.py) or says so.
    """
    _start(submission)
    try:
        with _heartbeat(submission):
            return _score(submission, progress or ScoringProgress())
    except Superseded:
        raise
    except SandboxUnavailable as unavailable:
        logger.warning("submission %s waits for a build sandbox: %s", submission.pk, unavailable)
        # A worker on another engine than the site's is no lack of sandboxes: it waits as long as it takes.
        other_engine = isinstance(unavailable, OtherEngine)
        waiting = "waiting for a worker on the site's engine" if other_engine else "waiting for a build sandbox"
        Submission.objects.filter(pk=submission.pk, attempt=submission.attempt, status=Submission.State.RUNNING).update(
            status=Submission.State.PENDING, heartbeat_at=None, job_id="",
            sandbox_waits=F("sandbox_waits") + (0 if other_engine else 1),
            message=waiting, detail=storable(f"{waiting}: {unavailable}"))
        raise
    except Exception as exc:
        logger.exception("scoring submission %s failed", submission.pk)
        Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).update(
            status=Submission.State.ERROR, message=f"the scorer failed: {type(exc).__name__}: {exc}"
        )
        raise


def _score(submission: Submission, progress: ScoringProgress) -> Submission:
    epoch = other_site_engine()
    if epoch is not None:
        raise OtherEngine(f"this worker runs {label(THIS_ENGINE)}; the site counts fuel with {label(epoch.engine)}")
    measured = measure(submission.version, submission.source_kind, bytes(submission.source), progress,
                       wall_seconds=building.build_wall(submission),
                       samples=sample_inputs(submission.version))
    submission.build_log = measured.build_log
    # The engine that measured it (not the one of the process that recorded it): its board says so.
    submission.wasmtime_version, submission.engine_digest = WASMTIME_VERSION, ENGINE_DIGEST
    submission.build_confinement = measured.confinement
    submission.toolchain = measured.toolchain
    submission.sample_results = measured.samples
    if measured.module_digest:
        submission.module_digest, submission.module_size = measured.module_digest, measured.module_size
    if measured.module:  # kept for when its version is retired (docs/retiring.md)
        StoredModule.keep(measured.module_digest, measured.module)
    if measured.evaluation is None:  # no result of an earlier attempt stands
        return _finish(submission, measured.state, message=measured.message, detail=measured.detail,
                       passed=False, total_fuel=None, overshoot=0, passed_count=0)
    evaluation = measured.evaluation
    return _finish(
        submission, Submission.State.SCORED, results=_result_rows(submission, evaluation), message="", detail="",
        passed=evaluation.passed, total_fuel=evaluation.total_fuel, overshoot=evaluation.overshoot,
        passed_count=evaluation.passed_count,
    )


def _result_rows(submission: Submission, evaluation: Evaluation) -> list[Result]:
    return [Result(submission=submission, position=position, **result_fields(item, outcome))
            for position, (item, outcome) in enumerate(zip(evaluation.held_out, evaluation.outcomes))]
