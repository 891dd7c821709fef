from __future__ import annotations

import json

from django.core.management.base import CommandError
from django.core.serializers.json import DjangoJSONEncoder

from catalog.models import UnknownTarget, resolve_target
from lib.commands import CaseVersionCommand
from scoring.boards.reading import Leaderboard
from scoring.documents import board_rows
from scoring.models import Submission


class Command(CaseVersionCommand):
    help = "Print a case version's leaderboard: ranked submissions first, then the unranked."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        self.add_version_arguments(parser, variant=False)
        parser.add_argument("--variant", help="only submissions made for this variant (default: all)")
        parser.add_argument("--all", action="store_true", help="every submission, not each submitter's best")
        parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    def handle(self, *args, **options):
        try:
            version, variant = resolve_target(options["slug"], options["case_version"], options["variant"])
        except UnknownTarget as error:
            raise CommandError(error.message) from None
        entries = Leaderboard(
            version, variant=variant if options["variant"] else None, include_all=options["all"]
        )
        if options["json"]:
            # The API's leaderboard document, every entry at once (its rows under "entries").
            document = {"case": version.case.slug, "version": version.version,
                        "variant": variant.slug if options["variant"] else None, "all": options["all"],
                        "reference_fuel": version.reference_fuel, "entries": board_rows(entries, version)}
            self.stdout.write(json.dumps(document, cls=DjangoJSONEncoder))
            return
        self.stdout.write(f"{version.case.slug} {version.version}: {len(entries)} "
                          f"{'entry' if len(entries) == 1 else 'entries'}")
        self.stdout.write(f"{'rank':>4}  {'name':<24} {'#':>6}  {'total fuel':>16}  {'overshoot':>14}  result")
        for entry in entries:
            rank = str(entry.rank) if entry.rank else "—"
            total = f"{entry.total_fuel:,}" if entry.total_fuel is not None else "—"
            if entry.passed:
                result = "passed"
            elif entry.status != Submission.State.SCORED:
                result = entry.status
            else:
                result = f"{entry.passed_count}/{entry.input_count} inputs passed"
            self.stdout.write(f"{rank:>4}  {entry.name:<24} {entry.submission:>6}  {total:>16}  {entry.overshoot:>14,} "
                              f" {result}")
