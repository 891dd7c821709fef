"""`manage.py export_harbor DIR [--case SLUG]… [--difficulty D] [--tag T] [--since YYYY-MM-DD]
[--solutions DIR]`: the catalog as Harbor tasks (scoring/harbor/, docs/harbor.md)."""

from __future__ import annotations

import argparse
from datetime import date, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from catalog.manifest import DIFFICULTIES
from lib.commands import SiteCommand
from scoring.harbor.exporting import ExportRefused, chosen_versions, export_harbor


def day(value: str) -> date:
    """`--since`'s value: a date as YYYY-MM-DD."""
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date as YYYY-MM-DD") from None


class Command(SiteCommand):
    help = ("Write one Harbor task folder per shown case's latest version and variant into DIR, named "
            "<slug>-<version>-<variant>: task.toml, instruction.md, environment/ (a Dockerfile with the site's "
            "compiler and the run root), solution/ (the author's reference solution) and tests/ (the samples "
            "checked with the kit's fuel meter, or the entry scored on a site). Written beside DIR and moved into "
            "place whole.")

    def add_arguments(self, parser):
        parser.add_argument("dir", help="the folder to write: it must not exist, or be empty")
        parser.add_argument("--case", action="append", default=[], metavar="SLUG",
                            help="only this case (repeatable; default: every shown case)")
        parser.add_argument("--difficulty", choices=DIFFICULTIES, help="only the cases of this difficulty")
        parser.add_argument("--tag", metavar="T", help="only the cases with this tag")
        parser.add_argument("--since", type=day, metavar="YYYY-MM-DD",
                            help="only the cases first published on or after this day")
        parser.add_argument("--solutions", metavar="DIR",
                            help="where the cases' solutions are (default: solutions/ beside the catalog)")

    def handle(self, *args, **options):
        solutions = Path(options["solutions"] or Path(settings.CATALOG_DIR).parent / "solutions").resolve()
        try:
            versions = chosen_versions(options["case"], options["difficulty"] or "", options["tag"] or "",
                                       options["since"])
            done = export_harbor(Path(options["dir"]), versions, solutions)
        except ExportRefused as refused:
            raise CommandError(refused.message) from None
        for task in done.tasks:
            self.stdout.write(f"{task.name}: " + (f"solution/ holds {task.reference}" if task.reference else
                                                 "no reference solution, so no solution/"))
        self.stdout.write(f"exported {len(done.tasks)} task(s) to {done.folder}")
