"""Reading a version folder's files within limits, their digests, and what a path really is."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from catalog.manifest.types import MAX_FILE_PATH_LENGTH, FileLimits
from lib.files import read_regular
from lib.strictjson import JSONDocumentError, loads_strict
from lib.unpack import shown_name


def read_version_files(version_dir: Path, limits: FileLimits = FileLimits()) -> tuple[list[tuple[str, bytes]],
                                                                                      list[tuple[str, str]]]:
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
        if not is_within(resolved, root):
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
            if size > limits.max_file_bytes:  # refused by its size alone: it counts toward nothing
                problems.append((rel,
                                 f"is {size:,} bytes, more than the {limits.max_file_bytes:,}-byte limit for one file"))
                continue
            count += 1
            total += size
            if count > limits.max_files:
                problems.append((rel, f"the version folder holds more than {limits.max_files:,} files"))
                return files, problems
            if total > limits.max_version_bytes:
                problems.append((rel, f"the version folder holds more than {limits.max_version_bytes:,} bytes"))
                return files, problems
            try:
                content = read_regular(entry, limits.max_file_bytes)  # what it holds now, within the cap
            except OSError as exc:
                problems.append((rel, f"cannot be read: {exc.strerror}"))
                continue
            if len(content) > limits.max_file_bytes:  # it grew since it was looked at
                problems.append((rel, f"is more than the {limits.max_file_bytes:,}-byte limit for one file"))
                continue
            files.append((rel, content))
    files.sort(key=lambda item: item[0])
    return files, problems


def name_problem(name: str) -> str | None:
    """Why a file or folder name cannot be stored and shown, or None.

    The database stores names as text: they must be UTF-8 (a name that is not decodes to lone
    surrogates here) and carry no control characters. No backslash either: files of a version
    reach solvers in zip kits, and a Windows extractor reads `..\\..\\evil.bat` as a path that
    climbs out of the folder (the archive upload and spec destinations refuse it too).
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    if any(not character.isprintable() for character in name):
        return "contains control characters"
    if "\\" in name:
        return "contains a backslash (a folder separator on Windows)"
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


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents



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
class FileIdentity:
    """What a path really is: where it resolves, its inode, and its content (as the folder's files
    were read, within their caps: never read again)."""

    resolved: Path
    inode: tuple[int, int]
    content: bytes

    @classmethod
    def of(cls, path: Path, content: bytes | None) -> "FileIdentity | None":
        """None for a file that was not read (missing, not a regular file, over its cap)."""
        if content is None:
            return None
        try:
            resolved = path.resolve()
            info = resolved.stat()
        except (OSError, RuntimeError):
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        return cls(resolved, (info.st_dev, info.st_ino), content)

    @functools.cached_property
    def digests(self) -> frozenset[str]:
        return content_digests(self.content)

    def relation_to(self, other: "FileIdentity") -> str | None:
        """How this file shares the other's content: as a link, a hard link, a copy, or inside."""
        if self.resolved == other.resolved:
            return "is a link to it"
        if self.inode == other.inode:
            return "is a hard link to it"
        return content_relation(self.content, other, self.digests)


def content_relation(content: bytes, held: "FileIdentity", digests: frozenset[str] | None = None) -> str | None:
    """How `content` (a file's, or what a template rendered) shares a held-out file's content."""
    if (digests if digests is not None else content_digests(content)) & held.digests:
        return "has the same content"
    if embeds(content, held.content):
        return "contains it"
    return None


def embeds(content: bytes, held: bytes) -> bool:
    """Whether `held` (without surrounding white space, MIN_EMBEDDED_BYTES or more) lies inside `content`."""
    needle = held.strip()
    return len(needle) >= MIN_EMBEDDED_BYTES and needle in content
