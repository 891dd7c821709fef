"""Score the bundled solutions a reader sees as examples: the source folders under
`solutions/<slug>/accepted/<name>/` and `solutions/<slug>/over_limit/<name>/` (scoring/workbench/:
a case's solutions by the verdict each must get; the others, wrong on purpose, are for
`check_case`, not the boards).

Each example is scored against every imported version of its case under the name
`example-<name>`, unless that exact source was already scored for that version, so running it
again only scores what is new; an example is built once for all the versions that build it
alike (the same [build] commands and limits).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from django.conf import settings

from catalog.models import CaseVersion
from engine.builds import pack_folder
from scoring.attempts import score
from scoring.building import sharing_builds
from scoring.models import Submission
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


# The verdict folders whose source solutions are scored as examples: entries a board shows as they are meant.
EXAMPLE_VERDICTS = ("accepted", "over_limit")


def example_folders(root: Path) -> list[tuple[str, Path]]:
    """(case slug, example folder) for every example, sorted (links are never followed)."""
    return [
        (case_dir.name, example_dir)
        for case_dir in sorted(path for path in Path(root).iterdir() if path.is_dir() and not path.is_symlink())
        for verdict in EXAMPLE_VERDICTS
        if (case_dir / verdict).is_dir() and not (case_dir / verdict).is_symlink()
        for example_dir in sorted(path for path in (case_dir / verdict).iterdir()
                                  if path.is_dir() and not path.is_symlink())
    ]


def score_examples(root: Path, *, on_result: Callable[[ExampleRun], None] | None = None) -> list[ExampleRun]:
    with sharing_builds():  # an example is built once for the versions that build it alike
        return _score_examples(root, on_result)


def _score_examples(root: Path, on_result: Callable[[ExampleRun], None] | None) -> list[ExampleRun]:
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
