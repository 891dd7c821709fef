"""System checks of the scoring app: what this machine cannot give a build."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Warning

from engine.builds import confinement_problem
from scoring.building import HOW_TO_CONFINE, unconfined_builds_allowed


def build_cgroups(app_configs=None, **kwargs) -> list[Warning]:
    """A build gets an account and a cgroup of its own, from the build launcher or from a scorer
    that is root; where this process would have neither, say so once, at start-up (a task worker
    refuses to start then: `manage.py db_worker`). With a launcher, its own check is at the
    worker's start (asking it costs a connection)."""
    if settings.SCORING_BUILD_LAUNCHER:
        return []


    problem = confinement_problem()
    if problem is None:
        return []
    allowed = unconfined_builds_allowed()
    return [Warning(
        ("builds here run without an account and a cgroup of their own (SCORING_ALLOW_UNCONFINED_BUILDS): "
         if allowed else "builds here are refused: they cannot be given an account and a cgroup of their own: ")
        + problem,
        hint=HOW_TO_CONFINE,
        id="scoring.W001",
    )]
