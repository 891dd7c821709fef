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

import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from django.conf import settings

from catalog.importer import IMPORTED, REFUSED, ImportResult, import_scan, scan_for_import
from catalog.manifest import (
    MANIFEST_NAME,
    MAX_SLUG_LENGTH,
    MAX_VERSION_LENGTH,
    SLUG_PATTERN,
    VERSION_PATTERN,
)
from catalog.models import Case
from lib.files import read_regular
from lib.unpack import ArchiveError, ArchiveLimits, extract_archive, shown_name


@dataclass
class ArchiveImport:
    errors: list[str] = field(default_factory=list)
    results: list[ImportResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _folder_name(value, placeholder: str) -> str:
    if isinstance(value, str) and SLUG_PATTERN.fullmatch(value) and len(value) <= MAX_SLUG_LENGTH:
        return value
    return placeholder


def _single_child(folder: Path) -> Path | None:
    children = [child for child in folder.iterdir() if not child.name.startswith(".")]
    return children[0] if len(children) == 1 and children[0].is_dir() else None


def _place_version(version_dir: Path, version: str, staging: Path) -> Path:
    """Move a lone version folder into a catalog tree where its manifest says it belongs."""
    if not VERSION_PATTERN.fullmatch(version) or len(version) > MAX_VERSION_LENGTH:
        raise ArchiveError(f"`{shown_name(version)[:120]}` is not a valid version name (it must match "
                           f"{VERSION_PATTERN.pattern} and be at most {MAX_VERSION_LENGTH} characters)")
    try:
        manifest = tomllib.loads(read_regular(version_dir / MANIFEST_NAME, settings.CATALOG_MAX_FILE_BYTES).decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, ValueError, OSError):
        manifest = {}  # placed under placeholders; the validator says what is wrong with it
    # The manifest's own values name the folders only when they are safe folder names; otherwise
    # a placeholder is used and the validator reports what is wrong with the value itself.
    type_ = _folder_name(manifest.get("type"), "performance")
    difficulty = _folder_name(manifest.get("difficulty"), "easy")
    slug = _folder_name(manifest.get("slug"), "unnamed")
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


def import_archive(path: Path, *, version: str | None = None, limits: ArchiveLimits = ArchiveLimits(),
                   dry_run: bool = False, report: Callable[[str], None] | None = None) -> ArchiveImport:
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
        scan = scan_for_import(root)
        if scan.errors:
            outcome.errors.extend(str(error) for error in scan.errors)
            return outcome
        # Validated once, above; imported (or rehearsed) in one transaction, all or nothing.
        imported = import_scan(scan, dry_run=dry_run, all_or_nothing=True, report=report)
        outcome.errors.extend(reason for result in imported.results if result.action == REFUSED for reason in
        result.reasons)
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

