"""Scoring benchmarks, in one process, on the same modules and inputs:

- overhead: our scorer (evaluate: fresh store, fuel, guard, strict JSON, schema, comparison)
  against a bare loop doing only what wasmtime needs (store, instantiate, alloc, write, call,
  read, with fuel); once where execution dominates, once on tiny inputs (fixed cost per input);
- parallel: 16 stress inputs, serial against one thread per core, fuel figures identical;
- compile cache: the same module scored twice; the second time must not compile.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import wasmtime  # noqa: E402

from engine.evaluate import EvaluationInput, evaluate  # noqa: E402
from engine.judging import Judge  # noqa: E402
from engine.kinds import Kind  # noqa: E402
from engine.sandbox import ModuleCache, engine, load_solution  # noqa: E402
from engine.tests import wat  # noqa: E402
from engine.tests.hostile import slow_to_compile  # noqa: E402

ANY = Judge(b'{"type": "object"}', memory_bytes=2 << 30)
CEILING = 10**13


def bare_loop(module: wasmtime.Module, inputs: list[bytes]) -> list[bytes]:
    outputs = []
    for data in inputs:
        store = wasmtime.Store(engine())
        store.set_fuel(CEILING)
        store.set_epoch_deadline(1 << 40)
        exports = wasmtime.Instance(store, module, []).exports(store)
        memory = exports["memory"]
        address = exports["alloc"](store, len(data)) & 0xFFFFFFFF
        memory.write(store, data, address)
        packed = exports["solve"](store, address, len(data)) & 0xFFFFFFFFFFFFFFFF
        outputs.append(bytes(memory.read(store, packed >> 32, (packed >> 32) + (packed & 0xFFFFFFFF))))
    return outputs


def held_out(inputs: list[bytes]) -> list[EvaluationInput]:
    return [EvaluationInput(Kind.STRESS, f"cases/{index}.json", data, data, CEILING, 1 << 20) for index,
            data in enumerate(inputs)]


def best_of(runs: int, function) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        timings.append(time.perf_counter() - started)
    return min(timings)


def overhead(iterations: int, count: int, runs: int) -> dict:
    wasm = wat.module((wat.burn(iterations) + " " if iterations else "") + wat.ECHO)
    solution = load_solution(wasm, entry="solve", max_memory_bytes=1 << 20, cache=ModuleCache())
    inputs = [json.dumps({"case": index, "values": list(range(8))}).encode() for index in range(count)]
    items = held_out(inputs)
    bare = best_of(runs, lambda: bare_loop(solution.module, inputs))
    ours = best_of(runs, lambda: evaluate(solution, items, fuel_limit=CEILING, judge=ANY, wall_seconds=600, threads=1))
    return {"bare_s": bare, "ours_s": ours, "per_input_bare_us": bare / count * 1e6,
            "per_input_ours_us": ours / count * 1e6, "ratio": ours / bare}


def parallel(runs: int) -> dict:
    wasm = wat.module(wat.burn(40_000_000) + " " + wat.ECHO)
    solution = load_solution(wasm, entry="solve", max_memory_bytes=1 << 20, cache=ModuleCache())
    items = held_out([json.dumps({"case": index}).encode() for index in range(16)])
    cores = os.cpu_count() or 1
    results = {}

    def run(threads: int):
        results[threads] = evaluate(solution, items, fuel_limit=CEILING, judge=ANY, wall_seconds=600, threads=threads)

    serial = best_of(runs, lambda: run(1))
    threaded = best_of(runs, lambda: run(cores))
    fuel_serial = [outcome.fuel for outcome in results[1].outcomes]
    fuel_parallel = [outcome.fuel for outcome in results[cores].outcomes]
    return {"serial_s": serial, "parallel_s": threaded, "cores": cores, "speedup": serial / threaded,
            "identical_fuel": fuel_serial == fuel_parallel}


def compile_cache() -> dict:
    wasm = slow_to_compile(functions=12, groups=20_000)  # ~1.7 MB of code: a compile worth caching
    with tempfile.TemporaryDirectory() as directory:
        cache = ModuleCache(Path(directory), compile_seconds=120)
        started = time.perf_counter()
        cache.get(wasm)
        first = time.perf_counter() - started
        started = time.perf_counter()
        cache.get(wasm)
        second = time.perf_counter() - started
        fresh = ModuleCache(Path(directory), compile_seconds=120)  # another process: the disk cache
        started = time.perf_counter()
        fresh.get(wasm)
        from_disk = time.perf_counter() - started
        return {"first_s": first, "second_s": second, "from_disk_s": from_disk,
                "compiles": cache.compiles, "compiles_fresh_process": fresh.compiles}


LATTICE = Path(__file__).resolve().parent.parent / "test-cases/performance/hard/lattice/v1"


def hostile_answer(guard_seconds: float = 5.0) -> dict:
    """The worst answer for judging, written in almost no fuel: array items that each match a
    `oneOf` of lattice's output schema, until the last one, which does not: every item is checked.

    First at the size cap (16 x the largest expected answer), judged in full; then 40 MB with
    the cap lifted, which must stop at the wall-clock guard.
    """
    from engine.judging import answer_limit

    schema = (LATTICE / "schemas/state.json").read_bytes()
    expected = (LATTICE / "cases/large.out").read_bytes()
    cap = answer_limit(len(expected), minimum=64 << 10, factor=16)
    judge = Judge(schema, memory_bytes=2 << 30)
    element = b"[1,2]"
    results = {"cap_bytes": cap, "guard_s": guard_seconds}
    for label, size, limit in (("at_cap", cap, cap), ("forty_mb", 40_000_000, 1 << 30)):
        count = (size - 24) // (len(element) + 1)
        wasm = wat.filled(b'{"items":[', element, count, b'"x"],"sinks":[]}', pages=1024)
        solution = load_solution(wasm, entry="solve", max_memory_bytes=1024 * 65_536, cache=ModuleCache())
        judge.check(b"{}", expected, deadline=time.monotonic() + 60)  # a judge process is ready
        started = time.perf_counter()
        outcome = solution.run(b"{}", fuel_limit=CEILING, ceiling=CEILING, wall_seconds=guard_seconds,
                               answer_limit=limit, judge=lambda output, deadline: judge.check(output, expected,
                                                                                              deadline=deadline))
        results[label] = {"bytes": outcome.output_size, "seconds": time.perf_counter() - started,
                          "status": outcome.status.value, "fuel": outcome.fuel, "message": outcome.message}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = {
        "overhead_execution": overhead(iterations=20_000_000, count=40, runs=args.runs),
        "overhead_tiny": overhead(iterations=0, count=3000, runs=args.runs),
        "parallel": parallel(args.runs),
        "compile_cache": compile_cache(),
        "hostile_answer": hostile_answer(),
    }
    if args.json:
        print(json.dumps(results))
        return
    execution, tiny = results["overhead_execution"], results["overhead_tiny"]
    print(f"overhead, execution-dominated: bare {execution['bare_s']:.3f} s, ours {execution['ours_s']:.3f} s, ratio "
          f"{execution['ratio']:.3f} (target <= 1.10)")
    print(f"overhead, tiny inputs: bare {tiny['per_input_bare_us']:.0f} us/input, ours {tiny['per_input_ours_us']:.0f} "
          f"us/input, ratio {tiny['ratio']:.2f} (target <= 2)")
    par = results["parallel"]
    print(f"parallel, 16 inputs: serial {par['serial_s']:.2f} s, {par['cores']} threads {par['parallel_s']:.2f} s, "
          f"speedup {par['speedup']:.2f} (target >= 1.7), identical fuel: {par['identical_fuel']}")
    cache = results["compile_cache"]
    print(f"compile cache: first {cache['first_s']:.3f} s, second {cache['second_s'] * 1000:.2f} ms, "
          f"new process from disk {cache['from_disk_s'] * 1000:.1f} ms; compiles {cache['compiles']} then "
          f"{cache['compiles_fresh_process']} (target: 1 then 0)")


if __name__ == "__main__":
    main()
