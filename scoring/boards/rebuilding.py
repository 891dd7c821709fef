"""Recomputing every standing and summary from the submissions."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Iterable

from django.db import connection, transaction
from django.db.models import Count, Min

from catalog.models import CaseVersion
from scoring.boards import records
from scoring.boards.places import (
    ALL_VARIANTS,
    RANKED,
    board_place_expressions,
    engine_label,
)
from scoring.boards.updates import refresh_reference_fuel
from scoring.models import BoardSummary, RecordStep, Standing, Submission


def rebuild(version_ids: Iterable[int] | None = None, *, models_module=None) -> int:
    """Recompute board places, standings and summaries from the submissions; returns the
    number of standings written. `version_ids` None: every version.

    `models_module` is for the data migration, which passes its historical models.
    """
    models_module = models_module or SimpleNamespace(Submission=Submission, Standing=Standing,
                                                     BoardSummary=BoardSummary,
                                                     CaseVersion=CaseVersion, RecordStep=RecordStep)
    submission, standing, summary = models_module.Submission, models_module.Standing, models_module.BoardSummary
    final_states = ("scored", "build_failed", "invalid_module")
    with transaction.atomic():
        submissions = submission.objects.all()
        if version_ids is not None:
            version_ids = list(version_ids)
            submissions = submissions.filter(version_id__in=version_ids)
        submissions.update(**board_place_expressions(final_states))
        scope = {} if version_ids is None else {"version_id__in": version_ids}
        standing.objects.filter(**scope).delete()
        # Summary rows are kept and written over (`_insert_summaries`): a version's every-variant
        # row is its board's lock, which the caller may hold and others may be waiting on.
        written = _insert_standings(submission, standing, version_ids, per_variant=True)
        written += _insert_standings(submission, standing, version_ids, per_variant=False)
        _insert_summaries(submission, standing, summary, models_module.CaseVersion, version_ids)
        records.rebuild(version_ids, models_module=models_module)
        if models_module.Submission is Submission:  # a migration's historical models know no references
            refresh_reference_fuel(version_ids)
    return written


def _insert_standings(Submission, Standing, version_ids, *, per_variant: bool) -> int:
    """One INSERT … SELECT: the first board entry of each partition, in board order."""

    submission, standing = Submission._meta.db_table, Standing._meta.db_table
    partition = "version_id, variant_id, name" if per_variant else "version_id, name"
    variant = "variant_id" if per_variant else "0"
    if version_ids is not None and not version_ids:
        return 0
    in_versions, parameters = records.version_filter(version_ids)
    where = "board_group IS NOT NULL" + in_versions
    engine = ("wasmtime_version || ' (' || CASE WHEN engine_digest = '' THEN 'configuration not recorded' "
              "ELSE engine_digest END || ')'")
    sql = f"""
        INSERT INTO {standing} (version_id, variant_key, name, submission_id, board_group, board_key, submitted_at,
        engine,
                                model)
        SELECT version_id, {variant}, name, id, board_group, board_key, submitted_at, engine, model FROM (
            SELECT version_id, variant_id, name, id, board_group, board_key, submitted_at, {engine} AS engine, model,
                   ROW_NUMBER() OVER (PARTITION BY {partition} ORDER BY board_group, board_key, submitted_at, id) AS
                   place
            FROM {submission} WHERE {where}
        ) AS ranked WHERE place = 1
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)
        return cursor.rowcount


def _insert_summaries(Submission, Standing, BoardSummary, CaseVersion, version_ids) -> None:

    scope = {} if version_ids is None else {"version_id__in": version_ids}
    summaries: dict[tuple, dict] = {}

    def summary(version_id, key) -> dict:
        return summaries.setdefault((version_id, key), {
            "entries": 0, "submissions": 0, "entry_engines": {}, "submission_engines": {}})

    on_board = Submission.objects.filter(board_group__isnull=False, **scope)
    for row in on_board.values("version_id", "variant_id", "wasmtime_version", "engine_digest").annotate(n=Count("id")):
        engine = engine_label(row["wasmtime_version"], row["engine_digest"])
        for key in (row["variant_id"], ALL_VARIANTS):
            item = summary(row["version_id"], key)
            item["submissions"] += row["n"]
            item["submission_engines"][engine] = item["submission_engines"].get(engine, 0) + row["n"]
    for row in Standing.objects.filter(**scope).values("version_id", "variant_key", "engine").annotate(n=Count("id")):
        item = summary(row["version_id"], row["variant_key"])
        item["entries"] += row["n"]
        item["entry_engines"][row["engine"]] = item["entry_engines"].get(row["engine"], 0) + row["n"]
    empty = {"entries": 0, "submissions": 0, "entry_engines": {}, "submission_engines": {}}
    kept, new = list(BoardSummary.objects.filter(**scope)), dict(summaries)
    for row in kept:
        for name, value in new.pop((row.version_id, row.variant_key), empty).items():
            setattr(row, name, value)
    BoardSummary.objects.bulk_update(kept, list(empty), batch_size=500)
    BoardSummary.objects.bulk_create(
        BoardSummary(version_id=version_id, variant_key=key, **fields) for (version_id, key), fields in new.items())
    best = dict(Standing.objects.filter(board_group=RANKED, variant_key=ALL_VARIANTS, **scope).values("version_id")
                .annotate(best=Min("board_key")).values_list("version_id", "best"))
    versions = CaseVersion.objects.all() if version_ids is None else CaseVersion.objects.filter(pk__in=version_ids)
    versions.exclude(pk__in=list(best)).update(best_fuel=None)
    for version_id, fuel in best.items():
        CaseVersion.objects.filter(pk=version_id).update(best_fuel=fuel)
    counts = {version_id: fields["entries"] for (version_id, key), fields in summaries.items()
              if key == ALL_VARIANTS and fields["entries"]}
    versions.exclude(pk__in=list(counts)).update(entry_count=0)
    for version_id, count in counts.items():
        CaseVersion.objects.filter(pk=version_id).update(entry_count=count)
