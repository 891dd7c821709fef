from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # deferred: the app registry is ready only now
        from django.core import checks

        from lib.commands import BUILD_CHECKS
        from scoring import receivers  # noqa: F401  (connects the app's receivers)
        from scoring.checks import build_cgroups

        checks.register(build_cgroups, *BUILD_CHECKS)

        # deferred: the app registry is ready only now (the epochs read models)
        from scoring.epochs import site_engine
        from sitecache.pages import KEY_PARTS

        KEY_PARTS.append(lambda: "\0".join(site_engine()))
