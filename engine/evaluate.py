"""Evaluate a solution on a version's held-out inputs: smoke phase, then stress (docs/method.md).

No Django here. Inputs run in a thread pool (each in its own store); results are returned in
manifest order and do not depend on the number of threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable, Sequence

from engine.judging import Judge
from engine.kinds import Kind
from engine.sandbox import Outcome, Solution, Status


@dataclass(frozen=True)
class EvaluationInput:
    """One held-out input as an evaluation runs it: its bytes, its expected answer, its ceiling.

    (The manifest declares a `[[case]]` as a `catalog.manifest.HeldOutCase`; the database keeps it
    as a `catalog.models.HeldOutInput`.)"""

    kind: Kind
    input_path: str
    input_bytes: bytes
    expected: bytes | None  # the expected answer, as stored (None: the fuel meter was given none)
    ceiling: int
    answer_limit: int  # the largest answer accepted (engine.judging.answer_limit)


@dataclass(frozen=True)
class Evaluation:
    held_out: tuple[EvaluationInput, ...]
    outcomes: tuple[Outcome, ...]  # manifest order

    def _stress(self) -> list[Outcome]:
        return [outcome for held_out, outcome in zip(self.held_out, self.outcomes) if held_out.kind == Kind.STRESS]

    def _smoke(self) -> list[Outcome]:
        return [outcome for held_out, outcome in zip(self.held_out, self.outcomes) if held_out.kind == Kind.SMOKE]

    @property
    def passed(self) -> bool:
        """Every smoke case answered correctly and every stress case within the pass line."""
        return all(outcome.status.answered_correctly for outcome in self._smoke()) and all(
            outcome.status is Status.PASSED for outcome in self._stress()
        )

    @property
    def total_fuel(self) -> int | None:
        """The sum over the stress cases, when every one of them was answered correctly."""
        stress = self._stress()
        if not all(outcome.status.answered_correctly for outcome in stress):
            return None
        return sum(outcome.fuel or 0 for outcome in stress)

    @property
    def overshoot(self) -> int:
        return sum(outcome.overshoot for outcome in self._stress())

    @property
    def passed_count(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status is Status.PASSED)


Progress = Callable[[int, EvaluationInput, Outcome], None]


def evaluate(solution: Solution, held_out: Sequence[EvaluationInput], *, fuel_limit: int, judge: Judge,
             wall_seconds: float, threads: int = 1, progress: Progress | None = None,
             gate: bool = True) -> Evaluation:
    """Smoke cases first, all of them; if any fails, every stress case is skipped — unless not
    `gate` (an author's check runs every input, so one run shows every defect)."""
    held_out = tuple(held_out)
    outcomes: list[Outcome | None] = [None] * len(held_out)

    def run_phase(kind: str) -> None:
        indexes = [index for index, item in enumerate(held_out) if item.kind == kind]
        if not indexes:
            return

        def run(index: int) -> Outcome:
            item = held_out[index]
            return solution.run(
                item.input_bytes, fuel_limit=fuel_limit, ceiling=item.ceiling, wall_seconds=wall_seconds,
                answer_limit=item.answer_limit,
                judge=lambda output, deadline: judge.check(output, item.expected, deadline=deadline),
            )

        if threads <= 1 or len(indexes) == 1:
            for index in indexes:
                outcomes[index] = run(index)
                if progress:
                    progress(index, held_out[index], outcomes[index])
            return
        with ThreadPoolExecutor(max_workers=min(threads, len(indexes)), thread_name_prefix="score") as pool:
            futures = {pool.submit(run, index): index for index in indexes}
            for future in as_completed(futures):
                index = futures[future]
                outcomes[index] = future.result()
                if progress:
                    progress(index, held_out[index], outcomes[index])

    run_phase(Kind.SMOKE)
    smoke_failed = any(
        outcome is not None and not outcome.status.answered_correctly
        for item, outcome in zip(held_out, outcomes) if item.kind == Kind.SMOKE
    )
    if smoke_failed and gate:
        for index, item in enumerate(held_out):
            if item.kind == Kind.STRESS:
                outcomes[index] = Outcome.skipped(fuel_limit, item.ceiling)
                if progress:
                    progress(index, item, outcomes[index])
    else:
        run_phase(Kind.STRESS)
    return Evaluation(held_out, tuple(outcome for outcome in outcomes if outcome is not None))
