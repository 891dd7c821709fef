"""Checking one version folder with its case's solutions: its validator and generator
(reproduce.py); each solution built once, run twice (in parallel and one input at a time) with the
version's real limits, every input run even after a smoke input failed, its verdict against its
folder's; the reference's answers against the expected ones; the limits (fuel and memory) against
the measurements."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

from django.conf import settings

from catalog.manifest import INT64_MAX, fuel_ceiling
from engine.builds import BuildResult
from engine.progress import ScoringProgress
from engine.sandbox.run import Status
from scoring import building
from scoring.measuring import Measurement, run_module
from scoring.models import Submission
from scoring.workbench.folder import FolderVersion
from scoring.workbench.reproduce import check_folder
from scoring.workbench.solutions import CaseSolutions, Solution, verdict_of

# A slow solution's verdict is checked again at this many times the fuel limit: one that flips is
# decided by where the limit happens to be.
SENSITIVITY = 1.5
HEADROOM = 0.5  # the slowest accepted solution should use at most this share of the pass line
LOOSE = 10  # …and the pass line should be at most this many times what it uses
# When no solution filed as accepted answers within the pass line, they are measured again with
# this runway (a ceiling this many times the pass line) to suggest one.
WIDE_RUNWAY = 1000
MEBIBYTE = 1 << 20


@dataclass
class Run:
    """One solution on one version."""

    solution: Solution
    measurement: Measurement
    verdict: str
    decided_by: str | None  # the input that decided a verdict other than accepted
    reason: str = ""  # what happened there (a trap's message, say)

    @property
    def results(self) -> list[tuple[str, str, int | None]]:
        """(input, status, fuel), in manifest order; none when the build failed or the module was refused."""
        evaluation = self.measurement.evaluation
        if evaluation is None:
            return []
        return [(item.input_path, outcome.status.value, outcome.fuel)
                for item, outcome in zip(evaluation.held_out, evaluation.outcomes)]

    @property
    def memory(self) -> list[int | None]:
        """The module's linear memory at its peak on each input, in manifest order."""
        evaluation = self.measurement.evaluation
        return [outcome.memory_bytes for outcome in evaluation.outcomes] if evaluation is not None else []

    def stress_fuel(self) -> dict[str, int]:
        evaluation = self.measurement.evaluation
        if evaluation is None:
            return {}
        return {item.input_path: outcome.fuel for item, outcome in zip(evaluation.held_out, evaluation.outcomes)
                if item.kind == "stress" and outcome.fuel is not None and outcome.status.answered_correctly}


@dataclass
class VersionCheck:
    version: FolderVersion
    latest: bool = True  # no later version of the case supersedes it
    runs: list[Run] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # What would be a warning on a version a later one supersedes: published, it cannot change,
    # and the later version is where it is mended.
    notes: list[str] = field(default_factory=list)
    suggested_fuel_limit: int | None = None
    suggested_from_runway: int | None = None  # the suggestion was measured with this runway (none passed)
    peak_memory: int | None = None  # the most linear memory an accepted solution used on an input
    suggested_max_memory_bytes: int | None = None
    ceilings: list[dict] = field(default_factory=list)  # per stress input: its runway's ceiling against the slowest


class Builds:
    """Each solution's source built once per build configuration, for every version that shares it."""

    def __init__(self):
        self.results: dict[tuple, BuildResult] = {}

    @staticmethod
    def _key(solution: Solution, version: FolderVersion) -> tuple:
        return solution.path, version.build_install, version.build_command, version.build_module

    def has(self, solution: Solution, version: FolderVersion) -> bool:
        return self._key(solution, version) in self.results

    def build(self, solution: Solution, version: FolderVersion) -> BuildResult:
        key = self._key(solution, version)
        if key not in self.results:
            self.results[key] = building.build_source(solution.packed(settings.SCORING_MAX_SOURCE_BYTES), version)
        return self.results[key]


def measure_solution(solution: Solution, version: FolderVersion, builds: Builds, progress: ScoringProgress,
                     **options) -> Measurement:
    """Build (a source) or read (a module) the solution and run it on every input of the version."""
    if solution.is_source:
        if not builds.has(solution, version):
            progress.building(version.build_command)
        built = builds.build(solution, version)
        if not built.ok:
            return Measurement(Submission.State.BUILD_FAILED, built.log, built.message, built.detail,
                               confinement=built.confinement)
        wasm = built.module
    else:
        wasm = solution.module(settings.SCORING_MAX_MODULE_BYTES)
    options.setdefault("held_out", version.held_out(options.get("fuel_limit")))
    options.setdefault("gate", False)  # every input, so one run shows every defect
    return run_module(version, wasm, progress, output_schema=version.output_schema, **options)


def check_version(version: FolderVersion, solutions: CaseSolutions, builds: Builds,
                  progress: Callable[[Solution], ScoringProgress], *, latest: bool = True) -> VersionCheck:
    """Every check of one version (docs/writing-cases.md: "Checking a case"). Not `latest`: a later
    version of the case supersedes it, and what would be warnings are notes."""
    found = VersionCheck(version, latest=latest)
    folder = check_folder(version, generate=True)
    found.errors.extend(folder.errors)
    found.warnings.extend([*(warning.message for warning in version.source.warnings), *folder.warnings])
    applicable = solutions.for_version(version.version)
    if not applicable:
        found.errors.append(f"{version.label}: no solution applies (put them under {solutions.folder}/<verdict>/)")
    samples = version.sample_inputs()
    for solution in applicable:
        parallel = measure_solution(solution, version, builds, progress(solution), samples=samples)
        verdict, decided_by = verdict_of(parallel.state, parallel.evaluation)
        run = Run(solution, parallel, verdict, decided_by, _reason(parallel, decided_by))
        found.runs.append(run)
        if verdict == "accepted":  # a solution the version accepts passes what its kit shows solvers
            found.errors.extend(f"{solution.name} does not pass the public sample {sample['input']}: it is "
                                f"{sample['status']} there"
                                for sample in parallel.samples if sample["status"] != "passed")
        if parallel.evaluation is not None:
            serial = measure_solution(solution, version, builds, progress(solution), threads=1)
            found.errors.extend(_repeats(solution, parallel, serial))
        _judge_verdict(found, run)
        if verdict in ("over_limit", "fuel_exhausted"):
            raised = math.floor(version.fuel_limit * SENSITIVITY)
            again = measure_solution(solution, version, builds, progress(solution), fuel_limit=raised)
            flipped, _ = verdict_of(again.state, again.evaluation)
            if flipped != verdict:
                found.warnings.append(f"{solution.name}: {verdict} at the fuel limit, {flipped} at {SENSITIVITY}× it "
                                      f"({raised:,}): its verdict turns on where the limit happens to be")
    reference = solutions.reference_for(version.version)
    _check_reference(found, reference, solutions)
    _check_limits(found)
    if found.suggested_fuel_limit is None:
        _suggest_from_a_wide_runway(found, builds, progress)
    _check_memory(found)
    if not latest:
        found.notes, found.warnings = found.warnings, []
    return found


def _reason(measurement: Measurement, decided_by: str | None) -> str:
    """What happened on the input that decided a verdict (a trap's message, the wrong answer's place)."""
    evaluation = measurement.evaluation
    if evaluation is None or decided_by is None:
        return measurement.message if evaluation is None else ""
    return next((outcome.message for item, outcome in zip(evaluation.held_out, evaluation.outcomes)
                 if item.input_path == decided_by), "")


def _suggest_from_a_wide_runway(found: VersionCheck, builds: Builds,
                                progress: Callable[[Solution], ScoringProgress]) -> None:
    """No solution filed as accepted answered every stress input within the pass line: measure
    them again with a ceiling WIDE_RUNWAY times it, and suggest a limit from that."""
    version = found.version
    ceiling = min(version.fuel_limit * WIDE_RUNWAY, INT64_MAX)
    slowest = None
    for run in found.runs:
        if run.solution.expected != "accepted" or run.measurement.evaluation is None:
            continue
        held_out = [replace(item, ceiling=ceiling) for item in version.held_out()]
        again = measure_solution(run.solution, version, builds, progress(run.solution), held_out=held_out)
        if again.evaluation is None:
            continue
        fuels = [outcome.fuel for item, outcome in zip(again.evaluation.held_out, again.evaluation.outcomes)
                 if item.kind == "stress" and outcome.status.answered_correctly and outcome.fuel is not None]
        if fuels and len(fuels) == len(version.source.manifest.stress_cases):
            slowest = max(slowest or 0, *fuels)
    if slowest is not None:
        found.suggested_fuel_limit = round_up(slowest * 2)
        found.suggested_from_runway = WIDE_RUNWAY


def _check_memory(found: VersionCheck) -> None:
    """The most memory an accepted solution used on an input, and a cap with room for twice that."""
    peaks = [memory for run in found.runs if run.verdict == "accepted" for memory in run.memory if memory]
    if not peaks:
        return
    found.peak_memory = max(peaks)
    found.suggested_max_memory_bytes = -(-2 * found.peak_memory // MEBIBYTE) * MEBIBYTE


def _repeats(solution: Solution, first: Measurement, second: Measurement) -> list[str]:
    """Errors for every input whose status, fuel or answer differs between the two runs."""
    problems = []
    for item, one, two in zip(first.evaluation.held_out, first.evaluation.outcomes, second.evaluation.outcomes):
        if (one.status, one.fuel, one.answer_digest) != (two.status, two.fuel, two.answer_digest):
            problems.append(f"{solution.name}: {item.input_path} gave {one.status} with {one.fuel} fuel in one run "
                            f"and {two.status} with {two.fuel} in another (in parallel, then alone): its measurement "
                            "does not repeat")
    return problems


def _judge_verdict(found: VersionCheck, run: Run) -> None:
    name, expected = run.solution.name, run.solution.expected
    decided = f" (decided by {run.decided_by}" + (f": {run.reason}" if run.reason else "") + ")" \
        if run.decided_by else (f" ({run.reason})" if run.reason else "")
    if run.verdict != expected:
        said = "is not correct within the pass line on every input" if expected == "accepted" else f"is not {expected}"
        found.errors.append(f"{name} {said}: its verdict is {run.verdict}{decided}")
    elif run.verdict == "wrong_answer" and run.decided_by and _is_stress(found.version, run.decided_by):
        found.warnings.append(f"{name}: its wrong answer is caught by the stress input {run.decided_by} only: no "
                              "smoke input catches it (a smoke input is what tells a solver early)")


def _is_stress(version: FolderVersion, path: str) -> bool:
    return any(case.input == path and case.kind == "stress" for case in version.source.manifest.cases)


def _check_reference(found: VersionCheck, reference: Solution | None, solutions: CaseSolutions) -> None:
    """The expected answers must be the reference solution's, compared as the judge compares."""
    if reference is None:
        found.errors.append(f"{found.version.label}: no reference solution to check the expected answers against: "
                            f"put it in {solutions.folder}/accepted/reference/ (or .wasm, .wat), or name it as "
                            f"`reference` in {solutions.folder}/solutions.toml")
        return
    run = next(run for run in found.runs if run.solution == reference)
    evaluation = run.measurement.evaluation
    if evaluation is None:
        found.errors.append(f"the reference {reference.name} gives no answer ({run.verdict}): the expected answers "
                            "cannot be checked")
        return
    for item, outcome in zip(evaluation.held_out, evaluation.outcomes):
        if outcome.status in (Status.WRONG_ANSWER, Status.INVALID_OUTPUT):
            found.errors.append(f"the expected answer of {item.input_path} is not what the reference {reference.name} "
                                f"gives: {outcome.message}")


def _check_limits(found: VersionCheck) -> None:
    """Headroom and bite of the pass line against the slowest accepted solution, and the limit
    the measurements suggest."""
    version = found.version
    accepted = [run for run in found.runs if run.verdict == "accepted"]
    slowest: dict[str, tuple[int, str]] = {}
    for run in accepted:
        for path, fuel in run.stress_fuel().items():
            if fuel > slowest.get(path, (-1, ""))[0]:
                slowest[path] = (fuel, run.solution.name)
    limit = version.fuel_limit
    if slowest:
        path, (fuel, name) = max(slowest.items(), key=lambda item: item[1][0])
        if fuel > limit * HEADROOM:
            found.warnings.append(f"no headroom: the slowest accepted solution, {name}, uses {fuel:,} fuel of the "
                                  f"{limit:,} pass line on {path} (more than half)")
        if limit > LOOSE * max(fuel, 1):
            found.warnings.append(f"a loose limit: the pass line ({limit:,}) is more than {LOOSE}× the slowest "
                                  f"accepted "
                                  f"solution's fuel on any input ({fuel:,}, {name} on {path}): it decides nothing")
        found.suggested_fuel_limit = round_up(fuel * 2)
    for case in version.source.manifest.stress_cases:
        answered = [fuel for run in found.runs if (fuel := run.stress_fuel().get(case.input)) is not None]
        found.ceilings.append({"input": case.input, "runway": float(case.fuel_runway),
                               "ceiling": fuel_ceiling(limit, case.fuel_runway),
                               "slowest_fuel": max(answered) if answered else None})


def round_up(value: int) -> int:
    """Up to two significant figures: 1,234,567 → 1,300,000; 42 → 42."""
    digits = len(str(max(value, 1)))
    scale = 10 ** max(digits - 2, 0)
    return -(-value // scale) * scale
