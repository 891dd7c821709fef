"""Run a solution module on one input in a wasmtime sandbox under fuel metering (docs/taking-part.md, docs/method.md).

No Django here. `load_solution()` compiles and checks a module once; `Solution.run()` runs it on
one input in a fresh store and returns an `Outcome`. Engine and Module are shared across threads;
each run makes its own Store, so one solution may run many inputs in parallel.

- `engine.py`: the engine's configuration, spelled out, and its digest;
- `checks.py`: the ABI checks, and wasmtime's messages cut down to what may be public;
- `cache.py`: compiled modules in memory and on disk;
- `run.py`: one input in a fresh store, judged.

Messages in an `Outcome` or `InvalidModule` are public and never quote what the module chose
(import names, function names, its answer); `detail` holds the full text, for staff.
"""

from engine.sandbox.cache import ModuleCache
from engine.sandbox.checks import InvalidModule, check_module, module_digest, trap_message
from engine.sandbox.engine import (
    ENGINE_DIGEST,
    ENGINE_SETTINGS,
    EPOCH_TICK_SECONDS,
    MAX_GLOBALS,
    MAX_SECTIONS,
    MAX_TABLES,
    MAX_WASM_STACK,
    TABLE_ELEMENTS_LIMIT,
    WASMTIME_VERSION,
    engine,
)
from engine.sandbox.run import JudgeFunction, Outcome, Solution, Status, load_solution

__all__ = [
    "ENGINE_DIGEST", "ENGINE_SETTINGS", "EPOCH_TICK_SECONDS", "MAX_GLOBALS", "MAX_SECTIONS", "MAX_TABLES",
    "MAX_WASM_STACK", "TABLE_ELEMENTS_LIMIT", "WASMTIME_VERSION", "InvalidModule", "JudgeFunction", "ModuleCache",
    "Outcome", "Solution", "Status", "check_module", "engine", "load_solution", "module_digest", "trap_message",
]
