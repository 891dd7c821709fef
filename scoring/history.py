"""The record progression of a board (scoring/boards/records.py), read for pages, the API and feeds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from catalog.models import CaseVersion
from scoring.boards.places import ALL_VARIANTS, variant_key
from scoring.models import RecordStep

CHART_STEPS = 200  # the most recent steps a chart draws (the API lists every one)


@dataclass(frozen=True)
class Step:
    submission: int
    name: str
    model: str
    variant: str
    total_fuel: int
    scored_at: datetime
    previous_fuel: int | None  # the record it beat (None: the first)


_STEP_FIELDS = ("submission_id", "submission__name", "submission__model", "submission__variant__slug", "total_fuel",
                "scored_at")


def _chained(rows: list[dict], previous: int | None) -> list[Step]:
    """Steps from rows oldest first, each with the record before it (`previous` for the first)."""
    found = []
    for row in rows:
        found.append(Step(row["submission_id"], row["submission__name"], row["submission__model"],
                          row["submission__variant__slug"], row["total_fuel"], row["scored_at"], previous))
        previous = row["total_fuel"]
    return found


def steps_query(version_id: int, variant_id: int | None):

    return (RecordStep.objects.filter(version_id=version_id, variant_key=variant_key(variant_id))
            .order_by("scored_at", "submission_id"))


def steps(version_id: int, variant_id: int | None, start: int = 0, stop: int | None = None) -> list[Step]:
    """Steps `start` to `stop` of the progression, oldest first."""
    rows = list(steps_query(version_id, variant_id).values(*_STEP_FIELDS)[max(start - 1, 0):stop])
    if start > 0 and rows:  # the row before the slice gives its first step's previous record
        return _chained(rows[1:], rows[0]["total_fuel"])
    return _chained(rows, None)


def latest_steps(version_id: int, variant_id: int | None, limit: int) -> list[Step]:
    """The last `limit` steps, oldest first, in one query (one more row gives the first's previous)."""
    rows = list(steps_query(version_id, variant_id).order_by("-scored_at", "-submission_id")
                .values(*_STEP_FIELDS)[:limit + 1])[::-1]
    if len(rows) > limit:
        return _chained(rows[1:], rows[0]["total_fuel"])
    return _chained(rows, None)


def chart_steps(version, variant) -> tuple[list[Step], int]:
    """The steps a progression chart draws (the last CHART_STEPS, oldest first) and how many there are."""
    shown = latest_steps(version.pk, variant.pk if variant else None, CHART_STEPS)
    count = len(shown) if len(shown) < CHART_STEPS else steps_query(version.pk, variant.pk if variant else None).count()
    return shown, count


def newest_records(limit: int, **filters):
    """The newest records on every-variant boards of shown versions (for the feeds), newest first."""

    # Every variant's board: one item per record, whatever its variant.
    return (RecordStep.objects.filter(variant_key=ALL_VARIANTS, version__in=CaseVersion.objects.public(), **filters)
            .select_related("version__case", "submission__variant").order_by("-scored_at", "-submission_id")[:limit])
