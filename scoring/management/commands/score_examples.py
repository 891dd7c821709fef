from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from engine.builds import SandboxUnavailable
from lib.commands import BUILD_CHECKS, SiteCommand
from scoring.examples import ExampleRun, score_examples


class Command(SiteCommand):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = ("Score every example not scored yet: the source folders under solutions/<slug>/accepted/<name>/ and "
            "solutions/<slug>/over_limit/<name>/, as example-<name>, against every imported version of the case.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="the solutions folder (default: solutions/)")

    def handle(self, *args, **options):
        root = Path(options["path"] or settings.BASE_DIR / "solutions")

        def report(run: ExampleRun) -> None:
            label = f"{run.slug} {run.version} {run.name}"
            if run.skipped:
                self.stdout.write(f"already scored  {label}")
                return
            submission = run.submission
            figure = submission.message
            if submission.total_fuel is not None:
                figure = f"total fuel {submission.total_fuel:,}"
            self.stdout.write(f"scored          {label}: {submission.verdict.text}, {figure} (#{submission.pk})")

        try:
            runs = score_examples(root, on_result=report)
        except SandboxUnavailable as error:
            raise CommandError(f"examples cannot be built here: {error}") from None
        scored = [run for run in runs if not run.skipped]
        self.stdout.write(f"{len(scored)} scored, {len(runs) - len(scored)} already scored")
