from __future__ import annotations

from django.core.management.base import CommandError

from catalog.models import UnknownTarget, resolve_target
from lib.commands import CaseVersionCommand
from scoring.boards.rebuilding import rebuild


class Command(CaseVersionCommand):
    help = ("Recompute the leaderboards' standings (each submitter's best entry, counts, best fuel) "
            "from the submissions: of every version, or of one case's versions.")

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="only this case's versions (default: every version)")
        parser.add_argument("--version", dest="case_version", help="only this version of the case")

    def handle(self, *args, **options):
        version_ids = None
        if options["slug"]:
            try:
                version, _ = resolve_target(options["slug"], options["case_version"])
            except UnknownTarget as error:
                raise CommandError(error.message) from None
            version_ids = [version.pk] if options["case_version"] else list(
                version.case.versions.values_list("pk", flat=True))
        elif options["case_version"]:
            raise CommandError("--version needs a case slug")
        written = rebuild(version_ids)
        if options["verbosity"]:
            scope = "every version" if version_ids is None else f"{len(version_ids)} version(s)"
            self.stdout.write(f"rebuilt the standings of {scope}: {written:,} standing row(s)")
