"""Leaderboards kept in the database (SPEC §6): each submitter's best entry, ranked by an index.

A submission's place on the boards is two columns written with it (`board_group`, `board_key`):
group 0 passed (key: total fuel), 1 correct but over the pass line (key: total fuel), 2 the rest
(key: minus the inputs passed); NULL when it is hidden or not finished scoring. Ties go to the
earlier submission (`created_at`, then the id). A `Standing` row holds, per version, variant and
submitter name, that submitter's best submission, and one more per version and name over every
variant (`variant_key` 0), which is the default leaderboard. A `BoardSummary` per version and
variant (or NULL) counts entries and submissions and the engines seen, and each version keeps
its best fuel (`CaseVersion.best_fuel`, shown on the case list), so a page of a leaderboard is
an indexed, ordered slice and its count one row, however many submissions there are.

Every write that changes what a board shows goes through `update_boards()` (or
`forget_submission()` for a deleted one) in the same transaction; `rebuild()` recomputes all of
it from the submissions (`manage.py rebuild_standings`, and the data migration).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from django.db import models, transaction
from django.db.models import Case, F, Q, Value, When

RANKED, OVER_LIMIT, UNRANKED = 0, 1, 2
GROUP_NAMES = {RANKED: "ranked", OVER_LIMIT: "over_limit", UNRANKED: "unranked"}
BOARD_ORDER = ("board_group", "board_key", "created_at", "pk")


def engine_label(wasmtime_version: str, engine_digest: str) -> str:
    """How a board names the engine that measured an entry."""
    return f"{wasmtime_version} ({engine_digest or 'configuration not recorded'})"


def board_place(*, status: str, hidden: bool, passed: bool, total_fuel: int | None,
                passed_count: int, final_states) -> tuple[int | None, int | None]:
    """(group, key) of a submission on the boards, or (None, None) when it is not on them."""
    if hidden or status not in final_states:
        return None, None
    if passed:
        return RANKED, total_fuel
    if total_fuel is not None:  # every stress input answered correctly, some over the line
        return OVER_LIMIT, total_fuel
    return UNRANKED, -passed_count


def board_place_expressions(final_states) -> dict:
    """`board_place` as SQL expressions, for updating many rows at once."""
    on_board = Q(hidden=False, status__in=final_states)
    return {
        "board_group": Case(
            When(~on_board, then=Value(None)), When(passed=True, then=Value(RANKED)),
            When(total_fuel__isnull=False, then=Value(OVER_LIMIT)), default=Value(UNRANKED),
            output_field=models.SmallIntegerField(),
        ),
        "board_key": Case(
            When(~on_board, then=Value(None)), When(total_fuel__isnull=False, then=F("total_fuel")),
            default=-F("passed_count"), output_field=models.BigIntegerField(),
        ),
    }


# --- the entries a page shows -------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    rank: int | None
    group: str
    submission: int
    name: str
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    overshoot: int
    passed_count: int
    input_count: int
    submitted_at: datetime
    wasmtime_version: str
    engine_digest: str = ""

    @property
    def engine(self) -> str:
        return engine_label(self.wasmtime_version, self.engine_digest)

    def as_json(self) -> dict:
        return {
            "rank": self.rank,
            "name": self.name,
            "submission": self.submission,
            "passed": self.passed,
            "total_fuel": self.total_fuel,
            "overshoot": self.overshoot,
            "submitted_at": self.submitted_at.isoformat(),
        }


SUBMISSION_FIELDS = ("pk", "name", "variant__slug", "status", "passed", "total_fuel", "overshoot", "passed_count",
                     "input_count", "created_at", "wasmtime_version", "engine_digest", "board_group")


def _entry(row: dict, position: int) -> Entry:
    group = row["board_group"]
    return Entry(
        rank=position if group == RANKED else None, group=GROUP_NAMES[group], submission=row["pk"],
        name=row["name"], variant=row["variant__slug"], status=row["status"], passed=row["passed"],
        total_fuel=row["total_fuel"], overshoot=row["overshoot"], passed_count=row["passed_count"],
        input_count=row["input_count"], submitted_at=row["created_at"], wasmtime_version=row["wasmtime_version"],
        engine_digest=row["engine_digest"],
    )


class Leaderboard:
    """One version's leaderboard, optionally one variant's: each submitter's best, or every entry.

    Sliced like a list (`board[0:50]`), each slice one indexed query; `count()` reads one summary
    row. Ranks come from the position: ranked entries come first and ties are broken, so the
    n-th entry of the order, if ranked, has rank n.
    """

    def __init__(self, version, *, variant=None, include_all: bool = False):
        self.version = version
        self.variant = variant
        self.include_all = include_all
        self._summary = None

    @property
    def summary(self):
        if self._summary is None:
            from scoring.models import BoardSummary

            self._summary = BoardSummary.objects.filter(version=self.version, variant=self.variant).first() or BoardSummary()
        return self._summary

    def count(self) -> int:
        return self.summary.submissions if self.include_all else self.summary.entries

    def __len__(self) -> int:
        return self.count()

    def engines(self) -> set[str]:
        """The engines that measured what this board shows."""
        counts = self.summary.submission_engines if self.include_all else self.summary.entry_engines
        return {engine for engine, count in (counts or {}).items() if count > 0}

    def rows(self, start: int, stop: int):
        """The query for entries `start` to `stop` in board order: values() rows."""
        from scoring.models import Standing, Submission

        if self.include_all:
            rows = Submission.objects.filter(version=self.version, board_group__isnull=False)
            if self.variant is not None:
                rows = rows.filter(variant=self.variant)
            return rows.order_by(*BOARD_ORDER).values(*SUBMISSION_FIELDS)[start:stop]
        # The standings' index gives the order; the submissions (joined by key) the columns.
        columns = {f"entry_{field}": F(f"submission__{'id' if field == 'pk' else field}") for field in SUBMISSION_FIELDS}
        standings = Standing.objects.filter(version=self.version, variant_key=self.variant.pk if self.variant else 0)
        return (standings.order_by("board_group", "board_key", "created_at", "submission_id")
                .values(**columns)[start:stop])

    def _rows(self, start: int, stop: int) -> list[dict]:
        rows = self.rows(start, stop)
        if self.include_all:
            return list(rows)
        return [{name.removeprefix("entry_"): value for name, value in row.items()} for row in rows]

    def __iter__(self):
        return iter(self[0:self.count()])

    def __getitem__(self, index):
        if isinstance(index, int):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop if index.stop is not None else self.count()
        return [_entry(row, start + offset + 1) for offset, row in enumerate(self._rows(start, stop))]


# --- keeping them up to date ---------------------------------------------------------------------


def _summary(version_id: int, variant_id: int | None):
    from scoring.models import BoardSummary

    summary, _ = BoardSummary.objects.get_or_create(version_id=version_id, variant_id=variant_id)
    return BoardSummary.objects.select_for_update().get(pk=summary.pk)


def _count(counts: dict, engine: str, change: int) -> dict:
    updated = Counter(counts or {})
    updated[engine] += change
    return {name: value for name, value in updated.items() if value > 0}


class _Changes:
    """What one transaction changed on the boards: summaries to save, versions to announce."""

    def __init__(self):
        self.summaries: dict[tuple[int, int | None], object] = {}
        self.versions: set[int] = set()
        self.best_fuel_changed: set[int] = set()

    def summary(self, version_id: int, variant_id: int | None):
        key = (version_id, variant_id)
        if key not in self.summaries:
            self.summaries[key] = _summary(version_id, variant_id)
        return self.summaries[key]

    def submission_moved(self, version_id: int, variant_id: int, engine: str, change: int) -> None:
        for variant in (variant_id, None):
            summary = self.summary(version_id, variant)
            summary.submissions += change
            summary.submission_engines = _count(summary.submission_engines, engine, change)
        self.versions.add(version_id)

    def save(self) -> None:
        from catalog.models import CaseVersion
        from scoring.models import Standing

        for summary in self.summaries.values():
            summary.save()
        for version_id in self.versions:
            best = (Standing.objects.filter(version_id=version_id, variant_key=0, board_group=RANKED)
                    .order_by("board_key").values_list("board_key", flat=True).first())
            # exclude(best_fuel=best) keeps the row when it differs, NULL either side included.
            if CaseVersion.objects.filter(pk=version_id).exclude(best_fuel=best).update(best_fuel=best):
                self.best_fuel_changed.add(version_id)
        _announce(self.versions, self.best_fuel_changed)


def _announce(version_ids: set[int], best_fuel_changed: set[int]) -> None:
    """Bump the page generations of the versions whose boards changed."""
    from catalog.models import CaseVersion
    from sitecache.models import BEST_FUEL, Generation, version_generation

    names = []
    latest = Q(latest_any=True) | Q(latest_public=True)  # "latest" under either experimental setting
    for slug, version, is_latest in CaseVersion.objects.filter(pk__in=version_ids).annotate(
        is_latest=Case(When(latest, then=Value(True)), default=Value(False), output_field=models.BooleanField())
    ).values_list("case__slug", "version", "is_latest"):
        names.append(version_generation(slug, version))
        if is_latest:
            names.append(version_generation(slug, None))
    if CaseVersion.objects.filter(latest, pk__in=best_fuel_changed).exists():
        names.append(BEST_FUEL)
    if names:
        Generation.bump(*names)


def _refresh_standing(changes: _Changes, version_id: int, variant_id: int | None, name: str) -> None:
    """Make the standing of (version, variant or every variant, name) its best board entry."""
    from scoring.models import Standing, Submission

    candidates = Submission.objects.filter(version_id=version_id, name=name, board_group__isnull=False)
    if variant_id is not None:
        candidates = candidates.filter(variant_id=variant_id)
    best = candidates.order_by(*BOARD_ORDER).values(
        "pk", "board_group", "board_key", "created_at", "wasmtime_version", "engine_digest").first()
    current = Standing.objects.select_for_update().filter(version_id=version_id, variant_key=variant_id or 0,
                                                          name=name).first()
    if current is None and best is None:
        return
    summary = changes.summary(version_id, variant_id)
    changes.versions.add(version_id)
    if best is None:
        summary.entries -= 1
        summary.entry_engines = _count(summary.entry_engines, current.engine, -1)
        current.delete()
        return
    engine = engine_label(best["wasmtime_version"], best["engine_digest"])
    fields = {"submission_id": best["pk"], "board_group": best["board_group"], "board_key": best["board_key"],
              "created_at": best["created_at"], "engine": engine}
    if current is None:
        Standing.objects.create(version_id=version_id, variant_key=variant_id or 0, name=name, **fields)
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
    transaction.
    """
    from scoring.models import Submission

    pks = list(pks)
    if not pks:
        return
    with transaction.atomic():
        changes = _Changes()
        keys = set()
        rows = Submission.objects.select_for_update().filter(pk__in=pks).order_by("pk").values(
            "pk", "version_id", "variant_id", "name", "status", "hidden", "passed", "total_fuel", "passed_count",
            "board_group", "board_key", "wasmtime_version", "engine_digest")
        for row in rows:
            group, key = board_place(status=row["status"], hidden=row["hidden"], passed=row["passed"],
                                     total_fuel=row["total_fuel"], passed_count=row["passed_count"],
                                     final_states=Submission.FINAL_STATES)
            if (group, key) == (row["board_group"], row["board_key"]):
                continue
            Submission.objects.filter(pk=row["pk"]).update(board_group=group, board_key=key)
            engine = engine_label(row["wasmtime_version"], row["engine_digest"])
            if (group is None) != (row["board_group"] is None):
                changes.submission_moved(row["version_id"], row["variant_id"], engine, 1 if group is not None else -1)
            changes.versions.add(row["version_id"])
            keys.add((row["version_id"], row["variant_id"], row["name"]))
        for version_id, variant_id, name in sorted(keys):
            _refresh_standing(changes, version_id, variant_id, name)
            _refresh_standing(changes, version_id, None, name)
        changes.save()


def forget_submission(submission) -> None:
    """A submission was deleted: take it off the boards (call from post_delete)."""
    with transaction.atomic():
        changes = _Changes()
        if submission.board_group is not None:
            engine = engine_label(submission.wasmtime_version, submission.engine_digest)
            changes.submission_moved(submission.version_id, submission.variant_id, engine, -1)
        _refresh_standing(changes, submission.version_id, submission.variant_id, submission.name)
        _refresh_standing(changes, submission.version_id, None, submission.name)
        changes.versions.add(submission.version_id)
        changes.save()


# --- rebuilding from the submissions ----------------------------------------------------------------


def rebuild(version_ids: Iterable[int] | None = None, *, models_module=None) -> int:
    """Recompute board places, standings and summaries from the submissions; returns the
    number of standings written. `version_ids` None: every version.

    `models_module` is for the data migration, which passes its historical models.
    """
    if models_module is None:
        from scoring import models as models_module  # noqa: PLW0127
    Submission, Standing, BoardSummary = models_module.Submission, models_module.Standing, models_module.BoardSummary
    CaseVersion = models_module.CaseVersion
    final_states = ("scored", "build_failed", "invalid_module")
    with transaction.atomic():
        submissions = Submission.objects.all()
        if version_ids is not None:
            version_ids = list(version_ids)
            submissions = submissions.filter(version_id__in=version_ids)
        submissions.update(**board_place_expressions(final_states))
        scope = {} if version_ids is None else {"version_id__in": version_ids}
        Standing.objects.filter(**scope).delete()
        BoardSummary.objects.filter(**scope).delete()
        written = _insert_standings(Submission, Standing, version_ids, per_variant=True)
        written += _insert_standings(Submission, Standing, version_ids, per_variant=False)
        _insert_summaries(Submission, Standing, BoardSummary, CaseVersion, version_ids)
    return written


def _insert_standings(Submission, Standing, version_ids, *, per_variant: bool) -> int:
    """One INSERT … SELECT: the first board entry of each partition, in board order."""
    from django.db import connection

    submission, standing = Submission._meta.db_table, Standing._meta.db_table
    partition = "version_id, variant_id, name" if per_variant else "version_id, name"
    variant = "variant_id" if per_variant else "0"
    where = "board_group IS NOT NULL"
    parameters: list = []
    if version_ids is not None:
        if not version_ids:
            return 0
        where += f" AND version_id IN ({', '.join(['%s'] * len(version_ids))})"
        parameters = list(version_ids)
    engine = "wasmtime_version || ' (' || CASE WHEN engine_digest = '' THEN 'configuration not recorded' ELSE engine_digest END || ')'"
    sql = f"""
        INSERT INTO {standing} (version_id, variant_key, name, submission_id, board_group, board_key, created_at, engine)
        SELECT version_id, {variant}, name, id, board_group, board_key, created_at, engine FROM (
            SELECT version_id, variant_id, name, id, board_group, board_key, created_at, {engine} AS engine,
                   ROW_NUMBER() OVER (PARTITION BY {partition} ORDER BY board_group, board_key, created_at, id) AS place
            FROM {submission} WHERE {where}
        ) AS ranked WHERE place = 1
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)
        return cursor.rowcount


def _insert_summaries(Submission, Standing, BoardSummary, CaseVersion, version_ids) -> None:
    from django.db.models import Count, Min

    scope = {} if version_ids is None else {"version_id__in": version_ids}
    summaries: dict[tuple, dict] = {}

    def summary(version_id, variant_id) -> dict:
        return summaries.setdefault((version_id, variant_id), {
            "entries": 0, "submissions": 0, "entry_engines": {}, "submission_engines": {}})

    on_board = Submission.objects.filter(board_group__isnull=False, **scope)
    for row in on_board.values("version_id", "variant_id", "wasmtime_version", "engine_digest").annotate(n=Count("id")):
        engine = engine_label(row["wasmtime_version"], row["engine_digest"])
        for variant_id in (row["variant_id"], None):
            item = summary(row["version_id"], variant_id)
            item["submissions"] += row["n"]
            item["submission_engines"][engine] = item["submission_engines"].get(engine, 0) + row["n"]
    for row in Standing.objects.filter(**scope).values("version_id", "variant_key", "engine").annotate(n=Count("id")):
        item = summary(row["version_id"], row["variant_key"] or None)
        item["entries"] += row["n"]
        item["entry_engines"][row["engine"]] = item["entry_engines"].get(row["engine"], 0) + row["n"]
    BoardSummary.objects.bulk_create(
        BoardSummary(version_id=version_id, variant_id=variant_id, **fields)
        for (version_id, variant_id), fields in summaries.items()
    )
    best = dict(Standing.objects.filter(board_group=RANKED, variant_key=0, **scope).values("version_id")
                .annotate(best=Min("board_key")).values_list("version_id", "best"))
    versions = CaseVersion.objects.all() if version_ids is None else CaseVersion.objects.filter(pk__in=version_ids)
    versions.exclude(pk__in=list(best)).update(best_fuel=None)
    for version_id, fuel in best.items():
        CaseVersion.objects.filter(pk=version_id).update(best_fuel=fuel)
