"""Compile a wasm module in a child process: `python -m scoring.compile_worker IN.wasm OUT.cwasm`.

The scorer runs this with a timeout, so a module built to take forever to compile costs a
killed child, not a stuck scorer. The engine configuration is the scorer's own (the serialised
artifact only loads into an engine configured the same way).
"""

from __future__ import annotations

import sys
from pathlib import Path

import wasmtime

from scoring.sandbox import engine


def main(source: str, target: str) -> int:
    try:
        module = wasmtime.Module(engine(), Path(source).read_bytes())
    except wasmtime.WasmtimeError as exc:
        print(str(exc).strip()[:4000] or "compilation failed", file=sys.stderr)
        return 2
    Path(target).write_bytes(module.serialize())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
