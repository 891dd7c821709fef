"""The meter's command line: `python3 meter MODULE INPUT…` in a kit, `python -m engine.meter
--contract FILE MODULE INPUT…` in a checkout (docs/taking-part.md says how to use it).

Exit status: 0 when every input passed, 1 when some input did not, 2 for a usage error, a
contract for another engine, or a module the ABI refuses (nothing was run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from engine.judging import POOL
from engine.meter.contract import Contract, ContractError, load_contract
from engine.meter.metering import MeterInput, Reading, meter
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, InvalidModule, Outcome, Status, module_digest
from lib.schemas import SchemaError, first_violation, load_validator
from lib.strictjson import JSONDocumentError, loads_strict

PASSED, NOT_PASSED, REFUSED = 0, 1, 2


class UsageError(Exception):
    """Something the person running the meter gave cannot be used: nothing is run."""


def parser(prog: str, contract: Path | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Run a module on inputs of your own exactly as the site measures it: the same "
                               "engine, ABI checks, limits, fuel and judging.")
    parser.add_argument("module", type=Path, help="the .wasm module your build produced")
    parser.add_argument("inputs", type=Path, nargs="+", metavar="input", help="an input file (JSON)")
    parser.add_argument("--expected", type=Path, action="append", default=[], metavar="FILE",
                        help="the expected answer to an input, compared as the site compares (give one per input, "
                             "in the inputs' order; without, an answer is checked against the output schema only)")
    parser.add_argument("--runway", action="append", default=[], metavar="R",
                        help="the ceiling is floor(fuel_limit × R): a number, or a held-out input's name to use its "
                             "runway (default 1: the ceiling is the pass line); once for every input, or once per "
                             "input in the inputs' order")
    parser.add_argument("--answer", type=Path, metavar="PATH",
                        help="write the answer to PATH (with several inputs, PATH is a folder: one file per input)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="inputs run at once (the figures do not depend on it; default: one per core)")
    parser.add_argument("--contract", type=Path, default=contract, required=contract is None,
                        help="the version's contract" + (" (default: the kit's own)" if contract else ""))
    return parser


def _read(path: Path, limit: int, what: str) -> bytes:
    try:
        if path.stat().st_size > limit:
            raise UsageError(f"{path}: {what} is more than {limit:,} bytes")
        return path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the {what} ({error.strerror or error})") from None


def read_inputs(args: argparse.Namespace, contract: Contract) -> list[MeterInput]:
    """The inputs, each checked as the site checks a held-out input: strict JSON within the input
    schema; and their expected answers, strict JSON. Raises UsageError."""
    if args.expected and len(args.expected) != len(args.inputs):
        raise UsageError(f"{len(args.inputs)} input(s) but {len(args.expected)} --expected file(s): give one per "
                         "input, in the same order, or none")
    try:
        validator = load_validator(contract.input_schema.encode("utf-8"))
    except SchemaError as error:
        raise UsageError(f"the contract's input schema {error}") from None
    inputs = []
    for index, path in enumerate(args.inputs):
        data = _read(path, contract.max_memory_bytes, "input")
        try:
            violation = first_violation(validator, loads_strict(data))
        except JSONDocumentError as error:
            raise UsageError(f"{path}: the input is not strict JSON ({error})") from None
        if violation is not None:
            raise UsageError(f"{path}: the input does not match the input schema, {violation.describe()}; the site "
                             "never runs such an input")
        expected = None
        if args.expected:
            expected = _read(args.expected[index], contract.max_memory_bytes, "expected answer")
            try:
                loads_strict(expected)
            except JSONDocumentError as error:
                raise UsageError(f"{args.expected[index]}: the expected answer is not strict JSON ({error})") from None
        inputs.append(MeterInput(str(path), data, expected))
    return inputs


def ceilings_of(runways: list[str], contract: Contract, count: int) -> list[int]:
    """Each input's ceiling from `--runway` (none, one for all, or one per input)."""
    if len(runways) not in (0, 1, count):
        raise UsageError(f"{count} input(s) but {len(runways)} --runway values: give one for all, or one per input")
    chosen = [contract.ceiling(contract.runway(runway)) for runway in runways or ["1"]]
    return chosen * count if len(chosen) == 1 else chosen


def result_json(outcome: Outcome, name: str) -> dict:
    """The keys of a result in `score --json`, with the same values."""
    return {"input": name, "status": outcome.status.value, "fuel": outcome.fuel, "fuel_limit": outcome.fuel_limit,
            "ceiling": outcome.ceiling, "overshoot": outcome.overshoot, "wall_ms": outcome.wall_ms,
            "message": outcome.message}


def document(contract: Contract, reading: Reading | None, names: list[str], *, module: str, compared: bool,
             error: InvalidModule | None = None) -> dict:
    found = {
        "engine": {"wasmtime": WASMTIME_VERSION, "config_digest": ENGINE_DIGEST}, "module": module,
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


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        contract = load_contract(args.contract)
        inputs = read_inputs(args, contract)
        ceilings = ceilings_of(args.runway, contract, len(inputs))
        if args.answer is not None and len(inputs) > 1 and len({Path(item.name).name for item in inputs}) < len(inputs):
            raise UsageError("--answer with several inputs writes one file per input name: two inputs share a name")
        if args.threads < 1:
            raise UsageError("--threads must be at least 1")
        wasm = _read(args.module, contract.module_bytes, "module")
    except (ContractError, UsageError, ValueError) as error:
        err.write(f"meter: {error}\n")
        return REFUSED
    names = [item.name for item in inputs]
    compared = bool(args.expected)
    progress = None
    if not args.json and err.isatty():
        def progress(index, item, outcome):
            err.write(f"\r{index + 1}/{len(inputs)} {item.input_path}: {outcome.status.value}\033[K")
            err.flush()
    try:
        reading = meter(wasm, inputs, contract, ceilings=ceilings, threads=args.threads,
                        keep_answers=args.answer is not None, progress=progress)
    except ContractError as error:
        err.write(f"meter: {error}\n")
        return REFUSED
    except InvalidModule as refused:
        if args.json:
            out.write(json.dumps(document(contract, None, names, module=module_digest(wasm), compared=compared,
                                          error=refused)) + "\n")
        err.write(f"meter: the module is refused ({refused.code}): {refused.message}\n")
        return REFUSED
    finally:
        POOL.close()
        if progress is not None:
            err.write("\r\033[K")
    if args.answer is not None:
        for note in write_answers(args.answer, reading, names):
            err.write(f"meter: {note}\n")
    if args.json:
        out.write(json.dumps(document(contract, reading, names, module=reading.module, compared=compared)) + "\n")
    else:
        write_table(out, contract, reading, names, compared=compared)
    return PASSED if all(outcome.status is Status.PASSED for outcome in reading.outcomes) else NOT_PASSED


def main(argv: list[str] | None = None, *, contract: Path | None = None, prog: str = "python -m engine.meter") -> int:
    args = parser(prog, contract).parse_args(argv)
    return run(args, sys.stdout, sys.stderr)
