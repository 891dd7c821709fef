from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError

from lib.commands import SiteCommand
from scoring.epochs.candidates import requeue_stale_measurements
from scoring.jobs import requeue_stale


class Command(SiteCommand):
    help = (
        "Requeue scoring jobs whose worker stopped responding (its heartbeat is older than "
        "--stale-after seconds); after SCORING_MAX_ATTEMPTS attempts the submission is marked failed. "
        "A candidate epoch's measurements whose host stopped responding are queued again too. "
        "An entry that cannot be handled is reported and the others are handled still (exit status 1)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--stale-after", type=float, default=None,
                            help=f"seconds without a heartbeat (default: SCORING_STALE_SECONDS, "
                                 f"{settings.SCORING_STALE_SECONDS:g})")

    def handle(self, *args, **options):
        handled = requeue_stale(options["stale_after"])
        errors = 0
        for submission, action in handled:
            line = f"{action:<9} submission #{submission.pk} ({submission.name}), attempt {submission.attempt}"
            if action == "error":
                errors += 1
                self.stderr.write(f"{line}: could not be requeued (see the log); the others were handled")
            else:
                self.stdout.write(line)
        measurements = requeue_stale_measurements(options["stale_after"])
        for measurement in measurements:
            self.stdout.write(f"requeued  measurement of submission #{measurement.submission_id} "
                              f"({measurement.submission.name}) under the candidate epoch")
        self.stdout.write(f"{len(handled) - errors + len(measurements)} stale job(s)")
        if errors:
            raise CommandError(f"{errors} stale job(s) could not be requeued")
