"""The imported catalog. Every row below a CaseVersion is immutable once imported."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

from catalog import manifest as manifest_rules
from lib.errors import DomainError
from lib.templates import render_template


class Case(models.Model):
    """A case folder: the stable identity (slug) that all its versions share."""

    slug = models.SlugField(max_length=100, unique=True)
    # "<type>/<difficulty>/<folder>" relative to the catalog root. A slug belongs to one folder.
    folder = models.CharField(max_length=300, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class TagQuerySet(models.QuerySet):
    def shown(self) -> "TagQuerySet":
        """Tags of the cases the list shows: counts kept at import, not a join over every case."""
        if settings.CATALOG_SHOW_EXPERIMENTAL:
            return self.filter(latest_any_count__gt=0)
        return self.filter(latest_public_count__gt=0)


class Tag(models.Model):
    name = models.CharField(max_length=100, unique=True)
    # How many cases' latest version carries the tag (CaseVersion.latest_any / latest_public).
    latest_any_count = models.PositiveIntegerField(default=0)
    latest_public_count = models.PositiveIntegerField(default=0)

    objects = TagQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def recount(cls, tag_ids) -> None:
        """Recount these tags' latest versions (after versions were imported or deleted): one
        query counts them all, and only a tag whose counts moved is written (in name order, as
        every writer of tags takes them)."""
        counted = cls.objects.filter(pk__in=list(tag_ids)).annotate(
            any_now=models.Count("versions", filter=models.Q(versions__latest_any=True)),
            public_now=models.Count("versions", filter=models.Q(versions__latest_public=True)),
        )
        for tag in counted:
            if (tag.latest_any_count, tag.latest_public_count) != (tag.any_now, tag.public_now):
                tag.latest_any_count, tag.latest_public_count = tag.any_now, tag.public_now
                tag.save(update_fields=["latest_any_count", "latest_public_count"])


class CaseVersionQuerySet(models.QuerySet):
    def public(self) -> "CaseVersionQuerySet":
        """Versions the site shows: experimental ones only when the deployment enables them."""
        if settings.CATALOG_SHOW_EXPERIMENTAL:
            return self
        return self.filter(experimental=False)

    def latest_shown(self) -> "CaseVersionQuerySet":
        """The highest shown version (natural order) of each case: a flag kept at import, so the
        case list is an indexed filter however many cases there are."""
        if settings.CATALOG_SHOW_EXPERIMENTAL:
            return self.filter(latest_any=True)
        return self.filter(latest_public=True)

    def public_versions_of(self, case: "Case") -> "CaseVersionQuerySet":
        """The shown versions of a case, newest (natural order) first."""
        return self.public().filter(case=case).order_by("-ordinal")

    def public_version(self, slug: str, version: str | None = None) -> "CaseVersion | None":
        """A shown version of the case: the one named, or the latest. None if there is none.

        Names that no version could have (a NUL byte, a slash…) are answered without a query.
        """
        if not manifest_rules.SLUG_PATTERN.fullmatch(slug):
            return None
        if version is not None and not manifest_rules.VERSION_PATTERN.fullmatch(version):
            return None
        versions = self.public().filter(case__slug=slug).select_related("case")
        if version is not None:
            return versions.filter(version=version).first()
        return versions.order_by("-ordinal").first()


class CaseVersion(models.Model):
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=100)
    # Position among the case's versions in natural order (v2 < v10); the highest is latest.
    ordinal = models.PositiveIntegerField(default=0)
    digest = models.CharField(max_length=64)
    imported_at = models.DateTimeField(auto_now_add=True)
    # The case's highest version overall, and its highest version that is not experimental
    # (which the site shows as the case depends on CATALOG_SHOW_EXPERIMENTAL); kept by the importer.
    latest_any = models.BooleanField(default=False)
    latest_public = models.BooleanField(default=False)
    # The lowest total fuel of a ranked entry on this version's board: kept by scoring's
    # standings as scores land, so the case list shows it without reading any submission.
    best_fuel = models.BigIntegerField(null=True, blank=True)
    # The total fuel of its reference entry (staff's choice: scoring/references.py), while that
    # entry is ranked; NULL without one. Kept with the standings, as best_fuel is.
    reference_fuel = models.BigIntegerField(null=True, blank=True)
    # Entries on its leaderboard (each submitter's best), for the case list; kept with the standings.
    entry_count = models.PositiveIntegerField(default=0)
    # manifest.content_digests of its held-out files: no later version may show or seed them.
    held_out_digests = models.JSONField(default=list)
    # manifest.content_digests of the files it shows or seeds (its pages, kits and run roots give
    # them to solvers): no later version may hold one out.
    given_digests = models.JSONField(default=list, db_default=[])
    # What validation warned of ("file: key: message"): names its templates use that the site's
    # template context lacks. Shown to staff.
    template_warnings = models.JSONField(default=list)
    manifest_text = models.TextField()

    name = models.CharField(max_length=200)
    type = models.CharField(max_length=50)
    difficulty = models.CharField(max_length=10)
    experimental = models.BooleanField(default=False)
    tags = models.ManyToManyField(Tag, related_name="versions")
    tag_names = models.JSONField(default=list)  # in manifest order, for display
    summary = models.TextField(blank=True)
    description_path = models.CharField(max_length=300, blank=True)
    description = models.TextField(blank=True)
    changelog_path = models.CharField(max_length=300)
    changelog = models.TextField()
    prompt_path = models.CharField(max_length=300)
    max_runtime_hours = models.CharField(max_length=50)  # the manifest's decimal literal
    workspace = models.CharField(max_length=300, blank=True)
    init = models.TextField(blank=True)

    build_install = models.TextField(blank=True)
    build_command = models.TextField()
    build_module = models.CharField(max_length=300)
    contract_entry = models.CharField(max_length=200)
    contract_input = models.CharField(max_length=300)
    contract_output = models.CharField(max_length=300)
    fuel_limit = models.BigIntegerField()
    max_memory_bytes = models.BigIntegerField()
    specs = models.JSONField(default=list)  # [{"source": ..., "dest": ...}], the common specs
    domains = models.JSONField(default=list)
    review_items = models.JSONField(default=list)
    smoke_count = models.PositiveIntegerField(default=0)
    stress_count = models.PositiveIntegerField(default=0)
    # Its public samples (catalog.samples: the workspace's samples/NAME.json), counted at import.
    sample_count = models.PositiveIntegerField(default=0, db_default=0)
    # When staff retired it (`manage.py retire`): its board is frozen from then on, and its held-out
    # inputs and answers and its entries' modules are published (docs/retiring.md). None: current.
    retired_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CaseVersionQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["case", "version"], name="unique_case_version")]
        ordering = ["case__slug", "-ordinal"]
        indexes = [
            # The case list: the latest versions, by name, optionally of one difficulty. Partial
            # indexes: SQLite reads `WHERE latest_public` (how Django writes a true flag) through
            # them, where it would not use an index led by the flag.
            models.Index(fields=["name", "id"], name="list_public", condition=models.Q(latest_public=True)),
            models.Index(fields=["name", "id"], name="list_any", condition=models.Q(latest_any=True)),
            models.Index(fields=["difficulty", "name", "id"], name="list_public_difficulty",
                         condition=models.Q(latest_public=True)),
            models.Index(fields=["difficulty", "name", "id"], name="list_any_difficulty",
                         condition=models.Q(latest_any=True)),
        ]
        permissions = [("import_caseversion", "Can import case versions (archive upload, catalog re-scan)"),
                       ("retire_caseversion", "Can retire case versions (publishes their held-out inputs)")]

    def __str__(self) -> str:
        return f"{self.case.slug} {self.version}"

    @property
    def max_runtime_seconds(self) -> float:
        return float(Decimal(self.max_runtime_hours) * 3600)

    def default_variant(self) -> "Variant":
        return self.variants.order_by("position").first()

    def file_bytes(self, path: str) -> bytes:
        """A (non-held-out) file of this version as imported, e.g. a contract schema."""
        return bytes(self.files.get(path=path).content)

    def spec_files(self) -> tuple[manifest_rules.SpecFile, ...]:
        return tuple(manifest_rules.SpecFile(**spec) for spec in self.specs)


class UnknownTarget(DomainError):
    """A slug, version or variant that names nothing imported."""


def resolve_target(slug: str, version: str | None = None, variant: str | None = None) -> tuple[CaseVersion, "Variant"]:
    """The case version (latest unless named) and variant (default unless named).

    For operators' commands: experimental versions count too.
    """
    if not manifest_rules.SLUG_PATTERN.fullmatch(slug):
        raise UnknownTarget("unknown_case", f"`{slug}` is not a case slug")
    versions = list(CaseVersion.objects.filter(case__slug=slug).select_related("case"))
    if not versions:
        raise UnknownTarget("unknown_case", f"no case with slug `{slug}` has been imported")
    if version is None:
        target = max(versions, key=lambda row: row.ordinal)
    else:
        target = next((row for row in versions if row.version == version), None)
        if target is None:
            known = ", ".join(row.version for row in sorted(versions, key=lambda row: row.ordinal))
            raise UnknownTarget("unknown_version", f"case `{slug}` has no version `{version}` (it has: {known})")
    variants = list(target.variants.all())
    if variant is None:
        return target, variants[0]
    chosen = next((row for row in variants if row.slug == variant), None)
    if chosen is None:
        known = ", ".join(row.slug for row in variants)
        raise UnknownTarget("unknown_variant", f"{slug} {target.version} has no variant `{variant}` (it has: {known})")
    return target, chosen


class Variant(models.Model):
    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="variants")
    position = models.PositiveIntegerField()  # manifest order; 0 is the default
    slug = models.SlugField(max_length=100)
    name = models.CharField(max_length=200)
    file = models.CharField(max_length=300, blank=True)  # blank for the implicit `base`
    specs = models.JSONField(default=list)  # the additive specs
    # What its `.hbs` prompt and specs are rendered with: the very context the validator
    # rendered them with at import (catalog.manifest.context).
    template_context = models.JSONField(default=dict)

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "slug"], name="unique_variant_slug"),
            models.UniqueConstraint(fields=["version", "position"], name="unique_variant_position"),
        ]

    def __str__(self) -> str:
        return f"{self.version} / {self.slug}"

    @property
    def is_default(self) -> bool:
        return self.position == 0

    def spec_files(self) -> tuple[manifest_rules.SpecFile, ...]:
        return tuple(manifest_rules.SpecFile(**spec) for spec in self.specs)

    def rendered_prompt(self) -> bytes:
        """The prompt a run of this variant is handed (PROMPT.md), as Handlebars renders it."""
        template = bytes(self.version.files.get(path=self.version.prompt_path).content)
        return render_template(template, self.template_context).encode("utf-8")


class HeldOutInput(models.Model):
    """One [[case]] of a version, with its input and expected answer as stored at import.

    Scoring reads these bytes, not the catalog folder. They are never served (docs/writing-cases.md).
    """

    Kind = manifest_rules.Kind

    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="held_out_inputs")
    position = models.PositiveIntegerField()  # manifest order
    kind = models.CharField(max_length=10, choices=Kind.choices())
    input_path = models.CharField(max_length=300)
    expected_path = models.CharField(max_length=300)
    fuel_runway = models.CharField(max_length=50)  # the manifest's decimal literal
    ceiling = models.BigIntegerField()  # floor(fuel_limit × fuel_runway)
    input_bytes = models.BinaryField()
    expected_bytes = models.BinaryField()
    input_size = models.PositiveBigIntegerField()
    expected_size = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["version", "position"]
        constraints = [models.UniqueConstraint(fields=["version", "position"], name="unique_input_position")]

    def __str__(self) -> str:
        return f"{self.version} {self.kind} {self.input_path}"


class VersionFile(models.Model):
    """Every other file of a version folder, so a run root can be seeded from the database."""

    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=500)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["version", "path"]
        constraints = [models.UniqueConstraint(fields=["version", "path"], name="unique_version_file")]

    def __str__(self) -> str:
        return f"{self.version} {self.path}"


class Kit(models.Model):
    """A variant's take-part zip (catalog/kits.py), built once and kept so every download is the same bytes."""

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="kits")
    source_digest = models.CharField(max_length=64)  # what it was built from: version, variant, README, meter
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()
    digest = models.CharField(max_length=64)  # SHA-256 of `content`: the download's ETag
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["variant", "source_digest"], name="one_kit_per_source")]

    def __str__(self) -> str:
        return f"kit of {self.variant} ({self.digest[:12]})"
