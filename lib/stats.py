"""Small statistics the result pages share: a binomial proportion's confidence interval and the
Pareto front of cost against score. Plain: no app, no database."""

from __future__ import annotations

import math
from typing import Hashable, Iterable

# The normal quantile of a two-sided 95% interval.
Z_95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of `successes` out of `trials` (95% by default): unlike the
    normal approximation it stays within [0, 1] and is not empty at 0 or `trials` successes.
    With no trials nothing is known: (0, 1)."""
    if trials <= 0:
        return 0.0, 1.0
    rate = successes / trials
    spread = z * z / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / trials + spread / (4 * trials)) / (1 + spread)
    # At no success (or no failure) the bound is exactly 0 (or 1), whatever the rounding says.
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def pareto_front(points: Iterable[tuple[Hashable, float, float]]) -> list[Hashable]:
    """The keys of the (key, cost, score) points that no other point beats on both: none costs no
    more and scores no less while doing better on one of the two. Ordered by cost, cheapest
    first (the front's line runs through them in this order); equal points are all on it."""
    ordered = sorted(points, key=lambda point: (point[1], -point[2]))
    front: list[Hashable] = []
    best_score, best_cost = -math.inf, None
    for key, cost, score in ordered:
        if score > best_score:
            front.append(key)
            best_score, best_cost = score, cost
        elif score == best_score and cost == best_cost:  # the same as a point on the front: not beaten
            front.append(key)
    return front
