"""The build launcher's caps: the most any build it runs may have, and how many it runs at once,
read strictly from its environment (the names and defaults of the site's own settings, so one
environment configures both)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from engine.builds import protocol
from engine.builds.accounts import BLOCK
from engine.builds.limits import BuildLimits

# The launcher's caps, from its environment: the names (and defaults) of the site's own settings,
# so one environment configures both.
CAPS_FROM_ENVIRONMENT = {
    "timeout": ("SCORING_BUILD_TIMEOUT", float, 900.0),
    "cpu_seconds": ("SCORING_BUILD_CPU_SECONDS", int, BuildLimits.cpu_seconds),
    "memory_bytes": ("SCORING_BUILD_MEMORY_BYTES", int, BuildLimits.memory_bytes),
    "file_bytes": ("SCORING_BUILD_FILE_BYTES", int, BuildLimits.file_bytes),
    "processes": ("SCORING_BUILD_PROCESSES", int, BuildLimits.processes),
    "total_memory_bytes": ("SCORING_BUILD_TOTAL_MEMORY_BYTES", int, BuildLimits.total_memory_bytes),
    "disk_bytes": ("SCORING_BUILD_DISK_BYTES", int, BuildLimits.disk_bytes),
    "module_bytes": ("SCORING_MAX_MODULE_BYTES", int, BuildLimits.module_bytes),
    "unpacked_bytes": ("SCORING_MAX_UNPACKED_BYTES", int, BuildLimits.unpacked_bytes),
    "source_entries": ("SCORING_MAX_SOURCE_ENTRIES", int, BuildLimits.source_entries),
    "cpus": ("SCORING_BUILD_CPUS", float, BuildLimits.cpus),
}


def _physical_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


OTHER_SETTINGS = {
    "source_bytes": ("SCORING_MAX_SOURCE_BYTES", int, 32 << 20),
    "log_bytes": ("SCORING_BUILD_LOG_BYTES", int, 64 << 10),
    "uid_base": ("SCORING_BUILD_UID_BASE", int, 2_000_000_000),
    "slots": ("SCORING_BUILD_SLOTS", int, 8),
    # Every build of the launcher together, and the launcher itself (the sources it holds).
    "all_memory_bytes": ("SCORING_BUILDS_MEMORY_BYTES", int, _physical_memory() * 3 // 4),
    "all_processes": ("SCORING_BUILDS_PROCESSES", int, 4096),
    "all_cpus": ("SCORING_BUILDS_CPUS", float, float(os.cpu_count() or 1)),
}


class LauncherError(Exception):
    """The launcher cannot start; the message says why and what to do."""


def _setting(environ, name: str, parse, default):
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        raise LauncherError(f"{name}={raw!r} is not {'an integer' if parse is int else 'a number'}") from None
    if not value > 0 or value == float("inf"):
        raise LauncherError(f"{name}={raw!r} must be a positive finite number")
    return value


@dataclass(frozen=True)
class Caps:
    limits: BuildLimits  # the most any build may have
    source_bytes: int
    log_bytes: int
    uid_base: int
    slots: int
    all_memory_bytes: int
    all_processes: int
    all_cpus: float
    path: str

    @classmethod
    def from_environment(cls, environ=os.environ) -> "Caps":
        limits = BuildLimits(**{field: _setting(environ, *spec) for field, spec in CAPS_FROM_ENVIRONMENT.items()})
        limits = replace(limits, wall_seconds=limits.wall)  # the longest wall a build may ask for
        other = {field: _setting(environ, *spec) for field, spec in OTHER_SETTINGS.items()}
        if other["slots"] > BLOCK:
            raise LauncherError(f"SCORING_BUILD_SLOTS={other['slots']} is more than {BLOCK}")
        return cls(limits, path=environ.get("SCORING_BUILD_PATH", "/usr/bin:/bin:/usr/sbin:/sbin"), **other)

    def clamp(self, asked: dict) -> BuildLimits:
        """The limits asked for, each at most the launcher's own. Raises ProtocolError."""
        if not isinstance(asked, dict):
            raise protocol.ProtocolError("limits must be an object")
        known = {field.name: field for field in fields(BuildLimits)}
        values = {}
        for key, value in asked.items():
            if key not in known:
                raise protocol.ProtocolError(f"limits.{key} is not a build limit")
            if key == "wall_seconds" and value is None:
                continue
            integer = known[key].type == "int"
            values[key] = min(protocol.number(value, f"limits.{key}", integer=integer), getattr(self.limits, key))
        if "timeout" not in values:
            raise protocol.ProtocolError("limits.timeout is required")
        clamped = BuildLimits(**{name: getattr(self.limits, name) for name in known} | {"wall_seconds": None} | values)
        return replace(clamped, wall_seconds=min(clamped.wall, self.limits.wall))


def concurrent_builds(caps: Caps) -> int:
    """How many builds run at once: SCORING_BUILD_SLOTS, but no more than the cgroup over them all
    holds at their full caps, so that cap never makes the kernel choose a build to kill (each
    build's own cap is met first)."""
    limits = caps.limits
    return max(1, min(caps.slots, caps.all_memory_bytes // limits.total_memory_bytes,
                      caps.all_processes // limits.processes))
