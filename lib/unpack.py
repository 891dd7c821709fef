"""Unpacking untrusted archives (.zip, .tar, .tar.gz) into a folder, within caps.

Used for the admin's catalog uploads and for submissions before they are built. Everything is
written under `dest` and nowhere else: absolute paths, `..`, backslashes, NUL characters, names
that are not UTF-8 and names nested deeper or longer than a file system takes are refused, and
so are devices and FIFOs. The caps count what is actually written (entries, folders made along
the way included, bytes per file, bytes in all), and a tar is read through a stream that stops
at the cap, headers included, so an archive that lies in its headers (a zip bomb, a gigabyte
PAX header) stops there too. No Django here.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lib.errors import DomainError

CHUNK = 1 << 16
MAX_DEPTH = 64  # folders deep
MAX_NAME_BYTES = 255  # one path component (the usual file system limit)
MAX_PATH_CHARACTERS = 1024
# A tar stream carries a 512-byte header (and padding) per member besides the files' bytes.
TAR_OVERHEAD_PER_ENTRY = 2048
# tarfile reads an extended header (PAX, or GNU's long name and long link) into memory whole:
# one larger than this is refused before it is read. Real ones hold a path and a few numbers.
MAX_TAR_EXTENDED_HEADER = 64 << 10
# A zip's central directory is read into memory whole when the archive is opened: one larger
# than this many bytes per allowed entry (a 46-byte record, its name and extras) is refused first.
ZIP_DIRECTORY_BYTES_PER_ENTRY = 2048


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
    shown = "".join(character if character.isprintable() else f"\\x{ord(character):02x}" for character in escaped)
    return shown if len(shown) <= 200 else shown[:200] + "…"


def safe_relative(name: str) -> str:
    """The member's path as a safe relative POSIX path ("" for the top), or ArchiveError."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveError(f"`{shown_name(name)}`: the name is not valid UTF-8", "bad_name") from None
    if "\\" in name or "\0" in name:
        raise ArchiveError(f"`{shown_name(name)}`: backslashes and NUL characters are not allowed in archive paths",
                           "bad_name")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"`{shown_name(name)}`: absolute paths are not allowed in an archive", "bad_name")
    normalized = posixpath.normpath(name)
    if normalized == ".." or normalized.startswith("../"):
        raise ArchiveError(f"`{shown_name(name)}`: leaves the archive (`..`)", "bad_name")
    if normalized == ".":
        return ""
    parts = normalized.split("/")
    if len(normalized) > MAX_PATH_CHARACTERS or len(parts) > MAX_DEPTH:
        raise ArchiveError(f"`{shown_name(name)}`: the path is longer or deeper than an archive may hold", "bad_name")
    if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in parts):
        raise ArchiveError(f"`{shown_name(name)}`: a name in the path is longer than {MAX_NAME_BYTES} bytes",
                           "bad_name")
    return normalized


class CappedWriter:
    """Writes members under `root`, enforcing the caps on what is actually written.

    It keeps what it made itself (folders, files, links), so nothing it writes can go through a
    link, and a hard link can only copy a file it wrote.
    """

    def __init__(self, root: Path, limits: ArchiveLimits):
        self.root = Path(root)
        self.limits = limits
        self.entries = 0
        self.total = 0
        self.folders: set[str] = {""}
        self.files: set[str] = set()
        self.links: set[str] = set()

    def count(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"the archive has more than {self.limits.max_entries:,} entries", "too_many_entries")

    def _taken(self, rel: str) -> bool:
        return rel in self.files or rel in self.links or rel in self.folders

    def _parent(self, rel: str) -> Path:
        """Make the folders above `rel` (each one an entry), never through a link."""
        parent = posixpath.dirname(rel)
        missing = []
        while parent not in self.folders:
            if parent in self.files or parent in self.links:
                raise ArchiveError(f"`{shown_name(rel)}`: lies under a file or a link", "bad_name")
            missing.append(parent)
            parent = posixpath.dirname(parent)
        for folder in reversed(missing):
            self.count()
            os.mkdir(self.root / folder)
            self.folders.add(folder)
        return self.root / rel

    def directory(self, rel: str) -> None:
        self.count()
        if rel in self.files or rel in self.links:
            raise ArchiveError(f"`{shown_name(rel)}` appears twice in the archive", "duplicate")
        if rel not in self.folders:
            target = self._parent(rel)
            os.mkdir(target)
            self.folders.add(rel)

    def file(self, rel: str, stream, mode: int = 0o644) -> None:
        self.count()
        if not rel:
            raise ArchiveError("a file entry has an empty name", "bad_name")
        if self._taken(rel):
            raise ArchiveError(f"`{shown_name(rel)}` appears twice in the archive", "duplicate")
        target = self._parent(rel)
        written = 0
        # O_EXCL | O_NOFOLLOW: never write through something already there.
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        self.files.add(rel)
        with os.fdopen(handle, "wb") as out:
            while chunk := stream.read(CHUNK):
                written += len(chunk)
                self.total += len(chunk)
                if written > self.limits.max_file_bytes:
                    raise ArchiveError(f"`{shown_name(rel)}` unpacks to more than {self.limits.max_file_bytes:,} bytes",
                                       "too_large")
                if self.total > self.limits.max_total_bytes:
                    raise ArchiveError(f"the archive unpacks to more than {self.limits.max_total_bytes:,} bytes",
                                       "too_large")
                out.write(chunk)
        os.chmod(target, 0o755 if mode & 0o111 else 0o644)

    def copy(self, rel: str, origin: str) -> None:
        """A hard link, written as a copy of a file this writer wrote earlier."""
        if origin not in self.files:
            raise ArchiveError(f"`{shown_name(rel)}`: a hard link must name a file earlier in the archive", "bad_link")
        path = self.root / origin
        with open(path, "rb") as stream:
            self.file(rel, stream, path.stat().st_mode)

    def symlink(self, rel: str, link_target: str) -> None:
        """A link pointing down its own folder: relative, with no `..` anywhere in it, so that
        however links chain, it cannot resolve outside the tree."""
        self.count()
        if self._taken(rel):
            raise ArchiveError(f"`{shown_name(rel)}` appears twice in the archive", "duplicate")
        parts = link_target.split("/")
        if not link_target or link_target.startswith("/") or "\0" in link_target or ".." in parts:
            raise ArchiveError(f"`{shown_name(rel)}`: a link must be relative and point below its own folder",
                               "bad_link")
        target = self._parent(rel)
        os.symlink(link_target, target)
        self.links.add(rel)

    def verify_links(self) -> None:
        """Every link resolves inside the tree (defence in depth: the rule above already holds)."""
        root = os.path.realpath(self.root)
        for rel in self.links:
            resolved = os.path.realpath(self.root / rel)
            if resolved != root and not resolved.startswith(root + os.sep):
                raise ArchiveError(f"`{shown_name(rel)}`: the link resolves outside the archive", "bad_link")


class _CappedStream(io.RawIOBase):
    """A read-only stream that fails once more than `limit` bytes have been read from it."""

    def __init__(self, stream, limit: int):
        self.stream = stream
        self.limit = limit
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        wanted = min(len(buffer), self.limit - self.consumed + 1)
        data = self.stream.read(wanted)
        self.consumed += len(data)
        if self.consumed > self.limit:
            raise ArchiveError(f"the archive unpacks to more than {self.limit:,} bytes", "too_large")
        buffer[:len(data)] = data
        return len(data)


def _decompressed(raw) -> object:
    """`raw` (a binary file) read through gzip, bzip2 or xz when it starts like one of them."""
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw)
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw)
    return raw


class _BoundedTarInfo(tarfile.TarInfo):
    """A tar member whose extended header (PAX, GNU long name or long link) is refused when it
    says it is larger than MAX_TAR_EXTENDED_HEADER, before tarfile reads it into memory."""

    def _proc_member(self, tarfile_):
        extended = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                    tarfile.GNUTYPE_LONGLINK)
        if self.type in extended and self.size > MAX_TAR_EXTENDED_HEADER:
            raise ArchiveError(f"an extended header of {self.size:,} bytes (at most {MAX_TAR_EXTENDED_HEADER:,})",
                               "bad_entry")
        return super()._proc_member(tarfile_)


def _check_zip_directory(path: Path, limits: ArchiveLimits) -> None:
    """Refuse a zip whose central directory is larger than its entries could need, from its end
    record alone (zipfile reads the whole directory into memory, and makes an object per entry,
    before the entry cap could count them)."""
    with open(path, "rb") as raw:
        end = zipfile._EndRecData(raw)  # the end record (zip64 folded in), as ZipFile reads it
    if end is None:
        return  # ZipFile refuses it itself
    entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]
    if entries > limits.max_entries:
        raise ArchiveError(f"the archive has more than {limits.max_entries:,} entries (its directory lists "
                           f"{entries:,})", "too_many_entries")
    if size > limits.max_entries * ZIP_DIRECTORY_BYTES_PER_ENTRY:
        raise ArchiveError(f"the archive's directory is {size:,} bytes, more than {limits.max_entries:,} entries "
                           "need", "too_many_entries")


def _extract_zip(path: Path, writer: CappedWriter) -> None:
    _check_zip_directory(path, writer.limits)
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if "\0" in info.orig_filename:  # zipfile cuts the name there; the archive meant more
                raise ArchiveError(f"`{shown_name(info.orig_filename)}`: NUL characters are not allowed in archive "
                                   f"paths", "bad_name")
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


def _extract_tar(raw, writer: CappedWriter, *, allow_links: bool) -> None:
    limit = writer.limits.max_total_bytes + writer.limits.max_entries * TAR_OVERHEAD_PER_ENTRY
    stream = io.BufferedReader(_CappedStream(_decompressed(raw), limit), CHUNK)
    with tarfile.open(fileobj=stream, mode="r|", tarinfo=_BoundedTarInfo) as archive:
        for member in archive:
            rel = safe_relative(member.name)
            if member.isdir():
                writer.directory(rel)
            elif member.isfile():
                source = archive.extractfile(member)
                assert source is not None
                writer.file(rel, source, member.mode)
            elif member.issym() and allow_links:
                writer.symlink(rel, member.linkname)
            elif member.islnk() and allow_links:
                writer.copy(rel, safe_relative(member.linkname))
            elif member.issym() or member.islnk():
                raise ArchiveError(f"`{shown_name(member.name)}`: links are not allowed in an archive", "bad_link")
            else:
                raise ArchiveError(f"`{shown_name(member.name)}`: only files and folders are allowed in an archive",
                                   "bad_entry")
        # A truncated compressed stream can end the member list quietly; reading on to the end
        # of the stream (bounded, like everything else) exposes it.
        while stream.read(CHUNK):
            pass
    writer.verify_links()


# Failures of the archive formats themselves: zlib/EOF errors mid-stream, unsupported
# compression methods (zipfile raises NotImplementedError for those), truncated members.
_READ_ERRORS = (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, NotImplementedError, RuntimeError,
                lzma.LZMAError)


def _reason(exc: Exception) -> str:
    """An error's reason without the host paths an OSError carries."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)[:200]


def _extract(raw, writer: CappedWriter, *, allow_links: bool, is_zip: bool, path: Path | None) -> None:
    try:
        if is_zip:
            _extract_zip(path, writer)
            return
        try:
            _extract_tar(raw, writer, allow_links=allow_links)
        except tarfile.ReadError as exc:
            if writer.entries == 0:
                raise ArchiveError("not a .zip or .tar.gz archive (or it is damaged)") from None
            raise ArchiveError(f"the archive could not be read: {_reason(exc)}") from None
    except ArchiveError:
        raise
    except UnicodeDecodeError:  # a zip whose names say they are UTF-8, and are not
        raise ArchiveError("a member's name is not valid UTF-8", "bad_name") from None
    except _READ_ERRORS as exc:
        raise ArchiveError(f"the archive could not be read: {_reason(exc)}") from None


def extract_archive(path: Path, dest: Path, limits: ArchiveLimits = ArchiveLimits(), *,
                    allow_links: bool = False) -> None:
    """Unpack a .zip or .tar(.gz) file into `dest`. Raises ArchiveError with the reason.

    `allow_links`: keep symbolic links that point below their own folder, and copy hard links
    to files written earlier (tar only).
    """
    writer = CappedWriter(dest, limits)
    is_zip = zipfile.is_zipfile(path)
    with open(path, "rb") as raw:
        _extract(raw, writer, allow_links=allow_links, is_zip=is_zip, path=Path(path))


def extract_tar_bytes(data: bytes, dest: Path, limits: ArchiveLimits, *, allow_links: bool = False) -> None:
    """`extract_archive` for a tar(.gz) held in memory."""
    _extract(io.BytesIO(data), CappedWriter(dest, limits), allow_links=allow_links, is_zip=False, path=None)
