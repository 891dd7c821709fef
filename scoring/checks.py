"""System checks of the scoring app: what this machine cannot give a build."""

from __future__ import annotations

from django.core.checks import Warning


def build_cgroups(app_configs=None, **kwargs) -> list[Warning]:
    """Each build's processes and files are bounded together only inside a cgroup of its own;
    where none can be made, say so once, at start-up."""
    from engine.builds.cgroups import cgroup_problem

    problem = cgroup_problem()
    if problem is None:
        return []
    return [Warning(
        "builds run without a cgroup of their own: their total memory and process count are bounded "
        f"only per process ({problem})",
        hint="run scorers as root where cgroup v1's memory and pids hierarchies are writable, or in a cgroup v2 "
             "subtree delegated to them with both controllers (README: Deploying)",
        id="scoring.W001",
    )]
