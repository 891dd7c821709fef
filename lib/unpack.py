"""Unpacking untrusted archives (.zip, .tar, .tar.gz) into a folder, within caps.

Used for the admin's catalog uploads and for submissions before they are built. Everything is
written under `dest` and nowhere else: absolute paths, `..`, backslashes, NUL characters and
names that are not UTF-8 are refused, and so are devices and FIFOs. The caps count what is
actually written (entries, bytes per file, bytes in all), so an archive that lies in its headers
(a zip bomb) stops at the cap. No Django here.
"""

from __future__ import annotations

import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lib.errors import DomainError

CHUNK = 1 << 16


class ArchiveError(DomainError):
    """The archive cannot be unpacked safely; the message says why."""

    def __init__(self, message: str, code: str = "bad_archive"):
        super().__init__(code, message)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ArchiveLimits:
    max_entries: int = 10_000
    max_total_bytes: int = 512 << 20
    max_file_bytes: int = 128 << 20


def shown_name(name: str) -> str:
    """A member name as it can be printed: undecodable bytes and control characters escaped."""
    escaped = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(character if character.isprintable() else f"\\x{ord(character):02x}" for character in escaped)[:200]


def safe_relative(name: str) -> str:
    """The member's path as a safe relative POSIX path ("" for the top), or ArchiveError."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveError(f"`{shown_name(name)}`: the name is not valid UTF-8", "bad_name") from None
    if "\\" in name or "\0" in name:
        raise ArchiveError(f"`{shown_name(name)}`: backslashes and NUL characters are not allowed in archive paths", "bad_name")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"`{shown_name(name)}`: absolute paths are not allowed in an archive", "bad_name")
    normalized = posixpath.normpath(name)
    if normalized == ".." or normalized.startswith("../"):
        raise ArchiveError(f"`{shown_name(name)}`: leaves the archive (`..`)", "bad_name")
    return "" if normalized == "." else normalized


class CappedWriter:
    """Writes members under `root`, enforcing the caps on what is actually written."""

    def __init__(self, root: Path, limits: ArchiveLimits):
        self.root = Path(root)
        self.limits = limits
        self.entries = 0
        self.total = 0

    def count(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"the archive has more than {self.limits.max_entries:,} entries", "too_many_entries")

    def _target(self, rel: str) -> Path:
        target = self.root / rel
        # A link written earlier must never redirect a later member out of the tree.
        parent = target.parent
        while parent != self.root and self.root in parent.parents:
            if parent.is_symlink():
                raise ArchiveError(f"`{rel}`: lies under a link", "bad_name")
            parent = parent.parent
        return target

    def directory(self, rel: str) -> None:
        self.count()
        if rel:
            target = self._target(rel)
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                raise ArchiveError(f"`{rel}` appears twice in the archive", "duplicate")
            target.mkdir(parents=True, exist_ok=True)

    def file(self, rel: str, stream, mode: int = 0o644) -> None:
        self.count()
        if not rel:
            raise ArchiveError("a file entry has an empty name", "bad_name")
        target = self._target(rel)
        if target.exists() or target.is_symlink():
            raise ArchiveError(f"`{rel}` appears twice in the archive", "duplicate")
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        # O_EXCL | O_NOFOLLOW: never write through something already there.
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "wb") as out:
            while chunk := stream.read(CHUNK):
                written += len(chunk)
                self.total += len(chunk)
                if written > self.limits.max_file_bytes:
                    raise ArchiveError(f"`{rel}` unpacks to more than {self.limits.max_file_bytes:,} bytes", "too_large")
                if self.total > self.limits.max_total_bytes:
                    raise ArchiveError(f"the archive unpacks to more than {self.limits.max_total_bytes:,} bytes", "too_large")
                out.write(chunk)
        os.chmod(target, 0o755 if mode & 0o111 else 0o644)

    def symlink(self, rel: str, link_target: str) -> None:
        """A link that stays inside the tree (relative, and resolving under the root)."""
        self.count()
        target = self._target(rel)
        if target.exists() or target.is_symlink():
            raise ArchiveError(f"`{rel}` appears twice in the archive", "duplicate")
        if link_target.startswith("/") or "\0" in link_target:
            raise ArchiveError(f"`{rel}`: links must be relative and stay inside the archive", "bad_link")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), link_target))
        if resolved == ".." or resolved.startswith("../"):
            raise ArchiveError(f"`{rel}`: links must be relative and stay inside the archive", "bad_link")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(link_target, target)


def _extract_zip(path: Path, writer: CappedWriter) -> None:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            rel = safe_relative(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"`{shown_name(info.filename)}`: links are not allowed in an archive", "bad_link")
            if info.is_dir():
                writer.directory(rel)
                continue
            if info.flag_bits & 0x1:
                raise ArchiveError(f"`{shown_name(info.filename)}`: encrypted entries are not supported")
            with archive.open(info) as stream:
                writer.file(rel, stream, mode)


def _extract_tar(archive: tarfile.TarFile, writer: CappedWriter, *, allow_links: bool) -> None:
    for member in archive:
        rel = safe_relative(member.name)
        if member.isdir():
            writer.directory(rel)
        elif member.isfile():
            stream = archive.extractfile(member)
            assert stream is not None
            writer.file(rel, stream, member.mode)
        elif member.issym() and allow_links:
            writer.symlink(rel, member.linkname)
        elif member.islnk() and allow_links:
            # A hard link is written as a copy of what it names (its bytes count again).
            source = safe_relative(member.linkname)
            origin = writer.root / source
            if not source or origin.is_symlink() or not origin.is_file():
                raise ArchiveError(f"`{rel}`: a hard link must name a file earlier in the archive", "bad_link")
            with open(origin, "rb") as stream:
                writer.file(rel, stream, origin.stat().st_mode)
        elif member.issym() or member.islnk():
            raise ArchiveError(f"`{shown_name(member.name)}`: links are not allowed in an archive", "bad_link")
        else:
            raise ArchiveError(f"`{shown_name(member.name)}`: only files and folders are allowed in an archive", "bad_entry")
    # A truncated compressed stream can end the member list quietly; reading on to the end of
    # the stream (bounded, like everything else) exposes it.
    drained = 0
    while chunk := archive.fileobj.read(CHUNK):
        drained += len(chunk)
        if drained > writer.limits.max_total_bytes:
            raise ArchiveError(f"the archive unpacks to more than {writer.limits.max_total_bytes:,} bytes", "too_large")


# Failures of the archive formats themselves: zlib/EOF errors mid-stream, unsupported
# compression methods (zipfile raises NotImplementedError for those), truncated members.
_READ_ERRORS = (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, NotImplementedError, RuntimeError)


def extract_archive(path: Path, dest: Path, limits: ArchiveLimits = ArchiveLimits(), *,
                    allow_links: bool = False) -> None:
    """Unpack a .zip or .tar(.gz) file into `dest`. Raises ArchiveError with the reason.

    `allow_links`: keep symbolic links that stay inside the tree, and copy hard links (tar only).
    """
    writer = CappedWriter(dest, limits)
    try:
        if zipfile.is_zipfile(path):
            _extract_zip(path, writer)
            return
        try:
            archive = tarfile.open(path, mode="r:*")
        except tarfile.ReadError:
            raise ArchiveError("not a .zip or .tar.gz archive (or it is damaged)") from None
        with archive:
            _extract_tar(archive, writer, allow_links=allow_links)
    except ArchiveError:
        raise
    except UnicodeDecodeError:  # a zip whose names say they are UTF-8, and are not
        raise ArchiveError("a member's name is not valid UTF-8", "bad_name") from None
    except _READ_ERRORS as exc:
        raise ArchiveError(f"the archive could not be read: {exc}") from None


def extract_tar_bytes(data: bytes, dest: Path, limits: ArchiveLimits, *, allow_links: bool = False) -> None:
    """`extract_archive` for a tar(.gz) held in memory."""
    import io

    writer = CappedWriter(dest, limits)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            _extract_tar(archive, writer, allow_links=allow_links)
    except ArchiveError:
        raise
    except _READ_ERRORS as exc:
        raise ArchiveError(f"the archive could not be read: {exc}") from None
