"""`manage.py db_worker`: django-tasks-db's worker, which refuses to start without a capped
sandbox for builds, and which waits before its next job after one met no sandbox.

Builds run as an account of their own in a cgroup of their own (scoring/building.py): a worker
that cannot give them that would build untrusted code with the site's own rights and no cap on
their sum, so it does not start (unless SCORING_ALLOW_UNCONFINED_BUILDS says this is a
development machine). A job whose build met no sandbox goes back to the queue (scoring/jobs.py);
the worker then waits as long as that job does before it takes another, so a worker whose
sandbox is broken does not empty the queue into itself.

A worker that takes scoring jobs (any queue but `epoch` alone) runs the engine the site counts
with, or does not start: an entry scored by another engine would sit on a board counted by this
one. A candidate host's workers take only the `epoch` queue (scoring/epochs/, docs/epochs.md).
"""

from __future__ import annotations

import logging
import time

from django.core.management.base import CommandError
from django_tasks_db.management.commands import db_worker as upstream

from lib.commands import BUILD_CHECKS
from scoring import building, epochs, jobs

logger = logging.getLogger(__name__)


class Worker(upstream.Worker):
    def run_task(self, db_task_result) -> None:
        super().run_task(db_task_result)
        pause = jobs.worker_pause()
        if pause and self.running:
            logger.warning("a build found no sandbox: this worker takes no job for %.1f s", pause)
            time.sleep(pause)


class Command(upstream.Command):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = ("Run queued scoring jobs (TASKS_BACKEND=database). Refuses to start where a build could not be "
            "given an account and a cgroup of its own.")

    def handle(self, *args, **options):
        problem, _ = building.build_sandbox()
        if problem is not None:
            if not building.unconfined_builds_allowed():
                raise CommandError(f"this worker cannot give a build its capped sandbox: {problem}.\n"
                                   f"To fix it: {building.HOW_TO_CONFINE}.")
            logger.warning("builds here run without an account and a cgroup of their own (%s): "
                           "SCORING_ALLOW_UNCONFINED_BUILDS is on", problem)
        queues = {name.strip() for name in (options.get("queue_name") or "").split(",") if name.strip()}
        try:
            epochs.refuse_other_engine(scoring=queues != {epochs.QUEUE})
        except epochs.EpochError as refused:
            raise CommandError(str(refused)) from None
        upstream.Worker = Worker  # the upstream command makes its worker by this name
        return super().handle(*args, **options)
