"""Which versions are exported, and their task folders written (docs/harbor.md).

The export is assembled beside DIR and moved into place whole, as `seed_run` lays out a run root,
so a failure leaves nothing behind. Every file is written in sorted order with a fixed mode (0644,
0755 for the scripts and every folder) and one fixed modification time: the same catalog and
solutions give the same bytes, and the same folders.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Sequence

from catalog.models import CaseVersion
from lib.errors import DomainError
from scoring.harbor.folders import TaskFile, UnreadableSolution, task_files, task_name
from scoring.workbench.solutions import Solution, case_solutions

FIXED_TIME = 946684800  # 2000-01-01T00:00:00Z, every file's and folder's modification time (a kit's members' too)


class ExportRefused(DomainError):
    """Nothing was exported. Codes: `destination_exists`, `unknown_case`, `name_clash`,
    `unreadable_solution`, `held_out_file`."""


@dataclass(frozen=True)
class ExportedTask:
    name: str
    reference: str | None  # the reference solution in solution/ ("accepted/fast"); None: no solution/


@dataclass(frozen=True)
class Export:
    folder: Path
    tasks: tuple[ExportedTask, ...]


def chosen_versions(cases: Sequence[str] = (), difficulty: str = "", tag: str = "",
                    since: date | None = None) -> list[CaseVersion]:
    """The latest shown version of each case, by slug: only the cases named (each must be shown),
    of the difficulty, with the tag, first published on or after `since`, when those are given."""
    versions = CaseVersion.objects.latest_shown().select_related("case").order_by("case__slug")
    if cases:
        versions = versions.filter(case__slug__in=cases)
        unknown = sorted(set(cases) - {version.case.slug for version in versions})
        if unknown:
            raise ExportRefused("unknown_case", f"no shown case has the slug {', '.join(unknown)}")
    if difficulty:
        versions = versions.filter(difficulty=difficulty)
    if tag:
        versions = versions.filter(tags__name=tag)
    if since:
        versions = versions.filter(case__created_at__date__gte=since)
    return list(versions)


def reference_of(solutions: Path, version: CaseVersion) -> Solution | None:
    """The author's reference solution of the version (check_case's: solutions.toml's `reference`,
    else accepted/reference), when it is a source folder."""
    found = case_solutions(solutions, version.case.slug).reference_for(version.version)
    return found if found is not None and found.is_source else None


def export_harbor(dest: Path, versions: Sequence[CaseVersion], solutions: Path) -> Export:
    """One task folder per version and variant in `dest`, which must not exist, or be empty."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ExportRefused("destination_exists", f"{dest} already exists and is not an empty folder")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".harbor-", dir=dest.parent))
    try:
        exported: list[ExportedTask] = []
        for version in versions:
            reference = reference_of(solutions, version)
            for variant in version.variants.order_by("position"):
                name = task_name(version, variant)
                if any(task.name == name for task in exported):
                    raise ExportRefused("name_clash", f"two tasks would be named {name}")
                write_task(staging / name, version, _files(version, variant, reference))
                exported.append(ExportedTask(name, reference.name if reference else None))
        settle(staging)
        if dest.exists():
            dest.rmdir()
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Export(dest, tuple(exported))


def _files(version, variant, reference: Solution | None) -> dict[str, TaskFile]:
    try:
        return task_files(version, variant, reference)
    except UnreadableSolution as error:
        raise ExportRefused("unreadable_solution", str(error)) from None


def write_task(folder: Path, version: CaseVersion, files: dict[str, TaskFile]) -> None:
    """The task's files under `folder`, after the last guard: none of them is a held-out file."""
    held_out = {hashlib.sha256(bytes(content)).digest()
                for pair in version.held_out_inputs.values_list("input_bytes", "expected_bytes") for content in pair}
    leaked = sorted(path for path, file in files.items() if hashlib.sha256(file.content).digest() in held_out)
    if leaked:
        raise ExportRefused("held_out_file", f"{folder.name}: {', '.join(leaked)} would be a held-out file")
    for path in sorted(files):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path].content)
        target.chmod(0o755 if files[path].executable else 0o644)


def settle(root: Path) -> None:
    """Every folder's mode, and every file's and folder's time, fixed (innermost first: writing
    into a folder changes its time)."""
    for directory, _, names in os.walk(root, topdown=False):
        for name in names:
            os.utime(os.path.join(directory, name), (FIXED_TIME, FIXED_TIME))
        os.chmod(directory, 0o755)
        os.utime(directory, (FIXED_TIME, FIXED_TIME))
