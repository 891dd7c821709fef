"""Walking a catalog tree: every version folder checked, and the rules that span versions."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from catalog.manifest.check import check_version_folder
from catalog.manifest.crosschecks import held_out_of_other_versions, slug_unstable
from catalog.manifest.files import digest_files, is_within, name_problem, read_version_files, shown_path
from catalog.manifest.types import (
    DIFFICULTIES,
    MANIFEST_NAME,
    MAX_FOLDER_LENGTH,
    MAX_VERSION_LENGTH,
    RESERVED_VERSIONS,
    VERSION_PATTERN,
    CatalogScan,
    FileLimits,
    ManifestError,
    VersionSource,
)

LINKED_FOLDER = "is a link to a folder: a catalog's folders are read where they are, never through a link"


def _subdirectories(path: Path, root: Path, errors: list[ManifestError]) -> list[Path]:
    """Child folders, sorted; hidden entries (`.git`, `.DS_Store`) and plain files are skipped.

    A folder whose name cannot be stored (not UTF-8, control characters) is an error, not a child,
    and so is a link: the catalog is read as it is, never through a link that could lead out of it.
    """
    try:
        children = sorted(path.iterdir())
    except OSError:
        return []
    usable = []
    for child in children:
        if child.name.startswith("."):
            continue
        if child.is_symlink():
            if child.is_dir():
                errors.append(ManifestError(shown_path(child, root), "", LINKED_FOLDER))
            continue
        if not child.is_dir():
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
    real_root = root.resolve()

    labels: list[str] = []
    unchanged: list[str] = []
    slug_folders: dict[str, str] = {}
    refused: set[str] = set()  # labels of versions refused by a rule that spans versions
    for type_dir in _subdirectories(root, root, errors):
        for difficulty_dir in _subdirectories(type_dir, root, errors):
            rel_difficulty = f"{type_dir.name}/{difficulty_dir.name}"
            if difficulty_dir.name not in DIFFICULTIES:
                errors.append(ManifestError(rel_difficulty, "", f"`{difficulty_dir.name}` is not a difficulty "
                                                                f"folder: use one of {', '.join(DIFFICULTIES)}"))
                continue
            for case_dir in _subdirectories(difficulty_dir, root, errors):
                folder = f"{rel_difficulty}/{case_dir.name}"
                if len(folder) > MAX_FOLDER_LENGTH:
                    errors.append(ManifestError(folder[:80] + "…", "", "the case folder's path is longer than "
                                                                        f"{MAX_FOLDER_LENGTH} characters"))
                    continue
                folder_versions: list[VersionSource] = []
                version_dirs = _subdirectories(case_dir, root, errors)
                if not version_dirs:
                    errors.append(ManifestError(folder, "", "case folder has no version folders"))
                for version_dir in version_dirs:
                    rel_dir = f"{folder}/{version_dir.name}"
                    labels.append(rel_dir)
                    if not VERSION_PATTERN.fullmatch(version_dir.name):
                        errors.append(ManifestError(rel_dir, "",
                                                    f"version folder name must match {VERSION_PATTERN.pattern}",
                                                    rel_dir))
                        continue
                    if len(version_dir.name) > MAX_VERSION_LENGTH:
                        errors.append(ManifestError(rel_dir, "",
                                                    f"version folder name must be at most {MAX_VERSION_LENGTH} "
                                                    f"characters", rel_dir))
                        continue
                    if version_dir.name.lower() in RESERVED_VERSIONS:
                        errors.append(ManifestError(rel_dir, "",
                                                    f"`{version_dir.name}` is reserved and cannot name a version",
                                                    rel_dir))
                        continue
                    if not (version_dir / MANIFEST_NAME).is_file():
                        errors.append(ManifestError(rel_dir, "", f"version folder has no {MANIFEST_NAME}", rel_dir))
                        continue
                    if not is_within(version_dir.resolve(), real_root) or version_dir.is_symlink():
                        # A folder on the way made a link since the walk began: nothing behind it is read.
                        errors.append(ManifestError(rel_dir, "", LINKED_FOLDER))
                        continue
                    try:
                        files, problems = read_version_files(version_dir, limits)
                        if is_unchanged and not problems and is_unchanged(rel_dir, digest_files(files)):
                            unchanged.append(rel_dir)
                            continue
                        source, version_errors, version_warnings = check_version_folder(
                            version_dir, rel_dir, type_dir.name, difficulty_dir.name, folder,
                            version_dir.name, files, problems,
                        )
                    except OSError as failed:  # the folder changed under the walk (moved, swapped)
                        errors.append(ManifestError(rel_dir, "", f"could not be read: {failed.strerror or failed}"))
                        continue
                    errors.extend(version_errors)
                    warnings.extend(version_warnings)
                    if source is not None:
                        folder_versions.append(source)
                for source in slug_unstable(folder_versions):
                    refused.add(source.label)
                    errors.append(ManifestError(
                        f"{source.label}/{MANIFEST_NAME}", "slug",
                        f"`{source.manifest.slug}` differs from the slug of this folder's first version; a folder's "
                        f"versions share one slug", source.label,
                    ))
                for source in folder_versions:
                    other = slug_folders.setdefault(source.manifest.slug, folder)
                    if other != folder:
                        refused.add(source.label)
                        errors.append(ManifestError(
                            f"{source.label}/{MANIFEST_NAME}", "slug",
                            f"`{source.manifest.slug}` is already the slug of folder `{other}`; slugs are unique "
                            f"across folders", source.label,
                        ))
                versions.extend(folder_versions)
    for source, error in held_out_of_other_versions(versions, held_out_elsewhere or {}):
        refused.add(source.label)
        errors.append(error)
    if not errors and not versions and not unchanged:
        errors.append(ManifestError(str(root), "",
                                    "no case versions found (expected "
                                    "<type>/<difficulty>/<folder>/<version>/test-case.toml)"))
    return CatalogScan([source for source in versions if source.label not in refused], errors, labels, unchanged,
                       warnings)



def catalog_root(path: Path) -> Path:
    """The catalog a path is in: a version folder (<root>/<type>/<difficulty>/<folder>/<version>),
    a case folder, or the catalog itself."""
    if (path / MANIFEST_NAME).is_file():
        return path.parents[3]
    if path.is_dir() and any(child.is_dir() and (child / MANIFEST_NAME).is_file() for child in path.iterdir()):
        return path.parents[2]
    return path
