from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from catalog.models import CaseVersion

        post_delete.connect(_version_deleted, sender=CaseVersion, weak=False, dispatch_uid="caseversion-deleted")


def _version_deleted(instance, **kwargs) -> None:
    """A version deleted by any path (the ORM, a cascade): its case's latest version may change,
    and cached pages that listed it must go."""
    from catalog.importer import renumber_versions
    from catalog.models import Case, Tag
    from sitecache.models import CATALOG, Generation

    case = Case.objects.filter(pk=instance.case_id).first()
    if case is not None:
        renumber_versions(case)
    Tag.recount(Tag.objects.values_list("pk", flat=True))  # its own tags are no longer linked to it
    Generation.bump(CATALOG)
