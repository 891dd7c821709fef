from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from catalog.models import CaseVersion, ContentGeneration
        from lib.pagecache import use_generation

        use_generation(ContentGeneration.current)
        # A version deleted by any path (the ORM, a cascade) leaves cached pages behind otherwise.
        post_delete.connect(lambda **kwargs: ContentGeneration.bump(), sender=CaseVersion, weak=False,
                            dispatch_uid="caseversion-deleted")
