"""Measurement epochs (docs/epochs.md): moving the site to another engine only once every entry
has been measured under it, and keeping what each entry measured under the engine before.

Fuel is exact for one module under one wasmtime release and one engine configuration. An upgrade
goes in four steps:

1. A host running the candidate engine (scripts/worker.sh with CANDIDATE_WASMTIME) runs
   `manage.py epoch prepare`: the candidate epoch is recorded and every entry on a board of a
   current (not retired) version — ranked or not, references and examples among them — is
   queued for a measurement under it (the `epoch` queue, which only candidate hosts take).
2. Each measurement rebuilds the entry from its stored source (or takes its stored module) and
   runs every held-out input, storing nothing on the entry itself.
3. `report()` sets each entry's figures under the candidate beside its own, and each board's
   order under both: an entry whose rebuild gave another module, or whose status or fuel moved,
   is flagged; a board whose order moved says so.
4. `switch()`, run on a host already on the candidate engine: in one transaction every measured
   entry's own figures are kept as the old epoch's measurement and replaced by the candidate's,
   the boards are rebuilt, and the candidate becomes the current epoch (a line on /changes/).

Retired versions are not measured again: their boards stay as they were counted when they were
frozen, and their published data lets anyone measure them under any engine.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.signals import post_migrate
from django.dispatch import receiver
from django.utils import timezone
from django_tasks import task

from engine.progress import ScoringProgress
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from lib.text import storable
from scoring.boards.places import board_place, engine_label
from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import announce_versions
from scoring.locking import lock_entries
from scoring.measuring import measure
from scoring.models import Epoch, EpochMeasurement, Result, Submission

logger = logging.getLogger(__name__)
State, Outcome = Epoch.State, EpochMeasurement.Outcome
THIS_ENGINE = (WASMTIME_VERSION, ENGINE_DIGEST)
QUEUE = "epoch"
# Per input, what an entry's results keep (Result's columns), under an epoch.
INPUT_FIELDS = ("kind", "input_path", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "message", "detail",
                "wall_ms", "output_size", "answer_digest")
FIGURES = ("status", "passed", "total_fuel", "overshoot", "passed_count", "input_count")


class EpochError(Exception):
    """What staff asked for cannot be done; the message says why and what to do instead."""


def label(engine: tuple[str, str]) -> str:
    return f"wasmtime {engine[0]} ({engine[1]})"


def current_epoch() -> Epoch | None:
    return Epoch.objects.filter(state=State.CURRENT).first()


def candidate_epoch() -> Epoch | None:
    return Epoch.objects.filter(state=State.CANDIDATE).first()


def record_site_epoch() -> Epoch:
    """The current epoch; a site that has recorded none counts with this process's engine (the
    site's own hosts record it when they migrate: a candidate host never migrates)."""
    epoch = current_epoch()
    if epoch is not None:
        return epoch
    try:
        with transaction.atomic():
            return Epoch.objects.create(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
                                        state=State.CURRENT, switched_at=timezone.now())
    except IntegrityError:  # another process recorded it first
        return current_epoch()


@receiver(post_migrate, dispatch_uid="record-site-epoch")
def _record_after_migrate(sender, using="default", **kwargs) -> None:
    if sender.name == "scoring" and using == "default":
        record_site_epoch()


def refuse_other_engine(*, scoring: bool) -> None:
    """For a task worker at start: one that scores entries must run the engine the site counts with."""
    epoch = current_epoch()
    if scoring and epoch is not None and epoch.engine != THIS_ENGINE:
        raise EpochError(
            f"this worker runs {label(THIS_ENGINE)}, but the site counts fuel with {label(epoch.engine)}: "
            f"install the site's pins (requirements.txt), or run it as a candidate host "
            f"(`manage.py db_worker --queue-name {QUEUE}`: docs/epochs.md)")


def to_measure():
    """The entries a candidate measures: every finished entry on a board of a current version."""
    return Submission.objects.filter(status__in=Submission.FINAL_STATES, hidden=False,
                                     version__retired_at__isnull=True)


# --- 1. prepare ------------------------------------------------------------------------------

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
                candidate = Epoch.objects.create(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
                                                 state=State.CANDIDATE)
        except IntegrityError:
            return prepare(enqueue=enqueue)  # recorded meanwhile by another host: read it again
    queued = []
    with transaction.atomic():
        entries = dict(to_measure().values_list("pk", "attempt"))
        kept = {submission_id: (outcome, attempt) for submission_id, outcome, attempt in
                candidate.measurements.values_list("submission_id", "outcome", "attempt")}
        for submission_id, attempt in sorted(entries.items()):
            if submission_id in kept:
                outcome, measured_attempt = kept[submission_id]
                if outcome in (Outcome.PENDING, Outcome.RUNNING) or (
                        outcome == Outcome.MEASURED and measured_attempt == attempt):
                    continue
                candidate.measurements.filter(submission_id=submission_id).update(
                    outcome=Outcome.PENDING, attempt=attempt, message="", detail="", measured_at=None)
                measurement_id = candidate.measurements.get(submission_id=submission_id).pk
            else:
                measurement_id = EpochMeasurement.objects.create(epoch=candidate, submission_id=submission_id,
                                                                 attempt=attempt).pk
            queued.append(measurement_id)
            if enqueue:
                _enqueue(measurement_id)
    return candidate, queued


def _enqueue(measurement_id: int) -> None:
    def send() -> None:
        result = measure_for_epoch_job.enqueue(measurement_id)
        EpochMeasurement.objects.filter(pk=measurement_id).update(job_id=str(result.id)[:64])

    transaction.on_commit(send)


@task(queue_name=QUEUE)
def measure_for_epoch_job(measurement_id: int) -> str:
    """Measure one entry under the candidate, on a host that runs it. Returns the outcome."""
    return run_measurement(measurement_id).outcome


# --- 2. measure ------------------------------------------------------------------------------

def run_measurement(measurement_id: int, progress: ScoringProgress | None = None) -> EpochMeasurement:
    """Measure the entry under this process's engine, which must be the candidate's. Never
    changes the entry."""
    claimed = EpochMeasurement.objects.filter(pk=measurement_id, outcome=Outcome.PENDING,
                                              epoch__state=State.CANDIDATE).update(outcome=Outcome.RUNNING)
    measurement = EpochMeasurement.objects.select_related("epoch", "submission__version__case").get(pk=measurement_id)
    if not claimed:
        return measurement  # done, taken by another worker, or its candidate was dropped
    measurement.host = socket.gethostname()[:255]
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
        measurement.inputs = [
            {"kind": item.kind, "input_path": item.input_path, "status": outcome.status.value, "fuel": outcome.fuel,
             "fuel_limit": outcome.fuel_limit, "ceiling": outcome.ceiling, "overshoot": outcome.overshoot,
             "message": storable(outcome.message), "detail": storable(outcome.detail), "wall_ms": outcome.wall_ms,
             "output_size": outcome.output_size, "answer_digest": outcome.answer_digest}
            for item, outcome in zip(evaluation.held_out, evaluation.outcomes)]
    else:
        measurement.passed, measurement.total_fuel, measurement.overshoot, measurement.passed_count = False, None, 0, 0
        measurement.inputs = []
    measurement.outcome, measurement.measured_at = Outcome.MEASURED, timezone.now()
    measurement.save()
    return measurement


def _failed(measurement: EpochMeasurement, message: str, detail: str = "") -> EpochMeasurement:
    measurement.outcome, measurement.message, measurement.detail = Outcome.FAILED, message[:500], storable(detail)
    measurement.measured_at = timezone.now()
    measurement.save()
    return measurement


# --- 3. report -------------------------------------------------------------------------------

@dataclass
class Row:
    """One entry in a report: its own figures and, when measured, the candidate's."""

    submission: Submission
    measurement: EpochMeasurement | None
    flags: list[str]

    @property
    def applies(self) -> bool:
        """Whether the switch gives the entry the candidate's figures (it measured the entry's own
        module, for the attempt the entry shows)."""
        return "not_measured" not in self.flags and "scored_again" not in self.flags and (
            "not_rebuilt_identically" not in self.flags)


def _flags(submission: Submission, measurement: EpochMeasurement | None) -> list[str]:
    if measurement is None or measurement.outcome != Outcome.MEASURED:
        return ["not_measured"]
    flags = []
    if measurement.attempt != submission.attempt:
        flags.append("scored_again")
    if measurement.module_identical is False:
        flags.append("not_rebuilt_identically")
    if measurement.status != submission.status or measurement.passed != submission.passed:
        flags.append("status_changed")
    if measurement.total_fuel != submission.total_fuel:
        flags.append("fuel_changed")
    return flags


def rows(epoch: Epoch) -> list[Row]:
    measurements = {m.submission_id: m for m in epoch.measurements.all()}
    entries = to_measure().select_related("version__case").defer("source", "build_log").order_by(
        "version__case__slug", "version__ordinal", "pk")
    return [Row(entry, measurements.get(entry.pk), _flags(entry, measurements.get(entry.pk))) for entry in entries]


def _figures(submission: Submission) -> dict:
    return {"status": submission.status, "passed": submission.passed, "total_fuel": submission.total_fuel}


def _order(entries: list[tuple[Submission, dict]]) -> list[tuple[int, int]]:
    """(entry id, group) in board order, of the entries on the board with these figures."""
    placed = []
    for submission, figures in entries:
        group, key = board_place(status=figures["status"], hidden=submission.hidden, passed=figures["passed"],
                                 total_fuel=figures["total_fuel"], passed_count=figures.get("passed_count", 0),
                                 final_states=Submission.FINAL_STATES, excluded=submission.excluded)
        if group is not None:
            placed.append(((group, key, submission.submitted_at, submission.pk), (submission.pk, group)))
    return [item for _, item in sorted(placed, key=lambda pair: pair[0])]


def report(epoch: Epoch) -> dict:
    """The candidate's report: per entry, its figures now and under the candidate, and what is
    flagged; per board (a version's, over every variant), its order under both."""
    found = rows(epoch)
    current = current_epoch()
    boards: dict[int, list[Row]] = {}
    for row in found:
        boards.setdefault(row.submission.version_id, []).append(row)
    board_lines = []
    for version_rows in boards.values():
        version = version_rows[0].submission.version
        before = _order([(row.submission, {**_figures(row.submission), "passed_count": row.submission.passed_count})
                         for row in version_rows])
        after = _order([(row.submission, _after(row)) for row in version_rows])
        board_lines.append({"case": version.case.slug, "version": version.version, "changed": before != after,
                            "before": [{"id": pk, "group": group} for pk, group in before],
                            "after": [{"id": pk, "group": group} for pk, group in after]})
    counts = {"entries": len(found), **{name: 0 for name in (
        "measured", "pending", "failed", "not_measured", "scored_again", "not_rebuilt_identically",
        "status_changed", "fuel_changed", "flagged")}}
    for row in found:
        outcome = row.measurement.outcome if row.measurement else Outcome.PENDING
        counts["measured" if outcome == Outcome.MEASURED else "failed" if outcome == Outcome.FAILED
               else "pending"] += 1
        for flag in row.flags:
            counts[flag] += 1
        counts["flagged"] += bool(row.flags)
    return {
        "epoch": epoch_json(epoch), "current": epoch_json(current) if current else None,
        "complete": counts["not_measured"] == 0 and counts["scored_again"] == 0,
        "counts": counts, "boards_changed": sum(line["changed"] for line in board_lines),
        "entries": [{
            "id": row.submission.pk, "case": row.submission.version.case.slug,
            "version": row.submission.version.version, "name": row.submission.name,
            "now": {**_figures(row.submission), "engine": engine_label(row.submission.wasmtime_version,
                                                                      row.submission.engine_digest)},
            "candidate": None if row.measurement is None or row.measurement.outcome != Outcome.MEASURED else {
                **_figures(row.measurement), "module_identical": row.measurement.module_identical},
            "outcome": row.measurement.outcome if row.measurement else "not queued",
            "message": row.measurement.message if row.measurement else "",
            "flags": row.flags,
        } for row in found],
        "boards": board_lines,
    }


def _after(row: Row) -> dict:
    source = row.measurement if row.applies else row.submission
    return {**_figures(source), "passed_count": source.passed_count}


def epoch_json(epoch: Epoch) -> dict:
    return {"id": epoch.pk, "wasmtime": epoch.wasmtime_version, "engine_digest": epoch.engine_digest,
            "state": epoch.state, "prepared_at": epoch.prepared_at.isoformat(),
            "switched_at": epoch.switched_at.isoformat() if epoch.switched_at else None,
            "ended_at": epoch.ended_at.isoformat() if epoch.ended_at else None}


# --- 4. switch -------------------------------------------------------------------------------

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


def report_boards(found: list[Row], *, applied: bool) -> dict[int, list]:
    boards: dict[int, list] = {}
    for row in found:
        figures = _after(row) if applied else {**_figures(row.submission), "passed_count": row.submission.passed_count}
        boards.setdefault(row.submission.version_id, []).append((row.submission, figures))
    return {version_id: _order(entries) for version_id, entries in boards.items()}


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


# --- reading a board as an epoch counted it ----------------------------------------------------

def counted_by(epoch: Epoch, version) -> list[dict]:
    """The version's board (over every variant) with each entry's figures as `epoch` measured it,
    in board order: entries it did not measure are left out."""
    entries = []
    for measurement in (EpochMeasurement.objects.filter(epoch=epoch, submission__version=version,
                                                        outcome=Outcome.MEASURED)
                        .select_related("submission").defer("submission__source", "submission__build_log")):
        entries.append((measurement.submission, {**_figures(measurement), "passed_count": measurement.passed_count,
                                                 "measurement": measurement}))
    by_id = {submission.pk: figures for submission, figures in entries}
    submissions = {submission.pk: submission for submission, _ in entries}
    return [{"submission": submissions[pk], "group": group, **by_id[pk]} for pk, group in _order(entries)]


def epochs_of(version) -> list[Epoch]:
    """The epochs (past) a board can be read as counted by: those that measured an entry of it."""
    return list(Epoch.objects.filter(Q(state=State.PAST), measurements__submission__version=version).distinct()
                .order_by("-switched_at", "-pk"))


__all__ = ["EpochError", "candidate_epoch", "counted_by", "current_epoch", "drop", "prepare",
           "record_site_epoch", "report", "run_measurement", "switch"]
