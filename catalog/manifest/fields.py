"""Typed reads from TOML tables, each recording an error where the value is unusable.

A `Folder` is one version folder being checked: where it is, its label, and the errors and
warnings found so far. A `Table` is one TOML table in one of its files: it knows that file and
its own key path (`case[2]`, `build`), so a read names only the key and every error says where
it is. A read that fails returns None (or the default) and records exactly one error.
"""

from __future__ import annotations

import difflib
import errno
import posixpath
import re
import tomllib
from decimal import Decimal, InvalidOperation
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from catalog.manifest.files import FileIdentity, is_within
from catalog.manifest.types import (
    INT64_MAX,
    MANIFEST_NAME,
    MAX_DECIMAL_LENGTH,
    MAX_PATH_LENGTH,
    ROOT_KEYS,
    ManifestError,
)

_TOML_POSITION = re.compile(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)\s*\Z")


# In this order: a bool is an int, too.
_TYPE_NAMES = ((bool, "a boolean"), (int, "an integer"), (Decimal, "a float"), (str, "a string"),
               (list, "an array"), (dict, "a table"))


def type_name(value: Any) -> str:
    """How an error names the TOML type of `value` (TOML floats are read as Decimal)."""
    return next((name for kind, name in _TYPE_NAMES if isinstance(value, kind)), "a date/time")


def suggest(key: str, known: tuple[str, ...] | list[str]) -> str:
    """` (did you mean `x`?)` for a near miss (a typo, or a longer or shorter form), else ``."""
    matches = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    if not matches:
        matches = [name for name in known if len(name) >= 3 and (key.startswith(name) or name.startswith(key))]
    return f" (did you mean `{matches[0]}`?)" if matches and key else ""


def join(prefix: str, key: str | int) -> str:
    """`case` + 2 → `case[2]`; `build` + `module` → `build.module`; a key of "" is the prefix itself."""
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    if not key:
        return prefix
    return f"{prefix}.{key}" if prefix else key


def json_safe(value: Any) -> Any:
    """A free-form table as JSON-compatible values (it is stored as given)."""
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    if isinstance(value, Decimal):  # only TOML floats parse to Decimal; ints stay int
        number = float(value)
        # JSON has no infinities (nor has PostgreSQL's jsonb): keep those, and overflows, as text.
        return number if number not in (float("inf"), float("-inf")) and number == number else str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)  # dates and times: their TOML text


def nul_problems(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """NUL characters cannot be stored as text (PostgreSQL refuses them) and mean nothing here."""
    if isinstance(value, str) and "\0" in value:
        yield path, "must not contain NUL characters"
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\0" in key:
                yield join(path, "?"), "a key must not contain NUL characters"
            else:
                yield from nul_problems(item, join(path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nul_problems(item, join(path, index))


class Folder:
    """One version folder under check: `path` on disk, `label` (`<type>/<difficulty>/<folder>/<version>`),
    and its files as `read_version_files` read them, within their caps: every rule reads them from
    here, so nothing of the folder is read twice, or past its cap."""

    def __init__(self, path: Path, label: str, files: dict[str, bytes]):
        self.path = path
        self.root = path.resolve()
        self.files = files
        self.label = label
        self.version = label.rsplit("/", 1)[-1]
        self.manifest_file = f"{label}/{MANIFEST_NAME}"
        self.errors: list[ManifestError] = []
        self.warnings: list[ManifestError] = []

    def file(self, rel: str) -> str:
        """How errors name a file of this folder."""
        return f"{self.label}/{rel}"

    def read(self, rel: str) -> bytes:
        """A file of the folder as it was read. Raises OSError for one that was not: missing, not a
        regular file, or refused (over its cap: its own error says so)."""
        if rel in self.files:
            return self.files[rel]
        if (self.path / rel).is_file():
            raise OSError(errno.EFBIG, "it was not read (see its own error)")
        raise FileNotFoundError(errno.ENOENT, "no such file")

    def identity(self, rel: str) -> FileIdentity | None:
        """What the path `rel` really is (a link, a hard link, its content), for the privacy checks."""
        return FileIdentity.of(self.path / rel, self.files.get(rel))

    def error(self, file: str, key: str, message: str) -> None:
        self.errors.append(ManifestError(file, key, message, self.label))

    def parse_toml(self, rel: str) -> Table | None:
        """The root table of a TOML file of this folder, or None with the error recorded."""
        file = self.file(rel)
        try:
            raw = self.read(rel)
        except OSError as exc:
            self.error(file, "", f"cannot be read: {exc.strerror}")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.error(file, "", f"is not UTF-8 (invalid byte at offset {exc.start})")
            return None
        try:
            return Table(self, tomllib.loads(text, parse_float=Decimal), file)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            match = _TOML_POSITION.search(message)
            location = "end of document"
            if match and match.group(1):
                location = f"line {match.group(1)}, column {match.group(2)}"
            self.error(file, location, f"TOML syntax error: {_TOML_POSITION.sub('', message)}")
            return None
        except (RecursionError, ValueError, InvalidOperation) as exc:
            self.error(file, "", f"TOML could not be read: {exc}")
            return None

    def path_problem(self, value: str, *, kind: str | None) -> str | None:
        """Why `value` is not a usable path relative to this folder, or None.

        kind: "file" or "dir" (it must exist as one), or None (it need not exist).
        """
        if "\0" in value:
            return "path contains a NUL character"
        if len(value) > MAX_PATH_LENGTH:
            return f"a path must be at most {MAX_PATH_LENGTH} characters, not {len(value)}"
        if "\\" in value:
            return f"`{value}`: use `/` as the path separator"
        pure = PurePosixPath(value)
        if pure.is_absolute():
            return f"`{value}`: absolute paths are not allowed; give a path relative to the version folder"
        depth = 0
        for part in pure.parts:
            depth = depth - 1 if part == ".." else depth + (part != ".")
            if depth < 0:
                return f"`{value}`: leaves the version folder"
        if kind is None:
            return None
        # The files of a linked folder are not read (a folder is walked without following
        # links), so a path may not go through one, nor name one.
        parts = [part for part in pure.parts if part != "."]
        for end in range(1, len(parts) + (kind == "dir")):
            if (self.path / PurePosixPath(*parts[:end])).is_symlink():
                return f"`{value}` goes through the linked folder `{'/'.join(parts[:end])}`; name the folder itself"
        # Resolving follows every symlink along the path, wherever it is.
        try:
            resolved = (self.path / value).resolve()
        except (RuntimeError, OSError):
            return f"`{value}`: a symlink on this path loops or cannot be resolved"
        if not is_within(resolved, self.root):
            return f"`{value}`: a symlink on this path points outside the version folder"
        if kind == "file" and not resolved.is_file():
            return f"`{value}` {'is a directory, not a file' if resolved.is_dir() else 'does not exist'}"
        if kind == "file" and normalize(value) not in self.files:
            return f"`{value}` was not read (its own error says why: over its cap, or unreadable)"
        if kind == "dir" and not resolved.is_dir():
            return f"`{value}` {'is a file, not a directory' if resolved.exists() else 'does not exist'}"
        return None


class Table:
    """One TOML table of a file of `folder`, at key path `prefix` (empty for a file's root)."""

    def __init__(self, folder: Folder, data: dict, file: str, prefix: str = ""):
        self.folder = folder
        self.data = data
        self.file = file
        self.prefix = prefix

    @property
    def in_manifest(self) -> bool:
        return self.file == self.folder.manifest_file

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def key(self, key: str | int) -> str:
        return join(self.prefix, key)

    def error(self, key: str | int, message: str) -> None:
        self.folder.error(self.file, self.key(key), message)

    def child(self, key: str | int, data: dict) -> Table:
        return Table(self.folder, data, self.file, self.key(key))

    # reads ----------------------------------------------------------------------------------

    def text(self, key: str, *, required: bool, non_empty: bool = False, max_length: int | None = None) -> str | None:
        if key not in self.data:
            if required:
                self.error(key, "required key is missing")
            return None
        value = self.data[key]
        if not isinstance(value, str):
            self.error(key, f"must be a string, not {type_name(value)}")
            return None
        if non_empty and not value.strip():
            self.error(key, "must not be empty")
            return None
        if max_length is not None and len(value) > max_length:
            self.error(key, f"must be at most {max_length} characters, not {len(value)}")
            return None
        return value

    def path(self, key: str, *, required: bool, kind: str | None = "file") -> str | None:
        """A path relative to the version folder, in its one spelling (`normalize`): every path a
        manifest gives is normalised here, once. kind: "file", "dir", or None (need not exist)."""
        value = self.text(key, required=required, non_empty=True)
        if value is None:
            return None
        return normalize(value) if self.path_ok(key, value, kind=kind) else None

    def path_ok(self, key: str | int, value: str, *, kind: str | None) -> bool:
        """Whether `value`, found at `key`, is a usable path (recording why not)."""
        problem = self.folder.path_problem(value, kind=kind)
        if problem:
            self.error(key, problem)
        return problem is None

    def number(self, key: str, *, minimum: Decimal, inclusive: bool, default: Decimal) -> Decimal | None:
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            self.error(key, f"must be a number, not {type_name(value)}")
            return None
        number = Decimal(value)
        if not number.is_finite():
            self.error(key, f"must be a finite number, not {value}")
            return None
        if len(str(number)) > MAX_DECIMAL_LENGTH:
            self.error(key, f"must be written in at most {MAX_DECIMAL_LENGTH} characters")
            return None
        if number < minimum or (not inclusive and number == minimum):
            relation = "at least" if inclusive else "greater than"
            self.error(key, f"must be {relation} {minimum}, not {value}")
            return None
        return number

    def integer(self, key: str, *, positive: bool = True) -> int | None:
        if key not in self.data:
            self.error(key, "required key is missing")
            return None
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(key, f"must be an integer, not {type_name(value)}")
            return None
        if positive and value <= 0:
            self.error(key, f"must be greater than 0, not {value}")
            return None
        if value > INT64_MAX:
            self.error(key, f"must be at most {INT64_MAX} (a signed 64-bit integer)")
            return None
        return value

    def table(self, key: str) -> Table | None:
        """A required single table `[key]`."""
        if key not in self.data:
            self.error(key, f"required table [{key}] is missing")
            return None
        value = self.data[key]
        if not isinstance(value, dict):
            if isinstance(value, list):
                self.error(key, f"must be a single table [{key}], not an array of tables [[{key}]]")
            else:
                self.error(key, f"must be a table [{key}], not {type_name(value)}")
            return None
        return self.child(key, value)

    def tables(self, key: str, *, required: bool) -> list[Table] | None:
        """An array of tables `[[key]]`, each a Table at `key[i]`."""
        if key not in self.data:
            if required:
                self.error(key, f"required array of tables [[{key}]] is missing")
            return None
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            shape = "a single table" if isinstance(value, dict) else type_name(value)
            self.error(key, f"must be an array of tables [[{key}]], not {shape}")
            return None
        return [Table(self.folder, item, self.file, f"{self.key(key)}[{index}]") for index, item in enumerate(value)]

    # checks of the whole table --------------------------------------------------------------

    def unknown_keys(self, known: tuple[str, ...]) -> None:
        for key in self.data:
            if key in known:
                continue
            if self.prefix and key in ROOT_KEYS:
                # TOML files every key after a table header into that table.
                self.error(key, f"`{key}` must precede the first table header (it is a root key)")
            else:
                self.error(key, f"unknown key{suggest(key, known)}")

    def no_nul(self) -> None:
        for path, message in nul_problems(self.data, self.prefix):
            self.folder.error(self.file, path, message)


def normalize(path: str) -> str:
    """The one spelling of a relative path used for comparisons (`./a/../b` → `b`)."""
    return posixpath.normpath(path)
