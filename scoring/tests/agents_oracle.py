"""The agents matrix written the plain way, over a list of trials in Python: the oracle the
stored cells, lines, orders and Pareto front are checked against (scoring/agents/ does not use
it, nor lib/stats.py: the interval is the quadratic's roots, the front a comparison of every pair)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

Z = 1.959963984540054


@dataclass(frozen=True)
class Trial:
    """One entry as a test made it."""

    model: str  # "" for an entry whose run names no model
    harness: str
    case: int  # the version's id
    passed: bool
    fuel: int | None  # total fuel (None when it failed)
    hidden: bool = False
    excluded: bool = False
    scored: bool = True  # False: still pending (no trial)
    cost: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None

    @property
    def on_board(self) -> bool:
        return self.scored and not self.hidden

    @property
    def ranked(self) -> bool:
        return self.on_board and not self.excluded and self.passed


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The p where n (p̂ − p)² = z² p (1 − p): the roots of (n + z²) p² − (2 n p̂ + z²) p + n p̂² = 0."""
    if not trials:
        return 0.0, 1.0
    rate = successes / trials
    a, b, c = trials + Z * Z, -(2 * trials * rate + Z * Z), trials * rate * rate
    root = math.sqrt(max(b * b - 4 * a * c, 0.0))
    return max(0.0, (-b - root) / (2 * a)), min(1.0, (-b + root) / (2 * a))


FAST_P = (0.5, 0.8, 1.0, 1.5, 2.0, 5.0, 10.0)
K = 3


def at_least_one_of_k(n: int, c: int, k: int = K) -> float:
    """The chance that k trials drawn without replacement from n, c of them good, hold a good one
    (missing trials, below k, count as bad): counted draw by draw, not by the closed form."""
    if n < k:
        return 1.0 if c else 0.0
    none_good = 1.0
    for draw in range(k):
        none_good *= (n - c - draw) / (n - draw)
    return 1.0 - max(none_good, 0.0)


def matrix(trials: list[Trial], cases: set[int], references: dict[int, int] | None = None) -> dict:
    """{"cells": {(model, harness, case): {...}}, "lines": {(model, harness): {...}}} over `cases`,
    with each line's figures against `references` (case → the reference entry's fuel)."""
    references = {case: fuel for case, fuel in (references or {}).items() if case in cases}
    case_best = {}
    for case in cases:
        fuels = [trial.fuel for trial in trials if trial.case == case and trial.ranked]
        case_best[case] = min(fuels) if fuels else None
    cells = {}
    for trial in trials:
        if not trial.model or not trial.on_board or trial.case not in cases:
            continue
        cell = cells.setdefault((trial.model, trial.harness, trial.case), {
            "trials": 0, "solved": 0, "best": None, "costs": [], "inputs": [], "outputs": [], "fuels": []})
        cell["trials"] += 1
        if trial.ranked:
            cell["solved"] += 1
            cell["best"] = trial.fuel if cell["best"] is None else min(cell["best"], trial.fuel)
            cell["fuels"].append(trial.fuel)
        for name, value in (("costs", trial.cost), ("inputs", trial.input_tokens), ("outputs", trial.output_tokens)):
            if value is not None:
                cell[name].append(value)
    lines = {}
    for (model, harness, case), cell in cells.items():
        line = lines.setdefault((model, harness), {"entered": 0, "solved": 0, "trials": 0, "solved_trials": 0,
                                                   "exact_score": Fraction(0), "costs": [], "inputs": [],
                                                   "outputs": []})
        line["entered"] += 1
        line["trials"] += cell["trials"]
        line["solved_trials"] += cell["solved"]
        if cell["best"] is not None:
            line["solved"] += 1
            line["exact_score"] += Fraction(max(case_best[case], 1), max(cell["best"], 1))
        for name in ("costs", "inputs", "outputs"):
            line[name] += cell[name]
    for (model, harness), line in lines.items():
        own = {case: cell for (who, under, case), cell in cells.items() if (who, under) == (model, harness)}
        speedups = [references[case] / cell["best"] for case, cell in own.items()
                    if case in references and cell["best"] is not None]

        def good(case: int, p: float) -> int:  # its trials at least p times as cheap as the reference
            return sum(1 for fuel in own[case]["fuels"] if fuel * round(p * 10) <= references[case] * 10)

        # An untried case with a reference counts 0 in both; a case is an average over its trials.
        line["fast"] = {f"{p:g}": (sum(good(case, p) / own[case]["trials"] for case in references if case in own)
                                   / len(references) if references else None) for p in FAST_P}
        line["fast_at_k"] = {f"{p:g}": (sum(at_least_one_of_k(own[case]["trials"], good(case, p))
                                            for case in references if case in own) / len(references)
                                        if references else None) for p in FAST_P}
        # The harmonic mean over every case with a reference, one not solved (or not tried) at 1×.
        line["harmonic"] = (len(references) / sum(1 / (references[case] / own[case]["best"])
                                                  if case in own and own[case]["best"] is not None else 1.0
                                                  for case in references) if references else None)
        line["speedup_cases"] = len(speedups)
        line["speedup"] = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
        line["solved_share"] = line["solved"] / len(cases) if cases else 0.0
        line["solved_interval"] = wilson(line["solved"], len(cases))
    for line in lines.values():
        line["pass_rate"] = line["solved_trials"] / line["trials"]
        line["interval"] = wilson(line["solved_trials"], line["trials"])
        line["score"] = float(line["exact_score"])
        line["exact_cost"] = sum(map(Fraction, line["costs"])) / len(line["costs"]) if line["costs"] else None
        line["mean_cost"] = float(line["exact_cost"]) if line["costs"] else None
    for (model, harness, case), cell in cells.items():
        cell["share"] = cell["best"] / case_best[case] if cell["best"] is not None and case_best[case] else None
    return {"cells": cells, "lines": lines}


# Orders and the front compare scores and costs exactly (as fractions): two agents whose scores
# are the same number tie, however the site's sums happened to round.

def by_solved(lines: dict) -> list[tuple[str, str]]:
    """The agents in the page's default order: cases solved, then score, then pass rate, then the names."""
    return sorted(lines, key=lambda agent: (-lines[agent]["solved"], -lines[agent]["exact_score"],
                                            -lines[agent]["pass_rate"], agent))


def by_score(lines: dict) -> list[tuple[str, str]]:
    """The agents by score, then cases solved, then pass rate, then the names."""
    return sorted(lines, key=lambda agent: (-lines[agent]["exact_score"], -lines[agent]["solved"],
                                            -lines[agent]["pass_rate"], agent))


def front(lines: dict) -> set[tuple[str, str]]:
    """The agents with a cost that no other agent beats on both cost and score."""
    costed = {agent: (line.get("exact_cost", line["mean_cost"]), line.get("exact_score", line["score"]))
              for agent, line in lines.items() if line["mean_cost"] is not None}

    def beats(a, b) -> bool:
        (cost_a, score_a), (cost_b, score_b) = costed[a], costed[b]
        return cost_a <= cost_b and score_a >= score_b and (cost_a < cost_b or score_a > score_b)

    return {agent for agent in costed if not any(beats(other, agent) for other in costed if other != agent)}
