"""Compile a wasm module in a child process: `python -m engine.workers.compile IN.wasm OUT.cwasm MEMORY_BYTES`.

The scorer runs this with a timeout, and the child caps its own address space at MEMORY_BYTES
before it loads wasmtime (as a judge process does), so a module built to take forever, or all
the memory there is, to compile costs a killed child, not a stuck or starved scorer. The engine configuration is the
scorer's own (the serialised
artifact only loads into an engine configured the same way).
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path


def main(source: str, target: str, memory_bytes: int) -> int:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # deferred: wasmtime is loaded under the address-space cap just set, never before it
    import wasmtime

    from engine.sandbox import engine

    try:
        module = wasmtime.Module(engine(), Path(source).read_bytes())
    except wasmtime.WasmtimeError as exc:
        print(str(exc).strip()[:4000] or "compilation failed", file=sys.stderr)
        return 2
    Path(target).write_bytes(module.serialize())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
