from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from catalog.importer import file_limits
from catalog.manifest import scan_catalog


class Command(BaseCommand):
    help = ("Check every manifest of a catalog tree against the catalog rules. Writes nothing. Errors "
            "make it exit 1; warnings (names a template uses that the site's context lacks) do not, "
            "unless --strict.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="catalog root (default: settings.CATALOG_DIR)")
        parser.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def handle(self, *args, **options):
        root = Path(options["path"] or settings.CATALOG_DIR)
        scan = scan_catalog(root, limits=file_limits())
        for error in scan.errors:
            self.stdout.write(str(error))
        for warning in scan.warnings:
            self.stdout.write(f"warning: {warning}")
        cases = {source.manifest.slug for source in scan.versions}
        failed = bool(scan.errors) or (options["strict"] and bool(scan.warnings))
        if failed:
            bad = len(set(scan.labels) - {source.label for source in scan.versions})
            counts = f"{len(scan.errors)} error(s)" + (f", {len(scan.warnings)} warning(s)" if scan.warnings else "")
            extra = " (--strict: warnings count as errors)" if options["strict"] and scan.warnings else ""
            self.stderr.write(f"{counts}{extra}; {bad} of {len(scan.labels)} version folder(s) invalid")
            raise SystemExit(1)
        suffix = f", {len(scan.warnings)} warning(s)" if scan.warnings else ""
        self.stdout.write(f"OK: {len(scan.versions)} version(s) of {len(cases)} case(s) in {root}{suffix}")
