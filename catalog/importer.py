"""Import validated version folders into the database.

One transaction per version: a failure leaves no half-imported version, and a refused version
changes nothing. Re-importing an unchanged version is a no-op; a changed published version is
refused, because results measured against it would silently stop meaning what they meant.
"""

from __future__ import annotations

import hashlib
import logging
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.db import IntegrityError, transaction

from catalog.manifest import (
    CatalogScan,
    FileLimits,
    ManifestError,
    VersionSource,
    fuel_ceiling,
    manifest_template_context,
    scan_catalog,
    version_sort_key,
)
from catalog.models import (
    Case,
    CaseVersion,
    HeldOutInput,
    Tag,
    Variant,
    VersionFile,
)
from catalog.published import held_out_files, shares_content
from catalog.samples import workspace_samples
from catalog.signals import versions_published
from lib.errors import DomainError
from lib.locking import hold_publishing, lock_rows
from sitecache.models import CATALOG, Generation

logger = logging.getLogger(__name__)

class Action(StrEnum):
    """What importing a version folder did."""

    IMPORTED = "imported"
    UNCHANGED = "unchanged"
    REFUSED = "refused"

    def told(self, dry_run: bool) -> str:
        """The word a report uses: what a dry run would have done, or what was done."""
        return "would import" if dry_run and self is Action.IMPORTED else self.value


IMPORTED, UNCHANGED, REFUSED = Action.IMPORTED, Action.UNCHANGED, Action.REFUSED


class ImportRefused(DomainError):
    """A version that validated on its own but conflicts with what is already published."""


@dataclass(frozen=True)
class ImportResult:
    label: str  # "<type>/<difficulty>/<folder>/<version>"
    action: Action
    reasons: tuple[str, ...] = ()
    code: str = ""  # for refusals: "invalid", "immutable", "slug_taken", "folder_taken"
    warnings: tuple[str, ...] = ()
    version_id: int | None = None  # the CaseVersion written, for an import that was not a dry run

    def line(self, dry_run: bool = False) -> str:
        text = f"{self.action.told(dry_run):<12} {self.label}"
        if self.reasons:
            text += "".join(f"\n    {reason}" for reason in self.reasons)
        if self.warnings:
            text += "".join(f"\n    warning: {warning}" for warning in self.warnings)
        return text


@dataclass
class CatalogImport:
    results: list[ImportResult] = field(default_factory=list)
    # Errors that belong to no version folder (a bad difficulty folder, an empty case folder).
    other_errors: list[ManifestError] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for result in self.results if result.action == action)

    @property
    def ok(self) -> bool:
        return not self.other_errors and self.count(REFUSED) == 0


def file_limits() -> FileLimits:
    """The settings' caps on what a version folder may hold."""
    return FileLimits(
        max_file_bytes=settings.CATALOG_MAX_FILE_BYTES, max_version_bytes=settings.CATALOG_MAX_VERSION_BYTES,
        max_files=settings.CATALOG_MAX_VERSION_FILES,
    )


def held_out_elsewhere() -> dict[str, str]:
    """Content digest of every imported held-out file → the version that holds it out."""
    return {
        digest: f"{folder}/{version}"
        for folder, version, digests in CaseVersion.objects.values_list("case__folder", "version", "held_out_digests")
        for digest in digests
    }


def _stored_digests() -> dict[str, str]:
    """label → digest of every imported version, in one query."""
    return {
        f"{folder}/{version}": digest
        for folder, version, digest in CaseVersion.objects.values_list("case__folder", "version", "digest")
    }


def scan_for_import(root: Path) -> CatalogScan:
    """Validate the catalog at `root` against what is imported: folders whose bytes equal an
    imported version are listed unchanged without being validated again, and no version may
    show what an imported version holds out."""
    digests = _stored_digests()
    return scan_catalog(root, is_unchanged=lambda label, digest: digests.get(label) == digest, limits=file_limits(),
                        held_out_elsewhere=held_out_elsewhere())


def import_catalog(root: Path, *, dry_run: bool = False, progress: Callable[[ImportResult], None] | None = None,
                   report: Callable[[str], None] | None = None) -> CatalogImport:
    """Validate the catalog at `root` and import every valid version that is new, each in its
    own transaction. With `dry_run`, nothing is written: the result says what would happen."""
    return import_scan(scan_for_import(root), dry_run=dry_run, progress=progress, report=report)


def import_scan(scan: CatalogScan, *, dry_run: bool = False, all_or_nothing: bool = False,
                progress: Callable[[ImportResult], None] | None = None,
                report: Callable[[str], None] | None = None) -> CatalogImport:
    """Import the valid versions of a scan, in walk order.

    With `all_or_nothing`, one transaction holds every version, and it is rolled back if any
    version is refused (by its own rules, or by what is published) or the tree has errors.
    Once what was written commits, `versions_published` is sent with the new versions (and
    `report`, where what listens may tell the operator what it did).
    """
    outcome = CatalogImport(other_errors=scan.tree_errors)
    valid = {source.label: source for source in scan.versions}
    with transaction.atomic() if all_or_nothing else nullcontext():
        if all_or_nothing:
            # One transaction writes versions of several cases: every case it may write to is
            # locked here, in the house's order, and the page generation is bumped once at the end
            # (lib/locking.py), so an importer of one of these cases waits rather than deadlocks.
            hold_publishing()
            lock_rows(Case.objects.filter(slug__in={source.manifest.slug for source in scan.versions}))
        for label in scan.labels:
            if label in scan.unchanged:
                result = ImportResult(label, UNCHANGED)
            elif label in valid:
                result = import_version(valid[label], dry_run=dry_run, bump=not all_or_nothing)
            else:
                result = ImportResult(label, REFUSED, tuple(str(error) for error in scan.errors_for(label)), "invalid",
                                      tuple(str(warning) for warning in scan.warnings_for(label)))
            outcome.results.append(result)
            if progress:
                progress(result)
        if all_or_nothing and not outcome.ok:
            transaction.set_rollback(True)
            return outcome
        written = [result.version_id for result in outcome.results if result.version_id is not None]
        if all_or_nothing and written:
            Generation.bump(CATALOG)
    if written:
        transaction.on_commit(lambda: _publish(written, report))
    return outcome


def _publish(version_ids: list[int], report: Callable[[str], None] | None) -> None:
    """Tell the rest of the site about new versions; what a listener fails at is reported, not raised
    (the versions are imported whatever happens next)."""
    versions = list(CaseVersion.objects.filter(pk__in=version_ids).select_related("case"))
    for receiver, response in versions_published.send_robust(sender=CaseVersion, versions=versions, report=report):
        if isinstance(response, Exception):
            logger.error("after importing %s: %s failed", versions, receiver, exc_info=response)
            if report:
                report(f"after the import, {getattr(receiver, '__name__', receiver)} failed: {response}")


def _check_published(source: VersionSource) -> None:
    """Raise ImportRefused if what is already published forbids importing `source`."""
    manifest = source.manifest
    case = Case.objects.filter(slug=manifest.slug).first()
    if case is not None and case.folder != source.folder:
        raise ImportRefused(
            "slug_taken",
            f"slug `{manifest.slug}` is already published by folder `{case.folder}`; slugs are unique across folders",
        )
    owner = Case.objects.filter(folder=source.folder).exclude(slug=manifest.slug).first()
    if owner is not None:
        raise ImportRefused(
            "folder_taken",
            f"folder `{source.folder}` is already published as slug `{owner.slug}`; a folder's versions share one slug",
        )
    retired = {pk: (slug, version) for pk, slug, version in CaseVersion.objects.filter(retired_at__isnull=False)
               .exclude(case__slug=manifest.slug, version=source.version).values_list("pk", "case__slug", "version")}
    files = dict(source.files) if retired else {}
    held = [files[path] for case_ in manifest.cases for path in (case_.input, case_.expected) if path in files]
    for pk, published in held_out_files(retired).items():
        slug, version = retired[pk]
        if shares_content(published, held):  # the same file, the same document, or one inside the other
            raise ImportRefused(
                "held_out_published",
                f"a held-out input or answer of this version is one that {slug} {version} published when it was "
                "retired: held-out files must be unknown to solvers, so give this version new ones",
            )
    for slug, version, given in (CaseVersion.objects.exclude(case__slug=manifest.slug, version=source.version)
                                 .values_list("case__slug", "version", "given_digests")):
        if source.held_out_digests.intersection(given):
            raise ImportRefused(
                "held_out_given",
                f"a held-out input or answer of this version is a file that {slug} {version} gives solvers (on its "
                "pages, in its kits or run roots): held-out files must be unknown to solvers, so give this version "
                "new ones",
            )
    existing = CaseVersion.objects.filter(case__slug=manifest.slug, version=source.version).first()
    if existing is not None and existing.digest != source.digest:
        raise ImportRefused(
            "immutable",
            f"{manifest.slug} {source.version} was already imported with different contents "
            f"(digest {existing.digest[:12]}…, now {source.digest[:12]}…): "
            "published versions are immutable: add a new version folder",
        )


def import_version(source: VersionSource, *, dry_run: bool = False, bump: bool = True) -> ImportResult:
    """Import one validated version folder in its own transaction (a savepoint inside another).

    What is published is checked inside the transaction that writes, so a concurrent importer
    that won the race is seen; with `dry_run` the same checks run and nothing is written. With
    `bump`, the catalog's page generation moves on once the version is written; a caller that
    imports several versions in one transaction bumps it once, after them all.
    """
    imported = ImportResult(source.label, IMPORTED, warnings=tuple(str(warning) for warning in source.warnings))
    for attempt in range(3):
        try:
            with transaction.atomic():
                hold_publishing()  # a retirement publishing what this holds out commits first, or waits
                _check_published(source)
                if CaseVersion.objects.filter(case__slug=source.manifest.slug, version=source.version).exists():
                    return ImportResult(source.label, UNCHANGED)  # the same digest: checked just above
                if not dry_run:
                    imported = replace(imported, version_id=_write_version(source).pk)
                    if bump:
                        Generation.bump(CATALOG)
            return imported
        except ImportRefused as refused:
            return ImportResult(source.label, REFUSED, (refused.message,), refused.code)
        except IntegrityError:
            # A concurrent import created the same case or version between our check and our
            # insert. The transaction rolled back; deciding again sees what it wrote.
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _write_version(source: VersionSource) -> CaseVersion:
    manifest = source.manifest
    case, _ = Case.objects.get_or_create(slug=manifest.slug, defaults={"folder": source.folder})
    # Serialise concurrent imports of versions of the same case (ordinals are renumbered below).
    case = lock_rows(Case.objects.filter(pk=case.pk))[0][0]
    files = dict(source.files)
    held_out_paths = {path for case_ in manifest.cases for path in (case_.input, case_.expected)}
    # By content too: the file a held-out symlink points to is no ordinary file of the version.
    held_out_bytes = {hashlib.sha256(files[path]).hexdigest() for path in held_out_paths}
    version = CaseVersion.objects.create(
        case=case,
        version=source.version,
        digest=source.digest,
        manifest_text=source.manifest_text,
        name=manifest.name,
        type=manifest.type,
        difficulty=manifest.difficulty,
        experimental=manifest.experimental,
        tag_names=list(manifest.tags),
        summary=manifest.summary,
        description_path=manifest.description or "",
        description=_text(files, manifest.description) if manifest.description else "",
        changelog_path=manifest.changelog,
        changelog=_text(files, manifest.changelog),
        prompt_path=manifest.prompt,
        max_runtime_hours=str(manifest.max_runtime_hours),
        workspace=manifest.workspace or "",
        init=manifest.init or "",
        build_install=manifest.build.install or "",
        build_command=manifest.build.build,
        build_module=manifest.build.module,
        contract_entry=manifest.contract.entry,
        contract_input=manifest.contract.input,
        contract_output=manifest.contract.output,
        fuel_limit=manifest.sandbox.fuel_limit,
        max_memory_bytes=manifest.sandbox.max_memory_bytes,
        specs=[{"source": spec.source, "dest": spec.dest} for spec in manifest.specs],
        domains=list(manifest.domains),
        review_items=list(manifest.review_items),
        held_out_digests=sorted(source.held_out_digests),
        template_warnings=[str(warning) for warning in source.warnings],
        smoke_count=len(manifest.smoke_cases),
        stress_count=len(manifest.stress_cases),
        sample_count=len(workspace_samples(manifest.workspace, files)),
    )
    tags = []
    for tag_name in manifest.tags:
        tag, _ = Tag.objects.get_or_create(name=tag_name)
        tags.append(tag)
    version.tags.set(tags)
    Variant.objects.bulk_create(
        Variant(
            version=version, position=position, slug=variant.slug, name=variant.name,
            file=variant.file or "",
            specs=[{"source": spec.source, "dest": spec.dest} for spec in variant.specs],
            template_context=manifest_template_context(manifest, variant, source.version),
        )
        for position, variant in enumerate(manifest.variants)
    )
    HeldOutInput.objects.bulk_create(
        HeldOutInput(
            version=version, position=position, kind=held_out.kind,
            input_path=held_out.input, expected_path=held_out.expected,
            fuel_runway=str(held_out.fuel_runway),
            ceiling=fuel_ceiling(manifest.sandbox.fuel_limit, held_out.fuel_runway),
            input_bytes=_file(files, held_out.input), expected_bytes=_file(files, held_out.expected),
            input_size=len(_file(files, held_out.input)), expected_size=len(_file(files, held_out.expected)),
        )
        for position, held_out in enumerate(manifest.cases)
    )
    VersionFile.objects.bulk_create(
        VersionFile(version=version, path=path, content=content, size=len(content))
        for path, content in source.files
        if path not in held_out_paths and hashlib.sha256(content).hexdigest() not in held_out_bytes
    )
    # What it shows or seeds, as validation found it (catalog/manifest/crosschecks.py).
    version.given_digests = sorted({digest for *_, digests in source.published_digests for digest in digests})
    version.save(update_fields=["given_digests"])
    renumber_versions(case)
    return version


def _file(files: dict[str, bytes], rel: str) -> bytes:
    return files[rel]  # manifest paths come normalised (catalog.manifest.fields.Table.path)


def _text(files: dict[str, bytes], rel: str) -> str:
    return _file(files, rel).decode("utf-8", errors="replace")


def renumber_versions(case: Case) -> None:
    """Give the case's versions ordinals in natural order, so "latest" is a plain max(), and
    mark its latest version overall and its latest version that is not experimental."""
    versions = sorted(case.versions.only("pk", "version", "ordinal", "experimental", "latest_any", "latest_public"),
                      key=lambda row: version_sort_key(row.version))
    public = [row for row in versions if not row.experimental]
    changed = []
    for ordinal, row in enumerate(versions):
        marks = (ordinal, row is versions[-1], bool(public) and row is public[-1])
        if (row.ordinal, row.latest_any, row.latest_public) != marks:
            row.ordinal, row.latest_any, row.latest_public = marks
            changed.append(row)
    CaseVersion.objects.bulk_update(changed, ["ordinal", "latest_any", "latest_public"])
    Tag.recount(CaseVersion.tags.through.objects.filter(caseversion__case=case).values_list("tag_id", flat=True))

