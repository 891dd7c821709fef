"""Running a solution on one input in a fresh store under fuel metering, and judging the answer (docs/method.md)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable

import wasmtime

from engine.judging import INVALID_OUTPUT, WRONG_ANSWER, Verdict
from engine.sandbox.cache import ModuleCache
from engine.sandbox.checks import InvalidModule, check_module, module_digest, trap_detail, trap_message
from engine.sandbox.engine import (
    EPOCH_TICK_SECONDS,
    INSTANTIATION_FUEL,
    MAX_TABLES,
    TABLE_ELEMENTS_LIMIT,
    U32,
    U64,
    engine,
    ticking,
)


class Status(StrEnum):
    PASSED = "passed"
    OVER_LIMIT = "over_limit"
    FUEL_EXHAUSTED = "fuel_exhausted"
    TIMEOUT = "timeout"
    TRAPPED = "trapped"
    INVALID_OUTPUT = "invalid_output"
    WRONG_ANSWER = "wrong_answer"
    SKIPPED = "skipped"

    @property
    def answered_correctly(self) -> bool:
        return self in (Status.PASSED, Status.OVER_LIMIT)


@dataclass(frozen=True)
class Outcome:
    """What happened to one input."""

    status: Status
    fuel: int | None  # see docs/method.md for what is recorded under each status
    fuel_limit: int
    ceiling: int
    overshoot: int = 0
    message: str = ""  # public: never quotes what the module chose
    wall_ms: float = 0.0
    output_size: int | None = None
    detail: str = ""  # the full text behind the message, for staff ("" when the message says it all)
    # SHA-256 of the answer the module returned, when it returned one that was read: a
    # re-measurement shows the same answer without the answer being kept.
    answer_digest: str = ""
    # The module's linear memory when the run ended, in bytes: its peak (a wasm memory never
    # shrinks). None where no instance was made.
    memory_bytes: int | None = None

    @classmethod
    def skipped(cls, fuel_limit: int, ceiling: int) -> "Outcome":
        return cls(Status.SKIPPED, None, fuel_limit, ceiling, message="not run: a smoke case failed")


class _Stop(Exception):
    """Ends a run early with an outcome (internal control flow)."""

    def __init__(self, outcome: Outcome):
        self.outcome = outcome


# judge(output, deadline) -> Verdict: checks a returned answer (engine/judging.py), by the
# `time.monotonic()` deadline that ends the input's wall-clock budget.
JudgeFunction = Callable[[bytes, float], Verdict]


@dataclass(frozen=True)
class Solution:
    """A compiled module that passed the ABI checks, ready to run inputs."""

    module: wasmtime.Module
    entry: str
    max_memory_bytes: int
    digest: str

    def run(self, input_bytes: bytes, *, judge: JudgeFunction, fuel_limit: int, ceiling: int,
            wall_seconds: float, answer_limit: int) -> Outcome:
        """Run one input in a fresh store and judge the answer (docs/method.md, checks in order).

        The wall-clock budget covers `alloc`, the entry and judging; an answer longer than
        `answer_limit` bytes is refused before it is read.
        """
        with ticking():  # the wall-clock guard counts the engine's epochs
            return self._run(input_bytes, judge=judge, fuel_limit=fuel_limit, ceiling=ceiling,
                             wall_seconds=wall_seconds, answer_limit=answer_limit)

    def _run(self, input_bytes: bytes, *, judge: JudgeFunction, fuel_limit: int, ceiling: int,
             wall_seconds: float, answer_limit: int) -> Outcome:
        store = wasmtime.Store(engine())
        # One instance, one memory, one bounded table: a module cannot make the host allocate
        # beyond the case's memory cap (and 8 MiB of table) through anything but its own memory.
        store.set_limits(memory_size=self.max_memory_bytes, table_elements=TABLE_ELEMENTS_LIMIT,
                         instances=1, tables=MAX_TABLES, memories=1)
        # Instantiation (copying data segments) runs under an allowance of its own, the same for every
        # input and every ceiling: hosts that charge it fuel and hosts that do not (wasmtime counts it
        # on some platforms only) pass and fail alike. The count proper starts after it.
        store.set_fuel(INSTANTIATION_FUEL)
        # Instantiation can check the epoch too (copying a data segment that lies high in memory
        # does): it runs under the guard, rather than against the store's default deadline of 0.
        guard_ticks = max(1, round(wall_seconds / EPOCH_TICK_SECONDS))
        store.set_epoch_deadline(guard_ticks)
        started = time.perf_counter()
        memory_seen: list = []  # [the instance's memory, its size when the store closed]

        def memory_bytes() -> int | None:
            if not memory_seen:
                return None
            if len(memory_seen) == 1:  # the store is open
                try:
                    return memory_seen[0].data_len(store)
                except wasmtime.WasmtimeError:
                    return None
            return memory_seen[1]

        def finish(status: Status, *, fuel: int | None, message: str = "", output_size: int | None = None,
                   detail: str = "", answer: bytes | None = None) -> Outcome:
            overshoot = fuel - fuel_limit if status is Status.OVER_LIMIT and fuel is not None else 0
            wall_ms = round((time.perf_counter() - started) * 1000, 3)
            return Outcome(status, fuel, fuel_limit, ceiling, overshoot, message, wall_ms, output_size,
                           detail if detail != message else "",
                           hashlib.sha256(answer).hexdigest() if answer is not None else "", memory_bytes())

        def used() -> int:
            return ceiling - store.get_fuel()

        def call(function, *args):
            try:
                result = function(store, *args)
            except wasmtime.Trap as trap:
                if trap.trap_code == wasmtime.TrapCode.OUT_OF_FUEL:
                    raise _Stop(finish(Status.FUEL_EXHAUSTED, fuel=ceiling, message="all fuel consumed")) from None
                if trap.trap_code == wasmtime.TrapCode.INTERRUPT:
                    raise _Stop(finish(Status.TIMEOUT, fuel=used(),
                                       message=f"wall-clock guard of {wall_seconds:g} s fired")) from None
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message=trap_message(trap),
                                   detail=trap_detail(trap))) from None
            except wasmtime.WasmtimeError as error:
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message=trap_message(error),
                                   detail=trap_detail(error))) from None
            # Fuel is checked only at function entries and loop back-edges: straight-line code
            # can run past the ceiling, and then the store reads 0.
            if store.get_fuel() == 0:
                raise _Stop(finish(Status.FUEL_EXHAUSTED, fuel=ceiling, message="all fuel consumed"))
            return result

        try:
            try:
                instance = wasmtime.Instance(store, self.module, [])
            except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
                if isinstance(error, wasmtime.Trap) and error.trap_code == wasmtime.TrapCode.OUT_OF_FUEL:
                    raise _Stop(finish(Status.TRAPPED, fuel=0, message="instantiation used more than its allowance "
                                                                      f"of {INSTANTIATION_FUEL:,} fuel")) from None
                raise _Stop(finish(Status.TRAPPED, fuel=0, message=f"instantiation failed: {trap_message(error)}",
                                   detail=trap_detail(error))) from None
            # Instantiation (data segments) may cost fuel on some hosts: count from here.
            store.set_fuel(ceiling)
            started = time.perf_counter()
            deadline = time.monotonic() + wall_seconds
            store.set_epoch_deadline(guard_ticks)
            exports = instance.exports(store)
            memory = exports["memory"]
            memory_seen.append(memory)

            address = call(exports["alloc"], len(input_bytes)) & U32
            if address + len(input_bytes) > memory.data_len(store):
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message="alloc returned an out-of-range buffer"))
            memory.write(store, input_bytes, address)

            packed = call(exports[self.entry], address, len(input_bytes)) & U64
            fuel_used = used()
            output_address, output_length = packed >> 32, packed & U32
            memory_size = memory.data_len(store)
            if output_address + output_length > memory_size:
                raise _Stop(finish(
                    Status.INVALID_OUTPUT, fuel=fuel_used,
                    message=f"output range [{output_address}, {output_address + output_length}) "
                            f"is outside memory ({memory_size:,} bytes)",
                ))
            if output_length > answer_limit:
                raise _Stop(finish(
                    Status.INVALID_OUTPUT, fuel=fuel_used, output_size=output_length,
                    message=f"output is {output_length:,} bytes, more than the {answer_limit:,}-byte limit for this "
                            f"input",
                ))
            output = bytes(memory.read(store, output_address, output_address + output_length))
        except _Stop as stop:
            return stop.outcome
        finally:
            if len(memory_seen) == 1:
                memory_seen.append(memory_bytes())
            store.close()

        verdict = judge(output, deadline)
        size = len(output)
        if verdict.status == INVALID_OUTPUT:
            return finish(Status.INVALID_OUTPUT, fuel=fuel_used, message=verdict.message, detail=verdict.detail,
                          output_size=size, answer=output)
        if verdict.status == WRONG_ANSWER:
            return finish(Status.WRONG_ANSWER, fuel=fuel_used, message=verdict.message, detail=verdict.detail,
                          output_size=size, answer=output)
        if fuel_used > fuel_limit:
            return finish(Status.OVER_LIMIT, fuel=fuel_used,
                          message=f"correct, {fuel_used - fuel_limit:,} fuel over the limit",
                          output_size=size, answer=output)
        return finish(Status.PASSED, fuel=fuel_used, output_size=size, answer=output)


def load_solution(wasm: bytes, *, entry: str, max_memory_bytes: int, cache: ModuleCache,
                  max_module_bytes: int | None = None, digest: str | None = None) -> Solution:
    """Compile (or fetch from the cache) and check a module. Raises InvalidModule.

    `digest` is `module_digest(wasm)` if the caller already has it: a module is hashed once.
    """
    if max_module_bytes is not None and len(wasm) > max_module_bytes:
        raise InvalidModule("too_large",
                            f"module is {len(wasm):,} bytes, more than the {max_module_bytes:,}-byte limit")
    if not wasm.startswith(b"\0asm"):
        raise InvalidModule("not_wasm", "not a WebAssembly binary (it does not start with \\0asm)")
    if wasm[4:8] != b"\x01\x00\x00\x00":
        raise InvalidModule("not_core_module",
                            "not a WebAssembly core module (a component or an unknown binary version)")
    digest = digest or module_digest(wasm)
    module = cache.get(wasm, digest)
    check_module(module, wasm, entry, max_memory_bytes)
    return Solution(module=module, entry=entry, max_memory_bytes=max_memory_bytes, digest=digest)
