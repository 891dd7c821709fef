"""The switch to a candidate, and giving one up (step 4 of scoring/epochs/__init__.py)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import announce_versions
from scoring.epochs.engines import THIS_ENGINE, EpochError, candidate_epoch, current_epoch, label
from scoring.epochs.reports import report_boards, rows
from scoring.locking import lock_entries
from scoring.models import Epoch, EpochMeasurement, Result, Submission

State, Outcome = Epoch.State, EpochMeasurement.Outcome
# Per input, what an entry's results keep (Result's columns), under an epoch.
INPUT_FIELDS = ("kind", "input_path", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "message", "detail",
                "wall_ms", "output_size", "answer_digest")
FIGURES = ("status", "passed", "total_fuel", "overshoot", "passed_count", "input_count")


def switch(epoch: Epoch | None = None) -> Epoch:
    """Move the site to the candidate: refused unless this process runs its engine and every
    entry has been measured under it for the attempt it shows. Returns the new current epoch."""
    candidate = epoch or candidate_epoch()
    if candidate is None or candidate.state != State.CANDIDATE:
        raise EpochError("there is no candidate epoch to switch to: prepare one first (`manage.py epoch prepare` "
                         "on a host that runs it)")
    if candidate.engine != THIS_ENGINE:
        raise EpochError(f"this host runs {label(THIS_ENGINE)}, not the candidate's {label(candidate.engine)}: "
                         f"switch from a host already on the candidate's pins (docs/epochs.md)")
    with transaction.atomic():
        found = rows(candidate)
        ids = [row.submission.pk for row in found]
        lock_entries(ids)  # every board touched, then the entries: nothing is scored meanwhile
        found = rows(candidate)  # read again under the locks
        waiting = [row for row in found if "not_measured" in row.flags or "scored_again" in row.flags]
        if waiting:
            raise EpochError(f"{len(waiting)} entr{'y is' if len(waiting) == 1 else 'ies are'} not measured under "
                             f"the candidate for what {'it' if len(waiting) == 1 else 'they'} show now (first: "
                             f"#{waiting[0].submission.pk}): run `manage.py epoch prepare` on the candidate host "
                             f"again, let it finish, then switch")
        previous = current_epoch()
        now = timezone.now()
        moved = 0
        for row in found:
            if previous is not None:
                _keep(previous, row.submission, now)
            if row.applies:
                moved += _apply(row.submission, row.measurement)
        version_ids = sorted({row.submission.version_id for row in found})
        before = report_boards(found, applied=False)
        after = report_boards(found, applied=True)
        reordered = sum(before[version_id] != after[version_id] for version_id in version_ids)
        kept_old = sum(not row.applies for row in found)
        rebuild(version_ids)
        announce_versions(set(version_ids), best_fuel=True)
        if previous is not None:
            Epoch.objects.filter(pk=previous.pk, state=State.CURRENT).update(state=State.PAST, ended_at=now)
        summary = (f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} measured again: fuel or status moved for "
                   f"{moved}, {reordered} board{'' if reordered == 1 else 's'} reordered"
                   + (f", {kept_old} kept as counted before (rebuilt to another module)" if kept_old else ""))
        if not Epoch.objects.filter(pk=candidate.pk, state=State.CANDIDATE).update(
                state=State.CURRENT, switched_at=now, summary=summary):
            raise EpochError("the candidate was switched or dropped meanwhile")
    candidate.refresh_from_db()
    return candidate


def _keep(epoch: Epoch, submission: Submission, now) -> None:
    """The entry's own figures (and results), kept as what `epoch` measured, once."""
    results = list(Result.objects.filter(submission=submission).order_by("position").values(*INPUT_FIELDS))
    EpochMeasurement.objects.update_or_create(
        epoch=epoch, submission=submission,
        defaults={"outcome": Outcome.MEASURED, **{name: getattr(submission, name) for name in FIGURES},
                  "inputs": results, "module_digest": submission.module_digest, "module_identical": True,
                  "message": submission.message[:500], "attempt": submission.attempt,
                  "measured_at": submission.scored_at or now})


def _apply(submission: Submission, measurement: EpochMeasurement) -> int:
    """Give the entry the candidate's figures and results. Returns 1 when they differ from its own."""
    differs = int(any(getattr(measurement, name) != getattr(submission, name) for name in FIGURES)
                  or [row.get("fuel") for row in measurement.inputs] != list(
                      Result.objects.filter(submission=submission).order_by("position").values_list("fuel", flat=True)))
    Result.objects.filter(submission=submission).delete()
    Result.objects.bulk_create([Result(submission=submission, position=position, **{
        name: value for name, value in row.items() if name in INPUT_FIELDS}) for position, row in
        enumerate(measurement.inputs)])
    update = {name: getattr(measurement, name) for name in FIGURES if name != "input_count"}
    if measurement.status != Submission.State.SCORED:
        update["message"] = measurement.message
    Submission.objects.filter(pk=submission.pk).update(
        wasmtime_version=measurement.epoch.wasmtime_version, engine_digest=measurement.epoch.engine_digest, **update)
    return differs


def drop() -> Epoch:
    """Give up the candidate (its measurements go with it)."""
    candidate = candidate_epoch()
    if candidate is None:
        raise EpochError("there is no candidate epoch to drop")
    Epoch.objects.filter(pk=candidate.pk, state=State.CANDIDATE).update(state=State.DROPPED, ended_at=timezone.now())
    candidate.measurements.all().delete()
    candidate.refresh_from_db()
    return candidate
