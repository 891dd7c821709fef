"""One task's files: {path in the task folder: TaskFile}, from the imported version and variant
and, when the case has one, the author's reference solution.

The run root is `catalog.seeding.run_root_files`, the meter the kit's (`catalog.metering`), the
run record `catalog.runrecords.new_record`'s but for `seeded_at`, which the image records when it
lays the run root out (a time here would make two exports differ).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from catalog.manifest import PROMPT_DEST
from catalog.metering import contract_of, meter_files
from catalog.models import CaseVersion, Variant
from catalog.runrecords import new_record
from catalog.samples import SAMPLES
from catalog.seeding import run_root_files
from engine.builds.packing import EXCLUDED_DIRECTORIES
from scoring.epochs import board_engine
from scoring.harbor.config import task_toml
from scoring.harbor.contents import dockerfile, instruction
from scoring.workbench.solutions import Solution

ROOT = Path(__file__).resolve().parent.parent.parent
PAYLOAD = Path(__file__).resolve().parent / "payload"
STANDARD_LIBRARY_SCRIPT = ROOT / "scripts" / "rust-wasm32-std.sh"


@dataclass(frozen=True)
class TaskFile:
    content: bytes
    executable: bool = False


def task_name(version: CaseVersion, variant: Variant) -> str:
    return f"{version.case.slug}-{version.version}-{variant.slug}"


def task_files(version: CaseVersion, variant: Variant, reference: Solution | None) -> dict[str, TaskFile]:
    run_root = run_root_files(version, variant)
    meter = meter_files(contract_of(version, variant, board_engine(version)))
    files = {
        "task.toml": TaskFile(task_toml(version, variant, task_name(version, variant)).encode("utf-8")),
        "instruction.md": TaskFile(instruction(run_root[PROMPT_DEST]).encode("utf-8")),
        "environment/Dockerfile": TaskFile(dockerfile(version).encode("utf-8")),
        "environment/rust-wasm32-std.sh": TaskFile(STANDARD_LIBRARY_SCRIPT.read_bytes(), executable=True),
        **within("environment/run", run_root),
        **within("environment/meter", meter),
        "tests/test.sh": TaskFile((PAYLOAD / "test.sh").read_bytes(), executable=True),
        "tests/verify.py": TaskFile((PAYLOAD / "verify.py").read_bytes()),
        "tests/record.json": TaskFile(run_record(version, variant, run_root)),
        **within("tests/meter", meter),
        **within("tests/run", sample_files(run_root)),
    }
    if reference is not None:
        files["solution/solve.sh"] = TaskFile((PAYLOAD / "solve.sh").read_bytes(), executable=True)
        files.update(within("solution/reference", source_files(reference.path)))
    return files


def within(folder: str, files: dict[str, bytes]) -> dict[str, TaskFile]:
    return {f"{folder}/{path}": TaskFile(content) for path, content in files.items()}


def sample_files(run_root: dict[str, bytes]) -> dict[str, bytes]:
    """The run root's `samples/` folder as seeded: the public samples (and a generator, if published)."""
    return {path: content for path, content in run_root.items() if path.startswith(f"{SAMPLES}/")}


def run_record(version: CaseVersion, variant: Variant, run_root: dict[str, bytes]) -> bytes:
    record = new_record(version, variant, run_root)
    del record["seeded_at"]
    return (json.dumps(record, indent=2) + "\n").encode("utf-8")


class UnreadableSolution(Exception):
    """A reference solution holds something other than folders and regular files (a link)."""


def source_files(folder: Path) -> dict[str, bytes]:
    """A source folder's files by their paths in it, build products and version control left out."""
    found = {}
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if EXCLUDED_DIRECTORIES.intersection(parts):  # build products, version control
            continue
        if path.is_symlink() or not (path.is_dir() or path.is_file()):
            raise UnreadableSolution(f"{path}: a solution is read as folders and regular files, not links")
        if path.is_file():
            found["/".join(parts)] = path.read_bytes()
    return found
