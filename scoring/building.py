"""Builds for the results app: the settings' limits, and where a build runs — asked of the build
launcher (engine/builds/launcher.py) when SCORING_BUILD_LAUNCHER names one, else in this process,
which must then be root to give it an account and a cgroup of its own."""

from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from django.conf import settings

from catalog.models import CaseVersion
from engine.builds import (
    BuildAccounts,
    BuildLimits,
    BuildResult,
    SandboxUnavailable,
    build_submission,
    confinement_problem,
    sandbox_problem,
)
from engine.builds.remote import build_remotely, launcher_status
from engine.toolchain import installed


def build_limits(version: CaseVersion, *, wall_seconds: float | None = None) -> BuildLimits:
    """The limits of a build for `version` (`wall_seconds`: the whole build's, where shorter than
    both steps' timeouts and a minute)."""
    return replace(build_limits_defaults(), timeout=min(settings.SCORING_BUILD_TIMEOUT, version.max_runtime_seconds),
                   wall_seconds=wall_seconds)


def build_accounts() -> BuildAccounts:
    return BuildAccounts(uid_base=settings.SCORING_BUILD_UID_BASE, slots=settings.SCORING_BUILD_SLOTS,
                         lock_dir=Path(settings.SCORING_BUILD_SLOT_DIR))


# Builds kept within `sharing_builds()`: by source, commands and limits.
_shared: ContextVar[dict | None] = ContextVar("shared_builds", default=None)


@contextmanager
def sharing_builds() -> Iterator[None]:
    """Within it, a source built with the same [build] commands and limits is built once and its
    result (module and log) reused: `score_examples` scores each example on every version of its
    case, and versions of a case mostly build alike. A failed build is not kept."""
    token = _shared.set({})
    try:
        yield
    finally:
        _shared.reset(token)


def build_source(source: bytes, version: CaseVersion, *, wall_seconds: float | None = None) -> BuildResult:
    """Build `source` with the version's [build] commands, in the sandbox, with the settings' limits:
    by the build launcher (SCORING_BUILD_LAUNCHER) where there is one, else in this process.
    Raises SandboxUnavailable when the build cannot be held as the settings require."""
    limits = build_limits(version, wall_seconds=wall_seconds)
    shared = _shared.get()
    key = (hashlib.sha256(source).hexdigest(), version.build_install, version.build_command, version.build_module,
           limits, settings.SCORING_BUILD_LAUNCHER, settings.SCORING_BUILD_LOG_BYTES)
    if shared is not None and key in shared:
        return shared[key]
    built = _build(source, version, limits)
    if shared is not None and built.ok:
        shared[key] = built
    return built


def _build(source: bytes, version: CaseVersion, limits: BuildLimits) -> BuildResult:
    if settings.SCORING_BUILD_LAUNCHER:
        return build_remotely(settings.SCORING_BUILD_LAUNCHER, source, install=version.build_install,
                              build=version.build_command, module_path=version.build_module, limits=limits,
                              log_limit=settings.SCORING_BUILD_LOG_BYTES)
    return build_submission(
        source, install=version.build_install, build=version.build_command, module_path=version.build_module,
        limits=limits, log_limit=settings.SCORING_BUILD_LOG_BYTES, path=settings.SCORING_BUILD_PATH,
        allow_unsandboxed=settings.SCORING_ALLOW_UNSANDBOXED_BUILDS,
        allow_unconfined=settings.SCORING_ALLOW_UNCONFINED_BUILDS, accounts=build_accounts(),
    )


HOW_TO_CONFINE = ("start the build launcher as root (scripts/build-launcher --socket PATH --client-user ACCOUNT) "
                  "and set SCORING_BUILD_LAUNCHER=PATH, or run the scorer as root where cgroups can be made; on a "
                  "development machine, SCORING_ALLOW_UNCONFINED_BUILDS=1 builds in the sandbox without them "
                  "(and every page that shows such an entry says so)")


def build_sandbox() -> tuple[str | None, dict]:
    """(why a build asked for here would not be confined, or None; what holds builds here): the
    launcher's own account of itself, or this process's."""
    if settings.SCORING_BUILD_LAUNCHER:
        try:
            status = launcher_status(settings.SCORING_BUILD_LAUNCHER)
        except SandboxUnavailable as unavailable:
            return str(unavailable), {"launcher": settings.SCORING_BUILD_LAUNCHER}
        problem = None if status.get("ready") else f"the build launcher is not ready: {status.get('problem')}"
        return problem, {"launcher": settings.SCORING_BUILD_LAUNCHER, **status}
    problem = sandbox_problem() or confinement_problem()
    return problem, {"launcher": None, "uid": os.geteuid(), "caps": build_limits_defaults().__dict__,
                     "toolchain": installed().as_dict()}


def build_limits_defaults() -> BuildLimits:
    """The settings' limits of a build, for a version that allows the longest."""
    return BuildLimits(timeout=settings.SCORING_BUILD_TIMEOUT, cpus=settings.SCORING_BUILD_CPUS,
                       cpu_seconds=settings.SCORING_BUILD_CPU_SECONDS, memory_bytes=settings.SCORING_BUILD_MEMORY_BYTES,
                       file_bytes=settings.SCORING_BUILD_FILE_BYTES, processes=settings.SCORING_BUILD_PROCESSES,
                       disk_bytes=settings.SCORING_BUILD_DISK_BYTES,
                       total_memory_bytes=settings.SCORING_BUILD_TOTAL_MEMORY_BYTES,
                       module_bytes=settings.SCORING_MAX_MODULE_BYTES,
                       unpacked_bytes=settings.SCORING_MAX_UNPACKED_BYTES,
                       source_entries=settings.SCORING_MAX_SOURCE_ENTRIES)


def unconfined_builds_allowed() -> bool:
    return settings.SCORING_ALLOW_UNCONFINED_BUILDS or settings.SCORING_ALLOW_UNSANDBOXED_BUILDS


def build_wall(submission) -> float | None:
    """The whole build's wall for this entry: shorter for one an operator sent over HTTP."""
    return settings.API_BUILD_WALL_SECONDS if submission.operator_id is not None else None
