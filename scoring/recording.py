"""Recording a submission: its name checked, its source read (a folder packed, or a module), and
the one place a submission row is made (`record_submission`: a carried copy too)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from catalog.models import CaseVersion, Variant
from engine.builds import SourceTooLarge, pack_folder
from lib.errors import DomainError
from lib.files import open_regular
from lib.text import mixed_scripts, name_key, name_problem, refused_character
from scoring.epochs.engines import site_engine
from scoring.locking import lock_board
from scoring.models import NameSkeleton, Submission, SubmitterName


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
    problem = name_problem(name)
    if problem:
        raise ScoringError("bad_name", f"--name could pass for another name: {problem}")
    scripts = mixed_scripts(name)
    if scripts:
        raise ScoringError("bad_name",
                           f"--name mixes letters of {' and '.join(script.title() for script in scripts)}: a name is "
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
        raise ScoringError("source_too_large",
                           f"wasm file is more than the {settings.SCORING_MAX_MODULE_BYTES:,}-byte limit")
    return Submission.SourceKind.WASM, str(wasm_file), source


def is_retired(version_id: int) -> bool:
    """Read now, from the database: a version loaded earlier may have been retired since (read it
    under the version's board lock, which `retire` takes, for an answer that holds)."""
    return CaseVersion.objects.filter(pk=version_id, retired_at__isnull=False).exists()


def refuse_retired(version: CaseVersion) -> None:
    """Raise ScoringError("version_retired") for a retired version: its board takes no entry."""
    if is_retired(version.pk):
        version.refresh_from_db(fields=["retired_at"])
        raise ScoringError("version_retired", f"version {version.version} of {version.case.slug} was retired on "
                                              f"{version.retired_at:%Y-%m-%d}: its board is frozen and takes no "
                                              "entry (submit to a current version)")


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
    # Until it is measured, an entry is the site's engine's to count (its current epoch's), whatever
    # engine the process that records it runs; the attempt that measures it records its own. Read
    # before the board's lock is taken (it may be a query).
    engine = site_engine()
    with transaction.atomic():
        lock_board(version.pk)  # as `retire` does: the version is retired before this, or after
        refuse_retired(version)
        return _record(version, variant, name, kind, label, source, run=run, carried_from=carried_from,
                       annotation=annotation, operator=operator, engine=engine)


def _record(version, variant, name, kind, label, source, *, run, carried_from, annotation, operator,
            engine: tuple[str, str]) -> Submission:
    row, made = SubmitterName.objects.get_or_create(key=name_key(name), defaults={"name": name})
    if made:
        try:
            with transaction.atomic():
                NameSkeleton.hold(row)
        except IntegrityError:
            pass
    wasmtime_version, engine_digest = engine
    return Submission.objects.create(
        version=version, variant=variant, name=name, source_kind=kind, source_label=label,
        source=source, source_size=len(source), source_digest=source_digest(source),
        wasmtime_version=wasmtime_version, engine_digest=engine_digest,
        input_count=version.smoke_count + version.stress_count, run=run or {}, **run_columns(run or {}),
        carried_from=carried_from, annotation=annotation, operator=operator,
    )


def run_columns(run: dict) -> dict:
    """The columns copied out of a validated run, which the boards filter by and the agents matrix
    groups and sums by: the model, the harness (stripped, as a filter reads it), the cost and the
    tokens (None: not recorded)."""
    return {"model": run.get("model", ""), "harness": run.get("harness", "").strip(), "cost_usd": run.get("cost_usd"),
            "input_tokens": run.get("input_tokens"), "output_tokens": run.get("output_tokens")}
