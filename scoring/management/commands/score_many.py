from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from django.core.management.base import CommandError

from lib.commands import BUILD_CHECKS, SiteCommand
from scoring.batch import check_lines, describe, run_lines, summary
from scoring.recording import ScoringError

BAR_WIDTH = 24


class Command(SiteCommand):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = ("Score many submissions from a JSON Lines file: one object per line with what `score` takes "
            "(slug, version, variant, name, submission or wasm, record, meta). Every line is checked first; "
            "lines already scored are skipped.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON Lines file (relative paths in it are read from its folder)")
        parser.add_argument("--skip-invalid", action="store_true",
                            help="score the good lines and list the bad ones (default: any bad line stops everything)")
        parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                            help="lines scored at once (default: the number of cores)")
        parser.add_argument("--enqueue", action="store_true", help="queue scoring jobs instead of scoring here")
        parser.add_argument("--json", action="store_true", help="print one JSON summary object on stdout")

    def handle(self, *args, **options):
        path = Path(options["file"])
        if options["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        try:
            checked = check_lines(path)
        except ScoringError as error:
            raise CommandError(error.message) from None
        for number, _, reason in checked.invalid:
            self.stderr.write(f"{path}:{number}: {reason}")
        if checked.invalid and not options["skip_invalid"]:
            raise CommandError(f"{len(checked.invalid)} invalid line(s) in {path}; nothing was scored "
                               "(--skip-invalid scores the valid ones)")
        total = len(checked.lines)
        finished = 0
        lock = threading.Lock()
        live = self.stderr.isatty()

        def done(line) -> None:
            nonlocal finished
            with lock:
                finished += 1
                filled = BAR_WIDTH * finished // max(total, 1)
                bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {finished}/{total}"
                text = f"{bar} line {line.number}: {describe(line)}"
                self.stderr.write(("\r\033[K" if live else "") + text, ending="\n")

        lines = run_lines(checked.lines, jobs=options["jobs"], enqueue=options["enqueue"], done=done)
        report = summary(path, checked, lines)
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self.stdout.write(", ".join(f"{report[key]} {key}" for key in ("scored", "queued", "skipped", "failed",
                                                                          "invalid")))
        if report["failed"]:
            raise CommandError(f"{report['failed']} line(s) failed; the others were stored")
