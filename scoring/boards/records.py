"""The record progression of a board: every entry that, when it was scored, used less fuel than
every passing entry scored before it, per version and variant (and over every variant).

Kept as `RecordStep` rows. A new passing entry scored after the last step only ever appends one
(or nothing); anything else that can change the past (a step hidden, excluded, rescored or
deleted, an older entry shown again) rebuilds the version's steps from its ranked submissions in
the same transaction, with one INSERT … SELECT. So the steps always equal what the submissions
say, which `rebuild()` recomputes from scratch.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from django.db import connection

from scoring import models as scoring_models
from scoring.boards.places import ALL_VARIANTS, RANKED
from scoring.models import RecordStep
from scoring.signals import new_records


def _when(row: dict):
    return row["scored_at"] or row["submitted_at"]


class Changes:
    """What one transaction's board moves do to the record steps: steps to append, versions to rebuild."""

    def __init__(self):
        self.rebuild: set[int] = set()
        self.appends: list[tuple[int, int, dict]] = []  # (version, variant key, submission row)

    def moved(self, row: dict, group: int | None) -> None:
        """A submission's board group changed from `row["board_group"]` to `group`."""
        version_id = row["version_id"]
        if version_id in self.rebuild:
            return
        if RecordStep.objects.filter(version_id=version_id, submission_id=row["pk"]).exists():
            self.rebuild.add(version_id)  # a step left (or changed): the steps after it may differ
            return
        if group != RANKED:
            return
        for variant_key in (row["variant_id"], ALL_VARIANTS):
            last = (RecordStep.objects.filter(version_id=version_id, variant_key=variant_key)
                    .order_by("-scored_at", "-submission_id").values("scored_at", "submission_id",
                                                                     "total_fuel").first())
            if last is not None and (_when(row), row["pk"]) < (last["scored_at"], last["submission_id"]):
                self.rebuild.add(version_id)  # an older entry came back: it may be a record in the past
                return
            if last is None or row["total_fuel"] < last["total_fuel"]:
                self.appends.append((version_id, variant_key, row))

    def save(self) -> None:
        # Two new steps on one board in one go: each was checked against the stored steps only.
        per_board = Counter((version_id, variant_key) for version_id, variant_key, _ in self.appends)
        self.rebuild.update(version_id for (version_id, _), count in per_board.items() if count > 1)
        appended = [(version_id, variant_key, row) for version_id, variant_key, row in self.appends
                    if version_id not in self.rebuild]
        RecordStep.objects.bulk_create([
            RecordStep(version_id=version_id, variant_key=variant_key, submission_id=row["pk"],
                       scored_at=_when(row), total_fuel=row["total_fuel"])
            for version_id, variant_key, row in appended
        ])
        if self.rebuild:
            rebuild(self.rebuild)
        records = [row["pk"] for _, variant_key, row in appended if variant_key == ALL_VARIANTS]
        if records:
            new_records.send(sender=Changes, submission_ids=records)


def version_filter(version_ids: Iterable[int] | None) -> tuple[str, list]:
    """An SQL condition (" AND …") keeping these versions' rows (None: every version), and its parameters."""
    if version_ids is None:
        return "", []
    ids = sorted(version_ids)
    return f" AND version_id IN ({', '.join(['%s'] * len(ids))})", ids


def rebuild(version_ids: Iterable[int] | None = None, *, models_module=None) -> int:
    """Recompute the steps of these versions (None: every version) from their ranked submissions
    (`models_module`: a migration's historical models; by default the app's)."""
    models_module = models_module or scoring_models
    Submission, Step = models_module.Submission, models_module.RecordStep
    if version_ids is not None:
        version_ids = sorted(version_ids)
        if not version_ids:
            return 0
    in_versions, parameters = version_filter(version_ids)
    where = f"board_group = {RANKED}" + in_versions
    Step.objects.filter(**({} if version_ids is None else {"version_id__in": version_ids})).delete()
    submission, step = Submission._meta.db_table, Step._meta.db_table
    written = 0
    for partition, variant in (("version_id, variant_id", "variant_id"), ("version_id", "0")):
        sql = f"""
            INSERT INTO {step} (version_id, variant_key, submission_id, scored_at, total_fuel)
            SELECT version_id, {variant}, id, moment, total_fuel FROM (
                SELECT version_id, variant_id, id, COALESCE(scored_at, submitted_at) AS moment, total_fuel,
                       MIN(total_fuel) OVER (PARTITION BY {partition} ORDER BY COALESCE(scored_at, submitted_at), id
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
                FROM {submission} WHERE {where}
            ) AS timeline WHERE before IS NULL OR total_fuel < before
        """
        with connection.cursor() as cursor:
            cursor.execute(sql, parameters)
            written += cursor.rowcount
    return written
