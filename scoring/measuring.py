"""Measuring a submission's bytes: its build (when it is a source), the module checked against the
ABI, and every held-out input of its version run and judged — the one pipeline of a score
(scoring/attempts.py) and of a re-measurement (scoring/verification.py). It stores nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from django.conf import settings

from catalog.manifest import Kind
from catalog.metering import site_limits
from catalog.models import CaseVersion
from catalog.samples import version_samples
from engine.evaluate import Evaluation, EvaluationInput
from engine.judging import Judge
from engine.measure import Item, Task, inputs, measure_module
from engine.progress import ScoringProgress
from engine.sandbox import InvalidModule, ModuleCache, module_digest
from scoring import building
from scoring.models import Submission

# One cache per process: a module scored twice is compiled once.
_module_cache: ModuleCache | None = None


def module_cache() -> ModuleCache:
    global _module_cache
    if (_module_cache is None or _module_cache.directory != settings.SCORING_CACHE_DIR
            or _module_cache.compile_seconds != settings.SCORING_COMPILE_SECONDS
            or _module_cache.max_bytes != settings.SCORING_CACHE_MAX_BYTES
            or _module_cache.compile_memory_bytes != settings.SCORING_COMPILE_MEMORY_BYTES):
        _module_cache = ModuleCache(settings.SCORING_CACHE_DIR, compile_seconds=settings.SCORING_COMPILE_SECONDS,
                                    max_bytes=settings.SCORING_CACHE_MAX_BYTES,
                                    compile_memory_bytes=settings.SCORING_COMPILE_MEMORY_BYTES)
    return _module_cache


def sample_inputs(version: CaseVersion) -> list[EvaluationInput]:
    """The version's public samples (catalog.samples), each run as a stress input is, under the pass line."""
    return inputs((Item(Kind.STRESS, sample.name, sample.input_bytes, sample.expected, version.fuel_limit)
                   for sample in version_samples(version)), site_limits())


def held_out_inputs(version: CaseVersion) -> list[EvaluationInput]:
    """The version's held-out inputs, assembled as every measurement assembles its inputs."""
    return inputs((Item(Kind(row.kind), row.input_path, bytes(row.input_bytes), bytes(row.expected_bytes), row.ceiling)
                   for row in version.held_out_inputs.order_by("position")), site_limits())


def _threads() -> int:
    return settings.SCORING_THREADS or os.cpu_count() or 1


@dataclass
class Measurement:
    """What building (when it is a source) and running a submission's bytes gave, stored nowhere
    yet: the one pipeline of a score and of a re-measurement (scoring/verification.py)."""

    state: str  # Submission.State: SCORED, BUILD_FAILED or INVALID_MODULE
    build_log: str = ""
    message: str = ""
    detail: str = ""
    module_digest: str = ""  # of the module run (or refused); "" when the build failed
    module_size: int | None = None
    module: bytes = field(default=b"", repr=False)  # the module run, when SCORED
    evaluation: Evaluation | None = None  # when SCORED
    confinement: str = ""  # how its build was held (engine.builds.CONFINED…); "" when nothing was built
    toolchain: dict = field(default_factory=dict)  # the compiler its build ran with; {} when nothing was built
    samples: list[dict] = field(default_factory=list)  # each public sample's result (unscored), when SCORED


def measure(version: CaseVersion, source_kind: str, source: bytes, progress: ScoringProgress, *,
            wall_seconds: float | None = None, held_out: list[EvaluationInput] | None = None,
            output_schema: bytes | None = None, fuel_limit: int | None = None,
            threads: int | None = None, samples: list[EvaluationInput] = ()) -> Measurement:
    """Build `source` (a packed folder) or take it as the module, check the module against the
    ABI, and run every held-out input of `version`. Raises SandboxUnavailable (from the build).

    `version` may be any object with a CaseVersion's build, contract and sandbox fields; the
    held-out inputs, the output schema, the fuel limit and the threads default to an imported
    version's and the settings' (scoring/workbench/ measures a version folder not imported)."""
    build_log, confinement = "", ""
    if source_kind == Submission.SourceKind.SUBMISSION:
        progress.building(version.build_command)
        built = building.build_source(source, version, wall_seconds=wall_seconds)
        confinement = built.confinement
        if not built.ok:
            return Measurement(Submission.State.BUILD_FAILED, built.log, built.message, built.detail,
                               confinement=confinement, toolchain=built.toolchain)
        build_log, wasm = built.log, built.module
    else:
        wasm = source
    measured = run_module(version, wasm, progress, build_log=build_log, confinement=confinement, held_out=held_out,
                          output_schema=output_schema, fuel_limit=fuel_limit, threads=threads, samples=samples)
    if source_kind == Submission.SourceKind.SUBMISSION:
        measured.toolchain = built.toolchain
    return measured


def run_module(version, wasm: bytes, progress: ScoringProgress, *, build_log: str = "", confinement: str = "",
               held_out: list[EvaluationInput] | None = None, output_schema: bytes | None = None,
               fuel_limit: int | None = None, threads: int | None = None, judge: Judge | None = None,
               samples: list[EvaluationInput] = (), gate: bool = True) -> Measurement:
    """`measure()` of a module already at hand: checked against the ABI, run on every input, then
    on every public sample (engine.measure: the one recipe the fuel meter and the workbench follow).
    Not `gate`: stress inputs run even after a smoke input failed (an author's check)."""
    task = Task(version.contract_entry,
                version.file_bytes(version.contract_output) if output_schema is None else output_schema,
                version.fuel_limit if fuel_limit is None else fuel_limit, version.max_memory_bytes)
    limits, threads = site_limits(), _threads() if threads is None else threads
    judge = judge or Judge(task.output_schema, memory_bytes=limits.judge_memory_bytes)
    try:
        reading = measure_module(wasm, held_out_inputs(version) if held_out is None else held_out, task, limits,
                                 cache=module_cache(), threads=threads, judge=judge, progress=progress.scored,
                                 started=progress.running, gate=gate)
    except InvalidModule as invalid:
        return Measurement(Submission.State.INVALID_MODULE, build_log, invalid.message, invalid.detail,
                           module_digest(wasm), len(wasm), confinement=confinement)
    measured = Measurement(Submission.State.SCORED, build_log, module_digest=reading.module,
                           module_size=reading.module_size, module=wasm, evaluation=reading.evaluation,
                           confinement=confinement)
    if samples:
        on_samples = measure_module(wasm, list(samples), task, limits, cache=module_cache(), threads=threads,
                                    judge=judge, digest=reading.module)
        measured.samples = [sample_json(item, outcome) for item, outcome in zip(samples, on_samples.outcomes)]
    return measured


# Per input, what an entry keeps of its result (Result's columns): stored with the entry, and with
# each measurement of it under an epoch (scoring/epochs/).
RESULT_FIELDS = ("kind", "input_path", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "message", "detail",
                 "wall_ms", "output_size", "answer_digest")


def result_fields(item: EvaluationInput, outcome) -> dict:
    """An input's result as RESULT_FIELDS name it."""
    return {"kind": item.kind, "input_path": item.input_path, "status": outcome.status.value, "fuel": outcome.fuel,
            "fuel_limit": outcome.fuel_limit, "ceiling": outcome.ceiling, "overshoot": outcome.overshoot,
            "message": outcome.message, "detail": outcome.detail, "wall_ms": outcome.wall_ms,
            "output_size": outcome.output_size, "answer_digest": outcome.answer_digest}


def sample_json(item: EvaluationInput, outcome) -> dict:
    """A sample's result as an entry keeps it (the keys of a result in `score --json`)."""
    return {"input": item.input_path, "status": outcome.status.value, "fuel": outcome.fuel,
            "fuel_limit": outcome.fuel_limit, "ceiling": outcome.ceiling, "message": outcome.message}
