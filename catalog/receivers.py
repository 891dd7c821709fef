"""What the catalog does when a version is deleted by any path (the ORM, a cascade): its case's
latest version may change, and cached pages that listed it must go. Imported once the app
registry is ready (catalog/apps.py)."""

from __future__ import annotations

from django.db.models.signals import post_delete
from django.dispatch import receiver

from catalog.importer import renumber_versions
from catalog.models import Case, CaseVersion, Tag
from sitecache.models import CATALOG, Generation


@receiver(post_delete, sender=CaseVersion, dispatch_uid="caseversion-deleted")
def _version_deleted(instance, **kwargs) -> None:
    case = Case.objects.filter(pk=instance.case_id).first()
    if case is not None:
        renumber_versions(case)
    Tag.recount(Tag.objects.values_list("pk", flat=True))  # its own tags are no longer linked to it
    Generation.bump(CATALOG)
