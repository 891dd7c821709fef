"""The fuel meter a kit carries in `meter/`: the site's own engine files (engine/meter/ and what
it runs), this version's contract with the site's limits, and the meter's pinned requirements.

The files are copied as they are, never rewritten, so the count at home is the site's: the same
code, the same configuration (its digest is in the contract, and the meter refuses another).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from django.conf import settings

from catalog.models import CaseVersion, Variant
from engine.measure import SiteLimits
from engine.meter.contract import Contract, Runway
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from engine.toolchain import RUST_RELEASE

ROOT = Path(__file__).resolve().parent.parent
METER_FOLDER = "meter"
# Everything `python3 meter` imports, with the judge and compile workers it starts (a test runs
# the meter from a kit with nothing else on the path).
ENGINE_FILES = (
    "engine/__init__.py", "engine/kinds.py", "engine/evaluate.py", "engine/judging.py", "engine/measure.py",
    "engine/producers.py", "engine/toolchain.py",
    "engine/sandbox/__init__.py", "engine/sandbox/cache.py", "engine/sandbox/checks.py",
    "engine/sandbox/engine.py", "engine/sandbox/run.py",
    "engine/workers/__init__.py", "engine/workers/compile.py", "engine/workers/judge.py",
    "engine/meter/__init__.py", "engine/meter/__main__.py", "engine/meter/check.py", "engine/meter/cli.py",
    "engine/meter/contract.py", "engine/meter/metering.py", "engine/meter/report.py", "engine/meter/reverify.py",
    "engine/meter/running.py",
    "lib/__init__.py", "lib/cargoconfig.py", "lib/errors.py", "lib/schemas.py", "lib/strictjson.py",
)
# The meter's packages, pinned as the site pins them (requirements.txt): wasmtime counts the
# fuel; jsonschema and what it needs judge the answers. Nothing else, and no Django.
METER_PACKAGES = ("wasmtime", "jsonschema", "attrs", "jsonschema-specifications", "referencing", "rpds-py",
                  "typing_extensions")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def requirements(wasmtime: str = WASMTIME_VERSION) -> str:
    """meter/requirements.txt: each of METER_PACKAGES with the site's own pin, and wasmtime as the
    engine that counts (the site's current epoch's, which the caller names; this process's by
    default: docs/epochs.md)."""
    pins = {_normal("wasmtime"): f"wasmtime=={wasmtime}"}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if found:
            pins.setdefault(_normal(found.group(1)), found.group(0))
    missing = [name for name in METER_PACKAGES if _normal(name) not in pins]
    if missing:
        raise RuntimeError(f"requirements.txt pins no {', '.join(missing)}: the meter's requirements need them")
    return ("# The fuel meter's requirements, pinned as the site pins them (wasmtime's fuel costs change\n"
            "# between releases). Install them into a virtual environment of their own:\n"
            "#   python3 -m venv .meter && .meter/bin/pip install -r meter/requirements.txt\n"
            + "".join(pins[_normal(name)] + "\n" for name in METER_PACKAGES))


def site_limits() -> SiteLimits:
    """What the site's settings set around every version's own limits (and a kit's contract says)."""
    return SiteLimits(wall_seconds=settings.SCORING_WALL_SECONDS, answer_min_bytes=settings.SCORING_ANSWER_MIN_BYTES,
                      answer_size_factor=settings.SCORING_ANSWER_SIZE_FACTOR,
                      module_bytes=settings.SCORING_MAX_MODULE_BYTES, compile_seconds=settings.SCORING_COMPILE_SECONDS,
                      compile_memory_bytes=settings.SCORING_COMPILE_MEMORY_BYTES,
                      judge_memory_bytes=settings.SCORING_JUDGE_MEMORY_BYTES)


def contract_of(version: CaseVersion, variant: Variant, engine: tuple[str, str] | None = None) -> Contract:
    """The version's contract as the site measures it now (its settings included), under `engine`
    (wasmtime release, configuration digest: the one its board counts with; this process's by default)."""
    wasmtime, config_digest = engine or (WASMTIME_VERSION, ENGINE_DIGEST)
    limits = site_limits()
    rows = list(version.held_out_inputs.order_by("position").values_list("input_path", "kind", "fuel_runway",
                                                                         "ceiling", "expected_size"))
    return Contract(
        case=version.case.slug, version=version.version, variant=variant.slug, entry=version.contract_entry,
        input_schema=version.file_bytes(version.contract_input).decode("utf-8"),
        output_schema=version.file_bytes(version.contract_output).decode("utf-8"),
        fuel_limit=version.fuel_limit, max_memory_bytes=version.max_memory_bytes,
        wall_seconds=limits.wall_seconds, answer_min_bytes=limits.answer_min_bytes,
        answer_size_factor=limits.answer_size_factor, module_bytes=limits.module_bytes,
        compile_seconds=limits.compile_seconds, compile_memory_bytes=limits.compile_memory_bytes,
        judge_memory_bytes=limits.judge_memory_bytes,
        runways=tuple(Runway(path, kind, runway, ceiling) for path, kind, runway, ceiling, _ in rows),
        wasmtime=wasmtime, config_digest=config_digest,
        answer_bytes=max((limits.answer_cap(size) for *_, size in rows), default=limits.answer_cap(0)),
        build_install=version.build_install, build_command=version.build_command, build_module=version.build_module,
        build_seconds=min(settings.SCORING_BUILD_TIMEOUT, version.max_runtime_seconds),
        compiler=f"rustc {RUST_RELEASE}",
    )


@functools.cache
def _code() -> dict[str, bytes]:
    """The engine's files, read once per process (a kit's digest
    names them on every download; a new release of the code is a new process)."""
    files = {path: (ROOT / path).read_bytes() for path in ENGINE_FILES}
    files["__main__.py"] = (ROOT / "engine/meter/kit_main.py").read_bytes()
    return files


def meter_files(contract: Contract) -> dict[str, bytes]:
    """The kit's `meter/` folder for this contract: {path inside it: bytes}."""
    return {**_code(), "requirements.txt": requirements(contract.wasmtime).encode("utf-8"),
            "contract.json": contract.dumps().encode("utf-8")}
