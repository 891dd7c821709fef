"""Standings across the catalog: one line per submitter name over the latest public version of every case.

For a case, a submitter's entry is their best on that version's leaderboard (every variant).
They *solved* the case if it passed. Their **score** is the sum over the cases of
best fuel ÷ their fuel (1.0 for the best on a case, 0 for a case they did not solve), so the
maximum is the number of cases; the **geometric mean** of their fuel ÷ the best, over the cases
they solved, says how far off the best they typically are (1.0: the best everywhere). Lines are
ordered by score, then cases solved, then name. Only non-experimental cases count, whatever
CATALOG_SHOW_EXPERIMENTAL says: the standings are the benchmark's published cases.

The standings are a snapshot, refreshed in the background (scoring/snapshots.py: when a page
finds them behind the scores, at most every STANDINGS_REFRESH_SECONDS); the refresh reads every
entry once, in a few grouped queries, and replaces the rows in one transaction. Every case (""),
each difficulty and each tag are precomputed scopes; a difficulty and a tag together are computed
on request from the entries of just the cases that have both.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, F, FloatField, Q, Sum
from django.db.models.functions import Cast, Greatest, Ln
from django_tasks import task

from catalog.models import CaseVersion
from scoring import snapshots
from scoring.boards.places import ALL_VARIANTS, RANKED
from scoring.models import Standing, StandingsRow
from scoring.speedups import aggregates, counts_of, geometric_mean
from sitecache.models import STANDINGS_SNAPSHOT

logger = logging.getLogger(__name__)


def scope_name(difficulty: str | None = None, tag: str | None = None) -> str:
    """The scope of a filter: "" every case, "difficulty:<d>", "tag:<t>", or both joined by "+"."""
    parts = [f"difficulty:{difficulty}" if difficulty else "", f"tag:{tag}" if tag else ""]
    return "+".join(part for part in parts if part)


@dataclass
class Line:
    """A submitter's figures in one scope, summed while reading."""

    name: str
    entered: int = 0
    solved: int = 0
    score: float = 0.0
    log_ratios: float = 0.0  # the sum of ln(their fuel ÷ best) over the cases solved
    breakdown: dict[str, dict] = field(default_factory=dict)
    position: int = 0
    shared_position: int = 0  # the place it shares with every line of the same score and cases solved
    # The models of their entries, and staff's notes on them: {"models": [...], "annotations": [...]}.
    provenance: dict = field(default_factory=dict)
    # Against the references (scoring/speedups.py): cases solved that have one, the sum of
    # ln(reference ÷ theirs) over them, and how many were solved at least p times as cheaply.
    reference_solved: int = 0
    speedup_logs: float = 0.0
    inverse_speedups: float = 0.0
    fast: dict = field(default_factory=dict)

    def note(self, case: str, submission: int, model: str, annotation: str) -> None:
        if model and model not in self.provenance.setdefault("models", []):
            self.provenance["models"] = sorted([*self.provenance["models"], model])
        if annotation:
            self.provenance.setdefault("annotations", []).append(
                {"case": case, "submission": submission, "text": annotation})

    @property
    def geometric_mean(self) -> float | None:
        return math.exp(self.log_ratios / self.solved) if self.solved else None

    @property
    def speedup(self) -> float | None:
        return geometric_mean(self.speedup_logs, self.reference_solved)

    def add(self, difficulty: str, entered: int, solved: int, score: float, log_ratios: float,
            against: dict | None = None) -> None:
        if against:
            self.reference_solved += against["reference_solved"] or 0
            self.speedup_logs += against["speedup_logs"] or 0.0
            self.inverse_speedups += against["inverse_speedups"] or 0.0
            for key, count in counts_of(against).items():
                self.fast[key] = self.fast.get(key, 0) + count
        self.entered += entered
        self.solved += solved
        self.score += score
        self.log_ratios += log_ratios
        part = self.breakdown.setdefault(difficulty, {"entered": 0, "solved": 0, "score": 0.0})
        part["entered"] += entered
        part["solved"] += solved
        part["score"] += score


def _ordered(lines: dict[str, Line]) -> list[Line]:
    ordered = sorted(lines.values(), key=lambda line: (-round(line.score, 9), -line.solved, line.name))
    for position, line in enumerate(ordered, 1):
        line.position = position
        before = ordered[position - 2] if position > 1 else None
        same = before is not None and (round(before.score, 9), before.solved) == (round(line.score, 9), line.solved)
        line.shared_position = before.shared_position if same else position
    return ordered


def _entries(**filters):
    """The best entries on the latest public versions, as figures per (…, difficulty, name)."""

    # best ÷ theirs and ln(theirs ÷ best), each at least 1 fuel so a zero cannot divide.
    theirs = Cast(Greatest(F("board_key"), 1), FloatField())
    best = Cast(Greatest(F("version__best_fuel"), 1), FloatField())
    return (Standing.objects.filter(version__latest_public=True, variant_key=ALL_VARIANTS, **filters)
            .annotate(share=best / theirs, log_ratio=Ln(theirs / best)))


def _figures(rows):
    return rows.annotate(entered=Count("id"), solved=Count("id", filter=Q(board_group=RANKED)),
                         score=Sum("share", filter=Q(board_group=RANKED)),
                         log_ratios=Sum("log_ratio", filter=Q(board_group=RANKED)),
                         **aggregates("board_key", "version__reference_fuel", Q(board_group=RANKED))).order_by()


def _add(lines: dict[str, Line], row: dict) -> None:
    name = row["name"]
    line = lines.get(name)
    if line is None:
        line = lines[name] = Line(name)
    line.add(row["version__difficulty"], row["entered"], row["solved"], row["score"] or 0.0, row["log_ratios"] or 0.0,
             row)


def _notes(**filters):
    """The entries with a model or an annotation, with what each scope needs to place them."""
    return (_entries(**filters).filter(Q(submission__model__gt="") | Q(submission__annotation__gt=""))
            .order_by("version__case__slug")
            .values("name", "version_id", "version__difficulty", "version__case__slug", "submission_id",
                    "submission__model", "submission__annotation"))


def _note(lines: dict[str, Line], row: dict) -> None:
    line = lines.get(row["name"])
    if line is not None:
        line.note(row["version__case__slug"], row["submission_id"], row["submission__model"],
                  row["submission__annotation"])


def compute(difficulty: str | None = None, tag: str | None = None, since=None) -> tuple[list[Line], dict]:
    """One scope's lines, ordered, and its counts ({"cases", "references"}: its cases, and those
    with a reference entry), read now from the standings; `since`, a date: only the cases first
    published on or after it."""

    filters = {}
    if difficulty:
        filters["version__difficulty"] = difficulty
    if tag:
        filters["version__tags__name"] = tag
    if since:
        filters["version__case__created_at__date__gte"] = since
    lines: dict[str, Line] = {}
    for row in _figures(_entries(**filters).values("version__difficulty", "name")):
        _add(lines, row)
    for row in _notes(**filters):
        _note(lines, row)
    versions = CaseVersion.objects.filter(latest_public=True, **{key.removeprefix("version__"): value
                                                                for key, value in filters.items()})
    return _ordered(lines), {"cases": versions.count(),
                             "references": versions.filter(reference_fuel__isnull=False).count()}


def compute_all() -> dict[str, tuple[list[Line], dict]]:
    """Every precomputed scope: every case, each difficulty, each tag."""

    scopes: dict[str, dict[str, Line]] = {"": {}}
    for row in _figures(_entries().values("version__difficulty", "name")):
        _add(scopes[""], row)
        _add(scopes.setdefault(scope_name(difficulty=row["version__difficulty"]), {}), row)
    for row in _figures(_entries(version__tags__isnull=False).values("version__tags__name", "version__difficulty",
                                                                     "name")):
        _add(scopes.setdefault(scope_name(tag=row["version__tags__name"]), {}), row)
    scopes_of_version = version_scopes()
    for row in _notes():
        for scope in scopes_of_version.get(row["version_id"], []):
            _note(scopes.get(scope, {}), row)
    return {scope: (_ordered(scopes.get(scope, {})), counts) for scope,
            counts in case_counts(scopes_of_version).items()}


def case_counts(scopes_of_version: dict[int, list[str]]) -> dict[str, dict]:
    """How many counted versions each precomputed scope holds, and how many of them have a
    reference entry: {"cases", "references"} (every case "" always, even at none)."""
    referenced = set(CaseVersion.objects.filter(latest_public=True, reference_fuel__isnull=False)
                     .values_list("pk", flat=True))
    counts = {"": {"cases": 0, "references": 0}}
    for version_id, names in scopes_of_version.items():
        for scope in names:
            found = counts.setdefault(scope, {"cases": 0, "references": 0})
            found["cases"] += 1
            found["references"] += version_id in referenced
    return counts


def version_scopes() -> dict[int, list[str]]:
    """Each counted version's precomputed scopes: every case, its difficulty, and each of its tags
    (the standings' and the agents matrix's)."""

    tags: dict[int, list[str]] = {}
    for version_id, tag in CaseVersion.tags.through.objects.filter(caseversion__latest_public=True).values_list(
            "caseversion_id", "tag__name"):
        tags.setdefault(version_id, []).append(tag)
    return {pk: ["", scope_name(difficulty=difficulty), *(scope_name(tag=tag) for tag in tags.get(pk, []))]
            for pk, difficulty in CaseVersion.objects.filter(latest_public=True).values_list("pk", "difficulty")}


def snapshot():
    return snapshots.snapshot(snapshots.STANDINGS)


def refresh() -> float:
    """Recompute every precomputed scope and replace the rows in one transaction. Returns seconds."""

    started = time.perf_counter()
    source = snapshots.current_source()  # before reading: a score landing meanwhile makes the next check refresh again
    scopes = compute_all()
    with transaction.atomic():
        StandingsRow.objects.all().delete()
        StandingsRow.objects.bulk_create(
            (StandingsRow(scope=scope, position=line.position, shared_position=line.shared_position, name=line.name,
                          entered=line.entered,
                          solved=line.solved, score=line.score, geometric_mean=line.geometric_mean,
                          breakdown=line.breakdown, provenance=line.provenance, fast=line.fast,
                          reference_solved=line.reference_solved, speedup=line.speedup,
                          inverse_speedups=line.inverse_speedups)
             for scope, (lines, _) in scopes.items() for line in lines),
            batch_size=2000,
        )
        return snapshots.store(snapshots.STANDINGS, source, started, {
            scope: {**counts, "rows": len(lines)} for scope, (lines, counts) in scopes.items()}, STANDINGS_SNAPSHOT)


@task()
def refresh_standings_job() -> float:
    """Recompute the catalog-wide standings, on whichever worker takes this. Returns seconds."""
    return refresh()


def request_refresh() -> bool:
    """Queue a refresh of the standings if they are behind the scores and old enough (snapshots)."""
    return snapshots.request_refresh(snapshots.STANDINGS, refresh_standings_job.enqueue)
