"""Run a module on inputs of one's own as the site runs it on its held-out inputs.

Nothing here is the meter's own: the module is checked by `load_solution()`, each input runs in
`Solution.run()` through `evaluate()`, each answer is judged by a judge process, as when the site
scores an entry (scoring/measuring.py); only the inputs, their expected answers and the ceiling
come from the person running it. Every input is run as a stress input is (none gates another).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

from engine.evaluate import EvaluationInput, evaluate
from engine.judging import Judge, Verdict
from engine.kinds import Kind
from engine.meter.contract import Contract, ContractError
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, ModuleCache, Outcome, load_solution, module_digest


@dataclass(frozen=True)
class MeterInput:
    name: str  # as it is shown and reported (the file's path as given)
    input_bytes: bytes
    expected: bytes | None  # None: the answer is checked against the output schema only


@dataclass
class Reading:
    module: str  # the module's SHA-256
    module_size: int
    outcomes: tuple[Outcome, ...]  # in the order of the inputs
    answers: dict[str, bytes] = field(default_factory=dict)  # by answer digest, when kept


class _Keeping:
    """The judge, keeping each answer it is shown (by its digest, as an outcome names it)."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self.answers: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def check(self, output: bytes, expected: bytes | None, *, deadline: float) -> Verdict:
        with self._lock:
            self.answers[hashlib.sha256(output).hexdigest()] = bytes(output)
        return self.judge.check(output, expected, deadline=deadline)


def check_engine(contract: Contract) -> None:
    """Refuse to measure with an engine other than the one the contract was written for."""
    if (contract.wasmtime, contract.config_digest) != (WASMTIME_VERSION, ENGINE_DIGEST):
        raise ContractError(
            f"this contract was written for wasmtime {contract.wasmtime} with engine configuration "
            f"{contract.config_digest}; this meter has wasmtime {WASMTIME_VERSION} with {ENGINE_DIGEST}, whose "
            "counts could differ. Install the meter's pinned requirements (pip install -r meter/requirements.txt)")


def meter(wasm: bytes, inputs: Sequence[MeterInput], contract: Contract, *, ceilings: Sequence[int], threads: int = 1,
          keep_answers: bool = False, progress: Callable[[int, EvaluationInput, Outcome], None] | None = None
          ) -> Reading:
    """Check the module against the ABI and run every input under its ceiling. Raises
    InvalidModule (the site's `invalid_module`) or ContractError."""
    check_engine(contract)
    digest = module_digest(wasm)
    # Compiled in a child process under the site's time and memory bounds, in memory only.
    cache = ModuleCache(None, compile_seconds=contract.compile_seconds,
                        compile_memory_bytes=contract.compile_memory_bytes)
    solution = load_solution(wasm, entry=contract.entry, max_memory_bytes=contract.max_memory_bytes, cache=cache,
                             max_module_bytes=contract.module_bytes, digest=digest)
    judge = Judge(contract.output_schema.encode("utf-8"), memory_bytes=contract.judge_memory_bytes)
    keeping = _Keeping(judge) if keep_answers else None
    held_out = [
        EvaluationInput(Kind.STRESS, item.name, item.input_bytes, item.expected, ceiling,
                        contract.answer_limit(None if item.expected is None else len(item.expected)))
        for item, ceiling in zip(inputs, ceilings, strict=True)
    ]
    evaluation = evaluate(solution, held_out, fuel_limit=contract.fuel_limit, judge=keeping or judge,
                          wall_seconds=contract.wall_seconds, threads=threads, progress=progress)
    return Reading(digest, len(wasm), evaluation.outcomes, keeping.answers if keeping else {})
