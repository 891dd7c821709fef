"""Read and check a catalog tree: TOML manifests in, frozen dataclasses and every error out.

The catalog layout is `<root>/<type>/<difficulty>/<folder>/<version>/test-case.toml`. Nothing
here touches Django or a database: `scan_catalog()` walks a tree and returns the versions that
validated together with a list of `ManifestError`s, one per broken rule, all at once. Bad input
of any kind becomes an error value; it never raises.

Key paths in errors are dotted, with 0-based indexes for arrays of tables: `case[2].fuel_runway`,
`variants[0]`, `build.module`, `spec[1].dest`.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import posixpath
import re
import stat
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, localcontext
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from lib.schemas import SchemaError, first_schema_violation, load_validator
from lib.strictjson import JSONDocumentError, loads_strict
from lib.templates import TemplateError, compile_template, render_template
from lib.unpack import shown_name

MANIFEST_NAME = "test-case.toml"
IMPORTABLE_TYPES = ("performance",)
DIFFICULTIES = ("easy", "medium", "hard")
CASE_KINDS = ("smoke", "stress")
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
VERSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# /cases/<slug>/leaderboard/ is the leaderboard, so no version may be called that.
RESERVED_VERSIONS = ("leaderboard",)
# The wasm page size; max_memory_bytes must be whole pages.
WASM_PAGE = 65_536
# A wasm32 memory addresses at most 4 GiB.
WASM32_MAX_MEMORY = 65_536 * WASM_PAGE
# Fuel and byte counts are stored as signed 64-bit integers (the TOML integer range).
INT64_MAX = 2**63 - 1
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
MAX_DECIMAL_LENGTH = 50  # the text of a decimal literal (max_runtime_hours, fuel_runway)

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
# Export names the solution ABI reserves (SPEC §4); the entry cannot be one of them.
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

    def __str__(self) -> str:
        if self.key:
            return f"{self.file}: {self.key}: {self.message}"
        return f"{self.file}: {self.message}"


@dataclass(frozen=True)
class SpecFile:
    source: str
    dest: str


@dataclass(frozen=True)
class Variant:
    slug: str
    name: str
    specs: tuple[SpecFile, ...] = ()
    file: str | None = None  # None for the implicit `base` variant


@dataclass(frozen=True)
class Build:
    install: str | None
    build: str
    module: str


@dataclass(frozen=True)
class Contract:
    entry: str
    input: str
    output: str


@dataclass(frozen=True)
class Sandbox:
    fuel_limit: int
    max_memory_bytes: int


@dataclass(frozen=True)
class HeldOutCase:
    input: str
    expected: str
    kind: str
    fuel_runway: Decimal


def fuel_ceiling(fuel_limit: int, fuel_runway: Decimal) -> int:
    """floor(fuel_limit × fuel_runway), exactly: 100 × 1.15 is 115, not 114."""
    with localcontext() as context:
        context.prec = 200  # far beyond any product of two TOML numbers: never rounds
        return int((Decimal(fuel_limit) * fuel_runway).to_integral_value(rounding="ROUND_FLOOR"))


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
        return tuple(case for case in self.cases if case.kind == "smoke")

    @property
    def stress_cases(self) -> tuple[HeldOutCase, ...]:
        return tuple(case for case in self.cases if case.kind == "stress")


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
        return [error for error in self.errors if error.file == label or error.file.startswith(label + "/")]

    def warnings_for(self, label: str) -> list[ManifestError]:
        return [warning for warning in self.warnings if warning.file.startswith(label + "/")]


def template_context(*, slug: str, name: str, version: str, difficulty: str, tags: list[str] | tuple[str, ...],
                     summary: str, variant: Variant, build: Build, contract: Contract, sandbox: Sandbox,
                     specs: list[SpecFile] | tuple[SpecFile, ...]) -> dict[str, Any]:
    """What a `.hbs` prompt or spec sees when it is rendered for one variant of a version.

    `specs` lists every spec seeded into the run: the common ones, then the variant's.
    """
    return {
        "case": {"slug": slug, "name": name, "version": version, "difficulty": difficulty,
                 "tags": list(tags), "summary": summary},
        "variant": {"slug": variant.slug, "name": variant.name},
        "build": {"install": build.install or "", "build": build.build, "module": build.module},
        "contract": {"entry": contract.entry, "input": contract.input, "output": contract.output},
        "sandbox": {"fuel_limit": sandbox.fuel_limit, "max_memory_bytes": sandbox.max_memory_bytes},
        "specs": [{"source": spec.source, "dest": spec.dest} for spec in [*specs, *variant.specs]],
    }


def context_names(context: Any, prefix: str = "") -> list[str]:
    """Every name a template can use in `context`: dotted paths, and the keys of list items."""
    names: list[str] = []
    if isinstance(context, dict):
        for key, value in context.items():
            path = f"{prefix}.{key}" if prefix else key
            names.append(path)
            names += context_names(value, path)
    elif isinstance(context, list):
        for item in context[:1]:
            names += context_names(item, "")
    return names


def manifest_template_context(manifest: Manifest, variant: Variant, version: str) -> dict[str, Any]:
    return template_context(
        slug=manifest.slug, name=manifest.name, version=version, difficulty=manifest.difficulty,
        tags=manifest.tags, summary=manifest.summary, variant=variant, build=manifest.build,
        contract=manifest.contract, sandbox=manifest.sandbox, specs=manifest.specs,
    )


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


# --- files ------------------------------------------------------------------------------------


def read_version_files(version_dir: Path, limits: FileLimits = FileLimits()) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """Every regular file under `version_dir`, sorted by relative path, plus problems found.

    A symlink is followed only when its target stays inside the folder; one that leaves it,
    dangles, or names something other than a regular file or directory is a problem, not a
    file. Directories reached through symlinks are not walked (no loops, no double counting).
    Files over the size caps are problems too, and are not read.
    """
    root = version_dir.resolve()
    files: list[tuple[str, bytes]] = []
    problems: list[tuple[str, str]] = []
    total = count = 0

    def leaves(entry: Path) -> bool:
        """A symlink whose target is outside the folder, or that loops (recorded as a problem)."""
        if not entry.is_symlink():
            return False
        try:
            resolved = entry.resolve()
        except (RuntimeError, OSError):
            problems.append((entry.relative_to(version_dir).as_posix(), "symlink loops or cannot be resolved"))
            return True
        if not _is_within(resolved, root):
            problems.append((entry.relative_to(version_dir).as_posix(), "symlink points outside the version folder"))
            return True
        return False

    for directory, dirnames, filenames in os.walk(version_dir, followlinks=False):
        base = Path(directory)
        for name in list(dirnames):
            problem = name_problem(name)
            if problem:  # nothing below a folder with an unusable name is read
                problems.append((shown_path(base / name, version_dir), f"folder name {problem}"))
                dirnames.remove(name)
            else:
                leaves(base / name)
        dirnames.sort()
        for name in sorted(filenames):
            entry = base / name
            rel = entry.relative_to(version_dir).as_posix()
            problem = name_problem(name)
            if problem:
                problems.append((shown_path(entry, version_dir), f"file name {problem}"))
                continue
            if len(rel) > MAX_FILE_PATH_LENGTH:
                problems.append((rel[:60] + "…", f"the path is longer than {MAX_FILE_PATH_LENGTH} characters"))
                continue
            if leaves(entry):
                continue
            try:
                info = entry.stat()
            except FileNotFoundError:
                problems.append((rel, "symlink points to nothing"))
                continue
            except OSError as exc:
                problems.append((rel, f"cannot be read: {exc.strerror}"))
                continue
            if not stat.S_ISREG(info.st_mode):
                problems.append((rel, "is not a regular file"))
                continue
            size = info.st_size
            count += 1
            total += size
            if size > limits.max_file_bytes:
                problems.append((rel, f"is {size:,} bytes, more than the {limits.max_file_bytes:,}-byte limit for one file"))
                continue
            if count > limits.max_files:
                problems.append((rel, f"the version folder holds more than {limits.max_files:,} files"))
                return files, problems
            if total > limits.max_version_bytes:
                problems.append((rel, f"the version folder holds more than {limits.max_version_bytes:,} bytes"))
                return files, problems
            try:
                files.append((rel, entry.read_bytes()))
            except OSError as exc:
                problems.append((rel, f"cannot be read: {exc.strerror}"))
    files.sort(key=lambda item: item[0])
    return files, problems


def name_problem(name: str) -> str | None:
    """Why a file or folder name cannot be stored and shown, or None.

    The database stores names as text: they must be UTF-8 (a name that is not decodes to lone
    surrogates here) and carry no control characters.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    if any(not character.isprintable() for character in name):
        return "contains control characters"
    return None


def shown_path(path: Path, root: Path) -> str:
    """A path relative to `root` that can be printed whatever bytes its name holds."""
    return shown_name(path.relative_to(root).as_posix())


def digest_files(files: list[tuple[str, bytes]] | tuple[tuple[str, bytes], ...]) -> str:
    """SHA-256 over the sorted relative paths and bytes of every file.

    Each file contributes `path NUL length NUL bytes`, so no two different folders can
    produce the same stream.
    """
    digest = hashlib.sha256()
    for rel, content in sorted(files, key=lambda item: item[0]):
        digest.update(rel.encode("utf-8", "surrogateescape"))
        digest.update(b"\0%d\0" % len(content))
        digest.update(content)
    return digest.hexdigest()


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


# --- JSON-safe copies of free-form tables -------------------------------------------------------


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, Decimal):  # only TOML floats parse to Decimal; ints stay int
        number = float(value)
        # JSON has no infinities (nor has PostgreSQL's jsonb): keep those, and overflows, as text.
        return number if number not in (float("inf"), float("-inf")) and number == number else str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)  # dates and times: their TOML text


# --- the checker ------------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, Decimal):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date/time"


def _suggest(key: str, known: tuple[str, ...] | list[str]) -> str:
    """` (did you mean `x`?)` for a near miss (a typo, or a longer or shorter form), else ``."""
    matches = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    if not matches:
        matches = [name for name in known if len(name) >= 3 and (key.startswith(name) or name.startswith(key))]
    return f" (did you mean `{matches[0]}`?)" if matches and key else ""


def _join(prefix: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else key


def content_digests(data: bytes) -> frozenset[str]:
    """Digests that name a file's content: its bytes, and, when it is JSON, the document
    itself (whitespace and key order aside), so a reformatted copy has a digest in common."""
    digests = {hashlib.sha256(data).hexdigest()}
    try:
        document = loads_strict(data)
    except JSONDocumentError:
        return frozenset(digests)
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digests.add("json:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest())
    return frozenset(digests)


# A held-out file this long (without surrounding white space) may not appear inside a shown
# file either; shorter ones ("0", "[]") would match everywhere.
MIN_EMBEDDED_BYTES = 16


@dataclass(frozen=True)
class _FileIdentity:
    """What a path really is: where it resolves, its inode, and its content."""

    resolved: Path
    inode: tuple[int, int]

    @classmethod
    def of(cls, path: Path) -> "_FileIdentity | None":
        try:
            resolved = path.resolve()
            info = resolved.stat()
        except (OSError, RuntimeError):
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        return cls(resolved, (info.st_dev, info.st_ino))

    @functools.cached_property
    def content(self) -> bytes:
        return self.resolved.read_bytes()

    @functools.cached_property
    def digests(self) -> frozenset[str]:
        return content_digests(self.content)

    def relation_to(self, other: "_FileIdentity") -> str | None:
        """How this file shares the other's content: as a link, a hard link, a copy, or inside."""
        if self.resolved == other.resolved:
            return "is a link to it"
        if self.inode == other.inode:
            return "is a hard link to it"
        if self.digests & other.digests:
            return "has the same content"
        needle = other.content.strip()
        if len(needle) >= MIN_EMBEDDED_BYTES and needle in self.content:
            return "contains it"
        return None


_TOML_POSITION = re.compile(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)\s*$")


class _VersionChecker:
    """Checks one version folder. Errors accumulate in `self.errors`; nothing raises."""

    def __init__(self, version_dir: Path, rel_dir: str, type_folder: str, difficulty_folder: str):
        self.version_dir = version_dir
        self.root = version_dir.resolve()
        self.rel_dir = rel_dir
        self.type_folder = type_folder
        self.difficulty_folder = difficulty_folder
        self.manifest_file = f"{rel_dir}/{MANIFEST_NAME}"
        self.errors: list[ManifestError] = []
        self.warnings: list[ManifestError] = []
        # Filled by the held-out check, for the checks that span versions.
        self.held_out_digests: frozenset[str] = frozenset()
        self.published_digests: list[tuple[str, str, str, frozenset[str]]] = []

    # errors ---------------------------------------------------------------------------------

    def error(self, key: str, message: str, file: str | None = None) -> None:
        self.errors.append(ManifestError(file or self.manifest_file, key, message))

    # typed getters: each returns None (and records an error) when the value is unusable ------

    def get_str(self, table: dict, key: str, path: str, *, required: bool, file: str | None = None,
                non_empty: bool = False, max_length: int | None = None) -> str | None:
        if key not in table:
            if required:
                self.error(path, "required key is missing", file)
            return None
        value = table[key]
        if not isinstance(value, str):
            self.error(path, f"must be a string, not {_type_name(value)}", file)
            return None
        if non_empty and not value.strip():
            self.error(path, "must not be empty", file)
            return None
        if max_length is not None and len(value) > max_length:
            self.error(path, f"must be at most {max_length} characters, not {len(value)}", file)
            return None
        return value

    def get_path(self, table: dict, key: str, path: str, *, required: bool, kind: str | None = "file",
                 file: str | None = None) -> str | None:
        """A path relative to the version folder. kind: "file", "dir", or None (need not exist)."""
        value = self.get_str(table, key, path, required=required, file=file, non_empty=True)
        if value is None:
            return None
        return value if self.check_path(value, path, kind=kind, file=file) else None

    def check_path(self, value: str, path: str, *, kind: str | None, file: str | None = None) -> bool:
        if "\0" in value:
            self.error(path, "path contains a NUL character", file)
            return False
        if len(value) > MAX_PATH_LENGTH:
            self.error(path, f"a path must be at most {MAX_PATH_LENGTH} characters, not {len(value)}", file)
            return False
        if "\\" in value:
            self.error(path, f"`{value}`: use `/` as the path separator", file)
            return False
        pure = PurePosixPath(value)
        if pure.is_absolute():
            self.error(path, f"`{value}`: absolute paths are not allowed; give a path relative to the version folder", file)
            return False
        depth = 0
        for part in pure.parts:
            depth = depth - 1 if part == ".." else depth + (part != ".")
            if depth < 0:
                self.error(path, f"`{value}`: leaves the version folder", file)
                return False
        if kind is None:
            return True
        # The files of a linked folder are not read (a folder is walked without following
        # links), so a path may not go through one, nor name one.
        parts = [part for part in pure.parts if part != "."]
        for end in range(1, len(parts) + (kind == "dir")):
            if (self.version_dir / PurePosixPath(*parts[:end])).is_symlink():
                self.error(path, f"`{value}` goes through the linked folder `{'/'.join(parts[:end])}`; name the folder itself", file)
                return False
        # Resolving follows every symlink along the path, wherever it is.
        try:
            resolved = (self.version_dir / value).resolve()
        except (RuntimeError, OSError):
            self.error(path, f"`{value}`: a symlink on this path loops or cannot be resolved", file)
            return False
        if not _is_within(resolved, self.root):
            self.error(path, f"`{value}`: a symlink on this path points outside the version folder", file)
            return False
        if kind == "file" and not resolved.is_file():
            what = "is a directory, not a file" if resolved.is_dir() else "does not exist"
            self.error(path, f"`{value}` {what}", file)
            return False
        if kind == "dir" and not resolved.is_dir():
            what = "is a file, not a directory" if resolved.exists() else "does not exist"
            self.error(path, f"`{value}` {what}", file)
            return False
        return True

    def get_number(self, table: dict, key: str, path: str, *, minimum: Decimal, inclusive: bool,
                   default: Decimal) -> Decimal | None:
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            self.error(path, f"must be a number, not {_type_name(value)}")
            return None
        number = Decimal(value)
        if not number.is_finite():
            self.error(path, f"must be a finite number, not {value}")
            return None
        if len(str(number)) > MAX_DECIMAL_LENGTH:
            self.error(path, f"must be written in at most {MAX_DECIMAL_LENGTH} characters")
            return None
        if number < minimum or (not inclusive and number == minimum):
            relation = "at least" if inclusive else "greater than"
            self.error(path, f"must be {relation} {minimum}, not {value}")
            return None
        return number

    def get_int(self, table: dict, key: str, path: str, *, positive: bool = True) -> int | None:
        if key not in table:
            self.error(path, "required key is missing")
            return None
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(path, f"must be an integer, not {_type_name(value)}")
            return None
        if positive and value <= 0:
            self.error(path, f"must be greater than 0, not {value}")
            return None
        if value > INT64_MAX:
            self.error(path, f"must be at most {INT64_MAX} (a signed 64-bit integer)")
            return None
        return value

    def get_table(self, root: dict, key: str) -> dict | None:
        if key not in root:
            self.error(key, f"required table [{key}] is missing")
            return None
        value = root[key]
        if not isinstance(value, dict):
            if isinstance(value, list):
                self.error(key, f"must be a single table [{key}], not an array of tables [[{key}]]")
            else:
                self.error(key, f"must be a table [{key}], not {_type_name(value)}")
            return None
        return value

    def get_table_array(self, root: dict, key: str, *, required: bool) -> list[dict] | None:
        if key not in root:
            if required:
                self.error(key, f"required array of tables [[{key}]] is missing")
            return None
        value = root[key]
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            shape = "a single table" if isinstance(value, dict) else _type_name(value)
            self.error(key, f"must be an array of tables [[{key}]], not {shape}")
            return None
        return value

    def check_unknown_keys(self, table: dict, known: tuple[str, ...], prefix: str, file: str | None = None) -> None:
        for key in table:
            if key in known:
                continue
            path = _join(prefix, key)
            if prefix and key in ROOT_KEYS:
                # TOML files every key after a table header into that table.
                self.error(path, f"`{key}` must precede the first table header (it is a root key)", file)
            else:
                self.error(path, f"unknown key{_suggest(key, known)}", file)

    # the manifest -----------------------------------------------------------------------------

    def parse_toml(self, path: Path, file: str) -> dict | None:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            self.error("", f"cannot be read: {exc.strerror}", file)
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.error("", f"is not UTF-8 (invalid byte at offset {exc.start})", file)
            return None
        try:
            return tomllib.loads(text, parse_float=Decimal)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            match = _TOML_POSITION.search(message)
            location = "end of document"
            if match and match.group(1):
                location = f"line {match.group(1)}, column {match.group(2)}"
            message = _TOML_POSITION.sub("", message)
            self.error(location, f"TOML syntax error: {message}", file)
            return None
        except (RecursionError, ValueError, InvalidOperation) as exc:
            self.error("", f"TOML could not be read: {exc}", file)
            return None

    def check(self) -> Manifest | None:
        data = self.parse_toml(self.version_dir / MANIFEST_NAME, self.manifest_file)
        if data is None:
            return None
        return self.check_manifest(data)

    def check_no_nul(self, value: Any, path: str, file: str | None = None) -> None:
        """NUL characters cannot be stored as text (PostgreSQL refuses them) and mean nothing here."""
        if isinstance(value, str) and "\0" in value:
            self.error(path, "must not contain NUL characters", file)
        elif isinstance(value, dict):
            for key, item in value.items():
                if "\0" in key:
                    self.error(_join(path, "?"), "a key must not contain NUL characters", file)
                else:
                    self.check_no_nul(item, _join(path, key), file)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.check_no_nul(item, _join(path, index), file)

    def check_text_file(self, rel: str | None, path: str) -> None:
        """Markdown that is stored and shown as text: UTF-8, no NUL bytes."""
        if rel is None:
            return
        content = (self.version_dir / rel).read_bytes()
        if b"\0" in content:
            self.error(path, f"`{rel}` must not contain NUL bytes")
        else:
            try:
                content.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.error(path, f"`{rel}` is not UTF-8 (invalid byte at offset {exc.start})")

    def check_manifest(self, data: dict) -> Manifest | None:
        before = len(self.errors)
        self.check_no_nul(data, "")
        type_ = self.get_str(data, "type", "type", required=True)
        if type_ is not None:
            if type_ != self.type_folder:
                self.error("type", f"`{type_}` does not match the type folder `{self.type_folder}`")
            if type_ not in IMPORTABLE_TYPES:
                # Another type's rules are not ours to check: refuse it by name and stop.
                self.error("type", f"test type `{type_}` is not importable: only `performance` cases can be imported")
                return None
        elif self.type_folder not in IMPORTABLE_TYPES:
            self.error("type", f"test type folder `{self.type_folder}` is not importable: only `performance` cases can be imported")
            return None

        known = ROOT_KEYS + TABLE_KEYS + ARRAY_TABLE_KEYS
        for key in data:
            if key in FORBIDDEN_TABLES:
                self.error(key, f"{FORBIDDEN_TABLES[key]} is not allowed in a performance case")
            elif key not in known:
                self.error(key, f"unknown key{_suggest(key, known)}")

        slug = self.get_str(data, "slug", "slug", required=True, max_length=MAX_SLUG_LENGTH)
        if slug is not None and not SLUG_PATTERN.match(slug):
            self.error("slug", f"`{slug}` must match {SLUG_PATTERN.pattern} (lower-case letters, digits and hyphens)")
            slug = None
        name = self.get_str(data, "name", "name", required=True, non_empty=True, max_length=MAX_NAME_LENGTH)
        difficulty = self.get_str(data, "difficulty", "difficulty", required=True)
        if difficulty is not None:
            if difficulty not in DIFFICULTIES:
                self.error("difficulty", f"`{difficulty}` must be one of: {', '.join(DIFFICULTIES)}")
                difficulty = None
            elif difficulty != self.difficulty_folder:
                self.error("difficulty", f"`{difficulty}` does not match the difficulty folder `{self.difficulty_folder}`")
        experimental = data.get("experimental", False)
        if not isinstance(experimental, bool):
            self.error("experimental", f"must be a boolean, not {_type_name(experimental)}")
        tags = self.check_tags(data)
        summary = self.get_str(data, "summary", "summary", required=False) or ""
        description = self.get_path(data, "description", "description", required=False)
        changelog = self.get_path(data, "changelog", "changelog", required=True)
        self.check_text_file(description, "description")
        self.check_text_file(changelog, "changelog")
        prompt = self.get_path(data, "prompt", "prompt", required=True)
        if prompt is not None:
            prompt = self.check_template(prompt, "prompt", require_hbs=True)
        max_runtime_hours = self.get_number(
            data, "max_runtime_hours", "max_runtime_hours", minimum=Decimal(0), inclusive=False, default=Decimal(1)
        )
        workspace = self.get_path(data, "workspace", "workspace", required=False, kind="dir")
        init = self.get_str(data, "init", "init", required=False)

        build = self.check_build(data)
        contract, input_validator, output_validator = self.check_contract(data)
        sandbox = self.check_sandbox(data)
        cases = self.check_cases(data, sandbox, input_validator, output_validator)
        specs = self.check_specs(self.get_table_array(data, "spec", required=False) or [], "spec", self.manifest_file)
        reserved_dests = {contract.input: "contract.input", contract.output: "contract.output"} if contract else {}
        self.check_dest_clashes(specs, "spec", self.manifest_file, {}, reserved_dests)
        variants = self.check_variants(data, specs, reserved_dests)
        if cases:
            published = {
                "prompt": prompt, "description": description, "changelog": changelog,
                "contract.input": contract.input if contract else None,
                "contract.output": contract.output if contract else None,
            }
            published.update({f"spec[{index}].source": spec.source for index, spec in enumerate(specs)})
            for variant_index, variant in enumerate(variants or ()):
                published.update({
                    f"spec[{index}].source of variants[{variant_index}]": spec.source
                    for index, spec in enumerate(variant.specs)
                })
            self.check_held_out_stays_private(cases, published, workspace)

        domains = self.get_table_array(data, "domain", required=False) or []
        review_items = self.get_table_array(data, "review_item", required=False) or []
        for prefix, tables in (("domain", domains), ("review_item", review_items)):
            for index, table in enumerate(tables):
                if "variants" in table:
                    self.error(f"{prefix}[{index}].variants", "`variants` must precede the first table header (it is a root key)")

        required = (slug, name, difficulty, tags, changelog, prompt, max_runtime_hours, build,
                    contract, sandbox, cases, variants)
        if len(self.errors) > before or any(value is None for value in required):
            if len(self.errors) == before:  # a rule that refused without saying why: never silent
                self.error("", "manifest could not be read")
            return None
        manifest = Manifest(
            slug=slug, name=name, type=type_ or self.type_folder, difficulty=difficulty,
            experimental=experimental, tags=tuple(tags), summary=summary, description=description,
            changelog=changelog, prompt=prompt, max_runtime_hours=max_runtime_hours,
            workspace=workspace, init=init, variants=variants, build=build,
            contract=contract, cases=tuple(cases), sandbox=sandbox, specs=tuple(specs),
            domains=tuple(_json_safe(table) for table in domains),
            review_items=tuple(_json_safe(table) for table in review_items),
        )
        self.check_rendering(manifest)
        return None if len(self.errors) > before else manifest

    def check_rendering(self, manifest: Manifest) -> None:
        """Render every template for every variant, as seeding a run would. A template that
        does not parse, or that this renderer cannot render as Handlebars.js would, is an
        error. A name the site's context lacks renders as nothing, as in Handlebars, and is a
        warning naming the template, the line and the closest name the context has: the
        harness may offer names this site does not (`{{harness_model}}`), and a typo
        (`{{case.nmae}}`) stays visible."""
        version = self.rel_dir.rsplit("/", 1)[-1]
        reported: set[tuple[str, str]] = set()
        warned: set[tuple] = set()
        for variant in manifest.variants:
            context = manifest_template_context(manifest, variant, version)
            templates = [("prompt", manifest.prompt, self.manifest_file)]
            templates += [(f"spec[{index}].source", spec.source, self.manifest_file) for index, spec in enumerate(manifest.specs)]
            templates += [(f"spec[{index}].source", spec.source, f"{self.rel_dir}/{variant.file}")
                          for index, spec in enumerate(variant.specs)]
            for key, rel, file in templates:
                if not rel.endswith(".hbs") or (file, key) in reported:
                    continue
                missing: list[tuple[str, int]] = []
                try:
                    render_template((self.version_dir / rel).read_bytes(), context, missing=missing)
                except TemplateError as exc:
                    reported.add((file, key))
                    self.error(key, f"`{rel}` {exc} (variant `{variant.slug}`)", file)
                    continue
                for name, line in missing:
                    if (file, key, name, line) in warned:
                        continue
                    warned.add((file, key, name, line))
                    self.warnings.append(ManifestError(file, key, (
                        f"`{rel}` line {line}: `{name}` names nothing in the site's template context "
                        f"and renders as nothing{_suggest(name, context_names(context))}")))

    def check_held_out_stays_private(self, cases: list[HeldOutCase], published: dict[str, str | None],
                                     workspace: str | None) -> None:
        """A held-out file may not also be seeded into a run or shown on the site.

        Compared by path, by what a path resolves to (a symlink), by inode (a hard link) and by
        content: the same bytes, the same JSON document, or its bytes inside a shown file. The
        digests are kept (`held_out_digests`, `published_digests`) for the checks across versions.
        """
        by_path = {posixpath.normpath(path): key for key, path in published.items() if path}
        workspace_dir = posixpath.normpath(workspace) if workspace else None
        held_out: list[tuple[str, str]] = []  # (key path, rel)
        for index, case in enumerate(cases):
            for key in ("input", "expected"):
                rel = posixpath.normpath(getattr(case, key))
                if rel in by_path:
                    self.error(f"case[{index}].{key}", f"`{rel}` is held out, so it cannot also be {by_path[rel]}")
                elif workspace_dir and (workspace_dir == "." or rel.startswith(workspace_dir + "/")):
                    self.error(f"case[{index}].{key}", f"`{rel}` is held out, so it cannot lie inside the seeded workspace `{workspace}`")
                else:
                    held_out.append((f"case[{index}].{key}", rel))
        shown = [(rel, key, key) for rel, key in by_path.items()]
        if workspace_dir:
            shown += [(rel, "workspace", f"in the seeded workspace `{workspace}`") for rel in self._files_under(workspace_dir)]
        held = [(key, rel, _FileIdentity.of(self.version_dir / rel)) for key, rel in held_out]
        self.held_out_digests = frozenset(digest for _, _, identity in held if identity for digest in identity.digests)
        reported: set[tuple[str, str]] = set()
        for shown_rel, shown_key, what in shown:
            identity = _FileIdentity.of(self.version_dir / shown_rel)
            if identity is None:
                continue
            self.published_digests.append((shown_rel, shown_key, what, identity.digests))
            for key, held_rel, held_identity in held:
                if held_identity is None or (key, shown_rel) in reported or shown_rel == held_rel:
                    continue
                relation = identity.relation_to(held_identity)
                if relation:
                    reported.add((key, shown_rel))
                    self.error(key, f"`{held_rel}` is held out, but `{shown_rel}` ({what}) {relation}")

    def _files_under(self, folder: str) -> list[str]:
        """Relative paths of the files below `folder` (symlinked folders are not entered)."""
        found = []
        for directory, dirnames, filenames in os.walk(self.version_dir / folder, followlinks=False):
            dirnames.sort()
            base = Path(directory)
            found += [(base / name).relative_to(self.version_dir).as_posix() for name in sorted(filenames)]
        return found

    def check_tags(self, data: dict) -> list[str] | None:
        if "tags" not in data:
            self.error("tags", "required key is missing")
            return None
        tags = data["tags"]
        if not isinstance(tags, list):
            self.error("tags", f"must be an array of strings, not {_type_name(tags)}")
            return None
        if not tags:
            self.error("tags", "must list at least one tag")
            return None
        seen: set[str] = set()
        ok = True
        for index, tag in enumerate(tags):
            if not isinstance(tag, str):
                self.error(f"tags[{index}]", f"must be a string, not {_type_name(tag)}")
                ok = False
            elif not tag.strip():
                self.error(f"tags[{index}]", "must not be empty")
                ok = False
            elif len(tag) > MAX_TAG_LENGTH:
                self.error(f"tags[{index}]", f"must be at most {MAX_TAG_LENGTH} characters, not {len(tag)}")
                ok = False
            elif tag in seen:
                self.error(f"tags[{index}]", f"duplicate tag `{tag}`")
                ok = False
            else:
                seen.add(tag)
        return tags if ok else None

    def check_template(self, rel: str, path: str, *, require_hbs: bool, file: str | None = None) -> str | None:
        if require_hbs and not rel.endswith(".hbs"):
            self.error(path, f"`{rel}` must be a Handlebars template ending in `.hbs`", file)
            return None
        if not rel.endswith(".hbs"):
            return rel
        try:
            compile_template((self.version_dir / rel).read_bytes())
        except TemplateError as exc:
            self.error(path, f"`{rel}`: {exc}", file)
            return None
        return rel

    def check_build(self, data: dict) -> Build | None:
        table = self.get_table(data, "build")
        if table is None:
            return None
        self.check_unknown_keys(table, BUILD_KEYS, "build")
        install = self.get_str(table, "install", "build.install", required=False)
        command = self.get_str(table, "build", "build.build", required=True, non_empty=True)
        module = self.get_path(table, "module", "build.module", required=True, kind=None)
        if command is None or module is None:
            return None
        return Build(install=install, build=command, module=module)

    def check_contract(self, data: dict):
        table = self.get_table(data, "contract")
        if table is None:
            return None, None, None
        self.check_unknown_keys(table, CONTRACT_KEYS, "contract")
        entry = self.get_str(table, "entry", "contract.entry", required=True, non_empty=True, max_length=MAX_ENTRY_LENGTH)
        if entry in ABI_EXPORTS:
            self.error("contract.entry", f"`{entry}` is reserved by the solution ABI (it exports `memory` and `alloc`)")
            entry = None
        validators = []
        for key in ("input", "output"):
            rel = self.get_path(table, key, f"contract.{key}", required=True)
            validators.append(self.load_schema(rel, f"contract.{key}") if rel else None)
        if entry is None or None in validators:
            return None, *validators
        return Contract(entry=entry, input=table["input"], output=table["output"]), *validators

    def load_schema(self, rel: str, path: str):
        try:
            return load_validator((self.version_dir / rel).read_bytes())
        except SchemaError as exc:
            self.error(path, f"`{rel}` {exc}")
            return None

    def check_sandbox(self, data: dict) -> Sandbox | None:
        table = self.get_table(data, "sandbox")
        if table is None:
            return None
        self.check_unknown_keys(table, SANDBOX_KEYS, "sandbox")
        fuel_limit = self.get_int(table, "fuel_limit", "sandbox.fuel_limit")
        memory = self.get_int(table, "max_memory_bytes", "sandbox.max_memory_bytes")
        if memory is not None:
            if memory % WASM_PAGE:
                self.error("sandbox.max_memory_bytes", f"{memory} must be a multiple of {WASM_PAGE:,} (the wasm page size)")
                memory = None
            elif memory > WASM32_MAX_MEMORY:
                self.error("sandbox.max_memory_bytes", f"{memory} exceeds the 4 GiB a wasm32 memory can address")
                memory = None
        if fuel_limit is None or memory is None:
            return None
        return Sandbox(fuel_limit=fuel_limit, max_memory_bytes=memory)

    def check_cases(self, data: dict, sandbox: Sandbox | None, input_validator, output_validator) -> list[HeldOutCase] | None:
        tables = self.get_table_array(data, "case", required=True)
        if tables is None:
            return None
        cases: list[HeldOutCase] = []
        ok = True
        for index, table in enumerate(tables):
            prefix = f"case[{index}]"
            self.check_unknown_keys(table, CASE_KEYS, prefix)
            input_rel = self.get_path(table, "input", f"{prefix}.input", required=True)
            expected_rel = self.get_path(table, "expected", f"{prefix}.expected", required=True)
            kind = table.get("kind", "stress")
            if not isinstance(kind, str) or kind not in CASE_KINDS:
                shown = f"`{kind}`" if isinstance(kind, str) else _type_name(kind)
                self.error(f"{prefix}.kind", f"{shown} must be one of: smoke, stress")
                kind = None
            runway = self.get_number(
                table, "fuel_runway", f"{prefix}.fuel_runway", minimum=Decimal(1), inclusive=True, default=Decimal(1)
            )
            if runway is not None and sandbox is not None and fuel_ceiling(sandbox.fuel_limit, runway) > INT64_MAX:
                self.error(f"{prefix}.fuel_runway", f"fuel_limit × fuel_runway exceeds {INT64_MAX} (a signed 64-bit integer)")
                runway = None
            if input_rel and input_validator is not None:
                self.check_document(input_rel, f"{prefix}.input", input_validator, "input")
            if expected_rel and output_validator is not None:
                self.check_document(expected_rel, f"{prefix}.expected", output_validator, "output")
            if input_rel is None or expected_rel is None or kind is None or runway is None:
                ok = False
                continue
            cases.append(HeldOutCase(input=input_rel, expected=expected_rel, kind=kind, fuel_runway=runway))
        if ok and not any(case.kind == "stress" for case in cases):
            self.error("case", "at least one `stress` case is required (kind defaults to \"stress\")")
            ok = False
        return cases if ok else None

    def check_document(self, rel: str, path: str, validator, which: str) -> None:
        """An input or expected answer must be strict JSON valid against its contract schema.

        Messages name where the document fails and which schema keyword, never the values:
        held-out data stays out of every message.
        """
        try:
            document = loads_strict((self.version_dir / rel).read_bytes())
        except JSONDocumentError as exc:
            self.error(path, f"`{rel}` is {exc}" if str(exc).startswith("not") else f"`{rel}` {exc}")
            return
        except OSError as exc:
            self.error(path, f"`{rel}` cannot be read: {exc.strerror}")
            return
        violation = first_schema_violation(validator, document)
        if violation:
            self.error(path, f"`{rel}` does not validate against the contract's {which} schema: {violation}")

    def check_specs(self, tables: list, prefix: str, file: str, *, allow_strings: bool = False) -> list[SpecFile]:
        specs: list[SpecFile] = []
        for index, item in enumerate(tables):
            path = f"{prefix}[{index}]"
            if allow_strings and isinstance(item, str):
                item = {"source": item}
            if not isinstance(item, dict):
                expected = "a path or a table {source, dest}" if allow_strings else "a table"
                self.error(path, f"must be {expected}, not {_type_name(item)}", file)
                continue
            self.check_unknown_keys(item, SPEC_KEYS, path, file)
            source = self.get_path(item, "source", f"{path}.source", required=True, file=file)
            if source is not None:
                source = self.check_template(source, f"{path}.source", require_hbs=False, file=file)
            dest = self.get_str(item, "dest", f"{path}.dest", required=False, file=file, non_empty=True)
            if dest is None and "dest" in item:
                continue  # the error is recorded
            if dest is not None and not self.check_path(dest, f"{path}.dest", kind=None, file=file):
                continue
            if source is None:
                continue
            normalized = posixpath.normpath(dest if dest is not None else default_dest(source))
            if normalized == ".":
                self.error(f"{path}.dest", "must name a file inside the run root, not the root itself", file)
                continue
            specs.append(SpecFile(source=source, dest=normalized))
        return specs

    def check_dest_clashes(self, specs: list[SpecFile], prefix: str, file: str,
                           taken: dict[str, str], reserved: dict[str, str]) -> None:
        reserved = {posixpath.normpath(key): value for key, value in reserved.items()}
        reserved[PROMPT_DEST] = "the rendered prompt"
        seen = dict(taken)
        for index, spec in enumerate(specs):
            if spec.dest in reserved:
                self.error(f"{prefix}[{index}].dest", f"`{spec.dest}` is already used by {reserved[spec.dest]}", file)
            elif spec.dest in seen:
                self.error(f"{prefix}[{index}].dest", f"`{spec.dest}` is already used by {seen[spec.dest]}", file)
            else:
                seen[spec.dest] = f"{prefix}[{index}]" if file == self.manifest_file else f"{prefix}[{index}] of this variant"

    def check_variants(self, data: dict, common_specs: list[SpecFile], reserved: dict[str, str]) -> tuple[Variant, ...] | None:
        if "variants" not in data:
            return (Variant(slug="base", name="Base"),)
        paths = data["variants"]
        if not isinstance(paths, list):
            self.error("variants", f"must be an array of paths, not {_type_name(paths)}")
            return None
        if not paths:
            self.error("variants", "must list at least one variant file (leave it out for the implicit `base` variant)")
            return None
        variants: list[Variant] = []
        slugs: dict[str, int] = {}
        taken = {spec.dest: f"spec[{index}]" for index, spec in enumerate(common_specs)}
        ok = True
        for index, rel in enumerate(paths):
            key = f"variants[{index}]"
            if not isinstance(rel, str):
                self.error(key, f"must be a path string, not {_type_name(rel)}")
                ok = False
                continue
            if not self.check_path(rel, key, kind="file"):
                ok = False
                continue
            variant = self.check_variant_file(rel, taken, reserved)
            if variant is None:
                ok = False
                continue
            if variant.slug in slugs:
                self.error(f"{key}", f"variant slug `{variant.slug}` is already used by variants[{slugs[variant.slug]}]")
                ok = False
                continue
            slugs[variant.slug] = index
            variants.append(variant)
        return tuple(variants) if ok else None

    def check_variant_file(self, rel: str, taken: dict[str, str], reserved: dict[str, str]) -> Variant | None:
        file = f"{self.rel_dir}/{rel}"
        before = len(self.errors)
        data = self.parse_toml(self.version_dir / rel, file)
        if data is None:
            return None
        self.check_no_nul(data, "", file)
        self.check_unknown_keys(data, VARIANT_KEYS, "", file)
        slug = self.get_str(data, "slug", "slug", required=True, file=file, max_length=MAX_SLUG_LENGTH)
        if slug is not None and not SLUG_PATTERN.match(slug):
            self.error("slug", f"`{slug}` must match {SLUG_PATTERN.pattern} (lower-case letters, digits and hyphens)", file)
        name = self.get_str(data, "name", "name", required=False, file=file, non_empty=True, max_length=MAX_NAME_LENGTH)
        specs: list[SpecFile] = []
        if "spec" in data:
            raw_specs = data["spec"]
            if isinstance(raw_specs, list):
                specs = self.check_specs(raw_specs, "spec", file, allow_strings=True)
                self.check_dest_clashes(specs, "spec", file, taken, reserved)
            else:
                self.error("spec", f"must be an array of spec paths or tables, not {_type_name(raw_specs)}", file)
        if len(self.errors) > before or slug is None:
            return None
        return Variant(slug=slug, name=name or humanize_slug(slug), specs=tuple(specs), file=rel)


def check_version_folder(version_dir: Path, rel_dir: str, type_folder: str, difficulty_folder: str,
                         folder: str, version: str, files: list[tuple[str, bytes]],
                         problems: list[tuple[str, str]]) -> tuple[VersionSource | None, list[ManifestError], list[ManifestError]]:
    """Validate one version folder in place, given its files as `read_version_files` found them.

    Returns the source (if valid), its errors and its warnings.
    """
    checker = _VersionChecker(version_dir, rel_dir, type_folder, difficulty_folder)
    for rel, problem in problems:
        checker.error("", problem, f"{rel_dir}/{rel}")
    manifest = checker.check()
    if manifest is None or checker.errors:
        return None, checker.errors, checker.warnings
    manifest_text = dict(files)[MANIFEST_NAME].decode("utf-8")
    return (
        VersionSource(
            path=version_dir, folder=folder, version=version, manifest=manifest,
            manifest_text=manifest_text, digest=digest_files(files), files=tuple(files),
            held_out_digests=checker.held_out_digests, published_digests=tuple(checker.published_digests),
            warnings=tuple(checker.warnings),
        ),
        [],
        checker.warnings,
    )


def _subdirectories(path: Path, root: Path, errors: list[ManifestError]) -> list[Path]:
    """Child folders, sorted; hidden entries (`.git`, `.DS_Store`) and plain files are skipped.

    A folder whose name cannot be stored (not UTF-8, control characters) is an error, not a child.
    """
    try:
        children = sorted(path.iterdir())
    except OSError:
        return []
    usable = []
    for child in children:
        if child.name.startswith(".") or not child.is_dir():
            continue
        problem = name_problem(child.name)
        if problem:
            errors.append(ManifestError(shown_path(child, root), "", f"folder name {problem}"))
        else:
            usable.append(child)
    return usable


def scan_catalog(root: Path, *, is_unchanged: Callable[[str, str], bool] | None = None,
                 limits: FileLimits = FileLimits(), held_out_elsewhere: dict[str, str] | None = None) -> CatalogScan:
    """Walk `<root>/<type>/<difficulty>/<folder>/<version>/` and validate every version.

    Besides each version's own rules this checks the rules that span versions: a folder's
    versions share one slug, and no two folders claim the same slug.

    `is_unchanged(label, digest)` lets an importer skip validating a folder whose bytes are
    exactly those of a version it already holds (it was validated when it was imported); such
    folders are listed in `scan.unchanged` instead of `scan.versions`.

    No version may show or seed the content of another version's held-out file: those of the
    versions scanned, and `held_out_elsewhere` (content digest → the version that holds it, for
    versions already imported).
    """
    root = Path(root)
    errors: list[ManifestError] = []
    warnings: list[ManifestError] = []
    versions: list[VersionSource] = []
    if not root.is_dir():
        return CatalogScan([], [ManifestError(str(root), "", "catalog folder does not exist")])

    labels: list[str] = []
    unchanged: list[str] = []
    slug_folders: dict[str, str] = {}
    refused: set[str] = set()  # labels of versions refused by a rule that spans versions
    for type_dir in _subdirectories(root, root, errors):
        for difficulty_dir in _subdirectories(type_dir, root, errors):
            rel_difficulty = f"{type_dir.name}/{difficulty_dir.name}"
            if difficulty_dir.name not in DIFFICULTIES:
                errors.append(ManifestError(rel_difficulty, "", f"`{difficulty_dir.name}` is not a difficulty folder: use one of {', '.join(DIFFICULTIES)}"))
                continue
            for case_dir in _subdirectories(difficulty_dir, root, errors):
                folder = f"{rel_difficulty}/{case_dir.name}"
                if len(folder) > MAX_FOLDER_LENGTH:
                    errors.append(ManifestError(folder[:80] + "…", "", f"the case folder's path is longer than {MAX_FOLDER_LENGTH} characters"))
                    continue
                folder_versions: list[VersionSource] = []
                version_dirs = _subdirectories(case_dir, root, errors)
                if not version_dirs:
                    errors.append(ManifestError(folder, "", "case folder has no version folders"))
                for version_dir in version_dirs:
                    rel_dir = f"{folder}/{version_dir.name}"
                    labels.append(rel_dir)
                    if not VERSION_PATTERN.match(version_dir.name):
                        errors.append(ManifestError(rel_dir, "", f"version folder name must match {VERSION_PATTERN.pattern}"))
                        continue
                    if len(version_dir.name) > MAX_VERSION_LENGTH:
                        errors.append(ManifestError(rel_dir, "", f"version folder name must be at most {MAX_VERSION_LENGTH} characters"))
                        continue
                    if version_dir.name.lower() in RESERVED_VERSIONS:
                        errors.append(ManifestError(rel_dir, "", f"`{version_dir.name}` is reserved and cannot name a version"))
                        continue
                    if not (version_dir / MANIFEST_NAME).is_file():
                        errors.append(ManifestError(rel_dir, "", f"version folder has no {MANIFEST_NAME}"))
                        continue
                    files, problems = read_version_files(version_dir, limits)
                    if is_unchanged and not problems and is_unchanged(rel_dir, digest_files(files)):
                        unchanged.append(rel_dir)
                        continue
                    source, version_errors, version_warnings = check_version_folder(
                        version_dir, rel_dir, type_dir.name, difficulty_dir.name, folder,
                        version_dir.name, files, problems,
                    )
                    errors.extend(version_errors)
                    warnings.extend(version_warnings)
                    if source is not None:
                        folder_versions.append(source)
                for source in _slug_unstable(folder_versions):
                    refused.add(source.label)
                    errors.append(ManifestError(
                        f"{source.label}/{MANIFEST_NAME}", "slug",
                        f"`{source.manifest.slug}` differs from the slug of this folder's first version; a folder's versions share one slug",
                    ))
                for source in folder_versions:
                    other = slug_folders.setdefault(source.manifest.slug, folder)
                    if other != folder:
                        refused.add(source.label)
                        errors.append(ManifestError(
                            f"{source.label}/{MANIFEST_NAME}", "slug",
                            f"`{source.manifest.slug}` is already the slug of folder `{other}`; slugs are unique across folders",
                        ))
                versions.extend(folder_versions)
    for source, error in _held_out_of_other_versions(versions, held_out_elsewhere or {}):
        refused.add(source.label)
        errors.append(error)
    if not errors and not versions and not unchanged:
        errors.append(ManifestError(str(root), "", "no case versions found (expected <type>/<difficulty>/<folder>/<version>/test-case.toml)"))
    return CatalogScan([source for source in versions if source.label not in refused], errors, labels, unchanged, warnings)


def _held_out_of_other_versions(versions: list[VersionSource], elsewhere: dict[str, str]):
    """(version, error) for each file a version shows or seeds whose content another version holds out."""
    holders = dict(elsewhere)
    for source in versions:
        for digest in source.held_out_digests:
            holders.setdefault(digest, source.label)
    for source in versions:
        for rel, key, what, digests in source.published_digests:
            other = next((holders[digest] for digest in sorted(digests) if holders.get(digest, source.label) != source.label), None)
            if other is not None:
                yield source, ManifestError(
                    f"{source.label}/{MANIFEST_NAME}", key,
                    f"`{rel}` ({what}) has the content of a held-out file of `{other}`",
                )
                break


def _slug_unstable(folder_versions: list[VersionSource]) -> list[VersionSource]:
    """Versions whose slug differs from the folder's first (lowest) version."""
    if not folder_versions:
        return []
    ordered = sorted(folder_versions, key=lambda source: version_sort_key(source.version))
    return [source for source in ordered[1:] if source.manifest.slug != ordered[0].manifest.slug]
