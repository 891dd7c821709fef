"""Run a solution module on one input in a wasmtime sandbox under fuel metering (SPEC §4–§5).

No Django here. `load_solution()` compiles and checks a module once; `Solution.run()` runs it on
one input in a fresh store and returns an `Outcome`. Engine and Module are shared across threads;
each run makes its own Store, so one solution may run many inputs in parallel.

The engine's configuration is spelled out in `ENGINE_SETTINGS`, not left to wasmtime's defaults
(which change between releases): only the proposals a `wasm32-unknown-unknown` module compiled
from Rust or C uses are on, relaxed SIMD is deterministic and NaNs are canonical, so an answer
cannot differ between worker machines. `ENGINE_DIGEST` names the configuration; it is recorded
with every result beside the wasmtime version.

Messages in an `Outcome` or `InvalidModule` are public and never quote what the module chose
(import names, function names, its answer); `detail` holds the full text, for staff.
"""

from __future__ import annotations

import hashlib
import json
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
from typing import Any, Callable

import wasmtime

from scoring.judging import INVALID_OUTPUT, WRONG_ANSWER, Verdict

WASMTIME_VERSION = package_version("wasmtime")
U32 = 0xFFFF_FFFF
U64 = 0xFFFF_FFFF_FFFF_FFFF
# Table slots one instance may hold, in its one table (function-pointer tables of real programs
# are far smaller): at most 8 MiB of host memory.
TABLE_ELEMENTS_LIMIT = 1 << 20
MAX_TABLES = 1
# Globals live in every instance (a million v128 globals cost 15 MiB a store); real modules
# define a handful. Sections are walked in Python before anything runs: bounded too.
MAX_GLOBALS = 10_000
MAX_SECTIONS = 1_000
# The wasm stack one call may use (wasmtime's default, written down: deep recursion traps here).
MAX_WASM_STACK = 512 << 10

# Every wasmtime setting that affects what a module may do or what it computes. Fuel costs are
# wasmtime's own and are pinned by pinning wasmtime itself (requirements.txt).
ENGINE_SETTINGS: dict[str, Any] = {
    "strategy": "cranelift",
    "cranelift_opt_level": "speed",
    "consume_fuel": True,
    "epoch_interruption": True,
    "max_wasm_stack": MAX_WASM_STACK,
    # What rustc and clang emit for wasm32-unknown-unknown (mutable globals, sign extension,
    # saturating conversions and extended constant expressions are always on: wasmtime's Python
    # API has no switch for them, and pinning wasmtime pins them).
    "wasm_bulk_memory": True,
    "wasm_multi_value": True,
    "wasm_reference_types": True,
    "wasm_simd": True,
    "wasm_relaxed_simd": True,
    "wasm_relaxed_simd_deterministic": True,
    "cranelift_nan_canonicalization": True,
    # Everything else off.
    "wasm_threads": False,
    "shared_memory": False,
    "wasm_tail_call": False,
    "wasm_multi_memory": False,
    "wasm_memory64": False,
    "wasm_custom_page_sizes": False,
    "wasm_wide_arithmetic": False,
    "wasm_function_references": False,
    "wasm_gc": False,
    "gc_support": False,
    "wasm_exceptions": False,
    "wasm_stack_switching": False,
    "wasm_component_model": False,
}
ENGINE_DIGEST = hashlib.sha256(json.dumps(ENGINE_SETTINGS, sort_keys=True).encode()).hexdigest()[:12]
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
    message: str = ""  # public: never quotes what the module chose
    wall_ms: float = 0.0
    output_size: int | None = None
    detail: str = ""  # the full text behind the message, for staff ("" when the message says it all)

    @classmethod
    def skipped(cls, fuel_limit: int, ceiling: int) -> "Outcome":
        return cls(Status.SKIPPED, None, fuel_limit, ceiling, message="not run: a smoke case failed")


class InvalidModule(Exception):
    """The module breaks the solution ABI; nothing is run.

    `message` is public; `detail` adds what the module itself chose (its import names, the
    compiler's own words), for staff.
    """

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.message = message
        self.detail = detail


# --- the engine ---------------------------------------------------------------------------------

_engine: wasmtime.Engine | None = None
_engine_lock = threading.Lock()


def _tick(engine: wasmtime.Engine) -> None:
    while True:
        time.sleep(EPOCH_TICK_SECONDS)
        engine.increment_epoch()


def engine() -> wasmtime.Engine:
    """The process-wide engine, configured by ENGINE_SETTINGS."""
    global _engine
    with _engine_lock:
        if _engine is None:
            config = wasmtime.Config()
            for name, value in ENGINE_SETTINGS.items():
                setattr(config, name, value)
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


@dataclass(frozen=True)
class _SectionFacts:
    has_start: bool
    memories: int  # memories the module defines
    table_sizes: tuple[int, ...]  # the initial size of each table it defines
    globals: int = 0  # globals it defines
    sections: int = 0


def _section_facts(wasm: bytes) -> _SectionFacts:
    """What wasmtime's API does not expose, read from the binary itself.

    The module has already compiled, so the framing is sound.
    """
    offset = 8  # magic + version
    has_start = False
    memories = global_count = sections = 0
    tables: list[int] = []
    while offset < len(wasm) and sections <= MAX_SECTIONS:
        sections += 1
        section_id = wasm[offset]
        size, offset = _leb_u32(wasm, offset + 1)
        if section_id == 8:
            has_start = True
        elif section_id == 5:
            memories, _ = _leb_u32(wasm, offset)
        elif section_id == 6:
            global_count, _ = _leb_u32(wasm, offset)
        elif section_id == 4:
            count, position = _leb_u32(wasm, offset)
            for _ in range(count):
                flags = wasm[position + 1]  # after the element type
                minimum, position = _leb_u32(wasm, position + 2)
                if flags & 1:
                    _, position = _leb_u32(wasm, position)
                tables.append(minimum)
        offset += size
    return _SectionFacts(has_start, memories, tuple(tables), global_count, sections)


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
    detail = ""
    imports = [f"{item.module}.{item.name}" for item in module.imports]
    if imports:
        # The names are the module's own words: staff see them, the public sees how many.
        problems.append(f"module must be import-free but imports {len(imports)} item{'s' if len(imports) > 1 else ''}")
        shown = ", ".join(f"`{name[:100]}`" for name in imports[:5]) + (", …" if len(imports) > 5 else "")
        detail = f"imports: {shown}"
    facts = _section_facts(wasm)
    if facts.has_start:
        problems.append("module has a start function (section 8), which is not allowed")
    if facts.memories > 1:
        problems.append(f"module declares {facts.memories} memories; exactly one is allowed")
    if len(facts.table_sizes) > MAX_TABLES:
        problems.append(f"module declares {len(facts.table_sizes)} tables; at most {MAX_TABLES} is allowed")
    if any(size > TABLE_ELEMENTS_LIMIT for size in facts.table_sizes):
        problems.append(f"a table's initial size exceeds {TABLE_ELEMENTS_LIMIT:,} slots")
    if facts.globals > MAX_GLOBALS:
        problems.append(f"module defines {facts.globals:,} globals; at most {MAX_GLOBALS:,} are allowed")
    if facts.sections > MAX_SECTIONS:
        problems.append(f"module has more than {MAX_SECTIONS:,} sections")
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
        raise InvalidModule("; ".join(problems), detail)


# --- compiled modules, cached -------------------------------------------------------------------


class ModuleCache:
    """Compiled modules by content digest and wasmtime version: in memory, and on disk if given.

    The disk holds wasmtime's own serialised artifacts, written only by this class; they are
    loaded only when the digest, the wasmtime version and the engine configuration match. With
    `max_bytes`, the folder is kept under that size by evicting the least recently used
    artifacts (each load refreshes its file's time); several processes may share the folder:
    eviction takes a lock, and a file deleted while another process maps it stays readable there.
    """

    def __init__(self, directory: Path | None = None, capacity: int = 16, compile_seconds: float | None = None,
                 max_bytes: int | None = None):
        """`compile_seconds`: compile in a child process killed after that long (for untrusted
        modules); None compiles in this process (for modules of our own, and fast tests)."""
        self.directory = Path(directory) if directory else None
        self.capacity = capacity
        self.compile_seconds = compile_seconds
        self.max_bytes = max_bytes
        self._memory: OrderedDict[str, wasmtime.Module] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0  # how many times this cache had to compile (for tests and benchmarks)

    def _path(self, digest: str) -> Path | None:
        name = f"{digest}-wasmtime-{WASMTIME_VERSION}-{ENGINE_DIGEST}.cwasm"
        return self.directory / name if self.directory else None

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
            module = wasmtime.Module.deserialize_file(engine(), str(path))
        except (wasmtime.WasmtimeError, OSError):
            return None  # stale or damaged: compile again
        try:
            os.utime(path)  # recently used: the last to be evicted
        except OSError:
            pass
        return module

    def _compile_in_child(self, wasm: bytes) -> wasmtime.Module:
        with tempfile.TemporaryDirectory(prefix="compile-") as temp:
            source, target = Path(temp) / "module.wasm", Path(temp) / "module.cwasm"
            source.write_bytes(wasm)
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "scoring.compile_worker", str(source), str(target)],
                    cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                    timeout=self.compile_seconds, stdin=subprocess.DEVNULL,
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},  # nothing of the scorer's
                )
            except subprocess.TimeoutExpired:
                raise InvalidModule(f"module did not compile within {self.compile_seconds:g} s") from None
            if done.returncode != 0 or not target.is_file():
                raise _does_not_compile(done.stderr.strip() or f"the compiler exited with status {done.returncode}")
            return wasmtime.Module.deserialize(engine(), target.read_bytes())

    def _compile(self, wasm: bytes, digest: str) -> wasmtime.Module:
        if self.compile_seconds is not None:
            module = self._compile_in_child(bytes(wasm))
        else:
            try:
                module = wasmtime.Module(engine(), bytes(wasm))
            except wasmtime.WasmtimeError as exc:
                raise _does_not_compile(str(exc)) from None
        self.compiles += 1
        path = self._path(digest)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(handle, "wb") as stream:
                    stream.write(module.serialize())
                os.replace(temp, path)
                self.evict(keep=path)
            except OSError:
                pass  # a cache that cannot be written only costs a recompile
        return module

    def evict(self, keep: Path | None = None) -> int:
        """Delete the least recently used artifacts until the folder holds at most `max_bytes`
        (`keep`, the one just written, goes last). Returns the number deleted."""
        if self.directory is None or self.max_bytes is None:
            return 0
        import fcntl

        deleted = 0
        with open(self.directory / ".evict.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = []
            for entry in os.scandir(self.directory):
                if entry.name.endswith(".cwasm"):
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    entries.append((Path(entry.path) == keep, info.st_mtime_ns, info.st_size, entry.path))
            total = sum(size for _, _, size, _ in entries)
            for _, _, size, path in sorted(entries):
                if total <= self.max_bytes:
                    break
                try:
                    os.unlink(path)
                    deleted += 1
                except FileNotFoundError:
                    pass
                total -= size
        return deleted


# The compiler's words are shown publicly only when they cannot carry the module's own text:
# its causes (the first line can name a function), plain words with no quotes or backticks
# (where wasmparser puts names), and short.
_PLAIN_REASON = re.compile(r"^[A-Za-z0-9 ,.:;()_/+-]{1,160}$")
_OFFSET = re.compile(r"\s*\(at offset 0x[0-9a-f]+\)| at offset \d+")


def _does_not_compile(text: str) -> InvalidModule:
    reason = _OFFSET.sub("", trap_message(Exception(text))).strip()
    public = f"module does not compile: {reason}" if _PLAIN_REASON.match(reason) else "module does not compile"
    detail = "module does not compile: " + "; ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return InvalidModule(public, detail[:4000] if detail != public else "")


# --- running ------------------------------------------------------------------------------------


def trap_message(trap: Exception) -> str:
    """wasmtime's trap message without the backtrace.

    The backtrace names the module's own functions (its name section), so nothing of it is kept:
    only the causes after the last "Caused by:", which are wasmtime's words.
    """
    text = getattr(trap, "message", None) or str(trap)
    if "Caused by:" in text:
        text = text.rpartition("Caused by:")[2]
    elif "wasm backtrace" in text:
        text = text.partition("wasm backtrace")[0]
    # A chain of causes is numbered ("0: …", "1: …"); keep the words, drop the numbers.
    lines = [_CAUSE_NUMBER.sub("", line.strip()) for line in text.strip().splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith("wasm backtrace") and not _FRAME.match(line)]
    return "; ".join(kept)[:300] or type(trap).__name__


_CAUSE_NUMBER = re.compile(r"^\d+:\s*")
_FRAME = re.compile(r"^0x[0-9a-f]+ - ")


def _trap_detail(trap: Exception) -> str:
    return (getattr(trap, "message", None) or str(trap)).strip()[:4000]


class _Stop(Exception):
    """Ends a run early with an outcome (internal control flow)."""

    def __init__(self, outcome: Outcome):
        self.outcome = outcome


# judge(output, deadline) -> Verdict: checks a returned answer (scoring/judging.py), by the
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
        """Run one input in a fresh store and judge the answer (SPEC §5, checks in order).

        The wall-clock budget covers `alloc`, the entry and judging; an answer longer than
        `answer_limit` bytes is refused before it is read.
        """
        store = wasmtime.Store(engine())
        # One instance, one memory, one bounded table: a module cannot make the host allocate
        # beyond the case's memory cap (and 8 MiB of table) through anything but its own memory.
        store.set_limits(memory_size=self.max_memory_bytes, table_elements=TABLE_ELEMENTS_LIMIT,
                         instances=1, tables=MAX_TABLES, memories=1)
        store.set_fuel(ceiling)
        # Instantiation can check the epoch too (copying a data segment that lies high in memory
        # does): it runs under the guard, rather than against the store's default deadline of 0.
        guard_ticks = max(1, round(wall_seconds / EPOCH_TICK_SECONDS))
        store.set_epoch_deadline(guard_ticks)
        started = time.perf_counter()

        def finish(status: Status, *, fuel: int | None, message: str = "", output_size: int | None = None,
                   detail: str = "") -> Outcome:
            overshoot = fuel - fuel_limit if status is Status.OVER_LIMIT and fuel is not None else 0
            wall_ms = round((time.perf_counter() - started) * 1000, 3)
            return Outcome(status, fuel, fuel_limit, ceiling, overshoot, message, wall_ms, output_size,
                           detail if detail != message else "")

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
                                   detail=_trap_detail(trap))) from None
            except wasmtime.WasmtimeError as error:
                raise _Stop(finish(Status.TRAPPED, fuel=used(), message=trap_message(error),
                                   detail=_trap_detail(error))) from None
            # Fuel is checked only at function entries and loop back-edges: straight-line code
            # can run past the ceiling, and then the store reads 0.
            if store.get_fuel() == 0:
                raise _Stop(finish(Status.FUEL_EXHAUSTED, fuel=ceiling, message="all fuel consumed"))
            return result

        try:
            try:
                instance = wasmtime.Instance(store, self.module, [])
            except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
                raise _Stop(finish(Status.TRAPPED, fuel=0, message=f"instantiation failed: {trap_message(error)}",
                                   detail=_trap_detail(error))) from None
            # Instantiation (data segments) may cost fuel on some hosts: count from here.
            store.set_fuel(ceiling)
            started = time.perf_counter()
            deadline = time.monotonic() + wall_seconds
            store.set_epoch_deadline(guard_ticks)
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
            if output_length > answer_limit:
                raise _Stop(finish(
                    Status.INVALID_OUTPUT, fuel=fuel_used, output_size=output_length,
                    message=f"output is {output_length:,} bytes, more than the {answer_limit:,}-byte limit for this input",
                ))
            output = bytes(memory.read(store, output_address, output_address + output_length))
        except _Stop as stop:
            return stop.outcome
        finally:
            store.close()

        verdict = judge(output, deadline)
        size = len(output)
        if verdict.status == INVALID_OUTPUT:
            return finish(Status.INVALID_OUTPUT, fuel=fuel_used, message=verdict.message, detail=verdict.detail, output_size=size)
        if verdict.status == WRONG_ANSWER:
            return finish(Status.WRONG_ANSWER, fuel=fuel_used, message=verdict.message, detail=verdict.detail, output_size=size)
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
