"""The switch to a candidate, and giving one up (step 4 of scoring/epochs/__init__.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import announce_versions
from scoring.epochs.engines import (
    THIS_ENGINE,
    EpochError,
    candidate_epoch,
    current_epoch,
    forget_site_engine,
    label,
    to_measure,
)
from scoring.epochs.reports import report_boards, rows
from scoring.locking import lock_entries
from scoring.measuring import RESULT_FIELDS
from scoring.models import Epoch, EpochMeasurement, Result, Submission

State, Outcome = Epoch.State, EpochMeasurement.Outcome
FIGURES = ("status", "passed", "total_fuel", "overshoot", "passed_count", "input_count")


def switch(epoch: Epoch | None = None) -> Epoch:
    """Move the site to the candidate: refused unless this process runs its engine and no
    measurement of it is still queued or running. Every entry the candidate measured, for the
    attempt it shows and from its own module, takes the candidate's figures; any other (finished
    after the candidate was prepared, scored again since, failed to measure, rebuilt to another
    module) keeps its own, marked on its board as counted by the engine before. Returns the new
    current epoch."""
    candidate = epoch or candidate_epoch()
    if candidate is None or candidate.state != State.CANDIDATE:
        raise EpochError("there is no candidate epoch to switch to: prepare one first (`manage.py epoch prepare` "
                         "on a host that runs it)")
    if candidate.engine != THIS_ENGINE:
        raise EpochError(f"this host runs {label(THIS_ENGINE)}, not the candidate's {label(candidate.engine)}: "
                         f"switch from a host already on the candidate's pins (docs/epochs.md)")
    with transaction.atomic():
        ids = list(to_measure().values_list("pk", flat=True))
        lock_entries(ids)  # every board touched, then the entries: nothing is scored meanwhile
        found = rows(candidate)  # read under the locks
        waiting = candidate.measurements.filter(outcome__in=[Outcome.PENDING, Outcome.RUNNING]).count()
        if waiting:
            raise EpochError(f"{waiting} measurement{'' if waiting == 1 else 's'} of the candidate "
                             f"{'is' if waiting == 1 else 'are'} still queued or running: let the candidate's "
                             f"workers finish (`manage.py epoch status` names each; one whose host died is queued "
                             f"again by `requeue_stale_jobs`), then switch")
        previous = current_epoch()
        now = timezone.now()
        for row in found:
            results = list(Result.objects.filter(submission=row.submission).order_by("position")
                           .values(*RESULT_FIELDS))
            if previous is not None and _measured_by(row.submission, previous):
                _keep(previous, row.submission, results, now)
            if row.applies:
                row.moved = _apply(row.submission, row.measurement, results)
        # What the candidate measured and the switch did not give its entry (another module, an
        # earlier attempt, an entry hidden or retired since) is no figure the new epoch counted.
        candidate.measurements.exclude(submission_id__in=[row.submission.pk for row in found if row.applies]).delete()
        version_ids = sorted({row.submission.version_id for row in found})
        # What the changes page says counts only what the public sees (no experimental version).
        shown = [row for row in found if not row.submission.version.experimental]
        before, after = report_boards(shown, applied=False), report_boards(shown, applied=True)
        reordered = sum(before[version_id] != after[version_id] for version_id in before)
        moved = sum(row.moved for row in shown)
        kept_old = sum(not row.applies for row in shown)
        rebuild(version_ids)
        announce_versions(set(version_ids), best_fuel=True)
        if previous is not None:
            Epoch.objects.filter(pk=previous.pk, state=State.CURRENT).update(state=State.PAST, ended_at=now)
        remeasured = len(shown) - kept_old
        summary = (f"{remeasured} entr{'y' if remeasured == 1 else 'ies'} measured again: fuel or status moved for "
                   f"{moved}, {reordered} board{'' if reordered == 1 else 's'} reordered"
                   + (f"; {kept_old} kept as counted before (marked †)" if kept_old else ""))
        if not Epoch.objects.filter(pk=candidate.pk, state=State.CANDIDATE).update(
                state=State.CURRENT, switched_at=now, summary=summary):
            raise EpochError("the candidate was switched or dropped meanwhile")
    forget_site_engine()
    candidate.refresh_from_db()
    return candidate


def _measured_by(submission: Submission, epoch: Epoch) -> bool:
    """Whether `epoch`'s engine measured the entry (one measured before engine configurations were
    recorded: by its release)."""
    if not submission.engine_digest:
        return submission.wasmtime_version == epoch.wasmtime_version
    return (submission.wasmtime_version, submission.engine_digest) == epoch.engine


def _keep(epoch: Epoch, submission: Submission, results: list[dict], now) -> None:
    """The entry's own figures and `results`, kept as what `epoch` measured, once: only for an
    entry `epoch`'s engine measured (one kept as counted by an engine before it has nothing of
    `epoch`'s to keep)."""
    EpochMeasurement.objects.update_or_create(
        epoch=epoch, submission=submission,
        defaults={"outcome": Outcome.MEASURED, **{name: getattr(submission, name) for name in FIGURES},
                  "inputs": results, "module_digest": submission.module_digest, "module_identical": True,
                  "message": submission.message[:500], "attempt": submission.attempt,
                  "measured_at": submission.scored_at or now})


def _apply(submission: Submission, measurement: EpochMeasurement, results: list[dict]) -> int:
    """Give the entry the candidate's figures and results (in place of its own `results`). Returns 1
    when they differ from its own."""
    differs = int(any(getattr(measurement, name) != getattr(submission, name) for name in FIGURES)
                  or [row.get("fuel") for row in measurement.inputs] != [row["fuel"] for row in results])
    Result.objects.filter(submission=submission).delete()
    Result.objects.bulk_create([Result(submission=submission, position=position, **{
        name: value for name, value in row.items() if name in RESULT_FIELDS}) for position, row in
        enumerate(measurement.inputs)])
    update = {name: getattr(measurement, name) for name in FIGURES if name != "input_count"}
    if measurement.status != Submission.State.SCORED:
        update["message"] = measurement.message
    # A re-measurement vouched for the figures another engine counted, not for these.
    update.update(verification="", verified_at=None, verification_message="")
    Submission.objects.filter(pk=submission.pk).update(
        wasmtime_version=measurement.epoch.wasmtime_version, engine_digest=measurement.epoch.engine_digest, **update)
    return differs


def drop() -> Epoch:
    """Give up the candidate (its measurements go with it)."""
    candidate = candidate_epoch()
    if candidate is None:
        raise EpochError("there is no candidate epoch to drop")
    with transaction.atomic():  # a switch that committed first keeps what the epoch measured
        if not Epoch.objects.filter(pk=candidate.pk, state=State.CANDIDATE).update(state=State.DROPPED,
                                                                                 ended_at=timezone.now()):
            raise EpochError("the candidate was switched or dropped meanwhile")
        jobs = [job for job in candidate.measurements.values_list("job_id", flat=True) if job]
        candidate.measurements.all().delete()
        _forget_jobs(jobs)
    candidate.refresh_from_db()
    return candidate


def _forget_jobs(job_ids: list[str]) -> None:
    """The dropped candidate's jobs still waiting in the queue go with it (one already running
    finds its measurement gone and ends quietly)."""
    if not job_ids or settings.TASKS_BACKEND != "database":
        return
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(id__in=job_ids, status="READY").delete()
