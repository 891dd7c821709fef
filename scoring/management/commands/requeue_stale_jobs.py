from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from scoring.jobs import requeue_stale


class Command(BaseCommand):
    help = (
        "Requeue scoring jobs whose worker stopped responding (its heartbeat is older than "
        "--stale-after seconds); after SCORING_MAX_ATTEMPTS attempts the submission is marked failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--stale-after", type=float, default=None,
                            help=f"seconds without a heartbeat (default: SCORING_STALE_SECONDS, {settings.SCORING_STALE_SECONDS:g})")

    def handle(self, *args, **options):
        handled = requeue_stale(options["stale_after"])
        for submission, action in handled:
            self.stdout.write(f"{action:<9} submission #{submission.pk} ({submission.name}), attempt {submission.attempt}")
        self.stdout.write(f"{len(handled)} stale job(s)")
