"""`manage.py epoch status|prepare|report|switch|drop`: move the site to another engine only once
every entry has been measured under it (scoring/epochs/, docs/epochs.md)."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import CommandError

from engine.progress import ScoringProgress
from lib.commands import SiteCommand
from scoring import epochs
from scoring.models import EpochMeasurement


class Command(SiteCommand):
    help = ("Measurement epochs. `status`: the site's epoch, the candidate's progress and this host's engine. "
            "`prepare` (on a host running the candidate engine): record it as the candidate and queue every entry "
            "not yet measured under it (`--here`: measure them in this process, with progress). `report`: each "
            "entry's figures now and under the candidate, what is flagged, which boards would be reordered. "
            "`switch` (on a host already on the candidate's pins): move the site to it. `drop`: give it up.")

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["status", "prepare", "report", "switch", "drop"])
        parser.add_argument("--here", action="store_true", help="prepare: measure in this process, not on workers")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args, **options):
        try:
            getattr(self, f"_{options['action']}")(options)
        except epochs.EpochError as refused:
            raise CommandError(str(refused)) from None

    def _print(self, options, document: dict, text: str) -> None:
        self.stdout.write(json.dumps(document) if options["json"] else text)

    def _status(self, options) -> None:
        current, candidate = epochs.current_epoch(), epochs.candidate_epoch()
        progress = {}
        if candidate is not None:
            for outcome in EpochMeasurement.Outcome.values:
                progress[outcome] = candidate.measurements.filter(outcome=outcome).count()
        document = {"this_host": {"wasmtime": epochs.THIS_ENGINE[0], "engine_digest": epochs.THIS_ENGINE[1]},
                    "current": epochs.epoch_json(current) if current else None,
                    "candidate": {**epochs.epoch_json(candidate), "measurements": progress} if candidate else None}
        lines = [f"this host: {epochs.label(epochs.THIS_ENGINE)}",
                 f"the site counts with: {current} (since {(current.switched_at or current.prepared_at):%Y-%m-%d})"
                 if current else "the site counts with: no epoch recorded yet"]
        if candidate is not None:
            lines.append(f"candidate: {candidate}: " + ", ".join(f"{count} {name}" for name, count in progress.items()))
            running = list(candidate.measurements.filter(outcome=EpochMeasurement.Outcome.RUNNING)
                           .order_by("claimed_at").values("submission_id", "host", "claimed_at", "heartbeat_at"))
            stale = set(epochs.stale_measurements().values_list("submission_id", flat=True))
            document["candidate"]["running"] = [
                {"submission": row["submission_id"], "host": row["host"], "claimed_at": row["claimed_at"].isoformat(),
                 "heartbeat_at": row["heartbeat_at"].isoformat() if row["heartbeat_at"] else None,
                 "stale": row["submission_id"] in stale} for row in running]
            for row in running:
                lines.append(f"  running: #{row['submission_id']} on {row['host'] or '?'} since "
                             f"{row['claimed_at']:%Y-%m-%d %H:%M:%S}" + (
                                 " — its host stopped responding: `manage.py requeue_stale_jobs` queues it again"
                                 if row["submission_id"] in stale else ""))
        self._print(options, document, "\n".join(lines))

    def _prepare(self, options) -> None:
        if not options["here"] and settings.TASKS_BACKEND != "database":
            raise CommandError(f"TASKS_BACKEND is {settings.TASKS_BACKEND!r}: queued measurements need the database "
                               f"backend, which the candidate's workers read (scripts/worker.sh sets it); or measure "
                               f"in this process with --here")
        candidate, queued = epochs.prepare(enqueue=not options["here"])
        if options["here"]:
            for number, measurement_id in enumerate(queued, 1):
                done = epochs.run_measurement(measurement_id, ScoringProgress())
                if done is None:
                    raise CommandError("the candidate was dropped meanwhile")
                if not options["json"]:
                    self.stdout.write(f"[{number}/{len(queued)}] #{done.submission_id}: {done.outcome}"
                                      + (f" ({done.message})" if done.outcome == "failed" else ""))
        where = "measured here" if options["here"] else f"queued for the candidate's workers (queue `{epochs.QUEUE}`)"
        self._print(options, {"epoch": epochs.epoch_json(candidate), "measurements": len(queued)},
                    f"candidate {candidate}: {len(queued)} entr{'y' if len(queued) == 1 else 'ies'} {where}")

    def _report(self, options) -> None:
        candidate = epochs.candidate_epoch()
        if candidate is None:
            raise CommandError("there is no candidate epoch: prepare one first")
        document = epochs.report(candidate)
        counts = document["counts"]
        lines = [f"candidate {candidate} against {document['current']['wasmtime'] if document['current'] else '?'}: "
                 f"{counts['measured']} of {counts['entries']} entries measured, {counts['flagged']} flagged, "
                 f"{document['boards_changed']} board(s) reordered, {counts['kept_as_before']} kept as counted before"
                 + ("" if document["complete"] else f" — {counts['waiting']} still queued or running")]
        for entry in document["entries"]:
            if entry["flags"]:
                now, then = entry["now"], entry["candidate"] or {}
                lines.append(f"  #{entry['id']} {entry['case']} {entry['version']} {entry['name']}: "
                             f"{', '.join(entry['flags'])} (now {now['status']}, {now['total_fuel']} fuel; candidate "
                             f"{then.get('status', '-')}, {then.get('total_fuel', '-')} fuel)")
        for board in document["boards"]:
            if board["changed"]:
                lines.append(f"  board {board['case']} {board['version']}: order "
                             f"{[item['id'] for item in board['before']]} → {[item['id'] for item in board['after']]}")
        self._print(options, document, "\n".join(lines))

    def _switch(self, options) -> None:
        epoch = epochs.switch()
        self._print(options, {"epoch": epochs.epoch_json(epoch), "summary": epoch.summary},
                    f"the site now counts fuel with {epoch}: {epoch.summary}")

    def _drop(self, options) -> None:
        epoch = epochs.drop()
        self._print(options, {"epoch": epochs.epoch_json(epoch)}, f"dropped the candidate {epoch}")
