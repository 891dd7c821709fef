from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import CommandError
from django.db import transaction

from catalog.models import UnknownTarget
from catalog.runrecords import RunRecordError, parse_meta, target_and_run
from engine.builds import SandboxUnavailable
from engine.progress import StreamProgress
from engine.progress import fuel_text as _fuel
from lib.commands import BUILD_CHECKS, CaseVersionCommand
from scoring.attempts import score
from scoring.documents import submission_json
from scoring.jobs import enqueue_scoring
from scoring.recording import ScoringError, submit


class Command(CaseVersionCommand):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = "Build and score a submission against a case version's held-out inputs."

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="the case (default: the run record's)")
        self.add_version_arguments(parser)
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--submission", help="a submission folder, built with the case's [build] commands")
        source.add_argument("--wasm", help="a ready wasm module")
        parser.add_argument("--name", required=True, help="who submitted it (leaderboards rank by name)")
        parser.add_argument("--run-record", metavar="FILE",
                            help="the run record seed_run --record wrote: the case, version and variant to score "
                                 "against, and the run's provenance")
        parser.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                            help="a provenance field (model, harness, started_at, finished_at, url, notes, or a "
                                 "short extra one); repeatable, over the run record's")
        parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
        parser.add_argument("--enqueue", action="store_true",
                            help="queue a scoring job instead of scoring here (see TASKS_BACKEND)")

    def handle(self, *args, **options):
        try:
            version, variant, run = target_and_run(options["slug"], options["case_version"], options["variant"],
                                                   options["run_record"], parse_meta(options["meta"]))
            submission = submit(
                version, variant, options["name"],
                folder=Path(options["submission"]) if options["submission"] else None,
                wasm_file=Path(options["wasm"]) if options["wasm"] else None, run=run,
            )
        except (UnknownTarget, ScoringError, RunRecordError) as error:
            raise CommandError(error.message) from None

        as_document = options["json"]
        if options["enqueue"]:
            with transaction.atomic():
                enqueue_scoring(submission)
            submission.refresh_from_db()
            if as_document:
                self.stdout.write(json.dumps(submission_json(submission)))
            else:
                job = submission.job_id or "—"
                self.stdout.write(f"submission #{submission.pk}: {submission.job_state} (job {job})")
            return
        # With --json, stdout carries only the document; progress goes to stderr.
        progress = StreamProgress(self.stderr if as_document else self.stdout, submission.input_count)
        progress.line(
            f"submission #{submission.pk}: {submission.name} on {version.case.slug} {version.version} "
            f"(variant {variant.slug}), wasmtime {submission.wasmtime_version}"
        )
        try:
            submission = score(submission, progress=progress)
        except SandboxUnavailable as error:
            raise CommandError(
                f"submission #{submission.pk} was recorded but not built: {error}. "
                "It waits (pending, no attempt spent): `manage.py requeue_stale_jobs` scores it again once builds "
                "can run."
            ) from None

        if as_document:
            self.stdout.write(json.dumps(submission_json(submission)))
            return
        self.print_summary(submission)

    def print_summary(self, submission) -> None:
        write = self.stdout.write
        # The operator sees everything, `detail` included (the public pages show `message` only).
        if submission.status == "build_failed":
            write(submission.build_log.rstrip())
            write(f"\nbuild failed: {submission.message}")
            return
        if submission.status == "invalid_module":
            write(f"invalid module: {submission.message}")
            if submission.detail:
                write(f"  ({submission.detail})")
            return
        results = list(submission.results.order_by("position"))
        width = max([len(result.input_path) for result in results] + [5])
        write("")
        write(f"{'kind':<6}  {'input':<{width}}  {'status':<15}  {'fuel':>16}  {'fuel limit':>16}  {'overshoot':>14}  "
              f"{'wall ms':>9}")
        for result in results:
            write(
                f"{result.kind:<6}  {result.input_path:<{width}}  {result.status:<15}  {_fuel(result.fuel):>16}  "
                f"{result.fuel_limit:>16,}  {result.overshoot:>14,}  {result.wall_ms:>9.1f}"
            )
            if result.message and result.status not in ("passed",):
                write(f"{'':<6}  {'':<{width}}  ↳ {result.detail or result.message}")
        write(f"\nsubmission #{submission.pk}: {submission.verdict.text}; total fuel {_fuel(submission.total_fuel)}"
              + (f", overshoot {submission.overshoot:,}" if submission.overshoot else ""))
