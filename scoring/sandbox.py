"""Run a solution module on one input in a wasmtime sandbox under fuel metering (SPEC §4–§5).

No Django here. `load_solution()` compiles and checks a module once; `Solution.run()` runs it on
one input in a fresh store and returns an `Outcome`. Engine and Module are shared across threads;
each run makes its own Store, so one solution may run many inputs in parallel.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

import wasmtime

from lib.schemas import first_schema_violation
from lib.strictjson import JSONDocumentError, first_difference, loads_strict

WASMTIME_VERSION = package_version("wasmtime")
WASM_PAGE = 65_536
U32 = 0xFFFF_FFFF
U64 = 0xFFFF_FFFF_FFFF_FFFF
# Table slots one instance may hold (function-pointer tables of real programs are far smaller).
TABLE_ELEMENTS_LIMIT = 1 << 20
# How often the engine's epoch advances; the wall-clock guard is counted in these ticks.
EPOCH_TICK_SECONDS = 0.01


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
    fuel: int | None  # see SPEC §5 for what is recorded under each status
    fuel_limit: int
    ceiling: int
    overshoot: int = 0
    message: str = ""
    wall_ms: float = 0.0
    output_size: int | None = None

    @classmethod
    def skipped(cls, fuel_limit: int, ceiling: int) -> "Outcome":
        return cls(Status.SKIPPED, None, fuel_limit, ceiling, message="not run: a smoke case failed")


class InvalidModule(Exception):
    """The module breaks the solution ABI; nothing is run."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# --- the engine ---------------------------------------------------------------------------------

_engine: wasmtime.Engine | None = None
_engine_lock = threading.Lock()


def _tick(engine: wasmtime.Engine) -> None:
    while True:
        time.sleep(EPOCH_TICK_SECONDS)
        engine.increment_epoch()


def engine() -> wasmtime.Engine:
    """The process-wide engine: fuel on, epoch interruption on, default Cranelift settings."""
    global _engine
    with _engine_lock:
        if _engine is None:
            config = wasmtime.Config()
            config.consume_fuel = True
            config.epoch_interruption = True
            _engine = wasmtime.Engine(config)
            threading.Thread(target=_tick, args=(_engine,), name="wasm-epoch", daemon=True).start()
        return _engine


# --- module checks ------------------------------------------------------------------------------


def _leb_u32(data: bytes, offset: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if offset >= len(data) or shift > 28:
            raise ValueError("malformed LEB128")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, offset


def _section_facts(wasm: bytes) -> tuple[bool, int]:
    """(has a start section, number of memories the module defines), from the binary itself.

    wasmtime's API exposes neither; the module has already compiled, so the framing is sound.
    """
    offset = 8  # magic + version
    has_start = False
    memories = 0
    while offset < len(wasm):
        section_id = wasm[offset]
        size, offset = _leb_u32(wasm, offset + 1)
        if section_id == 8:
            has_start = True
        elif section_id == 5:
            memories, _ = _leb_u32(wasm, offset)
        offset += size
    return has_start, memories


def _describe_func(functype: wasmtime.FuncType) -> str:
    params = ", ".join(str(param) for param in functype.params)
    results = ", ".join(str(result) for result in functype.results)
    return f"({params}) -> ({results})"


def _check_function(exports: dict, name: str, params: list[str], results: list[str], problems: list[str]) -> None:
    wanted = f"({', '.join(params)}) -> ({', '.join(results)})"
    export = exports.get(name)
    if export is None:
        problems.append(f"missing export `{name}` {wanted}")
    elif not isinstance(export, wasmtime.FuncType):
        problems.append(f"export `{name}` must be a function {wanted}")
    elif [str(p) for p in export.params] != params or [str(r) for r in export.results] != results:
        problems.append(f"export `{name}` has type {_describe_func(export)}, expected {wanted}")


def check_module(module: wasmtime.Module, wasm: bytes, entry: str, max_memory_bytes: int) -> None:
    """Raise InvalidModule naming every way the module breaks the ABI of SPEC §4."""
    problems: list[str] = []
    imports = [f"{item.module}.{item.name}" for item in module.imports]
    if imports:
        shown = ", ".join(f"`{name}`" for name in imports[:5]) + (", …" if len(imports) > 5 else "")
        problems.append(f"module must be import-free but imports {shown}")
    has_start, memory_count = _section_facts(wasm)
    if has_start:
        problems.append("module has a start function (section 8), which is not allowed")
    if memory_count > 1:
        problems.append(f"module declares {memory_count} memories; exactly one is allowed")
    exports = {export.name: export.type for export in module.exports}
    memory = exports.get("memory")
    if memory is None:
        problems.append("missing export `memory`")
    elif not isinstance(memory, wasmtime.MemoryType):
        problems.append("export `memory` must be a memory")
    elif memory.is_64:
        problems.append("export `memory` must be a 32-bit memory")
    elif memory.limits.min * memory.page_size > max_memory_bytes:
        problems.append(
            f"initial memory of {memory.limits.min * memory.page_size:,} bytes exceeds "
            f"max_memory_bytes ({max_memory_bytes:,})"
        )
    _check_function(exports, "alloc", ["i32"], ["i32"], problems)
    _check_function(exports, entry, ["i32", "i32"], ["i64"], problems)
    if problems:
        raise InvalidModule("; ".join(problems))


# --- compiled modules, cached -------------------------------------------------------------------


class ModuleCache:
    """Compiled modules by content digest and wasmtime version: in memory, and on disk if given.

    The disk holds wasmtime's own serialised artifacts, written only by this class; they are
    loaded only when both the digest and the wasmtime version match.
    """

    def __init__(self, directory: Path | None = None, capacity: int = 16, compile_seconds: float | None = None):
        """`compile_seconds`: compile in a child process killed after that long (for untrusted
        modules); None compiles in this process (for modules of our own, and fast tests)."""
        self.directory = Path(directory) if directory else None
        self.capacity = capacity
        self.compile_seconds = compile_seconds
        self._memory: OrderedDict[str, wasmtime.Module] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0  # how many times this cache had to compile (for tests and benchmarks)

    def _path(self, digest: str) -> Path | None:
        return self.directory / f"{digest}-wasmtime-{WASMTIME_VERSION}.cwasm" if self.directory else None

    def get(self, wasm: bytes, digest: str | None = None) -> wasmtime.Module:
        """The compiled module; `digest` is `module_digest(wasm)` if the caller already has it."""
        digest = digest or module_digest(wasm)
        with self._lock:
            module = self._memory.get(digest)
            if module is not None:
                self._memory.move_to_end(digest)
                return module
        module = self._load(digest) or self._compile(wasm, digest)
        with self._lock:
            self._memory[digest] = module
            while len(self._memory) > self.capacity:
                self._memory.popitem(last=False)
        return module

    def _load(self, digest: str) -> wasmtime.Module | None:
        path = self._path(digest)
        if path is None or not path.is_file():
            return None
        try:
            return wasmtime.Module.deserialize_file(engine(), str(path))
        except (wasmtime.WasmtimeError, OSError):
            return None  # stale or damaged: compile again

    def _compile_in_child(self, wasm: bytes) -> wasmtime.Module:
        with tempfile.TemporaryDirectory(prefix="compile-") as temp:
            source, target = Path(temp) / "module.wasm", Path(temp) / "module.cwasm"
            source.write_bytes(wasm)
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "scoring.compile_worker", str(source), str(target)],
                    cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                    timeout=self.compile_seconds, stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired:
                raise InvalidModule(f"module did not compile within {self.compile_seconds:g} s") from None
            if done.returncode != 0 or not target.is_file():
                reason = _first_line(done.stderr) or f"the compiler exited with status {done.returncode}"
                raise InvalidModule(f"module does not compile: {reason}")
            return wasmtime.Module.deserialize(engine(), target.read_bytes())

    def _compile(self, wasm: bytes, digest: str) -> wasmtime.Module:
        if self.compile_seconds is not None:
            module = self._compile_in_child(bytes(wasm))
        else:
            try:
                module = wasmtime.Module(engine(), bytes(wasm))
            except wasmtime.WasmtimeError as exc:
                raise InvalidModule(f"module does not compile: {_first_line(str(exc))}") from None
        self.compiles += 1
        path = self._path(digest)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(handle, "wb") as stream:
                    stream.write(module.serialize())
                os.replace(temp, path)
            except OSError:
                pass  # a cache that cannot be written only costs a recompile
        return module


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


# --- running ------------------------------------------------------------------------------------


def trap_message(trap: Exception) -> str:
    """wasmtime's trap message without the backtrace."""
    text = getattr(trap, "message", None) or str(trap)
    if "Caused by:" in text:
        text = text.split("Caused by:", 1)[1]
    # A chain of causes is numbered ("0: …", "1: …"); keep the words, drop the numbers.
    lines = [_CAUSE_NUMBER.sub("", line.strip()) for line in text.strip().splitlines() if line.strip()]
    return "; ".join(line for line in lines if not line.startswith("wasm backtrace")) or type(trap).__name__


_CAUSE_NUMBER = re.compile(r"^\d+:\s*")


class _Stop(Exception):
    """Ends a run early with an outcome (internal control flow)."""

    def __init__(self, outcome: Outcome):
        self.outcome = outcome


@dataclass(frozen=True)
class Solution:
    """A compiled module that passed the ABI checks, ready to run inputs."""

    module: wasmtime.Module
    entry: str
    max_memory_bytes: int
    digest: str

    def run(self, input_bytes: bytes, *, expected: Any, output_validator, fuel_limit: int, ceiling: int,
            wall_seconds: float) -> Outcome:
        """Run one input in a fresh store and judge the answer (SPEC §5, checks in order)."""
        store = wasmtime.Store(engine())
        # One instance, one memory, bounded tables: a module cannot make the host allocate
        # beyond the case's memory cap through anything but its own memory.
        store.set_limits(memory_size=self.max_memory_bytes, table_elements=TABLE_ELEMENTS_LIMIT,
                         instances=1, tables=100, memories=1)
        store.set_fuel(ceiling)
        started = time.perf_counter()

        def finish(status: Status, *, fuel: int | None, message: str = "", output_size: int | None = None) -> Outcome:
            overshoot = fuel - fuel_limit if status is Status.OVER_LIMIT and fuel is not None else 0
            wall_ms = round((time.perf_counter() - started) * 1000, 3)
            return Outcome(status, fuel, fuel_limit, ceiling, overshoot, message, wall_ms, output_size)

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
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message=trap_message(trap))) from None
            except wasmtime.WasmtimeError as error:
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message=trap_message(error))) from None
            # Fuel is checked only at function entries and loop back-edges: straight-line code
            # can run past the ceiling, and then the store reads 0.
            if store.get_fuel() == 0:
                raise _Stop(finish(Status.FUEL_EXHAUSTED, fuel=ceiling, message="all fuel consumed"))
            return result

        try:
            try:
                instance = wasmtime.Instance(store, self.module, [])
            except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
                raise _Stop(finish(Status.TRAPPED, fuel=0, message=f"instantiation failed: {trap_message(error)}")) from None
            # Instantiation (data segments) may cost fuel on some hosts: count from here.
            store.set_fuel(ceiling)
            started = time.perf_counter()
            store.set_epoch_deadline(max(1, round(wall_seconds / EPOCH_TICK_SECONDS)))
            exports = instance.exports(store)
            memory = exports["memory"]

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
            output = bytes(memory.read(store, output_address, output_address + output_length))
        except _Stop as stop:
            return stop.outcome
        finally:
            store.close()

        return judge(output, expected=expected, output_validator=output_validator, fuel_used=fuel_used,
                     finish=finish, fuel_limit=fuel_limit)


def judge(output: bytes, *, expected: Any, output_validator, fuel_used: int, finish, fuel_limit: int) -> Outcome:
    """The checks after a clean return: JSON, schema, equality, then the fuel pass line."""
    size = len(output)
    try:
        answer = loads_strict(output)
    except JSONDocumentError as exc:
        return finish(Status.INVALID_OUTPUT, fuel=fuel_used, message=f"output is {exc}" if str(exc).startswith("not") else f"output {exc}", output_size=size)
    violation = first_schema_violation(output_validator, answer)
    if violation:
        return finish(Status.INVALID_OUTPUT, fuel=fuel_used, message=f"output does not match the output schema: {violation}", output_size=size)
    pointer = first_difference(expected, answer)
    if pointer is not None:
        where = f'JSON pointer "{pointer}"' if pointer else 'the document root (JSON pointer "")'
        return finish(Status.WRONG_ANSWER, fuel=fuel_used, message=f"answer differs from the expected answer at {where}", output_size=size)
    if fuel_used > fuel_limit:
        return finish(Status.OVER_LIMIT, fuel=fuel_used, message=f"correct, {fuel_used - fuel_limit:,} fuel over the limit", output_size=size)
    return finish(Status.PASSED, fuel=fuel_used, output_size=size)


def module_digest(wasm: bytes) -> str:
    """The SHA-256 a module is cached and recorded under."""
    return hashlib.sha256(wasm).hexdigest()


def load_solution(wasm: bytes, *, entry: str, max_memory_bytes: int, cache: ModuleCache,
                  max_module_bytes: int | None = None, digest: str | None = None) -> Solution:
    """Compile (or fetch from the cache) and check a module. Raises InvalidModule.

    `digest` is `module_digest(wasm)` if the caller already has it: a module is hashed once.
    """
    if max_module_bytes is not None and len(wasm) > max_module_bytes:
        raise InvalidModule(f"module is {len(wasm):,} bytes, more than the {max_module_bytes:,}-byte limit")
    if not wasm.startswith(b"\0asm"):
        raise InvalidModule("not a WebAssembly binary (it does not start with \\0asm)")
    if wasm[4:8] != b"\x01\x00\x00\x00":
        raise InvalidModule("not a WebAssembly core module (a component or an unknown binary version)")
    digest = digest or module_digest(wasm)
    module = cache.get(wasm, digest)
    check_module(module, wasm, entry, max_memory_bytes)
    return Solution(module=module, entry=entry, max_memory_bytes=max_memory_bytes, digest=digest)
