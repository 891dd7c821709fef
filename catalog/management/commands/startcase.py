"""`manage.py startcase SLUG --difficulty D [--catalog DIR] [--solutions DIR] [--name NAME]`."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from catalog.manifest import DIFFICULTIES
from catalog.starting import StartRefused, start_case
from lib.commands import SiteCommand


class Command(SiteCommand):
    help = ("Start a new case: its v1 (a manifest with every required key, description, changelog, prompt, rules, "
            "schemas, a seeded generator that writes the inputs and their answers, a starter workspace with the "
            "ABI) and an accepted reference solution under the solutions folder. It validates and passes "
            "check_case as it is: make it the problem you mean from there. Refuses a slug or folder in use.")

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the case's slug: lowercase letters, digits, hyphens")
        parser.add_argument("--difficulty", required=True, choices=DIFFICULTIES)
        parser.add_argument("--catalog", help="the catalog (default: settings.CATALOG_DIR)")
        parser.add_argument("--solutions", help="where solutions go (default: solutions/ beside the catalog)")
        parser.add_argument("--name", help="its display name (default: from the slug)")

    def handle(self, *args, **options):
        catalog = Path(options["catalog"] or settings.CATALOG_DIR).resolve()
        solutions = Path(options["solutions"]).resolve() if options["solutions"] else catalog.parent / "solutions"
        try:
            started = start_case(options["slug"], options["difficulty"], catalog, solutions, options["name"])
        except StartRefused as refused:
            raise CommandError(refused.message) from None
        self.stdout.write(f"wrote {started.version_folder}/ (the case's v1) and {started.reference}/ (its reference "
                          "solution)")
        self.stdout.write(f"next: .venv/bin/python manage.py check_case {started.version_folder}")
