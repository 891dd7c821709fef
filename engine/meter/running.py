"""Running the meter and saying what it gave: what `python3 meter MODULE INPUT…` (cli.py) and
`python3 meter check` (check.py) share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from engine.judging import POOL
from engine.meter.contract import Contract, ContractError
from engine.meter.metering import MeterInput, meter
from engine.meter.report import compiler_note, document, write_answers, write_table
from engine.sandbox import InvalidModule, Status, module_digest

PASSED, NOT_PASSED, REFUSED = 0, 1, 2


class UsageError(Exception):
    """Something the person running the meter gave cannot be used: nothing is run."""


def read_file(path: Path, limit: int, what: str) -> bytes:
    try:
        if path.stat().st_size > limit:
            raise UsageError(f"{path}: {what} is more than {limit:,} bytes")
        return path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the {what} ({error.strerror or error})") from None


def measure_and_report(wasm: bytes, inputs: list[MeterInput], contract: Contract, ceilings: list[int], *,
                       out: TextIO, err: TextIO, threads: int, as_json: bool, answer: Path | None = None,
                       compared: bool = True) -> int:
    """Meter `wasm` on `inputs` and print what it gave (the meter's exit status)."""
    if threads < 1:
        err.write("meter: --threads must be at least 1\n")
        return REFUSED
    names = [item.name for item in inputs]
    progress = None
    if not as_json and err.isatty():
        def progress(index, item, outcome):
            err.write(f"\r{index + 1}/{len(inputs)} {item.input_path}: {outcome.status.value}\033[K")
            err.flush()
    try:
        reading = meter(wasm, inputs, contract, ceilings=ceilings, threads=threads, keep_answers=answer is not None,
                        progress=progress)
    except ContractError as error:
        err.write(f"meter: {error}\n")
        return REFUSED
    except InvalidModule as refused:
        if as_json:
            out.write(json.dumps(document(contract, None, names, module=module_digest(wasm), compared=compared,
                                          error=refused, wasm=wasm)) + "\n")
        err.write(f"meter: the module is refused ({refused.code}): {refused.message}\n")
        return REFUSED
    finally:
        POOL.close()
        if progress is not None:
            err.write("\r\033[K")
    if answer is not None:
        try:
            for note in write_answers(answer, reading, names):
                err.write(f"meter: {note}\n")
        except OSError as error:
            err.write(f"meter: the answer cannot be written to {answer}: {error.strerror or error}\n")
            return REFUSED
    if as_json:
        out.write(json.dumps(document(contract, reading, names, module=reading.module, compared=compared,
                                      wasm=wasm)) + "\n")
    else:
        err.write(compiler_note(wasm, contract) + "\n")  # beside the table, not in it: the table is data
        write_table(out, contract, reading, names, compared=compared)
    return PASSED if all(outcome.status is Status.PASSED for outcome in reading.outcomes) else NOT_PASSED


