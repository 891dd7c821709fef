"""Run a module on inputs of one's own as the site runs it on its held-out inputs.

Nothing here is the meter's own: the module is measured by engine.measure, the recipe the site's
scorer follows too (scoring/measuring.py); only the inputs, their expected answers and the ceiling
come from the person running it. Every input is run as a stress input is (none gates another).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from engine.evaluate import EvaluationInput
from engine.kinds import Kind
from engine.measure import Item, Reading, inputs, measure_module
from engine.meter.contract import Contract, ContractError
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, ModuleCache, Outcome


@dataclass(frozen=True)
class MeterInput:
    name: str  # as it is shown and reported (the file's path as given)
    input_bytes: bytes
    expected: bytes | None  # None: the answer is checked against the output schema only


def check_engine(contract: Contract) -> None:
    """Refuse to measure with an engine other than the one the contract was written for."""
    if (contract.wasmtime, contract.config_digest) != (WASMTIME_VERSION, ENGINE_DIGEST):
        raise ContractError(
            f"this contract was written for wasmtime {contract.wasmtime} with engine configuration "
            f"{contract.config_digest}; this meter has wasmtime {WASMTIME_VERSION} with {ENGINE_DIGEST}, whose "
            "counts could differ. Install the meter's pinned requirements (pip install -r meter/requirements.txt)")


def meter(wasm: bytes, given: Sequence[MeterInput], contract: Contract, *, ceilings: Sequence[int], threads: int = 1,
          keep_answers: bool = False, progress: Callable[[int, EvaluationInput, Outcome], None] | None = None
          ) -> Reading:
    """Check the module against the ABI and run every input under its ceiling. Raises
    InvalidModule (the site's `invalid_module`) or ContractError. An input given without its
    expected answer may answer as much as the site reads for the largest held-out input."""
    check_engine(contract)
    limits = contract.limits
    # Compiled in a child process under the site's time and memory bounds, in memory only.
    cache = ModuleCache(None, compile_seconds=limits.compile_seconds, compile_memory_bytes=limits.compile_memory_bytes)
    held_out = inputs((Item(Kind.STRESS, item.name, item.input_bytes, item.expected, ceiling,
                            None if item.expected is not None else contract.answer_bytes)
                       for item, ceiling in zip(given, ceilings, strict=True)), limits)
    return measure_module(wasm, held_out, contract.task, limits, cache=cache, threads=threads,
                          keep_answers=keep_answers, progress=progress)
