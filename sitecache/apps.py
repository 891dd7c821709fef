from django.apps import AppConfig


class SiteCacheConfig(AppConfig):
    name = "sitecache"
    verbose_name = "Page cache"
