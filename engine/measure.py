"""Measuring a module on a version's inputs: the one recipe of the site's scorer
(scoring/measuring.py), the fuel meter every kit carries (engine/meter/) and the authors'
workbench (scoring/workbench/), so that the three agree by construction.

The inputs are assembled here, once (`inputs()`: each input's answer cap from its expected
answer's size); the module is checked against the ABI (`load_solution`), each input runs in a
fresh instance under its ceiling (`evaluate`), and each answer is judged in a judge process. What
differs between the three is only where the inputs and the limits come from: the database, a
kit's contract, a version folder.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Callable, Iterable

from engine.evaluate import Evaluation, EvaluationInput, evaluate
from engine.judging import Judge, Verdict, answer_limit
from engine.kinds import Kind
from engine.sandbox import ModuleCache, Outcome, load_solution, module_digest


@dataclass(frozen=True)
class SiteLimits:
    """What the site sets around a version's own limits (its settings; a kit's contract carries them)."""

    wall_seconds: float
    answer_min_bytes: int
    answer_size_factor: int
    module_bytes: int
    compile_seconds: float
    compile_memory_bytes: int
    judge_memory_bytes: int

    def answer_cap(self, expected_size: int) -> int:
        """The largest answer read for an input whose expected answer has this size."""
        return answer_limit(expected_size, minimum=self.answer_min_bytes, factor=self.answer_size_factor)


@dataclass(frozen=True)
class Task:
    """What a version asks of a module: its entry and output schema, its pass line and memory cap."""

    entry: str
    output_schema: bytes
    fuel_limit: int
    max_memory_bytes: int


@dataclass(frozen=True)
class Item:
    """One input to measure: its kind (smoke inputs gate stress ones), name, bytes, expected answer
    (None: the answer is checked against the schema only) and ceiling. `answer_bytes` caps the
    answer (by default, the cap the expected answer's size gives: SiteLimits.answer_cap)."""

    kind: Kind
    name: str
    input_bytes: bytes
    expected: bytes | None
    ceiling: int
    answer_bytes: int | None = None


def inputs(items: Iterable[Item], limits: SiteLimits) -> list[EvaluationInput]:
    """The items as an evaluation runs them: each answer capped (by its expected answer's size,
    unless the item says otherwise)."""
    return [EvaluationInput(item.kind, item.name, item.input_bytes, item.expected, item.ceiling,
                            item.answer_bytes if item.answer_bytes is not None
                            else limits.answer_cap(len(item.expected) if item.expected is not None else 0))
            for item in items]


@dataclass
class Reading:
    """What measuring a module gave: its digest and size, and the evaluation of every input."""

    module: str  # the module's SHA-256
    module_size: int
    evaluation: Evaluation
    answers: dict[str, bytes] = field(default_factory=dict)  # by answer digest, when kept

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return self.evaluation.outcomes


class _Keeping:
    """A judge that keeps each answer it is shown (by its digest, as an outcome names it)."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self.answers: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def check(self, output: bytes, expected: bytes | None, *, deadline: float) -> Verdict:
        with self._lock:
            self.answers[hashlib.sha256(output).hexdigest()] = bytes(output)
        return self.judge.check(output, expected, deadline=deadline)


def measure_module(wasm: bytes, held_out: list[EvaluationInput], task: Task, limits: SiteLimits, *,
                   cache: ModuleCache, threads: int, judge: Judge | None = None, keep_answers: bool = False,
                   progress: Callable[[int, EvaluationInput, Outcome], None] | None = None,
                   started: Callable[[int], None] | None = None, digest: str | None = None,
                   gate: bool = True) -> Reading:
    """Check `wasm` against the ABI and run it on every input (smoke first; with `gate`, stress
    inputs are skipped once a smoke input fails). Raises InvalidModule (nothing ran). `judge`: one
    to reuse (a judge is a process pool's client); `started(count)` is told once the module is
    accepted, `progress` after each input."""
    digest = digest or module_digest(wasm)
    solution = load_solution(wasm, entry=task.entry, max_memory_bytes=task.max_memory_bytes, cache=cache,
                             max_module_bytes=limits.module_bytes, digest=digest)
    if started is not None:
        started(len(held_out))
    judge = judge or Judge(task.output_schema, memory_bytes=limits.judge_memory_bytes)
    keeping = _Keeping(judge) if keep_answers else None
    evaluation = evaluate(solution, held_out, fuel_limit=task.fuel_limit, judge=keeping or judge,
                          wall_seconds=limits.wall_seconds, threads=threads, progress=progress, gate=gate)
    return Reading(digest, len(wasm), evaluation, keeping.answers if keeping else {})
