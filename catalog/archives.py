"""Importing case versions from an uploaded archive (.zip or .tar.gz).

The archive holds either one version folder (`v2/test-case.toml`, or `test-case.toml` at the
top with the version named separately) or a catalog tree (`performance/hard/lattice/v2/…`,
optionally inside one wrapping folder). It is unpacked into a temporary directory — never
anywhere else — with caps on the number of entries and on bytes actually written (so a zip
bomb stops at the cap, whatever its headers claim); links, devices, absolute paths and `..`
are refused. Then the same validator as the catalog folder runs, and the archive imports all
of its versions or none.
"""

from __future__ import annotations

import posixpath
import stat
import tarfile
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from catalog.importer import IMPORTED, REFUSED, CatalogImport, ImportResult, file_limits, import_catalog
from catalog.manifest import MANIFEST_NAME, VERSION_PATTERN, scan_catalog
from catalog.models import Case

CHUNK = 1 << 16


class ArchiveError(ValueError):
    pass


@dataclass(frozen=True)
class Limits:
    max_entries: int = 10_000
    max_total_bytes: int = 512 * 1024 * 1024
    max_file_bytes: int = 128 * 1024 * 1024


@dataclass
class ArchiveImport:
    errors: list[str] = field(default_factory=list)
    results: list[ImportResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _safe_relative(name: str) -> str:
    """The member's path as a safe relative POSIX path, or ArchiveError."""
    if "\\" in name or "\0" in name:
        raise ArchiveError(f"`{name}`: backslashes and NUL characters are not allowed in archive paths")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"`{name}`: absolute paths are not allowed in an archive")
    normalized = posixpath.normpath(name)
    if normalized == ".." or normalized.startswith("../"):
        raise ArchiveError(f"`{name}`: leaves the archive (`..`)")
    return "" if normalized == "." else normalized


class _Writer:
    """Writes members under `root`, enforcing the caps on what is actually written."""

    def __init__(self, root: Path, limits: Limits):
        self.root = root
        self.limits = limits
        self.entries = 0
        self.total = 0

    def count(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"the archive has more than {self.limits.max_entries:,} entries")

    def directory(self, rel: str) -> None:
        self.count()
        if rel:
            (self.root / rel).mkdir(parents=True, exist_ok=True)

    def file(self, rel: str, stream) -> None:
        self.count()
        if not rel:
            raise ArchiveError("a file entry has an empty name")
        target = self.root / rel
        if target.exists():
            raise ArchiveError(f"`{rel}` appears twice in the archive")
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with open(target, "wb") as out:
            while chunk := stream.read(CHUNK):
                written += len(chunk)
                self.total += len(chunk)
                if written > self.limits.max_file_bytes:
                    raise ArchiveError(f"`{rel}` unpacks to more than {self.limits.max_file_bytes:,} bytes")
                if self.total > self.limits.max_total_bytes:
                    raise ArchiveError(f"the archive unpacks to more than {self.limits.max_total_bytes:,} bytes")
                out.write(chunk)


def _extract_zip(path: Path, writer: _Writer) -> None:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            rel = _safe_relative(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"`{info.filename}`: links are not allowed in an archive")
            if info.is_dir():
                writer.directory(rel)
                continue
            if info.flag_bits & 0x1:
                raise ArchiveError(f"`{info.filename}`: encrypted entries are not supported")
            with archive.open(info) as stream:
                writer.file(rel, stream)


def _extract_tar(path: Path, writer: _Writer) -> None:
    with tarfile.open(path, mode="r:*") as archive:
        for member in archive:
            rel = _safe_relative(member.name)
            if member.isdir():
                writer.directory(rel)
            elif member.isfile():
                stream = archive.extractfile(member)
                assert stream is not None
                writer.file(rel, stream)
            elif member.issym() or member.islnk():
                raise ArchiveError(f"`{member.name}`: links are not allowed in an archive")
            else:
                raise ArchiveError(f"`{member.name}`: only files and folders are allowed in an archive")
        # A truncated compressed stream can end the member list quietly; reading on to the end
        # of the stream (bounded, like everything else) exposes it.
        drained = 0
        while chunk := archive.fileobj.read(CHUNK):
            drained += len(chunk)
            if drained > writer.limits.max_total_bytes:
                raise ArchiveError(f"the archive unpacks to more than {writer.limits.max_total_bytes:,} bytes")


def extract_archive(path: Path, dest: Path, limits: Limits = Limits()) -> None:
    """Unpack a .zip or .tar(.gz) archive into `dest`. Raises ArchiveError with the reason."""
    writer = _Writer(dest, limits)
    try:
        if zipfile.is_zipfile(path):
            _extract_zip(path, writer)
        else:
            try:
                _extract_tar(path, writer)
            except tarfile.ReadError:
                raise ArchiveError("not a .zip or .tar.gz archive (or it is damaged)") from None
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        # zlib/EOF errors mid-stream, unsupported compression, truncated members…
        raise ArchiveError(f"the archive could not be read: {exc}") from None


def _single_child(folder: Path) -> Path | None:
    children = [child for child in folder.iterdir() if not child.name.startswith(".")]
    return children[0] if len(children) == 1 and children[0].is_dir() else None


def _place_version(version_dir: Path, version: str, staging: Path) -> Path:
    """Move a lone version folder into a catalog tree where its manifest says it belongs."""
    if not VERSION_PATTERN.match(version):
        raise ArchiveError(f"`{version}` is not a valid version name (it must match {VERSION_PATTERN.pattern})")
    try:
        manifest = tomllib.loads((version_dir / MANIFEST_NAME).read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ArchiveError(f"{MANIFEST_NAME} could not be read: {exc}") from None
    type_ = manifest.get("type") if isinstance(manifest.get("type"), str) else "performance"
    difficulty = manifest.get("difficulty") if isinstance(manifest.get("difficulty"), str) else "easy"
    slug = manifest.get("slug") if isinstance(manifest.get("slug"), str) else "unnamed"
    for part in (type_, difficulty, slug):
        if "/" in part or part in ("", ".", ".."):
            raise ArchiveError(f"{MANIFEST_NAME} names an unusable type, difficulty or slug: `{part}`")
    # A published slug keeps its folder; a new one gets <type>/<difficulty>/<slug>.
    existing = Case.objects.filter(slug=slug).values_list("folder", flat=True).first()
    folder = existing or f"{type_}/{difficulty}/{slug}"
    target = staging / folder / version
    target.parent.mkdir(parents=True, exist_ok=True)
    version_dir.rename(target)
    return staging


def catalog_root(unpacked: Path, version: str | None, staging: Path) -> Path:
    """Find what the archive holds and return a catalog tree to scan."""
    if (unpacked / MANIFEST_NAME).is_file():
        if not version:
            raise ArchiveError("the archive holds a version folder's files at its top: name the version")
        return _place_version(unpacked, version, staging)
    child = _single_child(unpacked)
    if child is not None and (child / MANIFEST_NAME).is_file():
        return _place_version(child, version or child.name, staging)
    # A catalog tree, possibly wrapped in one folder (test-cases/performance/…).
    if child is not None and not any(grandchild.name in ("easy", "medium", "hard") for grandchild in child.iterdir()):
        return child
    return unpacked


def import_archive(path: Path, *, version: str | None = None, limits: Limits = Limits(),
                   dry_run: bool = False) -> ArchiveImport:
    """Validate every version in the archive; import them all, or nothing if any is refused."""
    outcome = ArchiveImport()
    with tempfile.TemporaryDirectory(prefix="catalog-upload-") as temp:
        unpacked, staging = Path(temp) / "unpacked", Path(temp) / "catalog"
        unpacked.mkdir()
        staging.mkdir()
        try:
            extract_archive(path, unpacked, limits)
            root = catalog_root(unpacked, version, staging)
        except ArchiveError as exc:
            outcome.errors.append(str(exc))
            return outcome
        scan = scan_catalog(root, limits=file_limits())
        if scan.errors:
            outcome.errors.extend(str(error) for error in scan.errors)
            return outcome
        rehearsal = import_catalog(root, dry_run=True)
        refusals = [reason for result in rehearsal.results if result.action == REFUSED for reason in result.reasons]
        if refusals or dry_run:
            outcome.errors.extend(refusals)
            outcome.results = rehearsal.results
            return outcome
        with transaction.atomic():
            imported: CatalogImport = import_catalog(root)
            if not imported.ok:  # lost a race with another import: undo the whole archive
                outcome.errors.extend(reason for result in imported.results for reason in result.reasons)
                outcome.errors.extend(str(error) for error in imported.other_errors)
                transaction.set_rollback(True)
                return outcome
        outcome.results = imported.results
    return outcome


def describe(results: list[ImportResult]) -> str:
    imported = [result.label for result in results if result.action == IMPORTED]
    unchanged = [result.label for result in results if result.action != IMPORTED]
    parts = []
    if imported:
        parts.append("Imported " + ", ".join(imported))
    if unchanged:
        parts.append(("already" if parts else "Already") + " published, unchanged: " + ", ".join(unchanged))
    return "; ".join(parts) or "Nothing to import"

