"""`manage.py sandbox_status`: how builds asked for here are held, and whether a worker would start."""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from engine.toolchain import RUST_RELEASE, Toolchain
from lib.commands import SiteCommand
from scoring import building


class Command(SiteCommand):
    help = ("Say how a build asked for here is held (the build launcher, or this process), with its account "
            "range and caps; exit 1 where a task worker would refuse to start.")

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        problem, found = building.build_sandbox()
        allowed = building.unconfined_builds_allowed()
        if options["json"]:
            self.stdout.write(json.dumps({"confined": problem is None, "problem": problem,
                                          "unconfined_allowed": allowed, **found}, default=str))
        elif problem is None:
            where = f"the build launcher at {found['launcher']}" if found["launcher"] else "this process (root)"
            uids = f", build accounts {found['uids'][0]}–{found['uids'][1]}" if found.get("uids") else ""
            caps = found.get("caps", {})
            self.stdout.write(f"builds are confined by {where}{uids}: at most {caps.get('total_memory_bytes', 0):,} "
                              f"bytes, {caps.get('processes')} processes and {caps.get('cpus')} processors each")
        compiler = Toolchain.from_dict(found.get("toolchain"))
        if not options["json"]:
            self.stdout.write(f"builds use {compiler.rustc or 'no Rust compiler'}"
                              + (f", {compiler.cargo}" if compiler.cargo else ""))
            if compiler.release != RUST_RELEASE:
                self.stderr.write(f"warning: the site names rustc {RUST_RELEASE} (its starters pin it), but builds "
                                  f"here use {compiler.rustc or 'none'}: what solvers measure at home may differ")
        if problem is not None and not options["json"]:
            self.stderr.write(f"builds cannot be confined here: {problem}")
            self.stderr.write("a task worker " + ("starts anyway (SCORING_ALLOW_UNCONFINED_BUILDS)" if allowed
                                                   else f"refuses to start. To fix it: {building.HOW_TO_CONFINE}."))
        if problem is not None and not allowed:
            raise CommandError("builds cannot be confined here", returncode=1)
