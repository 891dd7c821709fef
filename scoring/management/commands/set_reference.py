"""`manage.py set_reference SUBMISSION [--clear]`: a version's reference entry, which its speedups divide."""

from __future__ import annotations

from django.core.management.base import CommandError

from lib.commands import SiteCommand
from scoring.models import Submission
from scoring.references import ReferenceRefused, clear_reference, set_reference


class Command(SiteCommand):
    help = ("Make the entry SUBMISSION (an id) its version's reference: every speedup on that version is the "
            "reference's total fuel ÷ an entry's (the leaderboard, the standings, the agents matrix). It must be "
            "ranked (every input passed, shown, not excluded); it replaces any other reference of the version. "
            "With --clear, it stops being the reference.")

    def add_arguments(self, parser):
        parser.add_argument("submission", type=int, help="the entry's id (as in /submissions/<id>/)")
        parser.add_argument("--clear", action="store_true", help="it is no longer its version's reference")

    def handle(self, *args, **options):
        submission = Submission.objects.select_related("version__case").filter(pk=options["submission"]).first()
        if submission is None:
            raise CommandError(f"no submission #{options['submission']}")
        version = f"{submission.version.case.slug} {submission.version.version}"
        if options["clear"]:
            if clear_reference(submission):
                self.stdout.write(f"#{submission.pk} {submission.name} is no longer the reference of {version}")
            else:
                self.stdout.write(f"#{submission.pk} was not the reference of {version}: nothing changed")
            return
        try:
            before = set_reference(submission)
        except ReferenceRefused as refused:
            raise CommandError(refused.message) from None
        submission.refresh_from_db()
        self.stdout.write(f"#{submission.pk} {submission.name} ({submission.total_fuel:,} fuel) is the reference of "
                          f"{version}" + (f", in place of #{before.pk} {before.name}" if before else ""))
