"""The record progression of a board (scoring/boards/records.py), read for pages, the API and feeds."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

CHART_WIDTH, CHART_HEIGHT = 640, 140
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 78, 12, 10, 24  # room for the axis labels
CHART_STEPS = 200  # the most recent steps drawn (the API lists every one)


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
    from scoring.boards.places import variant_key
    from scoring.models import RecordStep

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


@dataclass(frozen=True)
class ChartPoint:
    step: Step
    x: float
    y: float


@dataclass(frozen=True)
class HistoryChart:
    points: list[ChartPoint]
    path: str  # the step line, SVG path data
    width: int
    height: int
    y_labels: list[tuple[float, int]]  # (y, fuel)
    x_labels: list[tuple[float, datetime, str]]  # (x, time, text-anchor)
    left: int
    bottom: float
    count: int  # steps in all (the chart shows the last CHART_STEPS)


def history_chart(version, variant) -> HistoryChart | None:
    """The progression as a step chart of fuel over time on a log scale; None with no record yet."""
    shown = latest_steps(version.pk, variant.pk if variant else None, CHART_STEPS)
    if not shown:
        return None
    count = len(shown) if len(shown) < CHART_STEPS else steps_query(version.pk, variant.pk if variant else None).count()
    # Time runs from the first record shown to now: the last record stands until today.
    first, last = shown[0].scored_at, max(shown[-1].scored_at, timezone.now())
    span = max((last - first).total_seconds(), 1.0)
    low = math.log10(max(min(step.total_fuel for step in shown), 1))
    high = math.log10(max(max(step.total_fuel for step in shown), 1))
    if high - low < 0.3:  # one record, or records close together: give the line some room
        low, high = low - 0.15, high + 0.15
    plot_width = CHART_WIDTH - CHART_LEFT - CHART_RIGHT
    plot_height = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM
    right = CHART_LEFT + plot_width

    def y_of(fuel: int) -> float:
        return round(CHART_TOP + plot_height * (high - math.log10(max(fuel, 1))) / (high - low), 1)

    def x_of(moment: datetime) -> float:
        return round(CHART_LEFT + plot_width * (moment - first).total_seconds() / span, 1)

    points = [ChartPoint(step, x_of(step.scored_at), y_of(step.total_fuel)) for step in shown]
    path = [f"M{points[0].x} {points[0].y}"]
    for point in points[1:]:  # along at the last record's level, then down to the new one
        path.append(f"H{point.x} V{point.y}")
    path.append(f"H{right}")  # the record stands until now
    fuels = sorted({shown[0].total_fuel, shown[-1].total_fuel}, reverse=True)
    x_labels = [(CHART_LEFT, first, "start"), (right, last, "end")]
    return HistoryChart(points, " ".join(path), CHART_WIDTH, CHART_HEIGHT,
                        [(y_of(fuel), fuel) for fuel in fuels], x_labels, CHART_LEFT,
                        CHART_HEIGHT - 6, count)


def newest_records(limit: int, **filters):
    """The newest records on every-variant boards of shown versions (for the feeds), newest first."""
    from catalog.models import CaseVersion
    from scoring.boards.places import ALL_VARIANTS
    from scoring.models import RecordStep

    # Every variant's board: one item per record, whatever its variant.
    return (RecordStep.objects.filter(variant_key=ALL_VARIANTS, version__in=CaseVersion.objects.public(), **filters)
            .select_related("version__case", "submission__variant").order_by("-scored_at", "-submission_id")[:limit])
