"""`python3 meter check [WORKSPACE]`: the one command that checks a workspace at home. It builds
the workspace as the site builds a submission (the kit's build command, run in the workspace)
and meters the module on every sample under its `samples/` folder — each `NAME.json` an input,
`NAME.out` beside it its answer — as the site measures an entry: status, fuel, the share of the
pass line and the ceiling, per sample.

Exit status: 0 when every sample passed, 1 when one did not, 2 when the build failed, there is no
sample, or the module is refused (nothing was run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from engine.meter.contract import Contract, ContractError, load_contract
from engine.meter.metering import MeterInput
from engine.meter.running import REFUSED, UsageError, measure_and_report, read_file
from engine.toolchain import UNCONFIGURABLE, ask
from lib.cargoconfig import REFUSED as REFUSED_SETTINGS
from lib.cargoconfig import own_build_settings

SAMPLES = "samples"


def samples_in(folder: Path) -> list[tuple[Path, Path | None]]:
    """(input, its answer or None) of each sample in `folder`, by name."""
    if not folder.is_dir():
        return []
    return [(path, path.with_suffix(".out") if path.with_suffix(".out").is_file() else None)
            for path in sorted(folder.glob("*.json")) if path.is_file()]


def build(workspace: Path, contract: Contract, err: TextIO) -> str | None:
    """Run the build commands in the workspace; why it failed, or None."""
    refused = own_build_settings(workspace, skip=("target", ".git"))  # as the site refuses it
    if refused:
        return REFUSED_SETTINGS[refused]
    for command in (contract.build_install, contract.build_command):
        if not command:
            continue
        err.write(f"$ {command}\n")
        err.flush()
        try:
            # As the site builds: no wrapper and no flags from a cargo configuration (engine/toolchain.py).
            done = subprocess.run(command, shell=True, cwd=workspace, timeout=contract.build_seconds,
                                  stdout=sys.stderr, stderr=sys.stderr, env={**os.environ, **UNCONFIGURABLE})
        except subprocess.TimeoutExpired:
            return f"`{command}` took more than {contract.build_seconds:g} s (the site stops a build then)"
        except OSError as error:
            return f"`{command}` could not be run: {error.strerror or error}"
        if done.returncode != 0:
            return f"`{command}` failed with exit status {done.returncode}"
    return None


def check_main(argv: list[str], *, contract: Path | None, kit: Path | None, prog: str) -> int:
    parser = argparse.ArgumentParser(prog=prog, description="Build a workspace with the kit's build command and "
                                                            "meter it on every sample, as the site measures an entry.")
    parser.add_argument("workspace", type=Path, nargs="?", default=kit / "run" if kit else None,
                        help="the folder to build (default: the kit's run/)")
    parser.add_argument("--no-build", action="store_true", help="meter the module the last build left")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="samples run at once")
    parser.add_argument("--contract", type=Path, default=contract, required=contract is None,
                        help="the version's contract" + (" (default: the kit's own)" if contract else ""))
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        found = load_contract(args.contract)
        if args.workspace is None or not args.workspace.is_dir():
            raise UsageError(f"{args.workspace}: no such workspace folder")
        samples = samples_in(args.workspace / SAMPLES) or (samples_in(kit / "run" / SAMPLES) if kit else [])
        if not samples:
            raise UsageError(f"no samples: {args.workspace / SAMPLES}/ holds no NAME.json (with NAME.out beside it)")
        toolchain = ask("rustc", "cargo", cwd=str(args.workspace), env=dict(os.environ))
        err.write(f"building with {toolchain.rustc or 'no rustc on PATH'} (the site builds with {found.compiler})\n")
        failed = None if args.no_build else build(args.workspace, found, err)
        if failed is not None:
            err.write(f"meter: the build failed: {failed}\n")
            return REFUSED
        wasm = read_file(args.workspace / found.build_module, found.module_bytes, "module")
        inputs = [MeterInput(f"{SAMPLES}/{path.name}", read_file(path, found.max_memory_bytes, "sample"),
                             read_file(answer, found.answer_bytes, "sample's answer") if answer else None)
                  for path, answer in samples]
    except (ContractError, UsageError) as error:
        err.write(f"meter: {error}\n")
        return REFUSED
    return measure_and_report(wasm, inputs, found, [found.fuel_limit] * len(inputs), out=out, err=err,
                              threads=args.threads, as_json=args.json, compared=all(answer for _, answer in samples))
