"""Two submissions on the same version, input by input: the fuel each used and the ratio."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.models import Result, Submission

CHART_HALF_WIDTH = 260  # SVG units from the middle (ratio 1) to the edge
CHART_ROW_HEIGHT = 22
CHART_LABEL_WIDTH = 120


class NotComparable(Exception):
    """The two submissions cannot be compared input by input (the reason is the message)."""


@dataclass(frozen=True)
class InputPair:
    position: int
    kind: str
    input_path: str
    a: Result | None
    b: Result | None

    @property
    def ratio(self) -> float | None:
        """A's fuel ÷ B's, when both passed (below 1: A used less)."""
        if self.a is None or self.b is None or self.a.status != "passed" or self.b.status != "passed":
            return None
        return max(self.a.fuel, 1) / max(self.b.fuel, 1)



@dataclass(frozen=True)
class Bar:
    pair: InputPair
    x: float  # left edge, SVG units
    width: float
    y: int
    slower: bool  # A used more fuel than B on this input


@dataclass(frozen=True)
class Comparison:
    a: Submission
    b: Submission
    pairs: list[InputPair]

    @property
    def total_ratio(self) -> float | None:
        """A's total fuel ÷ B's, when both passed every input."""
        if not (self.a.passed and self.b.passed):
            return None
        return max(self.a.total_fuel, 1) / max(self.b.total_fuel, 1)

    @property
    def geometric_mean(self) -> float | None:
        """The geometric mean of the per-input ratios, over inputs both passed."""
        ratios = [pair.ratio for pair in self.pairs if pair.ratio is not None]
        if not ratios:
            return None
        return math.exp(sum(math.log(ratio) for ratio in ratios) / len(ratios))

    def bars(self) -> list[Bar]:
        """A bar per input both passed, from the middle (ratio 1) outwards, on a log scale:
        left where A used less, right where it used more."""
        rated = [pair for pair in self.pairs if pair.ratio is not None]
        if not rated:
            return []
        span = max(max(abs(math.log10(pair.ratio)) for pair in rated), 0.3)  # at least a factor of 2 each way
        middle = CHART_LABEL_WIDTH + CHART_HALF_WIDTH
        bars = []
        for index, pair in enumerate(rated):
            width = round(CHART_HALF_WIDTH * abs(math.log10(pair.ratio)) / span, 1)
            slower = pair.ratio > 1
            bars.append(Bar(pair, middle if slower else middle - width, max(width, 0.5), index * CHART_ROW_HEIGHT, slower))
        return bars



def compare(a: Submission, b: Submission) -> Comparison:
    """Pair the results of two submissions input by input. Raises NotComparable."""
    if a.version_id != b.version_id:
        raise NotComparable(
            f"submission #{a.pk} is on {a.version.case.slug} {a.version.version} and #{b.pk} on "
            f"{b.version.case.slug} {b.version.version}: only submissions on the same version have the same inputs "
            "(compare a carried entry instead)"
        )
    results = {}
    for result in Result.objects.filter(submission__in=[a.pk, b.pk]).order_by("position"):
        results.setdefault(result.position, {})[result.submission_id] = result
    held_out = a.version.held_out_inputs.order_by("position").values_list("position", "kind", "input_path")
    pairs = [InputPair(position, kind, path, results.get(position, {}).get(a.pk), results.get(position, {}).get(b.pk))
             for position, kind, path in held_out]
    return Comparison(a, b, pairs)


def leader_of(version_id: int) -> int | None:
    """The submission at rank 1 of the version's leaderboard (every variant), if any."""
    from scoring.boards import RANKED
    from scoring.models import Standing

    return (Standing.objects.board(version_id).filter(board_group=RANKED).in_board_order()
            .values_list("submission_id", flat=True).first())
