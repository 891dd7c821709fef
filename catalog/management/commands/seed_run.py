from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from catalog.models import UnknownTarget, resolve_target
from catalog.seeding import SeedError, seed_run
from lib.commands import CaseVersionCommand
from lib.templates import TemplateError


class Command(CaseVersionCommand):
    help = "Lay out a run root for a case version and variant: workspace, specs, schemas, prompt."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("dest", help="the run root to create (must not exist, or be empty)")
        self.add_version_arguments(parser)
        parser.add_argument("--record", metavar="FILE",
                            help="also write a run record (JSON) for `score --run-record` to FILE")

    def handle(self, *args, **options):
        try:
            version, variant = resolve_target(options["slug"], options["case_version"], options["variant"])
            record = Path(options["record"]) if options["record"] else None
            seeded = seed_run(version, variant, Path(options["dest"]), record=record)
        except (UnknownTarget, SeedError, TemplateError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"seeded {seeded.root} for {version.case.slug} {version.version} (variant {variant.slug}): "
            f"{len(seeded.files)} file(s), prompt in PROMPT.md"
            + (f", run record in {record}" if record else "")
        )
