from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import CommandError

from catalog.models import UnknownTarget, resolve_target
from engine.progress import StreamProgress
from lib.commands import SiteCommand
from scoring.carry import CarryRefused, carry_forward, describe, previous_version, score_carried


class Command(SiteCommand):
    help = ("Score the best entries of a case's earlier version against a newer one, as carried entries. "
            "Entries already there (carried before, or sent by their operator) are left as they are.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--to", required=True, dest="target", help="the version to carry entries to")
        parser.add_argument("--from", dest="source", help="the version to carry from (default: the one before --to)")
        parser.add_argument("--top", type=int, help=f"how many submitters' best entries (default: "
                                                    f"CARRY_FORWARD_TOP, now {settings.CARRY_FORWARD_TOP})")
        parser.add_argument("--enqueue", action="store_true",
                            help="queue scoring jobs even with TASKS_BACKEND=immediate (default: score here "
                                 "with the immediate backend, queue for workers with the database one)")
        parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    def handle(self, *args, **options):
        top = options["top"]
        if top is not None and top < 0:
            raise CommandError("--top must be 0 or more")
        try:
            target, _ = resolve_target(options["slug"], options["target"])
            source = resolve_target(options["slug"],
                                    options["source"])[0] if options["source"] else previous_version(target)
            if source is None:
                raise CommandError(f"{target.case.slug} {target.version} is the first version: there is nothing to "
                                   f"carry "
                                   "forward (name another with --from)")
            carried = carry_forward(target, source=source, top=top)
        except (UnknownTarget, CarryRefused) as error:
            raise CommandError(error.message) from None
        as_document = options["json"]
        # With --json, stdout carries only the document; progress goes to stderr.
        out = self.stderr if as_document else self.stdout
        fresh = [item for item in carried if not item.skipped]
        entries = "entry" if len(carried) == 1 else "entries"
        out.write(f"{target.case.slug} {source.version} → {target.version}: {len(carried)} {entries}, "
                  f"{len(fresh)} new, {len(carried) - len(fresh)} already there")

        def progress(submission):
            out.write(f"#{submission.pk} {submission.name} (from #{submission.carried_from_id}, variant "
                      f"{submission.variant.slug})")
            return StreamProgress(out, submission.input_count)

        score_carried(carried, progress=progress, inline=False if options["enqueue"] else None,
                      done=lambda item: out.write(f"  → {item.source.name}: {describe(item.submission)}"))
        if as_document:
            self.stdout.write(json.dumps({
                "case": target.case.slug, "from": source.version, "to": target.version,
                "carried": [item.as_json() for item in carried],
            }))
