"""Scoring workflows that span models: submit, then score (build → sandbox → results)."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from catalog.manifest import Kind
from catalog.models import CaseVersion, Variant
from lib.errors import DomainError
from lib.files import open_regular
from lib.text import mixed_scripts, name_key, orphan_mark, refused_character
from engine.builds import SandboxUnavailable, SourceTooLarge, pack_folder
from engine.evaluate import Evaluation, EvaluationInput, evaluate
from engine.judging import Judge, answer_limit
from scoring import boards, building
from scoring.models import Result, Submission
from engine.progress import ScoringProgress
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, InvalidModule, ModuleCache, load_solution, module_digest

logger = logging.getLogger(__name__)

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


class Superseded(Exception):
    """This attempt is no longer the submission's current one; its results must not be stored."""


class ScoringError(DomainError):
    """A request that cannot be carried out (bad name, missing file); nothing was recorded."""


def check_name(name: str) -> str:
    """A submitter name as stored (stripped). Raises ScoringError."""
    if not name.strip():
        raise ScoringError("bad_name", "a submission needs a non-empty --name")
    if len(name) > 100:
        raise ScoringError("bad_name", "--name is longer than 100 characters")
    refused = refused_character(name)
    if refused:
        raise ScoringError("bad_name", f"--name must be one line of plain text: {refused} is not allowed "
                                       "(controls, format and other invisible characters, noncharacters)")
    orphan = orphan_mark(name)
    if orphan:
        raise ScoringError("bad_name", f"--name has a combining mark with nothing to combine with: {orphan} "
                                       "(at the start, or after a space)")
    scripts = mixed_scripts(name)
    if scripts:
        raise ScoringError("bad_name", f"--name mixes letters of {' and '.join(script.title() for script in scripts)}: a name is "
                                       "written in one script (Latin with Han and kana, or with Hangul, is one)")
    return name.strip()


def read_source(*, folder: Path | None = None, wasm_file: Path | None = None) -> tuple[str, str, bytes]:
    """(kind, label, bytes) of what is submitted: a folder packed, or a module read. Raises ScoringError."""
    if (folder is None) == (wasm_file is None):
        raise ScoringError("bad_source", "give either a submission folder or a wasm file")
    if folder is not None:
        if not Path(folder).is_dir():
            raise ScoringError("missing_source", f"submission folder {folder} does not exist")
        try:
            source = pack_folder(Path(folder), max_bytes=settings.SCORING_MAX_SOURCE_BYTES,
                                 max_unpacked_bytes=settings.SCORING_MAX_UNPACKED_BYTES)
        except SourceTooLarge as exc:
            raise ScoringError("source_too_large", str(exc)) from None
        except OSError as exc:
            raise ScoringError("missing_source", f"submission folder {folder} could not be read: {exc}") from None
        return Submission.SourceKind.SUBMISSION, str(folder), source
    try:
        handle = open_regular(wasm_file)
    except FileNotFoundError:
        raise ScoringError("missing_source", f"wasm file {wasm_file} does not exist") from None
    except OSError as exc:
        raise ScoringError("missing_source", f"wasm file {wasm_file} could not be read: {exc.strerror}") from None
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > settings.SCORING_MAX_MODULE_BYTES:
            raise ScoringError("source_too_large", f"wasm file is {size:,} bytes, more than the "
                                                   f"{settings.SCORING_MAX_MODULE_BYTES:,}-byte limit")
        source = handle.read(settings.SCORING_MAX_MODULE_BYTES + 1)
    if len(source) > settings.SCORING_MAX_MODULE_BYTES:  # it grew while it was read
        raise ScoringError("source_too_large", f"wasm file is more than the {settings.SCORING_MAX_MODULE_BYTES:,}-byte limit")
    return Submission.SourceKind.WASM, str(wasm_file), source


def source_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


def submit(version: CaseVersion, variant: Variant, name: str, *, folder: Path | None = None,
           wasm_file: Path | None = None, run: dict | None = None) -> Submission:
    """Record a submission with its source, ready to be scored. Raises ScoringError.

    `run`: its provenance, already validated (catalog.runrecords.validate_run)."""
    name = check_name(name)
    return record_submission(version, variant, name, *read_source(folder=folder, wasm_file=wasm_file), run=run)


def record_submission(version: CaseVersion, variant: Variant, name: str, kind: str, label: str, source: bytes, *,
                      run: dict | None = None, carried_from: Submission | None = None,
                      annotation: str = "", operator=None) -> Submission:
    """Store a submission whose name and source were checked and read (`check_name`, `read_source`):
    the one place a submission is made (a carried copy too, with where it came from). A name
    seen for the first time here, from the shell, belongs to no operator (staff may give it one)
    and holds its skeletons, unless it looks like a name already known (lib.text.name_skeletons):
    that name keeps them, so no operator can take either."""
    from scoring.models import NameSkeleton, SubmitterName

    row, made = SubmitterName.objects.get_or_create(key=name_key(name), defaults={"name": name})
    if made:
        try:
            with transaction.atomic():
                NameSkeleton.hold(row)
        except IntegrityError:
            pass
    return Submission.objects.create(
        version=version, variant=variant, name=name, source_kind=kind, source_label=label,
        source=source, source_size=len(source), source_digest=source_digest(source),
        wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
        input_count=version.smoke_count + version.stress_count, run=run or {}, **run_columns(run or {}),
        carried_from=carried_from, annotation=annotation, operator=operator,
    )


def run_columns(run: dict) -> dict:
    """The columns copied out of a validated run, which the boards filter by and the agents matrix
    groups and sums by: the model, the harness (stripped, as a filter reads it), the cost and the
    tokens (None: not recorded)."""
    return {"model": run.get("model", ""), "harness": run.get("harness", "").strip(), "cost_usd": run.get("cost_usd"),
            "input_tokens": run.get("input_tokens"), "output_tokens": run.get("output_tokens")}


def _held_out(version: CaseVersion) -> list[EvaluationInput]:
    return [
        EvaluationInput(Kind(row.kind), row.input_path, bytes(row.input_bytes), bytes(row.expected_bytes), row.ceiling,
                answer_limit(row.expected_size, minimum=settings.SCORING_ANSWER_MIN_BYTES,
                             factor=settings.SCORING_ANSWER_SIZE_FACTOR))
        for row in version.held_out_inputs.order_by("position")
    ]


def _threads() -> int:
    return settings.SCORING_THREADS or os.cpu_count() or 1


def _finish(submission: Submission, status: str, *, results: list[Result] = (), **fields) -> Submission:
    """Store the outcome in one transaction, if this attempt is still the current one."""
    with transaction.atomic():
        current = Submission.objects.select_for_update().only("attempt", "status").get(pk=submission.pk)
        if current.attempt != submission.attempt or current.status != Submission.State.RUNNING:
            raise Superseded(f"submission {submission.pk} attempt {submission.attempt} was superseded")
        Result.objects.filter(submission=submission).delete()
        for result in results:
            result.message, result.detail = storable(result.message), storable(result.detail)
        Result.objects.bulk_create(results)
        for name, value in fields.items():
            setattr(submission, name, storable(value) if name in ("message", "detail") else value)
        submission.build_log = storable(submission.build_log)
        submission.status = status
        submission.scored_at = timezone.now()
        submission.save()
        boards.update_boards([submission.pk])
    return submission


def storable(text: str) -> str:
    """Text the database can hold: a submission's own words (a function name in a trap, an
    import name, its build output) may carry NUL characters, which PostgreSQL refuses."""
    return text.replace("\0", "\\0") if "\0" in text else text


def _start(submission: Submission) -> None:
    """Mark this attempt running; Superseded if another attempt has taken over."""
    started = Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).exclude(
        status__in=Submission.FINAL_STATES
    ).update(status=Submission.State.RUNNING, heartbeat_at=timezone.now())
    if not started:
        raise Superseded(f"submission {submission.pk} attempt {submission.attempt} is not current")
    submission.status = Submission.State.RUNNING


@contextmanager
def _heartbeat(submission: Submission) -> Iterator[None]:
    """Refresh `heartbeat_at` while scoring runs, so a dead scorer can be told from a slow one."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.SCORING_HEARTBEAT_SECONDS):
                try:
                    Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).update(
                        heartbeat_at=timezone.now()
                    )
                except Exception:  # a missed beat is not worth failing the scoring for
                    logger.warning("heartbeat for submission %s failed", submission.pk, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{submission.pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def score(submission: Submission, *, progress: ScoringProgress | None = None) -> Submission:
    """Build (if needed), check and run the module, and store every result.

    Results are written in one transaction with the final status, and only if this attempt is
    still the submission's current one, so a scorer that dies midway leaves no half-written
    results and a scorer that was given up on cannot double-count. If the scorer itself fails,
    the submission is marked `error` (its source is kept) and the error re-raised. If its build
    cannot be given a sandbox, the attempt goes back to `pending` (no attempt spent, nothing
    written but the wait, for staff) and SandboxUnavailable is re-raised: the caller queues it
    again (scoring/jobs.py) or says so.
    """
    _start(submission)
    try:
        with _heartbeat(submission):
            return _score(submission, progress or ScoringProgress())
    except Superseded:
        raise
    except SandboxUnavailable as unavailable:
        logger.warning("submission %s waits for a build sandbox: %s", submission.pk, unavailable)
        Submission.objects.filter(pk=submission.pk, attempt=submission.attempt, status=Submission.State.RUNNING).update(
            status=Submission.State.PENDING, heartbeat_at=None, job_id="", sandbox_waits=F("sandbox_waits") + 1,
            message="waiting for a build sandbox", detail=storable(f"no build sandbox could be had: {unavailable}"))
        raise
    except Exception as exc:
        logger.exception("scoring submission %s failed", submission.pk)
        Submission.objects.filter(pk=submission.pk, attempt=submission.attempt).update(
            status=Submission.State.ERROR, message=f"the scorer failed: {type(exc).__name__}: {exc}"
        )
        raise


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
    evaluation: Evaluation | None = None  # when SCORED
    confinement: str = ""  # how its build was held (engine.builds.CONFINED…); "" when nothing was built


def measure(version: CaseVersion, source_kind: str, source: bytes, progress: ScoringProgress, *,
            wall_seconds: float | None = None) -> Measurement:
    """Build `source` (a packed folder) or take it as the module, check the module against the
    ABI, and run every held-out input of `version`. Raises SandboxUnavailable (from the build)."""
    build_log, confinement = "", ""
    if source_kind == Submission.SourceKind.SUBMISSION:
        progress.building(version.build_command)
        built = building.build_source(source, version, wall_seconds=wall_seconds)
        confinement = built.confinement
        if not built.ok:
            return Measurement(Submission.State.BUILD_FAILED, built.log, built.message, built.detail,
                               confinement=confinement)
        build_log, wasm = built.log, built.module
    else:
        wasm = source
    digest = module_digest(wasm)
    try:
        solution = load_solution(
            wasm, entry=version.contract_entry, max_memory_bytes=version.max_memory_bytes,
            cache=module_cache(), max_module_bytes=settings.SCORING_MAX_MODULE_BYTES, digest=digest,
        )
    except InvalidModule as invalid:
        return Measurement(Submission.State.INVALID_MODULE, build_log, invalid.message, invalid.detail, digest, len(wasm),
                           confinement=confinement)
    held_out = _held_out(version)
    judge = Judge(version.file_bytes(version.contract_output), memory_bytes=settings.SCORING_JUDGE_MEMORY_BYTES)
    progress.running(len(held_out))
    evaluation = evaluate(
        solution, held_out, fuel_limit=version.fuel_limit, judge=judge,
        wall_seconds=settings.SCORING_WALL_SECONDS, threads=_threads(),
        progress=progress.scored,
    )
    return Measurement(Submission.State.SCORED, build_log, module_digest=digest, module_size=len(wasm),
                       evaluation=evaluation, confinement=confinement)


def _score(submission: Submission, progress: ScoringProgress) -> Submission:
    measured = measure(submission.version, submission.source_kind, bytes(submission.source), progress,
                       wall_seconds=building.build_wall(submission))
    submission.build_log = measured.build_log
    submission.build_confinement = measured.confinement
    if measured.module_digest:
        submission.module_digest, submission.module_size = measured.module_digest, measured.module_size
    if measured.evaluation is None:
        return _finish(submission, measured.state, message=measured.message, detail=measured.detail)
    evaluation = measured.evaluation
    return _finish(
        submission, Submission.State.SCORED, results=_result_rows(submission, evaluation), message="", detail="",
        passed=evaluation.passed, total_fuel=evaluation.total_fuel, overshoot=evaluation.overshoot,
        passed_count=evaluation.passed_count,
    )


def _result_rows(submission: Submission, evaluation: Evaluation) -> list[Result]:
    return [
        Result(
            submission=submission, position=position, kind=item.kind, input_path=item.input_path,
            status=outcome.status.value, fuel=outcome.fuel, fuel_limit=outcome.fuel_limit,
            ceiling=outcome.ceiling, overshoot=outcome.overshoot, message=outcome.message,
            detail=outcome.detail, wall_ms=outcome.wall_ms, output_size=outcome.output_size,
            answer_digest=outcome.answer_digest,
        )
        for position, (item, outcome) in enumerate(zip(evaluation.held_out, evaluation.outcomes))
    ]
