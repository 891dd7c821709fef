from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def ready(self) -> None:
        # deferred: the app registry is ready only now
        from catalog import receivers  # noqa: F401  (connects the app's receivers)
