"""A case's solutions, sorted by the verdict each must get: where they are, what they are, which
versions they apply to, and the verdict a measurement gives.

    <DIR>/<slug>/<verdict>/<name>/        a source folder, built with the version's [build]
    <DIR>/<slug>/<verdict>/<name>.wasm    a module
    <DIR>/<slug>/<verdict>/<name>.wat     a module in the text format
    <DIR>/<slug>/solutions.toml           optional: the reference, and versions a solution is pinned to

    reference = "accepted/fast"           # whose answers the expected ones must be (default: the one
                                          # named accepted/reference; never chosen by sort order)
    [versions]
    "over_limit/naive" = ["v2"]           # only these versions (default: every version of the case)

Nothing here follows a link: a link where a solution should be is a problem, reported.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import wasmtime

from engine.builds import pack_folder
from engine.kinds import Kind
from engine.sandbox.run import Status
from lib.files import read_regular

# The verdicts a solution's folder may name, in the order a report lists them.
VERDICTS = ("accepted", "over_limit", "wrong_answer", "fuel_exhausted", "trapped", "invalid_output", "timeout",
            "invalid_module", "build_failed")
CONFIG = "solutions.toml"
REFERENCE = "accepted/reference"  # the reference, unless solutions.toml names another
CONFIG_BYTES = 64 << 10  # a few lines: a larger one is not one
MODULE_SUFFIXES = (".wasm", ".wat")


@dataclass(frozen=True)
class Solution:
    expected: str  # the verdict folder it is in
    stem: str  # its name in that folder (without .wasm / .wat)
    path: Path
    versions: tuple[str, ...] | None = None  # pinned to these versions; None: every version

    @property
    def name(self) -> str:
        return f"{self.expected}/{self.stem}"

    @property
    def is_source(self) -> bool:
        return self.path.is_dir()

    def applies_to(self, version: str) -> bool:
        return self.versions is None or version in self.versions

    def packed(self, max_bytes: int) -> bytes:
        """A source folder packed as a submission is (engine.builds.pack_folder)."""
        return pack_folder(self.path, max_bytes=max_bytes)

    def module(self, max_bytes: int) -> bytes:
        """The module's bytes (a .wat is turned into a module as the engine reads text modules)."""
        data = read_regular(self.path, max_bytes)  # one byte past the cap at most: the engine says it is too large
        if self.path.suffix == ".wat":
            return bytes(wasmtime.wat2wasm(data.decode("utf-8", "replace")))
        return data


@dataclass
class CaseSolutions:
    slug: str
    folder: Path
    solutions: list[Solution] = field(default_factory=list)
    reference: str | None = None  # named in solutions.toml
    problems: list[str] = field(default_factory=list)  # errors: the layout is not the documented one

    def for_version(self, version: str) -> list[Solution]:
        return [solution for solution in self.solutions if solution.applies_to(version)]

    def reference_for(self, version: str) -> Solution | None:
        """The solution whose answers the expected ones must be: the one solutions.toml names, else
        accepted/reference; None when there is neither (never another accepted one by its name's order)."""
        name = self.reference or REFERENCE
        return next((solution for solution in self.for_version(version) if solution.name == name), None)


def case_solutions(directory: Path, slug: str) -> CaseSolutions:
    """The solutions of case `slug` under `directory` (none when it has no folder there)."""
    found = CaseSolutions(slug, directory / slug)
    if found.folder.is_symlink() or not found.folder.is_dir():
        if found.folder.is_symlink():
            found.problems.append(f"{found.folder} is a link: solutions are read where they are, never through links")
        return found
    pins = _config(found)
    for entry in sorted(found.folder.iterdir()):
        if entry.name == CONFIG:
            continue
        if entry.is_symlink() or not entry.is_dir() or entry.name not in VERDICTS:
            found.problems.append(f"{entry}: not a verdict folder (one of {', '.join(VERDICTS)})")
            continue
        for item in sorted(entry.iterdir()):
            stem = item.name.removesuffix(item.suffix) if item.suffix in MODULE_SUFFIXES else item.name
            if item.is_symlink() or not (item.is_dir() or (item.is_file() and item.suffix in MODULE_SUFFIXES)):
                found.problems.append(f"{item}: a solution is a source folder, a .wasm or a .wat file (not a link)")
                continue
            name = f"{entry.name}/{stem}"
            found.solutions.append(Solution(entry.name, stem, item, pins.pop(name, None)))
    found.problems.extend(f"{found.folder / CONFIG}: [versions] names {name}, which is no solution here"
                          for name in sorted(pins))
    if found.reference is not None and found.reference not in {solution.name for solution in found.solutions}:
        found.problems.append(f"{found.folder / CONFIG}: reference {found.reference} is no solution here")
    return found


def _config(found: CaseSolutions) -> dict[str, tuple[str, ...]]:
    """Read solutions.toml (if there is one): the reference, and the pinned versions per solution."""
    path = found.folder / CONFIG
    if not path.exists():
        return {}
    try:
        raw = read_regular(path, CONFIG_BYTES)
        if len(raw) > CONFIG_BYTES:
            found.problems.append(f"{path}: is larger than the {CONFIG_BYTES:,}-byte limit for it")
            return {}
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        found.problems.append(f"{path}: {error}")
        return {}
    reference = data.get("reference")
    if reference is not None and not isinstance(reference, str):
        found.problems.append(f"{path}: reference must be a solution's name, as \"accepted/fast\"")
    found.reference = reference if isinstance(reference, str) else None
    pins = data.get("versions", {})
    if not isinstance(pins, dict) or not all(isinstance(value, list) and all(isinstance(item, str) for item in value)
                                             for value in pins.values()):
        found.problems.append(f"{path}: [versions] maps a solution's name to a list of versions")
        return {}
    unknown = sorted(set(data) - {"reference", "versions"})
    if unknown:
        found.problems.append(f"{path}: unknown key {unknown[0]} (use reference and [versions])")
    return {name: tuple(value) for name, value in pins.items()}


def verdict_of(state: str, evaluation) -> tuple[str, str | None]:
    """(the verdict, the input that decided it) of a measurement: `build_failed` and `invalid_module`
    as the measurement's state; `accepted` when it passes; `over_limit` when every answer is right
    but a stress input is over the pass line (the first such input); else the first status, smoke
    inputs first, that is neither passed nor over the line."""
    if evaluation is None:
        return state, None
    pairs = sorted(zip(evaluation.held_out, evaluation.outcomes), key=lambda pair: pair[0].kind != Kind.SMOKE)
    if evaluation.passed:
        return "accepted", None
    for item, outcome in pairs:
        if outcome.status not in (Status.PASSED, Status.OVER_LIMIT):
            return outcome.status.value, item.input_path
    return "over_limit", next(item.input_path for item, outcome in pairs if outcome.status is Status.OVER_LIMIT)
