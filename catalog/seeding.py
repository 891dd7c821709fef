"""Lay out a run root the way the harness seeds one (docs/commands.md `seed_run`).

The workspace is copied to the root, every common spec and the variant's additive specs go to
their `dest` (`.hbs` sources rendered), the contract schemas sit at their exact manifest paths,
and the rendered prompt is written to PROMPT.md. Held-out inputs and answers are never seeded:
they are not among a version's files at all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from catalog.manifest import PROMPT_DEST
from catalog.models import CaseVersion, Variant
from catalog.runrecords import new_record, write_record
from lib.errors import DomainError
from lib.templates import render_template


class SeedError(DomainError):
    """A run root cannot be laid out. Codes: `outside_root`, `destination_exists`,
    `record_unwritable`, `record_inside_root`."""

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class SeededRun:
    root: Path
    files: tuple[str, ...]  # relative paths written, sorted


def _inside(root: Path, rel: str) -> Path:
    target = (root / PurePosixPath(rel)).resolve()
    if target != root and root not in target.parents:
        raise SeedError("outside_root", f"{rel} would land outside the run root")
    return target


def run_root_files(version: CaseVersion, variant: Variant) -> dict[str, bytes]:
    """Relative path → bytes of everything a run root holds, later entries winning."""
    stored = {row.path: bytes(row.content) for row in version.files.all()}
    context = variant.template_context
    files: dict[str, bytes] = {}
    if version.workspace:
        prefix = version.workspace.rstrip("/") + "/"
        for path, content in stored.items():
            if path.startswith(prefix):
                files[path[len(prefix):]] = content
    for spec in (*version.spec_files(), *variant.spec_files()):
        files[spec.dest] = _spec_bytes(spec.source, stored[spec.source], context)
    for schema in (version.contract_input, version.contract_output):
        files[schema] = stored[schema]
    files[PROMPT_DEST] = variant.rendered_prompt()
    return files


def _spec_bytes(source_path: str, content: bytes, context: dict) -> bytes:
    """A spec file as the run root holds it: a `.hbs` source rendered, any other as it is."""
    return render_template(content, context).encode("utf-8") if source_path.endswith(".hbs") else content


def seed_run(version: CaseVersion, variant: Variant, dest: Path, *, record: Path | None = None) -> SeededRun:
    """Write the run root to `dest` (which must not exist, or be empty), all or nothing; with
    `record`, also its run record (catalog.runrecords) there, written last."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise SeedError("destination_exists", f"{dest} already exists and is not an empty folder")
    if record is not None:
        if Path(record).exists():
            raise SeedError("destination_exists", f"run record {record} already exists")
        if dest.resolve() in Path(record).resolve().parents:
            raise SeedError("record_inside_root", f"run record {record} must be outside the run root "
                                                  "(the solver works in it)")
    files = run_root_files(version, variant)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".seeding-", dir=dest.parent))
    pending_record = None
    try:
        root = staging.resolve()
        for rel, content in sorted(files.items()):
            target = _inside(root, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        if record is not None:  # staged beside its place, so a record that cannot be written lays out nothing
            record = Path(record)
            try:
                handle, name = tempfile.mkstemp(prefix=".record-", dir=record.parent)
                os.close(handle)
                pending_record = Path(name)
                write_record(new_record(version, variant, files), pending_record)
            except OSError as error:
                raise SeedError("record_unwritable", f"run record {record} could not be written: "
                                                     f"{error.strerror or error}") from None
        if dest.exists():
            dest.rmdir()
        os.replace(staging, dest)
        if pending_record is not None:
            os.replace(pending_record, record)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if pending_record is not None:
            pending_record.unlink(missing_ok=True)
        raise
    return SeededRun(dest, tuple(sorted(files)))
