"""A candidate epoch recorded, and each entry measured under it on a host that runs it (steps 1
and 2 of scoring/epochs/__init__.py)."""

from __future__ import annotations

import logging
import socket
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django_tasks import task

from engine.progress import ScoringProgress
from lib.text import storable
from scoring.epochs.engines import QUEUE, THIS_ENGINE, EpochError, candidate_epoch, current_epoch, label, to_measure
from scoring.heartbeats import heartbeat
from scoring.measuring import measure, result_fields
from scoring.models import Epoch, EpochMeasurement

logger = logging.getLogger(__name__)
State, Outcome = Epoch.State, EpochMeasurement.Outcome


def prepare(*, enqueue: bool = True) -> tuple[Epoch, list[int]]:
    """Record this host's engine as the candidate (or find it recorded) and queue a measurement
    of every entry it has not measured yet (or measured before the entry was scored again, or
    failed to). Returns the candidate and the measurements queued (or, without `enqueue`, left
    for the caller to run: `run_measurement`)."""
    current = current_epoch()
    if current is None:
        raise EpochError("the site has recorded no epoch yet: run `manage.py migrate` on one of its own hosts first")
    if current.engine == THIS_ENGINE:
        raise EpochError(f"this host runs the site's own engine ({label(THIS_ENGINE)}): a candidate runs another "
                         f"wasmtime release (scripts/candidate-venv.sh RELEASE; docs/epochs.md)")
    candidate = candidate_epoch()
    if candidate is not None and candidate.engine != THIS_ENGINE:
        raise EpochError(f"another candidate ({label(candidate.engine)}) is being prepared: drop it first "
                         f"(`manage.py epoch drop`)")
    if candidate is None:
        try:
            with transaction.atomic():
                candidate = Epoch.objects.create(wasmtime_version=THIS_ENGINE[0], engine_digest=THIS_ENGINE[1],
                                                 state=State.CANDIDATE)
        except IntegrityError:
            return prepare(enqueue=enqueue)  # recorded meanwhile by another host: read it again
    queued = []
    with transaction.atomic():
        entries = dict(to_measure().values_list("pk", "attempt"))
        kept = {submission_id: (outcome, attempt) for submission_id, outcome, attempt in
                candidate.measurements.values_list("submission_id", "outcome", "attempt")}
        lost = set(stale_measurements().filter(epoch=candidate).values_list("submission_id", flat=True))
        # Two hosts preparing at once make each row once (the second finds it made).
        fresh = [EpochMeasurement(epoch=candidate, submission_id=submission_id, attempt=attempt)
                 for submission_id, attempt in entries.items() if submission_id not in kept]
        EpochMeasurement.objects.bulk_create(fresh, ignore_conflicts=True)
        for submission_id, attempt in sorted(entries.items()):
            if submission_id in kept:
                outcome, measured_attempt = kept[submission_id]
                if outcome == Outcome.PENDING or (outcome == Outcome.RUNNING and submission_id not in lost) or (
                        outcome == Outcome.MEASURED and measured_attempt == attempt):
                    continue  # queued, being measured, or measured for what the entry shows
                # Failed, measured before the entry was scored again, or claimed by a host that died.
                candidate.measurements.filter(submission_id=submission_id, outcome=outcome).update(
                    outcome=Outcome.PENDING, attempt=attempt, message="", detail="", measured_at=None, claimed_at=None,
                    heartbeat_at=None)
            queued.append(candidate.measurements.get(submission_id=submission_id).pk)
        if enqueue:
            for measurement_id in queued:
                _enqueue(measurement_id)
    return candidate, queued


def _of_the_candidate():
    """The candidate's measurements, with the epoch's state asked in a subquery of its own: an
    update's conditions on the row itself stay in its WHERE, which PostgreSQL checks again on a
    row another transaction changed meanwhile (a join would move them all into a subquery it
    does not check again)."""
    return EpochMeasurement.objects.filter(epoch_id__in=Epoch.objects.filter(state=State.CANDIDATE).values("pk"))


def stale_measurements(stale_after: float | None = None):
    """The candidate's measurements claimed by a host that stopped sending heartbeats (it died)."""
    since = timezone.now() - timedelta(seconds=settings.SCORING_STALE_SECONDS if stale_after is None else stale_after)
    return _of_the_candidate().filter(outcome=Outcome.RUNNING).filter(
        Q(heartbeat_at__lt=since) | Q(heartbeat_at__isnull=True, claimed_at__lt=since))


def requeue_stale_measurements(stale_after: float | None = None) -> list[EpochMeasurement]:
    """Queue again each measurement whose host died (`requeue_stale_jobs` does it every minute, on
    any host). Returns those queued. Only with the database task backend: without it a job would
    run here, on this host's engine, not on a candidate's (a `prepare --here` whose process died
    is taken up again by the next one)."""
    if settings.TASKS_BACKEND != "database":
        return []
    requeued = []
    for measurement in stale_measurements(stale_after).select_related("submission"):
        with transaction.atomic():
            # Still what was found stale (its host may have spoken or finished meanwhile).
            if stale_measurements(stale_after).filter(pk=measurement.pk, claimed_at=measurement.claimed_at).update(
                    outcome=Outcome.PENDING, claimed_at=None, heartbeat_at=None, host="",
                    message=f"queued again: host {measurement.host or '?'} stopped responding"):
                _enqueue(measurement.pk)
                requeued.append(measurement)
    return requeued


def _enqueue(measurement_id: int) -> None:
    def send() -> None:
        result = measure_for_epoch_job.enqueue(measurement_id)
        EpochMeasurement.objects.filter(pk=measurement_id).update(job_id=str(result.id)[:64])

    transaction.on_commit(send)


WAITING_FOR_HOST = "waiting_for_a_candidate_host"


@task(queue_name=QUEUE)
def measure_for_epoch_job(measurement_id: int) -> str:
    """Measure one entry under the candidate, on a host that runs it. Returns the outcome. A
    host on another engine (one left running after an earlier switch, say) leaves the
    measurement waiting and queues it again, later, for a host that runs the candidate."""
    waiting = EpochMeasurement.objects.select_related("epoch").filter(pk=measurement_id,
                                                                      outcome=Outcome.PENDING).first()
    if waiting is not None and waiting.epoch.engine != THIS_ENGINE and settings.TASKS_BACKEND == "database":
        result = measure_for_epoch_job.using(
            run_after=timezone.now() + timedelta(seconds=settings.SCORING_SANDBOX_RETRY_MAX_SECONDS)
        ).enqueue(measurement_id)
        EpochMeasurement.objects.filter(pk=measurement_id, outcome=Outcome.PENDING).update(
            job_id=str(result.id)[:64],
            message=f"waiting for a host on the candidate's engine (host {socket.gethostname()[:100]} runs "
                    f"{label(THIS_ENGINE)})")
        return WAITING_FOR_HOST
    measurement = run_measurement(measurement_id)
    return measurement.outcome if measurement is not None else "dropped"


def run_measurement(measurement_id: int, progress: ScoringProgress | None = None) -> EpochMeasurement | None:
    """Measure the entry under this process's engine, which must be the candidate's. Never
    changes the entry. None when the measurement is gone (its candidate was dropped)."""
    host = socket.gethostname()[:255]
    claimed = _of_the_candidate().filter(pk=measurement_id, outcome=Outcome.PENDING).update(
        outcome=Outcome.RUNNING, claimed_at=timezone.now(), heartbeat_at=None, host=host)
    measurement = (EpochMeasurement.objects.select_related("epoch", "submission__version__case")
                   .filter(pk=measurement_id).first())
    if not claimed or measurement is None:
        return measurement  # done, taken by another worker, or its candidate was dropped
    with heartbeat(EpochMeasurement.objects.filter(pk=measurement.pk, outcome=Outcome.RUNNING,
                                                   claimed_at=measurement.claimed_at), f"measurement {measurement.pk}"):
        return _measure(measurement, progress)


def _measure(measurement: EpochMeasurement, progress: ScoringProgress | None) -> EpochMeasurement:
    submission = measurement.submission
    if measurement.epoch.engine != THIS_ENGINE:
        return _failed(measurement, f"not measured: host {measurement.host} runs {label(THIS_ENGINE)}, "
                                    f"not the candidate's engine")
    try:
        measured = measure(submission.version, submission.source_kind, bytes(submission.source),
                           progress or ScoringProgress())
    except Exception as exc:  # the scorer failed: staff see why; prepare queues it again
        logger.exception("measuring submission %s under %s failed", submission.pk, measurement.epoch)
        return _failed(measurement, "not measured: the scorer failed", f"{type(exc).__name__}: {exc}")
    measurement.module_digest = measured.module_digest
    # A rebuild that failed, or gave another module, measured something else than the entry: its
    # figures are reported and never given to the entry. None: neither time gave a module.
    if submission.module_digest or measured.module_digest:
        measurement.module_identical = measured.module_digest == submission.module_digest
    else:
        measurement.module_identical = None
    measurement.status, measurement.message = measured.state, storable(measured.message)[:500]
    measurement.detail = storable(measured.detail)
    measurement.input_count = submission.input_count
    if measured.evaluation is not None:
        evaluation = measured.evaluation
        measurement.passed, measurement.total_fuel = evaluation.passed, evaluation.total_fuel
        measurement.overshoot, measurement.passed_count = evaluation.overshoot, evaluation.passed_count
        measurement.inputs = [{**result_fields(item, outcome), "message": storable(outcome.message),
                               "detail": storable(outcome.detail)}
                              for item, outcome in zip(evaluation.held_out, evaluation.outcomes)]
    else:
        measurement.passed, measurement.total_fuel, measurement.overshoot, measurement.passed_count = False, None, 0, 0
        measurement.inputs = []
    measurement.outcome = Outcome.MEASURED
    return _store(measurement)


def _failed(measurement: EpochMeasurement, message: str, detail: str = "") -> EpochMeasurement:
    measurement.outcome, measurement.message, measurement.detail = Outcome.FAILED, message[:500], storable(detail)
    return _store(measurement)


STORED = ("outcome", "status", "passed", "total_fuel", "overshoot", "passed_count", "input_count", "inputs",
          "module_digest", "module_identical", "message", "detail", "host", "measured_at")


def _store(measurement: EpochMeasurement) -> EpochMeasurement:
    """Write what was measured onto the row this host claimed, if it is still that: a candidate
    dropped or switched meanwhile, or a claim given up on (`prepare` again), keeps what it has."""
    measurement.measured_at = timezone.now()
    _of_the_candidate().filter(pk=measurement.pk, outcome=Outcome.RUNNING, claimed_at=measurement.claimed_at).update(
        **{name: getattr(measurement, name) for name in STORED})
    return measurement
