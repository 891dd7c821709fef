"""Every chart's geometry: the domain gives the data (a board's entries, its record progression,
two entries' input pairs, the agents' cost and score), and this room draws it as SVG coordinates
for the templates. Server-rendered: a chart needs no script."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
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
COMPARE_HALF_WIDTH = 100  # SVG units of a row's bar from the middle (ratio 1) to the edge
# The agents' cost against their score.
# (Drawn small and scaled to the page: at 320 px its 13-unit labels are 9 px or more.)
COST_WIDTH, COST_HEIGHT = 420, 300
COST_LEFT, COST_RIGHT, COST_TOP, COST_BOTTOM = 44, 16, 26, 40
COST_FONT = 13


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
    x: float  # left edge, SVG units (0 to 2 × COMPARE_HALF_WIDTH; the middle is ratio 1)
    width: float
    slower: bool  # A used more fuel than B on this input


def comparison_bars(comparison: Comparison) -> list[CompareBar]:
    """A bar per input both passed, from the middle (ratio 1) outwards, on a log scale:
    left where A used less, right where it used more. Each row is drawn on its own (a list beside
    its label and value), so the chart is as wide as the page, whatever the screen."""
    rated = [pair for pair in comparison.pairs if pair.ratio is not None]
    if not rated:
        return []
    span = max(max(abs(math.log10(pair.ratio)) for pair in rated), 0.3)  # at least a factor of 2 each way
    middle = COMPARE_HALF_WIDTH
    bars = []
    for pair in rated:
        width = round(COMPARE_HALF_WIDTH * abs(math.log10(pair.ratio)) / span, 1)
        slower = pair.ratio > 1
        bars.append(CompareBar(pair, middle if slower else middle - width, max(width, 0.5), slower))
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
    number: int = 0  # its number in the chart's key (by score)
    label: str = ""  # what is written beside it: its name where it fits, else its number
    label_x: float = 0.0
    label_y: float = 0.0
    anchor: str = "start"

    @property
    def name(self) -> str:
        return self.model + (f" ({self.harness})" if self.harness else "")


@dataclass(frozen=True)
class CostChart:
    points: list[AgentPoint]
    front: str  # the front's line, SVG points
    width: int
    height: int
    left: int
    bottom: int
    x_ticks: list[tuple[float, float]]  # (x, cost)
    y_ticks: list[tuple[float, float]]  # (y, score)
    log_scale: bool
    drawn: int
    total: int  # agents that recorded a cost
    score_from: float = 0.0  # where the score axis starts (above 0 when the scores lie close together)


def close_ticks(low: float, high: float, most: int = 4) -> list[float]:
    """Round ticks from at or below `low` to at or above `high`, for scores that lie close
    together (so that 1.000 and 1.029 are not drawn on one line)."""
    spread = max(high - low, high * 0.01, 1e-9)
    raw = spread / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(factor * power for factor in (1, 2, 5, 10) if factor * power >= raw)
    first = math.floor(low / step - 1e-9)
    return [round(step * index, 10) for index in range(first, math.ceil(high / step - 1e-9) + 1)]


def nice_ticks(high: float, most: int = 5) -> list[float]:
    """0, then round steps (1, 2 or 5 times a power of ten) up to at least `high`: at most `most`+1 ticks."""
    if high <= 0:
        return [0.0, 1.0]
    raw = high / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(factor * power for factor in (1, 2, 5, 10) if factor * power >= raw)
    return [round(step * index, 10) for index in range(math.ceil(high / step - 1e-9) + 1)]


def decade_ticks(low: float, high: float) -> list[float]:
    """The powers of ten from `low` to `high`, and both ends when fewer than two fall between."""
    ticks = [10.0 ** power for power in range(math.ceil(math.log10(low) - 1e-9),
                                              math.floor(math.log10(high) + 1e-9) + 1)]
    return ticks if len(ticks) >= 2 else sorted({low, *ticks, high})


def _crosses(box, start: tuple[float, float], end: tuple[float, float]) -> bool:
    """Whether the segment from `start` to `end` passes through the box (sampled finely)."""
    x0, y0, x1, y1 = box
    steps = max(2, int(max(abs(end[0] - start[0]), abs(end[1] - start[1]))))
    return any(x0 <= start[0] + (end[0] - start[0]) * step / steps <= x1
               and y0 <= start[1] + (end[1] - start[1]) * step / steps <= y1 for step in range(steps + 1))


def _place_labels(points: list[AgentPoint], left: float, top: float, right: float, bottom: float,
                  line: list[tuple[float, float]] = ()) -> list[AgentPoint]:
    """Each point's name beside it where it overlaps no other label, no point, no tick and not
    the front's line (right, left, above, below, in that order), else its number; the best by
    score are placed first. A point with room for neither is named in the key below the chart."""
    taken: list[tuple[float, float, float, float]] = []
    circles = [(point.x, point.y) for point in points]
    segments = list(zip(line, line[1:]))
    placed = []

    def free(box) -> bool:
        x0, y0, x1, y1 = box
        if x0 < left or x1 > right or y0 < top or y1 > bottom:
            return False
        if any(x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1 for bx0, by0, bx1, by1 in taken):
            return False
        if any(_crosses(box, start, end) for start, end in segments):
            return False
        return not any(x0 - 5 < cx < x1 + 5 and y0 - 5 < cy < y1 + 5 for cx, cy in circles)

    for point in points:
        for text in (point.name[:30] + ("…" if len(point.name) > 30 else ""), str(point.number)):
            width = len(text) * COST_FONT * 0.58
            for x, y, anchor, box in (
                    (point.x + 8, point.y + 4, "start", (point.x + 7, point.y - 6, point.x + 8 + width, point.y + 6)),
                    (point.x - 8, point.y + 4, "end", (point.x - 8 - width, point.y - 6, point.x - 7, point.y + 6)),
                    (point.x, point.y - 10, "middle", (point.x - width / 2, point.y - 21, point.x + width / 2,
                                                       point.y - 8)),
                    (point.x, point.y + 19, "middle", (point.x - width / 2, point.y + 8, point.x + width / 2,
                                                       point.y + 21))):
                if free(box):
                    taken.append(box)
                    placed.append(replace(point, label=text, label_x=round(x, 1), label_y=round(y, 1), anchor=anchor))
                    break
            else:
                continue
            break
        else:
            placed.append(point)  # no room even for its number: the key below names it
    return placed


def cost_chart(rows: list[tuple], total: int, per_page: int) -> CostChart | None:
    """Mean cost per trial (x, log scale when the costs span ten times or more) against score
    (y): the Pareto front (no other agent costs no more and scores no less) drawn as a line, and
    at most CHART_POINTS points: the whole front, then the best by score, each numbered in a key
    and named beside it where the name fits. Round ticks on both axes. `rows` are (agent id,
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
    scores = [row[4] for row in shown]
    close = min(scores) > 0.5 * max(scores) > 0  # a zero-based axis would draw them on one line
    y_ticks = close_ticks(min(scores), max(scores)) if close else nice_ticks(max(max(scores), 1.0), 4)
    x_ticks = decade_ticks(low, high) if log_scale else nice_ticks(high if high > 0 else 1.0, 4)
    x_low, x_high = (low, high) if log_scale else (0.0, x_ticks[-1])

    def x_of(cost: float) -> float:
        if log_scale:
            share = (math.log10(cost) - math.log10(x_low)) / (math.log10(x_high) - math.log10(x_low))
        else:
            share = cost / x_high if x_high > 0 else 0.5
        return round(COST_LEFT + plot_width * share, 1)

    def y_of(score: float) -> float:
        return round(COST_TOP + plot_height * (1 - (score - y_ticks[0]) / (y_ticks[-1] - y_ticks[0])), 1)

    by_score = sorted(shown, key=lambda row: (-row[4], row[3], row[1], row[2]))
    numbers = {row[0]: index for index, row in enumerate(by_score, 1)}
    points = [AgentPoint(agent_id, model, harness, cost, score, x_of(cost), y_of(score), on_front,
                         index // per_page + 1, numbers[agent_id])
              for agent_id, model, harness, cost, score, index, on_front in by_score]
    bottom = COST_HEIGHT - COST_BOTTOM
    front_line = [(point.x, point.y) for point in sorted((point for point in points if point.on_front),
                                                         key=lambda point: (point.cost, -point.score))]
    # Labels stay inside the plot: clear of the axes' tick labels, and of the front's line.
    points = _place_labels(points, COST_LEFT + 2, COST_TOP - 10, COST_WIDTH, bottom - 2, front_line)
    return CostChart(points, " ".join(f"{x},{y}" for x, y in front_line), COST_WIDTH, COST_HEIGHT,
                     COST_LEFT, bottom, [(x_of(cost), cost) for cost in x_ticks],
                     [(y_of(score), score) for score in y_ticks], log_scale, len(points), total, y_ticks[0])
