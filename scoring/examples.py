"""Score the example submissions under `examples/submissions/<slug>/<name>/`.

Each example is scored against every imported version of its case under the name
`example-<name>`, unless that exact source was already scored for that version, so running it
again only scores what is new.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from django.conf import settings

from catalog.models import CaseVersion
from engine.builds import pack_folder
from scoring.models import Submission
from scoring.attempts import score
from scoring.recording import submit

EXAMPLE_PREFIX = "example-"


@dataclass(frozen=True)
class ExampleRun:
    slug: str
    version: str
    name: str
    submission: Submission | None  # None when it was already scored

    @property
    def skipped(self) -> bool:
        return self.submission is None


def example_folders(root: Path) -> list[tuple[str, Path]]:
    """(case slug, example folder) for every example, sorted."""
    return [
        (case_dir.name, example_dir)
        for case_dir in sorted(path for path in Path(root).iterdir() if path.is_dir())
        for example_dir in sorted(path for path in case_dir.iterdir() if path.is_dir())
    ]


def score_examples(root: Path, *, on_result: Callable[[ExampleRun], None] | None = None) -> list[ExampleRun]:
    runs: list[ExampleRun] = []
    for slug, folder in example_folders(root):
        name = EXAMPLE_PREFIX + folder.name
        digest = hashlib.sha256(pack_folder(folder, max_bytes=settings.SCORING_MAX_SOURCE_BYTES)).hexdigest()
        for version in CaseVersion.objects.filter(case__slug=slug).order_by("ordinal"):
            already = Submission.objects.filter(
                version=version, name=name, source_digest=digest, status__in=Submission.FINAL_STATES
            ).exists()
            submission = None
            if not already:
                submission = score(submit(version, version.default_variant(), name, folder=folder))
            run = ExampleRun(slug, version.version, name, submission)
            runs.append(run)
            if on_result:
                on_result(run)
    return runs
