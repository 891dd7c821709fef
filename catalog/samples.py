"""A version's public samples: inputs with their answers that a solver may read and run, in its
workspace's `samples/` folder (seeded at the run root's `samples/`) — each `NAME.json` an input of
the contract and `NAME.out` beside it its answer. They are never held out (the validator refuses a
seeded file that is, or holds, a held-out one); the site measures every entry on them too,
unscored, and a kit's `python3 meter check` meters a workspace on them at home.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from catalog.models import CaseVersion

SAMPLES = "samples"
GENERATOR = f"{SAMPLES}/generate.py"  # an author's generator, when they publish it beside the samples


@dataclass(frozen=True)
class Sample:
    name: str  # its path in the run root: samples/NAME.json
    input_bytes: bytes
    expected: bytes | None  # samples/NAME.out, when there is one


def _prefix(workspace: str) -> str:
    return "" if workspace in ("", ".") else workspace.rstrip("/") + "/"


def samples_of(files: dict[str, bytes]) -> list[Sample]:
    """The samples among a run root's files (relative path → bytes), by name."""
    prefix = f"{SAMPLES}/"
    return [Sample(path, content, files.get(path[:-len(".json")] + ".out"))
            for path, content in sorted(files.items())
            if path.startswith(prefix) and path.endswith(".json") and "/" not in path[len(prefix):]]


def workspace_samples(workspace: str | None, files: dict[str, bytes]) -> list[Sample]:
    """The samples of a version folder's workspace (`files`: the version's files by their paths)."""
    if not workspace:
        return []
    prefix = _prefix(workspace) + f"{SAMPLES}/"
    start = len(_prefix(workspace))
    return samples_of({path[start:]: content for path, content in files.items() if path.startswith(prefix)})


@functools.lru_cache(maxsize=128)
def _stored(version_id: int, digest: str) -> tuple[tuple[Sample, ...], bool]:
    version = CaseVersion.objects.get(pk=version_id)
    if not version.workspace:
        return (), False
    prefix = _prefix(version.workspace) + f"{SAMPLES}/"
    files = {row.path: bytes(row.content) for row in version.files.filter(path__startswith=prefix)}
    return tuple(workspace_samples(version.workspace, files)), _prefix(version.workspace) + GENERATOR in files


def version_samples(version: CaseVersion) -> list[Sample]:
    """The samples of an imported version (it never changes: read once per process)."""
    return list(_stored(version.pk, version.digest)[0])


def publishes_generator(version: CaseVersion) -> bool:
    """Whether the author put their input generator beside the samples (samples/generate.py)."""
    return _stored(version.pk, version.digest)[1]
