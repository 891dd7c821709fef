"""Every chart's geometry: the domain gives the data (a board's entries, its record progression,
two entries' input pairs, the agents' cost and score), and this room draws it as SVG coordinates
for the templates. Server-rendered: a chart needs no script."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from scoring.agents.reading import CHART_POINTS
from scoring.boards.places import speedup
from scoring.boards.reading import Entry
from scoring.compare import Comparison, InputPair
from scoring.history import Step, chart_steps

# A leaderboard's top totals, as horizontal bars.
CHART_ENTRIES = 20
CHART_BAR_WIDTH = 380  # SVG units of the longest bar
CHART_ROW_HEIGHT = 22
# A board's record progression.
HISTORY_WIDTH, HISTORY_HEIGHT = 640, 140
HISTORY_LEFT, HISTORY_RIGHT, HISTORY_TOP, HISTORY_BOTTOM = 78, 12, 10, 24  # room for the axis labels
# Two entries compared, input by input.
COMPARE_HALF_WIDTH = 260  # SVG units from the middle (ratio 1) to the edge
COMPARE_ROW_HEIGHT = 22
COMPARE_LABEL_WIDTH = 120
# The agents' cost against their score.
COST_WIDTH, COST_HEIGHT = 640, 300
COST_LEFT, COST_RIGHT, COST_TOP, COST_BOTTOM = 64, 20, 14, 40


# --- a leaderboard's top totals -----------------------------------------------------------------------

@dataclass(frozen=True)
class Bar:
    entry: Entry
    width: float  # SVG units, up to CHART_BAR_WIDTH
    y: int


def chart_bars(entries: list[Entry]) -> list[Bar]:
    """Horizontal bars for the ranked totals, on a log scale (totals span orders of magnitude)."""
    ranked = [entry for entry in entries if entry.rank is not None]
    if not ranked:
        return []
    totals = [max(entry.total_fuel, 1) for entry in ranked]
    low, high = math.log10(min(totals)) - 0.5, math.log10(max(totals))
    span = max(high - low, 1e-9)
    return [
        Bar(entry, round(CHART_BAR_WIDTH * (math.log10(total) - low) / span, 1), index * CHART_ROW_HEIGHT)
        for index, (entry, total) in enumerate(zip(ranked, totals))
    ]


# --- a submission's fuel against the pass line, input by input ----------------------------------------

@dataclass(frozen=True)
class PassLineRow:
    result: object  # a scoring Result
    used: float  # 0–100: where its fuel ends
    limit: float  # where the pass line is (the same on every row of a page)
    ceiling: float  # where its runway's ceiling is
    speedup: float | None  # the reference's fuel on this input ÷ its own


@dataclass(frozen=True)
class PassLineChart:
    rows: list[PassLineRow]
    ticks: list[tuple[float, int]]  # (x, fuel) at each power of ten


def pass_line_chart(results: list, reference_fuel: dict[str, int] | None = None) -> PassLineChart:
    """One log scale for every input of a submission (0–100), from the power of ten at or below
    the least fuel to the highest ceiling, so the pass line stands at one place on every row and
    a fuel a thousand times below it is still a bar. `reference_fuel`: the reference's fuel per
    input path, for each input's speedup."""
    fuels = [result.fuel for result in results if result.fuel]
    limits = [result.fuel_limit for result in results]
    if not results:
        return PassLineChart([], [])
    low = 10 ** math.floor(math.log10(max(min([*fuels, *limits]), 1)))
    high = max(max(max(result.ceiling, result.fuel or 0) for result in results), low * 10)
    span = math.log10(high) - math.log10(low)

    def x_of(fuel: int | None) -> float:
        if not fuel:
            return 0.0
        return round(100 * (math.log10(max(fuel, low)) - math.log10(low)) / span, 2)

    rows = []
    for result in results:
        reference = (reference_fuel or {}).get(result.input_path)
        answered = result.status in ("passed", "over_limit")
        rows.append(PassLineRow(result, x_of(result.fuel), x_of(result.fuel_limit), x_of(result.ceiling),
                                speedup(reference, result.fuel) if answered and reference else None))
    ticks = [(x_of(10 ** power), 10 ** power)
             for power in range(round(math.log10(low)), math.floor(math.log10(high)) + 1)]
    return PassLineChart(rows, ticks)


# --- a board's record progression ---------------------------------------------------------------------

@dataclass(frozen=True)
class StepPoint:
    step: Step
    x: float
    y: float


@dataclass(frozen=True)
class HistoryChart:
    points: list[StepPoint]
    path: str  # the step line, SVG path data
    width: int
    height: int
    y_labels: list[tuple[float, int]]  # (y, fuel)
    x_labels: list[tuple[float, datetime, str]]  # (x, time, text-anchor)
    left: int
    bottom: float
    count: int  # steps in all (the chart shows the last CHART_STEPS)


def history_chart(version, variant) -> HistoryChart | None:
    """A board's record progression as a step chart of fuel over time on a log scale; None with no
    record yet."""
    shown, count = chart_steps(version, variant)
    if not shown:
        return None
    # Time runs from the first record shown to now: the last record stands until today.
    first, last = shown[0].scored_at, max(shown[-1].scored_at, timezone.now())
    span = max((last - first).total_seconds(), 1.0)
    low = math.log10(max(min(step.total_fuel for step in shown), 1))
    high = math.log10(max(max(step.total_fuel for step in shown), 1))
    if high - low < 0.3:  # one record, or records close together: give the line some room
        low, high = low - 0.15, high + 0.15
    plot_width = HISTORY_WIDTH - HISTORY_LEFT - HISTORY_RIGHT
    plot_height = HISTORY_HEIGHT - HISTORY_TOP - HISTORY_BOTTOM
    right = HISTORY_LEFT + plot_width

    def y_of(fuel: int) -> float:
        return round(HISTORY_TOP + plot_height * (high - math.log10(max(fuel, 1))) / (high - low), 1)

    def x_of(moment: datetime) -> float:
        return round(HISTORY_LEFT + plot_width * (moment - first).total_seconds() / span, 1)

    points = [StepPoint(step, x_of(step.scored_at), y_of(step.total_fuel)) for step in shown]
    path = [f"M{points[0].x} {points[0].y}"]
    for point in points[1:]:  # along at the last record's level, then down to the new one
        path.append(f"H{point.x} V{point.y}")
    path.append(f"H{right}")  # the record stands until now
    fuels = sorted({shown[0].total_fuel, shown[-1].total_fuel}, reverse=True)
    x_labels = [(HISTORY_LEFT, first, "start"), (right, last, "end")]
    return HistoryChart(points, " ".join(path), HISTORY_WIDTH, HISTORY_HEIGHT,
                        [(y_of(fuel), fuel) for fuel in fuels], x_labels, HISTORY_LEFT,
                        HISTORY_HEIGHT - 6, count)


# --- two entries compared -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CompareBar:
    pair: InputPair
    x: float  # left edge, SVG units
    width: float
    y: int
    slower: bool  # A used more fuel than B on this input


def comparison_bars(comparison: Comparison) -> list[CompareBar]:
    """A bar per input both passed, from the middle (ratio 1) outwards, on a log scale:
    left where A used less, right where it used more."""
    rated = [pair for pair in comparison.pairs if pair.ratio is not None]
    if not rated:
        return []
    span = max(max(abs(math.log10(pair.ratio)) for pair in rated), 0.3)  # at least a factor of 2 each way
    middle = COMPARE_LABEL_WIDTH + COMPARE_HALF_WIDTH
    bars = []
    for index, pair in enumerate(rated):
        width = round(COMPARE_HALF_WIDTH * abs(math.log10(pair.ratio)) / span, 1)
        slower = pair.ratio > 1
        bars.append(CompareBar(pair, middle if slower else middle - width, max(width, 0.5), index * COMPARE_ROW_HEIGHT, slower))
    return bars


# --- the agents' cost against their score --------------------------------------------------------------

@dataclass(frozen=True)
class AgentPoint:
    agent_id: int
    model: str
    harness: str
    cost: float  # mean per trial, US dollars
    score: float
    x: float
    y: float
    on_front: bool
    page: int  # the page of the matrix (in its current order and filter) that holds the agent's row


@dataclass(frozen=True)
class CostChart:
    points: list[AgentPoint]
    front: str  # the front's line, SVG points
    width: int
    height: int
    left: int
    bottom: int
    x_labels: list[tuple[float, float, str]]  # (x, cost, text-anchor)
    y_labels: list[tuple[float, float]]  # (y, score)
    log_scale: bool
    drawn: int
    total: int  # agents that recorded a cost


def cost_chart(rows: list[tuple], total: int, per_page: int) -> CostChart | None:
    """Mean cost per trial (x, log scale when the costs span ten times or more) against score
    (y): the Pareto front (no other agent costs no more and scores no less) drawn as a line, and
    at most CHART_POINTS points: the whole front, then the best by score. `rows` are (agent id,
    model, harness, mean cost, score, index in the page's order, on the front)."""
    if not rows:
        return None
    front = sum(1 for row in rows if row[6])
    shown = sorted(rows, key=lambda row: (not row[6], -row[4], row[1], row[2]))[:max(CHART_POINTS, front)]
    costs = [row[3] for row in shown]
    low, high = min(costs), max(costs)
    log_scale = low > 0 and high / low >= 10
    plot_width = COST_WIDTH - COST_LEFT - COST_RIGHT
    plot_height = COST_HEIGHT - COST_TOP - COST_BOTTOM
    top_score = max(max(row[4] for row in shown), 1.0)

    def x_of(cost: float) -> float:
        if log_scale:
            share = (math.log10(cost) - math.log10(low)) / (math.log10(high) - math.log10(low))
        else:
            share = cost / high if high > 0 else 0.5
        return round(COST_LEFT + plot_width * share, 1)

    def y_of(score: float) -> float:
        return round(COST_TOP + plot_height * (1 - score / top_score), 1)

    points = [AgentPoint(agent_id, model, harness, cost, score, x_of(cost), y_of(score), on_front,
                         index // per_page + 1)
              for agent_id, model, harness, cost, score, index, on_front in shown]
    on_front = sorted((point for point in points if point.on_front), key=lambda point: (point.cost, -point.score))
    bottom = COST_HEIGHT - COST_BOTTOM
    x_labels = [(x_of(low if log_scale else 0.0) if log_scale else float(COST_LEFT), low if log_scale else 0.0, "start"),
                (float(COST_LEFT + plot_width), high, "end")]
    return CostChart(points, " ".join(f"{point.x},{point.y}" for point in on_front), COST_WIDTH, COST_HEIGHT,
                     COST_LEFT, bottom, x_labels, [(y_of(0.0), 0.0), (y_of(top_score), top_score)], log_scale,
                     len(points), total)
