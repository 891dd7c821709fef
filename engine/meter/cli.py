"""The meter's command line: `python3 meter MODULE INPUT…` in a kit, `python -m engine.meter
--contract FILE MODULE INPUT…` in a checkout (docs/taking-part.md says how to use it).

Exit status: 0 when every input passed, 1 when some input did not, 2 for a usage error, a
contract for another engine, or a module the ABI refuses (nothing was run).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from engine.meter.check import check_main
from engine.meter.contract import Contract, ContractError, load_contract
from engine.meter.metering import MeterInput
from engine.meter.reverify import reverify_main
from engine.meter.running import REFUSED, UsageError, measure_and_report, read_file
from lib.schemas import SchemaError, first_violation, load_validator
from lib.strictjson import JSONDocumentError, loads_strict


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


def read_inputs(args: argparse.Namespace, contract: Contract) -> list[MeterInput]:
    """The inputs, each checked as the site checks a held-out input: strict JSON within the input
    schema; and their expected answers, strict JSON. Raises UsageError."""
    if args.expected and len(args.expected) != len(args.inputs):
        raise UsageError(f"{len(args.inputs)} input(s) but {len(args.expected)} --expected file(s): give one per "
                         "input, each after its input or all in the inputs' order (MODULE a.json --expected a.out "
                         "b.json --expected b.out), or none")
    try:
        validator = load_validator(contract.input_schema.encode("utf-8"))
    except SchemaError as error:
        raise UsageError(f"the contract's input schema {error}") from None
    inputs = []
    for index, path in enumerate(args.inputs):
        data = read_file(path, contract.max_memory_bytes, "input")
        try:
            violation = first_violation(validator, loads_strict(data))
        except JSONDocumentError as error:
            raise UsageError(f"{path}: the input is not strict JSON ({error})") from None
        if violation is not None:
            raise UsageError(f"{path}: the input does not match the input schema, {violation.describe()}; the site "
                             "never runs such an input")
        expected = None
        if args.expected:
            expected = read_file(args.expected[index], contract.max_memory_bytes, "expected answer")
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


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        contract = load_contract(args.contract)
        inputs = read_inputs(args, contract)
        ceilings = ceilings_of(args.runway, contract, len(inputs))
        if args.answer is not None and len(inputs) > 1 and len({Path(item.name).name for item in inputs}) < len(inputs):
            raise UsageError("--answer with several inputs writes one file per input name: two inputs share a name")
        wasm = read_file(args.module, contract.module_bytes, "module")
    except (ContractError, UsageError, ValueError) as error:
        err.write(f"meter: {error}\n")
        return REFUSED
    return measure_and_report(wasm, inputs, contract, ceilings, out=out, err=err, threads=args.threads,
                              as_json=args.json, answer=args.answer, compared=bool(args.expected))


def main(argv: list[str] | None = None, *, contract: Path | None = None, prog: str = "python -m engine.meter",
         kit: Path | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["check"]:
        return check_main(argv[1:], contract=contract, kit=kit, prog=f"{prog} check")
    if argv[:1] == ["reverify"]:
        return reverify_main(argv[1:], prog=f"{prog} reverify")
    # Inputs and their --expected may be given in any order: MODULE a.json --expected a.out b.json …
    args = parser(prog, contract).parse_intermixed_args(argv)
    return run(args, sys.stdout, sys.stderr)
