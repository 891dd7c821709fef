"""Keeping standings, summaries and best fuel current as submissions are scored, hidden, shown or deleted."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from django.db import models, transaction
from django.db.models import Case, Q, Value, When

from catalog.models import CaseVersion
from lib.locking import lock_rows
from scoring.boards import records as records_module
from scoring.boards.places import (
    ALL_VARIANTS,
    RANKED,
    board_place,
    engine_label,
    variant_key,
)
from scoring.locking import board_summary, lock_entries
from scoring.models import Standing, Submission
from sitecache.models import BEST_FUEL, STANDINGS, Generation, version_generation


def _count(counts: dict, engine: str, change: int) -> dict:
    updated = Counter(counts or {})
    updated[engine] += change
    return {name: value for name, value in updated.items() if value > 0}


class _Changes:
    """What one transaction changed on the boards: summaries to save, versions to announce."""

    def __init__(self):
        self.summaries: dict[tuple[int, int], object] = {}
        self.versions: set[int] = set()
        self.best_fuel_changed: set[int] = set()

    def summary(self, version_id: int, key: int):
        if (version_id, key) not in self.summaries:
            self.summaries[(version_id, key)] = board_summary(version_id, key)
        return self.summaries[(version_id, key)]

    def submission_moved(self, version_id: int, variant_id: int, engine: str, change: int) -> None:
        for key in (variant_id, ALL_VARIANTS):
            summary = self.summary(version_id, key)
            summary.submissions += change
            summary.submission_engines = _count(summary.submission_engines, engine, change)
        self.versions.add(version_id)

    def save(self) -> None:

        for summary in self.summaries.values():
            summary.save()
        for version_id in self.versions:
            best = (Standing.objects.filter(version_id=version_id, variant_key=ALL_VARIANTS, board_group=RANKED)
                    .order_by("board_key").values_list("board_key", flat=True).first())
            reference = (Submission.objects.filter(version_id=version_id, is_reference=True, board_group=RANKED)
                         .values_list("total_fuel", flat=True).first())
            current = CaseVersion.objects.filter(pk=version_id).values_list("best_fuel", "reference_fuel").first()
            if current is not None and current != (best, reference):
                CaseVersion.objects.filter(pk=version_id).update(best_fuel=best, reference_fuel=reference)
                self.best_fuel_changed.add(version_id)
            overall = self.summaries.get((version_id, ALL_VARIANTS))
            if overall is not None and CaseVersion.objects.filter(pk=version_id).exclude(
                    entry_count=overall.entries).update(entry_count=overall.entries):
                self.best_fuel_changed.add(version_id)  # the case list shows both figures
        _announce(self.versions, self.best_fuel_changed)


def refresh_reference_fuel(version_ids: Iterable[int] | None) -> set[int]:
    """Set each version's `reference_fuel`: its reference entry's total fuel while that entry is
    ranked, else NULL (None: every version). Returns the versions whose figure changed."""
    versions = CaseVersion.objects.all()
    if version_ids is not None:
        versions = versions.filter(pk__in=list(version_ids))
    fuel = dict(Submission.objects.filter(is_reference=True, board_group=RANKED, version__in=versions)
                .values_list("version_id", "total_fuel"))
    changed = set()
    for version_id, current in versions.values_list("pk", "reference_fuel"):
        if fuel.get(version_id) != current:
            CaseVersion.objects.filter(pk=version_id).update(reference_fuel=fuel.get(version_id))
            changed.add(version_id)
    return changed


def announce_versions(version_ids: set[int], *, best_fuel: bool = False) -> None:
    """Something every page of these versions' boards shows changed (an annotation); the
    catalog-wide standings, which show it too, are recomputed when they count the version. With
    `best_fuel`, their best fuel may have changed too (the case list shows it)."""
    _announce(set(version_ids), set(version_ids) if best_fuel else set())


def _announce(version_ids: set[int], best_fuel_changed: set[int]) -> None:
    """Bump the page generations of the versions whose boards changed."""

    names = []
    latest = Q(latest_any=True) | Q(latest_public=True)  # "latest" under either experimental setting
    for slug, version, is_latest, is_counted in CaseVersion.objects.filter(pk__in=version_ids).annotate(
        is_latest=Case(When(latest, then=Value(True)), default=Value(False), output_field=models.BooleanField())
    ).values_list("case__slug", "version", "is_latest", "latest_public"):
        names.append(version_generation(slug, version))
        if is_latest:
            names.append(version_generation(slug, None))
        if is_counted:  # the catalog-wide standings count the latest public versions
            names.append(STANDINGS)
    if CaseVersion.objects.filter(latest, pk__in=best_fuel_changed).exists():
        names.append(BEST_FUEL)
    if names:
        Generation.bump(*names)


def _refresh_standing(changes: _Changes, version_id: int, variant_id: int | None, name: str) -> None:
    """Make the standing of (version, variant or every variant, name) its best board entry."""

    candidates = Submission.objects.filter(version_id=version_id, name=name, board_group__isnull=False)
    if variant_id is not None:
        candidates = candidates.filter(variant_id=variant_id)
    best = candidates.in_board_order().values(
        "pk", "board_group", "board_key", "submitted_at", "wasmtime_version", "engine_digest", "model").first()
    current = next(iter(lock_rows(Standing.objects.filter(
        version_id=version_id, variant_key=variant_key(variant_id), name=name))[0]), None)
    if current is None and best is None:
        return
    summary = changes.summary(version_id, variant_key(variant_id))
    changes.versions.add(version_id)
    if best is None:
        summary.entries -= 1
        summary.entry_engines = _count(summary.entry_engines, current.engine, -1)
        current.delete()
        return
    engine = engine_label(best["wasmtime_version"], best["engine_digest"])
    fields = {"submission_id": best["pk"], "board_group": best["board_group"], "board_key": best["board_key"],
              "submitted_at": best["submitted_at"], "engine": engine, "model": best["model"]}
    if current is None:
        Standing.objects.create(version_id=version_id, variant_key=variant_key(variant_id), name=name, **fields)
        summary.entries += 1
        summary.entry_engines = _count(summary.entry_engines, engine, 1)
        return
    if any(getattr(current, field) != value for field, value in fields.items()):
        if current.engine != engine:
            summary.entry_engines = _count(_count(summary.entry_engines, current.engine, -1), engine, 1)
        for field, value in fields.items():
            setattr(current, field, value)
        current.save()


def update_boards(pks: Iterable[int]) -> None:
    """Bring these submissions' board places, and the standings they touch, up to date.

    Call after changing anything a board depends on (status, results, hidden), in the same
    transaction, having locked them (`scoring.locking.lock_entries`) before changing them.
    """

    pks = list(pks)
    if not pks:
        return
    with transaction.atomic():
        changes = _Changes()
        keys = set()
        # Each board's summary row is its lock: taken first, in version order, so two writers on
        # one version (workers, score_many's threads) take turns to compare with its last record;
        # then the entries (held already where the caller changed them: the house's order).
        lock_entries(pks)
        rows = list(Submission.objects.filter(pk__in=pks).order_by("pk").values(
            "pk", "version_id", "variant_id", "name", "status", "hidden", "passed", "total_fuel", "passed_count",
            "board_group", "board_key", "wasmtime_version", "engine_digest", "excluded", "scored_at", "submitted_at"))
        for version_id in sorted({row["version_id"] for row in rows}):
            changes.summary(version_id, ALL_VARIANTS)
        records = records_module.Changes()
        for row in rows:
            group, key = board_place(status=row["status"], hidden=row["hidden"], passed=row["passed"],
                                     total_fuel=row["total_fuel"], passed_count=row["passed_count"],
                                     final_states=Submission.FINAL_STATES, excluded=row["excluded"])
            if (group, key) == (row["board_group"], row["board_key"]):
                continue
            Submission.objects.filter(pk=row["pk"]).update(board_group=group, board_key=key)
            records.moved(row, group)
            engine = engine_label(row["wasmtime_version"], row["engine_digest"])
            if (group is None) != (row["board_group"] is None):
                changes.submission_moved(row["version_id"], row["variant_id"], engine, 1 if group is not None else -1)
            changes.versions.add(row["version_id"])
            keys.add((row["version_id"], row["variant_id"], row["name"]))
        for version_id, variant_id, name in sorted(keys):
            _refresh_standing(changes, version_id, variant_id, name)
            _refresh_standing(changes, version_id, None, name)
        records.save()
        changes.save()


def forget_submission(submission) -> None:
    """A submission was deleted: take it off the boards (call from post_delete)."""
    with transaction.atomic():
        changes = _Changes()
        changes.summary(submission.version_id, ALL_VARIANTS)  # the board's lock (see update_boards)
        if submission.board_group is not None:
            engine = engine_label(submission.wasmtime_version, submission.engine_digest)
            changes.submission_moved(submission.version_id, submission.variant_id, engine, -1)
        _refresh_standing(changes, submission.version_id, submission.variant_id, submission.name)
        _refresh_standing(changes, submission.version_id, None, submission.name)
        changes.versions.add(submission.version_id)
        # A record gone (its steps went with it): the records after it may change.
        if getattr(submission, "_was_record", submission.board_group == RANKED):
            records_module.rebuild([submission.version_id])
        changes.save()


def set_hidden(submissions, hidden: bool) -> int:
    """Take these submissions, and their carried copies, off the leaderboards (or put them back);
    standings and cached pages follow in the same transaction. Returns how many of these (copies
    not counted) changed."""
    with transaction.atomic():
        pks = list(submissions.values_list("pk", flat=True))
        everything = list(Submission.objects.filter(pk__in=pks).with_carried_copies().values_list("pk", flat=True))
        lock_entries(everything)  # every board they are on first, then the entries
        count = Submission.objects.filter(pk__in=pks).update(hidden=hidden)
        Submission.objects.filter(pk__in=everything).update(hidden=hidden)
        update_boards(everything)
    return count
