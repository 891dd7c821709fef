"""A candidate's report (step 3 of scoring/epochs/__init__.py), and a board read as an epoch counted it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from scoring.boards.places import board_place, engine_label
from scoring.epochs.engines import current_epoch, to_measure
from scoring.models import Epoch, EpochMeasurement, Submission

State, Outcome = Epoch.State, EpochMeasurement.Outcome


@dataclass
class Row:
    """One entry in a report: its own figures and, when measured, the candidate's."""

    submission: Submission
    measurement: EpochMeasurement | None
    flags: list[str]
    moved: int = 0  # 1 once the switch gave it the candidate's figures, and they differ from its own

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
    versions = {row.submission.version_id: row.submission.version for row in found}
    befores, afters = report_boards(found, applied=False), report_boards(found, applied=True)
    board_lines = [{"case": versions[version_id].case.slug, "version": versions[version_id].version,
                    "changed": before != afters[version_id],
                    "before": [{"id": pk, "group": group} for pk, group in before],
                    "after": [{"id": pk, "group": group} for pk, group in afters[version_id]]}
                   for version_id, before in befores.items()]
    counts = {"entries": len(found), **{name: 0 for name in (
        "measured", "waiting", "failed", "not_queued", "not_measured", "scored_again", "not_rebuilt_identically",
        "status_changed", "fuel_changed", "flagged", "kept_as_before")}}
    for row in found:
        outcome = row.measurement.outcome if row.measurement else None
        counts[{Outcome.MEASURED: "measured", Outcome.FAILED: "failed", None: "not_queued"}.get(
            outcome, "waiting")] += 1
        for flag in row.flags:
            counts[flag] += 1
        counts["flagged"] += bool(row.flags)
        counts["kept_as_before"] += not row.applies
    return {
        "epoch": epoch_json(epoch), "current": epoch_json(current) if current else None,
        # Nothing still queued or running: the switch may be made (what is not measured keeps its figures).
        "complete": counts["waiting"] == 0,
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


def epoch_json(epoch: Epoch) -> dict:
    return {"id": epoch.pk, "wasmtime": epoch.wasmtime_version, "engine_digest": epoch.engine_digest,
            "state": epoch.state, "prepared_at": epoch.prepared_at.isoformat(),
            "switched_at": epoch.switched_at.isoformat() if epoch.switched_at else None,
            "ended_at": epoch.ended_at.isoformat() if epoch.ended_at else None}


def report_boards(found: list[Row], *, applied: bool) -> dict[int, list]:
    """Each board's order (version id → (entry id, group) in board order): as the entries stand, or
    with the candidate's figures where the switch gives them."""
    boards: dict[int, list] = {}
    for row in found:
        source = row.measurement if applied and row.applies else row.submission
        boards.setdefault(row.submission.version_id, []).append(
            (row.submission, {**_figures(source), "passed_count": source.passed_count}))
    return {version_id: _order(entries) for version_id, entries in boards.items()}


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
