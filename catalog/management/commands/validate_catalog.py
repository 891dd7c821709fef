from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from catalog.importer import file_limits
from catalog.manifest import scan_catalog


class Command(BaseCommand):
    help = "Check every manifest of a catalog tree against the catalog rules. Writes nothing."

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="catalog root (default: settings.CATALOG_DIR)")

    def handle(self, *args, **options):
        root = Path(options["path"] or settings.CATALOG_DIR)
        scan = scan_catalog(root, limits=file_limits())
        for error in scan.errors:
            self.stdout.write(str(error))
        cases = {source.manifest.slug for source in scan.versions}
        if scan.errors:
            bad = len(set(scan.labels) - {source.label for source in scan.versions})
            self.stderr.write(
                f"{len(scan.errors)} error(s); {bad} of {len(scan.labels)} version folder(s) invalid"
            )
            raise SystemExit(1)
        self.stdout.write(f"OK: {len(scan.versions)} version(s) of {len(cases)} case(s) in {root}")
