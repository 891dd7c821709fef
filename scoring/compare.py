"""Two submissions on the same version, input by input: the fuel each used and the ratio."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.boards import RANKED
from scoring.models import Result, Standing, Submission


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

    return (Standing.objects.board(version_id).filter(board_group=RANKED).in_board_order()
            .values_list("submission_id", flat=True).first())
