from __future__ import annotations

from pathlib import Path

from django.conf import settings

from catalog.importer import IMPORTED, REFUSED, UNCHANGED, import_catalog
from lib.commands import SiteCommand


class Command(SiteCommand):
    help = (
        "Validate a catalog tree and import its new versions, one transaction per version. "
        "Unchanged versions are skipped; changed published versions are refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="catalog root (default: settings.CATALOG_DIR)")
        parser.add_argument("--dry-run", action="store_true", help="report what would happen; write nothing")

    def handle(self, *args, **options):
        root = Path(options["path"] or settings.CATALOG_DIR)
        dry_run = options["dry_run"]
        outcome = import_catalog(
            root, dry_run=dry_run, progress=lambda result: self.stdout.write(result.line(dry_run)),
            report=self.stdout.write,
        )
        for error in outcome.other_errors:
            self.stdout.write(f"error        {error}")
        verb = "would import" if dry_run else "imported"
        summary = (
            f"{outcome.count(IMPORTED)} {verb}, {outcome.count(UNCHANGED)} unchanged, "
            f"{outcome.count(REFUSED)} refused"
        )
        if outcome.other_errors:
            summary += f", {len(outcome.other_errors)} other error(s)"
        if not outcome.ok:
            self.stderr.write(summary)
            raise SystemExit(1)
        self.stdout.write(summary)
