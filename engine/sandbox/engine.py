"""The wasmtime engine, configured explicitly (ENGINE_SETTINGS), and the store's limits.

wasmtime's defaults change between releases: only the proposals a `wasm32-unknown-unknown` module
compiled from Rust or C uses are on, relaxed SIMD is deterministic and NaNs are canonical, so an
answer cannot differ between worker machines. `ENGINE_DIGEST` names the configuration; it is
recorded with every result beside the wasmtime version.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from contextlib import contextmanager
from importlib.metadata import version as package_version
from typing import Any, Iterator

import wasmtime

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

# The fuel instantiation may use, whatever the input's ceiling, and none of it counted (the
# wall-clock guard bounds its time too): 2³⁰, far above what copying the largest module's data
# segments costs where wasmtime charges for it.
INSTANTIATION_FUEL = 1 << 30


_engine: wasmtime.Engine | None = None


_engine_lock = threading.Lock()
# How many runs are under way in this process: the epoch advances only while one is (an idle
# worker or test process would otherwise wake a hundred times a second for nothing).
_runs = 0
_runs_changed = threading.Condition()


def _tick(engine: wasmtime.Engine) -> None:
    while True:
        with _runs_changed:
            _runs_changed.wait_for(lambda: _runs > 0)
        time.sleep(EPOCH_TICK_SECONDS)
        engine.increment_epoch()


@contextmanager
def ticking() -> Iterator[None]:
    """The epoch advances while this is open (a run's wall-clock guard is counted in its ticks)."""
    global _runs
    engine()  # its ticker is started
    with _runs_changed:
        _runs += 1
        _runs_changed.notify_all()
    try:
        yield
    finally:
        with _runs_changed:
            _runs -= 1


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
