"""What a validated manifest is: the rules' constants and the frozen dataclasses a check produces."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.kinds import INT64_MAX as INT64_MAX  # re-exported: the manifest names them
from engine.kinds import MAX_DECIMAL_LENGTH as MAX_DECIMAL_LENGTH
from engine.kinds import Kind  # the evaluation's vocabulary; the manifest names it

MANIFEST_NAME = "test-case.toml"
IMPORTABLE_TYPES = ("performance",)
DIFFICULTIES = ("easy", "medium", "hard")


CASE_KINDS = tuple(kind.value for kind in Kind)
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
VERSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# /cases/<slug>/leaderboard/ is the leaderboard, so no version may be called that.
RESERVED_VERSIONS = ("leaderboard",)
# The wasm page size; max_memory_bytes must be whole pages.
WASM_PAGE = 65_536
# A wasm32 memory addresses at most 4 GiB.
WASM32_MAX_MEMORY = 65_536 * WASM_PAGE
# Fuel and byte counts are stored as signed 64-bit integers (the TOML integer range); decimals
# are written in at most MAX_DECIMAL_LENGTH characters (engine.kinds, which the fuel meter shares).
# The rendered prompt is written here in a seeded run root, so no spec may claim the name.
PROMPT_DEST = "PROMPT.md"
# The longest values the database stores (its column sizes): longer ones are errors here, never
# a failed insert at import.
MAX_SLUG_LENGTH = 100
MAX_VERSION_LENGTH = 100
MAX_NAME_LENGTH = 200
MAX_TAG_LENGTH = 100
MAX_ENTRY_LENGTH = 200
MAX_PATH_LENGTH = 300  # a path a manifest or variant file names
MAX_FILE_PATH_LENGTH = 500  # any file's path inside a version folder
MAX_FOLDER_LENGTH = 300  # "<type>/<difficulty>/<folder>"

ROOT_KEYS = (
    "slug", "name", "type", "difficulty", "experimental", "tags", "summary", "description",
    "changelog", "prompt", "max_runtime_hours", "workspace", "init", "variants",
)
TABLE_KEYS = ("build", "contract", "sandbox")
ARRAY_TABLE_KEYS = ("case", "spec", "domain", "review_item")
FORBIDDEN_TABLES = {
    "simulation": "[simulation]",
    "match": "[match]",
    "replay": "[replay]",
    "canvas": "[canvas]",
    "tool": "[tool]",
    "output": "[output]",
    "check": "[[check]]",
}
BUILD_KEYS = ("install", "build", "module")
CONTRACT_KEYS = ("entry", "input", "output")
CASE_KEYS = ("input", "expected", "kind", "fuel_runway")
SANDBOX_KEYS = ("fuel_limit", "max_memory_bytes")
SPEC_KEYS = ("source", "dest")
VARIANT_KEYS = ("slug", "name", "spec")
# Export names the solution ABI reserves (docs/taking-part.md); the entry cannot be one of them.
ABI_EXPORTS = ("memory", "alloc")



@dataclass(frozen=True)
class FileLimits:
    """How much one version folder may hold; checked from file sizes before anything is read."""

    max_file_bytes: int = 256 << 20
    max_version_bytes: int = 1 << 30
    max_files: int = 10_000


@dataclass(frozen=True)
class ManifestError:
    """One broken rule: the file it is in, where in that file, and what is wrong."""

    file: str
    key: str
    message: str
    # The version folder (`<type>/<difficulty>/<folder>/<version>`) it belongs to; empty for
    # errors of the tree itself (a bad difficulty folder, an empty case folder).
    version: str = field(default="", compare=False)

    def __str__(self) -> str:
        if self.key:
            return f"{self.file}: {self.key}: {self.message}"
        return f"{self.file}: {self.message}"


@dataclass(frozen=True)
class SpecFile:
    """A file seeded into a run root: `source` in the version folder, `dest` in the run root."""

    source: str
    dest: str


@dataclass(frozen=True)
class Variant:
    """A variant of a version: its own specs on top of the common ones."""

    slug: str
    name: str
    specs: tuple[SpecFile, ...] = ()
    file: str | None = None  # None for the implicit `base` variant


@dataclass(frozen=True)
class Build:
    """`[build]`: how a submission becomes a module."""

    install: str | None
    build: str
    module: str


@dataclass(frozen=True)
class Contract:
    """`[contract]`: the exported entry and the schemas (paths) of its input and output."""

    entry: str
    input: str
    output: str


@dataclass(frozen=True)
class Sandbox:
    """`[sandbox]`: the fuel limit and the memory cap of one run."""

    fuel_limit: int
    max_memory_bytes: int


@dataclass(frozen=True)
class HeldOutCase:
    """One held-out `[[case]]`: its input and expected answer (paths in the version folder)."""

    input: str
    expected: str
    kind: Kind
    fuel_runway: Decimal


@dataclass(frozen=True)
class Manifest:
    slug: str
    name: str
    type: str
    difficulty: str
    experimental: bool
    tags: tuple[str, ...]
    summary: str
    description: str | None
    changelog: str
    prompt: str
    max_runtime_hours: Decimal
    workspace: str | None
    init: str | None
    variants: tuple[Variant, ...]
    build: Build
    contract: Contract
    cases: tuple[HeldOutCase, ...]
    sandbox: Sandbox
    specs: tuple[SpecFile, ...]
    # Stored as given (converted to JSON-compatible values).
    domains: tuple[dict, ...] = ()
    review_items: tuple[dict, ...] = ()

    @property
    def smoke_cases(self) -> tuple[HeldOutCase, ...]:
        return tuple(case for case in self.cases if case.kind == Kind.SMOKE)

    @property
    def stress_cases(self) -> tuple[HeldOutCase, ...]:
        return tuple(case for case in self.cases if case.kind == Kind.STRESS)


@dataclass(frozen=True)
class VersionSource:
    """A version folder that validated: where it is, what it says, and its digest."""

    path: Path
    folder: str  # "<type>/<difficulty>/<folder>", relative to the catalog root
    version: str
    manifest: Manifest
    manifest_text: str
    digest: str
    # Every file of the folder as (relative POSIX path, bytes), sorted by path.
    files: tuple[tuple[str, bytes], ...] = field(repr=False, default=())
    # content_digests of its held-out files, and of every file it shows or seeds as
    # (path, manifest key, what it is, digests): for the privacy checks across versions.
    held_out_digests: frozenset[str] = field(repr=False, default=frozenset())
    published_digests: tuple[tuple[str, str, str, frozenset[str]], ...] = field(repr=False, default=())
    # What is worth telling its author but refuses nothing: names its templates use that the
    # site's template context lacks.
    warnings: tuple["ManifestError", ...] = ()

    @property
    def label(self) -> str:
        return f"{self.folder}/{self.version}"


@dataclass
class CatalogScan:
    versions: list[VersionSource]  # the version folders that passed every rule
    errors: list[ManifestError]
    labels: list[str] = field(default_factory=list)  # every version folder seen, in walk order
    unchanged: list[str] = field(default_factory=list)  # skipped: identical to an imported version
    warnings: list[ManifestError] = field(default_factory=list)  # of every version folder checked

    @property
    def ok(self) -> bool:
        return not self.errors

    def errors_for(self, label: str) -> list[ManifestError]:
        """The errors found in one version folder (`<type>/<difficulty>/<folder>/<version>`)."""
        return [error for error in self.errors if error.version == label]

    def warnings_for(self, label: str) -> list[ManifestError]:
        return [warning for warning in self.warnings if warning.version == label]

    @property
    def tree_errors(self) -> list[ManifestError]:
        """The errors that belong to no version folder."""
        return [error for error in self.errors if not error.version]



# --- ordering ---------------------------------------------------------------------------------

_RUNS = re.compile(r"(\d+)")


def version_sort_key(version: str) -> tuple:
    """Natural order: `v2` < `v10`, `1.9` < `1.10`. Numbers sort before text at the same place."""
    key: list[tuple[int, Any]] = []
    for index, run in enumerate(_RUNS.split(version)):
        if not run:
            continue
        key.append((0, int(run), run) if index % 2 else (1, run, run))
    return tuple(key)


def humanize_slug(slug: str) -> str:
    """`long-belts` → `Long belts`."""
    words = slug.replace("-", " ").strip()
    return words[:1].upper() + words[1:]


def default_dest(source: str) -> str:
    return source[: -len(".hbs")] if source.endswith(".hbs") else source


