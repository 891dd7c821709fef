"""`manage.py export_dataset DIR [--at YYYY-MM-DDTHH:MM:SSZ]`: the site's public data as a dataset
(docs/dataset.md)."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from pathlib import Path

from django.core.management.base import CommandError
from django.utils import timezone as django_timezone

from lib.commands import SiteCommand
from scoring.dataset.exporting import ExportRefused, export_dataset

AT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def export_time(value: str) -> datetime:
    """`--at`'s value: a UTC time to the second, as 2026-12-05T03:00:00Z."""
    try:
        return datetime.strptime(value, AT_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a UTC time as YYYY-MM-DDTHH:MM:SSZ") from None


class Command(SiteCommand):
    help = ("Write the site's public data into DIR as a dataset: a Parquet file per table (cases, entries, results, "
            "agents, agent_cells), a dataset card (README.md) and Croissant metadata (croissant.json). Written "
            "beside DIR and moved into place whole.")

    def add_arguments(self, parser):
        parser.add_argument("dir", help="the folder to write: it must not exist, or be empty")
        parser.add_argument("--at", type=export_time, metavar="YYYY-MM-DDTHH:MM:SSZ",
                            help="the export's time, as its card and Croissant file give it (default: now)")

    def handle(self, *args, **options):
        exported_at = options["at"] or django_timezone.now().replace(microsecond=0)
        try:
            done = export_dataset(Path(options["dir"]), exported_at=exported_at, progress=self.stdout.write)
        except ExportRefused as refused:
            raise CommandError(refused.message) from None
        entries = next(item.rows for item in done.tables if item.table.name == "entries")
        self.stdout.write(f"exported {len(done.tables)} tables ({entries:,} entries) to {done.folder} at "
                          f"{done.about.when}")
