"""What the pages and the API read of the catalog: the filtered case list, a shown version and
its variant by name, and the cache generations a version's pages depend on.

Both the web layer and the API read through these (neither imports the other), so a filter or
a 404 means the same in both.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.db.models import Exists, OuterRef, QuerySet

from catalog.manifest import SLUG_PATTERN, VERSION_PATTERN
from catalog.models import CaseVersion, Tag, UnknownTarget, Variant
from sitecache.models import CATALOG, version_generation
from sitecache.pages import CountedByGeneration


def listed_cases(q: str = "", tag: str = "", difficulty: str = "") -> QuerySet[CaseVersion]:
    """The latest shown version of every case, by name, narrowed by a search, a tag and a difficulty."""
    versions = CaseVersion.objects.latest_shown().select_related("case")
    if q:
        versions = versions.filter(name__icontains=q)
    if tag:
        # EXISTS, not a join: the list's index keeps the order, and a page stops early.
        tagged = CaseVersion.tags.through.objects.filter(caseversion=OuterRef("pk"), tag__name=tag)
        versions = versions.filter(Exists(tagged))
    if difficulty:
        versions = versions.filter(difficulty=difficulty)
    # Ties by the version's id: (latest flag, name, id) is one index, so a page needs no sort.
    return versions.order_by("name", "pk")


def counted_cases(filters: dict[str, str]) -> CountedByGeneration:
    """`listed_cases(**filters)`, its count remembered until the catalog changes."""
    identity = urlencode(sorted((name, value) for name, value in filters.items() if value))
    return CountedByGeneration(listed_cases(**filters), generation=CATALOG, identity=identity)


def varied_at_will(filters: dict[str, str], shown_tags: list[str] | None = None) -> bool:
    """Whether a list filtered so is one a client may vary at will (a search, or a tag no shown
    case carries): its page is rendered, and not stored in the page cache."""
    tag = filters.get("tag")
    if tag and shown_tags is None:
        return not Tag.objects.shown().filter(name=tag).exists()
    return bool(filters.get("q")) or bool(tag) and tag not in shown_tags


def shown_version(slug: str, version: str | None = None) -> CaseVersion:
    """A shown version of the case (the latest when unnamed). Raises UnknownTarget."""
    found = CaseVersion.objects.public_version(slug, version)
    if found is None:
        raise UnknownTarget("unknown_version", "No such case version")
    return found


def shown_board(slug: str, version: str | None, variant: str | None) -> tuple[CaseVersion, Variant | None]:
    """A shown version (the latest when unnamed) and one of its variants (None: all of them).
    Raises UnknownTarget."""
    found = shown_version(slug, version)
    chosen = None
    if variant:
        chosen = found.variants.filter(slug=variant).first() if SLUG_PATTERN.fullmatch(variant) else None
        if chosen is None:
            raise UnknownTarget("unknown_variant", "No such variant")
    return found, chosen


def version_generations(slug: str, version: str | None) -> list[str]:
    """What a version's pages show: the catalog, and that version's results (None: the latest)."""
    if not SLUG_PATTERN.fullmatch(slug) or (version is not None and not VERSION_PATTERN.fullmatch(version)):
        return [CATALOG]  # names no version could have (a NUL byte…): a 404, never sent to the database
    return [CATALOG, version_generation(slug, version)]
