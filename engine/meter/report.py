"""What the meter prints: a table of the results (or one JSON document of them, with the keys of
`score --json`'s results), the answers it was asked to write, and what it knows of the compiler
that built the module beside the one the site builds with."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from engine.measure import Reading
from engine.meter.contract import Contract
from engine.producers import release_of, rustc_of
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, InvalidModule, Outcome, Status


def compiler_note(wasm: bytes, contract: Contract) -> str:
    """A line naming the compiler the module says built it beside the site's: a warning when they
    differ (fuel can differ then)."""
    built_by = rustc_of(wasm)
    if built_by is None:
        return (f"the module does not say which compiler built it (strip = true removes that); the site builds "
                f"with {contract.compiler}")
    if release_of(built_by) != release_of(contract.compiler):
        return (f"warning: fuel can differ: the site builds with {contract.compiler}; this module was built by "
                f"{built_by}")
    return f"built by {built_by}, as the site builds ({contract.compiler})"


def result_json(outcome: Outcome, name: str) -> dict:
    """The keys of a result in `score --json`, with the same values."""
    return {"input": name, "status": outcome.status.value, "fuel": outcome.fuel, "fuel_limit": outcome.fuel_limit,
            "ceiling": outcome.ceiling, "overshoot": outcome.overshoot, "wall_ms": outcome.wall_ms,
            "message": outcome.message}


def document(contract: Contract, reading: Reading | None, names: list[str], *, module: str, compared: bool,
             error: InvalidModule | None = None, wasm: bytes = b"") -> dict:
    found = {
        "engine": {"wasmtime": WASMTIME_VERSION, "config_digest": ENGINE_DIGEST}, "module": module,
        "compiler": {"site": contract.compiler, "module": rustc_of(wasm)},
        "case": contract.case, "version": contract.version, "variant": contract.variant, "compared": compared,
        "results": [result_json(outcome, name) for outcome, name in zip(reading.outcomes, names)] if reading else [],
    }
    if error is not None:
        found["error"] = {"code": error.code, "message": error.message}
    return found


def _share(outcome: Outcome) -> str:
    """The share of the pass line used (a little under 0.1 % is not shown as none)."""
    if outcome.fuel is None:
        return ""
    share = 100 * outcome.fuel / outcome.fuel_limit
    return "<0.1%" if 0 < share < 0.05 else f"{share:.1f}%"


def write_table(out: TextIO, contract: Contract, reading: Reading, names: list[str], *, compared: bool) -> None:
    out.write(f"{contract.case} {contract.version} ({contract.variant}) · wasmtime {WASMTIME_VERSION}, engine "
              f"configuration {ENGINE_DIGEST} · module {reading.module[:12]} ({reading.module_size:,} bytes)\n")
    rows = [("input", "status", "fuel", "pass line", "share", "ceiling", "wall")]
    for outcome, name in zip(reading.outcomes, names):
        rows.append((name, outcome.status.value, "" if outcome.fuel is None else f"{outcome.fuel:,}",
                     f"{outcome.fuel_limit:,}", _share(outcome), f"{outcome.ceiling:,}", f"{outcome.wall_ms:,.1f} ms"))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) if column < 2 else cell.rjust(width)
                 for column, (cell, width) in enumerate(zip(row, widths))]
        out.write("  ".join(cells).rstrip() + "\n")
    for outcome, name in zip(reading.outcomes, names):
        if outcome.message:
            out.write(f"{name}: {outcome.status.value}: {outcome.message}\n")
    passed = sum(1 for outcome in reading.outcomes if outcome.status is Status.PASSED)
    out.write(f"{passed} of {len(names)} input(s) passed")
    out.write(".\n" if compared else "; no --expected: answers were checked against the output schema only.\n")


def write_answers(target: Path, reading: Reading, names: list[str]) -> list[str]:
    """Write each answer the module returned; returns the notes for those it did not."""
    several = len(names) > 1
    if several:
        target.mkdir(parents=True, exist_ok=True)
    notes = []
    for outcome, name in zip(reading.outcomes, names):
        path = target / Path(name).name if several else target
        answer = reading.answers.get(outcome.answer_digest) if outcome.answer_digest else None
        if answer is None:
            notes.append(f"{name}: no answer to write ({outcome.status.value})")
            continue
        path.write_bytes(answer)
    return notes


