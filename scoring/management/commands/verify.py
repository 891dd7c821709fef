from __future__ import annotations

import json

from django.core.management.base import CommandError

from catalog.models import CaseVersion, UnknownTarget, resolve_target
from engine.progress import StreamProgress
from lib.commands import BUILD_CHECKS, CaseVersionCommand
from scoring.models import Submission, Verification
from scoring.verification import best_entries, request, run_verification


class Command(CaseVersionCommand):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = ("Measure stored entries again from their stored source (or module), on this machine or on "
            "whichever worker takes the job, and record whether every input's status, fuel and answer came "
            "out the same. The entries' results are never changed. Default: the 3 best entries of every "
            "case's latest version. Exits 1 when an entry measured here was not reproduced.")

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="only this case (default: every case)")
        self.add_version_arguments(parser, variant=False)
        parser.add_argument("--top", type=int, default=3, help="how many of each board's best entries (default: 3)")
        parser.add_argument("--submission", type=int, action="append", default=[], metavar="ID",
                            help="this entry (repeat for more) instead of the boards' best")
        parser.add_argument("--enqueue", action="store_true",
                            help="queue the re-measurements for the task queue's workers instead of measuring here")
        parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    def handle(self, *args, **options):
        if options["top"] < 1:
            raise CommandError("--top must be 1 or more")
        chosen = self.chosen(options)
        as_document = options["json"]
        out = self.stderr if as_document else self.stdout  # with --json, stdout carries only the document
        if not chosen:
            out.write("no entries to measure again")
        verifications = request(chosen, enqueue=options["enqueue"])
        if options["enqueue"]:
            out.write(f"queued {len(verifications)} re-measurement(s)")
        else:
            for index, verification in enumerate(verifications, 1):
                submission = verification.submission
                out.write(f"[{index}/{len(verifications)}] #{submission.pk} {submission.name} on "
                          f"{submission.version.case.slug} {submission.version.version}")
                verification = run_verification(verification.pk, StreamProgress(out, submission.input_count))
                verifications[index - 1] = verification
                out.write(f"  → {verification.message}")
        if as_document:
            self.stdout.write(json.dumps({"verifications": [
                {"verification": item.pk, "submission": item.submission_id, "outcome": item.outcome,
                 "message": item.message, "module_identical": item.module_identical} for item in verifications]}))
        different = [item for item in verifications
                     if item.outcome not in (Verification.Outcome.PENDING, Verification.Outcome.IDENTICAL)]
        if different:
            raise CommandError(f"{len(different)} of {len(verifications)} entries were not reproduced: "
                               + ", ".join(f"#{item.submission_id}" for item in different), returncode=1)

    def chosen(self, options) -> list[int]:
        if options["submission"]:
            found = dict(Submission.objects.filter(pk__in=options["submission"]).values_list("pk", "status"))
            missing = [str(pk) for pk in options["submission"] if pk not in found]
            if missing:
                raise CommandError(f"no submission {', '.join('#' + pk for pk in missing)}")
            unfinished = [f"#{pk}" for pk, status in found.items() if status not in Submission.FINAL_STATES]
            if unfinished:
                raise CommandError(f"{', '.join(unfinished)} not scored yet: there is nothing to measure again")
            return list(dict.fromkeys(options["submission"]))
        if options["slug"]:
            try:
                versions = [resolve_target(options["slug"], options["case_version"])[0]]
            except UnknownTarget as error:
                raise CommandError(error.message) from None
        elif options["case_version"]:
            raise CommandError("--version needs a case slug")
        else:
            versions = list(CaseVersion.objects.latest_shown().order_by("case__slug"))
        return best_entries(versions, options["top"])
