"""`check_case --write-expected`: every expected answer of a version folder not yet imported,
written from its reference solution's answers, as canonical JSON (stable bytes: compact, keys
sorted, one line). An imported version never changes: refused, nothing written."""

from __future__ import annotations

import json
from dataclasses import replace

from django.conf import settings

from engine.judging import Judge
from lib.strictjson import loads_capped
from scoring.workbench.checking import Builds, measure_solution
from scoring.workbench.folder import FolderVersion
from scoring.workbench.solutions import CaseSolutions

ANSWER_LIMIT = 16 << 20


class WriteRefused(Exception):
    """Nothing was written; the message says why."""


class Recorder:
    """A judge that keeps each answer it is shown (keyed by the input's position, passed as the
    "expected" answer) and judges it against itself: valid strict JSON within the output schema is
    correct, anything else is not."""

    def __init__(self, output_schema: bytes):
        self.judge = Judge(output_schema, memory_bytes=settings.SCORING_JUDGE_MEMORY_BYTES)
        self.answers: dict[int, bytes] = {}

    def check(self, output: bytes, expected: bytes, *, deadline: float):
        self.answers[int(expected)] = bytes(output)
        return self.judge.check(output, output, deadline=deadline)


def canonical(answer: bytes) -> bytes:
    return (json.dumps(loads_capped(answer, len(answer)), separators=(",", ":"), sort_keys=True) + "\n").encode()


def write_expected(version: FolderVersion, solutions: CaseSolutions, builds: Builds, progress) -> list[str]:
    """Write the reference's answers as the version's expected answers. Returns the files written.
    Raises WriteRefused."""
    if version.imported():
        raise WriteRefused(f"{version.label} is imported: a published version never changes (its digest is its "
                           "identity). Write the answers into a new version folder.")
    reference = solutions.reference_for(version.version)
    if reference is None:
        raise WriteRefused(f"{version.label}: no reference solution to take the answers from (an accepted one, or "
                           "`reference` in solutions.toml)")
    recorder = Recorder(version.output_schema)
    # Each input's answer cap: generous (the placeholder answers say nothing of the real ones' size).
    held_out = [replace(item, expected=str(index).encode(), answer_limit=max(item.answer_limit, ANSWER_LIMIT))
                for index, item in enumerate(version.held_out())]
    measured = measure_solution(reference, version, builds, progress(reference), held_out=held_out, judge=recorder)
    if measured.evaluation is None:
        raise WriteRefused(f"the reference {reference.name} gives no answer: {measured.state}: {measured.message}")
    wrong = [f"{item.input_path} ({outcome.status}: {outcome.message})" for item, outcome
             in zip(measured.evaluation.held_out,
                    measured.evaluation.outcomes) if not outcome.status.answered_correctly]
    if wrong:
        raise WriteRefused(f"the reference {reference.name} does not answer every input validly: " + "; ".join(wrong))
    written = []
    for index, case in enumerate(version.source.manifest.cases):
        target = version.path / case.expected
        target.write_bytes(canonical(recorder.answers[index]))
        written.append(case.expected)
    return written
